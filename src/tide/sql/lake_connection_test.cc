// LakeConnection: the schemas and views it creates for a warehouse, name quoting, skipped tables and the
// system tables.
#include "tide/sql/lake_connection.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <time.h>

#include "tide/sql/sql_test_util.h"
#include "tide/sql/system_tables.h"

namespace tide {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

TestTable OneColumnTable(const std::string& value) {
  TestTable t;
  t.schema = MakeSchema({{"v", DataType::String()}});
  t.rows = {Row{Datum(value)}};
  return t;
}

TEST(LakeConnectionTest, StatementsGivenUpFrontGetOnlyTheViewsTheyCanName) {
  auto source = std::make_shared<TestTableSource>();
  source->Add("shop", "orders", OneColumnTable("order"));
  source->Add("shop", "users", OneColumnTable("user"));
  source->Add("crm", "Order \"Items\"", OneColumnTable("item"));
  auto views = [](TestLake& lake) {
    return lake.Rows("SELECT table_schema || '.' || table_name FROM information_schema.tables WHERE table_type = "
                     "'VIEW' AND table_name NOT LIKE '%$%' AND table_schema <> 'sys' ORDER BY ALL");
  };
  {
    TestLake lake = TestLake::Open(source, LakeOpenOptions{"SELECT v FROM Shop.ORDERS WHERE v <> 'x'; "
                                                           "SELECT count(*) FROM shop.\"Orders$Snapshots\""});
    EXPECT_THAT(lake.Rows("SELECT v FROM shop.orders"), ElementsAre("order"));
    EXPECT_THAT(lake.Rows("SELECT count(*) FROM shop.\"orders$snapshots\""), ElementsAre(Not(HasSubstr("ERROR"))));
    EXPECT_THAT(views(lake), ElementsAre("shop.orders"));
    // Of its system views, only those the text names.
    EXPECT_THAT(lake.Rows("SELECT table_name FROM information_schema.tables WHERE table_name LIKE '%$%' ORDER BY ALL"),
                ElementsAre("orders$snapshots"));
    // Every schema exists, so a table not named fails as a missing table of its database.
    EXPECT_THAT(lake.Rows("SELECT v FROM shop.users"), ElementsAre(HasSubstr("users does not exist")));
    // paimon_scan and the sys views need no view of the table.
    EXPECT_THAT(lake.Rows("SELECT v FROM paimon_scan('shop.users')"), ElementsAre("user"));
    EXPECT_THAT(lake.Rows("SELECT count(*) FROM sys.tables"), ElementsAre("3"));
  }
  {
    // A quoted name, written with its quotes doubled.
    TestLake lake = TestLake::Open(source, LakeOpenOptions{"SELECT v FROM crm.\"order \"\"items\"\"\""});
    EXPECT_THAT(views(lake), ElementsAre("crm.Order \"Items\""));
  }
  for (const char* listing : {"SHOW TABLES", "select * from information_schema.columns", "DESCRIBE",
                              "SELECT * FROM duckdb_views()", "FROM query_table('shop.' || 'users')"}) {
    TestLake lake = TestLake::Open(source, LakeOpenOptions{listing});
    EXPECT_THAT(views(lake), ElementsAre("crm.Order \"Items\"", "shop.orders", "shop.users")) << listing;
  }
  EXPECT_TRUE(StatementMayNameTable("select 1 from crm.t", "T"));
  EXPECT_FALSE(StatementMayNameTable("select 1 from crm.t", "u"));
  EXPECT_TRUE(StatementMayNameTable("select 1", "caf\xc3\xa9"));  // not ASCII: never ruled out by text
}

TEST(LakeConnectionTest, ShowsEveryTableAsAViewInASchemaPerDatabase) {
  auto source = std::make_shared<TestTableSource>();
  source->Add("shop", "orders", OneColumnTable("order"));
  source->Add("shop", "users", OneColumnTable("user"));
  source->Add("crm", "orders", OneColumnTable("crm order"));
  TestLake lake = TestLake::Open(source);
  EXPECT_THAT(lake.lake->skipped(), IsEmpty());
  EXPECT_THAT(lake.Rows("SELECT v FROM shop.orders"), ElementsAre("order"));
  EXPECT_THAT(lake.Rows("SELECT v FROM shop.users"), ElementsAre("user"));
  EXPECT_THAT(lake.Rows("SELECT v FROM crm.orders"), ElementsAre("crm order"));
  EXPECT_THAT(lake.Rows("SELECT table_schema, table_name FROM information_schema.tables "
                        "WHERE table_type = 'VIEW' AND table_name NOT LIKE '%$%' AND table_schema <> 'sys' "
                        "ORDER BY ALL"),
              ElementsAre("crm|orders", "shop|orders", "shop|users"));
  // Every table has a view per system table and its `$audit_log` (audit_log_table.h), and `sys` has the
  // warehouse's.
  EXPECT_THAT(lake.Rows("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'shop' AND "
                        "table_name LIKE 'orders$%'"),
              ElementsAre(std::to_string(TableSystemTableNames().size() + 1)));
  EXPECT_THAT(lake.Rows("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'shop' AND "
                        "table_name = 'orders$audit_log'"),
              ElementsAre("1"));
  EXPECT_THAT(lake.Rows("SELECT table_name FROM information_schema.tables WHERE table_schema = 'sys' ORDER BY ALL"),
              ElementsAre("all_table_options", "partitions", "tables"));
  // SHOW TABLES (any case and spacing) lists the tables of every database, not their system tables.
  EXPECT_THAT(lake.Rows(LakeConnection::ListTablesSql()), ElementsAre("crm|orders", "shop|orders", "shop|users"));
  Result<DuckResult> shown = lake.lake->Query("  show\n Tables ;");
  ASSERT_TRUE(shown.ok()) << shown.status().ToString();
  Result<TextResult> text = lake.renderer->Render(*shown, CellStyle::kText);
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  ASSERT_EQ(text->rows.size(), 3u);
  EXPECT_EQ(*text->rows[0][0], "crm");
  EXPECT_EQ(*text->rows[0][1], "orders");
  // Other SHOW statements are DuckDB's own.
  EXPECT_TRUE(lake.lake->Query("SHOW TABLES FROM shop").ok());
}

TEST(LakeConnectionTest, QuotesNamesWithDotsQuotesSpacesAndUpperCase) {
  auto source = std::make_shared<TestTableSource>();
  source->Add("My.Db", "t\"q", OneColumnTable("dotted"));
  source->Add("Sales", "Orders 2024", OneColumnTable("spaced"));
  source->Add("select", "from", OneColumnTable("keywords"));
  TestLake lake = TestLake::Open(source);
  EXPECT_THAT(lake.lake->skipped(), IsEmpty());
  EXPECT_THAT(lake.Rows("SELECT v FROM \"My.Db\".\"t\"\"q\""), ElementsAre("dotted"));
  EXPECT_THAT(lake.Rows("SELECT v FROM paimon_scan('\"My.Db\".\"t\"\"q\"')"), ElementsAre("dotted"));
  EXPECT_THAT(lake.Rows("SELECT v FROM Sales.\"Orders 2024\""), ElementsAre("spaced"));
  EXPECT_THAT(lake.Rows("SELECT v FROM sales.\"orders 2024\""), ElementsAre("spaced"));  // DuckDB folds case
  EXPECT_THAT(lake.Rows("SELECT v FROM \"select\".\"from\""), ElementsAre("keywords"));
  // The identifiers the views pass to paimon_scan keep the exact case of the folders.
  EXPECT_THAT(lake.Rows("SELECT v FROM paimon_scan('Sales.Orders 2024')"), ElementsAre("spaced"));
}

TEST(LakeConnectionTest, SkipsTablesItCannotShowAndKeepsTheOthers) {
  auto source = std::make_shared<TestTableSource>();
  TestTable variant;
  variant.schema = MakeSchema({{"id", DataType::Int()}, {"payload", DataType::Variant()}});
  source->Add("db", "events", variant);
  source->Add("db", "good", OneColumnTable("fine"));
  source->Add("db", "GOOD", OneColumnTable("clash"));  // same name for DuckDB's case-insensitive catalog
  TestLake lake = TestLake::Open(source);
  // Tables come sorted (GOOD, events, good): GOOD gets the view, good clashes with it.
  ASSERT_EQ(lake.lake->skipped().size(), 2u);
  EXPECT_EQ(lake.lake->skipped()[0].ToString(),
            "table db.events: column payload: VARIANT columns cannot be read through SQL yet");
  EXPECT_EQ(lake.lake->skipped()[0].reason.code(), StatusCode::kNotSupported);
  EXPECT_EQ(lake.lake->skipped()[1].table, "good");
  EXPECT_THAT(lake.lake->skipped()[1].ToString(), HasSubstr("already exists"));
  EXPECT_THAT(lake.lake->skipped()[1].ToString(), ::testing::Not(HasSubstr("LINE 1")));
  EXPECT_THAT(lake.Rows("SELECT v FROM db.GOOD"), ElementsAre("clash"));
  // paimon_scan still reaches the table without a view.
  EXPECT_THAT(lake.Rows("SELECT v FROM paimon_scan('db.good')"), ElementsAre("fine"));
}

TEST(LakeConnectionTest, ShowsSnapshotsAndSchemasAsSystemTables) {
  auto source = std::make_shared<TestTableSource>();
  TestTable t = OneColumnTable("x");
  t.schema.primary_keys = {"v"};
  t.schema.SetOption("bucket", "2");
  t.schema.SetOption("file.format", "parquet");
  t.schema.time_millis = 1700000000123;
  Snapshot first;
  first.id = 1;
  first.schema_id = 0;
  first.commit_user = "tide";
  first.commit_identifier = 7;
  first.commit_kind = CommitKind::kAppend;
  first.time_millis = 1700000000000;
  first.total_record_count = 3;
  first.delta_record_count = 3;
  first.base_manifest_list = "manifest-list-a-0";
  first.delta_manifest_list = "manifest-list-a-1";
  Snapshot second = first;
  second.id = 2;
  second.commit_kind = CommitKind::kCompact;
  second.commit_identifier = 8;
  second.time_millis = 1700000060500;
  second.delta_record_count = -1;
  second.total_record_count = 2;
  second.index_manifest = "index-manifest-b-0";
  t.snapshot_files = {first, second};
  source->Add("db", "t", t);
  // Paimon's system tables show times in the local time zone.
  setenv("TZ", "UTC", 1);
  tzset();
  TestLake lake = TestLake::Open(source);
  std::vector<std::string> expected = {
      "1|0|tide|7|APPEND|2023-11-14 22:13:20|manifest-list-a-0|manifest-list-a-1|NULL|3|3|NULL|NULL|NULL|NULL",
      "2|0|tide|8|COMPACT|2023-11-14 22:14:20.5|manifest-list-a-0|manifest-list-a-1|NULL|2|-1|NULL|NULL|NULL|NULL"};
  EXPECT_EQ(lake.Rows("SELECT * FROM paimon_snapshots('db.t')"), expected);
  EXPECT_EQ(lake.Rows("SELECT * FROM db.\"t$snapshots\""), expected);
  EXPECT_THAT(lake.Rows("SELECT schema_id, partition_keys, primary_keys, options, comment, update_time, "
                        "json_extract_string(fields, '$[0].name') FROM db.\"t$schemas\""),
              ElementsAre("0|[]|[\"v\"]|{\"bucket\":\"2\",\"file.format\":\"parquet\"}|NULL|2023-11-14 22:13:20.123|v"));
  // The system tables that read a table's files need a source with files.
  EXPECT_THAT(lake.Error("SELECT * FROM db.\"t$files\""), HasSubstr("has no files"));
  EXPECT_THAT(lake.Error("SELECT * FROM paimon_snapshots('db.missing')"), HasSubstr("table db.missing does not exist"));
}

}  // namespace
}  // namespace tide
