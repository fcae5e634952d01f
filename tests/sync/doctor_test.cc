// `tide doctor`, `tide sync status` and `tide --version`, run as the real binary against real PostgreSQL
// servers that the harness starts, each with one problem of the field report's §2 set up wrong
// (wal_level=replica, a role without REPLICATION, SELECT missing on one table, pg_hba.conf without a line
// for the role's logical replication connections, a slot held by another session, a short
// idle_in_transaction_session_timeout): the doctor names the problem and prints its fix; the test applies
// exactly the printed fix and the doctor passes (exit 0). `tide sync postgres` refuses a server that
// fails a check, in the doctor's words.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "sync/sync_test_util.h"
#include "testing/pg_server.h"
#include "testing/temp_dir.h"
#include "testing/tide_process.h"
#include "tide/base/strings.h"
#include "tide/postgres/lsn.h"
#include "tide/postgres/pg_connection.h"
#include "tide/sync/postgres_sync.h"
#include "tide/sync/table_sink.h"

namespace tide {
namespace {

using sync_testing::Server;

// The lines printed below the first line that starts with `outcome` and contains `what`; empty when
// there is no such line.
std::vector<std::string> FixOf(const std::string& out, const std::string& outcome, const std::string& what) {
  std::vector<std::string> lines = Split(out, '\n');
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!StartsWith(lines[i], outcome + " ") || lines[i].find(what) == std::string::npos) continue;
    std::vector<std::string> fix;
    for (size_t j = i + 1; j < lines.size() && StartsWith(lines[j], "        "); ++j) {
      fix.emplace_back(Trim(lines[j]));
    }
    return fix;
  }
  return {};
}

// Runs the SQL lines of a printed fix (those ending in ';') as a superuser, as the fix says.
void ApplySql(testing::PgServer& server, const std::vector<std::string>& fix, const std::string& db) {
  int statements = 0;
  for (const std::string& line : fix) {
    if (!EndsWith(line, ";")) continue;
    Status st = server.Exec(line, db);
    ASSERT_TRUE(st.ok()) << line << ": " << st.ToString();
    ++statements;
  }
  ASSERT_GT(statements, 0) << "the fix holds no statement: " << Join(fix, " | ");
}

testing::TideRun Doctor(const std::string& conninfo, const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args = {"doctor", "--postgres", conninfo};
  args.insert(args.end(), extra.begin(), extra.end());
  return testing::RunTide(args);
}

std::unique_ptr<testing::PgServer> StartServer(testing::PgServer::Options options) {
  auto started = testing::PgServer::Start(options);
  if (!started.ok()) {
    ADD_FAILURE() << "cannot start PostgreSQL: " << started.status().ToString();
    return nullptr;
  }
  return std::move(started).value();
}

// A database of its own on the shared server, and a role with what the field report's §2.2 grants
// (LOGIN, REPLICATION unless told, SELECT on the tables), the tables and the publication a DBA made.
class DoctorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    name_ = ToLower(::testing::UnitTest::GetInstance()->current_test_info()->name()).substr(0, 40);
    db_ = "doc_" + name_;
    role_ = "r_" + name_;
    ASSERT_TRUE(Server().CreateDatabase(db_).ok());
    Exec("DROP ROLE IF EXISTS " + role_ + "; CREATE ROLE " + role_ + " LOGIN REPLICATION", "postgres");
    Exec("CREATE TABLE orders (id bigint PRIMARY KEY, amount numeric(10,2), note text); "
         "CREATE TABLE users (id bigint PRIMARY KEY, name text); "
         "INSERT INTO orders SELECT g, g, 'o' FROM generate_series(1, 10) g; "
         "GRANT SELECT ON orders, users TO " + role_ + "; "
         "CREATE PUBLICATION pub FOR TABLE orders, users WITH (publish_via_partition_root = true)");
  }
  void Exec(const std::string& sql, const std::string& db = "") {
    Status st = Server().Exec(sql, db.empty() ? db_ : db);
    ASSERT_TRUE(st.ok()) << st.ToString();
  }
  std::string Conninfo() const { return Server().conninfo(db_, role_); }
  std::vector<std::string> Flags() const {
    return {"--tables", "public.orders,public.users", "--slot", "s_" + name_, "--publication", "pub"};
  }

  std::string name_, db_, role_;
};

