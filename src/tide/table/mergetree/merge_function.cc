#include "tide/table/mergetree/merge_function.h"

#include <algorithm>
#include <cmath>

#include "tide/base/strings.h"

namespace tide {
namespace {

class DeduplicateMergeFunction final : public MergeFunction {
 public:
  explicit DeduplicateMergeFunction(bool ignore_delete) : ignore_delete_(ignore_delete) {}
  void Reset() override { latest_.reset(); }
  Status Add(const KeyValue& kv) override {
    if (ignore_delete_ && IsRetract(kv.kind)) return Status::OK();
    latest_ = kv;
    return Status::OK();
  }
  Result<std::optional<Row>> GetResult() override {
    if (!latest_ || IsRetract(latest_->kind)) return std::optional<Row>();
    return std::optional<Row>(latest_->row);
  }

 private:
  bool ignore_delete_;
  std::optional<KeyValue> latest_;
};

class FirstRowMergeFunction final : public MergeFunction {
 public:
  FirstRowMergeFunction(bool ignore_delete, std::string table) : ignore_delete_(ignore_delete), table_(std::move(table)) {}
  void Reset() override { first_.reset(); }
  Status Add(const KeyValue& kv) override {
    if (IsRetract(kv.kind)) {
      if (ignore_delete_) return Status::OK();
      return Status::InvalidArgument(
          "table {}: the first-row merge engine cannot accept DELETE/UPDATE_BEFORE rows; set 'ignore-delete' = "
          "'true' to ignore them",
          table_);
    }
    if (!first_) first_ = kv.row;
    return Status::OK();
  }
  Result<std::optional<Row>> GetResult() override { return first_; }

 private:
  bool ignore_delete_;
  std::string table_;
  std::optional<Row> first_;
};

class PartialUpdateMergeFunction final : public MergeFunction {
 public:
  PartialUpdateMergeFunction(size_t arity, bool ignore_delete, bool remove_on_delete, std::string table)
      : arity_(arity), ignore_delete_(ignore_delete), remove_on_delete_(remove_on_delete), table_(std::move(table)) {}
  void Reset() override {
    row_.assign(arity_, Datum());
    met_insert_ = false;
    deleted_ = false;
  }
  Status Add(const KeyValue& kv) override {
    if (IsRetract(kv.kind)) {
      if (ignore_delete_) return Status::OK();
      if (remove_on_delete_ && kv.kind == ValueKind::kDelete) {
        deleted_ = true;
        row_.assign(arity_, Datum());
        return Status::OK();
      }
      return Status::InvalidArgument(
          "table {}: the partial-update merge engine cannot accept DELETE/UPDATE_BEFORE rows by default; set "
          "'ignore-delete' = 'true' to ignore them or 'partial-update.remove-record-on-delete' = 'true' to remove "
          "the row",
          table_);
    }
    deleted_ = false;
    met_insert_ = true;
    for (size_t i = 0; i < arity_ && i < kv.row.size(); ++i) {
      if (!kv.row[i].is_null()) row_[i] = kv.row[i];
    }
    return Status::OK();
  }
  Result<std::optional<Row>> GetResult() override {
    if (deleted_ || !met_insert_) return std::optional<Row>();
    return std::optional<Row>(row_);
  }

 private:
  size_t arity_;
  bool ignore_delete_, remove_on_delete_;
  std::string table_;
  Row row_;
  bool met_insert_ = false, deleted_ = false;
};

// One field's aggregate function (Java's FieldAggregator family).
class FieldAggregator {
 public:
  FieldAggregator(std::string name, DataType type, std::string delimiter, bool ignore_retract, std::string field)
      : name_(std::move(name)), type_(std::move(type)), delimiter_(std::move(delimiter)),
        ignore_retract_(ignore_retract), field_(std::move(field)) {}

  void Reset() { first_seen_ = false; }

