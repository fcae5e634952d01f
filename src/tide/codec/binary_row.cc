#include "tide/codec/binary_row.h"

#include <bit>
#include <cstring>
#include <limits>
#include <utility>

#include "tide/base/bytes.h"
#include "tide/codec/murmur_hash.h"

namespace tide {
namespace {

using uint128_t = unsigned __int128;

constexpr int kMaxCompactDecimalPrecision = 18;   // Decimal.MAX_COMPACT_PRECISION
constexpr int kMaxCompactTimestampPrecision = 3;  // Timestamp.isCompact
constexpr int kMaxDecimalBytes = 16;              // BigInteger.toByteArray() of a DECIMAL(38)
constexpr int kMaxInlineBytes = 7;                // BinarySection.MAX_FIX_PART_DATA_SIZE
constexpr uint8_t kInlineMark = 0x80;
constexpr int32_t kMaxNanosOfMilli = 999'999;
// A MULTISET is decoded by repeating each element `count` times; a corrupt count must not make Tide
// allocate without bound.
constexpr int64_t kMaxMultisetExpansion = int64_t{1} << 20;

// |v| < 10^precision, computed without overflow for any 128-bit v (including the minimum).
bool FitsPrecision(int128_t v, int precision) {
  uint128_t magnitude = v < 0 ? uint128_t(0) - static_cast<uint128_t>(v) : static_cast<uint128_t>(v);
  uint128_t bound = 1;
  for (int i = 0; i < precision && i < 39; ++i) bound *= 10;
  return precision >= 39 || magnitude < bound;
}

int64_t RoundUpTo8(int64_t n) { return (n + 7) & ~int64_t{7}; }

// BinaryArray.calculateHeaderInBytes: the element count plus the null bits in 4-byte words.
int64_t ArrayHeaderSize(int64_t num_elements) { return 4 + ((num_elements + 31) / 32) * 4; }

// BinaryArray.calculateFixLengthPartSize: the width of one element in an array's fixed part.
Result<int> ArrayElementSize(const DataType& type) {
  switch (type.root()) {
    case TypeRoot::kBoolean:
    case TypeRoot::kTinyInt:
      return 1;
    case TypeRoot::kSmallInt:
      return 2;
    case TypeRoot::kInt:
    case TypeRoot::kFloat:
    case TypeRoot::kDate:
    case TypeRoot::kTime:
      return 4;
    case TypeRoot::kBigInt:
    case TypeRoot::kDouble:
    case TypeRoot::kDecimal:
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary:
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz:
    case TypeRoot::kArray:
    case TypeRoot::kMultiset:
    case TypeRoot::kMap:
    case TypeRoot::kRow:
      return 8;
    case TypeRoot::kVariant:
      break;
  }
  return Status::NotSupported("BinaryRow: {} values are not supported", type.ToString());
}

std::vector<DataType> RowFieldTypes(const DataType& row_type) { return FieldTypes(row_type.fields()); }

// The INT NOT NULL count type of a MULTISET's map form (InternalSerializers: MULTISET -> MAP<T, INT>).
const DataType& MultisetCountType() {
  static const DataType type = DataType::Int(false);
  return type;
}

// ------------------------------------------------------------------------------------------------
// Decoding. A "section" is the bytes of one row, array or map; offsets in its slots are relative to
// the section's first byte. Every offset and length read from the bytes is checked before use.

Result<Datum> ReadValue(std::string_view section, size_t field_offset, const DataType& type);
Result<Row> DecodeRowSection(std::string_view section, std::span<const DataType> types);
Result<std::vector<Datum>> DecodeArraySection(std::string_view section, const DataType& element);
Result<std::vector<Datum>> DecodeMapSection(std::string_view section, const DataType& key,
                                            const DataType& value);

// The variable-part entry that a slot `(offset << 32) | size` points to.
Result<std::string_view> VarPart(std::string_view section, uint64_t slot) {
  const int32_t offset = static_cast<int32_t>(slot >> 32);
  const int32_t size = static_cast<int32_t>(slot);
  if (offset < 0 || size < 0 || static_cast<uint64_t>(offset) + static_cast<uint64_t>(size) > section.size()) {
    return Status::Corruption(
        "variable-part entry at offset {} with length {} lies outside the {}-byte section (slot {:#018x})",
        offset, size, section.size(), slot);
  }
  return section.substr(static_cast<size_t>(offset), static_cast<size_t>(size));
}

// A string or binary value: inline in the slot (<= 7 bytes, top bit of the last slot byte set) or in
// the variable part.
Result<std::string_view> ReadBytes(std::string_view section, size_t field_offset) {
  const uint64_t slot = LoadLE<uint64_t>(section.data() + field_offset);
  const uint8_t last = static_cast<uint8_t>(slot >> 56);
  if (last & kInlineMark) {
    const int length = last & 0x7f;
    if (length > kMaxInlineBytes) {
      return Status::Corruption("inline value claims {} bytes, at most {} fit in a slot", length,
                                kMaxInlineBytes);
    }
    return section.substr(field_offset, static_cast<size_t>(length));
  }
  return VarPart(section, slot);
}

Result<DecimalValue> ReadDecimal(std::string_view section, size_t field_offset, const DataType& type) {
  const uint64_t slot = LoadLE<uint64_t>(section.data() + field_offset);
  if (type.precision() <= kMaxCompactDecimalPrecision) {
    return DecimalValue{static_cast<int64_t>(slot)};
  }
  TIDE_ASSIGN_OR_RETURN(std::string_view bytes, VarPart(section, slot));
  if (bytes.empty() || bytes.size() > kMaxDecimalBytes) {
    return Status::Corruption("decimal of {} bytes; a {} holds 1 to {}", bytes.size(), type.ToString(),
                              kMaxDecimalBytes);
  }
  // Big-endian two's complement (BigInteger.toByteArray), sign-extended to 128 bits.
  uint128_t unsigned_value = static_cast<uint8_t>(bytes[0]) & 0x80 ? ~uint128_t(0) : uint128_t(0);
  for (char c : bytes) unsigned_value = (unsigned_value << 8) | static_cast<uint8_t>(c);
  const int128_t value = static_cast<int128_t>(unsigned_value);
  if (!FitsPrecision(value, type.precision())) {
    return Status::Corruption("decimal value has more than the {} digits of {}", type.precision(),
                              type.ToString());
  }
  return DecimalValue{value};
}

Result<TimestampValue> ReadTimestamp(std::string_view section, size_t field_offset, const DataType& type) {
  const uint64_t slot = LoadLE<uint64_t>(section.data() + field_offset);
  if (type.precision() <= kMaxCompactTimestampPrecision) {
    return TimestampValue{static_cast<int64_t>(slot), 0};
  }
  const int32_t nanos = static_cast<int32_t>(slot);
  if (nanos < 0 || nanos > kMaxNanosOfMilli) {
    return Status::Corruption("timestamp nano-of-millisecond {} is outside 0..{}", nanos, kMaxNanosOfMilli);
  }
  TIDE_ASSIGN_OR_RETURN(std::string_view millis, VarPart(section, (slot & 0xffffffff00000000ull) | 8u));
  return TimestampValue{LoadLE<int64_t>(millis.data()), nanos};
}

// REQUIRES: field_offset + the value's fixed width <= section.size() (the caller checked the fixed part).
Result<Datum> ReadValue(std::string_view section, size_t field_offset, const DataType& type) {
  const char* p = section.data() + field_offset;
  switch (type.root()) {
    case TypeRoot::kBoolean:
      return Datum(*p != 0);
    case TypeRoot::kTinyInt:
      return Datum(static_cast<int64_t>(static_cast<int8_t>(*p)));
    case TypeRoot::kSmallInt:
      return Datum(static_cast<int64_t>(LoadLE<int16_t>(p)));
    case TypeRoot::kInt:
    case TypeRoot::kDate:
    case TypeRoot::kTime:
      return Datum(static_cast<int64_t>(LoadLE<int32_t>(p)));
    case TypeRoot::kBigInt:
      return Datum(LoadLE<int64_t>(p));
    case TypeRoot::kFloat:
      return Datum(std::bit_cast<float>(LoadLE<uint32_t>(p)));
    case TypeRoot::kDouble:
      return Datum(std::bit_cast<double>(LoadLE<uint64_t>(p)));
    case TypeRoot::kDecimal: {
      TIDE_ASSIGN_OR_RETURN(DecimalValue value, ReadDecimal(section, field_offset, type));
      return Datum(value);
    }
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz: {
      TIDE_ASSIGN_OR_RETURN(TimestampValue value, ReadTimestamp(section, field_offset, type));
      return Datum(value);
    }
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary: {
      TIDE_ASSIGN_OR_RETURN(std::string_view bytes, ReadBytes(section, field_offset));
      return Datum(bytes);
    }
    case TypeRoot::kArray: {
      TIDE_ASSIGN_OR_RETURN(std::string_view nested, VarPart(section, LoadLE<uint64_t>(p)));
      TIDE_ASSIGN_OR_RETURN(std::vector<Datum> items, DecodeArraySection(nested, type.element()));
      return Datum::Nested(std::move(items));
    }
    case TypeRoot::kMap: {
      TIDE_ASSIGN_OR_RETURN(std::string_view nested, VarPart(section, LoadLE<uint64_t>(p)));
      TIDE_ASSIGN_OR_RETURN(std::vector<Datum> items, DecodeMapSection(nested, type.key(), type.value()));
      return Datum::Nested(std::move(items));
    }
    case TypeRoot::kMultiset: {
      TIDE_ASSIGN_OR_RETURN(std::string_view nested, VarPart(section, LoadLE<uint64_t>(p)));
      TIDE_ASSIGN_OR_RETURN(std::vector<Datum> pairs,
                            DecodeMapSection(nested, type.element(), MultisetCountType()));
      std::vector<Datum> items;
      int64_t total = 0;
      for (size_t i = 0; i < pairs.size(); i += 2) {
        const int64_t count = pairs[i + 1].is_null() ? 0 : pairs[i + 1].as_int();
        if (count < 0) return Status::Corruption("multiset element count {} is negative", count);
        total += count;
        if (total > kMaxMultisetExpansion) {
          return Status::NotSupported("multiset holds more than {} elements", kMaxMultisetExpansion);
        }
        for (int64_t c = 0; c < count; ++c) items.push_back(pairs[i]);
      }
      return Datum::Nested(std::move(items));
    }
    case TypeRoot::kRow: {
      TIDE_ASSIGN_OR_RETURN(std::string_view nested, VarPart(section, LoadLE<uint64_t>(p)));
      const std::vector<DataType> field_types = RowFieldTypes(type);
      TIDE_ASSIGN_OR_RETURN(Row fields, DecodeRowSection(nested, field_types));
      return Datum::Nested(std::move(fields));
    }
    case TypeRoot::kVariant:
      break;
  }
  return Status::NotSupported("BinaryRow: {} values are not supported", type.ToString());
}

inline bool RowNullBit(std::string_view row, int32_t pos) {
  const int32_t bit = pos + 8;  // BinaryRow.HEADER_SIZE_IN_BITS
  return (static_cast<uint8_t>(row[bit >> 3]) >> (bit & 7)) & 1;
}

Result<Row> DecodeRowSection(std::string_view section, std::span<const DataType> types) {
  const int32_t arity = static_cast<int32_t>(types.size());
  const int32_t null_bits = BinaryRowNullBitsSize(arity);
  if (section.size() < static_cast<size_t>(BinaryRowFixedPartSize(arity))) {
    return Status::Corruption("row of {} fields needs at least {} bytes, has {}", arity,
                              BinaryRowFixedPartSize(arity), section.size());
  }
  Row row;
  row.reserve(types.size());
  for (int32_t i = 0; i < arity; ++i) {
    if (RowNullBit(section, i)) {
      row.emplace_back();
      continue;
    }
    Result<Datum> value = ReadValue(section, static_cast<size_t>(null_bits) + 8 * static_cast<size_t>(i), types[i]);
    if (!value.ok()) {
      return value.status().WithContext(fmt::format("field {} ({})", i, types[i].ToString()));
    }
    row.push_back(std::move(value).value());
  }
  return row;
}

Result<std::vector<Datum>> DecodeArraySection(std::string_view section, const DataType& element) {
  if (section.size() < 4) {
    return Status::Corruption("array of {} bytes is shorter than its 4-byte element count", section.size());
  }
  const int32_t count = LoadLE<int32_t>(section.data());
  TIDE_ASSIGN_OR_RETURN(const int element_size, ArrayElementSize(element));
  const int64_t header = ArrayHeaderSize(count);
  if (count < 0 || header + int64_t{count} * element_size > static_cast<int64_t>(section.size())) {
    return Status::Corruption("array claims {} elements of {} bytes, more than its {} bytes hold", count,
                              element_size, section.size());
  }
  std::vector<Datum> items;
  items.reserve(static_cast<size_t>(count));
  for (int32_t i = 0; i < count; ++i) {
    const bool is_null = (static_cast<uint8_t>(section[4 + (i >> 3)]) >> (i & 7)) & 1;
    if (is_null) {
      items.emplace_back();
      continue;
    }
    Result<Datum> value =
        ReadValue(section, static_cast<size_t>(header) + static_cast<size_t>(i) * element_size, element);
    if (!value.ok()) {
      return value.status().WithContext(fmt::format("array element {} ({})", i, element.ToString()));
    }
    items.push_back(std::move(value).value());
  }
  return items;
}

// BinaryMap: [4-byte key-array size][key BinaryArray][value BinaryArray]. Returns k0, v0, k1, v1, ...
Result<std::vector<Datum>> DecodeMapSection(std::string_view section, const DataType& key,
                                            const DataType& value) {
  if (section.size() < 4) {
    return Status::Corruption("map of {} bytes is shorter than its 4-byte key-array size", section.size());
  }
  const int32_t key_bytes = LoadLE<int32_t>(section.data());
  if (key_bytes < 0 || static_cast<uint64_t>(key_bytes) > section.size() - 4) {
    return Status::Corruption("map key array of {} bytes does not fit in the {}-byte map", key_bytes,
                              section.size());
  }
  Result<std::vector<Datum>> keys = DecodeArraySection(section.substr(4, static_cast<size_t>(key_bytes)), key);
  if (!keys.ok()) return keys.status().WithContext("map keys");
  Result<std::vector<Datum>> values = DecodeArraySection(section.substr(4 + static_cast<size_t>(key_bytes)), value);
  if (!values.ok()) return values.status().WithContext("map values");
  if (keys->size() != values->size()) {
    return Status::Corruption("map has {} keys but {} values", keys->size(), values->size());
  }
  std::vector<Datum> items;
  items.reserve(keys->size() * 2);
  for (size_t i = 0; i < keys->size(); ++i) {
    items.push_back(std::move((*keys)[i]));
    items.push_back(std::move((*values)[i]));
  }
  return items;
}

// ------------------------------------------------------------------------------------------------
// Encoding. Sections are appended to one buffer; nested sections are written in place at the end of
// the buffer, which is exactly where their enclosing section's variable part continues (its cursor).

const char* StorageName(const Datum& value) {
  switch (value.storage().index()) {
    case 0: return "NULL";
    case 1: return "a boolean";
    case 2: return "an integer";
    case 3: return "a float";
    case 4: return "a double";
    case 5: return "a decimal";
    case 6: return "a timestamp";
    case 7: return "a string";
    default: return "a nested value";
  }
}

Status WrongKind(const Datum& value, const DataType& type, const char* expected) {
  return Status::InvalidArgument("a {} value must be {}, got {}", type.ToString(), expected, StorageName(value));
}

// Java's BigInteger.toByteArray(): minimal big-endian two's complement, at least one byte.
int MinimalBigEndian(int128_t value, char out[kMaxDecimalBytes]) {
  const uint128_t bits = static_cast<uint128_t>(value);
  for (int i = 0; i < kMaxDecimalBytes; ++i) {
    out[i] = static_cast<char>(static_cast<uint8_t>(bits >> (8 * (kMaxDecimalBytes - 1 - i))));
  }
  int start = 0;
  while (start < kMaxDecimalBytes - 1) {
    const uint8_t b0 = static_cast<uint8_t>(out[start]);
    const uint8_t b1 = static_cast<uint8_t>(out[start + 1]);
    const bool redundant = (b0 == 0x00 && !(b1 & 0x80)) || (b0 == 0xff && (b1 & 0x80));
    if (!redundant) break;
    ++start;
  }
  const int length = kMaxDecimalBytes - start;
  std::memmove(out, out + start, static_cast<size_t>(length));
  return length;
}

class SectionEncoder {
 public:
  explicit SectionEncoder(std::string* buf) : buf_(buf) {}

