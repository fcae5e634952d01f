#include "tide/format/duckdb_vector_decoder.h"

#include <strings.h>

#include <cstring>
#include <utility>
#include <vector>

#include "tide/format/duckdb_handle.h"

namespace tide {
namespace {

// Validity of one row; a null mask pointer means every row is valid.
inline bool RowValid(const uint64_t* validity, idx_t row) {
  return validity == nullptr || (validity[row / 64] >> (row % 64)) & 1;
}

// Common state of leaf decoders: the bound vector's data and validity.
class LeafDecoder : public VectorDecoder {
 public:
  void Bind(duckdb_vector vector) override {
    data_ = duckdb_vector_get_data(vector);
    validity_ = duckdb_vector_get_validity(vector);
  }

 protected:
  template <typename T>
  const T& At(idx_t row) const {
    return static_cast<const T*>(data_)[row];
  }
  bool Valid(idx_t row) const { return RowValid(validity_, row); }

  const void* data_ = nullptr;
  const uint64_t* validity_ = nullptr;
};

bool IsIntegerType(duckdb_type t) {
  switch (t) {
    case DUCKDB_TYPE_TINYINT:
    case DUCKDB_TYPE_SMALLINT:
    case DUCKDB_TYPE_INTEGER:
    case DUCKDB_TYPE_BIGINT:
    case DUCKDB_TYPE_UTINYINT:
    case DUCKDB_TYPE_USMALLINT:
    case DUCKDB_TYPE_UINTEGER:
    case DUCKDB_TYPE_UBIGINT:
      return true;
    default:
      return false;
  }
}

// Reads any DuckDB integer as int64 (UBIGINT wraps, as a Java long would).
class IntegerReader {
 public:
  explicit IntegerReader(duckdb_type type) : type_(type) {}
  int64_t Read(const void* data, idx_t row) const {
    switch (type_) {
      case DUCKDB_TYPE_TINYINT: return static_cast<const int8_t*>(data)[row];
      case DUCKDB_TYPE_SMALLINT: return static_cast<const int16_t*>(data)[row];
      case DUCKDB_TYPE_INTEGER: return static_cast<const int32_t*>(data)[row];
      case DUCKDB_TYPE_BIGINT: return static_cast<const int64_t*>(data)[row];
      case DUCKDB_TYPE_UTINYINT: return static_cast<const uint8_t*>(data)[row];
      case DUCKDB_TYPE_USMALLINT: return static_cast<const uint16_t*>(data)[row];
      case DUCKDB_TYPE_UINTEGER: return static_cast<const uint32_t*>(data)[row];
      case DUCKDB_TYPE_UBIGINT: return static_cast<int64_t>(static_cast<const uint64_t*>(data)[row]);
      default: return 0;
    }
  }

 private:
  duckdb_type type_;
};

class BooleanDecoder final : public LeafDecoder {
 public:
  Datum Get(idx_t row) const override { return Valid(row) ? Datum(At<bool>(row)) : Datum(); }
};

// Integers narrowed to the target width the way a Java cast narrows (Paimon's readers cast likewise).
class IntegerDecoder final : public LeafDecoder {
 public:
  IntegerDecoder(duckdb_type source, TypeRoot target) : reader_(source), target_(target) {}
  Datum Get(idx_t row) const override {
    if (!Valid(row)) return Datum();
    int64_t v = reader_.Read(data_, row);
    switch (target_) {
      case TypeRoot::kTinyInt: return Datum(static_cast<int64_t>(static_cast<int8_t>(v)));
      case TypeRoot::kSmallInt: return Datum(static_cast<int64_t>(static_cast<int16_t>(v)));
      case TypeRoot::kInt: return Datum(static_cast<int64_t>(static_cast<int32_t>(v)));
      default: return Datum(v);
    }
  }

 private:
  IntegerReader reader_;
  TypeRoot target_;
};

class FloatDecoder final : public LeafDecoder {
 public:
  explicit FloatDecoder(duckdb_type source) : source_(source) {}
  Datum Get(idx_t row) const override {
    if (!Valid(row)) return Datum();
    if (source_ == DUCKDB_TYPE_FLOAT) return Datum(At<float>(row));
    return Datum(static_cast<float>(At<double>(row)));
  }

