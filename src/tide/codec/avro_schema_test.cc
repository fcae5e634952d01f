#include "tide/codec/avro_schema.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace tide {
namespace {

using ::testing::HasSubstr;

AvroSchema MustParse(std::string_view json) {
  auto schema = AvroSchema::Parse(json);
  EXPECT_TRUE(schema.ok()) << schema.status().ToString() << "\n" << json;
  return schema.ok() ? *schema : AvroSchema();
}

TEST(AvroSchemaTest, ParsesEveryPrimitive) {
  const std::pair<const char*, AvroType> cases[] = {
      {"\"null\"", AvroType::kNull},     {"\"boolean\"", AvroType::kBoolean}, {"\"int\"", AvroType::kInt},
      {"\"long\"", AvroType::kLong},     {"\"float\"", AvroType::kFloat},     {"\"double\"", AvroType::kDouble},
      {"\"bytes\"", AvroType::kBytes},   {"\"string\"", AvroType::kString},   {"{\"type\":\"long\"}", AvroType::kLong},
  };
  for (const auto& [json, type] : cases) {
    AvroSchema schema = MustParse(json);
    ASSERT_TRUE(schema.valid()) << json;
    EXPECT_EQ(schema.root().type(), type) << json;
    EXPECT_EQ(schema.json(), json);
  }
}

TEST(AvroSchemaTest, ParsesRecordWithEveryKindOfField) {
  AvroSchema schema = MustParse(R"({
    "type": "record", "name": "Everything", "namespace": "org.example", "doc": "all types",
    "fields": [
      {"name": "n", "type": "null"},
      {"name": "b", "type": "boolean"},
      {"name": "i", "type": "int", "default": 7},
      {"name": "l", "type": "long", "order": "descending"},
      {"name": "f", "type": "float"},
      {"name": "d", "type": "double"},
      {"name": "by", "type": "bytes"},
      {"name": "s", "type": "string", "doc": "text", "aliases": ["str"]},
      {"name": "e", "type": {"type": "enum", "name": "Color", "symbols": ["RED", "GREEN"], "default": "RED"}},
      {"name": "a", "type": {"type": "array", "items": "int"}},
      {"name": "m", "type": {"type": "map", "values": ["null", "long"]}},
      {"name": "u", "type": ["null", "string", "Color"], "default": null},
      {"name": "fx", "type": {"type": "fixed", "name": "Md5", "size": 16}},
      {"name": "ref", "type": "org.example.Md5"}
    ]})");
  const AvroNode& root = schema.root();
  ASSERT_EQ(root.type(), AvroType::kRecord);
  EXPECT_EQ(root.name(), "Everything");
  EXPECT_EQ(root.name_space(), "org.example");
  EXPECT_EQ(root.full_name(), "org.example.Everything");
  EXPECT_EQ(root.doc(), "all types");
  ASSERT_EQ(root.fields().size(), 14u);
  EXPECT_EQ(root.FieldIndex("n"), 0);
  EXPECT_EQ(root.FieldIndex("ref"), 13);
  EXPECT_EQ(root.FieldIndex("missing"), -1);

  const auto& f = root.fields();
  EXPECT_TRUE(f[2].has_default);
  EXPECT_EQ(f[2].default_json, "7");
  EXPECT_FALSE(f[1].has_default);
  EXPECT_EQ(f[3].order, "descending");
  EXPECT_EQ(f[7].doc, "text");
  EXPECT_EQ(f[7].aliases, std::vector<std::string>{"str"});

  const AvroNode* color = f[8].type;
  ASSERT_EQ(color->type(), AvroType::kEnum);
  EXPECT_EQ(color->full_name(), "org.example.Color");  // inherits the enclosing namespace
  EXPECT_EQ(color->symbols(), (std::vector<std::string>{"RED", "GREEN"}));
  EXPECT_EQ(color->enum_default(), "RED");

  EXPECT_EQ(f[9].type->type(), AvroType::kArray);
  EXPECT_EQ(f[9].type->items()->type(), AvroType::kInt);
  EXPECT_EQ(f[10].type->type(), AvroType::kMap);
  EXPECT_EQ(f[10].type->values()->type(), AvroType::kUnion);

  const AvroNode* u = f[11].type;
  ASSERT_EQ(u->type(), AvroType::kUnion);
  ASSERT_EQ(u->branches().size(), 3u);
  EXPECT_EQ(u->branches()[2], color) << "a name reference is the same node";
  EXPECT_EQ(u->NullBranch(), 0);
  EXPECT_FALSE(u->IsNullable()) << "three branches is not Paimon's nullable T";

