#include "tide/codec/avro_writer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "tide/base/bytes.h"
#include "tide/codec/avro_reader.h"

namespace tide {
namespace {

using ::testing::HasSubstr;

constexpr AvroCodec kAllCodecs[] = {AvroCodec::kNull, AvroCodec::kDeflate, AvroCodec::kSnappy, AvroCodec::kZstandard};

AvroSchema MustParse(std::string_view json) {
  auto schema = AvroSchema::Parse(json);
  EXPECT_TRUE(schema.ok()) << schema.status().ToString();
  return schema.ok() ? *schema : AvroSchema();
}

std::string Encode(std::string_view schema_json, const AvroValue& value) {
  AvroSchema schema = MustParse(schema_json);
  std::string out;
  Status s = EncodeAvroDatum(schema.root(), value, &out);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return HexEncode(out);
}

// Byte encodings from the Avro specification ("Binary Encoding"): zig-zag varints, little-endian
// IEEE floats, length-prefixed bytes, blocked arrays and maps, union index then value.
TEST(AvroEncodingTest, MatchesTheSpecification) {
  EXPECT_EQ(Encode(R"("int")", AvroValue::Int(0)), "00");
  EXPECT_EQ(Encode(R"("int")", AvroValue::Int(-1)), "01");
  EXPECT_EQ(Encode(R"("int")", AvroValue::Int(1)), "02");
  EXPECT_EQ(Encode(R"("int")", AvroValue::Int(-2)), "03");
  EXPECT_EQ(Encode(R"("int")", AvroValue::Int(2)), "04");
  EXPECT_EQ(Encode(R"("int")", AvroValue::Int(-64)), "7f");
  EXPECT_EQ(Encode(R"("int")", AvroValue::Int(64)), "8001");
  EXPECT_EQ(Encode(R"("int")", AvroValue::Int(INT32_MAX)), "feffffff0f");
  EXPECT_EQ(Encode(R"("int")", AvroValue::Int(INT32_MIN)), "ffffffff0f");
  EXPECT_EQ(Encode(R"("long")", AvroValue::Long(INT64_MAX)), "feffffffffffffffff01");
  EXPECT_EQ(Encode(R"("long")", AvroValue::Long(INT64_MIN)), "ffffffffffffffffff01");
  EXPECT_EQ(Encode(R"("long")", AvroValue::Long(8191)), "fe7f");
  EXPECT_EQ(Encode(R"("long")", AvroValue::Long(8192)), "808001");
  EXPECT_EQ(Encode(R"("long")", AvroValue::Int(3)), "06") << "an int value widens into a long field";
  EXPECT_EQ(Encode(R"("boolean")", AvroValue::Boolean(true)), "01");
  EXPECT_EQ(Encode(R"("float")", AvroValue::Float(1.0f)), "0000803f");
  EXPECT_EQ(Encode(R"("double")", AvroValue::Double(1.0)), "000000000000f03f");
  EXPECT_EQ(Encode(R"("string")", AvroValue::String("foo")), "06666f6f");
  EXPECT_EQ(Encode(R"("bytes")", AvroValue::Bytes("")), "00");
  EXPECT_EQ(Encode(R"("null")", AvroValue::Null()), "");
  EXPECT_EQ(Encode(R"({"type":"array","items":"long"})", AvroValue::Array({AvroValue::Long(3), AvroValue::Long(27)})),
            "04063600");
  EXPECT_EQ(Encode(R"({"type":"array","items":"long"})", AvroValue::Array({})), "00");
  EXPECT_EQ(Encode(R"({"type":"map","values":"int"})", AvroValue::Map({{"a", AvroValue::Int(1)}})), "0202610200");
  EXPECT_EQ(Encode(R"(["null","string"])", AvroValue::String("a")), "020261");
  EXPECT_EQ(Encode(R"(["null","string"])", AvroValue::Null()), "00");
  EXPECT_EQ(Encode(R"({"type":"enum","name":"e","symbols":["A","B","C"]})", AvroValue::Enum(2)), "04");
  EXPECT_EQ(Encode(R"({"type":"fixed","name":"f","size":2})", AvroValue::Fixed("\x01\x02")), "0102");
  EXPECT_EQ(Encode(R"({"type":"record","name":"test","fields":[{"name":"a","type":"long"},{"name":"b","type":"string"}]})",
                   AvroValue::Record({AvroValue::Long(27), AvroValue::String("foo")})),
            "3606666f6f");
}

TEST(AvroEncodingTest, DecodesWhatItEncodesAtVarintBoundaries) {
  AvroSchema ints = MustParse(R"("int")");
  AvroSchema longs = MustParse(R"("long")");
  std::vector<int64_t> values = {0, 1, -1, INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN};
  for (int bits = 6; bits <= 62; ++bits) {
    int64_t edge = int64_t{1} << bits;  // where zig-zag values cross a 7-bit group
    for (int64_t v : {edge - 1, edge, -edge, -edge - 1}) values.push_back(v);
  }
  for (int64_t v : values) {
    std::string bytes;
    ASSERT_TRUE(EncodeAvroDatum(longs.root(), AvroValue::Long(v), &bytes).ok());
    auto decoded = DecodeAvroDatum(longs, bytes);
    ASSERT_TRUE(decoded.ok()) << v << ": " << decoded.status().ToString();
    EXPECT_EQ(decoded->long_value(), v);
    if (v >= INT32_MIN && v <= INT32_MAX) {
      std::string ib;
      ASSERT_TRUE(EncodeAvroDatum(ints.root(), AvroValue::Int(static_cast<int32_t>(v)), &ib).ok());
      EXPECT_EQ(ib, bytes) << "int and long share the varint encoding";
      auto di = DecodeAvroDatum(ints, ib);
      ASSERT_TRUE(di.ok()) << v;
      EXPECT_EQ(di->int_value(), v);
    }
  }
}

TEST(AvroEncodingTest, RejectsValuesThatDoNotFitAndNamesTheFieldPath) {
  AvroSchema schema = MustParse(R"({"type":"record","name":"record","fields":[
    {"name":"_VERSION","type":"int"},
    {"name":"_FILE","type":{"type":"record","name":"record__FILE","fields":[
      {"name":"_FILE_NAME","type":"string"},
      {"name":"_KEY_STATS","type":{"type":"record","name":"record__FILE__KEY_STATS","fields":[
        {"name":"_MIN_VALUES","type":"bytes"},
        {"name":"_NULL_COUNTS","type":["null",{"type":"array","items":["null","long"]}]}]}}]}}]})");
  auto file = [](AvroValue min_values, AvroValue null_counts) {
    return AvroValue::Record(
        {AvroValue::Int(2),
         AvroValue::Record({AvroValue::String("data-1.parquet"),
                            AvroValue::Record({std::move(min_values), std::move(null_counts)})})});
  };
  std::string out;
  EXPECT_TRUE(EncodeAvroDatum(schema.root(), file(AvroValue::Bytes("x"), AvroValue::Null()), &out).ok());