 private:
  duckdb_type source_;
};

class DoubleDecoder final : public LeafDecoder {
 public:
  explicit DoubleDecoder(duckdb_type source) : source_(source), ints_(source) {}
  Datum Get(idx_t row) const override {
    if (!Valid(row)) return Datum();
    if (source_ == DUCKDB_TYPE_DOUBLE) return Datum(At<double>(row));
    if (source_ == DUCKDB_TYPE_FLOAT) return Datum(static_cast<double>(At<float>(row)));
    return Datum(static_cast<double>(ints_.Read(data_, row)));
  }

 private:
  duckdb_type source_;
  IntegerReader ints_;
};

int128_t Pow10(int n) {
  int128_t r = 1;
  for (int i = 0; i < n; ++i) r *= 10;
  return r;
}

// Decimals (or integers, scale 0) rescaled to the target scale; NULL when the result needs more digits
// than the target precision allows.
class DecimalDecoder final : public LeafDecoder {
 public:
  DecimalDecoder(duckdb_type storage, int source_scale, int target_precision, int target_scale)
      : storage_(storage), ints_(storage), source_scale_(source_scale), target_scale_(target_scale),
        limit_(Pow10(target_precision)) {}
  Datum Get(idx_t row) const override {
    if (!Valid(row)) return Datum();
    int128_t v;
    if (storage_ == DUCKDB_TYPE_HUGEINT) {
      const auto& h = At<duckdb_hugeint>(row);
      v = (static_cast<int128_t>(h.upper) << 64) | static_cast<int128_t>(h.lower);
    } else {
      v = ints_.Read(data_, row);
    }
    if (target_scale_ > source_scale_) {
      int shift = target_scale_ - source_scale_;
      // |v| < 10^38 and shift <= 38: check before multiplying so nothing overflows.
      int128_t abs = v < 0 ? -v : v;
      if (shift > 38 || abs > (Pow10(38) / Pow10(shift))) return Datum();
      v *= Pow10(shift);
    } else if (target_scale_ < source_scale_) {
      // Round half up (away from zero), as Java's BigDecimal.setScale(s, HALF_UP).
      int128_t div = Pow10(source_scale_ - target_scale_);
      int128_t q = v / div;
      int128_t r = v % div;
      int128_t twice = (r < 0 ? -r : r) * 2;
      if (twice >= div) q += (v < 0 ? -1 : 1);
      v = q;
    }
    if (v >= limit_ || v <= -limit_) return Datum();
    return Datum(DecimalValue{v});
  }

 private:
  duckdb_type storage_;
  IntegerReader ints_;
  int source_scale_;
  int target_scale_;
  int128_t limit_;
};

class StringDecoder final : public LeafDecoder {
 public:
  Datum Get(idx_t row) const override {
    if (!Valid(row)) return Datum();
    auto* s = const_cast<duckdb_string_t*>(&At<duckdb_string_t>(row));
    return Datum(std::string(duckdb_string_t_data(s), duckdb_string_t_length(*s)));
  }
};

class DateDecoder final : public LeafDecoder {
 public:
  Datum Get(idx_t row) const override {
    if (!Valid(row)) return Datum();
    return Datum(static_cast<int64_t>(At<int32_t>(row)));
  }
};

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// TIME as milliseconds of the day, from TIME (µs), TIME WITH TIME ZONE (µs + offset) or INTEGER (ms).
class TimeDecoder final : public LeafDecoder {
 public:
  explicit TimeDecoder(duckdb_type source) : source_(source) {}
  Datum Get(idx_t row) const override {
    if (!Valid(row)) return Datum();
    switch (source_) {
      case DUCKDB_TYPE_TIME:
        return Datum(FloorDiv(At<int64_t>(row), 1000));
      case DUCKDB_TYPE_TIME_TZ: {
        // DuckDB packs the microseconds of the day in the upper 40 bits, the zone offset below.
        uint64_t bits = At<uint64_t>(row);
        return Datum(static_cast<int64_t>((bits >> 24) / 1000));
      }
      default:
        return Datum(static_cast<int64_t>(At<int32_t>(row)));
    }
  }

