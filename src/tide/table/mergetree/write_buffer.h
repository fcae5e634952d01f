// WriteBuffer: the records of one (partition, bucket) that a table writer holds in memory until it
// flushes them to a data file; WriteBufferMemory: the one byte budget all buffers of a writer share.
//
// A primary-key buffer yields its records sorted by the trimmed primary key (compared as Paimon
// compares keys, CompareDatum), then by the `sequence.field` columns (descending if configured), then
// by sequence number; the records of each key fold into one by the table's merge engine before they
// reach the file (WriteMergeFunction; Java's SortBufferWriteBuffer.forEach with its MergeIterator). An
// append buffer yields its records in insertion order.
//
// Memory: each buffer charges the estimated in-memory size of its records (the Datums and their heap
// strings) to the shared WriteBufferMemory, and releases it when drained. The owner flushes buffers
// (largest first, as Java's memory pool preempts its largest owner) whenever the total passes the
// budget; the buffers themselves never decide to flush.
//
// Thread-safety: a WriteBufferMemory and its buffers belong to one writer, used by one thread at a time.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <vector>

#include "tide/base/result.h"
#include "tide/table/mergetree/merge_function.h"
#include "tide/table/mergetree/write_merge_function.h"

namespace tide {

class WriteBufferMemory {
 public:
  explicit WriteBufferMemory(int64_t budget) : budget_(budget) {}
  int64_t budget() const { return budget_; }
  int64_t used() const { return used_.load(std::memory_order_relaxed); }
  bool OverBudget() const { return used() > budget_; }

 private:
  friend class WriteBuffer;
  friend class ColumnarWriteBuffer;
  int64_t budget_;
  std::atomic<int64_t> used_{0};  // buffers of one writer drain on several threads at once
};

// How a buffer orders and merges records; shared by the buffers of one writer.
struct WriteBufferSpec {
  bool primary_key = false;
  std::vector<int> key_indices;             // trimmed primary key, indices into the row
  std::vector<int> sequence_field_indices;  // `sequence.field` columns
  bool sequence_descending = false;         // `sequence.field.sort-order` = descending
  WriteMergeFunction* merge = nullptr;      // REQUIRED for primary-key buffers
};

class WriteBuffer {
 public:
  // REQUIRES: `spec` and `memory` outlive the buffer.
  WriteBuffer(const WriteBufferSpec* spec, WriteBufferMemory* memory) : spec_(spec), memory_(memory) {}
  ~WriteBuffer() { Clear(); }
  WriteBuffer(const WriteBuffer&) = delete;
  WriteBuffer& operator=(const WriteBuffer&) = delete;

  void Put(Row row, int64_t sequence, ValueKind kind);

  size_t size() const { return records_.size(); }
  bool empty() const { return records_.empty(); }
  int64_t memory_bytes() const { return bytes_; }

  // A consumer may move values out of the record it is given.
  using Consumer = std::function<Status(KeyValue& record)>;
  // Hands every record to `merged` in flush order (primary key: sorted, one merged record per key;
  // append: insertion order) and, for primary-key buffers, a copy of every record before merging to
  // `raw` (if given) in sorted order (changelog-producer=input). Empties the buffer and releases its
  // memory, also when a consumer or the merge fails.
  // With `raw_is_merged` given: when no two records share a key (nothing merges, so `raw` would get
  // exactly what `merged` gets, in the same order), `raw` is not called and *raw_is_merged is set, so
  // the caller can reuse what `merged` made (an initial copy: every key once).
  Status Drain(const Consumer& merged, const Consumer* raw = nullptr, bool* raw_is_merged = nullptr);

  // Drops every record and releases their memory.
  void Clear();

 private:
  Status DrainSorted(const Consumer& merged, const Consumer* raw, bool* raw_is_merged);

  const WriteBufferSpec* spec_;
  WriteBufferMemory* memory_;
  std::vector<KeyValue> records_;
  int64_t bytes_ = 0;
};

// The estimated bytes one buffered record takes in memory.
int64_t EstimateRecordBytes(const Row& row);

}  // namespace tide
