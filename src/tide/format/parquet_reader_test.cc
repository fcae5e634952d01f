// Reads Parquet files written by Java Paimon (tests/fixtures/paimon-java/parquet) and checks the values
// their READMEs list.
#include "tide/format/format_test_values.h"
#include "tide/format/parquet_reader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "testing/temp_dir.h"
#include "tide/io/file_system.h"
#include "tide/types/data_type.h"
#include "tide/types/table_schema.h"

namespace tide {
namespace {

using testing::Ts;
using testing::Dec;
DuckDB OpenDb() { return testing::OpenTestDb(); }
DataField Field(int32_t id, std::string name, DataType type) { return testing::TestField(id, std::move(name), std::move(type)); }

std::string Fixture(const std::string& relative) {
  return JoinPath(testing::JavaFixtureWarehouse(), relative);
}

int64_t Days(const char* text) { return ParseDate(text).ValueOr(-1); }

// append_complex_data: f1 INT, f2 INT, f3 DATE, f4 TIMESTAMP(9) (INT96), f5 DECIMAL(23, 5) (FLBA(10)), f6 BYTES.
std::vector<ParquetColumnSpec> ComplexDataColumns() {
  return {{"f1", 0, DataType::Int()},           {"f2", 1, DataType::Int()},
          {"f3", 2, DataType::Date()},          {"f4", 3, DataType::Timestamp(9)},
          {"f5", 4, DataType::Decimal(23, 5)},  {"f6", 5, DataType::Bytes()}};
}

TEST(ParquetReaderTest, JavaComplexDataCompactedFile) {
  DuckDB db = OpenDb();
  // The full compaction of partition f1=10 holds its six rows in insertion order (README, snapshots 1-4).
  auto reader = ParquetFileReader::Open(
      db, Fixture("append_complex_data.db/append_complex_data/f1=10/bucket-0/"
                  "data-f8754699-0c43-4e53-be00-7e8af1754913-0.parquet"),
      ComplexDataColumns());
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_TRUE((*reader)->missing_columns().empty());
  std::vector<int64_t> positions;
  auto rows = (*reader)->ReadAll(&positions);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  std::vector<Row> expected = {
      {10, 1, Datum(int64_t{1234}), Ts("2033-05-18 03:33:20"), Dec("123456789987654321.45678", 23, 5), "add"},
      {10, 1, Datum(int64_t{19909}), Ts("2033-05-18 03:33:20.000001001"), Dec("12.30000", 23, 5), "cat"},
      {10, 1, Datum(int64_t{0}), Ts("2008-12-28 00:00:00.000123456"), Datum(), "dad"},
      {10, 1, Datum(int64_t{100}), Ts("2008-12-28 00:00:00.00012345"), Dec("-123.45000", 23, 5), "eat"},
      {10, 1, Datum(), Ts("1899-01-01 00:59:20.001001001"), Dec("0", 23, 5), "fat"},
      {10, 1, Datum(int64_t{20006}), Ts("2024-10-10 10:10:10.1001001"), Dec("1728551410100.10010", 23, 5), Datum()},
  };
  ASSERT_EQ(rows->size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ((*rows)[i], expected[i]) << "row " << i << ": " << RowToString((*rows)[i], {});
    EXPECT_EQ(positions[i], static_cast<int64_t>(i));
  }
  // DATE 1234 is 1973-05-19, as the README's days mean.
  EXPECT_EQ(Days("1973-05-19"), 1234);
}

TEST(ParquetReaderTest, JavaComplexDataNegativeValues) {
  DuckDB db = OpenDb();
  auto reader = ParquetFileReader::Open(
      db, Fixture("append_complex_data.db/append_complex_data/f1=20/bucket-0/"
                  "data-ac0894ca-fc13-49c8-bb22-4556c8ee416c-0.parquet"),
      ComplexDataColumns());
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto rows = (*reader)->ReadAll();
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 1u);
  // A pre-1970 nanosecond timestamp: Java stores a negative nanos-of-day; every digit must survive.
  Row expected = {20, 1, Datum(int64_t{-1234}), Ts("1899-01-01 00:59:20.001001001"),
                  Dec("-123456789987654321.45678", 23, 5), "bad"};
  EXPECT_EQ((*rows)[0], expected) << RowToString((*rows)[0], {});

