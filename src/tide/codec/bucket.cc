#include "tide/codec/bucket.h"

#include <cstdlib>

#include "tide/base/bytes.h"
#include "tide/base/strings.h"
#include "tide/codec/murmur_hash.h"

namespace tide {

Result<BucketFunctionType> ParseBucketFunctionType(std::string_view text) {
  if (EqualsIgnoreCase(text, "default")) return BucketFunctionType::kDefault;
  if (EqualsIgnoreCase(text, "mod")) return BucketFunctionType::kMod;
  if (EqualsIgnoreCase(text, "hive")) {
    return Status::NotSupported("bucket-function.type 'hive' is not supported; use 'default' or 'mod'");
  }
  return Status::InvalidArgument("unknown bucket-function.type '{}': expected 'default' or 'mod'", text);
}

int32_t DefaultBucket(int32_t hash, int32_t num_buckets) {
  // C++ % truncates toward zero like Java's; |hash % n| < n, so abs cannot overflow.
  return std::abs(hash % num_buckets);
}

int32_t ModBucket(int64_t value, int32_t num_buckets) {
  const int64_t r = value % num_buckets;
  return static_cast<int32_t>(r < 0 ? r + num_buckets : r);
}

Result<BucketFunction> BucketFunction::Create(BucketFunctionType type, std::vector<DataType> key_types,
                                              int32_t num_buckets) {
  if (num_buckets <= 0) {
    return Status::InvalidArgument("a fixed-bucket table needs bucket > 0, got {}", num_buckets);
  }
  if (key_types.empty()) {
    return Status::InvalidArgument("a fixed-bucket table needs a bucket key (set 'bucket-key')");
  }
  if (type == BucketFunctionType::kMod) {
    if (key_types.size() != 1 ||
        (key_types[0].root() != TypeRoot::kInt && key_types[0].root() != TypeRoot::kBigInt)) {
      return Status::InvalidArgument(
          "bucket-function.type 'mod' needs exactly one INT or BIGINT bucket-key field, got {} field(s)",
          key_types.size());
    }
  }
  return BucketFunction(type, std::move(key_types), num_buckets);
}

Result<int32_t> BucketFunction::Bucket(std::span<const Datum> key, std::string* scratch) const {
  TIDE_RETURN_IF_ERROR(writer_.Write(key, scratch));
  return BucketOfBinaryRow(*scratch);
}

Result<int32_t> BucketFunction::BucketOfProjection(const Row& row, std::span<const int> key_indices,
                                                   std::string* scratch) const {
  TIDE_RETURN_IF_ERROR(writer_.WriteProjected(row, key_indices, scratch));
  return BucketOfBinaryRow(*scratch);
}

Result<int32_t> BucketFunction::BucketOfBinaryRow(std::string_view row_bytes) const {
  const int32_t arity = static_cast<int32_t>(writer_.types().size());
  if (row_bytes.size() < static_cast<size_t>(BinaryRowFixedPartSize(arity))) {
    return Status::Corruption("bucket-key BinaryRow of {} bytes is shorter than the {}-byte fixed part of {} fields",
                              row_bytes.size(), BinaryRowFixedPartSize(arity), arity);
  }
  if (type_ == BucketFunctionType::kDefault) return DefaultBucket(BinaryRowHashCode(row_bytes), num_buckets_);
  // mod: read the single slot as Java's row.getInt(0) / row.getLong(0) does (zero when NULL).
  const char* slot = row_bytes.data() + BinaryRowNullBitsSize(1);
  const int64_t value = writer_.types()[0].root() == TypeRoot::kInt ? LoadLE<int32_t>(slot) : LoadLE<int64_t>(slot);
  return ModBucket(value, num_buckets_);
}

}  // namespace tide