  // Appends a BinaryRow of `values` (value j is row[indices[j]] when indices is given).
  Status WriteRow(std::span<const Datum> values, const std::span<const int>* indices,
                  std::span<const DataType> types, uint8_t kind) {
    const size_t count = indices ? indices->size() : values.size();
    if (count != types.size()) {
      return Status::InvalidArgument("BinaryRow: {} values for {} field types", count, types.size());
    }
    const int32_t arity = static_cast<int32_t>(types.size());
    const size_t base = buf_->size();
    const int32_t null_bits = BinaryRowNullBitsSize(arity);
    buf_->resize(base + static_cast<size_t>(BinaryRowFixedPartSize(arity)), '\0');
    (*buf_)[base] = static_cast<char>(kind);
    for (int32_t i = 0; i < arity; ++i) {
      const Datum* value;
      if (indices) {
        const int index = (*indices)[static_cast<size_t>(i)];
        if (index < 0 || static_cast<size_t>(index) >= values.size()) {
          return Status::InvalidArgument("BinaryRow: projection index {} outside a row of {} values", index,
                                         values.size());
        }
        value = &values[static_cast<size_t>(index)];
      } else {
        value = &values[static_cast<size_t>(i)];
      }
      const DataType& type = types[static_cast<size_t>(i)];
      const size_t field_offset = static_cast<size_t>(null_bits) + 8 * static_cast<size_t>(i);
      Status st = value->is_null() ? WriteRowNull(base, field_offset, i, type)
                                   : WriteValue(base, field_offset, *value, type, /*in_array=*/false);
      if (!st.ok()) return st.WithContext(fmt::format("field {} ({})", i, type.ToString()));
    }
    return Status::OK();
  }

