#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <tuple>

#include "testing/temp_dir.h"
#include "tide/table/source/row_group_pruner.h"
#include "tide/table/table.h"
#include "tide/table/table_test_util.h"

namespace tide {
namespace {

// Reads a whole snapshot of a fixture table and renders each row as text, sorted.
Result<std::vector<std::string>> ReadRows(const std::string& id, SnapshotSelector selector,
                                          std::map<std::string, std::string> dynamic = {}) {
  std::string db = id.substr(0, id.find('.')), name = id.substr(id.find('.') + 1);
  TIDE_ASSIGN_OR_RETURN(auto table, Table::Open(FileSystem::Local(),
                                                testing::JavaFixtureWarehouse() + "/" + db + ".db/" + name, id));
  ReadOptions options;
  options.snapshot = selector;
  options.dynamic_options = std::move(dynamic);
  TIDE_ASSIGN_OR_RETURN(auto reader, table->NewReader(options));
  std::vector<std::string> out;
  std::vector<Row> rows;
  while (true) {
    rows.clear();
    TIDE_ASSIGN_OR_RETURN(bool more, reader->NextBatch(1000, &rows));
    if (!more) break;
    for (const auto& r : rows) out.push_back(RowToString(r, reader->fields()));
  }
  std::sort(out.begin(), out.end());
  return out;
}

SnapshotSelector At(int64_t id) {
  SnapshotSelector s;
  s.snapshot_id = id;
  return s;
}

// pk_table_scan_and_read_mor/README: deduplicate without deletion vectors, merge across levels.
TEST(TableReadTest, MergeOnReadFollowsTheWrites) {
  auto s1 = ReadRows("pk_table_scan_and_read_mor.pk_table_scan_and_read_mor", At(1));
  ASSERT_TRUE(s1.ok()) << s1.status().ToString();
  EXPECT_EQ(s1->size(), 9u);
  auto latest = ReadRows("pk_table_scan_and_read_mor.pk_table_scan_and_read_mor", {});
  ASSERT_TRUE(latest.ok()) << latest.status().ToString();
  std::vector<std::string> expected = {
      "(Alice, 10, 1, 19.1)",  "(Bob, 10, 0, 12.1)",    "(David, 10, 0, 17.1)", "(Emily, 10, 0, 13.1)",
      "(Lucy, 20, 1, 14.1)",   "(Marco, 10, 0, 21.1)",  "(Marco2, 10, 0, 31.1)", "(Paul, 20, 1, 18.1)",
      "(Skye, 10, 0, 21)",     "(Skye2, 10, 0, 31)",
      "(Two roads diverged in a wood, and I took the one less traveled by, And that has made all the difference., 10, 1, 11)"};
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(*latest, expected);
}

TEST(TableReadTest, PartialUpdateWithReadTimeIgnoreDelete) {
  // The table sets ignore-delete=true (its README: "read with ignore-delete: true").
  auto rows = ReadRows("pk_table_partial_update.pk_table_partial_update", {});
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, (std::vector<std::string>{"(0, 1, 100, true, new_apple)", "(1, 0, 2, false, NULL)",
                                             "(1, 1, 133.3, false, banana)", "(2, 1, 144.4, true, orange)"}));
  // Overridden for one read, the engine refuses the deletes, as Java does.
  auto refused = ReadRows("pk_table_partial_update.pk_table_partial_update", {}, {{"ignore-delete", "false"}});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("ignore-delete"), std::string::npos);
}

TEST(TableReadTest, UnknownSnapshotAndTableAreClearErrors) {
  auto missing = ReadRows("pk_table_scan_and_read_mor.pk_table_scan_and_read_mor", At(42));
  ASSERT_TRUE(missing.status().IsNotFound());
  EXPECT_NE(missing.status().message().find("snapshot 42"), std::string::npos);
  auto no_table = ReadRows("nope.nope", {});
  ASSERT_TRUE(no_table.status().IsNotFound()) << no_table.status().ToString();
  EXPECT_NE(no_table.status().message().find("nope.nope"), std::string::npos);
}


// --- Primary-key lookups (ReadOptions::primary_key_equals).

