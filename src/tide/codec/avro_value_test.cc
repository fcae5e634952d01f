#include "tide/codec/avro_value.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace tide {
namespace {

using ::testing::HasSubstr;

class AvroValueRecordTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto schema = AvroSchema::Parse(R"({"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated",
      "fields":[
        {"name":"_VERSION","type":"int"},
        {"name":"_FILE_NAME","type":"string"},
        {"name":"_FILE_SIZE","type":"long"},
        {"name":"_MIN_BUCKET","type":["null","int"],"default":null},
        {"name":"_MAX_BUCKET","type":["null","int"],"default":null},
        {"name":"_STATS","type":["null",{"type":"record","name":"record__STATS","fields":[
            {"name":"_MIN_VALUES","type":"bytes"}]}],"default":null},
        {"name":"_COLS","type":["null",{"type":"array","items":"string"}],"default":null},
        {"name":"_RATIO","type":"float"},
        {"name":"_OK","type":"boolean"},
        {"name":"_PROPS","type":{"type":"map","values":"long"}}
      ]})");
    ASSERT_TRUE(schema.ok()) << schema.status().ToString();
    schema_ = *schema;
    const AvroNode& stats = *schema_.root().fields()[5].type->branches()[1];
    record_ = AvroValue::Record(
        schema_.Share(schema_.root()),
        {AvroValue::Int(2), AvroValue::String("manifest-1"), AvroValue::Long(2204),
         AvroValue::Union(1, AvroValue::Int(7)), AvroValue::Union(0, AvroValue::Null()),
         AvroValue::Union(1, AvroValue::Record(schema_.Share(stats), {AvroValue::Bytes(std::string("\0\1", 2))})),
         AvroValue::Union(1, AvroValue::Array({AvroValue::String("a"), AvroValue::String("b")})),
         AvroValue::Float(0.5f), AvroValue::Boolean(true),
         AvroValue::Map({{"x", AvroValue::Long(1)}, {"y", AvroValue::Long(-2)}})});
  }

  AvroSchema schema_;
  AvroValue record_;
};

TEST_F(AvroValueRecordTest, TypedGetters) {
  EXPECT_EQ(*record_.GetInt("_VERSION"), 2);
  EXPECT_EQ(*record_.GetLong("_VERSION"), 2) << "an int widens to long";
  EXPECT_EQ(*record_.GetString("_FILE_NAME"), "manifest-1");
  EXPECT_EQ(*record_.GetLong("_FILE_SIZE"), 2204);
  EXPECT_EQ(*record_.GetInt("_MIN_BUCKET"), 7) << "a nullable union unwraps";
  EXPECT_EQ(*record_.GetFloat("_RATIO"), 0.5f);
  EXPECT_EQ(*record_.GetDouble("_RATIO"), 0.5);
  EXPECT_EQ(*record_.GetBool("_OK"), true);
  auto stats = record_.GetRecord("_STATS");
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(*(*stats)->GetBytes("_MIN_VALUES"), std::string("\0\1", 2));
  auto cols = record_.GetArray("_COLS");
  ASSERT_TRUE(cols.ok());
  ASSERT_EQ((*cols)->size(), 2u);
  EXPECT_EQ((**cols)[1].string_value(), "b");
  auto props = record_.GetMap("_PROPS");
  ASSERT_TRUE(props.ok());
  ASSERT_EQ((*props)->map_size(), 2u);
  EXPECT_EQ((*props)->map_key(1), "y");
  EXPECT_EQ((*props)->map_value(1).long_value(), -2);
  ASSERT_NE((*props)->FindMapValue("x"), nullptr);
  EXPECT_EQ((*props)->FindMapValue("x")->long_value(), 1);
  EXPECT_EQ((*props)->FindMapValue("z"), nullptr);
}

