// Writes Parquet files with ParquetFileWriter and reads them back with ParquetFileReader: every Paimon
// type with edge values (files with nested columns, which go through DuckDB), the physical schema of both
// paths (Java's exactly on Tide's encoder; DuckDB's gaps on its path), row order and the writer's refusals.
// Tide's encoder itself is tested in parquet_file_encoder_test.cc.
#include "tide/format/format_test_values.h"
#include "tide/format/parquet_writer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>

#include "testing/temp_dir.h"
#include "tide/format/parquet_metadata.h"
#include "tide/format/parquet_reader.h"
#include "tide/io/file_system.h"

namespace tide {
namespace {

using testing::Ts;
using testing::Dec;
using testing::Days;
using testing::N;
DuckDB OpenDb() { return testing::OpenTestDb(); }
DataField Field(int32_t id, std::string name, DataType type) { return testing::TestField(id, std::move(name), std::move(type)); }

std::vector<ParquetColumnSpec> AllTypes() {
  DataType inner_row = DataType::Row({Field(34, "z", DataType::String())});
  DataType row = DataType::Row({Field(31, "a", DataType::Int(false)),
                                Field(32, "b", DataType::Array(DataType::Decimal(20, 2))),
                                Field(33, "c", DataType::Map(DataType::Int(false), inner_row))});
  return {
      {"b", 1, DataType::Boolean()},
      {"i8", 2, DataType::TinyInt()},
      {"i16", 3, DataType::SmallInt()},
      {"i32", 4, DataType::Int()},
      {"i64", 5, DataType::BigInt()},
      {"f32", 6, DataType::Float()},
      {"f64", 7, DataType::Double()},
      {"dec4", 8, DataType::Decimal(4, 4)},
      {"dec9", 9, DataType::Decimal(9, 2)},
      {"dec18", 10, DataType::Decimal(18, 4)},
      {"dec38", 11, DataType::Decimal(38, 10)},
      {"s", 12, DataType::String()},
      {"ch", 13, DataType::Char(5)},
      {"bin", 14, DataType::Bytes()},
      {"binf", 15, DataType::Binary(4)},
      {"d", 16, DataType::Date()},
      {"t", 17, DataType::Time(3)},
      {"ts0", 18, DataType::Timestamp(0)},
      {"ts3", 19, DataType::Timestamp(3)},
      {"ts6", 23, DataType::Timestamp(6)},
      {"ts9", 24, DataType::Timestamp(9)},
      {"ltz3", 25, DataType::TimestampLtz(3)},
      {"ltz6", 26, DataType::TimestampLtz(6)},
      {"ltz9", 27, DataType::TimestampLtz(9)},
      {"arr", 20, DataType::Array(DataType::Int())},
      {"arr2", 21, DataType::Array(DataType::Array(DataType::String()))},
      {"m", 22, DataType::Map(DataType::String(false), DataType::BigInt())},
      {"ms", 28, DataType::Multiset(DataType::String(false))},
      {"r", 30, row},
  };
}

std::vector<Row> AllTypesRows() {
  const std::string all_bytes = [] {
    std::string s;
    for (int i = 0; i < 256; ++i) s.push_back(static_cast<char>(i));
    return s;
  }();
  Row low = {
      false,
      Datum(int64_t{-128}),
      Datum(int64_t{-32768}),
      Datum(int64_t{std::numeric_limits<int32_t>::min()}),
      Datum(std::numeric_limits<int64_t>::min()),
      Datum(-0.0f),
      Datum(-std::numeric_limits<double>::infinity()),
      Dec("-0.9999", 4, 4),
      Dec("-9999999.99", 9, 2),
      Dec("-99999999999999.9999", 18, 4),
      Dec("-9999999999999999999999999999.9999999999", 38, 10),
      "",
      "abc  ",
      "",
      std::string("\x01\x02\x03\x04", 4),
      Days("0001-01-01"),
      Datum(int64_t{0}),
      Datum(Ts("0001-01-01 00:00:00")),
      Datum(Ts("1969-12-31 23:59:59.999")),
      Datum(Ts("0001-01-01 00:00:00.000001")),
      Datum(Ts("1677-09-22 00:00:00.000000001")),
      Datum(Ts("1969-12-31 23:59:59.999")),
      Datum(Ts("0001-01-01 00:00:00")),
      Datum(Ts("1969-12-31 23:59:59.999999999")),
      N({}),
      N({}),
      N({}),
      N({}),
      N({Datum(int64_t{0}), N({}), N({})}),
  };
  Row high = {
      true,
      Datum(int64_t{127}),
      Datum(int64_t{32767}),
      Datum(int64_t{std::numeric_limits<int32_t>::max()}),
      Datum(std::numeric_limits<int64_t>::max()),
      Datum(std::numeric_limits<float>::denorm_min()),
      Datum(std::numeric_limits<double>::max()),
      Dec("0.9999", 4, 4),
      Dec("9999999.99", 9, 2),
      Dec("99999999999999.9999", 18, 4),
      Dec("9999999999999999999999999999.9999999999", 38, 10),
      std::string("h\xc3\xa9llo \xe2\x9c\x93 \xf0\x9f\x8c\x8a", 15),
      "abcde",
      all_bytes,
      std::string("\x00\xff\x00\xff", 4),
      Days("9999-12-31"),
      Datum(int64_t{86399999}),
      Datum(Ts("9999-12-31 23:59:59")),
      Datum(Ts("9999-12-31 23:59:59.999")),
      Datum(Ts("9999-12-31 23:59:59.999999")),
      Datum(Ts("2262-04-11 23:47:16.854775806")),
      Datum(Ts("9999-12-31 23:59:59.999")),
      Datum(Ts("9999-12-31 23:59:59.999999")),
      Datum(Ts("2024-02-29 12:34:56.123456789")),
      N({Datum(int64_t{1}), Datum(), Datum(int64_t{-3})}),
      N({N({"a", Datum(), ""}), Datum(), N({})}),
      N({"k1", Datum(int64_t{1}), "k2", Datum()}),
      N({"x", "x", "y"}),
      N({Datum(int64_t{7}), N({Dec("-123456789012345678.99", 20, 2), Datum()}),
         N({Datum(int64_t{1}), N({"zz"}), Datum(int64_t{2}), Datum()})}),
  };
  Row nulls(AllTypes().size());
  Row specials = high;
  specials[5] = Datum(std::numeric_limits<float>::quiet_NaN());
  specials[6] = Datum(std::numeric_limits<double>::quiet_NaN());
  specials[11] = std::string("nul\0inside", 10);
  return {low, high, nulls, specials};
}

TEST(ParquetWriterTest, EveryTypeRoundTripsWithEdgeValues) {
  testing::TempDir dir;
  DuckDB db = OpenDb();
  std::string path = JoinPath(dir.path(), "bucket-0/data-1.parquet");
  auto writer = ParquetFileWriter::Create(db, path, AllTypes());
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  std::vector<Row> rows = AllTypesRows();
  ASSERT_TRUE((*writer)->AppendRows(rows).ok());
  auto written = (*writer)->Finish();
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  EXPECT_EQ(written->row_count, 4);
  EXPECT_GT(written->file_size, 0);

  auto reader = ParquetFileReader::Open(db, path, AllTypes());
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_TRUE((*reader)->missing_columns().empty());
  auto back = (*reader)->ReadAll();
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->size(), rows.size());
  const std::vector<ParquetColumnSpec> columns = AllTypes();
  for (size_t r = 0; r < rows.size(); ++r) {
    for (size_t c = 0; c < columns.size(); ++c) {
      Datum expected = rows[r][c];
      Datum actual = (*back)[r][c];
      if (columns[c].name == "ms" && !expected.is_null()) {
        // A multiset is a bag: Parquet stores element -> count, so only the order may change.
        auto sorted = [](const Datum& d) {
          std::vector<Datum> items = d.as_nested();
          std::sort(items.begin(), items.end(), [](const Datum& a, const Datum& b) { return CompareDatum(a, b) < 0; });
          return items;
        };
        EXPECT_EQ(sorted(actual), sorted(expected)) << "row " << r;
        continue;
      }
      EXPECT_EQ(actual, expected) << "row " << r << " column " << columns[c].name << ": got "
                                  << DatumToString(actual, columns[c].type) << ", wrote "
                                  << DatumToString(expected, columns[c].type);
    }
  }
}

TEST(ParquetWriterTest, FlatFilesHaveJavasSchemaAndRefuseNullInNotNullColumns) {
  testing::TempDir dir;
  DuckDB db = OpenDb();
  std::string path = JoinPath(dir.path(), "bucket-0/flat.parquet");
  std::vector<ParquetColumnSpec> columns = {{"_KEY_id", kKeyFieldIdStart + 0, DataType::BigInt(false)},
                                            {"_SEQUENCE_NUMBER", kSequenceNumberFieldId, DataType::BigInt(false)},
                                            {"_VALUE_KIND", kValueKindFieldId, DataType::TinyInt(false)},
                                            {"id", 0, DataType::BigInt(false)},
                                            {"at", 1, DataType::TimestampLtz(9)}};
  auto writer = ParquetFileWriter::Create(db, path, columns);
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  Status st = (*writer)->Append({Datum(int64_t{1}), Datum(), Datum(int64_t{0}), Datum(int64_t{1}), Datum()});
  ASSERT_TRUE(st.IsInvalidArgument()) << st.ToString();
  EXPECT_NE(st.message().find("_SEQUENCE_NUMBER"), std::string::npos) << st.ToString();
  EXPECT_NE(st.message().find(path), std::string::npos) << st.ToString();
  const Row row = {Datum(int64_t{1}), Datum(int64_t{7}), Datum(int64_t{0}), Datum(int64_t{1}),
                   Datum(Ts("1800-01-01 00:00:00.123456789"))};  // outside INT64 nanoseconds' range
  ASSERT_TRUE((*writer)->Append(row).ok());
  // Nothing at the target before Finish.
  auto before = FileSystem::Local()->Exists(path);
  ASSERT_TRUE(before.ok());
  EXPECT_FALSE(*before);
  auto written = (*writer)->Finish();
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  EXPECT_EQ(written->row_count, 1);

  auto info = ReadParquetFileInfo(path);
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(written->file_size, info->file_size);
  EXPECT_EQ(info->root_name, "paimon_schema");
  ASSERT_EQ(info->columns.size(), 5u);
  EXPECT_EQ(info->columns[0].repetition, "REQUIRED");
  EXPECT_EQ(info->columns[0].converted_type, "");
  EXPECT_EQ(info->columns[2].converted_type, "INT_8");
  EXPECT_EQ(info->columns[2].logical_type, "INT(8,signed)");
  EXPECT_EQ(info->columns[4].repetition, "OPTIONAL");
  EXPECT_EQ(info->columns[4].physical_type, "INT96");
  for (size_t i = 0; i < columns.size(); ++i) EXPECT_EQ(info->columns[i].field_id, columns[i].field_id);

  auto reader = ParquetFileReader::Open(db, path, columns);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto rows = (*reader)->ReadAll();
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ((*rows)[0], row);
}

// lz4 is the one codec Tide's encoder lacks: such files go through DuckDB and keep its gaps.
TEST(ParquetWriterTest, Lz4FilesGoThroughDuckDbAndFollowPaimonAsFarAsItCan) {
  testing::TempDir dir;
  DuckDB db = OpenDb();
  std::string path = JoinPath(dir.path(), "data.parquet");
  ParquetWriteOptions lz4;
  lz4.compression = "lz4";
  auto writer = ParquetFileWriter::Create(db, path, AllTypes(), lz4);
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->AppendRows(AllTypesRows()).ok());
  ASSERT_TRUE((*writer)->Finish().ok());

