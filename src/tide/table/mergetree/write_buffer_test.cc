#include "tide/table/mergetree/write_buffer.h"

#include <gtest/gtest.h>

#include <random>

#include "tide/table/table_test_util.h"

namespace tide {
namespace {

using testing::Field;
using testing::WriterTestSchema;

struct Drained {
  std::vector<KeyValue> merged;
  std::vector<KeyValue> raw;
};

Drained DrainAll(WriteBuffer* buffer, bool with_raw) {
  Drained out;
  WriteBuffer::Consumer merged = [&](KeyValue& kv) {
    out.merged.push_back(kv);
    return Status::OK();
  };
  WriteBuffer::Consumer raw = [&](KeyValue& kv) {
    out.raw.push_back(kv);
    return Status::OK();
  };
  Status st = buffer->Drain(merged, with_raw ? &raw : nullptr);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return out;
}

// The order the buffer must produce: keys, then sequence fields, then sequence number.
bool ReferenceLess(const WriteBufferSpec& spec, const KeyValue& a, const KeyValue& b) {
  for (int i : spec.key_indices) {
    int c = CompareDatum(a.row[static_cast<size_t>(i)], b.row[static_cast<size_t>(i)]);
    if (c != 0) return c < 0;
  }
  for (int i : spec.sequence_field_indices) {
    int c = CompareDatum(a.row[static_cast<size_t>(i)], b.row[static_cast<size_t>(i)]);
    if (c != 0) return spec.sequence_descending ? c > 0 : c < 0;
  }
  return a.sequence < b.sequence;
}

TEST(WriteBufferTest, SortsLikeTheFullComparisonForEveryKeyType) {
  // Key values chosen to straddle the 64-bit sort prefix: negative numbers, strings sharing their first
  // 8 bytes, high bytes, wide decimals, timestamps differing in nanos only.
  std::vector<std::vector<Datum>> domains = {
      {Datum(int64_t{-5}), Datum(int64_t{0}), Datum(int64_t{3}), Datum(INT64_MIN), Datum(INT64_MAX)},
      {Datum("abcdefgh"), Datum("abcdefghA"), Datum("abcdefgh\xff"), Datum(""), Datum("\xff"), Datum("abc")},
      {Datum(DecimalValue{-(static_cast<int128_t>(1) << 100)}), Datum(DecimalValue{-1}), Datum(DecimalValue{0}),
       Datum(DecimalValue{static_cast<int128_t>(1) << 70}), Datum(DecimalValue{(static_cast<int128_t>(1) << 70) + 1})},
      {Datum(TimestampValue{-1, 5}), Datum(TimestampValue{-1, 0}), Datum(TimestampValue{7, 999999}),
       Datum(TimestampValue{7, 1})},
      {Datum(true), Datum(false)},
      {Datum(-0.5), Datum(2.0), Datum(0.0)},
  };
  std::mt19937_64 rng(3);
  for (size_t d = 0; d < domains.size(); ++d) {
    SCOPED_TRACE("domain " + std::to_string(d));
    WriteBufferSpec spec;
    spec.primary_key = true;
    spec.key_indices = {0, 1};
    spec.sequence_field_indices = {2};
    spec.sequence_descending = d % 2 == 1;
    auto merge = WriteMergeFunction::Create(
        WriterTestSchema({Field(0, "a", DataType::Int(false)), Field(1, "b", DataType::Int(false)),
                          Field(2, "s", DataType::Int())},
                         {"a", "b"}, {}, {}),
        "t");
    WriteBufferMemory memory(1 << 30);
    WriteBuffer buffer(&spec, &memory);
    std::vector<KeyValue> input;
    for (int64_t seq = 0; seq < 400; ++seq) {
      const auto& dom = domains[d];
      Row row{dom[rng() % dom.size()], dom[rng() % dom.size()], Datum(static_cast<int64_t>(rng() % 3))};
      input.push_back(KeyValue{row, seq, ValueKind::kInsert});
      buffer.Put(row, seq, ValueKind::kInsert);
    }
    EXPECT_GT(memory.used(), 0);
    // Raw records come out in the reference order, every one of them.
    spec.merge = merge->get();
    Drained out = DrainAll(&buffer, true);
    EXPECT_EQ(memory.used(), 0);
    EXPECT_TRUE(buffer.empty());
    std::stable_sort(input.begin(), input.end(), [&](const KeyValue& a, const KeyValue& b) {
      return ReferenceLess(spec, a, b);
    });
    ASSERT_EQ(out.raw.size(), input.size());
    for (size_t i = 0; i < input.size(); ++i) {
      EXPECT_EQ(out.raw[i].sequence, input[i].sequence) << "position " << i;
    }
    // Merged: one record per key, the last of its key in that order (deduplicate).
    std::vector<KeyValue> expected;
    for (size_t i = 0; i < input.size(); ++i) {
      bool last = i + 1 == input.size() || CompareDatum(input[i].row[0], input[i + 1].row[0]) != 0 ||
                  CompareDatum(input[i].row[1], input[i + 1].row[1]) != 0;
      if (last) expected.push_back(input[i]);
    }
    ASSERT_EQ(out.merged.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(out.merged[i].sequence, expected[i].sequence);
  }
}

TEST(WriteBufferTest, AppendBufferKeepsInsertionOrder) {
  WriteBufferSpec spec;  // append
  WriteBufferMemory memory(1 << 20);
  WriteBuffer buffer(&spec, &memory);
  for (int64_t i = 0; i < 10; ++i) buffer.Put(Row{Datum(10 - i)}, i, ValueKind::kInsert);
  EXPECT_EQ(buffer.size(), 10u);
  Drained out = DrainAll(&buffer, false);
  ASSERT_EQ(out.merged.size(), 10u);
  for (int64_t i = 0; i < 10; ++i) EXPECT_EQ(out.merged[static_cast<size_t>(i)].sequence, i);
  EXPECT_EQ(memory.used(), 0);
}

// A caller that can reuse the merged output for the raw one (changelog-producer=input during a copy)
// is told when nothing merged: then `raw` would get the very records `merged` got.
TEST(WriteBufferTest, SaysWhenRawRecordsAreTheMergedOnes) {
  WriteBufferSpec spec;
  spec.primary_key = true;
  spec.key_indices = {0};
  auto merge = WriteMergeFunction::Create(
      WriterTestSchema({Field(0, "k", DataType::BigInt(false)), Field(1, "v", DataType::String())}, {"k"}, {}, {}), "t");
  spec.merge = merge->get();
  WriteBufferMemory memory(1 << 20);
  for (bool repeat_a_key : {false, true}) {
    WriteBuffer buffer(&spec, &memory);
    for (int64_t k : {5, 1, 3}) buffer.Put(Row{Datum(k), Datum("v")}, k, ValueKind::kInsert);
    if (repeat_a_key) buffer.Put(Row{Datum(int64_t{3}), Datum("w")}, 9, ValueKind::kUpdateAfter);
    std::vector<int64_t> merged, raw;
    WriteBuffer::Consumer to_merged = [&](KeyValue& kv) {
      merged.push_back(kv.sequence);
      return Status::OK();
    };
    WriteBuffer::Consumer to_raw = [&](KeyValue& kv) {
      raw.push_back(kv.sequence);
      return Status::OK();
    };
    bool raw_is_merged = !repeat_a_key;  // the opposite of what it must become
    ASSERT_TRUE(buffer.Drain(to_merged, &to_raw, &raw_is_merged).ok());
    if (repeat_a_key) {
      EXPECT_FALSE(raw_is_merged);
      EXPECT_EQ(merged, (std::vector<int64_t>{1, 9, 5}));
      EXPECT_EQ(raw, (std::vector<int64_t>{1, 3, 9, 5}));
    } else {
      EXPECT_TRUE(raw_is_merged);
      EXPECT_EQ(merged, (std::vector<int64_t>{1, 3, 5}));
      EXPECT_TRUE(raw.empty()) << "raw is not called when it would repeat merged";
    }
  }
}

TEST(WriteBufferTest, MemoryIsChargedAndReleasedAlsoOnError) {
  WriteBufferSpec spec;
  spec.primary_key = true;
  spec.key_indices = {0};
  auto merge = WriteMergeFunction::Create(
      WriterTestSchema({Field(0, "k", DataType::BigInt(false)), Field(1, "v", DataType::String())}, {"k"}, {}, {}), "t");
  spec.merge = merge->get();
  WriteBufferMemory memory(1000);
  WriteBuffer a(&spec, &memory), b(&spec, &memory);
  a.Put(Row{Datum(int64_t{1}), Datum(std::string(100, 'x'))}, 0, ValueKind::kInsert);
  int64_t one = memory.used();
  EXPECT_GT(one, 100 + 2 * static_cast<int64_t>(sizeof(Datum)));
  b.Put(Row{Datum(int64_t{2}), Datum("y")}, 0, ValueKind::kInsert);
  EXPECT_EQ(memory.used(), a.memory_bytes() + b.memory_bytes());
  for (int i = 0; i < 10; ++i) a.Put(Row{Datum(int64_t{i}), Datum(std::string(100, 'x'))}, i + 1, ValueKind::kInsert);
  EXPECT_TRUE(memory.OverBudget());
  Status st = a.Drain([](KeyValue&) { return Status::IOError("disk full"); });
  EXPECT_TRUE(st.IsIOError());
  EXPECT_TRUE(a.empty());
  EXPECT_EQ(memory.used(), b.memory_bytes());
}

KeyValue KV(Row row, int64_t seq, ValueKind kind) { return KeyValue{std::move(row), seq, kind}; }

std::optional<KeyValue> Merge(const TableSchema& schema, std::vector<KeyValue> records) {
  auto merge = WriteMergeFunction::Create(schema, "t");
  EXPECT_TRUE(merge.ok()) << merge.status().ToString();
  auto result = (*merge)->Merge(records);
  EXPECT_TRUE(result.ok()) << result.status().ToString();
  return result.ok() ? *result : std::nullopt;
}

TEST(WriteMergeFunctionTest, FoldsAsJavaMergeFunctions) {
  std::vector<DataField> fields = {Field(0, "k", DataType::BigInt(false)), Field(1, "a", DataType::String()),
                                   Field(2, "n", DataType::Int(false)), Field(3, "b", DataType::BigInt())};
  Datum k = Datum(int64_t{7});
  // deduplicate: the newest record, retraction kept.
  TableSchema dedup = WriterTestSchema(fields, {"k"}, {}, {});
  auto r = Merge(dedup, {KV({k, Datum("x"), Datum(int64_t{1}), Datum()}, 1, ValueKind::kInsert),
                         KV({k, Datum(), Datum(int64_t{2}), Datum()}, 2, ValueKind::kDelete)});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->kind, ValueKind::kDelete);
  EXPECT_EQ(r->sequence, 2);
  // ...and with ignore-delete the newest non-retraction.
  TableSchema dedup_ignore = WriterTestSchema(fields, {"k"}, {}, {{"ignore-delete", "true"}});
  r = Merge(dedup_ignore, {KV({k, Datum("x"), Datum(int64_t{1}), Datum()}, 1, ValueKind::kInsert),
                           KV({k, Datum(), Datum(int64_t{2}), Datum()}, 2, ValueKind::kDelete)});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->sequence, 1);
  EXPECT_FALSE(Merge(dedup_ignore, {KV({k, Datum(), Datum(int64_t{2}), Datum()}, 1, ValueKind::kDelete),
                                    KV({k, Datum(), Datum(int64_t{2}), Datum()}, 2, ValueKind::kUpdateBefore)}));

