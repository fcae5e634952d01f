// Read-path figures of a primary-key table: a full scan and point lookups, each against DuckDB reading
// the same final rows from one Parquet file, measured in the same run.
//
// The table is the field report's `orders` table (order_id BIGINT primary key, user_id BIGINT,
// amount DECIMAL(10,2), status STRING, create_time and update_time TIMESTAMP(3)), written by TableWrite
// and committed by FileStoreCommit in 5 commits, so each bucket holds 5 level-0 files (sorted runs):
// commit 1 inserts every key, commits 2..5 each update a random 20-40% of the keys and delete 1% of them
// (a deleted key that a later commit updates is inserted again). Reading the table therefore merges
// the runs key by key. The expected final rows are kept beside, and DuckDB writes them (zstd, as
// Tide's files) to one Parquet file, the reference.
//
// Scan: Tide opens the table, plans the latest snapshot and reads every row through TableReader
// (k-way merge, deduplicate engine) as Rows of Datum, folding every value of every row into a checksum;
// the checksum and row count are checked against the expected rows. DuckDB runs
// `SELECT count(*), sum(hash(<all six columns>)) FROM read_parquet('<one file>')`, which decodes every
// value of every row too. Best of 3 each, with process CPU time. For context the same run also times
// DuckDB over the table's 5 data files unmerged, and DuckDB merging them in SQL.
// Lookup: 200 random keys (some deleted). Tide: Table::NewReader with ReadOptions::primary_key_equals
// on an opened Table (each lookup reads the snapshot and manifests, prunes files by key range, reads
// the key's rows with a pushed-down filter, newest file first), checked against the expected row. DuckDB:
// `SELECT * FROM read_parquet('<one file>') WHERE order_id = <key>` per key. Median and p99.
//
//   build/bench/table_scan_bench [rows (default 2000000)] [bucket (default 1)] [all|scan|lookup]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "tide/format/duckdb_handle.h"
#include "tide/format/duckdb_vector_encoder.h"
#include "tide/io/file_system.h"
#include "tide/table/file_store_commit.h"
#include "tide/table/table.h"
#include "tide/table/table_write.h"
#include "orders_bench_util.h"

using namespace tide;

namespace {

constexpr int kRuns = 5;
constexpr int kLookups = 200;
const char* const kStatus[] = {"created", "paid", "shipped", "delivered", "cancelled"};

using bench::Check;
using bench::OrdersSchema;
using bench::Seconds;

// One order as the table holds it after the commits (compact, so the expected table is cheap to keep).
struct Order {
  bool live = false;
  int64_t user_id = 0;
  int64_t amount_cents = 0;
  uint8_t status = 0;
  int64_t create_time = 0;
  int64_t update_time = 0;
};

Row OrderRow(int64_t id, const Order& o) {
  return Row{Datum(id), Datum(o.user_id), Datum(DecimalValue{static_cast<int128_t>(o.amount_cents)}),
             Datum(kStatus[o.status]), Datum(TimestampValue{o.create_time, 0}), Datum(TimestampValue{o.update_time, 0})};
}

uint64_t Mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h;
}

// A checksum over every value of a row (order-independent across rows: rows are summed).
uint64_t RowChecksum(const Row& row) {
  uint64_t h = 0;
  for (const Datum& d : row) {
    const auto& s = d.storage();
    if (const auto* i = std::get_if<int64_t>(&s)) {
      h = Mix(h, static_cast<uint64_t>(*i));
    } else if (const auto* dec = std::get_if<DecimalValue>(&s)) {
      h = Mix(h, static_cast<uint64_t>(dec->unscaled));
    } else if (const auto* ts = std::get_if<TimestampValue>(&s)) {
      h = Mix(h, static_cast<uint64_t>(ts->millis) * 1000003u + static_cast<uint64_t>(ts->nanos_of_milli));
    } else if (const auto* str = std::get_if<std::string>(&s)) {
      h = Mix(h, std::hash<std::string_view>()(*str));
    } else {
      h = Mix(h, 0x5bd1e995u);  // NULL (the orders rows have none)
    }
  }
  return h;
}

