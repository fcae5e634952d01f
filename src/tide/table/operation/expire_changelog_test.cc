// Tables that keep changelog longer than snapshots: snapshot expiry writes changelog/changelog-<id> and
// keeps what a stream reads the changes from; changelog expiry deletes them later; streaming reads go
// on below the earliest snapshot; rollback drops newer changelogs. Layout checked against Java's
// (ExpireSnapshotsImpl / ExpireChangelogImpl, decoupled).
#include "tide/table/operation/expire_changelog.h"

#include <gtest/gtest.h>

#include <chrono>

#include "testing/temp_dir.h"
#include "tide/table/change_read.h"
#include "tide/table/operation/expire_snapshots.h"
#include "tide/table/operation/file_deletion.h"
#include "tide/table/operation/maintenance_test_util.h"
#include "tide/table/operation/rollback.h"
#include "tide/table/snapshot/changelog_manager.h"
#include "tide/table/snapshot/consumer_manager.h"
#include "tide/table/snapshot/tag_manager.h"

namespace tide {
namespace {

using testing::AllFiles;
using testing::Field;
using testing::MaintenanceTable;
using testing::ValueOrFail;
using testing::WriterTestSchema;

Row R(int64_t id, const std::string& p) { return Row{Datum(id), Datum(p)}; }

int64_t InTwoHours() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
             .count() +
         2 * 3'600'000;
}

// Snapshots kept: 2; changelog kept: at least `changelog_min` counted from the latest snapshot.
ExpireConfig Decoupled(int32_t changelog_min, bool consumer_changelog_only = false) {
  ExpireConfig c;
  c.retain_min = 2;
  c.max_deletes = 100;
  c.changelog_decoupled = true;
  c.changelog_retain_min = changelog_min;
  c.changelog_retain_max = 100;
  c.consumer_changelog_only = consumer_changelog_only;
  return c;
}

std::vector<int64_t> Ids(const IdFileDirectory& dir) { return ValueOrFail(dir.ListIds(), "ids"); }

std::string ReadText(const std::string& path) { return ValueOrFail(FileSystem::Local()->ReadFile(path), path); }

// Every change a stream from `start` (or a consumer's progress) reads until it waits, as "kind id".
std::vector<std::string> StreamAll(const std::string& path, StreamStart start,
                                   std::optional<std::string> consumer = std::nullopt) {
  auto table = ValueOrFail(Table::Open(FileSystem::Local(), path, "db.t"), "open");
  TableChangeStreamOptions options;
  options.start = start;
  options.consumer_id = consumer;
  auto stream = ValueOrFail(TableChangeStream::Open(table.get(), options), "stream");
  std::vector<std::string> out;
  while (true) {
    auto read = stream->Poll([&](const ChangeRecord& r) {
      out.push_back(std::string(RowKindShortString(r.kind)) + " " + std::to_string(r.row[0].as_int()));
      return Status::OK();
    });
    EXPECT_TRUE(read.ok()) << read.status().ToString();
    if (!read.ok() || !*read) break;
  }
  return out;
}

StreamStart Earliest() {
  StreamStart s;
  s.kind = StreamStart::Kind::kEarliest;
  return s;
}

// An append table: 1..3 APPEND (two rows each), 4 COMPACT (replaces their three files), 5..6 APPEND. Without
// a changelog producer a stream reads the deltas of APPEND snapshots, so the three files the compaction
// replaced stay while a changelog of snapshots 1..3 does.
TEST(ExpireChangelogTest, WithoutProducerDeltasAndWrittenFilesStayUntilTheChangelogGoes) {
  ::tide::testing::TempDir dir;
  MaintenanceTable table(dir.path() + "/db.db/t",
                         WriterTestSchema({Field(0, "id", DataType::BigInt(false)), Field(1, "p", DataType::String())},
                                          {}, {}, {{"bucket", "-1"}, {"changelog.num-retained.min", "20"}}));
  for (int64_t i = 0; i < 3; ++i) table.Append({R(2 * i, "a"), R(2 * i + 1, "b")});
  std::vector<std::string> written_files;  // the three files snapshots 1..3 wrote and snapshot 4 replaces
  for (const auto& f : AllFiles(table.path())) {
    if (f.find("data-") != std::string::npos) written_files.push_back(table.path() + "/" + f);
  }
  ASSERT_EQ(written_files.size(), 3u);
  ASSERT_EQ(table.CompactAll(), 4);
  table.Append({R(100, "a")});
  table.Append({R(101, "b")});
  const std::string path = table.path();
  SnapshotManager snapshots(FileSystem::Local(), path);
  ChangelogManager changelogs(FileSystem::Local(), path);
  std::map<int64_t, std::string> json;
  for (int64_t id = 1; id <= 6; ++id) json[id] = ReadText(snapshots.SnapshotPath(id));
  const std::vector<std::string> everything_before = [&] {
    std::vector<std::string> v;
    for (const auto& f : AllFiles(path)) v.push_back(f);
    return v;
  }();
  ASSERT_TRUE(table.Options().changelog_decoupled());

  // Snapshots 1..4 become changelogs; nothing of theirs is deleted but index and statistics files.
  ExpireSnapshots expire(FileSystem::Local(), path, "db.t", InTwoHours);
  auto first = expire.Expire(Decoupled(/*changelog_min=*/10));
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->snapshots_deleted, 4);
  EXPECT_EQ(first->changelogs_written, 4);
  EXPECT_EQ(first->data_files_deleted, 0);
  EXPECT_EQ(first->manifest_files_deleted, 0);
  EXPECT_EQ(first->changelog.changelogs_deleted, 0);
  EXPECT_EQ(ValueOrFail(snapshots.ListIds(), "ids"), (std::vector<int64_t>{5, 6}));
  EXPECT_EQ(Ids(changelogs.files()), (std::vector<int64_t>{1, 2, 3, 4}));
  for (int64_t id = 1; id <= 4; ++id) EXPECT_EQ(ReadText(changelogs.ChangelogPath(id)), json[id]) << id;
  // Java's hints: LATEST moved with each changelog, decimal, no newline; no EARLIEST until changelog expiry.
  EXPECT_EQ(ReadText(path + "/changelog/LATEST"), "4");
  EXPECT_FALSE(ValueOrFail(FileSystem::Local()->Exists(path + "/changelog/EARLIEST"), "exists"));
  for (const auto& f : everything_before) {
    if (f.rfind("snapshot/", 0) == 0) continue;
    EXPECT_TRUE(ValueOrFail(FileSystem::Local()->Exists(path + "/" + f), "exists")) << f;
  }
  // A stream from the earliest reads changelogs 1..3 (APPEND) and snapshots 5..6; 4 compacted.
  std::vector<std::string> all = {"+I 0", "+I 1", "+I 2", "+I 3", "+I 4", "+I 5", "+I 100", "+I 101"};
  EXPECT_EQ(StreamAll(path, Earliest()), all);
  // Batch reads and time travel never read changelog.
  auto table_handle = ValueOrFail(Table::Open(FileSystem::Local(), path, "db.t"), "open");
  ReadOptions at3;
  at3.snapshot.snapshot_id = 3;
  EXPECT_TRUE(table_handle->NewReader(at3).status().IsNotFound());

