// Tide and Java Paimon (1.4, interop/java) write one table in turn: Java's full compaction (what a Flink
// or Spark compaction job runs) of a table Tide wrote, then Tide writes more and both read it; Tide's
// compaction (`tide compact --full`) of a table Java wrote, then Java reads it; Java's tag, rollback
// and expiry procedures on a table Tide writes. At every snapshot both read the same rows, and the
// latest holds what the writes mean.

#include <gtest/gtest.h>

#include <filesystem>

#include "interop/interop_util.h"

namespace tide::interop {
namespace {

// Java's read of every snapshot of `name` equals Tide's.
void ExpectSameAtEverySnapshot(const std::string& w, const std::string& name) {
  auto ids = SnapshotIds(w, name);
  ASSERT_TRUE(ids.ok()) << ids.status().ToString();
  std::vector<std::vector<std::string>> commands;
  for (int64_t id : *ids) {
    commands.push_back({"read", "--warehouse", w, "--table", name, "--snapshot", std::to_string(id)});
  }
  std::vector<JavaResult> java = RunJavaBatch(commands);
  for (size_t i = 0; i < ids->size(); ++i) {
    SCOPED_TRACE(name + " snapshot " + std::to_string((*ids)[i]));
    ASSERT_TRUE(java[i].ok) << java[i].error;
    auto tide_rows = TideRead(w, name, (*ids)[i]);
    ASSERT_TRUE(tide_rows.ok()) << tide_rows.status().ToString();
    EXPECT_EQ(Join(java[i].lines), Join(*tide_rows));
  }
}

const char* kTable = R"json({"table": "s.t",
    "fields": [{"name": "dt", "type": "STRING NOT NULL"}, {"name": "k", "type": "INT NOT NULL"}, {"name": "v", "type": "STRING"}],
    "partition_keys": ["dt"], "primary_keys": ["dt", "k"], "options": {"bucket": "2"},
    "steps": [
      {"rows": [["+I","a","1","x"],["+I","a","2","y"],["+I","b","1","z"]]},
      {"rows": [["+U","a","1","x2"],["-D","b","1","z"],["+I","b","3","w"]]}]})json";

const char* kMore = R"json({"table": "s.t", "create": false,
    "steps": [{"rows": [["+U","a","2","y2"],["+I","a","4","q"],["-D","b","3","w"]]}]})json";

const char* kExpect = "a\t1\tx2\na\t2\ty2\na\t4\tq\n";

TEST(SharedTableTest, JavaCompactsATideTableThenTideWritesOn) {
  tide::testing::TempDir dir;
  std::string w = dir.path() + "/lake";
  ASSERT_TRUE(TideWriteSpec(w, nlohmann::json::parse(kTable)).ok());
  ProcessRun compacted = RunJava({"compact", "--warehouse", w, "--table", "s.t", "--full"});
  ASSERT_EQ(compacted.exit_code, 0) << compacted.err;
  EXPECT_EQ(compacted.out, "snapshot 3\n");
  Status more = TideWriteSpec(w, nlohmann::json::parse(kMore));
  ASSERT_TRUE(more.ok()) << more.ToString();
  auto rows = TideRead(w, "s.t");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(Join(*rows), kExpect);
  ExpectSameAtEverySnapshot(w, "s.t");
}

TEST(SharedTableTest, TideCompactsAJavaTableThenJavaReadsIt) {
  tide::testing::TempDir dir;
  std::string w = dir.path() + "/lake";
  std::filesystem::create_directories(w);
  ProcessRun written = RunJava({"write", "--warehouse", w, "--spec", WriteSpecFile(dir.path(), nlohmann::json::parse(kTable))});
  ASSERT_EQ(written.exit_code, 0) << written.err;
  tide::testing::TideRun compacted = tide::testing::RunTide({"compact", "--warehouse", w, "--table", "s.t", "--full"});
  ASSERT_EQ(compacted.exit_code, 0) << compacted.err;
  ProcessRun more = RunJava({"write", "--warehouse", w, "--spec", WriteSpecFile(dir.path(), nlohmann::json::parse(kMore))});
  ASSERT_EQ(more.exit_code, 0) << more.err;
  auto rows = TideRead(w, "s.t");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(Join(*rows), kExpect);
  ExpectSameAtEverySnapshot(w, "s.t");
}