Result<std::vector<Row>> Lookup(const std::string& path, Row key) {
  TIDE_ASSIGN_OR_RETURN(auto table, Table::Open(FileSystem::Local(), path, "db.t"));
  ReadOptions options;
  options.primary_key_equals = std::move(key);
  TIDE_ASSIGN_OR_RETURN(auto reader, table->NewReader(options));
  std::vector<Row> rows;
  while (true) {
    TIDE_ASSIGN_OR_RETURN(bool more, reader->NextBatch(7, &rows));
    if (!more) break;
  }
  return rows;
}

// Writes `rows` (with their kinds) in one TableWrite and commits them as commit `identifier`; returns
// the commit's messages.
std::vector<CommitMessage> WriteAndCommit(const std::string& path, const TableSchema& schema,
                                          const std::vector<std::pair<RowKind, Row>>& rows, int64_t identifier) {
  auto w = TableWrite::Create(FileSystem::Local(), path, schema, "user-1");
  EXPECT_TRUE(w.ok()) << w.status().ToString();
  if (!w.ok()) return {};
  for (const auto& [kind, row] : rows) EXPECT_TRUE((*w)->Write(kind, row).ok());
  auto messages = (*w)->PrepareCommit();
  EXPECT_TRUE(messages.ok()) << messages.status().ToString();
  if (!messages.ok()) return {};
  auto committed = testing::CommitMessages(path, *messages, "user-1", identifier);
  EXPECT_TRUE(committed.ok()) << committed.status().ToString();
  return *messages;
}

// A partitioned table with a composite key (partition, BIGINT, STRING) over several buckets and
// commits that update and delete keys: every lookup returns exactly the model's row, or nothing.
TEST(TableLookupTest, LookupsMatchTheModelAcrossPartitionsBucketsAndCommits) {
  testing::TempDir dir;
  std::string path = dir.path() + "/db.db/t";
  TableSchema schema = testing::WriterTestSchema(
      {testing::Field(0, "dt", DataType::String(false)), testing::Field(1, "id", DataType::BigInt(false)),
       testing::Field(2, "code", DataType::String(false)), testing::Field(3, "v", DataType::Int())},
      {"dt", "id", "code"}, {"dt"}, {{"bucket", "3"}});
  ASSERT_TRUE(testing::CreateWriterTestTable(path, schema).ok());
  std::map<std::tuple<std::string, int64_t, std::string>, Row> model;
  std::mt19937 rng(5);
  const char* partitions[] = {"a", "b"};
  for (int commit = 1; commit <= 4; ++commit) {
    std::vector<std::pair<RowKind, Row>> rows;
    for (int i = 0; i < 120; ++i) {
      std::string dt = partitions[rng() % 2];
      int64_t id = commit == 4 ? 1000 + static_cast<int64_t>(rng() % 10) : static_cast<int64_t>(rng() % 80);
      // A quote (escaped in the pushed-down literal), a backslash and a non-ASCII code (not pushed down).
      const char* codes[] = {"x", "it's", "a\\b", "\xc3\xa9"};
      std::string code = codes[rng() % 4];
      Row row{Datum(dt), Datum(id), Datum(code), Datum(static_cast<int64_t>(rng() % 1000))};
      auto key = std::make_tuple(dt, id, code);
      if (commit > 1 && rng() % 5 == 0) {
        rows.emplace_back(RowKind::kDelete, row);
        model.erase(key);
      } else {
        rows.emplace_back(RowKind::kInsert, row);
        model[key] = row;
      }
    }
    WriteAndCommit(path, schema, rows, commit);
  }
  int found = 0;
  for (const char* dt : {"a", "b", "c"}) {
    for (int64_t id : {0, 1, 17, 40, 79, 80, 999, 1000, 1005, 1009, 2000}) {
      for (const char* code : {"x", "it's", "a\\b", "\xc3\xa9", "y"}) {
        auto rows = Lookup(path, Row{Datum(dt), Datum(id), Datum(code)});
        ASSERT_TRUE(rows.ok()) << rows.status().ToString();
        auto it = model.find(std::make_tuple(std::string(dt), id, std::string(code)));
        if (it == model.end()) {
          EXPECT_TRUE(rows->empty()) << dt << "/" << id << "/" << code << ": " << rows->size() << " rows";
        } else {
          ++found;
          ASSERT_EQ(rows->size(), 1u) << dt << "/" << id << "/" << code;
          EXPECT_EQ((*rows)[0], it->second);
        }
      }
    }
  }
  EXPECT_GT(found, 10);  // the keys probed hit live rows as well as absent and deleted ones
}