  // Two more snapshots; a consumer at 3 keeps changelog 3 on (consumer.changelog-only: snapshots do not
  // wait for it).
  table.Append({R(200, "a")});
  table.Append({R(201, "b")});
  ASSERT_TRUE(ConsumerManager(FileSystem::Local(), path).ResetConsumer("bi", 3).ok());
  auto second = expire.Expire(Decoupled(/*changelog_min=*/3, /*consumer_changelog_only=*/true));
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(ValueOrFail(snapshots.ListIds(), "ids"), (std::vector<int64_t>{7, 8}));
  EXPECT_EQ(Ids(changelogs.files()), (std::vector<int64_t>{3, 4, 5, 6}));
  EXPECT_EQ(ReadText(path + "/changelog/EARLIEST"), "3");
  for (const auto& f : written_files) EXPECT_TRUE(ValueOrFail(FileSystem::Local()->Exists(f), "exists")) << f;
  EXPECT_EQ(StreamAll(path, Earliest(), "bi"),
            (std::vector<std::string>{"+I 4", "+I 5", "+I 100", "+I 101", "+I 200", "+I 201"}));

  // Without the consumer, changelog 6 (the latest, never expired) is all that is left: the three files
  // changelog 4's compaction replaced go with it, and everything left is what 6..8 reference.
  ASSERT_TRUE(ConsumerManager(FileSystem::Local(), path).ExpireBefore(std::numeric_limits<int64_t>::max()).ok());
  auto third = expire.Expire(Decoupled(/*changelog_min=*/3));
  ASSERT_TRUE(third.ok()) << third.status().ToString();
  EXPECT_EQ(third->changelog.changelogs_deleted, 3);
  EXPECT_EQ(third->changelog.data_files_deleted, 3);
  EXPECT_GT(third->changelog.manifest_files_deleted, 0);
  EXPECT_EQ(Ids(changelogs.files()), (std::vector<int64_t>{6}));
  EXPECT_EQ(ReadText(path + "/changelog/EARLIEST"), "6");
  int gone = 0;
  for (const auto& f : written_files) gone += ValueOrFail(FileSystem::Local()->Exists(f), "exists") ? 0 : 1;
  EXPECT_EQ(gone, 3);
  std::vector<Snapshot> kept = {ValueOrFail(changelogs.Get(6), "c6"), ValueOrFail(snapshots.Get(7), "s7"),
                                ValueOrFail(snapshots.Get(8), "s8")};
  std::set<std::string> referenced = testing::ReferencedFiles(path, kept);
  for (const auto& f : AllFiles(path)) {
    if (testing::IsTableMetadata(f)) continue;
    EXPECT_TRUE(referenced.count(f)) << "left behind: " << f;
  }
  for (const auto& f : referenced) EXPECT_TRUE(ValueOrFail(FileSystem::Local()->Exists(path + "/" + f), "e")) << f;
  EXPECT_EQ(StreamAll(path, Earliest()), (std::vector<std::string>{"+I 101", "+I 200", "+I 201"}));
}

