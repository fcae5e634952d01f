#include "tide/codec/binary_row.h"

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tide/base/bytes.h"
#include "tide/codec/murmur_hash.h"

namespace tide {
namespace {

std::string Hex(std::string_view hex) {
  Result<std::string> bytes = HexDecode(hex);
  EXPECT_TRUE(bytes.ok()) << hex;
  return bytes.ok() ? *bytes : std::string();
}

Datum Ts(int64_t millis, int32_t nanos = 0) { return Datum(TimestampValue{millis, nanos}); }
Datum Dec(int128_t unscaled) { return Datum(DecimalValue{unscaled}); }
Datum Nested(std::vector<Datum> items) { return Datum::Nested(std::move(items)); }
DataField Field(int32_t id, std::string name, DataType type) {
  DataField f;
  f.id = id;
  f.name = std::move(name);
  f.type = std::move(type);
  return f;
}

int128_t Pow10(int n) {
  int128_t v = 1;
  for (int i = 0; i < n; ++i) v *= 10;
  return v;
}

// Decodes `serialized` (manifest form) with `types`, expects `expected`, and re-encodes `expected`
// expecting the very same bytes: Tide reads what Java wrote and writes what Java writes.
void ExpectJavaBytes(std::string_view serialized_hex, const std::vector<DataType>& types, const Row& expected) {
  const std::string serialized = Hex(serialized_hex);
  Result<Row> decoded = DeserializeBinaryRow(serialized, types);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  ASSERT_EQ(decoded->size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ((*decoded)[i], expected[i]) << "field " << i << ": " << DatumToString((*decoded)[i], types[i]);
  }
  Result<std::string> encoded = EncodeSerializedBinaryRow(expected, types);
  ASSERT_TRUE(encoded.ok()) << encoded.status().ToString();
  EXPECT_EQ(HexEncode(*encoded), HexEncode(serialized));
}

// ------------------------------------------------------------------------------------------------
// Layout

TEST(BinaryRowTest, NullBitsAndFixedPartSizes) {
  EXPECT_EQ(BinaryRowNullBitsSize(0), 8);
  EXPECT_EQ(BinaryRowNullBitsSize(1), 8);
  EXPECT_EQ(BinaryRowNullBitsSize(56), 8);
  EXPECT_EQ(BinaryRowNullBitsSize(57), 16);
  EXPECT_EQ(BinaryRowNullBitsSize(120), 16);
  EXPECT_EQ(BinaryRowNullBitsSize(121), 24);
  EXPECT_EQ(BinaryRowFixedPartSize(0), 8);
  EXPECT_EQ(BinaryRowFixedPartSize(2), 24);
  EXPECT_EQ(BinaryRowFixedPartSize(57), 16 + 57 * 8);
}

// PAIMON_FORMAT.md §5.1: the partition (INT 10) in its manifest form.
TEST(BinaryRowTest, PaimonFormatSection51PartitionExample) {
  ExpectJavaBytes("00000001 0000000000000000 0a00000000000000", {DataType::Int(false)}, {Datum(10)});
}

TEST(BinaryRowTest, EmptyRowIsEightZeroBytes) {
  ExpectJavaBytes("00000000 0000000000000000", {}, {});
  EXPECT_EQ(EncodeBinaryRow({}, {}).value(), std::string(8, '\0'));
}

TEST(BinaryRowTest, RowKindIsByteZero) {
  const std::vector<DataType> types = {DataType::Int()};
  BinaryRowWriter writer(types);
  const Row row = {Datum(5)};
  EXPECT_EQ(HexEncode(writer.Write(row, RowKind::kDelete).value()), "03000000000000000500000000000000");
  EXPECT_EQ(HexEncode(writer.Write(row, RowKind::kUpdateAfter).value()), "02000000000000000500000000000000");
  const std::string bytes = writer.Write(row, RowKind::kUpdateBefore).value();
  BinaryRowView view = BinaryRowView::Create(bytes, 1).value();
  EXPECT_EQ(view.row_kind_byte(), 1);
  EXPECT_EQ(view.GetField(0, types[0]).value(), Datum(5));
}

TEST(BinaryRowTest, NullBitOfFieldIIsBitIPlus8) {
  std::vector<DataType> types(60, DataType::Int());
  Row row(60);
  for (int i = 0; i < 60; ++i) row[i] = (i % 3 == 0) ? Datum() : Datum(i);
  const std::string bytes = EncodeBinaryRow(row, types).value();
  ASSERT_EQ(bytes.size(), static_cast<size_t>(16 + 60 * 8));
  for (int i = 0; i < 60; ++i) {
    const int bit = i + 8;
    EXPECT_EQ(((static_cast<uint8_t>(bytes[bit / 8]) >> (bit % 8)) & 1) != 0, i % 3 == 0) << i;
  }
  BinaryRowView view = BinaryRowView::Create(bytes, 60).value();
  for (int i = 0; i < 60; ++i) EXPECT_EQ(view.IsNullAt(i), i % 3 == 0);
  EXPECT_EQ(view.ToRow(types).value(), row);
}

// ------------------------------------------------------------------------------------------------
// Bytes written by Java Paimon, from the manifests of the fixture tables in tests/fixtures/paimon-java/
// (extracted with an Avro dump; file and field named at each vector). Expected values are the rows the
// tables' READMEs list and the stats rules of PAIMON_FORMAT.md §4.3.

// pk_09: primary key (f0 STRING, f1 INT, f2 INT), partition f1, so the trimmed key is (f0, f2).
const std::vector<DataType> kPk09KeyTypes = {DataType::String(false), DataType::Int(false)};
const std::vector<DataType> kPk09ValueStatsTypes = {DataType::String(), DataType::Int(), DataType::Int(),
                                                    DataType::Double()};
constexpr std::string_view kTwoRoads =
    "Two roads diverged in a wood, and I took the one less traveled by, And that has made all the "
    "difference.";

// pk_09 manifest-8cf79434-32e4-4029-bf8e-befe856d268f-0, first entry (data-0f3a001e-...-0.parquet).
constexpr std::string_view kPk09MaxKeyHex =
    "00000002 0000000000000000 6800000018000000 0100000000000000"
    "54776f20726f61647320646976657267656420696e206120776f6f642c20616e64204920746f6f6b20746865206f6e65"
    "206c6573732074726176656c65642062792c20416e64207468617420686173206d61646520616c6c2074686520646966"
    "666572656e63652e";

TEST(BinaryRowJavaBytesTest, Pk09PartitionAndKeys) {
  ExpectJavaBytes("00000001 0000000000000000 0a00000000000000", {DataType::Int(false)}, {Datum(10)});
  ExpectJavaBytes("00000001 0000000000000000 1400000000000000", {DataType::Int(false)}, {Datum(20)});
  // _MIN_KEY: 'Alice' inline (PAIMON_FORMAT.md §5.3: 41 6c 69 63 65 00 00 85).
  ExpectJavaBytes("00000002 0000000000000000 416c696365000085 0100000000000000", kPk09KeyTypes,
                  {Datum("Alice"), Datum(1)});
  // _MAX_KEY: PAIMON_FORMAT.md §5.4, a 104-byte string at offset 24.
  ExpectJavaBytes(kPk09MaxKeyHex, kPk09KeyTypes, {Datum(kTwoRoads), Datum(1)});
  // _MIN_KEY of the bucket-1 file data-6d416200-...-0.parquet: 'Alex', f2 = 0.
  ExpectJavaBytes("00000002 0000000000000000 416c657800000084 0000000000000000", kPk09KeyTypes,
                  {Datum("Alex"), Datum(0)});
}

TEST(BinaryRowJavaBytesTest, Pk09StatsRows) {
  // _KEY_STATS._MAX_VALUES: the key truncated to 16 characters, last one incremented ('g' -> 'h').
  ExpectJavaBytes(
      "00000002 0000000000000000 1000000018000000 0100000000000000 54776f20726f61647320646976657268",
      kPk09KeyTypes, {Datum("Two roads diverh"), Datum(1)});
  // _VALUE_STATS of the same file: ('Alice', 10, 1, 11.0) .. ('Two roads diverh', 10, 1, 11.1).
  ExpectJavaBytes(
      "00000004 0000000000000000 416c696365000085 0a00000000000000 0100000000000000 0000000000002640",
      kPk09ValueStatsTypes, {Datum("Alice"), Datum(10), Datum(1), Datum(11.0)});
  ExpectJavaBytes(
      "00000004 0000000000000000 1000000028000000 0a00000000000000 0100000000000000 3333333333332640"
      "54776f20726f61647320646976657268",
      kPk09ValueStatsTypes, {Datum("Two roads diverh"), Datum(10), Datum(1), Datum(11.1)});
}

// pk_09 manifest-8cf79434-...-7, _MAX_KEY of data-0f3a001e-...-1.parquet: a 55-byte string is padded
// with one zero byte to 56.
TEST(BinaryRowJavaBytesTest, Pk09OddLengthStringIsZeroPadded) {
  ExpectJavaBytes(
      "00000002 0000000000000000 3700000018000000 0100000000000000"
      "576865746865722049207368616c6c207475726e206f757420746f20626520746865206865726f206f66206d79206f776e"
      "206c6966652e00",
      kPk09KeyTypes, {Datum("Whether I shall turn out to be the hero of my own life."), Datum(1)});
}

// append_complex_data (f1 INT, f2 INT, f3 DATE, f4 TIMESTAMP(9), f5 DECIMAL(23, 5), f6 BYTES): the
// _VALUE_STATS rows. f4 (INT96 in Parquet) and f6 have no min/max, so they are NULL; a NULL
// DECIMAL(23, 5) still reserves 16 zero bytes and a NULL TIMESTAMP(9) 8.
const std::vector<DataType> kComplexTypes = {DataType::Int(),           DataType::Int(),
                                             DataType::Date(),          DataType::Timestamp(9),
                                             DataType::Decimal(23, 5),  DataType::Bytes()};

TEST(BinaryRowJavaBytesTest, AppendComplexDataStats) {
  // manifest-062da773-...-0, data-35f2719c-...-1.parquet (snapshot 2, f1=10: dad, eat, fat rows).
  ExpectJavaBytes(
      "00000006 0028000000000000 0a00000000000000 0100000000000000 0000000000000000 0000000038000000"
      "0400000040000000 0000000000000000 0000000000000000 ff43a15800000000 0000000000000000",
      kComplexTypes, {Datum(10), Datum(1), Datum(0), Datum(), Dec(-12345000), Datum()});
  ExpectJavaBytes(
      "00000006 0028000000000000 0a00000000000000 0100000000000000 6400000000000000 0000000038000000"
      "0100000040000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000",
      kComplexTypes, {Datum(10), Datum(1), Datum(100), Datum(), Dec(0), Datum()});
  // manifest-062da773-...-0, data-e0a6a424-...-0.parquet (snapshot 2, f1=20: the 'get' row).
  ExpectJavaBytes(
      "00000006 0028000000000000 1400000000000000 0000000000000000 9cffffff00000000 0000000038000000"
      "0100000040000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000",
      kComplexTypes, {Datum(20), Datum(0), Datum(-100), Datum(), Dec(0), Datum()});
  // manifest-59f4b612-...-0, data-35f2719c-...-2.parquet (snapshot 3: 1728551410100.10010).
  ExpectJavaBytes(
      "00000006 0028000000000000 0a00000000000000 0100000000000000 264e000000000000 0000000038000000"
      "0800000040000000 0000000000000000 0000000000000000 02661ad5bd806f9a 0000000000000000",
      kComplexTypes, {Datum(10), Datum(1), Datum(20006), Datum(), Dec(172855141010010010), Datum()});
  // manifest-f0b7a2bd-...-0, data-35f2719c-...-0.parquet (snapshot 1, f1=10): 12.30000 and
  // 123456789987654321.45678 (10 bytes).
  const int128_t big = static_cast<int128_t>(1234567899876543214LL) * 10000 + 5678;
  ExpectJavaBytes(
      "00000006 0028000000000000 0a00000000000000 0100000000000000 d204000000000000 0000000038000000"
      "0300000040000000 0000000000000000 0000000000000000 12c4b00000000000 0000000000000000",
      kComplexTypes, {Datum(10), Datum(1), Datum(1234), Datum(), Dec(1230000), Datum()});
  ExpectJavaBytes(
      "00000006 0028000000000000 0a00000000000000 0100000000000000 c54d000000000000 0000000038000000"
      "0a00000040000000 0000000000000000 0000000000000000 029d42b6a72a9dc7 070e000000000000",
      kComplexTypes, {Datum(10), Datum(1), Datum(19909), Datum(), Dec(big), Datum()});
  // manifest-f0b7a2bd-...-0, data-ac0894ca-...-0.parquet (snapshot 1, f1=20): negatives.
  ExpectJavaBytes(
      "00000006 0028000000000000 1400000000000000 0100000000000000 2efbffff00000000 0000000038000000"
      "0a00000040000000 0000000000000000 0000000000000000 fd62bd4958d56238 f8f2000000000000",
      kComplexTypes, {Datum(20), Datum(1), Datum(-1234), Datum(), Dec(-big), Datum()});
}

// append_with_multiple_ts_precision_and_timezone, manifest of snapshot 1: _VALUE_STATS over
// TIMESTAMP(0/3/6/9) and their LTZ variants. Precision 0 and 3 are compact (millis in the slot); 6 and 9
// keep millis in the variable part and nanos-of-milli in the slot; the (9) columns have no stats.
TEST(BinaryRowJavaBytesTest, TimestampPrecisionsStats) {
  const std::vector<DataType> types = {DataType::Timestamp(0),    DataType::Timestamp(3),
                                       DataType::Timestamp(6),    DataType::Timestamp(9),
                                       DataType::TimestampLtz(0), DataType::TimestampLtz(3),
                                       DataType::TimestampLtz(6), DataType::TimestampLtz(9)};
  ExpectJavaBytes(
      "00000008 0088000000000000 e803000000000000 0100000000000000 e803000048000000 0000000050000000"
      "d007000000000000 0200000000000000 d007000058000000 0000000060000000"
      "0000000000000000 0000000000000000 0000000000000000 0000000000000000",
      types, {Ts(1000), Ts(1), Ts(0, 1000), Datum(), Ts(2000), Ts(2), Ts(0, 2000), Datum()});
  ExpectJavaBytes(
      "00000008 0088000000000000 8813000000000000 0500000000000000 e803000048000000 0000000050000000"
      "7017000000000000 0400000000000000 7017000058000000 0000000060000000"
      "0000000000000000 0000000000000000 0000000000000000 0000000000000000",
      types, {Ts(5000), Ts(5), Ts(0, 1000), Datum(), Ts(6000), Ts(4), Ts(0, 6000), Datum()});
}

TEST(BinaryRowJavaBytesTest, HashOfJavaKeyMatchesBinaryRowView) {
  // SplitSerializedBinaryRow borrows the bytes: keep them alive.
  const std::string serialized = Hex(kPk09MaxKeyHex);
  const SerializedBinaryRow row = SplitSerializedBinaryRow(serialized).value();
  EXPECT_EQ(row.arity, 2);
  EXPECT_EQ(row.row_bytes.size(), 128u);
  BinaryRowView view = BinaryRowView::Create(row.row_bytes, row.arity).value();
  EXPECT_EQ(view.HashCode(), MurmurHashBytes(row.row_bytes));
  EXPECT_EQ(view.GetField(0, kPk09KeyTypes[0]).value(), Datum(kTwoRoads));
}

// ------------------------------------------------------------------------------------------------
// Slot layouts, from Java's AbstractBinaryWriter / BinaryRowWriter

TEST(BinaryRowTest, StringsUpToSevenBytesAreInline) {
  const std::vector<DataType> types = {DataType::String()};
  auto encode = [&](std::string s) { return HexEncode(EncodeBinaryRow({{Datum(s)}}, types).value()); };
  EXPECT_EQ(encode(""), "0000000000000000" "0000000000000080");
  EXPECT_EQ(encode("a"), "0000000000000000" "6100000000000081");
  EXPECT_EQ(encode("abcdefg"), "0000000000000000" "6162636465666787");
  // Eight bytes go to the variable part: slot (offset 16 << 32) | 8, no padding needed.
  EXPECT_EQ(encode("abcdefgh"), "0000000000000000" "0800000010000000" "6162636465666768");
  // Nine bytes: padded with zeros to 16.
  EXPECT_EQ(encode("abcdefghi"),
            "0000000000000000" "0900000010000000" "6162636465666768" "6900000000000000");
}

TEST(BinaryRowTest, BinaryUsesTheStringLayout) {
  const std::vector<DataType> types = {DataType::Bytes(), DataType::Binary(3)};
  const Row row = {Datum(std::string("\x00\xff\x80\x7f\x01\x02\x03\x04", 8)), Datum(std::string("\xff\x00\x01", 3))};
  const std::string bytes = EncodeBinaryRow(row, types).value();
  EXPECT_EQ(HexEncode(bytes), "0000000000000000" "0800000018000000" "ff00010000000083" "00ff807f01020304");
  EXPECT_EQ(DecodeBinaryRow(bytes, types).value(), row);
}

TEST(BinaryRowTest, NonCompactDecimalUsesMinimalBigEndianBytesIn16ReservedBytes) {
  const std::vector<DataType> types = {DataType::Decimal(38, 0)};
  auto encode = [&](int128_t v) { return HexEncode(EncodeBinaryRow({{Dec(v)}}, types).value()); };
  EXPECT_EQ(encode(0), "0000000000000000" "0100000010000000" "0000000000000000" "0000000000000000");
  EXPECT_EQ(encode(-1), "0000000000000000" "0100000010000000" "ff00000000000000" "0000000000000000");
  EXPECT_EQ(encode(127), "0000000000000000" "0100000010000000" "7f00000000000000" "0000000000000000");
  EXPECT_EQ(encode(128), "0000000000000000" "0200000010000000" "0080000000000000" "0000000000000000");
  EXPECT_EQ(encode(-128), "0000000000000000" "0100000010000000" "8000000000000000" "0000000000000000");
  EXPECT_EQ(encode(-129), "0000000000000000" "0200000010000000" "ff7f000000000000" "0000000000000000");
  // 10^38 - 1 = 0x4b3b4ca85a86c47a098a223fffffffff: 16 bytes.
  EXPECT_EQ(encode(Pow10(38) - 1), "0000000000000000" "1000000010000000" "4b3b4ca85a86c47a098a223fffffffff");
  EXPECT_EQ(encode(-(Pow10(38) - 1)), "0000000000000000" "1000000010000000" "b4c4b357a5793b85f675ddc000000001");
}

TEST(BinaryRowTest, NullNonCompactDecimalAndTimestampReserveTheirBytes) {
  const std::vector<DataType> types = {DataType::Decimal(20, 2), DataType::Timestamp(6), DataType::Decimal(18, 2),
                                       DataType::Timestamp(3), DataType::String()};
  const std::string bytes = EncodeBinaryRow({{Datum(), Datum(), Datum(), Datum(), Datum()}}, types).value();
  EXPECT_EQ(HexEncode(bytes),
            "001f000000000000"                    // null bits 8..12
            "0000000030000000" "0000000040000000"  // offsets kept: 48 and 64, size 0
            "0000000000000000" "0000000000000000" "0000000000000000"
            "0000000000000000" "0000000000000000"  // 16 reserved decimal bytes
            "0000000000000000");                  // 8 reserved timestamp bytes
  EXPECT_EQ(DecodeBinaryRow(bytes, types).value(), Row(5));
}

TEST(BinaryRowTest, NonCompactTimestampKeepsMillisInVarPartAndNanosInSlot) {
  const std::vector<DataType> types = {DataType::TimestampLtz(9)};
  // 1899-12-31 23:59:59.999999999 is millis -2208988800001 with 999999 nanos.
  const Row row = {Ts(-2208988800001LL, 999999)};
  const std::string bytes = EncodeBinaryRow(row, types).value();
  EXPECT_EQ(HexEncode(bytes), "0000000000000000" "3f420f0010000000" "ffdb01aefdfdffff");
  EXPECT_EQ(DecodeBinaryRow(bytes, types).value(), row);
}

TEST(BinaryRowTest, CompactTimestampKeepsOnlyMillis) {
  const std::vector<DataType> types = {DataType::Timestamp(3)};
  const std::string bytes = EncodeBinaryRow({{Ts(-1, 500)}}, types).value();
  EXPECT_EQ(HexEncode(bytes), "0000000000000000" "ffffffffffffffff");
  EXPECT_EQ(DecodeBinaryRow(bytes, types).value(), Row{Ts(-1)});
}

// ------------------------------------------------------------------------------------------------
// Nested values: BinaryArray ([count][null bits in 4-byte words][elements][var part], fixed part rounded
// to 8), BinaryMap ([key-array size][keys][values]) and nested BinaryRow, offsets relative to each.

TEST(BinaryRowTest, ArrayOfIntLayout) {
  const std::vector<DataType> types = {DataType::Array(DataType::Int())};
  const Row row = {Nested({Datum(1), Datum(), Datum(3)})};
  const std::string bytes = EncodeBinaryRow(row, types).value();
  EXPECT_EQ(HexEncode(bytes),
            "0000000000000000" "1800000010000000"                     // array: 24 bytes at 16
            "03000000" "02000000" "01000000" "00000000" "03000000" "00000000");
  EXPECT_EQ(DecodeBinaryRow(bytes, types).value(), row);
}

TEST(BinaryRowTest, ArrayOfBooleanUsesOneBytePerElement) {
  const std::vector<DataType> types = {DataType::Array(DataType::Boolean())};
  const Row row = {Nested({Datum(true), Datum(false), Datum()})};
  const std::string bytes = EncodeBinaryRow(row, types).value();
  EXPECT_EQ(HexEncode(bytes), "0000000000000000" "1000000010000000" "03000000" "04000000" "0100000000000000");
  EXPECT_EQ(DecodeBinaryRow(bytes, types).value(), row);
}

TEST(BinaryRowTest, ArrayElementsWithVarPartUseArrayRelativeOffsets) {
  const std::vector<DataType> types = {DataType::Int(), DataType::Array(DataType::String())};
  const Row row = {Datum(7), Nested({Datum("abcdefgh"), Datum("xy")})};
  const std::string bytes = EncodeBinaryRow(row, types).value();
  EXPECT_EQ(HexEncode(bytes),
            "0000000000000000" "0700000000000000" "2000000018000000"  // array: 32 bytes at 24
            "02000000" "00000000" "0800000018000000" "7879000000000082" "6162636465666768");
  EXPECT_EQ(DecodeBinaryRow(bytes, types).value(), row);
}

TEST(BinaryRowTest, ArrayOfDecimalAndTimestamp) {
  // In arrays a NULL non-compact decimal is only a null bit (setNullAt(pos, type) -> setNullLong).
  const std::vector<DataType> types = {DataType::Array(DataType::Decimal(20, 2)),
                                       DataType::Array(DataType::Timestamp(6))};
  const Row row = {Nested({Dec(100), Datum()}), Nested({Ts(-1, 999999)})};
  const std::string bytes = EncodeBinaryRow(row, types).value();
  EXPECT_EQ(HexEncode(bytes),
            "0000000000000000" "2800000018000000" "1800000040000000"
            // decimal array (40 bytes at 24): two elements, the second NULL; 16 bytes for 100 at 24.
            "02000000" "02000000" "0100000018000000" "0000000000000000" "6400000000000000" "0000000000000000"
            // timestamp array (24 bytes at 64): millis -1 at 16, nanos 999999 in the element.
            "01000000" "00000000" "3f420f0010000000" "ffffffffffffffff");
  EXPECT_EQ(DecodeBinaryRow(bytes, types).value(), row);
}

TEST(BinaryRowTest, MapLayout) {
  const std::vector<DataType> types = {DataType::Map(DataType::String(false), DataType::Int())};
  const Row row = {Nested({Datum("a"), Datum(1), Datum("bb"), Datum()})};
  const std::string bytes = EncodeBinaryRow(row, types).value();
  EXPECT_EQ(HexEncode(bytes),
            "0000000000000000" "2c00000010000000"  // 44 bytes at 16, padded to 48
            "18000000"                             // key array: 24 bytes
            "02000000" "00000000" "6100000000000081" "6262000000000082"
            "02000000" "02000000" "01000000" "00000000"  // value array: 16 bytes, second NULL
            "00000000");
  EXPECT_EQ(DecodeBinaryRow(bytes, types).value(), row);
}

TEST(BinaryRowTest, NestedRowLayout) {
  const DataType nested = DataType::Row({Field(1, "a", DataType::Int()), Field(2, "b", DataType::String())});
  const std::vector<DataType> types = {nested};
  const Row row = {Nested({Datum(7), Datum("hello world!")})};
  const std::string bytes = EncodeBinaryRow(row, types).value();
  EXPECT_EQ(HexEncode(bytes),
            "0000000000000000" "2800000010000000"
            "0000000000000000" "0700000000000000" "0c00000018000000" "68656c6c6f20776f" "726c642100000000");
  EXPECT_EQ(DecodeBinaryRow(bytes, types).value(), row);
}

TEST(BinaryRowTest, MultisetIsAMapOfCounts) {
  const std::vector<DataType> types = {DataType::Multiset(DataType::String())};
  const std::string bytes = EncodeBinaryRow({{Nested({Datum("x"), Datum("y"), Datum("x")})}}, types).value();
  EXPECT_EQ(HexEncode(bytes),
            "0000000000000000" "2c00000010000000" "18000000"
            "02000000" "00000000" "7800000000000081" "7900000000000081"  // keys x, y
            "02000000" "00000000" "02000000" "01000000"                  // counts 2, 1
            "00000000");
  // Decoding repeats each element by its count, grouped in key order.
  EXPECT_EQ(DecodeBinaryRow(bytes, types).value(), Row{Nested({Datum("x"), Datum("x"), Datum("y")})});
}

TEST(BinaryRowTest, ArrayNaNIsCanonicalizedRowNaNIsNot) {
  const float odd_nan = std::bit_cast<float>(0x7fc00001u);
  const std::vector<DataType> types = {DataType::Float(), DataType::Array(DataType::Float())};
  const std::string bytes = EncodeBinaryRow({{Datum(odd_nan), Nested({Datum(odd_nan)})}}, types).value();
  EXPECT_EQ(HexEncode(bytes), "0000000000000000" "0100c07f00000000" "1000000018000000" "01000000" "00000000"
                              "0000c07f00000000");
}

TEST(BinaryRowTest, DeeplyNestedRoundTrip) {
  const DataType inner = DataType::Row({Field(1, "k", DataType::BigInt()),
                                        Field(2, "tags", DataType::Array(DataType::String())),
                                        Field(3, "amount", DataType::Decimal(30, 4))});
  const std::vector<DataType> types = {
      DataType::Map(DataType::Int(false), DataType::Array(inner)),
      DataType::Array(DataType::Array(DataType::Int())),
      DataType::Array(DataType::Map(DataType::String(), DataType::Timestamp(9))),
  };
  const Row row = {
      Nested({Datum(1), Nested({Nested({Datum(int64_t{-5}), Nested({Datum("a"), Datum(), Datum("longer than 7")}),
                                         Dec(-(Pow10(29) + 7))}),
                                 Datum()}),
              Datum(2), Nested({})}),
      Nested({Nested({}), Datum(), Nested({Datum(1), Datum(2), Datum(3), Datum(4), Datum(5)})}),
      Nested({Nested({Datum("t"), Ts(-86400000, 123456)}), Nested({})}),
  };
  const std::string bytes = EncodeBinaryRow(row, types).value();
  EXPECT_EQ(bytes.size() % 8, 0u);
  EXPECT_EQ(DecodeBinaryRow(bytes, types).value(), row);
}

TEST(BinaryRowTest, ArrayNullBitsSpanSeveralWords) {
  const std::vector<DataType> types = {DataType::Array(DataType::SmallInt())};
  std::vector<Datum> items;
  for (int i = 0; i < 70; ++i) items.push_back(i % 5 == 0 ? Datum() : Datum(int64_t{i - 35}));
  const Row row = {Nested(items)};
  const std::string bytes = EncodeBinaryRow(row, types).value();
  // header 4 + 3 words of null bits = 16, 70 * 2 = 140 -> 156 rounded to 160.
  EXPECT_EQ(bytes.size(), 16u + 160u);
  EXPECT_EQ(DecodeBinaryRow(bytes, types).value(), row);
}

// ------------------------------------------------------------------------------------------------
// Every type round-trips writer -> reader with edge values.

std::vector<DataType> AllTypes() {
  return {DataType::Boolean(),          DataType::TinyInt(),          DataType::SmallInt(),
          DataType::Int(),              DataType::BigInt(),           DataType::Float(),
          DataType::Double(),           DataType::Date(),             DataType::Time(3),
          DataType::Decimal(10, 2),     DataType::Decimal(18, 0),     DataType::Decimal(19, 3),
          DataType::Decimal(38, 10),    DataType::Timestamp(0),       DataType::Timestamp(3),
          DataType::Timestamp(6),       DataType::Timestamp(9),       DataType::TimestampLtz(3),
          DataType::TimestampLtz(6),    DataType::Char(5),            DataType::VarChar(20),
          DataType::String(),           DataType::Binary(4),          DataType::VarBinary(10),
          DataType::Bytes(),            DataType::Array(DataType::Double()),
          DataType::Map(DataType::String(), DataType::BigInt()),     DataType::Multiset(DataType::Int()),
          DataType::Row({Field(1, "x", DataType::Int()), Field(2, "y", DataType::Timestamp(6))})};
}

void ExpectRoundTrip(const Row& row, const std::vector<DataType>& types) {
  Result<std::string> bytes = EncodeBinaryRow(row, types);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  EXPECT_EQ(bytes->size() % 8, 0u);
  Result<Row> decoded = DecodeBinaryRow(*bytes, types);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  ASSERT_EQ(decoded->size(), row.size());
  for (size_t i = 0; i < row.size(); ++i) {
    EXPECT_EQ((*decoded)[i], row[i]) << "field " << i << " " << types[i].ToString() << ": got "
                                     << DatumToString((*decoded)[i], types[i]) << ", want "
                                     << DatumToString(row[i], types[i]);
  }
  // And the serialized (manifest) form.
  Result<std::string> serialized = EncodeSerializedBinaryRow(row, types);
  ASSERT_TRUE(serialized.ok());
  EXPECT_EQ(*serialized, SerializeBinaryRow(*bytes, static_cast<int32_t>(types.size())));
  EXPECT_EQ(DeserializeBinaryRow(*serialized, types).value(), row);
}

TEST(BinaryRowRoundTripTest, MinimumValues) {
  ExpectRoundTrip({Datum(false), Datum(int64_t{INT8_MIN}), Datum(int64_t{INT16_MIN}), Datum(int64_t{INT32_MIN}),
                   Datum(std::numeric_limits<int64_t>::min()), Datum(-std::numeric_limits<float>::infinity()),
                   Datum(-std::numeric_limits<double>::infinity()), Datum(int64_t{-719162}) /* 0001-01-01 */,
                   Datum(int64_t{0}), Dec(-(Pow10(10) - 1)), Dec(-(Pow10(18) - 1)), Dec(-(Pow10(19) - 1)),
                   Dec(-(Pow10(38) - 1)), Ts(-62135596800000LL), Ts(std::numeric_limits<int64_t>::min()),
                   Ts(-62135596800000LL, 0), Ts(-1, 1), Ts(-1), Ts(-86400001, 999999), Datum(""), Datum(""),
                   Datum(""), Datum(std::string()), Datum(std::string()), Datum(std::string()), Nested({}),
                   Nested({}), Nested({}), Nested({Datum(INT32_MIN), Ts(-1, 999999)})},
                  AllTypes());
}

TEST(BinaryRowRoundTripTest, MaximumValues) {
  ExpectRoundTrip({Datum(true), Datum(int64_t{INT8_MAX}), Datum(int64_t{INT16_MAX}), Datum(int64_t{INT32_MAX}),
                   Datum(std::numeric_limits<int64_t>::max()), Datum(std::numeric_limits<float>::infinity()),
                   Datum(std::numeric_limits<double>::max()), Datum(int64_t{2932896}) /* 9999-12-31 */,
                   Datum(int64_t{86399999}), Dec(Pow10(10) - 1), Dec(Pow10(18) - 1), Dec(Pow10(19) - 1),
                   Dec(Pow10(38) - 1), Ts(253402300799000LL), Ts(std::numeric_limits<int64_t>::max()),
                   Ts(253402300799999LL, 999000), Ts(253402300799999LL, 999999), Ts(1), Ts(0, 999999),
                   Datum("abcde"), Datum(std::string(20, 'z')), Datum(std::string(1000, '\xff')),
                   Datum(std::string("\xff\xff\xff\xff", 4)), Datum(std::string(10, '\0')),
                   Datum(std::string(4096, 'b')),
                   Nested({Datum(std::numeric_limits<double>::infinity()), Datum(std::nan("")), Datum(),
                           Datum(-0.0)}),
                   Nested({Datum("k"), Datum(std::numeric_limits<int64_t>::max()), Datum("key number two"), Datum()}),
                   Nested({Datum(1), Datum(1), Datum()}), Nested({Datum(), Datum()})},
                  AllTypes());
}

TEST(BinaryRowRoundTripTest, SpecialAndBoundaryValues) {
  const std::vector<DataType> types = {DataType::Float(),   DataType::Double(),   DataType::Double(),
                                       DataType::Float(),   DataType::String(),   DataType::String(),
                                       DataType::String(),  DataType::Bytes(),    DataType::Decimal(5, 2),
                                       DataType::Decimal(20, 0), DataType::Decimal(38, 38)};
  ExpectRoundTrip({Datum(std::numeric_limits<float>::quiet_NaN()), Datum(std::numeric_limits<double>::quiet_NaN()),
                   Datum(-0.0), Datum(std::numeric_limits<float>::denorm_min()), Datum("1234567"), Datum("12345678"),
                   Datum("ünïcødé ✓"), Datum(std::string("\0\0\0\0\0\0\0", 7)), Dec(-12345), Dec(0),
                   Dec(-(Pow10(38) - 1))},
                  types);
  // Negative zero keeps its sign bit.
  const std::string bytes = EncodeBinaryRow({{Datum(-0.0)}}, {{DataType::Double()}}).value();
  EXPECT_EQ(HexEncode(bytes), "0000000000000000" "0000000000000080");
  EXPECT_TRUE(std::signbit(DecodeBinaryRow(bytes, {{DataType::Double()}}).value()[0].as_double()));
}

TEST(BinaryRowRoundTripTest, NullsOfEveryType) {
  const std::vector<DataType> types = AllTypes();
  ExpectRoundTrip(Row(types.size()), types);
  // NOT NULL types are written as Java writes them (the writer does not enforce nullability).
  std::vector<DataType> not_null;
  for (const DataType& t : types) not_null.push_back(t.WithNullable(false));
  ExpectRoundTrip(Row(types.size()), not_null);
}

TEST(BinaryRowRoundTripTest, RandomRows) {
  const std::vector<DataType> types = AllTypes();
  std::mt19937_64 rng(20261129);
  auto random_string = [&](size_t max_len) {
    std::string s(rng() % (max_len + 1), '\0');
    for (char& c : s) c = static_cast<char>(rng());
    return s;
  };
  for (int iter = 0; iter < 300; ++iter) {
    Row row;
    for (const DataType& t : types) {
      if (rng() % 4 == 0) {
        row.emplace_back();
        continue;
      }
      const int64_t r = static_cast<int64_t>(rng());
      switch (t.root()) {
        case TypeRoot::kBoolean: row.emplace_back((r & 1) != 0); break;
        case TypeRoot::kTinyInt: row.emplace_back(int64_t{static_cast<int8_t>(r)}); break;
        case TypeRoot::kSmallInt: row.emplace_back(int64_t{static_cast<int16_t>(r)}); break;
        case TypeRoot::kInt: case TypeRoot::kDate: row.emplace_back(int64_t{static_cast<int32_t>(r)}); break;
        case TypeRoot::kTime: row.emplace_back(int64_t{(r & 0x7fffffff) % 86400000}); break;
        case TypeRoot::kBigInt: row.emplace_back(r); break;
        case TypeRoot::kFloat: row.emplace_back(static_cast<float>(r) / 3.0f); break;
        case TypeRoot::kDouble: row.emplace_back(static_cast<double>(r) / 7.0); break;
        case TypeRoot::kDecimal: {
          const int128_t wide = (static_cast<int128_t>(r) << 64) | static_cast<uint64_t>(rng());
          row.push_back(Dec(wide % Pow10(t.precision())));
          break;
        }
        case TypeRoot::kTimestamp: case TypeRoot::kTimestampLtz:
          row.push_back(Ts(r >> 8, t.precision() > 3 ? static_cast<int32_t>(rng() % 1000000) : 0));
          break;
        case TypeRoot::kChar: case TypeRoot::kVarChar: case TypeRoot::kBinary: case TypeRoot::kVarBinary:
          row.emplace_back(random_string(20));
          break;
        case TypeRoot::kArray: row.push_back(Nested({Datum(static_cast<double>(r)), Datum()})); break;
        case TypeRoot::kMap: row.push_back(Nested({Datum(random_string(12)), Datum(r)})); break;
        case TypeRoot::kMultiset: row.push_back(Nested({Datum(static_cast<int32_t>(r)), Datum(static_cast<int32_t>(r))})); break;
        case TypeRoot::kRow: row.push_back(Nested({Datum(), Ts(r >> 8, 17)})); break;
        default: FAIL() << t.ToString();
      }
    }
    ExpectRoundTrip(row, types);
    if (HasFailure()) break;
  }
}

TEST(BinaryRowTest, ProjectedWriteEqualsWriteOfTheProjection) {
  const Row record = {Datum("Alice"), Datum(10), Datum(1), Datum(11.0)};
  BinaryRowWriter writer({DataType::String(false), DataType::Int(false)});
  std::string projected;
  const int key[] = {0, 2};
  ASSERT_TRUE(writer.WriteProjected(record, key, &projected).ok());
  EXPECT_EQ(HexEncode(projected), "0000000000000000" "416c696365000085" "0100000000000000");
  EXPECT_EQ(projected, writer.Write({{Datum("Alice"), Datum(1)}}).value());
}

TEST(BinaryRowTest, WriterReusesItsOutputBuffer) {
  BinaryRowWriter writer({DataType::String()});
  std::string out;
  ASSERT_TRUE(writer.Write({{Datum(std::string(100, 'x'))}}, &out).ok());
  ASSERT_TRUE(writer.Write({{Datum("a")}}, &out).ok());
  EXPECT_EQ(HexEncode(out), "0000000000000000" "6100000000000081");
}

// ------------------------------------------------------------------------------------------------
// Invalid values for the writer

TEST(BinaryRowWriterTest, RejectsValuesTheTypeCannotHold) {
  auto fails = [](Datum v, DataType t) {
    Result<std::string> r = EncodeBinaryRow({{v}}, {{t}});
    return !r.ok() && r.status().IsInvalidArgument();
  };
  EXPECT_TRUE(fails(Datum(int64_t{128}), DataType::TinyInt()));
  EXPECT_TRUE(fails(Datum(int64_t{-32769}), DataType::SmallInt()));
  EXPECT_TRUE(fails(Datum(int64_t{1} << 31), DataType::Int()));
  EXPECT_TRUE(fails(Datum(1.5), DataType::Int()));
  EXPECT_TRUE(fails(Datum(1), DataType::Double()));
  EXPECT_TRUE(fails(Datum(1.5), DataType::Float()));
  EXPECT_TRUE(fails(Datum(1), DataType::String()));
  EXPECT_TRUE(fails(Dec(Pow10(10)), DataType::Decimal(10, 2)));
  EXPECT_TRUE(fails(Dec(Pow10(38)), DataType::Decimal(38, 0)));
  EXPECT_TRUE(fails(Ts(0, 1000000), DataType::Timestamp(9)));
  EXPECT_TRUE(fails(Ts(0, -1), DataType::Timestamp(6)));
  EXPECT_TRUE(fails(Datum("x"), DataType::Array(DataType::Int())));
  EXPECT_TRUE(fails(Nested({Datum(1)}), DataType::Map(DataType::Int(), DataType::Int())));
  EXPECT_TRUE(fails(Nested({Datum(1)}), DataType::Row({Field(1, "a", DataType::Int()), Field(2, "b", DataType::Int())})));
  EXPECT_TRUE(fails(Nested({Datum("x")}), DataType::Array(DataType::Int())));
  // The message names the field and its type.
  Result<std::string> r = EncodeBinaryRow({{Datum(1), Datum("x")}}, {{DataType::Int(), DataType::BigInt()}});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("field 1 (BIGINT)"), std::string::npos) << r.status().ToString();
  EXPECT_TRUE(EncodeBinaryRow({{Datum(1)}}, {{DataType::Int(), DataType::Int()}}).status().IsInvalidArgument());
  EXPECT_TRUE(EncodeBinaryRow({{Datum("v")}}, {{DataType::Variant()}}).status().IsNotSupported());
}

// ------------------------------------------------------------------------------------------------
// Corrupt input: a Status, never a crash or an out-of-bounds read.

TEST(BinaryRowCorruptionTest, SerializedFormChecksArityAndLength) {
  const std::vector<DataType> two = kPk09KeyTypes;
  EXPECT_TRUE(DeserializeBinaryRow("", two).status().IsCorruption());
  EXPECT_TRUE(DeserializeBinaryRow(Hex("000000"), two).status().IsCorruption());
  EXPECT_TRUE(DeserializeBinaryRow(Hex("ffffffff 0000000000000000"), two).status().IsCorruption());
  EXPECT_TRUE(DeserializeBinaryRow(Hex("7fffffff 0000000000000000"), two).status().IsCorruption());
  // Arity 1 where the schema expects 2.
  Result<Row> mismatch = DeserializeBinaryRow(Hex("00000001 0000000000000000 0a00000000000000"), two);
  ASSERT_TRUE(mismatch.status().IsCorruption());
  EXPECT_NE(mismatch.status().message().find("1 fields where 2 are expected"), std::string::npos);
  EXPECT_EQ(SplitSerializedBinaryRow(Hex("00000001 0000000000000000 0a00000000000000")).value().arity, 1);
}

TEST(BinaryRowCorruptionTest, EveryTruncationOfARealKeyIsCorruption) {
  const std::string serialized = Hex(kPk09MaxKeyHex);
  for (size_t n = 0; n < serialized.size(); ++n) {
    Result<Row> r = DeserializeBinaryRow(std::string_view(serialized).substr(0, n), kPk09KeyTypes);
    ASSERT_FALSE(r.ok()) << n;
    EXPECT_TRUE(r.status().IsCorruption()) << n << ": " << r.status().ToString();
  }
  EXPECT_TRUE(DeserializeBinaryRow(serialized, kPk09KeyTypes).ok());
}

TEST(BinaryRowCorruptionTest, EveryTruncationOfANestedRowFailsCleanly) {
  const std::vector<DataType> types = AllTypes();
  const Row row = {Datum(true), Datum(int64_t{1}), Datum(int64_t{2}), Datum(3), Datum(int64_t{4}), Datum(5.0f),
                   Datum(6.0), Datum(7), Datum(8), Dec(9), Dec(10), Dec(11), Dec(12), Ts(13), Ts(14), Ts(15, 1),
                   Ts(16, 2), Ts(17), Ts(18, 3), Datum("c"), Datum("varchar value"), Datum("string value!"),
                   Datum(std::string("bin!")), Datum(std::string("varbinary!")), Datum(std::string("bytes value")),
                   Nested({Datum(1.0)}), Nested({Datum("key"), Datum(int64_t{1})}), Nested({Datum(3)}),
                   Nested({Datum(4), Ts(5, 6)})};
  const std::string bytes = EncodeBinaryRow(row, types).value();
  for (size_t n = 0; n < bytes.size(); ++n) {
    Result<Row> r = DecodeBinaryRow(std::string_view(bytes).substr(0, n), types);
    // The last entry (the nested row) ends with zero padding only when its size is not a multiple of 8;
    // here every variable-part entry is needed up to the last byte of the nested row's data.
    if (!r.ok()) {
      EXPECT_TRUE(r.status().IsCorruption()) << n << ": " << r.status().ToString();
    }
  }
  // The full fixed part is required; cutting into it always fails.
  for (size_t n = 0; n < static_cast<size_t>(BinaryRowFixedPartSize(static_cast<int32_t>(types.size()))); ++n) {
    EXPECT_TRUE(DecodeBinaryRow(std::string_view(bytes).substr(0, n), types).status().IsCorruption()) << n;
  }
  EXPECT_EQ(DecodeBinaryRow(bytes, types).value(), row);
}

TEST(BinaryRowCorruptionTest, BadSlotsAreCorruption) {
  auto decode = [](std::string_view hex, DataType type) { return DecodeBinaryRow(Hex(hex), {{type}}).status(); };
  // Out-of-line string past the end, and with a negative offset.
  EXPECT_TRUE(decode("0000000000000000 0800000018000000", DataType::String()).IsCorruption());
  EXPECT_TRUE(decode("0000000000000000 08000000000000f0", DataType::String()).IsCorruption());
  EXPECT_TRUE(decode("0000000000000000 ffffffff10000000 0000000000000000", DataType::Bytes()).IsCorruption());
  // Inline length 8 does not fit in a slot.
  EXPECT_TRUE(decode("0000000000000000 6162636465666788", DataType::String()).IsCorruption());
  // Non-compact decimal: 0 bytes, 17 bytes, more digits than the precision.
  EXPECT_TRUE(decode("0000000000000000 0000000010000000 0000000000000000 0000000000000000",
                     DataType::Decimal(20, 0)).IsCorruption());
  EXPECT_TRUE(decode("0000000000000000 1100000010000000 0000000000000000 0000000000000000 0100000000000000",
                     DataType::Decimal(38, 0)).IsCorruption());
  EXPECT_TRUE(decode("0000000000000000 1000000010000000 7fffffffffffffffffffffffffffffff",
                     DataType::Decimal(38, 0)).IsCorruption());
  EXPECT_TRUE(decode("0000000000000000 1000000010000000 80000000000000000000000000000000",
                     DataType::Decimal(38, 0)).IsCorruption());
  EXPECT_TRUE(decode("0000000000000000 0900000010000000 056bc75e2d63100000 00000000000000",
                     DataType::Decimal(20, 0)).IsCorruption());  // 10^20 in DECIMAL(20)
  // Timestamp: nanos out of range, millis past the end.
  EXPECT_TRUE(decode("0000000000000000 40420f0010000000 0000000000000000", DataType::Timestamp(9)).IsCorruption());
  EXPECT_TRUE(decode("0000000000000000 0000000014000000 0000000000000000", DataType::Timestamp(9)).IsCorruption());
  // Arrays: negative count, count larger than the bytes, short header.
  EXPECT_TRUE(decode("0000000000000000 0800000010000000 ffffffff00000000", DataType::Array(DataType::Int()))
                  .IsCorruption());
  EXPECT_TRUE(decode("0000000000000000 0800000010000000 0300000000000000", DataType::Array(DataType::Int()))
                  .IsCorruption());
  EXPECT_TRUE(decode("0000000000000000 0300000010000000 0100000000000000", DataType::Array(DataType::Int()))
                  .IsCorruption());
  EXPECT_TRUE(decode("0000000000000000 0800000010000000 ffffff7f00000000", DataType::Array(DataType::Int()))
                  .IsCorruption());
  // Maps: key array larger than the map, key and value counts differ.
  EXPECT_TRUE(decode("0000000000000000 0800000010000000 ff00000000000000",
                     DataType::Map(DataType::Int(), DataType::Int())).IsCorruption());
  Status counts = decode("0000000000000000 1c00000010000000 10000000 01000000000000000500000000000000"
                         "0000000000000000 00000000",
                         DataType::Map(DataType::Int(), DataType::Int()));
  EXPECT_TRUE(counts.IsCorruption());
  EXPECT_NE(counts.message().find("1 keys but 0 values"), std::string::npos) << counts.ToString();
  // Multiset with a negative count.
  EXPECT_TRUE(decode("0000000000000000 2400000010000000 10000000 01000000000000000100000000000000"
                     "0100000000000000ffffffff00000000 00000000",
                     DataType::Multiset(DataType::Int())).IsCorruption());
  // Nested row shorter than its fixed part.
  EXPECT_TRUE(decode("0000000000000000 0800000010000000 0000000000000000",
                     DataType::Row({Field(1, "a", DataType::Int())})).IsCorruption());
  // VARIANT is not decoded.
  EXPECT_TRUE(decode("0000000000000000 0000000000000000", DataType::Variant()).IsNotSupported());
}

TEST(BinaryRowCorruptionTest, ErrorsNameTheField) {
  Status st = DecodeBinaryRow(Hex("0000000000000000 0100000000000000 0800000020000000"),
                              {{DataType::Int(), DataType::String()}})
                  .status();
  ASSERT_TRUE(st.IsCorruption());
  EXPECT_NE(st.message().find("field 1 (STRING)"), std::string::npos) << st.ToString();
  EXPECT_NE(st.message().find("offset 32"), std::string::npos) << st.ToString();
}

TEST(BinaryRowCorruptionTest, RandomBytesNeverCrash) {
  const std::vector<DataType> types = AllTypes();
  const std::string valid = EncodeBinaryRow(
      Row{Datum(true), Datum(int64_t{1}), Datum(int64_t{2}), Datum(3), Datum(int64_t{4}), Datum(5.0f), Datum(6.0),
       Datum(7), Datum(8), Dec(9), Dec(10), Dec(11), Dec(12), Ts(13), Ts(14), Ts(15, 1), Ts(16, 2), Ts(17),
       Ts(18, 3), Datum("c"), Datum("varchar value"), Datum("string value!"), Datum(std::string("bin!")),
       Datum(std::string("varbinary!")), Datum(std::string("bytes value")), Nested({Datum(1.0), Datum()}),
       Nested({Datum("key"), Datum(int64_t{1})}), Nested({Datum(3), Datum(3)}), Nested({Datum(4), Ts(5, 6)})},
      types).value();
  std::mt19937 rng(7);
  int ok = 0;
  for (int iter = 0; iter < 10000; ++iter) {
    std::string bytes = valid;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) bytes[rng() % bytes.size()] = static_cast<char>(rng());
    if (rng() % 8 == 0) bytes.resize(rng() % bytes.size());
    Result<Row> r = DecodeBinaryRow(bytes, types);
    if (r.ok()) {
      ++ok;
    } else {
      EXPECT_TRUE(r.status().IsCorruption() || r.status().IsNotSupported()) << r.status().ToString();
    }
  }
  EXPECT_GT(ok, 0);  // flips in fixed-width values still decode
}

TEST(BinaryRowViewTest, AccessorsCheckTheirInput) {
  EXPECT_TRUE(BinaryRowView::Create(std::string(15, '\0'), 1).status().IsCorruption());
  EXPECT_TRUE(BinaryRowView::Create("", -1).status().IsInvalidArgument());
  const std::string bytes = Hex("0002000000000000 0500000000000000 0000000000000000");
  BinaryRowView view = BinaryRowView::Create(bytes, 2).value();
  EXPECT_FALSE(view.IsNullAt(0));
  EXPECT_TRUE(view.IsNullAt(1));
  EXPECT_EQ(view.GetField(0, DataType::Int()).value(), Datum(5));
  EXPECT_TRUE(view.GetField(1, DataType::Int()).value().is_null());
  EXPECT_TRUE(view.GetField(2, DataType::Int()).status().IsInvalidArgument());
  EXPECT_TRUE(view.ToRow({{DataType::Int()}}).status().IsInvalidArgument());
  EXPECT_EQ(view.ToRow({{DataType::Int(), DataType::Int()}}).value(), (Row{Datum(5), Datum()}));
}

}  // namespace
}  // namespace tide
