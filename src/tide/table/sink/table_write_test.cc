#include "tide/table/sink/table_write.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <map>
#include <random>

#include "testing/temp_dir.h"
#include "testing/value_or_fail.h"
#include "tide/codec/binary_row.h"
#include "tide/table/operation/file_store_scan.h"
#include "tide/table/snapshot/snapshot_manager.h"
#include "tide/table/table_test_util.h"

namespace tide {
namespace {

using testing::Field;
using testing::WriterTestSchema;

class TableWriteTest : public ::testing::Test {
 protected:
  std::string MakeTable(const TableSchema& schema) {
    std::string path = dir_.path() + "/db.db/t" + std::to_string(tables_++);
    EXPECT_TRUE(testing::CreateWriterTestTable(path, schema).ok());
    return path;
  }
  std::unique_ptr<TableWrite> Writer(const std::string& path, const TableSchema& schema, TableWriteConfig config = {}) {
    return testing::ValueOrFail(TableWrite::Create(FileSystem::Local(), path, schema, "user-1", std::move(config)),
                                "TableWrite::Create");
  }
  // A writer that flushes ahead (on its flush thread) once its buffers pass `budget` bytes.
  static TableWriteConfig FlushAhead(int64_t budget) {
    TableWriteConfig config;
    config.write_buffer_size = budget;
    config.flush_ahead = true;
    return config;
  }
  testing::TempDir dir_;
  int tables_ = 0;
};

TEST_F(TableWriteTest, PrimaryKeyRoundTrip) {
  TableSchema schema = WriterTestSchema({Field(0, "id", DataType::BigInt(false)), Field(1, "v", DataType::String())},
                                        {"id"}, {}, {{"bucket", "2"}});
  std::string path = MakeTable(schema);
  auto w = Writer(path, schema);
  ASSERT_TRUE(w->Write(RowKind::kInsert, Row{Datum(int64_t{1}), Datum("a")}).ok());
  ASSERT_TRUE(w->Write(RowKind::kInsert, Row{Datum(int64_t{2}), Datum("b")}).ok());
  ASSERT_TRUE(w->Write(RowKind::kUpdateAfter, Row{Datum(int64_t{1}), Datum("c")}).ok());
  auto messages = w->PrepareCommit();
  ASSERT_TRUE(messages.ok()) << messages.status().ToString();
  auto committed = testing::CommitMessages(path, *messages, "user-1", 1);
  ASSERT_TRUE(committed.ok()) << committed.status().ToString();
  auto rows = testing::ReadTable(path);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(testing::SortedRows(*rows), (std::vector<Row>{{Datum(int64_t{1}), Datum("c")}, {Datum(int64_t{2}), Datum("b")}}));
}


// First-row tables keep a key's first row once committed (lookup compaction drops a later level-0 row
// of a key some level holds), and refuse retractions unless ignore-delete drops them.
TEST_F(TableWriteTest, FirstRowKeepsTheFirstRowAcrossCommits) {
  TableSchema schema = WriterTestSchema({Field(0, "id", DataType::BigInt(false)), Field(1, "v", DataType::String())},
                                        {"id"}, {}, {{"bucket", "1"}, {"merge-engine", "first-row"}});
  std::string path = MakeTable(schema);
  auto w = Writer(path, schema);
  EXPECT_TRUE(w->Write(RowKind::kDelete, Row{Datum(int64_t{1}), Datum("x")}).IsInvalidArgument());
  ASSERT_TRUE(w->Write(RowKind::kInsert, Row{Datum(int64_t{1}), Datum("a")}).ok());
  ASSERT_TRUE(testing::CommitMessages(path, w->PrepareCommit().value(), "user-1", 1).ok());
  ASSERT_TRUE(w->Write(RowKind::kInsert, Row{Datum(int64_t{1}), Datum("b")}).ok());
  ASSERT_TRUE(w->Write(RowKind::kInsert, Row{Datum(int64_t{2}), Datum("c")}).ok());
  ASSERT_TRUE(testing::CommitMessages(path, w->PrepareCommit().value(), "user-1", 2).ok());
  auto rows = testing::ReadTable(path);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(testing::SortedRows(*rows), (std::vector<Row>{{Datum(int64_t{1}), Datum("a")}, {Datum(int64_t{2}), Datum("c")}}));

  TableSchema ignoring = WriterTestSchema({Field(0, "id", DataType::BigInt(false)), Field(1, "v", DataType::String())},
                                          {"id"}, {}, {{"bucket", "1"}, {"merge-engine", "first-row"}, {"ignore-delete", "true"}});
  auto w2 = Writer(MakeTable(ignoring), ignoring);
  EXPECT_TRUE(w2->Write(RowKind::kDelete, Row{Datum(int64_t{1}), Datum("x")}).ok());
}

Datum I(int64_t v) { return Datum(v); }

// The bucket of a row written to a `bucket = n` table keyed by one column of `type`.
int32_t BucketOf(TableWriteTest* test, const std::string& path, const TableSchema& schema, Row row) {
  auto w = TableWrite::Create(FileSystem::Local(), path, schema, "u", {});
  EXPECT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_TRUE((*w)->Write(RowKind::kInsert, row).ok());
  auto messages = (*w)->PrepareCommit();
  EXPECT_TRUE(messages.ok());
  EXPECT_EQ(messages->size(), 1u);
  return messages->empty() ? -1 : (*messages)[0].bucket;
}

TEST_F(TableWriteTest, BucketsAgreeWithJava) {
  // Vectors of PAIMON_FORMAT.md §5.6: INT 0 -> bucket 1 of 2, INT 1 -> 0 (both seen in Java-written
  // fixtures), BIGINT 42 -> bucket 7 of 10.
  TableSchema ints = WriterTestSchema({Field(0, "k", DataType::Int(false)), Field(1, "v", DataType::String())}, {"k"},
                                      {}, {{"bucket", "2"}});
  std::string path = MakeTable(ints);
  EXPECT_EQ(BucketOf(this, path, ints, {I(0), Datum("a")}), 1);
  EXPECT_EQ(BucketOf(this, path, ints, {I(1), Datum("a")}), 0);
  TableSchema longs = WriterTestSchema({Field(0, "k", DataType::BigInt(false)), Field(1, "v", DataType::String())},
                                       {"k"}, {}, {{"bucket", "10"}});
  std::string path2 = MakeTable(longs);
  EXPECT_EQ(BucketOf(this, path2, longs, {I(42), Datum("a")}), 7);
  // The bucket key of an append table is its `bucket-key`.
  TableSchema append = WriterTestSchema({Field(0, "v", DataType::String()), Field(1, "k", DataType::Int())}, {}, {},
                                        {{"bucket", "2"}, {"bucket-key", "k"}});
  std::string path3 = MakeTable(append);
  EXPECT_EQ(BucketOf(this, path3, append, {Datum("x"), I(0)}), 1);
  // Every row lands in the bucket folder its message names, with the table's bucket count.
  auto w = Writer(path2, longs);
  std::map<int32_t, int> per_bucket;
  for (int64_t k = 0; k < 200; ++k) ASSERT_TRUE(w->Write(RowKind::kInsert, Row{I(k), Datum("v")}).ok());
  auto messages = w->PrepareCommit().value();
  for (const auto& m : messages) {
    EXPECT_EQ(m.total_buckets, 10);
    EXPECT_EQ(m.partition, EncodeSerializedBinaryRow({}, {}).value());
    for (const auto& f : m.new_files) {
      EXPECT_TRUE(FileSystem::Local()->Exists(path2 + "/bucket-" + std::to_string(m.bucket) + "/" + f.file_name).value());
      per_bucket[m.bucket] += static_cast<int>(f.row_count);
    }
  }
  int total = 0;
  for (const auto& [b, n] : per_bucket) total += n;
  EXPECT_EQ(total, 200);
  EXPECT_GT(per_bucket.size(), 5u);
}

// Rows in runs of one partition (PartitionOf answers a row like the last from what it encoded then):
// equal values of another representation still go apart. -0.0 equals 0.0 but encodes, and names its
// folder, apart; an INT 1 and a BIGINT 1 cannot meet in one column, but a partition of two columns
// whose values swap between rows must not be taken for the last one.
TEST_F(TableWriteTest, RowsOfEqualPartitionValuesThatEncodeApartGoApart) {
  TableSchema schema = WriterTestSchema({Field(0, "d", DataType::Double(false)), Field(1, "a", DataType::String(false)),
                                         Field(2, "b", DataType::String(false)), Field(3, "id", DataType::BigInt(false))},
                                        {"d", "a", "b", "id"}, {"d", "a", "b"}, {{"bucket", "1"}});
  std::string path = MakeTable(schema);
  auto w = Writer(path, schema);
  std::vector<DataType> partition_types = {DataType::Double(false), DataType::String(false), DataType::String(false)};
  std::map<std::string, int64_t> expected;  // rows by serialized partition
  int64_t id = 0;
  // Runs of run + 1 rows: (0.0, x, y), (-0.0, x, y), (0.0, y, x), (-0.0, x, y), (0.0, x, y), (-0.0, y, x).
  for (int run = 0; run < 6; ++run) {
    const double d = run % 2 == 0 ? 0.0 : -0.0;
    const char* a = run % 3 == 2 ? "y" : "x";
    const char* b = run % 3 == 2 ? "x" : "y";
    for (int i = 0; i <= run; ++i) {
      ASSERT_TRUE(w->Write(RowKind::kInsert, Row{Datum(d), Datum(a), Datum(b), I(id++)}).ok());
    }
    expected[EncodeSerializedBinaryRow(std::vector<Datum>{Datum(d), Datum(a), Datum(b)}, partition_types).value()] +=
        run + 1;
  }
  ASSERT_EQ(expected.size(), 4u);
  auto messages = w->PrepareCommit().value();
  std::map<std::string, int64_t> rows;
  for (const auto& m : messages) {
    for (const auto& f : m.new_files) rows[m.partition] += f.row_count;
  }
  EXPECT_EQ(rows, expected);
  ASSERT_TRUE(testing::CommitMessages(path, messages, "user-1", 1).ok());
  // Two folders for d: -0.0 and 0.0.
  auto listing = FileSystem::Local()->ListDir(path).value();
  EXPECT_EQ(std::count_if(listing.begin(), listing.end(), [](const FileInfo& e) { return e.name.rfind("d=", 0) == 0; }), 2);
  EXPECT_EQ(testing::ReadTable(path).value().size(), static_cast<size_t>(id));
}

TEST_F(TableWriteTest, PartitionFoldersAndMessages) {
  TableSchema schema = WriterTestSchema({Field(0, "dt", DataType::String(false)), Field(1, "hr", DataType::Int()),
                                         Field(2, "id", DataType::BigInt(false)), Field(3, "v", DataType::String())},
                                        {"dt", "hr", "id"}, {"dt", "hr"}, {{"bucket", "1"}});
  // A NULL partition value is not possible in a primary key; use an append table for it below.
  std::string path = MakeTable(schema);
  auto w = Writer(path, schema);
  ASSERT_TRUE(w->Write(RowKind::kInsert, Row{Datum("2024-01-01"), I(3), I(1), Datum("a")}).ok());
  ASSERT_TRUE(w->Write(RowKind::kInsert, Row{Datum("a/b=c"), I(4), I(1), Datum("b")}).ok());
  ASSERT_TRUE(w->Write(RowKind::kInsert, Row{Datum("2024-01-01"), I(3), I(2), Datum("c")}).ok());
  auto messages = w->PrepareCommit().value();
  ASSERT_EQ(messages.size(), 2u);
  std::vector<DataType> partition_types = {DataType::String(false), DataType::Int()};
  std::map<std::string, std::string> folder_of = {
      {EncodeSerializedBinaryRow(std::vector<Datum>{Datum("2024-01-01"), I(3)}, partition_types).value(),
       "dt=2024-01-01/hr=3"},
      {EncodeSerializedBinaryRow(std::vector<Datum>{Datum("a/b=c"), I(4)}, partition_types).value(),
       "dt=a%2Fb%3Dc/hr=4"}};
  for (const auto& m : messages) {
    ASSERT_TRUE(folder_of.count(m.partition));
    ASSERT_EQ(m.new_files.size(), 1u);
    EXPECT_TRUE(FileSystem::Local()
                    ->Exists(path + "/" + folder_of[m.partition] + "/bucket-0/" + m.new_files[0].file_name)
                    .value());
    EXPECT_EQ(m.bucket, 0);
    EXPECT_EQ(m.total_buckets, 1);
    // The trimmed primary key (id) is the file's key.
    EXPECT_EQ(m.new_files[0].min_key,
              EncodeSerializedBinaryRow(std::vector<Datum>{I(1)}, std::vector<DataType>{DataType::BigInt(false)}).value());
  }
  ASSERT_TRUE(testing::CommitMessages(path, messages, "user-1", 1).ok());
  EXPECT_EQ(testing::SortedRows(testing::ReadTable(path).value()),
            testing::SortedRows({{Datum("2024-01-01"), I(3), I(1), Datum("a")},
                                 {Datum("2024-01-01"), I(3), I(2), Datum("c")},
                                 {Datum("a/b=c"), I(4), I(1), Datum("b")}}));
}

TEST_F(TableWriteTest, BucketUnawareAppendTable) {
  TableSchema schema = WriterTestSchema({Field(0, "p", DataType::Int()), Field(1, "v", DataType::String())}, {}, {"p"},
                                        {});  // bucket defaults to -1
  std::string path = MakeTable(schema);
  auto w = Writer(path, schema);
  ASSERT_TRUE(w->Write(RowKind::kInsert, Row{I(1), Datum("a")}).ok());
  ASSERT_TRUE(w->Write(RowKind::kInsert, Row{Datum(), Datum("b")}).ok());
  ASSERT_TRUE(w->Write(RowKind::kUpdateAfter, Row{I(1), Datum("a")}).ok());  // duplicates stay in an append table
  EXPECT_TRUE(w->Write(RowKind::kDelete, Row{I(1), Datum("a")}).IsInvalidArgument());
  auto messages = w->PrepareCommit().value();
  ASSERT_EQ(messages.size(), 2u);
  for (const auto& m : messages) {
    EXPECT_EQ(m.bucket, 0);
    EXPECT_EQ(m.total_buckets, -1);
  }
  EXPECT_TRUE(FileSystem::Local()->Exists(path + "/p=__DEFAULT_PARTITION__/bucket-0").value());
  EXPECT_TRUE(FileSystem::Local()->Exists(path + "/p=1/bucket-0").value());
  ASSERT_TRUE(testing::CommitMessages(path, messages, "user-1", 1).ok());
  EXPECT_EQ(testing::SortedRows(testing::ReadTable(path).value()),
            testing::SortedRows({{I(1), Datum("a")}, {I(1), Datum("a")}, {Datum(), Datum("b")}}));
}

TEST_F(TableWriteTest, BucketUnawareWritersStartAtSequenceZero) {
  // Java's AppendFileStoreWrite ignores previous files in bucket-unaware mode: every new writer numbers
  // its records from 0, while one writer keeps counting across its own commits.
  TableSchema schema = WriterTestSchema({Field(0, "v", DataType::Int())}, {}, {}, {});
  std::string path = MakeTable(schema);
  for (int session = 1; session <= 2; ++session) {
    auto w = TableWrite::Create(FileSystem::Local(), path, schema, "session-" + std::to_string(session)).value();
    for (int64_t commit = 1; commit <= 2; ++commit) {
      for (int i = 0; i < 3; ++i) ASSERT_TRUE(w->Write(RowKind::kInsert, Row{I(i)}).ok());
      auto messages = w->PrepareCommit().value();
      ASSERT_EQ(messages.size(), 1u);
      ASSERT_EQ(messages[0].new_files.size(), 1u);
      EXPECT_EQ(messages[0].new_files[0].min_sequence_number, (commit - 1) * 3);
      EXPECT_EQ(messages[0].new_files[0].max_sequence_number, (commit - 1) * 3 + 2);
      ASSERT_TRUE(testing::CommitMessages(path, messages, "session-" + std::to_string(session), commit).ok());
    }
  }
  EXPECT_EQ(testing::ReadTable(path).value().size(), 12u);
}

// The writer's stop-trigger slack applies only where the table sets no stop trigger of its own, and
// survives a schema change.
TEST_F(TableWriteTest, StopTriggerSlackYieldsToTheTablesOwnOption) {
  const std::vector<DataField> fields = {Field(0, "id", DataType::BigInt(false)), Field(1, "v", DataType::Int())};
  TableWriteConfig slack;
  slack.sorted_runs_beyond_trigger = 20;

  TableSchema unset = WriterTestSchema(fields, {"id"}, {}, {{"bucket", "1"}, {"num-sorted-run.compaction-trigger", "4"}});
  std::string path = MakeTable(unset);
  EXPECT_EQ(Writer(path, unset)->options().num_sorted_run_stop_trigger(), 7);  // Java's trigger + 3
  auto writer = Writer(path, unset, slack);
  EXPECT_EQ(writer->options().num_sorted_run_stop_trigger(), 24);
  TableSchema widened = unset;
  widened.id = 1;
  widened.fields.push_back(Field(2, "w", DataType::Int()));
  widened.highest_field_id = 2;
  ASSERT_TRUE(writer->ChangeSchema(widened).ok());
  EXPECT_EQ(writer->options().num_sorted_run_stop_trigger(), 24);

  TableSchema set = WriterTestSchema(fields, {"id"}, {},
                                     {{"bucket", "1"}, {"num-sorted-run.compaction-trigger", "4"},
                                      {"num-sorted-run.stop-trigger", "6"}});
  EXPECT_EQ(Writer(MakeTable(set), set, slack)->options().num_sorted_run_stop_trigger(), 6);
}

TEST_F(TableWriteTest, RefusesWhatItCannotWrite) {
  auto refuse = [&](TableSchema schema) {
    auto w = TableWrite::Create(FileSystem::Local(), dir_.path() + "/x", schema, "u", {});
    return w.ok() ? Status::OK() : w.status();
  };
  std::vector<DataField> pk_fields = {Field(0, "id", DataType::BigInt(false)), Field(1, "v", DataType::String())};
  EXPECT_TRUE(refuse(WriterTestSchema(pk_fields, {"id"}, {}, {})).ok());  // dynamic bucket
  EXPECT_TRUE(refuse(WriterTestSchema(pk_fields, {"id"}, {}, {{"bucket", "-1"}})).ok());
  // Dynamic bucket with a primary key lacking a partition column: cross-partition update mode, written
  // (table_write_cross_partition_test.cc), except with ignore-delete (a move's -D would be ignored).
  std::vector<DataField> partitioned = {Field(0, "id", DataType::BigInt(false)), Field(1, "v", DataType::String(false))};
  EXPECT_TRUE(refuse(WriterTestSchema(partitioned, {"id"}, {"v"}, {{"bucket", "-1"}})).ok());
  EXPECT_TRUE(refuse(WriterTestSchema(partitioned, {"id"}, {"v"}, {{"bucket", "-1"}, {"ignore-delete", "true"}}))
                  .IsNotSupported());
  EXPECT_TRUE(refuse(WriterTestSchema(pk_fields, {"id"}, {}, {{"bucket", "-2"}})).IsNotSupported());
  EXPECT_TRUE(refuse(WriterTestSchema(pk_fields, {"id"}, {}, {{"bucket", "0"}})).IsInvalidArgument());
  // Lookup tables are written (table_write_lookup_model_test.cc), except first-row with deletion vectors,
  // which Java refuses too.
  EXPECT_TRUE(refuse(WriterTestSchema(pk_fields, {"id"}, {}, {{"bucket", "2"}, {"merge-engine", "first-row"}})).ok());
  EXPECT_TRUE(refuse(WriterTestSchema(pk_fields, {"id"}, {}, {{"bucket", "2"}, {"deletion-vectors.enabled", "true"}})).ok());
  EXPECT_TRUE(refuse(WriterTestSchema(pk_fields, {"id"}, {},
                                      {{"bucket", "2"}, {"merge-engine", "first-row"}, {"deletion-vectors.enabled", "true"}}))
                  .IsNotSupported());
  EXPECT_TRUE(refuse(WriterTestSchema(pk_fields, {"id"}, {}, {{"bucket", "2"}, {"file.format", "orc"}})).IsNotSupported());
  EXPECT_TRUE(refuse(WriterTestSchema(pk_fields, {"id"}, {}, {{"bucket", "2"}, {"changelog-producer", "lookup"}})).ok());
  EXPECT_TRUE(refuse(WriterTestSchema(pk_fields, {"id"}, {}, {{"bucket", "2"}, {"changelog-producer", "full-compaction"}}))
                  .ok());
  EXPECT_TRUE(refuse(WriterTestSchema(pk_fields, {"id"}, {}, {{"bucket", "2"}, {"lookup-compact", "eager"}}))
                  .IsInvalidArgument());
  EXPECT_TRUE(refuse(WriterTestSchema(pk_fields, {"id"}, {}, {{"bucket", "2"}, {"bucket-key", "v"}})).IsInvalidArgument());
  EXPECT_TRUE(refuse(WriterTestSchema(pk_fields, {}, {}, {{"bucket", "2"}})).IsInvalidArgument());  // no bucket-key
  EXPECT_TRUE(refuse(WriterTestSchema(pk_fields, {"id"}, {}, {{"bucket", "2"}, {"write-buffer-size", "lots"}}))
                  .IsInvalidArgument());
  EXPECT_TRUE(refuse(WriterTestSchema(pk_fields, {"id"}, {}, {{"bucket", "2"}, {"write-buffer-size", "1 mb"}})).ok());
}

TEST_F(TableWriteTest, RejectsValuesThatDoNotFit) {
  TableSchema schema =
      WriterTestSchema({Field(0, "id", DataType::BigInt(false)), Field(1, "t", DataType::TinyInt()),
                        Field(2, "d", DataType::Decimal(4, 1)), Field(3, "s", DataType::String(false))},
                       {"id"}, {}, {{"bucket", "1"}});
  std::string path = MakeTable(schema);
  auto w = Writer(path, schema);
  Status st = w->Write(RowKind::kInsert, Row{I(1), I(1), Datum(DecimalValue{1}), Datum()});
  EXPECT_TRUE(st.IsInvalidArgument());
  EXPECT_NE(st.message().find("'s'"), std::string::npos) << st.message();
  EXPECT_TRUE(w->Write(RowKind::kInsert, Row{I(1), I(300), Datum(DecimalValue{1}), Datum("x")}).IsInvalidArgument());
  EXPECT_TRUE(w->Write(RowKind::kInsert, Row{I(1), I(1), Datum(DecimalValue{12345}), Datum("x")}).IsInvalidArgument());
  EXPECT_TRUE(w->Write(RowKind::kInsert, Row{I(1), Datum("1"), Datum(DecimalValue{1}), Datum("x")}).IsInvalidArgument());
  EXPECT_TRUE(w->Write(RowKind::kInsert, Row{I(1), I(1), Datum(DecimalValue{1})}).IsInvalidArgument());
  // Each integer width takes its own range, to the limits.
  TableSchema ints_schema = WriterTestSchema({Field(0, "id", DataType::BigInt(false)), Field(1, "t", DataType::TinyInt()),
                                              Field(2, "s", DataType::SmallInt()), Field(3, "i", DataType::Int()),
                                              Field(4, "b", DataType::Boolean())},
                                             {"id"}, {}, {{"bucket", "1"}});
  auto ints = Writer(MakeTable(ints_schema), ints_schema);
  auto ints_row = [&](int64_t t, int64_t s, int64_t i) {
    return ints->Write(RowKind::kInsert, Row{I(1), I(t), I(s), I(i), Datum(true)});
  };
  EXPECT_TRUE(ints_row(127, 32767, 2147483647).ok());
  EXPECT_TRUE(ints_row(-128, -32768, -2147483648LL).ok());
  EXPECT_TRUE(ints_row(128, 0, 0).IsInvalidArgument());
  EXPECT_TRUE(ints_row(-129, 0, 0).IsInvalidArgument());
  EXPECT_TRUE(ints_row(0, 32768, 0).IsInvalidArgument());
  EXPECT_TRUE(ints_row(0, -32769, 0).IsInvalidArgument());
  Status too_wide = ints_row(0, 0, 2147483648LL);
  EXPECT_TRUE(too_wide.IsInvalidArgument());
  EXPECT_NE(too_wide.message().find("'i'"), std::string::npos) << too_wide.message();
  EXPECT_TRUE(ints->Write(RowKind::kInsert, Row{I(1), I(0), I(0), I(0), I(1)}).IsInvalidArgument());  // not a boolean
  // TIMESTAMP(9) values outside what the Parquet writer can store are refused at Write, not at flush.
  TableSchema ts_schema = WriterTestSchema({Field(0, "id", DataType::BigInt(false)), Field(1, "ts", DataType::Timestamp(9))},
                                           {"id"}, {}, {{"bucket", "1"}});
  auto ts_writer = Writer(MakeTable(ts_schema), ts_schema);
  EXPECT_TRUE(ts_writer->Write(RowKind::kInsert, Row{I(1), Datum(TimestampValue{-30000000000000, 0})}).IsInvalidArgument());
  EXPECT_TRUE(ts_writer->Write(RowKind::kInsert, Row{I(1), Datum(TimestampValue{1700000000000, 5})}).ok());
  EXPECT_TRUE(ts_writer->PrepareCommit().ok());
  // The writer stays usable after a refused row.
  ASSERT_TRUE(w->Write(RowKind::kInsert, Row{I(1), I(-128), Datum(DecimalValue{9999}), Datum("x")}).ok());
  auto messages = w->PrepareCommit().value();
  ASSERT_TRUE(testing::CommitMessages(path, messages, "user-1", 1).ok());
  EXPECT_EQ(testing::ReadTable(path).value(), (std::vector<Row>{{I(1), I(-128), Datum(DecimalValue{9999}), Datum("x")}}));
}

TEST_F(TableWriteTest, IgnoreDeleteDropsRetractions) {
  TableSchema schema = WriterTestSchema({Field(0, "id", DataType::BigInt(false)), Field(1, "v", DataType::String())},
                                        {"id"}, {}, {{"bucket", "1"}, {"ignore-delete", "true"}});
  std::string path = MakeTable(schema);
  auto w = Writer(path, schema);
  ASSERT_TRUE(w->Write(RowKind::kInsert, Row{I(1), Datum("a")}).ok());
  ASSERT_TRUE(testing::CommitMessages(path, w->PrepareCommit().value(), "user-1", 1).ok());
  ASSERT_TRUE(w->Write(RowKind::kDelete, Row{I(1), Datum("a")}).ok());
  ASSERT_TRUE(w->Write(RowKind::kUpdateBefore, Row{I(1), Datum("a")}).ok());
  ASSERT_TRUE(w->Write(RowKind::kInsert, Row{I(2), Datum("b")}).ok());
  EXPECT_EQ(w->metrics().rows_dropped, 2);
  auto messages = w->PrepareCommit().value();
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0].new_files[0].row_count, 1);
  EXPECT_EQ(messages[0].new_files[0].delete_row_count, 0);
  ASSERT_TRUE(testing::CommitMessages(path, messages, "user-1", 2).ok());
  EXPECT_EQ(testing::SortedRows(testing::ReadTable(path).value()),
            (std::vector<Row>{{I(1), Datum("a")}, {I(2), Datum("b")}}));
}

