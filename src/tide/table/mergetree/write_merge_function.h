// WriteMergeFunction: what a primary-key table's write buffer does with several records of one key
// before it flushes them (Java's ReducerMergeFunctionWrapper around the merge engine's MergeFunction).
//
// A key with one record is written as it is, whatever its kind. Several records of one key (sorted
// oldest to newest: sequence.field order, then sequence number) fold into one record, as Java's merge
// functions produce it:
//   deduplicate     the newest record, kind included (a -D stays, to hide older files' rows);
//   first-row       the oldest record (retractions refused unless ignore-delete);
//   partial-update  Java's PartialUpdateMergeFunction (merge_function.h: PartialUpdateMerge): non-null
//                   fields overwrite, sequence groups and their aggregate functions, retractions as its
//                   options say; kind +I, or -D for a deleted row or when no +I/+U record came; the
//                   sequence number of the newest record;
//   aggregation     each field folded by its aggregate function (the read path's aggregators); kind +I,
//                   or -D when the newest record is a DELETE with aggregation.remove-record-on-delete.
// With ignore-delete, -U/-D records are skipped (they are normally dropped before the buffer).
//
// Thread-safety: one instance per write buffer, one thread at a time.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>

#include "tide/base/result.h"
#include "tide/table/mergetree/merge_function.h"
#include "tide/types/table_schema.h"

namespace tide {

class WriteMergeFunction {
 public:
  // The merge of `schema`'s merge engine; `table_name` names the table in errors.
  static Result<std::unique_ptr<WriteMergeFunction>> Create(const TableSchema& schema, const std::string& table_name);
  virtual ~WriteMergeFunction() = default;

  // Folds `records` (two or more records of one key, oldest first) into the record to write, or nullopt
  // when nothing is to be written. May move values out of `records`.
  virtual Result<std::optional<KeyValue>> Merge(std::span<KeyValue> records) = 0;
};

}  // namespace tide
