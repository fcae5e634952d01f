// `changelog-producer.row-deduplicate` (and `changelog-producer.row-deduplicate-ignore-fields`) with the
// lookup and full-compaction changelog producers: an update that leaves a row equal (the ignored fields
// aside) yields no -U/+U in the changelog files, as Java's changelog wrappers with a RecordEqualiser;
// other changes yield their +I, -U/+U, -D as without the option.

#include <gtest/gtest.h>

#include "testing/temp_dir.h"
#include "testing/value_or_fail.h"
#include "tide/table/io/key_value_file_reader.h"
#include "tide/table/manifest/manifest.h"
#include "tide/table/sink/table_write.h"
#include "tide/table/table_test_util.h"

namespace tide {
namespace {

using testing::Field;
using testing::WriterTestSchema;

Datum I(int64_t v) { return Datum(v); }

// Every changelog record of the table's snapshots, in snapshot and file order, as "<kind> k,v,ts".
std::vector<std::string> Changelog(const std::string& path, const TableSchema& schema) {
  FileSystem* fs = FileSystem::Local();
  SnapshotManager snapshots(fs, path);
  FileStoreScan scan(fs, path, "test.t", schema);
  std::vector<std::string> out;
  auto latest = snapshots.LatestId().value();
  for (int64_t id = 1; latest && id <= *latest; ++id) {
    Snapshot snapshot = snapshots.Get(id).value();
    if (!snapshot.changelog_manifest_list) continue;
    auto lists = testing::ValueOrFail(ReadManifestList(fs, scan.ManifestPath(*snapshot.changelog_manifest_list)), "list");
    for (const auto& list : lists) {
      auto entries = testing::ValueOrFail(ReadManifest(fs, scan.ManifestPath(list.file_name)), "manifest");
      for (const auto& e : entries) {
        KeyValueFileReadSpec spec;
        spec.path = JoinPath(path + "/bucket-0", e.file.file_name);
        spec.file_schema = &schema;
        spec.needed = &schema.fields;
        spec.primary_key = true;
        spec.table_name = "test.t";
        auto reader = testing::ValueOrFail(KeyValueFileReader::Open(std::move(spec)), "open");
        while (testing::ValueOrFail(reader->Advance(), "advance")) {
          const KeyValue& kv = reader->current();
          static const char* kKinds[] = {"+I", "-U", "+U", "-D"};
          out.push_back(std::string(kKinds[static_cast<int>(kv.kind)]) + " " + std::to_string(kv.row[0].as_int()) +
                        "," + kv.row[1].as_string() + "," + std::to_string(kv.row[2].as_int()));
        }
      }
    }
  }
  return out;
}

std::vector<std::string> RunWorkload(const std::string& path, std::vector<std::pair<std::string, std::string>> options) {
  options.emplace_back("bucket", "1");
  TableSchema schema = WriterTestSchema(
      {Field(0, "k", DataType::BigInt(false)), Field(1, "v", DataType::String()), Field(2, "ts", DataType::BigInt())},
      {"k"}, {}, options);
  EXPECT_TRUE(testing::CreateWriterTestTable(path, schema).ok());
  auto w = testing::ValueOrFail(TableWrite::Create(FileSystem::Local(), path, schema, "u"), "Create");
  const std::vector<std::vector<std::pair<RowKind, Row>>> commits = {
      {{RowKind::kInsert, {I(1), Datum("a"), I(1)}}, {RowKind::kInsert, {I(2), Datum("x"), I(1)}}},
      // key 1: only ts changes; key 2: v changes.
      {{RowKind::kUpdateAfter, {I(1), Datum("a"), I(2)}}, {RowKind::kUpdateAfter, {I(2), Datum("y"), I(2)}}},
      // key 1: the very same row again; key 2 goes.
      {{RowKind::kUpdateAfter, {I(1), Datum("a"), I(2)}}, {RowKind::kDelete, {I(2), Datum("y"), I(2)}}}};
  int64_t identifier = 0;
  for (const auto& commit : commits) {
    for (const auto& [kind, row] : commit) EXPECT_TRUE(w->Write(kind, row).ok());
    auto committed = testing::CommitMessages(path, testing::ValueOrFail(w->PrepareCommit(), "prepare"), "u", ++identifier);
    EXPECT_TRUE(committed.ok()) << committed.status().ToString();
  }
  return Changelog(path, schema);
}

const std::vector<std::pair<std::string, std::string>> kLookup = {{"changelog-producer", "lookup"}};
const std::vector<std::pair<std::string, std::string>> kFull = {{"changelog-producer", "full-compaction"},
                                                               {"full-compaction.delta-commits", "1"}};

TEST(RowDeduplicateTest, EqualRowsYieldNoUpdate) {
  for (const auto& producer : {kLookup, kFull}) {
    SCOPED_TRACE(producer[0].second);
    testing::TempDir dir;
    auto with = [&](std::vector<std::pair<std::string, std::string>> extra) {
      auto options = producer;
      for (auto& o : extra) options.push_back(std::move(o));
      return options;
    };
    // Without the option every update is a -U/+U pair, even of an equal row.
    EXPECT_EQ(RunWorkload(dir.path() + "/plain", producer),
              (std::vector<std::string>{"+I 1,a,1", "+I 2,x,1", "-U 1,a,1", "+U 1,a,2", "-U 2,x,1", "+U 2,y,2",
                                        "-U 1,a,2", "+U 1,a,2", "-D 2,y,2"}));
    EXPECT_EQ(RunWorkload(dir.path() + "/dedup", with({{"changelog-producer.row-deduplicate", "true"}})),
              (std::vector<std::string>{"+I 1,a,1", "+I 2,x,1", "-U 1,a,1", "+U 1,a,2", "-U 2,x,1", "+U 2,y,2",
                                        "-D 2,y,2"}));
    EXPECT_EQ(RunWorkload(dir.path() + "/ignore", with({{"changelog-producer.row-deduplicate", "true"},
                                                         {"changelog-producer.row-deduplicate-ignore-fields", "ts"}})),
              (std::vector<std::string>{"+I 1,a,1", "+I 2,x,1", "-U 2,x,1", "+U 2,y,2", "-D 2,y,2"}));
  }
}

TEST(RowDeduplicateTest, RefusesAnUnknownIgnoredField) {
  testing::TempDir dir;
  TableSchema schema = WriterTestSchema({Field(0, "k", DataType::BigInt(false)), Field(1, "v", DataType::String())},
                                        {"k"}, {},
                                        {{"bucket", "1"}, {"changelog-producer", "lookup"},
                                         {"changelog-producer.row-deduplicate", "true"},
                                         {"changelog-producer.row-deduplicate-ignore-fields", "nope"}});
  auto w = TableWrite::Create(FileSystem::Local(), dir.path() + "/t", schema, "u");
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.status().message().find("nope"), std::string::npos);
}

}  // namespace
}  // namespace tide
