// SortMergeHeap: the k-way merge of sorted runs of one bucket by (primary key, _SEQUENCE_NUMBER), the
// core of Java's SortMergeReader. Each run is a KeyValueCursor sorted by key; the heap yields every
// record of the runs in key order and, within a key, oldest first, so the caller folds a key's records
// with the merge engine (read path) or the write merge function (compaction).
//
// KeyComparator compares the primary keys of two rows (the key fields in order, as Paimon compares
// keys), with a fast path for a single integer key (the common `id BIGINT` key).
//
// Invariant: heap_ holds the indices of the runs that have a current record, as a binary min-heap by
// (key, sequence). Thread-safety: one thread at a time.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

#include "tide/base/result.h"
#include "tide/table/io/key_value.h"

namespace tide {

class KeyComparator {
 public:
  explicit KeyComparator(std::vector<int> key_indices) : key_indices_(std::move(key_indices)) {}
  int Compare(const Row& a, const Row& b) const {
    if (key_indices_.size() == 1) {
      size_t k = static_cast<size_t>(key_indices_[0]);
      const auto* x = std::get_if<int64_t>(&a[k].storage());
      const auto* y = std::get_if<int64_t>(&b[k].storage());
      if (x != nullptr && y != nullptr) return (*x > *y) - (*x < *y);
    }
    for (int i : key_indices_) {
      int c = CompareDatum(a[static_cast<size_t>(i)], b[static_cast<size_t>(i)]);
      if (c != 0) return c;
    }
    return 0;
  }
  const std::vector<int>& key_indices() const { return key_indices_; }

 private:
  std::vector<int> key_indices_;
};

class SortMergeHeap {
 public:
  SortMergeHeap(std::vector<std::unique_ptr<KeyValueCursor>> runs, KeyComparator keys)
      : runs_(std::move(runs)), keys_(std::move(keys)) {}

  // Positions every run on its first record. Call once, before anything else.
  Status Init();
  bool empty() const { return heap_.empty(); }
  // The smallest record (by key, then sequence); its run moves on. REQUIRES: !empty().
  Result<KeyValue> TakeTop();
  // Whether the next record has the same key as `row`.
  bool TopHasKeyOf(const Row& row) const {
    return !heap_.empty() && keys_.Compare(runs_[heap_[0]]->current().row, row) == 0;
  }
  // Takes the next key's records, oldest first, into `group` (cleared first); false when none is left.
  Result<bool> NextKey(std::vector<KeyValue>* group);
  const KeyComparator& keys() const { return keys_; }

 private:
  bool Less(size_t a, size_t b) const {
    const KeyValue& x = runs_[a]->current();
    const KeyValue& y = runs_[b]->current();
    int c = keys_.Compare(x.row, y.row);
    if (c != 0) return c < 0;
    return x.sequence < y.sequence;
  }
  void SiftDown(size_t i);

  std::vector<std::unique_ptr<KeyValueCursor>> runs_;
  KeyComparator keys_;
  std::vector<size_t> heap_;
};

// The files of one sorted run (disjoint key ranges, ascending) read one after another, each opened
// only when the previous one is exhausted, so a merge of many runs holds one open file per run.
class ConcatKeyValueCursor final : public KeyValueCursor {
 public:
  using Opener = std::function<Result<std::unique_ptr<KeyValueCursor>>(size_t index)>;
  ConcatKeyValueCursor(size_t count, Opener open) : count_(count), open_(std::move(open)) {}
  Result<bool> Advance() override;
  const KeyValue& current() const override { return current_->current(); }
  KeyValue TakeCurrent() override { return current_->TakeCurrent(); }

 private:
  size_t count_;
  size_t next_ = 0;
  Opener open_;
  std::unique_ptr<KeyValueCursor> current_;
};

}  // namespace tide
