// Fault injection for FileStoreCommit: every file write and rename of a commit is made to fail in turn,
// before and after it takes effect, and the table must stay readable at its previous snapshot (or, for
// faults after publishing, at the new one).
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "testing/commit_builders.h"
#include "testing/fault_file_system.h"
#include "testing/temp_dir.h"
#include "tide/base/strings.h"
#include "tide/table/operation/file_store_commit.h"
#include "tide/table/operation/file_store_scan.h"

namespace tide {
namespace {

using testing::FaultFileSystem;
using testing::NewFilesMessage;
using testing::Partition;
using testing::PkFile;

IndexManifestEntry DvIndex(const std::string& name, const std::string& data_file) {
  IndexManifestEntry e;
  e.index_type = "DELETION_VECTORS";
  e.file_name = name;
  e.file_size = 31;
  e.row_count = 1;
  e.deletion_vectors = std::vector<DeletionVectorMeta>{{data_file, 1, 22, 1}};
  return e;
}

CommitOptions Options(int64_t identifier, CommitKind kind = CommitKind::kAppend) {
  CommitOptions o;
  o.commit_user = "writer";
  o.commit_identifier = identifier;
  o.kind = kind;
  return o;
}

FileStoreCommitConfig Config() {
  FileStoreCommitConfig config;
  ManifestMergeOptions merge;
  merge.merge_min_count = 2;  // so the commit under test also writes a merged manifest
  config.merge = merge;
  return config;
}

class FileStoreCommitFaultTest : public ::testing::Test {
 protected:
  void SetUp() override {
    schema_ = testing::CommitTestSchema();
    base_ = dir_.path() + "/base";
    FileSystem* local = FileSystem::Local();
    ASSERT_TRUE(testing::CreateTestTable(local, base_, schema_).ok());
    auto committer = FileStoreCommit::Create(local, base_, "db.t", Config()).value();
    ASSERT_TRUE(committer
                    ->Commit({NewFilesMessage(Partition("d1"), 0, 2, {PkFile("a1", 1, 5)}),
                              NewFilesMessage(Partition("d2"), 1, 2, {PkFile("a2", 1, 5)})},
                             Options(1))
                    .ok());
    CommitMessage second = NewFilesMessage(Partition("d1"), 0, 2, {PkFile("a3", 6, 9)});
    second.new_index_files = {DvIndex("index-1", "a1")};
    second.compact_after = {PkFile("a4", 20, 30, 5)};  // gives snapshot 3 a delta manifest to merge
    auto r = committer->Commit({second}, Options(2));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_EQ(r->snapshot_ids, (std::vector<int64_t>{2, 3}));
  }

  // The commit under test: a compaction with changelog and a replaced deletion-vector file.
  std::vector<CommitMessage> Messages() {
    CommitMessage m;
    m.partition = Partition("d1");
    m.bucket = 0;
    m.total_buckets = 2;
    m.compact_before = {PkFile("a1", 1, 5), PkFile("a3", 6, 9)};
    m.compact_after = {PkFile("c1", 1, 9, 5)};
    m.changelog_files = {PkFile("changelog-1", 1, 9)};
    m.new_index_files = {DvIndex("index-2", "c1")};
    m.deleted_index_files = {DvIndex("index-1", "a1")};
    return {m};
  }

  std::string Copy(const std::string& name) {
    std::string path = dir_.path() + "/" + name;
    std::filesystem::copy(base_, path, std::filesystem::copy_options::recursive);
    return path;
  }

  std::optional<int64_t> Latest(const std::string& table) {
    return SnapshotManager(FileSystem::Local(), table).LatestId().value();
  }

  std::multiset<std::string> Live(const std::string& table) {
    SnapshotManager snapshots(FileSystem::Local(), table);
    Snapshot s = snapshots.Get(*snapshots.LatestId().value()).value();
    FileStoreScan scan(FileSystem::Local(), table, "db.t", schema_);
    auto entries = scan.ReadLiveEntries(s);
    EXPECT_TRUE(entries.ok()) << entries.status().ToString();
    std::multiset<std::string> out;
    if (!entries.ok()) return out;
    for (const auto& e : *entries) out.insert(std::to_string(e.bucket) + "-" + std::to_string(e.file.level) + "-" + e.file.file_name);
    if (s.index_manifest) {
      auto index = ReadIndexManifest(FileSystem::Local(), table + "/manifest/" + *s.index_manifest).value();
      for (const auto& e : index) {
        out.insert("index:" + e.file_name);
      }
    }
    return out;
  }

  // Names in a folder, without the hidden temporary files a failed write may leave.
  std::set<std::string> Visible(const std::string& dir) {
    std::set<std::string> out;
    auto entries = FileSystem::Local()->ListDir(dir).value();
    for (const auto& e : entries) {
      if (!StartsWith(e.name, ".")) out.insert(e.name);
    }
    return out;
  }

