// BinaryRow: Paimon's binary row format, decoded into Tide's Datums and encoded byte-identically to
// Java's BinaryRowWriter (PAIMON_FORMAT.md §5).
//
// Layout of a row of `arity` fields (all numbers little-endian):
//   [header + null bits: BinaryRowNullBitsSize(arity) bytes; byte 0 is the RowKind, the null bit of
//    field i is bit (i + 8)] [one 8-byte slot per field] [variable part, every entry 8-byte aligned].
// A slot holds a fixed-width value, or `(offset << 32) | size` of a variable-part entry (offsets are
// relative to the start of the row), or a string/binary of at most 7 bytes inline (top bit of the
// slot's last byte set, low 7 bits of that byte the length). Nested ARRAY, MAP, MULTISET and ROW values
// are BinaryArray / BinaryMap / BinaryRow sections in the variable part, laid out as Java's
// BinaryArrayWriter / BinaryMap.valueOf write them; their offsets are relative to their own start.
//
// Manifests store a row in its "serialized" form: `[4-byte big-endian arity][row bytes]`
// (SerializationUtils.serializeBinaryRow).
//
// Invariants: decoding never reads outside the given bytes; a slot, offset or length that points
// outside them, or a value its type cannot hold, is Status::Corruption. Encoding produces exactly the
// bytes Java writes for the same values with a fresh writer (zero padding, 8-byte alignment, the 16/8
// variable-part bytes that a NULL non-compact DECIMAL/TIMESTAMP still reserves, the RowKind byte), so
// hashes and bucket numbers agree with Java. VARIANT values are not supported (NotSupported).
//
// Thread-safety: the functions are pure; BinaryRowView is an immutable view over bytes it does not own
// (the bytes must outlive it); a BinaryRowWriter holds only its types, so one may be shared by threads.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tide/base/result.h"
#include "tide/types/data_type.h"
#include "tide/types/datum.h"

namespace tide {

// Paimon's RowKind, stored in byte 0 of a BinaryRow. Keys, partitions and stats rows are always +I.
enum class RowKind : uint8_t {
  kInsert = 0,        // +I
  kUpdateBefore = 1,  // -U
  kUpdateAfter = 2,   // +U
  kDelete = 3,        // -D
};

// -U and -D: the kinds that retract a row.
inline bool IsRetraction(RowKind kind) { return kind == RowKind::kUpdateBefore || kind == RowKind::kDelete; }

// Bytes of the header plus null bit set: ((arity + 63 + 8) / 64) * 8, i.e. 8 for up to 56 fields.
int32_t BinaryRowNullBitsSize(int32_t arity);
// Bytes of the fixed part: the null bits plus one 8-byte slot per field.
int32_t BinaryRowFixedPartSize(int32_t arity);

// A checked, borrowed view of one BinaryRow. Create() verifies that the bytes hold at least the fixed
// part; field accessors check every offset they follow.
class BinaryRowView {
 public:
  // REQUIRES: `bytes` outlives the view. Fails with Corruption if `bytes` is shorter than the fixed
  // part of an `arity`-field row, or InvalidArgument if arity is negative.
  static Result<BinaryRowView> Create(std::string_view bytes, int32_t arity);

  int32_t arity() const { return arity_; }
  std::string_view bytes() const { return bytes_; }
  // Byte 0 of the header. Valid RowKinds are 0..3; other values are returned as they are.
  uint8_t row_kind_byte() const { return static_cast<uint8_t>(bytes_[0]); }
  // REQUIRES: 0 <= pos < arity().
  bool IsNullAt(int32_t pos) const;
  // Decodes field `pos` as `type` (NULL when its null bit is set). REQUIRES: 0 <= pos < arity().
  Result<Datum> GetField(int32_t pos, const DataType& type) const;
  // Decodes every field; `types` must have arity() entries (InvalidArgument otherwise).
  Result<Row> ToRow(std::span<const DataType> types) const;
  // Java's BinaryRow.hashCode(): MurmurHashUtils over all the row bytes (header included), seed 42.
  int32_t HashCode() const;

 private:
  BinaryRowView(std::string_view bytes, int32_t arity) : bytes_(bytes), arity_(arity) {}
  std::string_view bytes_;
  int32_t arity_ = 0;
};

// Decodes a whole BinaryRow whose field types are `types` (its arity is types.size()).
Result<Row> DecodeBinaryRow(std::string_view row_bytes, std::span<const DataType> types);

// The serialized form of manifests: `[4-byte BE arity][row bytes]`.
struct SerializedBinaryRow {
  int32_t arity = 0;
  std::string_view row_bytes;  // borrowed from the input
};
// Splits the serialized form; fails with Corruption if it is shorter than 4 bytes, the arity is
// negative, or the row is shorter than its fixed part.
Result<SerializedBinaryRow> SplitSerializedBinaryRow(std::string_view serialized);
// Decodes the serialized form, checking that its arity equals types.size() (Corruption otherwise, naming
// both counts).
Result<Row> DeserializeBinaryRow(std::string_view serialized, std::span<const DataType> types);
// `[4-byte BE arity][row_bytes]`.
std::string SerializeBinaryRow(std::string_view row_bytes, int32_t arity);
// The same into `*out`, which it replaces (reusing its capacity: no allocation per row).
void SerializeBinaryRowInto(std::string_view row_bytes, int32_t arity, std::string* out);
// Encodes `values` and returns the serialized form, as Java's serializeBinaryRow writes it.
Result<std::string> EncodeSerializedBinaryRow(std::span<const Datum> values, std::span<const DataType> types);

// Encodes rows of one fixed type list into BinaryRow bytes, byte-identical to Java's BinaryRowWriter
// (as driven by InternalRowSerializer / RowHelper with a fresh buffer).
//
// Values must have the Datum representation that datum.h gives for their type (integers as int64_t and
// within the type's range, FLOAT as float, DECIMAL as DecimalValue within its precision, ...);
// anything else fails with InvalidArgument naming the field. Java's quirks are kept: compact
// timestamps (precision <= 3) keep only the millis; float/double NaN is written with its bits as given
// in rows and canonicalized (Java's Float.NaN / Double.NaN) inside arrays.
class BinaryRowWriter {
 public:
  explicit BinaryRowWriter(std::vector<DataType> types) : types_(std::move(types)) {}

  const std::vector<DataType>& types() const { return types_; }

  // Replaces *out with the row bytes of `values` (one per type; InvalidArgument otherwise). Reusing
  // one `out` string across calls avoids allocation on the hot path (bucket keys, sort keys).
  Status Write(std::span<const Datum> values, std::string* out, RowKind kind = RowKind::kInsert) const;
  // Encodes the fields `row[indices[0]], row[indices[1]], ...` (a projection such as the bucket key or
  // the trimmed primary key): types()[j] is the type of row[indices[j]].
  Status WriteProjected(const Row& row, std::span<const int> indices, std::string* out,
                        RowKind kind = RowKind::kInsert) const;
  Result<std::string> Write(std::span<const Datum> values, RowKind kind = RowKind::kInsert) const;

 private:
  std::vector<DataType> types_;
};

// One-shot helper: the BinaryRow bytes of `values` typed by `types`.
Result<std::string> EncodeBinaryRow(std::span<const Datum> values, std::span<const DataType> types,
                                    RowKind kind = RowKind::kInsert);

// Field types of `fields`, in order (for decoding with a schema's fields).
std::vector<DataType> FieldTypes(const std::vector<DataField>& fields);

}  // namespace tide
