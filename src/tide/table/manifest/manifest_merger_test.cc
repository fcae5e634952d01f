#include "tide/table/manifest/manifest_merger.h"

#include <gtest/gtest.h>

#include <random>
#include <set>

#include "testing/commit_builders.h"
#include "testing/temp_dir.h"

namespace tide {
namespace {

using testing::Partition;

ManifestEntry Entry(FileKind kind, const std::string& file, const std::string& partition = Partition("p"),
                    int32_t level = 0) {
  ManifestEntry e;
  e.kind = kind;
  e.partition = partition;
  e.bucket = 0;
  e.total_buckets = 1;
  e.file = testing::PkFile(file, 1, 10, level);
  return e;
}

std::vector<std::string> Names(const std::vector<ManifestEntry>& entries) {
  std::vector<std::string> out;
  for (const auto& e : entries) out.push_back((e.kind == FileKind::kAdd ? "+" : "-") + e.file.file_name);
  return out;
}

class ManifestMergerTest : public ::testing::Test {
 protected:
  ManifestMergerTest() : writer_(FileSystem::Local(), dir_.path(), {DataType::String(false)}, &namer_) {}

  ManifestFileMeta Write(std::vector<ManifestEntry> entries) {
    auto metas = writer_.WriteManifests(entries);
    EXPECT_TRUE(metas.ok()) << metas.status().ToString();
    EXPECT_EQ(metas->size(), 1u);
    return metas->front();
  }

  // The live files (names) of a list of manifests, merged in order.
  std::set<std::string> Live(const std::vector<ManifestFileMeta>& metas) {
    FileEntryMerger merger;
    for (const auto& m : metas) EXPECT_TRUE(merger.AddAll(writer_.ReadManifest(m.file_name).value()).ok());
    std::set<std::string> out;
    for (const auto& e : merger.Entries()) {
      if (e.kind == FileKind::kAdd) out.insert(e.file.file_name + "@" + std::to_string(e.file.level));
    }
    return out;
  }

  size_t FilesInDir() {
    return FileSystem::Local()->ListDir(dir_.path()).value().size();
  }

  testing::TempDir dir_;
  ManifestFileNamer namer_;
  ManifestFileWriter writer_;
};

TEST(FileEntryMergerTest, MergesLikeJavasLinkedHashMap) {
  FileEntryMerger m;
  ASSERT_TRUE(m.Add(Entry(FileKind::kAdd, "a")).ok());
  ASSERT_TRUE(m.Add(Entry(FileKind::kAdd, "b")).ok());
  ASSERT_TRUE(m.Add(Entry(FileKind::kDelete, "a")).ok());   // cancels the ADD
  ASSERT_TRUE(m.Add(Entry(FileKind::kDelete, "c")).ok());   // its ADD is elsewhere: kept
  ASSERT_TRUE(m.Add(Entry(FileKind::kAdd, "a", Partition("p"), 1)).ok());  // another level: another file
  ASSERT_TRUE(m.Add(Entry(FileKind::kAdd, "a")).ok());      // re-added after its removal: at the end
  EXPECT_EQ(Names(m.Entries()), (std::vector<std::string>{"+b", "-c", "+a", "+a"}));
  Status dup = m.Add(Entry(FileKind::kAdd, "b"));
  EXPECT_TRUE(dup.IsConflict()) << dup.ToString();
  EXPECT_NE(dup.message().find("data file b"), std::string::npos);
  // A different partition, extra file or external path is a different identity.
  ManifestEntry other = Entry(FileKind::kAdd, "b", Partition("q"));
  EXPECT_TRUE(m.Add(other).ok());
  other = Entry(FileKind::kAdd, "b");
  other.file.extra_files = {"b.index"};
  EXPECT_TRUE(m.Add(other).ok());
  other = Entry(FileKind::kAdd, "b");
  other.file.external_path = "/ext/b";
  EXPECT_TRUE(m.Add(other).ok());
  EXPECT_EQ(m.TakeEntries().size(), 7u);
  EXPECT_EQ(m.size(), 0u);
}

TEST_F(ManifestMergerTest, MinorCompactionWaitsForMergeMinCount) {
  std::vector<ManifestFileMeta> input;
  for (int i = 0; i < 29; ++i) input.push_back(Write({Entry(FileKind::kAdd, "f" + std::to_string(i))}));
  ManifestMergeOptions options;  // 8 MiB target, 30 min count, 16 MiB full compaction
  auto r = MergeManifests(input, &writer_, options);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->manifests, input);  // 29 small manifests stay as they are
  EXPECT_TRUE(r->new_files.empty());

