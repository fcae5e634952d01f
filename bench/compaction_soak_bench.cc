// Compaction soak: a primary-key table kept in step the way `tide sync postgres` keeps it, a commit
// every 500 ms at 10,000 changed rows/s, for a long simulated time, watching what compaction must keep
// bounded: sorted runs per bucket, data files, metadata bytes, scan and point-lookup times, commit
// durations and the process's memory.
//
// The table is the field report's `orders` table (order_id BIGINT primary key, user_id BIGINT,
// amount DECIMAL(10,2), status STRING, create_time and update_time TIMESTAMP(3)), deduplicate engine,
// fixed buckets, Paimon's default compaction options (unless --option overrides one). One TableWrite
// (the same writer for the whole run, as the sync keeps one) loads --rows rows in one commit, then each
// round writes --changes changes (by default 90% updates (+U) of random live keys, 5% inserts (+I) of
// new keys, 5% deletes (-D) of random live keys), then PrepareCommit + FileStoreCommit::Commit, and asks
// BackgroundMaintenance for a run (snapshot expiry on its own thread), as TableSink::Commit does. Round
// r stands for r x --interval-ms of simulated time, and the committer's and maintenance's clocks read
// the simulated time, so snapshot expiry (`snapshot.time-retained`, set by --time-retained-min) counts
// simulated minutes; 7,200 rounds stand for an hour. Without --pace time is compressed: nothing sleeps,
// the next round starts at once. With --pace, round r starts r x --interval-ms of wall time after the
// first (at once when the bench is behind), so the compaction and maintenance threads get the time a
// real sync gives them; the samples' reads are not counted in that schedule (it is moved on by the time
// a sample takes), and the summary tells how late rounds started.
//
// Every --sample-every rounds (and at the start and end) the bench records: live data files (latest
// snapshot), data files on disk, the maximum of sorted runs over the buckets (level-0 files + non-empty
// levels above), snapshot and metadata files and bytes (snapshot/, manifest/, index/ on disk), a full
// scan through SQL (`paimon_scan`, DuckDB over Table::NewReader's workers, as `tide sql` reads) beside
// the reference, DuckDB reading one plain Parquet file of the same rows (written from the table at that
// moment), a full scan through Table::NewReader's row path checked against the expected rows (count and
// checksum of every value), the median and p99 of --lookups point lookups (ReadOptions
// primary_key_equals, checked against the expected row), PrepareCommit and Commit durations since the
// previous sample (max and p99), TableWriteMetrics, and VmRSS/VmHWM from /proc/self/status.
//
// Then the same workload (same seed, so the same rows at every round) runs on a second table with
// `write-only` = true for --write-only-rounds rounds: no compaction and, as in Java, no expiry either:
// what compaction prevents. VmHWM is reset (/proc/self/clear_refs) between the two runs.
//
//   build/bench/compaction_soak_bench [--rows=1000000] [--buckets=4] [--rounds=1200] [--changes=5000]
//       [--interval-ms=500] [--sample-every=60] [--lookups=100] [--write-only-rounds=240]
//       [--time-retained-min=10] [--csv=PATH] [--option=key=value ...] [--keep] [--no-reads] [--pace]
// --no-reads: the samples skip the scans and lookups (to tell the writer's memory from the readers').
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "tide/format/duckdb_handle.h"
#include "tide/io/file_system.h"
#include "tide/sql/lake_connection.h"
#include "tide/table/io/data_file_reader.h"
#include "tide/table/operation/file_store_commit.h"
#include "tide/table/operation/file_store_scan.h"
#include "tide/table/operation/background_maintenance.h"
#include "tide/table/operation/table_maintenance.h"
#include "tide/table/schema/schema_manager.h"
#include "tide/table/sink/table_write.h"
#include "tide/table/snapshot/snapshot_manager.h"
#include "tide/table/table.h"
#include "orders_bench_util.h"

using namespace tide;
namespace stdfs = std::filesystem;

namespace {

using bench::Check;
using bench::Order;
using bench::OrderRow;
using bench::RowChecksum;
using bench::OrdersSchema;
using bench::Seconds;

struct Flags {
  int64_t rows = 1000000;
  int buckets = 4;
  int64_t rounds = 1200;
  int64_t changes = 5000;
  int64_t interval_ms = 500;
  int64_t sample_every = 60;
  int lookups = 100;
  int64_t write_only_rounds = 240;
  int64_t time_retained_min = 10;
  std::string csv;
  std::vector<std::pair<std::string, std::string>> options;
  bool keep = false;
  bool no_reads = false;  // samples measure files, runs, metadata, commits and memory only (no scans, lookups)
  bool pace = false;  // round r starts at r x interval of wall time
};

Flags ParseFlags(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char* name) -> const char* {
      size_t n = std::strlen(name);
      if (a.compare(0, n, name) == 0 && a.size() > n && a[n] == '=') return a.c_str() + n + 1;
      return nullptr;
    };
    if (const char* v = value("--rows")) f.rows = std::atoll(v);
    else if (const char* v = value("--buckets")) f.buckets = std::atoi(v);
    else if (const char* v = value("--rounds")) f.rounds = std::atoll(v);
    else if (const char* v = value("--changes")) f.changes = std::atoll(v);
    else if (const char* v = value("--interval-ms")) f.interval_ms = std::atoll(v);
    else if (const char* v = value("--sample-every")) f.sample_every = std::max<int64_t>(1, std::atoll(v));
    else if (const char* v = value("--lookups")) f.lookups = std::max(1, std::atoi(v));
    else if (const char* v = value("--write-only-rounds")) f.write_only_rounds = std::atoll(v);
    else if (const char* v = value("--time-retained-min")) f.time_retained_min = std::atoll(v);
    else if (const char* v = value("--csv")) f.csv = v;
    else if (const char* v = value("--option")) {
      std::string kv = v;
      size_t eq = kv.find('=');
      if (eq == std::string::npos) {
        std::fprintf(stderr, "--option wants key=value, got %s\n", v);
        std::exit(2);
      }
      f.options.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
    } else if (a == "--keep") {
      f.keep = true;
    } else if (a == "--no-reads") {
      f.no_reads = true;
    } else if (a == "--pace") {
      f.pace = true;
    } else {
      std::fprintf(stderr, "unknown argument %s (see the comment at the top of bench/compaction_soak_bench.cc)\n",
                   a.c_str());
      std::exit(2);
    }
  }
  return f;
}

