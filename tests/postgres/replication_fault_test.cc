// Fault tests of the change stream: the walsender is killed mid-stream, and PostgreSQL restarts
// mid-stream. The stream must resume from the last acknowledged position and deliver every committed
// row exactly once (exact multisets).
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <thread>

#include "pg_test_util.h"
#include "tide/postgres/change_stream.h"

namespace tide {
namespace {

using namespace pgtest;

enum class Fault { kKillWalsender, kRestartServer, kCrashServer };

void RunFaultScenario(const std::string& name, Fault fault) {
  const std::string table = name + "_t", pub = name + "_pub", slot = name + "_slot";
  Sql("DROP TABLE IF EXISTS " + table + "; CREATE TABLE " + table + "(id bigint PRIMARY KEY, pad text); "
      "DROP PUBLICATION IF EXISTS " + pub + "; CREATE PUBLICATION " + pub + " FOR TABLE " + table);
  CreateSlot(slot);
  // A backlog of 3000 small transactions (2 rows each), then more after the fault.
  Sql("DO $$ BEGIN FOR i IN 0..2999 LOOP INSERT INTO " + table +
      " VALUES (2 * i, 'x'), (2 * i + 1, 'y'); COMMIT; END LOOP; END $$");

  auto options = StreamOptions(slot, pub);
  auto stream = ChangeStream::Start(options);
  ASSERT_TRUE(stream.ok()) << stream.status().ToString();
  std::map<int64_t, int> seen;
  size_t commits = 0;
  bool faulted = false, wrote_more = false;
  std::thread restarter;
  Lsn last_end = 0;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  size_t expected_rows = 8000;  // what PostgreSQL holds at the end (a crash may lose async commits)
  while ((!wrote_more || commits * 2 < expected_rows) && std::chrono::steady_clock::now() < deadline) {
    if (faulted && !wrote_more && (*stream)->replication().reconnect_count() > 0) {
      if (restarter.joinable()) restarter.join();
      wrote_more = true;
      Sql("DO $$ BEGIN FOR i IN 3000..3999 LOOP INSERT INTO " + table +
          " VALUES (2 * i, 'x'), (2 * i + 1, 'y'); COMMIT; END LOOP; END $$");
      expected_rows = std::stoul(SqlValue("SELECT count(*) FROM " + table));
    }
    auto next = (*stream)->Next(std::chrono::milliseconds(200));
    ASSERT_TRUE(next.ok()) << next.status().ToString();
    if (!*next) {
      // Idle after the fault: like a sink whose commit interval passed, make everything delivered
      // durable. (A fast shutdown of PostgreSQL waits until the client confirms all WAL.) Before the
      // fault nothing is acknowledged while idle, so that delivered but unconfirmed transactions exist
      // when the fault strikes; for a crash or a killed walsender, not before the stream reconnected
      // either: the fault is requested from another thread and may land after the stream went idle.
      const bool struck = fault == Fault::kRestartServer || (*stream)->replication().reconnect_count() > 0;
      if (last_end != 0 && faulted && struck) (*stream)->Acknowledge(last_end);
      continue;
    }
    if (auto* c = std::get_if<RowChange>(&**next)) {
      ASSERT_EQ(c->kind, ChangeKind::kInsert);
      ++seen[c->new_row[0].as_int()];
    } else if (auto* commit = std::get_if<CommitTransaction>(&**next)) {
      ++commits;
      last_end = commit->txn.end_lsn;
      // Only every 70th transaction is declared durable: after the fault the server resends the
      // others, and the stream must drop what it already delivered. Between a kill or crash and the
      // reconnect nothing is acknowledged: the stream still reads what the socket holds, and an
      // acknowledgement there could land on the last whole transaction before the cut (the connection
      // dying inside the next one), leaving nothing delivered but unconfirmed to be resent.
      const bool cut_off = faulted && fault != Fault::kRestartServer &&
                           (*stream)->replication().reconnect_count() == 0;
      if (commits % 70 == 0 && !cut_off) (*stream)->Acknowledge(commit->txn.end_lsn);
      // The fault strikes at a commit that is not a multiple of 70: that commit and the ones since the
      // last acknowledged one are delivered but not confirmed, so the server must resend them.
      if (commits == 1085 && !faulted) {
        faulted = true;
        if (fault == Fault::kKillWalsender) {
          auto killed = Server().KillWalSenders(slot);
          ASSERT_TRUE(killed.ok()) << killed.status().ToString();
          EXPECT_EQ(*killed, 1);
        } else {
          // Restart from another thread: the stream keeps reading meanwhile, as a real consumer would.
          std::string mode = fault == Fault::kCrashServer ? "immediate" : "fast";
          restarter = std::thread([mode] {
            Status st = Server().Restart(mode);
            ASSERT_TRUE(st.ok()) << st.ToString();
          });
        }
      }
    }
  }
  if (restarter.joinable()) restarter.join();
  EXPECT_TRUE(faulted);
  EXPECT_GE((*stream)->replication().reconnect_count(), 1u);
  if (fault != Fault::kRestartServer) {
    // A fast shutdown lets the walsender finish (the idle consumer confirms everything first); a
    // killed walsender or a crashed server leaves delivered but unconfirmed transactions (nothing is
    // acknowledged between the fault and the reconnect), which the server must resend.
    EXPECT_GT((*stream)->stats().skipped_transactions, 0u) << "the resent transactions should have been dropped";
  }
  // Exactly PostgreSQL's rows, each once. (With synchronous_commit=off in the test server, a crash
  // may lose the last commits from PostgreSQL itself; those were never sent, since walsenders send only
  // flushed WAL.)
  auto rows = Server().Query("SELECT id FROM " + table + " ORDER BY id");
  ASSERT_TRUE(rows.ok());
  std::map<int64_t, int> want;
  for (const auto& r : *rows) want[std::stoll(*r[0])] = 1;
  if (fault != Fault::kCrashServer) {
    EXPECT_EQ(want.size(), 8000u);
  }
  for (const auto& [id, count] : seen) ASSERT_EQ(count, 1) << "row " << id << " delivered " << count << " times";
  EXPECT_EQ(seen.size(), want.size());
  EXPECT_TRUE(seen == want) << "delivered rows differ from PostgreSQL's";
  EXPECT_EQ(commits * 2, want.size());
  ASSERT_TRUE((*stream)->Close().ok());
  Sql("SELECT pg_drop_replication_slot('" + slot + "')");
}

TEST(ReplicationFaultTest, WalsenderKilledMidStreamResumesWithoutLossOrRepeat) {
  RunFaultScenario("fault_kill", Fault::kKillWalsender);
}

TEST(ReplicationFaultTest, ServerRestartMidStreamResumesWithoutLossOrRepeat) {
  RunFaultScenario("fault_restart", Fault::kRestartServer);
}

TEST(ReplicationFaultTest, ServerCrashMidStreamResumesWithoutLossOrRepeat) {
  RunFaultScenario("fault_crash", Fault::kCrashServer);
}

TEST(ReplicationFaultTest, ActiveSlotIsRefusedWithThePidAndAHint) {
  Sql("DROP TABLE IF EXISTS busy_slot_t; CREATE TABLE busy_slot_t(id int PRIMARY KEY); "
      "DROP PUBLICATION IF EXISTS busy_slot_pub; CREATE PUBLICATION busy_slot_pub FOR TABLE busy_slot_t");
  CreateSlot("busy_slot");
  auto first = ChangeStream::Start(StreamOptions("busy_slot", "busy_slot_pub"));
  ASSERT_TRUE(first.ok());
  auto second = ChangeStream::Start(StreamOptions("busy_slot", "busy_slot_pub"));
  ASSERT_FALSE(second.ok());
  EXPECT_TRUE(second.status().IsConflict()) << second.status().ToString();
  EXPECT_NE(second.status().message().find("active for PID"), std::string::npos) << second.status().ToString();
  EXPECT_NE(second.status().message().find("pg_terminate_backend"), std::string::npos);
  ASSERT_TRUE((*first)->Close().ok());
  Sql("SELECT pg_drop_replication_slot('busy_slot')");
}

TEST(ReplicationFaultTest, InvalidatedSlotSaysToStartOver) {
  ReplicationSlotInfo lost;
  lost.name = "gone";
  lost.slot_type = "logical";
  lost.plugin = "pgoutput";
  lost.database = "postgres";
  lost.wal_status = "lost";
  Status st = CheckSlotUsable(lost, "postgres");
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("invalidated"), std::string::npos);
  EXPECT_NE(st.message().find("fresh initial copy"), std::string::npos);
}

TEST(ReplicationFaultTest, MissingSlotAndPublicationAreNamed) {
  Sql("DROP TABLE IF EXISTS nopub_t; CREATE TABLE nopub_t(id int PRIMARY KEY); "
      "DROP PUBLICATION IF EXISTS nopub_pub; CREATE PUBLICATION nopub_pub FOR TABLE nopub_t");
  auto no_slot = ChangeStream::Start(StreamOptions("no_such_slot", "nopub_pub"));
  ASSERT_FALSE(no_slot.ok());
  EXPECT_TRUE(no_slot.status().IsNotFound());
  EXPECT_NE(no_slot.status().message().find("no_such_slot"), std::string::npos);
  CreateSlot("nopub_slot");
  auto no_pub = ChangeStream::Start(StreamOptions("nopub_slot", "no_such_publication"));
  ASSERT_FALSE(no_pub.ok());
  EXPECT_TRUE(no_pub.status().IsNotFound());
  EXPECT_NE(no_pub.status().message().find("no_such_publication"), std::string::npos);
  Sql("SELECT pg_drop_replication_slot('nopub_slot')");
}

}  // namespace
}  // namespace tide
