// The bridge on tables Java Paimon wrote (tests/fixtures/paimon-java), through the real Catalog.
//
// pk_09 (primary key f0, f1, f2; partitioned by f1; 2 buckets; deletion vectors) has no README: its rows
// come from the paimon-cpp tests that read the same files (alibaba/paimon-cpp at the fixtures' commit
// 43d9d0271b7416fa85f1674586efa94f384a6b5c):
//   - latest snapshot (8): test/inte/read_inte_test.cpp, TestPkTableWithSnapshot8 (all three splits of
//     snapshot 8), whose f1=10 rows test/inte/scan_and_read_inte_test.cpp,
//     TestWithPKWith09VersionDvBatchScanLatestSnapshot, confirms;
//   - snapshot 6: test/inte/read_inte_test.cpp, TestPkTableWithDeletionVector (bucket 0 of f1=10 at
//     snapshot 6) and TestPkTableWithSnapshot6 (all splits of snapshot 6, filtered by f3 > 15), with the
//     f1=10 bucket-1 and f1=20 files, which snapshot 6 shares with snapshot 8 (same files, same deletion
//     vector), read in TestPkTableWithSnapshot8.
// Snapshot 6 differs from 8 in one row: Alice (f1=10, f2=1) has f3 19.1 there and 21.1 in snapshot 8.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <time.h>

#include "testing/temp_dir.h"
#include "tide/sql/sql_test_util.h"

namespace tide {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

const char kTwoRoads[] =
    "Two roads diverged in a wood, and I took the one less traveled by, And that has made all the difference.";
const char kWhether[] = "Whether I shall turn out to be the hero of my own life.";

class LakeFixtureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("TZ", "UTC", 1);  // the system tables' times are local
    tzset();
    auto source = OpenCatalogSource(FileSystem::Local(), tide::testing::JavaFixtureWarehouse());
    ASSERT_TRUE(source.ok()) << source.status().ToString();
    lake_ = TestLake::Open(std::move(source).value());
    ASSERT_NE(lake_.lake, nullptr);
  }
  TestLake lake_;
};

TEST_F(LakeFixtureTest, ShowsPk09WithItsColumnTypes) {
  auto result = lake_.lake->connection().Query("DESCRIBE pk_09.pk_09");
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_THAT(lake_.Rows("SELECT column_name, column_type FROM (DESCRIBE pk_09.pk_09)"),
              ElementsAre("f0|VARCHAR", "f1|INTEGER", "f2|INTEGER", "f3|DOUBLE"));
}

TEST_F(LakeFixtureTest, ListsPk09Snapshots) {
  EXPECT_THAT(lake_.Rows("SELECT snapshot_id, schema_id, commit_identifier, commit_kind, total_record_count, "
                         "delta_record_count, epoch_ms(commit_time) FROM pk_09.\"pk_09$snapshots\""),
              ElementsAre("1|0|1|APPEND|9|9|1755758625076", "2|0|1|COMPACT|9|0|1755758625293",
                          "3|0|2|APPEND|11|2|1755758625364", "4|0|2|COMPACT|11|0|1755758625382",
                          "5|0|3|APPEND|14|3|1755758625527", "6|0|3|COMPACT|12|-2|1755758625551",
                          "7|0|4|APPEND|13|1|1755758625621", "8|0|4|COMPACT|10|-3|1755758625645"));
  EXPECT_THAT(lake_.Rows("SELECT count(*), min(commit_user) = max(commit_user) FROM paimon_snapshots('pk_09.pk_09')"),
              ElementsAre("8|true"));
  EXPECT_THAT(lake_.Rows("SELECT schema_id, partition_keys, primary_keys, json_extract_string(options, "
                         "'$.\"bucket-key\"') FROM pk_09.\"pk_09$schemas\""),
              ElementsAre("0|[\"f1\"]|[\"f0\",\"f1\",\"f2\"]|f2"));
}

