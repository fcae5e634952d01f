#include "tide/table/mergetree/columnar_write_buffer.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

namespace tide {
namespace {

template <typename T>
int Cmp(T a, T b) {
  return (a > b) - (a < b);
}

// CompareDatum's order for two values of one column.
int CompareAt(const ColumnVector& c, size_t a, size_t b) {
  const bool null_a = c.IsNull(a), null_b = c.IsNull(b);
  if (null_a || null_b) return null_a == null_b ? 0 : (null_a ? -1 : 1);
  switch (c.kind()) {
    case ColumnVector::Kind::kInt64: return Cmp(c.Int64(a), c.Int64(b));
    case ColumnVector::Kind::kFloat: {
      const float x = c.Float(a), y = c.Float(b);
      if (std::isnan(x) || std::isnan(y)) return Cmp(std::isnan(x), std::isnan(y));
      return Cmp(x, y);
    }
    case ColumnVector::Kind::kDouble: {
      const double x = c.Double(a), y = c.Double(b);
      if (std::isnan(x) || std::isnan(y)) return Cmp(std::isnan(x), std::isnan(y));
      return Cmp(x, y);
    }
    case ColumnVector::Kind::kBytes: return Cmp(c.Bytes(a).compare(c.Bytes(b)), 0);
  }
  return 0;
}

}  // namespace

bool ColumnarWriteBuffer::Supports(const WriteBufferSpec& spec, const std::vector<DataField>& fields) {
  if (!spec.primary_key || !spec.sequence_field_indices.empty() || spec.key_indices.empty()) return false;
  for (const DataField& f : fields) {
    if (!ColumnVector::KindOf(f.type)) return false;
  }
  return true;
}

ColumnarWriteBuffer::ColumnarWriteBuffer(const WriteBufferSpec* spec, const std::vector<DataField>& fields,
                                         bool ignore_delete, WriteBufferMemory* memory)
    : spec_(spec), fields_(fields), ignore_delete_(ignore_delete), memory_(memory) {
  columns_.reserve(fields_.size());
  for (const DataField& f : fields_) columns_.emplace_back(f.type);
  for (const ColumnVector& c : columns_) column_pointers_.push_back(&c);
}

void ColumnarWriteBuffer::Charge() {
  int64_t now = sequences_.memory_bytes() + kinds_.memory_bytes();
  for (const ColumnVector& c : columns_) now += c.memory_bytes();
  // Most records fit the vectors' capacity: the shared (atomic) count changes only when one grew.
  if (now == bytes_) return;
  memory_->used_ += now - bytes_;
  bytes_ = now;
}

Status ColumnarWriteBuffer::Put(const Row& row, int64_t sequence, ValueKind kind) {
  if (row.size() != columns_.size()) {
    return Status::InvalidArgument("a row of {} values for {} columns", row.size(), columns_.size());
  }
  const size_t before = size();
  for (size_t c = 0; c < columns_.size(); ++c) {
    Status added = columns_[c].AppendDatum(row[c], fields_[c].name);
    if (!added.ok()) {
      for (size_t d = 0; d <= c; ++d) columns_[d].Truncate(before);
      return added;
    }
  }
  sequences_.AppendInt64(sequence);
  kinds_.AppendInt64(static_cast<int64_t>(kind));
  Charge();
  return Status::OK();
}

void ColumnarWriteBuffer::Clear() {
  // Fresh vectors: the memory goes back, as WriteBuffer::Clear gives its records' back. Swapped, not
  // move-assigned: a std::string assigned from an empty one keeps its buffer, so a text column's byte
  // arena stayed allocated, and charged (memory_bytes counts capacity), after every flush; the writer,
  // over its budget from then on, flushed a file per row.
  auto renew = [](ColumnVector& c) {
    ColumnVector fresh(c.type());
    std::swap(c, fresh);
  };
  for (ColumnVector& c : columns_) renew(c);
  renew(sequences_);
  renew(kinds_);
  memory_->used_ -= bytes_;
  bytes_ = 0;
}

Status ColumnarWriteBuffer::Drain(const Consumer& merged, const Consumer* raw, bool* raw_is_merged) {
  if (raw_is_merged) *raw_is_merged = false;
  struct ClearOnExit {
    ColumnarWriteBuffer* buffer;
    ~ClearOnExit() { buffer->Clear(); }
  } clear_on_exit{this};
  const size_t n = size();
  if (n == 0) return Status::OK();
  const std::vector<int>& keys = spec_->key_indices;
  auto compare_keys = [&](uint32_t a, uint32_t b) {
    for (int k : keys) {
      const int c = CompareAt(columns_[static_cast<size_t>(k)], a, b);
      if (c != 0) return c;
    }
    return 0;
  };
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  const ColumnVector& first_key = columns_[static_cast<size_t>(keys.front())];
  // The common key, one integer: compared without the generic path.
  const bool int_key = keys.size() == 1 && first_key.kind() == ColumnVector::Kind::kInt64;
  auto same_key = [&](uint32_t a, uint32_t b) {
    return int_key ? first_key.Int64(a) == first_key.Int64(b) : compare_keys(a, b) == 0;
  };
  // Rows often come in key order (an initial copy reads a table in its physical order, which follows
  // its key when the keys grew with the inserts): checked first, a sorted buffer is not sorted again.
  auto sort_by = [&order](auto before) {
    if (!std::is_sorted(order.begin(), order.end(), before)) std::sort(order.begin(), order.end(), before);
  };
  if (int_key) {
    sort_by([&](uint32_t a, uint32_t b) {
      const int64_t x = first_key.Int64(a), y = first_key.Int64(b);
      if (x != y) return x < y;
      return sequences_.Int64(a) < sequences_.Int64(b);
    });
  } else {
    sort_by([&](uint32_t a, uint32_t b) {
      const int c = compare_keys(a, b);
      if (c != 0) return c < 0;
      return sequences_.Int64(a) < sequences_.Int64(b);
    });
  }
  if (raw && raw_is_merged) {
    bool distinct = true;
    for (size_t i = 1; distinct && i < n; ++i) distinct = !same_key(order[i - 1], order[i]);
    if (distinct) {
      *raw_is_merged = true;
      raw = nullptr;
    }
  }
  if (raw) TIDE_RETURN_IF_ERROR((*raw)(column_pointers_, sequences_, kinds_, order.data(), n));
  std::vector<uint32_t> out;
  out.reserve(n);
  size_t i = 0;
  while (i < n) {
    size_t j = i + 1;
    while (j < n && same_key(order[i], order[j])) ++j;
    if (j - i == 1) {
      out.push_back(order[i]);
    } else {
      // Deduplicate: the newest record, past retractions when they are ignored.
      for (size_t t = j; t-- > i;) {
        if (ignore_delete_ && IsRetract(static_cast<ValueKind>(kinds_.Int64(order[t])))) continue;
        out.push_back(order[t]);
        break;
      }
    }
    i = j;
  }
  if (out.empty()) return Status::OK();
  return merged(column_pointers_, sequences_, kinds_, out.data(), out.size());
}

}  // namespace tide