  auto other = ParquetFileReader::Open(
      db, Fixture("append_complex_data.db/append_complex_data/f1=20/bucket-1/"
                  "data-e0a6a424-e3b0-47ba-b259-d033fc01e87c-0.parquet"),
      ComplexDataColumns());
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  auto more = (*other)->ReadAll();
  ASSERT_TRUE(more.ok());
  ASSERT_EQ(more->size(), 1u);
  Row get = {20, 0, Datum(int64_t{-100}), Datum(), Dec("0", 23, 5), "get"};
  EXPECT_EQ((*more)[0], get) << RowToString((*more)[0], {});
}

TEST(ParquetReaderTest, Int96ReadingCanFallBackToDuckDbMicroseconds) {
  DuckDB db = OpenDb();
  ParquetReadOptions options;
  options.exact_int96 = false;
  auto reader = ParquetFileReader::Open(
      db, Fixture("append_complex_data.db/append_complex_data/f1=10/bucket-0/"
                  "data-35f2719c-ffae-4697-960e-af95a0b4bd51-1.parquet"),
      {{"f4", 3, DataType::Timestamp(9)}}, options);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto rows = (*reader)->ReadAll();
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 3u);
  // DuckDB keeps microseconds only: 2008-12-28 00:00:00.000123456 reads as ...000123.
  EXPECT_EQ((*rows)[0][0], Datum(Ts("2008-12-28 00:00:00.000123")));
}

TEST(ParquetReaderTest, JavaTimestampPrecisionsAndLocalTimeZone) {
  DuckDB db = OpenDb();
  std::vector<ParquetColumnSpec> columns = {
      {"ts_sec", 0, DataType::Timestamp(0)},       {"ts_milli", 1, DataType::Timestamp(3)},
      {"ts_micro", 2, DataType::Timestamp(6)},     {"ts_nano", 3, DataType::Timestamp(9)},
      {"ts_tz_sec", 4, DataType::TimestampLtz(0)}, {"ts_tz_milli", 5, DataType::TimestampLtz(3)},
      {"ts_tz_micro", 6, DataType::TimestampLtz(6)}, {"ts_tz_nano", 7, DataType::TimestampLtz(9)}};
  auto reader = ParquetFileReader::Open(
      db, Fixture("append_with_multiple_ts_precision_and_timezone.db/append_with_multiple_ts_precision_and_timezone/"
                  "bucket-0/data-9b8abdde-df4d-4655-bb4c-ffda164ef9d4-0.parquet"),
      columns);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto rows = (*reader)->ReadAll();
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  // README: Timestamp(millis, nanosOfMilli) per column.
  auto T = [](int64_t millis, int32_t nanos) { return Datum(TimestampValue{millis, nanos}); };
  std::vector<Row> expected = {
      {T(1000, 0), T(1, 0), T(0, 1000), T(0, 1), T(2000, 0), T(2, 0), T(0, 2000), T(0, 2)},
      {T(3000, 0), T(3, 0), Datum(), T(0, 3), T(4000, 0), T(4, 0), T(0, 4000), T(0, 4)},
      {T(5000, 0), T(5, 0), Datum(), Datum(), T(6000, 0), Datum(), T(0, 6000), Datum()},
  };
  ASSERT_EQ(rows->size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ((*rows)[i], expected[i]) << "row " << i;
  }
}

std::string NestedDir() { return Fixture("pk_table_nested_type.db/pk_table_nested_type/dt=2025-04-14/hr=10/"); }