  EXPECT_EQ(f[12].type->type(), AvroType::kFixed);
  EXPECT_EQ(f[12].type->fixed_size(), 16);
  EXPECT_EQ(f[13].type, f[12].type);
}

TEST(AvroSchemaTest, NullableUnionHelpers) {
  AvroSchema a = MustParse(R"(["null", "long"])");
  EXPECT_TRUE(a.root().IsNullable());
  EXPECT_EQ(a.root().NullBranch(), 0);
  EXPECT_EQ(a.root().NonNullBranch(), 1);
  AvroSchema b = MustParse(R"(["string", "null"])");
  EXPECT_TRUE(b.root().IsNullable());
  EXPECT_EQ(b.root().NonNullBranch(), 0);
  AvroSchema c = MustParse(R"(["int", "string"])");
  EXPECT_FALSE(c.root().IsNullable());
  EXPECT_EQ(c.root().NonNullBranch(), -1);
}

TEST(AvroSchemaTest, KeepsLogicalTypesAsAnnotations) {
  AvroSchema schema = MustParse(R"({"type":"record","name":"r","fields":[
    {"name":"ts","type":{"type":"long","logicalType":"timestamp-millis"}},
    {"name":"dec","type":{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}},
    {"name":"fdec","type":{"type":"fixed","name":"f","size":8,"logicalType":"decimal","precision":18,"scale":4}},
    {"name":"day","type":{"type":"int","logicalType":"date"}},
    {"name":"id","type":{"type":"string","logicalType":"uuid"}},
    {"name":"odd","type":{"type":"int","logicalType":"no-such-type","x":1}}]})");
  const auto& f = schema.root().fields();
  EXPECT_EQ(f[0].type->type(), AvroType::kLong);
  EXPECT_EQ(f[0].type->logical_type(), "timestamp-millis");
  EXPECT_EQ(f[1].type->type(), AvroType::kBytes);
  EXPECT_EQ(f[1].type->logical_type(), "decimal");
  EXPECT_EQ(f[1].type->precision(), 10);
  EXPECT_EQ(f[1].type->scale(), 2);
  EXPECT_EQ(f[2].type->type(), AvroType::kFixed);
  EXPECT_EQ(f[2].type->precision(), 18);
  EXPECT_EQ(f[2].type->scale(), 4);
  EXPECT_EQ(f[3].type->logical_type(), "date");
  EXPECT_EQ(f[4].type->logical_type(), "uuid");
  EXPECT_EQ(f[5].type->logical_type(), "no-such-type");
  ASSERT_EQ(f[5].type->props().size(), 2u);
  EXPECT_EQ(f[5].type->props()[1], (std::pair<std::string, std::string>{"x", "1"}));
}

TEST(AvroSchemaTest, ResolvesNamesThroughNamespaces) {
  auto bad = AvroSchema::Parse(R"({"type":"record","name":"Outer","namespace":"a.b","fields":[
    {"name":"w","type":{"type":"record","name":"c.Other","fields":[{"name":"q","type":"Nope"}]}}]})");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("undefined type \"Nope\""));
  EXPECT_THAT(bad.status().message(), HasSubstr("c.Other.q"));

  AvroSchema ok = MustParse(R"({"type":"record","name":"Outer","namespace":"a.b","fields":[
    {"name":"x","type":{"type":"record","name":"Inner","fields":[{"name":"v","type":"int"}]}},
    {"name":"y","type":"Inner"},
    {"name":"z","type":"a.b.Inner"},
    {"name":"w","type":{"type":"record","name":"c.Other","fields":[{"name":"q","type":"a.b.Inner"}]}},
    {"name":"top","type":{"type":"record","name":"Plain","namespace":"","fields":[]}}
  ]})");
  const auto& f = ok.root().fields();
  EXPECT_EQ(f[0].type->full_name(), "a.b.Inner");
  EXPECT_EQ(f[1].type, f[0].type);
  EXPECT_EQ(f[2].type, f[0].type);
  EXPECT_EQ(f[3].type->full_name(), "c.Other");
  EXPECT_EQ(f[3].type->name(), "Other");
  EXPECT_EQ(f[3].type->fields()[0].type, f[0].type);
  EXPECT_EQ(f[4].type->full_name(), "Plain");
  EXPECT_EQ(f[4].type->name_space(), "");
}

TEST(AvroSchemaTest, RecursiveTypes) {
  AvroSchema schema = MustParse(
      R"({"type":"record","name":"Node","fields":[{"name":"value","type":"long"},{"name":"next","type":["null","Node"]}]})");
  const AvroNode& root = schema.root();
  EXPECT_EQ(root.fields()[1].type->branches()[1], &root);
  EXPECT_EQ(root.min_encoded_size(), 2);  // a long and a union index
  EXPECT_EQ(schema.ToJson(),
            R"({"type":"record","name":"Node","fields":[{"name":"value","type":"long"},{"name":"next","type":["null","Node"]}]})");
}

