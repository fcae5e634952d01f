// pypaimon reads what Tide writes: tables made with the tide binary (`tide table create`, `tide write`,
// `tide compact`) and by `tide sync postgres` from a real PostgreSQL are read at every snapshot by
// pypaimon (interop/python/paimon_read.py, the pinned PyPI release in interop/python/.venv) and by
// Tide's own reader, both rendered in the canonical row text; the lines must be equal, and hold the rows
// the test wrote. Only the table kinds pypaimon reads are here; docs/interop.md lists those it refuses.
#include <stdlib.h>
#include <time.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "interop/pypaimon_test_util.h"
#include "testing/pg_server.h"
#include "testing/temp_dir.h"
#include "testing/tide_process.h"

namespace tide {
namespace {

namespace fs = std::filesystem;
using interop_testing::PypaimonPython;
using interop_testing::ReadWithPypaimon;
using interop_testing::TideCanonicalRows;
using tide::testing::RunTide;
using tide::testing::TideRun;

class PypaimonReadTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ::setenv("TZ", "UTC", 1);
    ::tzset();
  }

  void SetUp() override {
    ASSERT_FALSE(PypaimonPython().empty())
        << "interop/python/.venv is missing: run `bash scripts/setup-python-interop.sh` (scripts/test.sh does)";
    warehouse_ = dir_.path() + "/lake";
    fs::create_directories(warehouse_);
  }

  void Tide(const std::vector<std::string>& args) {
    TideRun run = RunTide(args);
    ASSERT_EQ(run.exit_code, 0) << "tide " << ::testing::PrintToString(args) << ":\n" << run.err << run.out;
  }

  void Create(const std::string& table, const std::string& columns, const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"table", "create", "--warehouse", warehouse_, table, "--columns", columns};
    args.insert(args.end(), extra.begin(), extra.end());
    Tide(args);
  }

  // Writes `csv` (a header line, then rows) into `table`; `kinds` when its first column is the row kind.
  void Write(const std::string& table, const std::string& csv, bool kinds = false) {
    const std::string path = dir_.path() + "/in.csv";
    std::ofstream(path, std::ios::binary | std::ios::trunc) << csv;
    std::vector<std::string> args = {"write", "--warehouse", warehouse_, "--table", table, "--input", path};
    if (kinds) {
      args.push_back("--row-kind-column");
      args.push_back("op");
    }
    Tide(args);
  }

  int64_t LatestSnapshot(const std::string& table) const {
    auto dot = table.find('.');
    fs::path dir = fs::path(warehouse_) / (table.substr(0, dot) + ".db") / table.substr(dot + 1) / "snapshot";
    int64_t latest = 0;
    for (const auto& e : fs::directory_iterator(dir)) {
      std::string name = e.path().filename().string();
      if (name.rfind("snapshot-", 0) == 0) latest = std::max<int64_t>(latest, std::stoll(name.substr(9)));
    }
    return latest;
  }

  // pypaimon's lines equal Tide's at `snapshot` (latest when absent), and Tide holds `expected_rows` rows.
  void ExpectSameRows(const std::string& table, std::optional<int64_t> snapshot, size_t expected_rows) {
    std::string what = table + (snapshot ? ", snapshot " + std::to_string(*snapshot) : ", latest snapshot");
    auto tide_rows = TideCanonicalRows(warehouse_, table, snapshot);
    ASSERT_TRUE(tide_rows.ok()) << what << ": " << tide_rows.status().ToString();
    EXPECT_EQ(tide_rows->size(), expected_rows) << what << ": Tide's reader";
    auto py = ReadWithPypaimon(warehouse_, table, snapshot);
    ASSERT_EQ(py.exit_code, 0) << what << ": pypaimon failed:\n" << py.err;
    EXPECT_EQ(py.lines, *tide_rows) << what << ": pypaimon's rows differ from Tide's";
  }

  // The same at every snapshot: `rows_at[i]` rows at snapshot i + 1.
  void ExpectSameRowsAtEverySnapshot(const std::string& table, const std::vector<size_t>& rows_at) {
    ASSERT_EQ(LatestSnapshot(table), static_cast<int64_t>(rows_at.size())) << table << ": snapshots";
    for (size_t i = 0; i < rows_at.size(); ++i) ExpectSameRows(table, static_cast<int64_t>(i + 1), rows_at[i]);
  }

  std::string warehouse_;
  tide::testing::TempDir dir_;
};

