#include "tide/sql/sql_table_name.h"

#include <gtest/gtest.h>

namespace tide {
namespace {

TEST(SqlTableNameTest, ParsesPlainAndQuotedParts) {
  EXPECT_EQ(ParseSqlTableName("shop.orders").value(), (TableIdentifier{"shop", "orders"}));
  EXPECT_EQ(ParseSqlTableName(" shop . orders ").value(), (TableIdentifier{"shop", "orders"}));
  EXPECT_EQ(ParseSqlTableName("\"my.db\".\"t\"\"q\"").value(), (TableIdentifier{"my.db", "t\"q"}));
  EXPECT_EQ(ParseSqlTableName("Db.\"a.b\"").value(), (TableIdentifier{"Db", "a.b"}));
  EXPECT_EQ(ParseSqlTableName("\" x \".y").value(), (TableIdentifier{" x ", "y"}));
}

TEST(SqlTableNameTest, RejectsWhatIsNotDatabaseDotTable) {
  for (const char* bad : {"orders", "a.b.c", ".t", "db.", "\"open.t", "db.\"t\"x", "a\"b.c", ""}) {
    auto r = ParseSqlTableName(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_NE(r.status().message().find("<database>.<table>"), std::string::npos);
    }
  }
}

TEST(SqlTableNameTest, FormatRoundTrips) {
  for (const TableIdentifier& id : {TableIdentifier{"shop", "orders"}, TableIdentifier{"my.db", "t\"q"},
                                    TableIdentifier{"Sales", "Orders 2024"}, TableIdentifier{" a", "b "}}) {
    std::string text = FormatSqlTableName(id);
    auto parsed = ParseSqlTableName(text);
    ASSERT_TRUE(parsed.ok()) << text;
    EXPECT_EQ(*parsed, id) << text;
  }
  EXPECT_EQ(FormatSqlTableName({"shop", "orders"}), "shop.orders");
  EXPECT_EQ(FormatSqlTableName({"my.db", "t"}), "\"my.db\".t");
}

}  // namespace
}  // namespace tide
