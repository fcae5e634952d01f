// End-to-end tests of schema changes under `tide sync postgres` (sync/postgres_sync.h, TableSink::Evolve)
// on a real PostgreSQL that the harness starts: RENAME COLUMN followed by attnum (while the sync runs and
// while it is stopped), DROP COLUMN of a NOT NULL column, and the clear stop when a rename cannot be told
// from a drop and an add. Every test compares the lake with PostgreSQL row for row, and checks that a
// renamed column keeps its Paimon field id (so rows written before and after read as one column).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include "sync/sync_test_util.h"
#include "testing/pg_server.h"
#include "testing/temp_dir.h"
#include "tide/base/strings.h"
#include "tide/sync/postgres_sync.h"
#include "tide/sync/table_sink.h"
#include "tide/table/schema/schema_change.h"
#include "tide/table/snapshot/snapshot_manager.h"
#include "tide/table/table.h"

namespace tide {
namespace {

using namespace sync_testing;

class SchemaChangeSyncTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = "schema_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name());
    db_ = ToLower(db_).substr(0, 60);
    ASSERT_TRUE(Server().CreateDatabase(db_).ok());
    warehouse_ = dir_.path() + "/warehouse";
  }

  PostgresSyncOptions Options() {
    PostgresSyncOptions o;
    o.warehouse = warehouse_;
    o.database = "shop";
    o.conninfo = Server().conninfo(db_);
    o.tables = {{"public", "items"}};
    o.slot = "slot_" + db_.substr(7, 40);
    o.publication = "pub_" + db_.substr(7, 40);
    o.commit_interval = std::chrono::milliseconds(100);
    o.copy_workers = 1;
    return o;
  }
  std::string Path() const { return warehouse_ + "/shop.db/items"; }
  TableSchema LakeSchema() const {
    auto table = Table::Open(FileSystem::Local(), Path(), "shop.items");
    EXPECT_TRUE(table.ok()) << table.status().ToString();
    return table.ok() ? (*table)->latest_schema() : TableSchema();
  }
  // name:id of every lake column, in order.
  std::vector<std::string> Columns() const {
    std::vector<std::string> out;
    for (const DataField& f : LakeSchema().fields) out.push_back(f.name + ":" + std::to_string(f.id));
    return out;
  }

  std::string db_;
  testing::TempDir dir_;
  std::string warehouse_;
};

using Names = std::vector<std::string>;

TEST_F(SchemaChangeSyncTest, RenameWhileRunningKeepsTheFieldIdAndTheRowsBeforeIt) {
  Sql("CREATE TABLE items (id bigint PRIMARY KEY, qty int NOT NULL, note text)", db_);
  Sql("INSERT INTO items SELECT g, g, 'n' || g FROM generate_series(1, 50) g", db_);
  SyncThread sync(Options());
  ASSERT_TRUE(WaitEqual(Path(), "SELECT concat_ws('|', id, qty, coalesce(note, '\\N')) FROM items", db_));
  EXPECT_NE(LakeSchema().Option(std::string(kSourceAttnumsOption), ""), "") << "attnums recorded at creation";

  Sql("ALTER TABLE items RENAME COLUMN note TO remark", db_);
  Sql("INSERT INTO items VALUES (51, 51, 'r51'); UPDATE items SET remark = 'u' || id WHERE id <= 5", db_);
  const std::string renamed = "SELECT concat_ws('|', id, qty, coalesce(remark, '\\N')) FROM items";
  ASSERT_TRUE(WaitEqual(Path(), renamed, db_) || !sync.done()) << sync.Stop().ToString();
  ASSERT_TRUE(WaitEqual(Path(), renamed, db_));
  EXPECT_EQ(Columns(), (Names{"id:0", "qty:1", "remark:2"}));

  // A rename that frees a name which a new column then takes, in one transaction.
  Sql("BEGIN; ALTER TABLE items RENAME COLUMN remark TO memo; ALTER TABLE items ADD COLUMN remark text; "
      "INSERT INTO items VALUES (52, 52, 'm52', 'r52'); UPDATE items SET remark = 'x' WHERE id = 1; COMMIT",
      db_);
  const std::string both =
      "SELECT concat_ws('|', id, qty, coalesce(memo, '\\N'), coalesce(remark, '\\N')) FROM items";
  ASSERT_TRUE(WaitEqual(Path(), both, db_) || !sync.done()) << sync.Stop().ToString();
  ASSERT_TRUE(WaitEqual(Path(), both, db_));
  EXPECT_EQ(Columns(), (Names{"id:0", "qty:1", "memo:2", "remark:3"}));
  ASSERT_TRUE(sync.Stop().ok());
}

