// Tide's writer against Java's, end to end: ten tables that Java Paimon wrote (tests/fixtures/
// paimon-java/parquet) are created again through Tide's catalog from the fixture's schema-0, their writes
// are replayed snapshot by snapshot through TableWrite and FileStoreCommit, and what Tide stores is
// compared with what Java stored, field by field:
//   * schema-0, and every later schema made by an ALTER TABLE between commits: the whole JSON text,
//     except `timeMillis`;
//   * every snapshot: every JSON field, in Java's order, except the UUID-bearing manifest-list names
//     (only whether each is present), their sizes, `timeMillis` and `commitUser`;
//   * every manifest list (base, delta, changelog): per manifest, the added/deleted counts, the partition
//     stats BinaryRows, the schema id and the bucket/level ranges;
//   * every manifest entry of the base and delta lists: kind, `_PARTITION` bytes, bucket, total buckets,
//     level, `_MIN_KEY`/`_MAX_KEY` bytes, key and value stats bytes and null counts, `_VALUE_STATS_COLS`,
//     row and delete counts, sequence range, schema id, file source, extra files, embedded index;
//   * the index manifest's entries (deletion vectors);
//   * the Avro writer schema (the JSON in the container header) of every manifest and manifest list;
//   * for every data file Tide wrote: its rows (so every row went to Java's partition and bucket, with
//     Java's sequence number and row kind) and its Parquet physical schema (column names, physical,
//     converted and logical types, field ids, repetition, FIXED_LEN_BYTE_ARRAY lengths, decimal precision
//     and scale, the root's name): equal, as Tide's Parquet encoder writes Java's physical schema.
// Only UUIDs, times and sizes may differ, and the named exclusions ("Exclusion (...)" below), each a
// documented difference (docs/format.md, "Writing"): the layout of the Java release that wrote a fixture
// where it is not the 1.2 layout Tide writes (JavaLayout), and the root name of the fixtures written
// through parquet-cpp. Every exclusion asserts the exact value each side has, so the test fails when a gap
// closes or changes.
//
// The tables:
//   pk_table_partial_update  partial-update primary key, one bucket; written by Java 1.3 with the dynamic
//                            option ignore-delete=false over a schema that says true (the README), which
//                            the writer's copy of the schema reproduces.
//   append_with_multiple_ts_precision_and_timezone  bucket-unaware append table of TIMESTAMP(0..9) and
//                            TIMESTAMP_LTZ(0..9) columns; a Java build between 1.2 and 1.3.
//   append_complex_data      append table partitioned by f1, bucket-key f2, two buckets, DATE,
//                            TIMESTAMP(9), DECIMAL(23, 5) and BYTES columns; Java 1.2; its last commit is
//                            followed by a full compaction.
//   append_table_with_alter_table  append table partitioned by (key0, key1), bucket-unaware, Java 1.2;
//                            between its commits one ALTER TABLE drops, renames, moves and adds columns,
//                            and the second commit (a new writer) writes under schema-1.
//   pk_table_with_alter_table  primary key (key0, key1, key2) partitioned by (key0, key1), one bucket,
//                            deletion vectors, `commit.force-compact`, Java 1.2; three writers; before the
//                            third an ALTER TABLE drops, renames (the key column key2 too), moves (the
//                            partition column key0 too) and adds columns. The writer gets the schema
//                            without deletion vectors, as for pk_09.
//   pk_09                    partitioned primary key, bucket-key f2, two buckets, deletion vectors,
//                            `commit.force-compact`; written by Java 0.9. It has no README: its writes are
//                            the records of the level-0 files of its APPEND snapshots, replayed in sequence
//                            order. TableWrite refuses deletion-vector tables (their rows are invisible to
//                            batch reads until a compaction, which Tide does not run), so the writer gets the
//                            schema without that option (the level-0 files do not depend on it).
// Four more primary-key tables (pk_table_with_mor with `sequence.field`, pk_table_scan_and_read_mor,
// pk_table_scan_and_read_dv, pk_table_with_dv_cardinality with a stats mode of none and the dense store)
// replay the records of their level-0 files, as pk_09 does (see Cases()).
// A new TableWrite takes over whenever Java's commit user changes (Java used a new writer) or the schema
// changes.
// The writer does not compact here (`write-only`): the COMPACT snapshot Java made right after an APPEND with the same identifier
// (its compaction outputs and deletion vectors) is committed by FileStoreCommit in the same call, as Java
// recorded it, with Tide's level-0 file names in place of Java's; so those snapshots test the committer's
// COMPACT path and the manifests' merging, not a compaction.
//
// Thread-safety: a test; one thread.
#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "testing/temp_dir.h"
#include "tide/base/bytes.h"
#include "tide/catalog/catalog.h"
#include "tide/codec/avro_reader.h"
#include "tide/codec/binary_row.h"
#include "tide/format/parquet_metadata.h"
#include "tide/io/file_system.h"
#include "tide/table/io/data_file_reader.h"
#include "tide/table/io/data_file_stats.h"
#include "tide/table/io/data_file_writer.h"
#include "tide/table/operation/file_store_commit.h"
#include "tide/table/manifest/manifest.h"
#include "tide/table/manifest/manifest_writer.h"
#include "tide/table/schema/schema_manager.h"
#include "tide/table/snapshot/snapshot_manager.h"
#include "tide/table/sink/table_write.h"
#include "tide/table/schema/core_options.h"

