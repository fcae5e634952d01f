#include "tide/table/operation/tag_operations.h"

#include <gtest/gtest.h>

#include "testing/temp_dir.h"
#include "tide/table/operation/expire_snapshots.h"
#include "tide/table/operation/maintenance_test_util.h"
#include "tide/table/snapshot/tag_manager.h"

namespace tide {
namespace {

using testing::AllFiles;
using testing::AtSnapshot;
using testing::AtTag;
using testing::Field;
using testing::MaintenanceTable;
using testing::ReadRowsAt;
using testing::ReferencedFiles;
using testing::ValueOrFail;
using testing::WriterTestSchema;

Row R(int64_t id) { return Row{Datum(id), Datum("a")}; }

TableSchema AppendSchema(std::vector<std::pair<std::string, std::string>> options = {}) {
  options.emplace_back("bucket", "-1");
  return WriterTestSchema({Field(0, "id", DataType::BigInt(false)), Field(1, "p", DataType::String())}, {}, {"p"},
                          options);
}

TEST(TagOperationsTest, CreateListAndTheJsonJavaWrites) {
  ::tide::testing::TempDir dir;
  MaintenanceTable table(dir.path() + "/db.db/t", AppendSchema());
  table.Append({R(1)});
  table.Append({R(2)});
  FileSystem* fs = FileSystem::Local();
  auto plain = CreateTag(fs, table.path(), "db.t", "first", 1, std::nullopt, 0);
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  EXPECT_FALSE(plain->tag_create_time.has_value());
  // Without a retention time the tag file is the snapshot file, byte for byte (as Java writes it).
  EXPECT_EQ(ValueOrFail(fs->ReadFile(table.path() + "/tag/tag-first"), "tag"),
            ValueOrFail(fs->ReadFile(table.path() + "/snapshot/snapshot-1"), "snapshot"));
  // With one: tagCreateTime as Jackson's LocalDateTime array, tagTimeRetained as decimal seconds.
  auto kept = CreateTag(fs, table.path(), "db.t", "latest", std::nullopt, 86'400'000, 1'700'000'000'123);
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  EXPECT_EQ(kept->id, 2);
  std::string json = ValueOrFail(fs->ReadFile(table.path() + "/tag/tag-latest"), "tag");
  EXPECT_NE(json.find("\"tagCreateTime\" : [ "), std::string::npos) << json;
  EXPECT_NE(json.find(", 123000000 ],\n  \"tagTimeRetained\" : 86400.000000000\n}"), std::string::npos) << json;
  auto reread = Snapshot::FromJson(json, "tag-latest");
  ASSERT_TRUE(reread.ok()) << reread.status().ToString();
  EXPECT_EQ(reread->tag_time_retained_ms, 86'400'000);
  EXPECT_EQ(reread->ToJson(), json);
  // Java's form of a Duration with a fraction, and ISO text, read too.
  std::string java = json.substr(0, json.find("86400.000000000")) + "1.500000000\n}";
  EXPECT_EQ(Snapshot::FromJson(java, "t")->tag_time_retained_ms, 1500);

  EXPECT_TRUE(CreateTag(fs, table.path(), "db.t", "first", 2, std::nullopt, 0).status().IsAlreadyExists());
  EXPECT_TRUE(CreateTag(fs, table.path(), "db.t", "x", 9, std::nullopt, 0).status().IsNotFound());
  EXPECT_TRUE(CreateTag(fs, table.path(), "db.t", " ", 1, std::nullopt, 0).status().IsInvalidArgument());
  auto listed = TagManager(fs, table.path()).ListTagged();
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 2u);
  EXPECT_EQ((*listed)[0].names, std::vector<std::string>{"first"});
  EXPECT_EQ(ValueOrFail(ReadRowsAt(table.path(), AtTag("first")), "read"), std::vector<Row>{R(1)});
}

TEST(TagOperationsTest, DeletingATagDeletesTheFilesOnlyItKept) {
  ::tide::testing::TempDir dir;
  MaintenanceTable table(dir.path() + "/db.db/t", AppendSchema());
  table.Append({R(1)});
  table.Append({R(2)});   // 2: tagged
  table.CompactAll();     // 3
  table.Append({R(3)});   // 4
  FileSystem* fs = FileSystem::Local();
  ASSERT_TRUE(CreateTag(fs, table.path(), "db.t", "t2", 2, std::nullopt, 0).ok());
  // While snapshot 2 exists, deleting its tag deletes only the tag file.
  std::set<std::string> before = AllFiles(table.path());
  auto only_file = DeleteTag(fs, table.path(), "db.t", "t2");
  ASSERT_TRUE(only_file.ok());
  EXPECT_EQ(only_file->data_files_deleted + only_file->manifest_files_deleted, 0);
  ASSERT_TRUE(CreateTag(fs, table.path(), "db.t", "t2", 2, std::nullopt, 0).ok());
  ASSERT_TRUE(CreateTag(fs, table.path(), "db.t", "t2-again", 2, std::nullopt, 0).ok());

  ExpireSnapshots expire(fs, table.path(), "db.t", [] { return int64_t{1} << 60; });
  ExpireConfig c;
  c.retain_min = 1;
  ASSERT_TRUE(expire.Expire(c).ok());
  std::vector<Row> tagged_rows = ValueOrFail(ReadRowsAt(table.path(), AtTag("t2")), "tag read");
  EXPECT_EQ(tagged_rows, (std::vector<Row>{R(1), R(2)}));
  // Two tags on one snapshot: deleting one keeps the files.
  auto first = DeleteTag(fs, table.path(), "db.t", "t2-again");
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->data_files_deleted, 0);
  before = AllFiles(table.path());
  auto last = DeleteTag(fs, table.path(), "db.t", "t2");
  ASSERT_TRUE(last.ok()) << last.status().ToString();
  EXPECT_EQ(last->data_files_deleted, 2);
  EXPECT_GT(last->manifest_files_deleted, 0);
  SnapshotManager m(fs, table.path());
  Snapshot s4 = ValueOrFail(m.Get(4), "s4");
  std::set<std::string> referenced = ReferencedFiles(table.path(), {s4});
  std::set<std::string> after = AllFiles(table.path());
  for (const auto& f : before) {
    if (!testing::IsTableMetadata(f)) {
      EXPECT_EQ(after.count(f) > 0, referenced.count(f) > 0) << f;
    }
  }
  EXPECT_EQ(ValueOrFail(ReadRowsAt(table.path(), AtSnapshot(4)), "read"), (std::vector<Row>{R(1), R(2), R(3)}));
  EXPECT_TRUE(DeleteTag(fs, table.path(), "db.t", "t2").status().IsNotFound());
}

