#include "tide/table/mergetree/write_merge_function.h"

#include <vector>

#include "tide/table/schema/core_options.h"

namespace tide {
namespace {

class DeduplicateWriteMerge final : public WriteMergeFunction {
 public:
  explicit DeduplicateWriteMerge(bool ignore_delete) : ignore_delete_(ignore_delete) {}
  Result<std::optional<KeyValue>> Merge(std::span<KeyValue> records) override {
    for (size_t i = records.size(); i-- > 0;) {
      if (ignore_delete_ && IsRetract(records[i].kind)) continue;
      return std::optional<KeyValue>(std::move(records[i]));
    }
    return std::optional<KeyValue>();
  }

 private:
  bool ignore_delete_;
};

class FirstRowWriteMerge final : public WriteMergeFunction {
 public:
  FirstRowWriteMerge(bool ignore_delete, std::string table) : ignore_delete_(ignore_delete), table_(std::move(table)) {}
  Result<std::optional<KeyValue>> Merge(std::span<KeyValue> records) override {
    std::optional<KeyValue> first;
    for (KeyValue& kv : records) {
      if (IsRetract(kv.kind)) {
        if (ignore_delete_) continue;
        return Status::InvalidArgument(
            "table {}: the first-row merge engine cannot accept DELETE/UPDATE_BEFORE rows; set 'ignore-delete' = "
            "'true' to ignore them",
            table_);
      }
      if (!first) first = std::move(kv);
    }
    return first;
  }

 private:
  bool ignore_delete_;
  std::string table_;
};

// Copies the NOT NULL columns of `from` into `row` (Java's initRow).
void FillNotNullColumns(const std::vector<bool>& not_null, const Row& from, Row* row) {
  for (size_t i = 0; i < not_null.size() && i < from.size(); ++i) {
    if (not_null[i]) (*row)[i] = from[i];
  }
}

class PartialUpdateWriteMerge final : public WriteMergeFunction {
 public:
  explicit PartialUpdateWriteMerge(std::unique_ptr<PartialUpdateMerge> merge) : merge_(std::move(merge)) {}

  Result<std::optional<KeyValue>> Merge(std::span<KeyValue> records) override {
    merge_->Reset();
    for (const KeyValue& kv : records) TIDE_RETURN_IF_ERROR(merge_->Add(kv));
    KeyValue out;
    out.kind = merge_->result_kind();
    out.sequence = merge_->result_sequence();
    out.row = std::move(merge_->result_row());
    return std::optional<KeyValue>(std::move(out));
  }

 private:
  std::unique_ptr<PartialUpdateMerge> merge_;
};

class AggregationWriteMerge final : public WriteMergeFunction {
 public:
  AggregationWriteMerge(std::unique_ptr<MergeFunction> aggregate, std::vector<bool> not_null, bool remove_on_delete)
      : aggregate_(std::move(aggregate)), not_null_(std::move(not_null)), remove_on_delete_(remove_on_delete) {}

  Result<std::optional<KeyValue>> Merge(std::span<KeyValue> records) override {
    aggregate_->Reset();
    for (const KeyValue& kv : records) TIDE_RETURN_IF_ERROR(aggregate_->Add(kv));
    TIDE_ASSIGN_OR_RETURN(std::optional<Row> row, aggregate_->GetResult());
    KeyValue& last = records.back();
    KeyValue out;
    out.sequence = last.sequence;
    if (row) {
      out.row = std::move(*row);
      out.kind = ValueKind::kInsert;
      return std::optional<KeyValue>(std::move(out));
    }
    if (remove_on_delete_ && last.kind == ValueKind::kDelete) {
      out.row.assign(not_null_.size(), Datum());
      FillNotNullColumns(not_null_, last.row, &out.row);
      out.kind = ValueKind::kDelete;
      return std::optional<KeyValue>(std::move(out));
    }
    return std::optional<KeyValue>();
  }

 private:
  std::unique_ptr<MergeFunction> aggregate_;
  std::vector<bool> not_null_;
  bool remove_on_delete_;
};

}  // namespace

Result<std::unique_ptr<WriteMergeFunction>> WriteMergeFunction::Create(const TableSchema& schema,
                                                                      const std::string& table_name) {
  TIDE_ASSIGN_OR_RETURN(CoreOptions options, CoreOptions::Create(schema, table_name));
  MergeEngine engine = options.merge_engine();
  bool ignore_delete = options.ignore_delete();
  std::vector<bool> not_null;
  for (const DataField& f : schema.fields) not_null.push_back(!f.type.nullable());
  switch (engine) {
    case MergeEngine::kDeduplicate:
      return std::unique_ptr<WriteMergeFunction>(new DeduplicateWriteMerge(ignore_delete));
    case MergeEngine::kFirstRow:
      return std::unique_ptr<WriteMergeFunction>(new FirstRowWriteMerge(ignore_delete, table_name));
    case MergeEngine::kPartialUpdate: {
      TIDE_ASSIGN_OR_RETURN(auto merge, PartialUpdateMerge::Create(options, schema.fields, schema.primary_keys, table_name));
      return std::unique_ptr<WriteMergeFunction>(new PartialUpdateWriteMerge(std::move(merge)));
    }
    case MergeEngine::kAggregation: {
      TIDE_ASSIGN_OR_RETURN(auto aggregate,
                            CreateMergeFunction(options, schema.fields, schema.primary_keys, table_name));
      return std::unique_ptr<WriteMergeFunction>(new AggregationWriteMerge(
          std::move(aggregate), std::move(not_null), options.aggregation_remove_record_on_delete()));
    }
  }
  return Status::Internal("table {}: unknown merge engine", table_name);
}

}  // namespace tide