  out.clear();
  Status s = EncodeAvroDatum(schema.root(), file(AvroValue::String("x"), AvroValue::Null()), &out);
  ASSERT_TRUE(s.IsInvalidArgument());
  EXPECT_THAT(s.message(), HasSubstr("field _FILE._KEY_STATS._MIN_VALUES"));
  EXPECT_THAT(s.message(), HasSubstr("expected bytes, the value is string"));

  out.clear();
  s = EncodeAvroDatum(schema.root(),
                      file(AvroValue::Bytes("x"), AvroValue::Array({AvroValue::Long(1), AvroValue::String("2")})), &out);
  ASSERT_TRUE(s.IsInvalidArgument());
  EXPECT_THAT(s.message(), HasSubstr("field _FILE._KEY_STATS._NULL_COUNTS[1]"));
  EXPECT_THAT(s.message(), HasSubstr("fits no branch of the union [null, long]"));

  out.clear();
  s = EncodeAvroDatum(schema.root(), AvroValue::Record({AvroValue::Int(2)}), &out);
  ASSERT_TRUE(s.IsInvalidArgument());
  EXPECT_THAT(s.message(), HasSubstr("record \"record\" has 2 fields, the value has 1"));

  out.clear();
  s = EncodeAvroDatum(MustParse(R"(["null","int"])").root(), AvroValue::Union(5, AvroValue::Int(1)), &out);
  EXPECT_THAT(s.message(), HasSubstr("names union branch 5, but the union has 2 branches"));
  out.clear();
  s = EncodeAvroDatum(MustParse(R"(["null","int"])").root(), AvroValue::Union(0, AvroValue::Int(1)), &out);
  EXPECT_THAT(s.message(), HasSubstr("expected null, the value is int"));
  out.clear();
  s = EncodeAvroDatum(MustParse(R"({"type":"fixed","name":"f","size":4})").root(), AvroValue::Fixed("abc"), &out);
  EXPECT_THAT(s.message(), HasSubstr("takes 4 bytes, the value has 3"));
  out.clear();
  s = EncodeAvroDatum(MustParse(R"({"type":"enum","name":"e","symbols":["A"]})").root(), AvroValue::Enum(1), &out);
  EXPECT_THAT(s.message(), HasSubstr("enum index 1 is out of range"));
  out.clear();
  s = EncodeAvroDatum(MustParse(R"("int")").root(), AvroValue::Long(1), &out);
  EXPECT_TRUE(s.IsInvalidArgument()) << "a long never narrows to int";
  out.clear();
  s = EncodeAvroDatum(MustParse(R"({"type":"map","values":"int"})").root(), AvroValue::Map({{"k", AvroValue::Null()}}), &out);
  EXPECT_THAT(s.message(), HasSubstr("field [\"k\"]"));
}