// FLOAT and DOUBLE partition values name their folders as Java's toString does (`d=0.0`, `d=-0.0`,
// `d=1.0E7`, `f=1.0E-5`): Java's full compaction of a table Tide wrote finds every file where Java
// looks for it, Java writes on into the same folders, and both read the same rows.
TEST(SharedTableTest, FloatingPartitionFoldersAreJavas) {
  const char* table = R"json({"table": "s.f",
      "fields": [{"name": "d", "type": "DOUBLE NOT NULL"}, {"name": "f", "type": "FLOAT NOT NULL"},
                 {"name": "k", "type": "INT NOT NULL"}, {"name": "v", "type": "STRING"}],
      "partition_keys": ["d", "f"], "primary_keys": ["d", "f", "k"], "options": {"bucket": "1"},
      "steps": [
        {"rows": [["+I","0.0","1.5","1","a"],["+I","-0.0","0.0","1","b"],["+I","10000000.0","0.001","1","c"],
                  ["+I","1.0E-4","123456.7","1","d"],["+I","1.5E300","1.0E-5","1","e"],["+I","2.5","-3.75","1","f"]]},
        {"rows": [["+I","0.0","1.5","2","g"],["+U","1.0E-4","123456.7","1","d2"]]}]})json";
  const char* more = R"json({"table": "s.f", "create": false,
      "steps": [{"rows": [["+I","10000000.0","0.001","2","h"],["+I","-0.0","0.0","2","i"]]}]})json";
  tide::testing::TempDir dir;
  std::string w = dir.path() + "/lake";
  ASSERT_TRUE(TideWriteSpec(w, nlohmann::json::parse(table)).ok());
  for (const char* folder : {"d=0.0/f=1.5", "d=-0.0/f=0.0", "d=1.0E7/f=0.001", "d=1.0E-4/f=123456.7",
                             "d=1.5E300/f=1.0E-5", "d=2.5/f=-3.75"}) {
    EXPECT_TRUE(std::filesystem::is_directory(w + "/s.db/f/" + folder + "/bucket-0")) << folder;
  }
  ProcessRun compacted = RunJava({"compact", "--warehouse", w, "--table", "s.f", "--full"});
  ASSERT_EQ(compacted.exit_code, 0) << compacted.err;
  ProcessRun written = RunJava({"write", "--warehouse", w, "--spec", WriteSpecFile(dir.path(), nlohmann::json::parse(more))});
  ASSERT_EQ(written.exit_code, 0) << written.err;
  auto rows = TideRead(w, "s.f");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(rows->size(), 9u) << Join(*rows);  // 7 keys, then 2 more from Java
  size_t partition_folders = 0;
  for (const auto& e : std::filesystem::directory_iterator(w + "/s.db/f")) {
    if (e.path().filename().string().rfind("d=", 0) == 0) ++partition_folders;
  }
  EXPECT_EQ(partition_folders, 6u) << "Java wrote into Tide's folders, none of its own";
  ExpectSameAtEverySnapshot(w, "s.f");
}

// Java's tag, rollback and expiry procedures on a table Tide writes: Tide reads the tag, writes on
// after the rollback, and reads what expiry leaves.
TEST(SharedTableTest, JavaTagsRollsBackAndExpiresATideTable) {
  tide::testing::TempDir dir;
  std::string w = dir.path() + "/lake";
  ASSERT_TRUE(TideWriteSpec(w, nlohmann::json::parse(kTable)).ok());
  std::vector<JavaResult> tagged = RunJavaBatch({{"create-tag", "--warehouse", w, "--table", "s.t", "--tag", "first",
                                                  "--snapshot", "1"},
                                                 {"rollback", "--warehouse", w, "--table", "s.t", "--tag", "first"}});
  ASSERT_TRUE(tagged[0].ok) << tagged[0].error;
  ASSERT_TRUE(tagged[1].ok) << tagged[1].error;
  const char* first = "a\t1\tx\na\t2\ty\nb\t1\tz\n";
  auto at_tag = TideRead(w, "s.t", std::nullopt, std::string("first"));
  ASSERT_TRUE(at_tag.ok()) << at_tag.status().ToString();
  EXPECT_EQ(Join(*at_tag), first);
  auto latest = TideRead(w, "s.t");
  ASSERT_TRUE(latest.ok()) << latest.status().ToString();
  EXPECT_EQ(Join(*latest), first) << "the rollback to the tag";
  ASSERT_TRUE(TideWriteSpec(w, nlohmann::json::parse(kMore)).ok());
  ProcessRun expired = RunJava({"expire-snapshots", "--warehouse", w, "--table", "s.t", "--retain-max", "1"});
  ASSERT_EQ(expired.exit_code, 0) << expired.err;
  auto ids = SnapshotIds(w, "s.t");
  ASSERT_TRUE(ids.ok());
  EXPECT_EQ(*ids, std::vector<int64_t>{2});
  latest = TideRead(w, "s.t");
  ASSERT_TRUE(latest.ok()) << latest.status().ToString();
  EXPECT_EQ(Join(*latest), "a\t1\tx\na\t2\ty2\na\t4\tq\nb\t1\tz\n");
  // The tag keeps snapshot 1's files readable after its snapshot expired.
  at_tag = TideRead(w, "s.t", std::nullopt, std::string("first"));
  ASSERT_TRUE(at_tag.ok()) << at_tag.status().ToString();
  EXPECT_EQ(Join(*at_tag), first);
  ExpectSameAtEverySnapshot(w, "s.t");
}

}  // namespace
}  // namespace tide::interop
