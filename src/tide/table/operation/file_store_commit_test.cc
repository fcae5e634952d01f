#include "tide/table/operation/file_store_commit.h"

#include <gtest/gtest.h>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <barrier>
#include <filesystem>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "testing/commit_builders.h"
#include "testing/temp_dir.h"
#include "testing/value_or_fail.h"
#include "tide/table/operation/file_store_scan.h"
#include "tide/table/schema/schema_manager.h"

namespace tide {
namespace {

using testing::CommitTestSchema;
using testing::NewFilesMessage;
using testing::Partition;
using testing::PkFile;

class FileStoreCommitTest : public ::testing::Test {
 protected:
  void SetUp() override { MakeTable(CommitTestSchema()); }

  void MakeTable(const TableSchema& schema) {
    schema_ = schema;
    table_ = dir_.path() + "/db.db/t";
    ASSERT_TRUE(FileSystem::Local()->DeleteRecursively(table_).ok());
    ASSERT_TRUE(testing::CreateTestTable(fs(), table_, schema_).ok());
  }

  FileSystem* fs() { return FileSystem::Local(); }

  std::unique_ptr<FileStoreCommit> Committer(FileStoreCommitConfig config = {}) {
    return testing::ValueOrFail(FileStoreCommit::Create(fs(), table_, "db.t", std::move(config)),
                                "FileStoreCommit::Create");
  }

  CommitOptions Options(int64_t identifier, std::string user = "writer-a") {
    CommitOptions o;
    o.commit_user = std::move(user);
    o.commit_identifier = identifier;
    return o;
  }

  std::optional<int64_t> Latest() { return SnapshotManager(fs(), table_).LatestId().value(); }
  Snapshot Get(int64_t id) { return SnapshotManager(fs(), table_).Get(id).value(); }

  // The live files of the latest snapshot, as "partition-bucket-level-name" strings.
  std::multiset<std::string> LiveFiles() {
    auto latest = Latest();
    if (!latest) return {};
    FileStoreScan scan(fs(), table_, "db.t", schema_);
    auto entries = scan.ReadLiveEntries(Get(*latest));
    EXPECT_TRUE(entries.ok()) << entries.status().ToString();
    std::multiset<std::string> out;
    for (const auto& e : *entries) {
      EXPECT_EQ(e.kind, FileKind::kAdd);
      out.insert(Describe(e.partition, e.bucket, e.file));
    }
    return out;
  }

  static std::string Describe(const std::string& partition, int32_t bucket, const DataFileMeta& f) {
    std::string dt = partition == testing::UnpartitionedPartition() ? "" : DeserializeBinaryRow(partition, std::vector<DataType>{DataType::String(false)}).value()[0].as_string();
    return dt + "-" + std::to_string(bucket) + "-" + std::to_string(f.level) + "-" + f.file_name;
  }

  std::set<std::string> ManifestDir() {
    std::set<std::string> out;
    auto entries = fs()->ListDir(table_ + "/manifest");
    if (!entries.ok()) return out;
    for (const auto& e : *entries) out.insert(e.name);
    return out;
  }

  testing::TempDir dir_;
  TableSchema schema_;
  std::string table_;
};

// The snapshot keys Java 1.2 writes, in order (from the Java-written fixture's snapshot-1).
std::vector<std::string> JsonKeys(const std::string& text) {
  std::vector<std::string> keys;
  auto j = nlohmann::ordered_json::parse(text);
  for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
  return keys;
}

TEST_F(FileStoreCommitTest, FirstCommitWritesJavasSnapshotLayout) {
  auto committer = Committer();
  auto r = committer->Commit({NewFilesMessage(Partition("2024-01-01"), 0, 2, {PkFile("data-a-0.parquet", 1, 5)}),
                              NewFilesMessage(Partition("2024-01-02"), 1, 2, {PkFile("data-a-1.parquet", 3, 9)})},
                             Options(1));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->outcome, CommitOutcome::kCommitted);
  EXPECT_EQ(r->snapshot_ids, std::vector<int64_t>{1});
  EXPECT_EQ(Latest(), 1);
  EXPECT_EQ(fs()->ReadFile(table_ + "/snapshot/LATEST").value(), "1");
  EXPECT_EQ(fs()->ReadFile(table_ + "/snapshot/EARLIEST").value(), "1");

  std::string text = fs()->ReadFile(table_ + "/snapshot/snapshot-1").value();
  std::string java = fs()->ReadFile(testing::JavaFixtureWarehouse() +
                                    "/pk_table_with_dv_cardinality.db/pk_table_with_dv_cardinality/snapshot/snapshot-1")
                         .value();
  EXPECT_EQ(JsonKeys(text), JsonKeys(java));  // same fields, same order, same nulls
  EXPECT_NE(text.find("\"changelogManifestList\" : null"), std::string::npos) << text;
  EXPECT_NE(text.find("\"logOffsets\" : { }"), std::string::npos) << text;

  Snapshot s = Get(1);
  EXPECT_EQ(s.version, 3);
  EXPECT_EQ(s.schema_id, 0);
  EXPECT_EQ(s.commit_user, "writer-a");
  EXPECT_EQ(s.commit_identifier, 1);
  EXPECT_EQ(s.commit_kind, CommitKind::kAppend);
  EXPECT_EQ(*s.total_record_count, 12);
  EXPECT_EQ(*s.delta_record_count, 12);
  EXPECT_EQ(*s.changelog_record_count, 0);
  EXPECT_FALSE(s.index_manifest);
  EXPECT_FALSE(s.properties);
  std::string uuid = committer->manifest_uuid();
  EXPECT_EQ(s.base_manifest_list, "manifest-list-" + uuid + "-0");
  EXPECT_EQ(s.delta_manifest_list, "manifest-list-" + uuid + "-1");
  EXPECT_EQ(*s.base_manifest_list_size,
            static_cast<int64_t>(fs()->Stat(table_ + "/manifest/" + s.base_manifest_list)->size));
  EXPECT_EQ(*s.delta_manifest_list_size,
            static_cast<int64_t>(fs()->Stat(table_ + "/manifest/" + s.delta_manifest_list)->size));
  // An empty manifest list is byte for byte as long as Java's (the fixture's first base list).
  EXPECT_EQ(*s.base_manifest_list_size, 884);
  EXPECT_NEAR(static_cast<double>(s.time_millis),
              static_cast<double>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                      std::chrono::system_clock::now().time_since_epoch())
                                      .count()),
              60000.0);

  EXPECT_EQ(LiveFiles(), (std::multiset<std::string>{"2024-01-01-0-0-data-a-0.parquet",
                                                      "2024-01-02-1-0-data-a-1.parquet"}));
}

