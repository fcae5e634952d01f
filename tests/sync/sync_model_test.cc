// A randomized end-to-end test of `tide sync postgres` on a real PostgreSQL that the harness starts: a
// random workload over three tables while the real binary is killed with SIGKILL at random moments and
// restarted (TIDE_SYNC_KILLS kills, default 20; TIDE_SYNC_SEED replays a run):
//   accounts  the field report's layout: primary key id, partitioned by a day computed from moved_at,
//             so transfers move rows between partitions (cross-partition update mode); every transaction
//             moves money between two accounts, so the balances always sum to the same total; some
//             transactions rewrite every account's note and day (large enough to be streamed);
//   kv        inserts, updates, deletes, TRUNCATEs, ADD COLUMN and DROP COLUMN;
//   events    an append table (no primary key), small and large (streamed) inserts.
// At the end every table equals PostgreSQL row for row, and every snapshot the lake ever had of
// accounts holds whole transactions: all accounts, each once, summing to the total.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <map>
#include <random>
#include <set>
#include <thread>

#include "sync/sync_test_util.h"
#include "testing/pg_server.h"
#include "testing/temp_dir.h"
#include "tide/base/strings.h"
#include "tide/table/snapshot/snapshot_manager.h"
#include "tide/table/table.h"

namespace tide {
namespace {

using namespace sync_testing;

constexpr int kAccounts = 200;
constexpr int64_t kOpeningBalance = 1000;

// The columns kv has in PostgreSQL now, in order.
std::vector<std::string> KvColumns(const std::string& db) {
  auto rows = Server().Query(
      "SELECT attname FROM pg_attribute WHERE attrelid = 'kv'::regclass AND attnum > 0 AND NOT attisdropped "
      "ORDER BY attnum",
      db);
  std::vector<std::string> out;
  if (rows.ok()) {
    for (const auto& r : *rows) out.push_back(r[0].value_or(""));
  }
  return out;
}

std::string KvSelect(const std::vector<std::string>& columns) {
  std::vector<std::string> parts;
  for (const std::string& c : columns) parts.push_back("coalesce(" + c + "::text, '\\N')");
  return "SELECT concat_ws('|', " + Join(parts, ", ") + ") FROM kv";
}

const char* kAccountsSelect =
    "SELECT concat_ws('|', id::text, balance::text, to_char(moved_at, 'YYYY-MM-DD HH24:MI:SS') || '.000', "
    "coalesce(note, '\\N'), to_char(moved_at, 'YYYY-MM-DD')) FROM accounts";
const char* kEventsSelect = "SELECT concat_ws('|', id::text, payload) FROM events";
const std::vector<std::string> kAccountsColumns = {"id", "balance", "moved_at", "note", "dt"};
const std::vector<std::string> kEventsColumns = {"id", "payload"};

class SyncModelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = "sync_model";
    ASSERT_TRUE(Server().CreateDatabase(db_).ok());
    warehouse_ = dir_.path() + "/warehouse";
  }
  void Sql(const std::string& sql) {
    Status st = Server().Exec(sql, db_);
    ASSERT_TRUE(st.ok()) << st.ToString();
  }
  std::string TablePath(const std::string& t) const { return warehouse_ + "/shop.db/" + t; }

  pid_t StartSync() {
    return SpawnTide({"sync", "postgres", "--warehouse", warehouse_, "--database", "shop", "--postgres",
                      Server().conninfo(db_), "--tables", "public.accounts,public.kv,public.events",
                      "--computed-column", "dt=date_format(moved_at, yyyy-MM-dd)", "--partition-keys", "dt",
                      "--commit-interval", "50ms", "--copy-workers", "2"},
                     dir_.path() + "/sync.log");
  }

  std::string SyncLog() {
    auto text = FileSystem::Local()->ReadFile(dir_.path() + "/sync.log");
    if (!text.ok()) return "";
    return text->size() > 3000 ? text->substr(text->size() - 3000) : *text;
  }

