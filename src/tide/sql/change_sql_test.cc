// Change reads through SQL: paimon_scan's incremental_between (by snapshot ids and timestamps, delta or
// changelog files) and the `$audit_log` view, on tables Tide's writer commits into a warehouse.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "testing/temp_dir.h"
#include "testing/value_or_fail.h"
#include "tide/sql/sql_test_util.h"
#include "tide/table/snapshot/snapshot_manager.h"
#include "tide/table/table_test_util.h"

namespace tide {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

class ChangeSqlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    warehouse_ = dir_.path() + "/warehouse";
    path_ = warehouse_ + "/shop.db/orders";
    schema_ = testing::WriterTestSchema(
        {testing::Field(0, "id", DataType::BigInt(false)), testing::Field(1, "v", DataType::String())}, {"id"}, {},
        {{"bucket", "1"}, {"changelog-producer", "input"}, {"num-sorted-run.compaction-trigger", "100"}});
    ASSERT_TRUE(testing::CreateWriterTestTable(path_, schema_).ok());
    writer_ = testing::ValueOrFail(TableWrite::Create(FileSystem::Local(), path_, schema_, "u", {}), "writer");
  }
  void Put(RowKind kind, int64_t id, const std::string& v) {
    ASSERT_TRUE(writer_->Write(kind, Row{Datum(id), Datum(v)}).ok());
  }
  void Commit() {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));  // distinct commit times
    auto messages = writer_->PrepareCommit();
    ASSERT_TRUE(messages.ok()) << messages.status().ToString();
    ASSERT_TRUE(testing::CommitMessages(path_, *messages, "u", ++identifier_).ok());
  }
  TestLake Open() {
    auto source = OpenCatalogSource(FileSystem::Local(), warehouse_);
    EXPECT_TRUE(source.ok()) << source.status().ToString();
    return TestLake::Open(std::move(source).value());
  }
  int64_t TimeOf(int64_t snapshot) {
    return SnapshotManager(FileSystem::Local(), path_).Get(snapshot)->time_millis;
  }

  testing::TempDir dir_;
  std::string warehouse_, path_;
  TableSchema schema_;
  std::unique_ptr<TableWrite> writer_;
  int64_t identifier_ = 0;
};

TEST_F(ChangeSqlTest, IncrementalBetweenReturnsChangesWithTheirRowKinds) {
  Put(RowKind::kInsert, 1, "a");
  Put(RowKind::kInsert, 2, "b");
  Commit();  // 1
  Put(RowKind::kUpdateAfter, 1, "a2");
  Put(RowKind::kUpdateAfter, 1, "a3");
  Put(RowKind::kDelete, 2, "b");
  Commit();  // 2
  ASSERT_TRUE(writer_->Compact(true).ok());
  Commit();  // 3: COMPACT
  Put(RowKind::kInsert, 3, "c");
  Commit();  // 4
  TestLake lake = Open();
  ASSERT_THAT(lake.lake->skipped(), IsEmpty());
  // The changelog (auto: the table has a changelog producer): every input record, in commit order.
  EXPECT_THAT(lake.Rows("SELECT * FROM paimon_scan('shop.orders', incremental_between => '0,4')"),
              ElementsAre("+I|1|a", "+I|2|b", "+U|1|a2", "+U|1|a3", "-D|2|b", "+I|3|c"));
  EXPECT_THAT(lake.Rows("SELECT * FROM paimon_scan('shop.orders', incremental_between => '1,3')"),
              ElementsAre("+U|1|a2", "+U|1|a3", "-D|2|b"));
  // Delta files: one merged record per key and commit; the COMPACT snapshot adds nothing.
  EXPECT_THAT(lake.Rows("SELECT * FROM paimon_scan('shop.orders', incremental_between => '1,4', "
                        "incremental_between_scan_mode => 'delta')"),
              ElementsAre("+U|1|a3", "-D|2|b", "+I|3|c"));
  // By commit time: (time of 2, time of 4] is snapshots 3 and 4.
  EXPECT_THAT(lake.Rows(fmt::format("SELECT rowkind, id FROM paimon_scan('shop.orders', "
                                    "incremental_between_timestamp => '{},{}')",
                                    TimeOf(2), TimeOf(4))),
              ElementsAre("+I|3"));
  // Projection and counts, and the rows as SQL can filter and group them.
  EXPECT_THAT(lake.Rows("SELECT v, rowkind FROM paimon_scan('shop.orders', incremental_between => '1,2') "
                        "WHERE id = 1"),
              ElementsAre("a2|+U", "a3|+U"));
  EXPECT_THAT(lake.Rows("SELECT count(*) FROM paimon_scan('shop.orders', incremental_between => '0,4')"),
              ElementsAre("6"));
  EXPECT_THAT(lake.Rows("SELECT rowkind, count(*) FROM paimon_scan('shop.orders', incremental_between => '0,4') "
                        "GROUP BY ALL ORDER BY ALL"),
              ElementsAre("+I|3", "+U|2", "-D|1"));
  EXPECT_THAT(lake.Rows("SELECT id FROM paimon_scan('shop.orders', incremental_between => '4,4')"), IsEmpty());
}

