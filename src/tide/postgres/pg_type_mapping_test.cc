#include "tide/postgres/pg_type_mapping.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace tide {
namespace {

using ::testing::HasSubstr;

int32_t NumericTypmod(int p, int s) { return ((p << 16) | (s & 0x7FF)) + 4; }

struct Case {
  PgOid oid;
  int32_t typmod;
  std::string paimon;  // DataType::ToString()
  PgValueKind kind;
};

TEST(PgTypeMappingTest, DocumentedTable) {
  // This table is docs/postgres-types.md; keep them together.
  const std::vector<Case> cases = {
      {pg_oid::kBool, -1, "BOOLEAN", PgValueKind::kBool},
      {pg_oid::kInt2, -1, "SMALLINT", PgValueKind::kInt2},
      {pg_oid::kInt4, -1, "INT", PgValueKind::kInt4},
      {pg_oid::kInt8, -1, "BIGINT", PgValueKind::kInt8},
      {pg_oid::kOid, -1, "BIGINT", PgValueKind::kOid},
      {pg_oid::kFloat4, -1, "FLOAT", PgValueKind::kFloat4},
      {pg_oid::kFloat8, -1, "DOUBLE", PgValueKind::kFloat8},
      {pg_oid::kNumeric, NumericTypmod(12, 2), "DECIMAL(12, 2)", PgValueKind::kNumericDecimal},
      {pg_oid::kNumeric, NumericTypmod(38, 0), "DECIMAL(38, 0)", PgValueKind::kNumericDecimal},
      {pg_oid::kNumeric, NumericTypmod(5, -2), "DECIMAL(7, 0)", PgValueKind::kNumericDecimal},
      {pg_oid::kNumeric, NumericTypmod(3, 5), "DECIMAL(5, 5)", PgValueKind::kNumericDecimal},
      {pg_oid::kNumeric, NumericTypmod(39, 2), "STRING", PgValueKind::kNumericString},
      {pg_oid::kNumeric, NumericTypmod(37, -2), "STRING", PgValueKind::kNumericString},
      {pg_oid::kNumeric, -1, "STRING", PgValueKind::kNumericString},
      {pg_oid::kMoney, -1, "DECIMAL(19, 2)", PgValueKind::kMoney},
      {pg_oid::kText, -1, "STRING", PgValueKind::kText},
      {pg_oid::kVarchar, 20 + 4, "VARCHAR(20)", PgValueKind::kText},
      {pg_oid::kVarchar, -1, "STRING", PgValueKind::kText},
      {pg_oid::kBpchar, 5 + 4, "CHAR(5)", PgValueKind::kText},
      {pg_oid::kBpchar, -1, "STRING", PgValueKind::kText},
      {pg_oid::kName, -1, "STRING", PgValueKind::kText},
      {pg_oid::kChar, -1, "STRING", PgValueKind::kChar},
      {pg_oid::kXml, -1, "STRING", PgValueKind::kText},
      {pg_oid::kJson, -1, "STRING", PgValueKind::kJson},
      {pg_oid::kJsonb, -1, "STRING", PgValueKind::kJsonb},
      {pg_oid::kBytea, -1, "BYTES", PgValueKind::kBytea},
      {pg_oid::kUuid, -1, "STRING", PgValueKind::kUuid},
      {pg_oid::kDate, -1, "DATE", PgValueKind::kDate},
      {pg_oid::kTime, -1, "TIME(6)", PgValueKind::kTime},
      {pg_oid::kTime, 0, "TIME(0)", PgValueKind::kTime},
      {pg_oid::kTimetz, -1, "STRING", PgValueKind::kTimeTz},
      {pg_oid::kTimestamp, -1, "TIMESTAMP(6)", PgValueKind::kTimestamp},
      {pg_oid::kTimestamp, 3, "TIMESTAMP(3)", PgValueKind::kTimestamp},
      {pg_oid::kTimestamptz, -1, "TIMESTAMP(6) WITH LOCAL TIME ZONE", PgValueKind::kTimestampTz},
      {pg_oid::kTimestamptz, 0, "TIMESTAMP(0) WITH LOCAL TIME ZONE", PgValueKind::kTimestampTz},
      {pg_oid::kInterval, -1, "STRING", PgValueKind::kInterval},
      {pg_oid::kInet, -1, "STRING", PgValueKind::kInet},
      {pg_oid::kCidr, -1, "STRING", PgValueKind::kInet},
      {pg_oid::kMacaddr, -1, "STRING", PgValueKind::kMacaddr},
      {pg_oid::kMacaddr8, -1, "STRING", PgValueKind::kMacaddr},
      {pg_oid::kBit, 3 + 4, "STRING", PgValueKind::kBit},
      {pg_oid::kVarbit, -1, "STRING", PgValueKind::kBit},
      {pg_oid::kPgLsn, -1, "STRING", PgValueKind::kPgLsn},
      {pg_oid::kInt4Array, -1, "ARRAY<INT>", PgValueKind::kArray},
      {pg_oid::kTextArray, -1, "ARRAY<STRING>", PgValueKind::kArray},
      {pg_oid::kNumericArray, NumericTypmod(10, 2), "ARRAY<DECIMAL(10, 2)>", PgValueKind::kArray},
      {pg_oid::kTimestamptzArray, 3, "ARRAY<TIMESTAMP(3) WITH LOCAL TIME ZONE>", PgValueKind::kArray},
      {pg_oid::kByteaArray, -1, "ARRAY<BYTES>", PgValueKind::kArray},
      {600, -1, "STRING", PgValueKind::kTextFallback},         // point
      {3904, -1, "STRING", PgValueKind::kTextFallback},        // int4range
      {1020, -1, "STRING", PgValueKind::kTextFallback},        // box[]
      {424242, -1, "STRING", PgValueKind::kTextFallback},      // unknown
  };
  PgTypeRegistry types;
  for (const Case& c : cases) {
    auto m = MapPgType(c.oid, c.typmod, types);
    ASSERT_TRUE(m.ok()) << c.oid << ": " << m.status().ToString();
    EXPECT_EQ(m->type.ToString(), c.paimon) << "OID " << c.oid << " typmod " << c.typmod;
    EXPECT_EQ(m->kind, c.kind) << "OID " << c.oid << ": " << PgValueKindName(m->kind);
    EXPECT_TRUE(m->type.nullable());
    EXPECT_EQ(m->warning.has_value(), c.kind == PgValueKind::kTextFallback) << "OID " << c.oid;
  }
}

TEST(PgTypeMappingTest, NamesForMessages) {
  PgTypeRegistry types;
  EXPECT_EQ(MapPgType(pg_oid::kNumeric, NumericTypmod(12, 2), types)->pg_type_name, "numeric(12,2)");
  EXPECT_EQ(MapPgType(pg_oid::kVarcharArray, 14, types)->pg_type_name, "varchar(10)[]");
  EXPECT_EQ(MapPgType(pg_oid::kTimestamptz, 3, types)->pg_type_name, "timestamptz(3)");
  auto unknown = MapPgType(424242, -1, types);
  EXPECT_THAT(*unknown->warning, HasSubstr("424242"));
}

TEST(PgTypeMappingTest, ArrayElementMapping) {
  PgTypeRegistry types;
  auto m = MapPgType(pg_oid::kDateArray, -1, types);
  ASSERT_TRUE(m.ok());
  ASSERT_NE(m->element, nullptr);
  EXPECT_EQ(m->element->kind, PgValueKind::kDate);
  EXPECT_EQ(m->value_oid, pg_oid::kDateArray);
}

TEST(PgTypeMappingTest, EnumsDomainsAndArraysOfThem) {
  PgTypeRegistry types;
  ASSERT_TRUE(types.AddFromCatalogRow(std::vector<std::string>{"70001", "public", "mood", "e", "E", "0", "0", "-1"}).ok());
  ASSERT_TRUE(types.AddFromCatalogRow(std::vector<std::string>{"70002", "public", "_mood", "b", "A", "70001", "0", "-1"}).ok());
  ASSERT_TRUE(types.AddFromCatalogRow(std::vector<std::string>{"70003", "public", "email", "d", "S", "0", "25", "-1"}).ok());
  EXPECT_EQ(MapPgType(70001, -1, types)->type.ToString(), "STRING");
  EXPECT_EQ(MapPgType(70002, -1, types)->type.ToString(), "ARRAY<STRING>");
  EXPECT_EQ(MapPgType(70003, -1, types)->kind, PgValueKind::kText);
  EXPECT_EQ(MapPgType(70003, -1, types)->value_oid, pg_oid::kText);
  EXPECT_FALSE(MapPgType(70002, -1, types)->warning.has_value());
}

TEST(PgTypeMappingTest, ColumnErrorsAndWarningsNameTheColumn) {
  PgTypeRegistry types;
  PgRelation rel;
  rel.namespace_name = "public";
  rel.name = "shapes";
  rel.columns = {{false, "p", 600, -1}};
  auto m = MapPgColumn(rel, 0, types);
  ASSERT_TRUE(m.ok());
  EXPECT_TRUE(m->warning.has_value());
  EXPECT_TRUE(MapPgColumn(rel, 1, types).status().IsInvalidArgument());
}

}  // namespace
}  // namespace tide