TEST_F(TableWriteTest, SequenceNumbersRestoreAcrossSessions) {
  TableSchema schema = WriterTestSchema({Field(0, "id", DataType::BigInt(false)), Field(1, "v", DataType::String())},
                                        {"id"}, {}, {{"bucket", "2"}});
  std::string path = MakeTable(schema);
  std::map<int32_t, int64_t> max_seq;
  {
    auto w = Writer(path, schema);
    for (int64_t k = 0; k < 50; ++k) ASSERT_TRUE(w->Write(RowKind::kInsert, Row{I(k), Datum("first")}).ok());
    auto messages = w->PrepareCommit().value();
    ASSERT_EQ(messages.size(), 2u);
    for (const auto& m : messages) {
      EXPECT_EQ(m.new_files[0].min_sequence_number, 0);  // a new bucket starts at 0
      max_seq[m.bucket] = m.new_files[0].max_sequence_number;
    }
    ASSERT_TRUE(testing::CommitMessages(path, messages, "session-1", 1).ok());
  }
  {
    // A second writer continues each bucket after its live files' largest sequence number, so its
    // updates win over the first session's rows.
    auto w = TableWrite::Create(FileSystem::Local(), path, schema, "session-2", {}).value();
    for (int64_t k = 0; k < 50; k += 2) ASSERT_TRUE(w->Write(RowKind::kInsert, Row{I(k), Datum("second")}).ok());
    ASSERT_TRUE(w->Write(RowKind::kDelete, Row{I(1), Datum()}).ok());
    auto messages = w->PrepareCommit().value();
    for (const auto& m : messages) EXPECT_EQ(m.new_files[0].min_sequence_number, max_seq[m.bucket] + 1);
    ASSERT_TRUE(testing::CommitMessages(path, messages, "session-2", 1).ok());
    // The same writer keeps counting across its own commits.
    for (const auto& m : messages) max_seq[m.bucket] = m.new_files[0].max_sequence_number;
    ASSERT_TRUE(w->Write(RowKind::kInsert, Row{I(0), Datum("third")}).ok());
    auto more = w->PrepareCommit().value();
    ASSERT_EQ(more.size(), 1u);
    EXPECT_EQ(more[0].new_files[0].min_sequence_number, max_seq[more[0].bucket] + 1);
    ASSERT_TRUE(testing::CommitMessages(path, more, "session-2", 2).ok());
  }
  std::vector<Row> expected;
  for (int64_t k = 0; k < 50; ++k) {
    if (k == 1) continue;
    expected.push_back({I(k), Datum(k == 0 ? "third" : k % 2 == 0 ? "second" : "first")});
  }
  EXPECT_EQ(testing::SortedRows(testing::ReadTable(path).value()), expected);
}