  // Whether every table equals PostgreSQL (the lake read at its latest snapshot).
  bool Equal(std::string* why) {
    auto accounts = ReadLakeRows(TablePath("accounts"), kAccountsColumns);
    auto events = ReadLakeRows(TablePath("events"), kEventsColumns);
    std::vector<std::string> kv_columns = KvColumns(db_);
    auto kv = ReadLakeRows(TablePath("kv"), kv_columns);
    if (!accounts.ok() || !events.ok() || !kv.ok()) {
      *why = "not readable: " + (!accounts.ok() ? accounts.status() : !events.ok() ? events.status() : kv.status()).ToString();
      return false;
    }
    std::vector<std::string> pg_accounts = PgRows(kAccountsSelect, db_), pg_events = PgRows(kEventsSelect, db_),
                             pg_kv = PgRows(KvSelect(kv_columns), db_);
    *why = fmt::format("accounts: lake {} rows, PostgreSQL {}{}; events: lake {}, PostgreSQL {}{}; kv: lake {}, "
                       "PostgreSQL {}{}",
                       accounts->size(), pg_accounts.size(), *accounts == pg_accounts ? " (equal)" : "",
                       events->size(), pg_events.size(), *events == pg_events ? " (equal)" : "", kv->size(),
                       pg_kv.size(), *kv == pg_kv ? " (equal)" : "");
    return *accounts == pg_accounts && *events == pg_events && *kv == pg_kv;
  }

  std::string db_;
  testing::TempDir dir_;
  std::string warehouse_;
};

