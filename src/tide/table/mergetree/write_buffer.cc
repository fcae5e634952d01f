#include "tide/table/mergetree/write_buffer.h"

#include <algorithm>

namespace tide {
namespace {

int64_t HeapBytes(const Datum& value) {
  switch (value.storage().index()) {
    case 7: {
      const std::string& s = value.as_string();
      // Strings up to the small-string capacity (15 bytes in libstdc++) live inside the Datum.
      return s.capacity() > 15 ? static_cast<int64_t>(s.capacity()) + 1 : 0;
    }
    case 8: {
      const auto& items = value.as_nested();
      int64_t n = 48 + static_cast<int64_t>(items.capacity() * sizeof(Datum));
      for (const Datum& item : items) n += HeapBytes(item);
      return n;
    }
    default:
      return 0;
  }
}

}  // namespace

int64_t EstimateRecordBytes(const Row& row) {
  int64_t n = static_cast<int64_t>(sizeof(KeyValue) + row.capacity() * sizeof(Datum));
  for (const Datum& d : row) n += HeapBytes(d);
  return n;
}

void WriteBuffer::Put(Row row, int64_t sequence, ValueKind kind) {
  int64_t bytes = EstimateRecordBytes(row);
  records_.push_back(KeyValue{std::move(row), sequence, kind});
  bytes_ += bytes;
  memory_->used_ += bytes;
}

void WriteBuffer::Clear() {
  records_.clear();
  records_.shrink_to_fit();
  memory_->used_ -= bytes_;
  bytes_ = 0;
}

Status WriteBuffer::Drain(const Consumer& merged, const Consumer* raw, bool* raw_is_merged) {
  if (raw_is_merged) *raw_is_merged = false;
  struct ClearOnExit {
    WriteBuffer* buffer;
    ~ClearOnExit() { buffer->Clear(); }
  } clear_on_exit{this};
  if (spec_->primary_key) return DrainSorted(merged, raw, raw_is_merged);
  for (KeyValue& record : records_) TIDE_RETURN_IF_ERROR(merged(record));
  return Status::OK();
}

namespace {

// An order-preserving 64-bit prefix of a key's first column: a < b implies Prefix(a) <= Prefix(b), so a
// sort on (prefix, full comparison) orders records as the full comparison does and compares most pairs
// by one integer (Java's normalized keys do the same). Floating-point keys get no prefix, since
// CompareDatum treats -0.0 and 0.0 as equal.
uint64_t KeyPrefix(const Datum& value) {
  constexpr uint64_t kSign = uint64_t{1} << 63;
  switch (value.storage().index()) {
    case 1: return value.as_bool() ? 1 : 0;
    case 2: return static_cast<uint64_t>(value.as_int()) ^ kSign;
    case 5: {
      unsigned __int128 u = static_cast<unsigned __int128>(value.as_decimal().unscaled) ^
                            (static_cast<unsigned __int128>(1) << 127);
      return static_cast<uint64_t>(u >> 64);
    }
    case 6: return static_cast<uint64_t>(value.as_timestamp().millis) ^ kSign;
    case 7: {
      const std::string& str = value.as_string();
      uint64_t p = 0;
      for (size_t i = 0; i < 8; ++i) p = (p << 8) | (i < str.size() ? static_cast<unsigned char>(str[i]) : 0);
      return p;
    }
    default: return 0;
  }
}

}  // namespace

Status WriteBuffer::DrainSorted(const Consumer& merged, const Consumer* raw, bool* raw_is_merged) {
  const WriteBufferSpec& spec = *spec_;
  auto compare_keys = [&spec](const KeyValue& a, const KeyValue& b) {
    for (int i : spec.key_indices) {
      int c = CompareDatum(a.row[static_cast<size_t>(i)], b.row[static_cast<size_t>(i)]);
      if (c != 0) return c;
    }
    return 0;
  };
  auto less = [&](const KeyValue& a, const KeyValue& b) {
    int c = compare_keys(a, b);
    if (c != 0) return c < 0;
    for (int i : spec.sequence_field_indices) {
      c = CompareDatum(a.row[static_cast<size_t>(i)], b.row[static_cast<size_t>(i)]);
      if (c != 0) return spec.sequence_descending ? c > 0 : c < 0;
    }
    return a.sequence < b.sequence;
  };
  struct SortEntry {
    uint64_t prefix;
    uint32_t index;
  };
  std::vector<SortEntry> order(records_.size());
  const size_t first_key = static_cast<size_t>(spec.key_indices.front());
  for (size_t i = 0; i < records_.size(); ++i) {
    order[i] = SortEntry{KeyPrefix(records_[i].row[first_key]), static_cast<uint32_t>(i)};
  }
  std::sort(order.begin(), order.end(), [&](const SortEntry& a, const SortEntry& b) {
    if (a.prefix != b.prefix) return a.prefix < b.prefix;
    return less(records_[a.index], records_[b.index]);
  });
  {
    std::vector<KeyValue> sorted;
    sorted.reserve(records_.size());
    for (const SortEntry& e : order) sorted.push_back(std::move(records_[e.index]));
    records_.swap(sorted);
  }
  const size_t n = records_.size();
  if (raw && raw_is_merged) {
    bool distinct = true;
    for (size_t k = 1; distinct && k < n; ++k) distinct = compare_keys(records_[k - 1], records_[k]) != 0;
    if (distinct) {
      *raw_is_merged = true;
      raw = nullptr;
    }
  }
  size_t i = 0;
  while (i < n) {
    size_t j = i + 1;
    while (j < n && compare_keys(records_[i], records_[j]) == 0) ++j;
    if (raw) {
      for (size_t t = i; t < j; ++t) {
        KeyValue copy = records_[t];
        TIDE_RETURN_IF_ERROR((*raw)(copy));
      }
    }
    if (j - i == 1) {
      TIDE_RETURN_IF_ERROR(merged(records_[i]));
    } else {
      TIDE_ASSIGN_OR_RETURN(std::optional<KeyValue> result,
                            spec.merge->Merge(std::span<KeyValue>(records_.data() + i, j - i)));
      if (result) TIDE_RETURN_IF_ERROR(merged(*result));
    }
    i = j;
  }
  return Status::OK();
}

}  // namespace tide