  testing::TempDir dir_;
  TableSchema schema_;
  std::string base_;
};

// The file system operations of the compaction commit below, up to the snapshot's rename: 7 metadata
// files written under their final names (create, append, sync) and the snapshot (create, append, sync,
// rename).
constexpr int64_t kSnapshotRename = 7 * 3 + 4;

TEST_F(FileStoreCommitFaultTest, EveryFailedWriteOrRenameLeavesThePreviousSnapshot) {
  const std::multiset<std::string> before = Live(base_);
  const std::multiset<std::string> after{"0-5-c1", "0-5-a4", "1-0-a2", "index:index-2"};
  const std::set<std::string> manifests_before = Visible(base_ + "/manifest");

  // A clean run counts the operations of one commit.
  int64_t operations;
  std::vector<std::string> log;
  {
    std::string table = Copy("clean");
    FaultFileSystem ffs(FileSystem::Local());
    auto committer = FileStoreCommit::Create(&ffs, table, "db.t", Config()).value();
    ffs.Reset();
    auto r = committer->Commit(Messages(), Options(3, CommitKind::kCompact));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(Live(table), after);
    operations = ffs.operations();
    log = ffs.log();
  }
  // Merged manifest, base list, delta manifest and list, changelog manifest and list, index manifest:
  // 7 files of create + append + sync each, under their final names; the snapshot: create + append +
  // sync + rename; then the LATEST hint.
  ASSERT_EQ(operations, kSnapshotRename + 1) << Join(log, "\n");

  int failed_commits = 0, ambiguous = 0, hint_only = 0;
  for (auto when : {FaultFileSystem::When::kBefore, FaultFileSystem::When::kAfter}) {
    for (int64_t k = 1; k <= operations; ++k) {
      std::string table = Copy(fmt::format("k{}-{}", k, when == FaultFileSystem::When::kBefore ? "before" : "after"));
      FaultFileSystem ffs(FileSystem::Local());
      auto committer = FileStoreCommit::Create(&ffs, table, "db.t", Config()).value();
      ffs.FailAt(k, when);
      auto r = committer->Commit(Messages(), Options(3, CommitKind::kCompact));
      ASSERT_TRUE(ffs.fired());
      const std::string op = ffs.log().back();
      SCOPED_TRACE(fmt::format("fault {} operation {}: {}", when == FaultFileSystem::When::kBefore ? "before" : "after",
                               k, op));
      bool snapshot_rename = StartsWith(op, "rename") && op.find("/snapshot/snapshot-4") != std::string::npos;
      if (r.ok()) {
        // Only the best-effort hint comes after the snapshot is published.
        EXPECT_TRUE(StartsWith(op, "write-atomic") && EndsWith(op, "/snapshot/LATEST"));
        EXPECT_EQ(Latest(table), 4);
        EXPECT_EQ(Live(table), after);
        ++hint_only;
        continue;
      }
      if (snapshot_rename && when == FaultFileSystem::When::kAfter) {
        // The snapshot landed but the caller was told otherwise: it must not be cleaned up, and a
        // repeat of the commit recognizes it.
        EXPECT_TRUE(r.status().IsIOError()) << r.status().ToString();
        EXPECT_NE(r.status().message().find("may not be durable"), std::string::npos) << r.status().ToString();
        EXPECT_EQ(Latest(table), 4);
        EXPECT_EQ(Live(table), after);
        auto again = committer->Commit(Messages(), Options(3, CommitKind::kCompact));
        ASSERT_TRUE(again.ok()) << again.status().ToString();
        EXPECT_EQ(again->outcome, CommitOutcome::kAlreadyCommitted);
        EXPECT_EQ(Latest(table), 4);
        ++ambiguous;
        continue;
      }
      ++failed_commits;
      EXPECT_TRUE(r.status().IsIOError()) << r.status().ToString();
      EXPECT_NE(r.status().message().find("injected fault"), std::string::npos) << r.status().ToString();
      // The table is exactly as before: same latest snapshot, same files, no snapshot-4, and no
      // manifest left behind.
      EXPECT_EQ(Latest(table), 3);
      EXPECT_FALSE(FileSystem::Local()->Exists(table + "/snapshot/snapshot-4").value());
      EXPECT_EQ(Live(table), before);
      EXPECT_EQ(Visible(table + "/manifest"), manifests_before);
      // Committing again (the fault has passed) succeeds.
      auto again = committer->Commit(Messages(), Options(3, CommitKind::kCompact));
      ASSERT_TRUE(again.ok()) << again.status().ToString();
      EXPECT_EQ(again->outcome, CommitOutcome::kCommitted);
      EXPECT_EQ(Latest(table), 4);
      EXPECT_EQ(Live(table), after);
    }
  }
  EXPECT_EQ(hint_only, 2);
  EXPECT_EQ(ambiguous, 1);
  EXPECT_EQ(failed_commits, 2 * operations - 3);
}

// An exclusive create that reports AlreadyExists although it wrote this very commit's snapshot (an
// object store retrying a conditional put): the commit has landed, its manifests must stay, and the
// caller is told it committed.
TEST_F(FileStoreCommitFaultTest, AlreadyExistsForItsOwnSnapshotIsACommitThatKeepsItsManifests) {
  const std::multiset<std::string> after{"0-5-c1", "0-5-a4", "1-0-a2", "index:index-2"};
  std::string table = Copy("own-already-exists");
  FaultFileSystem ffs(FileSystem::Local());
  auto committer = FileStoreCommit::Create(&ffs, table, "db.t", Config()).value();
  // The snapshot's rename is the last counted operation before the hint (see the test above).
  ffs.FailAt(kSnapshotRename, FaultFileSystem::When::kAfter, FaultFileSystem::Fault::kAlreadyExists);
  auto r = committer->Commit(Messages(), Options(3, CommitKind::kCompact));
  ASSERT_TRUE(ffs.fired());
  ASSERT_GE(ffs.log().size(), static_cast<size_t>(kSnapshotRename));
  const std::string rename = ffs.log()[kSnapshotRename - 1];
  ASSERT_TRUE(StartsWith(rename, "rename")) << rename;
  ASSERT_NE(rename.find("/snapshot/snapshot-4"), std::string::npos) << rename;
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->outcome, CommitOutcome::kCommitted);
  EXPECT_EQ(r->snapshot_ids, std::vector<int64_t>{4});
  EXPECT_EQ(Latest(table), 4);
  EXPECT_EQ(Live(table), after);  // reads every manifest of snapshot 4: none was deleted
  auto again = committer->Commit(Messages(), Options(3, CommitKind::kCompact));
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->outcome, CommitOutcome::kAlreadyCommitted);
}

