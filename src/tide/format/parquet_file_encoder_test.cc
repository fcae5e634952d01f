// Tide's own Parquet encoder: the level encoding's bytes, Java Paimon's physical schema for every scalar
// type (checked with Tide's footer parser and with DuckDB's parquet_schema()), every scalar type with edge
// values read back through ParquetFileReader (DuckDB, and Tide's exact INT96 decoder) under every codec,
// REQUIRED columns and their refusal of NULL, several row groups and pages, and the Statistics DuckDB
// reads from the footer (parquet_metadata()).
#include "tide/format/format_test_values.h"
#include "tide/format/parquet_file_encoder.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <random>

#include "testing/temp_dir.h"
#include "tide/format/parquet_footer.h"
#include "tide/format/parquet_int96.h"
#include "tide/format/parquet_level_encoder.h"
#include "tide/format/parquet_metadata.h"
#include "tide/format/parquet_reader.h"
#include "tide/format/parquet_schema_builder.h"
#include "tide/format/thrift_compact.h"
#include "tide/io/file_system.h"
#include "tide/types/table_schema.h"

namespace tide {
namespace {

using testing::Ts;
using testing::Dec;
using testing::Days;
using testing::N;
DuckDB OpenDb() { return testing::OpenTestDb(); }

// Encodes `rows` and writes the file to `path`.
void WriteFile(const std::string& path, const std::vector<ParquetColumnSpec>& columns, const std::vector<Row>& rows,
               ParquetEncoderOptions options = {}) {
  auto encoder = ParquetFileEncoder::Create(columns, options);
  ASSERT_TRUE(encoder.ok()) << encoder.status().ToString();
  for (const Row& row : rows) {
    Status st = (*encoder)->Append(row);
    ASSERT_TRUE(st.ok()) << st.ToString();
  }
  auto bytes = (*encoder)->Finish();
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  std::ofstream(path, std::ios::binary).write(bytes->data(), static_cast<std::streamsize>(bytes->size()));
}

// Rows of a query, every value as text (nullopt for NULL).
std::vector<std::vector<std::optional<std::string>>> QueryText(DuckDB& db, const std::string& sql) {
  std::vector<std::vector<std::optional<std::string>>> out;
  auto conn = db.Connect();
  EXPECT_TRUE(conn.ok());
  if (!conn.ok()) return out;
  auto result = conn->Query(sql);
  EXPECT_TRUE(result.ok()) << sql << ": " << result.status().ToString();
  if (!result.ok()) return out;
  while (true) {
    DuckDataChunk chunk = result->FetchChunk();
    if (!chunk || chunk.size() == 0) break;
    for (idx_t r = 0; r < chunk.size(); ++r) {
      std::vector<std::optional<std::string>> row;
      for (idx_t c = 0; c < chunk.column_count(); ++c) {
        duckdb_vector v = chunk.column(c);
        uint64_t* validity = duckdb_vector_get_validity(v);
        if (validity != nullptr && !duckdb_validity_row_is_valid(validity, r)) {
          row.push_back(std::nullopt);
          continue;
        }
        auto* s = static_cast<duckdb_string_t*>(duckdb_vector_get_data(v)) + r;
        row.push_back(std::string(duckdb_string_t_data(s), duckdb_string_t_length(*s)));
      }
      out.push_back(std::move(row));
    }
  }
  return out;
}

// ---- level encoding -----------------------------------------------------------------------------------

TEST(ParquetLevelEncoderTest, RunsAndBitPackedGroups) {
  std::string out;
  std::vector<uint16_t> ones(10, 1);
  AppendRleBitPackedHybrid(ones, 1, &out);
  EXPECT_EQ(out, std::string("\x14\x01", 2));  // RLE run: header 10 << 1, value in one byte

  out.clear();
  std::vector<uint16_t> alternating = {1, 0, 1, 0, 1, 0, 1, 0, 1};
  AppendRleBitPackedHybrid(alternating, 1, &out);
  // Two bit-packed groups (header 2 << 1 | 1), LSB first; the second group padded with zeros.
  EXPECT_EQ(out, std::string("\x05\x55\x01", 3));

  out.clear();
  std::vector<uint16_t> mixed = {0, 1, 2, 3, 0, 1, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3};
  AppendRleBitPackedHybrid(mixed, 2, &out);
  // One bit-packed group of eight 2-bit values (0b11100100 twice), then a run of thirteen 3s.
  EXPECT_EQ(out, std::string("\x03\xe4\xe4\x1a\x03", 5));

  EXPECT_EQ(ParquetLevelBitWidth(0), 0);
  EXPECT_EQ(ParquetLevelBitWidth(1), 1);
  EXPECT_EQ(ParquetLevelBitWidth(2), 2);
  EXPECT_EQ(ParquetLevelBitWidth(3), 2);
  EXPECT_EQ(ParquetLevelBitWidth(4), 3);
}

// ---- schema -------------------------------------------------------------------------------------------

TEST(ParquetSchemaBuilderTest, DecimalLengthsAreJavasMinimalOnes) {
  // The fewest bytes whose signed range holds 10^p - 1.
  EXPECT_EQ(DecimalFixedLength(19), 9);
  EXPECT_EQ(DecimalFixedLength(21), 9);
  EXPECT_EQ(DecimalFixedLength(22), 10);
  EXPECT_EQ(DecimalFixedLength(23), 10);  // append_complex_data's DECIMAL(23, 5) in Java's file
  EXPECT_EQ(DecimalFixedLength(28), 12);
  EXPECT_EQ(DecimalFixedLength(38), 16);
}

std::vector<ParquetColumnSpec> ScalarColumns() {
  return {
      {"b", 1, DataType::Boolean()},
      {"i8", 2, DataType::TinyInt()},
      {"i16", 3, DataType::SmallInt(false)},
      {"i32", 4, DataType::Int()},
      {"i64", 5, DataType::BigInt(false)},
      {"f32", 6, DataType::Float()},
      {"f64", 7, DataType::Double()},
      {"dec9", 8, DataType::Decimal(9, 2)},
      {"dec18", 9, DataType::Decimal(18, 4)},
      {"dec20", 10, DataType::Decimal(20, 0)},
      {"dec38", 11, DataType::Decimal(38, 10)},
      {"s", 12, DataType::String()},
      {"ch", 13, DataType::Char(5, false)},
      {"bin", 14, DataType::Bytes()},
      {"d", 15, DataType::Date()},
      {"t", 16, DataType::Time(3)},
      {"ts0", 17, DataType::Timestamp(0)},
      {"ts3", 18, DataType::Timestamp(3)},
      {"ts6", 19, DataType::Timestamp(6)},
      {"ts9", 20, DataType::Timestamp(9)},
      {"ltz3", 21, DataType::TimestampLtz(3)},
      {"ltz6", 22, DataType::TimestampLtz(6)},
      {"ltz9", 23, DataType::TimestampLtz(9, false)},
  };
}

TEST(ParquetSchemaBuilderTest, EveryScalarTypeHasJavasPhysicalSchema) {
  testing::TempDir dir;
  std::string path = JoinPath(dir.path(), "schema.parquet");
  WriteFile(path, ScalarColumns(), {});
  auto info = ReadParquetFileInfo(path);
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(info->root_name, "paimon_schema");
  EXPECT_EQ(info->num_rows, 0);
  EXPECT_EQ(info->created_by, kTideParquetCreatedBy);
  // name: physical, type_length, repetition, converted, logical, precision/scale (Java's
  // ParquetSchemaConverter of Paimon 1.x, as its fixture files hold them).
  struct Expect {
    const char* physical;
    int length;  // 0: none
    const char* repetition;
    const char* converted;
    const char* logical;
  };
  const std::map<std::string, Expect> expected = {
      {"b", {"BOOLEAN", 0, "OPTIONAL", "", ""}},
      {"i8", {"INT32", 0, "OPTIONAL", "INT_8", "INT(8,signed)"}},
      {"i16", {"INT32", 0, "REQUIRED", "INT_16", "INT(16,signed)"}},
      {"i32", {"INT32", 0, "OPTIONAL", "", ""}},
      {"i64", {"INT64", 0, "REQUIRED", "", ""}},
      {"f32", {"FLOAT", 0, "OPTIONAL", "", ""}},
      {"f64", {"DOUBLE", 0, "OPTIONAL", "", ""}},
      {"dec9", {"INT32", 0, "OPTIONAL", "DECIMAL", "DECIMAL(9,2)"}},
      {"dec18", {"INT64", 0, "OPTIONAL", "DECIMAL", "DECIMAL(18,4)"}},
      {"dec20", {"FIXED_LEN_BYTE_ARRAY", 9, "OPTIONAL", "DECIMAL", "DECIMAL(20,0)"}},
      {"dec38", {"FIXED_LEN_BYTE_ARRAY", 16, "OPTIONAL", "DECIMAL", "DECIMAL(38,10)"}},
      {"s", {"BYTE_ARRAY", 0, "OPTIONAL", "UTF8", "STRING"}},
      {"ch", {"BYTE_ARRAY", 0, "REQUIRED", "UTF8", "STRING"}},
      {"bin", {"BYTE_ARRAY", 0, "OPTIONAL", "", ""}},
      {"d", {"INT32", 0, "OPTIONAL", "DATE", "DATE"}},
      {"t", {"INT32", 0, "OPTIONAL", "TIME_MILLIS", "TIME(MILLIS,UTC=true)"}},
      {"ts0", {"INT64", 0, "OPTIONAL", "TIMESTAMP_MILLIS", "TIMESTAMP(MILLIS,UTC=false)"}},
      {"ts3", {"INT64", 0, "OPTIONAL", "TIMESTAMP_MILLIS", "TIMESTAMP(MILLIS,UTC=false)"}},
      {"ts6", {"INT64", 0, "OPTIONAL", "TIMESTAMP_MICROS", "TIMESTAMP(MICROS,UTC=false)"}},
      {"ts9", {"INT96", 0, "OPTIONAL", "", ""}},
      {"ltz3", {"INT64", 0, "OPTIONAL", "TIMESTAMP_MILLIS", "TIMESTAMP(MILLIS,UTC=true)"}},
      {"ltz6", {"INT64", 0, "OPTIONAL", "TIMESTAMP_MICROS", "TIMESTAMP(MICROS,UTC=true)"}},
      {"ltz9", {"INT96", 0, "REQUIRED", "", ""}},
  };
  const std::vector<ParquetColumnSpec> columns = ScalarColumns();
  ASSERT_EQ(info->columns.size(), columns.size());
  for (size_t i = 0; i < columns.size(); ++i) {
    const ParquetFileColumn& c = info->columns[i];
    const Expect& e = expected.at(columns[i].name);
    SCOPED_TRACE(columns[i].name);
    EXPECT_EQ(c.name, columns[i].name);
    EXPECT_EQ(c.field_id, columns[i].field_id);
    EXPECT_EQ(c.physical_type, e.physical);
    EXPECT_EQ(c.type_length, e.length ? std::optional<int32_t>(e.length) : std::nullopt);
    EXPECT_EQ(c.repetition, e.repetition);
    EXPECT_EQ(c.converted_type, e.converted);
    EXPECT_EQ(c.logical_type, e.logical);
    if (columns[i].type.root() == TypeRoot::kDecimal) {
      EXPECT_EQ(c.precision, columns[i].type.precision());
      EXPECT_EQ(c.scale, columns[i].type.scale());
    } else {
      EXPECT_FALSE(c.precision.has_value());
      EXPECT_FALSE(c.scale.has_value());
    }
    EXPECT_TRUE(c.children.empty());
  }

  // DuckDB reads the same schema, with the types a reader maps it to.
  DuckDB db = OpenDb();
  auto conn = db.Connect();
  ASSERT_TRUE(conn.ok());
  auto duck = ReadParquetFileInfoWithDuckDB(*conn, path);
  ASSERT_TRUE(duck.ok()) << duck.status().ToString();
  ASSERT_EQ(duck->columns.size(), columns.size());
  std::map<std::string, std::string> duck_types;
  for (const ParquetFileColumn& c : duck->columns) duck_types[c.name] = c.duckdb_type;
  EXPECT_EQ(duck_types["i8"], "TINYINT");
  EXPECT_EQ(duck_types["i16"], "SMALLINT");
  EXPECT_EQ(duck_types["dec20"], "DECIMAL(20,0)");
  EXPECT_EQ(duck_types["s"], "VARCHAR");
  EXPECT_EQ(duck_types["bin"], "BLOB");
  EXPECT_EQ(duck_types["d"], "DATE");
  EXPECT_EQ(duck_types["ts3"], "TIMESTAMP");
  EXPECT_EQ(duck_types["ltz6"], "TIMESTAMP WITH TIME ZONE");
  EXPECT_EQ(duck_types["ts9"], "TIMESTAMP");  // INT96, read by DuckDB at microseconds
}

TEST(ParquetSchemaBuilderTest, VariantColumnsAreNotEncoded) {
  std::vector<ParquetColumnSpec> nested = {{"a", 1, DataType::Int()},
                                           {"arr", 2, DataType::Array(DataType::Variant())}};
  EXPECT_FALSE(ParquetFileEncoder::CanEncode(nested));
  auto encoder = ParquetFileEncoder::Create(nested);
  ASSERT_FALSE(encoder.ok());
  EXPECT_TRUE(encoder.status().IsNotSupported()) << encoder.status().ToString();
  EXPECT_NE(encoder.status().message().find("arr"), std::string::npos);
  EXPECT_TRUE(ParquetFileEncoder::CanEncode(ScalarColumns()));
  EXPECT_TRUE(ParquetFileEncoder::CanEncode({{"m", 1, DataType::Map(DataType::Int(), DataType::Array(DataType::Int()))}}));
}

// ---- values -------------------------------------------------------------------------------------------

std::vector<Row> ScalarRows() {
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
      Dec("-9999999.99", 9, 2),
      Dec("-99999999999999.9999", 18, 4),
      Dec("-99999999999999999999", 20, 0),
      Dec("-9999999999999999999999999999.9999999999", 38, 10),
      "",
      "",
      "",
      Days("0001-01-01"),
      Datum(int64_t{0}),
      Datum(Ts("0001-01-01 00:00:00")),
      Datum(Ts("1969-12-31 23:59:59.999")),
      Datum(Ts("0001-01-01 00:00:00.000001")),
      Datum(Ts("0001-01-01 00:00:00.000000001")),
      Datum(Ts("1899-12-31 23:59:59.999")),
      Datum(Ts("1969-12-31 23:59:59.999999")),
      Datum(Ts("1969-12-31 23:59:59.999999999")),
  };
  Row high = {
      true,
      Datum(int64_t{127}),
      Datum(int64_t{32767}),
      Datum(int64_t{std::numeric_limits<int32_t>::max()}),
      Datum(std::numeric_limits<int64_t>::max()),
      Datum(std::numeric_limits<float>::denorm_min()),
      Datum(std::numeric_limits<double>::max()),
      Dec("9999999.99", 9, 2),
      Dec("99999999999999.9999", 18, 4),
      Dec("99999999999999999999", 20, 0),
      Dec("9999999999999999999999999999.9999999999", 38, 10),
      std::string("h\xc3\xa9llo \xe2\x9c\x93 \xf0\x9f\x8c\x8a", 15),
      "abcde",
      all_bytes,
      Days("9999-12-31"),
      Datum(int64_t{86399999}),
      Datum(Ts("9999-12-31 23:59:59")),
      Datum(Ts("9999-12-31 23:59:59.999")),
      Datum(Ts("9999-12-31 23:59:59.999999")),
      Datum(Ts("9999-12-31 23:59:59.999999999")),
      Datum(Ts("2262-04-11 23:47:16.854")),
      Datum(Ts("2500-01-01 00:00:00.000001")),
      Datum(Ts("1500-06-15 12:00:00.000000001")),
  };
  // NULL wherever a column is nullable.
  Row nulls(ScalarColumns().size());
  nulls[2] = Datum(int64_t{0});
  nulls[4] = Datum(int64_t{0});
  nulls[12] = "x";
  nulls[22] = Datum(Ts("1970-01-01 00:00:00"));
  Row specials = high;
  specials[5] = Datum(std::numeric_limits<float>::quiet_NaN());
  specials[6] = Datum(std::numeric_limits<double>::quiet_NaN());
  specials[11] = std::string("nul\0inside", 10);
  specials[13] = std::string(100000, 'q');  // a long value: larger than a statistics bound is kept
  specials[10] = Dec("-0.0000000001", 38, 10);
  return {low, high, nulls, specials};
}

void ExpectRowsReadBack(const std::string& path, const std::vector<ParquetColumnSpec>& columns,
                        const std::vector<Row>& rows) {
  DuckDB db = OpenDb();
  auto reader = ParquetFileReader::Open(db, path, columns);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_TRUE((*reader)->missing_columns().empty());
  auto back = (*reader)->ReadAll();
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->size(), rows.size());
  for (size_t r = 0; r < rows.size(); ++r) {
    for (size_t c = 0; c < columns.size(); ++c) {
      EXPECT_EQ((*back)[r][c], rows[r][c]) << "row " << r << " column " << columns[c].name << ": got "
                                           << DatumToString((*back)[r][c], columns[c].type) << ", wrote "
                                           << DatumToString(rows[r][c], columns[c].type);
    }
  }
}

