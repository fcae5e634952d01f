#include "tide/table/mergetree/sort_merge_heap.h"

namespace tide {

Status SortMergeHeap::Init() {
  for (size_t i = 0; i < runs_.size(); ++i) {
    TIDE_ASSIGN_OR_RETURN(bool ok, runs_[i]->Advance());
    if (ok) heap_.push_back(i);
  }
  for (size_t i = heap_.size() / 2; i-- > 0;) SiftDown(i);
  return Status::OK();
}

Result<KeyValue> SortMergeHeap::TakeTop() {
  size_t top = heap_[0];
  KeyValue kv = runs_[top]->TakeCurrent();
  TIDE_ASSIGN_OR_RETURN(bool ok, runs_[top]->Advance());
  if (!ok) {
    heap_[0] = heap_.back();
    heap_.pop_back();
    runs_[top].reset();  // frees the run's file reader at once
  }
  if (!heap_.empty()) SiftDown(0);
  return kv;
}

Result<bool> SortMergeHeap::NextKey(std::vector<KeyValue>* group) {
  group->clear();
  if (heap_.empty()) return false;
  TIDE_ASSIGN_OR_RETURN(KeyValue first, TakeTop());
  group->push_back(std::move(first));
  while (TopHasKeyOf((*group)[0].row)) {
    TIDE_ASSIGN_OR_RETURN(KeyValue kv, TakeTop());
    group->push_back(std::move(kv));
  }
  return true;
}

void SortMergeHeap::SiftDown(size_t i) {
  const size_t n = heap_.size();
  while (true) {
    size_t smallest = i, l = 2 * i + 1, r = l + 1;
    if (l < n && Less(heap_[l], heap_[smallest])) smallest = l;
    if (r < n && Less(heap_[r], heap_[smallest])) smallest = r;
    if (smallest == i) return;
    std::swap(heap_[i], heap_[smallest]);
    i = smallest;
  }
}

Result<bool> ConcatKeyValueCursor::Advance() {
  while (true) {
    if (current_) {
      TIDE_ASSIGN_OR_RETURN(bool ok, current_->Advance());
      if (ok) return true;
      current_.reset();
    }
    if (next_ >= count_) return false;
    TIDE_ASSIGN_OR_RETURN(current_, open_(next_));
    ++next_;
  }
}

}  // namespace tide
