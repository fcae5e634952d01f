#include "tide/table/mergetree/merge_function.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

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

// One `fields.<s1,s2>.sequence-group` = `f1,f2` option.
struct SequenceGroupOption {
  std::string key;
  std::vector<std::string> sequence_fields;
  std::vector<std::string> protected_fields;
};

std::vector<std::string> SplitFieldList(const std::string& text) {
  std::vector<std::string> out;
  for (const std::string& part : SplitTrimmed(text, ',')) {
    if (!part.empty()) out.push_back(part);
  }
  return out;
}

std::vector<SequenceGroupOption> SequenceGroupOptions(const CoreOptions& options) {
  static constexpr std::string_view kPrefix = "fields.", kSuffix = ".sequence-group";
  std::vector<SequenceGroupOption> out;
  for (const auto& [key, value] : options.raw()) {
    if (key.size() <= kPrefix.size() + kSuffix.size() || !StartsWith(key, kPrefix) || !EndsWith(key, kSuffix)) continue;
    SequenceGroupOption g;
    g.key = key;
    g.sequence_fields = SplitFieldList(key.substr(kPrefix.size(), key.size() - kPrefix.size() - kSuffix.size()));
    g.protected_fields = SplitFieldList(value);
    out.push_back(std::move(g));
  }
  return out;
}

// Copies the NOT NULL columns of `from` into `row`.
void FillNotNullFields(const std::vector<bool>& not_null, const Row& from, Row* row) {
  for (size_t i = 0; i < not_null.size() && i < from.size(); ++i) {
    if (not_null[i]) (*row)[i] = from[i];
  }
}

class PartialUpdateMergeImpl final : public PartialUpdateMerge {
 public:
  struct Group {
    std::vector<int> sequence;  // indices of its sequence fields
  };

  size_t arity = 0;
  std::vector<bool> not_null;
  bool ignore_delete = false, remove_on_delete = false;
  std::string table;
  std::vector<Group> groups;
  std::vector<int> group_of;                          // per field: its group, or -1
  std::vector<std::optional<FieldAggregator>> aggs;   // per field (used with sequence groups only)
  std::set<int> partial_delete;                       // remove-record-on-sequence-group fields

  void Reset() override {
    row_.assign(arity, Datum());
    sequence_ = 0;
    meet_insert_ = not_null_filled_ = delete_row_ = false;
    for (auto& a : aggs) {
      if (a) a->Reset();
    }
  }

  Status Add(const KeyValue& kv) override {
    delete_row_ = false;
    if (IsRetract(kv.kind)) {
      if (!not_null_filled_) {
        FillNotNullFields(not_null, kv.row, &row_);
        not_null_filled_ = true;
      }
      if (ignore_delete) return Status::OK();
      sequence_ = kv.sequence;
      if (!groups.empty()) return RetractWithGroups(kv);
      if (remove_on_delete) {
        if (kv.kind == ValueKind::kDelete) DeleteRow(kv);
        return Status::OK();
      }
      return Status::InvalidArgument(
          "table {}: the partial-update merge engine cannot accept DELETE/UPDATE_BEFORE rows by default; set "
          "'ignore-delete' = 'true' to ignore them, 'partial-update.remove-record-on-delete' = 'true' to remove "
          "the row, or sequence groups ('fields.<f>.sequence-group') to retract their fields",
          table);
    }
    sequence_ = kv.sequence;
    if (groups.empty()) {
      for (size_t i = 0; i < arity && i < kv.row.size(); ++i) {
        if (!kv.row[i].is_null()) row_[i] = kv.row[i];
      }
    } else {
      TIDE_RETURN_IF_ERROR(UpdateWithGroups(kv));
    }
    meet_insert_ = true;
    not_null_filled_ = true;
    return Status::OK();
  }

  ValueKind result_kind() const override {
    return delete_row_ || !meet_insert_ ? ValueKind::kDelete : ValueKind::kInsert;
  }
  Row& result_row() override { return row_; }
  int64_t result_sequence() const override { return sequence_; }

