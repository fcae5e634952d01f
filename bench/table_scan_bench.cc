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
//   build/bench/table_scan_bench [rows (default 2000000)] [bucket (default 4)] [all|scan|lookup]
// With TIDE_BENCH_KEEP set, the tables stay in their /tmp folder for a look with `tide sql`.
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
#include "tide/table/operation/file_store_commit.h"
#include "tide/table/table.h"
#include "tide/sql/lake_connection.h"
#include "tide/table/sink/table_write.h"
#include "orders_bench_util.h"

using namespace tide;

namespace {

constexpr int kRuns = 5;
constexpr int kLookups = 200;

using bench::Check;
using bench::Order;
using bench::OrderRow;
using bench::RowChecksum;
using bench::OrdersSchema;
using bench::Seconds;

struct BuiltTable {
  std::vector<Order> orders;  // index = order_id - 1
  int64_t live_rows = 0;
  int64_t stored_rows = 0;
  int64_t files = 0;
};

// The two shapes of the table: `updates` (commit 1 inserts every key, commits 2..5 update 20-40% of
// them and delete 1%) and `distinct` (every key inserted once, in one of the 5 commits at random, so the
// 5 runs interleave key by key and hold exactly the table's rows).
enum class Shape { kUpdates, kDistinct };

BuiltTable BuildTable(const std::string& path, const TableSchema& schema, int64_t n, Shape shape) {
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
    std::mt19937_64 placement(1234);  // the same draw in every run: which run holds a distinct key
    for (int64_t id = 1; id <= n; ++id) {
      Order& o = built.orders[static_cast<size_t>(id - 1)];
      if (shape == Shape::kDistinct) {
        if (static_cast<int>(placement() % kRuns) != run) continue;
        o.create_time = 1700000000000 + static_cast<int64_t>(rng() % 31536000000ULL);
        o.update_time = o.create_time + static_cast<int64_t>(rng() % 86400000);
        o.live = true;
        o.user_id = static_cast<int64_t>(rng() % 100000);
        o.amount_cents = static_cast<int64_t>(rng() % 10000000);
        o.status = static_cast<uint8_t>(rng() % 5);
        Check((*writer)->Write(RowKind::kInsert, OrderRow(id, o)), "Write");
        ++built.stored_rows;
        continue;
      }
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
  size_t next = 0;
  bench::LoadOrdersTable(conn, schema, [&](Row* row) {
    while (next < built.orders.size() && !built.orders[next].live) ++next;
    if (next == built.orders.size()) return false;
    *row = OrderRow(static_cast<int64_t>(next + 1), built.orders[next]);
    ++next;
    return true;
  });
  // Timestamps as DuckDB's TIMESTAMP (microseconds), the type paimon_scan gives TIMESTAMP(3) columns, so
  // that both sides hash the same values without a cast.
  Check(conn.Execute("COPY (SELECT order_id, user_id, amount, status, create_time::TIMESTAMP AS create_time, "
                     "update_time::TIMESTAMP AS update_time FROM orders ORDER BY order_id) TO '" + out +
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
// `second`, if given, receives the second column, a BIGINT.
DuckRun RunDuckCount(DuckConnection& conn, const std::string& sql, int64_t* second = nullptr) {
  DuckRun run;
  double cpu = CpuSeconds();
  auto start = std::chrono::steady_clock::now();
  DuckResult holder;
  auto chunk = QueryOneChunk(conn, sql, &holder);
  Check(chunk.status(), sql.c_str());
  run.seconds = Seconds(start);
  run.cpu = CpuSeconds() - cpu;
  run.rows = *static_cast<const int64_t*>(duckdb_vector_get_data(chunk->column(0)));
  if (second != nullptr) *second = *static_cast<const int64_t*>(duckdb_vector_get_data(chunk->column(1)));
  return run;
}

double Percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  size_t i = static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

// One shape's table, its expected rows and its reference file.
struct Shaped {
  std::string name;   // the table's name in the warehouse's `default` database
  std::string path;
  std::string reference;
  BuiltTable built;
  uint64_t checksum = 0;  // RowChecksum summed over the expected rows
};

// A one-row query's count and a checksum of the hashes (count, sum(hash(...)) mod a prime).
struct SqlScan {
  double seconds = 0;
  double cpu = 0;
  int64_t rows = 0;
  int64_t hash_sum = 0;
};
SqlScan RunSqlScan(DuckConnection& conn, const std::string& from) {
  SqlScan scan;
  DuckRun run = RunDuckCount(conn,
                             "SELECT count(*), (sum(hash(order_id, user_id, amount, status, create_time, "
                             "update_time)) % 9223372036854775783)::BIGINT FROM " + from,
                             &scan.hash_sum);
  scan.seconds = run.seconds;
  scan.cpu = run.cpu;
  scan.rows = run.rows;
  return scan;
}

// The full-scan figures of one shape: Tide through SQL (`tide sql`'s path: paimon_scan in a LakeConnection)
// against DuckDB on the reference file in the same database, best of 3; then, for context, Tide's row
// path (TableReader::NextBatch into Rows), and DuckDB over the unmerged runs and merging them in SQL.
bool ReportScan(const Shaped& t, LakeConnection& lake) {
  DuckConnection& conn = lake.connection();
  const std::string tide_from = "paimon_scan('default." + t.name + "')";
  const std::string duck_from = "read_parquet('" + t.reference + "')";
  SqlScan best_tide, best_duck;
  best_tide.seconds = best_duck.seconds = 1e300;
  for (int round = 0; round < 3; ++round) {
    SqlScan tide = RunSqlScan(conn, tide_from);
    SqlScan duck = RunSqlScan(conn, duck_from);
    if (tide.rows != t.built.live_rows || duck.rows != t.built.live_rows || tide.hash_sum != duck.hash_sum) {
      std::fprintf(stderr, "%s: Tide's scan counted %lld rows (hash sum %lld), DuckDB's %lld (%lld); expected %lld rows\n",
                   t.name.c_str(), static_cast<long long>(tide.rows), static_cast<long long>(tide.hash_sum),
                   static_cast<long long>(duck.rows), static_cast<long long>(duck.hash_sum),
                   static_cast<long long>(t.built.live_rows));
      return false;
    }
    if (tide.seconds < best_tide.seconds) best_tide = tide;
    if (duck.seconds < best_duck.seconds) best_duck = duck;
    std::printf("  %s scan round %d: tide %.3f s (%.2f CPU-s), duckdb one file %.3f s (%.2f CPU-s)\n", t.name.c_str(),
                round + 1, tide.seconds, tide.cpu, duck.seconds, duck.cpu);
  }
  double ratio = best_duck.seconds / best_tide.seconds;
  std::printf("scan %s (%lld stored rows in the runs, %lld live), best of 3: tide %.3f s (%.0f rows/s, %.2f CPU-s), "
              "duckdb one file %.3f s (%.2f CPU-s), ratio duckdb/tide %.2f (goal >= 0.5: %s)\n",
              t.name.c_str(), static_cast<long long>(t.built.stored_rows), static_cast<long long>(t.built.live_rows),
              best_tide.seconds, t.built.live_rows / best_tide.seconds, best_tide.cpu, best_duck.seconds,
              best_duck.cpu, ratio, ratio >= 0.5 ? "met" : "not met");

  // Context.
  double cpu = CpuSeconds();
  ScanResult rows = TideScan(t.path);
  cpu = CpuSeconds() - cpu;
  if (rows.rows != t.built.live_rows || rows.checksum != t.checksum) {
    std::fprintf(stderr, "%s: Tide's row path returned %lld rows (checksum %llx), expected %lld (checksum %llx)\n",
                 t.name.c_str(), static_cast<long long>(rows.rows), static_cast<unsigned long long>(rows.checksum),
                 static_cast<long long>(t.built.live_rows), static_cast<unsigned long long>(t.checksum));
    return false;
  }
  const std::string all_columns = "order_id, user_id, amount, status, create_time, update_time";
  const std::string runs = "read_parquet('" + t.path + "/bucket-*/*.parquet', hive_partitioning = false)";
  DuckRun unmerged = RunDuckCount(conn, "SELECT count(*), sum(hash(" + all_columns + ")) FROM " + runs);
  DuckRun merged = RunDuckCount(conn, "SELECT count(*), sum(hash(" + all_columns + ")) FROM (SELECT * FROM " + runs +
                                          " QUALIFY row_number() OVER (PARTITION BY order_id ORDER BY "
                                          "_SEQUENCE_NUMBER DESC) = 1) WHERE _VALUE_KIND IN (0, 2)");
  if (unmerged.rows != t.built.stored_rows || merged.rows != t.built.live_rows) {
    std::fprintf(stderr, "%s: DuckDB counted %lld unmerged / %lld merged rows, expected %lld / %lld\n", t.name.c_str(),
                 static_cast<long long>(unmerged.rows), static_cast<long long>(merged.rows),
                 static_cast<long long>(t.built.stored_rows), static_cast<long long>(t.built.live_rows));
    return false;
  }
  std::printf("  context: tide row path (TableReader::NextBatch into Rows) %.3f s (%.2f CPU-s); duckdb over the "
              "unmerged runs %.3f s, merging them in SQL %.3f s\n",
              rows.seconds, cpu, unmerged.seconds, merged.seconds);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 2000000;
  int bucket = argc > 2 ? std::atoi(argv[2]) : 4;
  std::string mode = argc > 3 ? argv[3] : "all";  // all, scan or lookup
  bool run_scan = mode != "lookup", run_lookup = mode != "scan";
  char root_template[] = "/tmp/tide-scan-bench-XXXXXX";
  const char* root = mkdtemp(root_template);
  if (root == nullptr) return 1;
  TableSchema schema = OrdersSchema(bucket);

  std::vector<Shaped> tables;
  std::vector<std::pair<std::string, Shape>> shapes;
  if (run_scan) shapes.emplace_back("orders_distinct", Shape::kDistinct);
  shapes.emplace_back("orders_updates", Shape::kUpdates);
  {
    auto db = DuckDB::Open();
    Check(db.status(), "DuckDB");
    auto conn = db->Connect();
    Check(conn.status(), "connect");
    for (const auto& [name, shape] : shapes) {
      auto build_start = std::chrono::steady_clock::now();
      Shaped t;
      t.name = name;
      t.path = std::string(root) + "/default.db/" + name;
      t.reference = std::string(root) + "/" + name + "-final.parquet";
      t.built = BuildTable(t.path, schema, n, shape);
      WriteReference(*conn, schema, t.built, t.reference);
      for (size_t i = 0; i < t.built.orders.size(); ++i) {
        if (t.built.orders[i].live) t.checksum += RowChecksum(OrderRow(static_cast<int64_t>(i + 1), t.built.orders[i]));
      }
      std::printf("table_scan_bench: %s, %lld keys, bucket = %d, %d commits -> %lld data files holding %lld rows; "
                  "%lld live rows (set up in %.1f s)\n",
                  name.c_str(), static_cast<long long>(n), bucket, kRuns, static_cast<long long>(t.built.files),
                  static_cast<long long>(t.built.stored_rows), static_cast<long long>(t.built.live_rows),
                  Seconds(build_start));
      tables.push_back(std::move(t));
    }
  }

  // --- Full scans.
  if (run_scan) {
    auto lake = LakeConnection::OpenWarehouse(FileSystem::Local(), root);
    Check(lake.status(), "LakeConnection");
    for (const Shaped& t : tables) {
      if (!ReportScan(t, **lake)) return 1;
    }
  }

  // --- Point lookups.
  if (run_lookup) {
  const Shaped& t = tables.back();  // the updates shape
  const BuiltTable& built = t.built;
  const std::string& path = t.path;
  const std::string& reference = t.reference;
  auto db = DuckDB::Open();
  Check(db.status(), "DuckDB");
  auto duck = db->Connect();
  Check(duck.status(), "connect");
  DuckConnection* conn = &*duck;
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
  if (std::getenv("TIDE_BENCH_KEEP") != nullptr) {
    std::printf("kept the tables under %s (TIDE_BENCH_KEEP)\n", root);
  } else {
    FileSystem::Local()->DeleteRecursively(root).IgnoreError();
  }
  return 0;
}
