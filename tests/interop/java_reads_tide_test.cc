// Apache Paimon's Java library (1.4, interop/java) reads the tables Tide writes: every table of the
// interop matrix (tests/interop/interop_matrix.h: primary key with fixed and dynamic buckets,
// partitioned, cross-partition update, append bucket-unaware and fixed, partial-update and aggregation,
// changelog-producer=input, compaction, every kind of ALTER, every type Tide writes) is written by
// Tide's writer, and Java's read of every snapshot (and of a tag) equals Tide's own read of it, row for
// row in the canonical text; the latest snapshot holds the rows the spec expects. Java's streaming read
// of the changelog returns each key's changes in the order they were written.

#include <gtest/gtest.h>

#include <map>

#include "interop/interop_matrix.h"
#include "interop/interop_util.h"

namespace tide::interop {
namespace {

// The rows a spec's latest snapshot holds: its "expect", or every row written when it has none (a
// table of inserts only).
std::vector<std::string> ExpectedLatest(const nlohmann::json& spec) {
  std::vector<std::string> out;
  if (spec.contains("expect")) {
    for (const auto& e : spec.at("expect")) out.push_back(e.get<std::string>());
  } else {
    for (const auto& step : spec.at("steps")) {
      if (!step.contains("rows")) continue;
      for (const auto& r : step.at("rows")) {
        std::string line;
        for (size_t i = 1; i < r.size(); ++i) line += (i > 1 ? "\t" : "") + r[i].get<std::string>();
        out.push_back(line);
      }
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(JavaReadsTideTest, EverySnapshotOfEveryTableReadsAsTideReadsIt) {
  tide::testing::TempDir dir;
  std::string w = dir.path() + "/lake";
  std::vector<std::string> names;
  for (const MatrixTable& t : InteropMatrix()) {
    if (!t.tide_writes) continue;
    std::string name = t.spec.at("table").get<std::string>();
    Status written = TideWriteSpec(w, t.spec);
    ASSERT_TRUE(written.ok()) << name << ": " << written.ToString();
    names.push_back(name);
  }
  // One JVM reads every snapshot of every table, the latest, and the tag.
  struct Read {
    std::string table;
    std::optional<int64_t> snapshot;
    std::optional<std::string> tag;
  };
  std::vector<Read> reads;
  std::vector<std::vector<std::string>> commands;
  for (const std::string& name : names) {
    auto ids = SnapshotIds(w, name);
    ASSERT_TRUE(ids.ok()) << ids.status().ToString();
    ASSERT_FALSE(ids->empty()) << name;
    for (int64_t id : *ids) {
      reads.push_back({name, id, std::nullopt});
      commands.push_back({"read", "--warehouse", w, "--table", name, "--snapshot", std::to_string(id)});
    }
    reads.push_back({name, std::nullopt, std::nullopt});
    commands.push_back({"read", "--warehouse", w, "--table", name});
  }
  reads.push_back({"m.pk_fixed", std::nullopt, "after_two"});
  commands.push_back({"read", "--warehouse", w, "--table", "m.pk_fixed", "--tag", "after_two"});
  std::vector<JavaResult> java = RunJavaBatch(commands);
  ASSERT_EQ(java.size(), reads.size());
  int compared = 0;
  for (size_t i = 0; i < reads.size(); ++i) {
    const Read& r = reads[i];
    std::string what = r.table + (r.snapshot ? " snapshot " + std::to_string(*r.snapshot) : "") +
                       (r.tag ? " tag " + *r.tag : "") + (!r.snapshot && !r.tag ? " latest" : "");
    SCOPED_TRACE(what);
    auto tide_rows = TideRead(w, r.table, r.snapshot, r.tag);
    ASSERT_TRUE(tide_rows.ok()) << tide_rows.status().ToString();
    ASSERT_TRUE(java[i].ok) << java[i].error;
    EXPECT_EQ(Join(java[i].lines), Join(*tide_rows));
    ++compared;
  }
  EXPECT_GE(compared, 40);
  // The latest snapshot of each table holds what its spec says.
  for (const MatrixTable& t : InteropMatrix()) {
    if (!t.tide_writes) continue;
    std::string name = t.spec.at("table").get<std::string>();
    auto rows = TideRead(w, name);
    ASSERT_TRUE(rows.ok()) << rows.status().ToString();
    EXPECT_EQ(Join(*rows), Join(ExpectedLatest(t.spec))) << name;
  }
}

TEST(JavaReadsTideTest, StreamingReadReturnsTheChangelogInOrder) {
  tide::testing::TempDir dir;
  std::string w = dir.path() + "/lake";
  nlohmann::json spec;
  for (const MatrixTable& t : InteropMatrix()) {
    if (t.spec.at("table") == "m.changelog_input") spec = t.spec;
  }
  ASSERT_FALSE(spec.is_null());
  ASSERT_TRUE(TideWriteSpec(w, spec).ok());
  // Each key's changes, in the order written (kind and values).
  std::map<std::string, std::vector<std::string>> written;
  for (const auto& step : spec.at("steps")) {
    for (const auto& r : step.value("rows", nlohmann::json::array())) {
      std::string line = r[0].get<std::string>();
      for (size_t i = 1; i < r.size(); ++i) line += "\t" + r[i].get<std::string>();
      written[r[1].get<std::string>()].push_back(line);
    }
  }
  std::vector<JavaResult> java =
      RunJavaBatch({{"read", "--warehouse", w, "--table", "m.changelog_input", "--stream-changelog", "--row-kinds"}});
  ASSERT_TRUE(java[0].ok) << java[0].error;
  std::map<std::string, std::vector<std::string>> streamed;
  for (const std::string& line : java[0].lines) {
    size_t a = line.find('\t'), b = line.find('\t', a + 1);
    streamed[line.substr(a + 1, b - a - 1)].push_back(line);
  }
  EXPECT_EQ(streamed, written);
  EXPECT_EQ(java[0].lines.size(), 9u);
}

}  // namespace
}  // namespace tide::interop
