#include "tide/table/io/key_value_file_writer.h"

#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <regex>

#include "testing/temp_dir.h"
#include "tide/codec/binary_row.h"
#include "tide/format/parquet_metadata.h"
#include "tide/table/io/append_file_writer.h"
#include "tide/table/io/data_file_reader.h"
#include "tide/table/table_test_util.h"

namespace tide {
namespace {

using testing::Field;
using testing::WriterTestSchema;

constexpr int64_t kClock = 1700000000999;

std::unique_ptr<DataFileWriteContext> Context(const TableSchema& schema) {
  auto options = CoreOptions::Create(schema, "db.t");
  EXPECT_TRUE(options.ok()) << options.status().ToString();
  auto ctx = std::make_unique<DataFileWriteContext>();
  auto layout = DataFileLayout::Create(schema, *options, "db.t");
  EXPECT_TRUE(layout.ok()) << layout.status().ToString();
  ctx->layout = std::move(layout).value();
  ctx->db = DuckDB::Open().value();
  ctx->creation_time_ms = [] { return kClock; };
  return ctx;
}

// PK (p, a, b), partition p: trimmed key (a STRING, b INT).
TableSchema PkSchema() {
  return WriterTestSchema({Field(0, "p", DataType::String(false)), Field(1, "a", DataType::String(false)),
                           Field(2, "b", DataType::Int(false)), Field(3, "v", DataType::String()),
                           Field(4, "t", DataType::TinyInt()), Field(5, "d", DataType::Decimal(10, 2))},
                          {"p", "a", "b"}, {"p"}, {{"bucket", "1"}});
}

const ParquetFileColumn& Column(const ParquetFileInfo& info, size_t i) { return info.columns.at(i); }

TEST(KeyValueFileWriterTest, PhysicalSchemaOfPrimaryKeyFile) {
  testing::TempDir dir;
  TableSchema schema = PkSchema();
  auto ctx = Context(schema);
  std::string path = dir.path() + "/bucket-0/data-x-0.parquet";
  auto writer = KeyValueFileWriter::Create(ctx.get(), path).value();
  Row row{Datum("p1"), Datum("k"), Datum(int64_t{1}), Datum("v"), Datum(int64_t{7}), Datum(DecimalValue{123})};
  ASSERT_TRUE(writer->Write(row, 0, ValueKind::kInsert).ok());
  ASSERT_TRUE(writer->Finish().ok());

  auto info = ReadParquetFileInfo(path);
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  std::vector<std::string> names;
  std::vector<std::optional<int32_t>> ids;
  for (const auto& c : info->columns) {
    names.push_back(c.name);
    ids.push_back(c.field_id);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"_KEY_a", "_KEY_b", "_SEQUENCE_NUMBER", "_VALUE_KIND", "p", "a", "b", "v",
                                             "t", "d"}));
  EXPECT_EQ(ids, (std::vector<std::optional<int32_t>>{1073741824, 1073741825, 2147483646, 2147483645, 0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(Column(*info, 0).physical_type, "BYTE_ARRAY");
  EXPECT_EQ(Column(*info, 0).converted_type, "UTF8");
  EXPECT_EQ(Column(*info, 1).physical_type, "INT32");
  EXPECT_EQ(Column(*info, 2).physical_type, "INT64");
  EXPECT_EQ(Column(*info, 3).physical_type, "INT32");
  EXPECT_EQ(Column(*info, 3).converted_type, "INT_8");
  EXPECT_EQ(Column(*info, 8).converted_type, "INT_8");
  EXPECT_EQ(Column(*info, 9).physical_type, "INT64");
  EXPECT_EQ(Column(*info, 9).converted_type, "DECIMAL");
  EXPECT_EQ(Column(*info, 9).precision, 10);
  EXPECT_EQ(Column(*info, 9).scale, 2);
  EXPECT_EQ(info->num_rows, 1);
}

TEST(KeyValueFileWriterTest, PhysicalSchemaOfAppendFile) {
  testing::TempDir dir;
  TableSchema schema = WriterTestSchema({Field(3, "x", DataType::BigInt()), Field(7, "s", DataType::String())}, {}, {},
                                        {});
  auto ctx = Context(schema);
  std::string path = dir.path() + "/bucket-0/data-y-0.parquet";
  auto writer = AppendFileWriter::Create(ctx.get(), path).value();
  Row row{Datum(int64_t{1}), Datum("a")};
  ASSERT_TRUE(writer->Write(row, 5, ValueKind::kInsert).ok());
  auto meta = writer->Finish();
  ASSERT_TRUE(meta.ok()) << meta.status().ToString();
  auto info = ReadParquetFileInfo(path).value();
  ASSERT_EQ(info.columns.size(), 2u);
  EXPECT_EQ(info.columns[0].name, "x");
  EXPECT_EQ(info.columns[0].field_id, 3);
  EXPECT_EQ(info.columns[0].physical_type, "INT64");
  EXPECT_EQ(info.columns[1].name, "s");
  EXPECT_EQ(info.columns[1].field_id, 7);
  EXPECT_EQ(meta->min_key, EmptyKeyRow());
  EXPECT_EQ(meta->max_key, EmptyKeyRow());
  EXPECT_EQ(meta->min_key, std::string("\0\0\0\0\0\0\0\0\0\0\0\0", 12));
  EXPECT_EQ(meta->key_stats.min_values, EmptyKeyRow());
  EXPECT_TRUE(meta->key_stats.null_counts_present);
  EXPECT_TRUE(meta->key_stats.null_counts.empty());
  EXPECT_EQ(meta->min_sequence_number, 5);
  EXPECT_EQ(meta->max_sequence_number, 5);
  EXPECT_EQ(meta->delete_row_count, 0);
  EXPECT_EQ(meta->level, 0);
  EXPECT_EQ(meta->file_source, 0);
  // Retractions do not belong in an append file.
  auto again = AppendFileWriter::Create(ctx.get(), dir.path() + "/bucket-0/data-y-1.parquet").value();
  Row del{Datum(int64_t{1}), Datum("a")};
  EXPECT_TRUE(again->Write(del, 6, ValueKind::kDelete).IsInvalidArgument());
}

TEST(KeyValueFileWriterTest, DataFileMetaOfPrimaryKeyFile) {
  testing::TempDir dir;
  TableSchema schema = PkSchema();
  auto ctx = Context(schema);
  std::string path = dir.path() + "/bucket-0/data-z-3.parquet";
  auto writer = KeyValueFileWriter::Create(ctx.get(), path).value();
  const std::string long_key(200, 'k');
  std::vector<std::tuple<Row, int64_t, ValueKind>> records = {
      {{Datum("p1"), Datum("a"), Datum(int64_t{2}), Datum("Two roads diverged in a wood..."), Datum(int64_t{-5}),
        Datum(DecimalValue{100})},
       7, ValueKind::kInsert},
      {{Datum("p1"), Datum("a"), Datum(int64_t{9}), Datum(), Datum(int64_t{3}), Datum()}, 4, ValueKind::kDelete},
      {{Datum("p1"), Datum("b"), Datum(int64_t{-1}), Datum("And sorry"), Datum(), Datum(DecimalValue{-250})}, 9,
       ValueKind::kUpdateBefore},
      {{Datum("p1"), Datum(long_key), Datum(int64_t{0}), Datum("Bb"), Datum(int64_t{1}), Datum(DecimalValue{5})}, 5,
       ValueKind::kUpdateAfter},
  };
  for (auto& [row, seq, kind] : records) {
    Row copy = row;
    ASSERT_TRUE(writer->Write(copy, seq, kind).ok());
  }
  auto meta = writer->Finish();
  ASSERT_TRUE(meta.ok()) << meta.status().ToString();
  EXPECT_EQ(meta->file_name, "data-z-3.parquet");
  EXPECT_EQ(meta->file_size, static_cast<int64_t>(FileSystem::Local()->Stat(path).value().size));
  EXPECT_EQ(meta->row_count, 4);
  std::vector<DataType> key_types = {DataType::String(false), DataType::Int(false)};
  EXPECT_EQ(meta->min_key,
            EncodeSerializedBinaryRow(std::vector<Datum>{Datum("a"), Datum(int64_t{2})}, key_types).value());
  EXPECT_EQ(meta->max_key,
            EncodeSerializedBinaryRow(std::vector<Datum>{Datum(long_key), Datum(int64_t{0})}, key_types).value());
  // Key statistics: truncate(128) on the key columns.
  std::vector<DataType> nullable_keys = {DataType::String(), DataType::Int()};
  std::string key_max(127, 'k');
  key_max += 'l';
  EXPECT_EQ(meta->key_stats.min_values,
            EncodeSerializedBinaryRow(std::vector<Datum>{Datum("a"), Datum(int64_t{-1})}, nullable_keys).value());
  EXPECT_EQ(meta->key_stats.max_values,
            EncodeSerializedBinaryRow(std::vector<Datum>{Datum(key_max), Datum(int64_t{9})}, nullable_keys).value());
  EXPECT_EQ(meta->key_stats.null_counts, (std::vector<std::optional<int64_t>>{0, 0}));
  // Value statistics: truncate(16) over every record, retractions included.
  std::vector<DataType> value_types;
  for (const auto& f : schema.fields) value_types.push_back(f.type.WithNullable(true));
  EXPECT_EQ(meta->value_stats.min_values,
            EncodeSerializedBinaryRow(std::vector<Datum>{Datum("p1"), Datum("a"), Datum(int64_t{-1}), Datum("And sorry"),
                                                         Datum(int64_t{-5}), Datum(DecimalValue{-250})},
                                      value_types)
                .value());
  EXPECT_EQ(meta->value_stats.max_values,
            EncodeSerializedBinaryRow(std::vector<Datum>{Datum("p1"), Datum(std::string(15, 'k') + "l"),
                                                         Datum(int64_t{9}), Datum("Two roads diverh"), Datum(int64_t{3}),
                                                         Datum(DecimalValue{100})},
                                      value_types)
                .value());
  EXPECT_EQ(meta->value_stats.null_counts, (std::vector<std::optional<int64_t>>{0, 0, 0, 1, 1, 1}));
  EXPECT_FALSE(meta->value_stats_cols.has_value());
  EXPECT_EQ(meta->min_sequence_number, 4);
  EXPECT_EQ(meta->max_sequence_number, 9);
  EXPECT_EQ(meta->delete_row_count, 2);
  EXPECT_EQ(meta->schema_id, 0);
  EXPECT_EQ(meta->level, 0);
  EXPECT_TRUE(meta->extra_files.empty());
  EXPECT_EQ(meta->creation_time_ms, kClock);
  EXPECT_EQ(meta->file_source, 0);
  EXPECT_FALSE(meta->embedded_file_index.has_value());
  EXPECT_FALSE(meta->external_path.has_value());

  // The file holds the records in order, with their sequence numbers and kinds.
  std::vector<ParquetColumnSpec> columns = ctx->layout.columns;
  auto reader = OpenDataFile(path, columns, "db.t");
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  std::vector<Row> rows;
  std::vector<int64_t> positions;
  while ((*reader)->NextBatch(100, &rows, &positions).value()) {
  }
  ASSERT_EQ(rows.size(), records.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& [row, seq, kind] = records[i];
    Row expected{row[1], row[2], Datum(seq), Datum(static_cast<int64_t>(kind))};
    expected.insert(expected.end(), row.begin(), row.end());
    EXPECT_EQ(rows[i], expected) << "record " << i;
  }
}

TEST(KeyValueFileWriterTest, NestedColumnsAndStatsModes) {
  testing::TempDir dir;
  TableSchema schema =
      WriterTestSchema({Field(0, "id", DataType::BigInt(false)), Field(1, "tags", DataType::Array(DataType::String())),
                        Field(2, "blob", DataType::Bytes()), Field(3, "n", DataType::Int())},
                       {"id"}, {}, {{"fields.n.stats-mode", "none"}});
  auto ctx = Context(schema);
  std::string path = dir.path() + "/bucket-0/data-n-0.parquet";
  auto writer = KeyValueFileWriter::Create(ctx.get(), path).value();
  Row row{Datum(int64_t{1}), Datum::Nested({Datum("x"), Datum()}), Datum(std::string("\x00\x01", 2)), Datum(int64_t{4})};
  ASSERT_TRUE(writer->Write(row, 0, ValueKind::kInsert).ok());
  auto meta = writer->Finish().value();
  // n has mode none: dense store drops it and names the rest.
  ASSERT_TRUE(meta.value_stats_cols.has_value());
  EXPECT_EQ(*meta.value_stats_cols, (std::vector<std::string>{"id", "tags", "blob"}));
  EXPECT_EQ(meta.value_stats.null_counts, (std::vector<std::optional<int64_t>>{0, std::nullopt, 0}));
  auto info = ReadParquetFileInfo(path).value();
  ASSERT_EQ(info.columns.size(), 7u);
  EXPECT_EQ(info.columns[4].name, "tags");
  EXPECT_EQ(info.columns[4].field_id, 1);
}

TEST(KeyValueFileWriterTest, RollsAtTargetSize) {
  testing::TempDir dir;
  TableSchema schema = WriterTestSchema({Field(0, "id", DataType::BigInt(false)), Field(1, "v", DataType::String())},
                                        {"id"}, {}, {});
  auto ctx = Context(schema);
  DataFilePathFactory paths(dir.path() + "/bucket-0", CoreOptions::Create(schema, "t").value(), "uuid-1");
  RollingDataFileWriter rolling(
      [&]() -> Result<std::unique_ptr<DataFileWriter>> {
        TIDE_ASSIGN_OR_RETURN(auto w, KeyValueFileWriter::Create(ctx.get(), JoinPath(paths.bucket_dir(),
                                                                                     paths.NewDataFileName())));
        return std::unique_ptr<DataFileWriter>(std::move(w));
      },
      /*target_file_size=*/20000, FileSystem::Local());
  for (int64_t i = 0; i < 5500; ++i) {
    Row row{Datum(i), Datum("value-" + std::to_string(i))};
    ASSERT_TRUE(rolling.Write(row, i, ValueKind::kInsert).ok());
  }
  auto files = rolling.Finish();
  ASSERT_TRUE(files.ok()) << files.status().ToString();
  ASSERT_GT(files->size(), 1u);
  int64_t total = 0, next_seq = 0;
  for (size_t i = 0; i < files->size(); ++i) {
    const DataFileMeta& f = (*files)[i];
    EXPECT_EQ(f.file_name, "data-uuid-1-" + std::to_string(i) + ".parquet");
    EXPECT_EQ(f.min_sequence_number, next_seq);
    if (i + 1 < files->size()) {
      EXPECT_EQ(f.row_count % 1000, 0) << "rolls only at a 1000-record check";
    }
    next_seq = f.max_sequence_number + 1;
    total += f.row_count;
  }
  EXPECT_EQ(total, 5500);
  EXPECT_EQ(next_seq, 5500);
}

TEST(KeyValueFileWriterTest, FileNamesFollowJava) {
  TableSchema schema = WriterTestSchema({Field(0, "id", DataType::BigInt(false))}, {"id"}, {}, {});
  auto options = CoreOptions::Create(schema, "t");
  ASSERT_TRUE(options.ok()) << options.status().ToString();
  DataFilePathFactory paths("/t/bucket-0", *options);
  std::regex uuid("data-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}-0\\.parquet");
  EXPECT_TRUE(std::regex_match(paths.NewDataFileName(), uuid));
  EXPECT_EQ(paths.NewChangelogFileName(), "changelog-" + paths.uuid() + "-1.parquet");
  EXPECT_EQ(paths.NewDataFileName(), "data-" + paths.uuid() + "-2.parquet");
  schema.SetOption("file.suffix.include.compression", "true");
  auto with_suffix = CoreOptions::Create(schema, "t");
  ASSERT_TRUE(with_suffix.ok()) << with_suffix.status().ToString();
  DataFilePathFactory with_codec("/t/bucket-0", *with_suffix, "u");
  EXPECT_EQ(with_codec.NewDataFileName(), "data-u-0.zstd.parquet");
}

}  // namespace
}  // namespace tide

namespace tide {
namespace {

// WriteColumns makes the file and the DataFileMeta that Write makes of the same records: random rows
// of the field report's `orders` shape (with NULLs, retractions, repeated sequence numbers out of
// order), sorted by key, written in one or several calls.
TEST(KeyValueFileWriterColumnsTest, ColumnWritesMakeTheFileAndMetaOfRowWrites) {
  TableSchema schema = testing::WriterTestSchema(
      {testing::Field(0, "order_id", DataType::BigInt(false)), testing::Field(1, "user_id", DataType::Int()),
       testing::Field(2, "status", DataType::String()), testing::Field(3, "amount", DataType::Decimal(12, 2)),
       testing::Field(4, "update_time", DataType::Timestamp(6)), testing::Field(5, "dt", DataType::String(false)),
       testing::Field(6, "score", DataType::Double()), testing::Field(7, "flag", DataType::Boolean())},
      {"order_id"}, {}, {{"bucket", "1"}, {"fields.status.stats-mode", "truncate(4)"}});
  std::mt19937_64 rng(31);
  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE(round);
    const size_t n = round == 0 ? 1 : 2000 + static_cast<size_t>(rng() % 5000);
    std::vector<ColumnVector> columns;
    for (const DataField& f : schema.fields) columns.emplace_back(f.type);
    ColumnVector sequences(DataType::BigInt(false)), kinds(DataType::TinyInt(false));
    std::vector<Row> rows;
    std::vector<int64_t> sequence_of;
    std::vector<ValueKind> kind_of;
    for (size_t i = 0; i < n; ++i) {
      const int64_t r = static_cast<int64_t>(rng() >> 1);
      auto maybe = [&](Datum d) { return r % 11 == 3 ? Datum() : d; };
      Row row{Datum(static_cast<int64_t>(i) * 7919 % 1000003 - 500000),
              maybe(Datum(r % 100000)),
              maybe(Datum(std::string(r % 3 == 0 ? "paid" : "shipped-with-a-longer-status-" + std::to_string(r % 17)))),
              maybe(Datum(DecimalValue{r % 100000000})),
              maybe(Datum(TimestampValue::FromMicros(r % (int64_t{60} * 365 * 86400 * 1000000)))),
              Datum("2026-12-0" + std::to_string(r % 9)),
              maybe(Datum(r % 13 == 0 ? std::numeric_limits<double>::quiet_NaN() : static_cast<double>(r % 1000) / 8)),
              maybe(Datum((r & 4) != 0))};
      for (size_t c = 0; c < row.size(); ++c) ASSERT_TRUE(columns[c].AppendDatum(row[c], schema.fields[c].name).ok());
      const int64_t sequence = static_cast<int64_t>(rng() % 100000);
      const ValueKind kind = static_cast<ValueKind>(rng() % 4);
      sequences.AppendInt64(sequence);
      kinds.AppendInt64(static_cast<int64_t>(kind));
      rows.push_back(std::move(row));
      sequence_of.push_back(sequence);
      kind_of.push_back(kind);
    }
    std::vector<uint32_t> order(n);
    for (size_t i = 0; i < n; ++i) order[i] = static_cast<uint32_t>(i);
    std::sort(order.begin(), order.end(),
              [&](uint32_t a, uint32_t b) { return columns[0].Int64(a) < columns[0].Int64(b); });

    testing::TempDir dir;
    auto ctx = Context(schema);
    auto by_rows = KeyValueFileWriter::Create(ctx.get(), dir.path() + "/rows.parquet").value();
    auto by_columns = KeyValueFileWriter::Create(ctx.get(), dir.path() + "/columns.parquet").value();
    ASSERT_TRUE(by_columns->CanWriteColumns());
    for (uint32_t i : order) {
      Row copy = rows[i];
      ASSERT_TRUE(by_rows->Write(copy, sequence_of[i], kind_of[i]).ok());
    }
    std::vector<const ColumnVector*> pointers;
    for (const ColumnVector& c : columns) pointers.push_back(&c);
    const size_t first = n / 2;
    ASSERT_TRUE(by_columns->WriteColumns(pointers, sequences, kinds, order.data(), first).ok());
    ASSERT_TRUE(by_columns->WriteColumns(pointers, sequences, kinds, order.data() + first, n - first).ok());
    EXPECT_EQ(by_rows->row_count(), by_columns->row_count());
    EXPECT_EQ(by_rows->EstimatedFileSize(), by_columns->EstimatedFileSize());
    auto a = by_rows->Finish();
    auto b = by_columns->Finish();
    ASSERT_TRUE(a.ok() && b.ok());
    b->file_name = a->file_name;
    EXPECT_TRUE(*a == *b) << "DataFileMeta differs: min/max key " << (a->min_key == b->min_key) << "/"
                          << (a->max_key == b->max_key) << ", key stats " << (a->key_stats == b->key_stats)
                          << ", value stats " << (a->value_stats == b->value_stats) << ", sequences "
                          << a->min_sequence_number << ".." << a->max_sequence_number << " vs "
                          << b->min_sequence_number << ".." << b->max_sequence_number << ", deletes "
                          << a->delete_row_count.value_or(-1) << " vs " << b->delete_row_count.value_or(-1);
    auto bytes_a = FileSystem::Local()->ReadFile(dir.path() + "/rows.parquet");
    auto bytes_b = FileSystem::Local()->ReadFile(dir.path() + "/columns.parquet");
    ASSERT_TRUE(bytes_a.ok() && bytes_b.ok());
    EXPECT_TRUE(*bytes_a == *bytes_b) << "the files differ";
  }
}

}  // namespace
}  // namespace tide

