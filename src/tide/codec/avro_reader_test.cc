// Reads manifest lists, manifests and index manifests written by Java Paimon 0.9 and 1.x (the
// fixture warehouse in tests/fixtures/paimon-java) and checks their decoded values against the tables'
// own files and snapshots.
#include "tide/codec/avro_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include <nlohmann/json.hpp>

#include "testing/temp_dir.h"
#include "tide/base/bytes.h"
#include "tide/io/file_system.h"

namespace tide {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string TableDir(const std::string& table) {
  return testing::JavaFixtureWarehouse() + "/" + table + ".db/" + table;
}

std::unique_ptr<AvroReader> OpenFixture(const std::string& path) {
  auto data = FileSystem::Local()->ReadFile(path);
  EXPECT_TRUE(data.ok()) << data.status().ToString();
  if (!data.ok()) return nullptr;
  auto reader = AvroReader::Open(std::move(data).value(), path);
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  return reader.ok() ? std::move(reader).value() : nullptr;
}

std::vector<AvroValue> ReadFixture(const std::string& path) {
  auto reader = OpenFixture(path);
  if (reader == nullptr) return {};
  auto all = reader->ReadAll();
  EXPECT_TRUE(all.ok()) << all.status().ToString();
  return all.ok() ? std::move(all).value() : std::vector<AvroValue>{};
}

nlohmann::json ReadJson(const std::string& path) {
  auto text = FileSystem::Local()->ReadFile(path);
  EXPECT_TRUE(text.ok()) << text.status().ToString();
  return nlohmann::json::parse(text.ok() ? *text : "{}");
}

std::vector<std::string> ListManifestDir(const std::string& table) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(TableDir(table) + "/manifest")) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// A data file named by a manifest entry lives in <partition dirs>/bucket-<_BUCKET>/ of the table.
bool DataFileExists(const std::string& table, int bucket, std::string_view name) {
  for (const auto& entry : std::filesystem::recursive_directory_iterator(TableDir(table))) {
    if (entry.path().filename() == name && entry.path().parent_path().filename() == "bucket-" + std::to_string(bucket)) {
      return true;
    }
  }
  return false;
}

TEST(AvroReaderJavaTest, Paimon09ManifestListUsesNullableRecords) {
  const std::string table = "pk_09";
  auto reader = OpenFixture(TableDir(table) + "/manifest/manifest-list-c63559b0-8ebb-4bf9-8e0c-91062d5e7391-10");
  ASSERT_NE(reader, nullptr);
  EXPECT_EQ(reader->codec(), AvroCodec::kZstandard);
  const AvroNode& root = reader->schema().root();
  ASSERT_EQ(root.type(), AvroType::kUnion) << "0.9 writes [\"null\", record]";
  ASSERT_TRUE(root.IsNullable());
  const AvroNode& record = *root.branches()[root.NonNullBranch()];
  EXPECT_EQ(record.full_name(), "org.apache.paimon.avro.generated.record");
  EXPECT_EQ(reader->schema().ToJson(), reader->schema().json()) << "prints the Java text back exactly";

  auto all = reader->ReadAll();
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ASSERT_EQ(all->size(), 5u);
  const std::vector<std::string> on_disk = ListManifestDir(table);
  for (size_t i = 0; i < all->size(); ++i) {
    const AvroValue& meta = (*all)[i];
    EXPECT_EQ(meta.type(), AvroType::kRecord);
    EXPECT_EQ(meta.branch(), 1);
    EXPECT_EQ(*meta.GetInt("_VERSION"), 2);
    std::string name(*meta.GetString("_FILE_NAME"));
    EXPECT_EQ(name, "manifest-8cf79434-32e4-4029-bf8e-befe856d268f-" + std::to_string(i));
    EXPECT_TRUE(std::binary_search(on_disk.begin(), on_disk.end(), name)) << name;
    auto size = FileSystem::Local()->Stat(TableDir(table) + "/manifest/" + name);
    ASSERT_TRUE(size.ok());
    EXPECT_EQ(*meta.GetLong("_FILE_SIZE"), static_cast<int64_t>(size->size)) << name;
    EXPECT_EQ(*meta.GetLong("_SCHEMA_ID"), 0);
    auto stats = meta.GetRecord("_PARTITION_STATS");
    ASSERT_TRUE(stats.ok()) << stats.status().ToString();
    EXPECT_EQ((*stats)->branch(), 1) << "0.9 nests records in nullable unions too";
    // Partition f1 INT: a BinaryRow of arity 1 behind its 4-byte arity prefix.
    auto min = (*stats)->GetBytes("_MIN_VALUES");
    ASSERT_TRUE(min.ok());
    EXPECT_EQ(HexEncode(*min), "00000001" "0000000000000000" "0a00000000000000") << "f1 = 10";
    auto nulls = (*stats)->GetOptionalArray("_NULL_COUNTS");
    ASSERT_TRUE(nulls.ok());
    ASSERT_NE(*nulls, nullptr);
    ASSERT_EQ((*nulls)->size(), 1u);
    EXPECT_EQ((**nulls)[0].long_value(), 0);
  }
  // Added and deleted counts as the manifests hold them (3+3+1+1+2 added, 0+3+0+1+0 deleted).
  int64_t added = 0;
  int64_t deleted = 0;
  for (const auto& meta : *all) {
    added += *meta.GetLong("_NUM_ADDED_FILES");
    deleted += *meta.GetLong("_NUM_DELETED_FILES");
  }
  EXPECT_EQ(added, 10);
  EXPECT_EQ(deleted, 4);
  EXPECT_EQ(*(*all)[4].GetOptionalInt("_MIN_BUCKET"), std::nullopt) << "0.9 has no bucket stats";
}

