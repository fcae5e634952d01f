// Filter pushdown in `tide sql`: the latency of a primary-key point lookup, end to end (the `tide sql`
// process) and through the library (LakeConnection::Query in an open session), beside the same query
// unpruned (the full scan it replaces), a key-range query, a value filter that cannot be pruned, and
// DuckDB reading one plain Parquet file holding the same rows with the same filter, all in one run.
//
// The table is the field report's `orders` table (order_id BIGINT primary key, 4 buckets), 2,000,000
// rows written by TableWrite in two commits (every key, then 10% of them updated), so each bucket has
// two sorted runs and a lookup merges. The reference is the table's final rows, written by DuckDB (via
// `tide sql`'s own COPY) to one Parquet file sorted by order_id (zstd), so DuckDB prunes row groups by
// their statistics, the best case for it.
//
// End to end, both sides run as `tide sql` processes, so that process start, DuckDB's start and the
// output are the same: `tide sql --warehouse W "<lookup on bench.orders>"` against
// `tide sql --warehouse EMPTY "<lookup on read_parquet('ref.parquet')>"` (an empty warehouse: no views);
// and against duckdb_query_once, a process that only opens DuckDB and runs the Parquet lookup (the
// floor for any process on libduckdb). The process's start is broken down by running `tide --version`,
// `SELECT 1` in duckdb_query_once, and `tide sql "SELECT 1"` on the empty and the bench warehouse.
// Library: one LakeConnection; the lookup through Query against the same connection querying the file.
// Median and p90 of N random keys each (best of nothing: every run counts), with the files each Tide
// lookup opened (DataFileOpenCounter).
//
//   build/bench/sql_pushdown_bench [rows (default 2000000)] [lookups (default 40)]
// Needs build/tide (the CMake target depends on it). TIDE_BENCH_KEEP keeps the /tmp folder.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "orders_bench_util.h"
#include "tide/codec/bucket.h"
#include "tide/format/duckdb_handle.h"
#include "tide/io/file_system.h"
#include "tide/sql/lake_connection.h"
#include "tide/table/operation/file_store_commit.h"
#include "tide/table/sink/table_write.h"
#include "tide/table/source/data_file_open_counter.h"

using namespace tide;
using bench::Check;

namespace {

struct Figures {
  std::vector<double> ms;
  double Median() const {
    std::vector<double> v = ms;
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
  }
  double P90() const {
    std::vector<double> v = ms;
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[std::min(v.size() - 1, v.size() * 9 / 10)];
  }
};

double Ms(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - since).count();
}

// Runs `argv` with its output discarded; returns the wall time.
double RunProcess(const std::vector<std::string>& argv) {
  std::fflush(stdout);  // the child must not print the parent's buffered lines again
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  auto start = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid == 0) {
    FILE* null = freopen("/dev/null", "w", stdout);
    (void)null;
    execv(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "%s failed (%d): %s\n", argv[0].c_str(), status, argv.back().c_str());
    std::exit(1);
  }
  return Ms(start);
}

// Runs `tide sql --warehouse W --format csv SQL` with its output discarded; returns the wall time.
double RunTideSql(const std::string& tide, const std::string& warehouse, const std::string& sql) {
  return RunProcess({tide, "sql", "--warehouse", warehouse, "--format", "csv", sql});
}

// One `tide sql --warehouse W --format csv` session (the shell's non-interactive form) given
// `.timer on` and `statements` on stdin: the time of each statement as the session measured it (its
// `Run Time: S s` lines: reading, planning, running and printing the statement, as a user of the shell
// sees it), and the wall time of the whole process.
std::vector<double> RunTideSqlSession(const std::string& tide, const std::string& warehouse,
                                      const std::vector<std::string>& statements, double* process_ms) {
  std::string input = ".timer on\n";
  for (const std::string& s : statements) input += s + ";\n";
  std::string script = "/tmp/tide-pushdown-session-" + std::to_string(getpid()) + ".sql";
  std::string output = script + ".out";
  {
    FILE* f = std::fopen(script.c_str(), "w");
    if (!f || std::fwrite(input.data(), 1, input.size(), f) != input.size()) Check(Status::IOError("cannot write {}", script), "session");
    std::fclose(f);
  }
  std::fflush(stdout);
  auto start = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid == 0) {
    if (!freopen(script.c_str(), "r", stdin) || !freopen(output.c_str(), "w", stdout)) _exit(126);
    execl(tide.c_str(), tide.c_str(), "sql", "--warehouse", warehouse.c_str(), "--format", "csv", (char*)nullptr);
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  *process_ms = Ms(start);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "tide sql session failed (%d); its output: %s\n", status, output.c_str());
    std::exit(1);
  }
  std::vector<double> ms;
  std::ifstream in(output);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("Run Time: ", 0) == 0) ms.push_back(std::atof(line.c_str() + 10) * 1000);
  }
  if (ms.size() != statements.size()) {  // dot commands are not timed: one line per statement
    std::fprintf(stderr, "tide sql session printed %zu timings for %zu statements (%s)\n", ms.size(),
                 statements.size(), output.c_str());
    std::exit(1);
  }
  std::remove(script.c_str());
  std::remove(output.c_str());
  return ms;
}

