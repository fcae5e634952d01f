// Reading a Parquet data file into DuckDB chunks: Tide's ParquetChunkReader against a DuckDB streaming
// query of the same CASTs on one thread (what columnar_split_reader runs per file today).
//
// The file: 2M orders-like rows written by ParquetFileWriter (order_id BIGINT NOT NULL, user_id BIGINT,
// amount DECIMAL(10,2), status STRING of 5 values, create_time / update_time TIMESTAMP(3)), row groups of
// 16,384 rows, zstd level 1. Each side reads every column of every row; best of 3 runs.
// Usage: parquet_chunk_reader_bench [rows [codec [tide|duckdb]]] (codec zstd by default; `uncompressed`
// shows the decoding cost without decompression). Thread-safety: single-threaded.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>
#include <filesystem>
#include <string>
#include <vector>

#include "tide/format/duckdb_handle.h"
#include "tide/format/parquet_chunk_reader.h"
#include "tide/format/parquet_writer.h"

namespace tide {
namespace {

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

void Check(const Status& st, const char* what) {
  if (!st.ok()) {
    std::fprintf(stderr, "%s: %s\n", what, st.ToString().c_str());
    std::exit(1);
  }
}

template <typename T>
T Must(Result<T> r, const char* what) {
  Check(r.status(), what);
  return std::move(r).value();
}

struct Column {
  const char* name;
  const char* type;
};
constexpr Column kColumns[] = {{"order_id", "BIGINT"},       {"user_id", "BIGINT"},
                               {"amount", "DECIMAL(10,2)"},  {"status", "VARCHAR"},
                               {"create_time", "TIMESTAMP"}, {"update_time", "TIMESTAMP"}};

void WriteOrders(const DuckDB& db, const std::string& path, int64_t rows, const std::string& codec) {
  std::vector<ParquetColumnSpec> specs = {{"order_id", 0, DataType::BigInt(false)},
                                          {"user_id", 1, DataType::BigInt()},
                                          {"amount", 2, DataType::Decimal(10, 2)},
                                          {"status", 3, DataType::String()},
                                          {"create_time", 4, DataType::Timestamp(3)},
                                          {"update_time", 5, DataType::Timestamp(3)}};
  ParquetWriteOptions options;
  options.compression = codec;
  options.compression_level = 1;
  options.row_group_rows = 16384;
  auto writer = Must(ParquetFileWriter::Create(db, path, specs, options), "create writer");
  static const char* kStatus[] = {"created", "paid", "shipped", "delivered", "cancelled"};
  uint64_t x = 88172645463325252ull;
  for (int64_t i = 0; i < rows; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    const int64_t created = 1700000000000 + i * 1000 + static_cast<int64_t>(x % 1000);
    Row row{Datum(i), Datum(static_cast<int64_t>(x % 1000000)), Datum(DecimalValue{static_cast<int64_t>(x % 10000000)}),
            Datum(kStatus[x % 5]), Datum(TimestampValue{created, 0}),
            Datum(TimestampValue{created + static_cast<int64_t>(x % 86400000), 0})};
    Check(writer->Append(row), "append");
  }
  Must(writer->Finish(), "finish");
}

// The output type of a column of kColumns, built with the C API (no query).
DuckLogicalType OutputType(const Column& c) {
  const std::string type = c.type;
  if (type == "BIGINT") return DuckLogicalType(duckdb_create_logical_type(DUCKDB_TYPE_BIGINT));
  if (type == "VARCHAR") return DuckLogicalType(duckdb_create_logical_type(DUCKDB_TYPE_VARCHAR));
  if (type == "TIMESTAMP") return DuckLogicalType(duckdb_create_logical_type(DUCKDB_TYPE_TIMESTAMP));
  return DuckLogicalType(duckdb_create_decimal_type(10, 2));
}

// Reads every column with ParquetChunkReader; returns the rows seen.
int64_t ReadWithChunkReader(const std::string& path) {
  std::vector<ParquetChunkColumn> columns;
  for (const Column& c : kColumns) columns.push_back({c.name, std::nullopt, OutputType(c)});
  auto reader = Must(ParquetChunkReader::Open(path, std::move(columns)), "open reader");
  int64_t rows = 0;
  while (true) {
    DuckDataChunk chunk = Must(reader->Next(), "next");
    if (!chunk) break;
    rows += static_cast<int64_t>(chunk.size());
  }
  return rows;
}

// Reads the same through a DuckDB streaming query on a single-threaded database.
int64_t ReadWithDuckDB(DuckConnection& conn, const std::string& path) {
  std::string sql = "SELECT ";
  for (const Column& c : kColumns) {
    if (sql.size() > 7) sql += ", ";
    sql += std::string("CAST(") + QuoteSqlIdentifier(c.name) + " AS " + c.type + ")";
  }
  sql += " FROM read_parquet(" + QuoteSqlString(path) + ", hive_partitioning = false, binary_as_string = false)";
  DuckResult result = Must(conn.QueryStreaming(sql), "query");
  int64_t rows = 0;
  while (DuckDataChunk chunk = result.FetchChunk()) rows += static_cast<int64_t>(chunk.size());
  Check(result.error(), "stream");
  return rows;
}

template <typename F>
double BestOf3(F&& run, int64_t expected_rows, const char* what) {
  double best = 1e30;
  for (int i = 0; i < 3; ++i) {
    auto start = std::chrono::steady_clock::now();
    int64_t rows = run();
    double s = Seconds(start);
    if (rows != expected_rows) {
      std::fprintf(stderr, "%s read %lld rows, expected %lld\n", what, static_cast<long long>(rows),
                   static_cast<long long>(expected_rows));
      std::exit(1);
    }
    best = std::min(best, s);
  }
  return best;
}

int Main(int argc, char** argv) {
  const int64_t rows = argc > 1 ? std::atoll(argv[1]) : 2000000;
  auto dir = std::filesystem::temp_directory_path() / ("tide-pcr-bench-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "orders.parquet").string();
  DuckDB db = Must(DuckDB::Open(":memory:", {{"threads", "1"}}), "open duckdb");
  DuckConnection conn = Must(db.Connect(), "connect");
  auto start = std::chrono::steady_clock::now();
  const std::string codec = argc > 2 ? argv[2] : "zstd";
  WriteOrders(db, path, rows, codec);
  std::printf("wrote %lld rows (%.1f MB, %s) in %.2f s\n", static_cast<long long>(rows),
              std::filesystem::file_size(path) / 1e6, codec.c_str(), Seconds(start));

  // A third argument `tide` or `duckdb` runs one side only (for profiling).
  const std::string only = argc > 3 ? argv[3] : "";
  double ours = only == "duckdb" ? 0 : BestOf3([&] { return ReadWithChunkReader(path); }, rows, "ParquetChunkReader");
  double duck = only == "tide" ? 0 : BestOf3([&] { return ReadWithDuckDB(conn, path); }, rows, "DuckDB");
  std::printf("ParquetChunkReader:            %.3f s (%.1f M rows/s)\n", ours, rows / ours / 1e6);
  std::printf("DuckDB streaming, 1 thread:    %.3f s (%.1f M rows/s)\n", duck, rows / duck / 1e6);
  std::printf("ratio DuckDB / ParquetChunkReader: %.2fx\n", duck / ours);

  // Small files, where the per-file query (planning, result machinery) dominates: one 1,000-row file
  // opened and read 200 times by each side.
  const std::string small = (dir / "small.parquet").string();
  WriteOrders(db, small, 1000, codec);
  constexpr int kOpens = 200;
  double small_ours = only == "duckdb" ? 0 : BestOf3([&] {
    int64_t n = 0;
    for (int i = 0; i < kOpens; ++i) n += ReadWithChunkReader(small);
    return n;
  }, 1000 * kOpens, "ParquetChunkReader (small)");
  double small_duck = only == "tide" ? 0 : BestOf3([&] {
    int64_t n = 0;
    for (int i = 0; i < kOpens; ++i) n += ReadWithDuckDB(conn, small);
    return n;
  }, 1000 * kOpens, "DuckDB (small)");
  std::printf("1,000-row file, per open+read: ParquetChunkReader %.3f ms, DuckDB %.3f ms, ratio %.2fx\n",
              small_ours / kOpens * 1e3, small_duck / kOpens * 1e3, small_duck / small_ours);
  std::filesystem::remove_all(dir);
  return 0;
}

}  // namespace
}  // namespace tide

int main(int argc, char** argv) { return tide::Main(argc, argv); }