  // Appends a BinaryArray of `items` (BinaryArrayWriter).
  Status WriteArray(const std::vector<Datum>& items, const DataType& element) {
    TIDE_ASSIGN_OR_RETURN(const int element_size, ArrayElementSize(element));
    const int64_t count = static_cast<int64_t>(items.size());
    if (count > std::numeric_limits<int32_t>::max()) {
      return Status::InvalidArgument("array of {} elements is too large", count);
    }
    const int64_t header = ArrayHeaderSize(count);
    const size_t base = buf_->size();
    buf_->resize(base + static_cast<size_t>(RoundUpTo8(header + count * element_size)), '\0');
    StoreLE<int32_t>(buf_->data() + base, static_cast<int32_t>(count));
    for (int64_t i = 0; i < count; ++i) {
      const Datum& item = items[static_cast<size_t>(i)];
      if (item.is_null()) {
        // setNullAt(pos, type): the null bit; the element bytes stay zero (no reserved var part).
        (*buf_)[base + 4 + static_cast<size_t>(i >> 3)] |= static_cast<char>(1 << (i & 7));
        continue;
      }
      Status st = WriteValue(base, static_cast<size_t>(header + i * element_size), item, element,
                             /*in_array=*/true);
      if (!st.ok()) return st.WithContext(fmt::format("array element {} ({})", i, element.ToString()));
    }
    return Status::OK();
  }