// `n` rows "k,v,amount,ts" with keys from `first`.
std::string KeyValueRows(int first, int n, const std::string& tag) {
  std::string csv;
  for (int k = first; k < first + n; ++k) {
    csv += std::to_string(k) + "," + tag + std::to_string(k) + "," + std::to_string(k % 1000) + "." +
           std::to_string(10 + k % 90) + ",2024-0" + std::to_string(1 + k % 9) + "-1" + std::to_string(k % 10) +
           " 12:34:56.789\n";
  }
  return csv;
}

TEST_F(PypaimonReadTest, PrimaryKeyFixedBucketsWithUpdatesDeletesAndFullCompaction) {
  Create("db.kv", "k INT NOT NULL, v STRING, amount DECIMAL(10, 2), ts TIMESTAMP(3)",
         {"--primary-keys", "k", "--option", "bucket=2", "--option", "changelog-producer=input"});
  Write("db.kv", "k,v,amount,ts\n" + KeyValueRows(1, 300, "a"));
  Write("db.kv", "op,k,v,amount,ts\n-D,2,,,\n-D,3,,,\n+U,4,changed\tTAB,-1.50,1999-12-31 23:59:59.999\n"
                 "+I,1000,\"new\nline\",0.01,\n+U,5,,,\n",
        /*kinds=*/true);
  Write("db.kv", "k,v,amount,ts\n" + KeyValueRows(250, 100, "b"));
  ExpectSameRowsAtEverySnapshot("db.kv", {300, 299, 348});
  Tide({"compact", "--warehouse", warehouse_, "--table", "db.kv", "--full"});
  ASSERT_EQ(LatestSnapshot("db.kv"), 4);
  ExpectSameRows("db.kv", 4, 348);
  // --row-kinds: a batch read of the merged table is all inserts.
  auto py = ReadWithPypaimon(warehouse_, "db.kv", std::nullopt, /*row_kinds=*/true);
  ASSERT_EQ(py.exit_code, 0) << py.err;
  auto tide_rows = TideCanonicalRows(warehouse_, "db.kv", std::nullopt, /*row_kinds=*/true);
  ASSERT_TRUE(tide_rows.ok()) << tide_rows.status().ToString();
  EXPECT_EQ(py.lines, *tide_rows);
}

TEST_F(PypaimonReadTest, PartitionedPrimaryKeyTable) {
  Create("db.pk", "dt STRING NOT NULL, k BIGINT NOT NULL, v DOUBLE, f FLOAT",
         {"--primary-keys", "dt,k", "--partition-keys", "dt", "--option", "bucket=3"});
  std::string csv = "dt,k,v,f\n";
  for (int k = 0; k < 120; ++k) {
    csv += "2024-01-0" + std::to_string(1 + k % 4) + "," + std::to_string(k) + "," + std::to_string(k * 0.1) + "," +
           std::to_string(k * 0.25) + "\n";
  }
  Write("db.pk", csv);
  Write("db.pk", "op,dt,k,v,f\n-D,2024-01-01,0,,\n+U,2024-01-02,1,-0.0,1e30\n+I,2024-02-01,7,1e-300,\n", true);
  ExpectSameRowsAtEverySnapshot("db.pk", {120, 120});
}

TEST_F(PypaimonReadTest, DynamicBucketPrimaryKeyTable) {
  Create("db.dyn", "k BIGINT NOT NULL, v STRING", {"--primary-keys", "k", "--option", "bucket=-1",
                                                    "--option", "dynamic-bucket.target-row-num=50"});
  std::string csv = "k,v\n";
  for (int k = 0; k < 200; ++k) csv += std::to_string(k) + ",v" + std::to_string(k) + "\n";
  Write("db.dyn", csv);
  Write("db.dyn", "op,k,v\n+U,10,ten\n-D,11,\n+I,500,five hundred\n", true);
  ExpectSameRowsAtEverySnapshot("db.dyn", {200, 200});
}

TEST_F(PypaimonReadTest, AppendTablesUnawareAndFixedBucket) {
  Create("db.events", "id BIGINT, name STRING, day DATE, at TIME, flag BOOLEAN, small SMALLINT, tiny TINYINT",
         {"--partition-keys", "day"});
  Create("db.fixed", "id BIGINT, name STRING", {"--option", "bucket=2", "--option", "bucket-key=id"});
  std::string events = "id,name,day,at,flag,small,tiny\n", fixed = "id,name\n";
  for (int i = 0; i < 90; ++i) {
    events += std::to_string(i) + ",n" + std::to_string(i) + ",2024-0" + std::to_string(1 + i % 3) + "-01,0" +
              std::to_string(i % 10) + ":00:0" + std::to_string(i % 10) + ".12" + std::to_string(i % 10) + "," +
              (i % 2 ? "true" : "false") + "," + std::to_string(-i * 300) + "," + std::to_string(i - 60) + "\n";
    fixed += std::to_string(i) + ",f" + std::to_string(i) + "\n";
  }
  events += "90,,,,,,\n";
  Write("db.events", events);
  Write("db.events", events);
  Write("db.fixed", fixed);
  Write("db.fixed", fixed);
  ExpectSameRowsAtEverySnapshot("db.events", {91, 182});
  ExpectSameRowsAtEverySnapshot("db.fixed", {90, 180});
}