  auto conn = db.Connect();
  ASSERT_TRUE(conn.ok());
  auto info = ReadParquetFileInfo(path);
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  auto column = [&](const std::string& name) -> const ParquetFileColumn& {
    const ParquetFileColumn* c = info->FindColumn(name, std::nullopt);
    EXPECT_NE(c, nullptr) << name;
    static ParquetFileColumn none;
    return c ? *c : none;
  };
  // Top-level field ids are the Paimon field ids.
  for (const ParquetColumnSpec& spec : AllTypes()) EXPECT_EQ(column(spec.name).field_id, spec.field_id) << spec.name;
  EXPECT_EQ(column("i8").converted_type, "INT_8");
  EXPECT_EQ(column("i16").converted_type, "INT_16");
  EXPECT_EQ(column("dec9").physical_type, "INT32");
  EXPECT_EQ(column("dec18").physical_type, "INT64");
  EXPECT_EQ(column("dec38").physical_type, "FIXED_LEN_BYTE_ARRAY");
  EXPECT_EQ(column("dec38").precision, 38);
  EXPECT_EQ(column("dec38").scale, 10);
  EXPECT_EQ(column("s").converted_type, "UTF8");
  EXPECT_EQ(column("bin").physical_type, "BYTE_ARRAY");
  EXPECT_EQ(column("bin").converted_type, "");
  EXPECT_EQ(column("d").converted_type, "DATE");
  EXPECT_EQ(column("t").physical_type, "INT32");
  EXPECT_EQ(column("ts3").converted_type, "TIMESTAMP_MILLIS");
  EXPECT_EQ(column("ts6").converted_type, "TIMESTAMP_MICROS");
  EXPECT_EQ(column("ts9").physical_type, "INT64");
  EXPECT_EQ(column("ts9").logical_type, "TIMESTAMP(NANOS,UTC=false)");
  EXPECT_EQ(column("ltz6").logical_type, "TIMESTAMP(MICROS,UTC=true)");
  EXPECT_EQ(column("ltz3").logical_type, "TIMESTAMP(MILLIS,UTC=false)");
  EXPECT_EQ(info->root_name, "duckdb_schema");
  EXPECT_EQ(column("ltz3").converted_type, "TIMESTAMP_MILLIS");

