// `tide sql` as a user runs it: the built binary on the Java-written fixture warehouse.
//
// pk_09's expected rows: see src/tide/sql/lake_fixture_test.cc, which cites the paimon-cpp tests they
// come from (alibaba/paimon-cpp test/inte/read_inte_test.cpp, TestPkTableWithSnapshot8 for the latest
// snapshot 8; TestPkTableWithDeletionVector and TestPkTableWithSnapshot6 for snapshot 6).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "testing/temp_dir.h"
#include "testing/tide_process.h"

namespace tide {
namespace {

using ::testing::HasSubstr;

using tide::testing::RunTide;
using tide::testing::TideRun;

std::vector<std::string> Sql(const std::string& format, const std::string& sql) {
  return {"sql", "--warehouse", tide::testing::JavaFixtureWarehouse(), "--format", format, sql};
}

const char kPk09Header[] = "f0,f3\n";
const char kTwoRoadsCsv[] =
    "\"Two roads diverged in a wood, and I took the one less traveled by, And that has made all the difference.\"";

// Needs Table::NewReader (the table read path).
TEST(SqlCliTest, PrintsPk09LatestSnapshotAsCsv) {
  TideRun run = RunTide(Sql("csv", "SELECT f0, f3 FROM pk_09.pk_09 ORDER BY f0"));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, std::string(kPk09Header) +
                         "Alex,16.1\n"
                         "Alice,21.1\n"
                         "Bob,12.1\n"
                         "David,17.1\n"
                         "Emily,13.1\n"
                         "Lucy,14.1\n"
                         "Paul,18.1\n" +
                         kTwoRoadsCsv +
                         ",11.0\n"
                         "Whether I shall turn out to be the hero of my own life.,19.1\n");
}

// Needs Table::NewReader (the table read path).
TEST(SqlCliTest, PrintsPk09Snapshot6AsCsv) {
  TideRun run = RunTide(Sql("csv", "SELECT f0, f3 FROM paimon_scan('pk_09.pk_09', snapshot_id => 6) ORDER BY f0"));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, std::string(kPk09Header) +
                         "Alex,16.1\n"
                         "Alice,19.1\n"
                         "Bob,12.1\n"
                         "David,17.1\n"
                         "Emily,13.1\n"
                         "Lucy,14.1\n"
                         "Paul,18.1\n" +
                         kTwoRoadsCsv +
                         ",11.0\n"
                         "Whether I shall turn out to be the hero of my own life.,19.1\n");
}

TEST(SqlCliTest, PrintsSystemTables) {
  TideRun run = RunTide(Sql("csv", "SELECT snapshot_id, commit_kind, total_record_count FROM pk_09.\"pk_09$snapshots\" "
                               "WHERE snapshot_id >= 6 ORDER BY snapshot_id"));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "snapshot_id,commit_kind,total_record_count\n6,COMPACT,12\n7,APPEND,13\n8,COMPACT,10\n");
}

TEST(SqlCliTest, RunsSeveralStatementsAndPrintsEachResult) {
  TideRun run = RunTide(Sql("csv", "CREATE TABLE t AS SELECT 12.30::DECIMAL(10,2) AS d; SELECT d FROM t; "
                               "SELECT TIMESTAMP '2024-01-02 03:04:05.5' AS ts"));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "d\n12.30\nts\n2024-01-02 03:04:05.5\n");
}

TEST(SqlCliTest, PrintsJsonLinesWithExactNumbers) {
  TideRun run = RunTide(Sql("json", "SELECT 12.30::DECIMAL(10,2) AS d, 9007199254740993 AS big, NULL AS n, 'x' AS s"));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "{\"d\":\"12.30\",\"big\":9007199254740993,\"n\":null,\"s\":\"x\"}\n");
}

TEST(SqlCliTest, PrintsATable) {
  TideRun run = RunTide(Sql("table", "SELECT 1 AS id, 'Alice' AS name"));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out,
            "┌─────────┬─────────┐\n"
            "│   id    │  name   │\n"
            "│ integer │ varchar │\n"
            "├─────────┼─────────┤\n"
            "│       1 │ Alice   │\n"
            "└─────────┴─────────┘\n");
}

TEST(SqlCliTest, FailsWithTheErrorOnStderr) {
  TideRun run = RunTide(Sql("csv", "SELECT * FROM paimon_scan('pk_09.no_such_table')"));
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.out, "");
  EXPECT_THAT(run.err, HasSubstr("Error: "));
  EXPECT_THAT(run.err, HasSubstr("pk_09.no_such_table"));

  TideRun stops = RunTide(Sql("csv", "SELECT 1 AS a; SELECT nope; SELECT 2 AS b"));
  EXPECT_EQ(stops.exit_code, 1);
  EXPECT_EQ(stops.out, "a\n1\n");
  EXPECT_THAT(stops.err, HasSubstr("nope"));
}

// The extensions Tide needs are built in; one it lacks is an error at once, never a download.
TEST(SqlCliTest, NeverDownloadsAnExtension) {
  TideRun run = RunTide(Sql("csv", "SELECT * FROM read_parquet('https://127.0.0.1:9/x.parquet')"));
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_THAT(run.err, HasSubstr("httpfs"));
  EXPECT_THAT(run.err, ::testing::Not(HasSubstr("extensions.duckdb.org")));
}