TEST(ParquetFileEncoderTest, EveryScalarTypeRoundTripsUnderEveryCodec) {
  for (ParquetCodec codec : {ParquetCodec::kZstd, ParquetCodec::kSnappy, ParquetCodec::kGzip,
                             ParquetCodec::kUncompressed}) {
    SCOPED_TRACE("codec " + std::to_string(static_cast<int>(codec)));
    testing::TempDir dir;
    std::string path = JoinPath(dir.path(), "scalars.parquet");
    ParquetEncoderOptions options;
    options.codec = codec;
    WriteFile(path, ScalarColumns(), ScalarRows(), options);
    ExpectRowsReadBack(path, ScalarColumns(), ScalarRows());
  }
}

TEST(ParquetFileEncoderTest, Int96IsJavasEncoding) {
  // Java: Julian day = millis / 86400000 + 2440588 and nanos of day = millis % 86400000 * 10^6 + nanos,
  // with truncating division: before 1970 the nanosecond part is negative.
  struct Case {
    const char* text;
    int64_t nanos_of_day;
    int32_t julian_day;
  };
  const Case cases[] = {
      {"1970-01-01 00:00:00", 0, 2440588},
      {"1970-01-02 00:00:00.000000001", 1, 2440589},
      {"1969-12-31 23:59:59.999999999", -1, 2440588},
      {"1969-12-31 00:00:00", 0, 2440587},
      {"1969-12-30 23:59:59.5", -500000000, 2440587},
      {"1900-01-01 00:00:00.000000007", 7, 2415021},
  };
  for (const Case& c : cases) {
    TimestampValue ts = Ts(c.text);
    char bytes[12];
    ASSERT_TRUE(EncodeInt96(ts, bytes)) << c.text;
    int64_t nanos;
    int32_t day;
    std::memcpy(&nanos, bytes, 8);
    std::memcpy(&day, bytes + 8, 4);
    EXPECT_EQ(day, c.julian_day) << c.text;
    EXPECT_EQ(nanos, c.nanos_of_day) << c.text;
    EXPECT_EQ(Int96ToTimestamp(nanos, day), ts) << c.text;
  }
}