TEST(AvroReaderJavaTest, Paimon09ManifestEntries) {
  const std::string table = "pk_09";
  auto entries = ReadFixture(TableDir(table) + "/manifest/manifest-8cf79434-32e4-4029-bf8e-befe856d268f-1");
  ASSERT_EQ(entries.size(), 6u);
  std::vector<int> kinds;
  for (const auto& entry : entries) {
    EXPECT_EQ(*entry.GetInt("_VERSION"), 2);
    kinds.push_back(*entry.GetInt("_KIND"));
    EXPECT_EQ(*entry.GetInt("_TOTAL_BUCKETS"), 2);
    int bucket = *entry.GetInt("_BUCKET");
    auto file = entry.GetRecord("_FILE");
    ASSERT_TRUE(file.ok()) << file.status().ToString();
    std::string name(*(*file)->GetString("_FILE_NAME"));
    EXPECT_THAT(name, StartsWith("data-"));
    EXPECT_TRUE(DataFileExists(table, bucket, name)) << name << " in bucket-" << bucket;
    EXPECT_GT(*(*file)->GetLong("_FILE_SIZE"), 0);
    EXPECT_GT(*(*file)->GetLong("_ROW_COUNT"), 0);
    EXPECT_TRUE((*file)->GetArray("_EXTRA_FILES").ok());
    auto key_stats = (*file)->GetRecord("_KEY_STATS");
    ASSERT_TRUE(key_stats.ok());
    EXPECT_TRUE((*key_stats)->GetBytes("_MAX_VALUES").ok());
    EXPECT_TRUE((*file)->GetOptionalLong("_CREATION_TIME").ok());
    EXPECT_EQ(*(*file)->GetOptionalString("_EXTERNAL_PATH"), std::nullopt) << "not in 0.9";
  }
  EXPECT_EQ(kinds, (std::vector<int>{1, 0, 1, 0, 1, 0}));
  // The first entry deletes data-0f3a...-0, which holds "Alice" (key f0 STRING, f2 INT) as its min key.
  auto file = entries[0].GetRecord("_FILE");
  ASSERT_TRUE(file.ok());
  EXPECT_EQ(*(*file)->GetString("_FILE_NAME"), "data-0f3a001e-ce2f-4f01-bb47-08d9901cb76c-0.parquet");
  EXPECT_EQ(*(*file)->GetLong("_ROW_COUNT"), 2);
  EXPECT_THAT(std::string(*(*file)->GetBytes("_MIN_KEY")), HasSubstr("Alice"));
}