TEST_F(FileStoreCommitTest, SecondCommitAddsToTheLiveFilesAndCarriesProperties) {
  auto committer = Committer();
  ASSERT_TRUE(committer->Commit({NewFilesMessage(Partition("d1"), 0, 2, {PkFile("f1", 1, 5)})}, Options(1)).ok());
  CommitOptions o = Options(2);
  o.properties = {{"tide.source.lsn", "0/16B3748"}, {"tide.slot", "s"}};
  auto r = committer->Commit({NewFilesMessage(Partition("d1"), 1, 2, {PkFile("f2", 1, 3)}),
                              NewFilesMessage(Partition("d2"), 0, 2, {PkFile("f3", 7, 7)})},
                             o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->snapshot_ids, std::vector<int64_t>{2});
  Snapshot s = Get(2);
  EXPECT_EQ(*s.total_record_count, 5 + 3 + 1);
  EXPECT_EQ(*s.delta_record_count, 4);
  EXPECT_EQ(s.properties, o.properties);
  std::string text = fs()->ReadFile(table_ + "/snapshot/snapshot-2").value();
  EXPECT_NE(text.find("\"properties\" : {\n    \"tide.slot\" : \"s\",\n    \"tide.source.lsn\" : \"0/16B3748\"\n  }"),
            std::string::npos)
      << text;
  // The new base list holds the previous delta manifest.
  auto base = ReadManifestList(fs(), table_ + "/manifest/" + s.base_manifest_list).value();
  auto previous_delta = ReadManifestList(fs(), table_ + "/manifest/" + Get(1).delta_manifest_list).value();
  EXPECT_EQ(base, previous_delta);
  EXPECT_EQ(LiveFiles(), (std::multiset<std::string>{"d1-0-0-f1", "d1-1-0-f2", "d2-0-0-f3"}));
  EXPECT_EQ(fs()->ReadFile(table_ + "/snapshot/LATEST").value(), "2");
  EXPECT_EQ(fs()->ReadFile(table_ + "/snapshot/EARLIEST").value(), "1");
}

TEST_F(FileStoreCommitTest, KeepsTheManifestsOfItsLatestSnapshotDecodedAndNoOthers) {
  auto committer = Committer();
  // 45 commits, past manifest.merge-min-count (30): the base list is merged on the way; each commit also
  // writes a changelog manifest, which no later commit reads.
  for (int i = 1; i <= 45; ++i) {
    CommitMessage m = NewFilesMessage(Partition(i % 2 ? "d1" : "d2"), 0, 2, {PkFile("f" + std::to_string(i), i, i)});
    m.changelog_files = {PkFile("c" + std::to_string(i), i, i)};
    auto r = committer->Commit({m}, Options(i));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    Snapshot s = Get(*Latest());
    std::set<std::string> listed;
    for (const std::string& list : {s.base_manifest_list, s.delta_manifest_list}) {
      const std::vector<ManifestFileMeta> metas = ReadManifestList(fs(), table_ + "/manifest/" + list).value();
      for (const auto& meta : metas) listed.insert(meta.file_name);
    }
    const ManifestEntryCache& cache = committer->manifest_cache();
    EXPECT_EQ(cache.files(), listed.size()) << "after commit " << i;
    for (const std::string& name : listed) {
      auto held = cache.Find(name);
      ASSERT_NE(held, nullptr) << name << " after commit " << i;
      EXPECT_EQ(*held, ReadManifest(fs(), table_ + "/manifest/" + name).value());
    }
  }
  EXPECT_EQ(LiveFiles().size(), 45u);
}

TEST_F(FileStoreCommitTest, CompactionReplacesFiles) {
  auto committer = Committer();
  ASSERT_TRUE(committer
                  ->Commit({NewFilesMessage(Partition("d"), 0, 2, {PkFile("f1", 1, 5, 0, 5), PkFile("f2", 4, 9, 0, 6)})},
                           Options(1))
                  .ok());
  CommitMessage compact;
  compact.partition = Partition("d");
  compact.bucket = 0;
  compact.total_buckets = 2;
  compact.compact_before = {PkFile("f1", 1, 5, 0, 5), PkFile("f2", 4, 9, 0, 6)};
  compact.compact_after = {PkFile("f3", 1, 9, 5, 9)};
  CommitOptions o = Options(2);
  o.kind = CommitKind::kCompact;
  auto r = committer->Commit({compact}, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  Snapshot s = Get(2);
  EXPECT_EQ(s.commit_kind, CommitKind::kCompact);
  EXPECT_EQ(*s.delta_record_count, 9 - 11);
  EXPECT_EQ(*s.total_record_count, 9);
  EXPECT_EQ(LiveFiles(), (std::multiset<std::string>{"d-0-5-f3"}));

  // Java's commit(): new files and compaction in one call give APPEND then COMPACT, one identifier.
  CommitMessage both = NewFilesMessage(Partition("d"), 0, 2, {PkFile("f4", 20, 30)});
  both.compact_before = {PkFile("f3", 1, 9, 5, 9)};
  both.compact_after = {PkFile("f3", 1, 9, 4, 9)};  // a level change: DELETE at 5, ADD at 4
  r = committer->Commit({both}, Options(3));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->snapshot_ids, (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(Get(3).commit_kind, CommitKind::kAppend);
  EXPECT_EQ(Get(4).commit_kind, CommitKind::kCompact);
  EXPECT_EQ(Get(3).commit_identifier, 3);
  EXPECT_EQ(Get(4).commit_identifier, 3);
  EXPECT_EQ(*Get(4).total_record_count, 9 + 11);
  EXPECT_EQ(LiveFiles(), (std::multiset<std::string>{"d-0-0-f4", "d-0-4-f3"}));
}

// Another engine compacted the files first: with give_up_lost_compaction the APPEND snapshot stands
// and the COMPACT one is given up (said in the result); without it the call fails, naming both.
TEST_F(FileStoreCommitTest, LostCompactionIsGivenUpAfterTheAppendWhenAsked) {
  auto committer = Committer();
  ASSERT_TRUE(committer->Commit({NewFilesMessage(Partition("d"), 0, 2, {PkFile("f1", 1, 10, 5)})}, Options(1)).ok());
  auto lost = [](const std::string& new_file) {
    CommitMessage m = NewFilesMessage(Partition("d"), 0, 2, {PkFile(new_file, 20, 30)});
    m.compact_before = {PkFile("compacted-away", 1, 10, 5)};  // not live: another writer replaced it
    m.compact_after = {PkFile("mine", 1, 10, 5)};
    return m;
  };
  auto failed = committer->Commit({lost("f2")}, Options(2));
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().message().find("the COMPACT snapshot after it was not"), std::string::npos)
      << failed.status().ToString();
  EXPECT_EQ(Latest(), 2);

  CommitOptions give_up = Options(3);
  give_up.give_up_lost_compaction = true;
  auto r = committer->Commit({lost("f3")}, give_up);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->outcome, CommitOutcome::kCommitted);
  EXPECT_EQ(r->snapshot_ids, (std::vector<int64_t>{3}));
  ASSERT_TRUE(r->compaction_lost.has_value());
  EXPECT_TRUE(r->compaction_lost->IsConflict()) << r->compaction_lost->ToString();
  EXPECT_EQ(Latest(), 3);
  EXPECT_EQ(Get(3).commit_kind, CommitKind::kAppend);
  EXPECT_EQ(LiveFiles(), (std::multiset<std::string>{"d-0-5-f1", "d-0-0-f2", "d-0-0-f3"}));
}