  input.push_back(Write({Entry(FileKind::kAdd, "f29")}));
  auto before = Live(input);
  r = MergeManifests(input, &writer_, options);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->manifests.size(), 1u);  // 30 reach the minimum: merged into one
  EXPECT_EQ(r->new_files, std::vector<std::string>{r->manifests[0].file_name});
  EXPECT_EQ(r->manifests[0].num_added_files, 30);
  EXPECT_EQ(Live(r->manifests), before);
}

TEST_F(ManifestMergerTest, MinorCompactionCancelsAddThenDeleteWithinARun) {
  std::vector<ManifestEntry> first{Entry(FileKind::kAdd, "old")};
  for (int i = 0; i < 50; ++i) first.push_back(Entry(FileKind::kAdd, "keep" + std::to_string(i)));
  std::vector<ManifestFileMeta> input{Write(first)};
  // A later run deletes "old" (added before the run) and adds then deletes "tmp".
  std::vector<ManifestFileMeta> run;
  run.push_back(Write({Entry(FileKind::kDelete, "old"), Entry(FileKind::kAdd, "tmp")}));
  run.push_back(Write({Entry(FileKind::kDelete, "tmp"), Entry(FileKind::kAdd, "new")}));
  ManifestMergeOptions options;
  options.target_file_size = input[0].file_size;  // the first manifest alone fills a run
  options.merge_min_count = 2;
  input.insert(input.end(), run.begin(), run.end());
  auto before = Live(input);
  auto r = MergeManifests(input, &writer_, options);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->manifests.size(), 2u);
  EXPECT_EQ(r->manifests[0], input[0]);  // a run of one is kept
  auto merged = writer_.ReadManifest(r->manifests[1].file_name).value();
  EXPECT_EQ(Names(merged), (std::vector<std::string>{"-old", "+new"}));  // the DELETE of an earlier ADD stays
  EXPECT_EQ(r->manifests[1].num_deleted_files, 1);
  EXPECT_EQ(Live(r->manifests), before);
  EXPECT_EQ(before.size(), 51u);
  EXPECT_EQ(before.count("old@0"), 0u);
}

TEST_F(ManifestMergerTest, FullCompactionDropsDeletesAndKeepsUntouchedPartitions) {
  // A big manifest of partition "a" that no DELETE touches, then small manifests of partition "b"
  // with additions and deletions.
  std::vector<ManifestEntry> big;
  for (int i = 0; i < 50; ++i) big.push_back(Entry(FileKind::kAdd, "a" + std::to_string(i), Partition("a")));
  std::vector<ManifestFileMeta> input{Write(big)};
  input.push_back(Write({Entry(FileKind::kAdd, "b1", Partition("b")), Entry(FileKind::kAdd, "b2", Partition("b"))}));
  input.push_back(Write({Entry(FileKind::kDelete, "b1", Partition("b")), Entry(FileKind::kAdd, "b3", Partition("b"))}));
  input.push_back(Write({Entry(FileKind::kAdd, "b4", Partition("b"))}));
  ManifestMergeOptions options;
  options.target_file_size = input[0].file_size;  // the big one needs no change
  options.full_compaction_threshold_size = 1;
  auto before = Live(input);
  auto r = MergeManifests(input, &writer_, options);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->manifests.size(), 2u);
  EXPECT_EQ(r->manifests[0], input[0]);  // partition "a" is not rewritten
  auto rewritten = writer_.ReadManifest(r->manifests[1].file_name).value();
  EXPECT_EQ(Names(rewritten), (std::vector<std::string>{"+b2", "+b3", "+b4"}));
  EXPECT_EQ(r->manifests[1].num_deleted_files, 0);
  EXPECT_EQ(Live(r->manifests), before);
}

