#include "tide/postgres/pg_type.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace tide {
namespace {

using ::testing::HasSubstr;

TEST(PgTypeRegistryTest, KnowsBuiltinsAndTheirArrays) {
  PgTypeRegistry types;
  const PgTypeInfo* int4 = types.Find(pg_oid::kInt4);
  ASSERT_NE(int4, nullptr);
  EXPECT_EQ(int4->name, "int4");
  EXPECT_TRUE(int4->builtin);
  EXPECT_TRUE(int4->complete);
  EXPECT_FALSE(int4->is_array());
  const PgTypeInfo* arr = types.Find(pg_oid::kInt4Array);
  ASSERT_NE(arr, nullptr);
  EXPECT_EQ(arr->name, "_int4");
  EXPECT_EQ(arr->element_oid, pg_oid::kInt4);
  EXPECT_EQ(types.FindBuiltinByName("timestamptz")->oid, pg_oid::kTimestamptz);
  EXPECT_EQ(types.FindBuiltinByName("_jsonb")->oid, pg_oid::kJsonbArray);
  EXPECT_EQ(types.FindBuiltinByName("mood"), nullptr);
  EXPECT_EQ(types.Find(99999), nullptr);
  EXPECT_EQ(types.Resolve(99999, 7).info, nullptr);
  EXPECT_EQ(types.Resolve(99999, 7).type_modifier, 7);
}

TEST(PgTypeRegistryTest, TypeMessageForADomainOverABuiltin) {
  PgTypeRegistry types;
  types.AddFromTypeMessage(PgTypeMessage{std::nullopt, 70000, "", "numeric"});
  const PgTypeInfo* d = types.Find(70000);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->kind, PgTypeKind::kDomain);
  EXPECT_EQ(d->base_oid, pg_oid::kNumeric);
  EXPECT_FALSE(d->complete);
  PgResolvedType r = types.Resolve(70000, -1);
  ASSERT_NE(r.info, nullptr);
  EXPECT_EQ(r.oid, pg_oid::kNumeric);
  EXPECT_EQ(r.type_modifier, -1);
  // A Type message never replaces a built-in.
  types.AddFromTypeMessage(PgTypeMessage{std::nullopt, pg_oid::kInt4, "public", "evil"});
  EXPECT_EQ(types.Find(pg_oid::kInt4)->name, "int4");
}

TEST(PgTypeRegistryTest, TypeMessageForAnEnumIsIncompleteUntilTheCatalogSaysMore) {
  PgTypeRegistry types;
  types.AddFromTypeMessage(PgTypeMessage{std::nullopt, 70001, "public", "mood"});
  EXPECT_EQ(types.Find(70001)->kind, PgTypeKind::kUnknown);
  PgRelation rel;
  rel.columns = {{true, "id", pg_oid::kInt4, -1}, {false, "m", 70001, -1}, {false, "x", 70002, -1}};
  EXPECT_EQ(types.UnresolvedTypeOids(rel), (std::vector<PgOid>{70001, 70002}));
  const std::string query = PgTypeCatalogQuery(types.UnresolvedTypeOids(rel));
  EXPECT_THAT(query, HasSubstr("IN (70001, 70002)"));
  EXPECT_THAT(query, HasSubstr("pg_catalog.pg_type"));

  std::vector<std::string> row = {"70001", "public", "mood", "e", "E", "0", "0", "-1"};
  ASSERT_TRUE(types.AddFromCatalogRow(row).ok());
  EXPECT_EQ(types.Find(70001)->kind, PgTypeKind::kEnum);
  EXPECT_TRUE(types.Find(70001)->complete);
  // A later Type message does not downgrade what the catalog said.
  types.AddFromTypeMessage(PgTypeMessage{std::nullopt, 70001, "public", "mood"});
  EXPECT_EQ(types.Find(70001)->kind, PgTypeKind::kEnum);
  EXPECT_EQ(types.UnresolvedTypeOids(rel), (std::vector<PgOid>{70002}));
}