// The physical columns of a primary-key file (PAIMON_FORMAT.md §6.4): _KEY_shopId, _SEQUENCE_NUMBER,
// _VALUE_KIND, then the table's fields.
std::vector<ParquetColumnSpec> NestedPkColumns() {
  DataType row_type = DataType::Row({Field(5, "f0", DataType::String()), Field(6, "f1", DataType::Int()),
                                     Field(7, "f2", DataType::Array(DataType::Int()))});
  return {{"_KEY_shopId", kKeyFieldIdStart + 0, DataType::Int(false)},
          {"_SEQUENCE_NUMBER", kSequenceNumberFieldId, DataType::BigInt(false)},
          {"_VALUE_KIND", kValueKindFieldId, DataType::TinyInt(false)},
          {"shopId", 0, DataType::Int(false)},
          {"dt", 1, DataType::String(false)},
          {"hr", 2, DataType::Int(false)},
          {"col0", 3, DataType::Int()},
          {"col1", 4, row_type},
          {"col2", 8, DataType::Map(DataType::Int(), DataType::Int())}};
}

// The value columns of the README's row for shop 1000 + i: col0 = 10 i, col1 = ("str-i", 100 i, [i, null,
// i + 1]), col2 = {i: i, 100 + i: 100 + i}.
Row NestedRow(int64_t i, int64_t sequence, int64_t kind) {
  return {Datum(1000 + i),
          Datum(sequence),
          Datum(kind),
          Datum(1000 + i),
          "2025-04-14",
          Datum(int64_t{10}),
          Datum(10 * i),
          Datum::Nested({Datum("str-" + std::to_string(i)), Datum(100 * i),
                         Datum::Nested({Datum(i), Datum(), Datum(i + 1)})}),
          Datum::Nested({Datum(i), Datum(i), Datum(100 + i), Datum(100 + i)})};
}