TEST(AvroSchemaTest, MinEncodedSize) {
  EXPECT_EQ(MustParse(R"("null")").root().min_encoded_size(), 0);
  EXPECT_EQ(MustParse(R"("double")").root().min_encoded_size(), 8);
  EXPECT_EQ(MustParse(R"({"type":"fixed","name":"f","size":5})").root().min_encoded_size(), 5);
  EXPECT_EQ(MustParse(R"({"type":"record","name":"r","fields":[{"name":"a","type":"null"}]})").root().min_encoded_size(), 0);
  EXPECT_EQ(MustParse(R"({"type":"record","name":"r","fields":[{"name":"a","type":"float"},{"name":"b","type":"string"}]})")
                .root()
                .min_encoded_size(),
            5);
}

TEST(AvroSchemaTest, RejectsInvalidSchemas) {
  const std::pair<const char*, const char*> cases[] = {
      {"{not json", "not valid JSON"},
      {"42", "not a name, object or union"},
      {"\"nosuchtype\"", "undefined type"},
      {"{\"name\":\"x\"}", "no \"type\""},
      {"{\"type\":\"record\",\"fields\":[]}", "no \"name\""},
      {"{\"type\":\"record\",\"name\":\"r\"}", "no \"fields\""},
      {"{\"type\":\"record\",\"name\":\"r\",\"fields\":[{\"name\":\"a\"}]}", "has no type"},
      {"{\"type\":\"record\",\"name\":\"r\",\"fields\":[{\"name\":\"a\",\"type\":\"int\"},{\"name\":\"a\",\"type\":\"int\"}]}",
       "two fields named \"a\""},
      {"{\"type\":\"record\",\"name\":\"1bad\",\"fields\":[]}", "not a valid name"},
      {"{\"type\":\"record\",\"name\":\"int\",\"fields\":[]}", "after a primitive"},
      {"[\"null\",[\"int\"]]", "directly contains another union"},
      {"[\"int\",\"int\"]", "two branches of type \"int\""},
      {"[]", "no branches"},
      {"{\"type\":\"enum\",\"name\":\"e\",\"symbols\":[\"A\",\"A\"]}", "repeats the symbol"},
      {"{\"type\":\"enum\",\"name\":\"e\",\"symbols\":[\"A\"],\"default\":\"B\"}", "not one of its symbols"},
      {"{\"type\":\"fixed\",\"name\":\"f\"}", "no valid \"size\""},
      {"{\"type\":\"fixed\",\"name\":\"f\",\"size\":-1}", "no valid \"size\""},
      {"{\"type\":\"array\"}", "no \"items\""},
      {"{\"type\":\"map\"}", "no \"values\""},
      {"[{\"type\":\"fixed\",\"name\":\"f\",\"size\":1},{\"type\":\"fixed\",\"name\":\"f\",\"size\":1}]", "twice"},
      {"{\"type\":\"record\",\"name\":\"r\",\"fields\":[{\"name\":\"a\",\"type\":\"int\",\"order\":\"up\"}]}",
       "invalid order"},
  };
  for (const auto& [json, message] : cases) {
    auto schema = AvroSchema::Parse(json);
    ASSERT_FALSE(schema.ok()) << json;
    EXPECT_TRUE(schema.status().IsInvalidArgument()) << json;
    EXPECT_THAT(schema.status().message(), HasSubstr(message)) << json;
  }
}

TEST(AvroSchemaTest, RejectsAbsurdNestingWithoutCrashing) {
  std::string deep;
  for (int i = 0; i < 100000; ++i) deep += "{\"type\":\"array\",\"items\":";
  deep += "\"int\"";
  for (int i = 0; i < 100000; ++i) deep += "}";
  auto schema = AvroSchema::Parse(deep);
  ASSERT_FALSE(schema.ok());
  EXPECT_THAT(schema.status().message(), HasSubstr("deeper than"));
}

