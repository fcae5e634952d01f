#include "tide/format/duckdb_vector_encoder.h"

#include <limits>
#include <utility>
#include <vector>

namespace tide {
namespace {

DuckLogicalType Simple(duckdb_type id) { return DuckLogicalType(duckdb_create_logical_type(id)); }

Status WrongValue(const std::string& column, const DataType& type, std::string_view detail) {
  return Status::InvalidArgument("column {} ({}): {}", column, type.ToString(), detail);
}

template <typename T>
const T* Get(const Datum& d) {
  return std::get_if<T>(&d.storage());
}

void SetNull(duckdb_vector vector, idx_t index) {
  duckdb_vector_ensure_validity_writable(vector);
  duckdb_validity_set_row_invalid(duckdb_vector_get_validity(vector), index);
}

template <typename T>
void Put(duckdb_vector vector, idx_t index, T v) {
  static_cast<T*>(duckdb_vector_get_data(vector))[index] = v;
}

Status PutInt(duckdb_vector vector, idx_t index, const Datum& value, const DataType& type, const std::string& column,
              int64_t lo, int64_t hi) {
  const int64_t* v = Get<int64_t>(value);
  if (v == nullptr) return WrongValue(column, type, "the value is not an integer");
  if (*v < lo || *v > hi) return WrongValue(column, type, fmt::format("{} is out of range", *v));
  switch (type.root()) {
    case TypeRoot::kTinyInt: Put<int8_t>(vector, index, static_cast<int8_t>(*v)); break;
    case TypeRoot::kSmallInt: Put<int16_t>(vector, index, static_cast<int16_t>(*v)); break;
    case TypeRoot::kBigInt: Put<int64_t>(vector, index, *v); break;
    default: Put<int32_t>(vector, index, static_cast<int32_t>(*v)); break;  // INT, DATE, TIME
  }
  return Status::OK();
}

int128_t Pow10(int n) {
  int128_t r = 1;
  for (int i = 0; i < n; ++i) r *= 10;
  return r;
}

Status EncodeNested(duckdb_vector vector, idx_t index, const Datum& value, const DataType& type,
                    const std::string& column);

// Writes NULL at `index` of a vector and, for STRUCT, of its children (so no child slot is left unset).
void EncodeNull(duckdb_vector vector, idx_t index, const DataType& type) {
  SetNull(vector, index);
  switch (type.root()) {
    case TypeRoot::kArray:
    case TypeRoot::kMultiset:
    case TypeRoot::kMap: {
      idx_t offset = duckdb_list_vector_get_size(vector);
      Put<duckdb_list_entry>(vector, index, duckdb_list_entry{offset, 0});
      break;
    }
    case TypeRoot::kRow:
      for (size_t i = 0; i < type.fields().size(); ++i) {
        EncodeNull(duckdb_struct_vector_get_child(vector, i), index, type.fields()[i].type);
      }
      break;
    default:
      break;
  }
}

}  // namespace

Result<DuckLogicalType> ParquetStorageType(const DataType& type, const std::string& column) {
  switch (type.root()) {
    case TypeRoot::kBoolean: return Simple(DUCKDB_TYPE_BOOLEAN);
    case TypeRoot::kTinyInt: return Simple(DUCKDB_TYPE_TINYINT);
    case TypeRoot::kSmallInt: return Simple(DUCKDB_TYPE_SMALLINT);
    case TypeRoot::kInt: return Simple(DUCKDB_TYPE_INTEGER);
    case TypeRoot::kBigInt: return Simple(DUCKDB_TYPE_BIGINT);
    case TypeRoot::kFloat: return Simple(DUCKDB_TYPE_FLOAT);
    case TypeRoot::kDouble: return Simple(DUCKDB_TYPE_DOUBLE);
    case TypeRoot::kDecimal:
      if (type.precision() < 1 || type.precision() > 38 || type.scale() < 0 || type.scale() > type.precision()) {
        return Status::InvalidArgument("column {}: {} is not a valid decimal type", column, type.ToString());
      }
      return DuckLogicalType(duckdb_create_decimal_type(static_cast<uint8_t>(type.precision()),
                                                        static_cast<uint8_t>(type.scale())));
    case TypeRoot::kChar:
    case TypeRoot::kVarChar: return Simple(DUCKDB_TYPE_VARCHAR);
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary: return Simple(DUCKDB_TYPE_BLOB);
    case TypeRoot::kDate: return Simple(DUCKDB_TYPE_DATE);
    case TypeRoot::kTime: return Simple(DUCKDB_TYPE_INTEGER);
    case TypeRoot::kTimestamp:
      if (type.precision() <= 3) return Simple(DUCKDB_TYPE_TIMESTAMP_MS);
      if (type.precision() <= 6) return Simple(DUCKDB_TYPE_TIMESTAMP);
      return Simple(DUCKDB_TYPE_TIMESTAMP_NS);
    case TypeRoot::kTimestampLtz:
      if (type.precision() <= 3) return Simple(DUCKDB_TYPE_TIMESTAMP_MS);
      if (type.precision() <= 6) return Simple(DUCKDB_TYPE_TIMESTAMP_TZ);
      return Simple(DUCKDB_TYPE_TIMESTAMP_NS);
    case TypeRoot::kArray: {
      TIDE_ASSIGN_OR_RETURN(DuckLogicalType element, ParquetStorageType(type.element(), column + ".element"));
      return DuckLogicalType(duckdb_create_list_type(element.raw()));
    }
    case TypeRoot::kMultiset: {
      TIDE_ASSIGN_OR_RETURN(DuckLogicalType key, ParquetStorageType(type.element(), column + ".key"));
      DuckLogicalType count = Simple(DUCKDB_TYPE_INTEGER);
      return DuckLogicalType(duckdb_create_map_type(key.raw(), count.raw()));
    }
    case TypeRoot::kMap: {
      TIDE_ASSIGN_OR_RETURN(DuckLogicalType key, ParquetStorageType(type.key(), column + ".key"));
      TIDE_ASSIGN_OR_RETURN(DuckLogicalType value, ParquetStorageType(type.value(), column + ".value"));
      return DuckLogicalType(duckdb_create_map_type(key.raw(), value.raw()));
    }
    case TypeRoot::kRow: {
      std::vector<DuckLogicalType> children;
      std::vector<duckdb_logical_type> raw;
      std::vector<const char*> names;
      for (const DataField& field : type.fields()) {
        TIDE_ASSIGN_OR_RETURN(DuckLogicalType child, ParquetStorageType(field.type, column + "." + field.name));
        raw.push_back(child.raw());
        names.push_back(field.name.c_str());
        children.push_back(std::move(child));
      }
      return DuckLogicalType(duckdb_create_struct_type(raw.data(), names.data(), raw.size()));
    }
    case TypeRoot::kVariant:
      return Status::NotSupported("column {}: VARIANT columns cannot be written to Parquet by Tide", column);
  }
  return Status::Internal("column {}: unknown type root", column);
}

namespace {

Status EncodeNested(duckdb_vector vector, idx_t index, const Datum& value, const DataType& type,
                    const std::string& column) {
  const auto* nested = Get<std::shared_ptr<const NestedValue>>(value);
  if (nested == nullptr || *nested == nullptr) return WrongValue(column, type, "the value is not a nested value");
  const std::vector<Datum>& items = (*nested)->items;
  switch (type.root()) {
    case TypeRoot::kArray: {
      idx_t offset = duckdb_list_vector_get_size(vector);
      idx_t length = items.size();
      if (duckdb_list_vector_reserve(vector, offset + length) != DuckDBSuccess ||
          duckdb_list_vector_set_size(vector, offset + length) != DuckDBSuccess) {
        return Status::Internal("column {}: cannot grow a DuckDB list vector", column);
      }
      Put<duckdb_list_entry>(vector, index, duckdb_list_entry{offset, length});
      duckdb_vector child = duckdb_list_vector_get_child(vector);
      for (idx_t i = 0; i < length; ++i) {
        TIDE_RETURN_IF_ERROR(EncodeDatum(child, offset + i, items[i], type.element(), column));
      }
      return Status::OK();
    }
    case TypeRoot::kMultiset:
    case TypeRoot::kMap: {
      // Pairs to write: a map's (key, value); a multiset's distinct elements with their counts.
      std::vector<std::pair<const Datum*, Datum>> pairs;
      if (type.root() == TypeRoot::kMap) {
        if (items.size() % 2 != 0) return WrongValue(column, type, "a map value has an odd number of items");
        for (size_t i = 0; i < items.size(); i += 2) pairs.emplace_back(&items[i], items[i + 1]);
      } else {
        for (const Datum& item : items) {
          bool counted = false;
          for (auto& [key, count] : pairs) {
            if (CompareDatum(*key, item) == 0) {
              count = Datum(count.as_int() + 1);
              counted = true;
              break;
            }
          }
          if (!counted) pairs.emplace_back(&item, Datum(int64_t{1}));
        }
      }
      idx_t offset = duckdb_list_vector_get_size(vector);
      idx_t length = pairs.size();
      if (duckdb_list_vector_reserve(vector, offset + length) != DuckDBSuccess ||
          duckdb_list_vector_set_size(vector, offset + length) != DuckDBSuccess) {
        return Status::Internal("column {}: cannot grow a DuckDB map vector", column);
      }
      Put<duckdb_list_entry>(vector, index, duckdb_list_entry{offset, length});
      duckdb_vector entries = duckdb_list_vector_get_child(vector);
      duckdb_vector keys = duckdb_struct_vector_get_child(entries, 0);
      duckdb_vector values = duckdb_struct_vector_get_child(entries, 1);
      const DataType& key_type = type.root() == TypeRoot::kMap ? type.key() : type.element();
      const DataType value_type = type.root() == TypeRoot::kMap ? type.value() : DataType::Int(false);
      for (idx_t i = 0; i < length; ++i) {
        if (pairs[i].first->is_null()) {
          return WrongValue(column, type, "a map key (or multiset element) is NULL, which Parquet cannot store");
        }
        TIDE_RETURN_IF_ERROR(EncodeDatum(keys, offset + i, *pairs[i].first, key_type, column + ".key"));
        TIDE_RETURN_IF_ERROR(EncodeDatum(values, offset + i, pairs[i].second, value_type, column + ".value"));
      }
      return Status::OK();
    }
    case TypeRoot::kRow: {
      const auto& fields = type.fields();
      if (items.size() != fields.size()) {
        return WrongValue(column, type, fmt::format("a row value has {} fields, the type {}", items.size(),
                                                    fields.size()));
      }
      for (size_t i = 0; i < fields.size(); ++i) {
        TIDE_RETURN_IF_ERROR(EncodeDatum(duckdb_struct_vector_get_child(vector, i), index, items[i], fields[i].type,
                                         column + "." + fields[i].name));
      }
      return Status::OK();
    }
    default:
      return Status::Internal("column {}: not a nested type", column);
  }
}

}  // namespace

Status EncodeDatum(duckdb_vector vector, idx_t index, const Datum& value, const DataType& type,
                   const std::string& column) {
  if (value.is_null()) {
    EncodeNull(vector, index, type);
    return Status::OK();
  }
  // A slot may hold a NULL from a row that was rejected half-way and is now being overwritten.
  if (uint64_t* validity = duckdb_vector_get_validity(vector)) duckdb_validity_set_row_valid(validity, index);
  switch (type.root()) {
    case TypeRoot::kBoolean: {
      const bool* v = Get<bool>(value);
      if (v == nullptr) return WrongValue(column, type, "the value is not a boolean");
      Put<bool>(vector, index, *v);
      return Status::OK();
    }
    case TypeRoot::kTinyInt: return PutInt(vector, index, value, type, column, INT8_MIN, INT8_MAX);
    case TypeRoot::kSmallInt: return PutInt(vector, index, value, type, column, INT16_MIN, INT16_MAX);
    case TypeRoot::kInt:
    case TypeRoot::kTime: return PutInt(vector, index, value, type, column, INT32_MIN, INT32_MAX);
    // DuckDB reserves INT32_MAX and -INT32_MAX days as +/-infinity.
    case TypeRoot::kDate: return PutInt(vector, index, value, type, column, -INT32_MAX + 1, INT32_MAX - 1);
    case TypeRoot::kBigInt: return PutInt(vector, index, value, type, column, INT64_MIN, INT64_MAX);
    case TypeRoot::kFloat: {
      const float* v = Get<float>(value);
      if (v == nullptr) return WrongValue(column, type, "the value is not a float");
      Put<float>(vector, index, *v);
      return Status::OK();
    }
    case TypeRoot::kDouble: {
      const double* v = Get<double>(value);
      if (v == nullptr) return WrongValue(column, type, "the value is not a double");
      Put<double>(vector, index, *v);
      return Status::OK();
    }
    case TypeRoot::kDecimal: {
      const DecimalValue* v = Get<DecimalValue>(value);
      if (v == nullptr) return WrongValue(column, type, "the value is not a decimal");
      int128_t limit = Pow10(type.precision());
      if (v->unscaled >= limit || v->unscaled <= -limit) {
        return WrongValue(column, type, DecimalToString(v->unscaled, type.scale()) + " has too many digits");
      }
      if (type.precision() <= 4) {
        Put<int16_t>(vector, index, static_cast<int16_t>(v->unscaled));
      } else if (type.precision() <= 9) {
        Put<int32_t>(vector, index, static_cast<int32_t>(v->unscaled));
      } else if (type.precision() <= 18) {
        Put<int64_t>(vector, index, static_cast<int64_t>(v->unscaled));
      } else {
        duckdb_hugeint h;
        h.lower = static_cast<uint64_t>(v->unscaled);
        h.upper = static_cast<int64_t>(v->unscaled >> 64);
        Put<duckdb_hugeint>(vector, index, h);
      }
      return Status::OK();
    }
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary: {
      const std::string* v = Get<std::string>(value);
      if (v == nullptr) return WrongValue(column, type, "the value is not a string");
      duckdb_vector_assign_string_element_len(vector, index, v->data(), v->size());
      return Status::OK();
    }
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz: {
      const TimestampValue* v = Get<TimestampValue>(value);
      if (v == nullptr) return WrongValue(column, type, "the value is not a timestamp");
      // DuckDB reserves INT64_MAX and -INT64_MAX as +/-infinity; a value must stay strictly inside.
      constexpr int128_t kMax = std::numeric_limits<int64_t>::max() - 1;
      int128_t stored;
      if (type.precision() <= 3) {
        stored = v->millis;
      } else if (type.precision() <= 6) {
        stored = static_cast<int128_t>(v->millis) * 1000 + v->nanos_of_milli / 1000;
      } else {
        stored = static_cast<int128_t>(v->millis) * 1000000 + v->nanos_of_milli;
      }
      if (stored > kMax || stored < -kMax) {
        return WrongValue(column, type,
                          FormatTimestamp(*v, 9) + (type.precision() > 6
                                                        ? " is outside 1677..2262, the range of a nanosecond "
                                                          "TIMESTAMP in Parquet INT64"
                                                        : " is out of range"));
      }
      Put<int64_t>(vector, index, static_cast<int64_t>(stored));
      return Status::OK();
    }
    case TypeRoot::kArray:
    case TypeRoot::kMultiset:
    case TypeRoot::kMap:
    case TypeRoot::kRow:
      return EncodeNested(vector, index, value, type, column);
    case TypeRoot::kVariant:
      return Status::NotSupported("column {}: VARIANT values cannot be written", column);
  }
  return Status::Internal("column {}: unknown type root", column);
}

}  // namespace tide
