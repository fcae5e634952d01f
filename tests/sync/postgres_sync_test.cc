// End-to-end tests of the sync (sync/postgres_sync.h) on a real PostgreSQL that the harness starts:
// the initial copy, the stream, stopping, restarting, tables joining later, and the real `tide sync
// postgres` binary killed with SIGKILL and restarted. Every test compares the lake with PostgreSQL
// row for row.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <iterator>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <random>
#include <thread>

#include "sync/sync_test_util.h"
#include "testing/pg_server.h"
#include "testing/temp_dir.h"
#include "tide/base/strings.h"
#include "tide/postgres/replication_slot.h"
#include "tide/sync/metadata_column.h"
#include "tide/postgres/pg_connection.h"
#include "tide/sync/doctor.h"
#include "tide/sync/postgres_sync.h"
#include "tide/sync/resync_request.h"
#include "tide/sync/sync_progress.h"
#include "tide/sync/table_selection.h"
#include "tide/sync/table_sink.h"
#include "tide/table/operation/file_store_commit.h"
#include "tide/table/sink/table_write.h"
#include "tide/table/schema/schema_change.h"
#include "tide/table/snapshot/snapshot_manager.h"
#include "tide/table/table_test_util.h"
#include "tide/table/table.h"

namespace tide {
namespace {

using namespace sync_testing;

class PostgresSyncTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = "sync_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name());
    db_ = ToLower(db_).substr(0, 60);
    ASSERT_TRUE(Server().CreateDatabase(db_).ok());
    warehouse_ = dir_.path() + "/warehouse";
  }

  PostgresSyncOptions Options(std::vector<PgTableName> tables) {
    PostgresSyncOptions o;
    o.warehouse = warehouse_;
    o.database = "shop";
    o.conninfo = Server().conninfo(db_);
    o.tables = std::move(tables);
    o.slot = "slot_" + db_.substr(5, 40);
    o.publication = "pub_" + db_.substr(5, 40);
    o.commit_interval = std::chrono::milliseconds(100);
    o.copy_workers = 2;
    return o;
  }
  std::string TablePath(const std::string& table) const { return warehouse_ + "/shop.db/" + table; }

  // Another writer ("vandal") deletes orders 1..`last` from the lake table shop.orders (id bigint,
  // amount numeric(10,2), note text), so that it no longer equals PostgreSQL.
  void DeleteOrdersBehindTheSync(int64_t last) {
    auto table = Table::Open(FileSystem::Local(), TablePath("orders"), "shop.orders").value();
    auto write = TableWrite::Create(FileSystem::Local(), TablePath("orders"), table->latest_schema(), "vandal", {});
    ASSERT_TRUE(write.ok()) << write.status().ToString();
    for (int64_t id = 1; id <= last; ++id) {
      ASSERT_TRUE((*write)->Write(RowKind::kDelete, Row{Datum(id), Datum(DecimalValue{}), Datum()}).ok());
    }
    auto messages = (*write)->PrepareCommit();
    ASSERT_TRUE(messages.ok());
    auto committer = FileStoreCommit::Create(FileSystem::Local(), TablePath("orders"), "shop.orders").value();
    CommitOptions commit;
    commit.commit_user = "vandal";
    commit.commit_identifier = 1;
    ASSERT_TRUE(committer->Commit(*messages, commit).ok());
  }
  // The OVERWRITE snapshots of a lake table.
  int CountOverwrites(const std::string& table) const {
    SnapshotManager snapshots(FileSystem::Local(), TablePath(table));
    int n = 0;
    for (int64_t id = 1; id <= snapshots.LatestId().ValueOr(std::nullopt).value_or(0); ++id) {
      auto snapshot = snapshots.Get(id);
      if (snapshot.ok() && snapshot->commit_kind == CommitKind::kOverwrite) ++n;
    }
    return n;
  }

  // Checks every snapshot of lake table `table`: each holds all of `ids` (values of its `id_column`,
  // as text) or none of them, i.e. never part of the transaction that wrote them; and `ids` are in
  // the latest. Returns how many snapshots were read.
  int ExpectWholeInEverySnapshot(const std::string& table, const std::string& id_column,
                                 const std::vector<std::string>& ids) {
    SnapshotManager snapshots(FileSystem::Local(), TablePath(table));
    const int64_t latest = snapshots.LatestId().ValueOr(std::nullopt).value_or(0);
    const int64_t earliest = snapshots.EarliestId().ValueOr(std::nullopt).value_or(1);
    int read = 0;
    size_t in_latest = 0;
    for (int64_t id = earliest; id <= latest; ++id) {
      auto rows = ReadLakeRows(TablePath(table), {id_column}, id);
      if (!rows.ok()) {
        ADD_FAILURE() << "snapshot " << id << ": " << rows.status().ToString();
        continue;
      }
      ++read;
      size_t present = 0;
      for (const std::string& want : ids) present += std::count(rows->begin(), rows->end(), want) > 0 ? 1 : 0;
      EXPECT_TRUE(present == 0 || present == ids.size())
          << "snapshot " << id << " holds " << present << " of the " << ids.size() << " rows of one transaction";
      if (id == latest) in_latest = present;
    }
    EXPECT_EQ(in_latest, ids.size());
    return read;
  }

  std::string db_;
  testing::TempDir dir_;
  std::string warehouse_;
};

constexpr const char* kOrdersSelect =
    "SELECT concat_ws('|', id::text, amount::text, coalesce(note, '\\N')) FROM orders";

TEST_F(PostgresSyncTest, CopiesThenStreamsInsertsUpdatesAndDeletes) {
  Sql("CREATE TABLE orders (id bigint PRIMARY KEY, amount numeric(10,2) NOT NULL, note text)", db_);
  Sql("INSERT INTO orders SELECT g, g * 1.25, 'n' || g FROM generate_series(1, 3000) g", db_);
  Sql("COMMENT ON COLUMN orders.note IS 'free text'", db_);
  {
    SyncThread sync(Options({{"public", "orders"}}));
    ASSERT_TRUE(WaitEqual(TablePath("orders"), kOrdersSelect, db_)) << "the initial copy";
    EXPECT_EQ(sync.sync().stats().copied_rows, 3000);
    // The target was made from the catalog: types, primary key, NOT NULL, comments.
    auto table = Table::Open(FileSystem::Local(), TablePath("orders"), "shop.orders");
    ASSERT_TRUE(table.ok()) << table.status().ToString();
    const TableSchema& schema = (*table)->latest_schema();
    ASSERT_EQ(schema.fields.size(), 3u);
    EXPECT_EQ(schema.fields[0].type.ToString(), "BIGINT NOT NULL");
    EXPECT_EQ(schema.fields[1].type.ToString(), "DECIMAL(10, 2) NOT NULL");
    EXPECT_EQ(schema.fields[2].type.ToString(), "STRING");
    EXPECT_EQ(schema.fields[2].description, std::optional<std::string>("free text"));
    EXPECT_EQ(schema.primary_keys, (std::vector<std::string>{"id"}));
    // Inserts, updates (one moves its key), deletes, NULLs, in several transactions.
    Sql("INSERT INTO orders SELECT g, g, NULL FROM generate_series(3001, 3500) g", db_);
    Sql("UPDATE orders SET amount = amount + 1000, note = 'updated' WHERE id % 7 = 0", db_);
    Sql("UPDATE orders SET id = 10000 WHERE id = 5", db_);
    Sql("DELETE FROM orders WHERE id % 11 = 0", db_);
    Sql("BEGIN; INSERT INTO orders VALUES (20000, 1.5, 'x'); DELETE FROM orders WHERE id = 20000; COMMIT", db_);
    ASSERT_TRUE(WaitEqual(TablePath("orders"), kOrdersSelect, db_)) << "the stream";
    Status stopped = sync.Stop();
    ASSERT_TRUE(stopped.ok()) << stopped.ToString();
  }
  // The lake's position is acknowledged: the slot's confirmed position reached it.
  auto position = ReadSinkPosition(FileSystem::Local(), TablePath("orders"), PostgresSync::CommitUser(Options({}).slot));
  ASSERT_TRUE(position.ok()) << position.status().ToString();
  EXPECT_NE(position->copy_lsn, kInvalidLsn);
  EXPECT_GT(position->commit_lsn, position->copy_lsn);
  auto confirmed = Server().QueryValue("SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = '" +
                                       Options({}).slot + "'");
  ASSERT_TRUE(confirmed.ok());
  auto confirmed_lsn = ParseLsn(*confirmed);
  ASSERT_TRUE(confirmed_lsn.ok()) << *confirmed;
  EXPECT_GT(*confirmed_lsn, position->commit_lsn);
}

// An append table (no primary key) shows every repeat and every loss as a row too many or too few.
constexpr const char* kEventsSelect = "SELECT concat_ws('|', id::text, payload) FROM events";

TEST_F(PostgresSyncTest, RestartResumesWithoutLossOrRepeat) {
  Sql("CREATE TABLE events (id bigint NOT NULL, payload text)", db_);
  Sql("INSERT INTO events SELECT g, 'copy' FROM generate_series(1, 500) g", db_);
  for (int round = 0; round < 3; ++round) {
    SyncThread sync(Options({{"public", "events"}}));
    Sql("INSERT INTO events SELECT g, 'round" + std::to_string(round) + "' FROM generate_series(1, 200) g", db_);
    ASSERT_TRUE(WaitEqual(TablePath("events"), kEventsSelect, db_)) << "round " << round;
    Status stopped = sync.Stop();
    ASSERT_TRUE(stopped.ok()) << stopped.ToString();
    // Changes made while the sync is down arrive after the restart.
    Sql("INSERT INTO events SELECT g, 'down" + std::to_string(round) + "' FROM generate_series(1, 50) g", db_);
  }
  SyncThread sync(Options({{"public", "events"}}));
  ASSERT_TRUE(WaitEqual(TablePath("events"), kEventsSelect, db_));
  EXPECT_EQ(LakeRows(TablePath("events")).size(), 500u + 3 * 250u);
  ASSERT_TRUE(sync.Stop().ok());
}