TEST_F(SchemaChangeSyncTest, RenameWhileStoppedIsFollowedOnRestart) {
  Sql("CREATE TABLE items (id bigint PRIMARY KEY, qty int, note text)", db_);
  Sql("INSERT INTO items SELECT g, g, 'n' || g FROM generate_series(1, 20) g", db_);
  {
    SyncThread sync(Options());
    ASSERT_TRUE(WaitEqual(Path(), "SELECT concat_ws('|', id, qty, coalesce(note, '\\N')) FROM items", db_));
    // A change after the copy, so the stream (not only the copy) has described the table.
    Sql("UPDATE items SET qty = 0 WHERE id = 1", db_);
    ASSERT_TRUE(WaitEqual(Path(), "SELECT concat_ws('|', id, qty, coalesce(note, '\\N')) FROM items", db_));
    ASSERT_TRUE(sync.Stop().ok());
  }
  // While stopped: the key column and another are renamed, and rows change under the new names.
  Sql("ALTER TABLE items RENAME COLUMN note TO remark", db_);
  Sql("ALTER TABLE items RENAME COLUMN id TO item_id", db_);
  Sql("INSERT INTO items VALUES (21, 21, 'r21'); UPDATE items SET remark = 'u' WHERE item_id = 2; "
      "DELETE FROM items WHERE item_id = 3",
      db_);
  SyncThread sync(Options());
  const std::string select = "SELECT concat_ws('|', item_id, coalesce(qty::text, '\\N'), coalesce(remark, '\\N')) FROM items";
  ASSERT_TRUE(WaitEqual(Path(), select, db_) || !sync.done()) << sync.Stop().ToString();
  ASSERT_TRUE(WaitEqual(Path(), select, db_));
  EXPECT_EQ(Columns(), (Names{"item_id:0", "qty:1", "remark:2"}));
  EXPECT_EQ(LakeSchema().primary_keys, (Names{"item_id"}));
  ASSERT_TRUE(sync.Stop().ok());
}

TEST_F(SchemaChangeSyncTest, DroppedNotNullColumnBecomesNullable) {
  Sql("CREATE TABLE items (id bigint PRIMARY KEY, must int NOT NULL, v text)", db_);
  Sql("INSERT INTO items SELECT g, g, 'v' || g FROM generate_series(1, 10) g", db_);
  SyncThread sync(Options());
  ASSERT_TRUE(WaitEqual(Path(), "SELECT concat_ws('|', id, must, v) FROM items", db_));
  ASSERT_FALSE(LakeSchema().fields[1].type.nullable());
  Sql("ALTER TABLE items DROP COLUMN must", db_);
  Sql("INSERT INTO items VALUES (11, 'v11'); UPDATE items SET v = 'w' WHERE id = 2", db_);
  // The lake keeps `must`: NULL in the rows written after the drop.
  const std::string after =
      "SELECT concat_ws('|', id, CASE WHEN id IN (2, 11) THEN '\\N' ELSE id::text END, v) FROM items";
  ASSERT_TRUE(WaitEqual(Path(), after, db_) || !sync.done()) << sync.Stop().ToString();
  ASSERT_TRUE(WaitEqual(Path(), after, db_));
  TableSchema schema = LakeSchema();
  ASSERT_EQ(schema.fields.size(), 3u);
  EXPECT_EQ(schema.fields[1].name, "must");
  EXPECT_TRUE(schema.fields[1].type.nullable());
  EXPECT_EQ(schema.fields[1].id, 1);
  ASSERT_TRUE(sync.Stop().ok());
}

