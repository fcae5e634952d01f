// End-to-end tests of the recipes of docs/recipes.md (the field report's uses of mirrored tables): a
// real PostgreSQL holds the report's users, items and orders, `tide sync postgres` (the binary, run as a
// user runs it) mirrors them, and every recipe's commands and SQL are run through the `tide` binary and
// their output compared with what PostgreSQL says is true:
//   §3.7  the three checks after the pipeline runs (row counts and `tide verify`, key range, a change
//         seen in the lake within a deadline, the latest snapshot and `tide sync status`);
//   §6.1  the wide user_order_detail (orders, users, items) at the latest state and as of a point in time
//         and a snapshot;
//   §6.2  the audit history of one order in commit order, from the changelog files, through SQL and
//         through `tide read`;
//   §6.3  orders per minute: the query over the lake, and an aggregation table kept by a second sync.
// Every wait polls a condition until a deadline; nothing assumes a fixed sleep is enough.
// Thread-safety: each test runs alone, with a PostgreSQL database, slot and warehouse of its own.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "sync/sync_test_util.h"
#include "testing/pg_server.h"
#include "testing/temp_dir.h"
#include "testing/tide_process.h"
#include "tide/base/strings.h"

namespace tide {
namespace {

using sync_testing::Server;
using sync_testing::Sql;

using Clock = std::chrono::steady_clock;

int64_t NowEpochMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Polls `done` every 200 ms until it holds or `seconds` pass; returns whether it held.
bool WaitFor(const std::function<bool()>& done, int seconds) {
  auto deadline = Clock::now() + std::chrono::seconds(seconds);
  while (Clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return done();
}

// Generous: the machine running the tests may be loaded; a healthy run takes a second or two.
constexpr int kCatchUpSeconds = 120;

class RecipesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // The lake shows commit times in local time: UTC here, as in the docs' examples.
    setenv("TZ", "UTC", 1);
    std::string test = ToLower(::testing::UnitTest::GetInstance()->current_test_info()->name());
    db_ = "recipes_" + test.substr(0, 40);
    ASSERT_TRUE(Server().CreateDatabase(db_).ok());
    warehouse_ = dir_.path() + "/lake";
    CreateShop();
  }

  void TearDown() override {
    for (pid_t pid : syncs_) StopSync(pid);
  }

  // The report's three source tables. orders has REPLICA IDENTITY FULL, so that PostgreSQL sends the old
  // row of each UPDATE and DELETE: the lake's changelog then holds -U before +U (§6.2), and the
  // aggregation table can retract what a row counted before (§6.3).
  void CreateShop() {
    Sql("CREATE TABLE users (user_id bigint PRIMARY KEY, user_name text, city text)", db_);
    Sql("CREATE TABLE items (item_id bigint PRIMARY KEY, item_name text, price numeric(10,2))", db_);
    Sql("CREATE TABLE orders (order_id bigint PRIMARY KEY, user_id bigint, item_id bigint, amount numeric(10,2), "
        "status text, create_time timestamp(3), update_time timestamp(3))",
        db_);
    Sql("ALTER TABLE orders REPLICA IDENTITY FULL", db_);
    Sql("INSERT INTO users SELECT g, 'user_' || g, (ARRAY['Beijing','Shanghai','Shenzhen',NULL])[1 + g % 4] "
        "FROM generate_series(1, 40) g",
        db_);
    Sql("INSERT INTO items SELECT g, 'item_' || g, g * 1.25 FROM generate_series(1, 15) g", db_);
    // 12300..12399, spread over eight minutes; a few whose user or item does not exist (yet).
    Sql("INSERT INTO orders SELECT g, CASE WHEN g % 25 = 0 THEN 1000 + g ELSE 1 + g % 40 END, "
        "CASE WHEN g % 33 = 0 THEN 99 ELSE 1 + g % 15 END, (g % 17) * 3.5 + 0.99, 'created', "
        "timestamp '2026-12-01 10:00:00' + (g - 12300) * interval '4.7 seconds', "
        "timestamp '2026-12-01 10:00:00' + (g - 12300) * interval '4.7 seconds' FROM generate_series(12300, 12399) g",
        db_);
  }

  std::string Conninfo() const { return Server().conninfo(db_); }