// Java's LocalFileIO checks that snapshot-<id> is absent, then renames over it: a Java committer in
// another process can replace a snapshot Tide published a moment before. RecheckLastCommit finds the
// replaced snapshot and commits its files again on top of the one that replaced it; a replaced
// COMPACT snapshot is reported as a lost compaction instead.
TEST_F(FileStoreCommitTest, ASnapshotReplacedByAnotherCommitterIsFoundAndItsFilesCommittedAgain) {
  auto mine = Committer();
  auto other = Committer();
  const std::string snapshot_dir = table_ + "/snapshot/";
  ASSERT_TRUE(mine->Commit({NewFilesMessage(Partition("d"), 0, 2, {PkFile("f1", 1, 5, 0, 5)})}, Options(1)).ok());
  auto untouched = mine->RecheckLastCommit();
  ASSERT_TRUE(untouched.ok()) << untouched.status().ToString();
  EXPECT_TRUE(untouched->replaced.empty());
  EXPECT_FALSE(untouched->recommitted.has_value());

  ASSERT_TRUE(mine->Commit({NewFilesMessage(Partition("d"), 0, 2, {PkFile("f2", 4, 9)})}, Options(2)).ok());
  ASSERT_EQ(Latest(), 2);
  // The other committer's snapshot 2 was built on snapshot 1 (it compacts f1) and lands over ours.
  ASSERT_TRUE(fs()->DeleteFile(snapshot_dir + "snapshot-2").ok());
  CommitMessage compact;
  compact.partition = Partition("d");
  compact.bucket = 0;
  compact.total_buckets = 2;
  compact.compact_before = {PkFile("f1", 1, 5, 0, 5)};
  compact.compact_after = {PkFile("f1c", 1, 5, /*level=*/5)};
  CommitOptions java = Options(7, "java");
  java.kind = CommitKind::kCompact;
  ASSERT_TRUE(other->Commit({compact}, java).ok());
  ASSERT_EQ(Get(2).commit_user, "java");
  EXPECT_EQ(LiveFiles(), (std::multiset<std::string>{"d-0-5-f1c"}));  // f2 is lost

  auto repaired = mine->RecheckLastCommit();
  ASSERT_TRUE(repaired.ok()) << repaired.status().ToString();
  EXPECT_EQ(repaired->replaced, (std::vector<int64_t>{2}));
  ASSERT_EQ(repaired->recommitted, std::optional<int64_t>(3));
  EXPECT_FALSE(repaired->compaction_lost.has_value());
  EXPECT_EQ(Get(3).commit_user, "writer-a");
  EXPECT_EQ(Get(3).commit_identifier, 2);
  EXPECT_EQ(Get(3).commit_kind, CommitKind::kAppend);
  EXPECT_EQ(LiveFiles(), (std::multiset<std::string>{"d-0-5-f1c", "d-0-0-f2"}));
  auto again = mine->RecheckLastCommit();
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->replaced.empty());
  // The repeated identifier is known as committed.
  auto repeated = mine->Commit({NewFilesMessage(Partition("d"), 0, 2, {PkFile("f2", 4, 9)})}, Options(2));
  ASSERT_TRUE(repeated.ok());
  EXPECT_EQ(repeated->outcome, CommitOutcome::kAlreadyCommitted);

  // Our COMPACT snapshot replaced: reported, not committed again (its inputs may be gone).
  CommitMessage ours;
  ours.partition = Partition("d");
  ours.bucket = 0;
  ours.total_buckets = 2;
  ours.compact_before = {PkFile("f2", 4, 9)};
  ours.compact_after = {PkFile("f2c", 4, 9, /*level=*/4)};
  CommitOptions compact_options = Options(3);
  compact_options.kind = CommitKind::kCompact;
  ASSERT_TRUE(mine->Commit({ours}, compact_options).ok());
  ASSERT_EQ(Latest(), 4);
  ASSERT_TRUE(fs()->DeleteFile(snapshot_dir + "snapshot-4").ok());
  ASSERT_TRUE(other->Commit({NewFilesMessage(Partition("d"), 1, 2, {PkFile("g1", 1, 2)})}, Options(8, "java")).ok());
  ASSERT_EQ(Get(4).commit_user, "java");
  auto lost = mine->RecheckLastCommit();
  ASSERT_TRUE(lost.ok()) << lost.status().ToString();
  EXPECT_EQ(lost->replaced, (std::vector<int64_t>{4}));
  EXPECT_FALSE(lost->recommitted.has_value());
  ASSERT_TRUE(lost->compaction_lost.has_value());
  EXPECT_TRUE(lost->compaction_lost->IsConflict());
  EXPECT_EQ(Latest(), 4);
  EXPECT_EQ(LiveFiles(), (std::multiset<std::string>{"d-0-5-f1c", "d-0-0-f2", "d-1-0-g1"}));
}

