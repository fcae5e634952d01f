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

// Java's PartialUpdateMergeFunction over rows of `fields` (the table's, or a reader's subset that holds
// the primary key and, for every field a sequence group protects, the group's sequence fields):
//   - without sequence groups, each +I/+U record's non-NULL fields overwrite the row's;
//   - `fields.<s1,s2>.sequence-group` = `f1,f2`: fields f1, f2 (and s1, s2) change only with a record
//     whose (s1, s2) is not NULL throughout and not smaller than the row's (NULL smallest); several
//     groups are independent; `fields.<f>.aggregate-function` (or `fields.default-aggregate-function`)
//     folds a protected field with its aggregate function (the older record's value second when the
//     record is older than the row: Java's aggReversed); a field outside every group may only use
//     last_non_null_value;
//   - -U/-D records: refused, unless `ignore-delete` (skipped; the first one still fills the row as
//     Java's initRow does), `partial-update.remove-record-on-delete` (a -D empties the row into that
//     record's values and makes it a delete), or sequence groups (a retraction newer than a group sets
//     the group's sequence fields and clears its other fields, or retracts their aggregates; with
//     `partial-update.remove-record-on-sequence-group` naming a sequence field of that group, a -D
//     deletes the whole row).
// The result is +I, or -D when the row was deleted or no +I/+U record came, with the newest record's
// sequence number. Thread-safety: one thread at a time.
class PartialUpdateMerge {
 public:
  static Result<std::unique_ptr<PartialUpdateMerge>> Create(const CoreOptions& options,
                                                            const std::vector<DataField>& fields,
                                                            const std::vector<std::string>& primary_keys,
                                                            const std::string& table_name);
  virtual ~PartialUpdateMerge() = default;
  virtual void Reset() = 0;
  virtual Status Add(const KeyValue& kv) = 0;
  virtual ValueKind result_kind() const = 0;
  virtual Row& result_row() = 0;
  virtual int64_t result_sequence() const = 0;
};

// The sequence fields a read of `read_fields` of a partial-update table also needs, in table order: those
// of the sequence groups that protect a field read (Java's adjustReadType). Empty without groups.
// InvalidArgument naming the option for a group that names a column the table lacks.
Result<std::vector<std::string>> SequenceGroupFieldsToRead(const CoreOptions& options,
                                                          const std::vector<DataField>& table_fields,
                                                          const std::vector<std::string>& read_fields,
                                                          const std::string& table_name);

// Builds the merge function of a table. `fields` are the fields of the rows that will be added (a
// subset of the table's fields, always including the primary key); `options` are the table's options
// (with any read-time overrides); `table_name` is used in errors.
Result<std::unique_ptr<MergeFunction>> CreateMergeFunction(const CoreOptions& options,
                                                           const std::vector<DataField>& fields,
                                                           const std::vector<std::string>& primary_keys,
                                                           const std::string& table_name);

}  // namespace tide