TEST(ParquetReaderTest, JavaPrimaryKeyFileWithNestedTypes) {
  DuckDB db = OpenDb();
  // bucket-1, snapshot 1: shops 1000, 1001, 1003, 1004, 1007 inserted (+I = 0), sorted by key, sequence 0..4.
  // (The README prints [4, null, 5] and {4, 104} for shops 1005..1007, a copy slip: the data files follow
  // the i, null, i + 1 pattern of the other rows, as shop 1007 below shows.)
  auto reader = ParquetFileReader::Open(db, NestedDir() + "bucket-1/data-c58cbfb1-c5bc-4b51-9c49-af2d4cfcefcb-0.parquet",
                                        NestedPkColumns());
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  const ParquetFileInfo& info = (*reader)->file_infos()[0];
  EXPECT_EQ(info.num_rows, 5);
  EXPECT_EQ(info.root_name, "paimon_schema");
  EXPECT_NE(info.created_by.find("parquet-mr"), std::string::npos);
  auto rows = (*reader)->ReadAll();
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  std::vector<Row> expected = {NestedRow(0, 0, 0), NestedRow(1, 1, 0), NestedRow(3, 2, 0), NestedRow(4, 3, 0),
                               NestedRow(7, 4, 0)};
  ASSERT_EQ(rows->size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ((*rows)[i], expected[i]) << "row " << i;

  // Snapshot 2 in bucket 1: DELETE 1000 (-D = 3), UPDATE_AFTER 1001 (+U = 2), UPDATE_BEFORE 1003 (-U = 1).
  auto second = ParquetFileReader::Open(
      db, NestedDir() + "bucket-1/data-c58cbfb1-c5bc-4b51-9c49-af2d4cfcefcb-1.parquet", NestedPkColumns());
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  auto changes = (*second)->ReadAll();
  ASSERT_TRUE(changes.ok()) << changes.status().ToString();
  std::vector<Row> expected_changes = {NestedRow(0, 5, 3), NestedRow(1, 6, 2), NestedRow(3, 7, 1)};
  ASSERT_EQ(changes->size(), expected_changes.size());
  for (size_t i = 0; i < expected_changes.size(); ++i) EXPECT_EQ((*changes)[i], expected_changes[i]) << "row " << i;
}

TEST(ParquetReaderTest, FileSchemaListsFieldIdsOfNestedParts) {
  DuckDB db = OpenDb();
  auto info = ReadParquetFileInfo(NestedDir() + "bucket-0/data-f63238db-a23a-4f18-9211-0835909197cf-0.parquet");
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  ASSERT_EQ(info->columns.size(), 9u);
  EXPECT_EQ(info->columns[0].name, "_KEY_shopId");
  EXPECT_EQ(info->columns[0].field_id, kKeyFieldIdStart);
  EXPECT_EQ(info->columns[0].repetition, "REQUIRED");
  EXPECT_EQ(info->columns[1].field_id, kSequenceNumberFieldId);
  EXPECT_EQ(info->columns[2].field_id, kValueKindFieldId);
  EXPECT_EQ(info->columns[2].converted_type, "INT_8");
  const ParquetFileColumn& col1 = info->columns[7];
  EXPECT_EQ(col1.field_id, 4);
  ASSERT_EQ(col1.children.size(), 3u);
  const ParquetFileColumn& f2 = col1.children[2];
  EXPECT_EQ(f2.field_id, 7);
  ASSERT_EQ(f2.children.size(), 1u);
  ASSERT_EQ(f2.children[0].children.size(), 1u);
  // Paimon numbers the element of ARRAY field 7 as 536870911 + 7 * 1024 + 1 (PAIMON_FORMAT.md §6.2).
  EXPECT_EQ(f2.children[0].children[0].field_id, 536878080);
  EXPECT_EQ(ArrayElementFieldId(7, 1), 536878080);
  const ParquetFileColumn& col2 = info->columns[8];
  ASSERT_EQ(col2.children.size(), 1u);
  ASSERT_EQ(col2.children[0].children.size(), 2u);
  EXPECT_EQ(col2.children[0].children[0].field_id, MapKeyFieldId(8, 1));
  EXPECT_EQ(col2.children[0].children[0].field_id, 536862718);
  EXPECT_EQ(col2.children[0].children[1].field_id, MapValueFieldId(8, 1));
  EXPECT_EQ(col2.children[0].children[1].field_id, 536879104);

  auto count = ReadParquetRowCount(NestedDir() + "bucket-0/data-f63238db-a23a-4f18-9211-0835909197cf-0.parquet");
  ASSERT_TRUE(count.ok());
  EXPECT_EQ(*count, 3);
}

TEST(ParquetReaderTest, ColumnsResolveByFieldIdAndMissingOnesReadAsNull) {
  DuckDB db = OpenDb();
  std::vector<ParquetColumnSpec> columns = {
      {"renamed_col0", 3, DataType::Int()},  // col0 under a later name: found by its field id
      {"added_later", 99, DataType::String()},  // in no file
      {"shopId", std::nullopt, DataType::BigInt()},  // no id: by name; INT widened to BIGINT
      {"col1", 4, DataType::Row({Field(6, "f1", DataType::Int()), Field(50, "gone", DataType::Int())})},
  };
  auto reader = ParquetFileReader::Open(db, NestedDir() + "bucket-0/data-f63238db-a23a-4f18-9211-0835909197cf-0.parquet",
                                        columns);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_EQ((*reader)->missing_columns(), std::vector<size_t>{1});
  auto rows = (*reader)->ReadAll();
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 3u);
  // bucket-0, snapshot 1: shops 1002, 1005, 1006.
  EXPECT_EQ((*rows)[0], (Row{Datum(int64_t{20}), Datum(), Datum(int64_t{1002}),
                             Datum::Nested({Datum(int64_t{200}), Datum()})}));
  EXPECT_EQ((*rows)[2][0], Datum(int64_t{60}));
}

