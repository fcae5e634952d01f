// Tide's lookup compaction against Java's, on the fixtures Java wrote (tests/fixtures/paimon-java/parquet,
// each with a README listing its writes):
//   * pk_table_scan_and_read_dv (deletion vectors, `commit.force-compact`, partition f1, bucket key f2,
//     two buckets): Tide replays its first two commits through TableWrite and FileStoreCommit and must
//     store what Java stored in snapshots 1..4 (APPEND, COMPACT moving level 0 up, APPEND with a DELETE
//     and an UPDATE_AFTER, COMPACT marking the superseded rows in deletion vectors): commit kinds and
//     identifiers, record counts, every delta manifest entry (kind, partition, bucket, level, key range,
//     statistics, counts, sequence range, file source), and the index manifest of snapshot 4 field for
//     field (kind, partition, bucket, index type, file size, row count, each vector's offset, length and
//     cardinality, and the data file it belongs to: Tide's file in Java's file's place), and each DV index
//     file byte for byte. Only UUID file names and sizes of data files may differ.
//   * every deletion-vector fixture Tide can write (32- and 64-bit vectors, index files in the index
//     folder or beside the data, schema evolution, Java 0.9 to 1.3): Tide compacts the table further (its
//     level-0 files, then fully) and the table then reads, without merging, exactly what merge-on-read of
//     every file gives (the same fixture read with deletion vectors ignored);
//   * pk_table_scan_and_read_first_row: compacted further by Tide, it reads the first row of each key of
//     the README's writes.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

#include "testing/temp_dir.h"
#include "tide/base/bytes.h"
#include "tide/io/file_system.h"
#include "tide/table/manifest/manifest.h"
#include "tide/table/operation/file_store_commit.h"
#include "tide/table/schema/schema_manager.h"
#include "tide/table/sink/table_write.h"
#include "tide/table/snapshot/snapshot_manager.h"
#include "tide/table/table_test_util.h"

