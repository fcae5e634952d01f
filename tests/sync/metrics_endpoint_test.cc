// End-to-end tests of `tide sync postgres --metrics-port`: the real binary syncs a real PostgreSQL;
// `/metrics` is read by the Prometheus text parser of the prometheus_client Python package (not by
// pattern matching) and must show what the sync did; the status page is loaded in headless Chromium,
// its script runs, and the tables and numbers it shows must be those of `/metrics`. Neither shows the
// conninfo's password. Needs python3 with prometheus_client and chromium (scripts/install-deps.sh).
#include <signal.h>
#include <sys/wait.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "sync/sync_test_util.h"
#include "testing/temp_dir.h"
#include "tide/base/strings.h"

namespace tide {
namespace {

using namespace sync_testing;
using nlohmann::json;

constexpr const char* kPassword = "Metr1csNeverShowThis";
constexpr const char* kOrdersSelect = "SELECT concat_ws('|', id, amount, note) FROM orders";
constexpr const char* kEventsSelect = "SELECT concat_ws('|', id, payload) FROM events";

// Runs `command` in the shell; its exit code and stdout.
std::pair<int, std::string> Shell(const std::string& command) {
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return {-1, ""};
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  const int status = ::pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// tests/sync/read_metrics.py WHAT WHERE, parsed.
json ReadWithPython(const std::string& what, const std::string& where) {
  auto [code, out] = Shell("python3 " + ShellQuote(testing::SourceDir() + "/tests/sync/read_metrics.py") + " " + what +
                           " " + ShellQuote(where));
  EXPECT_EQ(code, 0) << "read_metrics.py " << what << " failed (python3 with prometheus_client installed? see "
                     << "scripts/install-deps.sh): " << out;
  if (code != 0) return json::object();
  return json::parse(out);
}

// The value of the sample `name` whose labels include `labels`; nullopt when there is none.
std::optional<double> SampleValue(const json& metrics, const std::string& name, const json& labels = json::object()) {
  for (const json& s : metrics["samples"]) {
    if (s["name"] != name) continue;
    bool match = true;
    for (auto it = labels.begin(); it != labels.end(); ++it) {
      if (!s["labels"].contains(it.key()) || s["labels"][it.key()] != it.value()) match = false;
    }
    if (match) return s["value"].get<double>();
  }
  return std::nullopt;
}

class MetricsEndpointTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = "metrics_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name());
    db_ = ToLower(db_).substr(0, 60);
    ASSERT_TRUE(Server().CreateDatabase(db_).ok());
    warehouse_ = dir_.path() + "/warehouse";
    stderr_path_ = dir_.path() + "/tide.stderr";
  }
  void TearDown() override {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      int status = 0;
      ::waitpid(pid_, &status, 0);
      EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << ReadText(stderr_path_);
    }
    // The slot is the sync's own; drop it so the server does not keep WAL for it.
    Server().Exec("SELECT pg_drop_replication_slot('" + slot() + "') FROM pg_replication_slots WHERE slot_name = '" +
                      slot() + "'",
                  db_)
        .IgnoreError();
  }
  std::string slot() const { return "slot_" + db_.substr(8, 40); }