TEST_F(PypaimonReadTest, MergeEnginesPartialUpdateAndAggregation) {
  Create("db.partial", "k INT NOT NULL, a STRING, b BIGINT",
         {"--primary-keys", "k", "--option", "bucket=1", "--option", "merge-engine=partial-update"});
  Write("db.partial", "k,a,b\n1,one,\n2,,20\n3,three,30\n");
  Write("db.partial", "k,a,b\n1,,10\n2,two,\n");
  ExpectSameRowsAtEverySnapshot("db.partial", {3, 3});
  auto rows = TideCanonicalRows(warehouse_, "db.partial");
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(*rows, (std::vector<std::string>{"1\tone\t10", "2\ttwo\t20", "3\tthree\t30"}));

  Create("db.agg", "k INT NOT NULL, total BIGINT, top INT",
         {"--primary-keys", "k", "--option", "bucket=1", "--option", "merge-engine=aggregation", "--option",
          "fields.total.aggregate-function=sum", "--option", "fields.top.aggregate-function=max"});
  Write("db.agg", "k,total,top\n1,5,3\n2,7,9\n");
  Write("db.agg", "k,total,top\n1,10,1\n2,-7,10\n");
  ExpectSameRowsAtEverySnapshot("db.agg", {2, 2});
  rows = TideCanonicalRows(warehouse_, "db.agg");
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(*rows, (std::vector<std::string>{"1\t15\t3", "2\t0\t10"}));
}

// Tables Tide writes through lookup compaction: deletion vectors (32- and 64-bit bitmaps), first-row,
// and changelog-producer=lookup. A batch's rows are visible once the writer's compaction has run
// (`tide write` compacts level 0 of these tables before it commits, as Java's writer does).
TEST_F(PypaimonReadTest, DeletionVectorsFirstRowAndLookupChangelog) {
  for (const std::string bitmap64 : {"false", "true"}) {
    const std::string table = bitmap64 == "true" ? "db.dv64" : "db.dv";
    SCOPED_TRACE(table);
    Create(table, "k INT NOT NULL, v STRING, amount DECIMAL(10, 2), ts TIMESTAMP(3)",
           {"--primary-keys", "k", "--option", "bucket=2", "--option", "deletion-vectors.enabled=true", "--option",
            "deletion-vectors.bitmap64=" + bitmap64});
    Write(table, "k,v,amount,ts\n" + KeyValueRows(1, 300, "a"));
    Write(table, "op,k,v,amount,ts\n-D,2,,,\n-D,3,,,\n+U,4,changed,-1.50,1999-12-31 23:59:59.999\n+I,1000,new,0.01,\n",
          /*kinds=*/true);
    Write(table, "k,v,amount,ts\n" + KeyValueRows(250, 100, "b"));
    if (bitmap64 == "true") {
      // pypaimon 2.1.0 reads 32-bit bitmaps only (docs/interop.md); Tide's 64-bit files are Java's
      // (table_write_java_dv_test). When a later pypaimon reads them, this fails: move dv64 to the reads.
      auto py = ReadWithPypaimon(warehouse_, table, std::nullopt);
      EXPECT_NE(py.exit_code, 0);
      EXPECT_NE(py.err.find("Invalid magic number"), std::string::npos) << py.err;
      auto tide_rows = TideCanonicalRows(warehouse_, table, std::nullopt);
      ASSERT_TRUE(tide_rows.ok()) << tide_rows.status().ToString();
      EXPECT_EQ(tide_rows->size(), 348u);
    } else {
      ExpectSameRows(table, std::nullopt, 348);
      ExpectSameRows(table, LatestSnapshot(table) - 1,
                     TideCanonicalRows(warehouse_, table, LatestSnapshot(table) - 1)->size());
    }
    // The deletion vectors are in the table: an index manifest lists DV files.
    auto dv = RunTide({"sql", "--warehouse", warehouse_, "--format", "csv",
                       "SELECT count(*) AS n FROM " + table.substr(0, 2) + ".\"" + table.substr(3) + "$table_indexes\" "
                       "WHERE index_type = 'DELETION_VECTORS'"});
    ASSERT_EQ(dv.exit_code, 0) << dv.err;
    EXPECT_NE(dv.out, "n\n0\n") << "no deletion-vector index file in " << table;
  }

  Create("db.first", "k INT NOT NULL, v STRING", {"--primary-keys", "k", "--option", "bucket=1", "--option",
                                                   "merge-engine=first-row"});
  Write("db.first", "k,v\n1,first\n2,first\n");
  Write("db.first", "k,v\n1,second\n3,first\n");
  ExpectSameRows("db.first", std::nullopt, 3);
  auto first = TideCanonicalRows(warehouse_, "db.first");
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(*first, (std::vector<std::string>{"1\tfirst", "2\tfirst", "3\tfirst"}));

  Create("db.lookup", "k INT NOT NULL, v STRING", {"--primary-keys", "k", "--option", "bucket=1", "--option",
                                                    "changelog-producer=lookup"});
  Write("db.lookup", "k,v\n1,a\n2,a\n");
  Write("db.lookup", "op,k,v\n+U,1,b\n-D,2,\n+I,3,a\n", /*kinds=*/true);
  ExpectSameRows("db.lookup", std::nullopt, 2);
}