TEST(AvroReaderJavaTest, Paimon09IndexManifest) {
  auto entries = ReadFixture(TableDir("pk_09") + "/manifest/index-manifest-03e2700b-8409-499b-8c27-a09ccee9348c-0");
  ASSERT_EQ(entries.size(), 2u);
  for (const auto& entry : entries) {
    EXPECT_EQ(*entry.GetInt("_VERSION"), 1);
    EXPECT_EQ(*entry.GetString("_INDEX_TYPE"), "DELETION_VECTORS");
    std::string index_file(*entry.GetString("_FILE_NAME"));
    auto size = FileSystem::Local()->Stat(TableDir("pk_09") + "/index/" + index_file);
    ASSERT_TRUE(size.ok()) << index_file;
    EXPECT_EQ(*entry.GetLong("_FILE_SIZE"), static_cast<int64_t>(size->size));
    auto ranges = entry.GetOptionalArray("_DELETIONS_VECTORS_RANGES");
    ASSERT_TRUE(ranges.ok());
    ASSERT_NE(*ranges, nullptr);
    EXPECT_EQ(static_cast<int64_t>((*ranges)->size()), *entry.GetLong("_ROW_COUNT"));
    for (const auto& range : **ranges) {
      EXPECT_THAT(std::string(*range.GetString("f0")), StartsWith("data-"));
      EXPECT_GE(*range.GetInt("f1"), 1) << "after the version byte";
      EXPECT_EQ(*range.GetInt("f2"), 22);
    }
  }
}

TEST(AvroReaderJavaTest, Paimon1xManifestListAndManifestUsePlainRecords) {
  const std::string table = "pk_table_scan_and_read_mor";
  auto reader = OpenFixture(TableDir(table) + "/manifest/manifest-list-06804d39-de46-4b17-bbc5-196819f5e550-0");
  ASSERT_NE(reader, nullptr);
  EXPECT_EQ(reader->schema().root().type(), AvroType::kRecord) << "1.x writes plain records";
  EXPECT_EQ(reader->schema().ToJson(), reader->schema().json());
  auto lists = reader->ReadAll();
  ASSERT_TRUE(lists.ok()) << lists.status().ToString();
  ASSERT_EQ(lists->size(), 4u);
  const std::vector<std::string> on_disk = ListManifestDir(table);
  for (const auto& meta : *lists) {
    EXPECT_EQ(meta.branch(), -1);
    EXPECT_EQ(*meta.GetInt("_VERSION"), 2);
    std::string name(*meta.GetString("_FILE_NAME"));
    EXPECT_TRUE(std::binary_search(on_disk.begin(), on_disk.end(), name)) << name;
    auto size = FileSystem::Local()->Stat(TableDir(table) + "/manifest/" + name);
    ASSERT_TRUE(size.ok());
    EXPECT_EQ(*meta.GetLong("_FILE_SIZE"), static_cast<int64_t>(size->size));
    EXPECT_EQ((*meta.GetRecord("_PARTITION_STATS"))->branch(), -1);
    EXPECT_TRUE(meta.GetOptionalInt("_MIN_BUCKET")->has_value()) << "1.1+ has bucket stats";
  }
  EXPECT_EQ(*(*lists)[0].GetInt("_MIN_BUCKET"), 0);
  EXPECT_EQ(*(*lists)[0].GetInt("_MAX_BUCKET"), 1);
  EXPECT_EQ(*(*lists)[0].GetLong("_NUM_ADDED_FILES"), 3);

  auto manifest = OpenFixture(TableDir(table) + "/manifest/manifest-daefb1fa-3081-4c75-aabf-66cd37e05e33-2");
  ASSERT_NE(manifest, nullptr);
  const AvroNode& root = manifest->schema().root();
  const AvroNode& file_node = *root.fields()[root.FieldIndex("_FILE")].type;
  ASSERT_EQ(file_node.type(), AvroType::kRecord);
  const AvroNode& creation = *file_node.fields()[file_node.FieldIndex("_CREATION_TIME")].type;
  EXPECT_EQ(creation.branches()[1]->logical_type(), "timestamp-millis");
  EXPECT_EQ(manifest->schema().ToJson(), manifest->schema().json());
  auto entries = manifest->ReadAll();
  ASSERT_TRUE(entries.ok()) << entries.status().ToString();
  ASSERT_EQ(entries->size(), 5u);
  std::vector<int> kinds;
  for (const auto& entry : *entries) {
    kinds.push_back(*entry.GetInt("_KIND"));
    auto file = entry.GetRecord("_FILE");
    ASSERT_TRUE(file.ok());
    std::string name(*(*file)->GetString("_FILE_NAME"));
    EXPECT_TRUE(DataFileExists(table, *entry.GetInt("_BUCKET"), name)) << name;
    // 2025-08-27 (the day the fixture was written), local time stored as epoch millis.
    auto created = (*file)->GetOptionalLong("_CREATION_TIME");
    ASSERT_TRUE(created.ok());
    ASSERT_TRUE(created->has_value());
    EXPECT_GE(**created, 1756252800000);
    EXPECT_LT(**created, 1756339200000);
    EXPECT_EQ(*(*file)->GetOptionalLong("_DELETE_ROW_COUNT"), std::optional<int64_t>(0));
    EXPECT_EQ(*(*file)->GetOptionalString("_EXTERNAL_PATH"), std::nullopt);
    EXPECT_EQ(*(*file)->GetOptionalArray("_VALUE_STATS_COLS"), nullptr);
  }
  EXPECT_EQ(kinds, (std::vector<int>{1, 1, 0, 1, 0}));
}