TEST(AvroEncodingTest, UnionBranchChoice) {
  AvroSchema schema = MustParse(R"(["null","long",{"type":"record","name":"A","fields":[]},{"type":"record","name":"B","fields":[]}])");
  auto encode = [&](const AvroValue& v) {
    std::string out;
    EXPECT_TRUE(EncodeAvroDatum(schema.root(), v, &out).ok());
    return HexEncode(out);
  };
  EXPECT_EQ(encode(AvroValue::Null()), "00");
  EXPECT_EQ(encode(AvroValue::Long(1)), "0202");
  EXPECT_EQ(encode(AvroValue::Int(1)), "0202") << "an int goes to the long branch";
  EXPECT_EQ(encode(AvroValue::Record({})), "04") << "the first record branch";
  EXPECT_EQ(encode(AvroValue::Union(3, AvroValue::Record({}))), "06") << "an explicit branch wins";
  AvroSchema b_schema = MustParse(R"({"type":"record","name":"B","fields":[]})");
  EXPECT_EQ(encode(AvroValue::Record(b_schema.Share(b_schema.root()), {})), "06") << "a record picks its own name";
}

// One schema with every type, and values at the edges of each.
constexpr std::string_view kAllTypesSchema = R"({"type":"record","name":"All","namespace":"tide.test","fields":[
  {"name":"n","type":"null"},
  {"name":"b","type":"boolean"},
  {"name":"i","type":"int"},
  {"name":"l","type":"long"},
  {"name":"f","type":"float"},
  {"name":"d","type":"double"},
  {"name":"by","type":"bytes"},
  {"name":"s","type":"string"},
  {"name":"e","type":{"type":"enum","name":"Kind","symbols":["ADD","DELETE"]}},
  {"name":"a","type":{"type":"array","items":["null","long"]}},
  {"name":"m","type":{"type":"map","values":"string"}},
  {"name":"u","type":["null","string","int"],"default":null},
  {"name":"fx","type":{"type":"fixed","name":"Sync","size":16}},
  {"name":"ts","type":["null",{"type":"long","logicalType":"timestamp-millis"}],"default":null},
  {"name":"dec","type":{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}},
  {"name":"rec","type":["null",{"type":"record","name":"Inner","fields":[{"name":"x","type":"int"}]}],"default":null},
  {"name":"recs","type":{"type":"array","items":"Inner"}}
]})";