TEST(ParquetFileEncoderTest, Int96ValuesOfJavasFixtureRoundTrip) {
  // Every INT96 value Java wrote in the fixture, written again by Tide and read back exactly.
  std::string fixture_dir = JoinPath(testing::JavaFixtureWarehouse(),
                                     "append_with_multiple_ts_precision_and_timezone.db/"
                                     "append_with_multiple_ts_precision_and_timezone/bucket-0");
  auto entries = FileSystem::Local()->ListDir(fixture_dir);
  ASSERT_TRUE(entries.ok()) << entries.status().ToString();
  int checked = 0;
  testing::TempDir dir;
  for (const FileInfo& entry : *entries) {
    if (entry.name.find(".parquet") == std::string::npos) continue;
    std::string java = JoinPath(fixture_dir, entry.name);
    for (const char* column : {"ts_nano", "ts_tz_nano"}) {
      auto values = ReadInt96Column(java, column);
      ASSERT_TRUE(values.ok()) << values.status().ToString();
      std::vector<Row> rows;
      for (size_t i = 0; i < values->size(); ++i) {
        rows.push_back({values->valid[i] ? Datum(values->values[i]) : Datum()});
      }
      std::vector<ParquetColumnSpec> columns = {{column, 1, DataType::Timestamp(9)}};
      std::string path = JoinPath(dir.path(), entry.name + "-" + column);
      WriteFile(path, columns, rows);
      auto again = ReadInt96Column(path, column);
      ASSERT_TRUE(again.ok()) << again.status().ToString();
      EXPECT_EQ(again->values, values->values);
      EXPECT_EQ(again->valid, values->valid);
      checked += static_cast<int>(values->size());
    }
  }
  EXPECT_GT(checked, 0);
}

TEST(ParquetFileEncoderTest, RequiredColumnsRefuseNullAndTheEncoderStaysUsable) {
  std::vector<ParquetColumnSpec> columns = {{"k", 1, DataType::BigInt(false)},
                                            {"name", 2, DataType::String(false)},
                                            {"n", 3, DataType::TinyInt()}};
  auto encoder = ParquetFileEncoder::Create(columns);
  ASSERT_TRUE(encoder.ok());
  ASSERT_TRUE((*encoder)->Append({Datum(int64_t{1}), "a", Datum()}).ok());
  auto expect_rejected = [&](Row row, const std::string& column) {
    Status st = (*encoder)->Append(row);
    ASSERT_FALSE(st.ok()) << column;
    EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString();
    EXPECT_NE(st.message().find("column " + column), std::string::npos) << st.ToString();
  };
  expect_rejected({Datum(int64_t{2}), Datum(), Datum(int64_t{1})}, "name");
  expect_rejected({Datum(), "b", Datum(int64_t{1})}, "k");
  expect_rejected({Datum(int64_t{2}), "b", Datum(int64_t{128})}, "n");  // the earlier values are not written
  expect_rejected({Datum(int64_t{2}), Datum(int64_t{5}), Datum()}, "name");
  ASSERT_TRUE((*encoder)->Append({Datum(int64_t{3}), "c", Datum(int64_t{-1})}).ok());
  EXPECT_EQ((*encoder)->row_count(), 2);
  auto bytes = (*encoder)->Finish();
  ASSERT_TRUE(bytes.ok());
  EXPECT_FALSE((*encoder)->Append({Datum(int64_t{4}), "d", Datum()}).ok());
  testing::TempDir dir;
  std::string path = JoinPath(dir.path(), "required.parquet");
  std::ofstream(path, std::ios::binary).write(bytes->data(), static_cast<std::streamsize>(bytes->size()));
  ExpectRowsReadBack(path, columns, {{Datum(int64_t{1}), "a", Datum()}, {Datum(int64_t{3}), "c", Datum(int64_t{-1})}});
}

