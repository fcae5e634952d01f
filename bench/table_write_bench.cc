// Write-path throughput: TableWrite writing the field report's `orders` table (order_id BIGINT primary
// key, user_id BIGINT, amount DECIMAL(10,2), status STRING, create_time and update_time TIMESTAMP(3))
// into a Paimon table (write buffer, sort, merge, Parquet + zstd files, DataFileMeta), against DuckDB's
// own `COPY orders TO 'x.parquet' (FORMAT parquet, COMPRESSION zstd)` of the same rows from a DuckDB
// table. The rows arrive in random key order (so Tide's figure includes its sort); the rows are built
// before either clock starts. Best of 3 runs each; prints both figures and the ratio.
//
//   build/bench/table_write_bench [rows (default 2000000)] [bucket (default 1)]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "tide/format/duckdb_handle.h"
#include "tide/format/duckdb_vector_encoder.h"
#include "tide/io/file_system.h"
#include "tide/table/sink/table_write.h"
#include "orders_bench_util.h"

using namespace tide;

namespace {

using bench::Check;
using bench::OrdersSchema;
using bench::Seconds;

struct TideRun {
  double seconds = 0;
  int64_t files = 0;
  int64_t bytes = 0;
  int64_t memory_flushes = 0;
};

TideRun RunTide(const std::string& root, int round, const TableSchema& schema, std::vector<Row> rows) {
  std::string path = root + "/tide-" + std::to_string(round) + "/default.db/orders";
  FileSystem* fs = FileSystem::Local();
  Check(fs->WriteFileExclusive(path + "/schema/schema-0", schema.ToJson()), "create table");
  auto start = std::chrono::steady_clock::now();
  auto writer = TableWrite::Create(fs, path, schema, "bench");
  Check(writer.status(), "TableWrite::Create");
  for (Row& row : rows) Check((*writer)->Write(RowKind::kInsert, std::move(row)), "Write");
  auto messages = (*writer)->PrepareCommit();
  Check(messages.status(), "PrepareCommit");
  TideRun run;
  run.seconds = Seconds(start);
  for (const auto& m : *messages) {
    for (const auto& f : m.new_files) {
      ++run.files;
      run.bytes += f.file_size;
    }
  }
  run.memory_flushes = (*writer)->metrics().memory_flushes;
  return run;
}

}  // namespace

int main(int argc, char** argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 2000000;
  int bucket = argc > 2 ? std::atoi(argv[2]) : 1;
  char root_template[] = "/tmp/tide-write-bench-XXXXXX";
  const char* root = mkdtemp(root_template);
  if (root == nullptr) return 1;
  TableSchema schema = OrdersSchema(bucket);
  std::printf("table_write_bench: %lld orders rows (random key order), bucket = %d, write-buffer-size %lld MiB\n",
              static_cast<long long>(n), bucket, static_cast<long long>(kTideDefaultWriteBufferSize >> 20));
  std::vector<Row> rows = bench::RandomOrderRows(n);

  auto db = DuckDB::Open();
  Check(db.status(), "DuckDB");
  auto conn = db->Connect();
  Check(conn.status(), "connect");
  size_t loaded = 0;
  bench::LoadOrdersTable(*conn, schema, [&](Row* row) {
    if (loaded == rows.size()) return false;
    *row = rows[loaded++];
    return true;
  });

  double best_tide = 1e300, best_duck = 1e300;
  for (int round = 0; round < 3; ++round) {
    TideRun tide = RunTide(root, round, schema, rows);
    std::printf("  tide TableWrite:      %.2f s  (%lld files, %.1f MB, %lld memory flushes)\n", tide.seconds,
                static_cast<long long>(tide.files), tide.bytes / 1e6, static_cast<long long>(tide.memory_flushes));
    best_tide = std::min(best_tide, tide.seconds);

    std::string out = std::string(root) + "/duck-" + std::to_string(round) + ".parquet";
    auto start = std::chrono::steady_clock::now();
    Check(conn->Execute("COPY orders TO '" + out + "' (FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL 1)"),
          "COPY");
    double duck = Seconds(start);
    auto info = FileSystem::Local()->Stat(out);
    std::printf("  duckdb COPY TO:       %.2f s  (1 file, %.1f MB)\n", duck, info.ok() ? info->size / 1e6 : 0.0);
    best_duck = std::min(best_duck, duck);
  }
  std::printf("best of 3: tide %.2f s (%.0f rows/s), duckdb %.2f s (%.0f rows/s), ratio tide/duckdb %.2f\n",
              best_tide, n / best_tide, best_duck, n / best_duck, best_tide / best_duck);
  FileSystem::Local()->DeleteRecursively(root).IgnoreError();
  return 0;
}
