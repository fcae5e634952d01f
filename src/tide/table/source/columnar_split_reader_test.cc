// Tests of the columnar read path (TableReader::NextVectors, columnar_split_reader.h): which splits take
// it, and that it returns exactly the rows the row path returns, for merges over several sorted runs
// (integer and composite string keys, deletes, updates, ignore-delete), append tables, schema evolution
// and readers sharing splits.
#include "tide/table/source/columnar_split_reader.h"

#include <gtest/gtest.h>

#include <random>

#include "testing/read_by_vectors.h"
#include "testing/temp_dir.h"
#include "tide/table/schema/schema_change.h"
#include "tide/table/table_test_util.h"

namespace tide {
namespace {

using testing::Field;
using testing::WriterTestSchema;

class ColumnarReadTest : public ::testing::Test {
 protected:
  std::string MakeTable(const TableSchema& schema) {
    std::string path = dir_.path() + "/db.db/t" + std::to_string(tables_++);
    EXPECT_TRUE(testing::CreateWriterTestTable(path, schema).ok());
    return path;
  }

  // Writes `rows` (with their kinds) as one commit.
  void Commit(const std::string& path, const TableSchema& schema, const std::vector<std::pair<RowKind, Row>>& rows) {
    auto writer = TableWrite::Create(FileSystem::Local(), path, schema, "user", {});
    ASSERT_TRUE(writer.ok()) << writer.status().ToString();
    for (const auto& [kind, row] : rows) ASSERT_TRUE((*writer)->Write(kind, row).ok());
    auto messages = (*writer)->PrepareCommit();
    ASSERT_TRUE(messages.ok()) << messages.status().ToString();
    auto committed = testing::CommitMessages(path, *messages, "user", ++identifier_);
    ASSERT_TRUE(committed.ok()) << committed.status().ToString();
  }

  struct Read {
    std::vector<Row> rows;
    TableReadStats stats;
  };
  // The table read by vectors with `workers` readers, and what the readers did.
  Read ReadByVectors(const std::string& path, int workers, std::map<std::string, std::string> options = {}) {
    Read read;
    auto table = Table::Open(FileSystem::Local(), path, "db.t");
    EXPECT_TRUE(table.ok()) << table.status().ToString();
    if (!table.ok()) return read;
    ReadOptions read_options;
    read_options.dynamic_options = std::move(options);
    auto reader = (*table)->NewReader(read_options);
    EXPECT_TRUE(reader.ok()) << reader.status().ToString();
    if (!reader.ok()) return read;
    std::vector<std::unique_ptr<TableReader>> readers;
    for (int w = 0; w < workers; ++w) {
      auto worker = (*reader)->NewWorker();
      EXPECT_TRUE(worker.ok() && *worker);
      readers.push_back(std::move(worker).value());
    }
    // Each worker reads to the end in turn: the splits it claimed are its alone.
    for (auto& worker : readers) {
      TableReadStats stats;
      auto rows = testing::ReadByVectors(std::move(worker), 0, &stats);
      EXPECT_TRUE(rows.ok()) << rows.status().ToString();
      if (rows.ok()) read.rows.insert(read.rows.end(), rows->begin(), rows->end());
      read.stats.columnar_splits += stats.columnar_splits;
      read.stats.row_splits += stats.row_splits;
    }
    return read;
  }