// Files whose key range excludes the key are not opened: with one run's file gone from disk, lookups of
// keys outside its range still succeed while a scan (and a lookup inside its range) fail.
TEST(TableLookupTest, FilesOutsideTheKeyRangeAreNotOpened) {
  testing::TempDir dir;
  std::string path = dir.path() + "/db.db/t";
  TableSchema schema = testing::WriterTestSchema(
      {testing::Field(0, "id", DataType::BigInt(false)), testing::Field(1, "v", DataType::String())}, {"id"}, {},
      {{"bucket", "1"}});
  ASSERT_TRUE(testing::CreateWriterTestTable(path, schema).ok());
  std::vector<std::pair<RowKind, Row>> low, high;
  for (int64_t id = 1; id <= 10; ++id) low.emplace_back(RowKind::kInsert, Row{Datum(id), Datum("low")});
  for (int64_t id = 100; id <= 110; ++id) high.emplace_back(RowKind::kInsert, Row{Datum(id), Datum("high")});
  auto low_messages = WriteAndCommit(path, schema, low, 1);
  WriteAndCommit(path, schema, high, 2);
  ASSERT_EQ(low_messages.size(), 1u);
  ASSERT_EQ(low_messages[0].new_files.size(), 1u);
  ASSERT_TRUE(FileSystem::Local()->DeleteFile(path + "/bucket-0/" + low_messages[0].new_files[0].file_name).ok());

  for (int64_t id : {0, 11, 50, 100, 105, 110, 111}) {
    auto rows = Lookup(path, Row{Datum(id)});
    ASSERT_TRUE(rows.ok()) << id << ": " << rows.status().ToString();
    if (id >= 100 && id <= 110) {
      ASSERT_EQ(rows->size(), 1u) << id;
      EXPECT_EQ((*rows)[0], (Row{Datum(id), Datum("high")}));
    } else {
      EXPECT_TRUE(rows->empty()) << id;
    }
  }
  EXPECT_FALSE(Lookup(path, Row{Datum(int64_t{5})}).ok());
  EXPECT_FALSE(testing::ReadTable(path).ok());
}

// Inside a file, a lookup reads only the row groups whose key statistics may hold the key (Tide's own
// Parquet reader, no DuckDB query), and still finds every key.
TEST(TableLookupTest, OnlyTheKeysRowGroupsAreRead) {
  testing::TempDir dir;
  std::string path = dir.path() + "/db.db/t";
  TableSchema schema = testing::WriterTestSchema(
      {testing::Field(0, "id", DataType::BigInt(false)), testing::Field(1, "v", DataType::String())}, {"id"}, {},
      {{"bucket", "1"}, {"parquet.block.size", "1kb"}});
  ASSERT_TRUE(testing::CreateWriterTestTable(path, schema).ok());
  std::vector<std::pair<RowKind, Row>> rows;
  for (int64_t id = 0; id < 20000; ++id) rows.emplace_back(RowKind::kInsert, Row{Datum(id), Datum("v" + std::to_string(id))});
  WriteAndCommit(path, schema, rows, 1);
  for (int64_t id : {int64_t{0}, int64_t{7777}, int64_t{19999}, int64_t{20000}}) {
    int64_t read_before = RowGroupsRead(), skipped_before = RowGroupsSkipped();
    auto found = Lookup(path, Row{Datum(id)});
    ASSERT_TRUE(found.ok()) << found.status().ToString();
    int64_t read = RowGroupsRead() - read_before, skipped = RowGroupsSkipped() - skipped_before;
    if (id < 20000) {
      ASSERT_EQ(found->size(), 1u) << id;
      EXPECT_EQ((*found)[0], (Row{Datum(id), Datum("v" + std::to_string(id))}));
      // The probe pass and the read of the row: one group each.
      EXPECT_LE(read, 2) << id;
      EXPECT_GT(skipped, 10) << id;
    } else {
      EXPECT_TRUE(found->empty());
    }
  }
}