TEST_F(FileStoreCommitTest, ConflictsAreRefusedAndLeaveNothingBehind) {
  auto committer = Committer();
  ASSERT_TRUE(committer->Commit({NewFilesMessage(Partition("d"), 0, 2, {PkFile("f1", 1, 10, 5)})}, Options(1)).ok());
  auto manifests = ManifestDir();
  auto live = LiveFiles();
  auto expect_conflict = [&](std::vector<CommitMessage> messages, CommitKind kind, const std::string& words,
                             int64_t identifier) {
    CommitOptions o = Options(identifier);
    o.kind = kind;
    auto r = committer->Commit(messages, o);
    ASSERT_FALSE(r.ok()) << words;
    EXPECT_TRUE(r.status().IsConflict()) << r.status().ToString();
    EXPECT_NE(r.status().message().find(words), std::string::npos) << r.status().ToString();
    EXPECT_NE(r.status().message().find("db.t"), std::string::npos) << r.status().ToString();
    EXPECT_EQ(Latest(), 1);
    EXPECT_EQ(LiveFiles(), live);
    EXPECT_EQ(ManifestDir(), manifests);
  };

  // Deleting a file that is not live.
  CommitMessage gone;
  gone.partition = Partition("d");
  gone.total_buckets = 2;
  gone.compact_before = {PkFile("nope", 1, 10, 5)};
  expect_conflict({gone}, CommitKind::kCompact, "nope", 2);
  // Deleting a live file at the wrong level is deleting another file.
  gone.compact_before = {PkFile("f1", 1, 10, 4)};
  expect_conflict({gone}, CommitKind::kCompact, "is to be deleted but is not live", 2);
  // Adding a file that is live already.
  expect_conflict({NewFilesMessage(Partition("d"), 0, 2, {PkFile("f1", 1, 10, 5)})}, CommitKind::kAppend,
                  "already live", 2);
  // Another bucket count in the same partition.
  expect_conflict({NewFilesMessage(Partition("d"), 0, 3, {PkFile("g", 1, 1)})}, CommitKind::kAppend, "bucket count", 2);
  // Overlapping key ranges in one level >= 1.
  CommitMessage overlap;
  overlap.partition = Partition("d");
  overlap.total_buckets = 2;
  overlap.compact_after = {PkFile("f2", 10, 20, 5)};
  expect_conflict({overlap}, CommitKind::kCompact, "overlap", 2);

  // Not conflicts: adjacent ranges, another level, another bucket, level 0.
  overlap.compact_after = {PkFile("f2", 11, 20, 5), PkFile("f3", 5, 6, 4)};
  CommitMessage other_bucket;
  other_bucket.partition = Partition("d");
  other_bucket.bucket = 1;
  other_bucket.total_buckets = 2;
  other_bucket.compact_after = {PkFile("f4", 1, 10, 5)};
  CommitOptions o = Options(2);
  o.kind = CommitKind::kCompact;
  auto r = committer->Commit({overlap, other_bucket, NewFilesMessage(Partition("d"), 0, 2, {})}, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(LiveFiles(), (std::multiset<std::string>{"d-0-5-f1", "d-0-5-f2", "d-0-4-f3", "d-1-5-f4"}));
}

TEST_F(FileStoreCommitTest, TheFirstCommitIsCheckedToo) {
  auto committer = Committer();
  CommitMessage m;
  m.partition = Partition("d");
  m.total_buckets = 2;
  m.compact_after = {PkFile("f1", 1, 10, 5), PkFile("f2", 10, 20, 5)};
  CommitOptions o = Options(1);
  o.kind = CommitKind::kCompact;
  auto r = committer->Commit({m}, o);
  EXPECT_TRUE(r.status().IsConflict()) << r.status().ToString();
  m.compact_after = {PkFile("f1", 1, 10, 5)};
  m.compact_before = {PkFile("f0", 1, 10, 0)};
  r = committer->Commit({m}, o);
  EXPECT_TRUE(r.status().IsConflict()) << r.status().ToString();
  EXPECT_NE(r.status().message().find("not live"), std::string::npos) << r.status().ToString();
  r = committer->Commit({NewFilesMessage(Partition("d"), 0, 2, {PkFile("f1", 1, 1), PkFile("f1", 1, 1)})}, Options(1));
  EXPECT_TRUE(r.status().IsConflict()) << r.status().ToString();
  EXPECT_FALSE(Latest());
  EXPECT_TRUE(ManifestDir().empty());
}

TEST_F(FileStoreCommitTest, RepeatedCommitIsReportedNotDuplicated) {
  auto committer = Committer();
  auto msg = [](const std::string& name) { return NewFilesMessage(Partition("d"), 0, 2, {PkFile(name, 1, 1)}); };
  ASSERT_EQ(committer->Commit({msg("f1")}, Options(1))->outcome, CommitOutcome::kCommitted);
  auto again = committer->Commit({msg("f1")}, Options(1));
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->outcome, CommitOutcome::kAlreadyCommitted);
  EXPECT_TRUE(again->snapshot_ids.empty());
  EXPECT_EQ(committer->Commit({msg("f0")}, Options(0))->outcome, CommitOutcome::kAlreadyCommitted);
  EXPECT_EQ(Latest(), 1);

  // Another writer commits in between; a new committer (a restart) still finds writer-a's commit.
  ASSERT_EQ(Committer()->Commit({msg("g1")}, Options(1, "writer-b"))->outcome, CommitOutcome::kCommitted);
  ASSERT_EQ(committer->Commit({msg("f2")}, Options(2))->outcome, CommitOutcome::kCommitted);
  ASSERT_EQ(Committer()->Commit({msg("g2")}, Options(2, "writer-b"))->outcome, CommitOutcome::kCommitted);
  auto restarted = Committer();
  EXPECT_EQ(restarted->Commit({msg("f2")}, Options(2))->outcome, CommitOutcome::kAlreadyCommitted);
  EXPECT_EQ(restarted->Commit({msg("f3")}, Options(3))->outcome, CommitOutcome::kCommitted);
  EXPECT_EQ(Latest(), 5);
  EXPECT_EQ(LiveFiles(), (std::multiset<std::string>{"d-0-0-f1", "d-0-0-g1", "d-0-0-f2", "d-0-0-g2", "d-0-0-f3"}));
}

TEST_F(FileStoreCommitTest, EmptyCommits) {
  auto committer = Committer();
  auto r = committer->Commit({}, Options(1));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->outcome, CommitOutcome::kNothingToCommit);
  EXPECT_FALSE(Latest());
  CommitOptions o = Options(1);
  o.allow_empty = true;
  o.properties = {{"lsn", "0/1"}};
  r = committer->Commit({NewFilesMessage(Partition("d"), 0, 2, {})}, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->snapshot_ids, std::vector<int64_t>{1});
  Snapshot s = Get(1);
  EXPECT_EQ(s.commit_kind, CommitKind::kAppend);
  EXPECT_EQ(*s.total_record_count, 0);
  EXPECT_EQ(s.properties->at("lsn"), "0/1");
  EXPECT_TRUE(LiveFiles().empty());
}

