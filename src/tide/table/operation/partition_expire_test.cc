#include "tide/table/operation/partition_expire.h"

#include <gtest/gtest.h>

#include <chrono>

#include "testing/temp_dir.h"
#include "tide/table/operation/maintenance_test_util.h"

namespace tide {
namespace {

using testing::Field;
using testing::MaintenanceTable;
using testing::ValueOrFail;
using testing::WriterTestSchema;

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

TEST(PartitionExpireTest, ParsesPartitionTimesAsJava) {
  const int64_t day = 86'400'000;
  const int64_t jan1 = 19'723 * day;  // 2024-01-01 as local millis
  EXPECT_EQ(ParsePartitionTime("2024-01-01", std::nullopt), jan1);
  EXPECT_EQ(ParsePartitionTime("2024-1-1 10:00:00", std::nullopt), jan1 + 10 * 3'600'000);
  EXPECT_EQ(ParsePartitionTime("20240101", std::string("yyyyMMdd")), jan1);
  EXPECT_EQ(ParsePartitionTime("2024-01-01 13", std::string("yyyy-MM-dd HH")), jan1 + 13 * 3'600'000);
  EXPECT_FALSE(ParsePartitionTime("2024-01", std::nullopt).has_value());
  EXPECT_FALSE(ParsePartitionTime("abc", std::string("yyyyMMdd")).has_value());
}

TEST(PartitionExpireTest, DropsExpiredPartitionsWithAnOverwrite) {
  ::tide::testing::TempDir dir;
  TableSchema schema = WriterTestSchema({Field(0, "id", DataType::BigInt(false)), Field(1, "dt", DataType::String()),
                                         Field(2, "hh", DataType::Int())},
                                        {}, {"dt", "hh"},
                                        {{"bucket", "-1"},
                                         {"partition.expiration-time", "2 d"},
                                         {"partition.timestamp-pattern", "$dt $hh:00:00"},
                                         {"partition.timestamp-formatter", "yyyyMMdd H:mm:ss"}});
  MaintenanceTable table(dir.path() + "/db.db/t", schema);
  table.Append({Row{Datum(int64_t{1}), Datum("20200101"), Datum(int32_t{3})},
                Row{Datum(int64_t{2}), Datum("20200102"), Datum(int32_t{4})},
                Row{Datum(int64_t{3}), Datum("29991231"), Datum(int32_t{0})},
                Row{Datum(int64_t{4}), Datum("not-a-date"), Datum(int32_t{0})}});
  auto options = ValueOrFail(CoreOptions::Create(schema, "db.t"), "options");
  auto config = ValueOrFail(PartitionExpireConfig::FromOptions(options, "db.t", std::nullopt), "config");
  ASSERT_TRUE(config.has_value());
  EXPECT_EQ(config->expiration_time_ms, 2 * 86'400'000);
  config->check_interval_ms = 0;
  config->batch_size = 1;
  PartitionExpire expire(FileSystem::Local(), table.path(), "db.t", *config, NowMs());
  auto dropped = expire.Expire(NowMs());
  ASSERT_TRUE(dropped.ok()) << dropped.status().ToString();
  ASSERT_TRUE(dropped->has_value());
  EXPECT_EQ(**dropped, (std::vector<std::string>{"dt=20200101/hh=3", "dt=20200102/hh=4"}));
  // One OVERWRITE snapshot per batch, and the rows of the dropped partitions are gone.
  SnapshotManager m(FileSystem::Local(), table.path());
  EXPECT_EQ(ValueOrFail(m.ListIds(), "ids"), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(ValueOrFail(m.Get(3), "s3").commit_kind, CommitKind::kOverwrite);
  auto rows = testing::SortedRows(ValueOrFail(testing::ReadTable(table.path()), "read"));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0][0], Datum(int64_t{3}));
  // Nothing more expires; with a check interval, a second call right away does not even look.
  EXPECT_TRUE(ValueOrFail(expire.Expire(NowMs()), "again")->empty());
  config->check_interval_ms = 3'600'000;
  PartitionExpire hourly(FileSystem::Local(), table.path(), "db.t", *config, NowMs());
  EXPECT_FALSE(ValueOrFail(hourly.Expire(NowMs()), "interval").has_value());
}

}  // namespace
}  // namespace tide