// Buckets other than the key's are not opened.
TEST(TableLookupTest, OtherBucketsAreNotOpened) {
  testing::TempDir dir;
  std::string path = dir.path() + "/db.db/t";
  TableSchema schema = testing::WriterTestSchema(
      {testing::Field(0, "id", DataType::BigInt(false)), testing::Field(1, "v", DataType::BigInt())}, {"id"}, {},
      {{"bucket", "4"}});
  ASSERT_TRUE(testing::CreateWriterTestTable(path, schema).ok());
  std::vector<std::pair<RowKind, Row>> rows;
  for (int64_t id = 1; id <= 200; ++id) rows.emplace_back(RowKind::kInsert, Row{Datum(id), Datum(id * 3)});
  auto messages = WriteAndCommit(path, schema, rows, 1);
  ASSERT_EQ(messages.size(), 4u);
  // The bucket of key 7: where a writer of the same table puts it.
  auto w = TableWrite::Create(FileSystem::Local(), path, schema, "probe");
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE((*w)->Write(RowKind::kInsert, Row{Datum(int64_t{7}), Datum(int64_t{0})}).ok());
  auto probe = (*w)->PrepareCommit();
  ASSERT_TRUE(probe.ok());
  ASSERT_EQ(probe->size(), 1u);
  int32_t bucket = (*probe)[0].bucket;
  (*w)->Abort();
  for (const auto& m : messages) {
    if (m.bucket == bucket) continue;
    for (const auto& f : m.new_files) {
      ASSERT_TRUE(FileSystem::Local()->DeleteFile(path + "/bucket-" + std::to_string(m.bucket) + "/" + f.file_name).ok());
    }
  }
  auto found = Lookup(path, Row{Datum(int64_t{7})});
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  ASSERT_EQ(found->size(), 1u);
  EXPECT_EQ((*found)[0], (Row{Datum(int64_t{7}), Datum(int64_t{21})}));
  EXPECT_FALSE(testing::ReadTable(path).ok());
}

TEST(TableLookupTest, RefusesLookupsThatCannotBeKeys) {
  testing::TempDir dir;
  std::string pk_path = dir.path() + "/db.db/pk";
  TableSchema pk = testing::WriterTestSchema(
      {testing::Field(0, "id", DataType::BigInt(false)), testing::Field(1, "v", DataType::String())}, {"id"}, {},
      {{"bucket", "1"}});
  ASSERT_TRUE(testing::CreateWriterTestTable(pk_path, pk).ok());
  WriteAndCommit(pk_path, pk, {{RowKind::kInsert, Row{Datum(int64_t{1}), Datum("a")}}}, 1);
  auto two = Lookup(pk_path, Row{Datum(int64_t{1}), Datum("a")});
  ASSERT_FALSE(two.ok());
  EXPECT_TRUE(two.status().IsInvalidArgument()) << two.status().ToString();
  auto null_key = Lookup(pk_path, Row{Datum()});
  ASSERT_FALSE(null_key.ok());
  EXPECT_TRUE(null_key.status().IsInvalidArgument()) << null_key.status().ToString();

  std::string append_path = dir.path() + "/db.db/append";
  TableSchema append = testing::WriterTestSchema(
      {testing::Field(0, "id", DataType::BigInt(false)), testing::Field(1, "v", DataType::String())}, {}, {},
      {{"bucket", "-1"}});
  ASSERT_TRUE(testing::CreateWriterTestTable(append_path, append).ok());
  WriteAndCommit(append_path, append, {{RowKind::kInsert, Row{Datum(int64_t{1}), Datum("a")}}}, 1);
  auto on_append = Lookup(append_path, Row{Datum(int64_t{1})});
  ASSERT_FALSE(on_append.ok());
  EXPECT_TRUE(on_append.status().IsInvalidArgument()) << on_append.status().ToString();
  EXPECT_NE(on_append.status().message().find("db.t"), std::string::npos) << on_append.status().ToString();
}