  // Nested parts carry Paimon's derived ids (PAIMON_FORMAT.md §6.2).
  const ParquetFileColumn& arr2 = column("arr2");
  ASSERT_EQ(arr2.children.size(), 1u);
  ASSERT_EQ(arr2.children[0].children.size(), 1u);
  const ParquetFileColumn& outer_element = arr2.children[0].children[0];
  EXPECT_EQ(outer_element.field_id, ArrayElementFieldId(21, 1));
  ASSERT_EQ(outer_element.children.size(), 1u);
  ASSERT_EQ(outer_element.children[0].children.size(), 1u);
  EXPECT_EQ(outer_element.children[0].children[0].field_id, ArrayElementFieldId(21, 2));
  const ParquetFileColumn& m = column("m");
  ASSERT_EQ(m.children.size(), 1u);
  ASSERT_EQ(m.children[0].children.size(), 2u);
  EXPECT_EQ(m.children[0].children[0].field_id, MapKeyFieldId(22, 1));
  EXPECT_EQ(m.children[0].children[0].repetition, "REQUIRED");
  EXPECT_EQ(m.children[0].children[1].field_id, MapValueFieldId(22, 1));
  const ParquetFileColumn& ms = column("ms");
  ASSERT_EQ(ms.children.size(), 1u);
  ASSERT_EQ(ms.children[0].children.size(), 2u);
  EXPECT_EQ(ms.children[0].children[1].physical_type, "INT32");
  const ParquetFileColumn& r = column("r");
  ASSERT_EQ(r.children.size(), 3u);
  EXPECT_EQ(r.children[0].field_id, 31);
  EXPECT_EQ(r.children[1].field_id, 32);
  ASSERT_EQ(r.children[1].children.size(), 1u);
  ASSERT_EQ(r.children[1].children[0].children.size(), 1u);
  EXPECT_EQ(r.children[1].children[0].children[0].field_id, ArrayElementFieldId(32, 1));
  const ParquetFileColumn& c = r.children[2];
  EXPECT_EQ(c.field_id, 33);
  ASSERT_EQ(c.children.size(), 1u);
  ASSERT_EQ(c.children[0].children.size(), 2u);
  EXPECT_EQ(c.children[0].children[0].field_id, MapKeyFieldId(33, 1));
  const ParquetFileColumn& value_row = c.children[0].children[1];
  EXPECT_EQ(value_row.field_id, MapValueFieldId(33, 1));
  ASSERT_EQ(value_row.children.size(), 1u);
  EXPECT_EQ(value_row.children[0].field_id, 34);

