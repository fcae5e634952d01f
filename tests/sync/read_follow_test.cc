// End-to-end test of the change stream: `tide sync postgres` mirrors a real PostgreSQL table while
// `tide read --follow` prints its changes; every committed change must come out exactly once and in
// commit order, also when the reader is stopped and restarted with its --consumer-id (and snapshots are
// expired while it is away).
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "sync/sync_test_util.h"
#include "testing/pg_server.h"
#include "testing/temp_dir.h"
#include "tide/base/strings.h"
#include "tide/table/snapshot/consumer_manager.h"
#include "tide/table/snapshot/snapshot_manager.h"

namespace tide {
namespace {

using namespace sync_testing;

// Starts `tide args...` with stdout to `out_path` and stderr to `err_path`.
pid_t SpawnTideTo(std::vector<std::string> args, const std::string& out_path, const std::string& err_path) {
  args.insert(args.begin(), testing::BuildDir() + "/tide");
  std::vector<char*> ptrs;
  for (auto& a : args) ptrs.push_back(a.data());
  ptrs.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid == 0) {
    int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    ::dup2(out, 1);
    ::dup2(err, 2);
    ::execv(ptrs[0], ptrs.data());
    _exit(127);
  }
  return pid;
}

// SIGTERM, then the exit code (-1 when it did not exit by itself).
int StopGently(pid_t pid) {
  ::kill(pid, SIGTERM);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// The lines `tide read --format json` printed, each as "kind id v" ("kind id" for a delete, whose row
// PostgreSQL sends with its key only), and the snapshot ids they came from.
struct Printed {
  std::vector<std::string> changes;
  std::vector<int64_t> snapshots;
};

Printed ReadPrinted(const std::string& path) {
  Printed printed;
  auto text = FileSystem::Local()->ReadFile(path);
  if (!text.ok()) return printed;
  for (const std::string& line : Split(*text, '\n')) {
    if (line.empty()) continue;
    auto j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) {
      ADD_FAILURE() << "not a JSON line: " << line;
      continue;
    }
    std::string kind = j["rowkind"].get<std::string>();
    std::string change = kind + " " + std::to_string(j["row"]["id"].get<int64_t>());
    if (kind != "-D") change += " " + (j["row"]["v"].is_null() ? std::string("NULL") : j["row"]["v"].get<std::string>());
    printed.changes.push_back(change);
    printed.snapshots.push_back(j["snapshot_id"].get<int64_t>());
  }
  return printed;
}

class ReadFollowTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = "rf_" + ToLower(std::string(::testing::UnitTest::GetInstance()->current_test_info()->name())).substr(0, 50);
    ASSERT_TRUE(Server().CreateDatabase(db_).ok());
    warehouse_ = dir_.path() + "/warehouse";
  }
  std::string TablePath() const { return warehouse_ + "/shop.db/orders"; }

  std::string db_;
  testing::TempDir dir_;
  std::string warehouse_;
};