TEST_F(AvroValueRecordTest, OptionalGetters) {
  EXPECT_EQ(*record_.GetOptionalInt("_MIN_BUCKET"), std::optional<int32_t>(7));
  EXPECT_EQ(*record_.GetOptionalInt("_MAX_BUCKET"), std::nullopt) << "null";
  EXPECT_EQ(*record_.GetOptionalLong("_MAX_BUCKET"), std::nullopt);
  EXPECT_EQ(*record_.GetOptionalLong("_FIRST_ROW_ID"), std::nullopt) << "absent from the writer schema";
  EXPECT_EQ(*record_.GetOptionalString("_EXTERNAL_PATH"), std::nullopt);
  EXPECT_EQ(*record_.GetOptionalString("_FILE_NAME"), std::optional<std::string_view>("manifest-1"));
  EXPECT_NE(*record_.GetOptionalRecord("_STATS"), nullptr);
  EXPECT_EQ(*record_.GetOptionalRecord("_NOPE"), nullptr);
  EXPECT_NE(*record_.GetOptionalArray("_COLS"), nullptr);
  EXPECT_EQ(*record_.GetOptionalBool("_OK"), std::optional<bool>(true));
  EXPECT_EQ(*record_.GetOptionalDouble("_RATIO"), std::optional<double>(0.5));
  auto wrong = record_.GetOptionalLong("_FILE_NAME");
  ASSERT_FALSE(wrong.ok());
  EXPECT_THAT(wrong.status().message(), HasSubstr("\"_FILE_NAME\""));
  EXPECT_THAT(wrong.status().message(), HasSubstr("holds string, expected long or null"));
}

TEST_F(AvroValueRecordTest, ErrorsNameTheFieldAndRecord) {
  auto wrong_type = record_.GetLong("_FILE_NAME");
  ASSERT_FALSE(wrong_type.ok());
  EXPECT_TRUE(wrong_type.status().IsCorruption());
  EXPECT_THAT(wrong_type.status().message(),
              HasSubstr("field \"_FILE_NAME\" of record \"org.apache.paimon.avro.generated.record\" holds string, expected long"));

  auto null_field = record_.GetInt("_MAX_BUCKET");
  ASSERT_FALSE(null_field.ok());
  EXPECT_THAT(null_field.status().message(), HasSubstr("field \"_MAX_BUCKET\""));
  EXPECT_THAT(null_field.status().message(), HasSubstr("is null, expected int"));

  auto missing = record_.GetString("_NO_SUCH_FIELD");
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr("has no field \"_NO_SUCH_FIELD\""));

  auto not_record = AvroValue::Long(1).GetLong("x");
  ASSERT_FALSE(not_record.ok());
  EXPECT_THAT(not_record.status().message(), HasSubstr("is long, not a record"));

  auto no_schema = AvroValue::Record({AvroValue::Int(1)}).GetInt("a");
  ASSERT_FALSE(no_schema.ok());
  EXPECT_THAT(no_schema.status().message(), HasSubstr("without a schema"));

  EXPECT_FALSE(record_.GetInt("_FILE_SIZE").ok()) << "a long does not narrow to int";
  EXPECT_FALSE(record_.GetBytes("_FILE_NAME").ok()) << "a string is not bytes";
  EXPECT_FALSE(record_.GetString("_STATS").ok());
  EXPECT_FALSE(record_.GetRecord("_COLS").ok());
  EXPECT_FALSE(record_.GetArray("_PROPS").ok());
}

TEST_F(AvroValueRecordTest, FieldsByPositionAndName) {
  ASSERT_EQ(record_.field_count(), 10u);
  EXPECT_EQ(record_.field(0).int_value(), 2);
  ASSERT_NE(record_.FindField("_FILE_SIZE"), nullptr);
  EXPECT_EQ(record_.FindField("_FILE_SIZE"), &record_.field(2));
  EXPECT_EQ(record_.FindField("nope"), nullptr);
  EXPECT_EQ(record_.field(3).branch(), 1);
  EXPECT_EQ(record_.field(4).branch(), 0);
  EXPECT_TRUE(record_.field(4).is_null());
  EXPECT_EQ(record_.record_schema(), &schema_.root());
}