  // Appends a BinaryMap: [4-byte key-array size][keys][values] (BinaryMap.valueOf).
  Status WriteMap(const std::vector<Datum>& keys, const std::vector<Datum>& values, const DataType& key_type,
                  const DataType& value_type) {
    const size_t base = buf_->size();
    buf_->resize(base + 4, '\0');
    Status st = WriteArray(keys, key_type);
    if (!st.ok()) return st.WithContext("map keys");
    const size_t key_bytes = buf_->size() - base - 4;
    if (key_bytes > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
      return Status::InvalidArgument("map key array of {} bytes is too large", key_bytes);
    }
    StoreLE<int32_t>(buf_->data() + base, static_cast<int32_t>(key_bytes));
    st = WriteArray(values, value_type);
    if (!st.ok()) return st.WithContext("map values");
    return Status::OK();
  }

 private:
  void SetSlot(size_t base, size_t field_offset, uint64_t slot) {
    StoreLE<uint64_t>(buf_->data() + base + field_offset, slot);
  }

  // The cursor of the section starting at `base`: its variable part always ends the buffer.
  Result<uint64_t> Cursor(size_t base) const {
    const size_t cursor = buf_->size() - base;
    if (cursor > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
      return Status::InvalidArgument("BinaryRow section of {} bytes exceeds 2 GiB", cursor);
    }
    return static_cast<uint64_t>(cursor);
  }