 private:
  duckdb_type source_;
};

}  // namespace

TimestampValue TruncateTimestamp(TimestampValue ts, int precision) {
  if (precision >= 9) return ts;
  if (precision >= 3) {
    int32_t unit = 1;  // nanoseconds per unit of the last kept digit: 10^(9 - p)
    for (int i = precision; i < 9; ++i) unit *= 10;
    ts.nanos_of_milli -= ts.nanos_of_milli % unit;
    return ts;
  }
  int64_t unit = 1;
  for (int i = precision; i < 3; ++i) unit *= 10;
  ts.millis = FloorDiv(ts.millis, unit) * unit;
  ts.nanos_of_milli = 0;
  return ts;
}

namespace {

class TimestampDecoder final : public LeafDecoder {
 public:
  TimestampDecoder(duckdb_type source, int precision) : source_(source), precision_(precision) {}
  Datum Get(idx_t row) const override {
    if (!Valid(row)) return Datum();
    int64_t v = At<int64_t>(row);
    TimestampValue ts;
    switch (source_) {
      case DUCKDB_TYPE_TIMESTAMP_S: ts = TimestampValue{v * 1000, 0}; break;
      case DUCKDB_TYPE_TIMESTAMP_MS: ts = TimestampValue{v, 0}; break;
      case DUCKDB_TYPE_TIMESTAMP_NS: ts = TimestampValue::FromNanos(v); break;
      default: ts = TimestampValue::FromMicros(v); break;  // TIMESTAMP, TIMESTAMP WITH TIME ZONE
    }
    return Datum(TruncateTimestamp(ts, precision_));
  }

 private:
  duckdb_type source_;
  int precision_;
};

// ARRAY (and MULTISET stored as a LIST): the elements of each list entry.
class ListDecoder final : public VectorDecoder {
 public:
  explicit ListDecoder(std::unique_ptr<VectorDecoder> element) : element_(std::move(element)) {}
  void Bind(duckdb_vector vector) override {
    entries_ = static_cast<const duckdb_list_entry*>(duckdb_vector_get_data(vector));
    validity_ = duckdb_vector_get_validity(vector);
    element_->Bind(duckdb_list_vector_get_child(vector));
  }
  Datum Get(idx_t row) const override {
    if (!RowValid(validity_, row)) return Datum();
    const duckdb_list_entry& e = entries_[row];
    std::vector<Datum> items;
    items.reserve(e.length);
    for (idx_t i = 0; i < e.length; ++i) items.push_back(element_->Get(e.offset + i));
    return Datum::Nested(std::move(items));
  }

 private:
  std::unique_ptr<VectorDecoder> element_;
  const duckdb_list_entry* entries_ = nullptr;
  const uint64_t* validity_ = nullptr;
};

// MAP (a LIST of STRUCT(key, value)): key0, value0, key1, value1, ...; for MULTISET, each key repeated
// as often as its count says.
class MapDecoder final : public VectorDecoder {
 public:
  MapDecoder(std::unique_ptr<VectorDecoder> key, std::unique_ptr<VectorDecoder> value, bool multiset)
      : key_(std::move(key)), value_(std::move(value)), multiset_(multiset) {}
  void Bind(duckdb_vector vector) override {
    entries_ = static_cast<const duckdb_list_entry*>(duckdb_vector_get_data(vector));
    validity_ = duckdb_vector_get_validity(vector);
    duckdb_vector entry = duckdb_list_vector_get_child(vector);
    key_->Bind(duckdb_struct_vector_get_child(entry, 0));
    value_->Bind(duckdb_struct_vector_get_child(entry, 1));
  }
  Datum Get(idx_t row) const override {
    if (!RowValid(validity_, row)) return Datum();
    const duckdb_list_entry& e = entries_[row];
    std::vector<Datum> items;
    items.reserve(multiset_ ? e.length : e.length * 2);
    for (idx_t i = 0; i < e.length; ++i) {
      Datum key = key_->Get(e.offset + i);
      Datum value = value_->Get(e.offset + i);
      if (multiset_) {
        int64_t count = value.is_null() ? 0 : value.as_int();
        for (int64_t c = 0; c < count; ++c) items.push_back(key);
      } else {
        items.push_back(std::move(key));
        items.push_back(std::move(value));
      }
    }
    return Datum::Nested(std::move(items));
  }

 private:
  std::unique_ptr<VectorDecoder> key_;
  std::unique_ptr<VectorDecoder> value_;
  bool multiset_;
  const duckdb_list_entry* entries_ = nullptr;
  const uint64_t* validity_ = nullptr;
};

// ROW from STRUCT: each Paimon field reads the struct child it was matched to, or NULL (-1).
class StructDecoder final : public VectorDecoder {
 public:
  StructDecoder(std::vector<int64_t> child_index, std::vector<std::unique_ptr<VectorDecoder>> children)
      : child_index_(std::move(child_index)), children_(std::move(children)) {}
  void Bind(duckdb_vector vector) override {
    validity_ = duckdb_vector_get_validity(vector);
    for (size_t i = 0; i < children_.size(); ++i) {
      if (child_index_[i] >= 0) {
        children_[i]->Bind(duckdb_struct_vector_get_child(vector, static_cast<idx_t>(child_index_[i])));
      }
    }
  }
  Datum Get(idx_t row) const override {
    if (!RowValid(validity_, row)) return Datum();
    std::vector<Datum> fields;
    fields.reserve(children_.size());
    for (size_t i = 0; i < children_.size(); ++i) {
      fields.push_back(child_index_[i] >= 0 ? children_[i]->Get(row) : Datum());
    }
    return Datum::Nested(std::move(fields));
  }