struct BuiltTable {
  std::vector<Order> orders;  // index = order_id - 1
  int64_t live_rows = 0;
  int64_t stored_rows = 0;
  int64_t files = 0;
};

BuiltTable BuildTable(const std::string& path, const TableSchema& schema, int64_t n) {
  FileSystem* fs = FileSystem::Local();
  Check(fs->WriteFileExclusive(path + "/schema/schema-0", schema.ToJson()), "create table");
  BuiltTable built;
  built.orders.resize(static_cast<size_t>(n));
  std::mt19937_64 rng(7);
  auto committer = FileStoreCommit::Create(fs, path, "bench.orders");
  Check(committer.status(), "FileStoreCommit::Create");
  for (int run = 0; run < kRuns; ++run) {
    TableWriteConfig config;
    config.write_buffer_size = int64_t{4} << 30;  // one file per bucket and commit
    config.target_file_size = int64_t{4} << 30;
    auto writer = TableWrite::Create(fs, path, schema, "bench", config);
    Check(writer.status(), "TableWrite::Create");
    double update_share = run == 0 ? 1.0 : 0.2 + 0.2 * static_cast<double>(rng() % 1000) / 1000.0;
    for (int64_t id = 1; id <= n; ++id) {
      Order& o = built.orders[static_cast<size_t>(id - 1)];
      double pick = static_cast<double>(rng() % 1000000) / 1000000.0;
      if (run > 0 && pick < 0.01) {
        if (!o.live) continue;
        o.live = false;
        Check((*writer)->Write(RowKind::kDelete, OrderRow(id, o)), "Write");
        ++built.stored_rows;
        continue;
      }
      if (pick >= update_share) continue;
      if (run == 0) {
        o.create_time = 1700000000000 + static_cast<int64_t>(rng() % 31536000000ULL);
        o.update_time = o.create_time;
      }
      o.live = true;
      o.user_id = static_cast<int64_t>(rng() % 100000);
      o.amount_cents = static_cast<int64_t>(rng() % 10000000);
      o.status = static_cast<uint8_t>(rng() % 5);
      o.update_time += static_cast<int64_t>(rng() % 86400000);
      Check((*writer)->Write(RowKind::kInsert, OrderRow(id, o)), "Write");
      ++built.stored_rows;
    }
    auto messages = (*writer)->PrepareCommit();
    Check(messages.status(), "PrepareCommit");
    for (const auto& m : *messages) built.files += static_cast<int64_t>(m.new_files.size());
    CommitOptions options;
    options.commit_user = "bench";
    options.commit_identifier = run + 1;
    Check((*committer)->Commit(*messages, options).status(), "Commit");
  }
  for (const Order& o : built.orders) built.live_rows += o.live ? 1 : 0;
  return built;
}