TEST(ParquetFileEncoderTest, OutOfRangeValuesAreRefused) {
  std::vector<ParquetColumnSpec> columns = {{"dec", 1, DataType::Decimal(5, 2)},
                                            {"ts", 2, DataType::Timestamp(6)},
                                            {"d", 3, DataType::Date()},
                                            {"f", 4, DataType::Float()}};
  auto encoder = ParquetFileEncoder::Create(columns);
  ASSERT_TRUE(encoder.ok());
  auto rejected = [&](Row row, const std::string& column) {
    Status st = (*encoder)->Append(row);
    EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString();
    EXPECT_NE(st.message().find("column " + column), std::string::npos) << st.ToString();
  };
  rejected({Dec("1000.00", 6, 2), Datum(), Datum(), Datum()}, "dec");
  rejected({Datum(), Datum(TimestampValue{std::numeric_limits<int64_t>::max() / 10, 0}), Datum(), Datum()}, "ts");
  rejected({Datum(), Datum(), Datum(int64_t{1} << 40), Datum()}, "d");
  rejected({Datum(), Datum(), Datum(), Datum(1.5)}, "f");  // a double where a float belongs
  Status wrong_width = (*encoder)->Append({Datum()});
  EXPECT_TRUE(wrong_width.IsInvalidArgument()) << wrong_width.ToString();
  EXPECT_EQ((*encoder)->row_count(), 0);
}

// ---- row groups, pages and statistics -----------------------------------------------------------------

TEST(ParquetFileEncoderTest, RowGroupsPagesAndStatisticsAsDuckDbReadsThem) {
  std::vector<ParquetColumnSpec> columns = {{"k", 1, DataType::BigInt(false)},
                                            {"i", 2, DataType::Int()},
                                            {"s", 3, DataType::String()},
                                            {"dec", 4, DataType::Decimal(30, 2)},
                                            {"x", 5, DataType::Double()},
                                            {"flag", 6, DataType::Boolean()},
                                            {"ts", 7, DataType::Timestamp(9)}};
  const int64_t n = 10000;
  std::vector<Row> rows;
  for (int64_t r = 0; r < n; ++r) {
    rows.push_back({Datum(r - 5000), r % 5 == 0 ? Datum() : Datum(int64_t{-(r % 1000)}),
                    r % 7 == 0 ? Datum() : Datum((r % 2 ? "\xc3\xa9" : "a") + std::to_string(r)),
                    Datum(DecimalValue{static_cast<int128_t>(r - 3000) * 1000000000000LL}),
                    // the group of rows 4000..5999 holds a NaN; zero is a bound of rows 0..1999
                    r == 4500 ? Datum(std::numeric_limits<double>::quiet_NaN()) : Datum(static_cast<double>(r)),
                    Datum(r % 3 == 0), Datum(TimestampValue{r, 0})});
  }
  rows[0][4] = Datum(-0.0);
  ParquetEncoderOptions options;
  options.row_group_rows = 2000;
  options.page_bytes = 4096;  // many pages per chunk
  testing::TempDir dir;
  std::string path = JoinPath(dir.path(), "groups.parquet");
  WriteFile(path, columns, rows, options);
  ExpectRowsReadBack(path, columns, rows);

  auto info = ReadParquetFileInfo(path);
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->num_row_groups, 5);
  EXPECT_EQ(info->num_rows, n);

  DuckDB db = OpenDb();
  const std::string q = QuoteSqlString(path);
  auto stats = QueryText(db,
                         "SELECT row_group_id::VARCHAR, path_in_schema, stats_min_value, stats_max_value, "
                         "stats_null_count::VARCHAR, num_values::VARCHAR, compression "
                         "FROM parquet_metadata(" + q + ") ORDER BY row_group_id, column_id");
  ASSERT_EQ(stats.size(), 5u * columns.size());
  for (int g = 0; g < 5; ++g) {
    const int64_t first = g * 2000, last = first + 1999;
    auto at = [&](int column) { return stats[static_cast<size_t>(g) * columns.size() + column]; };
    SCOPED_TRACE("row group " + std::to_string(g));
    for (size_t c = 0; c < columns.size(); ++c) {
      EXPECT_EQ(at(static_cast<int>(c))[1], columns[c].name);
      EXPECT_EQ(at(static_cast<int>(c))[5], "2000");
      EXPECT_EQ(at(static_cast<int>(c))[6], "ZSTD");
    }
    // Signed order for integers.
    EXPECT_EQ(at(0)[2], std::to_string(first - 5000));
    EXPECT_EQ(at(0)[3], std::to_string(last - 5000));
    EXPECT_EQ(at(0)[4], "0");
    EXPECT_EQ(at(1)[2], "-999");
    EXPECT_EQ(at(1)[3], "-1");
    EXPECT_EQ(at(1)[4], "400");
    // Strings: unsigned bytes, so "\xc3\xa9..." (é) sorts after "a...".
    int64_t nulls = 0;
    std::string lo, hi;
    for (int64_t r = first; r <= last; ++r) {
      if (rows[static_cast<size_t>(r)][2].is_null()) {
        ++nulls;
        continue;
      }
      const std::string& s = rows[static_cast<size_t>(r)][2].as_string();
      if (lo.empty() || s < lo) lo = s;
      if (hi.empty() || s > hi) hi = s;
    }
    EXPECT_EQ(at(2)[4], std::to_string(nulls));
    EXPECT_EQ(at(2)[2], lo);
    EXPECT_EQ(at(2)[3], hi);
    EXPECT_EQ(hi[0], '\xc3');
    // DECIMAL(30, 2) as FIXED_LEN_BYTE_ARRAY: signed, negative values included.
    EXPECT_EQ(at(3)[2], DecimalToString(static_cast<int128_t>(first - 3000) * 1000000000000LL, 2));
    EXPECT_EQ(at(3)[3], DecimalToString(static_cast<int128_t>(last - 3000) * 1000000000000LL, 2));
    // Doubles: none with a NaN in the group; -0.0 as the minimum when zero is the bound.
    if (g == 2) {
      EXPECT_FALSE(at(4)[2].has_value());
      EXPECT_FALSE(at(4)[3].has_value());
    } else {
      EXPECT_EQ(at(4)[2], g == 0 ? "-0.0" : std::to_string(first) + ".0");
      EXPECT_EQ(at(4)[3], std::to_string(last) + ".0");
    }
    EXPECT_EQ(at(5)[2], "false");
    EXPECT_EQ(at(5)[3], "true");
    // INT96: no order, no bounds.
    EXPECT_FALSE(at(6)[2].has_value());
    EXPECT_EQ(at(6)[4], "0");
  }

  // A key lookup DuckDB can answer by the statistics reads the right row.
  auto found = QueryText(db, "SELECT i::VARCHAR, s FROM read_parquet(" + q + ") WHERE k = 1234");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0][0], "-234");
  EXPECT_EQ(found[0][1], "a6234");

  // The chunks hold several data pages each.
  auto pages = QueryText(db, "SELECT count(*)::VARCHAR FROM parquet_metadata(" + q + ")");
  ASSERT_EQ(pages.size(), 1u);
}

TEST(ParquetFileEncoderTest, ByteBoundEndsRowGroups) {
  std::vector<ParquetColumnSpec> columns = {{"s", 1, DataType::String()}};
  std::vector<Row> rows;
  uint64_t state = 42;
  for (int r = 0; r < 400; ++r) {
    std::string s(1000, ' ');
    for (char& ch : s) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      ch = static_cast<char>('a' + (state >> 60));  // 16 letters: about 4 bits of entropy a byte
    }
    rows.push_back({Datum(std::move(s))});
  }
  ParquetEncoderOptions options;
  options.row_group_bytes = 100000;  // the bound counts compressed pages plus the open page
  options.page_bytes = 20000;
  testing::TempDir dir;
  std::string path = JoinPath(dir.path(), "bytes.parquet");
  WriteFile(path, columns, rows, options);
  auto info = ReadParquetFileInfo(path);
  ASSERT_TRUE(info.ok());
  EXPECT_GE(info->num_row_groups, 3);
  EXPECT_EQ(info->num_rows, 400);
  ExpectRowsReadBack(path, columns, rows);
}

}  // namespace
}  // namespace tide

