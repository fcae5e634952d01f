// Integration tests of the change source against a real PostgreSQL: every pgoutput message type, typed
// row changes, TOAST, replica identities, partitioned tables, TRUNCATE, streamed transactions with
// (sub)transaction aborts, and spilling.
#include "tide/postgres/change_stream.h"

#include <gtest/gtest.h>

#include <set>

#include "tide/base/strings.h"

#include "pg_test_util.h"
#include "tide/postgres/pgoutput_decoder.h"
#include "tide/postgres/publication.h"
#include "tide/postgres/replication_stream.h"

namespace tide {
namespace {

using namespace pgtest;
using std::chrono::milliseconds;

std::vector<RowChange> Changes(const std::vector<ChangeEvent>& events) {
  std::vector<RowChange> out;
  for (const auto& e : events) {
    if (auto* c = std::get_if<RowChange>(&e)) out.push_back(*c);
  }
  return out;
}

TEST(ChangeStreamTest, EveryMessageTypeArrivesAndDecodes) {
  Sql("DROP TABLE IF EXISTS msg_t; DROP TYPE IF EXISTS msg_mood; "
      "CREATE TYPE msg_mood AS ENUM ('sad', 'ok', 'happy'); "
      "CREATE TABLE msg_t(id int PRIMARY KEY, mood msg_mood, note text); "
      "DROP PUBLICATION IF EXISTS msg_pub; CREATE PUBLICATION msg_pub FOR TABLE msg_t");
  CreateSlot("msg_slot");
  Sql("INSERT INTO msg_t VALUES (1, 'ok', 'a'); UPDATE msg_t SET note = 'b' WHERE id = 1; "
      "DELETE FROM msg_t WHERE id = 1; TRUNCATE msg_t");
  Sql("SELECT pg_logical_emit_message(true, 'tide', 'in a transaction')");
  Sql("SELECT pg_logical_emit_message(false, 'tide', 'on its own')");
  // A transaction from a replication origin carries an Origin message.
  Sql("SELECT pg_replication_origin_create('msg_origin')");
  {
    // The session's origin must still be set when the transaction commits: separate statements.
    auto conn = PgConnection::Connect(Server().conninfo());
    ASSERT_TRUE(conn.ok());
    ASSERT_TRUE((*conn)->Execute("SELECT pg_replication_origin_session_setup('msg_origin')").ok());
    ASSERT_TRUE((*conn)->Execute("INSERT INTO msg_t VALUES (2, 'happy', 'o')").ok());
    ASSERT_TRUE((*conn)->Execute("SELECT pg_replication_origin_session_reset()").ok());
  }
  // Past logical_decoding_work_mem (64kB in the test server): streamed; one commits, one aborts.
  Sql("INSERT INTO msg_t SELECT g, 'sad', repeat('x', 100) FROM generate_series(100, 3100) g");
  Sql("BEGIN; INSERT INTO msg_t SELECT g, 'sad', repeat('y', 100) FROM generate_series(10000, 13000) g; ROLLBACK");
  Sql("INSERT INTO msg_t VALUES (3, 'sad', 'end')");

  ReplicationStreamOptions options = StreamOptions("msg_slot", "msg_pub").replication;
  auto stream = ReplicationStream::Start(options);
  ASSERT_TRUE(stream.ok()) << stream.status().ToString();
  EXPECT_EQ((*stream)->proto_version(), 3);  // PostgreSQL 15
  EXPECT_TRUE((*stream)->binary());
  EXPECT_TRUE((*stream)->streaming());
  PgOutputDecoder decoder({(*stream)->proto_version(), false});
  std::set<char> tags;
  bool saw_origin_name = false, saw_enum_type = false, saw_last = false;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!saw_last && std::chrono::steady_clock::now() < deadline) {
    auto event = (*stream)->Next(milliseconds(200));
    ASSERT_TRUE(event.ok()) << event.status().ToString();
    if (!*event) continue;
    ASSERT_EQ((*event)->kind, ReplicationEvent::Kind::kXLogData);
    auto message = decoder.Decode((*event)->data.payload);
    ASSERT_TRUE(message.ok()) << message.status().ToString();
    tags.insert(PgOutputMessageTag(*message));
    if (auto* o = std::get_if<PgOrigin>(&*message)) saw_origin_name = o->name == "msg_origin";
    if (auto* y = std::get_if<PgTypeMessage>(&*message)) saw_enum_type = y->name == "msg_mood";
    if (auto* ins = std::get_if<PgInsert>(&*message)) {
      const auto& v = ins->new_tuple.values;
      if (v.size() == 3 && v[2].bytes == "end") saw_last = true;
    }
  }
  ASSERT_TRUE(saw_last);
  for (char tag : std::string("BCRYIUDTMOSEcA")) EXPECT_TRUE(tags.count(tag)) << "no '" << tag << "' message";
  EXPECT_TRUE(saw_origin_name);
  EXPECT_TRUE(saw_enum_type);
  ASSERT_TRUE((*stream)->Close().ok());
  Sql("SELECT pg_drop_replication_slot('msg_slot'); SELECT pg_replication_origin_drop('msg_origin')");
}

TEST(ChangeStreamTest, TypedChangesArriveWholeAndInCommitOrder) {
  Sql("DROP TABLE IF EXISTS typed_t; CREATE TABLE typed_t(id bigint PRIMARY KEY, price numeric(12,2), "
      "at timestamptz, name text, data bytea, mood_free text); "
      "DROP PUBLICATION IF EXISTS typed_pub; CREATE PUBLICATION typed_pub FOR TABLE typed_t");
  CreateSlot("typed_slot");
  Sql("INSERT INTO typed_t VALUES (9007199254740993, 12.30, '2024-01-31 12:00:00+02', 'ä', '\\x00ff', NULL)");
  Sql("BEGIN; UPDATE typed_t SET price = 99.99 WHERE id = 9007199254740993; "
      "INSERT INTO typed_t(id) VALUES (2); COMMIT");
  Sql("DELETE FROM typed_t WHERE id = 2");
  auto stream = ChangeStream::Start(StreamOptions("typed_slot", "typed_pub"));
  ASSERT_TRUE(stream.ok()) << stream.status().ToString();
  auto events = ReadUntil(**stream, [](const auto& ev) { return CountCommits(ev) == 3; });
  ASSERT_EQ(CountCommits(events), 3u);
  // Shape: Begin, SourceSchemaChange (first sight), Insert, Commit, Begin, Update, Insert, Commit, Begin, Delete, Commit.
  ASSERT_TRUE(std::holds_alternative<BeginTransaction>(events[0]));
  ASSERT_TRUE(std::holds_alternative<SourceSchemaChange>(events[1]));
  EXPECT_EQ(std::get<SourceSchemaChange>(events[1]).previous, nullptr);
  EXPECT_EQ(std::get<SourceSchemaChange>(events[1]).current->table.ToString(), "public.typed_t");
  auto changes = Changes(events);
  ASSERT_EQ(changes.size(), 4u);
  const SourceRelation& rel = *changes[0].relation;
  EXPECT_EQ(changes[0].kind, ChangeKind::kInsert);
  EXPECT_EQ(RowText(rel, changes[0].new_row),
            "id=9007199254740993,price=12.30,at=2024-01-31 10:00:00.000000,name=ä,data=00ff,mood_free=NULL");
  EXPECT_EQ(changes[1].kind, ChangeKind::kUpdate);
  EXPECT_EQ(changes[1].old_kind, PgOldTupleKind::kNone);
  EXPECT_EQ(changes[1].new_row[1], Datum(DecimalValue{9999}));
  EXPECT_EQ(changes[2].kind, ChangeKind::kInsert);
  EXPECT_EQ(changes[3].kind, ChangeKind::kDelete);
  EXPECT_EQ(changes[3].old_kind, PgOldTupleKind::kKey);
  EXPECT_EQ(changes[3].old_row[0], Datum(int64_t{2}));
  EXPECT_EQ(changes[3].old_absent, (std::vector<int>{1, 2, 3, 4, 5}));
  // Commit LSNs strictly increase; end LSN follows commit LSN.
  Lsn last = 0;
  for (const auto& e : events) {
    if (auto* c = std::get_if<CommitTransaction>(&e)) {
      EXPECT_GT(c->txn.commit_lsn, last);
      EXPECT_GT(c->txn.end_lsn, c->txn.commit_lsn);
      EXPECT_GT(c->txn.commit_time_micros, 1700000000LL * 1000000);
      last = c->txn.commit_lsn;
    }
  }
  ASSERT_TRUE((*stream)->Close().ok());
  Sql("SELECT pg_drop_replication_slot('typed_slot')");
}

// An UPDATE that leaves an out-of-line value alone does not send it ('u').
void CheckToast(const std::string& identity, bool expect_filled) {
  std::string t = "toast_" + ToLower(identity);
  Sql("DROP TABLE IF EXISTS " + t + "; CREATE TABLE " + t + "(id int PRIMARY KEY, n int, big text); ALTER TABLE " + t +
      " ALTER COLUMN big SET STORAGE EXTERNAL; ALTER TABLE " + t + " REPLICA IDENTITY " + identity +
      "; DROP PUBLICATION IF EXISTS " + t + "_pub; CREATE PUBLICATION " + t + "_pub FOR TABLE " + t);
  Sql("INSERT INTO " + t + " VALUES (1, 0, (SELECT string_agg(md5(g::text), '') FROM generate_series(1, 300) g))");
  CreateSlot(t + "_slot");
  Sql("UPDATE " + t + " SET n = 1 WHERE id = 1");
  auto stream = ChangeStream::Start(StreamOptions(t + "_slot", t + "_pub"));
  ASSERT_TRUE(stream.ok()) << stream.status().ToString();
  auto events = ReadUntil(**stream, [](const auto& ev) { return CountCommits(ev) == 1; });
  auto changes = Changes(events);
  ASSERT_EQ(changes.size(), 1u);
  const RowChange& u = changes[0];
  EXPECT_EQ(u.kind, ChangeKind::kUpdate);
  EXPECT_EQ(u.new_row[1], Datum(int64_t{1}));
  std::string big = SqlValue("SELECT big FROM " + t);
  ASSERT_EQ(big.size(), 9600u);
  if (expect_filled) {
    EXPECT_EQ(u.old_kind, PgOldTupleKind::kFull);
    EXPECT_TRUE(u.unchanged_columns.empty());
    ASSERT_FALSE(u.new_row[2].is_null());
    EXPECT_EQ(u.new_row[2].as_string(), big);
  } else {
    EXPECT_EQ(u.unchanged_columns, std::vector<int>{2});
    EXPECT_TRUE(u.new_row[2].is_null());
  }
  ASSERT_TRUE((*stream)->Close().ok());
  Sql("SELECT pg_drop_replication_slot('" + t + "_slot')");
}

TEST(ChangeStreamTest, UnchangedToastValueIsReportedNotNull) { CheckToast("DEFAULT", false); }
TEST(ChangeStreamTest, ReplicaIdentityFullFillsUnchangedToastFromOldRow) { CheckToast("FULL", true); }

TEST(ChangeStreamTest, ReplicaIdentityDefaultAndUsingIndex) {
  Sql("DROP TABLE IF EXISTS ident_t; CREATE TABLE ident_t(id int PRIMARY KEY, code text NOT NULL, v int); "
      "CREATE UNIQUE INDEX ident_code ON ident_t(code); "
      "DROP PUBLICATION IF EXISTS ident_pub; CREATE PUBLICATION ident_pub FOR TABLE ident_t");
  Sql("INSERT INTO ident_t VALUES (1, 'a', 1), (2, 'b', 2)");
  CreateSlot("ident_slot");
  Sql("UPDATE ident_t SET v = 10 WHERE id = 1");  // DEFAULT, key unchanged: no old image
  Sql("UPDATE ident_t SET id = 3 WHERE id = 1");  // DEFAULT, key changed: old key
  Sql("ALTER TABLE ident_t REPLICA IDENTITY USING INDEX ident_code");
  Sql("DELETE FROM ident_t WHERE id = 2");  // USING INDEX: old key is the code
  auto stream = ChangeStream::Start(StreamOptions("ident_slot", "ident_pub"));
  ASSERT_TRUE(stream.ok()) << stream.status().ToString();
  auto events = ReadUntil(**stream, [](const auto& ev) { return CountCommits(ev) == 3; });
  auto changes = Changes(events);
  ASSERT_EQ(changes.size(), 3u);
  EXPECT_EQ(changes[0].old_kind, PgOldTupleKind::kNone);
  EXPECT_EQ(changes[1].old_kind, PgOldTupleKind::kKey);
  EXPECT_EQ(RowText(*changes[1].relation, changes[1].old_row, changes[1].old_absent), "id=1,code=?,v=?");
  EXPECT_EQ(RowText(*changes[1].relation, changes[1].new_row), "id=3,code=a,v=10");
  EXPECT_EQ(changes[2].kind, ChangeKind::kDelete);
  EXPECT_EQ(changes[2].relation->replica_identity, PgReplicaIdentity::kIndex);
  EXPECT_EQ(changes[2].relation->key_columns, std::vector<int>{1});
  EXPECT_EQ(RowText(*changes[2].relation, changes[2].old_row, changes[2].old_absent), "id=?,code=b,v=?");
  // The identity change arrived as a schema change event before the delete.
  int schema_changes = 0;
  for (const auto& e : events) {
    if (auto* s = std::get_if<SourceSchemaChange>(&e); s && s->previous) {
      ++schema_changes;
      EXPECT_EQ(s->previous->replica_identity, PgReplicaIdentity::kDefault);
      EXPECT_EQ(s->current->replica_identity, PgReplicaIdentity::kIndex);
    }
  }
  EXPECT_EQ(schema_changes, 1);
  ASSERT_TRUE((*stream)->Close().ok());
  Sql("SELECT pg_drop_replication_slot('ident_slot')");
}

TEST(ChangeStreamTest, PartitionedTableArrivesThroughItsRoot) {
  Sql("DROP TABLE IF EXISTS part_t; CREATE TABLE part_t(id int, region text, PRIMARY KEY (id, region)) "
      "PARTITION BY LIST (region); CREATE TABLE part_t_eu PARTITION OF part_t FOR VALUES IN ('eu'); "
      "CREATE TABLE part_t_us PARTITION OF part_t FOR VALUES IN ('us'); DROP PUBLICATION IF EXISTS part_pub");
  {
    auto conn = PgConnection::Connect(Server().conninfo());
    ASSERT_TRUE(conn.ok());
    ASSERT_TRUE(EnsurePublication(**conn, "part_pub", {PgTableName{"public", "part_t"}}).ok());
  }
  CreateSlot("part_slot");
  Sql("INSERT INTO part_t VALUES (1, 'eu'), (2, 'us')");
  Sql("UPDATE part_t SET region = 'us' WHERE id = 1");  // moves between partitions
  auto stream = ChangeStream::Start(StreamOptions("part_slot", "part_pub"));
  ASSERT_TRUE(stream.ok()) << stream.status().ToString();
  auto events = ReadUntil(**stream, [](const auto& ev) { return CountCommits(ev) == 2; });
  auto changes = Changes(events);
  ASSERT_GE(changes.size(), 3u);
  for (const auto& c : changes) EXPECT_EQ(c.relation->table.ToString(), "public.part_t");
  EXPECT_EQ(RowText(*changes[0].relation, changes[0].new_row), "id=1,region=eu");
  EXPECT_EQ(RowText(*changes[1].relation, changes[1].new_row), "id=2,region=us");
  // A cross-partition update is a delete from one partition and an insert into the other.
  EXPECT_EQ(changes[2].kind, ChangeKind::kDelete);
  EXPECT_EQ(changes.back().kind, ChangeKind::kInsert);
  EXPECT_EQ(RowText(*changes.back().relation, changes.back().new_row), "id=1,region=us");
  ASSERT_TRUE((*stream)->Close().ok());
  Sql("SELECT pg_drop_replication_slot('part_slot')");
}

TEST(ChangeStreamTest, TruncateIsAnEvent) {
  Sql("DROP TABLE IF EXISTS trunc_t; CREATE TABLE trunc_t(id int PRIMARY KEY); "
      "DROP PUBLICATION IF EXISTS trunc_pub; CREATE PUBLICATION trunc_pub FOR TABLE trunc_t");
  CreateSlot("trunc_slot");
  Sql("INSERT INTO trunc_t VALUES (1)");
  Sql("TRUNCATE trunc_t RESTART IDENTITY");
  auto stream = ChangeStream::Start(StreamOptions("trunc_slot", "trunc_pub"));
  ASSERT_TRUE(stream.ok());
  auto events = ReadUntil(**stream, [](const auto& ev) { return CountCommits(ev) == 2; });
  const TruncateTables* truncate = nullptr;
  for (const auto& e : events) {
    if (auto* t = std::get_if<TruncateTables>(&e)) truncate = t;
  }
  ASSERT_NE(truncate, nullptr);
  ASSERT_EQ(truncate->relations.size(), 1u);
  EXPECT_EQ(truncate->relations[0]->table.name, "trunc_t");
  EXPECT_TRUE(truncate->restart_identity);
  EXPECT_FALSE(truncate->cascade);
  ASSERT_TRUE((*stream)->Close().ok());
  Sql("SELECT pg_drop_replication_slot('trunc_slot')");
}

TEST(ChangeStreamTest, StreamedTransactionDropsExactlyTheAbortedSubtransaction) {
  Sql("DROP TABLE IF EXISTS sub_t; CREATE TABLE sub_t(id int PRIMARY KEY, tag text); "
      "DROP PUBLICATION IF EXISTS sub_pub; CREATE PUBLICATION sub_pub FOR TABLE sub_t");
  CreateSlot("sub_slot");
  Sql("BEGIN; INSERT INTO sub_t SELECT g, 'keep' FROM generate_series(1, 3000) g; "
      "SAVEPOINT a; INSERT INTO sub_t SELECT g, 'drop' FROM generate_series(3001, 6000) g; ROLLBACK TO a; "
      "SAVEPOINT b; INSERT INTO sub_t SELECT g, 'keep' FROM generate_series(6001, 6010) g; RELEASE b; COMMIT");
  Sql("BEGIN; INSERT INTO sub_t SELECT g, 'aborted' FROM generate_series(7001, 11000) g; ROLLBACK");
  Sql("INSERT INTO sub_t VALUES (0, 'last')");
  auto options = StreamOptions("sub_slot", "sub_pub");
  options.assembler.memory_budget = 64 * 1024;  // force spilling too
  auto stream = ChangeStream::Start(options);
  ASSERT_TRUE(stream.ok());
  auto events = ReadUntil(**stream, [](const auto& ev) { return CountCommits(ev) == 2; });
  ASSERT_EQ(CountCommits(events), 2u);
  auto changes = Changes(events);
  ASSERT_EQ(changes.size(), 3011u);
  std::set<int64_t> ids;
  for (size_t i = 0; i + 1 < changes.size(); ++i) {
    EXPECT_EQ(changes[i].new_row[1].as_string(), "keep");
    ids.insert(changes[i].new_row[0].as_int());
  }
  EXPECT_EQ(ids.size(), 3010u);
  EXPECT_EQ(*ids.begin(), 1);
  EXPECT_EQ(*ids.rbegin(), 6010);
  EXPECT_EQ(changes.back().new_row[1].as_string(), "last");
  EXPECT_TRUE(std::get<BeginTransaction>(events[0]).txn.streamed);
  EXPECT_GT((*stream)->assembler().spilled_bytes(), 0u);
  EXPECT_LE((*stream)->assembler().peak_memory_bytes(), 64u * 1024 + 4096);
  ASSERT_TRUE((*stream)->Close().ok());
  Sql("SELECT pg_drop_replication_slot('sub_slot')");
}

TEST(ChangeStreamTest, IdleStreamAcknowledgesKeepaliveWalEnd) {
  Sql("DROP TABLE IF EXISTS idle_t, busy_t; CREATE TABLE idle_t(id int PRIMARY KEY); "
      "CREATE TABLE busy_t(id int PRIMARY KEY); "
      "DROP PUBLICATION IF EXISTS idle_pub; CREATE PUBLICATION idle_pub FOR TABLE idle_t");
  CreateSlot("idle_slot");
  auto stream = ChangeStream::Start(StreamOptions("idle_slot", "idle_pub"));
  ASSERT_TRUE(stream.ok());
  std::string before = SqlValue("SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = 'idle_slot'");
  // Traffic on a table outside the publication only.
  Sql("INSERT INTO busy_t SELECT generate_series(1, 1000)");
  std::string wal_now = SqlValue("SELECT pg_current_wal_lsn()");
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  bool advanced = false;
  while (!advanced && std::chrono::steady_clock::now() < deadline) {
    auto next = (*stream)->Next(milliseconds(200));
    ASSERT_TRUE(next.ok());
    if (next->has_value()) {
      // Only empty transactions may arrive (PostgreSQL < 15 sends them); never a change.
      ASSERT_FALSE(std::holds_alternative<RowChange>(**next)) << "no change of idle_t was made";
      if (auto* c = std::get_if<CommitTransaction>(&**next)) (*stream)->Acknowledge(c->txn.end_lsn);
    }
    (void)(*stream)->replication().SendStatus(true);
    advanced = SqlValue("SELECT confirmed_flush_lsn >= '" + wal_now +
                        "'::pg_lsn FROM pg_replication_slots WHERE slot_name = 'idle_slot'") == "t";
  }
  EXPECT_TRUE(advanced) << "confirmed_flush_lsn stayed at " << before;
  ASSERT_TRUE((*stream)->Close().ok());
  Sql("SELECT pg_drop_replication_slot('idle_slot')");
}

TEST(ChangeStreamTest, NothingUnacknowledgedIsConfirmed) {
  Sql("DROP TABLE IF EXISTS noack_t; CREATE TABLE noack_t(id int PRIMARY KEY); "
      "DROP PUBLICATION IF EXISTS noack_pub; CREATE PUBLICATION noack_pub FOR TABLE noack_t");
  Lsn start = CreateSlot("noack_slot");
  Sql("INSERT INTO noack_t VALUES (1)");
  auto stream = ChangeStream::Start(StreamOptions("noack_slot", "noack_pub"));
  ASSERT_TRUE(stream.ok());
  auto events = ReadUntil(**stream, [](const auto& ev) { return CountCommits(ev) == 1; }, std::chrono::seconds(30),
                          /*ack=*/false);
  // Keep reading for a while (keepalives, status updates) without acknowledging.
  for (int i = 0; i < 10; ++i) {
    (void)(*stream)->Next(milliseconds(100));
    (void)(*stream)->replication().SendStatus(true);
  }
  EXPECT_LE((*stream)->replication().reported_flush_lsn(), start);
  auto confirmed = ParseLsn(SqlValue("SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = 'noack_slot'"));
  ASSERT_TRUE(confirmed.ok());
  EXPECT_LE(*confirmed, start);
  ASSERT_TRUE((*stream)->Close().ok());
  Sql("SELECT pg_drop_replication_slot('noack_slot')");
}

}  // namespace
}  // namespace tide