TEST_F(FileStoreCommitTest, CarriesSchemaIdWatermarkAndStatistics) {
  auto committer = Committer();
  auto msg = [](const std::string& name) { return NewFilesMessage(Partition("d"), 0, 2, {PkFile(name, 1, 1)}); };
  CommitOptions o = Options(1);
  o.watermark = 100;
  ASSERT_TRUE(committer->Commit({msg("f1")}, o).ok());
  EXPECT_EQ(Get(1).watermark, 100);
  o = Options(2);
  o.watermark = 50;  // the watermark never goes back
  ASSERT_TRUE(committer->Commit({msg("f2")}, o).ok());
  EXPECT_EQ(Get(2).watermark, 100);

  // An ANALYZE snapshot (as Java writes it) names a statistics file of schema 0.
  ASSERT_TRUE(fs()->WriteFileExclusive(table_ + "/statistics/stat-x-0",
                                       R"({"snapshotId":2,"schemaId":0,"mergedRecordCount":2,"colStats":{}})")
                  .ok());
  Snapshot analyze = Get(2);
  analyze.id = 3;
  analyze.commit_kind = CommitKind::kAnalyze;
  analyze.commit_user = "analyzer";
  analyze.delta_record_count = 0;
  analyze.statistics = "stat-x-0";
  ASSERT_TRUE(fs()->WriteFileExclusive(table_ + "/snapshot/snapshot-3", analyze.ToJson()).ok());
  ASSERT_TRUE(committer->Commit({msg("f3")}, Options(3)).ok());
  EXPECT_EQ(Get(4).statistics, "stat-x-0");  // same schema: carried over
  EXPECT_EQ(Get(4).watermark, 100);
  EXPECT_EQ(*Get(4).total_record_count, 3);

  // A new schema version: the next snapshot has its id, and the old statistics are dropped.
  TableSchema evolved = schema_;
  evolved.id = 1;
  evolved.fields.push_back(DataField{3, "w", DataType::Int(), std::nullopt, std::nullopt});
  evolved.highest_field_id = 3;
  ASSERT_TRUE(fs()->WriteFileExclusive(table_ + "/schema/schema-1", evolved.ToJson()).ok());
  ASSERT_TRUE(committer->Commit({msg("f4")}, Options(4)).ok());
  EXPECT_EQ(Get(5).schema_id, 1);
  EXPECT_FALSE(Get(5).statistics);
}

TEST_F(FileStoreCommitTest, ChangelogGetsItsOwnList) {
  auto committer = Committer();
  CommitMessage m = NewFilesMessage(Partition("d"), 0, 2, {PkFile("data-1", 1, 4)});
  m.changelog_files = {PkFile("changelog-1", 1, 4, 0, 7)};
  ASSERT_TRUE(committer->Commit({m}, Options(1)).ok());
  Snapshot s = Get(1);
  ASSERT_TRUE(s.changelog_manifest_list);
  EXPECT_EQ(*s.changelog_manifest_list_size,
            static_cast<int64_t>(fs()->Stat(table_ + "/manifest/" + *s.changelog_manifest_list)->size));
  EXPECT_EQ(*s.changelog_record_count, 7);
  EXPECT_EQ(*s.total_record_count, 4);
  auto lists = ReadManifestList(fs(), table_ + "/manifest/" + *s.changelog_manifest_list).value();
  ASSERT_EQ(lists.size(), 1u);
  auto entries = ReadManifest(fs(), table_ + "/manifest/" + lists[0].file_name).value();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].file.file_name, "changelog-1");
  EXPECT_EQ(LiveFiles(), (std::multiset<std::string>{"d-0-0-data-1"}));
  // Changelog is not carried into later snapshots.
  ASSERT_TRUE(committer->Commit({NewFilesMessage(Partition("d"), 0, 2, {PkFile("data-2", 5, 5)})}, Options(2)).ok());
  EXPECT_FALSE(Get(2).changelog_manifest_list);
}

IndexManifestEntry DvIndex(const std::string& name, std::vector<std::string> data_files) {
  IndexManifestEntry e;
  e.index_type = "DELETION_VECTORS";
  e.file_name = name;
  e.file_size = 100;
  e.row_count = static_cast<int64_t>(data_files.size());
  std::vector<DeletionVectorMeta> dvs;
  int32_t offset = 1;
  for (auto& f : data_files) {
    dvs.push_back(DeletionVectorMeta{f, offset, 22, 1});
    offset += 30;
  }
  e.deletion_vectors = std::move(dvs);
  return e;
}

TEST_F(FileStoreCommitTest, IndexManifestIsReplacedPerBucket) {
  auto committer = Committer();
  CommitMessage m = NewFilesMessage(Partition("d"), 0, 2, {PkFile("f1", 1, 4)});
  ASSERT_TRUE(committer->Commit({m}, Options(1)).ok());
  EXPECT_FALSE(Get(1).index_manifest);

  auto dv = [&](int32_t bucket, std::vector<IndexManifestEntry> add, std::vector<IndexManifestEntry> del) {
    CommitMessage c;
    c.partition = Partition("d");
    c.bucket = bucket;
    c.total_buckets = 2;
    c.new_index_files = std::move(add);
    c.deleted_index_files = std::move(del);
    return c;
  };
  auto r = committer->Commit({dv(0, {DvIndex("index-1", {"f1"})}, {}), dv(1, {DvIndex("index-2", {"x"})}, {})},
                             Options(2));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Get(2).commit_kind, CommitKind::kCompact);  // deletion vectors come from compaction
  auto names = [&](int64_t id) {
    std::set<std::string> out;
    auto index = ReadIndexManifest(fs(), table_ + "/manifest/" + *Get(id).index_manifest).value();
    for (const auto& e : index) {
      EXPECT_EQ(e.kind, FileKind::kAdd);
      EXPECT_EQ(e.partition, Partition("d"));
      out.insert(std::to_string(e.bucket) + ":" + e.file_name);
    }
    return out;
  };
  EXPECT_EQ(names(2), (std::set<std::string>{"0:index-1", "1:index-2"}));
  // A new vector file for bucket 0 replaces the old one; bucket 1 keeps its file.
  r = committer->Commit({dv(0, {DvIndex("index-3", {"f1"})}, {DvIndex("index-1", {"f1"})})}, Options(3));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(names(3), (std::set<std::string>{"0:index-3", "1:index-2"}));
  // A commit without index changes keeps the index manifest file.
  ASSERT_TRUE(committer->Commit({NewFilesMessage(Partition("d"), 0, 2, {PkFile("f2", 9, 9)})}, Options(4)).ok());
  EXPECT_EQ(Get(4).index_manifest, Get(3).index_manifest);
  // Removing the last vector file of bucket 1 leaves bucket 0's.
  r = committer->Commit({dv(1, {}, {DvIndex("index-2", {"x"})})}, Options(5));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(names(5), (std::set<std::string>{"0:index-3"}));
}