  // partial-update: non-null fields overwrite; sequence of the newest; +I.
  TableSchema partial = WriterTestSchema(fields, {"k"}, {}, {{"merge-engine", "partial-update"}});
  r = Merge(partial, {KV({k, Datum("x"), Datum(int64_t{1}), Datum()}, 3, ValueKind::kInsert),
                      KV({k, Datum(), Datum(int64_t{2}), Datum(int64_t{9})}, 5, ValueKind::kUpdateAfter)});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->kind, ValueKind::kInsert);
  EXPECT_EQ(r->sequence, 5);
  EXPECT_EQ(r->row, (Row{k, Datum("x"), Datum(int64_t{2}), Datum(int64_t{9})}));
  // With remove-record-on-delete, a final DELETE gives a -D holding only the NOT NULL columns.
  TableSchema partial_remove = WriterTestSchema(
      fields, {"k"}, {}, {{"merge-engine", "partial-update"}, {"partial-update.remove-record-on-delete", "true"}});
  r = Merge(partial_remove, {KV({k, Datum("x"), Datum(int64_t{1}), Datum(int64_t{4})}, 3, ValueKind::kInsert),
                             KV({k, Datum("old"), Datum(int64_t{6}), Datum(int64_t{5})}, 4, ValueKind::kDelete)});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->kind, ValueKind::kDelete);
  EXPECT_EQ(r->sequence, 4);
  EXPECT_EQ(r->row, (Row{k, Datum(), Datum(int64_t{6}), Datum()}));
  // An insert after the delete starts the row again (from the delete's NOT NULL columns).
  r = Merge(partial_remove, {KV({k, Datum("x"), Datum(int64_t{1}), Datum(int64_t{4})}, 3, ValueKind::kInsert),
                             KV({k, Datum("old"), Datum(int64_t{6}), Datum(int64_t{5})}, 4, ValueKind::kDelete),
                             KV({k, Datum(), Datum(int64_t{8}), Datum()}, 6, ValueKind::kInsert)});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->kind, ValueKind::kInsert);
  EXPECT_EQ(r->row, (Row{k, Datum(), Datum(int64_t{8}), Datum()}));
  // -U is ignored with remove-record-on-delete (Java returns before refusing it).
  r = Merge(partial_remove, {KV({k, Datum("x"), Datum(int64_t{1}), Datum()}, 3, ValueKind::kInsert),
                             KV({k, Datum("x"), Datum(int64_t{1}), Datum()}, 4, ValueKind::kUpdateBefore)});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->kind, ValueKind::kInsert);
  EXPECT_EQ(r->sequence, 4);
  // Without options, retractions are refused.
  auto refuse = WriteMergeFunction::Create(partial, "t").value();
  std::vector<KeyValue> with_delete = {KV({k, Datum("x"), Datum(int64_t{1}), Datum()}, 3, ValueKind::kInsert),
                                       KV({k, Datum(), Datum(int64_t{1}), Datum()}, 4, ValueKind::kDelete)};
  EXPECT_TRUE(refuse->Merge(with_delete).status().IsInvalidArgument());

  // aggregation: sum with retraction, max; sequence of the newest; +I.
  TableSchema agg = WriterTestSchema(fields, {"k"}, {},
                                     {{"merge-engine", "aggregation"}, {"fields.n.aggregate-function", "sum"},
                                      {"fields.b.aggregate-function", "max"}, {"fields.a.aggregate-function", "listagg"}});
  r = Merge(agg, {KV({k, Datum("x"), Datum(int64_t{5}), Datum(int64_t{3})}, 1, ValueKind::kInsert),
                  KV({k, Datum("y"), Datum(int64_t{7}), Datum(int64_t{2})}, 2, ValueKind::kInsert)});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->kind, ValueKind::kInsert);
  EXPECT_EQ(r->sequence, 2);
  EXPECT_EQ(r->row, (Row{k, Datum("x,y"), Datum(int64_t{12}), Datum(int64_t{3})}));
  TableSchema agg_remove = WriterTestSchema(fields, {"k"}, {},
                                            {{"merge-engine", "aggregation"}, {"fields.n.aggregate-function", "sum"},
                                             {"aggregation.remove-record-on-delete", "true"}});
  r = Merge(agg_remove, {KV({k, Datum("x"), Datum(int64_t{5}), Datum(int64_t{3})}, 1, ValueKind::kInsert),
                         KV({k, Datum("y"), Datum(int64_t{7}), Datum(int64_t{2})}, 2, ValueKind::kDelete)});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->kind, ValueKind::kDelete);
  EXPECT_EQ(r->row, (Row{k, Datum(), Datum(int64_t{7}), Datum()}));
}

}  // namespace
}  // namespace tide
