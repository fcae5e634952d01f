// Tables that keep changelog longer than snapshots: Tide's expiry and Java Paimon's (1.4, with the
// table's options, as a commit runs it) on two copies of one Tide-written table leave the same files,
// the same changelog/changelog-<id> JSON and the same hints; and Java's streaming read, started inside
// the long-lived changelog, reads Tide's result as it reads its own, and as Tide's stream reads it.

#include <gtest/gtest.h>

#include <thread>

#include "interop/interop_util.h"
#include "testing/value_or_fail.h"
#include "tide/table/change_read.h"
#include "tide/table/operation/expire_snapshots.h"
#include "tide/table/snapshot/changelog_manager.h"

namespace tide::interop {
namespace {

const char* kTable = R"json({"table": "c.t",
    "fields": [{"name": "k", "type": "INT NOT NULL"}, {"name": "v", "type": "STRING"}],
    "primary_keys": ["k"],
    "options": {"bucket": "1", "changelog-producer": "input",
                "snapshot.num-retained.min": "2", "snapshot.num-retained.max": "2", "snapshot.time-retained": "1 ms",
                "changelog.num-retained.min": "4", "changelog.num-retained.max": "5", "changelog.time-retained": "1 ms"},
    "steps": [
      {"rows": [["+I","1","a"],["+I","2","b"]]},
      {"rows": [["+U","1","a2"],["+I","3","c"]]},
      {"rows": [["-D","2","b"],["+I","4","d"]]},
      {"rows": [["+U","3","c2"]]},
      {"rows": [["+I","5","e"],["-D","4","d"]]},
      {"rows": [["+U","5","e2"]]}]})json";

// Every file under `dir`, relative, with the content of the metadata that must agree: the hints as
// bytes, a changelog as the snapshot it holds (Java 1.4 re-serializes it without the empty
// "logOffsets" of earlier versions, which Tide's snapshots carry and its changelogs keep).
std::map<std::string, std::string> Listing(const std::string& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    std::string rel = std::filesystem::relative(e.path(), dir).string();
    std::string content;
    if (rel.rfind("changelog/", 0) == 0 || rel == "snapshot/EARLIEST") {
      content = tide::testing::ValueOrFail(FileSystem::Local()->ReadFile(e.path().string()), rel);
    }
    if (rel.rfind("changelog/changelog-", 0) == 0) {
      Snapshot changelog = tide::testing::ValueOrFail(Snapshot::FromJson(content, rel), rel);
      if (changelog.log_offsets && changelog.log_offsets->empty()) changelog.log_offsets.reset();
      content = changelog.ToJson();
    }
    out[rel] = content;
  }
  return out;
}

// Each key's changes in order (a stream orders one key's changes; across keys within a snapshot Tide
// streams in commit order and Java in the changelog file's key order).
std::map<std::string, std::vector<std::string>> ByKey(const std::vector<std::string>& lines) {
  std::map<std::string, std::vector<std::string>> out;
  for (const std::string& line : lines) {
    size_t a = line.find('\t'), b = line.find('\t', a + 1);
    out[line.substr(a + 1, b - a - 1)].push_back(line);
  }
  return out;
}

// Tide's stream of the table from snapshot `from`, as Java's `--row-kinds` lines.
std::vector<std::string> TideStream(const std::string& warehouse, int64_t from) {
  auto catalog = tide::testing::ValueOrFail(Catalog::Open(FileSystem::Local(), warehouse), "catalog");
  auto table = tide::testing::ValueOrFail(catalog->GetTable(tide::testing::ValueOrFail(TableIdentifier::Parse("c.t"), "id")),
                                          "table");
  TableChangeStreamOptions options;
  options.start.kind = StreamStart::Kind::kSnapshot;
  options.start.snapshot_id = from;
  auto stream = tide::testing::ValueOrFail(TableChangeStream::Open(table.get(), options), "stream");
  std::vector<std::string> lines;
  while (true) {
    auto polled = stream->Poll([&](const ChangeRecord& r) -> Status {
      auto line = CanonicalRow(r.row, table->latest_schema().fields);
      if (!line.ok()) return line.status();
      lines.push_back(std::string(RowKindShortString(r.kind)) + "\t" + *line);
      return Status::OK();
    });
    EXPECT_TRUE(polled.ok()) << polled.status().ToString();
    if (!polled.ok() || !*polled) break;
  }
  return lines;
}

TEST(ChangelogExpiryInteropTest, TideAndJavaExpireADecoupledTableAlikeAndJavaStreamsTidesChangelog) {
  tide::testing::TempDir dir;
  const std::string tide_w = dir.path() + "/tide", java_w = dir.path() + "/java";
  ASSERT_TRUE(TideWriteSpec(tide_w, nlohmann::json::parse(kTable)).ok());
  std::filesystem::copy(tide_w, java_w, std::filesystem::copy_options::recursive);
  const std::string tide_t = tide_w + "/c.db/t", java_t = java_w + "/c.db/t";
  auto ids = SnapshotIds(tide_w, "c.t");
  ASSERT_TRUE(ids.ok());
  ASSERT_GE(ids->size(), 6u);
  // Java, streaming before expiry: the changes from the third snapshot on.
  std::vector<JavaResult> before = RunJavaBatch(
      {{"read", "--warehouse", java_w, "--table", "c.t", "--stream-changelog", "--row-kinds", "--from-snapshot", "3"}});
  ASSERT_TRUE(before[0].ok) << before[0].error;
  ASSERT_FALSE(before[0].lines.empty());
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // past snapshot.time-retained

  auto tide_expired = ExpireSnapshots(FileSystem::Local(), tide_t, "c.t").Expire();
  ASSERT_TRUE(tide_expired.ok()) << tide_expired.status().ToString();
  ProcessRun java_expired = RunJava({"expire-by-options", "--warehouse", java_w, "--table", "c.t"});
  ASSERT_EQ(java_expired.exit_code, 0) << java_expired.err;
  EXPECT_EQ(java_expired.out, fmt::format("expired {} {}\n", tide_expired->snapshots_deleted,
                                          tide_expired->changelog.changelogs_deleted));
  EXPECT_GT(tide_expired->changelogs_written, 0);
  EXPECT_GT(tide_expired->changelog.changelogs_deleted, 0);

  std::map<std::string, std::string> tide_files = Listing(tide_t), java_files = Listing(java_t);
  EXPECT_EQ(tide_files, java_files);
  auto earliest_changelog = ChangelogManager(FileSystem::Local(), tide_t).EarliestId();
  ASSERT_TRUE(earliest_changelog.ok() && earliest_changelog->has_value());
  auto earliest_snapshot = SnapshotManager(FileSystem::Local(), tide_t).EarliestId();
  ASSERT_TRUE(earliest_snapshot.ok() && earliest_snapshot->has_value());
  ASSERT_LT(**earliest_changelog, **earliest_snapshot) << "the stream below must start inside the changelog";
  ASSERT_LE(**earliest_changelog, 3);

  // Java streams Tide's expired table from inside the changelog as before expiry, and as Tide does.
  std::vector<JavaResult> after = RunJavaBatch(
      {{"read", "--warehouse", tide_w, "--table", "c.t", "--stream-changelog", "--row-kinds", "--from-snapshot", "3"}});
  ASSERT_TRUE(after[0].ok) << after[0].error;
  EXPECT_EQ(after[0].lines, before[0].lines);
  EXPECT_EQ(ByKey(TideStream(tide_w, 3)), ByKey(before[0].lines));
}

}  // namespace
}  // namespace tide::interop
