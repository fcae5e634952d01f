// Tide's compaction against Java's, on the fixture pk_table_scan_and_read_mor (tests/fixtures/paimon-java/
// parquet; its README lists the writes): a partitioned primary-key table (f0, f1, f2), partition f1,
// bucket key f2, two buckets. Java wrote commit 1, then commit 2 together with a full compaction of
// bucket 0 of each partition (snapshots 2 APPEND and 3 COMPACT, both identifier 2): in f1=10 the two
// overlapping level-0 files were merged into one level-5 file (an UPDATE_AFTER folded), in f1=20 the
// single file was upgraded to level 5 without rewriting it.
//
// Tide replays the same writes through one TableWrite, compacts the same buckets fully in the same
// commit, and must produce the same snapshots: the COMPACT snapshot's record counts, and its delta
// manifest entry for entry (kind, partition bytes, bucket, total buckets, level, key range bytes, key
// and value statistics, row and delete counts, sequence range, schema id, file source); the upgraded
// file keeps its name; the rewritten file holds Java's rows with Java's sequence numbers and kinds.
// Only file names (UUIDs), sizes and times may differ.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "testing/temp_dir.h"
#include "tide/base/bytes.h"
#include "tide/io/file_system.h"
#include "tide/table/io/key_value_file_reader.h"
#include "tide/table/manifest/manifest.h"
#include "tide/table/operation/file_store_commit.h"
#include "tide/table/schema/schema_manager.h"
#include "tide/table/sink/table_write.h"
#include "tide/table/snapshot/snapshot_manager.h"

namespace tide {
namespace {

constexpr const char* kTable = "pk_table_scan_and_read_mor";

std::string JavaPath() { return testing::JavaFixtureWarehouse() + "/" + kTable + ".db/" + kTable; }

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
  // Java's order within a manifest is its own; compare in a fixed order.
  std::sort(out.begin(), out.end(), [](const ManifestEntry& a, const ManifestEntry& b) {
    return std::make_tuple(a.partition, a.bucket, static_cast<int>(a.kind), a.file.level, a.file.min_sequence_number) <
           std::make_tuple(b.partition, b.bucket, static_cast<int>(b.kind), b.file.level, b.file.min_sequence_number);
  });
  return out;
}

// The records of a primary-key data file: key and value columns, sequence number and kind.
std::vector<std::tuple<std::string, int64_t, int>> Records(const std::string& path, const TableSchema& schema) {
  std::vector<std::tuple<std::string, int64_t, int>> out;
  KeyValueFileReadSpec spec;
  spec.path = path;
  spec.file_schema = &schema;
  spec.needed = &schema.fields;
  spec.primary_key = true;
  spec.table_name = kTable;
  auto reader = KeyValueFileReader::Open(std::move(spec));
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  if (!reader.ok()) return out;
  while (true) {
    auto more = (*reader)->Advance();
    EXPECT_TRUE(more.ok()) << more.status().ToString();
    if (!more.ok() || !*more) break;
    const KeyValue& kv = (*reader)->current();
    out.emplace_back(RowToString(kv.row, schema.fields), kv.sequence, static_cast<int>(kv.kind));
  }
  return out;
}

TEST(JavaCompactionEqualityTest, FullCompactionOfBucketZeroMatchesJava) {
  FileSystem* fs = FileSystem::Local();
  auto java_schema = SchemaManager(fs, JavaPath()).Get(0);
  ASSERT_TRUE(java_schema.ok()) << java_schema.status().ToString();
  testing::TempDir dir;
  const std::string path = dir.path() + "/db.db/" + kTable;
  ASSERT_TRUE(fs->WriteFileExclusive(path + "/schema/schema-0", java_schema->ToJson()).ok());

  const std::string user = "compaction-equality";
  auto writer = TableWrite::Create(fs, path, *java_schema, user);
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  auto committer = FileStoreCommit::Create(fs, path, kTable);
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

  // Commit 1 (the README's first batch).
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
  // Commit 2, with a full compaction of bucket 0 of every partition.
  write(RowKind::kDelete, "Tony", 10, 0, 14.1);
  write(RowKind::kUpdateAfter, "Alice", 10, 1, 19.1);
  Status compacted = (*writer)->Compact(/*full=*/true, std::nullopt, std::vector<int32_t>{0});
  ASSERT_TRUE(compacted.ok()) << compacted.ToString();
  commit(2);

  SnapshotManager java_snapshots(fs, JavaPath()), tide_snapshots(fs, path);
  for (int64_t id : {2, 3}) {
    SCOPED_TRACE("snapshot " + std::to_string(id));
    auto java = java_snapshots.Get(id);
    auto tide = tide_snapshots.Get(id);
    ASSERT_TRUE(java.ok() && tide.ok());
    EXPECT_EQ(CommitKindName(tide->commit_kind), CommitKindName(java->commit_kind));
    EXPECT_EQ(tide->commit_identifier, java->commit_identifier);
    EXPECT_EQ(tide->total_record_count, java->total_record_count);
    EXPECT_EQ(tide->delta_record_count, java->delta_record_count);
    auto java_entries = DeltaEntries(JavaPath(), *java);
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
      EXPECT_EQ(t.file.key_stats.null_counts, j.file.key_stats.null_counts);
      EXPECT_EQ(HexEncode(t.file.value_stats.min_values), HexEncode(j.file.value_stats.min_values));
      EXPECT_EQ(HexEncode(t.file.value_stats.max_values), HexEncode(j.file.value_stats.max_values));
      EXPECT_EQ(t.file.value_stats.null_counts, j.file.value_stats.null_counts);
      EXPECT_EQ(t.file.min_sequence_number, j.file.min_sequence_number);
      EXPECT_EQ(t.file.max_sequence_number, j.file.max_sequence_number);
      EXPECT_EQ(t.file.delete_row_count, j.file.delete_row_count);
      EXPECT_EQ(t.file.schema_id, j.file.schema_id);
      EXPECT_EQ(t.file.file_source, j.file.file_source);
      EXPECT_EQ(t.file.value_stats_cols, j.file.value_stats_cols);
    }
    if (id != 3) continue;
    // The upgrade kept its file (the DELETE and the ADD of f1=20 name the same file, on both sides);
    // the rewritten file holds Java's records.
    for (const auto* entries : {&java_entries, &tide_entries}) {
      std::vector<std::string> deleted, added;
      for (const auto& e : *entries) {
        if (e.partition != entries->back().partition) continue;  // f1=20 sorts last
        (e.kind == FileKind::kDelete ? deleted : added).push_back(e.file.file_name);
      }
      ASSERT_EQ(deleted.size(), 1u);
      EXPECT_EQ(added, deleted);
    }
    auto output = [](const std::vector<ManifestEntry>& entries) {
      for (const auto& e : entries) {
        if (e.kind == FileKind::kAdd && e.file.file_source == 1) return e;
      }
      return ManifestEntry{};
    };
    ManifestEntry java_out = output(java_entries), tide_out = output(tide_entries);
    ASSERT_FALSE(java_out.file.file_name.empty());
    ASSERT_FALSE(tide_out.file.file_name.empty());
    EXPECT_EQ(Records(path + "/f1=10/bucket-0/" + tide_out.file.file_name, *java_schema),
              Records(JavaPath() + "/f1=10/bucket-0/" + java_out.file.file_name, *java_schema));
  }
}

}  // namespace
}  // namespace tide