  Result<Datum> Agg(const Datum& acc, const Datum& in) {
    if (name_ == "primary-key" || name_ == "last_value") return in;
    if (name_ == "last_non_null_value") return in.is_null() ? acc : in;
    if (name_ == "first_value") {
      if (first_seen_) return acc;
      first_seen_ = true;
      return in;
    }
    if (name_ == "first_non_null_value") return acc.is_null() ? in : acc;
    if (name_ == "count") {
      int64_t base = acc.is_null() ? 0 : acc.as_int();
      return Datum(base + (in.is_null() ? 0 : 1));
    }
    if (in.is_null()) return acc;
    if (acc.is_null()) return in;
    if (name_ == "sum") return Arith(acc, in, '+');
    if (name_ == "product") return Arith(acc, in, '*');
    if (name_ == "max") return CompareDatum(in, acc) > 0 ? in : acc;
    if (name_ == "min") return CompareDatum(in, acc) < 0 ? in : acc;
    if (name_ == "bool_and") return Datum(acc.as_bool() && in.as_bool());
    if (name_ == "bool_or") return Datum(acc.as_bool() || in.as_bool());
    if (name_ == "listagg") return Datum(acc.as_string() + delimiter_ + in.as_string());
    return Status::NotSupported("aggregate function '{}' of field '{}' is not supported", name_, field_);
  }

  Result<Datum> Retract(const Datum& acc, const Datum& in) {
    if (name_ == "primary-key") return in;
    if (ignore_retract_) return acc;
    if (name_ == "last_value") return Datum();
    if (name_ == "last_non_null_value") return in.is_null() ? acc : Datum();
    if (name_ == "count") {
      int64_t base = acc.is_null() ? 0 : acc.as_int();
      return Datum(base - (in.is_null() ? 0 : 1));
    }
    if (name_ == "sum") {
      if (in.is_null()) return acc;
      if (acc.is_null()) return Arith(Zero(), in, '-');
      return Arith(acc, in, '-');
    }
    if (name_ == "product") {
      if (in.is_null()) return acc;
      if (acc.is_null()) return Datum();
      return Arith(acc, in, '/');
    }
    return Status::NotSupported(
        "field '{}': aggregate function '{}' cannot retract (an UPDATE_BEFORE/DELETE row arrived); set "
        "'fields.{}.ignore-retract' = 'true' to ignore retractions",
        field_, name_, field_);
  }

 private:
  Datum Zero() const {
    switch (type_.root()) {
      case TypeRoot::kFloat: return Datum(0.0f);
      case TypeRoot::kDouble: return Datum(0.0);
      case TypeRoot::kDecimal: return Datum(DecimalValue{0});
      default: return Datum(int64_t{0});
    }
  }

  Result<Datum> Arith(const Datum& a, const Datum& b, char op) const {
    switch (type_.root()) {
      case TypeRoot::kTinyInt:
      case TypeRoot::kSmallInt:
      case TypeRoot::kInt:
      case TypeRoot::kBigInt: {
        int64_t x = a.as_int(), y = b.as_int(), r;
        switch (op) {
          case '+': r = x + y; break;
          case '-': r = x - y; break;
          case '*': r = x * y; break;
          default:
            if (y == 0) return Status::InvalidArgument("field '{}': product retraction divides by zero", field_);
            r = x / y;
        }
        // Java's arithmetic on the field's own width wraps.
        if (type_.root() == TypeRoot::kTinyInt) r = static_cast<int8_t>(r);
        if (type_.root() == TypeRoot::kSmallInt) r = static_cast<int16_t>(r);
        if (type_.root() == TypeRoot::kInt) r = static_cast<int32_t>(r);
        return Datum(r);
      }
      case TypeRoot::kFloat: {
        float x = a.as_float(), y = b.as_float();
        return Datum(op == '+' ? x + y : op == '-' ? x - y : op == '*' ? x * y : x / y);
      }
      case TypeRoot::kDouble: {
        double x = a.as_double(), y = b.as_double();
        return Datum(op == '+' ? x + y : op == '-' ? x - y : op == '*' ? x * y : x / y);
      }
      case TypeRoot::kDecimal: {
        int128_t x = a.as_decimal().unscaled, y = b.as_decimal().unscaled;
        if (op == '+') return Datum(DecimalValue{x + y});
        if (op == '-') return Datum(DecimalValue{x - y});
        return Status::NotSupported("field '{}': product of DECIMAL values is not supported", field_);
      }
      default:
        return Status::NotSupported("field '{}': aggregate function '{}' does not apply to {}", field_, name_,
                                    type_.ToString());
    }
  }

