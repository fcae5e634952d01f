#include "tide/format/avro_data_file_reader.h"

#include <gtest/gtest.h>

#include "tide/codec/avro_writer.h"
#include "tide/io/file_system.h"
#include "testing/temp_dir.h"

namespace tide {
namespace {

// A primary-key data file as Java's AvroSchemaConverter lays it out for
// (k INT NOT NULL, s STRING, d DECIMAL(10, 2), ts3 TIMESTAMP(3), ts6 TIMESTAMP(6), day DATE, t TIME(3),
//  ms MAP<STRING, BIGINT>, mi MAP<INT, STRING>, a ARRAY<INT>, r ROW<x INT, y STRING>, set MULTISET<STRING>).
constexpr const char* kSchema = R"json({"type": "record", "name": "record", "namespace": "org.apache.paimon.avro.generated",
  "fields": [
    {"name": "_KEY_k", "type": "int"},
    {"name": "_SEQUENCE_NUMBER", "type": "long"},
    {"name": "_VALUE_KIND", "type": "int"},
    {"name": "k", "type": "int"},
    {"name": "s", "type": ["null", "string"], "default": null},
    {"name": "d", "type": ["null", {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2}], "default": null},
    {"name": "ts3", "type": ["null", {"type": "long", "logicalType": "timestamp-millis"}], "default": null},
    {"name": "ts6", "type": ["null", {"type": "long", "logicalType": "timestamp-micros"}], "default": null},
    {"name": "day", "type": ["null", {"type": "int", "logicalType": "date"}], "default": null},
    {"name": "t", "type": ["null", {"type": "int", "logicalType": "time-millis"}], "default": null},
    {"name": "ms", "type": ["null", {"type": "map", "values": ["null", "long"]}], "default": null},
    {"name": "mi", "type": ["null", {"type": "array", "logicalType": "map", "items": {"type": "record", "name": "record_mi",
        "fields": [{"name": "key", "type": "int"}, {"name": "value", "type": ["null", "string"], "default": null}]}}], "default": null},
    {"name": "a", "type": ["null", {"type": "array", "items": ["null", "int"]}], "default": null},
    {"name": "r", "type": ["null", {"type": "record", "name": "record_r",
        "fields": [{"name": "x", "type": ["null", "int"], "default": null}, {"name": "y", "type": ["null", "string"], "default": null}]}], "default": null},
    {"name": "set", "type": ["null", {"type": "map", "values": "int"}], "default": null}]})json";

std::string BigEndian(int64_t v, int bytes) {
  std::string out(static_cast<size_t>(bytes), '\0');
  for (int i = bytes - 1; i >= 0; --i) {
    out[static_cast<size_t>(i)] = static_cast<char>(v & 0xff);
    v >>= 8;
  }
  return out;
}

std::vector<ParquetColumnSpec> Columns() {
  std::vector<DataField> row_fields(2);
  row_fields[0].id = 0;
  row_fields[0].name = "x";
  row_fields[0].type = DataType::Int();
  row_fields[1].id = 1;
  row_fields[1].name = "y";
  row_fields[1].type = DataType::String();
  return {
      {"_KEY_k", std::nullopt, DataType::Int(false)},
      {"_SEQUENCE_NUMBER", std::nullopt, DataType::BigInt(false)},
      {"_VALUE_KIND", std::nullopt, DataType::TinyInt(false)},
      {"s", std::nullopt, DataType::String()},
      {"d", std::nullopt, DataType::Decimal(10, 2)},
      {"ts3", std::nullopt, DataType::Timestamp(3)},
      {"ts6", std::nullopt, DataType::Timestamp(6)},
      {"day", std::nullopt, DataType::Date()},
      {"t", std::nullopt, DataType::Time(3)},
      {"ms", std::nullopt, DataType::Map(DataType::String(false), DataType::BigInt())},
      {"mi", std::nullopt, DataType::Map(DataType::Int(false), DataType::String())},
      {"a", std::nullopt, DataType::Array(DataType::Int())},
      {"r", std::nullopt, DataType::Row(row_fields)},
      {"set", std::nullopt, DataType::Multiset(DataType::String(false))},
      {"added_later", std::nullopt, DataType::BigInt()},
  };
}