// A writer that replaces another restores from the latest snapshot, which may lack files the other
// wrote (their snapshot was replaced by another committer's and they are committed again later). With
// the other's NextSequenceFloor as its sequence_floor, its rows still number above the other's, so a
// later change of a key wins whatever order the files are committed in.
TEST_F(TableWriteTest, AReplacingWriterNumbersAboveTheWriterItReplaces) {
  TableSchema schema = WriterTestSchema({Field(0, "id", DataType::BigInt(false)), Field(1, "v", DataType::String())},
                                        {"id"}, {}, {{"bucket", "1"}});
  std::string path = MakeTable(schema);
  auto first = Writer(path, schema);
  EXPECT_EQ(first->NextSequenceFloor(), 0);
  for (int64_t k = 0; k < 10; ++k) ASSERT_TRUE(first->Write(RowKind::kInsert, Row{I(k), Datum("first")}).ok());
  auto first_files = first->PrepareCommit().value();  // not in the table yet
  ASSERT_EQ(first_files.size(), 1u);
  const int64_t floor = first->NextSequenceFloor();
  EXPECT_EQ(floor, first_files[0].new_files[0].max_sequence_number + 1);

  TableWriteConfig config;
  config.sequence_floor = floor;
  auto second = Writer(path, schema, config);
  ASSERT_TRUE(second->Write(RowKind::kInsert, Row{I(3), Datum("second")}).ok());
  ASSERT_TRUE(second->Write(RowKind::kDelete, Row{I(4), Datum()}).ok());
  auto second_files = second->PrepareCommit().value();
  ASSERT_EQ(second_files.size(), 1u);
  EXPECT_EQ(second_files[0].new_files[0].min_sequence_number, floor);
  EXPECT_GT(second->NextSequenceFloor(), floor);
  // The second writer's files land first, the first writer's after them.
  ASSERT_TRUE(testing::CommitMessages(path, second_files, "user-1", 2).ok());
  ASSERT_TRUE(testing::CommitMessages(path, first_files, "user-1", 3).ok());
  std::vector<Row> expected;
  for (int64_t k = 0; k < 10; ++k) {
    if (k != 4) expected.push_back({I(k), Datum(k == 3 ? "second" : "first")});
  }
  EXPECT_EQ(testing::SortedRows(testing::ReadTable(path).value()), expected);
}

