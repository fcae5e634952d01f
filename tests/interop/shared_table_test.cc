// Tide and Java Paimon (1.4, interop/java) write one table in turn: Java's full compaction (what a Flink
// or Spark compaction job runs) of a table Tide wrote, then Tide writes more and both read it; Tide's
// compaction (`tide compact --full`) of a table Java wrote, then Java reads it. At every snapshot both
// read the same rows, and the latest holds what the writes mean.

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace tide::interop