namespace tide {
namespace {

// ---- nested values ------------------------------------------------------------------------------------

void ExpectSameSchemaTree(const std::vector<ParquetFileColumn>& java, const std::vector<ParquetFileColumn>& tide,
                          const std::string& where) {
  ASSERT_EQ(tide.size(), java.size()) << where;
  for (size_t i = 0; i < java.size(); ++i) {
    const std::string at = where + "/" + java[i].name;
    EXPECT_EQ(tide[i].name, java[i].name) << at;
    EXPECT_EQ(tide[i].field_id, java[i].field_id) << at;
    EXPECT_EQ(tide[i].physical_type, java[i].physical_type) << at;
    EXPECT_EQ(tide[i].type_length, java[i].type_length) << at;
    EXPECT_EQ(tide[i].repetition, java[i].repetition) << at;
    EXPECT_EQ(tide[i].converted_type, java[i].converted_type) << at;
    EXPECT_EQ(tide[i].logical_type, java[i].logical_type) << at;
    EXPECT_EQ(tide[i].precision, java[i].precision) << at;
    EXPECT_EQ(tide[i].scale, java[i].scale) << at;
    ExpectSameSchemaTree(java[i].children, tide[i].children, at);
  }
}

// Java's nested fixture (a primary-key table with ROW<..., ARRAY<INT>> and MAP<INT, INT> columns): every
// data file's rows written again by Tide have Java's schema tree, element for element, and read back equal.
TEST(ParquetFileEncoderTest, NestedColumnsHaveJavasSchemaTree) {
  const std::string table_dir = JoinPath(testing::JavaFixtureWarehouse(), "pk_table_nested_type.db/pk_table_nested_type");
  auto schema_text = FileSystem::Local()->ReadFile(JoinPath(table_dir, "schema/schema-0"));
  ASSERT_TRUE(schema_text.ok());
  auto schema = TableSchema::FromJson(*schema_text, "schema-0");
  ASSERT_TRUE(schema.ok()) << schema.status().ToString();
  std::vector<ParquetColumnSpec> columns = {{"_KEY_shopId", kKeyFieldIdStart + 0, DataType::Int(false)},
                                            {"_SEQUENCE_NUMBER", kSequenceNumberFieldId, DataType::BigInt(false)},
                                            {"_VALUE_KIND", kValueKindFieldId, DataType::TinyInt(false)}};
  for (const ParquetColumnSpec& column : ParquetColumnsFor(schema->fields)) columns.push_back(column);

  DuckDB db = OpenDb();
  testing::TempDir dir;
  int files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(table_dir)) {
    const std::string java = entry.path().string();
    if (entry.path().extension() != ".parquet" || java.find("/bucket-") == std::string::npos) continue;
    SCOPED_TRACE(java);
    auto reader = ParquetFileReader::Open(db, java, columns);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    auto rows = (*reader)->ReadAll();
    ASSERT_TRUE(rows.ok()) << rows.status().ToString();
    const std::string tide = JoinPath(dir.path(), std::to_string(files++) + ".parquet");
    WriteFile(tide, columns, *rows);
    auto java_info = ReadParquetFileInfo(java);
    auto tide_info = ReadParquetFileInfo(tide);
    ASSERT_TRUE(java_info.ok() && tide_info.ok());
    EXPECT_EQ(tide_info->root_name, java_info->root_name);
    ExpectSameSchemaTree(java_info->columns, tide_info->columns, "");
    ExpectRowsReadBack(tide, columns, *rows);
  }
  EXPECT_GT(files, 0);
}

// Lists, maps, multisets and rows nested in each other, with NULL and empty values at every level, over
// several pages and row groups (pages end between rows, so a list never spans two).
TEST(ParquetFileEncoderTest, NestedValuesRoundTripAcrossPagesAndRowGroups) {
  DataType point = DataType::Row({DataField{10, "x", DataType::Int(false), {}, {}},
                                  DataField{11, "tags", DataType::Array(DataType::String()), {}, {}}});
  std::vector<ParquetColumnSpec> columns = {
      {"id", 1, DataType::BigInt(false)},
      {"ints", 2, DataType::Array(DataType::Int())},
      {"required_ints", 3, DataType::Array(DataType::Int(false), false)},
      {"grid", 4, DataType::Array(DataType::Array(DataType::BigInt()))},
      {"attrs", 5, DataType::Map(DataType::String(false), DataType::Array(DataType::Double()))},
      {"bag", 6, DataType::Multiset(DataType::Int())},
      {"points", 7, DataType::Array(point)},
      {"owner", 8, DataType::Row({DataField{12, "name", DataType::String(), {}, {}},
                                  DataField{13, "scores", DataType::Map(DataType::Int(false), DataType::Int()), {}, {}}})},
  };
  std::vector<Row> rows;
  for (int64_t r = 0; r < 3000; ++r) {
    auto i = [](int64_t v) { return Datum(v); };
    Datum ints = r % 5 == 0 ? Datum() : r % 5 == 1 ? N({}) : N({i(r), Datum(), i(-r), i(r * 2)});
    Datum required_ints = r % 3 == 0 ? N({}) : N({i(r % 7), i(1)});
    Datum grid = r % 4 == 0 ? Datum() : N({N({}), Datum(), N({i(r), Datum()}), N({i(1), i(2), i(3)})});
    Datum attrs = r % 6 == 0 ? N({}) : N({Datum("a" + std::to_string(r)), N({Datum(0.5), Datum()}), Datum("b"), Datum(),
                                          Datum("c"), N({})});
    Datum bag = r % 2 == 0 ? N({i(1), i(1), i(r % 3)}) : Datum();
    Datum points = r % 7 == 0 ? N({Datum()}) : N({N({i(r), N({Datum("p"), Datum()})}), N({i(-1), Datum()})});
    Datum owner = r % 8 == 0 ? Datum() : N({r % 3 == 0 ? Datum() : Datum("o" + std::to_string(r)),
                                            r % 2 == 0 ? Datum() : N({i(r), Datum(), i(r + 1), i(7)})});
    rows.push_back({i(r), ints, required_ints, grid, attrs, bag, points, owner});
  }
  ParquetEncoderOptions options;
  options.row_group_rows = 700;
  options.page_bytes = 2048;
  testing::TempDir dir;
  std::string path = JoinPath(dir.path(), "nested.parquet");
  WriteFile(path, columns, rows, options);
  auto info = ReadParquetFileInfo(path);
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->num_row_groups, 5);

  DuckDB db = OpenDb();
  auto reader = ParquetFileReader::Open(db, path, columns);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto back = (*reader)->ReadAll();
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->size(), rows.size());
  for (size_t r = 0; r < rows.size(); ++r) {
    for (size_t c = 0; c < columns.size(); ++c) {
      Datum expected = rows[r][c];
      if (columns[c].name == "bag" && !expected.is_null()) {
        // A multiset is stored as element -> count: compare as sorted bags.
        auto sorted = [](const Datum& d) {
          std::vector<Datum> items = d.as_nested();
          std::sort(items.begin(), items.end(), [](const Datum& a, const Datum& b) { return CompareDatum(a, b) < 0; });
          return items;
        };
        EXPECT_EQ(sorted((*back)[r][c]), sorted(expected)) << "row " << r;
        continue;
      }
      ASSERT_EQ((*back)[r][c], expected) << "row " << r << " column " << columns[c].name << ": got "
                                         << DatumToString((*back)[r][c], columns[c].type) << ", wrote "
                                         << DatumToString(expected, columns[c].type);
    }
  }
}