namespace tide {
namespace {

// A rolling writer fed columns rolls at the records where one fed rows rolls: the same files.
TEST(KeyValueFileWriterColumnsTest, RollingColumnWritesRollWhereRowWritesRoll) {
  TableSchema schema = testing::WriterTestSchema(
      {testing::Field(0, "id", DataType::BigInt(false)), testing::Field(1, "note", DataType::String())}, {"id"}, {},
      {{"bucket", "1"}});
  std::vector<ColumnVector> columns = {ColumnVector(DataType::BigInt(false)), ColumnVector(DataType::String())};
  ColumnVector sequences(DataType::BigInt(false)), kinds(DataType::TinyInt(false));
  std::vector<Row> rows;
  const size_t n = 5500;
  for (size_t i = 0; i < n; ++i) {
    Row row{Datum(static_cast<int64_t>(i)), Datum(std::string(20 + i % 50, static_cast<char>('a' + i % 26)))};
    for (size_t c = 0; c < 2; ++c) ASSERT_TRUE(columns[c].AppendDatum(row[c], "c").ok());
    sequences.AppendInt64(static_cast<int64_t>(i));
    kinds.AppendInt64(0);
    rows.push_back(std::move(row));
  }
  std::vector<uint32_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = static_cast<uint32_t>(i);
  testing::TempDir dir;
  auto written = [&](bool by_columns) {
    auto ctx = Context(schema);
    int files = 0;
    const std::string folder = dir.path() + (by_columns ? "/columns" : "/rows");
    EXPECT_TRUE(FileSystem::Local()->MakeDirs(folder).ok());
    RollingDataFileWriter rolling(
        [&]() -> Result<std::unique_ptr<DataFileWriter>> {
          TIDE_ASSIGN_OR_RETURN(auto w, KeyValueFileWriter::Create(ctx.get(), folder + "/f-" + std::to_string(files++)));
          return std::unique_ptr<DataFileWriter>(std::move(w));
        },
        /*target_file_size=*/20000, FileSystem::Local());
    if (by_columns) {
      std::vector<const ColumnVector*> pointers = {&columns[0], &columns[1]};
      EXPECT_TRUE(rolling.WriteColumns(pointers, sequences, kinds, order.data(), 1234).ok());
      EXPECT_TRUE(rolling.WriteColumns(pointers, sequences, kinds, order.data() + 1234, n - 1234).ok());
    } else {
      for (size_t i = 0; i < n; ++i) {
        Row copy = rows[i];
        EXPECT_TRUE(rolling.Write(copy, static_cast<int64_t>(i), ValueKind::kInsert).ok());
      }
    }
    auto metas = rolling.Finish();
    EXPECT_TRUE(metas.ok());
    std::vector<std::pair<int64_t, std::string>> out;
    for (const DataFileMeta& m : *metas) out.emplace_back(m.row_count, m.min_key + "|" + m.max_key);
    return out;
  };
  auto a = written(false);
  auto b = written(true);
  EXPECT_GT(a.size(), 2u);
  EXPECT_EQ(a, b);
}

}  // namespace
}  // namespace tide