  // `tide sync postgres` of the three tables into shop.*, as docs/recipes.md starts it.
  void StartMirror() {
    StartSync({"--database", "shop", "--tables", "public.orders,public.users,public.items", "--slot",
               "mirror_" + db_.substr(8, 30), "--table-conf", "changelog-producer=input"});
  }

  // The second sync of §6.3: orders into an aggregation table keyed by the minute of create_time.
  void StartPerMinute() {
    StartSync({"--database", "metrics", "--tables", "public.orders", "--slot", "per_minute_" + db_.substr(8, 30),
               "--table-suffix", "_per_minute", "--computed-column", "minute=date_format(create_time, yyyy-MM-dd HH:mm)",
               "--computed-column", "order_count=cast(1, BIGINT)", "--primary-keys", "minute", "--table-conf",
               "merge-engine=aggregation", "--table-conf", "fields.order_count.aggregate-function=sum",
               "--table-conf", "fields.amount.aggregate-function=sum", "--table-conf",
               "fields.order_id.aggregate-function=sum"});
  }

  void StartSync(std::vector<std::string> flags) {
    std::vector<std::string> args = {"sync", "postgres", "--warehouse", warehouse_, "--postgres", Conninfo()};
    args.insert(args.end(), flags.begin(), flags.end());
    syncs_.push_back(sync_testing::SpawnTide(args, dir_.path() + "/sync.stderr"));
  }

