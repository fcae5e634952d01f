#include "tide/table/mergetree/columnar_write_buffer.h"

#include <gtest/gtest.h>

#include <limits>
#include <random>

#include "tide/table/table_test_util.h"

namespace tide {
namespace {

using testing::Field;
using testing::WriterTestSchema;

// Records as (row, sequence, kind), comparable with Datum equality.
struct Record {
  Row row;
  int64_t sequence;
  ValueKind kind;
  bool operator==(const Record&) const = default;
};

std::vector<Record> FromRows(const std::vector<KeyValue>& records) {
  std::vector<Record> out;
  for (const KeyValue& kv : records) out.push_back(Record{kv.row, kv.sequence, kv.kind});
  return out;
}

ColumnarWriteBuffer::Consumer Collect(std::vector<Record>* out) {
  return [out](const std::vector<const ColumnVector*>& columns, const ColumnVector& sequences,
               const ColumnVector& kinds, const uint32_t* rows, size_t n) {
    for (size_t i = 0; i < n; ++i) {
      Record r;
      for (const ColumnVector* c : columns) r.row.push_back(c->GetDatum(rows[i]));
      r.sequence = sequences.Int64(rows[i]);
      r.kind = static_cast<ValueKind>(kinds.Int64(rows[i]));
      out->push_back(std::move(r));
    }
    return Status::OK();
  };
}

// The columnar buffer drains what WriteBuffer drains, record for record: sorted by key then sequence
// number, one record per key by the deduplicate merge (with and without ignore-delete), and every
// record in order to the raw consumer; with distinct keys the raw records are reported as the merged
// ones instead. Keys: one BIGINT (the typed fast path), and (STRING, INT) with NaN-free doubles around.
TEST(ColumnarWriteBufferTest, DrainsWhatTheRowBufferDrains) {
  std::mt19937_64 rng(77);
  for (bool composite : {false, true}) {
    for (bool ignore_delete : {false, true}) {
      SCOPED_TRACE(std::to_string(composite) + " " + std::to_string(ignore_delete));
      std::vector<std::pair<std::string, std::string>> options = {{"bucket", "1"}};
      if (ignore_delete) options.emplace_back("ignore-delete", "true");
      TableSchema schema = composite
                               ? WriterTestSchema({Field(0, "s", DataType::String(false)), Field(1, "k", DataType::Int(false)),
                                                   Field(2, "v", DataType::Double()), Field(3, "t", DataType::Timestamp(6))},
                                                  {"s", "k"}, {}, options)
                               : WriterTestSchema({Field(0, "id", DataType::BigInt(false)), Field(1, "v", DataType::String()),
                                                   Field(2, "d", DataType::Decimal(10, 2)), Field(3, "f", DataType::Float())},
                                                  {"id"}, {}, options);
      auto merge = WriteMergeFunction::Create(schema, "db.t");
      ASSERT_TRUE(merge.ok()) << merge.status().ToString();
      WriteBufferSpec spec;
      spec.primary_key = true;
      spec.key_indices = composite ? std::vector<int>{0, 1} : std::vector<int>{0};
      spec.merge = merge->get();
      ASSERT_TRUE(ColumnarWriteBuffer::Supports(spec, schema.fields));
      WriteBufferMemory memory(int64_t{1} << 40);
      // Random keys; distinct keys; and keys already in order, repeated, with ascending sequence numbers
      // (a buffer drained without sorting).
      for (int mode : {0, 1, 2}) {
        const bool distinct = mode == 1, in_order = mode == 2;
        WriteBuffer rows(&spec, &memory);
        ColumnarWriteBuffer columns(&spec, schema.fields, ignore_delete, &memory);
        const int n = 3000;
        std::vector<int64_t> sequences(n);
        for (int i = 0; i < n; ++i) sequences[i] = i * 3;
        if (!in_order) std::shuffle(sequences.begin(), sequences.end(), rng);  // sequences out of insertion order
        for (int i = 0; i < n; ++i) {
          const int64_t key = distinct ? i : in_order ? i / 3 - 200 : static_cast<int64_t>(rng() % 400) - 200;
          Row row = composite ? Row{Datum("k" + std::to_string(key % 7)), Datum(key), Datum(static_cast<double>(rng() % 100) - 50),
                                    rng() % 5 == 0 ? Datum() : Datum(TimestampValue::FromMicros(static_cast<int64_t>(rng() % 1000000000)))}
                              : Row{Datum(key * 1000003), rng() % 5 == 0 ? Datum() : Datum("v" + std::to_string(rng() % 10)),
                                    Datum(DecimalValue{static_cast<int64_t>(rng() % 100000)}), Datum(static_cast<float>(rng() % 9) - 4.0f)};
          ValueKind kind = distinct ? ValueKind::kInsert : static_cast<ValueKind>(rng() % 4);
          if (ignore_delete && IsRetract(kind)) kind = ValueKind::kUpdateAfter;  // TableWrite drops them before
          if (ignore_delete && rng() % 3 == 0) kind = ValueKind::kDelete;         // ... unless a merge sees them
          rows.Put(row, sequences[i], kind);
          ASSERT_TRUE(columns.Put(row, sequences[i], kind).ok());
        }
        EXPECT_EQ(columns.size(), static_cast<size_t>(n));
        EXPECT_GT(columns.memory_bytes(), 0);
        EXPECT_LT(columns.memory_bytes(), rows.memory_bytes());  // the point of it

        std::vector<KeyValue> row_merged, row_raw;
        WriteBuffer::Consumer to_merged = [&](KeyValue& kv) {
          row_merged.push_back(kv);
          return Status::OK();
        };
        WriteBuffer::Consumer to_raw = [&](KeyValue& kv) {
          row_raw.push_back(kv);
          return Status::OK();
        };
        bool row_raw_is_merged = false, column_raw_is_merged = false;
        ASSERT_TRUE(rows.Drain(to_merged, &to_raw, &row_raw_is_merged).ok());
        std::vector<Record> merged, raw;
        ColumnarWriteBuffer::Consumer collect_merged = Collect(&merged), collect_raw = Collect(&raw);
        ASSERT_TRUE(columns.Drain(collect_merged, &collect_raw, &column_raw_is_merged).ok());
        EXPECT_EQ(row_raw_is_merged, distinct);
        EXPECT_EQ(column_raw_is_merged, row_raw_is_merged);
        EXPECT_EQ(merged.size(), row_merged.size());
        EXPECT_TRUE(merged == FromRows(row_merged));
        EXPECT_TRUE(raw == FromRows(row_raw));
        EXPECT_TRUE(columns.empty());
        EXPECT_EQ(columns.memory_bytes(), 0);
      }
      EXPECT_EQ(memory.used(), 0);
    }
  }
}

// A drained buffer gives its memory back, text columns' byte arenas too: the next record is charged
// for itself alone, not for the arena the last flush grew (which kept the writer over its budget).
TEST(ColumnarWriteBufferTest, DrainGivesBackTheMemoryOfTextColumns) {
  TableSchema schema = WriterTestSchema({Field(0, "id", DataType::BigInt(false)), Field(1, "note", DataType::String())},
                                        {"id"}, {}, {{"bucket", "1"}});
  auto merge = WriteMergeFunction::Create(schema, "db.t");
  ASSERT_TRUE(merge.ok()) << merge.status().ToString();
  WriteBufferSpec spec;
  spec.primary_key = true;
  spec.key_indices = {0};
  spec.merge = merge->get();
  WriteBufferMemory memory(int64_t{1} << 40);
  ColumnarWriteBuffer buffer(&spec, schema.fields, /*ignore_delete=*/false, &memory);
  const std::string note(200, 'x');
  for (int64_t i = 0; i < 10000; ++i) ASSERT_TRUE(buffer.Put(Row{Datum(i), Datum(note)}, i, ValueKind::kInsert).ok());
  EXPECT_GT(memory.used(), 2000000);
  std::vector<Record> drained;
  ASSERT_TRUE(buffer.Drain(Collect(&drained)).ok());
  EXPECT_EQ(drained.size(), 10000u);
  EXPECT_EQ(buffer.memory_bytes(), 0);
  EXPECT_EQ(memory.used(), 0);
  ASSERT_TRUE(buffer.Put(Row{Datum(int64_t{1}), Datum(note)}, 10000, ValueKind::kInsert).ok());
  EXPECT_LT(buffer.memory_bytes(), 4096);
  EXPECT_EQ(memory.used(), buffer.memory_bytes());
}

// A row whose value does not fit leaves the buffer as it was.
TEST(ColumnarWriteBufferTest, ARefusedRowAddsNothing) {
  TableSchema schema = WriterTestSchema({Field(0, "id", DataType::BigInt(false)), Field(1, "ts", DataType::Timestamp(3))},
                                        {"id"}, {}, {{"bucket", "1"}});
  auto merge = WriteMergeFunction::Create(schema, "db.t");
  ASSERT_TRUE(merge.ok());
  WriteBufferSpec spec;
  spec.primary_key = true;
  spec.key_indices = {0};
  spec.merge = merge->get();
  WriteBufferMemory memory(1 << 20);
  ColumnarWriteBuffer buffer(&spec, schema.fields, false, &memory);
  ASSERT_TRUE(buffer.Put(Row{Datum(int64_t{1}), Datum(TimestampValue{5, 0})}, 0, ValueKind::kInsert).ok());
  Status refused = buffer.Put(Row{Datum(int64_t{2}), Datum(TimestampValue{5, 7})}, 1, ValueKind::kInsert);
  EXPECT_TRUE(refused.IsInvalidArgument()) << refused.ToString();
  EXPECT_NE(refused.message().find("column ts"), std::string::npos) << refused.ToString();
  EXPECT_EQ(buffer.size(), 1u);
  std::vector<Record> merged;
  ASSERT_TRUE(buffer.Drain(Collect(&merged)).ok());
  ASSERT_EQ(merged.size(), 1u);
  EXPECT_EQ(merged[0].row, (Row{Datum(int64_t{1}), Datum(TimestampValue{5, 0})}));
  // Sequence fields and nested columns stay with the row buffer.
  WriteBufferSpec with_sequence_field = spec;
  with_sequence_field.sequence_field_indices = {1};
  EXPECT_FALSE(ColumnarWriteBuffer::Supports(with_sequence_field, schema.fields));
  EXPECT_FALSE(ColumnarWriteBuffer::Supports(
      spec, {Field(0, "id", DataType::BigInt(false)), Field(1, "tags", DataType::Array(DataType::String()))}));
}

}  // namespace
}  // namespace tide
