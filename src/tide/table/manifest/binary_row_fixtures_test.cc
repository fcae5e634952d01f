// Compatibility of the BinaryRow codec and the bucket function with every manifest Java wrote in the
// fixture tables (tests/fixtures/paimon-java): each partition, min/max key and stats row decodes with
// the types of the file's schema and re-encodes to the very same bytes, and the keys of each file of a
// fixed-bucket table hash to the bucket Java put the file in.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "testing/temp_dir.h"
#include "tide/base/bytes.h"
#include "tide/base/strings.h"
#include "tide/codec/binary_row.h"
#include "tide/codec/bucket.h"
#include "tide/io/file_system.h"
#include "tide/table/manifest/manifest.h"
#include "tide/types/table_schema.h"

namespace tide {
namespace {

namespace fs = std::filesystem;

struct Counts {
  int rows = 0;
  int buckets = 0;
};

std::vector<DataType> TypesOf(const TableSchema& schema, const std::vector<std::string>& names) {
  std::vector<DataType> types;
  for (const std::string& name : names) {
    // Row-tracking system columns that data-evolution files carry in their stats (_WRITE_COLS).
    if (name == "_ROW_ID" || name == "_SEQUENCE_NUMBER") {
      types.push_back(DataType::BigInt());
      continue;
    }
    const int index = schema.FieldIndex(name);
    EXPECT_GE(index, 0) << name;
    if (index >= 0) types.push_back(schema.fields[static_cast<size_t>(index)].type);
  }
  return types;
}

// Decodes `serialized` with `types` and re-encodes the values; returns the values.
Row ExpectReencodes(const std::string& serialized, const std::vector<DataType>& types, const std::string& what,
                    Counts* counts) {
  Result<Row> row = DeserializeBinaryRow(serialized, types);
  EXPECT_TRUE(row.ok()) << what << ": " << row.status().ToString();
  if (!row.ok()) return {};
  Result<std::string> again = EncodeSerializedBinaryRow(*row, types);
  EXPECT_TRUE(again.ok()) << what << ": " << again.status().ToString();
  if (again.ok()) {
    EXPECT_EQ(HexEncode(*again), HexEncode(serialized)) << what;
  }
  ++counts->rows;
  return *row;
}

void CheckTable(const fs::path& table, Counts* counts) {
  FileSystem* local = FileSystem::Local();
  // Schemas of the main branch and of other branches: branch files share the manifest folder and their
  // schema ids can repeat the main branch's, so an entry is matched against every schema of its id.
  std::multimap<int64_t, TableSchema> schemas;
  std::vector<fs::path> schema_dirs = {table / "schema"};
  if (fs::is_directory(table / "branch")) {
    for (const fs::directory_entry& b : fs::directory_iterator(table / "branch")) schema_dirs.push_back(b.path() / "schema");
  }
  for (const fs::path& dir : schema_dirs) {
    if (!fs::is_directory(dir)) continue;
    for (const fs::directory_entry& f : fs::directory_iterator(dir)) {
      const std::string name = f.path().filename().string();
      if (!StartsWith(name, "schema-")) continue;
      Result<TableSchema> schema = TableSchema::FromJson(local->ReadFile(f.path().string()).value(), name);
      if (schema.status().IsNotSupported()) return;  // e.g. BLOB columns (Paimon 1.3+)
      ASSERT_TRUE(schema.ok()) << schema.status().ToString();
      schemas.emplace(schema->id, *schema);
    }
  }
  for (const fs::directory_entry& m : fs::directory_iterator(table / "manifest")) {
    const std::string name = m.path().filename().string();
    if (!StartsWith(name, "manifest-") || StartsWith(name, "manifest-list-")) continue;
    Result<std::vector<ManifestEntry>> entries = ReadManifest(local, m.path().string());
    if (entries.status().IsNotSupported()) continue;  // ORC manifests
    ASSERT_TRUE(entries.ok()) << m.path() << ": " << entries.status().ToString();
    for (const ManifestEntry& e : *entries) {
      const std::string what = m.path().string() + " / " + e.file.file_name;
      auto arity = [](const std::string& serialized) {
        Result<SerializedBinaryRow> split = SplitSerializedBinaryRow(serialized);
        return split.ok() ? static_cast<size_t>(split->arity) : size_t{0};
      };
      auto stats_names_of = [&](const TableSchema& s) {
        return e.file.value_stats_cols.value_or(e.file.write_cols.value_or(s.FieldNames()));
      };
      const TableSchema* found = nullptr;
      auto [begin, end] = schemas.equal_range(e.file.schema_id);
      for (auto it = begin; it != end && !found; ++it) {
        const TableSchema& s = it->second;
        if (arity(e.partition) == s.partition_keys.size() &&
            arity(e.file.min_key) == s.TrimmedPrimaryKeys().size() &&
            arity(e.file.value_stats.min_values) == stats_names_of(s).size()) {
          found = &s;
        }
      }
      ASSERT_NE(found, nullptr) << what << ": no schema " << e.file.schema_id << " matches its rows";
      const TableSchema& schema = *found;

      ExpectReencodes(e.partition, TypesOf(schema, schema.partition_keys), what + " _PARTITION", counts);

      const std::vector<std::string> key_names = schema.TrimmedPrimaryKeys();
      const std::vector<DataType> key_types = TypesOf(schema, key_names);
      const Row min_key = ExpectReencodes(e.file.min_key, key_types, what + " _MIN_KEY", counts);
      ExpectReencodes(e.file.max_key, key_types, what + " _MAX_KEY", counts);
      ExpectReencodes(e.file.key_stats.min_values, key_types, what + " _KEY_STATS min", counts);
      ExpectReencodes(e.file.key_stats.max_values, key_types, what + " _KEY_STATS max", counts);

      const std::vector<std::string> stats_names = stats_names_of(schema);
      const std::vector<DataType> stats_types = TypesOf(schema, stats_names);
      const Row min_values = ExpectReencodes(e.file.value_stats.min_values, stats_types, what + " _VALUE_STATS min", counts);
      const Row max_values = ExpectReencodes(e.file.value_stats.max_values, stats_types, what + " _VALUE_STATS max", counts);

      // The bucket of a fixed-bucket file: every key in it hashes there. Take the bucket key from the
      // min key (primary-key tables) or from value stats whose min equals max (one value in the file).
      const int32_t num_buckets = e.total_buckets;
      if (num_buckets <= 0 || std::stoi(schema.Option("bucket", "-1")) <= 0) continue;
      const std::vector<std::string> bucket_keys = schema.BucketKeys();
      Row key;
      for (const std::string& b : bucket_keys) {
        auto in_key = std::find(key_names.begin(), key_names.end(), b);
        auto in_stats = std::find(stats_names.begin(), stats_names.end(), b);
        if (in_key != key_names.end() && !min_key.empty()) {
          key.push_back(min_key[static_cast<size_t>(in_key - key_names.begin())]);
        } else if (in_stats != stats_names.end() && !min_values.empty()) {
          const size_t i = static_cast<size_t>(in_stats - stats_names.begin());
          if (min_values[i].is_null() || !(min_values[i] == max_values[i])) break;
          key.push_back(min_values[i]);
        } else {
          break;
        }
      }
      if (key.size() != bucket_keys.size()) continue;
      Result<BucketFunctionType> type = ParseBucketFunctionType(schema.Option("bucket-function.type", "default"));
      ASSERT_TRUE(type.ok());
      Result<BucketFunction> fn = BucketFunction::Create(*type, TypesOf(schema, bucket_keys), num_buckets);
      ASSERT_TRUE(fn.ok()) << fn.status().ToString();
      std::string scratch;
      Result<int32_t> bucket = fn->Bucket(key, &scratch);
      ASSERT_TRUE(bucket.ok()) << bucket.status().ToString();
      EXPECT_EQ(*bucket, e.bucket) << what << " bucket key " << HexEncode(scratch);
      ++counts->buckets;
    }
  }
}

TEST(BinaryRowFixturesTest, EveryJavaManifestRowReencodesAndHashesToItsBucket) {
  Counts counts;
  for (const fs::directory_entry& db : fs::directory_iterator(testing::JavaFixtureWarehouse())) {
    for (const fs::directory_entry& table : fs::directory_iterator(db.path())) {
      if (!fs::is_directory(table.path() / "manifest") || !fs::is_directory(table.path() / "schema")) continue;
      SCOPED_TRACE(table.path().string());
      CheckTable(table.path(), &counts);
    }
  }
  EXPECT_GE(counts.rows, 500);
  EXPECT_GE(counts.buckets, 20);
  std::cout << "checked " << counts.rows << " rows and " << counts.buckets << " bucket assignments\n";
}

}  // namespace
}  // namespace tide
