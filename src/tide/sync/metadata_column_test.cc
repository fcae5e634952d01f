// MetadataColumn: the names, types and values Paimon's PostgreSQL CDC gives its metadata columns.
#include "tide/sync/metadata_column.h"

#include <gtest/gtest.h>

namespace tide {
namespace {

TEST(MetadataColumn, ParsesPaimonsNamesAndRefusesOthers) {
  auto parsed = ParseMetadataColumns(" op_ts, table_name ,database_name,schema_name");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(*parsed, (std::vector<MetadataColumn>{MetadataColumn::kOpTs, MetadataColumn::kTableName,
                                                  MetadataColumn::kDatabaseName, MetadataColumn::kSchemaName}));
  auto unknown = ParseMetadataColumns("op_ts,ts_ms");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("ts_ms is not a metadata column"), std::string::npos);
  auto twice = ParseMetadataColumns("op_ts,op_ts");
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.status().message().find("names op_ts twice"), std::string::npos);
}

TEST(MetadataColumn, TypesAndValuesAsPaimonGivesThem) {
  EXPECT_EQ(MetadataColumnType(MetadataColumn::kOpTs).ToString(), "TIMESTAMP(3) WITH LOCAL TIME ZONE NOT NULL");
  EXPECT_EQ(MetadataColumnType(MetadataColumn::kTableName).ToString(), "STRING NOT NULL");
  PgTableName table{"sales", "orders_7"};
  RowOrigin origin{"shop", &table, 1764633600123456};  // 2025-12-02 00:00:00.123456 UTC
  EXPECT_EQ(MetadataColumnValue(MetadataColumn::kDatabaseName, origin).as_string(), "shop");
  EXPECT_EQ(MetadataColumnValue(MetadataColumn::kSchemaName, origin).as_string(), "sales");
  EXPECT_EQ(MetadataColumnValue(MetadataColumn::kTableName, origin).as_string(), "orders_7");
  // Milliseconds, the sub-millisecond digits dropped toward the past.
  EXPECT_EQ(std::get<TimestampValue>(MetadataColumnValue(MetadataColumn::kOpTs, origin).storage()).millis,
            1764633600123);
  origin.commit_time_micros = -1;
  EXPECT_EQ(std::get<TimestampValue>(MetadataColumnValue(MetadataColumn::kOpTs, origin).storage()).millis, -1);
}

}  // namespace
}  // namespace tide