TEST_F(FileStoreCommitTest, OverwriteReplacesPartitionsOrTheWholeTable) {
  auto committer = Committer();
  ASSERT_TRUE(committer
                  ->Commit({NewFilesMessage(Partition("a"), 0, 2, {PkFile("a1", 1, 2), PkFile("a2", 3, 4)}),
                            NewFilesMessage(Partition("b"), 1, 2, {PkFile("b1", 1, 2)})},
                           Options(1))
                  .ok());
  auto r = committer->Overwrite(OverwriteScope::Partitions({Partition("a")}),
                                {NewFilesMessage(Partition("a"), 1, 2, {PkFile("a3", 1, 9)})}, Options(2));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  Snapshot s = Get(2);
  EXPECT_EQ(s.commit_kind, CommitKind::kOverwrite);
  EXPECT_EQ(*s.total_record_count, 2 + 9);
  EXPECT_EQ(*s.delta_record_count, 9 - 4);
  EXPECT_EQ(LiveFiles(), (std::multiset<std::string>{"a-1-0-a3", "b-1-0-b1"}));

  auto outside = committer->Overwrite(OverwriteScope::Partitions({Partition("a")}),
                                      {NewFilesMessage(Partition("c"), 0, 2, {PkFile("c1", 1, 1)})}, Options(3));
  EXPECT_TRUE(outside.status().IsInvalidArgument()) << outside.status().ToString();
  EXPECT_NE(outside.status().message().find("dt=c"), std::string::npos) << outside.status().ToString();

  // TRUNCATE: an empty overwrite of the whole table.
  r = committer->Overwrite(OverwriteScope::WholeTable(), {}, Options(3));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Get(3).commit_kind, CommitKind::kOverwrite);
  EXPECT_EQ(*Get(3).total_record_count, 0);
  EXPECT_TRUE(LiveFiles().empty());
  // On an empty table too.
  MakeTable(CommitTestSchema());
  r = Committer()->Overwrite(OverwriteScope::WholeTable(), {}, Options(1));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Latest(), 1);
}

TEST_F(FileStoreCommitTest, OverwriteOfADynamicBucketTableNeedsAFreshWriterAndTheWholeTable) {
  MakeTable(CommitTestSchema(/*primary_key=*/true, /*buckets=*/-1));
  for (const OverwriteScope& scope : {OverwriteScope::WholeTable(), OverwriteScope::Partitions({Partition("d")})}) {
    auto r = Committer()->Overwrite(scope, {}, Options(1));
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(r.status().IsNotSupported()) << r.status().ToString();
    EXPECT_NE(r.status().message().find("dynamic bucket"), std::string::npos) << r.status().ToString();
  }
  OverwriteScope fresh_partitions = OverwriteScope::Partitions({Partition("d")});
  fresh_partitions.fresh_writer = true;
  EXPECT_TRUE(Committer()->Overwrite(fresh_partitions, {}, Options(1)).status().IsNotSupported());
  EXPECT_FALSE(Latest().has_value()) << "nothing may be committed";
  // A TRUNCATE by a writer that started from an empty table: every HASH file goes with the data.
  auto r = Committer()->Overwrite(OverwriteScope::WholeTable(/*fresh_writer=*/true), {}, Options(1));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Get(1).commit_kind, CommitKind::kOverwrite);
}

TEST_F(FileStoreCommitTest, RejectsBadRequests) {
  auto committer = Committer();
  CommitOptions no_user = Options(1);
  no_user.commit_user.clear();
  EXPECT_TRUE(committer->Commit({}, no_user).status().IsInvalidArgument());
  CommitOptions compact = Options(1);
  compact.kind = CommitKind::kCompact;
  EXPECT_TRUE(committer->Commit({NewFilesMessage(Partition("d"), 0, 2, {PkFile("f", 1, 1)})}, compact)
                  .status()
                  .IsInvalidArgument());
  CommitOptions overwrite = Options(1);
  overwrite.kind = CommitKind::kOverwrite;
  EXPECT_TRUE(committer->Commit({}, overwrite).status().IsInvalidArgument());
  // A partition row of the wrong shape.
  EXPECT_TRUE(committer->Commit({NewFilesMessage(testing::UnpartitionedPartition(), 0, 2, {PkFile("f", 1, 1)})},
                                Options(1))
                  .status()
                  .IsInvalidArgument());
  CommitMessage index;
  index.partition = Partition("d");
  index.new_index_files = {DvIndex("i", {})};
  index.new_index_files[0].index_type = "BLOOM";
  EXPECT_TRUE(committer->Commit({index}, Options(1)).status().IsInvalidArgument());
  EXPECT_FALSE(Latest());
  // A table whose manifests are ORC is refused up front.
  MakeTable(CommitTestSchema(true, 2, {{"manifest.format", "orc"}}));
  EXPECT_TRUE(FileStoreCommit::Create(fs(), table_, "db.t").status().IsNotSupported());
  EXPECT_TRUE(FileStoreCommit::Create(fs(), dir_.path() + "/none", "db.none").status().IsNotFound());
}