  // Appends `bytes` to the variable part, zero-padded to 8 bytes; returns the slot (offset << 32 | size).
  Result<uint64_t> AppendVar(size_t base, std::string_view bytes) {
    TIDE_ASSIGN_OR_RETURN(const uint64_t offset, Cursor(base));
    buf_->append(bytes);
    buf_->resize(buf_->size() + static_cast<size_t>(RoundUpTo8(static_cast<int64_t>(bytes.size())) -
                                                    static_cast<int64_t>(bytes.size())),
                 '\0');
    return (offset << 32) | static_cast<uint32_t>(bytes.size());
  }

  // A NULL row field: its null bit, a zero slot, except that non-compact DECIMAL and TIMESTAMP keep
  // reserving their variable-part bytes (RowHelper writes them through writeDecimal/writeTimestamp).
  Status WriteRowNull(size_t base, size_t field_offset, int32_t pos, const DataType& type) {
    const int32_t bit = pos + 8;
    (*buf_)[base + static_cast<size_t>(bit >> 3)] |= static_cast<char>(1 << (bit & 7));
    size_t reserved = 0;
    if (type.root() == TypeRoot::kDecimal && type.precision() > kMaxCompactDecimalPrecision) {
      reserved = kMaxDecimalBytes;
    } else if (type.IsTimestamp() && type.precision() > kMaxCompactTimestampPrecision) {
      reserved = 8;
    }
    if (reserved > 0) {
      TIDE_ASSIGN_OR_RETURN(const uint64_t offset, Cursor(base));
      buf_->resize(buf_->size() + reserved, '\0');
      SetSlot(base, field_offset, offset << 32);
    }
    return Status::OK();
  }

  Result<int64_t> CheckedInteger(const Datum& value, const DataType& type, int64_t min, int64_t max) {
    if (!std::holds_alternative<int64_t>(value.storage())) return WrongKind(value, type, "an integer");
    const int64_t v = value.as_int();
    if (v < min || v > max) {
      return Status::InvalidArgument("{} is out of range for {} ({}..{})", v, type.ToString(), min, max);
    }
    return v;
  }