// With changelog-producer input, a stream reads changelog files: they and their changelog manifests stay
// with the changelog, while base and delta lists and replaced data files go with the snapshot.
TEST(ExpireChangelogTest, WithInputProducerTheChangelogFilesStayUntilTheChangelogGoes) {
  ::tide::testing::TempDir dir;
  MaintenanceTable table(dir.path() + "/db.db/t",
                         WriterTestSchema({Field(0, "id", DataType::BigInt(false)), Field(1, "p", DataType::String())},
                                          {"id"}, {},
                                          {{"bucket", "1"}, {"changelog-producer", "input"},
                                           {"changelog.time-retained", "3 h"}}));
  ASSERT_TRUE(table.Options().changelog_decoupled());
  std::vector<std::string> expected;
  for (int64_t i = 1; i <= 6; ++i) {
    table.Append({R(i, "v"), R(i + 10, "w")});
    expected.push_back("+I " + std::to_string(i));
    expected.push_back("+I " + std::to_string(i + 10));
  }
  const std::string path = table.path();
  SnapshotManager snapshots(FileSystem::Local(), path);
  ChangelogManager changelogs(FileSystem::Local(), path);
  FileSystem* fs = FileSystem::Local();
  auto deletion = ValueOrFail(FileDeletion::Create(fs, path, "db.t"), "deletion");
  std::map<int64_t, std::vector<std::string>> changelog_files;
  std::map<int64_t, Snapshot> before;
  for (int64_t id = 1; id <= 6; ++id) {
    before[id] = ValueOrFail(snapshots.Get(id), "snapshot");
    ASSERT_TRUE(before[id].changelog_manifest_list.has_value());
    changelog_files[id] = deletion->PlanAddedInChangelog(before[id]);
    ASSERT_EQ(changelog_files[id].size(), 1u) << id;
  }

  ExpireSnapshots expire(fs, path, "db.t", InTwoHours);
  auto first = expire.Expire(Decoupled(/*changelog_min=*/10));
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->changelogs_written, 4);
  EXPECT_EQ(first->changelog_files_deleted, 0);
  EXPECT_EQ(Ids(changelogs.files()), (std::vector<int64_t>{1, 2, 3, 4}));
  for (int64_t id = 1; id <= 4; ++id) {
    EXPECT_TRUE(ValueOrFail(fs->Exists(changelog_files[id][0]), "e")) << id;
    EXPECT_TRUE(ValueOrFail(fs->Exists(deletion->ManifestPath(*before[id].changelog_manifest_list)), "e")) << id;
    // The base list of snapshot 1 is empty and unshared: it goes with the snapshot.
    if (id == 1) {
      EXPECT_FALSE(ValueOrFail(fs->Exists(deletion->ManifestPath(before[id].base_manifest_list)), "e"));
    }
  }
  EXPECT_EQ(StreamAll(path, Earliest()), expected);
  // A start by timestamp below every snapshot finds its place among the changelogs.
  StreamStart at3;
  at3.kind = StreamStart::Kind::kTimestamp;
  at3.timestamp_ms = before[3].time_millis;
  std::vector<std::string> from3(expected.begin() + 4, expected.end());
  if (before[2].time_millis < before[3].time_millis) {
    EXPECT_EQ(StreamAll(path, at3), from3);
  }

  table.Append({R(7, "v")});
  table.Append({R(8, "v")});
  auto second = expire.Expire(Decoupled(/*changelog_min=*/3));
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(second->changelog.changelogs_deleted, 5);
  EXPECT_EQ(second->changelog.data_files_deleted, 5);
  EXPECT_EQ(Ids(changelogs.files()), (std::vector<int64_t>{6}));
  for (int64_t id = 1; id <= 5; ++id) {
    EXPECT_FALSE(ValueOrFail(fs->Exists(changelog_files[id][0]), "e")) << id;
    EXPECT_FALSE(ValueOrFail(fs->Exists(deletion->ManifestPath(*before[id].changelog_manifest_list)), "e")) << id;
  }
  EXPECT_TRUE(ValueOrFail(fs->Exists(changelog_files[6][0]), "e"));
  EXPECT_EQ(StreamAll(path, Earliest()), (std::vector<std::string>{"+I 6", "+I 16", "+I 7", "+I 8"}));
}