TEST_F(DoctorTest, AWellSetUpServerPasses) {
  auto run = Doctor(Conninfo(), Flags());
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_EQ(run.out.find("FAIL"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("ok    wal_level = logical"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("ok    the server accepts a replication connection"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("ok    SELECT on every selected table (2)"), std::string::npos) << run.out;
  // Default privileges for tables created later are only worth a warning, with the statement.
  auto fix = FixOf(run.out, "warn", "default privileges");
  ASSERT_FALSE(fix.empty()) << run.out;
  EXPECT_EQ(fix.back(), "ALTER DEFAULT PRIVILEGES FOR ROLE postgres IN SCHEMA public GRANT SELECT ON TABLES TO " +
                            role_ + ";");
  ASSERT_NO_FATAL_FAILURE(ApplySql(Server(), fix, db_));
  run = Doctor(Conninfo(), Flags());
  EXPECT_EQ(run.exit_code, 0) << run.out;
  EXPECT_NE(run.out.find("ok    default privileges"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("PostgreSQL is ready for tide sync postgres"), std::string::npos) << run.out;
}

TEST_F(DoctorTest, RoleWithoutReplicationIsNamedAndGranted) {
  Exec("ALTER ROLE " + role_ + " NOREPLICATION", "postgres");
  auto run = Doctor(Conninfo(), Flags());
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  auto fix = FixOf(run.out, "FAIL", "role " + role_ + " lacks the REPLICATION attribute");
  ASSERT_FALSE(fix.empty()) << run.out;
  EXPECT_EQ(fix.back(), "ALTER ROLE " + role_ + " WITH REPLICATION;");
  // The replication connection is tried, and the server's answer shown.
  EXPECT_NE(run.out.find("FAIL  the server refuses a replication connection"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("must be superuser or replication role"), std::string::npos) << run.out;
  ASSERT_NO_FATAL_FAILURE(ApplySql(Server(), fix, db_));
  run = Doctor(Conninfo(), Flags());
  EXPECT_EQ(run.exit_code, 0) << run.out;
  EXPECT_NE(run.out.find("ok    role " + role_ + " has the REPLICATION attribute"), std::string::npos) << run.out;
}

TEST_F(DoctorTest, SelectMissingOnOneTableIsNamedAndGranted) {
  Exec("REVOKE SELECT ON users FROM " + role_);
  auto run = Doctor(Conninfo(), Flags());
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  auto fix = FixOf(run.out, "FAIL", "lacks SELECT on public.users");
  ASSERT_FALSE(fix.empty()) << run.out;
  EXPECT_EQ(run.out.find("public.orders:"), std::string::npos);
  EXPECT_EQ(fix.back(), "GRANT SELECT ON public.users TO " + role_ + ";");
  ASSERT_NO_FATAL_FAILURE(ApplySql(Server(), fix, db_));
  run = Doctor(Conninfo(), Flags());
  EXPECT_EQ(run.exit_code, 0) << run.out;
}

// Trap 1 of the field report: timeouts that would end the copy's long transactions.
TEST_F(DoctorTest, ShortIdleInTransactionTimeoutIsNamedAndLifted) {
  Exec("ALTER ROLE " + role_ + " SET idle_in_transaction_session_timeout = '5s'; ALTER ROLE " + role_ +
           " SET statement_timeout = '2min'",
       "postgres");
  auto run = Doctor(Conninfo(), Flags());
  // Named with its fix, but a warning: the sync's copy sessions turn both off for themselves.
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  auto idle = FixOf(run.out, "warn", "idle_in_transaction_session_timeout = 5s");
  auto statement = FixOf(run.out, "warn", "statement_timeout = 2min");
  ASSERT_FALSE(idle.empty()) << run.out;
  ASSERT_FALSE(statement.empty()) << run.out;
  EXPECT_EQ(idle.back(), "ALTER ROLE " + role_ + " SET idle_in_transaction_session_timeout = 0;");
  ASSERT_NO_FATAL_FAILURE(ApplySql(Server(), idle, db_));
  ASSERT_NO_FATAL_FAILURE(ApplySql(Server(), statement, db_));
  run = Doctor(Conninfo(), Flags());
  EXPECT_EQ(run.exit_code, 0) << run.out;
  EXPECT_NE(run.out.find("ok    idle_in_transaction_session_timeout = 0"), std::string::npos) << run.out;
}

TEST_F(DoctorTest, SlotActiveInAnotherSessionIsNamedAndFreed) {
  const std::string slot = "s_" + name_;
  Exec("SELECT pg_create_logical_replication_slot('" + slot + "', 'pgoutput')");
  // Another consumer streams from the slot (as pg_recvlogical would).
  auto holder = PgConnection::Connect(Server().conninfo(db_), PgSessionKind::kReplication);
  ASSERT_TRUE(holder.ok()) << holder.status().ToString();
  ASSERT_TRUE((*holder)
                  ->StartCopy("START_REPLICATION SLOT " + slot + " LOGICAL 0/0 (proto_version '1', "
                              "publication_names 'pub')",
                              PGRES_COPY_BOTH)
                  .ok());
  auto run = Doctor(Conninfo(), Flags());
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  auto fix = FixOf(run.out, "FAIL", "replication slot " + slot + " is active for PID");
  ASSERT_FALSE(fix.empty()) << run.out;
  EXPECT_TRUE(StartsWith(fix.back(), "SELECT pg_terminate_backend(")) << fix.back();
  ASSERT_NO_FATAL_FAILURE(ApplySql(Server(), fix, db_));
  // The walsender exits shortly after it is told to.
  for (int i = 0; i < 50; ++i) {
    run = Doctor(Conninfo(), Flags());
    if (run.exit_code == 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(run.exit_code, 0) << run.out;
  EXPECT_NE(run.out.find("ok    replication slot " + slot + ": pgoutput, not in use"), std::string::npos) << run.out;
  Exec("SELECT pg_drop_replication_slot('" + slot + "')");
}

TEST_F(DoctorTest, PartitionedTableNeedsPublishViaPartitionRoot) {
  Exec("CREATE TABLE events (id bigint, day date, PRIMARY KEY (id, day)) PARTITION BY RANGE (day); "
       "CREATE TABLE events_2025 PARTITION OF events FOR VALUES FROM ('2025-01-01') TO ('2026-01-01'); "
       "GRANT SELECT ON events, events_2025 TO " + role_ + "; "
       "CREATE PUBLICATION pub_parts FOR TABLE events");
  std::vector<std::string> flags = {"--tables", "public.events", "--slot", "s_" + name_, "--publication", "pub_parts"};
  auto run = Doctor(Conninfo(), flags);
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  auto fix = FixOf(run.out, "FAIL", "publish_via_partition_root = false");
  ASSERT_FALSE(fix.empty()) << run.out;
  EXPECT_EQ(fix.back(), "ALTER PUBLICATION pub_parts SET (publish_via_partition_root = true);");
  ASSERT_NO_FATAL_FAILURE(ApplySql(Server(), fix, db_));
  run = Doctor(Conninfo(), flags);
  EXPECT_EQ(run.exit_code, 0) << run.out;
}

TEST_F(DoctorTest, KeysAndTextColumnsAreWarningsOnly) {
  Exec("CREATE TABLE logs (at timestamptz, payload jsonb, span interval, amount numeric); "
       "CREATE TABLE quiet (id bigint PRIMARY KEY); ALTER TABLE quiet REPLICA IDENTITY NOTHING; "
       "GRANT SELECT ON logs, quiet TO " + role_ + "; ALTER PUBLICATION pub ADD TABLE logs, quiet");
  auto run = Doctor(Conninfo(), {"--tables", "public.logs,public.quiet", "--publication", "pub"});
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("warn  public.logs has no primary key"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("warn  public.quiet has REPLICA IDENTITY NOTHING"), std::string::npos) << run.out;
  EXPECT_EQ(FixOf(run.out, "warn", "REPLICA IDENTITY NOTHING").back(),
            "ALTER TABLE public.quiet REPLICA IDENTITY DEFAULT;");
  EXPECT_NE(run.out.find("warn  public.logs: column(s) kept as STRING: payload jsonb, span interval, amount numeric"),
            std::string::npos)
      << run.out;
}

// `tide sync postgres` runs the same checks and refuses to start on a failing one, in the same words.
TEST_F(DoctorTest, SyncRefusesToStartOnAFailingCheckInTheDoctorsWords) {
  Exec("REVOKE SELECT ON users FROM " + role_);
  auto doctor = Doctor(Conninfo(), Flags());
  ASSERT_EQ(doctor.exit_code, 1) << doctor.out;
  const std::string what = "FAIL  role " + role_ + " lacks SELECT on public.users: the initial copy reads every row";
  ASSERT_NE(doctor.out.find(what), std::string::npos) << doctor.out;
  testing::TempDir dir;
  auto sync = testing::RunTide({"sync", "postgres", "--warehouse", dir.path() + "/wh", "--database", "shop",
                                "--postgres", Conninfo(), "--tables", "public.orders,public.users", "--slot",
                                "s_" + name_, "--publication", "pub"});
  EXPECT_EQ(sync.exit_code, 1) << sync.err;
  EXPECT_NE(sync.err.find(what), std::string::npos) << sync.err;
  EXPECT_NE(sync.err.find("GRANT SELECT ON public.users TO " + role_ + ";"), std::string::npos) << sync.err;
  // Nothing was started: no slot, no lake table.
  EXPECT_EQ(Server().QueryValue("SELECT count(*) FROM pg_replication_slots WHERE slot_name = 's_" + name_ + "'").value(),
            "0");
  EXPECT_FALSE(FileSystem::Local()->Exists(dir.path() + "/wh/shop.db/orders").ValueOr(true));
}

// wal_level=replica: the setting and its fix (ALTER SYSTEM, then a restart), applied as printed.
TEST(DoctorServerTest, WalLevelReplicaIsNamedAndTheFixWorks) {
  testing::PgServer::Options options;
  options.config.push_back("wal_level = replica");
  auto server = StartServer(options);
  ASSERT_NE(server, nullptr);
  ASSERT_TRUE(server->Exec("CREATE TABLE t (id int PRIMARY KEY)").ok());
  auto run = Doctor(server->conninfo(), {"--tables", "public.t"});
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  auto fix = FixOf(run.out, "FAIL", "wal_level = replica");
  ASSERT_FALSE(fix.empty()) << run.out;
  EXPECT_NE(Join(fix, "\n").find("ALTER SYSTEM SET wal_level = logical;"), std::string::npos) << run.out;
  EXPECT_NE(Join(fix, "\n").find("restart the server"), std::string::npos) << run.out;
  ASSERT_NO_FATAL_FAILURE(ApplySql(*server, fix, "postgres"));
  ASSERT_TRUE(server->Restart().ok());
  run = Doctor(server->conninfo(), {"--tables", "public.t"});
  EXPECT_EQ(run.exit_code, 0) << run.out;
  EXPECT_NE(run.out.find("ok    wal_level = logical"), std::string::npos) << run.out;
}

// pg_hba.conf as the field report's §2.4 writes it: a `replication` line for the role and none for its
// database. A logical replication connection (replication=database) matches the database's lines,
// never `replication` ones, so the role gets in nowhere; the doctor prints the line that admits it.
TEST(DoctorServerTest, PgHbaWithoutALineForTheRolesDatabaseIsNamedAndTheLineWorks) {
  testing::PgServer::Options options;
  options.hba = {"local all all trust", "host all postgres 127.0.0.1/32 trust",
                 "host replication tide_hba 127.0.0.1/32 trust"};
  auto server = StartServer(options);
  ASSERT_NE(server, nullptr);
  ASSERT_TRUE(server->Exec("CREATE ROLE tide_hba LOGIN REPLICATION; CREATE TABLE t (id int PRIMARY KEY); "
                           "GRANT SELECT ON t TO tide_hba; CREATE PUBLICATION pub FOR TABLE t")
                  .ok());
  const std::string conninfo = server->conninfo("postgres", "tide_hba");
  auto run = Doctor(conninfo, {"--tables", "public.t", "--publication", "pub"});
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  auto fix = FixOf(run.out, "FAIL", "no pg_hba.conf entry");
  ASSERT_FALSE(fix.empty()) << run.out;
  const std::string prefix = "add this line to pg_hba.conf (SHOW hba_file), above any line that would match first: ";
  ASSERT_TRUE(StartsWith(fix[0], prefix)) << fix[0];
  const std::string line = fix[0].substr(prefix.size());
  EXPECT_EQ(line, "host postgres tide_hba 127.0.0.1/32 trust");
  std::ofstream(server->data_dir() + "/pg_hba.conf", std::ios::app) << line << "\n";
  ASSERT_NO_FATAL_FAILURE(ApplySql(*server, fix, "postgres"));  // SELECT pg_reload_conf();
  run = Doctor(conninfo, {"--tables", "public.t", "--publication", "pub"});
  EXPECT_EQ(run.exit_code, 0) << run.out;
  EXPECT_NE(run.out.find("ok    the server accepts a replication connection"), std::string::npos) << run.out;
}

// `tide sync status` on a synced database: positions as the sync committed them, records, copy state;
// with --postgres, the slot's confirmed position and lag.
TEST_F(DoctorTest, SyncStatusShowsWhatTheSyncWroteAndTheSlotsLag) {
  testing::TempDir dir;
  const std::string warehouse = dir.path() + "/wh";
  PostgresSyncOptions options;
  options.warehouse = warehouse;
  options.database = "shop";
  options.conninfo = Server().conninfo(db_);
  options.tables = {{"public", "orders"}};
  options.slot = "s_" + name_;
  options.publication = "pub";
  options.manage_publication = false;
  options.commit_interval = std::chrono::milliseconds(100);
  options.copy_workers = 2;
  const std::string orders = warehouse + "/shop.db/orders";
  const std::string select = "SELECT concat_ws('|', id::text, amount::text, note) FROM orders";
  {
    sync_testing::SyncThread sync(options);
    ASSERT_TRUE(sync_testing::WaitEqual(orders, select, db_)) << sync_testing::StopReason(sync);
    Exec("INSERT INTO orders SELECT g, g, 'streamed' FROM generate_series(11, 25) g");
    ASSERT_TRUE(sync_testing::WaitEqual(orders, select, db_)) << sync_testing::StopReason(sync);
    // While it runs: the table is there and copied.
    auto running = testing::RunTide({"sync", "status", "--warehouse", warehouse, "--database", "shop", "--slot",
                                     options.slot});
    EXPECT_EQ(running.exit_code, 0) << running.err;
    EXPECT_NE(running.out.find("shop.orders  public.orders  copied"), std::string::npos) << running.out;
    ASSERT_TRUE(sync.Stop().ok());
  }
  auto position = ReadSinkPosition(FileSystem::Local(), orders, PostgresSync::CommitUser(options.slot));
  ASSERT_TRUE(position.ok()) << position.status().ToString();
  // Stopped, and behind: changes the sync has not seen.
  Exec("INSERT INTO orders VALUES (100, 1, 'after the stop')");
  // The harness commits asynchronously: pg_current_wal_lsn() passes the insert once the WAL writer ran.
  testing::TideRun run;
  for (int i = 0; i < 50; ++i) {
    run = testing::RunTide({"sync", "status", "--warehouse", warehouse, "--database", "shop", "--slot", options.slot,
                            "--postgres", Server().conninfo(db_)});
    if (run.exit_code != 0 || run.out.find("lag 0 bytes") == std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::vector<std::string> lines = Split(run.out, '\n');
  ASSERT_GE(lines.size(), 3u) << run.out;
  EXPECT_TRUE(StartsWith(lines[0], "table ")) << run.out;
  // shop.orders  public.orders  copied  <commit LSN>  25  <snapshot>  <time>
  std::vector<std::string> cells = SplitTrimmed(lines[1], ' ');
  ASSERT_GE(cells.size(), 6u) << lines[1];
  EXPECT_EQ(cells[0], "shop.orders");
  EXPECT_EQ(cells[1], "public.orders");
  EXPECT_EQ(cells[2], "copied");
  EXPECT_EQ(cells[3], FormatLsn(position->commit_lsn));
  EXPECT_EQ(cells[4], "25") << "records: 10 copied + 15 streamed inserts";
  EXPECT_EQ(cells[5], std::to_string(*position->snapshot_id));
  auto confirmed = Server().QueryValue("SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = '" +
                                       options.slot + "'");
  ASSERT_TRUE(confirmed.ok());
  const std::string& slot_line = lines[2];
  EXPECT_TRUE(StartsWith(slot_line, "slot " + options.slot + ": not active, confirmed_flush_lsn " + *confirmed))
      << slot_line;
  EXPECT_EQ(slot_line.find("lag 0 bytes"), std::string::npos) << "a row was inserted after the stop: " << slot_line;
  EXPECT_NE(slot_line.find(" bytes, "), std::string::npos) << slot_line;
  EXPECT_EQ(slot_line.find("? s"), std::string::npos) << "seconds since the last commit: " << slot_line;
  Exec("SELECT pg_drop_replication_slot('" + options.slot + "')");
}

TEST(VersionTest, PrintsTideDuckDbLibpqAndThePaimonFormat) {
  auto run = testing::RunTide({"--version"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(StartsWith(run.out, "tide 0.")) << run.out;
  EXPECT_NE(run.out.find("DuckDB v1.4."), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("libpq 1"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("Paimon format: snapshot version 3, schema version 3"), std::string::npos) << run.out;
  EXPECT_EQ(run.err.find("A subcommand is required"), std::string::npos) << run.err;
}

}  // namespace
}  // namespace tide