  // Writes a non-null value at `field_offset` of the section at `base` (a row slot or an array element).
  Status WriteValue(size_t base, size_t field_offset, const Datum& value, const DataType& type, bool in_array) {
    switch (type.root()) {
      case TypeRoot::kBoolean:
        if (!std::holds_alternative<bool>(value.storage())) return WrongKind(value, type, "a boolean");
        (*buf_)[base + field_offset] = value.as_bool() ? 1 : 0;
        return Status::OK();
      case TypeRoot::kTinyInt: {
        TIDE_ASSIGN_OR_RETURN(int64_t v, CheckedInteger(value, type, INT8_MIN, INT8_MAX));
        (*buf_)[base + field_offset] = static_cast<char>(static_cast<int8_t>(v));
        return Status::OK();
      }
      case TypeRoot::kSmallInt: {
        TIDE_ASSIGN_OR_RETURN(int64_t v, CheckedInteger(value, type, INT16_MIN, INT16_MAX));
        StoreLE<int16_t>(buf_->data() + base + field_offset, static_cast<int16_t>(v));
        return Status::OK();
      }
      case TypeRoot::kInt:
      case TypeRoot::kDate:
      case TypeRoot::kTime: {
        TIDE_ASSIGN_OR_RETURN(int64_t v, CheckedInteger(value, type, INT32_MIN, INT32_MAX));
        StoreLE<int32_t>(buf_->data() + base + field_offset, static_cast<int32_t>(v));
        return Status::OK();
      }
      case TypeRoot::kBigInt: {
        TIDE_ASSIGN_OR_RETURN(int64_t v, CheckedInteger(value, type, INT64_MIN, INT64_MAX));
        StoreLE<int64_t>(buf_->data() + base + field_offset, v);
        return Status::OK();
      }
      case TypeRoot::kFloat: {
        if (!std::holds_alternative<float>(value.storage())) return WrongKind(value, type, "a float");
        uint32_t bits = std::bit_cast<uint32_t>(value.as_float());
        if (in_array && value.as_float() != value.as_float()) bits = 0x7fc00000u;  // Float.NaN
        StoreLE<uint32_t>(buf_->data() + base + field_offset, bits);
        return Status::OK();
      }
      case TypeRoot::kDouble: {
        if (!std::holds_alternative<double>(value.storage())) return WrongKind(value, type, "a double");
        uint64_t bits = std::bit_cast<uint64_t>(value.as_double());
        if (in_array && value.as_double() != value.as_double()) bits = 0x7ff8000000000000ull;  // Double.NaN
        StoreLE<uint64_t>(buf_->data() + base + field_offset, bits);
        return Status::OK();
      }
      case TypeRoot::kDecimal: {
        if (!std::holds_alternative<DecimalValue>(value.storage())) return WrongKind(value, type, "a decimal");
        const int128_t unscaled = value.as_decimal().unscaled;
        if (!FitsPrecision(unscaled, type.precision())) {
          return Status::InvalidArgument("decimal {} has more digits than {} allows",
                                         DecimalToString(unscaled, type.scale()), type.ToString());
        }
        if (type.precision() <= kMaxCompactDecimalPrecision) {
          StoreLE<int64_t>(buf_->data() + base + field_offset, static_cast<int64_t>(unscaled));
          return Status::OK();
        }
        // 16 zeroed bytes are reserved; the minimal big-endian bytes go at their start.
        TIDE_ASSIGN_OR_RETURN(const uint64_t offset, Cursor(base));
        char bytes[kMaxDecimalBytes];
        const int length = MinimalBigEndian(unscaled, bytes);
        buf_->append(bytes, static_cast<size_t>(length));
        buf_->resize(buf_->size() + static_cast<size_t>(kMaxDecimalBytes - length), '\0');
        SetSlot(base, field_offset, (offset << 32) | static_cast<uint32_t>(length));
        return Status::OK();
      }
      case TypeRoot::kTimestamp:
      case TypeRoot::kTimestampLtz: {
        if (!std::holds_alternative<TimestampValue>(value.storage())) {
          return WrongKind(value, type, "a timestamp");
        }
        const TimestampValue& ts = value.as_timestamp();
        if (type.precision() <= kMaxCompactTimestampPrecision) {
          StoreLE<int64_t>(buf_->data() + base + field_offset, ts.millis);
          return Status::OK();
        }
        if (ts.nanos_of_milli < 0 || ts.nanos_of_milli > kMaxNanosOfMilli) {
          return Status::InvalidArgument("timestamp nano-of-millisecond {} is outside 0..{}", ts.nanos_of_milli,
                                         kMaxNanosOfMilli);
        }
        TIDE_ASSIGN_OR_RETURN(const uint64_t offset, Cursor(base));
        AppendLE<int64_t>(buf_, ts.millis);
        SetSlot(base, field_offset, (offset << 32) | static_cast<uint32_t>(ts.nanos_of_milli));
        return Status::OK();
      }
      case TypeRoot::kChar:
      case TypeRoot::kVarChar:
      case TypeRoot::kBinary:
      case TypeRoot::kVarBinary: {
        if (!std::holds_alternative<std::string>(value.storage())) {
          return WrongKind(value, type, type.IsString() ? "a string" : "a byte string");
        }
        const std::string& bytes = value.as_string();
        if (bytes.size() <= static_cast<size_t>(kMaxInlineBytes)) {
          char slot[8] = {};
          std::memcpy(slot, bytes.data(), bytes.size());
          slot[7] = static_cast<char>(kInlineMark | bytes.size());
          std::memcpy(buf_->data() + base + field_offset, slot, 8);
          return Status::OK();
        }
        if (bytes.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
          return Status::InvalidArgument("value of {} bytes is too large for a BinaryRow", bytes.size());
        }
        TIDE_ASSIGN_OR_RETURN(const uint64_t slot, AppendVar(base, bytes));
        SetSlot(base, field_offset, slot);
        return Status::OK();
      }
      case TypeRoot::kArray:
      case TypeRoot::kMultiset:
      case TypeRoot::kMap:
      case TypeRoot::kRow:
        return WriteNested(base, field_offset, value, type);
      case TypeRoot::kVariant:
        break;
    }
    return Status::NotSupported("BinaryRow: {} values are not supported", type.ToString());
  }

