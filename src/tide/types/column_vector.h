// ColumnVector: the values of one column of a batch of rows, stored by type instead of as Datums, so a
// writer can sort, encode and gather statistics over plain arrays.
//
// Storage by type root (ColumnVector::KindOf):
//   kInt64   BOOLEAN (0 or 1), TINYINT, SMALLINT, INT, BIGINT, DATE (days), TIME (millis of the day),
//            DECIMAL(p <= 18) (the unscaled value), TIMESTAMP(p <= 6) and TIMESTAMP_LTZ(p <= 6) (epoch
//            milliseconds for p <= 3, microseconds for 4 <= p <= 6: the units Parquet stores)
//   kFloat   FLOAT (the float, exactly: NaN payloads included)
//   kDouble  DOUBLE
//   kBytes   CHAR, VARCHAR, BINARY, VARBINARY (offsets into one byte arena)
// Other types (wider decimals and timestamps, nested types) have no ColumnVector: their columns stay in
// Datum rows. A NULL row keeps a zero or empty slot, so row i is at index i in every array.
//
// Invariant: every array holds size() entries (offsets_ one more); nulls_ is empty until the first NULL,
// then holds size() flags.
// Thread-safety: a value; one writer at a time, any number of readers of a const vector.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tide/base/pod_buffer.h"
#include "tide/base/result.h"
#include "tide/types/data_type.h"
#include "tide/types/datum.h"

namespace tide {

class ColumnVector {
 public:
  enum class Kind : uint8_t { kInt64, kFloat, kDouble, kBytes };

  // How a column of `type` is stored, or nullopt when it has no ColumnVector.
  static std::optional<Kind> KindOf(const DataType& type);

  // REQUIRES: KindOf(type).
  explicit ColumnVector(DataType type);

  const DataType& type() const { return type_; }
  Kind kind() const { return kind_; }
  size_t size() const { return size_; }
  bool has_nulls() const { return !nulls_.empty(); }
  bool IsNull(size_t i) const { return !nulls_.empty() && nulls_[i] != 0; }

  int64_t Int64(size_t i) const { return ints_[i]; }
  float Float(size_t i) const {
    float f;
    const uint32_t bits = static_cast<uint32_t>(ints_[i]);
    std::memcpy(&f, &bits, sizeof f);
    return f;
  }
  double Double(size_t i) const { return reals_[i]; }
  std::string_view Bytes(size_t i) const {
    return std::string_view(bytes_.data() + offsets_[i], offsets_[i + 1] - offsets_[i]);
  }

  void AppendNull();
  void AppendInt64(int64_t v) {
    ints_.push_back(v);
    Appended();
  }
  void AppendFloat(float v) {
    uint32_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    ints_.push_back(static_cast<int64_t>(bits));
    Appended();
  }
  void AppendDouble(double v) {
    reals_.push_back(v);
    Appended();
  }
  void AppendBytes(std::string_view v) {
    bytes_.Append(v.data(), v.size());
    offsets_.push_back(bytes_.size());
    Appended();
  }
  // Appends a Datum of this column's type (NULL included). InvalidArgument naming `column` when the
  // value does not have the representation the type's Datum has, or does not fit the storage: a decimal
  // beyond 18 digits, a timestamp with digits below the column's precision.
  Status AppendDatum(const Datum& value, std::string_view column);
  // The value at `i` as a Datum of the column's type.
  Datum GetDatum(size_t i) const;

  // Keeps the first `size` values (size <= size()).
  void Truncate(size_t size);
  // Empties the vector, keeping its memory.
  void Clear() { Truncate(0); }
  // Bytes of memory the vector holds (inline: a write buffer sums it over its columns per record).
  int64_t memory_bytes() const {
    return static_cast<int64_t>(ints_.capacity() * sizeof(int64_t) + reals_.capacity() * sizeof(double) +
                                offsets_.capacity() * sizeof(size_t) + bytes_.capacity() + nulls_.capacity());
  }

 private:
  void Appended() {
    if (!nulls_.empty()) nulls_.push_back(0);
    ++size_;
  }

  DataType type_;
  Kind kind_;
  size_t size_ = 0;
  // PodBuffers: a write buffer's columns grow to tens of thousands of values, without copying them.
  PodBuffer<int64_t> ints_;      // kInt64, kFloat (the float's bits)
  PodBuffer<double> reals_;      // kDouble
  PodBuffer<size_t> offsets_;    // kBytes: size() + 1 offsets into bytes_
  PodBuffer<char> bytes_;        // kBytes
  PodBuffer<uint8_t> nulls_;     // 1: NULL
};

}  // namespace tide