// A table without a primary key becomes a bucket-unaware append table, one small file per commit:
// the sync merges them beside the writes (COMPACT snapshots), as Flink's sink does, so the live files
// stay few however many commits it makes, and the rows stay exactly PostgreSQL's.
TEST_F(PostgresSyncTest, AppendTableSmallFilesAreMergedBesideTheWrites) {
  Sql("CREATE TABLE events (id bigint NOT NULL, payload text)", db_);
  Sql("INSERT INTO events SELECT g, 'copy' FROM generate_series(1, 100) g", db_);
  PostgresSyncOptions options = Options({{"public", "events"}});
  options.commit_interval = std::chrono::milliseconds(20);
  SyncThread sync(options);
  ASSERT_TRUE(WaitEqual(TablePath("events"), kEventsSelect, db_)) << StopReason(sync);
  for (int commit = 0; commit < 24; ++commit) {
    Sql("INSERT INTO events SELECT g, 'c" + std::to_string(commit) + "' FROM generate_series(1, 10) g", db_);
    ASSERT_TRUE(WaitEqual(TablePath("events"), kEventsSelect, db_)) << "commit " << commit << StopReason(sync);
  }
  ASSERT_TRUE(sync.Stop().ok());
  EXPECT_EQ(LakeRows(TablePath("events")).size(), 100u + 24 * 10u);
  SnapshotManager snapshots(FileSystem::Local(), TablePath("events"));
  int appends = 0, compacts = 0;
  for (int64_t id = 1; id <= snapshots.LatestId().value().value_or(0); ++id) {
    CommitKind kind = snapshots.Get(id).value().commit_kind;
    appends += kind == CommitKind::kAppend;
    compacts += kind == CommitKind::kCompact;
  }
  EXPECT_GE(appends, 25);
  EXPECT_GE(compacts, 4) << appends << " APPEND snapshots";
  auto live = testing::LiveEntries(TablePath("events"));
  ASSERT_TRUE(live.ok()) << live.status().ToString();
  EXPECT_LE(live->size(), 12u) << "live files after " << appends << " APPEND snapshots";
}

TEST_F(PostgresSyncTest, TableAddedOnRestartIsCopiedAtItsOwnPositionAndJoinsTheStream) {
  Sql("CREATE TABLE events (id bigint NOT NULL, payload text)", db_);
  Sql("CREATE TABLE orders (id bigint PRIMARY KEY, amount numeric(10,2) NOT NULL, note text)", db_);
  Sql("INSERT INTO events SELECT g, 'e' FROM generate_series(1, 100) g", db_);
  Sql("INSERT INTO orders SELECT g, g, 'o' FROM generate_series(1, 100) g", db_);
  {
    SyncThread sync(Options({{"public", "events"}}));
    ASSERT_TRUE(WaitEqual(TablePath("events"), kEventsSelect, db_));
    ASSERT_TRUE(sync.Stop().ok());
  }
  // While the sync is down, both tables change; then it restarts with orders added.
  Sql("INSERT INTO events SELECT g, 'later' FROM generate_series(1, 10) g", db_);
  Sql("UPDATE orders SET note = 'changed' WHERE id <= 10", db_);
  SyncThread sync(Options({{"public", "events"}, {"public", "orders"}}));
  ASSERT_TRUE(WaitEqual(TablePath("orders"), kOrdersSelect, db_));
  ASSERT_TRUE(WaitEqual(TablePath("events"), kEventsSelect, db_));
  Sql("INSERT INTO orders VALUES (1000, 1, 'streamed'); INSERT INTO events VALUES (1000, 'streamed')", db_);
  ASSERT_TRUE(WaitEqual(TablePath("orders"), kOrdersSelect, db_));
  ASSERT_TRUE(WaitEqual(TablePath("events"), kEventsSelect, db_));
  ASSERT_TRUE(sync.Stop().ok());
}

TEST_F(PostgresSyncTest, TruncateEmptiesTheTablesInStreamOrder) {
  Sql("CREATE TABLE orders (id bigint PRIMARY KEY, amount numeric(10,2) NOT NULL, note text)", db_);
  Sql("CREATE TABLE events (id bigint NOT NULL, payload text)", db_);
  Sql("INSERT INTO orders SELECT g, g, 'o' FROM generate_series(1, 300) g", db_);
  Sql("INSERT INTO events SELECT g, 'e' FROM generate_series(1, 300) g", db_);
  PostgresSyncOptions options = Options({{"public", "orders"}, {"public", "events"}});
  options.table_conf = {{"bucket", "2"}, {"bucket-key", "id"}};
  options.commit_interval = std::chrono::milliseconds(2000);  // the changes below share one commit
  SyncThread sync(options);
  ASSERT_TRUE(WaitEqual(TablePath("orders"), kOrdersSelect, db_));
  ASSERT_TRUE(WaitEqual(TablePath("events"), kEventsSelect, db_));
  Sql("INSERT INTO orders VALUES (1000, 1, 'before'); INSERT INTO events VALUES (1000, 'before')", db_);
  Sql("BEGIN; INSERT INTO orders VALUES (1001, 1, 'same txn'); TRUNCATE orders, events; "
      "INSERT INTO orders VALUES (7, 7, 'after'); INSERT INTO events VALUES (7, 'after'); COMMIT",
      db_);
  Sql("INSERT INTO orders VALUES (8, 8, 'later'); UPDATE orders SET note = 'again' WHERE id = 7", db_);
  ASSERT_TRUE(WaitEqual(TablePath("orders"), kOrdersSelect, db_));
  ASSERT_TRUE(WaitEqual(TablePath("events"), kEventsSelect, db_));
  EXPECT_EQ(LakeRows(TablePath("orders")), (std::vector<std::string>{"7|7.00|again", "8|8.00|later"}));
  ASSERT_TRUE(sync.Stop().ok());
}

// An OVERWRITE snapshot carries no changelog (as Java's): the TRUNCATE is committed at its transaction's
// end, so an insert of the next transaction, within the same commit interval, reaches the changelog of
// an APPEND snapshot after it instead of vanishing into the overwrite.
TEST_F(PostgresSyncTest, ChangesAfterATruncateKeepTheirChangelog) {
  Sql("CREATE TABLE orders (id bigint PRIMARY KEY, amount numeric(10,2) NOT NULL, note text)", db_);
  Sql("INSERT INTO orders SELECT g, g, 'o' FROM generate_series(1, 100) g", db_);
  PostgresSyncOptions options = Options({{"public", "orders"}});
  options.table_conf = {{"bucket", "2"}, {"changelog-producer", "input"}};
  options.commit_interval = std::chrono::milliseconds(3000);  // both transactions within one interval
  SyncThread sync(options);
  ASSERT_TRUE(WaitEqual(TablePath("orders"), kOrdersSelect, db_));
  Sql("TRUNCATE orders", db_);
  Sql("INSERT INTO orders VALUES (9, 9, 'after')", db_);
  ASSERT_TRUE(WaitEqual(TablePath("orders"), kOrdersSelect, db_)) << StopReason(sync);
  EXPECT_EQ(LakeRows(TablePath("orders")), (std::vector<std::string>{"9|9.00|after"}));
  ASSERT_TRUE(sync.Stop().ok());
  SnapshotManager snapshots(FileSystem::Local(), TablePath("orders"));
  int64_t overwrite = 0, changelog_after = 0;
  for (int64_t id = 1; id <= snapshots.LatestId().value().value_or(0); ++id) {
    auto snapshot = snapshots.Get(id);
    ASSERT_TRUE(snapshot.ok()) << snapshot.status().ToString();
    if (snapshot->commit_kind == CommitKind::kOverwrite) {
      overwrite = id;
      EXPECT_EQ(snapshot->total_record_count.value_or(-1), 0) << "the TRUNCATE's snapshot holds no row";
    } else if (overwrite > 0 && snapshot->commit_kind == CommitKind::kAppend) {
      changelog_after += snapshot->changelog_record_count.value_or(0);
    }
  }
  EXPECT_GT(overwrite, 0) << "the TRUNCATE is an OVERWRITE snapshot";
  EXPECT_EQ(changelog_after, 1) << "the insert after the TRUNCATE is in the changelog";
}

// A primary-key table in dynamic bucket mode (bucket = -1, the default): its TRUNCATE is an OVERWRITE
// snapshot too, written by a writer whose HASH index starts empty.
TEST_F(PostgresSyncTest, TruncateOfADynamicBucketTableOverwritesIt) {
  Sql("CREATE TABLE orders (id bigint PRIMARY KEY, amount numeric(10,2) NOT NULL, note text)", db_);
  Sql("INSERT INTO orders SELECT g, g, 'o' FROM generate_series(1, 500) g", db_);
  SyncThread sync(Options({{"public", "orders"}}));
  ASSERT_TRUE(WaitEqual(TablePath("orders"), kOrdersSelect, db_));
  Sql("INSERT INTO orders VALUES (1000, 1, 'before')", db_);
  Sql("BEGIN; TRUNCATE orders; INSERT INTO orders VALUES (1, 7, 'after'), (2000, 2, 'new'); COMMIT", db_);
  ASSERT_TRUE(WaitEqual(TablePath("orders"), kOrdersSelect, db_)) << StopReason(sync);
  ASSERT_TRUE(WaitEqual(TablePath("orders"), kOrdersSelect, db_));
  EXPECT_EQ(LakeRows(TablePath("orders")), (std::vector<std::string>{"1|7.00|after", "2000|2.00|new"}));
  ASSERT_TRUE(sync.Stop().ok());
  SnapshotManager snapshots(FileSystem::Local(), TablePath("orders"));
  bool overwritten = false;
  for (int64_t id = 1; id <= snapshots.LatestId().value().value_or(0); ++id) {
    auto snapshot = snapshots.Get(id);
    if (snapshot.ok() && snapshot->commit_kind == CommitKind::kOverwrite) overwritten = true;
  }
  EXPECT_TRUE(overwritten) << "the TRUNCATE is an OVERWRITE snapshot";
  // Later keys land in the buckets a fresh HASH index gives them, each key once.
  Sql("INSERT INTO orders SELECT g, g, 'x' FROM generate_series(3000, 3200) g; UPDATE orders SET note = 'y' WHERE id = 1",
      db_);
  SyncThread again(Options({{"public", "orders"}}));
  ASSERT_TRUE(WaitEqual(TablePath("orders"), kOrdersSelect, db_));
  ASSERT_TRUE(again.Stop().ok());
}