// The table as it should read: every order ever inserted (index = order_id - 1), the live keys (for
// drawing updates and deletes) and the checksum of the live rows.
class Expected {
 public:
  explicit Expected(uint64_t seed) : rng_(seed) {}

  // Room for `orders` orders, taken up front: a vector doubling its capacity mid-run would hold both
  // copies for a moment and put its own peak into the process's peak RSS. Pages not yet written are
  // not resident.
  void Reserve(size_t orders) {
    orders_.reserve(orders);
    live_.reserve(orders);
    position_.reserve(orders);
  }
  Order& Insert() {
    orders_.emplace_back();
    Order& o = orders_.back();
    o.live = true;
    o.create_time = 1700000000000 + static_cast<int64_t>(rng_() % 31536000000ULL);
    o.update_time = o.create_time;
    Fill(&o);
    position_.push_back(static_cast<int64_t>(live_.size()));
    live_.push_back(static_cast<int64_t>(orders_.size()));
    checksum_ += RowChecksum(OrderRow(static_cast<int64_t>(orders_.size()), o));
    return o;
  }
  // A random live key (there must be one).
  int64_t RandomLive() { return live_[static_cast<size_t>(rng_() % live_.size())]; }
  void Update(int64_t id) {
    Order& o = orders_[static_cast<size_t>(id - 1)];
    checksum_ -= RowChecksum(OrderRow(id, o));
    Fill(&o);
    o.update_time += 1 + static_cast<int64_t>(rng_() % 3600000);
    checksum_ += RowChecksum(OrderRow(id, o));
  }
  void Delete(int64_t id) {
    Order& o = orders_[static_cast<size_t>(id - 1)];
    checksum_ -= RowChecksum(OrderRow(id, o));
    o.live = false;
    int64_t pos = position_[static_cast<size_t>(id - 1)];
    int64_t moved = live_.back();
    live_[static_cast<size_t>(pos)] = moved;
    position_[static_cast<size_t>(moved - 1)] = pos;
    live_.pop_back();
    position_[static_cast<size_t>(id - 1)] = -1;
  }
  uint64_t Draw() { return rng_(); }

  const Order& order(int64_t id) const { return orders_[static_cast<size_t>(id - 1)]; }
  int64_t max_id() const { return static_cast<int64_t>(orders_.size()); }
  int64_t live_rows() const { return static_cast<int64_t>(live_.size()); }
  uint64_t checksum() const { return checksum_; }
  // The memory this model fills (every order ever inserted): part of the process's RSS, not Tide's.
  double memory_mb() const {
    return static_cast<double>(orders_.size() * sizeof(Order) + (live_.size() + position_.size()) * 8) /
           (1024.0 * 1024.0);
  }

 private:
  void Fill(Order* o) {
    o->user_id = static_cast<int64_t>(rng_() % 100000);
    o->amount_cents = static_cast<int64_t>(rng_() % 10000000);
    o->status = static_cast<uint8_t>(rng_() % 5);
  }

  std::mt19937_64 rng_;
  std::vector<Order> orders_;
  std::vector<int64_t> live_;      // live order ids
  std::vector<int64_t> position_;  // index = order_id - 1: its index in live_, -1 when deleted
  uint64_t checksum_ = 0;
};

struct MemoryStatus {
  double rss_mb = 0;
  double hwm_mb = 0;
  double model_mb = 0;  // of it, the bench's model of the expected rows (Expected::memory_mb)
};

MemoryStatus ReadMemory() {
  MemoryStatus m;
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) m.rss_mb = std::atof(line.c_str() + 6) / 1024.0;
    if (line.rfind("VmHWM:", 0) == 0) m.hwm_mb = std::atof(line.c_str() + 6) / 1024.0;
  }
  return m;
}

void ResetPeakRss() {
  std::ofstream out("/proc/self/clear_refs");
  out << "5";
}

std::string LoadAverage() {
  std::ifstream in("/proc/loadavg");
  std::string a, b, c;
  in >> a >> b >> c;
  return a + " " + b + " " + c;
}

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t i = static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

// Files and bytes on disk under the table folder, by kind.
struct DiskUsage {
  int64_t data_files = 0, data_bytes = 0;
  int64_t snapshot_files = 0, manifest_files = 0, manifest_list_files = 0, index_files = 0;
  int64_t metadata_bytes = 0;  // snapshot/, manifest/ (manifests, manifest lists, index manifests), index/
};