  auto codecs = conn->Query("SELECT DISTINCT compression FROM parquet_metadata(" + QuoteSqlString(path) + ")");
  ASSERT_TRUE(codecs.ok()) << codecs.status().ToString();
  DuckDataChunk chunk = codecs->FetchChunk();
  ASSERT_TRUE(chunk);
  ASSERT_EQ(chunk.size(), 1u);
  auto* s = static_cast<duckdb_string_t*>(duckdb_vector_get_data(chunk.column(0)));
  EXPECT_EQ(std::string(duckdb_string_t_data(s), duckdb_string_t_length(*s)), "LZ4_RAW");

  // The values read back as written.
  auto reader = ParquetFileReader::Open(db, path, AllTypes());
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto back = reader.ok() ? (*reader)->ReadAll() : Result<std::vector<Row>>(Status::Internal("no reader"));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->size(), AllTypesRows().size());
}

TEST(ParquetWriterTest, NestedFilesHaveJavasSchema) {
  testing::TempDir dir;
  DuckDB db = OpenDb();
  std::string path = JoinPath(dir.path(), "nested.parquet");
  auto writer = ParquetFileWriter::Create(db, path, AllTypes());
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->AppendRows(AllTypesRows()).ok());
  ASSERT_TRUE((*writer)->Finish().ok());
  auto info = ReadParquetFileInfo(path);
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(info->root_name, "paimon_schema");
  auto column = [&](const std::string& name) -> const ParquetFileColumn& {
    const ParquetFileColumn* c = info->FindColumn(name, std::nullopt);
    EXPECT_NE(c, nullptr) << name;
    static ParquetFileColumn none;
    return c ? *c : none;
  };
  for (const ParquetColumnSpec& spec : AllTypes()) EXPECT_EQ(column(spec.name).field_id, spec.field_id) << spec.name;
  EXPECT_EQ(column("ts9").physical_type, "INT96");
  EXPECT_EQ(column("ltz3").logical_type, "TIMESTAMP(MILLIS,UTC=true)");
  EXPECT_EQ(column("dec38").type_length, 16);
  EXPECT_EQ(column("t").logical_type, "TIME(MILLIS,UTC=true)");

  // ARRAY<ARRAY<STRING>>: 3-level lists; ids on the elements (derived by depth), none on `list`.
  const ParquetFileColumn& arr2 = column("arr2");
  EXPECT_EQ(arr2.converted_type, "LIST");
  EXPECT_EQ(arr2.logical_type, "LIST");
  EXPECT_EQ(arr2.repetition, "OPTIONAL");
  ASSERT_EQ(arr2.children.size(), 1u);
  const ParquetFileColumn& list = arr2.children[0];
  EXPECT_EQ(list.name, "list");
  EXPECT_EQ(list.repetition, "REPEATED");
  EXPECT_FALSE(list.field_id.has_value());
  ASSERT_EQ(list.children.size(), 1u);
  const ParquetFileColumn& outer_element = list.children[0];
  EXPECT_EQ(outer_element.name, "element");
  EXPECT_EQ(outer_element.field_id, ArrayElementFieldId(21, 1));
  ASSERT_EQ(outer_element.children.size(), 1u);
  ASSERT_EQ(outer_element.children[0].children.size(), 1u);
  const ParquetFileColumn& inner_element = outer_element.children[0].children[0];
  EXPECT_EQ(inner_element.field_id, ArrayElementFieldId(21, 2));
  EXPECT_EQ(inner_element.physical_type, "BYTE_ARRAY");
  EXPECT_EQ(inner_element.logical_type, "STRING");

  // MAP<STRING NOT NULL, BIGINT>: key_value with MAP_KEY_VALUE and no id, a REQUIRED key.
  const ParquetFileColumn& m = column("m");
  EXPECT_EQ(m.converted_type, "MAP");
  EXPECT_EQ(m.logical_type, "MAP");
  ASSERT_EQ(m.children.size(), 1u);
  EXPECT_EQ(m.children[0].name, "key_value");
  EXPECT_EQ(m.children[0].repetition, "REPEATED");
  EXPECT_EQ(m.children[0].converted_type, "MAP_KEY_VALUE");
  EXPECT_FALSE(m.children[0].field_id.has_value());
  ASSERT_EQ(m.children[0].children.size(), 2u);
  EXPECT_EQ(m.children[0].children[0].name, "key");
  EXPECT_EQ(m.children[0].children[0].field_id, MapKeyFieldId(22, 1));
  EXPECT_EQ(m.children[0].children[0].repetition, "REQUIRED");
  EXPECT_EQ(m.children[0].children[1].name, "value");
  EXPECT_EQ(m.children[0].children[1].field_id, MapValueFieldId(22, 1));
  EXPECT_EQ(m.children[0].children[1].repetition, "OPTIONAL");

  // MULTISET<STRING>: a map of the elements (REQUIRED) to REQUIRED INT32 counts.
  const ParquetFileColumn& ms = column("ms");
  ASSERT_EQ(ms.children.size(), 1u);
  ASSERT_EQ(ms.children[0].children.size(), 2u);
  EXPECT_EQ(ms.children[0].children[0].repetition, "REQUIRED");
  EXPECT_EQ(ms.children[0].children[1].physical_type, "INT32");
  EXPECT_EQ(ms.children[0].children[1].repetition, "REQUIRED");

  // ROW: a plain group; fields carry their own ids and restart the depth.
  const ParquetFileColumn& r = column("r");
  EXPECT_EQ(r.converted_type, "");
  EXPECT_EQ(r.logical_type, "");
  ASSERT_EQ(r.children.size(), 3u);
  EXPECT_EQ(r.children[0].field_id, 31);
  EXPECT_EQ(r.children[0].repetition, "REQUIRED");
  ASSERT_EQ(r.children[1].children.size(), 1u);
  ASSERT_EQ(r.children[1].children[0].children.size(), 1u);
  EXPECT_EQ(r.children[1].children[0].children[0].field_id, ArrayElementFieldId(32, 1));
  EXPECT_EQ(r.children[1].children[0].children[0].type_length, 9);  // DECIMAL(20, 2)
  const ParquetFileColumn& c = r.children[2];
  EXPECT_EQ(c.field_id, 33);
  ASSERT_EQ(c.children.size(), 1u);
  ASSERT_EQ(c.children[0].children.size(), 2u);
  EXPECT_EQ(c.children[0].children[0].field_id, MapKeyFieldId(33, 1));
  const ParquetFileColumn& value_row = c.children[0].children[1];
  EXPECT_EQ(value_row.field_id, MapValueFieldId(33, 1));
  ASSERT_EQ(value_row.children.size(), 1u);
  EXPECT_EQ(value_row.children[0].field_id, 34);

  // DuckDB reads the same tree (the footer parser is cross-checked against parquet_schema()).
  auto conn = db.Connect();
  ASSERT_TRUE(conn.ok());
  auto duck = ReadParquetFileInfoWithDuckDB(*conn, path);
  ASSERT_TRUE(duck.ok()) << duck.status().ToString();
  std::function<void(const std::vector<ParquetFileColumn>&, const std::vector<ParquetFileColumn>&)> same =
      [&](const std::vector<ParquetFileColumn>& a, const std::vector<ParquetFileColumn>& b) {
        ASSERT_EQ(a.size(), b.size());
        for (size_t i = 0; i < a.size(); ++i) {
          EXPECT_EQ(a[i].name, b[i].name);
          EXPECT_EQ(a[i].field_id, b[i].field_id) << a[i].name;
          EXPECT_EQ(a[i].physical_type, b[i].physical_type) << a[i].name;
          EXPECT_EQ(a[i].converted_type, b[i].converted_type) << a[i].name;
          same(a[i].children, b[i].children);
        }
      };
  same(info->columns, duck->columns);
}