// The field report's own layout: PRIMARY KEY (order_id), PARTITIONED BY (dt) with dt computed from
// update_time, so an UPDATE moves a row to another day: Paimon's cross-partition update mode (bucket
// -1, a key index). Deletes send the key only (REPLICA IDENTITY DEFAULT). The lake never holds two rows
// for one key: across moves, restarts (the index is rebuilt from the lake) and a TRUNCATE.
TEST_F(PostgresSyncTest, CrossPartitionUpdatesMoveRowsBetweenDays) {
  Sql("CREATE TABLE orders (order_id bigint PRIMARY KEY, status text NOT NULL, update_time timestamp(3))", db_);
  Sql("INSERT INTO orders SELECT g, 'created', timestamp '2026-11-28 12:00:00' + (g % 3) * interval '1 day' "
      "FROM generate_series(1, 600) g",
      db_);
  PostgresSyncOptions options = Options({{"public", "orders"}});
  options.computed_columns = {ScopedValue::Parse("dt=date_format(update_time, yyyy-MM-dd)").value()};
  options.partition_keys = {ScopedValue::Parse("dt").value()};
  const std::string select =
      "SELECT concat_ws('|', order_id::text, status, coalesce(to_char(update_time, 'YYYY-MM-DD HH24:MI:SS') || "
      "'.000', '\\N'), coalesce(to_char(update_time, 'YYYY-MM-DD'), '\\N')) FROM orders";
  const std::string path = TablePath("orders");
  {
    SyncThread sync(options);
    ASSERT_TRUE(WaitEqual(path, select, db_)) << StopReason(sync);
    // Moves: one day later, twice in one transaction, back again; a key-only delete; a new row.
    Sql("UPDATE orders SET status = 'paid', update_time = update_time + interval '1 day' WHERE order_id <= 100", db_);
    Sql("BEGIN; UPDATE orders SET update_time = timestamp '2026-12-05 08:00:00' WHERE order_id BETWEEN 101 AND 150; "
        "UPDATE orders SET update_time = timestamp '2026-12-06 08:00:00', status = 'moved twice' WHERE order_id "
        "BETWEEN 101 AND 120; COMMIT",
        db_);
    Sql("DELETE FROM orders WHERE order_id BETWEEN 140 AND 160; INSERT INTO orders VALUES (5000, 'new', NULL)", db_);
    Sql("UPDATE orders SET update_time = timestamp '2026-11-28 01:00:00' WHERE order_id BETWEEN 1 AND 10", db_);
    ASSERT_TRUE(WaitEqual(path, select, db_)) << StopReason(sync);
    ASSERT_TRUE(sync.Stop().ok());
  }
  auto table = Table::Open(FileSystem::Local(), path, "shop.orders");
  ASSERT_TRUE(table.ok());
  EXPECT_EQ((*table)->latest_schema().primary_keys, (std::vector<std::string>{"order_id"}));
  EXPECT_EQ((*table)->latest_schema().partition_keys, (std::vector<std::string>{"dt"}));
  EXPECT_FALSE(FileSystem::Local()->Exists(path + "/index").value()) << "no HASH index in this mode";
  EXPECT_TRUE(FileSystem::Local()->Exists(path + "/dt=2026-12-06").value());
  // While stopped: more moves. The restarted sync rebuilds its key index from the lake.
  Sql("UPDATE orders SET update_time = timestamp '2026-12-24 18:00:00', status = 'xmas' WHERE order_id % 7 = 0", db_);
  Sql("DELETE FROM orders WHERE order_id BETWEEN 30 AND 35; UPDATE orders SET update_time = NULL WHERE order_id = 40",
      db_);
  {
    SyncThread sync(options);
    ASSERT_TRUE(WaitEqual(path, select, db_)) << StopReason(sync);
    // A TRUNCATE, then rows whose keys the old table held in other partitions.
    Sql("BEGIN; TRUNCATE orders; INSERT INTO orders VALUES (7, 'again', '2026-11-30 00:00:00'), (8, 'again', NULL); "
        "COMMIT; UPDATE orders SET update_time = '2026-12-01 00:00:00' WHERE order_id = 7",
        db_);
    ASSERT_TRUE(WaitEqual(path, select, db_)) << StopReason(sync);
    ASSERT_TRUE(sync.Stop().ok());
  }
  std::vector<std::string> rows = LakeRows(path);
  EXPECT_EQ(rows, (std::vector<std::string>{"7|again|2026-12-01 00:00:00.000|2026-12-01", "8|again|\\N|\\N"}));
}

// --into: shards merged into one lake table. Their keys repeat across shards (each numbers from 1), so
// table_name is a metadata column and part of the key. A shard created later joins at a position of
// its own while the others keep theirs; a TRUNCATE of one shard deletes only its rows.
TEST_F(PostgresSyncTest, IntoMergesShardsIntoOneTable) {
  for (const char* t : {"orders_1", "orders_2"}) {
    Sql(std::string("CREATE TABLE ") + t + " (id bigint PRIMARY KEY, note text)", db_);
    Sql(std::string("INSERT INTO ") + t + " SELECT g, '" + t + "' FROM generate_series(1, 100) g", db_);
  }
  Sql("ALTER TABLE orders_2 ADD COLUMN extra int", db_);
  PostgresSyncOptions options = Options({});
  options.selection = TableSelection::Parse("public.orders_\\d+", "", "", "", "all_orders").value();
  options.metadata_columns = {MetadataColumn::kTableName};
  const std::string path = TablePath("all_orders");
  auto select = [](const std::vector<std::string>& shards) {
    std::vector<std::string> parts;
    for (const std::string& t : shards) {
      // The lake's columns: the first shard's, the metadata column, then what other shards add.
      parts.push_back("SELECT concat_ws('|', id::text, note, '" + t + "', " +
                      std::string(t == "orders_2" ? "coalesce(extra::text, '\\N')" : "'\\N'") + ") FROM " + t);
    }
    return Join(parts, " UNION ALL ");
  };
  {
    SyncThread sync(options);
    ASSERT_TRUE(WaitEqual(path, select({"orders_1", "orders_2"}), db_)) << StopReason(sync);
    Sql("UPDATE orders_1 SET note = 'one' WHERE id = 5; UPDATE orders_2 SET extra = 7 WHERE id = 5; "
        "DELETE FROM orders_2 WHERE id = 6",
        db_);
    Sql("BEGIN; INSERT INTO orders_1 VALUES (500, 'before'); TRUNCATE orders_1; INSERT INTO orders_1 VALUES (1, 'after'); "
        "COMMIT",
        db_);
    ASSERT_TRUE(WaitEqual(path, select({"orders_1", "orders_2"}), db_)) << StopReason(sync);
    Status stopped = sync.Stop();
    ASSERT_TRUE(stopped.ok()) << stopped.ToString();
  }
  auto table = Table::Open(FileSystem::Local(), path, "shop.all_orders");
  ASSERT_TRUE(table.ok());
  EXPECT_EQ((*table)->latest_schema().primary_keys, (std::vector<std::string>{"id", "table_name"}));
  // A new shard, created while the sync is stopped, joins at its own position; the others go on.
  Sql("CREATE TABLE orders_3 (id bigint PRIMARY KEY, note text)", db_);
  Sql("INSERT INTO orders_3 SELECT g, 'orders_3' FROM generate_series(1, 30) g", db_);
  Sql("UPDATE orders_2 SET note = 'while stopped' WHERE id = 9", db_);
  {
    SyncThread sync(options);
    ASSERT_TRUE(WaitEqual(path, select({"orders_1", "orders_2", "orders_3"}), db_)) << StopReason(sync);
    Sql("UPDATE orders_3 SET note = 'streamed' WHERE id = 1; UPDATE orders_1 SET note = 'also' WHERE id = 1", db_);
    ASSERT_TRUE(WaitEqual(path, select({"orders_1", "orders_2", "orders_3"}), db_)) << StopReason(sync);
    Status stopped = sync.Stop();
    ASSERT_TRUE(stopped.ok()) << stopped.ToString();
  }
  // And once more after a restart: nothing is copied or applied twice.
  Sql("DELETE FROM orders_3 WHERE id = 2", db_);
  SyncThread sync(options);
  ASSERT_TRUE(WaitEqual(path, select({"orders_1", "orders_2", "orders_3"}), db_)) << StopReason(sync);
  EXPECT_EQ(sync.sync().stats().copied_rows, 0);
  Status stopped = sync.Stop();
  ASSERT_TRUE(stopped.ok()) << stopped.ToString();
}

