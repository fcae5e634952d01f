// ScanPredicate: the filter a read may use to skip partitions, buckets and files: a conjunction of
// simple conditions on single columns (`column op constant`, `IN`, `IS [NOT] NULL`), each constant
// already in the column's type (datum.h's representation).
//
// The predicate is a hint for pruning, never a filter of rows: a reader given one returns at least every
// row that satisfies it (and possibly others); the caller applies its full filter on what it gets (SQL:
// DuckDB evaluates the query's WHERE on every row paimon_scan returns). Every test here is therefore
// conservative: "may match" is false only when no value the statistics allow can satisfy the condition.
//
// Thread-safety: plain values; the functions are pure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tide/types/data_type.h"
#include "tide/types/datum.h"

namespace tide {

enum class PredicateOp { kEqual, kLess, kLessOrEqual, kGreater, kGreaterOrEqual, kIn, kIsNull, kIsNotNull };

// One condition on one column of the read schema.
struct ColumnPredicate {
  int32_t field_id = 0;  // the column's field id (stable across renames and schema versions)
  std::string column;    // its name in the read schema, for messages
  DataType type;         // its type in the read schema; `values` are in this type
  PredicateOp op = PredicateOp::kEqual;
  std::vector<Datum> values;  // one for comparisons, one or more for kIn, none for the null tests

  std::string ToString() const;
};

struct ScanPredicate {
  std::vector<ColumnPredicate> conjuncts;  // all must hold

  bool empty() const { return conjuncts.empty(); }
  std::string ToString() const;  // "id = 5 AND dt IN (...)", for logs and tests
};

// Whether a row whose column holds `value` (NULL allowed) can satisfy `predicate`: the exact test, used
// for partition values.
bool PredicateMayMatchValue(const ColumnPredicate& predicate, const Datum& value);

// Whether a group of `row_count` rows whose non-NULL values of the column lie in [min, max] and of which
// `null_count` are NULL can hold a row satisfying `predicate`. A NULL `min` or `max` means that bound is
// unknown (unless every row is NULL); an absent `null_count` is unknown.
bool PredicateMayMatchRange(const ColumnPredicate& predicate, const Datum& min, const Datum& max,
                            std::optional<int64_t> null_count, int64_t row_count);

// Whether values of `type` may be compared with CompareDatum for pruning (the order of the stored
// statistics is that of the type: integers, decimals, dates, timestamps, strings by their bytes).
// Floating point (NaN), binary, boolean, nested and time types are not pruned on.
bool PrunableType(const DataType& type);

}  // namespace tide