namespace tide {
namespace {

std::string JavaPath(const std::string& table) {
  return testing::JavaFixtureWarehouse() + "/" + table + ".db/" + table;
}

std::vector<ManifestEntry> DeltaEntries(const std::string& table_path, const Snapshot& snapshot) {
  std::vector<ManifestEntry> out;
  auto metas = ReadManifestList(FileSystem::Local(), table_path + "/manifest/" + snapshot.delta_manifest_list);
  EXPECT_TRUE(metas.ok()) << metas.status().ToString();
  if (!metas.ok()) return out;
  for (const auto& m : *metas) {
    auto entries = ReadManifest(FileSystem::Local(), table_path + "/manifest/" + m.file_name);
    EXPECT_TRUE(entries.ok()) << entries.status().ToString();
    if (entries.ok()) out.insert(out.end(), entries->begin(), entries->end());
  }
  std::sort(out.begin(), out.end(), [](const ManifestEntry& a, const ManifestEntry& b) {
    return std::make_tuple(a.partition, a.bucket, static_cast<int>(a.kind), a.file.level, a.file.min_sequence_number) <
           std::make_tuple(b.partition, b.bucket, static_cast<int>(b.kind), b.file.level, b.file.min_sequence_number);
  });
  return out;
}

std::vector<IndexManifestEntry> IndexEntries(const std::string& table_path, const Snapshot& snapshot) {
  if (!snapshot.index_manifest) return {};
  auto entries = ReadIndexManifest(FileSystem::Local(), table_path + "/manifest/" + *snapshot.index_manifest);
  EXPECT_TRUE(entries.ok()) << entries.status().ToString();
  if (!entries.ok()) return {};
  std::sort(entries->begin(), entries->end(), [](const IndexManifestEntry& a, const IndexManifestEntry& b) {
    return std::make_tuple(a.partition, a.bucket) < std::make_tuple(b.partition, b.bucket);
  });
  return *entries;
}

// The live data file of (partition, bucket) named `name`, to find its counterpart on the other side.
const ManifestEntry* LiveFile(const std::vector<ManifestEntry>& live, const std::string& name) {
  for (const auto& e : live) {
    if (e.file.file_name == name) return &e;
  }
  return nullptr;
}

TEST(JavaDeletionVectorEqualityTest, LookupCompactionWritesJavasSnapshotsAndIndexFiles) {
  const std::string table = "pk_table_scan_and_read_dv";
  FileSystem* fs = FileSystem::Local();
  auto java_schema = SchemaManager(fs, JavaPath(table)).Get(0);
  ASSERT_TRUE(java_schema.ok()) << java_schema.status().ToString();
  testing::TempDir dir;
  const std::string path = dir.path() + "/db.db/" + table;
  ASSERT_TRUE(fs->WriteFileExclusive(path + "/schema/schema-0", java_schema->ToJson()).ok());

  const std::string user = "dv-equality";
  auto writer = TableWrite::Create(fs, path, *java_schema, user);
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  auto committer = FileStoreCommit::Create(fs, path, table);
  ASSERT_TRUE(committer.ok()) << committer.status().ToString();
  auto write = [&](RowKind kind, const char* f0, int32_t f1, int32_t f2, double f3) {
    Status s = (*writer)->Write(kind, Row{Datum(std::string(f0)), Datum(f1), Datum(f2), Datum(f3)});
    ASSERT_TRUE(s.ok()) << s.ToString();
  };
  auto commit = [&](int64_t identifier) {
    auto messages = (*writer)->PrepareCommit();
    ASSERT_TRUE(messages.ok()) << messages.status().ToString();
    CommitOptions options;
    options.commit_user = user;
    options.commit_identifier = identifier;
    auto result = (*committer)->Commit(*messages, options);
    ASSERT_TRUE(result.ok()) << result.status().ToString();
  };
  write(RowKind::kInsert,
        "Two roads diverged in a wood, and I took the one less traveled by, And that has made all the difference.",
        10, 1, 11.0);
  write(RowKind::kInsert, "Alice", 10, 1, 11.1);
  write(RowKind::kInsert, "Bob", 10, 0, 12.1);
  write(RowKind::kInsert, "Emily", 10, 0, 13.1);
  write(RowKind::kInsert, "Tony", 10, 0, 14.1);
  write(RowKind::kInsert, "Alex", 10, 0, 16.1);
  write(RowKind::kInsert, "David", 10, 0, 17.1);
  write(RowKind::kInsert, "Lucy", 20, 1, 14.1);
  write(RowKind::kInsert, "Paul", 20, 1, 18.1);
  commit(1);
  write(RowKind::kDelete, "Tony", 10, 0, 14.1);
  write(RowKind::kUpdateAfter, "Alice", 10, 1, 19.1);
  commit(2);

  SnapshotManager java_snapshots(fs, JavaPath(table)), tide_snapshots(fs, path);
  auto tide_latest = tide_snapshots.LatestId();
  ASSERT_TRUE(tide_latest.ok() && *tide_latest);
  EXPECT_EQ(**tide_latest, 4);
  for (int64_t id = 1; id <= 4; ++id) {
    SCOPED_TRACE("snapshot " + std::to_string(id));
    auto java = java_snapshots.Get(id);
    auto tide = tide_snapshots.Get(id);
    ASSERT_TRUE(java.ok() && tide.ok());
    EXPECT_EQ(CommitKindName(tide->commit_kind), CommitKindName(java->commit_kind));
    EXPECT_EQ(tide->commit_identifier, java->commit_identifier);
    EXPECT_EQ(tide->total_record_count, java->total_record_count);
    EXPECT_EQ(tide->delta_record_count, java->delta_record_count);
    EXPECT_EQ(tide->changelog_manifest_list.has_value(), java->changelog_manifest_list.has_value());
    EXPECT_EQ(tide->index_manifest.has_value(), java->index_manifest.has_value());
    auto java_entries = DeltaEntries(JavaPath(table), *java);
    auto tide_entries = DeltaEntries(path, *tide);
    ASSERT_EQ(tide_entries.size(), java_entries.size());
    for (size_t i = 0; i < java_entries.size(); ++i) {
      const ManifestEntry& j = java_entries[i];
      const ManifestEntry& t = tide_entries[i];
      SCOPED_TRACE("entry " + std::to_string(i) + " (Java file " + j.file.file_name + ")");
      EXPECT_EQ(t.kind, j.kind);
      EXPECT_EQ(HexEncode(t.partition), HexEncode(j.partition));
      EXPECT_EQ(t.bucket, j.bucket);
      EXPECT_EQ(t.total_buckets, j.total_buckets);
      EXPECT_EQ(t.file.level, j.file.level);
      EXPECT_EQ(t.file.row_count, j.file.row_count);
      EXPECT_EQ(HexEncode(t.file.min_key), HexEncode(j.file.min_key));
      EXPECT_EQ(HexEncode(t.file.max_key), HexEncode(j.file.max_key));
      EXPECT_EQ(HexEncode(t.file.key_stats.min_values), HexEncode(j.file.key_stats.min_values));
      EXPECT_EQ(HexEncode(t.file.key_stats.max_values), HexEncode(j.file.key_stats.max_values));
      EXPECT_EQ(HexEncode(t.file.value_stats.min_values), HexEncode(j.file.value_stats.min_values));
      EXPECT_EQ(HexEncode(t.file.value_stats.max_values), HexEncode(j.file.value_stats.max_values));
      EXPECT_EQ(t.file.value_stats.null_counts, j.file.value_stats.null_counts);
      EXPECT_EQ(t.file.min_sequence_number, j.file.min_sequence_number);
      EXPECT_EQ(t.file.max_sequence_number, j.file.max_sequence_number);
      EXPECT_EQ(t.file.delete_row_count, j.file.delete_row_count);
      EXPECT_EQ(t.file.schema_id, j.file.schema_id);
      EXPECT_EQ(t.file.file_source, j.file.file_source);
    }
  }

  // Snapshot 4's deletion vectors: the same index entries, vectors of the corresponding files, and
  // byte-identical DV index files.
  auto java4 = java_snapshots.Get(4);
  auto tide4 = tide_snapshots.Get(4);
  ASSERT_TRUE(java4.ok() && tide4.ok());
  auto java_live = testing::LiveEntries(JavaPath(table));
  ASSERT_TRUE(java_live.ok());
  // Java's snapshot 6 is the fixture's latest; the files of snapshot 4 are in its base list too.
  FileStoreScan java_scan(fs, JavaPath(table), table, *java_schema);
  auto java_live4 = java_scan.ReadLiveEntries(*java4);
  ASSERT_TRUE(java_live4.ok()) << java_live4.status().ToString();
  auto tide_live = testing::LiveEntries(path);
  ASSERT_TRUE(tide_live.ok());
  auto java_index = IndexEntries(JavaPath(table), *java4);
  auto tide_index = IndexEntries(path, *tide4);
  ASSERT_EQ(tide_index.size(), java_index.size());
  ASSERT_FALSE(java_index.empty());
  for (size_t i = 0; i < java_index.size(); ++i) {
    const IndexManifestEntry& j = java_index[i];
    const IndexManifestEntry& t = tide_index[i];
    SCOPED_TRACE("index entry " + std::to_string(i) + " (Java file " + j.file_name + ")");
    EXPECT_EQ(t.kind, j.kind);
    EXPECT_EQ(HexEncode(t.partition), HexEncode(j.partition));
    EXPECT_EQ(t.bucket, j.bucket);
    EXPECT_EQ(t.index_type, j.index_type);
    EXPECT_EQ(t.file_size, j.file_size);
    EXPECT_EQ(t.row_count, j.row_count);
    EXPECT_EQ(t.external_path, j.external_path);
    EXPECT_EQ(t.has_global_index, j.has_global_index);
    ASSERT_TRUE(j.deletion_vectors && t.deletion_vectors);
    ASSERT_EQ(t.deletion_vectors->size(), j.deletion_vectors->size());
    for (size_t k = 0; k < j.deletion_vectors->size(); ++k) {
      const DeletionVectorMeta& jm = (*j.deletion_vectors)[k];
      const DeletionVectorMeta& tm = (*t.deletion_vectors)[k];
      EXPECT_EQ(tm.offset, jm.offset);
      EXPECT_EQ(tm.length, jm.length);
      EXPECT_EQ(tm.cardinality, jm.cardinality);
      // The vector belongs to Tide's file in the place of Java's: same bucket, level and key range.
      const ManifestEntry* jf = LiveFile(*java_live4, jm.data_file_name);
      const ManifestEntry* tf = LiveFile(*tide_live, tm.data_file_name);
      ASSERT_TRUE(jf && tf);
      EXPECT_EQ(HexEncode(tf->partition), HexEncode(jf->partition));
      EXPECT_EQ(tf->bucket, jf->bucket);
      EXPECT_EQ(tf->file.level, jf->file.level);
      EXPECT_EQ(HexEncode(tf->file.min_key), HexEncode(jf->file.min_key));
      EXPECT_EQ(HexEncode(tf->file.max_key), HexEncode(jf->file.max_key));
    }
    auto java_bytes = fs->ReadFile(JavaPath(table) + "/index/" + j.file_name);
    auto tide_bytes = fs->ReadFile(path + "/index/" + t.file_name);
    ASSERT_TRUE(java_bytes.ok() && tide_bytes.ok());
    EXPECT_EQ(HexEncode(*tide_bytes), HexEncode(*java_bytes));
  }
  // And the table reads Java's rows of snapshot 4.
  auto rows = testing::ReadTable(path);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(rows->size(), 8u);  // nine rows, Tony deleted, Alice updated
}

// Copies a fixture table into `to`.
void CopyTable(const std::string& from, const std::string& to) {
  std::filesystem::create_directories(std::filesystem::path(to).parent_path());
  std::filesystem::copy(from, to, std::filesystem::copy_options::recursive);
}

// The table's schemas without `key` (a reference copy whose reads merge every file).
void RemoveOption(const std::string& table_path, const std::string& key) {
  for (const auto& e : std::filesystem::directory_iterator(table_path + "/schema")) {
    auto text = FileSystem::Local()->ReadFile(e.path().string());
    ASSERT_TRUE(text.ok());
    nlohmann::ordered_json json = nlohmann::ordered_json::parse(*text);
    json["options"].erase(key);
    std::filesystem::remove(e.path());
    ASSERT_TRUE(FileSystem::Local()->WriteFileExclusive(e.path().string(), json.dump(2)).ok());
  }
}

// Compacts every bucket of the table (level 0 up, or fully) with one Tide writer and commits a
// COMPACT snapshot.
void CompactWithTide(const std::string& path, const std::string& table, bool full, int64_t identifier) {
  auto schema = SchemaManager(FileSystem::Local(), path).Latest();
  ASSERT_TRUE(schema.ok()) << schema.status().ToString();
  auto writer = TableWrite::Create(FileSystem::Local(), path, *schema, "tide-compactor");
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  Status compacted = (*writer)->Compact(full);
  ASSERT_TRUE(compacted.ok()) << compacted.ToString();
  auto messages = (*writer)->PrepareCommit();
  ASSERT_TRUE(messages.ok()) << messages.status().ToString();
  auto committer = FileStoreCommit::Create(FileSystem::Local(), path, table);
  ASSERT_TRUE(committer.ok());
  CommitOptions options;
  options.commit_user = "tide-compactor";
  options.commit_identifier = identifier;
  options.kind = CommitKind::kCompact;
  auto result = (*committer)->Commit(*messages, options);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
}

class JavaDeletionVectorTablesTest : public ::testing::TestWithParam<std::string> {};

TEST_P(JavaDeletionVectorTablesTest, ReadBackIdenticallyAfterTideCompactsThem) {
  const std::string table = GetParam();
  testing::TempDir dir;
  const std::string path = dir.path() + "/db.db/" + table;
  const std::string reference = dir.path() + "/ref.db/" + table;
  CopyTable(JavaPath(table), path);
  CopyTable(JavaPath(table), reference);
  RemoveOption(reference, "deletion-vectors.enabled");
  auto expected = testing::ReadTable(reference);
  ASSERT_TRUE(expected.ok()) << expected.status().ToString();
  std::vector<Row> want = testing::SortedRows(*expected);
  ASSERT_FALSE(want.empty());

  for (bool full : {false, true}) {
    SCOPED_TRACE(full ? "full compaction" : "level 0 up");
    CompactWithTide(path, table, full, full ? 2 : 1);
    if (::testing::Test::HasFatalFailure()) return;
    auto live = testing::LiveEntries(path);
    ASSERT_TRUE(live.ok());
    for (const auto& e : *live) EXPECT_GT(e.file.level, 0) << e.file.file_name;
    auto rows = testing::ReadTable(path);
    ASSERT_TRUE(rows.ok()) << rows.status().ToString();
    ASSERT_EQ(testing::SortedRows(*rows), want);
    auto by_vectors = testing::ReadTableByVectors(path);
    ASSERT_TRUE(by_vectors.ok()) << by_vectors.status().ToString();
    ASSERT_EQ(testing::SortedRows(*by_vectors), want);
  }
}

INSTANTIATE_TEST_SUITE_P(JavaFixtures, JavaDeletionVectorTablesTest,
                         ::testing::Values("pk_table_scan_and_read_dv", "pk_table_with_dv_cardinality",
                                           "pk_dv_index_not_in_data_no_external", "pk_dv_index_in_data_no_external",
                                           "pk_with_bitmap_dv", "pk_09", "pk_table_with_alter_table"));

TEST(JavaFirstRowTableTest, ReadsTheFirstRowsAfterTideCompactsIt) {
  const std::string table = "pk_table_scan_and_read_first_row";
  testing::TempDir dir;
  const std::string path = dir.path() + "/db.db/" + table;
  CopyTable(JavaPath(table), path);
  // The README's writes under first-row with ignore-delete: a key keeps its first row.
  std::map<std::string, Row> first;
  auto put = [&](bool insert, const char* f0, int32_t f1, int32_t f2, double f3) {
    if (!insert) return;  // DELETE ignored
    Row row{Datum(std::string(f0)), Datum(f1), Datum(f2), Datum(f3)};
    first.emplace(std::string(f0) + "/" + std::to_string(f1) + "/" + std::to_string(f2), row);
  };
  put(true, "Two roads diverged in a wood, and I took the one less traveled by, And that has made all the difference.",
      10, 1, 11.0);
  put(true, "Alice", 10, 1, 11.1);
  put(true, "Bob", 10, 0, 12.1);
  put(true, "Emily", 10, 0, 13.1);
  put(true, "Tony", 10, 0, 14.1);
  put(true, "Alex", 10, 0, 16.1);
  put(true, "David", 10, 0, 17.1);
  put(true, "Lucy", 20, 1, 14.1);
  put(true, "Paul", 20, 1, 18.1);
  put(false, "Tony", 10, 0, 14.1);
  put(true, "Alice", 10, 1, 19.1);
  put(true, "Skye", 10, 0, 21.0);
  put(true, "Marco", 10, 0, 21.1);
  put(true, "Alex", 10, 0, 21.2);
  put(true, "Skye2", 10, 0, 31.0);
  put(true, "Marco2", 10, 0, 31.1);
  put(false, "Alex", 10, 0, 31.2);
  std::vector<Row> want;
  for (const auto& [key, row] : first) want.push_back(row);
  want = testing::SortedRows(std::move(want));
  for (bool full : {false, true}) {
    SCOPED_TRACE(full ? "full compaction" : "level 0 up");
    CompactWithTide(path, table, full, full ? 2 : 1);
    if (::testing::Test::HasFatalFailure()) return;
    auto rows = testing::ReadTable(path);
    ASSERT_TRUE(rows.ok()) << rows.status().ToString();
    ASSERT_EQ(testing::SortedRows(*rows), want);
  }
}

}  // namespace
}  // namespace tide
