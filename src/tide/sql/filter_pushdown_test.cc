// Filter pushdown through LakeConnection::Query, the path `tide sql` runs: what it opens (counted by
// DataFileOpenRecorder) and that pruned results equal unpruned ones.
#include "tide/sql/filter_pushdown.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "testing/temp_dir.h"
#include "testing/value_or_fail.h"
#include "tide/codec/bucket.h"
#include "tide/sql/lake_connection.h"
#include "tide/sql/result_text.h"
#include "tide/table/source/data_file_open_counter.h"
#include "tide/table/source/row_group_pruner.h"
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

TEST_F(PushdownCountTest, KeyRangeReadsOnlyTheRowGroupsThatHoldIt) {
  OpenLake t = Open(warehouse_);
  // Every file of a hash-bucketed table spans the whole key range, so a range opens every file; inside
  // each, only the row groups (16384 rows) whose key statistics overlap the range are read.
  const std::string sql = "SELECT count(*), min(v), max(id) FROM shop.big WHERE id BETWEEN 1000000 AND 1000999";
  int64_t read_before = RowGroupsRead(), skipped_before = RowGroupsSkipped();
  int64_t opened_before = DataFilesOpened();
  std::vector<std::string> pruned = SortedRows(*t.lake, *t.renderer, sql);
  int64_t read = RowGroupsRead() - read_before, skipped = RowGroupsSkipped() - skipped_before;
  int64_t opened = DataFilesOpened() - opened_before;
  EXPECT_THAT(pruned, ::testing::ElementsAre("1000|u1000006|1000999"));
  EXPECT_EQ(opened, 32);
  // A range of 1000 keys lies in at most two row groups of a file; the files of the second commit (every
  // seventh key) hold one row group each.
  EXPECT_LE(read, 2 * opened) << read << " read, " << skipped << " skipped";
  EXPECT_GT(skipped, 2 * read);

  t.lake->pushdown().set_enabled(false);
  read_before = RowGroupsRead();
  skipped_before = RowGroupsSkipped();
  EXPECT_EQ(SortedRows(*t.lake, *t.renderer, sql), pruned);
  EXPECT_EQ(RowGroupsSkipped() - skipped_before, 0);
  EXPECT_EQ(RowGroupsRead() - read_before, read + skipped);
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

// Row groups: files of many small row groups (parquet.block.size), random range conditions on key and
// value columns, pruned against unpruned; row groups of merged primary-key files are skipped by key
// conditions only, those of append and deletion-vector files by any condition.
TEST(PushdownModelTest, RowGroupPruningReturnsTheUnprunedRows) {
  testing::TempDir dir;
  std::string warehouse = dir.path() + "/warehouse";
  std::vector<ModelTable> tables = {
      {"pk_fixed", {"k"}, {{"bucket", "2"}, {"parquet.block.size", "1kb"}}},
      {"pk_dv", {"k"}, {{"bucket", "2"}, {"deletion-vectors.enabled", "true"}, {"parquet.block.size", "1kb"}}},
      {"append", {}, {{"parquet.block.size", "1kb"}}},
      {"append_bucketed", {}, {{"bucket", "2"}, {"bucket-key", "k"}, {"parquet.block.size", "1kb"}}},
  };
  std::mt19937_64 rng(1202);
  for (const ModelTable& m : tables) {
    std::string path = warehouse + "/m.db/" + m.name;
    TableSchema schema = testing::WriterTestSchema(
        {testing::Field(0, "k", DataType::BigInt(false)), testing::Field(1, "s", DataType::String()),
         testing::Field(2, "n", DataType::Int()), testing::Field(3, "d", DataType::Decimal(8, 2))},
        m.primary_keys, {}, m.options);
    ASSERT_TRUE(testing::CreateWriterTestTable(path, schema).ok());
    for (int commit = 1; commit <= 3; ++commit) {
      auto writer = testing::ValueOrFail(TableWrite::Create(FileSystem::Local(), path, schema, "u", {}), "writer");
      // Ascending keys with gaps, overlapping between commits (updates of primary-key tables); values
      // follow the key loosely, so that value statistics narrow too.
      for (int64_t k = commit * 50; k < 2000; k += 1 + static_cast<int64_t>(rng() % 3)) {
        Row row{Datum(k), Datum("s" + std::to_string(1000 + k / 7)),
                rng() % 6 == 0 ? Datum() : Datum(static_cast<int32_t>(k / 5 + static_cast<int64_t>(rng() % 20))),
                Datum(DecimalValue{static_cast<int128_t>(k * 10 + commit)})};
        RowKind kind = !m.primary_keys.empty() && rng() % 12 == 0 ? RowKind::kDelete : RowKind::kInsert;
        ASSERT_TRUE(writer->Write(kind, row).ok());
      }
      auto messages = writer->PrepareCommit();
      ASSERT_TRUE(messages.ok()) << messages.status().ToString();
      ASSERT_TRUE(testing::CommitMessages(path, *messages, "u", commit).ok());
    }
  }

  OpenLake t = Open(warehouse);
  auto value = [&](const std::string& column) -> std::string {
    if (column == "k") return std::to_string(static_cast<int64_t>(rng() % 2100) - 50);
    if (column == "s") return "'s" + std::to_string(1000 + rng() % 300) + "'";
    if (column == "d") return std::to_string(static_cast<int64_t>(rng() % 21000) - 500) + ".5";
    return std::to_string(rng() % 420);
  };
  const std::vector<std::string> columns = {"k", "k", "s", "n", "d"};
  const std::vector<std::string> ops = {"=", "<", "<=", ">", ">="};
  int64_t skipped = 0;
  std::map<std::string, int64_t> skipped_by_table;
  for (int q = 0; q < 240; ++q) {
    const ModelTable& m = tables[static_cast<size_t>(q) % tables.size()];
    std::vector<std::string> conjuncts;
    int n = 1 + static_cast<int>(rng() % 2);
    for (int c = 0; c < n; ++c) {
      std::string column = columns[rng() % columns.size()];
      switch (rng() % 4) {
        case 0: conjuncts.push_back(column + " IN (" + value(column) + ", " + value(column) + ")"); break;
        case 1: {
          std::string lo = value(column);
          conjuncts.push_back(column + " BETWEEN " + lo + " AND " + lo + " + 40");
          if (column == "s") conjuncts.back() = column + " BETWEEN " + lo + " AND " + value(column);
          break;
        }
        case 2: conjuncts.push_back(column + (rng() % 2 ? " IS NULL" : " IS NOT NULL")); break;
        default: conjuncts.push_back(column + " " + ops[rng() % ops.size()] + " " + value(column)); break;
      }
    }
    std::string where;
    for (size_t c = 0; c < conjuncts.size(); ++c) where += (c ? " AND " : "") + conjuncts[c];
    std::string sql = "SELECT * FROM m." + m.name + " WHERE " + where;
    t.lake->pushdown().set_enabled(true);
    int64_t before = RowGroupsSkipped();
    std::vector<std::string> pruned = SortedRows(*t.lake, *t.renderer, sql);
    skipped += RowGroupsSkipped() - before;
    skipped_by_table[m.name] += RowGroupsSkipped() - before;
    t.lake->pushdown().set_enabled(false);
    std::vector<std::string> unpruned = SortedRows(*t.lake, *t.renderer, sql);
    ASSERT_EQ(pruned, unpruned) << sql;
    ASSERT_FALSE(!unpruned.empty() && unpruned[0].starts_with("ERROR")) << sql << ": " << unpruned[0];
  }
  // Row groups were skipped in every kind of table.
  for (const ModelTable& m : tables) EXPECT_GT(skipped_by_table[m.name], 0) << m.name;
  EXPECT_GT(skipped, 1000);
}

}  // namespace
}  // namespace tide