  std::string name_;
  DataType type_;
  std::string delimiter_;
  bool ignore_retract_;
  std::string field_;
  bool first_seen_ = false;
};

class AggregateMergeFunction final : public MergeFunction {
 public:
  AggregateMergeFunction(std::vector<FieldAggregator> aggs, bool ignore_delete, bool remove_on_delete)
      : aggs_(std::move(aggs)), ignore_delete_(ignore_delete), remove_on_delete_(remove_on_delete) {}
  void Reset() override {
    row_.assign(aggs_.size(), Datum());
    for (auto& a : aggs_) a.Reset();
    any_ = false;
    deleted_ = false;
  }
  Status Add(const KeyValue& kv) override {
    bool retract = IsRetract(kv.kind);
    if (retract && ignore_delete_) return Status::OK();
    if (remove_on_delete_ && kv.kind == ValueKind::kDelete) {
      deleted_ = true;
      row_.assign(aggs_.size(), Datum());
      for (auto& a : aggs_) a.Reset();
      return Status::OK();
    }
    deleted_ = false;
    any_ = true;
    for (size_t i = 0; i < aggs_.size(); ++i) {
      const Datum& in = i < kv.row.size() ? kv.row[i] : Datum();
      auto merged = retract ? aggs_[i].Retract(row_[i], in) : aggs_[i].Agg(row_[i], in);
      if (!merged.ok()) return merged.status();
      row_[i] = std::move(merged).value();
    }
    return Status::OK();
  }
  Result<std::optional<Row>> GetResult() override {
    if (deleted_ || !any_) return std::optional<Row>();
    return std::optional<Row>(row_);
  }

 private:
  std::vector<FieldAggregator> aggs_;
  bool ignore_delete_, remove_on_delete_;
  Row row_;
  bool any_ = false, deleted_ = false;
};

}  // namespace

Result<std::unique_ptr<MergeFunction>> CreateMergeFunction(const CoreOptions& options,
                                                           const std::vector<DataField>& fields,
                                                           const std::vector<std::string>& primary_keys,
                                                           const std::string& table_name) {
  MergeEngine engine = options.merge_engine();
  bool ignore_delete = options.ignore_delete();
  switch (engine) {
    case MergeEngine::kDeduplicate:
      return std::unique_ptr<MergeFunction>(new DeduplicateMergeFunction(ignore_delete));
    case MergeEngine::kFirstRow:
      return std::unique_ptr<MergeFunction>(new FirstRowMergeFunction(ignore_delete, table_name));
    case MergeEngine::kPartialUpdate:
      return std::unique_ptr<MergeFunction>(new PartialUpdateMergeFunction(
          fields.size(), ignore_delete, options.partial_update_remove_record_on_delete(), table_name));
    case MergeEngine::kAggregation: {
      static const char* kKnown[] = {"sum", "product", "count", "max", "min", "last_value", "last_non_null_value",
                                     "first_value", "first_non_null_value", "listagg", "bool_and", "bool_or"};
      std::vector<FieldAggregator> aggs;
      for (const auto& f : fields) {
        bool is_key = std::find(primary_keys.begin(), primary_keys.end(), f.name) != primary_keys.end();
        std::string fn = is_key ? "primary-key" : options.aggregate_function(f.name);
        if (!is_key && std::find(std::begin(kKnown), std::end(kKnown), fn) == std::end(kKnown)) {
          return Status::NotSupported("table {}: aggregate function '{}' of field '{}' is not supported (supported: {})",
                                      table_name, fn, f.name, Join(std::vector<std::string>(std::begin(kKnown), std::end(kKnown)), ", "));
        }
        aggs.emplace_back(fn, f.type, options.list_agg_delimiter(f.name), options.ignore_retract(f.name), f.name);
      }
      return std::unique_ptr<MergeFunction>(new AggregateMergeFunction(
          std::move(aggs), ignore_delete, options.aggregation_remove_record_on_delete()));
    }
  }
  return Status::Internal("unknown merge engine");
}

}  // namespace tide