TEST_F(SchemaChangeSyncTest, RenameThatTheCatalogNoLongerShowsStopsNamingTheColumns) {
  Sql("CREATE TABLE items (id bigint PRIMARY KEY, note text)", db_);
  Sql("INSERT INTO items VALUES (1, 'a')", db_);
  {
    SyncThread sync(Options());
    ASSERT_TRUE(WaitEqual(Path(), "SELECT concat_ws('|', id, note) FROM items", db_));
    ASSERT_TRUE(sync.Stop().ok());
  }
  // Renamed twice while stopped: the stream says `remark` where the catalog now says `memo`.
  Sql("ALTER TABLE items RENAME COLUMN note TO remark", db_);
  Sql("INSERT INTO items VALUES (2, 'b')", db_);
  Sql("ALTER TABLE items RENAME COLUMN remark TO memo", db_);
  Sql("INSERT INTO items VALUES (3, 'c')", db_);
  SyncThread sync(Options());
  ASSERT_TRUE(sync.WaitDone(30));
  Status st = sync.Stop();
  EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString();
  EXPECT_NE(st.message().find("shop.items"), std::string::npos) << st.ToString();
  EXPECT_NE(st.message().find("--rename-column note=remark"), std::string::npos) << st.ToString();
  // Nothing past the last commit was written: the lake still holds the first row only, under `note`.
  EXPECT_EQ(LakeRows(Path()), (Names{"1|a"}));
  EXPECT_EQ(Columns(), (Names{"id:0", "note:1"}));

  // The fix the message gives, then a restart: the rows arrive, and the later rename is followed.
  ASSERT_TRUE(CommitSchemaChanges(FileSystem::Local(), Path(), "shop.items",
                                  {SchemaChange::RenameColumn("note", "remark")})
                  .ok());
  SyncThread again(Options());
  const std::string select = "SELECT concat_ws('|', id, memo) FROM items";
  ASSERT_TRUE(WaitEqual(Path(), select, db_) || !again.done()) << again.Stop().ToString();
  ASSERT_TRUE(WaitEqual(Path(), select, db_));
  EXPECT_EQ(Columns(), (Names{"id:0", "memo:1"}));
  ASSERT_TRUE(again.Stop().ok());
}

// A TRUNCATE is part of its transaction: a schema change later in the same transaction must not commit
// it on its own (a lake snapshot never shows part of a PostgreSQL transaction). The writer goes on
// under the new schema and the whole transaction (the overwrite and the row after the change) is one
// commit: every snapshot holds the rows from before it or those after it, never an empty table.
TEST_F(SchemaChangeSyncTest, TruncateThenAlterInOneTransactionIsNeverCommittedHalfway) {
  Sql("CREATE TABLE items (id bigint PRIMARY KEY, v text)", db_);
  Sql("INSERT INTO items SELECT g, 'v' || g FROM generate_series(1, 10) g", db_);
  SyncThread sync(Options());
  const std::string select = "SELECT concat_ws('|', id, v) FROM items";
  ASSERT_TRUE(WaitEqual(Path(), select, db_));
  const std::vector<std::string> before = LakeRows(Path());
  Sql("BEGIN; TRUNCATE items; ALTER TABLE items ADD COLUMN x int; INSERT INTO items VALUES (1, 'a', 1); COMMIT", db_);
  ASSERT_TRUE(WaitEqual(Path(), "SELECT concat_ws('|', id, v, coalesce(x::text, '\\N')) FROM items", db_))
      << StopReason(sync);
  const std::vector<std::string> after = LakeRows(Path());
  ASSERT_TRUE(sync.Stop().ok());
  EXPECT_EQ(after, (std::vector<std::string>{"1|a|1"}));
  SnapshotManager snapshots(FileSystem::Local(), Path());
  const int64_t latest = snapshots.LatestId().ValueOr(std::nullopt).value_or(0);
  for (int64_t id = snapshots.EarliestId().ValueOr(std::nullopt).value_or(1); id <= latest; ++id) {
    auto rows = ReadLakeRows(Path(), {"id", "v"}, id);
    ASSERT_TRUE(rows.ok()) << rows.status().ToString();
    EXPECT_TRUE(*rows == before || *rows == std::vector<std::string>{"1|a"})
        << "snapshot " << id << " holds part of the transaction: " << Join(*rows, "; ");
  }
}

}  // namespace
}  // namespace tide