std::vector<AvroValue> AllTypesValues() {
  const float fnan = std::numeric_limits<float>::quiet_NaN();
  const double dinf = std::numeric_limits<double>::infinity();
  std::vector<AvroValue> values;
  auto inner = [](int x) { return AvroValue::Record({AvroValue::Int(x)}); };
  values.push_back(AvroValue::Record({
      AvroValue::Null(), AvroValue::Boolean(true), AvroValue::Int(INT32_MIN), AvroValue::Long(INT64_MIN),
      AvroValue::Float(fnan), AvroValue::Double(-dinf), AvroValue::Bytes(""), AvroValue::String(""),
      AvroValue::Enum(0), AvroValue::Array({}), AvroValue::Map({}), AvroValue::Null(),
      AvroValue::Fixed(std::string(16, '\0')), AvroValue::Null(), AvroValue::Bytes(std::string("\x00\x01", 2)),
      AvroValue::Null(), AvroValue::Array({})}));
  values.push_back(AvroValue::Record({
      AvroValue::Null(), AvroValue::Boolean(false), AvroValue::Int(INT32_MAX), AvroValue::Long(INT64_MAX),
      AvroValue::Float(std::numeric_limits<float>::infinity()), AvroValue::Double(std::numeric_limits<double>::quiet_NaN()),
      AvroValue::Bytes(std::string("\0\xff\x80", 3)), AvroValue::String(std::string(100000, 'z') + "\xc3\xa9"),
      AvroValue::Enum(1), AvroValue::Array({AvroValue::Long(-1), AvroValue::Null(), AvroValue::Long(1) }),
      AvroValue::Map({{"", AvroValue::String("empty key")}, {"k", AvroValue::String("")}}),
      AvroValue::String("str"), AvroValue::Fixed(std::string(16, '\xff')), AvroValue::Long(1755758625551),
      AvroValue::Bytes("\x7f"), inner(-7), AvroValue::Array({inner(1), inner(2), inner(3)})}));
  values.push_back(AvroValue::Record({
      AvroValue::Null(), AvroValue::Boolean(true), AvroValue::Int(0), AvroValue::Long(0), AvroValue::Float(-0.0f),
      AvroValue::Double(5e-324), AvroValue::Bytes(std::string(70000, '\x01')), AvroValue::String("short"),
      AvroValue::Enum(1), AvroValue::Array({AvroValue::Null()}), AvroValue::Map({{"x", AvroValue::String("y")}}),
      AvroValue::Int(-42), AvroValue::Fixed("0123456789abcdef"), AvroValue::Null(), AvroValue::Bytes(""),
      AvroValue::Null(), AvroValue::Array({inner(0)})}));
  return values;
}

Result<std::vector<AvroValue>> ReadBack(std::string bytes) {
  TIDE_ASSIGN_OR_RETURN(auto reader, AvroReader::Open(std::move(bytes), "roundtrip.avro"));
  return reader->ReadAll();
}