TEST(SqlCliTest, SaysWhyATableHasNoView) {
  // The fixture's blob tables use a type Tide does not read yet: no view, and the error says why.
  TideRun run = RunTide(Sql("csv", "SELECT * FROM blob_data_evolution_with_dense_stats.blob_data_evolution_with_dense_stats"));
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_THAT(run.err, HasSubstr("Error: "));
  EXPECT_THAT(run.err, HasSubstr("Note: table blob_data_evolution_with_dense_stats.blob_data_evolution_with_dense_stats: "));
  EXPECT_THAT(run.err, HasSubstr("BLOB"));
  // Queries that do not touch them stay quiet.
  TideRun quiet = RunTide(Sql("csv", "SELECT 1 AS one"));
  EXPECT_EQ(quiet.err, "");
}

TEST(SqlCliTest, RejectsAMissingWarehouse) {
  TideRun run = RunTide({"sql", "--warehouse", "/nonexistent/warehouse", "SELECT 1"});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_THAT(run.err, HasSubstr("/nonexistent/warehouse"));
}

TEST(SqlCliTest, ReadsStatementsFromStdin) {
  std::vector<std::string> args = {"sql", "--warehouse", tide::testing::JavaFixtureWarehouse(), "--format", "csv"};
  TideRun run = RunTide(args, "SELECT 1 AS one;\nSELECT 'a;b' AS x,\n  2 AS y;\n");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "one\n1\nx,y\na;b,2\n");

  // An error is printed and the next statement still runs; the exit code reports the error.
  TideRun failed = RunTide(args, "SELECT * FROM nope.nope;\nSELECT 2 AS two;\n");
  EXPECT_EQ(failed.exit_code, 1);
  EXPECT_EQ(failed.out, "two\n2\n");
  EXPECT_THAT(failed.err, HasSubstr("Error: "));

  // .quit ends the input; a last statement without ';' runs at the end of input.
  TideRun quit = RunTide(args, "SELECT 1 AS a;\n.quit\nSELECT 2 AS b;\n");
  EXPECT_EQ(quit.out, "a\n1\n");
  TideRun tail = RunTide(args, ".mode json\nSELECT 3 AS c");
  EXPECT_EQ(tail.exit_code, 0) << tail.err;
  EXPECT_EQ(tail.out, "{\"c\":3}\n");
}

TEST(SqlCliTest, RunsDotCommandsInAScript) {
  std::vector<std::string> args = {"sql", "--warehouse", tide::testing::JavaFixtureWarehouse(), "--format", "csv"};
  // No prompts and no banner: only the answers, in order.
  TideRun run = RunTide(args,
                        ".schema pk_09.pk_09\n"
                        ".snapshots pk_09.pk_09\n"
                        ".mode json\n"
                        "SELECT count(*) AS n\n"
                        "  FROM pk_09.pk_09;\n"
                        ".tables\n");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.err, "");
  std::string expected =
      "column,type,paimon_type,key\n"
      "f0,VARCHAR,STRING NOT NULL,primary key\n"
      "f1,INTEGER,INT NOT NULL,\"primary key, partition key\"\n"
      "f2,INTEGER,INT NOT NULL,\"primary key, bucket key\"\n"
      "f3,DOUBLE,DOUBLE,\"\"\n"
      "snapshot_id,schema_id,commit_kind,commit_time,total_record_count,delta_record_count,changelog_record_count\n"
      "1,0,APPEND,2025-08-21 06:43:45.076,9,9,0\n"
      "2,0,COMPACT,2025-08-21 06:43:45.293,9,0,0\n"
      "3,0,APPEND,2025-08-21 06:43:45.364,11,2,0\n"
      "4,0,COMPACT,2025-08-21 06:43:45.382,11,0,0\n"
      "5,0,APPEND,2025-08-21 06:43:45.527,14,3,0\n"
      "6,0,COMPACT,2025-08-21 06:43:45.551,12,-2,0\n"
      "7,0,APPEND,2025-08-21 06:43:45.621,13,1,0\n"
      "8,0,COMPACT,2025-08-21 06:43:45.645,10,-3,0\n"
      "{\"n\":9}\n";
  EXPECT_EQ(run.out.substr(0, expected.size()), expected);
  EXPECT_THAT(run.out.substr(expected.size()), HasSubstr("{\"database\":\"pk_09\",\"name\":\"pk_09\"}\n"));

  // .timer prints each statement's time after its rows.
  TideRun timed = RunTide(args, ".timer on\nSELECT 1 AS one;\n");
  EXPECT_EQ(timed.exit_code, 0) << timed.err;
  EXPECT_TRUE(std::regex_match(timed.out, std::regex("one\n1\nRun Time: [0-9]+\\.[0-9]{3} s\n"))) << timed.out;

  // A table made in the session has its columns shown without Paimon's parts.
  TideRun own = RunTide(args, "CREATE TABLE t (id BIGINT, name VARCHAR);\n.schema t\n");
  EXPECT_EQ(own.exit_code, 0) << own.err;
  EXPECT_EQ(own.out, "column,type\nid,BIGINT\nname,VARCHAR\n");
}

TEST(SqlCliTest, AFailingDotCommandInAScriptIsPrintedAndSetsTheExitCode) {
  std::vector<std::string> args = {"sql", "--warehouse", tide::testing::JavaFixtureWarehouse(), "--format", "csv"};
  TideRun run = RunTide(args, ".schema pk_09.nope\n.snapshots\n.frobnicate\nSELECT 2 AS two;\n");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.out, "two\n2\n");
  EXPECT_EQ(run.err,
            "Error: no table pk_09.nope: .tables lists the tables, named <database>.<table>\n"
            "Error: usage: .snapshots <database>.<table>\n"
            "Error: unknown command .frobnicate: try .help\n");
}

}  // namespace
}  // namespace tide