TEST_F(TableWriteTest, SmallBudgetFlushesManyBucketsAndReadsBack) {
  TableSchema schema = WriterTestSchema({Field(0, "p", DataType::Int(false)), Field(1, "id", DataType::BigInt(false)),
                                         Field(2, "v", DataType::String())},
                                        {"p", "id"}, {"p"}, {{"bucket", "4"}});
  std::string path = MakeTable(schema);
  TableWriteConfig config;
  config.write_buffer_size = 64 * 1024;
  auto w = Writer(path, schema, config);
  std::mt19937_64 rng(7);
  std::map<std::pair<int64_t, int64_t>, std::string> model;
  for (int i = 0; i < 3000; ++i) {
    int64_t p = static_cast<int64_t>(rng() % 3), id = static_cast<int64_t>(rng() % 300);
    if (rng() % 5 == 0) {
      ASSERT_TRUE(w->Write(RowKind::kDelete, Row{I(p), I(id), Datum()}).ok());
      model.erase({p, id});
    } else {
      std::string v = "value-" + std::to_string(i);
      ASSERT_TRUE(w->Write(RowKind::kInsert, Row{I(p), I(id), Datum(v)}).ok());
      model[{p, id}] = v;
    }
    EXPECT_LE(w->buffered_bytes(), 64 * 1024);
  }
  EXPECT_GT(w->metrics().memory_flushes, 10);
  auto messages = w->PrepareCommit().value();
  size_t files = 0;
  for (const auto& m : messages) files += m.new_files.size();
  EXPECT_GT(files, messages.size());  // several level-0 files per bucket
  EXPECT_EQ(messages.size(), 12u);    // 3 partitions x 4 buckets
  ASSERT_TRUE(testing::CommitMessages(path, messages, "user-1", 1).ok());
  std::vector<Row> expected;
  for (const auto& [key, v] : model) expected.push_back({I(key.first), I(key.second), Datum(v)});
  EXPECT_EQ(testing::SortedRows(testing::ReadTable(path).value()), expected);
}