TEST_F(ChangeSqlTest, BadRangesAndMixedSelectorsAreRefused) {
  Put(RowKind::kInsert, 1, "a");
  Commit();
  TestLake lake = Open();
  EXPECT_THAT(lake.Error("SELECT * FROM paimon_scan('shop.orders', incremental_between => '0,5')"),
              HasSubstr("outside the snapshots that exist"));
  EXPECT_THAT(lake.Error("SELECT * FROM paimon_scan('shop.orders', incremental_between => 'a,b')"),
              HasSubstr("two snapshot ids"));
  EXPECT_THAT(lake.Error("SELECT * FROM paimon_scan('shop.orders', incremental_between => '0,1', snapshot_id => 1)"),
              HasSubstr("do not combine"));
  EXPECT_THAT(lake.Error("SELECT * FROM paimon_scan('shop.orders', incremental_between => '0,1', "
                         "incremental_between_scan_mode => 'diff')"),
              HasSubstr("diff"));
  EXPECT_THAT(lake.Error("SELECT * FROM paimon_scan('shop.orders', incremental_between_scan_mode => 'delta')"),
              HasSubstr("needs incremental_between"));
}

TEST_F(ChangeSqlTest, AuditLogShowsEachRowWithItsKind) {
  Put(RowKind::kInsert, 1, "a");
  Put(RowKind::kInsert, 2, "b");
  Put(RowKind::kInsert, 3, "c");
  Commit();
  Put(RowKind::kUpdateAfter, 1, "a2");
  Put(RowKind::kDelete, 2, "b");
  Commit();
  TestLake lake = Open();
  EXPECT_THAT(lake.Rows("SELECT * FROM shop.\"orders$audit_log\""), ElementsAre("+U|1|a2", "-D|2|b", "+I|3|c"));
  EXPECT_THAT(lake.Rows("SELECT id FROM shop.\"orders$audit_log\" WHERE rowkind = '-D'"), ElementsAre("2"));
  EXPECT_THAT(lake.Rows("SELECT column_name FROM information_schema.columns WHERE table_name = 'orders$audit_log' "
                        "ORDER BY ordinal_position"),
              ElementsAre("rowkind", "id", "v"));
  // With a range the audit log is the incremental read.
  EXPECT_THAT(lake.Rows("SELECT * FROM paimon_scan('shop.orders', audit_log => true, incremental_between => '1,2')"),
              ElementsAre("+U|1|a2", "-D|2|b"));
  // The plain table is unchanged.
  EXPECT_THAT(lake.Rows("SELECT * FROM shop.orders"), ElementsAre("1|a2", "3|c"));
}

}  // namespace
}  // namespace tide