TEST_F(ReadFollowTest, PrintsEveryCommittedChangeOnceInCommitOrderAcrossARestart) {
  Sql("CREATE TABLE orders (id bigint PRIMARY KEY, v text)", db_);
  Sql("INSERT INTO orders SELECT g, 'init' || g FROM generate_series(1, 20) g", db_);
  const std::string err = dir_.path() + "/tide.stderr";
  // The sync at its default commit interval, with the changelog of every input record, one bucket (so
  // that sequence numbers order every change of the table).
  pid_t sync = SpawnTide({"sync", "postgres", "--warehouse", warehouse_, "--database", "shop", "--postgres",
                          Server().conninfo(db_), "--tables", "public.orders", "--slot", "read_follow_slot",
                          "--publication", "read_follow_pub", "--table-conf", "changelog-producer=input",
                          "--table-conf", "bucket=1"},
                         err);
  ASSERT_GT(sync, 0);
  ASSERT_TRUE(WaitEqual(TablePath(), "SELECT concat_ws('|', id::text, v) FROM orders", db_)) << "the initial copy";

  auto reader_args = [&](const std::string& from) {
    return std::vector<std::string>{"read", "--warehouse", warehouse_, "--table", "shop.orders", "--follow",
                                    "--from", from, "--consumer-id", "audit", "--format", "json",
                                    "--poll-interval", "50ms"};
  };
  const std::string out1 = dir_.path() + "/read1.jsonl", out2 = dir_.path() + "/read2.jsonl";
  pid_t reader = SpawnTideTo(reader_args("earliest"), out1, err);
  ASSERT_GT(reader, 0);

  // The workload, and the changes it must print: inserts, updates (one key twice in a transaction) and
  // deletes, one transaction at a time, each with its own value so every line is distinct.
  std::vector<std::string> expected;
  std::map<int64_t, std::string> live;
  for (int64_t id = 1; id <= 20; ++id) live[id] = "init" + std::to_string(id);
  int64_t next_id = 100;
  auto run_ops = [&](int from, int to) {
    for (int i = from; i < to; ++i) {
      std::string v = "w" + std::to_string(i);
      if (i % 4 == 0 || live.size() < 5) {
        int64_t id = next_id++;
        Sql("INSERT INTO orders VALUES (" + std::to_string(id) + ", '" + v + "')", db_);
        live[id] = v;
        expected.push_back("+I " + std::to_string(id) + " " + v);
      } else if (i % 4 == 1) {
        int64_t id = std::next(live.begin(), i % live.size())->first;
        Sql("UPDATE orders SET v = '" + v + "' WHERE id = " + std::to_string(id), db_);
        live[id] = v;
        expected.push_back("+U " + std::to_string(id) + " " + v);
      } else if (i % 4 == 2) {
        int64_t a = std::next(live.begin(), i % live.size())->first;
        int64_t b = std::next(live.begin(), (i + 1) % live.size())->first;
        Sql("BEGIN; UPDATE orders SET v = '" + v + "a' WHERE id = " + std::to_string(a) + "; UPDATE orders SET v = '" +
                v + "b' WHERE id = " + std::to_string(b) + "; UPDATE orders SET v = '" + v + "c' WHERE id = " +
                std::to_string(a) + "; COMMIT",
            db_);
        expected.push_back("+U " + std::to_string(a) + " " + v + "a");
        expected.push_back("+U " + std::to_string(b) + " " + v + "b");
        expected.push_back("+U " + std::to_string(a) + " " + v + "c");
        live[a] = v + "c";
        live[b] = v + "b";
      } else {
        int64_t id = std::next(live.begin(), i % live.size())->first;
        Sql("DELETE FROM orders WHERE id = " + std::to_string(id), db_);
        live.erase(id);
        expected.push_back("-D " + std::to_string(id));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(15));
    }
  };
  auto wait_printed = [&](const std::vector<std::string>& paths, size_t count) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (std::chrono::steady_clock::now() < deadline) {
      size_t n = 0;
      for (const auto& p : paths) n += ReadPrinted(p).changes.size();
      if (n >= count) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  };

  // The copy's rows come first (snapshot 1, as +I), then the changes.
  const size_t copied = 20;
  run_ops(0, 100);
  ASSERT_TRUE(wait_printed({out1}, copied + expected.size())) << "the first reader printed "
                                                              << ReadPrinted(out1).changes.size() << " lines";
  EXPECT_EQ(StopGently(reader), 0) << "SIGTERM stops the reader cleanly";

  // While the reader is away: more changes, and an expiry that would keep only the latest snapshot.
  run_ops(100, 200);
  ASSERT_TRUE(WaitEqual(TablePath(), "SELECT concat_ws('|', id::text, v) FROM orders", db_));
  auto consumers = ConsumerManager(FileSystem::Local(), TablePath()).Consumers();
  ASSERT_TRUE(consumers.ok()) << consumers.status().ToString();
  ASSERT_EQ(consumers->count("audit"), 1u);
  const int64_t resume_at = consumers->at("audit");
  auto [expire_code, expire_err] =
      RunTide({"expire-snapshots", "--warehouse", warehouse_, "--table", "shop.orders", "--retain-min", "1",
               "--retain-max", "1", "--older-than", "2099-01-01 00:00:00"},
              dir_.path());
  ASSERT_EQ(expire_code, 0) << expire_err;
  auto earliest = SnapshotManager(FileSystem::Local(), TablePath()).EarliestId();
  ASSERT_TRUE(earliest.ok() && earliest->has_value());
  EXPECT_EQ(**earliest, resume_at) << "expiry keeps the snapshots the consumer still needs, and only those";

  // The restarted reader continues where it stopped (its --from is ignored: the consumer wins).
  reader = SpawnTideTo(reader_args("latest"), out2, err);
  ASSERT_GT(reader, 0);
  run_ops(200, 240);
  ASSERT_TRUE(wait_printed({out1, out2}, copied + expected.size()));
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // anything extra would show up by now
  EXPECT_EQ(StopGently(reader), 0);
  EXPECT_EQ(StopGently(sync), 0);

  Printed first = ReadPrinted(out1), second = ReadPrinted(out2);
  ASSERT_GE(first.changes.size(), copied);
  std::vector<std::string> copy(first.changes.begin(), first.changes.begin() + copied);
  std::vector<std::string> streamed(first.changes.begin() + copied, first.changes.end());
  streamed.insert(streamed.end(), second.changes.begin(), second.changes.end());
  std::vector<std::string> want_copy;
  for (int64_t id = 1; id <= 20; ++id) want_copy.push_back("+I " + std::to_string(id) + " init" + std::to_string(id));
  std::sort(copy.begin(), copy.end());
  std::sort(want_copy.begin(), want_copy.end());
  EXPECT_EQ(copy, want_copy);
  EXPECT_EQ(streamed, expected) << "every change once, in commit order";
  // Snapshot ids never go back, and the second run starts at the consumer's snapshot.
  std::vector<int64_t> ids = first.snapshots;
  ids.insert(ids.end(), second.snapshots.begin(), second.snapshots.end());
  EXPECT_TRUE(std::is_sorted(ids.begin(), ids.end()));
  ASSERT_FALSE(second.snapshots.empty());
  EXPECT_GE(second.snapshots.front(), resume_at);
  EXPECT_LT(first.snapshots.back(), resume_at);
}

