// Tide's data file writers against Java's metadata: every live data file of the Java-written fixture
// tables (tests/fixtures/paimon-java, Avro manifests) is read back and its records are written again
// through KeyValueFileWriter / AppendFileWriter; the DataFileMeta Tide computes must equal the one Java
// stored in the manifest: keys, key and value statistics (truncate(16), truncate(128) on keys, stats
// modes, dense store), row and delete counts, sequence range, level, file source.
//
// Tables written by Java 0.9 (pk_09) predate the rule that gives key columns truncate(128) statistics
// (Paimon 1.0's StatsCollectorFactories; 0.9 gave every column `metadata.stats-mode`, truncate(16)).
// Tide writes the 1.x rule; for those tables the rewrite uses 0.9's rule, so the check still covers
// every byte of the key statistics. Tables with nested columns are compared as
// ExpectValueStatsWithNestedKept says.
//
// Thread-safety: a test; one thread.
#include <gtest/gtest.h>

#include <algorithm>

#include "testing/temp_dir.h"
#include "tide/base/bytes.h"
#include "tide/codec/binary_row.h"
#include "tide/table/io/append_file_writer.h"
#include "tide/table/io/data_file_reader.h"
#include "tide/table/operation/file_store_scan.h"
#include "tide/table/io/key_value_file_writer.h"
#include "tide/table/schema/schema_manager.h"
#include "tide/table/snapshot/snapshot_manager.h"

