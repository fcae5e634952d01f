// TableWrite's two buffers side by side: the same random writes (inserts, updates, deletes of colliding
// keys over two partitions and two buckets, memory flushes, changelog-producer=input, a column added
// between commits) go through a writer that buffers as columns and one that buffers Datum rows. Their
// commit messages must list the same files, with the same metadata and the same bytes, and the
// columnar writer must hold the same records in less memory.
#include <gtest/gtest.h>

#include <random>

#include "testing/temp_dir.h"
#include "testing/value_or_fail.h"
#include "tide/table/sink/table_write.h"
#include "tide/table/table_test_util.h"

namespace tide {
namespace {

using testing::Field;
using testing::WriterTestSchema;

TableSchema OrdersSchema() {
  return WriterTestSchema({Field(0, "id", DataType::BigInt(false)), Field(1, "dt", DataType::String(false)),
                           Field(2, "customer", DataType::Int()), Field(3, "amount", DataType::Decimal(12, 2)),
                           Field(4, "note", DataType::VarChar(40)), Field(5, "score", DataType::Double()),
                           Field(6, "updated", DataType::Timestamp(3)), Field(7, "flag", DataType::Boolean())},
                          {"id", "dt"}, {"dt"},
                          {{"bucket", "2"}, {"changelog-producer", "input"}, {"file.compression", "zstd"}});
}

// Schema 1: a nullable column added at the end.
TableSchema OrdersSchemaWithColumn() {
  TableSchema s = OrdersSchema();
  s.id = 1;
  s.fields.push_back(Field(8, "region", DataType::String()));
  s.highest_field_id = 8;
  return s;
}

Row RandomRow(std::mt19937_64& rng, size_t columns) {
  auto pick = [&](int64_t n) { return static_cast<int64_t>(rng() % static_cast<uint64_t>(n)); };
  Row row{Datum(pick(300)),
          Datum(pick(2) == 0 ? std::string("2026-12-01") : std::string("2026-12-02")),
          pick(10) == 0 ? Datum() : Datum(pick(1000)),
          pick(10) == 0 ? Datum() : Datum(DecimalValue{static_cast<int128_t>(pick(1000000)) - 500000}),
          pick(10) == 0 ? Datum() : Datum("note " + std::to_string(pick(100000))),
          pick(10) == 0 ? Datum() : Datum(static_cast<double>(pick(1000)) / 7.0),
          Datum(TimestampValue{1764547200000 + pick(86400000), 0}),
          pick(3) == 0 ? Datum() : Datum(pick(2) == 0)};
  if (columns > row.size()) row.push_back(pick(2) == 0 ? Datum() : Datum("r" + std::to_string(pick(5))));
  return row;
}

RowKind RandomKind(std::mt19937_64& rng) {
  switch (rng() % 6) {
    case 0: return RowKind::kDelete;
    case 1: return RowKind::kUpdateBefore;
    case 2:
    case 3: return RowKind::kUpdateAfter;
    default: return RowKind::kInsert;
  }
}

// The files of `messages`, as (bucket folder, metadata with its name cleared, bytes), in message order.
struct WrittenFile {
  std::string folder;
  DataFileMeta meta;
  std::string bytes;
};

std::vector<WrittenFile> FilesOf(const std::string& table_path, const std::vector<CommitMessage>& messages) {
  std::vector<WrittenFile> files;
  for (const CommitMessage& m : messages) {
    const std::string partition = m.partition;
    for (const auto* list : {&m.new_files, &m.changelog_files}) {
      for (const DataFileMeta& f : *list) {
        WrittenFile file;
        file.folder = partition + "/" + std::to_string(m.bucket);
        std::string path;
        for (const std::string dt : {"2026-12-01", "2026-12-02"}) {
          std::string candidate = table_path + "/dt=" + dt + "/bucket-" + std::to_string(m.bucket) + "/" + f.file_name;
          if (FileSystem::Local()->Exists(candidate).value()) path = candidate;
        }
        EXPECT_FALSE(path.empty()) << f.file_name;
        if (!path.empty()) file.bytes = FileSystem::Local()->ReadFile(path).value();
        file.meta = f;
        file.meta.file_name.clear();
        files.push_back(std::move(file));
      }
    }
  }
  return files;
}

TEST(TableWriteColumnarTest, ColumnarBuffersWriteTheFilesRowBuffersWrite) {
  testing::TempDir dir;
  TableSchema schema = OrdersSchema();
  TableSchema widened = OrdersSchemaWithColumn();
  // 0: columns, 1: rows (both within the default budget: the same flushes), 2: columns under a small
  // budget (flushes under memory pressure; read back, it must hold what the others hold).
  constexpr int kWriters = 3;
  std::unique_ptr<TableWrite> writers[kWriters];
  std::string paths[kWriters];
  for (int i = 0; i < kWriters; ++i) {
    paths[i] = dir.path() + "/db.db/t" + std::to_string(i);
    ASSERT_TRUE(testing::CreateWriterTestTable(paths[i], schema).ok());
    ASSERT_TRUE(testing::CreateWriterTestTable(paths[i], widened).ok());
    TableWriteConfig config;
    config.columnar_buffers = i != 1;
    config.creation_time_ms = [] { return int64_t{1764547200000}; };
    if (i == 2) config.write_buffer_size = 64 * 1024;
    writers[i] = testing::ValueOrFail(TableWrite::Create(FileSystem::Local(), paths[i], schema, "user-1", config),
                                      "TableWrite::Create");
  }
  std::mt19937_64 rng(20261204);
  size_t columns = schema.fields.size();
  for (int commit = 1; commit <= 4; ++commit) {
    if (commit == 3) {
      for (auto& w : writers) ASSERT_TRUE(w->ChangeSchema(widened).ok());
      columns = widened.fields.size();
    }
    for (int n = 0; n < 6000; ++n) {
      Row row = RandomRow(rng, columns);
      RowKind kind = n < 1000 && commit == 1 ? RowKind::kInsert : RandomKind(rng);
      for (auto& w : writers) {
        Status written = w->Write(kind, row);
        ASSERT_TRUE(written.ok()) << written.ToString();
      }
    }
    // The same records in a fraction of the memory.
    EXPECT_LT(writers[0]->buffered_bytes() * 2, writers[1]->buffered_bytes()) << "commit " << commit;
    std::vector<CommitMessage> messages[kWriters];
    for (int i = 0; i < kWriters; ++i) {
      auto prepared = writers[i]->PrepareCommit();
      ASSERT_TRUE(prepared.ok()) << prepared.status().ToString();
      messages[i] = std::move(prepared).value();
    }
    std::vector<WrittenFile> a = FilesOf(paths[0], messages[0]);
    std::vector<WrittenFile> b = FilesOf(paths[1], messages[1]);
    ASSERT_EQ(a.size(), b.size()) << "commit " << commit;
    ASSERT_FALSE(a.empty());
    for (size_t f = 0; f < a.size(); ++f) {
      EXPECT_EQ(a[f].folder, b[f].folder) << "commit " << commit << ", file " << f;
      EXPECT_TRUE(a[f].meta == b[f].meta) << "commit " << commit << ", file " << f;
      EXPECT_TRUE(a[f].bytes == b[f].bytes) << "commit " << commit << ", file " << f;
    }
    for (int i = 0; i < kWriters; ++i) {
      ASSERT_TRUE(testing::CommitMessages(paths[i], messages[i], "user-1", commit).ok());
    }
  }
  EXPECT_EQ(writers[0]->metrics().memory_flushes, 0);
  EXPECT_GT(writers[2]->metrics().memory_flushes, 4);
  std::vector<Row> tables[kWriters];
  for (int i = 0; i < kWriters; ++i) {
    auto read = testing::ReadTable(paths[i]);
    ASSERT_TRUE(read.ok()) << read.status().ToString();
    tables[i] = testing::SortedRows(*read);
  }
  EXPECT_FALSE(tables[0].empty());
  EXPECT_EQ(tables[0], tables[1]);
  EXPECT_EQ(tables[2], tables[1]);
}

}  // namespace
}  // namespace tide