TEST(ParquetWriterTest, ManyRowsKeepTheirOrderAcrossRowGroups) {
  testing::TempDir dir;
  DuckDB db = OpenDb();
  std::string path = JoinPath(dir.path(), "sorted.parquet");
  ParquetWriteOptions options;
  options.row_group_rows = 3000;
  std::vector<ParquetColumnSpec> columns = {{"_KEY_k", kKeyFieldIdStart + 1, DataType::BigInt(false)},
                                            {"_SEQUENCE_NUMBER", kSequenceNumberFieldId, DataType::BigInt(false)},
                                            {"_VALUE_KIND", kValueKindFieldId, DataType::TinyInt(false)},
                                            {"k", 1, DataType::BigInt(false)},
                                            {"v", 2, DataType::String()}};
  auto writer = ParquetFileWriter::Create(db, path, columns, options);
  ASSERT_TRUE(writer.ok());
  const int64_t n = 20000;
  for (int64_t i = 0; i < n; ++i) {
    Row row = {Datum(i * 3), Datum(i), Datum(int64_t{i % 4}), Datum(i * 3),
               i % 7 == 0 ? Datum() : Datum("value-" + std::to_string(i))};
    ASSERT_TRUE((*writer)->Append(row).ok());
  }
  EXPECT_EQ((*writer)->row_count(), n);
  auto written = (*writer)->Finish();
  ASSERT_TRUE(written.ok()) << written.status().ToString();

  auto reader = ParquetFileReader::Open(db, path, columns);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_GT((*reader)->file_infos()[0].num_row_groups, 1);
  EXPECT_EQ((*reader)->file_infos()[0].num_rows, n);
  std::vector<int64_t> positions;
  auto rows = (*reader)->ReadAll(&positions);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(static_cast<int64_t>(rows->size()), n);
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(positions[i], i);
    ASSERT_EQ((*rows)[i][0], Datum(i * 3)) << i;
    ASSERT_EQ((*rows)[i][4], i % 7 == 0 ? Datum() : Datum("value-" + std::to_string(i))) << i;
  }
}