// Expiry runs on its own thread meanwhile: a file listed may be gone when its size is asked (skipped).
DiskUsage MeasureDisk(const std::string& table_path) {
  DiskUsage u;
  std::error_code ec;
  for (auto it = stdfs::recursive_directory_iterator(table_path, ec); !ec && it != stdfs::recursive_directory_iterator();
       it.increment(ec)) {
    const auto& e = *it;
    std::error_code file_ec;
    if (!e.is_regular_file(file_ec) || file_ec) continue;
    const auto file_size = e.file_size(file_ec);
    if (file_ec) continue;
    std::string rel = stdfs::relative(e.path(), table_path).string();
    std::string name = e.path().filename().string();
    auto size = static_cast<int64_t>(file_size);
    if (rel.rfind("bucket-", 0) == 0 || rel.find("/bucket-") != std::string::npos) {
      ++u.data_files;
      u.data_bytes += size;
    } else if (rel.rfind("snapshot/", 0) == 0) {
      ++u.snapshot_files;
      u.metadata_bytes += size;
    } else if (rel.rfind("manifest/", 0) == 0) {
      if (name.rfind("manifest-list-", 0) == 0) ++u.manifest_list_files;
      else if (name.rfind("index-manifest-", 0) == 0) ++u.index_files;
      else ++u.manifest_files;
      u.metadata_bytes += size;
    } else if (rel.rfind("index/", 0) == 0) {
      ++u.index_files;
      u.metadata_bytes += size;
    }
  }
  return u;
}

// The latest snapshot's live files and sorted runs.
struct TreeShape {
  int64_t snapshot_id = 0;
  int64_t live_files = 0;
  int64_t max_runs = 0;      // over the buckets: level-0 files + non-empty levels >= 1
  int64_t max_level0 = 0;    // over the buckets
  int64_t live_bytes = 0;
  int64_t live_stored_rows = 0;  // rows in the live files (each key's versions not yet merged away)
};

TreeShape MeasureTree(const std::string& table_path) {
  FileSystem* fs = FileSystem::Local();
  TreeShape t;
  SnapshotManager snapshots(fs, table_path);
  auto latest = snapshots.LatestId();
  Check(latest.status(), "LatestId");
  if (!*latest) return t;
  t.snapshot_id = **latest;
  auto snapshot = snapshots.Get(**latest);
  Check(snapshot.status(), "snapshot");
  auto schema = SchemaManager(fs, table_path).Latest();
  Check(schema.status(), "schema");
  FileStoreScan scan(fs, table_path, "bench.orders", *schema);
  auto entries = scan.ReadLiveEntries(*snapshot);
  Check(entries.status(), "ReadLiveEntries");
  struct Bucket {
    int64_t level0 = 0;
    std::map<int32_t, int64_t> levels;
  };
  std::map<std::pair<std::string, int32_t>, Bucket> buckets;
  for (const ManifestEntry& e : *entries) {
    ++t.live_files;
    t.live_bytes += e.file.file_size;
    t.live_stored_rows += e.file.row_count;
    Bucket& b = buckets[{e.partition, e.bucket}];
    if (e.file.level == 0) ++b.level0;
    else ++b.levels[e.file.level];
  }
  for (const auto& [key, b] : buckets) {
    t.max_runs = std::max(t.max_runs, b.level0 + static_cast<int64_t>(b.levels.size()));
    t.max_level0 = std::max(t.max_level0, b.level0);
  }
  return t;
}

Result<DuckDataChunk> QueryOneChunk(DuckConnection& conn, const std::string& sql, DuckResult* holder) {
  TIDE_ASSIGN_OR_RETURN(*holder, conn.Query(sql));
  return holder->FetchChunk();
}

struct SqlScan {
  double seconds = 1e300;
  int64_t rows = 0;
  int64_t hash_sum = 0;
};

// `SELECT count(*), sum(hash(all six columns))` over `from`: best of `rounds`.
SqlScan RunSqlScan(DuckConnection& conn, const std::string& from, int rounds) {
  SqlScan best;
  for (int i = 0; i < rounds; ++i) {
    auto start = std::chrono::steady_clock::now();
    DuckResult holder;
    auto chunk = QueryOneChunk(conn,
                               "SELECT count(*), (sum(hash(order_id, user_id, amount, status, create_time, "
                               "update_time)) % 9223372036854775783)::BIGINT FROM " + from,
                               &holder);
    Check(chunk.status(), from.c_str());
    double s = Seconds(start);
    if (s < best.seconds) {
      best.seconds = s;
      best.rows = *static_cast<const int64_t*>(duckdb_vector_get_data(chunk->column(0)));
      best.hash_sum = *static_cast<const int64_t*>(duckdb_vector_get_data(chunk->column(1)));
    }
  }
  return best;
}

// Table::NewReader's row path over the latest snapshot, checked against the expected rows.
double RowScan(const std::string& table_path, const Expected& expected) {
  auto start = std::chrono::steady_clock::now();
  auto table = Table::Open(FileSystem::Local(), table_path, "bench.orders");
  Check(table.status(), "Table::Open");
  auto reader = (*table)->NewReader(ReadOptions{});
  Check(reader.status(), "NewReader");
  int64_t rows = 0;
  uint64_t checksum = 0;
  std::vector<Row> batch;
  while (true) {
    batch.clear();
    auto more = (*reader)->NextBatch(8192, &batch);
    Check(more.status(), "NextBatch");
    if (!*more) break;
    for (const Row& row : batch) checksum += RowChecksum(row);
    rows += static_cast<int64_t>(batch.size());
  }
  double s = Seconds(start);
  if (rows != expected.live_rows() || checksum != expected.checksum()) {
    std::fprintf(stderr, "%s: the row scan returned %lld rows (checksum %llx), expected %lld (checksum %llx)\n",
                 table_path.c_str(), static_cast<long long>(rows), static_cast<unsigned long long>(checksum),
                 static_cast<long long>(expected.live_rows()), static_cast<unsigned long long>(expected.checksum()));
    std::exit(1);
  }
  return s;
}