// A flush the memory budget forces, of keys no file of the bucket holds (an initial copy in key order),
// goes to the max level, so the bucket's first compaction does not rewrite it; the commit's last
// flush, and flushes whose keys overlap the bucket's, stay at level 0; the table reads the same.
TEST_F(TableWriteTest, LargeFlushesOfNewKeysStartAtTheMaxLevel) {
  for (const std::string producer : {"input", "none", "lookup"}) {
    SCOPED_TRACE(producer);
    TableSchema schema = WriterTestSchema({Field(0, "id", DataType::BigInt(false)), Field(1, "v", DataType::String())},
                                          {"id"}, {}, {{"bucket", "1"}, {"changelog-producer", producer}});
    std::string path = MakeTable(schema);
    TableWriteConfig config;
    config.write_buffer_size = 64 * 1024;
    std::map<int64_t, std::string> model;
    {
      auto w = Writer(path, schema, config);
      for (int64_t k = 0; k < 6000; ++k) {
        const std::string v = "copied-" + std::to_string(k);
        ASSERT_TRUE(w->Write(RowKind::kInsert, Row{I(k), Datum(v)}).ok());
        model[k] = v;
      }
      ASSERT_GT(w->metrics().memory_flushes, 3);
      auto messages = w->PrepareCommit().value();
      ASSERT_EQ(messages.size(), 1u);
      int at_max = 0, at_zero = 0;
      for (const auto& f : messages[0].new_files) {
        if (f.level == 5) {
          ++at_max;
        } else {
          EXPECT_EQ(f.level, 0) << f.file_name;
          ++at_zero;
        }
      }
      for (const auto& f : messages[0].changelog_files) EXPECT_EQ(f.level, 0);
      if (producer == "lookup") {
        // Lookup compaction makes the changelog: every flush passes through level 0.
        EXPECT_EQ(w->metrics().flushes_at_max_level, 0);
        EXPECT_EQ(at_max, 0);
      } else {
        EXPECT_EQ(w->metrics().flushes_at_max_level, w->metrics().memory_flushes);
        EXPECT_EQ(at_max, w->metrics().memory_flushes);
        EXPECT_EQ(at_zero, 1);  // the commit's own flush
      }
      ASSERT_TRUE(testing::CommitMessages(path, messages, "user-1", 1).ok());
    }
    // A later session updates keys across the range: its flushes overlap the bucket's files.
    {
      auto w = Writer(path, schema, config);
      std::mt19937_64 rng(11);
      for (int i = 0; i < 3000; ++i) {
        const int64_t k = static_cast<int64_t>(rng() % 7000);
        const std::string v = "updated-" + std::to_string(i);
        ASSERT_TRUE(w->Write(RowKind::kInsert, Row{I(k), Datum(v)}).ok());
        model[k] = v;
      }
      ASSERT_GT(w->metrics().memory_flushes, 0);
      EXPECT_EQ(w->metrics().flushes_at_max_level, 0);
      auto messages = w->PrepareCommit().value();
      ASSERT_TRUE(testing::CommitMessages(path, messages, "user-1", 2).ok());
    }
    std::vector<Row> expected;
    for (const auto& [k, v] : model) expected.push_back({I(k), Datum(v)});
    EXPECT_EQ(testing::SortedRows(testing::ReadTable(path).value()), expected);
  }
}