// Runs `sql` on the lake; returns its wall time and checks the row count.
double RunQuery(LakeConnection& lake, const std::string& sql, int64_t expect_rows) {
  auto start = std::chrono::steady_clock::now();
  auto result = lake.Query(sql);
  Check(result.status(), sql.c_str());
  int64_t rows = 0;
  while (true) {
    DuckDataChunk chunk = result->FetchChunk();
    if (!chunk) break;
    rows += static_cast<int64_t>(chunk.size());
  }
  double ms = Ms(start);
  if (expect_rows >= 0 && rows != expect_rows) {
    std::fprintf(stderr, "%s: %lld rows, expected %lld\n", sql.c_str(), static_cast<long long>(rows),
                 static_cast<long long>(expect_rows));
    std::exit(1);
  }
  return ms;
}

std::string Load() {
  FILE* f = std::fopen("/proc/loadavg", "r");
  char buf[128] = {0};
  if (f) {
    if (!std::fgets(buf, sizeof(buf), f)) buf[0] = 0;
    std::fclose(f);
  }
  std::string s(buf);
  while (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 2000000;
  int lookups = argc > 2 ? std::atoi(argv[2]) : 40;
  std::string tide = TIDE_BINARY;
  std::string root = "/tmp/tide-pushdown-bench-" + std::to_string(getpid());
  std::string warehouse = root + "/warehouse";
  std::string empty = root + "/empty";
  std::string path = warehouse + "/bench.db/orders";
  std::string reference = root + "/orders.parquet";
  std::filesystem::create_directories(empty);
  FileSystem* fs = FileSystem::Local();
  TableSchema schema = bench::OrdersSchema(4);
  Check(fs->WriteFileExclusive(path + "/schema/schema-0", schema.ToJson()), "create table");

  std::printf("load before: %s\n", Load().c_str());
  auto write_start = std::chrono::steady_clock::now();
  std::mt19937_64 rng(11);
  auto committer = FileStoreCommit::Create(fs, path, "bench.orders");
  Check(committer.status(), "FileStoreCommit::Create");
  std::vector<bench::Order> orders(static_cast<size_t>(n));
  for (int commit = 1; commit <= 2; ++commit) {
    TableWriteConfig config;
    config.write_buffer_size = int64_t{4} << 30;
    config.target_file_size = int64_t{4} << 30;
    auto writer = TableWrite::Create(fs, path, schema, "bench", config);
    Check(writer.status(), "TableWrite::Create");
    for (int64_t id = 1; id <= n; ++id) {
      if (commit == 2 && id % 10 != 0) continue;
      bench::Order& o = orders[static_cast<size_t>(id - 1)];
      o.live = true;
      o.user_id = static_cast<int64_t>(rng() % 100000);
      o.amount_cents = static_cast<int64_t>(rng() % 10000000);
      o.status = static_cast<uint8_t>(rng() % 5);
      o.create_time = 1700000000000 + static_cast<int64_t>(rng() % 31536000000ULL);
      o.update_time = o.create_time + commit;
      Check((*writer)->Write(RowKind::kInsert, bench::OrderRow(id, o)), "Write");
    }
    auto messages = (*writer)->PrepareCommit();
    Check(messages.status(), "PrepareCommit");
    CommitOptions options;
    options.commit_user = "bench";
    options.commit_identifier = commit;
    Check((*committer)->Commit(*messages, options).status(), "Commit");
  }
  std::printf("table: %lld rows, 4 buckets, 2 commits, written in %.1f s\n", static_cast<long long>(n),
              bench::Seconds(write_start));

  auto lake = LakeConnection::OpenWarehouse(fs, warehouse);
  Check(lake.status(), "open lake");
  Check((*lake)->connection().Execute("COPY (SELECT * FROM bench.orders ORDER BY order_id) TO '" + reference +
                                      "' (FORMAT parquet, COMPRESSION zstd)"),
        "reference COPY");

  std::vector<int64_t> keys;
  for (int i = 0; i < lookups; ++i) keys.push_back(1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(n)));
  auto lookup_sql = [](const std::string& from, int64_t key) {
    return "SELECT * FROM " + from + " WHERE order_id = " + std::to_string(key);
  };
  const std::string parquet = "read_parquet('" + reference + "')";

  // Library: one open session.
  Figures lib_tide, lib_duck, lib_unpruned, lib_range, lib_value_scan;
  int64_t opened_before = DataFilesOpened();
  for (int64_t key : keys) lib_tide.ms.push_back(RunQuery(**lake, lookup_sql("bench.orders", key), 1));
  double opened_per_lookup = static_cast<double>(DataFilesOpened() - opened_before) / static_cast<double>(keys.size());
  for (int64_t key : keys) lib_duck.ms.push_back(RunQuery(**lake, lookup_sql(parquet, key), 1));
  for (int i = 0; i < 5; ++i) {
    int64_t lo = 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(n - 1000));
    lib_range.ms.push_back(RunQuery(**lake, "SELECT * FROM bench.orders WHERE order_id BETWEEN " + std::to_string(lo) +
                                                " AND " + std::to_string(lo + 999), 1000));
  }
  (*lake)->pushdown().set_enabled(false);
  int64_t unpruned_before = DataFilesOpened();
  for (size_t i = 0; i < 5; ++i) lib_unpruned.ms.push_back(RunQuery(**lake, lookup_sql("bench.orders", keys[i]), 1));
  double opened_unpruned = static_cast<double>(DataFilesOpened() - unpruned_before) / 5.0;
  (*lake)->pushdown().set_enabled(true);
  for (int i = 0; i < 3; ++i) {
    lib_value_scan.ms.push_back(RunQuery(**lake, "SELECT count(*) FROM bench.orders WHERE user_id = 7", -1));
  }

  // The cost of learning the filter: the analysis Query runs before each statement, and what a rewrite
  // of the statement would add (DuckDB's serializer round trip).
  const int kAnalyses = 200;
  auto analysis_start = std::chrono::steady_clock::now();
  for (int i = 0; i < kAnalyses; ++i) {
    auto filters = (*lake)->pushdown().Analyze((*lake)->connection(), lookup_sql("bench.orders", keys[0]));
    if (!filters) Check(Status::Internal("no filter found"), "analysis");
  }
  double analysis_ms = Ms(analysis_start) / kAnalyses;
  auto rewrite_start = std::chrono::steady_clock::now();
  for (int i = 0; i < kAnalyses; ++i) {
    RunQuery(**lake, "SELECT json_deserialize_sql(json_serialize_sql(" + QuoteSqlString(lookup_sql("bench.orders", keys[0])) + "))", 1);
  }
  double rewrite_ms = Ms(rewrite_start) / kAnalyses;

  // Opening the lake: every view, against only those a lookup statement can name (what `tide sql "SQL"`
  // does), over the bench warehouse and over one with 30 more (empty) tables beside it.
  std::string many = root + "/many";
  std::filesystem::create_directories(many + "/bench.db");
  std::filesystem::create_directory_symlink(path, many + "/bench.db/orders");
  for (int t = 0; t < 30; ++t) {
    Check(fs->WriteFileExclusive(many + "/bench.db/other" + std::to_string(t) + "/schema/schema-0", schema.ToJson()),
          "create table");
  }
  Figures open_all, open_named, open_many_all, open_many_named;
  for (int i = 0; i < 10; ++i) {
    for (auto [dir, all, named] : {std::tuple{&warehouse, &open_all, &open_named}, std::tuple{&many, &open_many_all, &open_many_named}}) {
      auto start = std::chrono::steady_clock::now();
      Check(LakeConnection::OpenWarehouse(fs, *dir).status(), "open lake");
      all->ms.push_back(Ms(start));
      start = std::chrono::steady_clock::now();
      LakeOpenOptions options;
      options.views_for = lookup_sql("bench.orders", keys[0]);
      Check(LakeConnection::OpenWarehouse(fs, *dir, options).status(), "open lake");
      named->ms.push_back(Ms(start));
    }
  }

  // The other route: Tide plans the key's bucket (its files, from $files), DuckDB reads them with
  // read_parquet and keeps the newest version of the key (merge in SQL).
  Figures lib_read_parquet;
  {
    auto function = BucketFunction::Create(BucketFunctionType::kDefault, {DataType::BigInt(false)}, 4);
    Check(function.status(), "bucket function");
    std::string scratch;
    for (size_t i = 0; i < std::min<size_t>(keys.size(), 20); ++i) {
      auto bucket = function->Bucket(Row{Datum(keys[i])}, &scratch);
      Check(bucket.status(), "bucket");
      auto start = std::chrono::steady_clock::now();
      auto files = (*lake)->connection().Query("SELECT string_agg(file_path, chr(10)) FROM bench.\"orders$files\" WHERE bucket = " +
                                               std::to_string(*bucket));
      Check(files.status(), "files");
      char* list = duckdb_value_varchar(files->raw(), 0, 0);
      std::string file_list = list ? list : "";
      duckdb_free(list);
      std::string quoted = "[";
      for (size_t at = 0; at < file_list.size();) {
        size_t end = file_list.find('\n', at);
        if (end == std::string::npos) end = file_list.size();
        quoted += (quoted.size() > 1 ? ", " : "") + QuoteSqlString(file_list.substr(at, end - at));
        at = end + 1;
      }
      quoted += "]";
      std::string sql = "SELECT * EXCLUDE (_KEY_order_id, _SEQUENCE_NUMBER, _VALUE_KIND) FROM (SELECT * FROM read_parquet(" +
                        quoted + ") WHERE order_id = " + std::to_string(keys[i]) +
                        " ORDER BY _SEQUENCE_NUMBER DESC LIMIT 1) WHERE _VALUE_KIND = 0";
      RunQuery(**lake, sql, 1);
      lib_read_parquet.ms.push_back(Ms(start));
    }
  }

  // End to end: `tide sql` processes, and a process that only opens DuckDB and runs the statement
  // (duckdb_query_once: the floor of any process on libduckdb). Interleaved, so that a change of the
  // machine's load touches every line alike.
  const std::string once = DUCKDB_QUERY_ONCE_BINARY;
  Figures e2e_tide, e2e_duck, e2e_once, e2e_unpruned, e2e_range;
  Figures start_help, start_once, start_empty, start_lake;  // where a process's time goes
  for (size_t i = 0; i < keys.size(); ++i) {
    e2e_tide.ms.push_back(RunTideSql(tide, warehouse, lookup_sql("bench.orders", keys[i])));
    e2e_duck.ms.push_back(RunTideSql(tide, empty, lookup_sql(parquet, keys[i])));
    e2e_once.ms.push_back(RunProcess({once, lookup_sql(parquet, keys[i])}));
    if (i < 10) {
      start_help.ms.push_back(RunProcess({tide, "--version"}));
      start_once.ms.push_back(RunProcess({once, "SELECT 1"}));
      start_empty.ms.push_back(RunTideSql(tide, empty, "SELECT 1"));
      start_lake.ms.push_back(RunTideSql(tide, warehouse, "SELECT 1"));
    }
    if (i < 5) {
      int64_t lo = 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(n - 1000));
      e2e_range.ms.push_back(RunTideSql(tide, warehouse, "SELECT * FROM bench.orders WHERE order_id BETWEEN " +
                                                             std::to_string(lo) + " AND " + std::to_string(lo + 999)));
    }
  }
  // A session: one `tide sql` process answering every lookup typed into it (the shell's way), against
  // the same session answering the same lookups on the plain Parquet file.
  Figures session_tide, session_duck;
  double session_tide_process_ms = 0, session_duck_process_ms = 0;
  {
    std::vector<std::string> lake_lookups, parquet_lookups;
    for (int64_t key : keys) {
      lake_lookups.push_back(lookup_sql("bench.orders", key));
      parquet_lookups.push_back(lookup_sql(parquet, key));
    }
    session_tide.ms = RunTideSqlSession(tide, warehouse, lake_lookups, &session_tide_process_ms);
    session_duck.ms = RunTideSqlSession(tide, empty, parquet_lookups, &session_duck_process_ms);
  }
  for (size_t i = 0; i < 3; ++i) {
    e2e_unpruned.ms.push_back(RunTideSql(tide, warehouse, "SELECT * FROM (SELECT * FROM bench.orders) WHERE order_id = " +
                                                             std::to_string(keys[i])));
  }

  std::printf("load after: %s (2 cores shared with other work: figures vary with the load)\n", Load().c_str());
  std::printf("\n%-58s %10s %10s\n", "point lookup (order_id = K)", "median ms", "p90 ms");
  auto line = [](const char* what, const Figures& f) { std::printf("%-58s %10.2f %10.2f\n", what, f.Median(), f.P90()); };
  line("tide sql process, pruned (bench.orders)", e2e_tide);
  line("tide sql process, DuckDB on one Parquet file", e2e_duck);
  line("duckdb_query_once process, DuckDB on one Parquet file", e2e_once);
  line("tide sql process, unpruned (full scan, 3 runs)", e2e_unpruned);
  line("tide sql process, key range of 1000 (BETWEEN, 5 runs)", e2e_range);
  line("tide sql session (stdin, .timer), pruned, per statement", session_tide);
  line("tide sql session (stdin, .timer), DuckDB on one Parquet file", session_duck);
  line("library LakeConnection::Query, pruned", lib_tide);
  line("library, DuckDB on one Parquet file", lib_duck);
  line("library, unpruned (pushdown off: full scan, 5 runs)", lib_unpruned);
  line("library, key range of 1000 (BETWEEN, 5 runs)", lib_range);
  line("library, value filter user_id = 7 (no pruning, 3 runs)", lib_value_scan);
  line("library, route 2: $files plan + read_parquet merge (20 runs)", lib_read_parquet);
  std::printf("\n%-58s %10s %10s\n", "where a process's time goes (10 runs each)", "median ms", "p90 ms");
  line("tide --version (loading, linking, no DuckDB)", start_help);
  line("duckdb_query_once 'SELECT 1' (loading + DuckDB start)", start_once);
  line("tide sql 'SELECT 1', empty warehouse", start_empty);
  line("tide sql 'SELECT 1', the bench warehouse (1 table)", start_lake);
  line("LakeConnection::OpenWarehouse, every view (1 table)", open_all);
  line("  only the views the lookup names (1 table)", open_named);
  line("LakeConnection::OpenWarehouse, every view (31 tables)", open_many_all);
  line("  only the views the lookup names (31 tables)", open_many_named);
  std::printf("\nfinding the filter per statement (json_serialize_sql, walk, TRY_CAST): %.3f ms\n", analysis_ms);
  std::printf("a rewrite's serializer round trip (json_deserialize_sql of it) alone: %.3f ms\n", rewrite_ms);
  std::printf("files opened per lookup: pruned %.1f, unpruned %.1f\n", opened_per_lookup, opened_unpruned);
  std::printf("ratio end to end (tide / DuckDB on Parquet): %.2f\n", e2e_tide.Median() / e2e_duck.Median());
  std::printf("ratio end to end (tide / duckdb_query_once): %.2f\n", e2e_tide.Median() / e2e_once.Median());
  std::printf("ratio library (tide / DuckDB on Parquet):    %.2f\n", lib_tide.Median() / lib_duck.Median());
  std::printf("ratio session (tide / DuckDB on Parquet):    %.2f (the sessions' whole processes, %zu lookups each: %.0f "
              "and %.0f ms)\n",
              session_tide.Median() / session_duck.Median(), keys.size(), session_tide_process_ms,
              session_duck_process_ms);
  std::printf("speed-up over the unpruned scan: end to end %.1fx, library %.1fx\n",
              e2e_unpruned.Median() / e2e_tide.Median(), lib_unpruned.Median() / lib_tide.Median());
  if (std::getenv("TIDE_BENCH_KEEP") == nullptr) std::filesystem::remove_all(root);
  return 0;
}