 private:
  const Datum& In(const KeyValue& kv, int i) const {
    static const Datum kNull;
    return static_cast<size_t>(i) < kv.row.size() ? kv.row[static_cast<size_t>(i)] : kNull;
  }
  // The record's sequence fields of `g` against the row's (NULL smallest).
  int Compare(const KeyValue& kv, const Group& g) const {
    for (int f : g.sequence) {
      int c = CompareDatum(In(kv, f), row_[static_cast<size_t>(f)]);
      if (c != 0) return c;
    }
    return 0;
  }
  // A record whose sequence fields of `g` are all NULL leaves the group alone.
  bool EmptyGroup(const KeyValue& kv, const Group& g, std::vector<bool>* processed) const {
    for (int f : g.sequence) {
      if (!In(kv, f).is_null()) return false;
    }
    for (int f : g.sequence) (*processed)[static_cast<size_t>(f)] = true;
    return true;
  }
  static bool Contains(const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }
  void DeleteRow(const KeyValue& kv) {
    delete_row_ = true;
    row_.assign(arity, Datum());
    FillNotNullFields(not_null, kv.row, &row_);
  }

  Status UpdateWithGroups(const KeyValue& kv) {
    std::vector<bool> processed(arity, false);
    for (size_t i = 0; i < arity; ++i) {
      const int idx = static_cast<int>(i);
      const int g = group_of[i];
      std::optional<FieldAggregator>& agg = aggs[i];
      if (g < 0) {
        if (agg) {
          TIDE_ASSIGN_OR_RETURN(row_[i], agg->Agg(row_[i], In(kv, idx)));
        } else if (!In(kv, idx).is_null()) {
          row_[i] = In(kv, idx);
        }
        continue;
      }
      if (processed[i]) continue;
      const Group& group = groups[static_cast<size_t>(g)];
      if (EmptyGroup(kv, group, &processed)) continue;
      if (Compare(kv, group) >= 0) {
        if (Contains(group.sequence, idx)) {
          // The sequence fields of a group change together.
          for (int f : group.sequence) {
            row_[static_cast<size_t>(f)] = In(kv, f);
            processed[static_cast<size_t>(f)] = true;
          }
          continue;
        }
        if (agg) {
          TIDE_ASSIGN_OR_RETURN(row_[i], agg->Agg(row_[i], In(kv, idx)));
        } else {
          row_[i] = In(kv, idx);
        }
      } else if (agg) {
        // An older record: its value goes first (Java's aggReversed).
        TIDE_ASSIGN_OR_RETURN(row_[i], agg->Agg(In(kv, idx), row_[i]));
      }
    }
    return Status::OK();
  }

  Status RetractWithGroups(const KeyValue& kv) {
    std::vector<bool> processed(arity, false);
    std::set<int> updated;
    for (size_t i = 0; i < arity; ++i) {
      const int idx = static_cast<int>(i);
      const int g = group_of[i];
      if (g < 0 || processed[i]) continue;
      std::optional<FieldAggregator>& agg = aggs[i];
      const Group& group = groups[static_cast<size_t>(g)];
      if (EmptyGroup(kv, group, &processed)) continue;
      if (Compare(kv, group) >= 0) {
        if (Contains(group.sequence, idx)) {
          for (int f : group.sequence) {
            if (!updated.count(f)) {
              if (kv.kind == ValueKind::kDelete && partial_delete.count(f)) {
                DeleteRow(kv);
                return Status::OK();
              }
              row_[static_cast<size_t>(f)] = In(kv, f);
              updated.insert(f);
            }
            processed[static_cast<size_t>(f)] = true;
          }
        } else if (!agg) {
          row_[i] = Datum();
        } else {
          TIDE_ASSIGN_OR_RETURN(row_[i], agg->Retract(row_[i], In(kv, idx)));
        }
      } else if (agg) {
        TIDE_ASSIGN_OR_RETURN(row_[i], agg->Retract(row_[i], In(kv, idx)));
      }
    }
    return Status::OK();
  }

  Row row_;
  int64_t sequence_ = 0;
  bool meet_insert_ = false, not_null_filled_ = false, delete_row_ = false;
};