// Needs Table::NewReader (the table read path).
TEST_F(LakeFixtureTest, ReadsPk09LatestSnapshot) {
  EXPECT_THAT(lake_.Rows("SELECT f0, f1, f2, f3 FROM pk_09.pk_09 ORDER BY f0"),
              ElementsAre("Alex|10|0|16.1", "Alice|10|1|21.1", "Bob|10|0|12.1", "David|10|0|17.1",
                          "Emily|10|0|13.1", "Lucy|20|1|14.1", "Paul|20|1|18.1", std::string(kTwoRoads) + "|10|1|11.0",
                          std::string(kWhether) + "|10|1|19.1"));
  EXPECT_THAT(lake_.Rows("SELECT f1, count(*), sum(f3)::DECIMAL(10,1) FROM pk_09.pk_09 GROUP BY f1 ORDER BY f1"),
              ElementsAre("10|7|109.6", "20|2|32.2"));
}

// Needs Table::NewReader (the table read path).
TEST_F(LakeFixtureTest, ReadsPk09Snapshot6) {
  EXPECT_THAT(lake_.Rows("SELECT f0, f1, f2, f3 FROM paimon_scan('pk_09.pk_09', snapshot_id => 6) ORDER BY f0"),
              ElementsAre("Alex|10|0|16.1", "Alice|10|1|19.1", "Bob|10|0|12.1", "David|10|0|17.1",
                          "Emily|10|0|13.1", "Lucy|20|1|14.1", "Paul|20|1|18.1", std::string(kTwoRoads) + "|10|1|11.0",
                          std::string(kWhether) + "|10|1|19.1"));
}

// Needs Table::NewReader (the table read path).
TEST_F(LakeFixtureTest, CountsPk09RowsWithoutReadingColumns) {
  EXPECT_THAT(lake_.Rows("SELECT count(*) FROM pk_09.pk_09"), ElementsAre("9"));
}

// Every timestamp precision, with and without time zone; rows from the table's README. DuckDB has no
// nanosecond TIMESTAMP WITH TIME ZONE, so ts_tz_nano keeps microseconds (its 2 and 4 ns become 0).
TEST_F(LakeFixtureTest, ReadsEveryTimestampPrecision) {
  ASSERT_TRUE(lake_.lake->connection().Execute("SET TimeZone = 'UTC'").ok());
  EXPECT_THAT(
      lake_.Rows("SELECT * FROM append_with_multiple_ts_precision_and_timezone."
                 "append_with_multiple_ts_precision_and_timezone ORDER BY ts_sec"),
      ElementsAre("1970-01-01 00:00:01|1970-01-01 00:00:00.001|1970-01-01 00:00:00.000001|"
                  "1970-01-01 00:00:00.000000001|1970-01-01 00:00:02+00|1970-01-01 00:00:00.002+00|"
                  "1970-01-01 00:00:00.000002+00|1970-01-01 00:00:00+00",
                  "1970-01-01 00:00:03|1970-01-01 00:00:00.003|NULL|1970-01-01 00:00:00.000000003|"
                  "1970-01-01 00:00:04+00|1970-01-01 00:00:00.004+00|1970-01-01 00:00:00.000004+00|"
                  "1970-01-01 00:00:00+00",
                  "1970-01-01 00:00:05|1970-01-01 00:00:00.005|NULL|NULL|1970-01-01 00:00:06+00|NULL|"
                  "1970-01-01 00:00:00.000006+00|NULL"));
}

TEST_F(LakeFixtureTest, NamesAMissingTableOrSnapshot) {
  EXPECT_THAT(lake_.Error("SELECT * FROM paimon_scan('pk_09.nope')"), HasSubstr("pk_09.nope"));
  EXPECT_THAT(lake_.Error("SELECT * FROM paimon_scan('pk_09.pk_09', snapshot_id => 42)"), HasSubstr("42"));
}

}  // namespace
}  // namespace tide