  // Starts `tide sync postgres --metrics-port 0` on orders and events; returns the URL it serves on,
  // read from its progress line ("" when none came).
  std::string StartSync() {
    const std::string conninfo = Server().conninfo(db_) + " password=" + kPassword;
    pid_ = SpawnTide({"sync", "postgres", "--warehouse", warehouse_, "--database", "shop", "--postgres", conninfo,
                      "--tables", "public.orders,public.events", "--slot", slot(), "--commit-interval", "200ms",
                      "--metrics-port", "0"},
                     stderr_path_);
    const std::string marker = "serving metrics on ";
    for (int i = 0; i < 300; ++i) {
      const std::string err = ReadText(stderr_path_);
      const size_t at = err.find(marker);
      if (at != std::string::npos) {
        const size_t start = at + marker.size();
        const size_t end = err.find("/metrics", start);
        if (end != std::string::npos) return err.substr(start, end - start);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ADD_FAILURE() << "no metrics address printed: " << ReadText(stderr_path_);
    return "";
  }

  // Orders (3000 rows, analyzed), events (empty); synced; then 10 orders updated and 2 events inserted.
  void SyncAndChange(const std::string& url) {
    ASSERT_TRUE(WaitEqual(TablePath("orders"), kOrdersSelect, db_)) << ReadText(stderr_path_);
    Sql("UPDATE orders SET note = 'u' WHERE id <= 10", db_);
    Sql("INSERT INTO events VALUES (1, 'e'), (2, 'f')", db_);
    ASSERT_TRUE(WaitEqual(TablePath("orders"), kOrdersSelect, db_)) << ReadText(stderr_path_);
    ASSERT_TRUE(WaitEqual(TablePath("events"), kEventsSelect, db_)) << ReadText(stderr_path_);
    // The lake has the changes; wait until the stream is acknowledged too, so the figures stand still.
    for (int i = 0; i < 100; ++i) {
      json m = ReadWithPython("metrics", url + "/metrics");
      if (SampleValue(m, "tide_sync_replication_lag_bytes") == 0.0 && SampleValue(m, "tide_sync_lag_seconds") == 0.0)
        return;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }

  void CreateTables() {
    Sql("CREATE TABLE orders (id bigint PRIMARY KEY, amount numeric(10,2) NOT NULL, note text)", db_);
    Sql("INSERT INTO orders SELECT g, g, 'o' FROM generate_series(1, 3000) g; ANALYZE orders", db_);
    Sql("CREATE TABLE events (id bigint PRIMARY KEY, payload text)", db_);
  }

  std::string TablePath(const std::string& table) const { return warehouse_ + "/shop.db/" + table; }

  testing::TempDir dir_;
  std::string db_;
  std::string warehouse_;
  std::string stderr_path_;
  pid_t pid_ = -1;
};

TEST_F(MetricsEndpointTest, PrometheusParserReadsWhatTheSyncDid) {
  CreateTables();
  const std::string url = StartSync();
  ASSERT_EQ(url.rfind("http://127.0.0.1:", 0), 0u) << "bound to 127.0.0.1 by default: " << url;
  ASSERT_NO_FATAL_FAILURE(SyncAndChange(url));

  json m = ReadWithPython("metrics", url + "/metrics");
  ASSERT_TRUE(m.contains("samples"));
  EXPECT_EQ(m["content_type"], "text/plain; version=0.0.4; charset=utf-8");
  const json orders = {{"table", "public.orders"}, {"target", "shop.orders"}};
  const json events = {{"table", "public.events"}, {"target", "shop.events"}};
  const double rows_in_pg = std::stod(*Server().QueryValue("SELECT count(*) FROM orders", db_));
  EXPECT_EQ(SampleValue(m, "tide_sync_rows_copied_total", orders), rows_in_pg);
  EXPECT_EQ(SampleValue(m, "tide_sync_rows_copied_total", events), 0.0);
  EXPECT_EQ(SampleValue(m, "tide_sync_rows_estimate", orders), 3000.0) << "ANALYZE counted the rows";
  EXPECT_EQ(SampleValue(m, "tide_sync_changes_streamed_total", orders), 10.0);
  EXPECT_EQ(SampleValue(m, "tide_sync_changes_streamed_total", events), 2.0);
  EXPECT_EQ(SampleValue(m, "tide_sync_table_phase", {{"table", "public.orders"}, {"phase", "streaming"}}), 1.0);
  EXPECT_EQ(SampleValue(m, "tide_sync_table_phase", {{"table", "public.orders"}, {"phase", "copying"}}), 0.0);
  EXPECT_GE(SampleValue(m, "tide_sync_table_commits_total", orders).value_or(0), 2.0) << "the copy's and the update's";
  EXPECT_GE(SampleValue(m, "tide_sync_commits_total").value_or(0), 1.0);
  // The writer's files: the copy and the update each left at least one data file in orders' bucket.
  EXPECT_GE(SampleValue(m, "tide_sync_data_files", orders).value_or(0), 1.0);
  EXPECT_GE(SampleValue(m, "tide_sync_max_files_per_bucket", orders).value_or(0), 1.0);
  EXPECT_GE(SampleValue(m, "tide_sync_max_sorted_runs_per_bucket", orders).value_or(0), 1.0);
  EXPECT_EQ(SampleValue(m, "tide_sync_write_buffer_bytes", orders), 0.0) << "a commit leaves nothing buffered";
  // Maintenance after commits runs beside them: its families are there, and nothing failed.
  EXPECT_GE(SampleValue(m, "tide_sync_table_maintenance_runs_total", orders).value_or(-1), 0.0);
  EXPECT_EQ(SampleValue(m, "tide_sync_table_maintenance_failures_total", orders), 0.0);
  EXPECT_GE(SampleValue(m, "tide_sync_table_snapshots_expired_total", orders).value_or(-1), 0.0);
  EXPECT_GE(SampleValue(m, "tide_sync_transactions_total").value_or(0), 2.0);
  EXPECT_EQ(SampleValue(m, "tide_sync_up"), 1.0);
  EXPECT_EQ(SampleValue(m, "tide_sync_info", {{"slot", slot()}}), 1.0);
  EXPECT_EQ(SampleValue(m, "tide_sync_replication_lag_bytes"), 0.0);
  EXPECT_GT(SampleValue(m, "tide_sync_acknowledged_lsn").value_or(0), 0.0);
  // The lake table's committed position is at or below what was acknowledged, and PostgreSQL's slot was
  // never told more than that.
  const double acknowledged = SampleValue(m, "tide_sync_acknowledged_lsn").value_or(0);
  EXPECT_LE(SampleValue(m, "tide_sync_table_committed_lsn", orders).value_or(1e30), acknowledged);
  EXPECT_GT(SampleValue(m, "tide_sync_table_committed_lsn", orders).value_or(0), 0.0);
  const std::string confirmed = *Server().QueryValue(
      "SELECT (confirmed_flush_lsn - '0/0')::bigint FROM pg_replication_slots WHERE slot_name = '" + slot() + "'", db_);
  EXPECT_LE(std::stod(confirmed), acknowledged);
  // Histograms as the parser understands them: cumulative buckets up to +Inf, which equals _count.
  EXPECT_EQ(m["families"]["tide_sync_commit_duration_seconds"], "histogram");
  EXPECT_EQ(m["families"]["tide_sync_rows_copied"], "counter");  // the parser names counters without _total
  const auto commits = SampleValue(m, "tide_sync_commit_duration_seconds_count");
  ASSERT_TRUE(commits.has_value());
  EXPECT_GE(*commits, 2.0);
  EXPECT_EQ(SampleValue(m, "tide_sync_commit_duration_seconds_bucket", {{"le", "+Inf"}}), commits);
  const auto fresh = SampleValue(m, "tide_sync_freshness_seconds_count");
  EXPECT_GE(fresh.value_or(0), 1.0);
  EXPECT_GE(SampleValue(m, "tide_sync_last_freshness_seconds").value_or(-1), 0.0);
  EXPECT_EQ(m["text"].get<std::string>().find(kPassword), std::string::npos) << "the conninfo's password leaked";

  // A lost replication connection is counted as an error of its kind once the sync made it again.
  EXPECT_EQ(SampleValue(m, "tide_sync_errors_total", {{"kind", "connection_lost"}}), 0.0);
  ASSERT_TRUE(
      Server().Exec("SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = '" + slot() + "'")
          .ok());
  bool counted = false;
  for (int i = 0; i < 100 && !counted; ++i) {
    Sql("UPDATE orders SET note = 'after " + std::to_string(i) + "' WHERE id = 1", db_);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    counted = SampleValue(ReadWithPython("metrics", url + "/metrics"), "tide_sync_errors_total",
                          {{"kind", "connection_lost"}})
                  .value_or(0) >= 1.0;
  }
  EXPECT_TRUE(counted) << ReadText(stderr_path_);
  ASSERT_TRUE(WaitEqual(TablePath("orders"), kOrdersSelect, db_)) << ReadText(stderr_path_);
}

TEST_F(MetricsEndpointTest, StatusPageInChromiumShowsTheTablesAndTheNumbersOfMetrics) {
  CreateTables();
  const std::string url = StartSync();
  ASSERT_FALSE(url.empty());
  ASSERT_NO_FATAL_FAILURE(SyncAndChange(url));

  // The page's script fetches /api/status and fills the DOM; the virtual time budget lets it run.
  const std::string dom_path = dir_.path() + "/page.html";
  auto [code, out] = Shell("chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run "
                           "--user-data-dir=" + ShellQuote(dir_.path() + "/chromium") +
                           " --virtual-time-budget=5000 --dump-dom " + ShellQuote(url + "/") + " > " +
                           ShellQuote(dom_path) + " 2>/dev/null");
  ASSERT_EQ(code, 0) << "chromium failed (installed? see scripts/install-deps.sh)";
  json page = ReadWithPython("page", dom_path);
  json m = ReadWithPython("metrics", url + "/metrics");
  ASSERT_TRUE(page.value("loaded", false)) << "the page's script did not load /api/status: " << ReadText(dom_path);

  auto number = [](const json& text) {  // "3,000" as the page shows it
    std::string digits;
    for (char c : text.get<std::string>()) {
      if (c != ',') digits += c;
    }
    return std::stod(digits);
  };
  ASSERT_EQ(page["tables"].size(), 2u) << page.dump();
  for (const std::string source : {"public.orders", "public.events"}) {
    SCOPED_TRACE(source);
    ASSERT_TRUE(page["tables"].contains(source)) << page.dump();
    const json& row = page["tables"][source];
    const json labels = {{"table", source}};
    EXPECT_EQ(row["target"], "shop." + source.substr(7));
    EXPECT_EQ(row["phase"], "streaming");
    EXPECT_EQ(SampleValue(m, "tide_sync_table_phase", {{"table", source}, {"phase", "streaming"}}), 1.0);
    EXPECT_EQ(number(row["rows-copied"]), SampleValue(m, "tide_sync_rows_copied_total", labels));
    EXPECT_EQ(number(row["changes-streamed"]), SampleValue(m, "tide_sync_changes_streamed_total", labels));
    EXPECT_EQ(number(row["commits"]), SampleValue(m, "tide_sync_table_commits_total", labels));
  }
  EXPECT_EQ(number(page["tables"]["public.orders"]["rows-copied"]), 3000.0);
  EXPECT_EQ(number(page["tables"]["public.orders"]["changes-streamed"]), 10.0);
  EXPECT_EQ(page["tables"]["public.orders"]["copy"], "100% of ~3,000");
  EXPECT_EQ(number(page["figures"]["transactions"]), SampleValue(m, "tide_sync_transactions_total"));
  EXPECT_EQ(number(page["figures"]["commits"]), SampleValue(m, "tide_sync_commits_total"));
  EXPECT_EQ(number(page["figures"]["changes-streamed"]), 12.0);
  EXPECT_EQ(page["figures"]["lag-bytes"], "0 B");
  EXPECT_EQ(ReadText(dom_path).find(kPassword), std::string::npos) << "the conninfo's password leaked";
  auto [api_code, api] = Shell("python3 -c " + ShellQuote("import sys,urllib.request;sys.stdout.write(urllib.request.urlopen(sys.argv[1]).read().decode())") +
                               " " + ShellQuote(url + "/api/status"));
  ASSERT_EQ(api_code, 0);
  EXPECT_EQ(api.find(kPassword), std::string::npos) << "the conninfo's password leaked";
  json status = json::parse(api);
  EXPECT_FALSE(status["recent_commits"].empty());
  EXPECT_FALSE(status["history"].empty());
}

}  // namespace
}  // namespace tide