TEST(AvroWriterTest, RoundTripsEveryTypeWithEveryCodec) {
  const std::vector<AvroValue> values = AllTypesValues();
  for (AvroCodec codec : kAllCodecs) {
    AvroWriterOptions options;
    options.codec = codec;
    options.level = DefaultAvroCodecLevel(codec);
    auto writer = AvroWriter::Create(kAllTypesSchema, options);
    ASSERT_TRUE(writer.ok()) << writer.status().ToString();
    for (const auto& v : values) ASSERT_TRUE((*writer)->Append(v).ok());
    EXPECT_EQ((*writer)->records_appended(), 3);
    auto bytes = (*writer)->Finish();
    ASSERT_TRUE(bytes.ok());
    auto reader = AvroReader::Open(*bytes, "roundtrip.avro");
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    EXPECT_EQ((*reader)->codec(), codec);
    EXPECT_EQ((*reader)->schema().json(), kAllTypesSchema) << "the schema text is stored unchanged";
    auto read = (*reader)->ReadAll();
    ASSERT_TRUE(read.ok()) << AvroCodecName(codec) << ": " << read.status().ToString();
    ASSERT_EQ(read->size(), values.size());
    for (size_t i = 0; i < values.size(); ++i) EXPECT_EQ((*read)[i], values[i]) << AvroCodecName(codec) << " #" << i;
    // Union branches and names come back from the schema.
    const AvroValue& second = (*read)[1];
    EXPECT_EQ(second.FindField("u")->branch(), 1);
    EXPECT_EQ(second.FindField("ts")->branch(), 1);
    EXPECT_EQ(*second.GetLong("ts"), 1755758625551);
    EXPECT_EQ(*(*second.GetRecord("rec"))->GetInt("x"), -7);
    EXPECT_EQ((*read)[2].FindField("u")->branch(), 2);
    EXPECT_EQ(*(*read)[2].GetInt("u"), -42);
    EXPECT_TRUE(std::isnan(*(*read)[0].GetFloat("f")));
  }
}

TEST(AvroWriterTest, HeaderHoldsExactlySchemaAndCodec) {
  AvroWriterOptions options;
  options.sync_marker = std::string("0123456789ABCDEF");
  auto writer = AvroWriter::Create(R"("long")", options);
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->Append(AvroValue::Long(1)).ok());
  auto bytes = (*writer)->Finish();
  ASSERT_TRUE(bytes.ok());
  // magic, a map block of 2 entries, "avro.schema" -> "\"long\"", "avro.codec" -> "zstandard", end, sync.
  std::string expected_header = std::string("Obj\x01", 4) + "\x04" + "\x16" + "avro.schema" + "\x0c" + "\"long\"" +
                                "\x14" + "avro.codec" + "\x12" + "zstandard" + std::string(1, '\0') + "0123456789ABCDEF";
  ASSERT_GE(bytes->size(), expected_header.size());
  EXPECT_EQ(HexEncode(bytes->substr(0, expected_header.size())), HexEncode(expected_header));
  EXPECT_EQ(bytes->substr(bytes->size() - 16), "0123456789ABCDEF") << "each block ends with the sync marker";
  auto reader = AvroReader::Open(*bytes, "h.avro");
  ASSERT_TRUE(reader.ok());
  ASSERT_EQ((*reader)->metadata().size(), 2u);
  EXPECT_EQ((*reader)->metadata()[0].first, "avro.schema");
  EXPECT_EQ((*reader)->metadata()[1], (std::pair<std::string, std::string>{"avro.codec", "zstandard"}));
  EXPECT_EQ(std::string((*reader)->sync_marker().data(), 16), "0123456789ABCDEF");
}

TEST(AvroWriterTest, DefaultsAreJavaPaimonsAndSyncMarkersAreRandom) {
  AvroWriterOptions defaults;
  EXPECT_EQ(defaults.codec, AvroCodec::kZstandard);
  EXPECT_EQ(defaults.level, 1);
  auto a = AvroWriter::Create(R"("int")");
  auto b = AvroWriter::Create(R"("int")");
  ASSERT_TRUE(a.ok() && b.ok());
  auto fa = (*a)->Finish();
  auto fb = (*b)->Finish();
  ASSERT_TRUE(fa.ok() && fb.ok());
  EXPECT_NE(fa->substr(fa->size() - 16), fb->substr(fb->size() - 16));
}