// For every snapshot: the ADD row counts minus the DELETE row counts over all entries of the base and
// delta manifest lists equal the snapshot's totalRecordCount, and over the delta list its
// deltaRecordCount. This reads every manifest list and manifest a snapshot names.
void CheckSnapshotRecordCounts(const std::string& table, int expected_snapshots) {
  int snapshots = 0;
  for (const auto& entry : std::filesystem::directory_iterator(TableDir(table) + "/snapshot")) {
    std::string file = entry.path().filename().string();
    if (file.rfind("snapshot-", 0) != 0) continue;
    ++snapshots;
    nlohmann::json snapshot = ReadJson(entry.path().string());
    int64_t totals[2] = {0, 0};
    const char* lists[2] = {"baseManifestList", "deltaManifestList"};
    for (int l = 0; l < 2; ++l) {
      for (const auto& meta : ReadFixture(TableDir(table) + "/manifest/" + snapshot[lists[l]].get<std::string>())) {
        int64_t added = 0;
        int64_t deleted = 0;
        for (const auto& e : ReadFixture(TableDir(table) + "/manifest/" + std::string(*meta.GetString("_FILE_NAME")))) {
          int64_t rows = *(*e.GetRecord("_FILE"))->GetLong("_ROW_COUNT");
          if (*e.GetInt("_KIND") == 0) {
            totals[l] += rows;
            ++added;
          } else {
            totals[l] -= rows;
            ++deleted;
          }
        }
        EXPECT_EQ(added, *meta.GetLong("_NUM_ADDED_FILES"));
        EXPECT_EQ(deleted, *meta.GetLong("_NUM_DELETED_FILES"));
      }
    }
    EXPECT_EQ(totals[0] + totals[1], snapshot["totalRecordCount"].get<int64_t>()) << table << " " << file;
    EXPECT_EQ(totals[1], snapshot["deltaRecordCount"].get<int64_t>()) << table << " " << file;
  }
  EXPECT_EQ(snapshots, expected_snapshots);
}

TEST(AvroReaderJavaTest, SnapshotRecordCountsMatchTheManifests09) { CheckSnapshotRecordCounts("pk_09", 8); }
TEST(AvroReaderJavaTest, SnapshotRecordCountsMatchTheManifests1x) {
  CheckSnapshotRecordCounts("pk_table_scan_and_read_mor", 5);
}

TEST(AvroReaderJavaTest, EveryAvroManifestInTheWarehouseDecodes) {
  // Tables whose manifests are ORC are skipped (their NOTICE lists them); every other manifest file
  // must decode completely, and its schema must print back as Java wrote it.
  int files = 0;
  for (const auto& db : std::filesystem::directory_iterator(testing::JavaFixtureWarehouse())) {
    for (const auto& table : std::filesystem::directory_iterator(db.path())) {
      std::filesystem::path manifest_dir = table.path() / "manifest";
      if (!std::filesystem::exists(manifest_dir)) continue;
      for (const auto& f : std::filesystem::directory_iterator(manifest_dir)) {
        auto data = FileSystem::Local()->ReadFile(f.path().string());
        ASSERT_TRUE(data.ok());
        if (data->substr(0, 4) != std::string("Obj\x01", 4)) continue;  // ORC
        auto reader = AvroReader::Open(std::move(data).value(), f.path().string());
        ASSERT_TRUE(reader.ok()) << reader.status().ToString();
        auto all = (*reader)->ReadAll();
        ASSERT_TRUE(all.ok()) << all.status().ToString();
        for (const auto& v : *all) {
          auto version = v.GetInt("_VERSION");
          ASSERT_TRUE(version.ok()) << f.path() << ": " << version.status().ToString();
          EXPECT_TRUE(*version == 1 || *version == 2) << f.path();
        }
        EXPECT_EQ((*reader)->schema().ToJson(), (*reader)->schema().json()) << f.path();
        ++files;
      }
    }
  }
  EXPECT_GT(files, 100);
}