// Rolling back to a tag older than every snapshot drops the changelogs after it, as Java does, and the
// files only they referenced; LATEST points at the last changelog kept.
TEST(ExpireChangelogTest, RollbackToAnOlderTagDropsTheChangelogsAfterIt) {
  ::tide::testing::TempDir dir;
  MaintenanceTable table(dir.path() + "/db.db/t",
                         WriterTestSchema({Field(0, "id", DataType::BigInt(false)), Field(1, "p", DataType::String())},
                                          {"id"}, {},
                                          {{"bucket", "1"}, {"changelog-producer", "input"},
                                           {"changelog.num-retained.min", "20"}}));
  for (int64_t i = 1; i <= 6; ++i) table.Append({R(i, "v")});
  const std::string path = table.path();
  FileSystem* fs = FileSystem::Local();
  SnapshotManager snapshots(fs, path);
  ASSERT_TRUE(TagManager(fs, path).Create(ValueOrFail(snapshots.Get(2), "s2"), "t2", std::nullopt, 0).ok());
  auto deletion = ValueOrFail(FileDeletion::Create(fs, path, "db.t"), "deletion");
  std::string changelog3 = deletion->PlanAddedInChangelog(ValueOrFail(snapshots.Get(3), "s3"))[0];
  ASSERT_TRUE(ExpireSnapshots(fs, path, "db.t", InTwoHours).Expire(Decoupled(10)).ok());
  ChangelogManager changelogs(fs, path);
  ASSERT_EQ(Ids(changelogs.files()), (std::vector<int64_t>{1, 2, 3, 4}));

  auto rolled = RollbackTo(fs, path, "db.t", std::nullopt, std::string("t2"));
  ASSERT_TRUE(rolled.ok()) << rolled.status().ToString();
  EXPECT_EQ(Ids(changelogs.files()), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(ReadText(path + "/changelog/LATEST"), "2");
  EXPECT_EQ(ValueOrFail(snapshots.ListIds(), "ids"), (std::vector<int64_t>{2}));
  EXPECT_FALSE(ValueOrFail(fs->Exists(changelog3), "e")) << "a file only a dropped changelog referenced";
  EXPECT_EQ(StreamAll(path, Earliest()), (std::vector<std::string>{"+I 1", "+I 2"}));
}

TEST(ExpireChangelogTest, RetentionBelowItsMinimumIsRefusedBeforeAnythingGoes) {
  ::tide::testing::TempDir dir;
  MaintenanceTable table(dir.path() + "/db.db/t",
                         WriterTestSchema({Field(0, "id", DataType::BigInt(false))}, {}, {},
                                          {{"bucket", "-1"}, {"snapshot.num-retained.min", "1"},
                                           {"snapshot.num-retained.max", "2"}, {"changelog.num-retained.min", "5"}}));
  for (int64_t i = 1; i <= 4; ++i) table.Append({Row{Datum(i)}});
  auto result = ExpireSnapshots(FileSystem::Local(), table.path(), "db.t", InTwoHours).Expire();
  ASSERT_TRUE(result.status().IsInvalidArgument()) << result.status().ToString();
  EXPECT_NE(result.status().message().find("changelog.num-retained.max"), std::string::npos);
  EXPECT_EQ(ValueOrFail(SnapshotManager(FileSystem::Local(), table.path()).ListIds(), "ids").size(), 4u);
}

}  // namespace
}  // namespace tide