// The expected final rows, written by DuckDB to one Parquet file.
void WriteReference(DuckConnection& conn, const TableSchema& schema, const BuiltTable& built, const std::string& out) {
  Check(conn.Execute("CREATE TABLE orders (order_id BIGINT, user_id BIGINT, amount DECIMAL(10,2), status VARCHAR, "
                     "create_time TIMESTAMP_MS, update_time TIMESTAMP_MS)"),
        "create DuckDB table");
  auto appender = conn.CreateAppender("orders");
  Check(appender.status(), "appender");
  std::vector<DuckLogicalType> types;
  std::vector<duckdb_logical_type> raw;
  for (const auto& f : schema.fields) {
    auto t = ParquetStorageType(f.type, f.name);
    Check(t.status(), "type");
    types.push_back(std::move(t).value());
    raw.push_back(types.back().raw());
  }
  const idx_t vector_size = duckdb_vector_size();
  size_t next = 0;
  while (next < built.orders.size()) {
    DuckDataChunk chunk(duckdb_create_data_chunk(raw.data(), raw.size()));
    idx_t r = 0;
    for (; r < vector_size && next < built.orders.size(); ++next) {
      const Order& o = built.orders[next];
      if (!o.live) continue;
      Row row = OrderRow(static_cast<int64_t>(next + 1), o);
      for (size_t c = 0; c < schema.fields.size(); ++c) {
        Check(EncodeDatum(chunk.column(c), r, row[c], schema.fields[c].type, schema.fields[c].name), "encode");
      }
      ++r;
    }
    duckdb_data_chunk_set_size(chunk.raw(), r);
    Check(appender->AppendChunk(chunk), "append");
  }
  Check(appender->Close(), "appender close");
  Check(conn.Execute("COPY (SELECT * FROM orders ORDER BY order_id) TO '" + out +
                     "' (FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL 1)"),
        "COPY");
  Check(conn.Execute("DROP TABLE orders"), "drop");
}

struct ScanResult {
  double seconds = 0;
  int64_t rows = 0;
  uint64_t checksum = 0;
};

ScanResult TideScan(const std::string& path) {
  auto start = std::chrono::steady_clock::now();
  auto table = Table::Open(FileSystem::Local(), path, "bench.orders");
  Check(table.status(), "Table::Open");
  auto reader = (*table)->NewReader(ReadOptions{});
  Check(reader.status(), "NewReader");
  ScanResult result;
  std::vector<Row> batch;
  while (true) {
    batch.clear();
    auto more = (*reader)->NextBatch(8192, &batch);
    Check(more.status(), "NextBatch");
    if (!*more) break;
    for (const Row& row : batch) result.checksum += RowChecksum(row);
    result.rows += static_cast<int64_t>(batch.size());
  }
  result.seconds = Seconds(start);
  return result;
}

Result<DuckDataChunk> QueryOneChunk(DuckConnection& conn, const std::string& sql, DuckResult* holder) {
  TIDE_ASSIGN_OR_RETURN(*holder, conn.Query(sql));
  return holder->FetchChunk();
}

double CpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Runs a one-row DuckDB query; returns wall seconds, process CPU seconds and the first column (a count).
struct DuckRun {
  double seconds = 0;
  double cpu = 0;
  int64_t rows = 0;
};
DuckRun RunDuckCount(DuckConnection& conn, const std::string& sql) {
  DuckRun run;
  double cpu = CpuSeconds();
  auto start = std::chrono::steady_clock::now();
  DuckResult holder;
  auto chunk = QueryOneChunk(conn, sql, &holder);
  Check(chunk.status(), sql.c_str());
  run.seconds = Seconds(start);
  run.cpu = CpuSeconds() - cpu;
  run.rows = *static_cast<const int64_t*>(duckdb_vector_get_data(chunk->column(0)));
  return run;
}

double Percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  size_t i = static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

}  // namespace