// A bulk load (an initial copy) sends the commit's own flush to the max level too when its keys are apart;
// without it, the commit's flush keeps level 0.
TEST_F(TableWriteTest, ABulkLoadsCommitFlushStartsAtTheMaxLevel) {
  TableSchema schema = WriterTestSchema({Field(0, "id", DataType::BigInt(false)), Field(1, "v", DataType::String())},
                                        {"id"}, {}, {{"bucket", "1"}});
  for (bool bulk : {true, false}) {
    SCOPED_TRACE(bulk);
    std::string path = MakeTable(schema);
    auto w = Writer(path, schema);
    w->SetBulkLoad(bulk);
    for (int64_t k = 0; k < 100; ++k) ASSERT_TRUE(w->Write(RowKind::kInsert, Row{I(k), Datum("v")}).ok());
    auto first = w->PrepareCommit().value();
    ASSERT_EQ(first.size(), 1u);
    ASSERT_EQ(first[0].new_files.size(), 1u);
    EXPECT_EQ(first[0].new_files[0].level, bulk ? 5 : 0);
    ASSERT_TRUE(testing::CommitMessages(path, first, "user-1", 1).ok());
    // Keys inside the bucket's range go to level 0 even in a bulk load.
    for (int64_t k = 50; k < 60; ++k) ASSERT_TRUE(w->Write(RowKind::kInsert, Row{I(k), Datum("w")}).ok());
    auto second = w->PrepareCommit().value();
    ASSERT_EQ(second.size(), 1u);
    ASSERT_EQ(second[0].new_files.size(), 1u);
    EXPECT_EQ(second[0].new_files[0].level, 0);
    ASSERT_TRUE(testing::CommitMessages(path, second, "user-1", 2).ok());
    std::vector<Row> expected;
    for (int64_t k = 0; k < 100; ++k) expected.push_back({I(k), Datum(k >= 50 && k < 60 ? "w" : "v")});
    EXPECT_EQ(testing::SortedRows(testing::ReadTable(path).value()), expected);
  }
}

// With every key once in a flush (an initial copy), the changelog file holds exactly the data file's
// records: it is the same bytes under a second name (a hard link on a local file system), and each name
// outlives the other.
TEST_F(TableWriteTest, ChangelogOfUniqueKeysIsALinkToTheDataFile) {
  TableSchema schema = WriterTestSchema({Field(0, "id", DataType::BigInt(false)), Field(1, "v", DataType::String())},
                                        {"id"}, {}, {{"bucket", "1"}, {"changelog-producer", "input"}});
  std::string path = MakeTable(schema);
  auto w = Writer(path, schema);
  for (int64_t k = 0; k < 100; ++k) ASSERT_TRUE(w->Write(RowKind::kInsert, Row{I(k), Datum("v")}).ok());
  auto messages = w->PrepareCommit().value();
  ASSERT_EQ(messages.size(), 1u);
  ASSERT_EQ(messages[0].new_files.size(), 1u);
  ASSERT_EQ(messages[0].changelog_files.size(), 1u);
  const std::string data = path + "/bucket-0/" + messages[0].new_files[0].file_name;
  const std::string changelog = path + "/bucket-0/" + messages[0].changelog_files[0].file_name;
  EXPECT_EQ(messages[0].changelog_files[0].row_count, 100);
  EXPECT_EQ(messages[0].changelog_files[0].file_size, messages[0].new_files[0].file_size);
  struct stat data_stat {}, changelog_stat {};
  ASSERT_EQ(::stat(data.c_str(), &data_stat), 0);
  ASSERT_EQ(::stat(changelog.c_str(), &changelog_stat), 0);
  EXPECT_EQ(data_stat.st_ino, changelog_stat.st_ino);
  EXPECT_EQ(changelog_stat.st_nlink, 2u);
  const std::string bytes = FileSystem::Local()->ReadFile(data).value();
  ASSERT_TRUE(FileSystem::Local()->DeleteFile(data).ok());  // as expiry deletes a data file
  EXPECT_EQ(FileSystem::Local()->ReadFile(changelog).value(), bytes);
}

// Flush-ahead: memory flushes of column buffers run on the flush thread while the rows go on; the
// filling buffers stay within the budget and those in flight within half of it more; every flush is
// booked by the next commit; the table reads back as written.
TEST_F(TableWriteTest, FlushAheadWritesOnTheFlushThreadWithinItsMemoryAndReadsBack) {
  TableSchema schema = WriterTestSchema({Field(0, "p", DataType::Int(false)), Field(1, "id", DataType::BigInt(false)),
                                         Field(2, "v", DataType::String())},
                                        {"p", "id"}, {"p"}, {{"bucket", "4"}, {"changelog-producer", "input"}});
  std::string path = MakeTable(schema);
  const int64_t budget = 64 * 1024;
  std::map<std::pair<int64_t, int64_t>, std::string> model;
  std::mt19937_64 rng(11);
  for (int64_t commit = 1; commit <= 3; ++commit) {
    auto w = Writer(path, schema, FlushAhead(budget));
    int64_t most = 0;
    for (int i = 0; i < 6000; ++i) {
      int64_t p = static_cast<int64_t>(rng() % 3), id = static_cast<int64_t>(rng() % 500);
      if (rng() % 5 == 0) {
        ASSERT_TRUE(w->Write(RowKind::kDelete, Row{I(p), I(id), Datum()}).ok());
        model.erase({p, id});
      } else {
        std::string v = "value-" + std::to_string(commit) + "-" + std::to_string(i);
        ASSERT_TRUE(w->Write(RowKind::kInsert, Row{I(p), I(id), Datum(v)}).ok());
        model[{p, id}] = v;
      }
      most = std::max(most, w->buffered_bytes());
    }
    // The filling buffers (at most the budget and one row's growth) plus those in flight (at most
    // half the budget, or one buffer alone).
    EXPECT_LE(most, budget * 3 / 2 + 16 * 1024);
    EXPECT_GT(most, budget) << "flushes in flight are memory held beside the filling buffers";
    EXPECT_GT(w->metrics().memory_flushes, 10);
    EXPECT_EQ(w->metrics().flushes_ahead, w->metrics().memory_flushes);
    auto messages = w->PrepareCommit().value();
    size_t files = 0, changelog = 0;
    for (const auto& m : messages) {
      files += m.new_files.size();
      changelog += m.changelog_files.size();
    }
    // Every flush is booked by the commit, whether it ran ahead or at PrepareCommit.
    EXPECT_EQ(static_cast<int64_t>(files), w->metrics().data_files);
    EXPECT_EQ(static_cast<int64_t>(changelog), w->metrics().changelog_files);
    EXPECT_GT(files, messages.size());  // several files per bucket
    ASSERT_TRUE(testing::CommitMessages(path, messages, "user-1", commit).ok());
    std::vector<Row> expected;
    for (const auto& [key, v] : model) expected.push_back({I(key.first), I(key.second), Datum(v)});
    EXPECT_EQ(testing::SortedRows(testing::ReadTable(path).value()), expected);
  }
}