TEST(TagOperationsTest, PeriodNamesAsJava) {
  TableSchema schema = AppendSchema({{"tag.automatic-creation", "process-time"}, {"tag.creation-period", "hourly"}});
  auto options = ValueOrFail(CoreOptions::Create(schema, "db.t"), "options");
  auto hourly = ValueOrFail(TagPeriod::FromOptions(options, "db.t"), "period");
  // 2024-03-05 13:20 local -> the previous period starts at 12:00.
  int64_t t = *hourly.TagToTime("2024-03-05 13") + 20 * 60'000;
  EXPECT_EQ(hourly.TimeToTag(hourly.NormalizeToPreviousTag(t)), "2024-03-05 12");
  EXPECT_FALSE(hourly.TagToTime("2024-03-05").has_value());
  EXPECT_FALSE(hourly.TagToTime("release-1").has_value());
  schema.SetOption("tag.creation-period", "daily");
  schema.SetOption("tag.period-formatter", "without_dashes");
  auto daily = ValueOrFail(TagPeriod::FromOptions(ValueOrFail(CoreOptions::Create(schema, "db.t"), "o"), "db.t"), "p");
  EXPECT_EQ(daily.TimeToTag(*daily.TagToTime("20240229")), "20240229");
  EXPECT_FALSE(daily.TagToTime("20230229").has_value());  // not a date (STRICT)
}

