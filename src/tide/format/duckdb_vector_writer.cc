#include "tide/format/duckdb_vector_writer.h"

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "tide/base/bytes.h"

namespace tide {

namespace {

// Sets NULLs, making the mask writable on the first one (a vector without NULLs keeps no mask).
class ValidityWriter {
 public:
  explicit ValidityWriter(duckdb_vector vector) : vector_(vector) {}
  void SetNull(idx_t row) {
    if (mask_ == nullptr) {
      duckdb_vector_ensure_validity_writable(vector_);
      mask_ = duckdb_vector_get_validity(vector_);
    }
    duckdb_validity_set_row_invalid(mask_, row);
  }

 private:
  duckdb_vector vector_;
  uint64_t* mask_ = nullptr;
};

const char* StorageKind(const Datum& d) {
  switch (d.storage().index()) {
    case 0: return "NULL";
    case 1: return "boolean";
    case 2: return "integer";
    case 3: return "float";
    case 4: return "double";
    case 5: return "decimal";
    case 6: return "timestamp";
    case 7: return "string";
    case 8: return "nested";
  }
  return "unknown";
}

Status Mismatch(std::string_view column, const DataType& type, const Datum& d) {
  return Status::Corruption(
      "column {}: the reader returned a {} value for a column of type {}; the table's data does not match its "
      "schema",
      column, StorageKind(d), type.ToString());
}

Status OutOfRange(std::string_view column, const DataType& type, std::string_view value, std::string_view why) {
  return Status::Corruption("column {}: value {} does not fit {} ({})", column, value, type.ToString(), why);
}

// True when `s` is well-formed UTF-8 (DuckDB requires it of VARCHAR and checks nothing itself).
bool IsValidUtf8(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const unsigned char* end = p + s.size();
  while (p < end) {
    // Fast path: eight ASCII bytes at a time.
    if (end - p >= 8) {
      uint64_t word;
      std::memcpy(&word, p, 8);
      if ((word & 0x8080808080808080ULL) == 0) {
        p += 8;
        continue;
      }
    }
    unsigned char c = *p;
    if (c < 0x80) {
      ++p;
      continue;
    }
    int extra;
    uint32_t cp;
    if (c >= 0xC2 && c <= 0xDF) {
      extra = 1;
      cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      extra = 2;
      cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      extra = 3;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (end - p <= extra) return false;
    for (int i = 1; i <= extra; ++i) {
      if ((p[i] & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (p[i] & 0x3F);
    }
    if ((extra == 2 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) || (extra == 3 && (cp < 0x10000 || cp > 0x10FFFF))) {
      return false;
    }
    p += extra + 1;
  }
  return true;
}

// The value at row i, or nullptr for NULL.
template <typename Access>
const Datum* ValueAt(const Access& get, size_t i) {
  const Datum* d = get(i);
  return (d == nullptr || d->is_null()) ? nullptr : d;
}

// Fixed-width columns: `convert(datum, &slot)` returns OK or the error for that value.
template <typename T, typename Access, typename Convert>
Status WriteFixed(duckdb_vector vector, size_t count, const Access& get, idx_t offset, Convert convert) {
  T* data = static_cast<T*>(duckdb_vector_get_data(vector));
  ValidityWriter validity(vector);
  for (size_t i = 0; i < count; ++i) {
    const Datum* d = ValueAt(get, i);
    if (d == nullptr) {
      validity.SetNull(offset + i);
      continue;
    }
    TIDE_RETURN_IF_ERROR(convert(*d, &data[offset + i]));
  }
  return Status::OK();
}

template <typename T, typename Access>
Status WriteInteger(duckdb_vector vector, const DataType& type, size_t count, const Access& get, idx_t offset,
                    std::string_view column) {
  return WriteFixed<T>(vector, count, get, offset, [&](const Datum& d, T* slot) -> Status {
    const int64_t* v = std::get_if<int64_t>(&d.storage());
    if (v == nullptr) return Mismatch(column, type, d);
    if (*v < std::numeric_limits<T>::min() || *v > std::numeric_limits<T>::max()) {
      return OutOfRange(column, type, std::to_string(*v), "out of the type's range");
    }
    *slot = static_cast<T>(*v);
    return Status::OK();
  });
}

// A TimestampValue as DuckDB micro- or nanoseconds since the epoch; false on int64 overflow.
bool TimestampToUnits(const TimestampValue& ts, bool nanos, int64_t* out) {
  int64_t scaled;
  if (nanos) {
    if (__builtin_mul_overflow(ts.millis, int64_t{1000000}, &scaled)) return false;
    return !__builtin_add_overflow(scaled, static_cast<int64_t>(ts.nanos_of_milli), out);
  }
  if (__builtin_mul_overflow(ts.millis, int64_t{1000}, &scaled)) return false;
  // Floor division keeps instants before 1970 ordered (nanos_of_milli is never negative).
  return !__builtin_add_overflow(scaled, static_cast<int64_t>(ts.nanos_of_milli / 1000), out);
}

template <typename Access>
Status WriteDecimal(duckdb_vector vector, const DataType& type, size_t count, const Access& get, idx_t offset,
                    std::string_view column) {
  auto unscaled_of = [&](const Datum& d, int128_t* out) -> Status {
    const DecimalValue* v = std::get_if<DecimalValue>(&d.storage());
    if (v == nullptr) return Mismatch(column, type, d);
    if (DecimalDigits(v->unscaled) > type.precision()) {
      return OutOfRange(column, type, DecimalToString(v->unscaled, type.scale()), "more digits than its precision");
    }
    *out = v->unscaled;
    return Status::OK();
  };
  // DuckDB stores DECIMAL(p, s) in the narrowest integer that holds p digits.
  int p = type.precision();
  if (p <= 4) {
    return WriteFixed<int16_t>(vector, count, get, offset, [&](const Datum& d, int16_t* slot) -> Status {
      int128_t u;
      TIDE_RETURN_IF_ERROR(unscaled_of(d, &u));
      *slot = static_cast<int16_t>(u);
      return Status::OK();
    });
  }
  if (p <= 9) {
    return WriteFixed<int32_t>(vector, count, get, offset, [&](const Datum& d, int32_t* slot) -> Status {
      int128_t u;
      TIDE_RETURN_IF_ERROR(unscaled_of(d, &u));
      *slot = static_cast<int32_t>(u);
      return Status::OK();
    });
  }
  if (p <= 18) {
    return WriteFixed<int64_t>(vector, count, get, offset, [&](const Datum& d, int64_t* slot) -> Status {
      int128_t u;
      TIDE_RETURN_IF_ERROR(unscaled_of(d, &u));
      *slot = static_cast<int64_t>(u);
      return Status::OK();
    });
  }
  return WriteFixed<duckdb_hugeint>(vector, count, get, offset, [&](const Datum& d, duckdb_hugeint* slot) -> Status {
    int128_t u;
    TIDE_RETURN_IF_ERROR(unscaled_of(d, &u));
    slot->lower = static_cast<uint64_t>(static_cast<unsigned __int128>(u));
    slot->upper = static_cast<int64_t>(u >> 64);
    return Status::OK();
  });
}

template <typename Access>
Status WriteBytes(duckdb_vector vector, const DataType& type, size_t count, const Access& get, idx_t offset,
                  std::string_view column, bool check_utf8) {
  ValidityWriter validity(vector);
  for (size_t i = 0; i < count; ++i) {
    const Datum* d = ValueAt(get, i);
    if (d == nullptr) {
      validity.SetNull(offset + i);
      continue;
    }
    const std::string* s = std::get_if<std::string>(&d->storage());
    if (s == nullptr) return Mismatch(column, type, *d);
    if (check_utf8 && !IsValidUtf8(*s)) {
      return Status::Corruption("column {}: a {} value is not valid UTF-8 (its bytes in hex start {})", column,
                                type.ToString(), HexEncode(std::string_view(*s).substr(0, 16)));
    }
    duckdb_vector_assign_string_element_len(vector, offset + i, s->data(), s->size());
  }
  return Status::OK();
}

template <typename Access>
Status WriteAny(duckdb_vector vector, const DataType& type, size_t count, const Access& get, idx_t offset,
                std::string_view column);

// LIST (ARRAY, MULTISET) and MAP: list entries in this vector, the elements (or key/value pairs) appended
// to the child vector after what earlier rows put there.
template <typename Access>
Status WriteList(duckdb_vector vector, const DataType& type, size_t count, const Access& get, idx_t offset,
                 std::string_view column) {
  bool is_map = type.root() == TypeRoot::kMap;
  idx_t child_start = duckdb_list_vector_get_size(vector);
  std::vector<const Datum*> elements;  // for a MAP: key0, value0, key1, value1, ...
  auto* entries = static_cast<duckdb_list_entry*>(duckdb_vector_get_data(vector));
  ValidityWriter validity(vector);
  for (size_t i = 0; i < count; ++i) {
    const Datum* d = ValueAt(get, i);
    idx_t first = child_start + (is_map ? elements.size() / 2 : elements.size());
    if (d == nullptr) {
      validity.SetNull(offset + i);
      entries[offset + i] = duckdb_list_entry{first, 0};
      continue;
    }
    const auto* nested = std::get_if<std::shared_ptr<const NestedValue>>(&d->storage());
    if (nested == nullptr || *nested == nullptr) return Mismatch(column, type, *d);
    const std::vector<Datum>& items = (*nested)->items;
    if (is_map && items.size() % 2 != 0) {
      return Status::Corruption("column {}: a MAP value holds {} items, not key/value pairs", column, items.size());
    }
    for (const Datum& item : items) elements.push_back(&item);
    entries[offset + i] = duckdb_list_entry{first, is_map ? items.size() / 2 : items.size()};
  }
  idx_t added = is_map ? elements.size() / 2 : elements.size();
  if (duckdb_list_vector_reserve(vector, child_start + added) != DuckDBSuccess ||
      duckdb_list_vector_set_size(vector, child_start + added) != DuckDBSuccess) {
    return Status::Internal("column {}: DuckDB refused to grow a list vector to {} elements", column,
                            child_start + added);
  }
  duckdb_vector child = duckdb_list_vector_get_child(vector);
  if (!is_map) {
    std::string child_column = std::string(column) + "[]";
    return WriteValues(child, type.element(), elements, child_start, child_column);
  }
  // A MAP's child is STRUCT(key, value).
  std::vector<const Datum*> keys(added), values(added);
  for (idx_t k = 0; k < added; ++k) {
    keys[k] = elements[2 * k];
    values[k] = elements[2 * k + 1];
    if (keys[k] == nullptr || keys[k]->is_null()) {
      return Status::Corruption("column {}: a MAP value has a NULL key", column);
    }
  }
  TIDE_RETURN_IF_ERROR(
      WriteValues(duckdb_struct_vector_get_child(child, 0), type.key(), keys, child_start, std::string(column) + ".key"));
  return WriteValues(duckdb_struct_vector_get_child(child, 1), type.value(), values, child_start,
                     std::string(column) + ".value");
}

template <typename Access>
Status WriteStruct(duckdb_vector vector, const DataType& type, size_t count, const Access& get, idx_t offset,
                   std::string_view column) {
  const std::vector<DataField>& fields = type.fields();
  std::vector<const std::vector<Datum>*> rows(count, nullptr);
  ValidityWriter validity(vector);
  for (size_t i = 0; i < count; ++i) {
    const Datum* d = ValueAt(get, i);
    if (d == nullptr) {
      validity.SetNull(offset + i);
      continue;
    }
    const auto* nested = std::get_if<std::shared_ptr<const NestedValue>>(&d->storage());
    if (nested == nullptr || *nested == nullptr) return Mismatch(column, type, *d);
    if ((*nested)->items.size() != fields.size()) {
      return Status::Corruption("column {}: a ROW value holds {} fields where the type has {}", column,
                                (*nested)->items.size(), fields.size());
    }
    rows[i] = &(*nested)->items;
  }
  std::vector<const Datum*> values(count);
  for (size_t f = 0; f < fields.size(); ++f) {
    // A NULL struct has NULL fields, so that nothing undefined sits beneath it.
    for (size_t i = 0; i < count; ++i) values[i] = rows[i] == nullptr ? nullptr : &(*rows[i])[f];
    TIDE_RETURN_IF_ERROR(WriteValues(duckdb_struct_vector_get_child(vector, f), fields[f].type, values, offset,
                                     std::string(column) + "." + fields[f].name));
  }
  return Status::OK();
}

template <typename Access>
Status WriteAny(duckdb_vector vector, const DataType& type, size_t count, const Access& get, idx_t offset,
                std::string_view column) {
  switch (type.root()) {
    case TypeRoot::kBoolean:
      return WriteFixed<bool>(vector, count, get, offset, [&](const Datum& d, bool* slot) -> Status {
        const bool* v = std::get_if<bool>(&d.storage());
        if (v == nullptr) return Mismatch(column, type, d);
        *slot = *v;
        return Status::OK();
      });
    case TypeRoot::kTinyInt: return WriteInteger<int8_t>(vector, type, count, get, offset, column);
    case TypeRoot::kSmallInt: return WriteInteger<int16_t>(vector, type, count, get, offset, column);
    case TypeRoot::kInt: return WriteInteger<int32_t>(vector, type, count, get, offset, column);
    case TypeRoot::kBigInt: return WriteInteger<int64_t>(vector, type, count, get, offset, column);
    case TypeRoot::kDate: return WriteInteger<int32_t>(vector, type, count, get, offset, column);
    case TypeRoot::kFloat:
      return WriteFixed<float>(vector, count, get, offset, [&](const Datum& d, float* slot) -> Status {
        const float* v = std::get_if<float>(&d.storage());
        if (v == nullptr) return Mismatch(column, type, d);
        *slot = *v;
        return Status::OK();
      });
    case TypeRoot::kDouble:
      return WriteFixed<double>(vector, count, get, offset, [&](const Datum& d, double* slot) -> Status {
        const double* v = std::get_if<double>(&d.storage());
        if (v == nullptr) return Mismatch(column, type, d);
        *slot = *v;
        return Status::OK();
      });
    case TypeRoot::kDecimal: return WriteDecimal(vector, type, count, get, offset, column);
    case TypeRoot::kChar:
    case TypeRoot::kVarChar: return WriteBytes(vector, type, count, get, offset, column, /*check_utf8=*/true);
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary: return WriteBytes(vector, type, count, get, offset, column, /*check_utf8=*/false);
    case TypeRoot::kTime:
      // DuckDB TIME is microseconds of the day; Paimon keeps milliseconds. 24:00:00 is allowed by both.
      return WriteFixed<duckdb_time>(vector, count, get, offset, [&](const Datum& d, duckdb_time* slot) -> Status {
        const int64_t* v = std::get_if<int64_t>(&d.storage());
        if (v == nullptr) return Mismatch(column, type, d);
        if (*v < 0 || *v > 86400000) return OutOfRange(column, type, std::to_string(*v) + " ms", "not a time of day");
        slot->micros = *v * 1000;
        return Status::OK();
      });
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz: {
      // TIMESTAMP_NS for TIMESTAMP(7..9); microseconds otherwise (LTZ has no nanosecond type in DuckDB).
      bool nanos = type.root() == TypeRoot::kTimestamp && type.precision() > 6;
      return WriteFixed<int64_t>(vector, count, get, offset, [&](const Datum& d, int64_t* slot) -> Status {
        const TimestampValue* v = std::get_if<TimestampValue>(&d.storage());
        if (v == nullptr) return Mismatch(column, type, d);
        if (!TimestampToUnits(*v, nanos, slot)) {
          return OutOfRange(column, type, std::to_string(v->millis) + " ms since 1970",
                            nanos ? "TIMESTAMP_NS spans the years 1677..2262" : "beyond DuckDB's timestamp range");
        }
        return Status::OK();
      });
    }
    case TypeRoot::kArray:
    case TypeRoot::kMultiset:
    case TypeRoot::kMap: return WriteList(vector, type, count, get, offset, column);
    case TypeRoot::kRow: return WriteStruct(vector, type, count, get, offset, column);
    case TypeRoot::kVariant: break;
  }
  return Status::NotSupported("column {}: type {} cannot be read through SQL", column, type.ToString());
}

}  // namespace

Status WriteRowsColumn(duckdb_vector vector, const DataType& type, std::span<const Row> rows, size_t column_index,
                       idx_t offset, std::string_view column) {
  for (const Row& row : rows) {
    if (row.size() <= column_index) {
      return Status::Corruption("column {}: the reader returned a row of {} values where {} columns were asked for",
                                column, row.size(), column_index + 1);
    }
  }
  auto get = [&](size_t i) -> const Datum* { return &rows[i][column_index]; };
  return WriteAny(vector, type, rows.size(), get, offset, column);
}

Status WriteRows(std::span<const duckdb_vector> vectors, const std::vector<DataField>& fields,
                 std::span<const Row> rows) {
  if (vectors.size() != fields.size()) {
    return Status::InvalidArgument("{} vectors for {} columns", vectors.size(), fields.size());
  }
  for (size_t c = 0; c < fields.size(); ++c) {
    TIDE_RETURN_IF_ERROR(WriteRowsColumn(vectors[c], fields[c].type, rows, c, 0, fields[c].name));
  }
  return Status::OK();
}

Status WriteValues(duckdb_vector vector, const DataType& type, std::span<const Datum* const> values, idx_t offset,
                   std::string_view column) {
  auto get = [&](size_t i) -> const Datum* { return values[i]; };
  return WriteAny(vector, type, values.size(), get, offset, column);
}

}  // namespace tide