TEST(ParquetFileEncoderTest, NestedValuesThatDoNotFitAreRefused) {
  std::vector<ParquetColumnSpec> columns = {
      {"m", 1, DataType::Map(DataType::String(), DataType::Int())},
      {"req", 2, DataType::Array(DataType::Int(false))},
      {"r", 3, DataType::Row({DataField{4, "a", DataType::Int(false), {}, {}}})},
      {"bag", 5, DataType::Multiset(DataType::String())}};
  auto encoder = ParquetFileEncoder::Create(columns);
  ASSERT_TRUE(encoder.ok()) << encoder.status().ToString();
  auto rejected = [&](Row row, const std::string& column) {
    Status st = (*encoder)->Append(row);
    EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString();
    EXPECT_NE(st.message().find("column " + column), std::string::npos) << st.ToString();
  };
  rejected({N({Datum(), Datum(int64_t{1})}), Datum(), Datum(), Datum()}, "m");          // NULL map key
  rejected({N({Datum("k")}), Datum(), Datum(), Datum()}, "m");                         // not key, value pairs
  rejected({Datum(), N({Datum(int64_t{1}), Datum()}), Datum(), Datum()}, "req.element");  // NULL NOT NULL element
  rejected({Datum(), Datum(), N({Datum()}), Datum()}, "r.a");
  rejected({Datum(), Datum(), N({}), Datum()}, "r");                                   // wrong arity
  rejected({Datum(), Datum(), Datum(int64_t{1}), Datum()}, "r");                       // not nested
  rejected({Datum(), Datum(), Datum(), N({Datum()})}, "bag");                           // NULL multiset element
  rejected({Datum(), N({Datum("x")}), Datum(), Datum()}, "req.element");               // wrong leaf type
  EXPECT_EQ((*encoder)->row_count(), 0);
  ASSERT_TRUE((*encoder)->Append({N({Datum("k"), Datum()}), N({}), N({Datum(int64_t{1})}), N({Datum("z")})}).ok());
  EXPECT_EQ((*encoder)->row_count(), 1);
}

}  // namespace
}  // namespace tide

namespace tide {
namespace {

// Strings and binary get a dictionary page and PLAIN_DICTIONARY data pages, as Java's writer gives them;
// a dictionary that fills up switches the rest of the chunk to PLAIN; repeated strings stay PLAIN.
TEST(ParquetFileEncoderTest, DictionaryPagesAndTheirFallbackToPlain) {
  std::vector<ParquetColumnSpec> columns = {
      {"status", 1, DataType::String()},
      {"id", 2, DataType::String(false)},
      {"blob", 3, DataType::Bytes()},
      {"r", 4, DataType::Row({DataField{5, "tag", DataType::String(), {}, {}}})},
      {"tags", 6, DataType::Array(DataType::String())}};
  static const char* kStatus[] = {"created", "paid", "shipped", "delivered", "cancelled"};
  std::vector<Row> rows;
  for (int64_t r = 0; r < 5000; ++r) {
    rows.push_back({r % 11 == 0 ? Datum() : Datum(kStatus[r % 5]), Datum("order-" + std::to_string(r)),
                    Datum(std::string(1, static_cast<char>(r % 3))),
                    Datum::Nested({r % 2 ? Datum("t" + std::to_string(r % 4)) : Datum()}),
                    Datum::Nested({Datum("a"), Datum(kStatus[r % 5])})});
  }
  ParquetEncoderOptions options;
  options.row_group_rows = 2000;
  options.page_bytes = 8192;
  options.dictionary_bytes = 20000;  // `id` (about 14 bytes a value) fills it after ~1,400 rows
  testing::TempDir dir;
  std::string path = JoinPath(dir.path(), "dict.parquet");
  WriteFile(path, columns, rows, options);
  ExpectRowsReadBack(path, columns, rows);

  DuckDB db = OpenDb();
  auto meta = QueryText(db,
                        "SELECT row_group_id::VARCHAR, path_in_schema, encodings, "
                        "(dictionary_page_offset IS NOT NULL)::VARCHAR, stats_min_value, stats_max_value "
                        "FROM parquet_metadata(" + QuoteSqlString(path) + ") ORDER BY row_group_id, column_id");
  ASSERT_EQ(meta.size(), 3u * 5u);
  for (size_t g = 0; g < 3; ++g) {
    SCOPED_TRACE("row group " + std::to_string(g));
    auto at = [&](size_t leaf) { return meta[g * 5 + leaf]; };
    EXPECT_EQ(at(0)[3], "true");  // status: all dictionary
    EXPECT_EQ(at(0)[2]->find("PLAIN_DICTIONARY"), 0u) << *at(0)[2];
    EXPECT_EQ(at(0)[2]->find("PLAIN,"), std::string::npos) << *at(0)[2];
    EXPECT_EQ(at(0)[4], "cancelled");
    EXPECT_EQ(at(0)[5], "shipped");
    // id: the dictionary fills up in the first two (2,000-row) groups; the last has 1,000 rows and fits.
    EXPECT_EQ(at(1)[3], "true");
    if (g < 2) {
      EXPECT_NE(at(1)[2]->find("PLAIN_DICTIONARY"), std::string::npos) << *at(1)[2];
      EXPECT_NE(at(1)[2]->find("PLAIN,"), std::string::npos) << *at(1)[2];
    }
    EXPECT_EQ(at(2)[3], "true");  // blob
    EXPECT_EQ(at(3)[3], "true");  // a string inside a ROW
    EXPECT_EQ(at(3)[1], "r, tag");
    EXPECT_EQ(at(4)[3], "false");  // inside a list: PLAIN
    EXPECT_EQ(at(4)[2]->find("PLAIN_DICTIONARY"), std::string::npos) << *at(4)[2];
  }
}

// Runs of one value (a partition column, a sorted one) are found again without the dictionary's hash
// lookup: runs that return after others, straddle pages, row groups and the dictionary filling up
// mid-run, and hold NULLs, all read back as written.
TEST(ParquetFileEncoderTest, RunsOfOneValueReadBackAcrossPagesGroupsAndAFullDictionary) {
  std::vector<ParquetColumnSpec> columns = {{"dt", 1, DataType::String()}, {"k", 2, DataType::String(false)}};
  for (int64_t dictionary_bytes : {int64_t{0}, int64_t{40}, int64_t{1} << 20}) {
    SCOPED_TRACE("dictionary bytes " + std::to_string(dictionary_bytes));
    std::vector<Row> rows;
    for (int64_t r = 0; r < 6000; ++r) {
      // dt: runs of 700 over 9 days, then the first days again; every 97th row NULL.
      const int64_t day = r < 4200 ? r / 700 : (r - 4200) / 300;
      rows.push_back({r % 97 == 0 ? Datum() : Datum("2024-01-0" + std::to_string(day + 1)),
                      Datum("k" + std::to_string(r / 3))});
    }
    ParquetEncoderOptions options;
    options.row_group_rows = 2500;
    options.page_bytes = 4096;
    options.dictionary_bytes = dictionary_bytes;
    testing::TempDir dir;
    std::string path = JoinPath(dir.path(), "runs.parquet");
    WriteFile(path, columns, rows, options);
    ExpectRowsReadBack(path, columns, rows);
  }
}

}  // namespace
}  // namespace tide

namespace tide {
namespace {

// ---- randomized round trips ---------------------------------------------------------------------------

// Random types of depth up to 3 (ARRAY, MAP with scalar keys, ROW over scalars of every kind, each level
// nullable or not) and random values with NULLs and empty collections, written over many small pages and
// row groups and read back through ParquetFileReader.
class RandomNested {
 public:
  explicit RandomNested(uint64_t seed) : state_(seed * 0x9E3779B97F4A7C15ULL + 1) {}

  uint64_t Next() {
    state_ ^= state_ << 13;
    state_ ^= state_ >> 7;
    state_ ^= state_ << 17;
    return state_;
  }
  int Below(int n) { return static_cast<int>(Next() % static_cast<uint64_t>(n)); }

  DataType Scalar(bool nullable) {
    switch (Below(9)) {
      case 0: return DataType::Boolean(nullable);
      case 1: return DataType::SmallInt(nullable);
      case 2: return DataType::BigInt(nullable);
      case 3: return DataType::Double(nullable);
      case 4: return DataType::Decimal(25, 3, nullable);
      case 5: return DataType::String(nullable);
      case 6: return DataType::Date(nullable);
      case 7: return DataType::Timestamp(6, nullable);
      default: return DataType::Decimal(12, 2, nullable);
    }
  }

