// ColumnarWriteBuffer: the records of one (partition, bucket) of a primary-key table held as column
// vectors (types/column_vector.h) instead of Datum rows: the field report's `orders` row takes about a
// fifth of the memory, the flush sorts a permutation with typed comparisons, and the file is encoded
// straight from the vectors (KeyValueFileWriter::WriteColumns).
//
// For tables of the deduplicate merge engine without `sequence.field` whose columns all have a column
// vector form (Supports); other tables use WriteBuffer. The flush order and merge are WriteBuffer's:
// sorted by the trimmed primary key (CompareDatum's order), then by sequence number; one record per key,
// the newest (the newest that is not a retraction with ignore-delete; none when there is no such one).
// Memory is charged to the writer's shared WriteBufferMemory as the vectors grow.
//
// Invariant: every column vector, `sequences_` and `kinds_` hold size() values.
// Thread-safety: as WriteBuffer: one thread at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "tide/base/result.h"
#include "tide/table/io/key_value.h"
#include "tide/table/mergetree/write_buffer.h"
#include "tide/types/column_vector.h"
#include "tide/types/table_schema.h"

namespace tide {

class ColumnarWriteBuffer {
 public:
  // Whether the records of a table with this spec and these columns can be held as columns.
  static bool Supports(const WriteBufferSpec& spec, const std::vector<DataField>& fields);

  // REQUIRES: Supports(*spec, fields); `spec` and `memory` outlive the buffer.
  ColumnarWriteBuffer(const WriteBufferSpec* spec, const std::vector<DataField>& fields, bool ignore_delete,
                      WriteBufferMemory* memory);
  ~ColumnarWriteBuffer() { Clear(); }
  ColumnarWriteBuffer(const ColumnarWriteBuffer&) = delete;
  ColumnarWriteBuffer& operator=(const ColumnarWriteBuffer&) = delete;

  // Adds a record (one Datum per column). InvalidArgument naming the column when a value does not have
  // its type's representation; nothing is added then.
  Status Put(const Row& row, int64_t sequence, ValueKind kind);

  size_t size() const { return sequences_.size(); }
  bool empty() const { return sequences_.size() == 0; }
  int64_t memory_bytes() const { return bytes_; }

  // Takes records rows[0..n) of the columns (one vector per table column), with their sequence numbers
  // (BIGINT) and kinds (TINYINT) at the same indices, in flush order; KeyValueFileWriter::WriteColumns
  // (through a rolling writer) is one.
  using Consumer = std::function<Status(const std::vector<const ColumnVector*>& columns, const ColumnVector& sequences,
                                        const ColumnVector& kinds, const uint32_t* rows, size_t n)>;
  // As WriteBuffer::Drain: the merged records in flush order to `merged`; every record in sorted order
  // to `raw` when given (changelog-producer=input), except that with `raw_is_merged` given and no key
  // repeating, `raw` is not called and *raw_is_merged is set. Empties the buffer, also on error.
  Status Drain(const Consumer& merged, const Consumer* raw = nullptr, bool* raw_is_merged = nullptr);

  // Drops every record and releases their memory.
  void Clear();

 private:
  void Charge();

  const WriteBufferSpec* spec_;
  std::vector<DataField> fields_;
  bool ignore_delete_;
  WriteBufferMemory* memory_;
  std::vector<ColumnVector> columns_;
  std::vector<const ColumnVector*> column_pointers_;
  ColumnVector sequences_{DataType::BigInt(false)};
  ColumnVector kinds_{DataType::TinyInt(false)};
  int64_t bytes_ = 0;  // charged to memory_
};

}  // namespace tide
