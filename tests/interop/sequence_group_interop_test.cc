// Partial-update sequence groups between Tide and Java Paimon (1.4, interop/java): the same writes
// (two groups, a summed field within one, retractions of a group, a full compaction, a record whose
// groups are all NULL; and `partial-update.remove-record-on-sequence-group`) made by Tide and by Java.
// At every snapshot Java's read of Tide's table equals Tide's, Tide's read of Java's table equals
// Java's, and the latest rows are what Java's PartialUpdateMergeFunction makes of the writes.

#include <gtest/gtest.h>

#include "interop/interop_util.h"

namespace tide::interop {
namespace {

// Every snapshot of `name` read by Java and by Tide: equal.
void ExpectSameAtEverySnapshot(const std::string& w, const std::string& name) {
  auto ids = SnapshotIds(w, name);
  ASSERT_TRUE(ids.ok()) << ids.status().ToString();
  ASSERT_FALSE(ids->empty());
  std::vector<std::vector<std::string>> commands;
  for (int64_t id : *ids) commands.push_back({"read", "--warehouse", w, "--table", name, "--snapshot", std::to_string(id)});
  std::vector<JavaResult> java = RunJavaBatch(commands);
  for (size_t i = 0; i < ids->size(); ++i) {
    SCOPED_TRACE(name + " snapshot " + std::to_string((*ids)[i]));
    ASSERT_TRUE(java[i].ok) << java[i].error;
    auto tide_rows = TideRead(w, name, (*ids)[i]);
    ASSERT_TRUE(tide_rows.ok()) << tide_rows.status().ToString();
    EXPECT_EQ(Join(java[i].lines), Join(*tide_rows));
  }
}

const char* kGroups = R"json({"table": "s.groups",
    "fields": [{"name": "k", "type": "INT NOT NULL"}, {"name": "a", "type": "INT"}, {"name": "b", "type": "STRING"},
               {"name": "g1", "type": "INT"}, {"name": "c", "type": "INT"}, {"name": "d", "type": "BIGINT"},
               {"name": "g2", "type": "INT"}],
    "primary_keys": ["k"],
    "options": {"bucket": "1", "merge-engine": "partial-update", "fields.g1.sequence-group": "a,b",
                "fields.g2.sequence-group": "c,d", "fields.d.aggregate-function": "sum"},
    "steps": [
      {"rows": [["+I","1","1","x","1","10","100","1"],["+I","2","2","y","5","20","200","5"]]},
      {"rows": [["+I","1","9","x9","0","11","5","2"],["+I","2","\\N","\\N","\\N","30","7","4"]]},
      {"compact": {"full": true}},
      {"rows": [["-D","1","\\N","\\N","3","\\N","\\N","\\N"],["-U","2","\\N","\\N","\\N","20","7","6"],
                ["+I","3","3","z","\\N","\\N","\\N","\\N"]]},
      {"rows": [["+I","1","4","w","4","\\N","\\N","\\N"]]}]})json";

// key 1: g1 0 < 1 keeps a, b; g2 2 >= 1 takes c and adds d; the -D (g1 3) clears a, b; then g1 4 sets them.
// key 2: g1 NULL leaves a, b; g2 4 < 5 keeps c and still adds d; the -U (g2 6) clears c and retracts 7.
// key 3: its only record, as written.
const char* kGroupsExpect = "1\t4\tw\t4\t11\t105\t2\n2\t2\ty\t5\t\\N\t200\t6\n3\t3\tz\t\\N\t\\N\t\\N\t\\N\n";

