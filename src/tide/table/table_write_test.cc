#include "tide/table/table_write.h"

#include <gtest/gtest.h>

#include "testing/temp_dir.h"
#include "tide/table/table_write_test_util.h"

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
    auto w = TableWrite::Create(FileSystem::Local(), path, schema, "user-1", std::move(config));
    EXPECT_TRUE(w.ok()) << w.status().ToString();
    return w.ok() ? std::move(w).value() : nullptr;
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

}  // namespace
}  // namespace tide