namespace tide {
namespace {

using Json = nlohmann::ordered_json;

struct FixtureWrite {
  RowKind kind;
  Row row;
};

// The Java release that wrote a fixture, where its layout differs from the 1.2 layout Tide writes.
enum class JavaLayout {
  k09,  // Paimon 0.9: no manifest-list sizes in snapshots, ["null", record] unions in manifests, no
        // bucket/level ranges in manifest lists, no Parquet field ids, truncate(16) key statistics
  k12,  // Paimon 1.1 / 1.2: the layout Tide writes
  k13,  // Paimon 1.3+: `nextRowId` in snapshots, `_FIRST_ROW_ID` (and `_WRITE_COLS`) in manifest entries
};

struct EqualityCase {
  std::string table;
  JavaLayout layout = JavaLayout::k13;
  // Options Java's writer ran with on top of the schema's (Java's dynamic options).
  std::vector<std::pair<std::string, std::string>> write_options;
  // Options removed from the writer's copy of the schema (see pk_09 above).
  std::vector<std::string> write_options_removed;
  // The rows written before each APPEND snapshot, by Java snapshot id; empty: take them from the
  // level-0 files that snapshot added.
  std::map<int64_t, std::vector<FixtureWrite>> writes;
  // ALTER TABLE changes made (as one schema commit) before a snapshot's writes, by Java snapshot id; a new
  // writer of the new schema writes from then on.
  std::map<int64_t, std::vector<SchemaChange>> alter_before;
};

std::string JavaTablePath(const std::string& table) {
  return testing::JavaFixtureWarehouse() + "/" + table + ".db/" + table;
}

std::string ReadText(const std::string& path) {
  auto text = FileSystem::Local()->ReadFile(path);
  EXPECT_TRUE(text.ok()) << text.status().ToString();
  return text.ok() ? *text : std::string();
}

// The data file `name` anywhere below `table_path`.
std::string FindDataFile(const std::string& table_path, const std::string& name) {
  for (const auto& entry : std::filesystem::recursive_directory_iterator(table_path)) {
    if (entry.path().filename() == name) return entry.path().string();
  }
  ADD_FAILURE() << "data file " << name << " not found under " << table_path;
  return {};
}

// The header's writer schema of an Avro container file.
std::string AvroWriterSchema(const std::string& path) {
  auto reader = AvroReader::Open(ReadText(path), path);
  if (!reader.ok()) {
    ADD_FAILURE() << reader.status().ToString();
    return {};
  }
  const std::string* schema = (*reader)->FindMetadata("avro.schema");
  return schema ? *schema : std::string();
}

// A Java 1.3 manifest entry schema without the fields 1.3 added at the end of `_FILE`: `_FIRST_ROW_ID`
// and `_WRITE_COLS` (development builds before 1.3, which wrote some fixtures, have the first only).
std::string WithoutFields13(std::string schema) {
  static const std::string kAdded[] = {
      ",{\"name\":\"_FIRST_ROW_ID\",\"type\":[\"null\",\"long\"],\"default\":null}",
      ",{\"name\":\"_WRITE_COLS\",\"type\":[\"null\",{\"type\":\"array\",\"items\":\"string\"}],\"default\":null}"};
  bool first_row_id = false;
  for (const std::string& field : kAdded) {
    const size_t at = schema.find(field);
    if (at == std::string::npos) continue;
    first_row_id = first_row_id || field == kAdded[0];
    schema.erase(at, field.size());
  }
  EXPECT_TRUE(first_row_id) << "not a Java 1.3 manifest schema: " << schema;
  return schema;
}

std::vector<ManifestFileMeta> ManifestList(const std::string& table_path, const std::string& name) {
  auto metas = ReadManifestList(FileSystem::Local(), table_path + "/manifest/" + name);
  EXPECT_TRUE(metas.ok()) << metas.status().ToString();
  return metas.ok() ? *metas : std::vector<ManifestFileMeta>{};
}

std::vector<ManifestEntry> Entries(const std::string& table_path, const std::vector<ManifestFileMeta>& metas) {
  std::vector<ManifestEntry> out;
  for (const ManifestFileMeta& m : metas) {
    auto entries = ReadManifest(FileSystem::Local(), table_path + "/manifest/" + m.file_name);
    EXPECT_TRUE(entries.ok()) << entries.status().ToString();
    if (entries.ok()) out.insert(out.end(), entries->begin(), entries->end());
  }
  return out;
}

// Java data file names and the names of the files Tide wrote in their place.
using NameMap = std::map<std::string, std::string>;

std::string Mapped(const NameMap& names, const std::string& java_name) {
  auto it = names.find(java_name);
  return it == names.end() ? java_name : it->second;
}

void ExpectStatsEqual(const SimpleStats& java, const SimpleStats& tide, const std::string& what) {
  EXPECT_EQ(HexEncode(tide.min_values), HexEncode(java.min_values)) << what << " min";
  EXPECT_EQ(HexEncode(tide.max_values), HexEncode(java.max_values)) << what << " max";
  EXPECT_EQ(tide.null_counts, java.null_counts) << what << " null counts";
  EXPECT_EQ(tide.null_counts_present, java.null_counts_present) << what << " null counts present";
}

// Exclusion (Java 0.9 key statistics): 0.9 gave the `_KEY_` columns `metadata.stats-mode`, truncate(16);
// Paimon 1.x, and Tide, give them truncate(128). Java's bounds must be Tide's cut to 16 code points
// (the max with its last code point incremented), every other field and null count equal.
void ExpectKeyStatsOf09(const SimpleStats& java, const SimpleStats& tide, const std::vector<DataType>& key_types) {
  EXPECT_EQ(tide.null_counts, java.null_counts) << "_KEY_STATS null counts";
  std::vector<DataType> types;
  for (const DataType& t : key_types) types.push_back(t.WithNullable(true));
  auto java_min = DeserializeBinaryRow(java.min_values, types);
  auto java_max = DeserializeBinaryRow(java.max_values, types);
  auto tide_min = DeserializeBinaryRow(tide.min_values, types);
  auto tide_max = DeserializeBinaryRow(tide.max_values, types);
  ASSERT_TRUE(java_min.ok() && java_max.ok() && tide_min.ok() && tide_max.ok());
  for (size_t i = 0; i < types.size(); ++i) {
    SCOPED_TRACE(fmt::format("key column {}", i));
    Datum expected_min = (*tide_min)[i];
    Datum expected_max = (*tide_max)[i];
    if (types[i].IsString() && !expected_min.is_null()) {
      expected_min = Datum(TruncateStringMin(expected_min.as_string(), 16));
    }
    if (types[i].IsString() && !expected_max.is_null()) {
      std::optional<std::string> cut = TruncateStringMax(expected_max.as_string(), 16);
      expected_max = cut ? Datum(*cut) : Datum();
    }
    EXPECT_TRUE((*java_min)[i] == expected_min) << "min";
    EXPECT_TRUE((*java_max)[i] == expected_max) << "max";
  }
}

// Everything of a DataFileMeta but its name (mapped), size and creation time. `key_types_09` is set for
// tables written by Java 0.9 (see ExpectKeyStatsOf09).
void ExpectFileMetaEqual(const DataFileMeta& java, const DataFileMeta& tide, const NameMap& names,
                         const std::vector<DataType>* key_types_09) {
  SCOPED_TRACE("java file " + java.file_name + ", tide file " + tide.file_name);
  EXPECT_EQ(tide.file_name, Mapped(names, java.file_name));
  EXPECT_EQ(tide.row_count, java.row_count);
  EXPECT_EQ(HexEncode(tide.min_key), HexEncode(java.min_key)) << "_MIN_KEY";
  EXPECT_EQ(HexEncode(tide.max_key), HexEncode(java.max_key)) << "_MAX_KEY";
  if (key_types_09 && java.level == 0) {
    ExpectKeyStatsOf09(java.key_stats, tide.key_stats, *key_types_09);
  } else {
    // Files of higher levels are Java's own compaction outputs, committed as Java recorded them.
    ExpectStatsEqual(java.key_stats, tide.key_stats, "_KEY_STATS");
  }
  ExpectStatsEqual(java.value_stats, tide.value_stats, "_VALUE_STATS");
  EXPECT_EQ(tide.min_sequence_number, java.min_sequence_number);
  EXPECT_EQ(tide.max_sequence_number, java.max_sequence_number);
  EXPECT_EQ(tide.schema_id, java.schema_id);
  EXPECT_EQ(tide.level, java.level);
  EXPECT_EQ(tide.extra_files, java.extra_files);
  EXPECT_EQ(tide.delete_row_count, java.delete_row_count);
  EXPECT_EQ(tide.embedded_file_index, java.embedded_file_index);
  EXPECT_EQ(tide.file_source, java.file_source);
  EXPECT_EQ(tide.value_stats_cols, java.value_stats_cols);
  EXPECT_EQ(tide.external_path, java.external_path);
  EXPECT_EQ(tide.first_row_id, java.first_row_id);
  EXPECT_EQ(tide.write_cols, java.write_cols);
}

void ExpectEntriesEqual(const std::vector<ManifestEntry>& java, const std::vector<ManifestEntry>& tide,
                        const NameMap& names, const std::vector<DataType>* key_types_09, const std::string& what) {
  ASSERT_EQ(tide.size(), java.size()) << what;
  for (size_t i = 0; i < java.size(); ++i) {
    SCOPED_TRACE(fmt::format("{} entry {}", what, i));
    EXPECT_EQ(static_cast<int>(tide[i].kind), static_cast<int>(java[i].kind));
    EXPECT_EQ(HexEncode(tide[i].partition), HexEncode(java[i].partition)) << "_PARTITION";
    EXPECT_EQ(tide[i].bucket, java[i].bucket);
    EXPECT_EQ(tide[i].total_buckets, java[i].total_buckets);
    ExpectFileMetaEqual(java[i].file, tide[i].file, names, key_types_09);
  }
}

void ExpectManifestListsEqual(const std::vector<ManifestFileMeta>& java, const std::vector<ManifestFileMeta>& tide,
                              bool java_09, const std::string& what) {
  ASSERT_EQ(tide.size(), java.size()) << what;
  for (size_t i = 0; i < java.size(); ++i) {
    SCOPED_TRACE(fmt::format("{} manifest {}", what, i));
    EXPECT_EQ(tide[i].num_added_files, java[i].num_added_files);
    EXPECT_EQ(tide[i].num_deleted_files, java[i].num_deleted_files);
    ExpectStatsEqual(java[i].partition_stats, tide[i].partition_stats, "_PARTITION_STATS");
    EXPECT_EQ(tide[i].schema_id, java[i].schema_id);
    EXPECT_EQ(tide[i].min_row_id, java[i].min_row_id);
    EXPECT_EQ(tide[i].max_row_id, java[i].max_row_id);
    if (!java_09) {
      EXPECT_EQ(tide[i].min_bucket, java[i].min_bucket);
      EXPECT_EQ(tide[i].max_bucket, java[i].max_bucket);
      EXPECT_EQ(tide[i].min_level, java[i].min_level);
      EXPECT_EQ(tide[i].max_level, java[i].max_level);
    } else {
      // Exclusion (Java 0.9 layout): 0.9 manifest lists have no _MIN_BUCKET.._MAX_LEVEL; Tide writes
      // 1.x's, filled.
      EXPECT_FALSE(java[i].min_bucket.has_value());
      EXPECT_TRUE(tide[i].min_bucket.has_value());
    }
  }
}

// Snapshot JSON: Java's fields in Java's order, equal values, except names (presence only), sizes,
// times and the commit user.
void ExpectSnapshotJsonEqual(const std::string& java_text, const std::string& tide_text, JavaLayout layout) {
  const bool java_09 = layout == JavaLayout::k09;
  Json java = Json::parse(java_text);
  Json tide = Json::parse(tide_text);
  static const std::set<std::string> kNames = {"baseManifestList", "deltaManifestList", "changelogManifestList",
                                               "indexManifest"};
  static const std::set<std::string> kIgnoredValues = {"baseManifestListSize", "deltaManifestListSize",
                                                       "changelogManifestListSize", "timeMillis", "commitUser"};
  // Exclusion (Java 0.9 layout): 1.x snapshots also carry the manifest lists' sizes, which 0.9 did not
  // write; Tide writes the 1.x layout.
  static const std::set<std::string> kAddedSince09 = {"baseManifestListSize", "deltaManifestListSize",
                                                      "changelogManifestListSize"};
  std::vector<std::string> java_keys, tide_keys;
  for (auto it = java.begin(); it != java.end(); ++it) {
    if (layout == JavaLayout::k13 && it.key() == "nextRowId") {
      // Exclusion (Java 1.3 layout): 1.3 counts row ids for row tracking in every snapshot; Tide writes
      // the 1.2 layout, without it, and the tables here do not track rows.
      EXPECT_EQ(it.value(), 0);
      EXPECT_FALSE(tide.contains("nextRowId"));
      continue;
    }
    java_keys.push_back(it.key());
  }
  for (auto it = tide.begin(); it != tide.end(); ++it) {
    if (java_09 && kAddedSince09.count(it.key()) && !java.contains(it.key())) continue;
    tide_keys.push_back(it.key());
  }
  EXPECT_EQ(tide_keys, java_keys) << "snapshot fields\njava: " << java_text << "\ntide: " << tide_text;
  for (const std::string& key : java_keys) {
    if (!tide.contains(key)) continue;
    if (kIgnoredValues.count(key)) continue;
    if (kNames.count(key)) {
      EXPECT_EQ(tide[key].is_null(), java[key].is_null()) << key;
      continue;
    }
    EXPECT_EQ(tide[key], java[key]) << key;
  }
}

// ---- Parquet physical schema ------------------------------------------------------------------------

std::string Describe(const ParquetFileColumn& c) {
  return fmt::format("{} id={} {} len={} {} conv={} logical={} p={} s={}", c.name,
                     c.field_id ? std::to_string(*c.field_id) : "-", c.physical_type,
                     c.type_length ? std::to_string(*c.type_length) : "-", c.repetition, c.converted_type,
                     c.logical_type, c.precision ? std::to_string(*c.precision) : "-",
                     c.scale ? std::to_string(*c.scale) : "-");
}

// Compares one top-level column: Tide's encoder writes Java's physical schema, so everything is equal
// but the field ids of Java 0.9, which wrote none.
void ExpectParquetColumnEqual(const ParquetFileColumn& java, const ParquetFileColumn& tide, bool java_09) {
  SCOPED_TRACE("column " + java.name + "\njava: " + Describe(java) + "\ntide: " + Describe(tide));
  EXPECT_EQ(tide.name, java.name);
  if (java_09) {
    // Exclusion (Java 0.9): 0.9 wrote no Parquet field ids; Tide writes 1.x's.
    EXPECT_FALSE(java.field_id.has_value());
    EXPECT_TRUE(tide.field_id.has_value());
  } else {
    EXPECT_EQ(tide.field_id, java.field_id);
  }
  EXPECT_EQ(tide.repetition, java.repetition);
  EXPECT_EQ(tide.physical_type, java.physical_type);
  EXPECT_EQ(tide.type_length, java.type_length);
  EXPECT_EQ(tide.converted_type, java.converted_type);
  EXPECT_EQ(tide.logical_type, java.logical_type);
  EXPECT_EQ(tide.precision, java.precision);
  EXPECT_EQ(tide.scale, java.scale);
}

void ExpectParquetSchemaEqual(const std::string& java_path, const std::string& tide_path, bool java_09) {
  SCOPED_TRACE("parquet schema of " + tide_path + " against " + java_path);
  auto java = ReadParquetFileInfo(java_path);
  auto tide = ReadParquetFileInfo(tide_path);
  ASSERT_TRUE(java.ok()) << java.status().ToString();
  ASSERT_TRUE(tide.ok()) << tide.status().ToString();
  EXPECT_EQ(tide->num_rows, java->num_rows);
  if (java->created_by.rfind("parquet-cpp", 0) == 0) {
    // Exclusion (parquet-cpp fixtures): files written through parquet-cpp (the Java 1.3 fixtures whose
    // created_by is "parquet-cpp-arrow ...") name the root `schema`; parquet-mr's, which Tide follows,
    // `paimon_schema`. Readers ignore the root's name.
    EXPECT_EQ(java->root_name, "schema");
    EXPECT_EQ(tide->root_name, "paimon_schema");
  } else {
    EXPECT_EQ(tide->root_name, java->root_name);
  }
  ASSERT_EQ(tide->columns.size(), java->columns.size());
  for (size_t i = 0; i < java->columns.size(); ++i) {
    const ParquetFileColumn& j = java->columns[i];
    ExpectParquetColumnEqual(j, tide->columns[i], java_09);
    EXPECT_TRUE(j.children.empty()) << "nested columns are not covered by these fixtures";
  }
}

// ---- rows of data files -----------------------------------------------------------------------------

// The physical columns of `schema`'s data files.
std::vector<ParquetColumnSpec> PhysicalColumns(const TableSchema& schema, const std::string& table) {
  auto options = CoreOptions::Create(schema, table);
  EXPECT_TRUE(options.ok()) << options.status().ToString();
  if (!options.ok()) return {};
  auto layout = DataFileLayout::Create(schema, *options, table);
  EXPECT_TRUE(layout.ok()) << layout.status().ToString();
  return layout.ok() ? layout->columns : std::vector<ParquetColumnSpec>{};
}

std::vector<Row> ReadDataFile(const std::string& path, const TableSchema& schema, const std::string& table) {
  auto reader = OpenDataFile(path, PhysicalColumns(schema, table), table);
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  std::vector<Row> rows;
  if (!reader.ok()) return rows;
  std::vector<int64_t> positions;
  while (true) {
    auto more = (*reader)->NextBatch(1024, &rows, &positions);
    EXPECT_TRUE(more.ok()) << more.status().ToString();
    if (!more.ok() || !*more) break;
  }
  return rows;
}

std::string RowText(const Row& row, const std::vector<DataType>& types) {
  std::string out;
  for (size_t i = 0; i < row.size() && i < types.size(); ++i) {
    out += (i == 0 ? "" : ", ") + (row[i].is_null() ? std::string("null") : DatumToString(row[i], types[i]));
  }
  return out;
}

// The writes of a primary-key APPEND snapshot, recovered from the level-0 files it added: every record
// with its row kind, in sequence-number order (the order in which the writer numbered them).
std::vector<FixtureWrite> WritesFromLevel0Files(const std::string& java_path, const TableSchema& schema,
                                                const std::string& table,
                                                const std::vector<ManifestEntry>& delta) {
  struct Numbered {
    int64_t sequence;
    FixtureWrite write;
  };
  std::vector<Numbered> records;
  const size_t offset = schema.TrimmedPrimaryKeys().size() + 2;
  for (const ManifestEntry& e : delta) {
    EXPECT_EQ(e.kind, FileKind::kAdd);
    EXPECT_EQ(e.file.level, 0);
    for (Row& physical : ReadDataFile(FindDataFile(java_path, e.file.file_name), schema, table)) {
      Row values(physical.begin() + static_cast<std::ptrdiff_t>(offset), physical.end());
      records.push_back({physical[offset - 2].as_int(),
                         {static_cast<RowKind>(physical[offset - 1].as_int()), std::move(values)}});
    }
  }
  std::stable_sort(records.begin(), records.end(),
                   [](const Numbered& a, const Numbered& b) { return a.sequence < b.sequence; });
  std::vector<FixtureWrite> out;
  for (Numbered& r : records) out.push_back(std::move(r.write));
  return out;
}

// ---- the test ---------------------------------------------------------------------------------------

class JavaWriteEqualityTest : public ::testing::TestWithParam<EqualityCase> {};

TEST_P(JavaWriteEqualityTest, TideWritesWhatJavaWrote) {
  const EqualityCase& c = GetParam();
  FileSystem* fs = FileSystem::Local();
  const std::string java_path = JavaTablePath(c.table);
  SchemaManager java_schemas(fs, java_path);
  auto java_schema = java_schemas.Get(0);
  ASSERT_TRUE(java_schema.ok()) << java_schema.status().ToString();

  // Create the table through the catalog from schema-0's columns, keys and options.
  testing::TempDir warehouse;
  auto catalog = Catalog::Open(fs, warehouse.path());
  ASSERT_TRUE(catalog.ok());
  ASSERT_TRUE((*catalog)->CreateDatabase(c.table, false).ok());
  std::vector<ColumnDefinition> columns;
  for (const DataField& f : java_schema->fields) columns.push_back({f.name, f.type, f.description});
  std::vector<std::pair<std::string, std::string>> options;
  for (const std::string& key : java_schema->option_order) options.emplace_back(key, java_schema->options.at(key));
  const TableIdentifier id{c.table, c.table};
  auto created = (*catalog)->CreateTable(id, columns, java_schema->partition_keys, java_schema->primary_keys, options);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  const std::string tide_path = (*catalog)->TablePath(id);

  const std::regex time_millis("\"timeMillis\" : [0-9]+");
  EXPECT_EQ(std::regex_replace(ReadText(tide_path + "/schema/schema-0"), time_millis, "\"timeMillis\" : T"),
            std::regex_replace(ReadText(java_path + "/schema/schema-0"), time_millis, "\"timeMillis\" : T"));

  // The writer's copy of a schema: with Java's write-time options, and `write-only`, since the
  // replay commits Java's own compactions (below) and the writer must not add its own.
  auto write_schema_of = [&](TableSchema schema) {
    for (const auto& [key, value] : c.write_options) schema.SetOption(key, value);
    for (const std::string& key : c.write_options_removed) schema.RemoveOption(key);
    schema.SetOption("write-only", "true");
    return schema;
  };

  std::vector<DataType> key_types;
  for (const std::string& key : java_schema->TrimmedPrimaryKeys()) {
    key_types.push_back(java_schema->fields[static_cast<size_t>(java_schema->FieldIndex(key))].type);
  }

  SnapshotManager java_snapshots(fs, java_path);
  SnapshotManager tide_snapshots(fs, tide_path);
  auto java_ids = java_snapshots.ListIds();
  ASSERT_TRUE(java_ids.ok());
  ASSERT_FALSE(java_ids->empty());
  auto committer = FileStoreCommit::Create(fs, tide_path, c.table);
  ASSERT_TRUE(committer.ok()) << committer.status().ToString();
  // One writer per Java commit user, as Java's writers were: a writer's sequence numbers continue
  // across its commits, while a new writer restarts after the largest one still live (which compaction
  // may have removed), or at 0 in a bucket-unaware append table.
  TableSchema current_schema = *created;
  std::unique_ptr<TableWrite> writer;
  std::string writer_java_user;

  NameMap names;                            // Java data file name -> Tide's
  struct WrittenFile {
    std::string java_path, tide_path;
    int64_t schema_id;
  };
  std::vector<WrittenFile> data_files;  // the new files of every APPEND snapshot
  int64_t tide_checked = 0;
  for (size_t n = 0; n < java_ids->size(); ++n) {
    const int64_t sid = (*java_ids)[n];
    SCOPED_TRACE(fmt::format("{} snapshot {}", c.table, sid));
    auto java = java_snapshots.Get(sid);
    ASSERT_TRUE(java.ok()) << java.status().ToString();
    ASSERT_EQ(java->commit_kind, CommitKind::kAppend) << "a COMPACT snapshot must follow an APPEND of its commit";
    const std::vector<ManifestEntry> java_delta =
        Entries(java_path, ManifestList(java_path, java->delta_manifest_list));

    // Schema changes before the writes: the new schema file must be Java's.
    if (auto it = c.alter_before.find(sid); it != c.alter_before.end()) {
      auto altered = (*catalog)->AlterTable(id, it->second);
      ASSERT_TRUE(altered.ok()) << altered.status().ToString();
      const std::string name = "/schema/schema-" + std::to_string(altered->id);
      EXPECT_EQ(std::regex_replace(ReadText(tide_path + name), time_millis, "\"timeMillis\" : T"),
                std::regex_replace(ReadText(java_path + name), time_millis, "\"timeMillis\" : T"));
      current_schema = *altered;
      writer.reset();
    }
    if (!writer || writer_java_user != java->commit_user) {
      auto next_writer = TableWrite::Create(fs, tide_path, write_schema_of(current_schema), "tide-equality-test");
      ASSERT_TRUE(next_writer.ok()) << next_writer.status().ToString();
      writer = std::move(next_writer).value();
      writer_java_user = java->commit_user;
    }

    // The writes of this snapshot, through TableWrite.
    std::vector<FixtureWrite> writes;
    if (auto it = c.writes.find(sid); it != c.writes.end()) {
      writes = it->second;
    } else {
      ASSERT_TRUE(c.writes.empty()) << "no writes given for snapshot " << sid;
      writes = WritesFromLevel0Files(java_path, *java_schema, c.table, java_delta);
    }
    for (const FixtureWrite& w : writes) {
      Status st = writer->Write(w.kind, w.row);
      ASSERT_TRUE(st.ok()) << st.ToString();
    }
    auto messages = writer->PrepareCommit();
    ASSERT_TRUE(messages.ok()) << messages.status().ToString();

    // Tide's new files take the place of Java's, by (partition, bucket, position).
    std::map<std::pair<std::string, int32_t>, std::vector<const DataFileMeta*>> tide_new;
    for (const CommitMessage& m : *messages) {
      for (const DataFileMeta& f : m.new_files) tide_new[{m.partition, m.bucket}].push_back(&f);
    }
    std::map<std::pair<std::string, int32_t>, size_t> taken;
    for (const ManifestEntry& e : java_delta) {
      auto& list = tide_new[{e.partition, e.bucket}];
      size_t& i = taken[{e.partition, e.bucket}];
      ASSERT_LT(i, list.size()) << "Java wrote more files in bucket " << e.bucket << " than Tide";
      names[e.file.file_name] = list[i]->file_name;
      data_files.push_back({FindDataFile(java_path, e.file.file_name),
                            FindDataFile(tide_path, list[i]->file_name), e.file.schema_id});
      ++i;
    }

    // Java's compaction of the same commit (its next snapshot), committed as Java recorded it.
    std::vector<CommitMessage> all = *messages;
    std::optional<Snapshot> java_compact;
    if (n + 1 < java_ids->size()) {
      auto next = java_snapshots.Get((*java_ids)[n + 1]);
      ASSERT_TRUE(next.ok());
      if (next->commit_kind == CommitKind::kCompact && next->commit_identifier == java->commit_identifier) {
        java_compact = *next;
      }
    }
    if (java_compact) {
      for (const ManifestEntry& e : Entries(java_path, ManifestList(java_path, java_compact->delta_manifest_list))) {
        if (all.empty() || all.back().partition != e.partition || all.back().bucket != e.bucket ||
            !all.back().new_files.empty()) {
          CommitMessage m;
          m.partition = e.partition;
          m.bucket = e.bucket;
          m.total_buckets = e.total_buckets;
          all.push_back(std::move(m));
        }
        DataFileMeta f = e.file;
        f.file_name = Mapped(names, f.file_name);
        (e.kind == FileKind::kDelete ? all.back().compact_before : all.back().compact_after).push_back(f);
      }
      // Index files: what the compaction's index manifest holds beyond the previous one, and the reverse.
      auto index_entries = [&](const std::optional<std::string>& manifest) {
        std::vector<IndexManifestEntry> out;
        if (!manifest) return out;
        auto read = ReadIndexManifest(fs, java_path + "/manifest/" + *manifest);
        EXPECT_TRUE(read.ok()) << read.status().ToString();
        if (read.ok()) out = *read;
        return out;
      };
      const auto before = index_entries(java->index_manifest);
      const auto after = index_entries(java_compact->index_manifest);
      auto contains = [](const std::vector<IndexManifestEntry>& list, const IndexManifestEntry& e) {
        return std::any_of(list.begin(), list.end(), [&](const auto& x) { return x.file_name == e.file_name; });
      };
      auto message_for = [&](const IndexManifestEntry& e) -> CommitMessage& {
        CommitMessage m;
        m.partition = e.partition;
        m.bucket = e.bucket;
        all.push_back(std::move(m));
        return all.back();
      };
      for (const IndexManifestEntry& e : before) {
        if (!contains(after, e)) message_for(e).deleted_index_files.push_back(e);
      }
      for (IndexManifestEntry e : after) {
        if (contains(before, e)) continue;
        if (e.deletion_vectors) {
          for (DeletionVectorMeta& dv : *e.deletion_vectors) dv.data_file_name = Mapped(names, dv.data_file_name);
        }
        message_for(e).new_index_files.push_back(e);
      }
    }

    CommitOptions commit;
    commit.commit_user = "tide-equality-test";
    commit.commit_identifier = java->commit_identifier;
    auto result = (*committer)->Commit(all, commit);
    ASSERT_TRUE(result.ok()) << result.status().ToString();
    std::vector<int64_t> expected_ids = {sid};
    if (java_compact) expected_ids.push_back(java_compact->id);
    ASSERT_EQ(result->snapshot_ids, expected_ids);

    // Compare every snapshot this commit made.
    for (int64_t snapshot_id : expected_ids) {
      SCOPED_TRACE(fmt::format("comparing snapshot {}", snapshot_id));
      const std::string java_file = java_path + "/snapshot/snapshot-" + std::to_string(snapshot_id);
      const std::string tide_file = tide_path + "/snapshot/snapshot-" + std::to_string(snapshot_id);
      ExpectSnapshotJsonEqual(ReadText(java_file), ReadText(tide_file), c.layout);
      auto js = java_snapshots.Get(snapshot_id);
      auto ts = tide_snapshots.Get(snapshot_id);
      ASSERT_TRUE(js.ok() && ts.ok());

      std::vector<std::pair<std::string, std::string>> lists = {{js->base_manifest_list, ts->base_manifest_list},
                                                                {js->delta_manifest_list, ts->delta_manifest_list}};
      if (js->changelog_manifest_list && ts->changelog_manifest_list) {
        lists.emplace_back(*js->changelog_manifest_list, *ts->changelog_manifest_list);
      }
      for (const auto& [java_list, tide_list] : lists) {
        const auto java_metas = ManifestList(java_path, java_list);
        const auto tide_metas = ManifestList(tide_path, tide_list);
        ExpectManifestListsEqual(java_metas, tide_metas, (c.layout == JavaLayout::k09), java_list);
        ExpectEntriesEqual(Entries(java_path, java_metas), Entries(tide_path, tide_metas), names,
                           (c.layout == JavaLayout::k09) ? &key_types : nullptr, java_list);

        // Avro writer schemas of the list and its manifests.
        const std::string java_list_schema = AvroWriterSchema(java_path + "/manifest/" + java_list);
        const std::string tide_list_schema = AvroWriterSchema(tide_path + "/manifest/" + tide_list);
        EXPECT_EQ(tide_list_schema, std::string(kManifestFileMetaAvroSchema));
        if (!(c.layout == JavaLayout::k09)) {
          EXPECT_EQ(tide_list_schema, java_list_schema) << "manifest list writer schema";
        }
        for (size_t i = 0; i < std::min(java_metas.size(), tide_metas.size()); ++i) {
          const std::string java_schema_text = AvroWriterSchema(java_path + "/manifest/" + java_metas[i].file_name);
          const std::string tide_schema_text = AvroWriterSchema(tide_path + "/manifest/" + tide_metas[i].file_name);
          EXPECT_EQ(tide_schema_text, std::string(kManifestEntryAvroSchema));
          if (c.layout == JavaLayout::k13) {
            // Exclusion (Java 1.3 layout): 1.3 appended `_FIRST_ROW_ID` and `_WRITE_COLS` (row tracking,
            // data evolution) to the file record; Tide writes 1.2's schema, which is 1.3's without them.
            EXPECT_EQ(tide_schema_text, WithoutFields13(java_schema_text)) << "manifest writer schema";
          } else if (c.layout == JavaLayout::k12) {
            EXPECT_EQ(tide_schema_text, java_schema_text) << "manifest writer schema";
          } else {
            // Exclusion (Java 0.9 layout): 0.9 wrapped the nested records in ["null", record] unions and
            // lacked the 1.x fields; Tide writes the 1.x schema, which 0.9 and 1.x readers accept.
            EXPECT_NE(java_schema_text.find("\"_FILE\",\"type\":[\"null\""), std::string::npos);
          }
        }
      }

      // The index manifest (deletion vectors).
      ASSERT_EQ(ts->index_manifest.has_value(), js->index_manifest.has_value());
      if (js->index_manifest) {
        auto java_index = ReadIndexManifest(fs, java_path + "/manifest/" + *js->index_manifest);
        auto tide_index = ReadIndexManifest(fs, tide_path + "/manifest/" + *ts->index_manifest);
        ASSERT_TRUE(java_index.ok() && tide_index.ok());
        ASSERT_EQ(tide_index->size(), java_index->size());
        for (size_t i = 0; i < java_index->size(); ++i) {
          IndexManifestEntry expected = (*java_index)[i];
          if (expected.deletion_vectors) {
            for (DeletionVectorMeta& dv : *expected.deletion_vectors) {
              dv.data_file_name = Mapped(names, dv.data_file_name);
            }
          }
          EXPECT_EQ((*tide_index)[i], expected) << "index manifest entry " << i;
        }
        if (!(c.layout == JavaLayout::k09)) {
          EXPECT_EQ(AvroWriterSchema(tide_path + "/manifest/" + *ts->index_manifest),
                    AvroWriterSchema(java_path + "/manifest/" + *js->index_manifest));
        }
      }
      ++tide_checked;
    }
    if (java_compact) ++n;
  }
  EXPECT_EQ(tide_checked, static_cast<int64_t>(java_ids->size()));

  // The data files: the same rows (so the same partition, bucket, sequence numbers and row kinds) and
  // the same physical schema.
  ASSERT_FALSE(data_files.empty());
  for (const WrittenFile& file : data_files) {
    const std::string& java_file = file.java_path;
    const std::string& tide_file = file.tide_path;
    SCOPED_TRACE(tide_file);
    auto file_schema = java_schemas.Get(file.schema_id);
    ASSERT_TRUE(file_schema.ok()) << file_schema.status().ToString();
    const std::vector<Row> java_rows = ReadDataFile(java_file, *file_schema, c.table);
    const std::vector<Row> tide_rows = ReadDataFile(tide_file, *file_schema, c.table);
    std::vector<DataType> types;
    for (const ParquetColumnSpec& col : PhysicalColumns(*file_schema, c.table)) types.push_back(col.type);
    ASSERT_EQ(tide_rows.size(), java_rows.size());
    for (size_t i = 0; i < java_rows.size(); ++i) {
      EXPECT_TRUE(tide_rows[i] == java_rows[i])
          << "row " << i << "\njava: " << RowText(java_rows[i], types) << "\ntide: " << RowText(tide_rows[i], types);
    }
    ExpectParquetSchemaEqual(java_file, tide_file, (c.layout == JavaLayout::k09));
  }
}

TimestampValue Ts(int64_t millis, int32_t nanos_of_milli) { return TimestampValue{millis, nanos_of_milli}; }

std::vector<EqualityCase> Cases() {
  std::vector<EqualityCase> cases;

  EqualityCase partial;
  partial.table = "pk_table_partial_update";
  partial.write_options = {{"ignore-delete", "false"}};
  partial.writes[1] = {
      {RowKind::kInsert, {int32_t{0}, int32_t{1}, Datum(), false, "apple"}},
      {RowKind::kInsert, {int32_t{1}, int32_t{0}, 2.0, false, Datum()}},
      {RowKind::kInsert, {int32_t{1}, int32_t{1}, Datum(), true, "banana"}},
  };
  partial.writes[2] = {
      {RowKind::kInsert, {int32_t{0}, int32_t{1}, 100.0, true, "new_apple"}},
      {RowKind::kDelete, {int32_t{1}, int32_t{0}, 122.0, false, Datum()}},
      {RowKind::kInsert, {int32_t{1}, int32_t{1}, 133.3, false, Datum()}},
      {RowKind::kInsert, {int32_t{2}, int32_t{1}, 144.4, true, "orange"}},
      {RowKind::kDelete, {int32_t{2}, int32_t{2}, 122.0, false, Datum()}},
  };
  cases.push_back(partial);

  EqualityCase timestamps;
  timestamps.table = "append_with_multiple_ts_precision_and_timezone";
  timestamps.writes[1] = {
      {RowKind::kInsert,
       {Ts(1000, 0), Ts(1, 0), Ts(0, 1000), Ts(0, 1), Ts(2000, 0), Ts(2, 0), Ts(0, 2000), Ts(0, 2)}},
      {RowKind::kInsert,
       {Ts(3000, 0), Ts(3, 0), Datum(), Ts(0, 3), Ts(4000, 0), Ts(4, 0), Ts(0, 4000), Ts(0, 4)}},
      {RowKind::kInsert, {Ts(5000, 0), Ts(5, 0), Datum(), Datum(), Ts(6000, 0), Datum(), Ts(0, 6000), Datum()}},
  };
  cases.push_back(timestamps);

  // Partitioned (f1), bucket-key f2, two buckets; three writers, the last one's commit followed by a
  // full compaction.
  auto ts = [](std::string_view text) { return Datum(ParseTimestamp(text).value()); };
  auto dec = [](std::string_view text) { return Datum(DecimalValue{ParseDecimal(text, 23, 5).value()}); };
  EqualityCase complex;
  complex.table = "append_complex_data";
  complex.layout = JavaLayout::k12;
  complex.writes[1] = {
      {RowKind::kInsert, {int32_t{10}, int32_t{1}, int32_t{1234}, ts("2033-05-18 03:33:20.0"),
                          dec("123456789987654321.45678"), "add"}},
      {RowKind::kInsert, {int32_t{20}, int32_t{1}, int32_t{-1234}, ts("1899-01-01 00:59:20.001001001"),
                          dec("-123456789987654321.45678"), "bad"}},
      {RowKind::kInsert, {int32_t{10}, int32_t{1}, int32_t{19909}, ts("2033-05-18 03:33:20.000001001"),
                          dec("12.30000"), "cat"}},
  };
  complex.writes[2] = {
      {RowKind::kInsert, {int32_t{10}, int32_t{1}, int32_t{0}, ts("2008-12-28 00:00:00.000123456"), Datum(), "dad"}},
      {RowKind::kInsert, {int32_t{10}, int32_t{1}, int32_t{100}, ts("2008-12-28 00:00:00.00012345"),
                          dec("-123.45000"), "eat"}},
      {RowKind::kInsert, {int32_t{10}, int32_t{1}, Datum(), ts("1899-01-01 00:59:20.001001001"), dec("0.00000"),
                          "fat"}},
      {RowKind::kInsert, {int32_t{20}, int32_t{0}, int32_t{-100}, Datum(), dec("-0.00000"), "get"}},
  };
  complex.writes[3] = {
      {RowKind::kInsert, {int32_t{10}, int32_t{1}, int32_t{20006}, ts("2024-10-10 10:10:10.1001001"),
                          dec("1728551410100.10010"), Datum()}},
  };
  cases.push_back(complex);

  // Partitioned (key0, key1), bucket-unaware; between its two commits one ALTER TABLE drops, renames,
  // moves and adds columns (schema-1), and the second commit writes under schema-1.
  EqualityCase altered;
  altered.table = "append_table_with_alter_table";
  altered.layout = JavaLayout::k12;
  auto row7 = [](int32_t a, int32_t b, int32_t c2, int32_t d, int32_t e, int32_t f, int32_t g) {
    return Row{a, b, c2, d, e, f, g};
  };
  altered.writes[1] = {
      {RowKind::kInsert, row7(0, 1, 12, 13, 14, 15, 16)}, {RowKind::kInsert, row7(0, 1, 22, 23, 24, 25, 26)},
      {RowKind::kInsert, row7(0, 1, 32, 33, 34, 35, 36)}, {RowKind::kInsert, row7(1, 1, 42, 43, 44, 45, 46)},
      {RowKind::kInsert, row7(1, 1, 52, 53, 54, 55, 56)},
  };
  altered.alter_before[2] = {
      SchemaChange::DropColumn("a"),
      SchemaChange::DropColumn("c"),
      SchemaChange::RenameColumn("b", "c"),
      SchemaChange::RenameColumn("d", "a"),
      SchemaChange::UpdateColumnPosition("k", ColumnPosition::After("key1")),
      SchemaChange::AddColumn("d", DataType::Int(), ColumnPosition::After("c"), std::string()),
      SchemaChange::AddColumn("e", DataType::Int()),
  };
  // Schema-1 order: key0, key1, k, c, d, a, e.
  altered.writes[2] = {
      {RowKind::kInsert, row7(0, 1, 66, 63, 517, 65, 618)}, {RowKind::kInsert, row7(0, 1, 76, 73, 527, 75, 628)},
      {RowKind::kInsert, row7(0, 1, 86, 83, 537, 85, 638)}, {RowKind::kInsert, row7(1, 1, 96, 93, 547, 95, 648)},
      {RowKind::kInsert, row7(1, 1, 106, 103, 557, 105, 658)},
  };
  cases.push_back(altered);

  // Partitioned (key0, key1) primary key with deletion vectors and forced compaction, three writers; the
  // ALTER TABLE before the third drops, renames (a primary-key column too), moves (a partition column
  // too) and adds columns.
  EqualityCase pk_altered;
  pk_altered.table = "pk_table_with_alter_table";
  pk_altered.layout = JavaLayout::k12;
  pk_altered.write_options_removed = {"deletion-vectors.enabled"};
  auto pk_row = [](int32_t k0, int32_t k1, int32_t k2, int32_t a, int32_t b, int32_t c2, int32_t d, const char* k) {
    return Row{k0, k1, k2, a, b, c2, d, k};
  };
  pk_altered.writes[1] = {
      {RowKind::kInsert,
       pk_row(0, 1, 2, 3, 4, 5, 6,
              "Two roads diverged in a wood, and I took the one less traveled by, And that has made all the "
              "difference.")},
      {RowKind::kInsert, pk_row(0, 1, 12, 13, 14, 15, 16, "Alice")},
      {RowKind::kInsert, pk_row(1, 1, 22, 23, 24, 25, 26, "Bob")},
      {RowKind::kInsert, pk_row(1, 1, 32, 33, 34, 35, 36, "Emily")},
      {RowKind::kInsert, pk_row(1, 1, 42, 43, 44, 45, 46, "Tony")},
      {RowKind::kInsert, pk_row(1, 1, 52, 53, 54, 55, 56, "Alex")},
      {RowKind::kInsert, pk_row(1, 1, 62, 63, 64, 65, 66, "David")},
      {RowKind::kInsert, pk_row(1, 1, 72, 73, 74, 75, 76, "Whether I shall turn out to be the hero of my own life.")},
      {RowKind::kInsert, pk_row(1, 1, 82, 83, 84, 85, 86, "Lily")},
  };
  pk_altered.writes[3] = {
      {RowKind::kDelete, pk_row(1, 1, 42, 43, 44, 45, 46, "Tony")},
      {RowKind::kDelete, pk_row(1, 1, 82, 83, 84, 85, 86, "Lily")},
      {RowKind::kUpdateAfter, pk_row(0, 1, 12, 93, 94, 95, 96, "Alice")},
  };
  pk_altered.alter_before[5] = {
      SchemaChange::DropColumn("a"),
      SchemaChange::DropColumn("c"),
      SchemaChange::RenameColumn("b", "c"),
      SchemaChange::RenameColumn("d", "a"),
      SchemaChange::RenameColumn("key2", "key_2"),
      SchemaChange::UpdateColumnPosition("k", ColumnPosition::After("key1")),
      SchemaChange::UpdateColumnPosition("key0", ColumnPosition::After("a")),
      SchemaChange::AddColumn("d", DataType::Int(), ColumnPosition::After("c"), std::string()),
      SchemaChange::AddColumn("e", DataType::Int()),
  };
  // Schema-1 order: key1, k, key_2, c, d, a, key0, e.
  pk_altered.writes[5] = {
      {RowKind::kInsert, Row{int32_t{1}, "Paul", int32_t{502}, int32_t{504}, int32_t{508}, int32_t{506}, int32_t{0},
                             int32_t{509}}},
      {RowKind::kUpdateAfter, Row{int32_t{1}, "Alex", int32_t{52}, int32_t{514}, int32_t{518}, int32_t{516},
                                  int32_t{1}, int32_t{519}}},
  };
  cases.push_back(pk_altered);

  // Primary-key tables whose READMEs list plain inserts, updates and deletes: their writes are taken from
  // the level-0 files of each APPEND snapshot (the records the README lists, in the order Java numbered
  // them), as for pk_09.
  //   pk_table_with_mor: partitioned, `sequence.field` s0,s1, Java 1.3;
  //   pk_table_scan_and_read_mor: partitioned, two buckets, a compaction, three writers, Java 1.3;
  //   pk_table_scan_and_read_dv: the same with deletion vectors and forced compaction, Java 1.3;
  //   pk_table_with_dv_cardinality: deletion vectors, `fields.f3.stats-mode` none with the dense
  //   statistics store (`_VALUE_STATS_COLS`), Java 1.2.
  for (const char* table : {"pk_table_with_mor", "pk_table_scan_and_read_mor", "pk_table_scan_and_read_dv",
                            "pk_table_with_dv_cardinality"}) {
    EqualityCase from_files;
    from_files.table = table;
    from_files.layout = from_files.table == "pk_table_with_dv_cardinality" ? JavaLayout::k12 : JavaLayout::k13;
    from_files.write_options_removed = {"deletion-vectors.enabled"};  // where set, as for pk_09
    cases.push_back(from_files);
  }

  EqualityCase pk09;
  pk09.table = "pk_09";
  pk09.layout = JavaLayout::k09;
  pk09.write_options_removed = {"deletion-vectors.enabled"};
  cases.push_back(pk09);
  return cases;
}

void PrintTo(const EqualityCase& c, std::ostream* os) { *os << c.table; }

INSTANTIATE_TEST_SUITE_P(JavaFixtures, JavaWriteEqualityTest, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<EqualityCase>& info) { return info.param.table; });

}  // namespace
}  // namespace tide
