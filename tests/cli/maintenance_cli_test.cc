// The maintenance commands as a user runs them: expire-snapshots, tag, rollback, remove-orphan-files
// and expire-partitions on tables that `tide table create` and `tide write` made, read back with
// `tide sql`.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "testing/temp_dir.h"
#include "testing/tide_process.h"

namespace tide {
namespace {

using ::testing::HasSubstr;
using tide::testing::RunTide;
using tide::testing::TideRun;

void WriteFile(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

class MaintenanceCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    w_ = dir_.path() + "/lake";
    std::filesystem::create_directories(w_);
    ASSERT_EQ(RunTide({"table", "create", "--warehouse", w_, "db.t", "--columns", "id BIGINT, dt STRING",
                       "--partition-keys", "dt"})
                  .exit_code,
              0);
    for (int i = 1; i <= 3; ++i) {
      std::string csv = dir_.path() + "/in" + std::to_string(i) + ".csv";
      WriteFile(csv, "id,dt\n" + std::to_string(i) + "," + (i == 1 ? "2020-01-01" : "2999-01-01") + "\n");
      TideRun written = RunTide({"write", "--warehouse", w_, "--table", "db.t", "--input", csv});
      ASSERT_EQ(written.exit_code, 0) << written.err;
    }
  }
  std::string Sql(const std::string& query) {
    TideRun r = RunTide({"sql", "--warehouse", w_, "--format", "csv", query});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out;
  }
  tide::testing::TempDir dir_;
  std::string w_;
};

TEST_F(MaintenanceCliTest, TagThenExpireSnapshotsThenRollback) {
  TideRun tagged = RunTide({"tag", "create", "--warehouse", w_, "--table", "db.t", "--tag", "first", "--snapshot", "1"});
  ASSERT_EQ(tagged.exit_code, 0) << tagged.err;
  EXPECT_EQ(tagged.out, "Created tag 'first' of db.t at snapshot 1\n");
  TideRun kept = RunTide({"tag", "create", "--warehouse", w_, "--table", "db.t", "--tag", "week", "--time-retained",
                          "7 d"});
  ASSERT_EQ(kept.exit_code, 0) << kept.err;
  EXPECT_EQ(kept.out, "Created tag 'week' of db.t at snapshot 3, kept for 604800 s\n");
  TideRun listed = RunTide({"tag", "list", "--warehouse", w_, "--table", "db.t"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_THAT(listed.out, HasSubstr("tag_name\tsnapshot_id\t"));
  EXPECT_THAT(listed.out, HasSubstr("\nfirst\t1\t0\t"));
  EXPECT_THAT(listed.out, HasSubstr("\nweek\t3\t0\t"));

  TideRun expired = RunTide({"expire-snapshots", "--warehouse", w_, "--table", "db.t", "--retain-min", "1",
                             "--older-than", "2999-01-01 00:00:00"});
  ASSERT_EQ(expired.exit_code, 0) << expired.err;
  EXPECT_THAT(expired.out, HasSubstr("Expired 2 snapshots of db.t (snapshots 3 to 3 remain); deleted 0 data files"));
  EXPECT_EQ(Sql("SELECT count(*) AS n FROM db.t"), "n\n3\n");
  EXPECT_EQ(Sql("SELECT id FROM paimon_scan('db.t', tag => 'first')"), "id\n1\n");

  TideRun rolled = RunTide({"rollback", "--warehouse", w_, "--table", "db.t", "--tag", "first"});
  ASSERT_EQ(rolled.exit_code, 0) << rolled.err;
  EXPECT_THAT(rolled.out, HasSubstr("Rolled db.t back to snapshot 1; deleted 1 snapshots, 1 tags and "));
  EXPECT_EQ(Sql("SELECT id FROM db.t"), "id\n1\n");

  TideRun deleted = RunTide({"tag", "delete", "--warehouse", w_, "--table", "db.t", "--tag", "first"});
  ASSERT_EQ(deleted.exit_code, 0) << deleted.err;
  EXPECT_THAT(deleted.out, HasSubstr("Deleted tag 'first' of db.t"));
  EXPECT_EQ(Sql("SELECT id FROM db.t"), "id\n1\n");
}

TEST_F(MaintenanceCliTest, ErrorsNameTheTableAndTheFix) {
  TideRun missing = RunTide({"rollback", "--warehouse", w_, "--table", "db.t", "--snapshot", "9"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_THAT(missing.err, HasSubstr("table db.t: cannot roll back"));
  EXPECT_THAT(missing.err, HasSubstr("available snapshots are 1 to 3"));
  TideRun both = RunTide({"rollback", "--warehouse", w_, "--table", "db.t"});
  EXPECT_EQ(both.exit_code, 1);
  EXPECT_THAT(both.err, HasSubstr("needs exactly one of --snapshot N and --tag NAME"));
  TideRun no_table = RunTide({"expire-snapshots", "--warehouse", w_, "--table", "db.nope"});
  EXPECT_EQ(no_table.exit_code, 1);
  EXPECT_THAT(no_table.err, HasSubstr("table db.nope does not exist"));
  TideRun bad_time = RunTide({"remove-orphan-files", "--warehouse", w_, "--table", "db.t", "--older-than", "soon"});
  EXPECT_EQ(bad_time.exit_code, 1);
  EXPECT_THAT(bad_time.err, HasSubstr("--older-than 'soon' is not a timestamp"));
  TideRun no_expiry = RunTide({"expire-partitions", "--warehouse", w_, "--table", "db.t"});
  EXPECT_EQ(no_expiry.exit_code, 1);
  EXPECT_THAT(no_expiry.err, HasSubstr("give --expiration-time"));
  TideRun no_tag = RunTide({"tag", "delete", "--warehouse", w_, "--table", "db.t", "--tag", "x"});
  EXPECT_EQ(no_tag.exit_code, 1);
  EXPECT_THAT(no_tag.err, HasSubstr("tag 'x' does not exist"));
}

TEST_F(MaintenanceCliTest, OrphanFilesAndPartitions) {
  std::string orphan = w_ + "/db.db/t/manifest/manifest-orphan-0";
  WriteFile(orphan, "junk");
  auto old = std::filesystem::file_time_type::clock::now() - std::chrono::hours(48);
  std::filesystem::last_write_time(orphan, old);
  TideRun dry = RunTide({"remove-orphan-files", "--warehouse", w_, "--table", "db.t", "--dry-run"});
  ASSERT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_THAT(dry.out, HasSubstr("Would delete 1 orphan files (4 bytes) of db.t older than "));
  EXPECT_THAT(dry.out, HasSubstr("manifest-orphan-0"));
  EXPECT_TRUE(std::filesystem::exists(orphan));
  TideRun removed = RunTide({"remove-orphan-files", "--warehouse", w_, "--table", "db.t"});
  ASSERT_EQ(removed.exit_code, 0) << removed.err;
  EXPECT_THAT(removed.out, HasSubstr("Deleted 1 orphan files (4 bytes) of db.t"));
  EXPECT_FALSE(std::filesystem::exists(orphan));

  TideRun dropped = RunTide({"expire-partitions", "--warehouse", w_, "--table", "db.t", "--expiration-time", "1 d"});
  ASSERT_EQ(dropped.exit_code, 0) << dropped.err;
  EXPECT_EQ(dropped.out, "Expired 1 partitions of db.t\n  dt=2020-01-01\n");
  EXPECT_EQ(Sql("SELECT id FROM db.t ORDER BY id"), "id\n2\n3\n");
}

}  // namespace
}  // namespace tide