  // SIGINT (a clean stop: the sync commits what it holds), then reap; SIGKILL if it does not exit.
  void StopSync(pid_t pid) {
    ::kill(pid, SIGINT);
    auto deadline = Clock::now() + std::chrono::seconds(60);
    int status = 0;
    while (::waitpid(pid, &status, WNOHANG) == 0) {
      if (Clock::now() > deadline) {
        ADD_FAILURE() << "the sync did not stop within 60 s of SIGINT";
        sync_testing::KillNow(pid);
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "sync exit status " << status << "\n" << SyncLog();
  }

  std::string SyncLog() const {
    auto text = FileSystem::Local()->ReadFile(dir_.path() + "/sync.stderr");
    return text.ok() ? *text : std::string();
  }

  // A sync that stopped by itself has failed: its log says why.
  void ExpectSyncsRunning() {
    for (pid_t pid : syncs_) {
      int status = 0;
      ASSERT_EQ(::waitpid(pid, &status, WNOHANG), 0) << "a sync stopped by itself:\n" << SyncLog();
    }
  }

  // `tide sql --warehouse W --format csv "SQL"`: the lines it printed (the header first), or the
  // error as the only line when it failed.
  std::vector<std::string> LakeCsv(const std::string& sql) {
    testing::TideRun run = testing::RunTide({"sql", "--warehouse", warehouse_, "--format", "csv", sql});
    if (run.exit_code != 0) return {"error: " + run.err};
    return Split(std::string(Trim(run.out)), '\n');
  }

  // The rows of a PostgreSQL query in the form of `tide sql --format csv` (values joined by commas,
  // NULL empty), after `header`. The recipes pick values that need no CSV quoting.
  std::vector<std::string> PgCsv(const std::string& header, const std::string& sql) {
    std::vector<std::string> out = {header};
    auto rows = Server().Query(sql, db_);
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    if (!rows.ok()) return out;
    for (const auto& row : *rows) {
      std::vector<std::string> cells;
      for (const auto& cell : row) cells.push_back(cell.value_or(""));
      out.push_back(Join(cells, ","));
    }
    return out;
  }

  // Waits until `lake_sql` through `tide sql` prints what `pg_sql` returns in PostgreSQL (with the
  // header `header`); fails the test saying both when it does not within the deadline.
  void ExpectLakeCatchesUp(const std::string& lake_sql, const std::string& header, const std::string& pg_sql) {
    bool same = WaitFor([&] { return LakeCsv(lake_sql) == PgCsv(header, pg_sql); }, kCatchUpSeconds);
    if (!same) {
      ADD_FAILURE() << "the lake did not catch up within " << kCatchUpSeconds << " s:\n" << lake_sql
                    << "\nlake:\n" << Join(LakeCsv(lake_sql), "\n") << "\nPostgreSQL:\n"
                    << Join(PgCsv(header, pg_sql), "\n") << "\nsync log:\n" << SyncLog();
    }
  }

  int64_t LatestSnapshot(const std::string& table) {
    std::vector<std::string> out =
        LakeCsv("SELECT max(snapshot_id) AS id FROM " + table.substr(0, table.find('.')) + ".\"" +
                table.substr(table.find('.') + 1) + "$snapshots\"");
    if (out.size() != 2) {
      ADD_FAILURE() << Join(out, "\n");
      return -1;
    }
    return std::stoll(out[1]);
  }

  tide::testing::TempDir dir_;
  std::string db_;
  std::string warehouse_;
  std::vector<pid_t> syncs_;
};

// The report's orders, the way the checks of §3.7 and the view of §6.1 read them.
constexpr const char* kCountSql = "SELECT count(*) AS n FROM shop.orders";
constexpr const char* kPgCountSql = "SELECT count(*) FROM orders";

// §3.7: row counts (by hand and with tide verify), the key range, and an UPDATE seen in the lake.
TEST_F(RecipesTest, ThreeChecksAfterThePipelineRuns) {
  StartMirror();
  ExpectLakeCatchesUp(kCountSql, "n", kPgCountSql);
  ASSERT_NO_FATAL_FAILURE(ExpectSyncsRunning());

  // 1. Row counts: the lake's against PostgreSQL's, and tide verify (counts, keys, a checksum of every
  // column) at a consistent point.
  EXPECT_EQ(LakeCsv(kCountSql), (std::vector<std::string>{"n", "100"}));
  testing::TideRun verify = testing::RunTide({"verify", "--warehouse", warehouse_, "--database", "shop", "--postgres",
                                              Conninfo(), "--tables", "public.orders,public.users,public.items",
                                              "--slot", "mirror_" + db_.substr(8, 30)});
  EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;
  std::cout << "tide verify printed:\n" << verify.out;
  EXPECT_NE(verify.out.find("OK   public.orders -> shop.orders: match"), std::string::npos) << verify.out;
  EXPECT_NE(verify.out.find("OK   public.users -> shop.users: match"), std::string::npos) << verify.out;
  EXPECT_NE(verify.out.find("OK   public.items -> shop.items: match"), std::string::npos) << verify.out;

  // 2. The key range: smallest, largest and distinct keys on both sides.
  EXPECT_EQ(LakeCsv("SELECT min(order_id) AS min_id, max(order_id) AS max_id, count(DISTINCT order_id) AS keys "
                    "FROM shop.orders"),
            PgCsv("min_id,max_id,keys", "SELECT min(order_id), max(order_id), count(DISTINCT order_id) FROM orders"));
  EXPECT_EQ(LakeCsv("SELECT min(order_id) AS min_id, max(order_id) AS max_id, count(DISTINCT order_id) AS keys "
                    "FROM shop.orders"),
            (std::vector<std::string>{"min_id,max_id,keys", "12300,12399,100"}));

  // 3. A change: the UPDATE is in the lake within the deadline, in a newer snapshot.
  const int64_t before = LatestSnapshot("shop.orders");
  const std::string status_sql = "SELECT status FROM shop.orders WHERE order_id = 12345";
  EXPECT_EQ(LakeCsv(status_sql), (std::vector<std::string>{"status", "created"}));
  auto updated_at = Clock::now();
  Sql("UPDATE orders SET status = 'shipped' WHERE order_id = 12345", db_);
  ASSERT_TRUE(WaitFor([&] { return LakeCsv(status_sql) == std::vector<std::string>{"status", "shipped"}; },
                      kCatchUpSeconds))
      << Join(LakeCsv(status_sql), "\n") << "\n" << SyncLog();
  auto seen_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - updated_at).count();
  std::cout << "UPDATE seen through tide sql after " << seen_ms << " ms" << std::endl;

  // The latest snapshot: newer than before the UPDATE, an APPEND of the sync holding all 100 orders
  // plus the update's record (before compaction merges it).
  std::vector<std::string> latest = LakeCsv(
      "SELECT snapshot_id, commit_kind, commit_user, commit_time FROM shop.\"orders$snapshots\" "
      "ORDER BY snapshot_id DESC LIMIT 1");
  ASSERT_EQ(latest.size(), 2u) << Join(latest, "\n");
  EXPECT_EQ(latest[0], "snapshot_id,commit_kind,commit_user,commit_time");
  std::vector<std::string> cells = Split(latest[1], ',');
  ASSERT_EQ(cells.size(), 4u) << latest[1];
  EXPECT_GT(std::stoll(cells[0]), before);
  EXPECT_TRUE(cells[1] == "APPEND" || cells[1] == "COMPACT") << cells[1];
  EXPECT_EQ(cells[2], "tide-sync-mirror_" + db_.substr(8, 30));
  // Freshness from the lake alone: the last commit is recent (commit_time is in local time, UTC here).
  std::vector<std::string> age = LakeCsv(
      "SELECT (epoch_ms(now()::TIMESTAMP) - epoch_ms(max(commit_time))) < 600000 AS fresh FROM shop.\"orders$snapshots\"");
  EXPECT_EQ(age, (std::vector<std::string>{"fresh", "true"}));

  // Where the sync stands: every table copied, and the slot's lag.
  testing::TideRun status = testing::RunTide({"sync", "status", "--warehouse", warehouse_, "--database", "shop",
                                              "--slot", "mirror_" + db_.substr(8, 30), "--postgres", Conninfo()});
  EXPECT_EQ(status.exit_code, 0) << status.err;
  std::cout << "tide sync status printed:\n" << status.out;
  for (const char* table : {"orders", "users", "items"}) {
    EXPECT_TRUE(std::regex_search(status.out, std::regex(std::string("shop\\.") + table + " +public\\." + table +
                                                         " +copied")))
        << status.out;
  }
  EXPECT_NE(status.out.find("slot mirror_" + db_.substr(8, 30) + ": active"), std::string::npos) << status.out;
}

// §6.1: the wide table is one SQL query over the three mirrored tables. The latest state, and the
// state as of a time (every table as of one instant) and as of a snapshot id.
constexpr const char* kWideSql =
    "CREATE VIEW user_order_detail AS "
    "SELECT o.order_id, o.amount, u.user_name, u.city, i.item_name "
    "FROM shop.orders o "
    "LEFT JOIN shop.users u ON o.user_id = u.user_id "
    "LEFT JOIN shop.items i ON o.item_id = i.item_id; "
    "SELECT * FROM user_order_detail ORDER BY order_id";
constexpr const char* kPgWideSql =
    "SELECT o.order_id, o.amount, u.user_name, u.city, i.item_name FROM orders o "
    "LEFT JOIN users u ON o.user_id = u.user_id LEFT JOIN items i ON o.item_id = i.item_id ORDER BY o.order_id";
constexpr const char* kWideHeader = "order_id,amount,user_name,city,item_name";

std::string WideAsOf(const std::string& selector) {
  return "SELECT o.order_id, o.amount, u.user_name, u.city, i.item_name "
         "FROM paimon_scan('shop.orders', " + selector + ") o "
         "LEFT JOIN paimon_scan('shop.users', " + selector + ") u ON o.user_id = u.user_id "
         "LEFT JOIN paimon_scan('shop.items', " + selector + ") i ON o.item_id = i.item_id "
         "ORDER BY o.order_id";
}

TEST_F(RecipesTest, WideUserOrderDetail) {
  StartMirror();
  ExpectLakeCatchesUp(kWideSql, kWideHeader, kPgWideSql);
  ASSERT_NO_FATAL_FAILURE(ExpectSyncsRunning());
  const std::vector<std::string> state_a = PgCsv(kWideHeader, kPgWideSql);
  ASSERT_EQ(state_a.size(), 101u);
  // Orders whose user or item is not in the source show NULLs (LEFT JOIN), as in PostgreSQL.
  EXPECT_NE(std::find(state_a.begin(), state_a.end(), "12325,0.99,,,item_11"), state_a.end())
      << Join(state_a, "\n");

  // The point to travel back to: after every commit of state A, before any of state B.
  const int64_t point = NowEpochMs();
  const int64_t orders_snapshot = LatestSnapshot("shop.orders");
  // ... and the source position the lake holds then: the commit LSN of orders' newest snapshot.
  std::vector<std::string> position =
      LakeCsv("SELECT commit_identifier FROM shop.\"orders$snapshots\" ORDER BY snapshot_id DESC LIMIT 1");
  ASSERT_EQ(position.size(), 2u) << Join(position, "\n");
  while (NowEpochMs() <= point) std::this_thread::sleep_for(std::chrono::milliseconds(1));

  // State B: a new user and their order, a user moving, an item renamed, an order deleted, an amount
  // changed, and the missing user of order 12325 arriving.
  Sql("BEGIN; INSERT INTO users VALUES (41, 'user_41', 'Hangzhou'); "
      "INSERT INTO orders VALUES (12400, 41, 3, 88.00, 'created', timestamp '2026-12-01 10:09:00', "
      "timestamp '2026-12-01 10:09:00'); COMMIT",
      db_);
  Sql("UPDATE users SET city = 'Chengdu' WHERE user_id = 3", db_);
  Sql("UPDATE items SET item_name = 'item_5_v2' WHERE item_id = 5", db_);
  Sql("DELETE FROM orders WHERE order_id = 12301", db_);
  Sql("UPDATE orders SET amount = 1.00 WHERE order_id = 12302", db_);
  Sql("INSERT INTO users VALUES (1000 + 12325, 'late_user', 'Wuhan')", db_);
  ExpectLakeCatchesUp(kWideSql, kWideHeader, kPgWideSql);
  const std::vector<std::string> state_b = PgCsv(kWideHeader, kPgWideSql);
  ASSERT_NE(state_a, state_b);
  EXPECT_NE(std::find(state_b.begin(), state_b.end(), "12325,0.99,late_user,Wuhan,item_11"), state_b.end());

  // As of the point: every table as it was then.
  EXPECT_EQ(LakeCsv(WideAsOf("timestamp_ms => " + std::to_string(point))), state_a);
  // One PostgreSQL point for all three: per table, its newest snapshot at or below that position (the
  // sync commits every table with changes at one position per commit round).
  std::string cut = "SELECT o.order_id, o.amount, u.user_name, u.city, i.item_name FROM ";
  for (const char* table : {"orders", "users", "items"}) {
    std::vector<std::string> id = LakeCsv(std::string("SELECT max(snapshot_id) AS id FROM shop.\"") + table +
                                          "$snapshots\" WHERE commit_identifier <= " + position[1]);
    ASSERT_EQ(id.size(), 2u) << Join(id, "\n");
    std::string scan = std::string("paimon_scan('shop.") + table + "', snapshot_id => " + id[1] + ")";
    cut += table == std::string("orders")  ? scan + " o "
           : table == std::string("users") ? "LEFT JOIN " + scan + " u ON o.user_id = u.user_id "
                                           : "LEFT JOIN " + scan + " i ON o.item_id = i.item_id ";
  }
  EXPECT_EQ(LakeCsv(cut + "ORDER BY o.order_id"), state_a);
  // As of the orders snapshot of state A (users and items at their latest): the orders of A.
  std::vector<std::string> orders_then =
      LakeCsv("SELECT order_id, amount FROM paimon_scan('shop.orders', snapshot_id => " +
              std::to_string(orders_snapshot) + ") ORDER BY order_id");
  std::vector<std::string> orders_a = {"order_id,amount"};
  for (size_t i = 1; i < state_a.size(); ++i) {
    std::vector<std::string> cells = Split(state_a[i], ',');
    orders_a.push_back(cells[0] + "," + cells[1]);
  }
  EXPECT_EQ(orders_then, orders_a);

  // Materialized: the wide table written once to a Parquet file, read back equal.
  const std::string parquet = dir_.path() + "/user_order_detail.parquet";
  std::vector<std::string> copied = LakeCsv(
      "COPY (SELECT o.order_id, o.amount, u.user_name, u.city, i.item_name FROM shop.orders o "
      "LEFT JOIN shop.users u ON o.user_id = u.user_id LEFT JOIN shop.items i ON o.item_id = i.item_id) TO '" +
      parquet + "' (FORMAT parquet)");
  EXPECT_TRUE(copied.empty() || !copied[0].starts_with("error")) << Join(copied, "\n");
  EXPECT_EQ(LakeCsv("SELECT * FROM '" + parquet + "' ORDER BY order_id"), state_b);
}

// §6.2: every change of one order, once each, in commit order, with its row kind.
TEST_F(RecipesTest, AuditHistoryOfOneOrder) {
  StartMirror();
  ExpectLakeCatchesUp(kCountSql, "n", kPgCountSql);
  ASSERT_NO_FATAL_FAILURE(ExpectSyncsRunning());

  // Order 12500's life, with changes of other orders in between; two updates share a transaction, and
  // the others come faster than the sync's commit interval, so one snapshot holds several of them.
  Sql("INSERT INTO orders VALUES (12500, 7, 2, 19.90, 'created', timestamp '2026-12-01 11:00:00', "
      "timestamp '2026-12-01 11:00:00')",
      db_);
  Sql("UPDATE orders SET status = 'paid', update_time = timestamp '2026-12-01 11:01:00' WHERE order_id = 12500", db_);
  Sql("UPDATE orders SET status = 'paid' WHERE order_id = 12310", db_);
  Sql("BEGIN; UPDATE orders SET amount = 17.90 WHERE order_id = 12500; "
      "UPDATE orders SET status = 'shipped', update_time = timestamp '2026-12-01 11:30:00' WHERE order_id = 12500; "
      "COMMIT",
      db_);
  Sql("DELETE FROM orders WHERE order_id = 12311", db_);
  Sql("UPDATE orders SET status = 'delivered', update_time = timestamp '2026-12-02 09:00:00' WHERE order_id = 12500",
      db_);
  Sql("DELETE FROM orders WHERE order_id = 12500", db_);
  ExpectLakeCatchesUp(kCountSql, "n", kPgCountSql);

  const std::vector<std::string> history = {
      "rowkind,order_id,status,amount,update_time",
      "+I,12500,created,19.90,2026-12-01 11:00:00",
      "-U,12500,created,19.90,2026-12-01 11:00:00",
      "+U,12500,paid,19.90,2026-12-01 11:01:00",
      "-U,12500,paid,19.90,2026-12-01 11:01:00",
      "+U,12500,paid,17.90,2026-12-01 11:01:00",
      "-U,12500,paid,17.90,2026-12-01 11:01:00",
      "+U,12500,shipped,17.90,2026-12-01 11:30:00",
      "-U,12500,shipped,17.90,2026-12-01 11:30:00",
      "+U,12500,delivered,17.90,2026-12-02 09:00:00",
      "-D,12500,delivered,17.90,2026-12-02 09:00:00",
  };
  // By snapshot ids: from before the first snapshot (0) to the latest.
  const int64_t latest = LatestSnapshot("shop.orders");
  EXPECT_EQ(LakeCsv("SELECT rowkind, order_id, status, amount, update_time FROM paimon_scan('shop.orders', "
                    "incremental_between => '0," + std::to_string(latest) + "') WHERE order_id = 12500"),
            history);
  // By commit times: from the start to far ahead (no snapshot id needed).
  EXPECT_EQ(LakeCsv("SELECT rowkind, order_id, status, amount, update_time FROM paimon_scan('shop.orders', "
                    "incremental_between_timestamp => '0,253402300799999') WHERE order_id = 12500"),
            history);

  // tide read: the same changes with the snapshot each came in, which never decreases.
  testing::TideRun read = testing::RunTide(
      {"read", "--warehouse", warehouse_, "--table", "shop.orders", "--from", "earliest", "--format", "csv"});
  ASSERT_EQ(read.exit_code, 0) << read.err;
  std::vector<std::string> lines = Split(std::string(Trim(read.out)), '\n');
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0], "rowkind,snapshot_id,order_id,user_id,item_id,amount,status,create_time,update_time");
  std::vector<std::string> read_history = {history[0]};
  int64_t last_snapshot = 0;
  for (size_t i = 1; i < lines.size(); ++i) {
    std::vector<std::string> c = Split(lines[i], ',');
    ASSERT_EQ(c.size(), 9u) << lines[i];
    if (c[2] != "12500") continue;
    std::cout << lines[i] << "\n";
    int64_t snapshot = std::stoll(c[1]);
    EXPECT_GE(snapshot, last_snapshot) << lines[i];
    last_snapshot = snapshot;
    read_history.push_back(c[0] + "," + c[2] + "," + c[6] + "," + c[5] + "," + c[8]);
  }
  // tide read's CSV prints a TIMESTAMP(3) with its milliseconds; tide sql leaves out zero fractions.
  for (std::string& line : read_history) {
    if (line.ends_with(".000")) line.resize(line.size() - 4);
  }
  EXPECT_EQ(read_history, history);