TEST(ParquetWriterTest, NeverReplacesAnExistingFile) {
  testing::TempDir dir;
  DuckDB db = OpenDb();
  std::string path = JoinPath(dir.path(), "data.parquet");
  std::vector<ParquetColumnSpec> columns = {{"a", 0, DataType::Int()}};
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto writer = ParquetFileWriter::Create(db, path, columns);
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE((*writer)->Append({Datum(int64_t{attempt})}).ok());
    auto written = (*writer)->Finish();
    if (attempt == 0) {
      ASSERT_TRUE(written.ok()) << written.status().ToString();
    } else {
      ASSERT_FALSE(written.ok());
      EXPECT_TRUE(written.status().IsAlreadyExists()) << written.status().ToString();
    }
  }
  auto reader = ParquetFileReader::Open(db, path, columns);
  ASSERT_TRUE(reader.ok());
  auto rows = (*reader)->ReadAll();
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ((*rows)[0][0], Datum(int64_t{0}));
  // No temporary file is left beside it.
  auto entries = FileSystem::Local()->ListDir(dir.path());
  ASSERT_TRUE(entries.ok());
  EXPECT_EQ(entries->size(), 1u);
}

TEST(ParquetWriterTest, RejectsValuesThatDoNotFitAndStaysUsable) {
  testing::TempDir dir;
  DuckDB db = OpenDb();
  std::string path = JoinPath(dir.path(), "data.parquet");
  std::vector<ParquetColumnSpec> columns = {{"n", 0, DataType::SmallInt()},
                                            {"amount", 1, DataType::Decimal(5, 2)},
                                            {"at", 2, DataType::Timestamp(9)},
                                            {"m", 3, DataType::Map(DataType::String(), DataType::Int())}};
  auto writer = ParquetFileWriter::Create(db, path, columns);
  ASSERT_TRUE(writer.ok());
  auto expect_rejected = [&](Row row, const std::string& column) {
    Status st = (*writer)->Append(row);
    ASSERT_FALSE(st.ok()) << column;
    EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString();
    EXPECT_NE(st.message().find(column), std::string::npos) << st.ToString();
  };
  expect_rejected({Datum(int64_t{40000}), Datum(), Datum(), Datum()}, "n");
  expect_rejected({Datum("text"), Datum(), Datum(), Datum()}, "n");
  expect_rejected({Datum(), Dec("1234.5", 6, 2), Datum(), Datum()}, "amount");
  expect_rejected({Datum(), Datum(), Datum("2300-01-01 00:00:00"), Datum()}, "at");
  expect_rejected({Datum(), Datum(), Datum(), N({Datum(), Datum(int64_t{1})})}, "m");
  expect_rejected({Datum()}, "4 columns");  // wrong width
  ASSERT_TRUE((*writer)->Append({Datum(int64_t{1}), Dec("999.99", 5, 2), Datum(Ts("2262-01-01 00:00:00.5")),
                                 N({"k", Datum(int64_t{2})})})
                  .ok());
  auto written = (*writer)->Finish();
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  EXPECT_EQ(written->row_count, 1);
  auto reader = ParquetFileReader::Open(db, path, columns);
  ASSERT_TRUE(reader.ok());
  auto rows = (*reader)->ReadAll();
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ((*rows)[0][1], Dec("999.99", 5, 2));
  EXPECT_FALSE((*writer)->Append({Datum(), Datum(), Datum(), Datum()}).ok());
}