  Status WriteNested(size_t base, size_t field_offset, const Datum& value, const DataType& type) {
    if (!std::holds_alternative<std::shared_ptr<const NestedValue>>(value.storage())) {
      return WrongKind(value, type, "a nested value");
    }
    const std::vector<Datum>& items = value.as_nested();
    TIDE_ASSIGN_OR_RETURN(const uint64_t offset, Cursor(base));
    const size_t start = buf_->size();
    switch (type.root()) {
      case TypeRoot::kArray:
        TIDE_RETURN_IF_ERROR(WriteArray(items, type.element()));
        break;
      case TypeRoot::kMap: {
        if (items.size() % 2 != 0) {
          return Status::InvalidArgument("a MAP value needs key/value pairs, got {} items", items.size());
        }
        std::vector<Datum> keys, values;
        keys.reserve(items.size() / 2);
        values.reserve(items.size() / 2);
        for (size_t i = 0; i < items.size(); i += 2) {
          keys.push_back(items[i]);
          values.push_back(items[i + 1]);
        }
        TIDE_RETURN_IF_ERROR(WriteMap(keys, values, type.key(), type.value()));
        break;
      }
      case TypeRoot::kMultiset: {
        // A map from each distinct element to its count, in order of first occurrence.
        std::vector<Datum> keys;
        std::vector<Datum> counts;
        for (const Datum& item : items) {
          size_t k = 0;
          while (k < keys.size() && !(keys[k] == item)) ++k;
          if (k == keys.size()) {
            keys.push_back(item);
            counts.emplace_back(int64_t{1});
          } else {
            counts[k] = Datum(counts[k].as_int() + 1);
          }
        }
        TIDE_RETURN_IF_ERROR(WriteMap(keys, counts, type.element(), MultisetCountType()));
        break;
      }
      case TypeRoot::kRow: {
        const std::vector<DataType> field_types = RowFieldTypes(type);
        TIDE_RETURN_IF_ERROR(WriteRow(items, nullptr, field_types, static_cast<uint8_t>(RowKind::kInsert)));
        break;
      }
      default:
        return Status::Internal("WriteNested called for {}", type.ToString());
    }
    const size_t size = buf_->size() - start;
    if (size > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
      return Status::InvalidArgument("nested value of {} bytes is too large for a BinaryRow", size);
    }
    buf_->resize(start + static_cast<size_t>(RoundUpTo8(static_cast<int64_t>(size))), '\0');
    SetSlot(base, field_offset, (offset << 32) | static_cast<uint32_t>(size));
    return Status::OK();
  }