  // $audit_log: the latest state with row kinds; 12310 was updated last, 12399 inserted.
  EXPECT_EQ(LakeCsv("SELECT rowkind, order_id, status FROM shop.\"orders$audit_log\" WHERE order_id IN (12310, 12399) "
                    "ORDER BY order_id"),
            (std::vector<std::string>{"rowkind,order_id,status", "+U,12310,paid", "+I,12399,created"}));
}

// §6.3: orders and revenue per minute, by a query over the mirror and from an aggregation table kept
// by a second sync, both equal to PostgreSQL's GROUP BY through inserts, updates (amount, and
// create_time moving an order to another minute) and deletes.
constexpr const char* kPerMinuteSql =
    "SELECT strftime(create_time, '%Y-%m-%d %H:%M') AS minute, count(*) AS orders, sum(amount) AS revenue "
    "FROM shop.orders GROUP BY ALL ORDER BY minute";
constexpr const char* kPerMinuteTableSql =
    "SELECT minute, order_count AS orders, amount AS revenue FROM metrics.orders_per_minute "
    "WHERE order_count > 0 ORDER BY minute";
constexpr const char* kPgPerMinuteSql =
    "SELECT to_char(create_time, 'YYYY-MM-DD HH24:MI'), count(*), sum(amount) FROM orders GROUP BY 1 ORDER BY 1";