TEST(ParquetWriterTest, ReaderConvertsWrittenTypesTheWayPaimonEvolvesThem) {
  testing::TempDir dir;
  DuckDB db = OpenDb();
  std::string path = JoinPath(dir.path(), "data.parquet");
  std::vector<ParquetColumnSpec> written = {{"a", 0, DataType::Int()},
                                            {"price", 1, DataType::Decimal(10, 2)},
                                            {"at", 2, DataType::Timestamp(6)},
                                            {"x", 3, DataType::Float()}};
  auto writer = ParquetFileWriter::Create(db, path, written);
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->Append({Datum(int64_t{-5}), Dec("12.35", 10, 2), Datum(Ts("2024-01-02 03:04:05.678901")),
                                 Datum(1.5f)})
                  .ok());
  ASSERT_TRUE((*writer)->Finish().ok());
  // Later schema: INT widened to BIGINT, DECIMAL(10, 2) to DECIMAL(12, 4) and back down to scale 1, the
  // timestamp read at precision 3, FLOAT as DOUBLE.
  auto reader = ParquetFileReader::Open(db, path,
                                        {{"a", 0, DataType::BigInt()},
                                         {"price", 1, DataType::Decimal(12, 4)},
                                         {"price", 1, DataType::Decimal(10, 1)},
                                         {"at", 2, DataType::Timestamp(3)},
                                         {"x", 3, DataType::Double()}});
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto rows = (*reader)->ReadAll();
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ((*rows)[0], (Row{Datum(int64_t{-5}), Dec("12.3500", 12, 4), Dec("12.4", 10, 1),
                             Datum(Ts("2024-01-02 03:04:05.678")), Datum(1.5)}));
}