// A key that is not the whole partition: bucket -1, an update moves the row to another partition.
TEST_F(PypaimonReadTest, CrossPartitionUpdate) {
  Create("db.cross", "k INT NOT NULL, p STRING NOT NULL, v STRING",
         {"--primary-keys", "k", "--partition-keys", "p", "--option", "bucket=-1"});
  Write("db.cross", "k,p,v\n1,a,one\n2,a,two\n3,b,three\n");
  Write("db.cross", "k,p,v\n1,b,moved\n3,c,moved\n");
  ExpectSameRowsAtEverySnapshot("db.cross", {3, 3});
  auto rows = TideCanonicalRows(warehouse_, "db.cross");
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(*rows, (std::vector<std::string>{"1\tb\tmoved", "2\ta\ttwo", "3\tc\tmoved"}));
}

// Every type `tide write` loads from a Parquet file that DuckDB made (through `tide sql`), nested ones
// included, read by both.
TEST_F(PypaimonReadTest, EveryTypeFromParquet) {
  const std::string parquet = dir_.path() + "/types.parquet";
  Tide({"sql", "--warehouse", warehouse_,
        "COPY (SELECT i::BIGINT AS id, (i % 2 = 0) AS b, (i - 5)::TINYINT AS t8, (i * 1000 - 5000)::SMALLINT AS t16, "
        "(i * 100000 - 7)::INTEGER AS t32, (i / 3.0)::FLOAT AS f32, (i / 7.0)::DOUBLE AS f64, "
        "(i * 1.25 - 3)::DECIMAL(9, 2) AS d9, (i * 12345678901.123456789 - 1)::DECIMAL(38, 10) AS d38, "
        "CASE WHEN i = 3 THEN NULL ELSE 'text ' || i || chr(9) || '\\' END AS s, "
        "('\\x00\\xff' || i::VARCHAR)::BLOB AS bin, DATE '1969-12-25' + i::INTEGER AS day, "
        "TIME '13:14:15.678' AS tod, TIMESTAMP '1970-01-01 00:00:01.123456' + to_days(i::INTEGER) AS ts6, "
        "TIMESTAMP_MS '2024-02-29 10:00:00.5' AS ts3, "
        "TIMESTAMPTZ '2024-05-06 07:08:09.123456+00' AS ltz, "
        "[i, NULL, i + 1] AS arr, MAP {'k' || i: i::INTEGER, 'a': -1} AS m, {'x': i, 'y': 'why'} AS st "
        "FROM range(10) r(i)) TO '" + parquet + "' (FORMAT parquet)"});
  Create("db.types",
         "id BIGINT NOT NULL, b BOOLEAN, t8 TINYINT, t16 SMALLINT, t32 INT, f32 FLOAT, f64 DOUBLE, d9 DECIMAL(9, 2), "
         "d38 DECIMAL(38, 10), s STRING, bin BYTES, day DATE, tod TIME, ts6 TIMESTAMP(6), ts3 TIMESTAMP(3), "
         "ltz TIMESTAMP(6) WITH LOCAL TIME ZONE, arr ARRAY<BIGINT>, m MAP<STRING, INT>, st ROW<x BIGINT, y STRING>",
         {"--primary-keys", "id", "--option", "bucket=1"});
  Tide({"write", "--warehouse", warehouse_, "--table", "db.types", "--input", parquet});
  ExpectSameRows("db.types", std::nullopt, 10);
}