struct Lookups {
  double median_ms = 0;
  double p99_ms = 0;
  double plan_median_ms = 0;  // of it, Table::NewReader (snapshot, manifests, pruning)
};

Lookups RunLookups(const std::string& table_path, const Expected& expected, int count, uint64_t seed) {
  auto table = Table::Open(FileSystem::Local(), table_path, "bench.orders");
  Check(table.status(), "Table::Open");
  std::mt19937_64 rng(seed);
  std::vector<double> ms, plan_ms;
  for (int i = 0; i < count; ++i) {
    int64_t key = 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(expected.max_id()));
    const Order& o = expected.order(key);
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
    ms.push_back(Seconds(start) * 1e3);
    bool ok = o.live ? rows.size() == 1 && rows[0] == OrderRow(key, o) : rows.empty();
    if (!ok) {
      std::fprintf(stderr, "%s: the lookup of order_id %lld returned %zu rows, not the expected row\n",
                   table_path.c_str(), static_cast<long long>(key), rows.size());
      std::exit(1);
    }
  }
  return Lookups{Percentile(ms, 0.5), Percentile(ms, 0.99), Percentile(plan_ms, 0.5)};
}

// One row of the samples.
struct Sample {
  std::string mode;
  int64_t round = 0;
  double sim_min = 0;
  double wall_s = 0;
  TreeShape tree;
  DiskUsage disk;
  double sql_scan_ms = 0, ref_scan_ms = 0, row_scan_ms = 0;
  int64_t live_rows = 0;
  Lookups lookup;
  double prepare_max_ms = 0, commit_max_ms = 0, pc_max_ms = 0, pc_p99_ms = 0, maint_max_ms = 0, round_p50_ms = 0;
  int64_t over_interval = 0;  // rounds since the last sample whose PrepareCommit + Commit took longer than one interval
  int64_t max_runs_rounds = 0;  // the most sorted runs of a bucket after any commit since the last sample
  TableWriteMetrics metrics;
  MemoryStatus memory;
};

const char* kCsvHeader =
    "mode,round,sim_min,wall_s,snapshot_id,live_files,max_runs,max_level0,live_mb,live_stored_rows,live_rows,"
    "disk_data_files,disk_data_mb,snapshot_files,manifest_files,manifest_list_files,index_files,metadata_kb,"
    "max_runs_rounds,sql_scan_ms,ref_scan_ms,row_scan_ms,lookup_median_ms,lookup_p99_ms,lookup_plan_ms,prepare_max_ms,"
    "commit_max_ms,"
    "pc_max_ms,pc_p99_ms,maint_max_ms,round_p50_ms,over_interval,compactions,compaction_waits,"
    "compacted_files_before,compacted_files_after,rss_mb,hwm_mb,load1,model_mb";

std::string CsvLine(const Sample& s) {
  char buf[1024];
  std::snprintf(buf, sizeof buf,
                "%s,%lld,%.2f,%.1f,%lld,%lld,%lld,%lld,%.1f,%lld,%lld,%lld,%.1f,%lld,%lld,%lld,%lld,%.1f,%lld,%.1f,%.1f,"
                "%.1f,"
                "%.2f,%.2f,%.2f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%lld,%lld,%lld,%lld,%lld,%.1f,%.1f,%s,%.1f",
                s.mode.c_str(), static_cast<long long>(s.round), s.sim_min, s.wall_s,
                static_cast<long long>(s.tree.snapshot_id), static_cast<long long>(s.tree.live_files),
                static_cast<long long>(s.tree.max_runs), static_cast<long long>(s.tree.max_level0),
                s.tree.live_bytes / 1e6, static_cast<long long>(s.tree.live_stored_rows),
                static_cast<long long>(s.live_rows), static_cast<long long>(s.disk.data_files), s.disk.data_bytes / 1e6,
                static_cast<long long>(s.disk.snapshot_files), static_cast<long long>(s.disk.manifest_files),
                static_cast<long long>(s.disk.manifest_list_files), static_cast<long long>(s.disk.index_files),
                s.disk.metadata_bytes / 1e3, static_cast<long long>(s.max_runs_rounds), s.sql_scan_ms, s.ref_scan_ms,
                s.row_scan_ms, s.lookup.median_ms,
                s.lookup.p99_ms, s.lookup.plan_median_ms, s.prepare_max_ms, s.commit_max_ms, s.pc_max_ms, s.pc_p99_ms,
                s.maint_max_ms,
                s.round_p50_ms, static_cast<long long>(s.over_interval), static_cast<long long>(s.metrics.compactions),
                static_cast<long long>(s.metrics.compaction_waits),
                static_cast<long long>(s.metrics.compacted_files_before),
                static_cast<long long>(s.metrics.compacted_files_after), s.memory.rss_mb, s.memory.hwm_mb,
                LoadAverage().substr(0, LoadAverage().find(' ')).c_str(), s.memory.model_mb);
  return buf;
}

