// Filter pushdown through LakeConnection::Query, the path `tide sql` runs: what it opens (counted by
// DataFileOpenRecorder) and that pruned results equal unpruned ones.
#include "tide/sql/filter_pushdown.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "testing/temp_dir.h"
#include "testing/value_or_fail.h"
#include "tide/codec/bucket.h"
#include "tide/sql/lake_connection.h"
#include "tide/sql/result_text.h"
#include "tide/table/source/data_file_open_counter.h"
#include "tide/table/table_test_util.h"

namespace tide {
namespace {

// The rows of `sql` through LakeConnection::Query, sorted, each as cells joined by '|'.
std::vector<std::string> SortedRows(LakeConnection& lake, ResultRenderer& renderer, const std::string& sql) {
  Result<DuckResult> result = lake.Query(sql);
  if (!result.ok()) return {"ERROR: " + result.status().message()};
  Result<TextResult> text = renderer.Render(*result, CellStyle::kText);
  if (!text.ok()) return {"ERROR: " + text.status().message()};
  std::vector<std::string> rows;
  for (const auto& row : text->rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) line += (c ? "|" : "") + (row[c] ? *row[c] : std::string("NULL"));
    rows.push_back(std::move(line));
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

struct OpenLake {
  std::unique_ptr<LakeConnection> lake;
  std::unique_ptr<ResultRenderer> renderer;
};

OpenLake Open(const std::string& warehouse) {
  OpenLake out;
  out.lake = testing::ValueOrFail(LakeConnection::OpenWarehouse(FileSystem::Local(), warehouse), "open lake");
  out.renderer = testing::ValueOrFail(ResultRenderer::Create(&out.lake->connection()), "renderer");
  return out;
}

// The folder of one partition and bucket as a path fragment: "/dt=<dt>/bucket-<b>/".
std::string BucketFolder(const std::string& dt, int32_t bucket) {
  return "/dt=" + dt + "/bucket-" + std::to_string(bucket) + "/";
}

// --- Counting: a 2,000,000-row primary-key table, 4 partitions x 4 buckets, two commits.

class PushdownCountTest : public ::testing::Test {
 protected:
  static constexpr int64_t kRows = 2000000;
  static constexpr int kPartitions = 4;

  static std::string Day(int p) { return "2024-01-0" + std::to_string(p + 1); }

  static void SetUpTestSuite() {
    dir_ = new testing::TempDir();
    warehouse_ = dir_->path() + "/warehouse";
    std::string path = warehouse_ + "/shop.db/big";
    TableSchema schema = testing::WriterTestSchema(
        {testing::Field(0, "dt", DataType::String(false)), testing::Field(1, "id", DataType::BigInt(false)),
         testing::Field(2, "v", DataType::String())},
        {"dt", "id"}, {"dt"}, {{"bucket", "4"}});
    ASSERT_TRUE(testing::CreateWriterTestTable(path, schema).ok());
    TableWriteConfig config;
    config.write_buffer_size = int64_t{1} << 30;
    config.target_file_size = int64_t{1} << 30;
    for (int commit = 1; commit <= 2; ++commit) {
      auto writer = testing::ValueOrFail(TableWrite::Create(FileSystem::Local(), path, schema, "u", config), "writer");
      for (int64_t id = 1; id <= kRows; ++id) {
        // Commit 2 updates every seventh key: each bucket then has two files with overlapping key ranges.
        if (commit == 2 && id % 7 != 0) continue;
        std::string v = (commit == 1 ? "v" : "u") + std::to_string(id);
        ASSERT_TRUE(writer->Write(RowKind::kInsert, Row{Datum(Day(static_cast<int>(id % kPartitions))), Datum(id), Datum(v)}).ok());
      }
      auto messages = writer->PrepareCommit();
      ASSERT_TRUE(messages.ok()) << messages.status().ToString();
      ASSERT_TRUE(testing::CommitMessages(path, *messages, "u", commit).ok());
    }
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }

  static testing::TempDir* dir_;
  static std::string warehouse_;
};

testing::TempDir* PushdownCountTest::dir_ = nullptr;
std::string PushdownCountTest::warehouse_;

TEST_F(PushdownCountTest, PointLookupOpensOnlyTheKeysBucket) {
  OpenLake t = Open(warehouse_);
  const int64_t id = 1234567;
  const std::string dt = Day(static_cast<int>(id % kPartitions));
  // The key's bucket as the writer computes it: the bucket key is the primary key without the partition.
  auto function = testing::ValueOrFail(BucketFunction::Create(BucketFunctionType::kDefault, {DataType::BigInt(false)}, 4), "bucket");
  std::string scratch;
  int32_t bucket = testing::ValueOrFail(function.Bucket(Row{Datum(id)}, &scratch), "bucket of key");
  std::string sql = "SELECT dt, id, v FROM shop.big WHERE dt = '" + dt + "' AND id = " + std::to_string(id);

  DataFileOpenRecorder recorder;
  EXPECT_THAT(SortedRows(*t.lake, *t.renderer, sql), ::testing::ElementsAre(dt + "|" + std::to_string(id) + "|v" + std::to_string(id)));
  std::vector<std::string> opened = recorder.paths();
  ASSERT_FALSE(opened.empty());
  for (const std::string& path : opened) EXPECT_THAT(path, ::testing::HasSubstr(BucketFolder(dt, bucket))) << sql;
  // At most the bucket's two files (their key ranges both hold the key); a lookup probes a file's key
  // columns first and then reads the row from the file that holds its newest version.
  EXPECT_LE(std::set<std::string>(opened.begin(), opened.end()).size(), 2u);
  EXPECT_LE(opened.size(), 3u);

  // The newest version of an updated key, through the same path.
  EXPECT_THAT(SortedRows(*t.lake, *t.renderer, "SELECT v FROM shop.big WHERE id = 1234562 AND dt = '" + Day(2) + "'"),
              ::testing::ElementsAre("u1234562"));

  // Unpruned, the same query opens every file of the table (16 buckets, two commits).
  t.lake->pushdown().set_enabled(false);
  DataFileOpenRecorder unpruned;
  EXPECT_THAT(SortedRows(*t.lake, *t.renderer, sql), ::testing::ElementsAre(dt + "|" + std::to_string(id) + "|v" + std::to_string(id)));
  EXPECT_EQ(unpruned.paths().size(), 32u);
  EXPECT_THAT(SortedRows(*t.lake, *t.renderer, "SELECT count(*) FROM shop.\"big$files\""), ::testing::ElementsAre("32"));
}

TEST_F(PushdownCountTest, KeyWithoutPartitionOpensOneBucketPerPartition) {
  OpenLake t = Open(warehouse_);
  DataFileOpenRecorder recorder;
  EXPECT_THAT(SortedRows(*t.lake, *t.renderer, "SELECT dt, v FROM shop.big WHERE id = 43"),
              ::testing::ElementsAre(Day(3) + "|v43"));
  std::set<std::string> buckets;
  for (const std::string& path : recorder.paths()) {
    size_t at = path.find("/dt=");
    ASSERT_NE(at, std::string::npos) << path;
    buckets.insert(path.substr(at, path.find('/', path.find("/bucket-", at) + 1) - at));
  }
  EXPECT_LE(buckets.size(), 4u);  // one bucket in each of the four partitions at most
  EXPECT_LE(recorder.paths().size(), 8u);
}

TEST_F(PushdownCountTest, PartitionFilterOpensOnlyThatPartition) {
  OpenLake t = Open(warehouse_);
  DataFileOpenRecorder recorder;
  EXPECT_THAT(SortedRows(*t.lake, *t.renderer, "SELECT count(*) FROM shop.big WHERE dt = '" + Day(1) + "'"),
              ::testing::ElementsAre(std::to_string(kRows / kPartitions)));
  std::vector<std::string> opened = recorder.paths();
  for (const std::string& path : opened) EXPECT_THAT(path, ::testing::HasSubstr("/dt=" + Day(1) + "/"));
  EXPECT_EQ(opened.size(), 8u);  // its four buckets, two files each
  EXPECT_THAT(SortedRows(*t.lake, *t.renderer, "SELECT count(*) FROM shop.\"big$files\" WHERE partition = '{" + Day(1) + "}'"),
              ::testing::ElementsAre("8"));

  DataFileOpenRecorder range;
  EXPECT_THAT(SortedRows(*t.lake, *t.renderer, "SELECT count(*) FROM shop.big WHERE dt >= '" + Day(2) + "'"),
              ::testing::ElementsAre(std::to_string(kRows / 2)));
  for (const std::string& path : range.paths()) {
    EXPECT_TRUE(path.find("/dt=" + Day(2) + "/") != std::string::npos || path.find("/dt=" + Day(3) + "/") != std::string::npos) << path;
  }
  EXPECT_EQ(range.paths().size(), 16u);
}

TEST_F(PushdownCountTest, UnprunableQueriesReadEverythingAndStayExact) {
  OpenLake t = Open(warehouse_);
  DataFileOpenRecorder recorder;
  // OR and a function on the column are not pushed.
  EXPECT_THAT(SortedRows(*t.lake, *t.renderer, "SELECT count(*) FROM shop.big WHERE id = 42 OR id = 43"),
              ::testing::ElementsAre("2"));
  EXPECT_EQ(recorder.paths().size(), 32u);
}

// --- A model test: random predicates over several kinds of tables, pruned against unpruned.

struct ModelTable {
  std::string name;
  std::vector<std::string> primary_keys;
  std::vector<std::pair<std::string, std::string>> options;
};

TEST(PushdownModelTest, RandomPredicatesReturnTheUnprunedRows) {
  testing::TempDir dir;
  std::string warehouse = dir.path() + "/warehouse";
  // Columns: p (partition, INT), k (BIGINT), s (STRING), d (DECIMAL(8,2)), day (DATE), n (INT, nullable).
  std::vector<ModelTable> tables = {
      {"pk_fixed", {"p", "k"}, {{"bucket", "3"}}},
      {"pk_dynamic", {"p", "k"}, {{"bucket", "-1"}}},
      {"pk_dv", {"p", "k"}, {{"bucket", "2"}, {"deletion-vectors.enabled", "true"}}},
      {"append", {}, {}},
      {"append_bucketed", {}, {{"bucket", "2"}, {"bucket-key", "k"}}},
  };
  std::mt19937_64 rng(20261202);
  for (const ModelTable& m : tables) {
    std::string path = warehouse + "/m.db/" + m.name;
    TableSchema schema = testing::WriterTestSchema(
        {testing::Field(0, "p", DataType::Int(false)), testing::Field(1, "k", DataType::BigInt(false)),
         testing::Field(2, "s", DataType::String()), testing::Field(3, "d", DataType::Decimal(8, 2)),
         testing::Field(4, "day", DataType::Date()), testing::Field(5, "n", DataType::Int())},
        m.primary_keys, {"p"}, m.options);
    ASSERT_TRUE(testing::CreateWriterTestTable(path, schema).ok());
    for (int commit = 1; commit <= 4; ++commit) {
      auto writer = testing::ValueOrFail(TableWrite::Create(FileSystem::Local(), path, schema, "u", {}), "writer");
      for (int i = 0; i < 300; ++i) {
        int64_t k = static_cast<int64_t>(rng() % 400);
        Row row{Datum(static_cast<int32_t>(rng() % 3)), Datum(k), Datum("s" + std::to_string(rng() % 50)),
                Datum(DecimalValue{static_cast<int128_t>(rng() % 20000) - 10000}),
                Datum(static_cast<int64_t>(19700 + rng() % 30)),
                rng() % 5 == 0 ? Datum() : Datum(static_cast<int32_t>(rng() % 100))};
        RowKind kind = !m.primary_keys.empty() && rng() % 10 == 0 ? RowKind::kDelete : RowKind::kInsert;
        ASSERT_TRUE(writer->Write(kind, row).ok());
      }
      auto messages = writer->PrepareCommit();
      ASSERT_TRUE(messages.ok()) << messages.status().ToString();
      ASSERT_TRUE(testing::CommitMessages(path, *messages, "u", commit).ok());
    }
  }

  OpenLake t = Open(warehouse);
  auto value = [&](const std::string& column) -> std::string {
    if (column == "p") return std::to_string(rng() % 4);
    if (column == "k") return std::to_string(static_cast<int64_t>(rng() % 420) - 10);
    if (column == "s") return "'s" + std::to_string(rng() % 55) + "'";
    if (column == "d") return std::to_string(static_cast<int64_t>(rng() % 22000) - 11000) + ".5" + std::to_string(rng() % 2);
    if (column == "day") return "DATE '2023-" + std::to_string(11 + rng() % 2) + "-" + std::to_string(10 + rng() % 18) + "'";
    return std::to_string(rng() % 110);
  };
  const std::vector<std::string> columns = {"p", "k", "s", "d", "day", "n"};
  const std::vector<std::string> ops = {"=", "<", "<=", ">", ">=", "<>"};
  int64_t pruned_opens = 0, unpruned_opens = 0;
  for (int q = 0; q < 300; ++q) {
    const ModelTable& m = tables[rng() % tables.size()];
    std::vector<std::string> conjuncts;
    int n = 1 + static_cast<int>(rng() % 3);
    for (int c = 0; c < n; ++c) {
      std::string column = columns[rng() % columns.size()];
      switch (rng() % 6) {
        case 0: conjuncts.push_back(column + " IN (" + value(column) + ", " + value(column) + ")"); break;
        case 1: conjuncts.push_back(column + " BETWEEN " + value(column) + " AND " + value(column)); break;
        case 2: conjuncts.push_back(column + (rng() % 2 ? " IS NULL" : " IS NOT NULL")); break;
        case 3: conjuncts.push_back("(" + column + " = " + value(column) + " OR k = " + value("k") + ")"); break;
        case 4: conjuncts.push_back(value(column) + " " + ops[rng() % ops.size()] + " " + column); break;
        default: conjuncts.push_back(column + " " + ops[rng() % ops.size()] + " " + value(column)); break;
      }
    }
    std::string where;
    for (size_t c = 0; c < conjuncts.size(); ++c) where += (c ? " AND " : "") + conjuncts[c];
    std::string sql = "SELECT * FROM m." + m.name + " WHERE " + where;
    if (rng() % 4 == 0) sql = "SELECT * FROM paimon_scan('m." + m.name + "', snapshot_id => " + std::to_string(1 + rng() % 4) + ") WHERE " + where;
    t.lake->pushdown().set_enabled(true);
    int64_t before = DataFilesOpened();
    std::vector<std::string> pruned = SortedRows(*t.lake, *t.renderer, sql);
    pruned_opens += DataFilesOpened() - before;
    t.lake->pushdown().set_enabled(false);
    before = DataFilesOpened();
    std::vector<std::string> unpruned = SortedRows(*t.lake, *t.renderer, sql);
    unpruned_opens += DataFilesOpened() - before;
    ASSERT_EQ(pruned, unpruned) << sql;
    ASSERT_FALSE(!unpruned.empty() && unpruned[0].starts_with("ERROR")) << sql << ": " << unpruned[0];
  }
  // Pruning happened: the random predicates opened clearly fewer files than the same queries unpruned.
  EXPECT_LT(pruned_opens * 10, unpruned_opens * 9) << pruned_opens << " vs " << unpruned_opens;
}

}  // namespace
}  // namespace tide
