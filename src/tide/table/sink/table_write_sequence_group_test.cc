// Partial-update sequence groups written and read as Java's PartialUpdateMergeFunction folds them: the
// examples of Paimon's documentation (two groups; aggregate functions within groups), each written as
// one commit per record (the reader merges), as one commit (the writer's buffer merges) and then fully
// compacted (compaction merges); retractions of a group, and `partial-update.remove-record-on-sequence-group`;
// the combinations Java refuses.

#include <gtest/gtest.h>

#include "testing/temp_dir.h"
#include "testing/value_or_fail.h"
#include "tide/table/sink/table_write.h"
#include "tide/table/table_test_util.h"

namespace tide {
namespace {

using testing::Field;
using testing::WriterTestSchema;

Datum I(int64_t v) { return Datum(v); }
const Datum N;

struct Record {
  RowKind kind;
  Row row;
};

class SequenceGroupTest : public ::testing::Test {
 protected:
  // The table's rows after `records`, written one commit each, then in one commit, then compacted.
  void ExpectRows(const TableSchema& schema, const std::vector<Record>& records, const std::vector<Row>& expected) {
    for (int mode = 0; mode < 3; ++mode) {
      SCOPED_TRACE(mode == 0 ? "a commit per record" : mode == 1 ? "one commit" : "one commit per record, compacted");
      std::string path = dir_.path() + "/db.db/t" + std::to_string(tables_++);
      ASSERT_TRUE(testing::CreateWriterTestTable(path, schema).ok());
      int64_t identifier = 0;
      auto w = testing::ValueOrFail(TableWrite::Create(FileSystem::Local(), path, schema, "u"), "Create");
      for (const Record& r : records) {
        Status written = w->Write(r.kind, r.row);
        ASSERT_TRUE(written.ok()) << written.ToString();
        if (mode != 1) {
          ASSERT_TRUE(testing::CommitMessages(path, w->PrepareCommit().value(), "u", ++identifier).ok());
        }
      }
      if (mode == 1) {
        ASSERT_TRUE(testing::CommitMessages(path, w->PrepareCommit().value(), "u", ++identifier).ok());
      }
      if (mode == 2) {
        ASSERT_TRUE(w->Compact(true).ok());
        ASSERT_TRUE(testing::CommitMessages(path, w->PrepareCommit().value(), "u", ++identifier).ok());
        auto files = testing::LiveEntries(path).value();
        ASSERT_EQ(files.size(), expected.empty() ? 0u : 1u);
      }
      EXPECT_EQ(testing::ValueOrFail(testing::ReadTable(path), "read"), expected);
    }
  }
  testing::TempDir dir_;
  int tables_ = 0;
};

TEST_F(SequenceGroupTest, TwoGroupsChangeIndependently) {
  // Paimon's documentation: k, a, b, g_1, c, d, g_2 with g_1 over a, b and g_2 over c, d.
  TableSchema schema = WriterTestSchema(
      {Field(0, "k", DataType::Int(false)), Field(1, "a", DataType::Int()), Field(2, "b", DataType::Int()),
       Field(3, "g_1", DataType::Int()), Field(4, "c", DataType::Int()), Field(5, "d", DataType::Int()),
       Field(6, "g_2", DataType::Int())},
      {"k"}, {},
      {{"bucket", "1"}, {"merge-engine", "partial-update"}, {"fields.g_1.sequence-group", "a,b"},
       {"fields.g_2.sequence-group", "c,d"}});
  ExpectRows(schema,
             {{RowKind::kInsert, {I(1), I(1), I(1), I(1), I(1), I(1), I(1)}},
              // g_2 is NULL: c, d stay.
              {RowKind::kInsert, {I(1), I(2), I(2), I(2), I(2), I(2), N}},
              // g_1 is smaller: a, b stay.
              {RowKind::kInsert, {I(1), I(3), I(3), I(1), I(3), I(3), I(3)}}},
             {{I(1), I(2), I(2), I(2), I(3), I(3), I(3)}});
}

TEST_F(SequenceGroupTest, AggregateFunctionsWithinGroups) {
  // Paimon's documentation: first_value of b in a's group, sum of d in c's group.
  TableSchema schema = WriterTestSchema(
      {Field(0, "k", DataType::Int(false)), Field(1, "a", DataType::Int()), Field(2, "b", DataType::Int()),
       Field(3, "c", DataType::Int()), Field(4, "d", DataType::Int())},
      {"k"}, {},
      {{"bucket", "1"}, {"merge-engine", "partial-update"}, {"fields.a.sequence-group", "b"},
       {"fields.b.aggregate-function", "first_value"}, {"fields.c.sequence-group", "d"},
       {"fields.d.aggregate-function", "sum"}});
  ExpectRows(schema,
             {{RowKind::kInsert, {I(1), I(1), I(1), N, N}},
              {RowKind::kInsert, {I(1), N, N, I(1), I(1)}},
              {RowKind::kInsert, {I(1), I(2), I(2), N, N}},
              {RowKind::kInsert, {I(1), N, N, I(2), I(2)}}},
             {{I(1), I(2), I(1), I(2), I(3)}});
  // An older record's values go first (Java's aggReversed): its b becomes the first value, its d is added.
  ExpectRows(schema,
             {{RowKind::kInsert, {I(1), I(5), I(50), I(5), I(10)}},
              {RowKind::kInsert, {I(1), I(3), I(30), I(3), I(7)}}},
             {{I(1), I(5), I(30), I(5), I(17)}});
}

TEST_F(SequenceGroupTest, RetractionsClearTheirGroup) {
  std::vector<DataField> fields = {Field(0, "k", DataType::Int(false)), Field(1, "a", DataType::Int()),
                                   Field(2, "g1", DataType::Int()), Field(3, "b", DataType::Int()),
                                   Field(4, "g2", DataType::Int())};
  std::vector<std::pair<std::string, std::string>> options = {
      {"bucket", "1"}, {"merge-engine", "partial-update"}, {"fields.g1.sequence-group", "a"},
      {"fields.g2.sequence-group", "b"}};
  // A newer -D of g1's group sets g1 and clears a; an older one of g2's group changes nothing.
  ExpectRows(WriterTestSchema(fields, {"k"}, {}, options),
             {{RowKind::kInsert, {I(1), I(10), I(1), I(20), I(5)}},
              {RowKind::kDelete, {I(1), I(10), I(2), I(20), I(4)}}},
             {{I(1), N, I(2), I(20), I(5)}});
  // With remove-record-on-sequence-group = g1, that -D removes the whole row; a -D of g2 alone does not.
  options.emplace_back("partial-update.remove-record-on-sequence-group", "g1");
  TableSchema remove = WriterTestSchema(fields, {"k"}, {}, options);
  ExpectRows(remove,
             {{RowKind::kInsert, {I(1), I(10), I(1), I(20), I(5)}}, {RowKind::kDelete, {I(1), N, I(2), N, N}}}, {});
  ExpectRows(remove,
             {{RowKind::kInsert, {I(1), I(10), I(1), I(20), I(5)}}, {RowKind::kDelete, {I(1), N, N, I(9), I(6)}}},
             {{I(1), I(10), I(1), N, I(6)}});
}

TEST_F(SequenceGroupTest, RefusesWhatJavaRefuses) {
  std::vector<DataField> fields = {Field(0, "k", DataType::Int(false)), Field(1, "a", DataType::Int()),
                                   Field(2, "g", DataType::Int()), Field(3, "b", DataType::Int())};
  auto create = [&](std::vector<std::pair<std::string, std::string>> extra) {
    std::vector<std::pair<std::string, std::string>> options = {{"bucket", "1"}, {"merge-engine", "partial-update"}};
    for (auto& o : extra) options.push_back(std::move(o));
    auto w = TableWrite::Create(FileSystem::Local(), dir_.path() + "/x", WriterTestSchema(fields, {"k"}, {}, options), "u");
    return w.ok() ? Status::OK() : w.status();
  };
  EXPECT_TRUE(create({{"fields.g.sequence-group", "a"}}).ok());
  // An aggregate function outside every group (other than last_non_null_value).
  EXPECT_TRUE(create({{"fields.g.sequence-group", "a"}, {"fields.b.aggregate-function", "sum"}}).IsInvalidArgument());
  EXPECT_TRUE(create({{"fields.g.sequence-group", "a"}, {"fields.b.aggregate-function", "last_non_null_value"}}).ok());
  // A field in two groups, a key in a group, an unknown column.
  EXPECT_TRUE(create({{"fields.g.sequence-group", "a"}, {"fields.b.sequence-group", "a"}}).IsInvalidArgument());
  EXPECT_TRUE(create({{"fields.g.sequence-group", "k"}}).IsInvalidArgument());
  // remove-record-on-delete with groups; remove-record-on-sequence-group naming no sequence field.
  EXPECT_TRUE(create({{"fields.g.sequence-group", "a"}, {"partial-update.remove-record-on-delete", "true"}})
                  .IsInvalidArgument());
  EXPECT_TRUE(create({{"fields.g.sequence-group", "a"}, {"partial-update.remove-record-on-sequence-group", "a"}})
                  .IsInvalidArgument());
}

}  // namespace
}  // namespace tide
