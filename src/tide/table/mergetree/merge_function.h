// MergeFunction: folds every row of one primary key, in sequence order, into the key's result row; the
// merge engines of Paimon (PAIMON_FORMAT.md §6.6): deduplicate, partial-update, aggregation, first-row.
//
// The merge tree calls Reset() for each key, Add() for each of the key's rows from oldest to newest
// (sequence.field order, then _SEQUENCE_NUMBER), then GetResult(). Rows carry their RowKind; retract
// kinds (-U, -D) remove (deduplicate), are refused or ignored (partial-update, first-row) or are
// retracted field by field (aggregation), as Java's merge functions do. Thread-safety: one instance per
// reader thread.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tide/base/result.h"
#include "tide/table/io/key_value.h"
#include "tide/table/schema/core_options.h"
#include "tide/types/datum.h"

namespace tide {

class MergeFunction {
 public:
  virtual ~MergeFunction() = default;
  virtual void Reset() = 0;
  virtual Status Add(const KeyValue& kv) = 0;
  // The merged row, or nullopt when the key has no row in the table (deleted, or only retractions).
  virtual Result<std::optional<Row>> GetResult() = 0;
};

// Builds the merge function of a table. `fields` are the fields of the rows that will be added (a
// subset of the table's fields, always including the primary key); `options` are the table's options
// (with any read-time overrides); `table_name` is used in errors.
Result<std::unique_ptr<MergeFunction>> CreateMergeFunction(const CoreOptions& options,
                                                           const std::vector<DataField>& fields,
                                                           const std::vector<std::string>& primary_keys,
                                                           const std::string& table_name);

}  // namespace tide