TEST(AvroWriterTest, EmptyFileHasOnlyAHeader) {
  for (AvroCodec codec : kAllCodecs) {
    AvroWriterOptions options;
    options.codec = codec;
    options.level = DefaultAvroCodecLevel(codec);
    auto writer = AvroWriter::Create(kAllTypesSchema, options);
    ASSERT_TRUE(writer.ok());
    auto bytes = (*writer)->Finish();
    ASSERT_TRUE(bytes.ok());
    auto reader = AvroReader::Open(*bytes, "empty.avro");
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    AvroValue v;
    auto more = (*reader)->Next(&v);
    ASSERT_TRUE(more.ok());
    EXPECT_FALSE(*more);
    EXPECT_EQ((*reader)->blocks_read(), 0);
    auto all = (*reader)->ReadAll();
    ASSERT_TRUE(all.ok());
    EXPECT_TRUE(all->empty());
  }
}

TEST(AvroWriterTest, SplitsBlocksByRecordsAndBytes) {
  AvroSchema schema = MustParse(R"({"type":"record","name":"r","fields":[{"name":"id","type":"long"},{"name":"s","type":"string"}]})");
  for (AvroCodec codec : kAllCodecs) {
    AvroWriterOptions options;
    options.codec = codec;
    options.level = DefaultAvroCodecLevel(codec);
    options.block_max_records = 7;
    auto writer = AvroWriter::Create(schema, options);
    ASSERT_TRUE(writer.ok());
    for (int i = 0; i < 100; ++i) {
      ASSERT_TRUE((*writer)->Append(AvroValue::Record({AvroValue::Long(i), AvroValue::String(std::to_string(i))})).ok());
    }
    auto bytes = (*writer)->Finish();
    ASSERT_TRUE(bytes.ok());
    auto reader = AvroReader::Open(*bytes, "blocks.avro");
    ASSERT_TRUE(reader.ok());
    AvroValue v;  // reused across Next calls
    int64_t expected = 0;
    while (true) {
      auto more = (*reader)->Next(&v);
      ASSERT_TRUE(more.ok()) << more.status().ToString();
      if (!*more) break;
      EXPECT_EQ(*v.GetLong("id"), expected);
      EXPECT_EQ(*v.GetString("s"), std::to_string(expected));
      ++expected;
    }
    EXPECT_EQ(expected, 100);
    EXPECT_EQ((*reader)->blocks_read(), 15) << "100 records, 7 per block";
  }

  AvroWriterOptions by_bytes;
  by_bytes.block_max_bytes = 1000;
  auto writer = AvroWriter::Create(schema, by_bytes);
  ASSERT_TRUE(writer.ok());
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE((*writer)->Append(AvroValue::Record({AvroValue::Long(i), AvroValue::String(std::string(95, 'a'))})).ok());
  }
  auto bytes = (*writer)->Finish();
  ASSERT_TRUE(bytes.ok());
  auto reader = AvroReader::Open(*bytes, "blocks.avro");
  ASSERT_TRUE(reader.ok());
  auto all = (*reader)->ReadAll();
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 100u);
  EXPECT_EQ((*reader)->blocks_read(), 10) << "97-98 bytes a record: a block passes 1000 bytes at its 11th record";
}

TEST(AvroWriterTest, ARejectedValueLeavesTheFileValid) {
  auto writer = AvroWriter::Create(R"({"type":"record","name":"r","fields":[{"name":"a","type":"long"},{"name":"b","type":"string"}]})");
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->Append(AvroValue::Record({AvroValue::Long(1), AvroValue::String("one")})).ok());
  Status bad = (*writer)->Append(AvroValue::Record({AvroValue::Long(2), AvroValue::Long(2)}));
  ASSERT_TRUE(bad.IsInvalidArgument());
  EXPECT_THAT(bad.message(), HasSubstr("Avro value 1 does not fit the schema at field b"));
  ASSERT_TRUE((*writer)->Append(AvroValue::Record({AvroValue::Long(3), AvroValue::String("three")})).ok());
  EXPECT_EQ((*writer)->records_appended(), 2);
  auto bytes = (*writer)->Finish();
  ASSERT_TRUE(bytes.ok());
  auto all = ReadBack(*bytes);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ(*(*all)[1].GetString("b"), "three");
  EXPECT_TRUE((*writer)->Append(AvroValue::Record({AvroValue::Long(4), AvroValue::String("x")})).IsInvalidArgument())
      << "finished";
  EXPECT_FALSE((*writer)->Finish().ok());
}