TEST(FileStoreCommitJavaTableTest, CommitsOnTopOfJavaWrittenTables) {
  // Tide's commits on tables Java wrote (0.9 and 1.x manifests, deletion vectors, partitioned append):
  // a compaction replacing one of Java's files, then new files; manifests get merged with Java's.
  for (const char* id : {"pk_09.db/pk_09", "pk_table_with_dv_cardinality.db/pk_table_with_dv_cardinality",
                         "pk_table_scan_and_read_dv.db/pk_table_scan_and_read_dv",
                         "append_complex_data.db/append_complex_data",
                         "pk_table_with_alter_table.db/pk_table_with_alter_table"}) {
    SCOPED_TRACE(id);
    testing::TempDir dir;
    std::string table = dir.path() + "/t";
    std::filesystem::copy(testing::JavaFixtureWarehouse() + "/" + id, table, std::filesystem::copy_options::recursive);
    FileSystem* local = FileSystem::Local();
    SnapshotManager snapshots(local, table);
    TableSchema schema = SchemaManager(local, table).Latest().value();
    FileStoreScan scan(local, table, id, schema);
    int64_t java_latest = *snapshots.LatestId().value();
    Snapshot java = snapshots.Get(java_latest).value();
    auto before = scan.ReadLiveEntries(java).value();
    ASSERT_FALSE(before.empty());

    FileStoreCommitConfig config;
    ManifestMergeOptions merge;
    merge.merge_min_count = 2;
    config.merge = merge;
    auto committer = FileStoreCommit::Create(local, table, id, config).value();
    const ManifestEntry victim = before.front();
    DataFileMeta replacement = victim.file;
    replacement.file_name = "data-tide-compacted-0.parquet";
    replacement.file_source = 1;
    CommitMessage compact;
    compact.partition = victim.partition;
    compact.bucket = victim.bucket;
    compact.total_buckets = victim.total_buckets;
    compact.compact_before = {victim.file};
    compact.compact_after = {replacement};
    CommitOptions o;
    o.commit_user = "tide";
    o.commit_identifier = 1;
    o.kind = CommitKind::kCompact;
    auto r = committer->Commit({compact}, o);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_EQ(r->snapshot_ids, std::vector<int64_t>{java_latest + 1});

    DataFileMeta added = victim.file;
    added.file_name = "data-tide-new-0.parquet";
    added.level = 0;
    CommitMessage append = NewFilesMessage(victim.partition, victim.bucket, victim.total_buckets, {added});
    o.commit_identifier = 2;
    o.kind = CommitKind::kAppend;
    r = committer->Commit({append}, o);
    ASSERT_TRUE(r.ok()) << r.status().ToString();

    Snapshot latest = snapshots.Get(java_latest + 2).value();
    EXPECT_EQ(latest.schema_id, schema.id);
    EXPECT_EQ(latest.index_manifest, java.index_manifest);
    EXPECT_EQ(*latest.total_record_count, *java.total_record_count + victim.file.row_count);
    std::multiset<std::string> expected, actual;
    for (const auto& e : before) {
      if (e.file.file_name != victim.file.file_name) expected.insert(e.file.file_name + "@" + std::to_string(e.file.level));
    }
    expected.insert(replacement.file_name + "@" + std::to_string(replacement.level));
    expected.insert(added.file_name + "@0");
    auto live = scan.ReadLiveEntries(latest).value();
    for (const auto& e : live) {
      actual.insert(e.file.file_name + "@" + std::to_string(e.file.level));
    }
    EXPECT_EQ(actual, expected);
    // The manifests Java wrote were merged into Tide's.
    auto base = ReadManifestList(local, table + "/manifest/" + latest.base_manifest_list).value();
    EXPECT_EQ(base.size(), 1u);
  }
}