// One bucket: each flush ahead is the whole buffer; the next one waits until it is written once the
// filling buffer reaches half the budget, so the writer holds about 1.5 times the budget. The files
// written ahead are booked at the next memory flush (they reach compaction before the commit).
TEST_F(TableWriteTest, FlushAheadOfOneBucketHoldsAtMostOneAndAHalfBudgets) {
  TableSchema schema = WriterTestSchema({Field(0, "id", DataType::BigInt(false)), Field(1, "v", DataType::String())},
                                        {"id"}, {}, {{"bucket", "1"}});
  std::string path = MakeTable(schema);
  const int64_t budget = 256 * 1024;
  auto w = Writer(path, schema, FlushAhead(budget));
  // The most memory the buffers held, counted at their vectors' capacity.
  int64_t most = 0;
  for (int64_t k = 0; k < 40000; ++k) {
    ASSERT_TRUE(w->Write(RowKind::kInsert, Row{I(k), Datum(std::string(100, 'v'))}).ok());
    most = std::max(most, w->buffered_bytes());
  }
  EXPECT_GT(w->metrics().flushes_ahead, 5);
  EXPECT_GT(w->metrics().flushes, 0) << "flushes written ahead are booked before the commit";
  // The buffer handed over passed the budget at its last growth, and is counted at its vectors'
  // capacity (just doubled); beside it the next one fills to half the budget, then waits.
  EXPECT_GT(most, budget) << "the flush ahead holds memory beside the filling buffer";
  EXPECT_LE(most, budget * 5 / 2);
  auto messages = w->PrepareCommit().value();
  ASSERT_TRUE(testing::CommitMessages(path, messages, "user-1", 1).ok());
  EXPECT_EQ(testing::ReadTable(path).value().size(), 40000u);
}

// Flushes ahead of buckets filled in turns (four partitions, 500 rows at a time, as a copy's sessions
// hand over their batches) keep the files whole: the memory flush takes the fullest buffer, so no file
// is cut to one turn's rows. (Buffers kept after their flush and filled again, charged their whole
// memory from their first row, once cut most files to 500 rows here.)
TEST_F(TableWriteTest, FlushesAheadOfBucketsFilledInTurnsKeepTheFilesWhole) {
  TableSchema schema = WriterTestSchema({Field(0, "p", DataType::Int(false)), Field(1, "id", DataType::BigInt(false)),
                                         Field(2, "v", DataType::String())},
                                        {"p", "id"}, {"p"}, {{"bucket", "1"}});
  std::string path = MakeTable(schema);
  const int64_t budget = 512 * 1024;
  auto w = Writer(path, schema, FlushAhead(budget));
  int64_t id = 0;
  for (int turn = 0; turn < 160; ++turn) {
    const int64_t p = turn % 4;
    for (int i = 0; i < 500; ++i) {
      ASSERT_TRUE(w->Write(RowKind::kInsert, Row{I(p), I(id++), Datum("value-" + std::to_string(id))}).ok());
    }
  }
  EXPECT_GT(w->metrics().flushes_ahead, 10);
  auto messages = w->PrepareCommit().value();
  std::vector<int64_t> sizes;
  for (const auto& m : messages) {
    // The last file of each partition holds what was left at the commit.
    for (size_t i = 0; i + 1 < m.new_files.size(); ++i) sizes.push_back(m.new_files[i].row_count);
  }
  ASSERT_GT(sizes.size(), 8u);
  const int64_t smallest = *std::min_element(sizes.begin(), sizes.end());
  const int64_t largest = *std::max_element(sizes.begin(), sizes.end());
  // Four buffers share the budget: a flushed one holds about a quarter of it, or more.
  EXPECT_GT(smallest, largest / 4) << "smallest " << smallest << ", largest " << largest;
  ASSERT_TRUE(testing::CommitMessages(path, messages, "user-1", 1).ok());
  EXPECT_EQ(testing::ReadTable(path).value().size(), static_cast<size_t>(id));
}

// A flush ahead that fails (its bucket folder cannot be made) fails the writer at the next memory flush
// (not only at the commit), gives its memory back, and nothing is committed.
TEST_F(TableWriteTest, AFailedFlushAheadFailsTheWriterSoon) {
  TableSchema schema = WriterTestSchema({Field(0, "p", DataType::Int(false)), Field(1, "id", DataType::BigInt(false)),
                                         Field(2, "v", DataType::String())},
                                        {"p", "id"}, {"p"}, {{"bucket", "1"}});
  std::string path = MakeTable(schema);
  // A file where partition p=1's folder would go.
  ASSERT_TRUE(FileSystem::Local()->WriteFileExclusive(path + "/p=1", "in the way").ok());
  auto w = Writer(path, schema, FlushAhead(16 * 1024));
  Status failed;
  int64_t k = 0;
  for (; k < 200000 && failed.ok(); ++k) failed = w->Write(RowKind::kInsert, Row{I(1), I(k), Datum("value")});
  ASSERT_FALSE(failed.ok()) << "the writer went on for " << k << " rows";
  EXPECT_LT(k, 20000) << "noticed at a memory flush soon after";
  EXPECT_NE(failed.ToString().find("p=1"), std::string::npos) << failed.ToString();
  EXPECT_LT(w->buffered_bytes(), 16 * 1024 * 2) << "the failed flush's memory went back";
  EXPECT_FALSE(w->PrepareCommit().ok());
  EXPECT_FALSE(FileSystem::Local()->Exists(path + "/snapshot/snapshot-1").ValueOr(true));
}

TEST_F(TableWriteTest, AbortDeletesTheFilesOfFlushesAhead) {
  TableSchema schema = WriterTestSchema({Field(0, "id", DataType::BigInt(false)), Field(1, "v", DataType::String())},
                                        {"id"}, {}, {{"bucket", "1"}, {"changelog-producer", "input"}});
  std::string path = MakeTable(schema);
  auto w = Writer(path, schema, FlushAhead(8192));
  for (int64_t k = 0; k < 3000; ++k) ASSERT_TRUE(w->Write(RowKind::kInsert, Row{I(k), Datum("v")}).ok());
  ASSERT_GT(w->metrics().flushes_ahead, 5);
  w->Abort();
  EXPECT_EQ(FileSystem::Local()->ListDir(path + "/bucket-0").value().size(), 0u);
  EXPECT_TRUE(w->PrepareCommit().value().empty());
}