TEST_F(ManifestMergerTest, FullCompactionRewritesBigManifestsWhosePartitionsLoseFiles) {
  std::vector<ManifestEntry> big;
  for (int i = 0; i < 50; ++i) big.push_back(Entry(FileKind::kAdd, "a" + std::to_string(i), Partition("a")));
  std::vector<ManifestFileMeta> input{Write(big)};
  input.push_back(Write({Entry(FileKind::kDelete, "a7", Partition("a"))}));
  input.push_back(Write({Entry(FileKind::kAdd, "z", Partition("a"))}));
  ManifestMergeOptions options;
  options.target_file_size = input[0].file_size;
  options.full_compaction_threshold_size = 1;
  auto before = Live(input);
  auto r = MergeManifests(input, &writer_, options);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  for (const auto& m : r->manifests) EXPECT_EQ(m.num_deleted_files, 0);
  EXPECT_EQ(Live(r->manifests), before);
  EXPECT_EQ(before.count("a7@0"), 0u);
  EXPECT_EQ(before.size(), 50u);
}

TEST_F(ManifestMergerTest, RandomHistoriesKeepTheLiveSet) {
  std::mt19937 rng(7);
  for (int round = 0; round < 8; ++round) {
    std::vector<ManifestFileMeta> input;
    std::vector<ManifestEntry> live;
    int next = 0;
    int manifests = 5 + static_cast<int>(rng() % 40);
    for (int i = 0; i < manifests; ++i) {
      std::vector<ManifestEntry> entries;
      int n = 1 + static_cast<int>(rng() % 4);
      for (int j = 0; j < n; ++j) {
        if (!live.empty() && rng() % 3 == 0) {
          size_t k = rng() % live.size();
          ManifestEntry d = live[k];
          d.kind = FileKind::kDelete;
          entries.push_back(d);
          live.erase(live.begin() + static_cast<long>(k));
        } else {
          ManifestEntry a = Entry(FileKind::kAdd, "f" + std::to_string(next++), Partition(rng() % 2 ? "x" : "y"),
                                  static_cast<int32_t>(rng() % 3));
          entries.push_back(a);
          live.push_back(a);
        }
      }
      input.push_back(Write(entries));
    }
    ManifestMergeOptions options;
    options.target_file_size = 2000 + static_cast<int64_t>(rng() % 4000);
    options.merge_min_count = 2 + static_cast<int32_t>(rng() % 10);
    options.full_compaction_threshold_size = rng() % 2 ? 1 : (1 << 30);
    auto before = Live(input);
    auto r = MergeManifests(input, &writer_, options);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(Live(r->manifests), before) << "round " << round;
    EXPECT_LE(r->manifests.size(), input.size());
  }
}

TEST_F(ManifestMergerTest, FailureLeavesNoNewFiles) {
  std::vector<ManifestFileMeta> input;
  for (int i = 0; i < 30; ++i) input.push_back(Write({Entry(FileKind::kAdd, "f" + std::to_string(i))}));
  input[25].file_name = "manifest-gone-0";
  ManifestMergeOptions options;
  // Runs of ten: the first two merge and write files before the missing manifest is read.
  options.target_file_size = input[0].file_size * 10 - 10;
  size_t files = FilesInDir();
  auto r = MergeManifests(input, &writer_, options);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(FilesInDir(), files);
}

}  // namespace
}  // namespace tide