TEST(TagOperationsTest, AutomaticDailyTagsAndRetainedMax) {
  ::tide::testing::TempDir dir;
  // UTC process time, daily tags, at most two automatic tags.
  TableSchema schema = AppendSchema({{"tag.automatic-creation", "process-time"},
                                     {"tag.creation-period", "daily"},
                                     {"sink.process-time-zone", "UTC"},
                                     {"tag.num-retained-max", "2"}});
  std::string path = dir.path() + "/db.db/t";
  ASSERT_TRUE(testing::CreateWriterTestTable(path, schema).ok());
  FileSystem* fs = FileSystem::Local();
  // Commits on four days (clock injected): Jan 1 10:00, Jan 2 00:30, Jan 3 09:00, Jan 5 01:00 UTC.
  const int64_t jan1 = 1'704'067'200'000;  // 2024-01-01T00:00Z
  std::vector<int64_t> times = {jan1 + 10 * 3'600'000, jan1 + 86'400'000 + 1'800'000, jan1 + 2 * 86'400'000 + 9 * 3'600'000,
                                jan1 + 4 * 86'400'000 + 3'600'000};
  size_t next = 0;
  FileStoreCommitConfig config;
  config.clock = [&] { return times[next]; };
  auto commit = ValueOrFail(FileStoreCommit::Create(fs, path, "db.t", config), "commit");
  auto options = ValueOrFail(CoreOptions::Create(schema, "db.t"), "options");
  auto creation = ValueOrFail(TagAutoCreation::Create(fs, path, "db.t", options), "auto");
  ASSERT_NE(creation, nullptr);
  std::vector<std::vector<std::string>> created;
  for (next = 0; next < times.size(); ++next) {
    auto write = ValueOrFail(TableWrite::Create(fs, path, schema, "u"), "write");
    ASSERT_TRUE(write->Write(RowKind::kInsert, R(static_cast<int64_t>(next))).ok());
    CommitOptions co;
    co.commit_user = "u";
    co.commit_identifier = static_cast<int64_t>(next) + 1;
    ASSERT_TRUE(commit->Commit(ValueOrFail(write->PrepareCommit(), "prepare"), co).ok());
    created.push_back(ValueOrFail(creation->Run(times[next]), "run"));
  }
  // The first snapshot starts the count (tag of the day before); then each day's tag comes with the
  // first snapshot after it ended.
  EXPECT_EQ(created[0], std::vector<std::string>{"2023-12-31"});
  EXPECT_EQ(created[1], std::vector<std::string>{"2024-01-01"});
  EXPECT_EQ(created[2], std::vector<std::string>{"2024-01-02"});
  EXPECT_EQ(created[3], std::vector<std::string>{"2024-01-04"});
  auto names = ValueOrFail(TagManager(fs, path).ListNames(), "names");
  EXPECT_EQ(names, (std::vector<std::string>{"2024-01-02", "2024-01-04"}));
  EXPECT_EQ(ValueOrFail(TagManager(fs, path).Get("2024-01-02"), "tag").id, 3);
  // A new TagAutoCreation (a restarted writer) resumes after the newest tag and creates nothing twice.
  auto resumed = ValueOrFail(TagAutoCreation::Create(fs, path, "db.t", options), "auto");
  EXPECT_TRUE(ValueOrFail(resumed->Run(times.back()), "run").empty());
}

TEST(TagOperationsTest, TagsExpireByTheirRetentionTime) {
  ::tide::testing::TempDir dir;
  MaintenanceTable table(dir.path() + "/db.db/t", AppendSchema());
  table.Append({R(1)});
  FileSystem* fs = FileSystem::Local();
  const int64_t now = 1'700'000'000'000;
  ASSERT_TRUE(CreateTag(fs, table.path(), "db.t", "short", 1, 60'000, now).ok());
  ASSERT_TRUE(CreateTag(fs, table.path(), "db.t", "long", 1, 86'400'000, now).ok());
  ASSERT_TRUE(CreateTag(fs, table.path(), "db.t", "forever", 1, std::nullopt, now).ok());
  auto expired = ExpireTagsByTime(fs, table.path(), "db.t", now + 120'000);
  ASSERT_TRUE(expired.ok()) << expired.status().ToString();
  EXPECT_EQ(*expired, std::vector<std::string>{"short"});
  EXPECT_EQ(ValueOrFail(TagManager(fs, table.path()).ListNames(), "names"), (std::vector<std::string>{"forever", "long"}));
}

}  // namespace
}  // namespace tide