TEST(PgTypeRegistryTest, CatalogRowsForArraysAndNestedDomains) {
  PgTypeRegistry types;
  // domain a over numeric(10,2); domain b over a; array of b.
  ASSERT_TRUE(types.AddFromCatalogRow(std::vector<std::string>{"80001", "public", "a", "d", "N", "0", "1700",
                                                               std::to_string(((10 << 16) | 2) + 4)})
                  .ok());
  ASSERT_TRUE(types.AddFromCatalogRow(std::vector<std::string>{"80002", "public", "b", "d", "N", "0", "80001", "-1"}).ok());
  ASSERT_TRUE(types.AddFromCatalogRow(std::vector<std::string>{"80003", "public", "_b", "b", "A", "80002", "0", "-1"}).ok());
  PgResolvedType r = types.Resolve(80002, -1);
  EXPECT_EQ(r.oid, pg_oid::kNumeric);
  EXPECT_EQ(r.type_modifier, ((10 << 16) | 2) + 4);
  EXPECT_EQ(types.Find(80003)->element_oid, 80002u);
  // A fixed-length type with typelem (like point) is not an array: only category A counts.
  ASSERT_TRUE(types.AddFromCatalogRow(std::vector<std::string>{"80004", "public", "pt", "b", "G", "701", "0", "-1"}).ok());
  EXPECT_FALSE(types.Find(80004)->is_array());
  PgRelation rel;
  rel.columns = {{false, "v", 80003, -1}};
  EXPECT_TRUE(types.UnresolvedTypeOids(rel).empty());
}

TEST(PgTypeRegistryTest, DomainCyclesDoNotLoop) {
  PgTypeRegistry types;
  ASSERT_TRUE(types.AddFromCatalogRow(std::vector<std::string>{"90001", "public", "x", "d", "N", "0", "90002", "-1"}).ok());
  ASSERT_TRUE(types.AddFromCatalogRow(std::vector<std::string>{"90002", "public", "y", "d", "N", "0", "90001", "-1"}).ok());
  EXPECT_EQ(types.Resolve(90001, -1).info, nullptr);
  PgRelation rel;
  rel.columns = {{false, "v", 90001, -1}};
  (void)types.UnresolvedTypeOids(rel);  // terminates
}

TEST(PgTypeRegistryTest, BadCatalogRows) {
  PgTypeRegistry types;
  EXPECT_TRUE(types.AddFromCatalogRow(std::vector<std::string>{"1", "2"}).IsInvalidArgument());
  Status s = types.AddFromCatalogRow(std::vector<std::string>{"x", "public", "t", "b", "U", "0", "0", "-1"});
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_THAT(s.message(), HasSubstr("oid"));
  EXPECT_TRUE(types.AddFromCatalogRow(std::vector<std::string>{"5", "public", "t", "z", "U", "0", "0", "-1"})
                  .IsInvalidArgument());
  EXPECT_TRUE(types.AddFromCatalogRow(std::vector<std::string>{"-5", "public", "t", "b", "U", "0", "0", "-1"})
                  .IsInvalidArgument());
}

TEST(PgTypmodTest, Numeric) {
  EXPECT_FALSE(DecodeNumericTypmod(-1).has_value());
  auto a = DecodeNumericTypmod(((12 << 16) | 2) + 4);
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->precision, 12);
  EXPECT_EQ(a->scale, 2);
  auto neg = DecodeNumericTypmod(((5 << 16) | (-2 & 0x7FF)) + 4);
  EXPECT_EQ(neg->precision, 5);
  EXPECT_EQ(neg->scale, -2);
  auto big = DecodeNumericTypmod(((1000 << 16) | 1000) + 4);
  EXPECT_EQ(big->precision, 1000);
  EXPECT_EQ(big->scale, 1000);
}

TEST(PgTypmodTest, LengthsAndPrecisions) {
  EXPECT_EQ(DecodeCharLengthTypmod(14), std::optional<int32_t>(10));
  EXPECT_FALSE(DecodeCharLengthTypmod(-1).has_value());
  EXPECT_EQ(DecodeTimePrecisionTypmod(pg_oid::kTimestamp, 3), std::optional<int>(3));
  EXPECT_EQ(DecodeTimePrecisionTypmod(pg_oid::kTimestamp, 0), std::optional<int>(0));
  EXPECT_FALSE(DecodeTimePrecisionTypmod(pg_oid::kTimestamp, -1).has_value());
  EXPECT_EQ(DecodeTimePrecisionTypmod(pg_oid::kInterval, (0x7FFF << 16) | 2), std::optional<int>(2));
  EXPECT_FALSE(DecodeTimePrecisionTypmod(pg_oid::kInterval, (0x7FFF << 16) | 0xFFFF).has_value());
}

}  // namespace
}  // namespace tide