TEST(AvroSchemaTest, ToJsonPrintsLikeJava) {
  // Pretty input with every construct; the expected text is the compact form with Java's key order.
  AvroSchema schema = MustParse(R"({
    "namespace": "org.example", "type": "record", "name": "R", "doc": "d",
    "fields": [
      {"type": ["null", {"type": "long", "logicalType": "timestamp-millis"}], "name": "ts", "default": null},
      {"name": "e", "type": {"symbols": ["A", "B"], "type": "enum", "name": "E", "default": "B", "aliases": ["E0"]}},
      {"name": "again", "type": "E"},
      {"name": "other", "type": {"type": "fixed", "name": "F", "namespace": "x.y", "size": 4}},
      {"name": "otherAgain", "type": "x.y.F"},
      {"name": "arr", "type": {"type": "array", "items": {"type": "map", "values": "string"}}, "order": "ignore", "custom": [1, 2]},
      {"name": "dec", "type": {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 3}},
      {"name": "nested", "type": {"type": "record", "name": "N", "fields": [{"name": "x", "type": "int", "default": 1}]}}
    ],
    "extra": {"k": "v"}
  })");
  EXPECT_EQ(schema.ToJson(),
            R"({"type":"record","name":"R","namespace":"org.example","doc":"d","fields":[)"
            R"({"name":"ts","type":["null",{"type":"long","logicalType":"timestamp-millis"}],"default":null},)"
            R"({"name":"e","type":{"type":"enum","name":"E","symbols":["A","B"],"default":"B","aliases":["E0"]}},)"
            R"({"name":"again","type":"E"},)"
            R"({"name":"other","type":{"type":"fixed","name":"F","namespace":"x.y","size":4}},)"
            R"({"name":"otherAgain","type":"x.y.F"},)"
            R"({"name":"arr","type":{"type":"array","items":{"type":"map","values":"string"}},"order":"ignore","custom":[1,2]},)"
            R"({"name":"dec","type":{"type":"bytes","logicalType":"decimal","precision":9,"scale":3}},)"
            R"({"name":"nested","type":{"type":"record","name":"N","fields":[{"name":"x","type":"int","default":1}]}}],)"
            R"("extra":{"k":"v"}})");
  // Printing is stable: the printed text parses to a schema that prints the same.
  AvroSchema again = MustParse(schema.ToJson());
  EXPECT_EQ(again.ToJson(), schema.ToJson());
  // json() keeps the text exactly as given.
  EXPECT_THAT(schema.json(), HasSubstr("\n    \"namespace\": \"org.example\""));
}

TEST(AvroSchemaTest, ToJsonOfPaimonSchemasIsTheJavaText) {
  // Texts written by Java Paimon 0.9 (nullable records) and 1.x (plain records), as stored in real files.
  const std::string texts[] = {
      R"(["null",{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[{"name":"_VERSION","type":"int"},{"name":"_FILE_NAME","type":"string"},{"name":"_FILE_SIZE","type":"long"},{"name":"_NUM_ADDED_FILES","type":"long"},{"name":"_NUM_DELETED_FILES","type":"long"},{"name":"_PARTITION_STATS","type":["null",{"type":"record","name":"record__PARTITION_STATS","fields":[{"name":"_MIN_VALUES","type":"bytes"},{"name":"_MAX_VALUES","type":"bytes"},{"name":"_NULL_COUNTS","type":["null",{"type":"array","items":["null","long"]}],"default":null}]}],"default":null},{"name":"_SCHEMA_ID","type":"long"}]}])",
      R"({"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[{"name":"_VERSION","type":"int"},{"name":"_FILE_NAME","type":"string"},{"name":"_FILE_SIZE","type":"long"},{"name":"_NUM_ADDED_FILES","type":"long"},{"name":"_NUM_DELETED_FILES","type":"long"},{"name":"_PARTITION_STATS","type":{"type":"record","name":"record__PARTITION_STATS","fields":[{"name":"_MIN_VALUES","type":"bytes"},{"name":"_MAX_VALUES","type":"bytes"},{"name":"_NULL_COUNTS","type":["null",{"type":"array","items":["null","long"]}],"default":null}]}},{"name":"_SCHEMA_ID","type":"long"},{"name":"_MIN_BUCKET","type":["null","int"],"default":null},{"name":"_MAX_BUCKET","type":["null","int"],"default":null},{"name":"_MIN_LEVEL","type":["null","int"],"default":null},{"name":"_MAX_LEVEL","type":["null","int"],"default":null}]})",
  };
  for (const auto& text : texts) {
    AvroSchema schema = MustParse(text);
    EXPECT_EQ(schema.ToJson(), text);
  }
}

TEST(AvroSchemaTest, ShareKeepsTheTreeAlive) {
  std::shared_ptr<const AvroNode> inner;
  {
    AvroSchema schema = MustParse(R"({"type":"record","name":"r","fields":[{"name":"a","type":"int"}]})");
    inner = schema.Share(schema.root());
  }
  ASSERT_NE(inner, nullptr);
  EXPECT_EQ(inner->fields()[0].name, "a");
  EXPECT_EQ(AvroNodeToJson(*inner), R"({"type":"record","name":"r","fields":[{"name":"a","type":"int"}]})");
}

}  // namespace
}  // namespace tide