void PrintSample(const Sample& s) {
  std::printf("  [%s] round %5lld (%6.1f sim-min, %6.1f s): files %4lld live / %4lld on disk, runs max %2lld "
              "(L0 max %2lld), stored rows %lld for %lld live, snapshots %lld, metadata %.0f KB (%lld manifests, "
              "%lld lists); runs max after any commit since the last sample %lld; scan sql %.0f ms (reference %.0f "
              "ms), rows %.0f ms; lookup median %.2f ms p99 %.2f ms (planning %.2f ms); "
              "prepare+commit max %.0f ms p99 %.0f ms (%lld over %s), maintenance max %.0f ms, round p50 %.0f ms; "
              "compactions %lld, waits %lld; RSS %.0f MB (peak %.0f MB, the bench's model %.0f MB); load %s\n",
              s.mode.c_str(), static_cast<long long>(s.round), s.sim_min, s.wall_s,
              static_cast<long long>(s.tree.live_files), static_cast<long long>(s.disk.data_files),
              static_cast<long long>(s.tree.max_runs), static_cast<long long>(s.tree.max_level0),
              static_cast<long long>(s.tree.live_stored_rows), static_cast<long long>(s.live_rows),
              static_cast<long long>(s.disk.snapshot_files), s.disk.metadata_bytes / 1e3,
              static_cast<long long>(s.disk.manifest_files), static_cast<long long>(s.disk.manifest_list_files),
              static_cast<long long>(s.max_runs_rounds), s.sql_scan_ms, s.ref_scan_ms, s.row_scan_ms, s.lookup.median_ms,
              s.lookup.p99_ms, s.lookup.plan_median_ms,
              s.pc_max_ms,
              s.pc_p99_ms, static_cast<long long>(s.over_interval), "the interval", s.maint_max_ms, s.round_p50_ms,
              static_cast<long long>(s.metrics.compactions), static_cast<long long>(s.metrics.compaction_waits),
              s.memory.rss_mb, s.memory.hwm_mb, s.memory.model_mb, LoadAverage().c_str());
  std::fflush(stdout);
}

// What a whole run ends with.
struct RunSummary {
  std::vector<Sample> samples;
  std::vector<double> pc_ms;     // PrepareCommit + Commit of every round
  std::vector<double> round_ms;  // the whole round (writes, PrepareCommit, Commit, maintenance request)
  std::vector<double> late_ms;   // --pace: how late each round started against its schedule
  double wall_s = 0;
  int64_t compact_snapshots = 0;
  BackgroundMaintenanceStats maintenance;
};

struct Soak {
  const Flags& flags;
  std::string root;
  LakeConnection& lake;
  uint64_t seed = 20261130;
};

