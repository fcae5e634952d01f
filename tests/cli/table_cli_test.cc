// `tide table` as a user runs it: the built binary creating, describing, listing, altering and dropping
// tables in a temporary warehouse, and describing a Java-written fixture table.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "testing/temp_dir.h"
#include "testing/tide_process.h"

namespace tide {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

using tide::testing::RunTide;
using tide::testing::TideRun;

std::vector<std::string> Table(const std::string& command, const std::string& warehouse, std::vector<std::string> rest) {
  std::vector<std::string> args = {"table", command, "--warehouse", warehouse};
  args.insert(args.end(), rest.begin(), rest.end());
  return args;
}

TEST(TableCliTest, CreateDescribeListAlterDrop) {
  tide::testing::TempDir warehouse;
  const std::string& w = warehouse.path();
  TideRun created = RunTide(Table("create", w,
                                  {"shop.orders", "--columns",
                                   "id BIGINT, day DATE NOT NULL, amount DECIMAL(10, 2), tags MAP<STRING, INT>, "
                                   "`note` STRING COMMENT 'free text'",
                                   "--primary-keys", "id,day", "--partition-keys", "day", "--option", "bucket=4",
                                   "--option", "file.format=parquet"}));
  ASSERT_EQ(created.exit_code, 0) << created.err;
  EXPECT_THAT(created.out, HasSubstr("Created table shop.orders (schema 0, 5 columns)"));
  EXPECT_TRUE(std::filesystem::exists(w + "/shop.db/orders/schema/schema-0"));

  TideRun described = RunTide(Table("describe", w, {"shop.orders"}));
  ASSERT_EQ(described.exit_code, 0) << described.err;
  EXPECT_EQ(described.out,
            "Table: shop.orders\n"
            "Schema id: 0 (highest field id 4)\n"
            "Columns:\n"
            "  id  name    type              comment\n"
            "  0   id      BIGINT NOT NULL\n"
            "  1   day     DATE NOT NULL\n"
            "  2   amount  DECIMAL(10, 2)\n"
            "  3   tags    MAP<STRING, INT>\n"
            "  4   note    STRING            free text\n"
            "Primary keys: id, day\n"
            "Partition keys: day\n"
            "Bucket keys: id\n"
            "Options:\n"
            "  bucket = 4\n"
            "  file.format = parquet\n"
            "Latest snapshot: (none)\n");

  TideRun altered = RunTide(Table("alter", w, {"shop.orders", "--add-column", "qty INT", "--after", "id"}));
  ASSERT_EQ(altered.exit_code, 0) << altered.err;
  EXPECT_THAT(altered.out, HasSubstr("Altered table shop.orders (schema 1): added column qty"));
  altered = RunTide(Table("alter", w, {"shop.orders", "--rename-column", "note=remark", "--alter-column-type",
                                       "qty BIGINT", "--set-option", "snapshot.num-retained.max=5"}));
  ASSERT_EQ(altered.exit_code, 0) << altered.err;
  altered = RunTide(Table("alter", w, {"shop.orders", "--drop-column", "tags", "--reset-option", "file.format"}));
  ASSERT_EQ(altered.exit_code, 0) << altered.err;
  EXPECT_THAT(altered.out, HasSubstr("(schema 3)"));

  described = RunTide(Table("describe", w, {"shop.orders"}));
  ASSERT_EQ(described.exit_code, 0) << described.err;
  EXPECT_THAT(described.out, HasSubstr("Schema id: 3 (highest field id 5)\n"));
  EXPECT_THAT(described.out, HasSubstr("  0   id      BIGINT NOT NULL\n"
                                       "  5   qty     BIGINT\n"
                                       "  1   day     DATE NOT NULL\n"
                                       "  2   amount  DECIMAL(10, 2)\n"
                                       "  4   remark  STRING           free text\n"));
  EXPECT_THAT(described.out, HasSubstr("Options:\n  bucket = 4\n  snapshot.num-retained.max = 5\n"));

  ASSERT_EQ(RunTide(Table("create", w, {"shop.items", "--columns", "sku STRING"})).exit_code, 0);
  ASSERT_EQ(RunTide(Table("create", w, {"crm.people", "--columns", "id INT NOT NULL", "--primary-keys", "id"})).exit_code, 0);
  TideRun listed = RunTide(Table("list", w, {}));
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_EQ(listed.out,
            "table        primary keys  partition keys  schema  snapshot  records\n"
            "crm.people   id                            0       -         -\n"
            "shop.items                                 0       -         -\n"
            "shop.orders  id, day       day             3       -         -\n");
  listed = RunTide(Table("list", w, {"crm"}));
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_THAT(listed.out, HasSubstr("crm.people"));
  EXPECT_THAT(listed.out, Not(HasSubstr("shop.")));

  TideRun dropped = RunTide(Table("drop", w, {"shop.items"}));
  ASSERT_EQ(dropped.exit_code, 0) << dropped.err;
  EXPECT_FALSE(std::filesystem::exists(w + "/shop.db/items"));
  EXPECT_THAT(RunTide(Table("list", w, {"shop"})).out, Not(HasSubstr("shop.items")));
}

TEST(TableCliTest, CreateMakesAMissingWarehouseOtherCommandsRefuseIt) {
  tide::testing::TempDir dir;
  const std::string w = dir.path() + "/new/lake";
  TideRun described = RunTide(Table("describe", w, {"db.t"}));
  EXPECT_EQ(described.exit_code, 1);
  EXPECT_THAT(described.err, HasSubstr("warehouse " + w + " does not exist"));
  EXPECT_FALSE(std::filesystem::exists(w)) << "describe must not create the warehouse";
  TideRun created = RunTide(Table("create", w, {"db.t", "--columns", "k INT NOT NULL, v STRING", "--primary-keys", "k",
                                                "--option", "bucket=1"}));
  ASSERT_EQ(created.exit_code, 0) << created.err;
  EXPECT_TRUE(std::filesystem::exists(w + "/db.db/t/schema/schema-0"));
}

TEST(TableCliTest, RefusalsExitWithOneAndSayWhy) {
  tide::testing::TempDir warehouse;
  const std::string& w = warehouse.path();
  ASSERT_EQ(RunTide(Table("create", w, {"db.t", "--columns", "k INT, p INT, v STRING", "--primary-keys", "k,p",
                                        "--partition-keys", "p"}))
                .exit_code,
            0);
  struct Case {
    std::vector<std::string> args;
    const char* message;
  };
  std::vector<Case> cases = {
      {Table("create", w, {"db.t", "--columns", "k INT"}), "table db.t already exists"},
      {Table("create", w, {"db.u", "--columns", "k INT", "--primary-keys", "k", "--option", "bucket-key=k"}),
       "cannot define 'bucket-key' in unaware or dynamic bucket mode"},
      {Table("create", w, {"db.u", "--columns", "k INT, v FOO"}), "column v: unknown type"},
      {Table("create", w, {"db.u", "--columns", "k DECIMAL(10, 2"}), "unbalanced"},
      {Table("create", w, {"nodot", "--columns", "k INT"}), "write it as <database>.<table>"},
      {Table("alter", w, {"db.t", "--drop-column", "p"}), "cannot drop partition key column p"},
      {Table("alter", w, {"db.t", "--drop-column", "k"}), "cannot drop primary key column k"},
      {Table("alter", w, {"db.t", "--add-column", "x INT NOT NULL"}), "cannot be NOT NULL"},
      {Table("alter", w, {"db.t", "--set-option", "merge-engine=first-row"}), "change of option 'merge-engine'"},
      {Table("alter", w, {"db.t"}), "nothing to alter"},
      {Table("alter", w, {"db.missing", "--drop-column", "v"}), "table db.missing does not exist"},
      {Table("describe", w, {"db.missing"}), "table db.missing does not exist"},
      {Table("drop", w, {"db.missing"}), "table db.missing does not exist"},
      {Table("list", w, {"nodb"}), "database 'nodb' does not exist"},
  };
  for (const Case& c : cases) {
    TideRun run = RunTide(c.args);
    EXPECT_EQ(run.exit_code, 1) << c.message << "\n" << run.out;
    EXPECT_THAT(run.err, HasSubstr(c.message));
  }
  // Nothing was written by the refused ALTERs.
  EXPECT_FALSE(std::filesystem::exists(w + "/db.db/t/schema/schema-1"));
  EXPECT_FALSE(std::filesystem::exists(w + "/db.db/u"));
}

TEST(TableCliTest, DescribesAJavaTableWithItsLatestSnapshot) {
  TideRun run = RunTide({"table", "describe", "--warehouse", tide::testing::JavaFixtureWarehouse(), "pk_09.pk_09"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("  0   f0    STRING NOT NULL\n"));
  EXPECT_THAT(run.out, HasSubstr("Primary keys: f0, f1, f2\nPartition keys: f1\nBucket keys: f2\n"));
  EXPECT_THAT(run.out, HasSubstr("  deletion-vectors.enabled = true\n"));
  // snapshot-8 is pk_09's latest (tests/fixtures/paimon-java/parquet/pk_09.db/pk_09/snapshot).
  EXPECT_THAT(run.out, HasSubstr("Latest snapshot: 8 at 2025-08-21 06:43:45.645 UTC, 10 records\n"));
}

TEST(TableCliTest, JavaTableReadsThroughSqlAfterRenamingAKeyColumn) {
  tide::testing::TempDir warehouse;
  std::string table = warehouse.path() + "/pk_09.db/pk_09";
  std::filesystem::create_directories(table);
  std::filesystem::copy(tide::testing::JavaFixtureWarehouse() + "/pk_09.db/pk_09", table,
                        std::filesystem::copy_options::recursive);
  std::vector<std::string> read = {"sql", "--warehouse", warehouse.path(), "--format", "csv",
                                   "SELECT * FROM pk_09.pk_09 ORDER BY ALL"};
  TideRun before = RunTide(read);
  ASSERT_EQ(before.exit_code, 0) << before.err;
  ASSERT_TRUE(before.out.rfind("f0,f1,f2,f3\n", 0) == 0) << before.out;
  TideRun altered = RunTide(Table("alter", warehouse.path(),
                                  {"pk_09.pk_09", "--rename-column", "f0=name", "--add-column", "extra INT", "--first"}));
  ASSERT_EQ(altered.exit_code, 0) << altered.err;
  // Old files are read by field id: the renamed key keeps its values, the new column is NULL.
  std::string expected = "extra,name,f1,f2,f3\n";
  std::istringstream lines(before.out.substr(before.out.find('\n') + 1));
  for (std::string line; std::getline(lines, line);) expected += "," + line + "\n";
  TideRun after = RunTide(read);
  ASSERT_EQ(after.exit_code, 0) << after.err;
  EXPECT_EQ(after.out, expected);
}

}  // namespace
}  // namespace tide