TEST(ParquetReaderTest, FilterSkipsRowsButKeepsFilePositions) {
  DuckDB db = OpenDb();
  ParquetReadOptions options;
  options.filter_sql = "\"_VALUE_KIND\" <> 3";
  auto reader = ParquetFileReader::Open(
      db, NestedDir() + "bucket-1/data-c58cbfb1-c5bc-4b51-9c49-af2d4cfcefcb-1.parquet",
      {{"shopId", 0, DataType::Int()}, {"_VALUE_KIND", kValueKindFieldId, DataType::TinyInt()}}, options);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  std::vector<int64_t> positions;
  auto rows = (*reader)->ReadAll(&positions);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0][0], Datum(int64_t{1001}));
  EXPECT_EQ((*rows)[1][0], Datum(int64_t{1003}));
  EXPECT_EQ(positions, (std::vector<int64_t>{1, 2}));

  ParquetReadOptions bad;
  bad.filter_sql = "no_such_column = 1";
  auto failed = ParquetFileReader::Open(
      db, NestedDir() + "bucket-1/data-c58cbfb1-c5bc-4b51-9c49-af2d4cfcefcb-1.parquet",
      {{"shopId", 0, DataType::Int()}}, bad);
  ASSERT_FALSE(failed.ok());
  EXPECT_TRUE(failed.status().IsInvalidArgument()) << failed.status().ToString();
}

TEST(ParquetReaderTest, ManyFilesInOneScanKeepFileOrderAndPositions) {
  DuckDB db = OpenDb();
  std::vector<std::string> paths = {
      NestedDir() + "bucket-1/data-c58cbfb1-c5bc-4b51-9c49-af2d4cfcefcb-1.parquet",
      NestedDir() + "bucket-0/data-f63238db-a23a-4f18-9211-0835909197cf-0.parquet",
      Fixture("append_complex_data.db/append_complex_data/f1=10/bucket-0/"
              "data-35f2719c-ffae-4697-960e-af95a0b4bd51-0.parquet")};
  auto reader = ParquetFileReader::OpenMany(db, paths, {{"shopId", 0, DataType::Int()}, {"f4", 3, DataType::Timestamp(9)}});
  // Field id 0 is shopId in the PK files and f1 in the append file: different names, one scan cannot do it.
  ASSERT_FALSE(reader.ok());
  EXPECT_TRUE(reader.status().IsInvalidArgument()) << reader.status().ToString();

  paths.pop_back();
  auto two = ParquetFileReader::OpenMany(db, paths, {{"shopId", 0, DataType::Int()}, {"_SEQUENCE_NUMBER", std::nullopt, DataType::BigInt()}});
  ASSERT_TRUE(two.ok()) << two.status().ToString();
  std::vector<int64_t> positions;
  std::vector<uint32_t> files;
  auto rows = (*two)->ReadAll(&positions, &files);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 6u);
  EXPECT_EQ(files, (std::vector<uint32_t>{0, 0, 0, 1, 1, 1}));
  EXPECT_EQ(positions, (std::vector<int64_t>{0, 1, 2, 0, 1, 2}));
  EXPECT_EQ((*rows)[0][0], Datum(int64_t{1000}));
  EXPECT_EQ((*rows)[3][0], Datum(int64_t{1002}));
  EXPECT_EQ((*rows)[5][1], Datum(int64_t{2}));
}