// Tables created while the sync runs join without a restart: a table matching the pattern gets its
// own lake table, copied at its own position, then streamed; a writer keeps changing it (and an old
// table) throughout, so changes land before, during and after its copy. With --into, a new shard joins
// the shared target the same way.
TEST_F(PostgresSyncTest, TablesCreatedWhileRunningJoinTheSync) {
  Sql("CREATE TABLE live_1 (id bigint PRIMARY KEY, note text)", db_);
  Sql("INSERT INTO live_1 SELECT g, 'one' FROM generate_series(1, 200) g", db_);
  PostgresSyncOptions options = Options({});
  options.selection = TableSelection::Parse("public.live_\\d+", "", "", "", "").value();
  options.table_discovery_interval = std::chrono::milliseconds(300);
  SyncThread sync(options);
  ASSERT_TRUE(WaitEqual(TablePath("live_1"), "SELECT concat_ws('|', id::text, note) FROM live_1", db_))
      << StopReason(sync);
  Sql("CREATE TABLE live_2 (id bigint PRIMARY KEY, note text)", db_);
  Sql("INSERT INTO live_2 SELECT g, 'two' FROM generate_series(1, 5000) g", db_);
  std::atomic<bool> writing{true};
  std::thread writer([&] {
    for (int i = 0; writing.load() && i < 400; ++i) {
      Sql(fmt::format("BEGIN; UPDATE live_2 SET note = 'w{0}' WHERE id = {1}; INSERT INTO live_2 VALUES ({2}, 'n{0}'); "
                      "DELETE FROM live_2 WHERE id = {3}; UPDATE live_1 SET note = 'w{0}' WHERE id = {4}; COMMIT",
                      i, 1 + i * 7 % 5000, 10000 + i, 2 + i * 11 % 4000, 1 + i % 200),
          db_);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  });
  // The new table is found, copied and streamed while the writer runs.
  bool joined = false;
  for (int i = 0; i < 200 && !joined; ++i) {
    joined = FileSystem::Local()->Exists(TablePath("live_2") + "/snapshot").value();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  writing = false;
  writer.join();
  ASSERT_TRUE(joined) << "live_2 never reached the lake; " << StopReason(sync);
  ASSERT_TRUE(WaitEqual(TablePath("live_2"), "SELECT concat_ws('|', id::text, note) FROM live_2", db_))
      << StopReason(sync);
  ASSERT_TRUE(WaitEqual(TablePath("live_1"), "SELECT concat_ws('|', id::text, note) FROM live_1", db_));
  // A table that does not match is left alone; one created later still joins.
  Sql("CREATE TABLE lively (id bigint PRIMARY KEY); CREATE TABLE live_3 (id bigint PRIMARY KEY, note text); "
      "INSERT INTO live_3 VALUES (1, 'three')",
      db_);
  ASSERT_TRUE(WaitEqual(TablePath("live_3"), "SELECT concat_ws('|', id::text, note) FROM live_3", db_))
      << StopReason(sync);
  Sql("UPDATE live_3 SET note = 'streamed' WHERE id = 1", db_);
  ASSERT_TRUE(WaitEqual(TablePath("live_3"), "SELECT concat_ws('|', id::text, note) FROM live_3", db_));
  Status stopped = sync.Stop();
  ASSERT_TRUE(stopped.ok()) << stopped.ToString();
  EXPECT_FALSE(FileSystem::Local()->Exists(TablePath("lively")).value());
  // After a restart nothing is copied again.
  SyncThread again(options);
  Sql("DELETE FROM live_2 WHERE id = 3", db_);
  ASSERT_TRUE(WaitEqual(TablePath("live_2"), "SELECT concat_ws('|', id::text, note) FROM live_2", db_))
      << StopReason(again);
  EXPECT_EQ(again.sync().stats().copied_rows, 0);
  ASSERT_TRUE(again.Stop().ok());
}

TEST_F(PostgresSyncTest, AShardCreatedWhileRunningJoinsItsIntoTarget) {
  Sql("CREATE TABLE shard_1 (id bigint PRIMARY KEY, note text); INSERT INTO shard_1 VALUES (1, 'a'), (2, 'b')", db_);
  PostgresSyncOptions options = Options({});
  options.selection = TableSelection::Parse("public.shard_\\d+", "", "", "", "shards").value();
  options.metadata_columns = {MetadataColumn::kTableName};
  options.table_discovery_interval = std::chrono::milliseconds(300);
  const std::string path = TablePath("shards");
  auto select = [](int shards) {
    std::vector<std::string> parts;
    for (int i = 1; i <= shards; ++i) {
      parts.push_back(fmt::format("SELECT concat_ws('|', id::text, note, 'shard_{0}') FROM shard_{0}", i));
    }
    return Join(parts, " UNION ALL ");
  };
  SyncThread sync(options);
  ASSERT_TRUE(WaitEqual(path, select(1), db_)) << StopReason(sync);
  Sql("CREATE TABLE shard_2 (id bigint PRIMARY KEY, note text); INSERT INTO shard_2 VALUES (1, 'c'), (5, 'd')", db_);
  ASSERT_TRUE(WaitEqual(path, select(2), db_)) << StopReason(sync);
  Sql("UPDATE shard_2 SET note = 'e' WHERE id = 1; UPDATE shard_1 SET note = 'f' WHERE id = 1", db_);
  ASSERT_TRUE(WaitEqual(path, select(2), db_)) << StopReason(sync);
  ASSERT_TRUE(sync.Stop().ok());
}

// SyncProgress: what the progress display, metrics and status page read while the sync runs.
TEST_F(PostgresSyncTest, ProgressTellsWhatEachTableDid) {
  Sql("CREATE TABLE orders (id bigint PRIMARY KEY, amount numeric(10,2) NOT NULL, note text)", db_);
  Sql("INSERT INTO orders SELECT g, g, 'o' FROM generate_series(1, 3000) g; ANALYZE orders", db_);
  Sql("CREATE TABLE events (id bigint NOT NULL, payload text)", db_);
  PostgresSyncOptions options = Options({{"public", "orders"}, {"public", "events"}});
  options.progress = std::make_shared<SyncProgress>();
  SyncThread sync(options);
  ASSERT_TRUE(WaitEqual(TablePath("orders"), kOrdersSelect, db_)) << StopReason(sync);
  Sql("UPDATE orders SET note = 'u' WHERE id <= 10; INSERT INTO events VALUES (1, 'e'), (2, 'f')", db_);
  ASSERT_TRUE(WaitEqual(TablePath("orders"), kOrdersSelect, db_)) << StopReason(sync);
  ASSERT_TRUE(WaitEqual(TablePath("events"), kEventsSelect, db_)) << StopReason(sync);
  SyncProgressSnapshot p = options.progress->Snapshot();
  EXPECT_EQ(p.slot, options.slot);
  ASSERT_EQ(p.tables.size(), 2u);
  const TableProgress& orders = p.tables[0].source == "public.orders" ? p.tables[0] : p.tables[1];
  const TableProgress& events = p.tables[0].source == "public.orders" ? p.tables[1] : p.tables[0];
  EXPECT_EQ(orders.target, "shop.orders");
  EXPECT_EQ(orders.phase, TablePhase::kStreaming);
  EXPECT_EQ(orders.rows_copied, 3000);
  EXPECT_EQ(orders.rows_estimate, 3000) << "ANALYZE counted the rows";
  EXPECT_EQ(orders.changes_streamed, 10);
  EXPECT_EQ(events.rows_copied, 0);
  EXPECT_EQ(events.changes_streamed, 2);
  EXPECT_GE(orders.commits, 2);  // the copy's and the update's
  EXPECT_NE(orders.committed_lsn, kInvalidLsn);
  EXPECT_GT(orders.last_commit_unix_ms, 0);
  EXPECT_EQ(p.streamed_changes, 12);
  EXPECT_GE(p.transactions, 1);
  EXPECT_NE(p.received_lsn, kInvalidLsn);
  EXPECT_TRUE(p.last_error.empty());
  ASSERT_TRUE(sync.Stop().ok());
  // What the lake holds, per the sink, is what the progress said was committed.
  auto position = ReadSinkPosition(FileSystem::Local(), TablePath("orders"), PostgresSync::CommitUser(options.slot));
  ASSERT_TRUE(position.ok());
  EXPECT_GE(position->commit_lsn, orders.committed_lsn);
}

// `tide sync resync`: one table is copied again at a position of its own (an OVERWRITE replacing its
// lake rows, here after rows were lost from the lake), and the sync then continues from there for it
// while the other table keeps its own position.
TEST_F(PostgresSyncTest, ResyncCopiesOneTableAgainAndTheSyncContinues) {
  Sql("CREATE TABLE orders (id bigint PRIMARY KEY, amount numeric(10,2) NOT NULL, note text)", db_);
  Sql("CREATE TABLE events (id bigint NOT NULL, payload text)", db_);
  Sql("INSERT INTO orders SELECT g, g, 'o' FROM generate_series(1, 400) g", db_);
  Sql("INSERT INTO events SELECT g, 'e' FROM generate_series(1, 100) g", db_);
  PostgresSyncOptions options = Options({{"public", "orders"}, {"public", "events"}});
  {
    SyncThread sync(options);
    ASSERT_TRUE(WaitEqual(TablePath("orders"), kOrdersSelect, db_)) << StopReason(sync);
    ASSERT_TRUE(WaitEqual(TablePath("events"), kEventsSelect, db_));
    {
      Status stopped = sync.Stop();
      ASSERT_TRUE(stopped.ok()) << stopped.ToString();
    }
  }
  // The lake loses rows behind the sync's back (another writer deletes them).
  ASSERT_NO_FATAL_FAILURE(DeleteOrdersBehindTheSync(50));
  EXPECT_EQ(LakeRows(TablePath("orders")).size(), 350u);
  Sql("UPDATE orders SET note = 'while stopped' WHERE id > 390; INSERT INTO events VALUES (1000, 'while stopped')",
      db_);
  std::vector<std::string> common = {"--warehouse", warehouse_, "--database", "shop", "--postgres", options.conninfo,
                                     "--slot", options.slot, "--publication", options.publication};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"sync", "resync"};
    args.insert(args.end(), common.begin(), common.end());
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  auto [code, err] = RunTide(with({"--table", "shop.orders"}), dir_.path());
  ASSERT_EQ(code, 0) << err;
  EXPECT_NE(err.find("copied again"), std::string::npos) << err;
  EXPECT_EQ(LakeRows(TablePath("orders")), PgRows(kOrdersSelect, db_)) << "the copy replaced the lake's rows";
  // A table the sync did not write, and one that does not exist: clear errors.
  auto [missing_code, missing_err] = RunTide(with({"--table", "nope"}), dir_.path());
  EXPECT_EQ(missing_code, 1);
  EXPECT_NE(missing_err.find("does not exist"), std::string::npos) << missing_err;
  // The sync continues: orders from the resync's position, events from its own (the row inserted while
  // stopped arrives from the stream), and new changes to both.
  Sql("UPDATE orders SET note = 'after resync' WHERE id <= 10; INSERT INTO events VALUES (1001, 'after')", db_);
  SyncThread sync(options);
  ASSERT_TRUE(WaitEqual(TablePath("orders"), kOrdersSelect, db_)) << StopReason(sync);
  ASSERT_TRUE(WaitEqual(TablePath("events"), kEventsSelect, db_));
  {
      Status stopped = sync.Stop();
      ASSERT_TRUE(stopped.ok()) << stopped.ToString();
    }
  EXPECT_GE(CountOverwrites("orders"), 1);
}

// `tide sync resync` beside a running sync: the request goes through the WAL, the sync copies the table
// again at a position of its own while a writer goes on, then streams on; the request is done once,
// not again after a restart.
TEST_F(PostgresSyncTest, ResyncWhileTheSyncRunsCopiesTheTableOnceAndStreamsOn) {
  Sql("CREATE TABLE orders (id bigint PRIMARY KEY, amount numeric(10,2) NOT NULL, note text)", db_);
  Sql("INSERT INTO orders SELECT g, g, 'o' FROM generate_series(1, 400) g", db_);
  PostgresSyncOptions options = Options({{"public", "orders"}});
  auto sync = std::make_unique<SyncThread>(options);
  ASSERT_TRUE(WaitEqual(TablePath("orders"), kOrdersSelect, db_)) << StopReason(*sync);
  ASSERT_NO_FATAL_FAILURE(DeleteOrdersBehindTheSync(50));
  EXPECT_EQ(LakeRows(TablePath("orders")).size(), 350u);
  std::atomic<bool> writing{true};
  std::thread writer([&] {
    for (int i = 0; writing.load(); ++i) {
      Status st = Server().Exec(fmt::format("UPDATE orders SET amount = amount + 1, note = 'w{}' WHERE id = {}; "
                                            "INSERT INTO orders VALUES ({}, 1, 'new')",
                                            i, 1 + i % 400, 1000 + i),
                                db_);
      if (!st.ok()) ADD_FAILURE() << st.ToString();
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  });
  auto [code, err] = RunTide({"sync", "resync", "--warehouse", warehouse_, "--database", "shop", "--postgres",
                              options.conninfo, "--slot", options.slot, "--publication", options.publication,
                              "--table", "shop.orders"},
                             dir_.path());
  writing = false;
  writer.join();
  ASSERT_EQ(code, 0) << err;
  EXPECT_NE(err.find("copied again into shop.orders by the running sync"), std::string::npos) << err;
  ASSERT_TRUE(WaitEqual(TablePath("orders"), kOrdersSelect, db_)) << StopReason(*sync);
  EXPECT_EQ(CountOverwrites("orders"), 1);
  ASSERT_TRUE(sync->Stop().ok());
  sync.reset();
  // After a restart the stream may replay the request: the table holds it, so it is not copied again.
  sync = std::make_unique<SyncThread>(options);
  Sql("UPDATE orders SET note = 'after restart' WHERE id <= 20", db_);
  ASSERT_TRUE(WaitEqual(TablePath("orders"), kOrdersSelect, db_)) << StopReason(*sync);
  ASSERT_TRUE(sync->Stop().ok());
  EXPECT_EQ(CountOverwrites("orders"), 1);
}

// A restarted sync rebuilds a cross-partition table's key index from the lake. It does so before the
// stream starts: were it built at the first change, the stream would say nothing to PostgreSQL
// meanwhile, and a walsender whose wal_sender_timeout passes ends the connection. Here the index of a
// table of 1500 partitions takes longer than the timeout (1 s, set for the sync's sessions); the
// restarted sync streams on without losing its connection.
TEST_F(PostgresSyncTest, KeyIndexBootstrapDoesNotStallTheStreamPastTheSenderTimeout) {
  Sql("CREATE TABLE orders (order_id bigint PRIMARY KEY, status text NOT NULL, update_time timestamp(3))", db_);
  Sql("INSERT INTO orders SELECT g, 'created', timestamp '2020-01-01 12:00:00' + (g % 1500) * interval '1 day' "
      "FROM generate_series(1, 6000) g",
      db_);
  PostgresSyncOptions options = Options({{"public", "orders"}});
  options.computed_columns = {ScopedValue::Parse("dt=date_format(update_time, yyyy-MM-dd)").value()};
  options.partition_keys = {ScopedValue::Parse("dt").value()};
  const std::string select =
      "SELECT concat_ws('|', order_id::text, status, coalesce(to_char(update_time, 'YYYY-MM-DD HH24:MI:SS') || "
      "'.000', '\\N'), coalesce(to_char(update_time, 'YYYY-MM-DD'), '\\N')) FROM orders";
  const std::string path = TablePath("orders");
  {
    SyncThread sync(options);
    ASSERT_TRUE(WaitEqual(path, select, db_, 120)) << StopReason(sync);
    ASSERT_TRUE(sync.Stop().ok());
  }
  options.conninfo += " options='-c wal_sender_timeout=1000'";
  options.progress = std::make_shared<SyncProgress>();
  SyncThread sync(options);
  for (int i = 0; i < 3; ++i) {
    Sql("UPDATE orders SET status = 'moved " + std::to_string(i) + "', update_time = update_time + interval '3 days' "
        "WHERE order_id = " + std::to_string(10 + i),
        db_);
    ASSERT_TRUE(WaitEqual(path, select, db_, 60)) << StopReason(sync);
  }
  EXPECT_EQ(options.progress->Snapshot().reconnects, 0) << "the walsender ended the connection";
  ASSERT_TRUE(sync.Stop().ok());
}

// A copy while the sync streams (here: tide sync resync's request) needs a temporary replication slot
// on a connection of its own. With every slot taken, the sync stops with an error naming the table,
// the setting and how to make room (it would fail so at every start until then), `tide doctor` warns
// of it beforehand, and once there is room the restarted sync makes the copy.
TEST_F(PostgresSyncTest, CopyWithoutRoomForItsTemporarySlotStopsSayingHowToMakeRoom) {
  testing::PgServer::Options server_options;
  server_options.config = {"max_replication_slots = 2", "max_wal_senders = 2"};
  auto server = testing::PgServer::Start(server_options);
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  testing::PgServer& pg = **server;
  ASSERT_TRUE(pg.Exec("CREATE TABLE orders (id bigint PRIMARY KEY, amount numeric(10,2) NOT NULL, note text)").ok());
  ASSERT_TRUE(pg.Exec("INSERT INTO orders SELECT g, g, 'o' FROM generate_series(1, 100) g").ok());
  PostgresSyncOptions options = Options({{"public", "orders"}});
  options.conninfo = pg.conninfo();
  auto wait_rows = [&](size_t n, SyncThread& sync) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (LakeRows(TablePath("orders")).size() != n && std::chrono::steady_clock::now() < deadline && !sync.done()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return LakeRows(TablePath("orders")).size() == n;
  };
  {
    SyncThread sync(options);
    ASSERT_TRUE(wait_rows(100, sync)) << StopReason(sync);
    // Another client takes the last slot.
    ASSERT_TRUE(pg.Exec("SELECT pg_create_logical_replication_slot('squatter', 'pgoutput')").ok());
    DoctorOptions doctor;
    doctor.conninfo = options.conninfo;
    doctor.tables = options.tables;
    doctor.slot = options.slot;
    auto report = RunDoctor(doctor);
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    const std::string checks = report->Format();
    EXPECT_NE(checks.find("not for the temporary slot that copies a table added later or asked for by tide sync "
                          "resync"),
              std::string::npos)
        << checks;
    EXPECT_NE(checks.find("max_wal_senders = 2 and 1 in use: room for the stream but not for the temporary slot's "
                          "connection"),
              std::string::npos)
        << checks;
    auto conn = PgConnection::Connect(options.conninfo, PgSessionKind::kSql);
    ASSERT_TRUE(conn.ok()) << conn.status().ToString();
    ASSERT_TRUE(SendResyncRequest(**conn, ResyncRequest{options.slot, {{"public", "orders"}}}).ok());
    ASSERT_TRUE(sync.WaitDone(30)) << "the sync should stop: it cannot make the copy";
    Status stopped = sync.Stop();
    ASSERT_FALSE(stopped.ok());
    for (const char* words : {"public.orders", "max_replication_slots", "pg_drop_replication_slot", "tide doctor",
                              "read again at the next start"}) {
      EXPECT_NE(stopped.message().find(words), std::string::npos) << words << " in: " << stopped.ToString();
    }
  }
  // Room made: the request is read again and done.
  ASSERT_TRUE(pg.Exec("SELECT pg_drop_replication_slot('squatter')").ok());
  ASSERT_TRUE(pg.Exec("UPDATE orders SET note = 'after' WHERE id = 1").ok());
  SyncThread sync(options);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (CountOverwrites("orders") < 1 && std::chrono::steady_clock::now() < deadline && !sync.done()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(CountOverwrites("orders"), 1) << StopReason(sync);
  ASSERT_TRUE(sync.Stop().ok());
}

// Many unchanged TOASTed values in one round: a transaction updates a small column of every row of a
// table whose large values PostgreSQL does not send again; every one is filled from the lake (one
// plan of the lake's files for the round), none is NULL. Prints how long the round took.
TEST_F(PostgresSyncTest, ManyUnchangedToastedValuesInOneRoundAreFilledFromTheLake) {
  Sql("CREATE TABLE docs (id bigint PRIMARY KEY, n int NOT NULL, body text)", db_);
  Sql("ALTER TABLE docs ALTER COLUMN body SET STORAGE EXTERNAL", db_);
  Sql("INSERT INTO docs SELECT g, 0, repeat(md5(g::text), 80) FROM generate_series(1, 3000) g", db_);
  const std::string select = "SELECT concat_ws('|', id::text, n::text, coalesce(body, '\\N')) FROM docs";
  const std::string path = TablePath("docs");
  PostgresSyncOptions options = Options({{"public", "docs"}});
  SyncThread sync(options);
  ASSERT_TRUE(WaitEqual(path, select, db_)) << StopReason(sync);
  // Several commits, so the lake has several files per bucket to look keys up in.
  for (int i = 0; i < 4; ++i) {
    Sql("UPDATE docs SET n = n + 1 WHERE id % 4 = " + std::to_string(i), db_);
    ASSERT_TRUE(WaitEqual(path, select, db_)) << StopReason(sync);
  }
  const auto started = std::chrono::steady_clock::now();
  Sql("UPDATE docs SET n = n + 10", db_);
  ASSERT_TRUE(WaitEqual(path, select, db_, 120)) << StopReason(sync);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::cout << "3000 unchanged TOASTed values filled from the lake in one round: " << seconds << " s" << std::endl;
  RecordProperty("toast_fill_seconds", std::to_string(seconds));
  ASSERT_TRUE(sync.Stop().ok());
}

// Unchanged TOASTed values (`u` in pgoutput) under REPLICA IDENTITY DEFAULT are filled from the row's
// current value: the lake's committed row, or a newer row of the same commit window, or the old key's
// row when the key changes; never NULL, and right across a restart.
TEST_F(PostgresSyncTest, UnchangedToastedValuesAreFilledFromTheCurrentRow) {
  Sql("CREATE TABLE docs (id bigint PRIMARY KEY, status text NOT NULL, body text)", db_);
  // EXTERNAL: stored out of line without compression, so PostgreSQL sends 'u' when it is unchanged.
  Sql("ALTER TABLE docs ALTER COLUMN body SET STORAGE EXTERNAL", db_);
  Sql("INSERT INTO docs SELECT g, 'new', repeat(md5(g::text), 100) FROM generate_series(1, 200) g", db_);
  const std::string select = "SELECT concat_ws('|', id::text, status, coalesce(body, '\\N')) FROM docs";
  const std::string path = TablePath("docs");
  PostgresSyncOptions options = Options({{"public", "docs"}});
  options.commit_interval = std::chrono::milliseconds(1500);  // several transactions share a commit
  {
    SyncThread sync(options);
    ASSERT_TRUE(WaitEqual(path, select, db_)) << StopReason(sync);
    // From the lake's committed rows.
    Sql("UPDATE docs SET status = 'seen' WHERE id <= 20", db_);
    // From rows written since the last commit: a new body, then a status change of the same row.
    Sql("UPDATE docs SET body = repeat('b', 3000) WHERE id = 21", db_);
    Sql("UPDATE docs SET status = 'after new body' WHERE id = 21", db_);
    Sql("BEGIN; INSERT INTO docs VALUES (500, 'inserted', repeat('i', 4000)); "
        "UPDATE docs SET status = 'same txn' WHERE id = 500; COMMIT",
        db_);
    // A key change: the old key's row gives the value.
    Sql("UPDATE docs SET id = 1005 WHERE id = 5", db_);
    ASSERT_TRUE(WaitEqual(path, select, db_)) << StopReason(sync);
    ASSERT_TRUE(sync.Stop().ok());
  }
  Sql("UPDATE docs SET status = 'while stopped' WHERE id IN (21, 500, 1005, 30)", db_);
  {
    SyncThread sync(options);
    ASSERT_TRUE(WaitEqual(path, select, db_)) << StopReason(sync);
    ASSERT_TRUE(sync.Stop().ok());
  }
  for (const std::string& row : LakeRows(path)) {
    EXPECT_EQ(row.find("\\N"), std::string::npos) << "a NULL body in the lake: " << row.substr(0, 40);
  }
}

// The field report's layout: tables chosen by pattern, named with a prefix, partitioned by a day
// computed from a timestamp (part of the primary key here, so rows keep their partition).
TEST_F(PostgresSyncTest, PatternsPrefixAndAComputedPartitionColumn) {
  for (const char* t : {"orders_1", "orders_2", "orders_10", "other"}) {
    Sql(std::string("CREATE TABLE ") + t + " (id bigint PRIMARY KEY, created timestamp(3) NOT NULL, note text)", db_);
    Sql(std::string("INSERT INTO ") + t +
            " SELECT g, timestamp '2026-11-29 22:00:00' + g * interval '1 hour', 'n' FROM generate_series(1, 60) g",
        db_);
  }
  // The day comes from a column outside the primary key: deletes need whole old rows to find it.
  Sql("ALTER TABLE orders_1 REPLICA IDENTITY FULL", db_);
  PostgresSyncOptions options = Options({});
  auto selection = TableSelection::Parse("public.orders_\\d+", "orders_2", "ods_", "", "");
  ASSERT_TRUE(selection.ok()) << selection.status().ToString();
  options.selection = *selection;
  options.computed_columns = {ScopedValue::Parse("dt=date_format(created, yyyy-MM-dd)").value()};
  options.partition_keys = {ScopedValue::Parse("dt").value()};
  options.primary_keys = {ScopedValue::Parse("id,dt").value()};
  SyncThread sync(options);
  const std::string select =
      "SELECT concat_ws('|', id::text, to_char(created, 'YYYY-MM-DD HH24:MI:SS') || '.000', note, "
      "to_char(created, 'YYYY-MM-DD')) FROM ";
  ASSERT_TRUE(WaitEqual(TablePath("ods_orders_1"), select + "orders_1", db_)) << StopReason(sync);
  ASSERT_TRUE(WaitEqual(TablePath("ods_orders_1"), select + "orders_1", db_));
  ASSERT_TRUE(WaitEqual(TablePath("ods_orders_10"), select + "orders_10", db_));
  Sql("INSERT INTO orders_1 VALUES (1000, '2027-01-01 00:00:00', 'new year'); DELETE FROM orders_1 WHERE id = 3; "
      "UPDATE orders_1 SET note = 'u' WHERE id = 50",
      db_);
  ASSERT_TRUE(WaitEqual(TablePath("ods_orders_1"), select + "orders_1", db_));
  ASSERT_TRUE(sync.Stop().ok());
  // Neither the excluded table nor the unmatched one is in the lake; the partitions are folders.
  EXPECT_FALSE(FileSystem::Local()->Exists(TablePath("ods_orders_2")).value());
  EXPECT_FALSE(FileSystem::Local()->Exists(TablePath("ods_other")).value());
  EXPECT_TRUE(FileSystem::Local()->Exists(TablePath("ods_orders_1") + "/dt=2027-01-01").value());
  auto table = Table::Open(FileSystem::Local(), TablePath("ods_orders_1"), "shop.ods_orders_1");
  ASSERT_TRUE(table.ok());
  EXPECT_EQ((*table)->latest_schema().partition_keys, (std::vector<std::string>{"dt"}));
  EXPECT_EQ((*table)->latest_schema().primary_keys, (std::vector<std::string>{"id", "dt"}));
}

// --metadata-column: every row says where it came from; copied rows have op_ts 0, streamed ones the
// commit time of their transaction (PostgreSQL's clock, the same machine's here).
TEST_F(PostgresSyncTest, MetadataColumnsTellWhereEachRowCameFrom) {
  Sql("CREATE TABLE orders (id bigint PRIMARY KEY, note text); INSERT INTO orders VALUES (1, 'a'), (2, 'b')", db_);
  PostgresSyncOptions options = Options({{"public", "orders"}});
  auto metadata = ParseMetadataColumns("database_name,schema_name,table_name,op_ts");
  ASSERT_TRUE(metadata.ok()) << metadata.status().ToString();
  options.metadata_columns = *metadata;
  SyncThread sync(options);
  auto read = [&]() {
    std::vector<Row> rows;
    auto table = Table::Open(FileSystem::Local(), TablePath("orders"), "shop.orders");
    if (!table.ok()) return rows;
    auto reader = (*table)->NewReader(ReadOptions{});
    EXPECT_TRUE(reader.ok()) << reader.status().ToString();
    if (!reader.ok()) return rows;
    while (true) {
      auto more = (*reader)->NextBatch(1024, &rows);
      if (!more.ok() || !*more) break;
    }
    std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a[0].as_int() < b[0].as_int(); });
    return rows;
  };
  auto wait_rows = [&](size_t n) {
    for (int i = 0; i < 300 && read().size() != n; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    return read();
  };
  ASSERT_EQ(wait_rows(2).size(), 2u) << (sync.done() ? sync.Stop().ToString() : "");
  auto now_ms = [] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
  };
  int64_t before = now_ms();
  Sql("INSERT INTO orders VALUES (3, 'c')", db_);
  int64_t after = now_ms();
  std::vector<Row> rows = wait_rows(3);
  ASSERT_TRUE(sync.Stop().ok());
  ASSERT_EQ(rows.size(), 3u);
  for (const Row& row : rows) {
    ASSERT_EQ(row.size(), 6u);
    EXPECT_EQ(row[2].as_string(), db_);
    EXPECT_EQ(row[3].as_string(), "public");
    EXPECT_EQ(row[4].as_string(), "orders");
  }
  EXPECT_EQ(std::get<TimestampValue>(rows[0][5].storage()).millis, 0);  // copied
  EXPECT_EQ(std::get<TimestampValue>(rows[1][5].storage()).millis, 0);
  int64_t op_ts = std::get<TimestampValue>(rows[2][5].storage()).millis;
  EXPECT_GE(op_ts, before - 1000);
  EXPECT_LE(op_ts, after + 1000);
  auto table = Table::Open(FileSystem::Local(), TablePath("orders"), "shop.orders");
  ASSERT_TRUE(table.ok());
  const TableSchema& schema = (*table)->latest_schema();
  EXPECT_EQ(schema.fields[5].name, "op_ts");
  EXPECT_EQ(schema.fields[5].type.ToString(), "TIMESTAMP(3) WITH LOCAL TIME ZONE NOT NULL");
  EXPECT_EQ(schema.fields[4].type.ToString(), "STRING NOT NULL");
  EXPECT_EQ(schema.fields[5].description.value_or(""), "metadata: op_ts");
}

// Schema changes in stream order: ADD COLUMN, widening types, DROP COLUMN (the lake keeps the column,
// NULL from then on); an incompatible change stops the sync naming the column.
TEST_F(PostgresSyncTest, SchemaChangesFollowTheStream) {
  Sql("CREATE TABLE items (id bigint PRIMARY KEY, qty int, code varchar(10), gone text)", db_);
  Sql("INSERT INTO items SELECT g, g, 'c' || g, 'g' FROM generate_series(1, 100) g", db_);
  SyncThread sync(Options({{"public", "items"}}));
  const std::string before = "SELECT concat_ws('|', id::text, qty::text, code, gone) FROM items";
  ASSERT_TRUE(WaitEqual(TablePath("items"), before, db_));
  // Rows of the old shape and of the new one in one commit, then more changes.
  Sql("INSERT INTO items VALUES (101, 1, 'x', 'g')", db_);
  Sql("ALTER TABLE items ADD COLUMN price numeric(10,2)", db_);
  Sql("ALTER TABLE items ALTER COLUMN qty TYPE bigint, ALTER COLUMN code TYPE varchar(20)", db_);
  Sql("INSERT INTO items VALUES (102, 5000000000, 'a-longer-code', 'g', 9.99); "
      "UPDATE items SET price = 1.50 WHERE id <= 10",
      db_);
  Sql("ALTER TABLE items DROP COLUMN gone", db_);
  Sql("INSERT INTO items VALUES (103, 3, 'after-drop', 0.01); UPDATE items SET qty = 0 WHERE id = 1", db_);
  // The lake keeps `gone`: NULL in the rows written after the drop.
  const std::string after =
      "SELECT concat_ws('|', id::text, qty::text, code, CASE WHEN id = 103 OR id = 1 THEN '\\N' ELSE 'g' END, "
      "coalesce(price::text, '\\N')) FROM items";
  ASSERT_TRUE(WaitEqual(TablePath("items"), after, db_)) << StopReason(sync);
  ASSERT_TRUE(WaitEqual(TablePath("items"), after, db_));
  auto table = Table::Open(FileSystem::Local(), TablePath("items"), "shop.items");
  ASSERT_TRUE(table.ok());
  const TableSchema& schema = (*table)->latest_schema();
  ASSERT_EQ(schema.fields.size(), 5u);
  EXPECT_EQ(schema.fields[1].type.ToString(), "BIGINT");
  EXPECT_EQ(schema.fields[2].type.ToString(), "VARCHAR(20)");
  EXPECT_EQ(schema.fields[4].name, "price");
  // Narrowing cannot be followed: the sync stops, naming the column.
  Sql("ALTER TABLE items ALTER COLUMN code TYPE varchar(5) USING left(code, 5)", db_);
  Sql("INSERT INTO items VALUES (104, 4, 'short', 1)", db_);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!sync.done() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_TRUE(sync.done());
  Status st = sync.Stop();
  EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString();
  EXPECT_NE(st.message().find("column code"), std::string::npos) << st.ToString();
}

// A transaction that changes rows and then the table's columns (ADD, type widening, RENAME in one
// description; DROP in another transaction), with more rows after: the rows before the change are
// written under the old schema, those after under the new one, and the transaction is committed
// whole, in one snapshot. No snapshot ever holds part of either transaction.
TEST_F(PostgresSyncTest, SchemaChangeAfterRowsInOneTransactionIsCommittedWhole) {
  Sql("CREATE TABLE items (id bigint PRIMARY KEY, qty int, code varchar(10), old_name text)", db_);
  Sql("INSERT INTO items SELECT g, g, 'c' || g, 'n' || g FROM generate_series(1, 50) g", db_);
  SyncThread sync(Options({{"public", "items"}}));
  ASSERT_TRUE(WaitEqual(TablePath("items"), "SELECT concat_ws('|', id, qty, code, old_name) FROM items", db_))
      << StopReason(sync);
  Sql("BEGIN; INSERT INTO items VALUES (1001, 1, 'before', 'b'); UPDATE items SET qty = 100 WHERE id = 1; "
      "ALTER TABLE items ADD COLUMN price numeric(10,2); ALTER TABLE items ALTER COLUMN qty TYPE bigint; "
      "ALTER TABLE items RENAME COLUMN old_name TO new_name; "
      "INSERT INTO items VALUES (1002, 5000000000, 'after', 'a', 9.99); UPDATE items SET price = 1.50 WHERE id = 1; "
      "UPDATE items SET new_name = 'renamed' WHERE id = 1001; DELETE FROM items WHERE id = 2; COMMIT",
      db_);
  // (The rename is told by attnum from the catalog, which must still show the table as this transaction
  // left it: the next change waits until the sync is past it.)
  ASSERT_TRUE(WaitEqual(TablePath("items"),
                        "SELECT concat_ws('|', id, qty, code, new_name, coalesce(price::text, '\\N')) FROM items", db_))
      << StopReason(sync);
  Sql("BEGIN; INSERT INTO items VALUES (1003, 3, 'pre-drop', 'p', 3.00); UPDATE items SET qty = 7 WHERE id = 3; "
      "ALTER TABLE items DROP COLUMN code; INSERT INTO items VALUES (1004, 4, 'q', 4.00); "
      "UPDATE items SET qty = 8 WHERE id = 1003; COMMIT",
      db_);
  // The lake keeps `code`: NULL in the rows written after the drop (1004, and 1003 updated after it),
  // else what the row was last written with (3 was updated before the drop).
  const std::string select =
      "SELECT concat_ws('|', id, qty, CASE WHEN id IN (1003, 1004) THEN '\\N' WHEN id = 1001 THEN 'before' "
      "WHEN id = 1002 THEN 'after' ELSE 'c' || id END, new_name, coalesce(price::text, '\\N')) FROM items";
  ASSERT_TRUE(WaitEqual(TablePath("items"), select, db_)) << StopReason(sync);
  ASSERT_TRUE(sync.Stop().ok());
  auto table = Table::Open(FileSystem::Local(), TablePath("items"), "shop.items");
  ASSERT_TRUE(table.ok());
  const TableSchema& schema = (*table)->latest_schema();
  ASSERT_EQ(schema.fields.size(), 5u);
  EXPECT_EQ(schema.fields[1].type.ToString(), "BIGINT");
  EXPECT_EQ(schema.fields[3].name, "new_name");
  EXPECT_EQ(schema.fields[3].id, 3) << "a renamed column keeps its field id";
  EXPECT_EQ(schema.fields[4].name, "price");
  EXPECT_GT(ExpectWholeInEverySnapshot("items", "id", {"1001", "1002"}), 1);
  ExpectWholeInEverySnapshot("items", "id", {"1003", "1004"});
}

// The sync stopped after the lake took the schema change of a transaction that changed rows before
// it, but before the transaction's rows were committed (the sync commits the schema first): the
// resent transaction describes the table as it was before the change at first. Its rows map to the
// lake's columns by field id, and nothing is lost or refused.
TEST_F(PostgresSyncTest, TransactionResentAfterTheLakeTookItsSchemaChangeIsApplied) {
  Sql("CREATE TABLE items (id bigint PRIMARY KEY, qty int, old_name text)", db_);
  Sql("INSERT INTO items SELECT g, g, 'n' || g FROM generate_series(1, 20) g", db_);
  PostgresSyncOptions options = Options({{"public", "items"}});
  {
    SyncThread sync(options);
    ASSERT_TRUE(WaitEqual(TablePath("items"), "SELECT concat_ws('|', id, qty, old_name) FROM items", db_))
        << StopReason(sync);
    ASSERT_TRUE(sync.Stop().ok());
  }
  Sql("BEGIN; INSERT INTO items VALUES (101, 1, 'before'); UPDATE items SET qty = 50 WHERE id = 1; "
      "ALTER TABLE items ALTER COLUMN qty TYPE bigint; ALTER TABLE items RENAME COLUMN old_name TO new_name; "
      "ALTER TABLE items ADD COLUMN price numeric(10,2); "
      "INSERT INTO items VALUES (102, 6000000000, 'after', 2.50); UPDATE items SET price = 1 WHERE id = 101; COMMIT",
      db_);
  // What the sync did before it stopped: the schema change of that transaction, not its rows.
  auto taken = CommitSchemaChanges(FileSystem::Local(), TablePath("items"), "shop.items",
                                   {SchemaChange::UpdateColumnType("qty", DataType::BigInt()),
                                    SchemaChange::RenameColumn("old_name", "new_name"),
                                    SchemaChange::AddColumn("price", DataType::Decimal(10, 2))});
  ASSERT_TRUE(taken.ok()) << taken.status().ToString();
  SyncThread sync(options);
  const std::string select = "SELECT concat_ws('|', id, qty, new_name, coalesce(price::text, '\\N')) FROM items";
  ASSERT_TRUE(WaitEqual(TablePath("items"), select, db_)) << StopReason(sync);
  ASSERT_TRUE(sync.Stop().ok());
  auto table = Table::Open(FileSystem::Local(), TablePath("items"), "shop.items");
  ASSERT_TRUE(table.ok());
  EXPECT_EQ((*table)->latest_schema().id, taken->id) << "the resent description changes nothing";
}

// --into: a transaction writes rows of one shard, then another shard gains a column and writes rows
// with it; later the first shard gains the same column. The target gains the column once, every
// shard's rows land under their own keys, and each transaction is committed whole.
TEST_F(PostgresSyncTest, IntoShardGainingAColumnInsideATransactionEvolvesTheTargetOnce) {
  for (const char* t : {"orders_1", "orders_2"}) {
    Sql(std::string("CREATE TABLE ") + t + " (id bigint PRIMARY KEY, note text)", db_);
    Sql(std::string("INSERT INTO ") + t + " SELECT g, '" + t + "' FROM generate_series(1, 50) g", db_);
  }
  PostgresSyncOptions options = Options({});
  options.selection = TableSelection::Parse("public.orders_\\d+", "", "", "", "all_orders").value();
  options.metadata_columns = {MetadataColumn::kTableName};
  const std::string path = TablePath("all_orders");
  auto select = [](bool first_has_extra) {
    return std::string("SELECT concat_ws('|', id::text, note, 'orders_1', ") +
           (first_has_extra ? "coalesce(extra::text, '\\N')" : "'\\N'") +
           ") FROM orders_1 UNION ALL SELECT concat_ws('|', id::text, note, 'orders_2', coalesce(extra::text, "
           "'\\N')) FROM orders_2";
  };
  SyncThread sync(options);
  ASSERT_TRUE(WaitEqual(path, "SELECT concat_ws('|', id::text, note, 'orders_1') FROM orders_1 UNION ALL "
                              "SELECT concat_ws('|', id::text, note, 'orders_2') FROM orders_2",
                        db_))
      << StopReason(sync);
  Sql("BEGIN; INSERT INTO orders_1 VALUES (1001, 'one'); UPDATE orders_2 SET note = 'early' WHERE id = 1; "
      "ALTER TABLE orders_2 ADD COLUMN extra int; INSERT INTO orders_2 VALUES (1001, 'two', 7); "
      "UPDATE orders_2 SET extra = 8 WHERE id = 2; INSERT INTO orders_1 VALUES (1002, 'one again'); COMMIT",
      db_);
  ASSERT_TRUE(WaitEqual(path, select(false), db_)) << StopReason(sync);
  Sql("BEGIN; UPDATE orders_1 SET note = 'x' WHERE id = 3; ALTER TABLE orders_1 ADD COLUMN extra int; "
      "INSERT INTO orders_1 VALUES (1003, 'three', 9); UPDATE orders_2 SET extra = 10 WHERE id = 3; COMMIT",
      db_);
  ASSERT_TRUE(WaitEqual(path, select(true), db_)) << StopReason(sync);
  ASSERT_TRUE(sync.Stop().ok());
  auto table = Table::Open(FileSystem::Local(), path, "shop.all_orders");
  ASSERT_TRUE(table.ok());
  std::vector<std::string> names;
  for (const DataField& f : (*table)->latest_schema().fields) names.push_back(f.name);
  EXPECT_EQ(names, (std::vector<std::string>{"id", "note", "table_name", "extra"}));
  ExpectWholeInEverySnapshot("all_orders", "id", {"1001", "1002"});
}

// Cross-partition update mode with a partition column computed to NULL (Paimon's default partition,
// `dt=__DEFAULT_PARTITION__`): rows move into it and out of it, while running and after a restart
// (the key index then comes from the lake), and a key-only DELETE finds a row there. The lake never
// holds a key twice.
TEST_F(PostgresSyncTest, RowsMoveIntoAndOutOfTheNullPartition) {
  Sql("CREATE TABLE orders (order_id bigint PRIMARY KEY, status text NOT NULL, update_time timestamp(3))", db_);
  Sql("INSERT INTO orders SELECT g, 'created', CASE WHEN g % 4 = 0 THEN NULL ELSE timestamp '2026-11-28 12:00:00' + "
      "(g % 3) * interval '1 day' END FROM generate_series(1, 200) g",
      db_);
  PostgresSyncOptions options = Options({{"public", "orders"}});
  options.computed_columns = {ScopedValue::Parse("dt=date_format(update_time, yyyy-MM-dd)").value()};
  options.partition_keys = {ScopedValue::Parse("dt").value()};
  const std::string select =
      "SELECT concat_ws('|', order_id::text, status, coalesce(to_char(update_time, 'YYYY-MM-DD HH24:MI:SS') || "
      "'.000', '\\N'), coalesce(to_char(update_time, 'YYYY-MM-DD'), '\\N')) FROM orders";
  const std::string path = TablePath("orders");
  auto expect_keys_once = [&] {
    auto ids = ReadLakeRows(path, {"order_id"});
    ASSERT_TRUE(ids.ok()) << ids.status().ToString();
    EXPECT_EQ(std::adjacent_find(ids->begin(), ids->end()), ids->end()) << "a key is in two partitions";
  };
  {
    SyncThread sync(options);
    ASSERT_TRUE(WaitEqual(path, select, db_)) << StopReason(sync);
    Sql("UPDATE orders SET update_time = NULL, status = 'into null' WHERE order_id BETWEEN 1 AND 10", db_);
    Sql("UPDATE orders SET update_time = timestamp '2026-12-02 00:00:00', status = 'out of null' WHERE order_id IN "
        "(4, 8, 12, 16)",
        db_);
    Sql("BEGIN; UPDATE orders SET update_time = NULL WHERE order_id = 21; UPDATE orders SET update_time = "
        "'2026-12-03 00:00:00' WHERE order_id = 21; UPDATE orders SET update_time = NULL WHERE order_id = 22; COMMIT",
        db_);
    Sql("DELETE FROM orders WHERE order_id IN (20, 24, 5)", db_);
    ASSERT_TRUE(WaitEqual(path, select, db_)) << StopReason(sync);
    expect_keys_once();
    ASSERT_TRUE(sync.Stop().ok());
  }
  EXPECT_TRUE(FileSystem::Local()->Exists(path + "/dt=__DEFAULT_PARTITION__").value());
  // While stopped: moves out of the NULL partition and into it; the restarted sync's key index comes
  // from the lake, NULL partition included.
  Sql("UPDATE orders SET update_time = timestamp '2026-12-04 00:00:00', status = 'out after restart' WHERE "
      "order_id IN (1, 2, 28, 32)",
      db_);
  Sql("UPDATE orders SET update_time = NULL, status = 'in after restart' WHERE order_id IN (13, 14)", db_);
  Sql("DELETE FROM orders WHERE order_id IN (36, 3)", db_);
  SyncThread sync(options);
  ASSERT_TRUE(WaitEqual(path, select, db_)) << StopReason(sync);
  expect_keys_once();
  Sql("UPDATE orders SET update_time = NULL WHERE order_id = 1; DELETE FROM orders WHERE order_id = 13", db_);
  ASSERT_TRUE(WaitEqual(path, select, db_)) << StopReason(sync);
  expect_keys_once();
  ASSERT_TRUE(sync.Stop().ok());
}

TEST_F(PostgresSyncTest, UpdateOrDeleteOfATableWithoutPrimaryKeyStopsWithAClearError) {
  Sql("CREATE TABLE events (id bigint NOT NULL, payload text)", db_);
  Sql("ALTER TABLE events REPLICA IDENTITY FULL", db_);
  Sql("INSERT INTO events VALUES (1, 'a')", db_);
  SyncThread sync(Options({{"public", "events"}}));
  ASSERT_TRUE(WaitEqual(TablePath("events"), kEventsSelect, db_));
  Sql("DELETE FROM events WHERE id = 1", db_);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!sync.done() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_TRUE(sync.done());
  Status st = sync.Stop();
  EXPECT_TRUE(st.IsNotSupported()) << st.ToString();
  EXPECT_NE(st.message().find("no primary key"), std::string::npos) << st.ToString();
  EXPECT_NE(st.message().find("public.events"), std::string::npos) << st.ToString();
  // The lake still holds the row: nothing of the failed transaction landed.
  EXPECT_EQ(LakeRows(TablePath("events")), (std::vector<std::string>{"1|a"}));
}

// A resync asked of a running sync right after an ADD COLUMN that no row change has shown the stream
// yet: the copy sees the column, so the lake table gets it before the copy lands, and the stream's
// later description of the table matches.
TEST_F(PostgresSyncTest, ResyncWhileTheSyncRunsFollowsAColumnTheStreamHasNotShownYet) {
  Sql("CREATE TABLE orders (id bigint PRIMARY KEY, amount numeric(10,2) NOT NULL, note text)", db_);
  Sql("INSERT INTO orders SELECT g, g, 'o' FROM generate_series(1, 100) g", db_);
  PostgresSyncOptions options = Options({{"public", "orders"}});
  SyncThread sync(options);
  ASSERT_TRUE(WaitEqual(TablePath("orders"), kOrdersSelect, db_)) << StopReason(sync);
  Sql("ALTER TABLE orders ADD COLUMN discount integer DEFAULT 7", db_);
  auto [code, err] = RunTide({"sync", "resync", "--warehouse", warehouse_, "--database", "shop", "--postgres",
                              options.conninfo, "--slot", options.slot, "--publication", options.publication,
                              "--table", "shop.orders"},
                             dir_.path());
  ASSERT_EQ(code, 0) << err << StopReason(sync);
  const std::string select =
      "SELECT concat_ws('|', id::text, amount::text, coalesce(note, '\\N'), coalesce(discount::text, '\\N')) FROM orders";
  ASSERT_TRUE(WaitEqual(TablePath("orders"), select, db_)) << StopReason(sync);
  Sql("INSERT INTO orders VALUES (5000, 1, 'after', 3); UPDATE orders SET discount = 1 WHERE id <= 5", db_);
  ASSERT_TRUE(WaitEqual(TablePath("orders"), select, db_)) << StopReason(sync);
  ASSERT_TRUE(sync.Stop().ok());
}

// An aggregation table retracts what an updated or deleted row added: without PostgreSQL's old row
// (REPLICA IDENTITY DEFAULT) it cannot, so the sync stops naming the table and the fix rather than
// counting the row twice; with REPLICA IDENTITY FULL the sums follow PostgreSQL.
TEST_F(PostgresSyncTest, AggregationTableNeedsWholeOldRows) {
  Sql("CREATE TABLE totals (id bigint PRIMARY KEY, amount bigint NOT NULL)", db_);
  Sql("INSERT INTO totals SELECT g, g FROM generate_series(1, 10) g", db_);
  PostgresSyncOptions options = Options({{"public", "totals"}});
  options.table_conf = {{"merge-engine", "aggregation"}, {"fields.amount.aggregate-function", "sum"}};
  const std::string select = "SELECT concat_ws('|', id::text, amount::text) FROM totals";
  {
    SyncThread sync(options);
    ASSERT_TRUE(WaitEqual(TablePath("totals"), select, db_)) << StopReason(sync);
    Sql("UPDATE totals SET amount = 100 WHERE id = 1", db_);
    ASSERT_TRUE(sync.WaitDone(30));
    Status st = sync.Stop();
    EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString();
    EXPECT_NE(st.message().find("shop.totals"), std::string::npos) << st.ToString();
    EXPECT_NE(st.message().find("REPLICA IDENTITY FULL"), std::string::npos) << st.ToString();
  }
  // Nothing of the refused transaction landed: id 1 still holds its copied amount.
  const std::vector<std::string> lake = LakeRows(TablePath("totals"));
  EXPECT_NE(std::find(lake.begin(), lake.end(), "1|1"), lake.end());
  Sql("ALTER TABLE totals REPLICA IDENTITY FULL", db_);
  auto [code, err] = RunTide({"sync", "resync", "--warehouse", warehouse_, "--database", "shop", "--postgres",
                              options.conninfo, "--slot", options.slot, "--publication", options.publication,
                              "--table", "shop.totals"},
                             dir_.path());
  ASSERT_EQ(code, 0) << err;
  SyncThread sync(options);
  // Each +U comes with its -U: the sums are PostgreSQL's values, not old + new.
  Sql("UPDATE totals SET amount = amount + 5 WHERE id <= 3", db_);
  Sql("UPDATE totals SET amount = amount * 2 WHERE id >= 2", db_);
  ASSERT_TRUE(WaitEqual(TablePath("totals"), select, db_)) << StopReason(sync);
}

// One sync per slot: a second one on the same slot waits a few seconds for the slot's lock (a sync
// killed a moment ago may still hold it), then stops naming the slot; once the first stops, a new one
// takes over and streams on.
TEST_F(PostgresSyncTest, SecondSyncOnTheSameSlotIsRefusedAfterWaitingForTheLock) {
  Sql("CREATE TABLE events (id bigint NOT NULL, payload text)", db_);
  Sql("INSERT INTO events VALUES (1, 'a')", db_);
  auto first = std::make_unique<SyncThread>(Options({{"public", "events"}}));
  ASSERT_TRUE(WaitEqual(TablePath("events"), kEventsSelect, db_));
  const auto started = std::chrono::steady_clock::now();
  SyncThread second(Options({{"public", "events"}}));
  ASSERT_TRUE(second.WaitDone(30));
  const auto waited = std::chrono::steady_clock::now() - started;
  Status st = second.Stop();
  EXPECT_TRUE(st.IsConflict()) << st.ToString();
  EXPECT_NE(st.message().find("another tide sync is running on replication slot"), std::string::npos) << st.ToString();
  EXPECT_GE(waited, std::chrono::seconds(4));
  ASSERT_TRUE(first->Stop().ok());
  first.reset();
  SyncThread third(Options({{"public", "events"}}));
  Sql("INSERT INTO events VALUES (2, 'b')", db_);
  EXPECT_TRUE(WaitEqual(TablePath("events"), kEventsSelect, db_)) << StopReason(third);
}

// The real binary, killed with SIGKILL at random moments (20 times; TIDE_SYNC_KILLS for more, seed
// TIDE_SYNC_SEED) while a writer runs transactions that insert into an append table and insert, update
// and delete in a primary-key table, then restarted: in the end both lake tables equal PostgreSQL, so
// no row was lost or repeated and no update or delete was applied twice or missed.
TEST_F(PostgresSyncTest, BinaryKilledAtRandomAndRestartedHoldsEveryRowOnce) {
  Sql("CREATE TABLE events (id bigint NOT NULL, payload text)", db_);
  Sql("CREATE TABLE orders (id bigint PRIMARY KEY, amount numeric(10,2) NOT NULL, note text)", db_);
  Sql("INSERT INTO events SELECT g, 'copy' FROM generate_series(1, 2000) g", db_);
  Sql("INSERT INTO orders SELECT g, g, 'copy' FROM generate_series(1, 2000) g", db_);
  const char* kills_env = std::getenv("TIDE_SYNC_KILLS");
  const char* seed_env = std::getenv("TIDE_SYNC_SEED");
  const int kills = kills_env ? std::atoi(kills_env) : 20;
  const unsigned seed = seed_env ? static_cast<unsigned>(std::atoi(seed_env)) : std::random_device{}();
  SCOPED_TRACE("TIDE_SYNC_SEED=" + std::to_string(seed));
  std::mt19937 rng(seed);
  PostgresSyncOptions o = Options({});
  // Each run's messages go to a file of its own; the last run's are shown when the lake is not equal.
  int runs = 0;
  auto stderr_path = [&](int run) { return dir_.path() + "/sync-" + std::to_string(run) + ".stderr"; };
  auto start = [&] {
    return SpawnTide({"sync", "postgres", "--warehouse", warehouse_, "--database", "shop", "--postgres", o.conninfo,
                      "--tables", "public.events,public.orders", "--slot", o.slot, "--publication", o.publication,
                      "--commit-interval", "50ms"},
                     stderr_path(runs++));
  };
  std::atomic<bool> writing{true};
  std::thread writer([&, writer_seed = rng()] {
    std::mt19937 wrng(writer_seed);
    for (int i = 0; writing.load(); ++i) {
      int64_t id = 1 + static_cast<int64_t>(wrng() % 3000);
      std::string txn = "BEGIN; INSERT INTO events SELECT g, 'w" + std::to_string(i) +
                        "' FROM generate_series(1, 20) g; "
                        "INSERT INTO orders VALUES (" + std::to_string(3000 + i / 2) + ", 1, 'new') ON CONFLICT (id) DO "
                        "UPDATE SET note = 'upsert'; "
                        "UPDATE orders SET amount = amount + 1, note = 'u" + std::to_string(i) + "' WHERE id = " +
                        std::to_string(id) + "; DELETE FROM orders WHERE id = " + std::to_string(id + 7) + "; COMMIT";
      Status st = Server().Exec(txn, db_);
      if (!st.ok()) ADD_FAILURE() << st.ToString();
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  });
  for (int kill = 0; kill < kills; ++kill) {
    pid_t pid = start();
    ASSERT_GT(pid, 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(150 + rng() % 700));
    KillNow(pid);
  }
  writing = false;
  writer.join();
  pid_t pid = start();
  bool equal = WaitEqual(TablePath("events"), kEventsSelect, db_, 90) &&
               WaitEqual(TablePath("orders"), kOrdersSelect, db_, 30);
  ::kill(pid, SIGTERM);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(equal) << "events: lake " << LakeRows(TablePath("events")).size() << " rows, PostgreSQL "
                     << PgRows(kEventsSelect, db_).size() << "; orders: lake "
                     << LakeRows(TablePath("orders")).size() << ", PostgreSQL " << PgRows(kOrdersSelect, db_).size()
                     << "; the last run printed:\n" << FileSystem::Local()->ReadFile(stderr_path(runs - 1)).ValueOr("")
                     << "\nthe run before it printed:\n" << FileSystem::Local()->ReadFile(stderr_path(runs - 2)).ValueOr("");
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
}

}  // namespace
}  // namespace tide
