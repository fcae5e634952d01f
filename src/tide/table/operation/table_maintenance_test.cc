#include "tide/table/operation/table_maintenance.h"

#include <gtest/gtest.h>

#include <chrono>

#include "testing/temp_dir.h"
#include "tide/table/operation/maintenance_test_util.h"
#include "tide/table/snapshot/tag_manager.h"

namespace tide {
namespace {

using testing::Field;
using testing::MaintenanceTable;
using testing::ValueOrFail;
using testing::WriterTestSchema;

int64_t InAnHour() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
             .count() +
         3'600'000;
}

TableSchema Schema(std::vector<std::pair<std::string, std::string>> options) {
  options.emplace_back("bucket", "-1");
  return WriterTestSchema({Field(0, "id", DataType::BigInt(false)), Field(1, "dt", DataType::String())}, {}, {"dt"},
                          options);
}

TEST(TableMaintenanceTest, AfterEachCommitAsJavasCommitDoes) {
  ::tide::testing::TempDir dir;
  MaintenanceTable table(dir.path() + "/db.db/t",
                         Schema({{"snapshot.num-retained.min", "2"},
                                 {"snapshot.time-retained", "1 min"},
                                 {"partition.expiration-time", "1 d"},
                                 {"partition.expiration-check-interval", "0 s"},
                                 {"tag.automatic-creation", "process-time"},
                                 {"tag.creation-period", "hourly"}}));
  auto maintenance = ValueOrFail(TableMaintenance::Create(FileSystem::Local(), table.path(), "db.t", InAnHour), "m");
  MaintenanceReport last;
  for (int64_t i = 0; i < 5; ++i) {
    table.Append({Row{Datum(i), Datum(i == 0 ? "2020-01-01" : "2999-01-01")}});
    last = ValueOrFail(maintenance->AfterCommit(), "after commit");
  }
  SnapshotManager m(FileSystem::Local(), table.path());
  auto ids = ValueOrFail(m.ListIds(), "ids");
  ASSERT_EQ(ids.size(), 2u);
  // The 2020 partition went with an OVERWRITE after the first commit.
  EXPECT_EQ(ValueOrFail(testing::ReadTable(table.path()), "read").size(), 4u);
  // The first snapshot got the tag of the hour before.
  EXPECT_EQ(ValueOrFail(TagManager(FileSystem::Local(), table.path()).ListNames(), "tags").size(), 1u);

  // write-only: nothing happens.
  ::tide::testing::TempDir dir2;
  MaintenanceTable quiet(dir2.path() + "/db.db/t", Schema({{"write-only", "true"}, {"snapshot.num-retained.min", "1"}}));
  auto none = ValueOrFail(TableMaintenance::Create(FileSystem::Local(), quiet.path(), "db.t", InAnHour), "m");
  for (int64_t i = 0; i < 3; ++i) {
    quiet.Append({Row{Datum(i), Datum("2999-01-01")}});
    EXPECT_EQ(ValueOrFail(none->AfterCommit(), "after").snapshots.snapshots_deleted, 0);
  }
}

}  // namespace
}  // namespace tide