TEST_F(SyncModelTest, KilledAtRandomWhileTablesChangeMoveAndEvolve) {
  Sql("CREATE TABLE accounts (id bigint PRIMARY KEY, balance bigint NOT NULL, moved_at timestamp(3) NOT NULL, note text)");
  Sql(fmt::format("INSERT INTO accounts SELECT g, {}, timestamp '2026-11-01 12:00:00' + (g % 5) * interval '1 day', "
                  "'opened' FROM generate_series(1, {}) g",
                  kOpeningBalance, kAccounts));
  Sql("CREATE TABLE kv (id bigint PRIMARY KEY, v text)");
  Sql("INSERT INTO kv SELECT g, 'v' || g FROM generate_series(1, 300) g");
  Sql("CREATE TABLE events (id bigint NOT NULL, payload text)");
  Sql("INSERT INTO events SELECT g, 'copy' FROM generate_series(1, 500) g");

  const char* kills_env = std::getenv("TIDE_SYNC_KILLS");
  const char* seed_env = std::getenv("TIDE_SYNC_SEED");
  const int kills = kills_env ? std::atoi(kills_env) : 20;
  const unsigned seed = seed_env ? static_cast<unsigned>(std::atoi(seed_env)) : std::random_device{}();
  SCOPED_TRACE("TIDE_SYNC_SEED=" + std::to_string(seed));
  std::mt19937 rng(seed);

  std::atomic<bool> writing{true};
  std::atomic<int> transactions{0}, large{0}, ddl{0};
  std::thread writer([&, writer_seed = rng()] {
    std::mt19937 w(writer_seed);
    std::vector<int> added;  // kv's added columns, by number
    int next_column = 0;
    int64_t next_event = 100000;
    for (int i = 0; writing.load(); ++i) {
      const uint32_t op = w() % 100;
      std::string sql;
      const int a = 1 + static_cast<int>(w() % kAccounts), b = 1 + static_cast<int>(w() % kAccounts);
      const int amount = static_cast<int>(w() % 50);
      const std::string day = fmt::format("timestamp '2026-11-{:02d} {:02d}:00:00'", 1 + w() % 28, w() % 24);
      const std::string transfer = fmt::format(
          "UPDATE accounts SET balance = balance - {2}, moved_at = {3}, note = 't{4}' WHERE id = {0}; "
          "UPDATE accounts SET balance = balance + {2} WHERE id = {1};",
          a, b, amount, day, i);
      if (op < 4) {
        // Large: every account's note and day change, with a transfer; streamed by PostgreSQL.
        sql = "BEGIN; " + transfer +
              fmt::format(" UPDATE accounts SET note = repeat('n{}', 300), moved_at = moved_at + interval '1 day'; "
                          "INSERT INTO events SELECT g, 'bulk {}' FROM generate_series({}, {}) g; COMMIT",
                          i, i, next_event, next_event + 2999);
        next_event += 3000;
        ++large;
      } else if (op < 7) {
        // Schema changes of kv, each in a transaction of its own.
        if (added.empty() || w() % 2 == 0) {
          sql = fmt::format("ALTER TABLE kv ADD COLUMN c{} int", next_column);
          added.push_back(next_column++);
        } else {
          sql = fmt::format("ALTER TABLE kv DROP COLUMN c{}", added.back());
          added.pop_back();
        }
        ++ddl;
      } else if (op < 9) {
        sql = "BEGIN; TRUNCATE kv; INSERT INTO kv SELECT g, 'after truncate' FROM generate_series(1, 20) g; COMMIT";
      } else {
        const int64_t key = 1 + static_cast<int64_t>(w() % 400);
        std::string set_extra;
        if (!added.empty()) set_extra = fmt::format(", c{} = {}", added.back(), i);
        sql = "BEGIN; " + transfer +
              fmt::format(" INSERT INTO kv (id, v) VALUES ({0}, 'i{1}') ON CONFLICT (id) DO UPDATE SET v = 'u{1}'{2};"
                          " DELETE FROM kv WHERE id = {3}; INSERT INTO events VALUES ({4}, 'e{1}'); COMMIT",
                          key, i, set_extra, 1 + (key * 7) % 400, next_event++);
      }
      Status st = Server().Exec(sql, db_);
      if (!st.ok()) {
        ADD_FAILURE() << st.ToString() << " in: " << sql.substr(0, 200);
        return;
      }
      ++transactions;
      std::this_thread::sleep_for(std::chrono::milliseconds(3));
    }
  });

  // The first run copies every table (so the kills below hit the stream, the copy having been tested
  // by the other tests); a table copied under a later kill would hide the stream's work.
  {
    pid_t pid = StartSync();
    ASSERT_GT(pid, 0);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    auto copied = [&] {
      for (const char* t : {"accounts", "kv", "events"}) {
        auto latest = SnapshotManager(FileSystem::Local(), TablePath(t)).LatestId();
        if (!latest.ok() || !*latest) return false;
      }
      return true;
    };
    while (!copied() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    KillNow(pid);
    ASSERT_TRUE(copied()) << SyncLog();
  }
  for (int kill = 0; kill < kills; ++kill) {
    pid_t pid = StartSync();
    ASSERT_GT(pid, 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(200 + rng() % 900));
    KillNow(pid);
  }
  writing = false;
  writer.join();
  ASSERT_FALSE(HasFailure());
  EXPECT_GT(large.load(), 0) << "the workload had no large transaction";
  EXPECT_GT(ddl.load(), 0) << "the workload had no schema change";

  pid_t pid = StartSync();
  std::string why;
  bool equal = false;
  for (auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
       !equal && std::chrono::steady_clock::now() < deadline;) {
    equal = Equal(&why);
    if (!equal) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  ::kill(pid, SIGTERM);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(equal) << why << "\n" << transactions.load() << " transactions; the sync's log ends:\n" << SyncLog();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status << "\n" << SyncLog();

  // Every snapshot of accounts holds whole transactions: each account once, the balances at the total.
  SnapshotManager snapshots(FileSystem::Local(), TablePath("accounts"));
  auto earliest = snapshots.EarliestId();
  auto latest = snapshots.LatestId();
  ASSERT_TRUE(earliest.ok() && latest.ok() && *earliest && *latest);
  int checked = 0;
  for (int64_t id = **earliest; id <= **latest; ++id) {
    auto rows = ReadLakeRows(TablePath("accounts"), {"id", "balance"}, id);
    ASSERT_TRUE(rows.ok()) << "snapshot " << id << ": " << rows.status().ToString();
    std::set<int64_t> ids;
    int64_t total = 0;
    for (const std::string& row : *rows) {
      std::vector<std::string> parts = SplitTrimmed(row, '|');
      ids.insert(std::stoll(parts[0]));
      total += std::stoll(parts[1]);
    }
    EXPECT_EQ(rows->size(), static_cast<size_t>(kAccounts)) << "snapshot " << id;
    EXPECT_EQ(ids.size(), static_cast<size_t>(kAccounts)) << "snapshot " << id << " holds an account twice";
    EXPECT_EQ(total, kAccounts * kOpeningBalance) << "snapshot " << id << " holds part of a transfer";
    ++checked;
  }
  EXPECT_GT(checked, kills / 2) << "snapshots checked: " << **earliest << " to " << **latest << "; "
                            << transactions.load() << " transactions; the sync's log ends:\n" << SyncLog();
  RecordProperty("transactions", transactions.load());
  RecordProperty("snapshots_checked", checked);
}

}  // namespace
}  // namespace tide