TEST(ParquetWriterTest, NamesThatDifferOnlyInCase) {
  testing::TempDir dir;
  DuckDB db = OpenDb();
  // Tide's encoder writes both columns, as Java does; readers tell them apart by field id.
  std::vector<ParquetColumnSpec> flat = {{"Amount", 1, DataType::Int()}, {"amount", 2, DataType::Int()}};
  std::string flat_path = JoinPath(dir.path(), "flat.parquet");
  auto flat_writer = ParquetFileWriter::Create(db, flat_path, flat);
  ASSERT_TRUE(flat_writer.ok()) << flat_writer.status().ToString();
  ASSERT_TRUE((*flat_writer)->Append({Datum(int64_t{1}), Datum(int64_t{2})}).ok());
  ASSERT_TRUE((*flat_writer)->Finish().ok());
  auto info = ReadParquetFileInfo(flat_path);
  ASSERT_TRUE(info.ok());
  ASSERT_EQ(info->columns.size(), 2u);
  EXPECT_EQ(info->columns[0].name, "Amount");
  EXPECT_EQ(info->columns[1].name, "amount");

  // On DuckDB's path (lz4) DuckDB would rename the second ("amount_1"): refused up front.
  ParquetWriteOptions lz4;
  lz4.compression = "lz4";
  auto writer = ParquetFileWriter::Create(db, JoinPath(dir.path(), "case.parquet"), flat, lz4);
  ASSERT_FALSE(writer.ok());
  EXPECT_TRUE(writer.status().IsNotSupported()) << writer.status().ToString();

  // A file (written by another tool) with a real column named file_index would shadow DuckDB's virtual
  // column of that name: the reader refuses it instead of returning data as positions.
  std::string path = JoinPath(dir.path(), "shadow.parquet");
  auto conn = db.Connect();
  ASSERT_TRUE(conn.ok());
  ASSERT_TRUE(conn->Execute("COPY (SELECT 7 AS file_index, 1 AS x) TO " + QuoteSqlString(path) + " (FORMAT parquet)").ok());
  auto reader = ParquetFileReader::Open(db, path, {{"x", std::nullopt, DataType::Int()}});
  ASSERT_FALSE(reader.ok());
  EXPECT_TRUE(reader.status().IsNotSupported()) << reader.status().ToString();
}

}  // namespace
}  // namespace tide