TEST(ParquetReaderTest, ManyFilesWithInt96KeepNanoseconds) {
  DuckDB db = OpenDb();
  std::string dir = Fixture("append_complex_data.db/append_complex_data/");
  std::vector<std::string> paths = {dir + "f1=20/bucket-0/data-ac0894ca-fc13-49c8-bb22-4556c8ee416c-0.parquet",
                                    dir + "f1=10/bucket-0/data-35f2719c-ffae-4697-960e-af95a0b4bd51-1.parquet"};
  auto reader = ParquetFileReader::OpenMany(db, paths, {{"f4", 3, DataType::Timestamp(9)}, {"f6", 5, DataType::Bytes()}});
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto rows = (*reader)->ReadAll();
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 4u);
  EXPECT_EQ((*rows)[0], (Row{Ts("1899-01-01 00:59:20.001001001"), "bad"}));
  EXPECT_EQ((*rows)[1], (Row{Ts("2008-12-28 00:00:00.000123456"), "dad"}));
  EXPECT_EQ((*rows)[2], (Row{Ts("2008-12-28 00:00:00.00012345"), "eat"}));
  EXPECT_EQ((*rows)[3], (Row{Ts("1899-01-01 00:59:20.001001001"), "fat"}));
}

TEST(ParquetReaderTest, IncompatibleTypeIsNotSupported) {
  DuckDB db = OpenDb();
  auto reader = ParquetFileReader::Open(db, NestedDir() + "bucket-0/data-f63238db-a23a-4f18-9211-0835909197cf-0.parquet",
                                        {{"dt", 1, DataType::Int()}});
  ASSERT_FALSE(reader.ok());
  EXPECT_TRUE(reader.status().IsNotSupported()) << reader.status().ToString();
  EXPECT_NE(reader.status().message().find("dt"), std::string::npos);
}

TEST(ParquetReaderTest, MissingFileIsNotFound) {
  DuckDB db = OpenDb();
  auto reader = ParquetFileReader::Open(db, "/nonexistent/dir/data-0.parquet", {{"a", 1, DataType::Int()}});
  ASSERT_FALSE(reader.ok());
  EXPECT_TRUE(reader.status().IsNotFound()) << reader.status().ToString();
}

TEST(ParquetReaderTest, BatchesCoverEveryRowOnce) {
  DuckDB db = OpenDb();
  auto reader = ParquetFileReader::Open(db, NestedDir() + "bucket-1/data-c58cbfb1-c5bc-4b51-9c49-af2d4cfcefcb-0.parquet",
                                        {{"shopId", 0, DataType::Int()}});
  ASSERT_TRUE(reader.ok());
  ParquetBatch batch;
  size_t total = 0;
  while (true) {
    auto more = (*reader)->Next(&batch);
    ASSERT_TRUE(more.ok()) << more.status().ToString();
    if (!*more) break;
    EXPECT_EQ(batch.rows.size(), batch.positions.size());
    total += batch.size();
  }
  EXPECT_EQ(total, 5u);
  EXPECT_EQ(batch.size(), 0u);
  auto again = (*reader)->Next(&batch);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(*again);
}