TEST_F(TableWriteTest, ChangelogProducerInputWritesEveryRecord) {
  TableSchema schema = WriterTestSchema({Field(0, "id", DataType::BigInt(false)), Field(1, "v", DataType::String())},
                                        {"id"}, {}, {{"bucket", "1"}, {"changelog-producer", "input"}});
  std::string path = MakeTable(schema);
  auto w = Writer(path, schema);
  ASSERT_TRUE(w->Write(RowKind::kInsert, Row{I(2), Datum("a")}).ok());
  ASSERT_TRUE(w->Write(RowKind::kInsert, Row{I(1), Datum("b")}).ok());
  ASSERT_TRUE(w->Write(RowKind::kUpdateBefore, Row{I(2), Datum("a")}).ok());
  ASSERT_TRUE(w->Write(RowKind::kUpdateAfter, Row{I(2), Datum("c")}).ok());
  auto messages = w->PrepareCommit().value();
  ASSERT_EQ(messages.size(), 1u);
  ASSERT_EQ(messages[0].new_files.size(), 1u);
  ASSERT_EQ(messages[0].changelog_files.size(), 1u);
  const DataFileMeta& data = messages[0].new_files[0];
  const DataFileMeta& changelog = messages[0].changelog_files[0];
  EXPECT_EQ(data.row_count, 2);  // one row per key
  EXPECT_EQ(changelog.row_count, 4);
  EXPECT_EQ(changelog.delete_row_count, 1);
  EXPECT_EQ(changelog.file_name.rfind("changelog-", 0), 0u);
  // Data and changelog files share the writer's UUID and counter.
  EXPECT_EQ(data.file_name.substr(5, 36), changelog.file_name.substr(10, 36));
  ASSERT_TRUE(testing::CommitMessages(path, messages, "user-1", 1).ok());
  EXPECT_EQ(testing::SortedRows(testing::ReadTable(path).value()),
            (std::vector<Row>{{I(1), Datum("b")}, {I(2), Datum("c")}}));
}

TEST_F(TableWriteTest, MergeEnginesFoldInTheBuffer) {
  TableSchema partial = WriterTestSchema({Field(0, "id", DataType::BigInt(false)), Field(1, "a", DataType::String()),
                                          Field(2, "b", DataType::Int())},
                                         {"id"}, {}, {{"bucket", "1"}, {"merge-engine", "partial-update"}});
  std::string path = MakeTable(partial);
  auto w = Writer(path, partial);
  ASSERT_TRUE(w->Write(RowKind::kInsert, Row{I(1), Datum("x"), Datum()}).ok());
  ASSERT_TRUE(w->Write(RowKind::kInsert, Row{I(1), Datum(), I(5)}).ok());
  auto messages = w->PrepareCommit().value();
  EXPECT_EQ(messages[0].new_files[0].row_count, 1);  // folded before the flush
  ASSERT_TRUE(testing::CommitMessages(path, messages, "user-1", 1).ok());
  ASSERT_TRUE(w->Write(RowKind::kInsert, Row{I(1), Datum("y"), Datum()}).ok());
  ASSERT_TRUE(testing::CommitMessages(path, w->PrepareCommit().value(), "user-1", 2).ok());
  EXPECT_EQ(testing::ReadTable(path).value(), (std::vector<Row>{{I(1), Datum("y"), I(5)}}));
  // Deletes are refused by default.
  ASSERT_TRUE(w->Write(RowKind::kDelete, Row{I(1), Datum(), Datum()}).ok());
  ASSERT_TRUE(w->Write(RowKind::kInsert, Row{I(1), Datum("z"), Datum()}).ok());
  EXPECT_TRUE(w->PrepareCommit().status().IsInvalidArgument());
  EXPECT_FALSE(w->Write(RowKind::kInsert, Row{I(2), Datum(), Datum()}).ok()) << "a failed writer refuses more rows";

  TableSchema agg = WriterTestSchema({Field(0, "id", DataType::BigInt(false)), Field(1, "n", DataType::BigInt()),
                                      Field(2, "m", DataType::Int())},
                                     {"id"}, {},
                                     {{"bucket", "1"}, {"merge-engine", "aggregation"},
                                      {"fields.n.aggregate-function", "sum"}, {"fields.m.aggregate-function", "max"},
                                      {"fields.m.ignore-retract", "true"}});
  std::string agg_path = MakeTable(agg);
  auto a = Writer(agg_path, agg);
  ASSERT_TRUE(a->Write(RowKind::kInsert, Row{I(1), I(10), I(3)}).ok());
  ASSERT_TRUE(a->Write(RowKind::kInsert, Row{I(1), I(5), I(9)}).ok());
  ASSERT_TRUE(a->Write(RowKind::kUpdateBefore, Row{I(1), I(10), I(3)}).ok());
  ASSERT_TRUE(testing::CommitMessages(agg_path, a->PrepareCommit().value(), "user-1", 1).ok());
  ASSERT_TRUE(a->Write(RowKind::kInsert, Row{I(1), I(1), I(2)}).ok());
  ASSERT_TRUE(testing::CommitMessages(agg_path, a->PrepareCommit().value(), "user-1", 2).ok());
  // n: 10 + 5 - 10 (retracted) + 1; m: max ignoring the retraction.
  EXPECT_EQ(testing::ReadTable(agg_path).value(), (std::vector<Row>{{I(1), I(6), I(9)}}));
  // A retraction an aggregate function cannot take fails the flush, as in Java.
  TableSchema no_retract = agg;
  no_retract.RemoveOption("fields.m.ignore-retract");
  auto r = Writer(MakeTable(no_retract), no_retract);
  ASSERT_TRUE(r->Write(RowKind::kInsert, Row{I(1), I(10), I(3)}).ok());
  ASSERT_TRUE(r->Write(RowKind::kUpdateBefore, Row{I(1), I(10), I(3)}).ok());
  EXPECT_TRUE(r->PrepareCommit().status().IsNotSupported());
}

TEST_F(TableWriteTest, SequenceFieldOrdersUpdates) {
  TableSchema schema = WriterTestSchema({Field(0, "id", DataType::BigInt(false)), Field(1, "ts", DataType::BigInt()),
                                         Field(2, "v", DataType::String())},
                                        {"id"}, {}, {{"bucket", "1"}, {"sequence.field", "ts"}});
  std::string path = MakeTable(schema);
  auto w = Writer(path, schema);
  ASSERT_TRUE(w->Write(RowKind::kInsert, Row{I(1), I(20), Datum("newer")}).ok());
  ASSERT_TRUE(w->Write(RowKind::kInsert, Row{I(1), I(10), Datum("older")}).ok());
  ASSERT_TRUE(testing::CommitMessages(path, w->PrepareCommit().value(), "user-1", 1).ok());
  ASSERT_TRUE(w->Write(RowKind::kInsert, Row{I(1), I(15), Datum("late")}).ok());
  ASSERT_TRUE(testing::CommitMessages(path, w->PrepareCommit().value(), "user-1", 2).ok());
  EXPECT_EQ(testing::ReadTable(path).value(), (std::vector<Row>{{I(1), I(20), Datum("newer")}}));
}

TEST_F(TableWriteTest, AbortDeletesUnhandedFiles) {
  TableSchema schema = WriterTestSchema({Field(0, "id", DataType::BigInt(false)), Field(1, "v", DataType::String())},
                                        {"id"}, {}, {{"bucket", "1"}});
  std::string path = MakeTable(schema);
  TableWriteConfig config;
  config.write_buffer_size = 4096;
  auto w = Writer(path, schema, config);
  for (int64_t k = 0; k < 500; ++k) ASSERT_TRUE(w->Write(RowKind::kInsert, Row{I(k), Datum("v")}).ok());
  ASSERT_GT(w->metrics().data_files, 0);
  EXPECT_GT(FileSystem::Local()->ListDir(path + "/bucket-0").value().size(), 0u);
  w->Abort();
  EXPECT_EQ(FileSystem::Local()->ListDir(path + "/bucket-0").value().size(), 0u);
  EXPECT_TRUE(w->PrepareCommit().value().empty());
}
}  // namespace
}  // namespace tide