TEST(AvroReaderTest, NextReusesTheValueAndStopsAtTheEnd) {
  auto reader = OpenFixture(TableDir("pk_09") + "/manifest/manifest-8cf79434-32e4-4029-bf8e-befe856d268f-7");
  ASSERT_NE(reader, nullptr);
  AvroValue value;
  int n = 0;
  while (true) {
    auto more = reader->Next(&value);
    ASSERT_TRUE(more.ok()) << more.status().ToString();
    if (!*more) break;
    ++n;
    EXPECT_EQ(*value.GetInt("_VERSION"), 2);
  }
  EXPECT_EQ(n, 5);
  EXPECT_EQ(reader->objects_read(), 5);
  auto again = reader->Next(&value);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(*again);
  EXPECT_EQ(*value.GetInt("_VERSION"), 2) << "the last value is left as it was";
}

TEST(AvroReaderTest, ValuesOutliveTheReader) {
  std::vector<AvroValue> values;
  {
    auto reader = OpenFixture(TableDir("pk_09") + "/manifest/manifest-8cf79434-32e4-4029-bf8e-befe856d268f-0");
    ASSERT_NE(reader, nullptr);
    auto all = reader->ReadAll();
    ASSERT_TRUE(all.ok());
    values = std::move(all).value();
  }
  ASSERT_EQ(values.size(), 3u);
  EXPECT_EQ(*(*values[2].GetRecord("_FILE"))->GetString("_FILE_NAME"),
            "data-cf4e088c-c6e7-4812-bb97-196f6aff271c-0.parquet");
}

TEST(AvroReaderTest, ExtraMetadataAndAMissingCodecAreAccepted) {
  // A hand-built header: metadata in two map blocks (the second with a byte size, as the spec allows),
  // an extra key, no avro.codec (meaning null), then one block of two longs.
  std::string sync(16, '\x42');
  std::string file = std::string("Obj\x01", 4);
  file += "\x02";  // 1 entry
  file += "\x16" "avro.schema" "\x0c" "\"long\"";
  file += "\x01";                        // -1 entries: a block with a byte size
  file += "\x22";                        // byte size 17 (ignored)
  file += "\x08" "user" "\x14" "some value";
  file += std::string(1, '\0') + sync;
  file += "\x04\x04" "\x02\x7f" + sync;  // 2 objects, 2 bytes: 1 and -64
  auto reader = AvroReader::Open(file, "hand.avro");
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_EQ((*reader)->codec(), AvroCodec::kNull);
  ASSERT_NE((*reader)->FindMetadata("user"), nullptr);
  EXPECT_EQ(*(*reader)->FindMetadata("user"), "some value");
  EXPECT_EQ((*reader)->FindMetadata("avro.codec"), nullptr);
  auto all = (*reader)->ReadAll();
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ(*all, (std::vector<AvroValue>{AvroValue::Long(1), AvroValue::Long(-64)}));
}

TEST(AvroReaderTest, UnsupportedCodecIsNotSupported) {
  std::string file = std::string("Obj\x01", 4) + "\x04" "\x16" "avro.schema" "\x0c" "\"long\"" "\x14" "avro.codec" "\x0a" "bzip2" +
                     std::string(1, '\0') + std::string(16, 's');
  auto reader = AvroReader::Open(file, "bz.avro");
  ASSERT_FALSE(reader.ok());
  EXPECT_TRUE(reader.status().IsNotSupported());
  EXPECT_THAT(reader.status().message(), StartsWith("bz.avro: "));
  EXPECT_THAT(reader.status().message(), HasSubstr("bzip2"));
}

}  // namespace
}  // namespace tide
