// Fixed-bucket assignment: which bucket of a `bucket = N` table a record goes to (PAIMON_FORMAT.md §5.5).
//
// The record is projected onto the bucket key (the `bucket-key` option, or else the trimmed primary
// key) and encoded as a BinaryRow with RowKind +I. Then, by `bucket-function.type`:
//   default  Math.abs(hash % N), hash = the BinaryRow's hashCode (murmur_hash.h), Java's truncating %;
//            the only function in Paimon 0.9-1.2 (DefaultBucketFunction).
//   mod      Math.floorMod(key, N) of a single INT or BIGINT bucket key (ModBucketFunction, 1.3+);
//            a NULL key reads as 0, as Java reads the zeroed slot.
//   hive     Hive-compatible hashing (1.3+): not supported.
// Invariant: a BucketFunction always has num_buckets > 0 and, for `mod`, one INT/BIGINT key field.
// Thread-safety: BucketFunction is immutable; Bucket() uses only the caller's scratch buffer, so one
// instance may be shared by threads that each pass their own scratch.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tide/base/result.h"
#include "tide/codec/binary_row.h"
#include "tide/types/data_type.h"
#include "tide/types/datum.h"

namespace tide {

enum class BucketFunctionType { kDefault, kMod };

// Parses the `bucket-function.type` option value (case-insensitive): `default` or `mod`; `hive` is
// NotSupported, anything else InvalidArgument.
Result<BucketFunctionType> ParseBucketFunctionType(std::string_view text);

// Math.abs(hash % num_buckets). REQUIRES: num_buckets > 0.
int32_t DefaultBucket(int32_t hash, int32_t num_buckets);
// Math.floorMod(value, num_buckets). REQUIRES: num_buckets > 0.
int32_t ModBucket(int64_t value, int32_t num_buckets);

class BucketFunction {
 public:
  // `key_types` are the bucket-key field types in bucket-key order. Fails with InvalidArgument if
  // num_buckets <= 0, or for `mod` unless there is exactly one INT or BIGINT key field.
  static Result<BucketFunction> Create(BucketFunctionType type, std::vector<DataType> key_types,
                                       int32_t num_buckets);

  BucketFunctionType type() const { return type_; }
  int32_t num_buckets() const { return num_buckets_; }
  const std::vector<DataType>& key_types() const { return writer_.types(); }

  // The bucket of a bucket-key row given as values (one per key type). `scratch` holds the encoded
  // row afterwards; reuse it across calls to avoid allocation.
  Result<int32_t> Bucket(std::span<const Datum> key, std::string* scratch) const;
  // The bucket of the projection `row[key_indices[0]], ...` of a full record.
  Result<int32_t> BucketOfProjection(const Row& row, std::span<const int> key_indices, std::string* scratch) const;
  // The bucket of an already encoded bucket-key BinaryRow (e.g. read back from a file). Fails with
  // Corruption if the bytes are shorter than the key's fixed part.
  Result<int32_t> BucketOfBinaryRow(std::string_view row_bytes) const;

 private:
  BucketFunction(BucketFunctionType type, std::vector<DataType> key_types, int32_t num_buckets)
      : type_(type), writer_(std::move(key_types)), num_buckets_(num_buckets) {}

  BucketFunctionType type_;
  BinaryRowWriter writer_;
  int32_t num_buckets_;
};

}  // namespace tide