TEST_F(RecipesTest, OrdersPerMinute) {
  StartMirror();
  StartPerMinute();
  ExpectLakeCatchesUp(kPerMinuteSql, "minute,orders,revenue", kPgPerMinuteSql);
  ExpectLakeCatchesUp(kPerMinuteTableSql, "minute,orders,revenue", kPgPerMinuteSql);
  ASSERT_NO_FATAL_FAILURE(ExpectSyncsRunning());
  EXPECT_EQ(PgCsv("minute,orders,revenue", kPgPerMinuteSql).size(), 9u);

  Sql("INSERT INTO orders SELECT g, 1, 1, 10.00, 'created', timestamp '2026-12-01 10:07:30', "
      "timestamp '2026-12-01 10:07:30' FROM generate_series(12400, 12409) g",
      db_);
  Sql("UPDATE orders SET amount = amount + 100 WHERE order_id BETWEEN 12300 AND 12305", db_);
  Sql("UPDATE orders SET status = 'paid' WHERE order_id % 3 = 0", db_);
  Sql("UPDATE orders SET create_time = timestamp '2026-12-01 10:20:00' WHERE order_id IN (12310, 12390)", db_);
  Sql("DELETE FROM orders WHERE order_id BETWEEN 12350 AND 12362", db_);
  ExpectLakeCatchesUp(kPerMinuteSql, "minute,orders,revenue", kPgPerMinuteSql);
  ExpectLakeCatchesUp(kPerMinuteTableSql, "minute,orders,revenue", kPgPerMinuteSql);
  // Every order of the first minute gone in one transaction, which nothing else shares a commit with:
  // the commit holds only retractions of that minute. The minute leaves both results.
  Sql("DELETE FROM orders WHERE create_time < timestamp '2026-12-01 10:01:00'", db_);
  ExpectLakeCatchesUp(kPerMinuteSql, "minute,orders,revenue", kPgPerMinuteSql);
  ExpectLakeCatchesUp(kPerMinuteTableSql, "minute,orders,revenue", kPgPerMinuteSql);
  ASSERT_NO_FATAL_FAILURE(ExpectSyncsRunning());
  // The emptied minute stays in the aggregation table with a count of 0 (as in Java Paimon).
  EXPECT_EQ(LakeCsv("SELECT minute, order_count, amount FROM metrics.orders_per_minute WHERE minute = '2026-12-01 10:00'"),
            (std::vector<std::string>{"minute,order_count,amount", "2026-12-01 10:00,0,0.00"}));
}

}  // namespace
}  // namespace tide