TEST_F(FileStoreCommitTest, ConcurrentCommittersEachLandExactlyOnce) {
  constexpr int kThreads = 3;
  constexpr int kCommits = 12;
  std::vector<std::vector<std::string>> landed(kThreads);
  std::atomic<int> conflicts{0};
  std::vector<std::thread> threads;
  std::barrier start(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      auto committer = Committer();
      start.arrive_and_wait();
      for (int i = 1; i <= kCommits; ++i) {
        std::string name = "w" + std::to_string(t) + "-" + std::to_string(i);
        auto r = committer->Commit({NewFilesMessage(Partition("d" + std::to_string(i % 2)), t % 2, 2,
                                                    {PkFile(name, i, i)})},
                                   Options(i, "writer-" + std::to_string(t)));
        if (r.ok()) {
          EXPECT_EQ(r->outcome, CommitOutcome::kCommitted);
          landed[t].push_back(name);
        } else {
          EXPECT_TRUE(r.status().IsConflict()) << r.status().ToString();
          ++conflicts;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  // Every landed commit is exactly one snapshot; the live files are exactly the landed ones.
  std::multiset<std::string> expected;
  size_t total = 0;
  for (int t = 0; t < kThreads; ++t) {
    for (const auto& name : landed[t]) {
      int i = std::stoi(name.substr(name.find('-') + 1));
      expected.insert("d" + std::to_string(i % 2) + "-" + std::to_string(t % 2) + "-0-" + name);
    }
    total += landed[t].size();
  }
  EXPECT_EQ(LiveFiles(), expected);
  EXPECT_EQ(Latest(), static_cast<int64_t>(total));
  std::set<std::pair<std::string, int64_t>> seen;
  for (int64_t id = 1; id <= static_cast<int64_t>(total); ++id) {
    Snapshot s = Get(id);
    EXPECT_TRUE(seen.insert({s.commit_user, s.commit_identifier}).second) << "duplicate in snapshot " << id;
    EXPECT_EQ(*s.delta_record_count, 1);
    EXPECT_EQ(*s.total_record_count, id);
  }
  EXPECT_EQ(static_cast<int>(total) + conflicts.load(), kThreads * kCommits);
  EXPECT_GE(total, static_cast<size_t>(kThreads * kCommits / 2));
}

constexpr int kProcessCommits = 10;

// Commits kProcessCommits files as user `user` into the table at `table`; the failures, as text.
std::vector<std::string> CommitAsUser(const std::string& table, const std::string& user) {
  std::vector<std::string> failures;
  auto committer = FileStoreCommit::Create(FileSystem::Local(), table, "db.t");
  if (!committer.ok()) return {committer.status().ToString()};
  for (int i = 1; i <= kProcessCommits; ++i) {
    CommitOptions o;
    o.commit_user = user;
    o.commit_identifier = i;
    auto r = (*committer)->Commit({NewFilesMessage(Partition("d"), 0, 2, {PkFile(user + std::to_string(i), i, i)})}, o);
    if (!r.ok()) failures.push_back(r.status().ToString());
    if (r.ok() && r->outcome != CommitOutcome::kCommitted) failures.push_back("not committed");
  }
  return failures;
}

// The other process of CommittersInTwoProcessesEachLandExactlyOnce (a fresh run of this binary); skipped
// when run on its own.
TEST(FileStoreCommitChildProcess, CommitAsChild) {
  const char* table = std::getenv("TIDE_COMMIT_TEST_CHILD_TABLE");
  if (table == nullptr) GTEST_SKIP() << "runs only as the child of CommittersInTwoProcessesEachLandExactlyOnce";
  EXPECT_EQ(CommitAsUser(table, "child-"), std::vector<std::string>{});
}

TEST_F(FileStoreCommitTest, CommittersInTwoProcessesEachLandExactlyOnce) {
  // The child is this test binary started again (a fresh process, as another Tide would be).
  std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  std::string filter = "--gtest_filter=FileStoreCommitChildProcess.CommitAsChild";
  std::string env = "TIDE_COMMIT_TEST_CHILD_TABLE=" + table_;
  char* argv[] = {self.data(), filter.data(), nullptr};
  std::vector<char*> envp;
  for (char** e = environ; *e != nullptr; ++e) envp.push_back(*e);
  envp.push_back(env.data());
  envp.push_back(nullptr);
  pid_t child;
  ASSERT_EQ(posix_spawn(&child, self.c_str(), nullptr, nullptr, argv, envp.data()), 0);
  auto parent_failures = CommitAsUser(table_, "parent-");
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the child process failed; its output is above";
  EXPECT_EQ(parent_failures, std::vector<std::string>{});
  EXPECT_EQ(Latest(), 2 * kProcessCommits);
  std::multiset<std::string> expected;
  for (const char* user : {"child-", "parent-"}) {
    for (int i = 1; i <= kProcessCommits; ++i) expected.insert("d-0-0-" + std::string(user) + std::to_string(i));
  }
  EXPECT_EQ(LiveFiles(), expected);
}

TEST_F(FileStoreCommitTest, RacingCompactionsOfOneFileResolveToOneWinner) {
  for (int round = 0; round < 5; ++round) {
    MakeTable(CommitTestSchema());
    ASSERT_TRUE(Committer()->Commit({NewFilesMessage(Partition("d"), 0, 2, {PkFile("f", 1, 10)})}, Options(1)).ok());
    std::atomic<int> won{0}, lost{0};
    std::barrier start(2);
    std::vector<std::thread> threads;
    for (int t = 0; t < 2; ++t) {
      threads.emplace_back([&, t] {
        auto committer = Committer();
        CommitMessage c;
        c.partition = Partition("d");
        c.total_buckets = 2;
        c.compact_before = {PkFile("f", 1, 10)};
        c.compact_after = {PkFile("out-" + std::to_string(t), 1, 10, 5)};
        CommitOptions o = Options(1, "compactor-" + std::to_string(t));
        o.kind = CommitKind::kCompact;
        start.arrive_and_wait();
        auto r = committer->Commit({c}, o);
        if (r.ok()) {
          ++won;
        } else {
          EXPECT_TRUE(r.status().IsConflict()) << r.status().ToString();
          EXPECT_NE(r.status().message().find("not live"), std::string::npos) << r.status().ToString();
          ++lost;
        }
      });
    }
    for (auto& th : threads) th.join();
    EXPECT_EQ(won.load(), 1);
    EXPECT_EQ(lost.load(), 1);
    auto live = LiveFiles();
    ASSERT_EQ(live.size(), 1u);
    EXPECT_EQ(live.begin()->rfind("d-0-5-out-", 0), 0u);
    EXPECT_EQ(Latest(), 2);
  }
}

TEST_F(FileStoreCommitTest, ManifestMergingKeepsTheBaseListBoundedOver200Commits) {
  // A primary-key table with new files and compactions: default merge options (minor compaction),
  // then a small full-compaction threshold.
  for (int variant = 0; variant < 2; ++variant) {
    MakeTable(CommitTestSchema());
    FileStoreCommitConfig config;
    if (variant == 1) {
      ManifestMergeOptions merge;
      merge.full_compaction_threshold_size = 16 * 1024;
      config.merge = merge;
    }
    auto committer = Committer(config);
    std::map<std::string, DataFileMeta> live;  // by partition name + file name
    size_t max_base = 0;
    int delete_free_bases = 0;  // base lists without DELETE entries after the first compaction
    const int commits = variant == 0 ? 200 : 100;
    for (int i = 1; i <= commits; ++i) {
      std::string dt = "d" + std::to_string(i % 3);
      std::vector<CommitMessage> messages;
      CommitOptions o = Options(i);
      if (i % 10 == 0) {
        // Compact everything of one partition into one file.
        CommitMessage c;
        c.partition = Partition(dt);
        c.total_buckets = 2;
        for (auto it = live.begin(); it != live.end();) {
          if (it->first.rfind(dt + "/", 0) == 0) {
            c.compact_before.push_back(it->second);
            it = live.erase(it);
          } else {
            ++it;
          }
        }
        DataFileMeta out = PkFile("c" + std::to_string(i), 1, 1000, 5);
        c.compact_after = {out};
        live[dt + "/" + out.file_name] = out;
        messages.push_back(c);
        o.kind = CommitKind::kCompact;
      } else {
        DataFileMeta f = PkFile("f" + std::to_string(i), i, i);
        live[dt + "/" + f.file_name] = f;
        messages.push_back(NewFilesMessage(Partition(dt), 0, 2, {f}));
      }
      auto r = committer->Commit(messages, o);
      ASSERT_TRUE(r.ok()) << "commit " << i << ": " << r.status().ToString();
      Snapshot s = Get(*Latest());
      auto base = ReadManifestList(fs(), table_ + "/manifest/" + s.base_manifest_list).value();
      max_base = std::max(max_base, base.size());
      int64_t deleted = 0;
      for (const auto& m : base) deleted += m.num_deleted_files;
      if (i > 11 && deleted == 0) ++delete_free_bases;
      if (i % 50 == 0 || i == commits) {
        std::multiset<std::string> expected;
        for (const auto& [key, f] : live) {
          expected.insert(key.substr(0, key.find('/')) + "-0-" + std::to_string(f.level) + "-" + f.file_name);
        }
        EXPECT_EQ(LiveFiles(), expected) << "after commit " << i;
      }
    }
    if (variant == 0) {
      // manifest.merge-min-count = 30: small manifests pile up to 29, then merge into one.
      EXPECT_LE(max_base, 30u);
      EXPECT_GE(max_base, 20u);
    } else {
      // Full compaction starts as soon as the small manifests reach 16 KiB together.
      EXPECT_LE(max_base, 10u);
      EXPECT_GT(delete_free_bases, 0);  // and drops ADD/DELETE pairs
    }
  }
}

}  // namespace
}  // namespace tide