class AvroDataFileReaderTest : public ::testing::Test {
 protected:
  std::string WriteFile(const std::vector<AvroValue>& records) {
    AvroWriterOptions options;
    options.block_max_records = 2;  // several blocks
    auto writer = AvroWriter::Create(kSchema, options);
    EXPECT_TRUE(writer.ok()) << writer.status().ToString();
    for (const AvroValue& r : records) {
      Status s = (*writer)->Append(r);
      EXPECT_TRUE(s.ok()) << s.ToString();
    }
    auto bytes = (*writer)->Finish();
    EXPECT_TRUE(bytes.ok());
    std::string path = dir_.path() + "/data-0.avro";
    EXPECT_TRUE(FileSystem::Local()->WriteFileAtomic(path, *bytes).ok());
    return path;
  }

  tide::testing::TempDir dir_;
};

TEST_F(AvroDataFileReaderTest, ReadsEveryTypeAsPaimonWritesIt) {
  using V = AvroValue;
  std::vector<V> records;
  records.push_back(V::Record({V::Int(7), V::Long(100), V::Int(0), V::Int(7), V::String("héllo"),
                               V::Bytes(BigEndian(-12345, 2)),                     // -123.45
                               V::Long(-1), V::Long(1'700'000'000'123'456), V::Int(-1), V::Int(86'399'999),
                               V::Map({{"a", V::Long(1)}, {"b", V::Null()}}),
                               V::Array({V::Record({V::Int(3), V::String("three")}), V::Record({V::Int(-1), V::Null()})}),
                               V::Array({V::Int(1), V::Null(), V::Int(-3)}), V::Record({V::Int(5), V::Null()}),
                               V::Map({{"x", V::Int(2)}})}));
  records.push_back(V::Record({V::Int(8), V::Long(101), V::Int(3), V::Int(8), V::Null(), V::Null(), V::Null(),
                               V::Null(), V::Null(), V::Null(), V::Null(), V::Null(), V::Null(), V::Null(), V::Null()}));
  records.push_back(V::Record({V::Int(9), V::Long(102), V::Int(2), V::Int(9), V::String(""),
                               V::Bytes(BigEndian(99999999, 4)), V::Long(0), V::Long(-1), V::Int(0), V::Int(0),
                               V::Map({}), V::Array({}), V::Array({}), V::Record({V::Null(), V::String("y")}), V::Map({})}));
  std::string path = WriteFile(records);

  auto reader = AvroDataFileReader::Open(path, Columns());
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  ASSERT_EQ((*reader)->missing_columns(), std::vector<size_t>{14});  // added_later
  std::vector<Row> rows;
  std::vector<int64_t> positions;
  while (true) {
    auto more = (*reader)->NextBatch(2, &rows, &positions);
    ASSERT_TRUE(more.ok()) << more.status().ToString();
    if (!*more) break;
  }
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(positions, (std::vector<int64_t>{0, 1, 2}));

  const Row& r0 = rows[0];
  EXPECT_EQ(r0[0], Datum(int64_t{7}));
  EXPECT_EQ(r0[1], Datum(int64_t{100}));
  EXPECT_EQ(r0[2], Datum(int64_t{0}));
  EXPECT_EQ(r0[3], Datum("héllo"));
  EXPECT_EQ(r0[4], Datum(DecimalValue{-12345}));
  EXPECT_EQ(r0[5], Datum(TimestampValue{-1, 0}));
  EXPECT_EQ(r0[6], Datum(TimestampValue{1'700'000'000'123, 456'000}));
  EXPECT_EQ(r0[7], Datum(int64_t{-1}));
  EXPECT_EQ(r0[8], Datum(int64_t{86'399'999}));
  EXPECT_EQ(r0[9], Datum::Nested({Datum("a"), Datum(int64_t{1}), Datum("b"), Datum()}));
  EXPECT_EQ(r0[10], Datum::Nested({Datum(int64_t{3}), Datum("three"), Datum(int64_t{-1}), Datum()}));
  EXPECT_EQ(r0[11], Datum::Nested({Datum(int64_t{1}), Datum(), Datum(int64_t{-3})}));
  EXPECT_EQ(r0[12], Datum::Nested({Datum(int64_t{5}), Datum()}));
  EXPECT_EQ(r0[13], Datum::Nested({Datum("x"), Datum("x")}));
  EXPECT_TRUE(r0[14].is_null());

  for (size_t c = 3; c < rows[1].size(); ++c) EXPECT_TRUE(rows[1][c].is_null()) << "column " << c;

  const Row& r2 = rows[2];
  EXPECT_EQ(r2[3], Datum(""));
  EXPECT_EQ(r2[4], Datum(DecimalValue{99999999}));
  EXPECT_EQ(r2[6], Datum(TimestampValue{-1, 999'000}));  // one microsecond before the epoch
  EXPECT_EQ(r2[9], Datum::Nested({}));
  EXPECT_EQ(r2[12], Datum::Nested({Datum(), Datum("y")}));
  EXPECT_EQ(r2[13], Datum::Nested({}));
}

TEST_F(AvroDataFileReaderTest, AValueOfAnotherTypeIsCorruptionNamingFileAndColumn) {
  using V = AvroValue;
  std::string path = WriteFile({V::Record({V::Int(1), V::Long(1), V::Int(0), V::Int(1), V::String("s"), V::Null(), V::Null(),
                                           V::Null(), V::Null(), V::Null(), V::Null(), V::Null(), V::Null(), V::Null(),
                                           V::Null()})});
  // `s` holds a string; asking for it as BIGINT must not reinterpret the bytes.
  auto reader = AvroDataFileReader::Open(path, {{"s", std::nullopt, DataType::BigInt()}});
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  std::vector<Row> rows;
  std::vector<int64_t> positions;
  auto more = (*reader)->NextBatch(10, &rows, &positions);
  ASSERT_FALSE(more.ok());
  EXPECT_TRUE(more.status().IsCorruption()) << more.status().ToString();
  EXPECT_NE(more.status().ToString().find(path), std::string::npos) << more.status().ToString();
  EXPECT_NE(more.status().ToString().find("column 's'"), std::string::npos) << more.status().ToString();
}

TEST_F(AvroDataFileReaderTest, TypesWithoutAnAvroFormAreRefusedByName) {
  std::string path = WriteFile({});
  auto reader = AvroDataFileReader::Open(path, {{"ts9", std::nullopt, DataType::Timestamp(9)}});
  ASSERT_FALSE(reader.ok());
  EXPECT_TRUE(reader.status().IsNotSupported()) << reader.status().ToString();
  EXPECT_NE(reader.status().ToString().find("'ts9'"), std::string::npos) << reader.status().ToString();
}

TEST_F(AvroDataFileReaderTest, DamagedFileIsCorruptionAndMissingFileNotFound) {
  std::string path = WriteFile({});
  auto bytes = FileSystem::Local()->ReadFile(path);
  ASSERT_TRUE(bytes.ok());
  std::string damaged = dir_.path() + "/damaged.avro";
  ASSERT_TRUE(FileSystem::Local()->WriteFileAtomic(damaged, bytes->substr(0, bytes->size() / 2)).ok());
  auto reader = AvroDataFileReader::Open(damaged, Columns());
  ASSERT_FALSE(reader.ok());
  EXPECT_TRUE(reader.status().IsCorruption()) << reader.status().ToString();
  EXPECT_NE(reader.status().ToString().find(damaged), std::string::npos);
  auto missing = AvroDataFileReader::Open(dir_.path() + "/nothing.avro", Columns());
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(missing.status().IsNotFound()) << missing.status().ToString();
}

}  // namespace
}  // namespace tide
