#include "tide/table/mergetree/merge_function.h"

#include <gtest/gtest.h>

namespace tide {
namespace {

TableSchema MakeSchema(std::initializer_list<std::pair<const char*, const char*>> options) {
  TableSchema s;
  s.fields = {DataField{0, "k", DataType::Int(false), std::nullopt, std::nullopt},
              DataField{1, "a", DataType::BigInt(), std::nullopt, std::nullopt},
              DataField{2, "b", DataType::String(), std::nullopt, std::nullopt}};
  s.primary_keys = {"k"};
  for (const auto& [k, v] : options) s.SetOption(k, v);
  return s;
}

KeyValue KV(int64_t seq, ValueKind kind, Datum a, Datum b) {
  return KeyValue{Row{Datum(int64_t{1}), std::move(a), std::move(b)}, seq, kind};
}

Result<std::optional<Row>> Fold(const TableSchema& schema, const std::vector<KeyValue>& kvs) {
  TIDE_ASSIGN_OR_RETURN(CoreOptions options, CoreOptions::Create(schema, "db.t"));
  TIDE_ASSIGN_OR_RETURN(auto fn, CreateMergeFunction(options, schema.fields, schema.primary_keys, "db.t"));
  fn->Reset();
  for (const auto& kv : kvs) TIDE_RETURN_IF_ERROR(fn->Add(kv));
  return fn->GetResult();
}

TEST(MergeFunctionTest, DeduplicateKeepsLatestAndDeletes) {
  auto s = MakeSchema({});
  auto r = Fold(s, {KV(1, ValueKind::kInsert, int64_t{1}, "x"), KV(2, ValueKind::kUpdateAfter, int64_t{2}, Datum())});
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->has_value());
  EXPECT_EQ((**r)[1], Datum(int64_t{2}));
  EXPECT_TRUE((**r)[2].is_null());
  auto d = Fold(s, {KV(1, ValueKind::kInsert, int64_t{1}, "x"), KV(2, ValueKind::kDelete, int64_t{1}, "x")});
  ASSERT_TRUE(d.ok());
  EXPECT_FALSE(d->has_value());
  auto ignored = Fold(MakeSchema({{"ignore-delete", "true"}}),
                      {KV(1, ValueKind::kInsert, int64_t{1}, "x"), KV(2, ValueKind::kDelete, int64_t{1}, "x")});
  ASSERT_TRUE(ignored->has_value());
}

TEST(MergeFunctionTest, PartialUpdateOverwritesNonNullFields) {
  auto s = MakeSchema({{"merge-engine", "partial-update"}});
  auto r = Fold(s, {KV(1, ValueKind::kInsert, int64_t{1}, Datum()), KV(2, ValueKind::kInsert, Datum(), "b")});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((**r)[1], Datum(int64_t{1}));
  EXPECT_EQ((**r)[2], Datum("b"));
  auto refused = Fold(s, {KV(1, ValueKind::kInsert, int64_t{1}, Datum()), KV(2, ValueKind::kDelete, Datum(), Datum())});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("ignore-delete"), std::string::npos);
  auto removed = Fold(MakeSchema({{"merge-engine", "partial-update"}, {"partial-update.remove-record-on-delete", "true"}}),
                      {KV(1, ValueKind::kInsert, int64_t{1}, Datum()), KV(2, ValueKind::kDelete, Datum(), Datum())});
  ASSERT_TRUE(removed.ok());
  EXPECT_FALSE(removed->has_value());
  auto only_deletes = Fold(MakeSchema({{"merge-engine", "partial-update"}, {"ignore-delete", "true"}}),
                           {KV(1, ValueKind::kDelete, int64_t{1}, Datum())});
  ASSERT_TRUE(only_deletes.ok());
  EXPECT_FALSE(only_deletes->has_value());
}

TEST(MergeFunctionTest, AggregationWithRetraction) {
  auto s = MakeSchema({{"merge-engine", "aggregation"}, {"fields.a.aggregate-function", "sum"},
                       {"fields.b.aggregate-function", "listagg"}});
  auto r = Fold(s, {KV(1, ValueKind::kInsert, int64_t{5}, "x"), KV(2, ValueKind::kInsert, int64_t{7}, "y"),
                    KV(3, ValueKind::kInsert, Datum(), Datum())});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((**r)[1], Datum(int64_t{12}));
  EXPECT_EQ((**r)[2], Datum("x,y"));
  auto retractable = MakeSchema({{"merge-engine", "aggregation"}, {"fields.a.aggregate-function", "sum"},
                                 {"fields.b.aggregate-function", "listagg"}, {"fields.b.ignore-retract", "true"}});
  auto retract = Fold(retractable, {KV(1, ValueKind::kInsert, int64_t{5}, "x"),
                                    KV(2, ValueKind::kUpdateBefore, int64_t{5}, "x")});
  ASSERT_TRUE(retract.ok()) << retract.status().ToString();
  EXPECT_EQ((**retract)[1], Datum(int64_t{0}));
  EXPECT_EQ((**retract)[2], Datum("x"));
  auto cannot = Fold(s, {KV(1, ValueKind::kInsert, int64_t{5}, "x"), KV(2, ValueKind::kUpdateBefore, int64_t{5}, "x")});
  ASSERT_FALSE(cannot.ok());
  EXPECT_NE(cannot.status().message().find("fields.b.ignore-retract"), std::string::npos);
  auto maxmin = MakeSchema({{"merge-engine", "aggregation"}, {"fields.a.aggregate-function", "max"},
                            {"fields.b.aggregate-function", "first_non_null_value"}});
  auto m = Fold(maxmin, {KV(1, ValueKind::kInsert, int64_t{5}, Datum()), KV(2, ValueKind::kInsert, int64_t{3}, "p"),
                         KV(3, ValueKind::kInsert, int64_t{9}, "q")});
  EXPECT_EQ((**m)[1], Datum(int64_t{9}));
  EXPECT_EQ((**m)[2], Datum("p"));
  auto unknown = MakeSchema({{"merge-engine", "aggregation"}, {"fields.a.aggregate-function", "median"}});
  EXPECT_TRUE(Fold(unknown, {}).status().IsNotSupported());
}

TEST(MergeFunctionTest, FirstRowKeepsOldest) {
  auto s = MakeSchema({{"merge-engine", "first-row"}});
  auto r = Fold(s, {KV(1, ValueKind::kInsert, int64_t{1}, "first"), KV(2, ValueKind::kInsert, int64_t{2}, "second")});
  EXPECT_EQ((**r)[2], Datum("first"));
  EXPECT_FALSE(Fold(s, {KV(1, ValueKind::kDelete, int64_t{1}, "x")}).ok());
  auto ignore = MakeSchema({{"merge-engine", "first-row"}, {"ignore-delete", "true"}});
  EXPECT_TRUE(Fold(ignore, {KV(1, ValueKind::kDelete, int64_t{1}, "x")}).ok());
}

}  // namespace
}  // namespace tide