int main(int argc, char** argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 2000000;
  int bucket = argc > 2 ? std::atoi(argv[2]) : 1;
  std::string mode = argc > 3 ? argv[3] : "all";  // all, scan or lookup
  bool run_scan = mode != "lookup", run_lookup = mode != "scan";
  char root_template[] = "/tmp/tide-scan-bench-XXXXXX";
  const char* root = mkdtemp(root_template);
  if (root == nullptr) return 1;
  std::string path = std::string(root) + "/default.db/orders";
  std::string reference = std::string(root) + "/orders-final.parquet";
  TableSchema schema = OrdersSchema(bucket);

  auto build_start = std::chrono::steady_clock::now();
  BuiltTable built = BuildTable(path, schema, n);
  auto db = DuckDB::Open();
  Check(db.status(), "DuckDB");
  auto conn = db->Connect();
  Check(conn.status(), "connect");
  WriteReference(*conn, schema, built, reference);
  uint64_t expected_checksum = 0;
  for (size_t i = 0; i < built.orders.size(); ++i) {
    if (built.orders[i].live) expected_checksum += RowChecksum(OrderRow(static_cast<int64_t>(i + 1), built.orders[i]));
  }
  std::printf("table_scan_bench: orders, %lld keys, bucket = %d, %d commits -> %lld data files holding %lld rows; "
              "%lld live rows (set up in %.1f s)\n",
              static_cast<long long>(n), bucket, kRuns, static_cast<long long>(built.files),
              static_cast<long long>(built.stored_rows), static_cast<long long>(built.live_rows), Seconds(build_start));

  // --- Full scan.
  if (run_scan) {
  const std::string all_columns = "order_id, user_id, amount, status, create_time, update_time";
  const std::string duck_scan =
      "SELECT count(*), sum(hash(" + all_columns + ")) FROM read_parquet('" + reference + "')";
  // Context: DuckDB over the table's own data files, without merging them, and with the merge done
  // in SQL (the newest row of each key by _SEQUENCE_NUMBER, deletes dropped).
  const std::string runs = "read_parquet('" + path + "/bucket-*/*.parquet', hive_partitioning = false)";
  const std::string duck_runs = "SELECT count(*), sum(hash(" + all_columns + ")) FROM " + runs;
  const std::string duck_merge = "SELECT count(*), sum(hash(" + all_columns + ")) FROM (SELECT * FROM " + runs +
                                 " QUALIFY row_number() OVER (PARTITION BY order_id ORDER BY _SEQUENCE_NUMBER DESC)"
                                 " = 1) WHERE _VALUE_KIND IN (0, 2)";
  double best_tide = 1e300, best_duck = 1e300, best_runs = 1e300, best_merge = 1e300;
  double tide_cpu = 0, duck_cpu = 0;
  for (int round = 0; round < 3; ++round) {
    double cpu = CpuSeconds();
    ScanResult tide = TideScan(path);
    cpu = CpuSeconds() - cpu;
    if (tide.rows != built.live_rows || tide.checksum != expected_checksum) {
      std::fprintf(stderr, "Tide's scan returned %lld rows (checksum %llx), expected %lld (checksum %llx)\n",
                   static_cast<long long>(tide.rows), static_cast<unsigned long long>(tide.checksum),
                   static_cast<long long>(built.live_rows), static_cast<unsigned long long>(expected_checksum));
      return 1;
    }
    if (tide.seconds < best_tide) {
      best_tide = tide.seconds;
      tide_cpu = cpu;
    }
    DuckRun duck = RunDuckCount(*conn, duck_scan);
    DuckRun duck_unmerged = RunDuckCount(*conn, duck_runs);
    DuckRun duck_merged = RunDuckCount(*conn, duck_merge);
    if (duck.rows != built.live_rows || duck_merged.rows != built.live_rows || duck_unmerged.rows != built.stored_rows) {
      std::fprintf(stderr, "DuckDB counted %lld / %lld / %lld rows, expected %lld / %lld / %lld\n",
                   static_cast<long long>(duck.rows), static_cast<long long>(duck_unmerged.rows),
                   static_cast<long long>(duck_merged.rows), static_cast<long long>(built.live_rows),
                   static_cast<long long>(built.stored_rows), static_cast<long long>(built.live_rows));
      return 1;
    }
    if (duck.seconds < best_duck) {
      best_duck = duck.seconds;
      duck_cpu = duck.cpu;
    }
    best_runs = std::min(best_runs, duck_unmerged.seconds);
    best_merge = std::min(best_merge, duck_merged.seconds);
    std::printf("  scan round %d: tide %.3f s (%.2f CPU-s); duckdb one file %.3f s (%.2f CPU-s); duckdb over the "
                "runs unmerged %.3f s, merged in SQL %.3f s\n",
                round + 1, tide.seconds, cpu, duck.seconds, duck.cpu, duck_unmerged.seconds, duck_merged.seconds);
  }
  std::printf("scan best of 3: tide %.3f s (%.0f rows/s, %.2f CPU-s), duckdb one file %.3f s (%.0f rows/s, %.2f "
              "CPU-s), ratio duckdb/tide %.2f (goal >= 0.5: %s)\n",
              best_tide, built.live_rows / best_tide, tide_cpu, best_duck, built.live_rows / best_duck, duck_cpu,
              best_duck / best_tide, best_duck / best_tide >= 0.5 ? "met" : "not met");
  std::printf("  context: duckdb over the %lld unmerged rows of the runs %.3f s; duckdb merging the runs in SQL "
              "%.3f s (ratio to tide %.2f)\n",
              static_cast<long long>(built.stored_rows), best_runs, best_merge, best_merge / best_tide);
  }

  // --- Point lookups.
  if (run_lookup) {
  auto table = Table::Open(FileSystem::Local(), path, "bench.orders");
  Check(table.status(), "Table::Open");
  std::mt19937_64 rng(99);
  std::vector<int64_t> keys;
  for (int i = 0; i < kLookups; ++i) keys.push_back(1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(n)));
  std::vector<double> tide_ms, plan_ms, duck_ms;
  int found = 0;
  for (int64_t key : keys) {
    const Order& expected = built.orders[static_cast<size_t>(key - 1)];
    auto start = std::chrono::steady_clock::now();
    ReadOptions options;
    options.primary_key_equals = Row{Datum(key)};
    auto reader = (*table)->NewReader(options);
    Check(reader.status(), "NewReader (lookup)");
    plan_ms.push_back(Seconds(start) * 1e3);
    std::vector<Row> rows;
    while (true) {
      auto more = (*reader)->NextBatch(16, &rows);
      Check(more.status(), "NextBatch (lookup)");
      if (!*more) break;
    }
    tide_ms.push_back(Seconds(start) * 1e3);
    bool ok = expected.live ? rows.size() == 1 && rows[0] == OrderRow(key, expected) : rows.empty();
    if (!ok) {
      std::fprintf(stderr, "Tide's lookup of order_id %lld returned %zu rows, not the expected row\n",
                   static_cast<long long>(key), rows.size());
      return 1;
    }
    found += expected.live ? 1 : 0;

    start = std::chrono::steady_clock::now();
    DuckResult holder;
    auto chunk = QueryOneChunk(*conn, "SELECT * FROM read_parquet('" + reference + "') WHERE order_id = " +
                                          std::to_string(key), &holder);
    Check(chunk.status(), "DuckDB lookup");
    duck_ms.push_back(Seconds(start) * 1e3);
    size_t duck_rows = *chunk ? chunk->size() : 0;
    if (duck_rows != (expected.live ? 1u : 0u)) {
      std::fprintf(stderr, "DuckDB's lookup of order_id %lld returned %zu rows\n", static_cast<long long>(key),
                   duck_rows);
      return 1;
    }
  }
  double tide_median = Percentile(tide_ms, 0.5), tide_p99 = Percentile(tide_ms, 0.99);
  double duck_median = Percentile(duck_ms, 0.5), duck_p99 = Percentile(duck_ms, 0.99);
  std::printf("lookup of %d random keys (%d live): tide median %.2f ms, p99 %.2f ms; duckdb median %.2f ms, p99 "
              "%.2f ms; ratio tide/duckdb (median) %.2f (goal tide < 20 ms: %s)\n",
              kLookups, found, tide_median, tide_p99, duck_median, duck_p99, tide_median / duck_median,
              tide_p99 < 20.0 ? "met" : (tide_median < 20.0 ? "met at the median, not at p99" : "not met"));
  std::printf("  of each tide lookup, planning (Table::NewReader: snapshot, manifests) took median %.2f ms\n",
              Percentile(plan_ms, 0.5));
  }
  FileSystem::Local()->DeleteRecursively(root).IgnoreError();
  return 0;
}