// On a deduplicate table the newest file holding the key ends the search: with an older file (whose
// key range covers the key) gone from disk, a key the newest file holds is still found, while a key
// only the older file holds needs it.
TEST(TableLookupTest, DeduplicateLookupStopsAtTheNewestFileHoldingTheKey) {
  testing::TempDir dir;
  std::string path = dir.path() + "/db.db/t";
  TableSchema schema = testing::WriterTestSchema(
      {testing::Field(0, "id", DataType::BigInt(false)), testing::Field(1, "v", DataType::String())}, {"id"}, {},
      {{"bucket", "1"}});
  ASSERT_TRUE(testing::CreateWriterTestTable(path, schema).ok());
  std::vector<std::pair<RowKind, Row>> first, second;
  for (int64_t id = 1; id <= 20; ++id) first.emplace_back(RowKind::kInsert, Row{Datum(id), Datum("old")});
  second.emplace_back(RowKind::kInsert, Row{Datum(int64_t{1}), Datum("new")});
  second.emplace_back(RowKind::kDelete, Row{Datum(int64_t{7}), Datum("old")});
  second.emplace_back(RowKind::kInsert, Row{Datum(int64_t{20}), Datum("new")});
  auto first_messages = WriteAndCommit(path, schema, first, 1);
  WriteAndCommit(path, schema, second, 2);
  auto before = Lookup(path, Row{Datum(int64_t{10})});
  ASSERT_TRUE(before.ok()) << before.status().ToString();
  ASSERT_EQ(before->size(), 1u);
  EXPECT_EQ((*before)[0], (Row{Datum(int64_t{10}), Datum("old")}));

  ASSERT_EQ(first_messages.size(), 1u);
  ASSERT_TRUE(FileSystem::Local()->DeleteFile(path + "/bucket-0/" + first_messages[0].new_files[0].file_name).ok());
  for (int64_t id : {1, 20}) {
    auto rows = Lookup(path, Row{Datum(id)});
    ASSERT_TRUE(rows.ok()) << id << ": " << rows.status().ToString();
    ASSERT_EQ(rows->size(), 1u) << id;
    EXPECT_EQ((*rows)[0], (Row{Datum(id), Datum("new")}));
  }
  auto deleted = Lookup(path, Row{Datum(int64_t{7})});
  ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
  EXPECT_TRUE(deleted->empty());
  EXPECT_FALSE(Lookup(path, Row{Datum(int64_t{10})}).ok());
}

// Other merge engines fold every version of the key: a partial-update lookup combines the fields of
// both commits, and with ignore-delete a deduplicate lookup skips a newer delete for the older row.
TEST(TableLookupTest, LookupsFoldEveryVersionWhereTheEngineNeedsIt) {
  testing::TempDir dir;
  std::string path = dir.path() + "/db.db/t";
  TableSchema schema = testing::WriterTestSchema(
      {testing::Field(0, "id", DataType::BigInt(false)), testing::Field(1, "a", DataType::String()),
       testing::Field(2, "b", DataType::String())},
      {"id"}, {}, {{"bucket", "1"}, {"merge-engine", "partial-update"}});
  ASSERT_TRUE(testing::CreateWriterTestTable(path, schema).ok());
  WriteAndCommit(path, schema, {{RowKind::kInsert, Row{Datum(int64_t{1}), Datum("a1"), Datum()}}}, 1);
  WriteAndCommit(path, schema, {{RowKind::kInsert, Row{Datum(int64_t{1}), Datum(), Datum("b2")}}}, 2);
  auto rows = Lookup(path, Row{Datum(int64_t{1})});
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ((*rows)[0], (Row{Datum(int64_t{1}), Datum("a1"), Datum("b2")}));

  std::string dedup_path = dir.path() + "/db.db/d";
  TableSchema dedup = testing::WriterTestSchema(
      {testing::Field(0, "id", DataType::BigInt(false)), testing::Field(1, "v", DataType::String())}, {"id"}, {},
      {{"bucket", "1"}});
  ASSERT_TRUE(testing::CreateWriterTestTable(dedup_path, dedup).ok());
  WriteAndCommit(dedup_path, dedup, {{RowKind::kInsert, Row{Datum(int64_t{3}), Datum("kept")}}}, 1);
  WriteAndCommit(dedup_path, dedup, {{RowKind::kDelete, Row{Datum(int64_t{3}), Datum("kept")}}}, 2);
  auto gone = Lookup(dedup_path, Row{Datum(int64_t{3})});
  ASSERT_TRUE(gone.ok()) << gone.status().ToString();
  EXPECT_TRUE(gone->empty());
  auto table = Table::Open(FileSystem::Local(), dedup_path, "db.d");
  ASSERT_TRUE(table.ok());
  ReadOptions options;
  options.primary_key_equals = Row{Datum(int64_t{3})};
  options.dynamic_options["ignore-delete"] = "true";
  auto reader = (*table)->NewReader(options);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  std::vector<Row> kept;
  while (true) {
    auto more = (*reader)->NextBatch(4, &kept);
    ASSERT_TRUE(more.ok()) << more.status().ToString();
    if (!*more) break;
  }
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0], (Row{Datum(int64_t{3}), Datum("kept")}));
}

}  // namespace
}  // namespace tide