TEST_F(ReadFollowTest, WithoutFollowPrintsUpToTheLatestSnapshotAndExits) {
  Sql("CREATE TABLE orders (id bigint PRIMARY KEY, v text)", db_);
  Sql("INSERT INTO orders SELECT g, 'v' || g FROM generate_series(1, 5) g", db_);
  const std::string err = dir_.path() + "/tide.stderr";
  pid_t sync = SpawnTide({"sync", "postgres", "--warehouse", warehouse_, "--database", "shop", "--postgres",
                          Server().conninfo(db_), "--tables", "public.orders", "--slot", "read_once_slot",
                          "--publication", "read_once_pub"},
                         err);
  ASSERT_TRUE(WaitEqual(TablePath(), "SELECT concat_ws('|', id::text, v) FROM orders", db_));
  Sql("UPDATE orders SET v = 'changed' WHERE id = 3", db_);
  Sql("DELETE FROM orders WHERE id = 4", db_);
  ASSERT_TRUE(WaitEqual(TablePath(), "SELECT concat_ws('|', id::text, v) FROM orders", db_));
  EXPECT_EQ(StopGently(sync), 0);
  // No changelog producer: the delta files of each APPEND snapshot, from the first one on.
  const std::string out = dir_.path() + "/once.csv";
  pid_t reader = SpawnTideTo({"read", "--warehouse", warehouse_, "--table", "shop.orders", "--from", "earliest",
                              "--format", "csv"},
                             out, err);
  int status = 0;
  ::waitpid(reader, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  auto text = FileSystem::Local()->ReadFile(out);
  ASSERT_TRUE(text.ok());
  std::vector<std::string> lines = Split(*text, '\n');
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0], "rowkind,snapshot_id,id,v");
  std::vector<std::string> rows;
  for (size_t i = 1; i < lines.size(); ++i) {
    if (lines[i].empty()) continue;
    std::vector<std::string> cells = Split(lines[i], ',');
    ASSERT_EQ(cells.size(), 4u) << lines[i];
    rows.push_back(cells[0] == "-D" ? cells[0] + " " + cells[2] : cells[0] + " " + cells[2] + " " + cells[3]);
  }
  // The copy (its snapshot in key order per bucket), then the update and the delete.
  std::sort(rows.begin(), rows.end());
  EXPECT_EQ(rows, (std::vector<std::string>{"+I 1 v1", "+I 2 v2", "+I 3 v3", "+I 4 v4", "+I 5 v5", "+U 3 changed",
                                            "-D 4"}));
}

}  // namespace
}  // namespace tide