// AlreadyExists with no snapshot file to show for it: whether anything landed cannot be told, so the
// commit fails without deleting what a landed snapshot could reference, and a repeat commits.
TEST_F(FileStoreCommitFaultTest, AlreadyExistsWithoutASnapshotFileIsAnErrorThatCanBeRepeated) {
  const std::multiset<std::string> after{"0-5-c1", "0-5-a4", "1-0-a2", "index:index-2"};
  std::string table = Copy("phantom-already-exists");
  FaultFileSystem ffs(FileSystem::Local());
  auto committer = FileStoreCommit::Create(&ffs, table, "db.t", Config()).value();
  ffs.FailAt(kSnapshotRename, FaultFileSystem::When::kBefore, FaultFileSystem::Fault::kAlreadyExists);
  auto r = committer->Commit(Messages(), Options(3, CommitKind::kCompact));
  ASSERT_TRUE(ffs.fired());
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsIOError()) << r.status().ToString();
  EXPECT_NE(r.status().message().find("cannot be told"), std::string::npos) << r.status().ToString();
  EXPECT_EQ(Latest(table), 3);
  auto again = committer->Commit(Messages(), Options(3, CommitKind::kCompact));
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->outcome, CommitOutcome::kCommitted);
  EXPECT_EQ(Latest(table), 4);
  EXPECT_EQ(Live(table), after);
}

TEST_F(FileStoreCommitFaultTest, FailedCompactAfterLandedAppendIsReportedAndRepeatable) {
  std::string table = Copy("two");
  FaultFileSystem ffs(FileSystem::Local());
  auto committer = FileStoreCommit::Create(&ffs, table, "db.t", Config()).value();
  std::vector<CommitMessage> messages = Messages();
  messages[0].new_files = {PkFile("n1", 20, 30)};
  // A clean run shows where the APPEND snapshot ends (its LATEST hint); fail the next operation,
  // the first of the COMPACT snapshot.
  int64_t first_hint = 0;
  {
    std::string clean = Copy("two-clean");
    FaultFileSystem counting(FileSystem::Local());
    auto c = FileStoreCommit::Create(&counting, clean, "db.t", Config()).value();
    counting.Reset();
    auto r = c->Commit(messages, Options(3));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_EQ(r->snapshot_ids, (std::vector<int64_t>{4, 5}));
    auto log = counting.log();
    for (size_t i = 0; i < log.size() && first_hint == 0; ++i) {
      if (StartsWith(log[i], "write-atomic")) first_hint = static_cast<int64_t>(i) + 1;
    }
    ASSERT_GT(first_hint, 0);
    ASSERT_LT(first_hint, static_cast<int64_t>(log.size()));
  }
  ffs.FailAt(first_hint + 1);
  auto r = committer->Commit(messages, Options(3));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("snapshot 4 with the new files was committed"), std::string::npos)
      << r.status().ToString() << "\n" << Join(ffs.log(), "\n");
  EXPECT_EQ(Latest(table), 4);
  auto again = committer->Commit(messages, Options(3));
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->outcome, CommitOutcome::kAlreadyCommitted);
  EXPECT_EQ(Latest(table), 4);
  EXPECT_EQ(Live(table),
            (std::multiset<std::string>{"0-0-a1", "0-0-a3", "0-5-a4", "0-0-n1", "1-0-a2", "index:index-1"}));
}

}  // namespace
}  // namespace tide
