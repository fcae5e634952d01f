// KeyValue and ValueKind: one record of a primary-key (key-value) data file: the row, its
// _SEQUENCE_NUMBER and its _VALUE_KIND, as Java's org.apache.paimon.KeyValue. File writers store them,
// the merge tree orders and folds them; KeyValueCursor: a stream of them. Thread-safety: plain values;
// a cursor belongs to one thread at a time.
#pragma once

#include <cstdint>

#include "tide/base/result.h"
#include "tide/types/datum.h"

namespace tide {

// Paimon's row kinds as stored in _VALUE_KIND.
enum class ValueKind : int8_t { kInsert = 0, kUpdateBefore = 1, kUpdateAfter = 2, kDelete = 3 };
inline bool IsRetract(ValueKind k) { return k == ValueKind::kUpdateBefore || k == ValueKind::kDelete; }

// One row of a primary-key data file as the merge tree sees it.
struct KeyValue {
  Row row;  // the fields the read needs, in the reader's field order
  int64_t sequence = 0;
  ValueKind kind = ValueKind::kInsert;
  // The level of the file the record came from (set by lookup compaction, Java's KeyValue.level());
  // 0 otherwise.
  int32_t level = 0;
};

// A stream of KeyValues (a data file, or the files of one sorted run one after another).
class KeyValueCursor {
 public:
  virtual ~KeyValueCursor() = default;
  // Moves to the next record; false at the end.
  virtual Result<bool> Advance() = 0;
  // The current record. REQUIRES: the last Advance returned true.
  virtual const KeyValue& current() const = 0;
  virtual KeyValue TakeCurrent() = 0;
};

}  // namespace tide
