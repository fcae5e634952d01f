// `tide compact` as a user runs it: a primary-key table loaded by several `tide write` commits, then
// compacted; the rows stay the same, the live files shrink to one sorted run at the top level, and the
// COMPACT snapshot shows in `$snapshots`. Append tables: their small files merged.

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

std::string Sql(const std::string& w, const std::string& query) {
  TideRun run = RunTide({"sql", "--warehouse", w, "--format", "csv", query});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  return run.out;
}

TEST(CompactCliTest, FullCompactionKeepsTheRowsInOneTopLevelRun) {
  tide::testing::TempDir dir;
  std::string w = dir.path() + "/lake";
  std::filesystem::create_directories(w);
  // A trigger above the number of commits: the writes themselves do not compact.
  ASSERT_EQ(RunTide({"table", "create", "--warehouse", w, "db.kv", "--columns", "k INT, p STRING, v STRING",
                     "--primary-keys", "k,p", "--partition-keys", "p", "--option", "bucket=2", "--option",
                     "num-sorted-run.compaction-trigger=10"})
                .exit_code,
            0);
  for (int i = 0; i < 4; ++i) {
    std::string csv = "op,k,p,v\n";
    for (int k = 0; k < 20; ++k) csv += "+I," + std::to_string(k) + "," + (k % 2 ? "a" : "b") + ",v" + std::to_string(i) + "\n";
    if (i == 3) csv += "-D,5,a,x\n";
    WriteFile(dir.path() + "/in.csv", csv);
    TideRun written = RunTide({"write", "--warehouse", w, "--table", "db.kv", "--input", dir.path() + "/in.csv",
                               "--row-kind-column", "op"});
    ASSERT_EQ(written.exit_code, 0) << written.err;
  }
  std::string before = Sql(w, "SELECT k, p, v FROM db.kv ORDER BY k");
  EXPECT_THAT(Sql(w, "SELECT count(*) FROM db.kv"), HasSubstr("\n19\n"));

  TideRun compacted = RunTide({"compact", "--warehouse", w, "--table", "db.kv", "--full"});
  ASSERT_EQ(compacted.exit_code, 0) << compacted.err;
  EXPECT_THAT(compacted.out, HasSubstr("Compacted db.kv: 16 files replaced by 4 in snapshot 5"));
  EXPECT_EQ(Sql(w, "SELECT k, p, v FROM db.kv ORDER BY k"), before);
  EXPECT_EQ(Sql(w, "SELECT commit_kind FROM db.\"kv$snapshots\" ORDER BY snapshot_id DESC LIMIT 1"),
            "commit_kind\nCOMPACT\n");

  // Nothing left to do; one partition alone; a bad spec names the problem.
  TideRun again = RunTide({"compact", "--warehouse", w, "--table", "db.kv", "--full"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_THAT(again.out, HasSubstr("Nothing to compact in db.kv"));
  TideRun bad = RunTide({"compact", "--warehouse", w, "--table", "db.kv", "--partition", "q=1"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_THAT(bad.err, HasSubstr("does not give partition column 'p' of table db.kv"));
}

// Append tables: a bucket-unaware one merges each partition's small files; a fixed-bucket one with
// `--full` merges each bucket's files into one, its rows in the order written.
TEST(CompactCliTest, MergesTheSmallFilesOfAppendTables) {
  tide::testing::TempDir dir;
  std::string w = dir.path() + "/lake";
  std::filesystem::create_directories(w);
  ASSERT_EQ(RunTide({"table", "create", "--warehouse", w, "db.log", "--columns", "a INT, p STRING", "--partition-keys",
                     "p"})
                .exit_code,
            0);
  ASSERT_EQ(RunTide({"table", "create", "--warehouse", w, "db.fixed", "--columns", "a INT, b STRING", "--option",
                     "bucket=1", "--option", "bucket-key=a", "--option", "compaction.min.file-num=20"})
                .exit_code,
            0);
  for (int i = 0; i < 6; ++i) {
    WriteFile(dir.path() + "/log.csv", "a,p\n" + std::to_string(i) + ",x\n" + std::to_string(i) + ",y\n");
    ASSERT_EQ(RunTide({"write", "--warehouse", w, "--table", "db.log", "--input", dir.path() + "/log.csv"}).exit_code, 0);
    WriteFile(dir.path() + "/fixed.csv", "a,b\n" + std::to_string(10 - i) + ",r" + std::to_string(i) + "\n");
    ASSERT_EQ(RunTide({"write", "--warehouse", w, "--table", "db.fixed", "--input", dir.path() + "/fixed.csv"}).exit_code,
              0);
  }
  std::string log_before = Sql(w, "SELECT a, p FROM db.log ORDER BY p, a");
  TideRun compacted = RunTide({"compact", "--warehouse", w, "--table", "db.log"});
  ASSERT_EQ(compacted.exit_code, 0) << compacted.err;
  EXPECT_THAT(compacted.out, HasSubstr("Compacted db.log: 12 files replaced by 2 in snapshot 7"));
  EXPECT_EQ(Sql(w, "SELECT a, p FROM db.log ORDER BY p, a"), log_before);
  EXPECT_EQ(Sql(w, "SELECT count(*) AS n FROM db.\"log$files\""), "n\n2\n");

  // Six files are fewer than compaction.min.file-num: only --full merges them.
  TideRun plain = RunTide({"compact", "--warehouse", w, "--table", "db.fixed"});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_THAT(plain.out, HasSubstr("Nothing to compact in db.fixed"));
  std::string fixed_before = Sql(w, "SELECT a, b FROM db.fixed");
  EXPECT_EQ(fixed_before, "a,b\n10,r0\n9,r1\n8,r2\n7,r3\n6,r4\n5,r5\n");
  TideRun full = RunTide({"compact", "--warehouse", w, "--table", "db.fixed", "--full"});
  ASSERT_EQ(full.exit_code, 0) << full.err;
  EXPECT_THAT(full.out, HasSubstr("Compacted db.fixed: 6 files replaced by 1 in snapshot 7"));
  EXPECT_EQ(Sql(w, "SELECT a, b FROM db.fixed"), fixed_before) << "the order written";
  EXPECT_EQ(Sql(w, "SELECT commit_kind FROM db.\"fixed$snapshots\" ORDER BY snapshot_id DESC LIMIT 1"),
            "commit_kind\nCOMPACT\n");
}

}  // namespace
}  // namespace tide