const char* kRemove = R"json({"table": "s.remove",
    "fields": [{"name": "k", "type": "INT NOT NULL"}, {"name": "a", "type": "STRING"}, {"name": "g1", "type": "INT"},
               {"name": "b", "type": "STRING"}, {"name": "g2", "type": "INT"}],
    "primary_keys": ["k"],
    "options": {"bucket": "2", "merge-engine": "partial-update", "fields.g1.sequence-group": "a",
                "fields.g2.sequence-group": "b", "partial-update.remove-record-on-sequence-group": "g1"},
    "steps": [
      {"rows": [["+I","1","a1","1","b1","1"],["+I","2","a2","1","b2","1"],["+I","3","a3","1","b3","1"]]},
      {"rows": [["-D","1","\\N","2","\\N","\\N"],["-D","2","\\N","\\N","\\N","2"],["-D","3","\\N","0","\\N","\\N"]]}]})json";

// key 1: a -D newer in g1 removes the row; key 2: a -D of g2 clears b; key 3: a -D older in g1 does nothing.
const char* kRemoveExpect = "2\ta2\t1\t\\N\t2\n3\ta3\t1\tb3\t1\n";

TEST(SequenceGroupInteropTest, JavaReadsTideWritesAndWritesOn) {
  tide::testing::TempDir dir;
  std::string w = dir.path() + "/lake";
  for (auto [spec, expect] : {std::pair{kGroups, kGroupsExpect}, std::pair{kRemove, kRemoveExpect}}) {
    nlohmann::json json = nlohmann::json::parse(spec);
    std::string name = json.at("table");
    SCOPED_TRACE(name);
    Status written = TideWriteSpec(w, json);
    ASSERT_TRUE(written.ok()) << written.ToString();
    auto rows = TideRead(w, name);
    ASSERT_TRUE(rows.ok()) << rows.status().ToString();
    EXPECT_EQ(Join(*rows), expect);
    ExpectSameAtEverySnapshot(w, name);
  }
  // Java writes on the table Tide wrote (a newer g2 for key 2), compacts it, and Tide reads it.
  nlohmann::json more = {{"table", "s.groups"},
                         {"create", false},
                         {"steps", nlohmann::json::parse(R"json([{"rows": [["+I","2","\\N","\\N","\\N","21","1","7"]]},
                                                                  {"compact": {"full": true}}])json")}};
  ProcessRun java = RunJava({"write", "--warehouse", w, "--spec", WriteSpecFile(dir.path(), more)});
  ASSERT_EQ(java.exit_code, 0) << java.err;
  auto rows = TideRead(w, "s.groups");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(Join(*rows), "1\t4\tw\t4\t11\t105\t2\n2\t2\ty\t5\t21\t201\t7\n3\t3\tz\t\\N\t\\N\t\\N\t\\N\n");
  ExpectSameAtEverySnapshot(w, "s.groups");
}

TEST(SequenceGroupInteropTest, TideReadsJavaWritesAndCompactsThem) {
  tide::testing::TempDir dir;
  std::string w = dir.path() + "/lake";
  std::filesystem::create_directories(w);
  for (auto [spec, expect] : {std::pair{kGroups, kGroupsExpect}, std::pair{kRemove, kRemoveExpect}}) {
    nlohmann::json json = nlohmann::json::parse(spec);
    std::string name = json.at("table");
    SCOPED_TRACE(name);
    ProcessRun java = RunJava({"write", "--warehouse", w, "--spec", WriteSpecFile(dir.path(), json)});
    ASSERT_EQ(java.exit_code, 0) << java.err;
    auto rows = TideRead(w, name);
    ASSERT_TRUE(rows.ok()) << rows.status().ToString();
    EXPECT_EQ(Join(*rows), expect);
    ExpectSameAtEverySnapshot(w, name);
    // Tide's full compaction of Java's files reads the same in both.
    tide::testing::TideRun compacted = tide::testing::RunTide({"compact", "--warehouse", w, "--table", name, "--full"});
    ASSERT_EQ(compacted.exit_code, 0) << compacted.err;
    rows = TideRead(w, name);
    ASSERT_TRUE(rows.ok()) << rows.status().ToString();
    EXPECT_EQ(Join(*rows), expect);
    ExpectSameAtEverySnapshot(w, name);
  }
}

}  // namespace
}  // namespace tide::interop