// A table `tide sync postgres` wrote from a real PostgreSQL (copy, then streamed inserts, updates and
// deletes), with the PostgreSQL types the sync maps, read by pypaimon while the sync has stopped.
TEST_F(PypaimonReadTest, TableWrittenByTideSyncPostgres) {
  auto& server = tide::testing::PgServer::Shared();
  const std::string db = "pypaimon_sync";
  ASSERT_TRUE(server.CreateDatabase(db).ok());
  auto exec = [&](const std::string& sql) {
    Status st = server.Exec(sql, db);
    ASSERT_TRUE(st.ok()) << st.ToString();
  };
  exec("CREATE TABLE items (id bigint PRIMARY KEY, i2 smallint, i4 integer, r4 real, r8 double precision, "
       "n numeric(12, 3), flag boolean, name text, code varchar(8), fixed char(3), raw bytea, day date, "
       "tod time(3), ts timestamp(6), tstz timestamptz, tags text[], doc jsonb, uid uuid)");
  exec("INSERT INTO items SELECT g, (g % 300)::smallint, g * 1000, g / 3.0, g / 7.0, g * 1.125, g % 2 = 0, "
       "'name ' || g, 'c' || (g % 100), 'x' || (g % 10), decode(lpad(to_hex(g), 4, '0'), 'hex'), "
       "date '2000-01-01' + g, time '01:02:03.456' + g * interval '1 second', "
       "timestamp '2020-02-02 02:02:02.123456' + g * interval '1 hour', "
       "timestamptz '2021-03-04 05:06:07.654321+00' + g * interval '1 minute', ARRAY['a' || g, NULL, 'b'], "
       "jsonb_build_object('g', g), md5(g::text)::uuid FROM generate_series(1, 500) g");
  exec("INSERT INTO items (id) VALUES (0)");  // a row of NULLs
  const std::string warehouse = warehouse_;
  const std::string log = dir_.path() + "/sync.log";
  pid_t pid = ::fork();
  if (pid == 0) {
    int err = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    ::dup2(err, 2);
    std::string tide = tide::testing::BuildDir() + "/tide";
    std::string conninfo = server.conninfo(db);
    ::execl(tide.c_str(), tide.c_str(), "sync", "postgres", "--warehouse", warehouse.c_str(), "--database", "shop",
            "--postgres", conninfo.c_str(), "--tables", "public.items", "--slot", "pypaimon_slot", "--commit-interval",
            "100ms", static_cast<char*>(nullptr));
    _exit(127);
  }
  auto wait_rows = [&](size_t want) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (std::chrono::steady_clock::now() < deadline) {
      auto rows = TideCanonicalRows(warehouse, "shop.items");
      if (rows.ok() && rows->size() == want) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  };
  bool copied = wait_rows(501);
  if (copied) {
    exec("UPDATE items SET name = 'renamed', n = -n, tags = ARRAY[]::text[] WHERE id % 10 = 0");
    exec("DELETE FROM items WHERE id BETWEEN 100 AND 149");
    exec("INSERT INTO items (id, name, r4) VALUES (1000, E'tab\\there', 'NaN'), (1001, E'line\\nbreak', '-Infinity')");
  }
  bool streamed = copied && wait_rows(453);
  // Give the last changes' commit time to land, then stop the sync cleanly.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  ::kill(pid, SIGINT);
  int status = 0;
  ::waitpid(pid, &status, 0);
  auto sync_log = FileSystem::Local()->ReadFile(log);
  ASSERT_TRUE(copied) << "the initial copy did not reach the lake; sync log:\n" << (sync_log.ok() ? *sync_log : "");
  ASSERT_TRUE(streamed) << "the streamed changes did not reach the lake; sync log:\n" << (sync_log.ok() ? *sync_log : "");
  ExpectSameRows("shop.items", std::nullopt, 453);
  for (int64_t s = 1; s <= LatestSnapshot("shop.items"); ++s) {
    auto tide_rows = TideCanonicalRows(warehouse_, "shop.items", s);
    ASSERT_TRUE(tide_rows.ok()) << tide_rows.status().ToString();
    ExpectSameRows("shop.items", s, tide_rows->size());
  }
  Status dropped = server.Exec("SELECT pg_drop_replication_slot('pypaimon_slot')", db);
  EXPECT_TRUE(dropped.ok()) << dropped.ToString();
}

}  // namespace
}  // namespace tide