// Every data file of every Java fixture table reads in full with one of its table's schema versions: all
// columns found (for data-evolution tables, whose files hold a subset of the columns, at least one), every
// row returned. (Tables whose schema uses a type Tide does not model, like BLOB, are skipped.)
TEST(ParquetReaderTest, EveryJavaFixtureFileReadsWithItsTableSchema) {
  DuckDB db = OpenDb();
  namespace fs = std::filesystem;
  int files = 0, skipped_tables = 0;
  std::vector<std::string> failures;
  for (const auto& db_dir : fs::directory_iterator(testing::JavaFixtureWarehouse())) {
    if (!db_dir.is_directory()) continue;
    for (const auto& table_dir : fs::directory_iterator(db_dir.path())) {
      fs::path schema_dir = table_dir.path() / "schema";
      if (!fs::is_directory(schema_dir)) continue;
      std::map<int, TableSchema> schemas;  // by id; tried newest first
      bool parsed = true;
      for (const auto& schema_file : fs::directory_iterator(schema_dir)) {
        auto text = FileSystem::Local()->ReadFile(schema_file.path().string());
        auto schema = TableSchema::FromJson(text.ValueOr(""), schema_file.path().string());
        if (!schema.ok()) {
          parsed = false;
          break;
        }
        schemas.emplace(static_cast<int>(schema->id), std::move(schema).value());
      }
      if (!parsed || schemas.empty()) {
        ++skipped_tables;
        continue;
      }
      for (const auto& entry : fs::recursive_directory_iterator(table_dir.path())) {
        if (entry.path().extension() != ".parquet") continue;
        const std::string path = entry.path().string();
        auto info = ReadParquetFileInfo(path);
        ASSERT_TRUE(info.ok()) << info.status().ToString();
        std::string errors;
        bool read = false;
        for (auto it = schemas.rbegin(); it != schemas.rend() && !read; ++it) {
          auto reader = ParquetFileReader::Open(db, path, ParquetColumnsFor(it->second.fields));
          if (!reader.ok()) {
            errors += " schema " + std::to_string(it->first) + ": " + reader.status().ToString();
            continue;
          }
          // Data-evolution tables write files holding only some of the columns; others must hold all.
          if ((*reader)->missing_columns().size() == it->second.fields.size()) continue;
          if (!(*reader)->missing_columns().empty() && path.find("data_evolution") == std::string::npos) continue;
          auto rows = (*reader)->ReadAll();
          if (!rows.ok()) {
            errors += " schema " + std::to_string(it->first) + ": " + rows.status().ToString();
            continue;
          }
          read = static_cast<int64_t>(rows->size()) == info->num_rows;
        }
        if (read) {
          ++files;
        } else {
          failures.push_back(path + ":" + errors);
        }
      }
    }
  }
  for (const std::string& f : failures) ADD_FAILURE() << f;
  EXPECT_GT(files, 100) << skipped_tables << " tables skipped";
}

TEST(ParquetReaderTest, ScanCallKeepsTheFilesOwnPartitionColumns) {
  DuckDB db = OpenDb();
  auto conn = db.Connect();
  ASSERT_TRUE(conn.ok());
  // The file sits under dt=2025-04-14/hr=10/; its own dt is a STRING and hr an INT, which must win.
  std::string call = ReadParquetCall({NestedDir() + "bucket-0/data-f63238db-a23a-4f18-9211-0835909197cf-0.parquet"},
                                     false);
  auto result = conn->Query("SELECT typeof(dt) || ' ' || typeof(hr) FROM " + call + " LIMIT 1");
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  DuckDataChunk chunk = result->FetchChunk();
  ASSERT_TRUE(chunk);
  auto* s = static_cast<duckdb_string_t*>(duckdb_vector_get_data(chunk.column(0)));
  EXPECT_EQ(std::string(duckdb_string_t_data(s), duckdb_string_t_length(*s)), "VARCHAR INTEGER");
}

TEST(ParquetReaderTest, UtcAdjustedTimeReadsAsMillisecondsOfTheDay) {
  // Java writes TIME as INT32 TIME(MILLIS, isAdjustedToUTC = true), which DuckDB reads as TIME WITH TIME
  // ZONE; DuckDB writes such a column as INT64 micros, read the same way.
  testing::TempDir dir;
  DuckDB db = OpenDb();
  auto conn = db.Connect();
  ASSERT_TRUE(conn.ok());
  std::string path = JoinPath(dir.path(), "time.parquet");
  ASSERT_TRUE(conn->Execute("COPY (SELECT '12:34:56.789+00'::TIMETZ AS t UNION ALL SELECT NULL) TO " +
                            QuoteSqlString(path) + " (FORMAT parquet)")
                  .ok());
  auto reader = ParquetFileReader::Open(db, path, {{"t", std::nullopt, DataType::Time(3)}});
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto rows = (*reader)->ReadAll();
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0][0], Datum(int64_t{(12 * 3600 + 34 * 60 + 56) * 1000 + 789}));
  EXPECT_TRUE((*rows)[1][0].is_null());
}

}  // namespace
}  // namespace tide