  std::string* buf_;
};

}  // namespace

int32_t BinaryRowNullBitsSize(int32_t arity) { return ((arity + 63 + 8) / 64) * 8; }

int32_t BinaryRowFixedPartSize(int32_t arity) { return BinaryRowNullBitsSize(arity) + 8 * arity; }

std::vector<DataType> FieldTypes(const std::vector<DataField>& fields) {
  std::vector<DataType> types;
  types.reserve(fields.size());
  for (const DataField& f : fields) types.push_back(f.type);
  return types;
}

Result<BinaryRowView> BinaryRowView::Create(std::string_view bytes, int32_t arity) {
  if (arity < 0) return Status::InvalidArgument("BinaryRow arity {} is negative", arity);
  // Arity is bounded by the caller's schema, but guard the multiplication anyway.
  if (arity > (std::numeric_limits<int32_t>::max() - 64) / 8 ||
      bytes.size() < static_cast<size_t>(BinaryRowFixedPartSize(arity))) {
    return Status::Corruption("BinaryRow of {} fields needs at least {} bytes, has {}", arity,
                              (static_cast<int64_t>(arity) + 71) / 64 * 8 + static_cast<int64_t>(arity) * 8,
                              bytes.size());
  }
  return BinaryRowView(bytes, arity);
}

bool BinaryRowView::IsNullAt(int32_t pos) const { return RowNullBit(bytes_, pos); }

Result<Datum> BinaryRowView::GetField(int32_t pos, const DataType& type) const {
  if (pos < 0 || pos >= arity_) {
    return Status::InvalidArgument("BinaryRow field {} requested from a row of {} fields", pos, arity_);
  }
  if (IsNullAt(pos)) return Datum();
  Result<Datum> value =
      ReadValue(bytes_, static_cast<size_t>(BinaryRowNullBitsSize(arity_)) + 8 * static_cast<size_t>(pos), type);
  if (!value.ok()) {
    return value.status().WithContext(fmt::format("BinaryRow field {} ({})", pos, type.ToString()));
  }
  return value;
}

Result<Row> BinaryRowView::ToRow(std::span<const DataType> types) const {
  if (types.size() != static_cast<size_t>(arity_)) {
    return Status::InvalidArgument("BinaryRow of {} fields decoded with {} types", arity_, types.size());
  }
  Result<Row> row = DecodeRowSection(bytes_, types);
  if (!row.ok()) return row.status().WithContext("BinaryRow");
  return row;
}

int32_t BinaryRowView::HashCode() const { return BinaryRowHashCode(bytes_); }

Result<Row> DecodeBinaryRow(std::string_view row_bytes, std::span<const DataType> types) {
  if (types.size() > static_cast<size_t>((std::numeric_limits<int32_t>::max() - 64) / 8)) {
    return Status::InvalidArgument("BinaryRow: {} field types is too many", types.size());
  }
  Result<Row> row = DecodeRowSection(row_bytes, types);
  if (!row.ok()) return row.status().WithContext("BinaryRow");
  return row;
}

Result<SerializedBinaryRow> SplitSerializedBinaryRow(std::string_view serialized) {
  if (serialized.size() < 4) {
    return Status::Corruption("serialized BinaryRow of {} bytes is shorter than its 4-byte arity",
                              serialized.size());
  }
  const int32_t arity = LoadBE<int32_t>(serialized.data());
  const std::string_view row = serialized.substr(4);
  if (arity < 0 || arity > (std::numeric_limits<int32_t>::max() - 64) / 8 ||
      row.size() < static_cast<size_t>(BinaryRowFixedPartSize(arity))) {
    return Status::Corruption("serialized BinaryRow claims {} fields but holds only {} row bytes", arity,
                              row.size());
  }
  return SerializedBinaryRow{arity, row};
}

Result<Row> DeserializeBinaryRow(std::string_view serialized, std::span<const DataType> types) {
  TIDE_ASSIGN_OR_RETURN(SerializedBinaryRow split, SplitSerializedBinaryRow(serialized));
  if (static_cast<size_t>(split.arity) != types.size()) {
    return Status::Corruption("serialized BinaryRow has {} fields where {} are expected", split.arity,
                              types.size());
  }
  return DecodeBinaryRow(split.row_bytes, types);
}

std::string SerializeBinaryRow(std::string_view row_bytes, int32_t arity) {
  std::string out;
  out.reserve(4 + row_bytes.size());
  SerializeBinaryRowInto(row_bytes, arity, &out);
  return out;
}

void SerializeBinaryRowInto(std::string_view row_bytes, int32_t arity, std::string* out) {
  out->clear();
  AppendBE<int32_t>(out, arity);
  out->append(row_bytes);
}

Result<std::string> EncodeSerializedBinaryRow(std::span<const Datum> values, std::span<const DataType> types) {
  std::string out;
  AppendBE<int32_t>(&out, static_cast<int32_t>(types.size()));
  SectionEncoder encoder(&out);
  TIDE_RETURN_IF_ERROR(encoder.WriteRow(values, nullptr, types, static_cast<uint8_t>(RowKind::kInsert)));
  return out;
}

Status BinaryRowWriter::Write(std::span<const Datum> values, std::string* out, RowKind kind) const {
  out->clear();
  SectionEncoder encoder(out);
  return encoder.WriteRow(values, nullptr, types_, static_cast<uint8_t>(kind));
}

Status BinaryRowWriter::WriteProjected(const Row& row, std::span<const int> indices, std::string* out,
                                       RowKind kind) const {
  out->clear();
  SectionEncoder encoder(out);
  return encoder.WriteRow(row, &indices, types_, static_cast<uint8_t>(kind));
}

Result<std::string> BinaryRowWriter::Write(std::span<const Datum> values, RowKind kind) const {
  std::string out;
  TIDE_RETURN_IF_ERROR(Write(values, &out, kind));
  return out;
}

Result<std::string> EncodeBinaryRow(std::span<const Datum> values, std::span<const DataType> types,
                                    RowKind kind) {
  std::string out;
  SectionEncoder encoder(&out);
  TIDE_RETURN_IF_ERROR(encoder.WriteRow(values, nullptr, types, static_cast<uint8_t>(kind)));
  return out;
}

}  // namespace tide
