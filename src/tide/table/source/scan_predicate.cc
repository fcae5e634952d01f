#include "tide/table/source/scan_predicate.h"

#include <fmt/format.h>

#include "tide/base/strings.h"

namespace tide {

namespace {

const char* OpText(PredicateOp op) {
  switch (op) {
    case PredicateOp::kEqual: return "=";
    case PredicateOp::kLess: return "<";
    case PredicateOp::kLessOrEqual: return "<=";
    case PredicateOp::kGreater: return ">";
    case PredicateOp::kGreaterOrEqual: return ">=";
    case PredicateOp::kIn: return "IN";
    case PredicateOp::kIsNull: return "IS NULL";
    case PredicateOp::kIsNotNull: return "IS NOT NULL";
  }
  return "?";
}

std::string ValueText(const Datum& value) {
  const Datum::Storage& v = value.storage();
  if (value.is_null()) return "NULL";
  if (const auto* s = std::get_if<std::string>(&v)) return "'" + *s + "'";
  if (const auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  if (const auto* d = std::get_if<DecimalValue>(&v)) return fmt::format("decimal({})", static_cast<int64_t>(d->unscaled));
  if (const auto* t = std::get_if<TimestampValue>(&v)) return fmt::format("ts({}ms+{}ns)", t->millis, t->nanos_of_milli);
  return "?";
}

// Whether some x with lo <= x <= hi (bounds known) satisfies `x op value`.
bool RangeMaySatisfy(PredicateOp op, const Datum& lo, const Datum& hi, const Datum& value) {
  switch (op) {
    case PredicateOp::kEqual: return CompareDatum(lo, value) <= 0 && CompareDatum(value, hi) <= 0;
    case PredicateOp::kLess: return CompareDatum(lo, value) < 0;
    case PredicateOp::kLessOrEqual: return CompareDatum(lo, value) <= 0;
    case PredicateOp::kGreater: return CompareDatum(hi, value) > 0;
    case PredicateOp::kGreaterOrEqual: return CompareDatum(hi, value) >= 0;
    default: return true;
  }
}

}  // namespace

std::string ColumnPredicate::ToString() const {
  switch (op) {
    case PredicateOp::kIsNull:
    case PredicateOp::kIsNotNull: return fmt::format("{} {}", column, OpText(op));
    case PredicateOp::kIn: {
      std::vector<std::string> items;
      for (const Datum& v : values) items.push_back(ValueText(v));
      return fmt::format("{} IN ({})", column, Join(items, ", "));
    }
    default: return fmt::format("{} {} {}", column, OpText(op), values.empty() ? "?" : ValueText(values[0]));
  }
}

std::string ScanPredicate::ToString() const {
  std::vector<std::string> parts;
  for (const ColumnPredicate& c : conjuncts) parts.push_back(c.ToString());
  return Join(parts, " AND ");
}

bool PrunableType(const DataType& type) {
  switch (type.root()) {
    case TypeRoot::kTinyInt:
    case TypeRoot::kSmallInt:
    case TypeRoot::kInt:
    case TypeRoot::kBigInt:
    case TypeRoot::kDecimal:
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
    case TypeRoot::kDate:
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz: return true;
    default: return false;
  }
}

bool PredicateMayMatchValue(const ColumnPredicate& predicate, const Datum& value) {
  switch (predicate.op) {
    case PredicateOp::kIsNull: return value.is_null();
    case PredicateOp::kIsNotNull: return !value.is_null();
    case PredicateOp::kIn:
      if (value.is_null()) return false;
      for (const Datum& v : predicate.values) {
        if (!v.is_null() && CompareDatum(value, v) == 0) return true;
      }
      return false;
    default:
      if (value.is_null()) return false;  // a comparison with NULL is never true
      if (predicate.values.empty() || predicate.values[0].is_null()) return true;
      return RangeMaySatisfy(predicate.op, value, value, predicate.values[0]);
  }
}

bool PredicateMayMatchRange(const ColumnPredicate& predicate, const Datum& min, const Datum& max,
                            std::optional<int64_t> null_count, int64_t row_count) {
  bool all_null = null_count && row_count > 0 && *null_count >= row_count;
  switch (predicate.op) {
    case PredicateOp::kIsNull: return !null_count || *null_count > 0;
    case PredicateOp::kIsNotNull: return !all_null;
    default: break;
  }
  if (all_null) return false;  // comparisons with NULL are never true
  if (min.is_null() || max.is_null()) return true;  // bounds unknown
  if (predicate.op == PredicateOp::kIn) {
    for (const Datum& v : predicate.values) {
      if (v.is_null() || RangeMaySatisfy(PredicateOp::kEqual, min, max, v)) return true;
    }
    return false;
  }
  if (predicate.values.empty() || predicate.values[0].is_null()) return true;
  return RangeMaySatisfy(predicate.op, min, max, predicate.values[0]);
}

}  // namespace tide