RunSummary RunSoak(Soak& soak, const std::string& name, bool write_only, int64_t rounds, std::FILE* csv) {
  const Flags& flags = soak.flags;
  FileSystem* fs = FileSystem::Local();
  const std::string path = soak.root + "/default.db/" + name;
  const int64_t start_ms = 1767225600000;  // 2026-01-01 00:00 UTC: the simulated clock's start
  int64_t round = 0;
  // The maintenance thread reads the clock too.
  std::atomic<int64_t> clock_round{0};
  auto sim_clock = [&]() { return start_ms + clock_round.load() * flags.interval_ms; };

  FileStoreCommitConfig commit_config;
  commit_config.clock = sim_clock;
  auto committer = FileStoreCommit::Create(fs, path, "bench." + name, commit_config);
  Check(committer.status(), "FileStoreCommit::Create");
  auto created_maintenance = TableMaintenance::Create(fs, path, "bench." + name, sim_clock);
  Check(created_maintenance.status(), "TableMaintenance::Create");
  auto maintenance = std::make_unique<BackgroundMaintenance>(std::move(created_maintenance).value());
  auto schema = SchemaManager(fs, path).Latest();
  Check(schema.status(), "schema");
  TableWriteConfig write_config;
  write_config.table_name = "bench." + name;
  write_config.creation_time_ms = sim_clock;
  auto writer = TableWrite::Create(fs, path, *schema, "soak", write_config);
  Check(writer.status(), "TableWrite::Create");

  Expected expected(soak.seed);
  // The initial rows and, per round, at most a fifth of the changes as inserts (5% by default).
  expected.Reserve(static_cast<size_t>(flags.rows + rounds * flags.changes / 5));
  RunSummary summary;
  auto run_start = std::chrono::steady_clock::now();

  auto commit = [&](int64_t identifier, double* prepare_ms, double* commit_ms, double* maint_ms) {
    auto t0 = std::chrono::steady_clock::now();
    auto messages = (*writer)->PrepareCommit();
    Check(messages.status(), "PrepareCommit");
    *prepare_ms = Seconds(t0) * 1e3;
    auto t1 = std::chrono::steady_clock::now();
    CommitOptions options;
    options.commit_user = "soak";
    options.commit_identifier = identifier;
    auto result = (*committer)->Commit(*messages, options);
    Check(result.status(), "Commit");
    *commit_ms = Seconds(t1) * 1e3;
    if (result->snapshot_ids.size() > 1) summary.compact_snapshots += 1;
    auto t2 = std::chrono::steady_clock::now();
    auto dropped = maintenance->ExpirePartitions();
    Check(dropped.status(), "ExpirePartitions");
    maintenance->Request();
    *maint_ms = Seconds(t2) * 1e3;
  };

  // The initial load: one commit.
  {
    auto t0 = std::chrono::steady_clock::now();
    for (int64_t i = 0; i < flags.rows; ++i) {
      Order& o = expected.Insert();
      Check((*writer)->Write(RowKind::kInsert, OrderRow(expected.max_id(), o)), "Write");
    }
    double p, c, m;
    commit(0, &p, &c, &m);
    std::printf("[%s] loaded %lld rows in one commit in %.1f s\n", name.c_str(), static_cast<long long>(flags.rows),
                Seconds(t0));
  }

  std::vector<double> window_pc, window_round;
  double window_prepare_max = 0, window_commit_max = 0, window_maint_max = 0;
  int64_t maintenance_runs_seen = 0;
  int64_t window_over = 0;
  int64_t window_max_runs = 0;
  auto take_sample = [&]() {
    Sample s;
    s.mode = write_only ? "write-only" : "compact";
    s.round = round;
    s.sim_min = static_cast<double>(round * flags.interval_ms) / 60000.0;
    s.wall_s = Seconds(run_start);
    s.tree = MeasureTree(path);
    s.disk = MeasureDisk(path);
    s.live_rows = expected.live_rows();
    if (!flags.no_reads) {
      SqlScan tide = RunSqlScan(soak.lake.connection(), "paimon_scan('default." + name + "')", 2);
      const std::string reference = soak.root + "/reference.parquet";
      Check(soak.lake.connection().Execute("COPY (SELECT * FROM paimon_scan('default." + name + "')) TO '" + reference +
                                           "' (FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL 1)"),
            "COPY reference");
      SqlScan duck = RunSqlScan(soak.lake.connection(), "read_parquet('" + reference + "')", 2);
      if (tide.rows != expected.live_rows() || duck.rows != tide.rows || duck.hash_sum != tide.hash_sum) {
        std::fprintf(stderr, "%s round %lld: paimon_scan counted %lld rows, the reference %lld, expected %lld\n",
                     name.c_str(), static_cast<long long>(round), static_cast<long long>(tide.rows),
                     static_cast<long long>(duck.rows), static_cast<long long>(expected.live_rows()));
        std::exit(1);
      }
      s.sql_scan_ms = tide.seconds * 1e3;
      s.ref_scan_ms = duck.seconds * 1e3;
      s.row_scan_ms = RowScan(path, expected) * 1e3;
      s.lookup = RunLookups(path, expected, flags.lookups, soak.seed + static_cast<uint64_t>(round));
    }
    s.prepare_max_ms = window_prepare_max;
    s.commit_max_ms = window_commit_max;
    s.maint_max_ms = window_maint_max;
    s.pc_max_ms = window_pc.empty() ? 0 : *std::max_element(window_pc.begin(), window_pc.end());
    s.pc_p99_ms = Percentile(window_pc, 0.99);
    s.round_p50_ms = Percentile(window_round, 0.5);
    s.over_interval = window_over;
    s.max_runs_rounds = std::max(window_max_runs, s.tree.max_runs);
    window_max_runs = 0;
    s.metrics = (*writer)->metrics();
    s.memory = ReadMemory();
    s.memory.model_mb = expected.memory_mb();
    window_pc.clear();
    window_round.clear();
    window_prepare_max = window_commit_max = window_maint_max = 0;
    window_over = 0;
    PrintSample(s);
    if (csv != nullptr) {
      std::fprintf(csv, "%s\n", CsvLine(s).c_str());
      std::fflush(csv);
    }
    summary.samples.push_back(s);
  };

  take_sample();
  // --pace: round r is due at schedule_start + r x interval; samples move the schedule on by their time.
  auto schedule_start = std::chrono::steady_clock::now();
  const auto interval = std::chrono::milliseconds(flags.interval_ms);
  for (round = 1; round <= rounds; ++round) {
    if (flags.pace) {
      const auto due = schedule_start + (round - 1) * interval;
      const auto now = std::chrono::steady_clock::now();
      if (now < due) {
        std::this_thread::sleep_until(due);
        summary.late_ms.push_back(0);
      } else {
        summary.late_ms.push_back(std::chrono::duration<double, std::milli>(now - due).count());
      }
    }
    clock_round = round;
    auto t0 = std::chrono::steady_clock::now();
    for (int64_t i = 0; i < flags.changes; ++i) {
      uint64_t pick = expected.Draw() % 100;
      if (pick < 5) {
        Order& o = expected.Insert();
        Check((*writer)->Write(RowKind::kInsert, OrderRow(expected.max_id(), o)), "Write");
      } else if (pick < 10) {
        int64_t id = expected.RandomLive();
        Check((*writer)->Write(RowKind::kDelete, OrderRow(id, expected.order(id))), "Write");
        expected.Delete(id);
      } else {
        int64_t id = expected.RandomLive();
        expected.Update(id);
        Check((*writer)->Write(RowKind::kUpdateAfter, OrderRow(id, expected.order(id))), "Write");
      }
    }
    double prepare_ms, commit_ms, maint_ms;
    commit(round, &prepare_ms, &commit_ms, &maint_ms);
    double pc = prepare_ms + commit_ms;
    window_pc.push_back(pc);
    summary.pc_ms.push_back(pc);
    double whole = Seconds(t0) * 1e3;
    window_round.push_back(whole);
    summary.round_ms.push_back(whole);
    window_prepare_max = std::max(window_prepare_max, prepare_ms);
    window_commit_max = std::max(window_commit_max, commit_ms);
    // The longest maintenance run that finished since the last round (runs end on their own thread).
    const BackgroundMaintenanceStats m = maintenance->stats();
    if (m.runs > maintenance_runs_seen) {
      maintenance_runs_seen = m.runs;
      window_maint_max = std::max(window_maint_max, m.last_run_ms);
    }
    if (m.failures > 0) {
      std::fprintf(stderr, "%s round %lld: maintenance failed: %s\n", name.c_str(), static_cast<long long>(round),
                   m.last_error.c_str());
      std::exit(1);
    }
    if (pc > static_cast<double>(flags.interval_ms)) ++window_over;
    // The sorted runs after every commit (outside the timed part of the round).
    window_max_runs = std::max(window_max_runs, MeasureTree(path).max_runs);
    if (round % flags.sample_every == 0 || round == rounds) {
      auto sample_start = std::chrono::steady_clock::now();
      take_sample();
      schedule_start += std::chrono::steady_clock::now() - sample_start;
    }
  }
  summary.wall_s = Seconds(run_start);
  maintenance->WaitIdle();
  summary.maintenance = maintenance->stats();
  return summary;
}