// The read side: the merged row, or none when the result is a delete.
class PartialUpdateMergeFunction final : public MergeFunction {
 public:
  explicit PartialUpdateMergeFunction(std::unique_ptr<PartialUpdateMerge> merge) : merge_(std::move(merge)) {}
  void Reset() override { merge_->Reset(); }
  Status Add(const KeyValue& kv) override { return merge_->Add(kv); }
  Result<std::optional<Row>> GetResult() override {
    if (merge_->result_kind() == ValueKind::kDelete) return std::optional<Row>();
    return std::optional<Row>(merge_->result_row());
  }

 private:
  std::unique_ptr<PartialUpdateMerge> merge_;
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

Result<std::unique_ptr<PartialUpdateMerge>> PartialUpdateMerge::Create(const CoreOptions& options,
                                                                      const std::vector<DataField>& fields,
                                                                      const std::vector<std::string>& primary_keys,
                                                                      const std::string& table_name) {
  auto m = std::make_unique<PartialUpdateMergeImpl>();
  m->arity = fields.size();
  for (const auto& f : fields) m->not_null.push_back(!f.type.nullable());
  m->ignore_delete = options.ignore_delete();
  m->remove_on_delete = options.partial_update_remove_record_on_delete();
  m->table = table_name;
  m->group_of.assign(fields.size(), -1);
  m->aggs.resize(fields.size());
  auto index_of = [&](const std::string& name) -> int {
    for (size_t i = 0; i < fields.size(); ++i) {
      if (fields[i].name == name) return static_cast<int>(i);
    }
    return -1;
  };
  auto is_key = [&](const std::string& name) {
    return std::find(primary_keys.begin(), primary_keys.end(), name) != primary_keys.end();
  };
  std::set<std::string> sequence_names, protected_names;
  std::map<std::string, int> sequence_index;  // sequence field name -> its index in `fields`
  for (const SequenceGroupOption& option : SequenceGroupOptions(options)) {
    if (option.sequence_fields.empty()) {
      return Status::InvalidArgument("table {}: option '{}' names no sequence field", table_name, option.key);
    }
    PartialUpdateMergeImpl::Group group;
    bool complete = true;
    for (const std::string& name : option.sequence_fields) {
      if (is_key(name)) {
        return Status::InvalidArgument("table {}: the sequence-group '{}' contains primary key field '{}', which is "
                                       "not allowed",
                                       table_name, option.key, name);
      }
      int idx = index_of(name);
      if (idx < 0) complete = false;
      group.sequence.push_back(idx);
      sequence_names.insert(name);
    }
    const int g = static_cast<int>(m->groups.size());
    bool used = false;
    for (const std::string& name : option.protected_fields) {
      if (is_key(name)) {
        return Status::InvalidArgument("table {}: the sequence-group '{}' contains primary key field '{}', which is "
                                       "not allowed",
                                       table_name, option.key, name);
      }
      protected_names.insert(name);
      int idx = index_of(name);
      if (idx < 0) continue;  // not read
      if (m->group_of[static_cast<size_t>(idx)] >= 0) {
        return Status::InvalidArgument("table {}: field '{}' is defined repeatedly by multiple sequence groups: {}",
                                       table_name, name, option.key);
      }
      if (!complete) {
        return Status::Internal("table {}: field '{}' is read without the sequence fields of its group '{}'",
                                table_name, name, option.key);
      }
      m->group_of[static_cast<size_t>(idx)] = g;
      used = true;
    }
    if (!complete) continue;
    for (size_t k = 0; k < group.sequence.size(); ++k) {
      m->group_of[static_cast<size_t>(group.sequence[k])] = g;
      sequence_index[option.sequence_fields[k]] = group.sequence[k];
    }
    (void)used;
    m->groups.push_back(std::move(group));
  }
  if (m->remove_on_delete && !m->groups.empty()) {
    return Status::InvalidArgument("table {}: 'partial-update.remove-record-on-delete' and sequence groups cannot be "
                                   "used together (as in Java Paimon); use 'partial-update.remove-record-on-sequence-group'",
                                   table_name);
  }
  if (m->remove_on_delete && m->ignore_delete) {
    return Status::InvalidArgument("table {}: 'ignore-delete' and 'partial-update.remove-record-on-delete' cannot "
                                   "both be set",
                                   table_name);
  }
  if (auto remove = options.Find("partial-update.remove-record-on-sequence-group"); remove && !Trim(*remove).empty()) {
    if (m->ignore_delete) {
      return Status::InvalidArgument("table {}: 'ignore-delete' and 'partial-update.remove-record-on-sequence-group' "
                                     "cannot both be set",
                                     table_name);
    }
    for (const std::string& name : SplitFieldList(*remove)) {
      if (!sequence_names.count(name)) {
        return Status::InvalidArgument("table {}: field '{}' of 'partial-update.remove-record-on-sequence-group' must "
                                       "be a sequence field of a sequence group",
                                       table_name, name);
      }
      if (auto it = sequence_index.find(name); it != sequence_index.end()) m->partial_delete.insert(it->second);
    }
  }
  // Aggregate functions (used with sequence groups): none for sequence fields, the key's own value for
  // key fields, else the field's function or the default one.
  static const char* kKnown[] = {"sum", "product", "count", "max", "min", "last_value", "last_non_null_value",
                                 "first_value", "first_non_null_value", "listagg", "bool_and", "bool_or"};
  for (size_t i = 0; i < fields.size(); ++i) {
    const DataField& f = fields[i];
    if (sequence_names.count(f.name)) continue;
    std::string fn;
    if (is_key(f.name)) {
      fn = "primary-key";
    } else {
      auto own = options.Find("fields." + f.name + ".aggregate-function");
      if (!own || Trim(*own).empty()) own = options.Find("fields.default-aggregate-function");
      if (!own || Trim(*own).empty()) continue;
      fn = ToLower(std::string(Trim(*own)));
      if (fn != "last_non_null_value" && !protected_names.count(f.name)) {
        return Status::InvalidArgument("table {}: field '{}' has aggregate function '{}', which a partial-update table "
                                       "allows only in a sequence group ('fields.<f>.sequence-group')",
                                       table_name, f.name, fn);
      }
      if (std::find(std::begin(kKnown), std::end(kKnown), fn) == std::end(kKnown)) {
        return Status::NotSupported("table {}: aggregate function '{}' of field '{}' is not supported", table_name, fn,
                                    f.name);
      }
    }
    m->aggs[i].emplace(fn, f.type, options.list_agg_delimiter(f.name), options.ignore_retract(f.name), f.name);
  }
  return std::unique_ptr<PartialUpdateMerge>(std::move(m));
}

Result<std::vector<std::string>> SequenceGroupFieldsToRead(const CoreOptions& options,
                                                          const std::vector<DataField>& table_fields,
                                                          const std::vector<std::string>& read_fields,
                                                          const std::string& table_name) {
  std::vector<std::string> extra;
  if (options.merge_engine() != MergeEngine::kPartialUpdate) return extra;
  auto has_field = [&](const std::string& name) {
    return std::any_of(table_fields.begin(), table_fields.end(), [&](const DataField& f) { return f.name == name; });
  };
  std::set<std::string> wanted;
  for (const SequenceGroupOption& option : SequenceGroupOptions(options)) {
    for (const std::string& name : option.sequence_fields) {
      if (!has_field(name)) {
        return Status::InvalidArgument("table {}: option '{}' names column '{}', which does not exist", table_name,
                                       option.key, name);
      }
    }
    bool protects_read = false;
    for (const std::string& name : option.protected_fields) {
      if (!has_field(name)) {
        return Status::InvalidArgument("table {}: option '{}' names column '{}', which does not exist", table_name,
                                       option.key, name);
      }
      protects_read = protects_read || std::find(read_fields.begin(), read_fields.end(), name) != read_fields.end();
    }
    if (!protects_read) continue;
    for (const std::string& name : option.sequence_fields) {
      if (std::find(read_fields.begin(), read_fields.end(), name) == read_fields.end()) wanted.insert(name);
    }
  }
  for (const DataField& f : table_fields) {
    if (wanted.count(f.name)) extra.push_back(f.name);
  }
  return extra;
}

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
    case MergeEngine::kPartialUpdate: {
      TIDE_ASSIGN_OR_RETURN(auto merge, PartialUpdateMerge::Create(options, fields, primary_keys, table_name));
      return std::unique_ptr<MergeFunction>(new PartialUpdateMergeFunction(std::move(merge)));
    }
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
