// Integration tests of the initial copy and of the copy-to-stream hand-over: parallel CTID ranges,
// partitions, text fallback columns, and no gap / no overlap while a writer keeps changing the table.
#include "tide/postgres/snapshot_copy.h"

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <random>
#include <thread>

#include "pg_test_util.h"
#include "tide/postgres/publication.h"

namespace tide {
namespace {

using namespace pgtest;

struct ExportedSlot {
  std::unique_ptr<PgConnection> conn;  // keep idle until the copy imported the snapshot
  CreatedSlot slot;
};

ExportedSlot CreateExportedSlot(const std::string& name) {
  ExportedSlot out;
  auto conn = PgConnection::Connect(Server().conninfo(), PgSessionKind::kReplication);
  EXPECT_TRUE(conn.ok()) << conn.status().ToString();
  out.conn = std::move(conn).value();
  auto slot = CreateReplicationSlot(*out.conn, name, {false, SlotSnapshotAction::kExport});
  EXPECT_TRUE(slot.ok()) << slot.status().ToString();
  if (slot.ok()) out.slot = *slot;
  return out;
}

// Options that copy under `exported`'s snapshot from the test server.
SnapshotCopyOptions CopyOptionsFor(const ExportedSlot& exported) {
  SnapshotCopyOptions options;
  options.conninfo = Server().conninfo();
  options.snapshot_name = exported.slot.snapshot_name;
  options.snapshot_lsn = exported.slot.consistent_point;
  return options;
}

TEST(SnapshotCopyTest, CopiesLargeTableInParallelRangesAndPartitionsUnderRoot) {
  Sql("DROP TABLE IF EXISTS copy_big, copy_part; "
      "CREATE TABLE copy_big(id bigint PRIMARY KEY, v numeric(10,2), s text, r int4range); "
      "INSERT INTO copy_big SELECT g, g / 100.0, md5(g::text), int4range(g, g + 10) FROM generate_series(1, 60000) g; "
      "CREATE TABLE copy_part(id int, region text, PRIMARY KEY (id, region)) PARTITION BY LIST (region); "
      "CREATE TABLE copy_part_a PARTITION OF copy_part FOR VALUES IN ('a'); "
      "CREATE TABLE copy_part_b PARTITION OF copy_part FOR VALUES IN ('b'); "
      "INSERT INTO copy_part SELECT g, CASE WHEN g % 2 = 0 THEN 'a' ELSE 'b' END FROM generate_series(1, 1000) g");
  auto exported = CreateExportedSlot("copy_slot");
  // Rows written after the snapshot must not be copied.
  Sql("INSERT INTO copy_big VALUES (60001, 1, 'late', NULL); DELETE FROM copy_big WHERE id = 1");

  SnapshotCopyOptions options = CopyOptionsFor(exported);
  options.workers = 3;
  options.split_pages = 64;  // copy_big has ~600 pages: many ranges
  options.batch_rows = 1000;
  options.queue_batches = 4;
  // copy_big's rows get room for 9 values (a consumer appending 5), copy_part's none beyond their own.
  options.row_capacity[PgTableName{"public", "copy_big"}] = 9;
  auto copy = SnapshotCopy::Start(options, {{"public", "copy_big"}, {"public", "copy_part"}});
  ASSERT_TRUE(copy.ok()) << copy.status().ToString();
  exported.conn.reset();  // the export may end now

  std::map<std::string, std::vector<Row>> rows;
  std::map<std::string, int> completes;
  while (true) {
    auto batch = (*copy)->Next();
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    if (!*batch) break;
    EXPECT_EQ((*batch)->snapshot_lsn, exported.slot.consistent_point);
    EXPECT_LE((*batch)->rows.size(), 1000u);
    auto& dest = rows[(*batch)->relation->table.ToString()];
    const bool big = (*batch)->relation->table.name == "copy_big";
    for (auto& r : (*batch)->rows) {
      EXPECT_EQ(r.size(), big ? 4u : 2u);
      if (big) {
        EXPECT_GE(r.capacity(), 9u);
      }
      dest.push_back(std::move(r));
    }
    if ((*batch)->table_complete) ++completes[(*batch)->relation->table.ToString()];
  }
  EXPECT_GT((*copy)->stats().ranges, 6u);
  EXPECT_EQ(completes["public.copy_big"], 1);
  EXPECT_EQ(completes["public.copy_part"], 1);
  ASSERT_EQ(rows["public.copy_big"].size(), 60000u);
  ASSERT_EQ(rows["public.copy_part"].size(), 1000u);
  std::set<int64_t> ids;
  const SourceRelation& rel = *(*copy)->relations()[0];
  EXPECT_EQ(rel.key_columns, std::vector<int>{0});
  for (const auto& r : rows["public.copy_big"]) {
    ids.insert(r[0].as_int());
    if (r[0].as_int() == 12345) {
      EXPECT_EQ(RowText(rel, r), "id=12345,v=123.45,s=" + SqlValue("SELECT md5('12345')") + ",r=[12345,12355)");
    }
  }
  EXPECT_EQ(ids.size(), 60000u);
  EXPECT_EQ(*ids.begin(), 1);
  EXPECT_EQ(*ids.rbegin(), 60000);
  Sql("SELECT pg_drop_replication_slot('copy_slot')");
}

// Batches handed back with Recycle() are refilled in place: no value of an earlier row (or of another
// table, with other columns) may survive into a later one. Two tables of different shapes, with NULLs
// and strings of every length, copied by workers that reuse every batch.
TEST(SnapshotCopyTest, RecycledBatchesCarryNothingOver) {
  Sql("DROP TABLE IF EXISTS copy_wide, copy_narrow; "
      "CREATE TABLE copy_wide(id bigint PRIMARY KEY, s text, f float8, ts timestamptz, n numeric(12,3), b bool); "
      "INSERT INTO copy_wide SELECT g, CASE WHEN g % 5 = 0 THEN NULL ELSE repeat('w', g % 40) END, "
      "CASE WHEN g % 3 = 0 THEN NULL ELSE g * 1.5 END, "
      "CASE WHEN g % 7 = 0 THEN NULL ELSE timestamptz '2024-01-01 00:00:00+00' + g * interval '1 minute' END, "
      "CASE WHEN g % 11 = 0 THEN NULL ELSE g / 8.0 END, CASE WHEN g % 2 = 0 THEN NULL ELSE g % 4 = 1 END "
      "FROM generate_series(1, 5000) g; "
      "CREATE TABLE copy_narrow(id int PRIMARY KEY, s varchar(50)); "
      "INSERT INTO copy_narrow SELECT g, CASE WHEN g % 4 = 0 THEN NULL ELSE md5(g::text) || repeat('n', g % 9) END "
      "FROM generate_series(1, 5000) g");
  auto exported = CreateExportedSlot("copy_recycle_slot");
  SnapshotCopyOptions options = CopyOptionsFor(exported);
  options.workers = 2;
  options.split_pages = 8;  // several ranges per table, so batches move between the tables
  options.batch_rows = 97;
  options.queue_batches = 2;
  auto copy = SnapshotCopy::Start(options, {{"public", "copy_wide"}, {"public", "copy_narrow"}});
  ASSERT_TRUE(copy.ok()) << copy.status().ToString();
  exported.conn.reset();

  std::map<std::string, std::map<int64_t, std::string>> got;  // table -> id -> row text
  while (true) {
    auto batch = (*copy)->Next();
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    if (!*batch) break;
    const SourceRelation& rel = *(*batch)->relation;
    for (const Row& r : (*batch)->rows) {
      ASSERT_EQ(r.size(), rel.fields.size()) << rel.table.ToString();
      ASSERT_TRUE(got[rel.table.ToString()].emplace(r[0].as_int(), RowText(rel, r)).second) << "copied twice";
    }
    (*copy)->Recycle(std::move(**batch));
  }
  for (const std::string table : {"copy_wide", "copy_narrow"}) {
    const bool wide = table == "copy_wide";
    auto want = Server().Query(
        wide ? "SELECT id, coalesce(s, 'NULL'), coalesce(f::text, 'NULL'), "
               "coalesce(to_char(ts AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US'), 'NULL'), "
               "coalesce(n::text, 'NULL'), coalesce(b::text, 'NULL') FROM copy_wide ORDER BY id"
             : "SELECT id, coalesce(s, 'NULL') FROM copy_narrow ORDER BY id");
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    const auto& rows = got["public." + table];
    ASSERT_EQ(rows.size(), want->size()) << table;
    for (const auto& w : *want) {
      std::string text = "id=" + *w[0] + ",s=" + *w[1];
      if (wide) {
        text += ",f=" + (*w[2] == "NULL" ? *w[2] : DatumToString(Datum(std::stod(*w[2])), DataType::Double()));
        text += ",ts=" + *w[3] + ",n=" + *w[4] + ",b=" + *w[5];
      }
      auto it = rows.find(std::stoll(*w[0]));
      ASSERT_NE(it, rows.end()) << table << " row " << *w[0];
      EXPECT_EQ(it->second, text) << table;
    }
  }
  Sql("SELECT pg_drop_replication_slot('copy_recycle_slot')");
}

// A batch's bytes count a Datum slot for each value a row has room for, besides the values' bytes: a
// wide table's batches stay within batch_bytes instead of holding batch_rows rows of 40-byte slots.
TEST(SnapshotCopyTest, WideRowsFillABatchByTheirSlots) {
  constexpr int kColumns = 64;
  std::string create = "DROP TABLE IF EXISTS copy_columns; CREATE TABLE copy_columns(id int PRIMARY KEY";
  std::string select = "INSERT INTO copy_columns SELECT g";
  for (int c = 1; c < kColumns; ++c) {
    create += ", c" + std::to_string(c) + " int";
    select += ", g + " + std::to_string(c);
  }
  Sql(create + "); " + select + " FROM generate_series(1, 3000) g");
  auto exported = CreateExportedSlot("copy_columns_slot");
  SnapshotCopyOptions options = CopyOptionsFor(exported);
  options.workers = 1;
  options.batch_rows = 4096;
  // A row: 64 slots of sizeof(Datum) and 64 four-byte values.
  const size_t row_bytes = kColumns * (sizeof(Datum) + 4);
  options.batch_bytes = 100 * row_bytes;
  auto copy = SnapshotCopy::Start(options, {{"public", "copy_columns"}});
  ASSERT_TRUE(copy.ok()) << copy.status().ToString();
  exported.conn.reset();
  size_t rows = 0, batches = 0;
  while (true) {
    auto batch = (*copy)->Next();
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    if (!*batch) break;
    EXPECT_LE((*batch)->rows.size(), 100u) << "a batch past batch_bytes by its slots";
    rows += (*batch)->rows.size();
    batches += (*batch)->rows.empty() ? 0 : 1;
    (*copy)->Recycle(std::move(**batch));
  }
  EXPECT_EQ(rows, 3000u);
  EXPECT_GE(batches, 30u);
  copy->reset();  // its sessions hold the snapshot's transaction, and with it a lock on the table
  Sql("SELECT pg_drop_replication_slot('copy_columns_slot'); DROP TABLE copy_columns");
}

// The field report's trap 1: a statement_timeout or idle_in_transaction_session_timeout set for the
// role cuts off a long copy. The copy sessions turn both off for themselves: here the consumer is slower
// than either timeout, so a COPY stays active (and its session in its transaction) far longer.
// A COPY names columns as the catalog has them now: a column dropped after the snapshot could not be
// read; and a table truncated after it looks empty to the snapshot. Such a table is reported, not
// copied, and the others are copied as usual; once the copy holds its lock, DDL waits for it.
TEST(SnapshotCopyTest, TableAlteredOrTruncatedAfterTheSnapshotIsLeftForALaterCopy) {
  Sql("DROP TABLE IF EXISTS copy_ddl, copy_steady, copy_truncated; "
      "CREATE TABLE copy_truncated(id int PRIMARY KEY); INSERT INTO copy_truncated SELECT generate_series(1, 10); "
      "CREATE TABLE copy_ddl(id int PRIMARY KEY, gone text, kept text); "
      "INSERT INTO copy_ddl SELECT g, 'g' || g, 'k' || g FROM generate_series(1, 100) g; "
      "CREATE TABLE copy_steady(id int PRIMARY KEY, v text); "
      "INSERT INTO copy_steady SELECT g, 'v' || g FROM generate_series(1, 50) g");
  auto exported = CreateExportedSlot("copy_ddl_slot");
  Sql("ALTER TABLE copy_ddl DROP COLUMN gone");
  // TRUNCATE is not MVCC-safe: under the older snapshot the table would look empty.
  Sql("TRUNCATE copy_truncated");

  SnapshotCopyOptions options = CopyOptionsFor(exported);
  options.workers = 2;
  auto copy = SnapshotCopy::Start(options, {{"public", "copy_ddl"}, {"public", "copy_steady"}, {"public", "copy_truncated"}});
  ASSERT_TRUE(copy.ok()) << copy.status().ToString();
  exported.conn.reset();
  ASSERT_EQ((*copy)->changed_tables().size(), 2u);
  EXPECT_EQ((*copy)->changed_tables()[0].ToString(), "public.copy_ddl");
  EXPECT_EQ((*copy)->changed_tables()[1].ToString(), "public.copy_truncated");
  ASSERT_EQ((*copy)->relations().size(), 1u);
  EXPECT_EQ((*copy)->relations()[0]->table.ToString(), "public.copy_steady");

  // The lock taken at the start keeps further DDL out until the copy ends.
  auto ddl = PgConnection::Connect(Server().conninfo());
  ASSERT_TRUE(ddl.ok()) << ddl.status().ToString();
  ASSERT_TRUE((*ddl)->Execute("SET lock_timeout = '200ms'").ok());
  Status blocked = (*ddl)->Execute("ALTER TABLE copy_steady ADD COLUMN late int");
  EXPECT_FALSE(blocked.ok()) << "DDL went through while the copy held its snapshot";

  size_t rows = 0;
  while (true) {
    auto batch = (*copy)->Next();
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    if (!*batch) break;
    EXPECT_EQ((*batch)->relation->table.ToString(), "public.copy_steady");
    rows += (*batch)->rows.size();
  }
  EXPECT_EQ(rows, 50u);
  copy->reset();
  EXPECT_TRUE((*ddl)->Execute("ALTER TABLE copy_steady ADD COLUMN late int").ok());
  Sql("SELECT pg_drop_replication_slot('copy_ddl_slot')");
}

// An ALTER that queues behind the first session's lock makes every later ACCESS SHARE request wait
// behind it: a copy session asking then would wait on a session that ends only with the copy. The
// sessions step back for the ALTER and import the snapshot again; the altered table is then reported
// for a later copy, and the rest is copied.
TEST(SnapshotCopyTest, SchemaChangeQueuedWhileTheSessionsLockMakesThemStepBack) {
  Sql("DROP TABLE IF EXISTS copy_queued, copy_beside; "
      "CREATE TABLE copy_queued(id int PRIMARY KEY); INSERT INTO copy_queued SELECT generate_series(1, 20); "
      "CREATE TABLE copy_beside(id int PRIMARY KEY); INSERT INTO copy_beside SELECT generate_series(1, 30)");
  auto exported = CreateExportedSlot("copy_queued_slot");

  std::thread alter;
  std::atomic<bool> altered{false};
  int first_locks = 0;
  SnapshotCopyOptions options = CopyOptionsFor(exported);
  options.workers = 3;
  options.on_first_session_locked = [&] {
    if (++first_locks > 1) return;
    alter = std::thread([&] {
      auto conn = PgConnection::Connect(Server().conninfo());
      if (conn.ok() && (*conn)->Execute("ALTER TABLE copy_queued ADD COLUMN late int").ok()) altered = true;
    });
    // Wait until the ALTER is queued behind the first session's lock.
    for (int i = 0; i < 500; ++i) {
      auto waiting = Server().QueryValue(
          "SELECT count(*) FROM pg_locks WHERE NOT granted AND mode = 'AccessExclusiveLock' AND relation = "
          "'copy_queued'::regclass");
      if (waiting.ok() && *waiting == "1") return;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ADD_FAILURE() << "the ALTER never queued";
  };
  auto copy = SnapshotCopy::Start(options, {{"public", "copy_queued"}, {"public", "copy_beside"}});
  ASSERT_TRUE(copy.ok()) << copy.status().ToString();
  exported.conn.reset();
  alter.join();
  EXPECT_TRUE(altered) << "the ALTER did not go through while the sessions stepped back";
  EXPECT_GE(first_locks, 2) << "the sessions did not import the snapshot again";
  ASSERT_EQ((*copy)->changed_tables().size(), 1u);
  EXPECT_EQ((*copy)->changed_tables()[0].ToString(), "public.copy_queued");
  size_t rows = 0;
  while (true) {
    auto batch = (*copy)->Next();
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    if (!*batch) break;
    EXPECT_EQ((*batch)->relation->table.ToString(), "public.copy_beside");
    rows += (*batch)->rows.size();
  }
  EXPECT_EQ(rows, 30u);
  copy->reset();
  Sql("SELECT pg_drop_replication_slot('copy_queued_slot')");
}

TEST(SnapshotCopyTest, RoleTimeoutsDoNotCutTheCopyOff) {
  Sql("DROP TABLE IF EXISTS copy_slow; DROP ROLE IF EXISTS copy_timeouts; "
      "CREATE ROLE copy_timeouts LOGIN SUPERUSER; "
      "ALTER ROLE copy_timeouts SET statement_timeout = '100ms'; "
      "ALTER ROLE copy_timeouts SET idle_in_transaction_session_timeout = '100ms'; "
      "CREATE TABLE copy_slow(id bigint PRIMARY KEY, s text); "
      "INSERT INTO copy_slow SELECT g, repeat('s', 100) FROM generate_series(1, 300000) g");
  auto exported = CreateExportedSlot("copy_timeouts_slot");
  SnapshotCopyOptions options;
  options.conninfo = Server().conninfo() + " user=copy_timeouts";
  options.snapshot_name = exported.slot.snapshot_name;
  options.snapshot_lsn = exported.slot.consistent_point;
  options.workers = 1;
  options.batch_rows = 1000;
  options.queue_batches = 1;
  auto copy = SnapshotCopy::Start(options, {{"public", "copy_slow"}});
  ASSERT_TRUE(copy.ok()) << copy.status().ToString();
  exported.conn.reset();
  int64_t rows = 0;
  for (int batches = 0;; ++batches) {
    if (batches < 3) std::this_thread::sleep_for(std::chrono::milliseconds(300));
    auto batch = (*copy)->Next();
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    if (!*batch) break;
    rows += static_cast<int64_t>((*batch)->rows.size());
    (*copy)->Recycle(std::move(**batch));
  }
  EXPECT_EQ(rows, 300000);
  Sql("SELECT pg_drop_replication_slot('copy_timeouts_slot')");
}

TEST(SnapshotCopyTest, SnapshotThatIsNoLongerExportedGivesAClearError) {
  Sql("DROP TABLE IF EXISTS copy_gone; CREATE TABLE copy_gone(id int)");
  std::string snapshot;
  {
    auto exported = CreateExportedSlot("copy_gone_slot");
    snapshot = exported.slot.snapshot_name;
  }  // the replication connection closes: the export ends
  SnapshotCopyOptions options;
  options.conninfo = Server().conninfo();
  options.snapshot_name = snapshot;
  options.workers = 1;
  auto copy = SnapshotCopy::Start(options, {{"public", "copy_gone"}});
  ASSERT_FALSE(copy.ok());
  EXPECT_NE(copy.status().message().find("idle"), std::string::npos) << copy.status().ToString();
  Sql("SELECT pg_drop_replication_slot('copy_gone_slot')");
}

// A writer inserts, updates and deletes rows while the copy and the stream run; copy + stream must
// rebuild exactly PostgreSQL's final table.
TEST(NoGapNoOverlapTest, CopyPlusStreamRebuildsTheTableWhileAWriterRuns) {
  Sql("DROP TABLE IF EXISTS gap_t, gap_marker; CREATE TABLE gap_t(id bigint PRIMARY KEY, v int, s text); "
      "CREATE TABLE gap_marker(id int PRIMARY KEY); "
      "INSERT INTO gap_t SELECT g, 0, 'initial' FROM generate_series(1, 20000) g; "
      "DROP PUBLICATION IF EXISTS gap_pub; CREATE PUBLICATION gap_pub FOR TABLE gap_t, gap_marker");
  std::atomic<bool> stop{false};
  std::atomic<int> ops{0};
  std::thread writer([&] {
    PGconn* conn = Server().ConnectSuperuser();
    std::mt19937 rng(42);
    int64_t next_id = 20001;
    while (!stop.load()) {
      std::string sql = "BEGIN;";
      int n = 1 + static_cast<int>(rng() % 4);
      for (int i = 0; i < n; ++i) {
        int64_t id = 1 + static_cast<int64_t>(rng() % static_cast<uint32_t>(next_id));
        switch (rng() % 4) {
          case 0: sql += fmt::format("INSERT INTO gap_t VALUES ({}, 1, 'new');", next_id++); break;
          case 1: sql += fmt::format("UPDATE gap_t SET v = v + 1, s = 'upd' WHERE id = {};", id); break;
          case 2: sql += fmt::format("DELETE FROM gap_t WHERE id = {};", id); break;
          case 3: sql += fmt::format("UPDATE gap_t SET id = {} WHERE id = {};", next_id++, id); break;
        }
      }
      sql += "COMMIT;";
      PGresult* r = PQexec(conn, sql.c_str());
      PQclear(r);
      ++ops;
    }
    PQfinish(conn);
  });
  while (ops.load() < 200) std::this_thread::sleep_for(std::chrono::milliseconds(10));

  auto exported = CreateExportedSlot("gap_slot");
  SnapshotCopyOptions options = CopyOptionsFor(exported);
  options.workers = 2;
  options.split_pages = 16;
  auto copy = SnapshotCopy::Start(options, {{"public", "gap_t"}});
  ASSERT_TRUE(copy.ok()) << copy.status().ToString();
  exported.conn.reset();

  std::map<int64_t, std::string> table;  // id -> "v|s"
  auto value = [](const Row& r) { return std::to_string(r[1].as_int()) + "|" + r[2].as_string(); };
  while (true) {
    auto batch = (*copy)->Next();
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    if (!*batch) break;
    for (const auto& r : (*batch)->rows) ASSERT_TRUE(table.emplace(r[0].as_int(), value(r)).second) << "copied twice";
  }
  auto stream = ChangeStream::Start(StreamOptions("gap_slot", "gap_pub"));
  ASSERT_TRUE(stream.ok()) << stream.status().ToString();
  // Let the writer make a few hundred more transactions after the snapshot, however slow the machine.
  int after_snapshot = ops.load() + 300;
  for (int i = 0; i < 600 && ops.load() < after_snapshot; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  stop = true;
  writer.join();
  Sql("INSERT INTO gap_marker VALUES (1)");

  bool marker = false;
  Lsn last_commit = 0;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (!marker && std::chrono::steady_clock::now() < deadline) {
    auto next = (*stream)->Next(std::chrono::milliseconds(200));
    ASSERT_TRUE(next.ok()) << next.status().ToString();
    if (!*next) continue;
    if (auto* c = std::get_if<RowChange>(&**next)) {
      if (c->relation->table.name == "gap_marker") {
        marker = true;
        continue;
      }
      if (c->kind == ChangeKind::kInsert) {
        ASSERT_TRUE(table.emplace(c->new_row[0].as_int(), value(c->new_row)).second) << "insert of a copied row";
      } else if (c->kind == ChangeKind::kUpdate) {
        if (c->old_kind != PgOldTupleKind::kNone) ASSERT_EQ(table.erase(c->old_row[0].as_int()), 1u);
        else ASSERT_EQ(table.count(c->new_row[0].as_int()), 1u) << "update of a row never seen";
        table[c->new_row[0].as_int()] = value(c->new_row);
      } else {
        ASSERT_EQ(table.erase(c->old_row[0].as_int()), 1u) << "delete of a row never seen";
      }
    } else if (auto* commit = std::get_if<CommitTransaction>(&**next)) {
      EXPECT_GT(commit->txn.commit_lsn, exported.slot.consistent_point);
      EXPECT_GT(commit->txn.commit_lsn, last_commit);
      last_commit = commit->txn.commit_lsn;
      (*stream)->Acknowledge(commit->txn.end_lsn);
    }
  }
  ASSERT_TRUE(marker);
  auto expected = Server().Query("SELECT id, v, s FROM gap_t ORDER BY id");
  ASSERT_TRUE(expected.ok());
  std::map<int64_t, std::string> want;
  for (const auto& r : *expected) want[std::stoll(*r[0])] = *r[1] + "|" + *r[2];
  EXPECT_GE(ops.load(), after_snapshot);
  EXPECT_EQ(table.size(), want.size());
  EXPECT_TRUE(table == want) << "rebuilt table differs from PostgreSQL's";
  ASSERT_TRUE((*stream)->Close().ok());
  Sql("SELECT pg_drop_replication_slot('gap_slot')");
}

}  // namespace
}  // namespace tide