TEST(AvroValueTest, ScalarsAndCheckedAccessors) {
  EXPECT_TRUE(AvroValue().is_null());
  EXPECT_EQ(AvroValue::Null().type(), AvroType::kNull);
  EXPECT_EQ(*AvroValue::Boolean(false).AsBool(), false);
  EXPECT_EQ(*AvroValue::Int(INT32_MIN).AsInt(), INT32_MIN);
  EXPECT_EQ(*AvroValue::Long(INT64_MAX).AsLong(), INT64_MAX);
  EXPECT_EQ(*AvroValue::Int(-5).AsLong(), -5);
  EXPECT_EQ(*AvroValue::Float(1.25f).AsFloat(), 1.25f);
  EXPECT_EQ(*AvroValue::Double(-0.0).AsDouble(), 0.0);
  EXPECT_EQ(*AvroValue::String("s").AsString(), "s");
  EXPECT_EQ(*AvroValue::Bytes("b").AsBytes(), "b");
  EXPECT_EQ(*AvroValue::Fixed("fx").AsBytes(), "fx");
  EXPECT_EQ(*AvroValue::Enum(3).AsEnum(), 3);
  EXPECT_FALSE(AvroValue::Long(1).AsInt().ok());
  EXPECT_FALSE(AvroValue::Bytes("b").AsString().ok());
  EXPECT_FALSE(AvroValue::String("s").AsBytes().ok());
  EXPECT_FALSE(AvroValue::Null().AsBool().ok());
  auto err = AvroValue::String("x").AsLong();
  ASSERT_FALSE(err.ok());
  EXPECT_THAT(err.status().message(), HasSubstr("is string, expected long"));
}

TEST(AvroValueTest, EqualityComparesDataBitForBit) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(AvroValue::Double(nan), AvroValue::Double(nan));
  EXPECT_NE(AvroValue::Double(0.0), AvroValue::Double(-0.0));
  EXPECT_EQ(AvroValue::Float(std::numeric_limits<float>::infinity()),
            AvroValue::Float(std::numeric_limits<float>::infinity()));
  EXPECT_NE(AvroValue::Int(1), AvroValue::Long(1));
  EXPECT_NE(AvroValue::String("a"), AvroValue::Bytes("a"));
  EXPECT_EQ(AvroValue::Union(1, AvroValue::Long(5)), AvroValue::Long(5)) << "branches are not compared";
  EXPECT_EQ(AvroValue::Array({AvroValue::Int(1), AvroValue::Null()}),
            AvroValue::Array({AvroValue::Int(1), AvroValue::Null()}));
  EXPECT_NE(AvroValue::Array({AvroValue::Int(1)}), AvroValue::Array({AvroValue::Int(2)}));
  EXPECT_NE(AvroValue::Map({{"a", AvroValue::Int(1)}}), AvroValue::Map({{"b", AvroValue::Int(1)}}));
  EXPECT_EQ(AvroValue::Record({AvroValue::Int(1)}), AvroValue::Record({AvroValue::Int(1)}));
}

TEST(AvroValueTest, MovingIsCheapAndLeavesTheDataIntact) {
  std::string long_text(1000, 'x');
  AvroValue v = AvroValue::Array({AvroValue::String(long_text), AvroValue::Long(3)});
  const char* data_before = v.items()[0].string_value().data();
  AvroValue moved = std::move(v);
  EXPECT_EQ(moved.items()[0].string_value().data(), data_before) << "no copy of the payload";
  EXPECT_EQ(moved.items()[0].string_value(), long_text);
  AvroValue copy = moved;
  EXPECT_EQ(copy, moved);
  EXPECT_NE(copy.items()[0].string_value().data(), data_before) << "a copy is deep";
}

TEST(AvroValueTest, DebugString) {
  auto schema = AvroSchema::Parse(R"({"type":"record","name":"r","fields":[{"name":"a","type":"int"},{"name":"b","type":"bytes"}]})");
  ASSERT_TRUE(schema.ok());
  AvroValue v = AvroValue::Record(schema->Share(schema->root()), {AvroValue::Int(5), AvroValue::Bytes(std::string("A\0\xff", 3))});
  EXPECT_EQ(v.DebugString(), R"({a: 5, b: b"A\x00\xff"})");
  EXPECT_EQ(AvroValue::Map({{"k", AvroValue::String("q\"")}}).DebugString(), R"({"k": "q\""})");
  EXPECT_EQ(AvroValue::Array({AvroValue::Null(), AvroValue::Boolean(true), AvroValue::Long(-1)}).DebugString(),
            "[null, true, -1]");
}

}  // namespace
}  // namespace tide
