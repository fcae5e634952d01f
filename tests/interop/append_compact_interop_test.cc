// Compaction of append tables between Tide and Java Paimon (1.4, interop/java): Tide's compactions
// (a fixed-bucket writer's own, `tide compact` on fixed-bucket and bucket-unaware tables) read the same
// in Java at every snapshot; Java's compactions (its fixed-bucket writer's, its AppendCompactCoordinator
// tasks) of a table Tide wrote read the same in Tide, and Tide writes and compacts on after them; Tide
// compacts a table Java wrote and Java reads and writes on. Each compaction leaves fewer files.

#include <gtest/gtest.h>

#include "interop/interop_util.h"
#include "tide/table/operation/file_store_scan.h"
#include "tide/table/schema/schema_manager.h"

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

// The table folder of `db.t` in warehouse `w`.
std::string TablePath(const std::string& w, const std::string& name) {
  auto dot = name.find('.');
  return w + "/" + name.substr(0, dot) + ".db/" + name.substr(dot + 1);
}

// The number of live data files of each (partition, bucket) in the latest snapshot, and that
// snapshot's kind.
struct LiveFiles {
  std::map<std::pair<std::string, int32_t>, size_t> per_bucket;
  std::string kind;
  size_t total() const {
    size_t n = 0;
    for (const auto& [where, count] : per_bucket) n += count;
    return n;
  }
};

LiveFiles LiveFilesOf(const std::string& w, const std::string& name) {
  std::string path = TablePath(w, name);
  SnapshotManager snapshots(FileSystem::Local(), path);
  auto latest = snapshots.LatestId();
  EXPECT_TRUE(latest.ok() && latest->has_value());
  Snapshot snapshot = snapshots.Get(**latest).value();
  TableSchema schema = SchemaManager(FileSystem::Local(), path).Latest().value();
  FileStoreScan scan(FileSystem::Local(), path, name, schema);
  auto entries = scan.ReadLiveEntries(snapshot);
  EXPECT_TRUE(entries.ok()) << entries.status().ToString();
  LiveFiles out;
  out.kind = std::string(CommitKindName(snapshot.commit_kind));
  if (entries.ok()) {
    for (const auto& e : *entries) out.per_bucket[{e.partition, e.bucket}]++;
  }
  return out;
}

// After a compaction that merges every bucket holding at least `min_files` files (Java's full
// compaction of a fixed bucket: 3; the coordinator's plan of a bucket-unaware partition: min-file-num,
// or 2 with --full) into one, `after` holds one file there and the same files elsewhere; and at least
// one bucket was merged, in a COMPACT snapshot.
void ExpectMerged(const LiveFiles& before, const LiveFiles& after, size_t min_files, const std::string& what) {
  SCOPED_TRACE(what);
  ASSERT_EQ(before.per_bucket.size(), after.per_bucket.size());
  bool merged = false;
  for (const auto& [where, count] : before.per_bucket) {
    ASSERT_TRUE(after.per_bucket.count(where));
    if (count >= min_files) {
      EXPECT_EQ(after.per_bucket.at(where), 1u) << "bucket " << where.second << " had " << count << " files";
      merged = true;
    } else {
      EXPECT_EQ(after.per_bucket.at(where), count) << "bucket " << where.second;
    }
  }
  EXPECT_TRUE(merged) << "no bucket had " << min_files << " files";
  EXPECT_EQ(after.kind, "COMPACT");
}

// `steps` commits of rows, each of three rows per partition (`partitioned`) or six rows.
nlohmann::json RowSteps(int first, int steps, bool partitioned) {
  nlohmann::json out = nlohmann::json::array();
  for (int s = first; s < first + steps; ++s) {
    nlohmann::json rows = nlohmann::json::array();
    for (int i = 0; i < (partitioned ? 3 : 6); ++i) {
      std::string id = std::to_string(s * 10 + i);
      if (partitioned) {
        for (const char* dt : {"2024-01-01", "2024-01-02"}) rows.push_back({"+I", dt, id, "v" + id});
      } else {
        rows.push_back({"+I", id, "v" + id});
      }
    }
    out.push_back({{"rows", rows}});
  }
  return out;
}

nlohmann::json FixedSpec(bool force_compact) {
  nlohmann::json spec = {{"table", "a.fixed"},
                         {"fields", {{{"name", "id"}, {"type", "INT"}}, {{"name", "s"}, {"type", "STRING"}}}},
                         {"options", {{"bucket", "2"}, {"bucket-key", "id"}}},
                         {"steps", RowSteps(0, 7, false)}};
  if (force_compact) spec["options"]["commit.force-compact"] = "true";
  return spec;
}

nlohmann::json UnawareSpec() {
  return {{"table", "a.unaware"},
          {"fields",
           {{{"name", "dt"}, {"type", "STRING"}}, {{"name", "id"}, {"type", "INT"}}, {{"name", "s"}, {"type", "STRING"}}}},
          {"partition_keys", {"dt"}},
          {"options", {{"bucket", "-1"}}},
          {"steps", RowSteps(0, 6, true)}};
}

nlohmann::json More(const std::string& table, int first, int steps, bool partitioned) {
  return {{"table", table}, {"create", false}, {"steps", RowSteps(first, steps, partitioned)}};
}

// Runs `tide compact` (with --full when `full`) on `table`.
void TideCompact(const std::string& w, const std::string& table, bool full) {
  std::vector<std::string> args = {"compact", "--warehouse", w, "--table", table};
  if (full) args.push_back("--full");
  tide::testing::TideRun run = tide::testing::RunTide(args);
  ASSERT_EQ(run.exit_code, 0) << run.err;
}