// The figures of a run as lines a reader compares.
void PrintSummary(const std::string& what, const RunSummary& r, const Flags& flags) {
  const Sample& first = r.samples.front();
  const Sample& last = r.samples.back();
  double max_runs = 0, max_runs_rounds = 0, max_files = 0, max_meta = 0, max_snapshots = 0, max_disk_files = 0;
  double max_scan = 0, max_lookup = 0, max_rss = 0, max_hwm = 0;
  int64_t over = 0;
  for (const Sample& s : r.samples) {
    max_runs = std::max(max_runs, static_cast<double>(s.tree.max_runs));
    max_runs_rounds = std::max(max_runs_rounds, static_cast<double>(s.max_runs_rounds));
    max_files = std::max(max_files, static_cast<double>(s.tree.live_files));
    max_disk_files = std::max(max_disk_files, static_cast<double>(s.disk.data_files));
    max_meta = std::max(max_meta, s.disk.metadata_bytes / 1e3);
    max_snapshots = std::max(max_snapshots, static_cast<double>(s.disk.snapshot_files));
    max_scan = std::max(max_scan, s.sql_scan_ms);
    max_lookup = std::max(max_lookup, s.lookup.median_ms);
    max_rss = std::max(max_rss, s.memory.rss_mb);
    max_hwm = std::max(max_hwm, s.memory.hwm_mb);
    over += s.over_interval;
  }
  double pc_max = r.pc_ms.empty() ? 0 : *std::max_element(r.pc_ms.begin(), r.pc_ms.end());
  std::printf("%s: %lld rounds (%.1f simulated minutes) in %.1f s wall (%.2fx real time)\n", what.c_str(),
              static_cast<long long>(last.round), last.sim_min, r.wall_s,
              last.sim_min * 60.0 / std::max(r.wall_s, 1e-9));
  std::printf("  sorted runs per bucket: max %.0f after any commit, %.0f at the samples, last %lld "
              "(num-sorted-run.stop-trigger: 8 unless set)\n",
              max_runs_rounds, max_runs, static_cast<long long>(last.tree.max_runs));
  std::printf("  live data files: first %lld, max %.0f, last %lld; on disk max %.0f, last %lld\n",
              static_cast<long long>(first.tree.live_files), max_files, static_cast<long long>(last.tree.live_files),
              max_disk_files, static_cast<long long>(last.disk.data_files));
  std::printf("  metadata: max %.0f KB, last %.0f KB; snapshot files max %.0f, last %lld\n", max_meta,
              last.disk.metadata_bytes / 1e3, max_snapshots, static_cast<long long>(last.disk.snapshot_files));
  std::printf("  full scan (paimon_scan): first %.0f ms, max %.0f ms, last %.0f ms (%.0f rows/s); reference DuckDB "
              "one file last %.0f ms; ratio reference/tide last %.2f\n",
              first.sql_scan_ms, max_scan, last.sql_scan_ms, last.live_rows / (last.sql_scan_ms / 1e3),
              last.ref_scan_ms, last.ref_scan_ms / last.sql_scan_ms);
  std::printf("  row scan (Table::NewReader NextBatch): first %.0f ms, last %.0f ms (%.0f rows/s)\n", first.row_scan_ms,
              last.row_scan_ms, last.live_rows / (last.row_scan_ms / 1e3));
  std::printf("  point lookup median: first %.2f ms, max %.2f ms, last %.2f ms (p99 last %.2f ms; planning median "
              "first %.2f ms, last %.2f ms)\n",
              first.lookup.median_ms, max_lookup, last.lookup.median_ms, last.lookup.p99_ms,
              first.lookup.plan_median_ms, last.lookup.plan_median_ms);
  std::printf("  PrepareCommit+Commit: p50 %.1f ms, p99 %.1f ms, max %.1f ms; %lld of %zu rounds over %lld ms; "
              "whole round p50 %.1f ms, p99 %.1f ms\n",
              Percentile(r.pc_ms, 0.5), Percentile(r.pc_ms, 0.99), pc_max, static_cast<long long>(over),
              r.pc_ms.size(), static_cast<long long>(flags.interval_ms), Percentile(r.round_ms, 0.5),
              Percentile(r.round_ms, 0.99));
  std::printf("  compactions %lld (COMPACT snapshots %lld), compaction waits %lld, files compacted %lld -> %lld\n",
              static_cast<long long>(last.metrics.compactions), static_cast<long long>(r.compact_snapshots),
              static_cast<long long>(last.metrics.compaction_waits),
              static_cast<long long>(last.metrics.compacted_files_before),
              static_cast<long long>(last.metrics.compacted_files_after));
  std::printf("  RSS: max %.0f MB at the samples, peak (VmHWM) %.0f MB\n", max_rss, max_hwm);
  std::printf("  maintenance (background): %lld requests, %lld runs, %lld failures, %lld snapshots expired, "
              "%lld data files deleted, longest run %.1f ms\n",
              static_cast<long long>(r.maintenance.requests), static_cast<long long>(r.maintenance.runs),
              static_cast<long long>(r.maintenance.failures), static_cast<long long>(r.maintenance.snapshots_expired),
              static_cast<long long>(r.maintenance.data_files_deleted), r.maintenance.max_run_ms);
  if (!r.late_ms.empty()) {
    int64_t late = 0;
    for (double l : r.late_ms) late += l > 0 ? 1 : 0;
    std::printf("  paced: %lld of %zu rounds started late (the previous round overran its interval); lateness p50 "
                "%.1f ms, p99 %.1f ms, max %.1f ms\n",
                static_cast<long long>(late), r.late_ms.size(), Percentile(r.late_ms, 0.5), Percentile(r.late_ms, 0.99),
                *std::max_element(r.late_ms.begin(), r.late_ms.end()));
  }
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags = ParseFlags(argc, argv);
  char root_template[] = "/tmp/tide-soak-bench-XXXXXX";
  const char* root_c = mkdtemp(root_template);
  if (root_c == nullptr) return 1;
  const std::string root = root_c;
  FileSystem* fs = FileSystem::Local();

  TableSchema schema = OrdersSchema(flags.buckets);
  schema.SetOption("snapshot.time-retained", std::to_string(flags.time_retained_min) + " min");
  for (const auto& [k, v] : flags.options) schema.SetOption(k, v);
  TableSchema write_only = schema;
  write_only.SetOption("write-only", "true");
  Check(fs->WriteFileExclusive(root + "/default.db/orders/schema/schema-0", schema.ToJson()), "create table");
  Check(fs->WriteFileExclusive(root + "/default.db/orders_write_only/schema/schema-0", write_only.ToJson()),
        "create table");

  const double sim_min = static_cast<double>(flags.rounds * flags.interval_ms) / 60000.0;
  std::printf("compaction_soak_bench: orders table, %lld rows loaded, bucket = %d, %lld rounds of %lld changes "
              "(90%% +U of random live keys, 5%% +I new keys, 5%% -D), one commit per round standing for %lld ms: "
              "%.1f simulated minutes (%.2f h) at %.0f rows/s; sample every %lld rounds; write-only reference %lld "
              "rounds\n",
              static_cast<long long>(flags.rows), flags.buckets, static_cast<long long>(flags.rounds),
              static_cast<long long>(flags.changes), static_cast<long long>(flags.interval_ms), sim_min, sim_min / 60,
              static_cast<double>(flags.changes) * 1000.0 / static_cast<double>(flags.interval_ms),
              static_cast<long long>(flags.sample_every), static_cast<long long>(flags.write_only_rounds));
  std::printf("table options: %s=%s", "bucket", std::to_string(flags.buckets).c_str());
  for (const auto& [k, v] : schema.options) {
    if (k != "bucket") std::printf(", %s=%s", k.c_str(), v.c_str());
  }
  std::printf(" (everything else, compaction included, Paimon's defaults); snapshot expiry by BackgroundMaintenance "
              "after every commit on the simulated clock; %s\n",
              flags.pace ? "paced: round r starts at r x interval of wall time (--pace)"
                         : "time compressed: rounds run back to back");
  std::printf("machine: %ld cores, load average %s at the start\n", sysconf(_SC_NPROCESSORS_ONLN),
              LoadAverage().c_str());
  std::fflush(stdout);

  std::FILE* csv = nullptr;
  if (!flags.csv.empty()) {
    csv = std::fopen(flags.csv.c_str(), "w");
    if (csv == nullptr) {
      std::fprintf(stderr, "cannot write %s\n", flags.csv.c_str());
      return 1;
    }
    std::fprintf(csv, "%s\n", kCsvHeader);
  }

  auto lake = LakeConnection::OpenWarehouse(fs, root);
  Check(lake.status(), "LakeConnection");
  Soak soak{flags, root, **lake};

  RunSummary compact = RunSoak(soak, "orders", false, flags.rounds, csv);
  ResetPeakRss();
  RunSummary reference;
  if (flags.write_only_rounds > 0) {
    reference = RunSoak(soak, "orders_write_only", true, flags.write_only_rounds, csv);
  }
  if (csv != nullptr) std::fclose(csv);

  std::printf("\n");
  PrintSummary("compacting (Paimon defaults)", compact, flags);
  if (flags.write_only_rounds > 0) {
    PrintSummary("reference: write-only = true (no compaction, no expiry)", reference, flags);
    // The same round in both runs, for a like-for-like comparison.
    const Sample& w = reference.samples.back();
    for (const Sample& s : compact.samples) {
      if (s.round != w.round) continue;
      std::printf("at round %lld (%.1f sim-min), compacting vs write-only: live files %lld vs %lld, runs %lld vs %lld, "
                  "scan %.0f vs %.0f ms, lookup median %.2f vs %.2f ms, metadata %.0f vs %.0f KB\n",
                  static_cast<long long>(s.round), s.sim_min, static_cast<long long>(s.tree.live_files),
                  static_cast<long long>(w.tree.live_files), static_cast<long long>(s.tree.max_runs),
                  static_cast<long long>(w.tree.max_runs), s.sql_scan_ms, w.sql_scan_ms, s.lookup.median_ms,
                  w.lookup.median_ms, s.disk.metadata_bytes / 1e3, w.disk.metadata_bytes / 1e3);
    }
  }
  std::printf("load average at the end: %s\n", LoadAverage().c_str());
  if (flags.keep) {
    std::printf("kept the tables under %s (--keep)\n", root.c_str());
  } else {
    lake->reset();
    fs->DeleteRecursively(root).IgnoreError();
  }
  return 0;
}