  DataType Type(int depth) {
    const bool nullable = Below(4) != 0;
    if (depth >= 3 || Below(3) == 0) return Scalar(nullable);
    switch (Below(3)) {
      case 0: return DataType::Array(Type(depth + 1), nullable);
      case 1: return DataType::Map(Scalar(false), Type(depth + 1), nullable);
      default: {
        std::vector<DataField> fields;
        const int n = 1 + Below(3);
        for (int i = 0; i < n; ++i) fields.push_back(DataField{next_id_++, "f" + std::to_string(i), Type(depth + 1), {}, {}});
        return DataType::Row(std::move(fields), nullable);
      }
    }
  }

  Datum Value(const DataType& type) {
    if (type.nullable() && Below(5) == 0) return Datum();
    switch (type.root()) {
      case TypeRoot::kBoolean: return Datum(Below(2) == 0);
      case TypeRoot::kSmallInt: return Datum(static_cast<int64_t>(Below(65536) - 32768));
      case TypeRoot::kBigInt: return Datum(static_cast<int64_t>(Next()));
      case TypeRoot::kDouble: return Datum(static_cast<double>(static_cast<int64_t>(Next() % 2000001) - 1000000) / 8);
      case TypeRoot::kDecimal: {
        __int128 v = static_cast<__int128>(Next() % 1000000000000ULL) * (Below(2) ? 1 : -1);
        if (type.precision() > 18) v *= 1000000000;
        return Datum(DecimalValue{v});
      }
      case TypeRoot::kVarChar: return Datum(std::string(static_cast<size_t>(Below(6)), static_cast<char>('a' + Below(4))));
      case TypeRoot::kDate: return Datum(static_cast<int64_t>(Below(200000) - 100000));
      case TypeRoot::kTimestamp:
        return Datum(TimestampValue::FromMicros(static_cast<int64_t>(Next() % 4000000000000000ULL) - 2000000000000000LL));
      case TypeRoot::kArray: {
        std::vector<Datum> items;
        const int n = Below(4);
        for (int i = 0; i < n; ++i) items.push_back(Value(type.element()));
        return Datum::Nested(std::move(items));
      }
      case TypeRoot::kMap: {
        std::vector<Datum> items;
        const int n = Below(4);
        std::vector<Datum> keys;
        for (int i = 0; i < n; ++i) {
          Datum key = Value(type.key());
          bool seen = false;
          for (const Datum& k : keys) seen = seen || k == key;
          if (seen) continue;  // map keys are distinct
          keys.push_back(key);
          items.push_back(key);
          items.push_back(Value(type.value()));
        }
        return Datum::Nested(std::move(items));
      }
      case TypeRoot::kRow: {
        std::vector<Datum> items;
        for (const DataField& field : type.fields()) items.push_back(Value(field.type));
        return Datum::Nested(std::move(items));
      }
      default:
        return Datum();
    }
  }

 private:
  uint64_t state_;
  int32_t next_id_ = 100;
};

TEST(ParquetFileEncoderTest, RandomNestedTypesRoundTrip) {
  DuckDB db = OpenDb();
  testing::TempDir dir;
  for (uint64_t seed = 1; seed <= 25; ++seed) {
    RandomNested random(seed);
    std::vector<ParquetColumnSpec> columns;
    const int n = 1 + random.Below(4);
    for (int c = 0; c < n; ++c) columns.push_back({"c" + std::to_string(c), c + 1, random.Type(0)});
    std::string types;
    for (const ParquetColumnSpec& c : columns) types += " " + c.type.ToString();
    SCOPED_TRACE("seed " + std::to_string(seed) + ":" + types);
    std::vector<Row> rows;
    for (int r = 0; r < 300; ++r) {
      Row row;
      for (const ParquetColumnSpec& c : columns) row.push_back(random.Value(c.type));
      rows.push_back(std::move(row));
    }
    ParquetEncoderOptions options;
    options.row_group_rows = 70;
    options.page_bytes = 256;
    options.dictionary_bytes = 64 * static_cast<int64_t>(seed % 3);  // none, tiny, small
    const std::string path = JoinPath(dir.path(), "random-" + std::to_string(seed) + ".parquet");
    WriteFile(path, columns, rows, options);
    auto reader = ParquetFileReader::Open(db, path, columns);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    auto back = (*reader)->ReadAll();
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    ASSERT_EQ(back->size(), rows.size());
    for (size_t r = 0; r < rows.size(); ++r) {
      for (size_t c = 0; c < columns.size(); ++c) {
        ASSERT_EQ((*back)[r][c], rows[r][c]) << "row " << r << " column " << columns[c].name << ": got "
                                             << DatumToString((*back)[r][c], columns[c].type) << ", wrote "
                                             << DatumToString(rows[r][c], columns[c].type);
      }
    }
  }
}

}  // namespace
}  // namespace tide

namespace tide {
namespace {

// Every page header carries the CRC32 of the page's stored bytes, as Java's pages do; and the chunks'
// offsets and sizes in the footer cover exactly their pages.
TEST(ParquetFileEncoderTest, PagesCarryTheirCrcAndChunksTheirExtent) {
  std::vector<ParquetColumnSpec> columns = {{"k", 1, DataType::BigInt(false)}, {"s", 2, DataType::String()},
                                            {"a", 3, DataType::Array(DataType::Int())}};
  std::vector<Row> rows;
  for (int64_t r = 0; r < 3000; ++r) {
    rows.push_back({Datum(r), r % 3 ? Datum("v" + std::to_string(r % 17)) : Datum(),
                    Datum::Nested({Datum(r), Datum()})});
  }
  ParquetEncoderOptions options;
  options.row_group_rows = 1000;
  options.page_bytes = 1024;
  testing::TempDir dir;
  const std::string path = JoinPath(dir.path(), "crc.parquet");
  WriteFile(path, columns, rows, options);
  auto footer = ReadParquetFooter(path);
  ASSERT_TRUE(footer.ok()) << footer.status().ToString();
  auto bytes = FileSystem::Local()->ReadFile(path);
  ASSERT_TRUE(bytes.ok());
  int pages = 0;
  for (const ParquetRowGroup& group : footer->row_groups) {
    for (const ParquetColumnChunk& chunk : group.columns) {
      int64_t pos = chunk.dictionary_page_offset.value_or(chunk.data_page_offset);
      const int64_t end = pos + chunk.total_compressed_size;
      while (pos < end) {
        ThriftCompactReader in(std::string_view(*bytes).substr(static_cast<size_t>(pos)), "page header");
        int64_t compressed = -1;
        std::optional<int64_t> crc;
        ASSERT_TRUE(in.ReadStruct([&](uint8_t t, int16_t id) -> Status {
                        if (id == 3 || id == 4) {
                          TIDE_ASSIGN_OR_RETURN(int64_t v, in.Int(t));
                          (id == 3 ? compressed : crc.emplace()) = v;
                          return Status::OK();
                        }
                        return in.Skip(t);
                      }).ok());
        const size_t body = static_cast<size_t>(pos) + in.position();
        ASSERT_GE(compressed, 0);
        ASSERT_TRUE(crc.has_value());
        const uLong expected = crc32(0, reinterpret_cast<const Bytef*>(bytes->data() + body), static_cast<uInt>(compressed));
        EXPECT_EQ(static_cast<uint32_t>(*crc), static_cast<uint32_t>(expected));
        pos = static_cast<int64_t>(body) + compressed;
        ++pages;
      }
      EXPECT_EQ(pos, end);
    }
  }
  EXPECT_GT(pages, 9);
}

}  // namespace
}  // namespace tide

