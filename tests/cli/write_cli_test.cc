// `tide write` as a user runs it: the built binary loading CSV and Parquet files into tables that
// `tide table create` made, read back with `tide sql`.

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


void WriteFile(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

TEST(WriteCliTest, LoadsCsvIntoAppendTableAndSqlReadsItBack) {
  tide::testing::TempDir dir;
  std::string w = dir.path() + "/lake";
  std::filesystem::create_directories(w);
  ASSERT_EQ(RunTide({"table", "create", "--warehouse", w, "db.events", "--columns",
                     "id BIGINT, name STRING, amount DECIMAL(10, 2), day DATE"})
                .exit_code,
            0);
  WriteFile(dir.path() + "/in.csv", "id,name,amount,day\n1,alpha,1.50,2024-01-02\n2,beta,,2024-02-03\n3,,-7.25,\n");
  TideRun written = RunTide({"write", "--warehouse", w, "--table", "db.events", "--input", dir.path() + "/in.csv"});
  ASSERT_EQ(written.exit_code, 0) << written.err;
  EXPECT_EQ(written.out, "Wrote 3 rows to db.events in snapshot 1\n");
  TideRun read = RunTide({"sql", "--warehouse", w, "--format", "csv", "SELECT * FROM db.events ORDER BY id"});
  ASSERT_EQ(read.exit_code, 0) << read.err;
  EXPECT_EQ(read.out, "id,name,amount,day\n1,alpha,1.50,2024-01-02\n2,beta,,2024-02-03\n3,,-7.25,\n");
  TideRun described = RunTide({"table", "describe", "--warehouse", w, "db.events"});
  EXPECT_THAT(described.out, HasSubstr("Latest snapshot: 1 at "));
  EXPECT_THAT(described.out, HasSubstr(", 3 records\n"));
}

// A CSV value bound for a STRING column is stored as written, not as DuckDB's type detection reads it
// (a number loses its leading zeros, a minute becomes a timestamp with seconds); other columns still
// take the detected values, cast to their type.
TEST(WriteCliTest, CsvTextOfStringColumnsIsKeptAsWritten) {
  tide::testing::TempDir dir;
  std::string w = dir.path() + "/lake";
  std::filesystem::create_directories(w);
  ASSERT_EQ(RunTide({"table", "create", "--warehouse", w, "db.t", "--columns",
                     "code STRING, minute VARCHAR(20), flag STRING, n INT, at TIMESTAMP(3)"})
                .exit_code,
            0);
  WriteFile(dir.path() + "/in.csv",
            "code,minute,flag,n,at\n007,2026-12-01 10:00,true,007,2026-12-01 10:00\n0.50,2026-12-01 10:01,,8,\n");
  TideRun written = RunTide({"write", "--warehouse", w, "--table", "db.t", "--input", dir.path() + "/in.csv"});
  ASSERT_EQ(written.exit_code, 0) << written.err;
  TideRun read = RunTide({"sql", "--warehouse", w, "--format", "csv", "SELECT * FROM db.t ORDER BY n"});
  ASSERT_EQ(read.exit_code, 0) << read.err;
  EXPECT_EQ(read.out,
            "code,minute,flag,n,at\n007,2026-12-01 10:00,true,7,2026-12-01 10:00:00\n0.50,2026-12-01 10:01,,8,\n");
}

TEST(WriteCliTest, RowKindsMergeOnAPrimaryKeyTable) {
  tide::testing::TempDir dir;
  std::string w = dir.path() + "/lake";
  std::filesystem::create_directories(w);
  ASSERT_EQ(RunTide({"table", "create", "--warehouse", w, "db.kv", "--columns", "k INT, v STRING", "--primary-keys",
                     "k", "--option", "bucket=1"})
                .exit_code,
            0);
  WriteFile(dir.path() + "/first.csv", "k,v\n1,one\n2,two\n3,three\n");
  ASSERT_EQ(RunTide({"write", "--warehouse", w, "--table", "db.kv", "--input", dir.path() + "/first.csv"}).exit_code, 0);
  WriteFile(dir.path() + "/second.csv", "op,k,v\n-D,2,two\n+U,3,THREE\n+I,4,four\n");
  TideRun written = RunTide({"write", "--warehouse", w, "--table", "db.kv", "--input", dir.path() + "/second.csv",
                             "--row-kind-column", "op"});
  ASSERT_EQ(written.exit_code, 0) << written.err;
  EXPECT_EQ(written.out, "Wrote 3 rows to db.kv in snapshot 2\n");
  TideRun read = RunTide({"sql", "--warehouse", w, "--format", "csv", "SELECT k, v FROM db.kv ORDER BY k"});
  ASSERT_EQ(read.exit_code, 0) << read.err;
  EXPECT_EQ(read.out, "k,v\n1,one\n3,THREE\n4,four\n");
}

TEST(WriteCliTest, LoadsParquetWrittenByDuckDb) {
  tide::testing::TempDir dir;
  std::string w = dir.path() + "/lake";
  std::filesystem::create_directories(w);
  ASSERT_EQ(RunTide({"table", "create", "--warehouse", w, "db.p", "--columns", "a INT, b DOUBLE"}).exit_code, 0);
  // A Parquet file made by DuckDB through tide sql (a COPY in the embedded database).
  std::string parquet = dir.path() + "/in.parquet";
  TideRun made = RunTide({"sql", "--warehouse", w,
                          "COPY (SELECT range::INT AS a, range / 2.0 AS b FROM range(5)) TO '" + parquet +
                              "' (FORMAT parquet)"});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  TideRun written = RunTide({"write", "--warehouse", w, "--table", "db.p", "--input", parquet});
  ASSERT_EQ(written.exit_code, 0) << written.err;
  TideRun read = RunTide({"sql", "--warehouse", w, "--format", "csv", "SELECT sum(a), sum(b), count(*) FROM db.p"});
  ASSERT_EQ(read.exit_code, 0) << read.err;
  EXPECT_THAT(read.out, HasSubstr("\n10,5.0,5\n"));
}

TEST(WriteCliTest, BadInputCommitsNothing) {
  tide::testing::TempDir dir;
  std::string w = dir.path() + "/lake";
  std::filesystem::create_directories(w);
  ASSERT_EQ(RunTide({"table", "create", "--warehouse", w, "db.t", "--columns", "k INT NOT NULL, v STRING",
                     "--primary-keys", "k", "--option", "bucket=1"})
                .exit_code,
            0);
  struct Case {
    std::string csv;
    std::vector<std::string> extra;
    const char* message;
  };
  std::vector<Case> cases = {
      {"k,v,x\n1,a,b\n", {}, "column x of"},
      {"v\na\n", {}, "has no column k"},
      {"k,v\nnope,a\n", {}, "nope"},
      {"op,k,v\n*X,1,a\n", {"--row-kind-column", "op"}, "row kind '*X'"},
  };
  for (const Case& c : cases) {
    WriteFile(dir.path() + "/bad.csv", c.csv);
    std::vector<std::string> args = {"write", "--warehouse", w, "--table", "db.t", "--input", dir.path() + "/bad.csv"};
    args.insert(args.end(), c.extra.begin(), c.extra.end());
    TideRun run = RunTide(args);
    EXPECT_EQ(run.exit_code, 1) << c.message;
    EXPECT_THAT(run.err, HasSubstr(c.message));
  }
  EXPECT_FALSE(std::filesystem::exists(w + "/db.db/t/snapshot/snapshot-1"));
}

}  // namespace
}  // namespace tide