  testing::TempDir dir_;
  int tables_ = 0;
  int64_t identifier_ = 0;
};

Datum I(int64_t v) { return Datum(v); }

TEST_F(ColumnarReadTest, MergesSortedRunsLikeTheRowPath) {
  TableSchema schema = WriterTestSchema({Field(0, "id", DataType::BigInt(false)), Field(1, "v", DataType::String()),
                                         Field(2, "amount", DataType::Decimal(10, 2)),
                                         Field(3, "ts", DataType::Timestamp(3)), Field(4, "d", DataType::Date())},
                                        {"id"}, {}, {{"bucket", "3"}});
  std::string path = MakeTable(schema);
  std::mt19937_64 rng(5);
  // Five runs over 6000 keys: inserts, updates, deletes and re-inserts, enough rows for several chunks.
  for (int run = 0; run < 5; ++run) {
    std::vector<std::pair<RowKind, Row>> rows;
    for (int64_t id = 0; id < 6000; ++id) {
      uint64_t pick = rng() % 100;
      if (run > 0 && pick >= 40) continue;
      RowKind kind = run > 0 && pick < 8 ? RowKind::kDelete : (run > 0 ? RowKind::kUpdateAfter : RowKind::kInsert);
      Datum v = rng() % 10 == 0 ? Datum() : Datum("v" + std::to_string(rng() % 1000));
      rows.emplace_back(kind, Row{I(id), v, Datum(DecimalValue{static_cast<int128_t>(rng() % 100000) - 50000}),
                                  Datum(TimestampValue{1700000000000 + static_cast<int64_t>(rng() % 1000000), 0}),
                                  Datum(static_cast<int32_t>(rng() % 20000))});
    }
    Commit(path, schema, rows);
  }
  auto expected = testing::ReadTable(path);
  ASSERT_TRUE(expected.ok()) << expected.status().ToString();
  for (int workers : {1, 2, 3}) {
    Read read = ReadByVectors(path, workers);
    EXPECT_EQ(testing::SortedRows(read.rows), testing::SortedRows(*expected)) << workers << " workers";
    EXPECT_EQ(read.stats.columnar_splits, 3) << workers << " workers";
    EXPECT_EQ(read.stats.row_splits, 0) << workers << " workers";
  }
}

// Rows through NextBatch (the row path), with read-time options.
std::vector<Row> RowsByBatch(const std::string& path, std::map<std::string, std::string> options = {}) {
  std::vector<Row> rows;
  auto table = Table::Open(FileSystem::Local(), path, "db.t");
  EXPECT_TRUE(table.ok()) << table.status().ToString();
  if (!table.ok()) return rows;
  ReadOptions read_options;
  read_options.dynamic_options = std::move(options);
  auto reader = (*table)->NewReader(read_options);
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  if (!reader.ok()) return rows;
  while (true) {
    auto more = (*reader)->NextBatch(1000, &rows);
    EXPECT_TRUE(more.ok()) << more.status().ToString();
    if (!more.ok() || !*more) break;
  }
  return testing::SortedRows(std::move(rows));
}

TEST_F(ColumnarReadTest, CompositeStringKeysAndIgnoreDelete) {
  TableSchema schema = WriterTestSchema({Field(0, "tenant", DataType::Int(false)), Field(1, "name", DataType::String(false)),
                                         Field(2, "v", DataType::BigInt())},
                                        {"tenant", "name"}, {}, {{"bucket", "2"}});
  std::string path = MakeTable(schema);
  std::mt19937_64 rng(11);
  for (int run = 0; run < 4; ++run) {
    std::vector<std::pair<RowKind, Row>> rows;
    for (int tenant = 0; tenant < 3; ++tenant) {
      for (int n = 0; n < 1500; ++n) {
        if (run > 0 && rng() % 3 != 0) continue;
        // Names of every length around DuckDB's 12-byte inline limit, so both string forms compare.
        std::string name = std::string(static_cast<size_t>(n % 20), 'k') + std::to_string(n);
        RowKind kind = run > 0 && rng() % 4 == 0 ? RowKind::kDelete : RowKind::kInsert;
        rows.emplace_back(kind, Row{Datum(static_cast<int32_t>(tenant)), Datum(name), I(run * 10000 + n)});
      }
    }
    Commit(path, schema, rows);
  }
  for (const std::map<std::string, std::string>& options :
       {std::map<std::string, std::string>{}, std::map<std::string, std::string>{{"ignore-delete", "true"}}}) {
    Read read = ReadByVectors(path, 2, options);
    std::vector<Row> expected = RowsByBatch(path, options);
    EXPECT_FALSE(expected.empty());
    EXPECT_EQ(testing::SortedRows(read.rows), expected) << options.size() << " options";
    EXPECT_EQ(read.stats.columnar_splits, 2);
    EXPECT_EQ(read.stats.row_splits, 0);
  }
  // With ignore-delete the deleted keys keep their last inserted row: more rows than without.
  EXPECT_GT(RowsByBatch(path, {{"ignore-delete", "true"}}).size(), RowsByBatch(path).size());
}

TEST_F(ColumnarReadTest, OverlappingSequenceRangesCompareSequenceNumbers) {
  // Two writer sessions opened before either commits both number their rows from 0, so their files'
  // sequence ranges overlap: the merge must compare _SEQUENCE_NUMBER, not the files' order.
  TableSchema schema = WriterTestSchema({Field(0, "id", DataType::BigInt(false)), Field(1, "v", DataType::String())},
                                        {"id"}, {}, {{"bucket", "1"}});
  std::string path = MakeTable(schema);
  auto first = TableWrite::Create(FileSystem::Local(), path, schema, "a", {});
  auto second = TableWrite::Create(FileSystem::Local(), path, schema, "b", {});
  ASSERT_TRUE(first.ok() && second.ok());
  for (int64_t id = 0; id < 3000; ++id) ASSERT_TRUE((*first)->Write(RowKind::kInsert, Row{I(id), Datum("first")}).ok());
  // The second session writes keys 3999 down to 1000, so key k gets sequence number 3999 - k: it beats
  // the first session's k for keys below 2000 and loses above.
  for (int64_t id = 3999; id >= 1000; --id) {
    ASSERT_TRUE((*second)->Write(id % 7 == 0 ? RowKind::kDelete : RowKind::kInsert, Row{I(id), Datum("second")}).ok());
  }
  auto a = (*first)->PrepareCommit();
  auto b = (*second)->PrepareCommit();
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE(testing::CommitMessages(path, *a, "a", 1).ok());
  ASSERT_TRUE(testing::CommitMessages(path, *b, "b", 1).ok());
  Read read = ReadByVectors(path, 1);
  std::vector<Row> expected = RowsByBatch(path);
  EXPECT_EQ(testing::SortedRows(read.rows), expected);
  EXPECT_EQ(read.stats.columnar_splits, 1);
  // Both sources win some keys.
  int firsts = 0, seconds = 0;
  for (const Row& row : expected) (row[1].as_string() == "first" ? firsts : seconds)++;
  EXPECT_GT(firsts, 1000);
  EXPECT_GT(seconds, 1000);
}

TEST_F(ColumnarReadTest, AppendTableAcrossAnAddedColumn) {
  TableSchema schema = WriterTestSchema({Field(0, "id", DataType::BigInt()), Field(1, "v", DataType::String())}, {}, {},
                                        {{"bucket", "-1"}});
  std::string path = MakeTable(schema);
  std::vector<std::pair<RowKind, Row>> rows;
  for (int64_t i = 0; i < 5000; ++i) rows.emplace_back(RowKind::kInsert, Row{I(i), Datum("a" + std::to_string(i))});
  Commit(path, schema, rows);
  auto altered = CommitSchemaChanges(FileSystem::Local(), path, "db.t",
                                     {SchemaChange::AddColumn("extra", DataType::Double())});
  ASSERT_TRUE(altered.ok()) << altered.status().ToString();
  rows.clear();
  for (int64_t i = 0; i < 3000; ++i) rows.emplace_back(RowKind::kInsert, Row{I(-i), Datum("b"), Datum(0.5 * static_cast<double>(i))});
  Commit(path, *altered, rows);
  Read read = ReadByVectors(path, 1);
  std::vector<Row> expected = RowsByBatch(path);
  ASSERT_EQ(expected.size(), 8000u);
  EXPECT_EQ(testing::SortedRows(read.rows), expected);
  EXPECT_EQ(read.stats.columnar_splits, 1);
  EXPECT_EQ(read.stats.row_splits, 0);
  // The rows of the first file read the added column as NULL.
  int nulls = 0;
  for (const Row& row : read.rows) nulls += row[2].is_null() ? 1 : 0;
  EXPECT_EQ(nulls, 5000);
}

TEST_F(ColumnarReadTest, AColumnDroppedAndAddedAgainReadsAsNullInOldFiles) {
  TableSchema schema = WriterTestSchema({Field(0, "id", DataType::BigInt(false)), Field(1, "v", DataType::BigInt())},
                                        {"id"}, {}, {{"bucket", "1"}});
  std::string path = MakeTable(schema);
  Commit(path, schema, {{RowKind::kInsert, Row{I(1), I(100)}}, {RowKind::kInsert, Row{I(2), I(200)}}});
  auto dropped = CommitSchemaChanges(FileSystem::Local(), path, "db.t", {SchemaChange::DropColumn("v")});
  ASSERT_TRUE(dropped.ok()) << dropped.status().ToString();
  auto added = CommitSchemaChanges(FileSystem::Local(), path, "db.t", {SchemaChange::AddColumn("v", DataType::BigInt())});
  ASSERT_TRUE(added.ok()) << added.status().ToString();
  Commit(path, *added, {{RowKind::kInsert, Row{I(3), I(300)}}});
  // The first file holds a column named v, but it is another field (another id): NULL, not 100 and 200.
  Read read = ReadByVectors(path, 1);
  EXPECT_EQ(testing::SortedRows(read.rows), (std::vector<Row>{{I(1), Datum()}, {I(2), Datum()}, {I(3), I(300)}}));
  EXPECT_EQ(read.stats.columnar_splits, 1);
  EXPECT_EQ(testing::SortedRows(read.rows), RowsByBatch(path));
}

TEST_F(ColumnarReadTest, FilesTidesParquetReaderCannotDecodeGoThroughDuckDB) {
  // LZ4 pages are outside Tide's Parquet reader: the split still reads columnar, through DuckDB.
  TableSchema schema = WriterTestSchema({Field(0, "id", DataType::BigInt(false)), Field(1, "v", DataType::String())},
                                        {"id"}, {}, {{"bucket", "2"}, {"file.compression", "lz4"}});
  std::string path = MakeTable(schema);
  for (int run = 0; run < 3; ++run) {
    std::vector<std::pair<RowKind, Row>> rows;
    for (int64_t id = run; id < 5000; id += 2) rows.emplace_back(RowKind::kInsert, Row{I(id), Datum("r" + std::to_string(run))});
    Commit(path, schema, rows);
  }
  Read read = ReadByVectors(path, 2);
  std::vector<Row> expected = RowsByBatch(path);
  EXPECT_EQ(expected.size(), 5000u);
  EXPECT_EQ(testing::SortedRows(read.rows), expected);
  EXPECT_EQ(read.stats.columnar_splits, 2);
}

TEST_F(ColumnarReadTest, SplitsTheColumnarPathCannotReadTakeTheRowPath) {
  // A widened column (INT -> BIGINT) needs Tide's cast of the old file's values.
  TableSchema schema = WriterTestSchema({Field(0, "id", DataType::BigInt(false)), Field(1, "n", DataType::Int())},
                                        {"id"}, {}, {{"bucket", "1"}});
  std::string path = MakeTable(schema);
  Commit(path, schema, {{RowKind::kInsert, Row{I(1), Datum(int32_t{10})}}, {RowKind::kInsert, Row{I(2), Datum(int32_t{20})}}});
  auto widened = CommitSchemaChanges(FileSystem::Local(), path, "db.t",
                                     {SchemaChange::UpdateColumnType("n", DataType::BigInt())});
  ASSERT_TRUE(widened.ok()) << widened.status().ToString();
  Commit(path, *widened, {{RowKind::kUpdateAfter, Row{I(2), I(int64_t{1} << 40)}}});
  Read read = ReadByVectors(path, 1);
  EXPECT_EQ(testing::SortedRows(read.rows), (std::vector<Row>{{I(1), I(10)}, {I(2), I(int64_t{1} << 40)}}));
  EXPECT_EQ(read.stats.columnar_splits, 0);
  EXPECT_EQ(read.stats.row_splits, 1);

  // Partial-update merges need the merge function; TIME and nested columns need Tide's decoding.
  TableSchema partial = WriterTestSchema({Field(0, "id", DataType::BigInt(false)), Field(1, "a", DataType::Int()),
                                          Field(2, "b", DataType::Int())},
                                         {"id"}, {}, {{"bucket", "1"}, {"merge-engine", "partial-update"}});
  std::string partial_path = MakeTable(partial);
  Commit(partial_path, partial, {{RowKind::kInsert, Row{I(1), Datum(int32_t{1}), Datum()}}});
  Commit(partial_path, partial, {{RowKind::kInsert, Row{I(1), Datum(), Datum(int32_t{2})}}});
  read = ReadByVectors(partial_path, 1);
  EXPECT_EQ(read.rows, (std::vector<Row>{{I(1), Datum(int32_t{1}), Datum(int32_t{2})}}));
  EXPECT_EQ(read.stats.row_splits, 1);

  TableSchema nested = WriterTestSchema({Field(0, "id", DataType::BigInt(false)),
                                         Field(1, "tags", DataType::Array(DataType::String()))},
                                        {"id"}, {}, {{"bucket", "1"}});
  std::string nested_path = MakeTable(nested);
  Commit(nested_path, nested, {{RowKind::kInsert, Row{I(1), Datum::Nested({Datum("x")})}}});
  read = ReadByVectors(nested_path, 1);
  EXPECT_EQ(read.rows, RowsByBatch(nested_path));
  EXPECT_EQ(read.stats.row_splits, 1);
}

}  // namespace
}  // namespace tide