 private:
  std::vector<int64_t> child_index_;
  std::vector<std::unique_ptr<VectorDecoder>> children_;
  const uint64_t* validity_ = nullptr;
};

// The Parquet nodes under a LIST or MAP group. Standard 3-level layout: LIST -> repeated "list" group ->
// element; MAP -> repeated "key_value" group -> key, value. Older 2-level layouts put the element directly
// under the repeated node. Returns nullptr where the layout is not recognized (matching falls back to names).
const ParquetFileColumn* ListElementNode(const ParquetFileColumn* list) {
  if (list == nullptr || list->children.size() != 1) return nullptr;
  const ParquetFileColumn& repeated = list->children[0];
  if (repeated.is_group() && repeated.children.size() == 1) return &repeated.children[0];
  return &repeated;
}

const ParquetFileColumn* MapEntryNode(const ParquetFileColumn* map, int index) {
  if (map == nullptr || map->children.size() != 1) return nullptr;
  const ParquetFileColumn& kv = map->children[0];
  if (kv.children.size() != 2) return nullptr;
  return &kv.children[index];
}

Status Unreadable(duckdb_logical_type source, const DataType& target, const std::string& column) {
  return Status::NotSupported("column {}: the Parquet file stores {}, which Tide cannot read as {}", column,
                              DuckTypeToString(source),
                              target.ToString());
}

Result<std::unique_ptr<VectorDecoder>> CreateDecoder(duckdb_logical_type source, const DataType& target,
                                                     const ParquetFileColumn* file_column,
                                                     const std::string& column) {
  duckdb_type id = duckdb_get_type_id(source);
  switch (target.root()) {
    case TypeRoot::kBoolean:
      if (id == DUCKDB_TYPE_BOOLEAN) return std::unique_ptr<VectorDecoder>(new BooleanDecoder());
      break;
    case TypeRoot::kTinyInt:
    case TypeRoot::kSmallInt:
    case TypeRoot::kInt:
    case TypeRoot::kBigInt:
      if (IsIntegerType(id)) return std::unique_ptr<VectorDecoder>(new IntegerDecoder(id, target.root()));
      break;
    case TypeRoot::kFloat:
      if (id == DUCKDB_TYPE_FLOAT || id == DUCKDB_TYPE_DOUBLE) {
        return std::unique_ptr<VectorDecoder>(new FloatDecoder(id));
      }
      break;
    case TypeRoot::kDouble:
      if (id == DUCKDB_TYPE_FLOAT || id == DUCKDB_TYPE_DOUBLE || IsIntegerType(id)) {
        return std::unique_ptr<VectorDecoder>(new DoubleDecoder(id));
      }
      break;
    case TypeRoot::kDecimal:
      if (id == DUCKDB_TYPE_DECIMAL) {
        return std::unique_ptr<VectorDecoder>(new DecimalDecoder(duckdb_decimal_internal_type(source),
                                                                 duckdb_decimal_scale(source), target.precision(),
                                                                 target.scale()));
      }
      if (IsIntegerType(id) && id != DUCKDB_TYPE_UBIGINT) {
        return std::unique_ptr<VectorDecoder>(new DecimalDecoder(id, 0, target.precision(), target.scale()));
      }
      break;
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary:
      if (id == DUCKDB_TYPE_VARCHAR || id == DUCKDB_TYPE_BLOB) {
        return std::unique_ptr<VectorDecoder>(new StringDecoder());
      }
      break;
    case TypeRoot::kDate:
      if (id == DUCKDB_TYPE_DATE) return std::unique_ptr<VectorDecoder>(new DateDecoder());
      break;
    case TypeRoot::kTime:
      if (id == DUCKDB_TYPE_TIME || id == DUCKDB_TYPE_TIME_TZ || id == DUCKDB_TYPE_INTEGER) {
        return std::unique_ptr<VectorDecoder>(new TimeDecoder(id));
      }
      break;
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz:
      switch (id) {
        case DUCKDB_TYPE_TIMESTAMP:
        case DUCKDB_TYPE_TIMESTAMP_S:
        case DUCKDB_TYPE_TIMESTAMP_MS:
        case DUCKDB_TYPE_TIMESTAMP_NS:
        case DUCKDB_TYPE_TIMESTAMP_TZ:
          return std::unique_ptr<VectorDecoder>(new TimestampDecoder(id, target.precision()));
        default:
          break;
      }
      break;
    case TypeRoot::kArray:
    case TypeRoot::kMultiset: {
      if (id == DUCKDB_TYPE_LIST) {
        DuckLogicalType child(duckdb_list_type_child_type(source));
        TIDE_ASSIGN_OR_RETURN(auto element, CreateDecoder(child.raw(), target.element(),
                                                          ListElementNode(file_column), column + ".element"));
        return std::unique_ptr<VectorDecoder>(new ListDecoder(std::move(element)));
      }
      if (id == DUCKDB_TYPE_MAP && target.root() == TypeRoot::kMultiset) {
        DuckLogicalType key_type(duckdb_map_type_key_type(source));
        DuckLogicalType value_type(duckdb_map_type_value_type(source));
        TIDE_ASSIGN_OR_RETURN(auto key, CreateDecoder(key_type.raw(), target.element(),
                                                      MapEntryNode(file_column, 0), column + ".key"));
        TIDE_ASSIGN_OR_RETURN(auto value, CreateDecoder(value_type.raw(), DataType::Int(),
                                                        MapEntryNode(file_column, 1), column + ".value"));
        return std::unique_ptr<VectorDecoder>(new MapDecoder(std::move(key), std::move(value), true));
      }
      break;
    }
    case TypeRoot::kMap:
      if (id == DUCKDB_TYPE_MAP) {
        DuckLogicalType key_type(duckdb_map_type_key_type(source));
        DuckLogicalType value_type(duckdb_map_type_value_type(source));
        TIDE_ASSIGN_OR_RETURN(auto key, CreateDecoder(key_type.raw(), target.key(), MapEntryNode(file_column, 0),
                                                      column + ".key"));
        TIDE_ASSIGN_OR_RETURN(auto value, CreateDecoder(value_type.raw(), target.value(),
                                                        MapEntryNode(file_column, 1), column + ".value"));
        return std::unique_ptr<VectorDecoder>(new MapDecoder(std::move(key), std::move(value), false));
      }
      break;
    case TypeRoot::kRow:
      if (id == DUCKDB_TYPE_STRUCT) {
        idx_t count = duckdb_struct_type_child_count(source);
        std::vector<std::string> names;
        names.reserve(count);
        for (idx_t i = 0; i < count; ++i) {
          char* name = duckdb_struct_type_child_name(source, i);
          names.emplace_back(name ? name : "");
          duckdb_free(name);
        }
        std::vector<int64_t> child_index;
        std::vector<std::unique_ptr<VectorDecoder>> children;
        for (const DataField& field : target.fields()) {
          int64_t index = -1;
          const ParquetFileColumn* child_node = nullptr;
          if (file_column != nullptr && file_column->children.size() == count) {
            child_node = file_column->FindChild(field.name, field.id);
            if (child_node != nullptr) index = child_node - file_column->children.data();
          } else {
            for (idx_t i = 0; i < count && index < 0; ++i) {
              if (names[i] == field.name) index = static_cast<int64_t>(i);
            }
            for (idx_t i = 0; i < count && index < 0; ++i) {
              if (strcasecmp(names[i].c_str(), field.name.c_str()) == 0) index = static_cast<int64_t>(i);
            }
          }
          std::unique_ptr<VectorDecoder> child;
          if (index >= 0) {
            DuckLogicalType child_type(duckdb_struct_type_child_type(source, static_cast<idx_t>(index)));
            TIDE_ASSIGN_OR_RETURN(child, CreateDecoder(child_type.raw(), field.type, child_node,
                                                       column + "." + field.name));
          }
          child_index.push_back(index);
          children.push_back(std::move(child));
        }
        return std::unique_ptr<VectorDecoder>(new StructDecoder(std::move(child_index), std::move(children)));
      }
      break;
    case TypeRoot::kVariant:
      return Status::NotSupported("column {}: VARIANT columns are not supported", column);
  }
  return Unreadable(source, target, column);
}

}  // namespace

Result<std::unique_ptr<VectorDecoder>> VectorDecoder::Create(duckdb_logical_type source, const DataType& target,
                                                             const ParquetFileColumn* file_column,
                                                             const std::string& column) {
  return CreateDecoder(source, target, file_column, column);
}

}  // namespace tide