namespace tide {
namespace {

std::string Hex(const std::string& bytes) { return HexEncode(bytes); }

struct CompatTable {
  std::string path;      // <db>.db/<table> under the fixture warehouse
  bool java_09 = false;  // written by Java 0.9: key statistics under metadata.stats-mode
  bool nested_columns = false;  // has nested columns: see ExpectValueStatsWithNestedKept
};

// Java's dense store also leaves nested columns (which never have statistics) out of `_VALUE_STATS` and
// names the other columns in `_VALUE_STATS_COLS`; Tide deliberately keeps them as all-null statistics
// with `_VALUE_STATS_COLS` null (Paimon 0.9 readers misread the dense form: data_file_stats.h). The
// other columns' statistics must be Java's, the nested ones' empty.
void ExpectValueStatsWithNestedKept(const DataFileMeta& java, const DataFileMeta& tide,
                                    const std::vector<DataField>& fields) {
  ASSERT_TRUE(java.value_stats_cols.has_value());
  EXPECT_FALSE(tide.value_stats_cols.has_value());
  const std::vector<std::string>& java_cols = *java.value_stats_cols;
  std::vector<DataType> all_types, java_types;
  for (const DataField& f : fields) all_types.push_back(f.type.WithNullable(true));
  for (const std::string& name : java_cols) {
    auto it = std::find_if(fields.begin(), fields.end(), [&](const DataField& f) { return f.name == name; });
    ASSERT_NE(it, fields.end()) << name;
    java_types.push_back(it->type.WithNullable(true));
  }
  auto tide_min = DeserializeBinaryRow(tide.value_stats.min_values, all_types);
  auto tide_max = DeserializeBinaryRow(tide.value_stats.max_values, all_types);
  auto java_min = DeserializeBinaryRow(java.value_stats.min_values, java_types);
  auto java_max = DeserializeBinaryRow(java.value_stats.max_values, java_types);
  ASSERT_TRUE(tide_min.ok() && tide_max.ok() && java_min.ok() && java_max.ok());
  ASSERT_EQ(tide.value_stats.null_counts.size(), fields.size());
  ASSERT_EQ(java.value_stats.null_counts.size(), java_cols.size());
  for (size_t i = 0; i < fields.size(); ++i) {
    SCOPED_TRACE("column " + fields[i].name);
    auto listed = std::find(java_cols.begin(), java_cols.end(), fields[i].name);
    if (listed == java_cols.end()) {
      EXPECT_TRUE(fields[i].type.IsNested()) << "Java left out a column that is not nested";
      EXPECT_TRUE((*tide_min)[i].is_null() && (*tide_max)[i].is_null());
      EXPECT_FALSE(tide.value_stats.null_counts[i].has_value());
      continue;
    }
    const size_t j = static_cast<size_t>(listed - java_cols.begin());
    EXPECT_TRUE((*tide_min)[i] == (*java_min)[j]) << "min";
    EXPECT_TRUE((*tide_max)[i] == (*java_max)[j]) << "max";
    EXPECT_EQ(tide.value_stats.null_counts[i], java.value_stats.null_counts[j]);
  }
}

class DataFileMetaCompatTest : public ::testing::TestWithParam<CompatTable> {};

void PrintTo(const CompatTable& t, std::ostream* os) { *os << t.path; }

TEST_P(DataFileMetaCompatTest, RewrittenFilesHaveJavasMetadata) {
  const std::string table_name = GetParam().path;
  const std::string table_path = testing::JavaFixtureWarehouse() + "/" + table_name;
  FileSystem* fs = FileSystem::Local();
  SchemaManager schemas(fs, table_path);
  auto latest_schema = schemas.Latest();
  ASSERT_TRUE(latest_schema.ok()) << latest_schema.status().ToString();
  SnapshotManager snapshots(fs, table_path);
  auto latest = snapshots.LatestId();
  ASSERT_TRUE(latest.ok() && latest->has_value());
  auto snapshot = snapshots.Get(**latest);
  ASSERT_TRUE(snapshot.ok());
  FileStoreScan scan(fs, table_path, table_name, *latest_schema);
  auto splits = scan.Plan(*snapshot);
  ASSERT_TRUE(splits.ok()) << splits.status().ToString();
  testing::TempDir dir;
  int checked = 0;
  for (const DataSplit& split : *splits) {
    for (const DataFileMeta& java : split.files) {
      SCOPED_TRACE(java.file_name);
      auto schema = schemas.Get(java.schema_id);
      ASSERT_TRUE(schema.ok());
      auto options = CoreOptions::Create(*schema, table_name);
      ASSERT_TRUE(options.ok()) << options.status().ToString();
      DataFileWriteContext ctx;
      auto layout = DataFileLayout::Create(*schema, *options, table_name);
      ASSERT_TRUE(layout.ok()) << layout.status().ToString();
      ctx.layout = std::move(layout).value();
      if (GetParam().java_09) {
        for (StatsMode& mode : ctx.layout.key_stats_modes) mode = StatsMode::Truncate(16);
      }
      ctx.db = DuckDB::Open().value();
      auto reader = OpenDataFile(split.FilePath(java), ctx.layout.columns, table_name);
      ASSERT_TRUE(reader.ok()) << reader.status().ToString();
      std::vector<Row> rows;
      std::vector<int64_t> positions;
      while (true) {
        auto more = (*reader)->NextBatch(1024, &rows, &positions);
        ASSERT_TRUE(more.ok()) << more.status().ToString();
        if (!*more) break;
      }
      std::string out = dir.path() + "/" + std::to_string(checked) + "-" + java.file_name;
      std::unique_ptr<DataFileWriter> writer;
      const size_t offset = ctx.layout.value_offset();
      if (ctx.layout.primary_key) {
        writer = KeyValueFileWriter::Create(&ctx, out, java.level,
                                            static_cast<FileSource>(java.file_source.value_or(0)))
                     .value();
      } else {
        writer = AppendFileWriter::Create(&ctx, out, static_cast<FileSource>(java.file_source.value_or(0))).value();
      }
      int64_t sequence = java.min_sequence_number;
      for (Row& physical : rows) {
        Row values(physical.begin() + static_cast<std::ptrdiff_t>(offset), physical.end());
        int64_t seq = ctx.layout.primary_key ? physical[offset - 2].as_int() : sequence++;
        ValueKind kind =
            ctx.layout.primary_key ? static_cast<ValueKind>(physical[offset - 1].as_int()) : ValueKind::kInsert;
        ASSERT_TRUE(writer->Write(values, seq, kind).ok());
      }
      auto meta = writer->Finish();
      ASSERT_TRUE(meta.ok()) << meta.status().ToString();
      EXPECT_EQ(meta->row_count, java.row_count);
      EXPECT_EQ(Hex(meta->min_key), Hex(java.min_key));
      EXPECT_EQ(Hex(meta->max_key), Hex(java.max_key));
      EXPECT_EQ(Hex(meta->key_stats.min_values), Hex(java.key_stats.min_values));
      EXPECT_EQ(Hex(meta->key_stats.max_values), Hex(java.key_stats.max_values));
      EXPECT_EQ(meta->key_stats.null_counts, java.key_stats.null_counts);
      if (GetParam().nested_columns) {
        ExpectValueStatsWithNestedKept(java, *meta, schema->fields);
      } else {
        EXPECT_EQ(Hex(meta->value_stats.min_values), Hex(java.value_stats.min_values));
        EXPECT_EQ(Hex(meta->value_stats.max_values), Hex(java.value_stats.max_values));
        EXPECT_EQ(meta->value_stats.null_counts, java.value_stats.null_counts);
        EXPECT_EQ(meta->value_stats_cols, java.value_stats_cols);
      }
      EXPECT_EQ(meta->min_sequence_number, java.min_sequence_number);
      EXPECT_EQ(meta->max_sequence_number, java.max_sequence_number);
      EXPECT_EQ(meta->delete_row_count.value_or(0), java.delete_row_count.value_or(0));
      EXPECT_EQ(meta->level, java.level);
      EXPECT_EQ(meta->schema_id, java.schema_id);
      EXPECT_EQ(meta->file_source.value_or(0), java.file_source.value_or(0));
      ++checked;
    }
  }
  EXPECT_GT(checked, 0);
}

INSTANTIATE_TEST_SUITE_P(
    JavaFixtures, DataFileMetaCompatTest,
    ::testing::Values(CompatTable{"pk_09.db/pk_09", true},
                      CompatTable{"pk_table_partial_update.db/pk_table_partial_update"},
                      CompatTable{"pk_table_scan_and_read_dv.db/pk_table_scan_and_read_dv"},
                      CompatTable{"pk_table_scan_and_read_mor.db/pk_table_scan_and_read_mor"},
                      CompatTable{"pk_table_scan_and_read_first_row.db/pk_table_scan_and_read_first_row"},
                      CompatTable{"pk_table_with_alter_table.db/pk_table_with_alter_table"},
                      CompatTable{"pk_table_with_dv_cardinality.db/pk_table_with_dv_cardinality"},
                      CompatTable{"pk_table_with_mor.db/pk_table_with_mor"},
                      CompatTable{"pk_with_bitmap_dv.db/pk_with_bitmap_dv"},
                      CompatTable{"append_complex_data.db/append_complex_data"},
                      CompatTable{"append_with_multiple_ts_precision_and_timezone.db/"
                                  "append_with_multiple_ts_precision_and_timezone"},
                      CompatTable{"append_with_cast_timestamp.db/append_with_cast_timestamp"},
                      CompatTable{"append_table_with_alter_table.db/append_table_with_alter_table"},
                      CompatTable{"append_table_alter_table_with_cast.db/append_table_alter_table_with_cast"},
                      CompatTable{"append_complex_build_in_fieldid.db/append_complex_build_in_fieldid", false, true},
                      CompatTable{"append_with_bitmap.db/append_with_bitmap"},
                      CompatTable{"pk_dv_index_in_data_no_external.db/pk_dv_index_in_data_no_external"},
                      CompatTable{"pk_dv_index_not_in_data_no_external.db/pk_dv_index_not_in_data_no_external"}),
    [](const ::testing::TestParamInfo<CompatTable>& info) {
      std::string name = info.param.path.substr(0, info.param.path.find('.'));
      for (char& c : name) {
        if (!isalnum(static_cast<unsigned char>(c))) c = '_';
      }
      return name;
    });

}  // namespace
}  // namespace tide