TEST(AppendCompactInteropTest, JavaReadsWhatTideCompacted) {
  tide::testing::TempDir dir;
  std::string w = dir.path() + "/lake";
  // Fixed buckets: with commit.force-compact each writer's compaction goes out with its commit; the
  // fifth file of a bucket triggers one.
  ASSERT_TRUE(TideWriteSpec(w, FixedSpec(true)).ok());
  auto ids = SnapshotIds(w, "a.fixed");
  ASSERT_TRUE(ids.ok());
  EXPECT_GT(ids->size(), 7u) << "the writers' own COMPACT snapshots besides the seven APPEND ones";
  LiveFiles fixed_before = LiveFilesOf(w, "a.fixed");
  EXPECT_LT(fixed_before.total(), 14u);
  TideCompact(w, "a.fixed", true);
  ExpectMerged(fixed_before, LiveFilesOf(w, "a.fixed"), 3, "a.fixed, tide compact --full");
  ExpectSameAtEverySnapshot(w, "a.fixed");

  ASSERT_TRUE(TideWriteSpec(w, UnawareSpec()).ok());
  LiveFiles unaware_before = LiveFilesOf(w, "a.unaware");
  EXPECT_EQ(unaware_before.total(), 12u);
  TideCompact(w, "a.unaware", false);
  ExpectMerged(unaware_before, LiveFilesOf(w, "a.unaware"), 5, "a.unaware, tide compact");
  ExpectSameAtEverySnapshot(w, "a.unaware");
}

TEST(AppendCompactInteropTest, JavaCompactsTideAppendTablesThenTideWritesOn) {
  tide::testing::TempDir dir;
  std::string w = dir.path() + "/lake";
  nlohmann::json fixed = FixedSpec(false);
  fixed["options"]["compaction.min.file-num"] = "50";  // only the compactions below
  ASSERT_TRUE(TideWriteSpec(w, fixed).ok());
  ASSERT_TRUE(TideWriteSpec(w, UnawareSpec()).ok());
  LiveFiles fixed_before = LiveFilesOf(w, "a.fixed"), unaware_before = LiveFilesOf(w, "a.unaware");
  EXPECT_EQ(fixed_before.total(), 14u);
  EXPECT_EQ(unaware_before.total(), 12u);
  std::vector<JavaResult> compacted = RunJavaBatch({{"compact", "--warehouse", w, "--table", "a.fixed", "--full"},
                                                    {"compact", "--warehouse", w, "--table", "a.unaware"}});
  ASSERT_TRUE(compacted[0].ok) << compacted[0].error;
  ASSERT_TRUE(compacted[1].ok) << compacted[1].error;
  ExpectMerged(fixed_before, LiveFilesOf(w, "a.fixed"), 3, "a.fixed, Java's full compaction");
  ExpectMerged(unaware_before, LiveFilesOf(w, "a.unaware"), 5, "a.unaware, Java's coordinator");
  // Tide writes on (continuing the buckets' sequence numbers after Java's files) and compacts again.
  ASSERT_TRUE(TideWriteSpec(w, More("a.fixed", 7, 4, false)).ok());
  ASSERT_TRUE(TideWriteSpec(w, More("a.unaware", 6, 4, true)).ok());
  for (auto [table, min_files] : {std::pair<const char*, size_t>{"a.fixed", 3}, {"a.unaware", 2}}) {
    LiveFiles before = LiveFilesOf(w, table);
    TideCompact(w, table, true);
    ExpectMerged(before, LiveFilesOf(w, table), min_files, std::string(table) + ", tide compact --full");
    ExpectSameAtEverySnapshot(w, table);
  }
  auto rows = TideRead(w, "a.fixed");
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(rows->size(), 66u);
}

TEST(AppendCompactInteropTest, TideCompactsJavaAppendTablesThenJavaWritesOn) {
  tide::testing::TempDir dir;
  std::string w = dir.path() + "/lake";
  std::filesystem::create_directories(w);
  nlohmann::json fixed = FixedSpec(false);
  fixed["options"]["compaction.min.file-num"] = "50";  // Java's writer leaves the files to Tide's compaction
  nlohmann::json unaware = UnawareSpec();
  std::vector<JavaResult> written =
      RunJavaBatch({{"write", "--warehouse", w, "--spec", WriteSpecFile(dir.path(), fixed)},
                    {"write", "--warehouse", w, "--spec", WriteSpecFile(dir.path(), unaware)}});
  ASSERT_TRUE(written[0].ok) << written[0].error;
  ASSERT_TRUE(written[1].ok) << written[1].error;
  for (auto [table, min_files] : {std::pair<const char*, size_t>{"a.fixed", 3}, {"a.unaware", 2}}) {
    LiveFiles before = LiveFilesOf(w, table);
    EXPECT_EQ(before.total(), std::string(table) == "a.fixed" ? 14u : 12u);
    TideCompact(w, table, true);
    ExpectMerged(before, LiveFilesOf(w, table), min_files, std::string(table) + ", tide compact --full");
  }
  std::vector<JavaResult> more =
      RunJavaBatch({{"write", "--warehouse", w, "--spec", WriteSpecFile(dir.path(), More("a.fixed", 7, 2, false))},
                    {"write", "--warehouse", w, "--spec", WriteSpecFile(dir.path(), More("a.unaware", 6, 2, true))}});
  ASSERT_TRUE(more[0].ok) << more[0].error;
  ASSERT_TRUE(more[1].ok) << more[1].error;
  ExpectSameAtEverySnapshot(w, "a.fixed");
  ExpectSameAtEverySnapshot(w, "a.unaware");
  auto rows = TideRead(w, "a.unaware");
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(rows->size(), 48u);
}

}  // namespace
}  // namespace tide::interop