namespace tide {
namespace {

// Random values of every type with a ColumnVector: edges, NULLs (in nullable columns), repeats (so
// dictionaries fill), strings longer than the statistics limit, NaN and both zeros.
Datum RandomValue(const DataType& type, std::mt19937_64& rng) {
  std::uniform_int_distribution<int> pick(0, 9);
  if (type.nullable() && pick(rng) == 0) return Datum();
  const int64_t r = static_cast<int64_t>(rng());
  switch (type.root()) {
    case TypeRoot::kBoolean: return Datum((r & 1) != 0);
    case TypeRoot::kTinyInt: return Datum(static_cast<int64_t>(static_cast<int8_t>(r)));
    case TypeRoot::kSmallInt: return Datum(static_cast<int64_t>(static_cast<int16_t>(r)));
    case TypeRoot::kInt: return Datum(static_cast<int64_t>(static_cast<int32_t>(r % 1000)));
    case TypeRoot::kBigInt: return Datum(pick(rng) == 1 ? std::numeric_limits<int64_t>::min() : r);
    case TypeRoot::kDate: return Datum(static_cast<int64_t>(r % 100000));
    case TypeRoot::kTime: return Datum(static_cast<int64_t>(std::abs(r % 86400000)));
    case TypeRoot::kFloat: {
      const float edges[] = {0.0f, -0.0f, std::numeric_limits<float>::quiet_NaN(), 1.5f, -3.25e10f};
      return Datum(pick(rng) < 5 ? edges[pick(rng) % 5] : static_cast<float>(r % 100000) / 7.0f);
    }
    case TypeRoot::kDouble: {
      const double edges[] = {0.0, -0.0, std::numeric_limits<double>::quiet_NaN(), 1e300, -1e-300};
      return Datum(pick(rng) < 3 ? edges[pick(rng) % 5] : static_cast<double>(r) / 3.0);
    }
    case TypeRoot::kDecimal: {
      int64_t limit = 1;
      for (int i = 0; i < type.precision(); ++i) limit *= 10;
      return Datum(DecimalValue{r % limit});
    }
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz: {
      const int64_t micros = r % (int64_t{4000} * 365 * 86400 * 1000000);
      if (type.precision() <= 3) return Datum(TimestampValue{micros / 1000, 0});
      return Datum(TimestampValue::FromMicros(micros));
    }
    default: {
      const int kind = pick(rng);
      if (kind < 6) return Datum("value-" + std::to_string(r % 50));  // repeats: the dictionary
      if (kind == 6) return Datum(std::string(kMaxStatisticsValueBytes + 1 + static_cast<size_t>(r % 9), 'z'));
      if (kind == 7) return Datum(std::string());
      return Datum(std::string("\xff\x00", 2) + std::to_string(r));
    }
  }
}

// AppendColumns writes the same bytes as Append row by row, for rows taken in any order (a sort's
// permutation), over many pages, row groups and a dictionary that fills up mid-chunk.
TEST(ParquetFileEncoderColumnsTest, ColumnAppendsWriteTheBytesOfRowAppends) {
  const std::vector<DataType> types = {
      DataType::BigInt(false), DataType::Int(),        DataType::TinyInt(),      DataType::SmallInt(),
      DataType::Boolean(),     DataType::Float(),      DataType::Double(),       DataType::Decimal(9, 2),
      DataType::Decimal(18, 4), DataType::Date(),      DataType::Time(),         DataType::Timestamp(3),
      DataType::Timestamp(6), DataType::TimestampLtz(6), DataType::String(),     DataType::Bytes(),
      DataType::VarChar(20, false)};
  std::vector<ParquetColumnSpec> specs;
  for (size_t i = 0; i < types.size(); ++i) {
    specs.push_back(ParquetColumnSpec{"c" + std::to_string(i), static_cast<int32_t>(i), types[i]});
  }
  std::mt19937_64 rng(20261203);
  for (int round = 0; round < 6; ++round) {
    SCOPED_TRACE(round);
    const size_t n = round == 0 ? 1 : 3000 + static_cast<size_t>(rng() % 9000);
    std::vector<Row> rows(n);
    std::vector<ColumnVector> columns;
    for (const DataType& t : types) columns.emplace_back(t);
    for (Row& row : rows) {
      for (size_t c = 0; c < types.size(); ++c) {
        row.push_back(RandomValue(types[c], rng));
        ASSERT_TRUE(columns[c].AppendDatum(row.back(), specs[c].name).ok());
        EXPECT_EQ(columns[c].GetDatum(columns[c].size() - 1), row.back()) << specs[c].name;
      }
    }
    std::vector<uint32_t> order(n);
    for (size_t i = 0; i < n; ++i) order[i] = static_cast<uint32_t>(i);
    std::shuffle(order.begin(), order.end(), rng);

    ParquetEncoderOptions options;
    options.page_bytes = round == 1 ? 64 : 4096;
    options.row_group_rows = round == 3 ? 7 : 2500;
    options.dictionary_bytes = round == 2 ? 0 : 300;
    options.codec = round == 2 ? ParquetCodec::kUncompressed : ParquetCodec::kZstd;
    // Row groups ended by their bytes (`parquet.block.size`), small and large.
    if (round == 4) options.row_group_bytes = 1024;
    if (round == 5) options.row_group_bytes = 150 * 1024;
    auto by_rows = ParquetFileEncoder::Create(specs, options);
    auto by_columns = ParquetFileEncoder::Create(specs, options);
    ASSERT_TRUE(by_rows.ok() && by_columns.ok());
    ASSERT_TRUE((*by_columns)->CanAppendColumns());
    for (uint32_t i : order) ASSERT_TRUE((*by_rows)->Append(rows[i]).ok());
    std::vector<const ColumnVector*> pointers;
    for (const ColumnVector& c : columns) pointers.push_back(&c);
    // In two calls, the first ending mid-row-group.
    const size_t first = n / 3;
    ASSERT_TRUE((*by_columns)->AppendColumns(pointers, order.data(), first).ok());
    ASSERT_TRUE((*by_columns)->AppendColumns(pointers, order.data() + first, n - first).ok());
    EXPECT_EQ((*by_rows)->row_count(), (*by_columns)->row_count());
    EXPECT_EQ((*by_rows)->row_groups(), (*by_columns)->row_groups());
    if (round >= 4) {
      EXPECT_GT((*by_rows)->row_groups(), 2);
    }
    auto a = (*by_rows)->Finish();
    auto b = (*by_columns)->Finish();
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(a->size(), b->size());
    EXPECT_TRUE(*a == *b) << "the files differ";
  }
}

// The typed checks refuse what Append refuses, naming the column, and write nothing.
TEST(ParquetFileEncoderColumnsTest, ColumnAppendsRefuseWhatRowAppendsRefuse) {
  std::vector<ParquetColumnSpec> specs = {{"id", 1, DataType::BigInt(false)}, {"small", 2, DataType::SmallInt()},
                                          {"amount", 3, DataType::Decimal(5, 2)}};
  auto encoder = ParquetFileEncoder::Create(specs);
  ASSERT_TRUE(encoder.ok());
  ColumnVector id(DataType::BigInt(false)), small(DataType::SmallInt()), amount(DataType::Decimal(5, 2));
  id.AppendInt64(1);
  small.AppendInt64(70000);
  amount.AppendInt64(1);
  id.AppendNull();
  small.AppendInt64(1);
  amount.AppendInt64(123456);
  std::vector<const ColumnVector*> columns = {&id, &small, &amount};
  const uint32_t first[] = {0}, second[] = {1};
  Status st = (*encoder)->AppendColumns(columns, first, 1);
  EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString();
  EXPECT_NE(st.message().find("column small"), std::string::npos) << st.ToString();
  st = (*encoder)->AppendColumns(columns, second, 1);
  EXPECT_NE(st.message().find("column id"), std::string::npos) << st.ToString();
  EXPECT_EQ((*encoder)->row_count(), 0);
  EXPECT_FALSE(ColumnVector::KindOf(DataType::Decimal(30, 2)).has_value());
  EXPECT_FALSE(ColumnVector::KindOf(DataType::Timestamp(9)).has_value());
  ColumnVector ts(DataType::Timestamp(3));
  EXPECT_TRUE(ts.AppendDatum(Datum(TimestampValue{5, 1000}), "ts").IsInvalidArgument());
}

}  // namespace
}  // namespace tide