TEST(AvroWriterTest, RejectsBadOptions) {
  AvroWriterOptions short_sync;
  short_sync.sync_marker = std::string("short");
  EXPECT_TRUE(AvroWriter::Create(R"("int")", short_sync).status().IsInvalidArgument());
  AvroWriterOptions bad_level;
  bad_level.codec = AvroCodec::kDeflate;
  bad_level.level = 42;
  EXPECT_TRUE(AvroWriter::Create(R"("int")", bad_level).status().IsInvalidArgument());
  EXPECT_TRUE(AvroWriter::Create("{oops").status().IsInvalidArgument());
  EXPECT_TRUE(AvroWriter::Create(AvroSchema()).status().IsInvalidArgument());
}

TEST(AvroWriterTest, BothPaimonRecordFormsRoundTrip) {
  // 0.9 wrote the top-level and nested records as nullable unions; 1.x writes plain records.
  const std::string v09 =
      R"(["null",{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[{"name":"_VERSION","type":"int"},{"name":"_FILE_NAME","type":"string"},{"name":"_PARTITION_STATS","type":["null",{"type":"record","name":"record__PARTITION_STATS","fields":[{"name":"_MIN_VALUES","type":"bytes"},{"name":"_NULL_COUNTS","type":["null",{"type":"array","items":["null","long"]}],"default":null}]}],"default":null}]}])";
  const std::string v1x =
      R"({"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[{"name":"_VERSION","type":"int"},{"name":"_FILE_NAME","type":"string"},{"name":"_PARTITION_STATS","type":{"type":"record","name":"record__PARTITION_STATS","fields":[{"name":"_MIN_VALUES","type":"bytes"},{"name":"_NULL_COUNTS","type":["null",{"type":"array","items":["null","long"]}],"default":null}]}}]})";
  for (const std::string& text : {v09, v1x}) {
    auto writer = AvroWriter::Create(text);
    ASSERT_TRUE(writer.ok());
    AvroValue stats = AvroValue::Record({AvroValue::Bytes(std::string(4, '\0')), AvroValue::Array({AvroValue::Long(0), AvroValue::Null()})});
    ASSERT_TRUE((*writer)->Append(AvroValue::Record({AvroValue::Int(2), AvroValue::String("manifest-a-0"), stats})).ok());
    auto bytes = (*writer)->Finish();
    ASSERT_TRUE(bytes.ok());
    auto all = ReadBack(*bytes);
    ASSERT_TRUE(all.ok()) << all.status().ToString();
    ASSERT_EQ(all->size(), 1u);
    const AvroValue& rec = (*all)[0];
    // The same accessors work on both forms.
    EXPECT_EQ(rec.type(), AvroType::kRecord);
    EXPECT_EQ(rec.branch(), text == v09 ? 1 : -1);
    EXPECT_EQ(*rec.GetInt("_VERSION"), 2);
    EXPECT_EQ(*rec.GetString("_FILE_NAME"), "manifest-a-0");
    auto ps = rec.GetRecord("_PARTITION_STATS");
    ASSERT_TRUE(ps.ok());
    auto nulls = (*ps)->GetOptionalArray("_NULL_COUNTS");
    ASSERT_TRUE(nulls.ok());
    ASSERT_NE(*nulls, nullptr);
    ASSERT_EQ((*nulls)->size(), 2u);
    EXPECT_EQ((**nulls)[0].long_value(), 0);
    EXPECT_TRUE((**nulls)[1].is_null());
  }
}

}  // namespace
}  // namespace tide
