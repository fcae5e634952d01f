#include "tide/format/avro_data_file_reader.h"

#include <fmt/format.h>

#include "tide/io/file_system.h"

namespace tide {
namespace {

Status Mismatch(const std::string& what, const AvroNode& node, const DataType& type) {
  return Status::Corruption("{}: Avro {} cannot hold {} as Paimon's Avro format writes it", what,
                            AvroTypeName(node.type()), type.ToString());
}

// The unscaled value of a decimal stored as big-endian two's complement bytes.
Result<int128_t> UnscaledDecimal(std::string_view bytes, const std::string& what) {
  if (bytes.size() > 16) return Status::Corruption("{}: decimal of {} bytes does not fit 128 bits", what, bytes.size());
  if (bytes.empty()) return int128_t{0};
  unsigned __int128 v = (static_cast<unsigned char>(bytes[0]) & 0x80) ? ~static_cast<unsigned __int128>(0) : 0;
  for (char c : bytes) v = (v << 8) | static_cast<unsigned char>(c);
  return static_cast<int128_t>(v);
}

// A map stored as an Avro map (string keys) or as an array of records (key, value): calls
// `entry(key value, key node, value value, value node)` for each entry in file order.
template <typename F>
Status ForEachMapEntry(const AvroValue& value, const AvroNode& node, const std::string& what, F&& entry) {
  if (node.type() == AvroType::kMap && value.type() == AvroType::kMap) {
    // Keys of an Avro map are strings (no node of their own: the callback gets nullptr).
    for (size_t i = 0; i < value.map_size(); ++i) {
      TIDE_RETURN_IF_ERROR(entry(AvroValue::String(std::string(value.map_key(i))), nullptr, value.map_value(i), *node.values()));
    }
    return Status::OK();
  }
  if (node.type() == AvroType::kArray && value.type() == AvroType::kArray) {
    const AvroNode* item = node.items();
    if (item->type() != AvroType::kRecord || item->fields().size() != 2) {
      return Status::Corruption("{}: a map stored as an array must hold (key, value) records", what);
    }
    for (const AvroValue& kv : value.items()) {
      if (kv.type() != AvroType::kRecord || kv.field_count() != 2) {
        return Status::Corruption("{}: a map entry is not a (key, value) record", what);
      }
      TIDE_RETURN_IF_ERROR(entry(kv.field(0), item->fields()[0].type, kv.field(1), *item->fields()[1].type));
    }
    return Status::OK();
  }
  return Status::Corruption("{}: Avro {} cannot hold a map", what, AvroTypeName(node.type()));
}

}  // namespace

Result<Datum> AvroToDatum(const AvroValue& value, const AvroNode& node, const DataType& type, const std::string& what) {
  if (node.type() == AvroType::kUnion) {
    const int branch = value.branch();
    if (branch < 0 || static_cast<size_t>(branch) >= node.branches().size()) {
      return Status::Corruption("{}: union value without a valid branch", what);
    }
    return AvroToDatum(value, *node.branches()[static_cast<size_t>(branch)], type, what);
  }
  if (node.type() == AvroType::kNull || value.is_null()) return Datum();
  const std::string& logical = node.logical_type();
  switch (type.root()) {
    case TypeRoot::kBoolean:
      if (node.type() != AvroType::kBoolean) return Mismatch(what, node, type);
      return Datum(value.bool_value());
    case TypeRoot::kTinyInt:
    case TypeRoot::kSmallInt:
    case TypeRoot::kInt:
    case TypeRoot::kDate:
      if (node.type() != AvroType::kInt) return Mismatch(what, node, type);
      return Datum(value.int_value());
    case TypeRoot::kBigInt:
      if (node.type() == AvroType::kInt) return Datum(value.int_value());
      if (node.type() != AvroType::kLong) return Mismatch(what, node, type);
      return Datum(value.long_value());
    case TypeRoot::kTime:
      // Paimon keeps TIME as milliseconds of the day; Avro holds time-millis (an int).
      if (node.type() == AvroType::kInt) return Datum(value.int_value());
      if (node.type() == AvroType::kLong && logical == "time-micros") {
        int64_t micros = value.long_value();
        return Datum(static_cast<int64_t>(micros >= 0 ? micros / 1000 : -((-micros + 999) / 1000)));
      }
      return Mismatch(what, node, type);
    case TypeRoot::kFloat:
      if (node.type() != AvroType::kFloat) return Mismatch(what, node, type);
      return Datum(value.float_value());
    case TypeRoot::kDouble:
      if (node.type() == AvroType::kFloat) return Datum(static_cast<double>(value.float_value()));
      if (node.type() != AvroType::kDouble) return Mismatch(what, node, type);
      return Datum(value.double_value());
    case TypeRoot::kDecimal: {
      if (node.type() != AvroType::kBytes && node.type() != AvroType::kFixed) return Mismatch(what, node, type);
      TIDE_ASSIGN_OR_RETURN(int128_t unscaled, UnscaledDecimal(value.bytes_value(), what));
      return Datum(DecimalValue{unscaled});
    }
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
      if (node.type() != AvroType::kString) return Mismatch(what, node, type);
      return Datum(value.string_value());
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary:
      if (node.type() != AvroType::kBytes && node.type() != AvroType::kFixed) return Mismatch(what, node, type);
      return Datum(value.bytes_value());
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz: {
      if (node.type() != AvroType::kLong) return Mismatch(what, node, type);
      const int64_t v = value.long_value();
      // The logical type says the unit; without one, Java's choice by precision.
      bool millis = logical.empty() ? type.precision() <= 3 : logical.find("millis") != std::string::npos;
      bool nanos = logical.find("nanos") != std::string::npos;
      if (nanos) return Datum(TimestampValue::FromNanos(v));
      if (millis) return Datum(TimestampValue{v, 0});
      return Datum(TimestampValue::FromMicros(v));
    }
    case TypeRoot::kArray: {
      if (node.type() != AvroType::kArray || value.type() != AvroType::kArray) return Mismatch(what, node, type);
      std::vector<Datum> items;
      items.reserve(value.items().size());
      for (const AvroValue& item : value.items()) {
        TIDE_ASSIGN_OR_RETURN(Datum d, AvroToDatum(item, *node.items(), type.element(), what));
        items.push_back(std::move(d));
      }
      return Datum::Nested(std::move(items));
    }
    case TypeRoot::kMap: {
      std::vector<Datum> items;
      TIDE_RETURN_IF_ERROR(ForEachMapEntry(
          value, node, what,
          [&](const AvroValue& k, const AvroNode* k_node, const AvroValue& v, const AvroNode& v_node) -> Status {
            if (k_node == nullptr) {
              items.emplace_back(k.string_value());
            } else {
              TIDE_ASSIGN_OR_RETURN(Datum key, AvroToDatum(k, *k_node, type.key(), what));
              items.push_back(std::move(key));
            }
            TIDE_ASSIGN_OR_RETURN(Datum val, AvroToDatum(v, v_node, type.value(), what));
            items.push_back(std::move(val));
            return Status::OK();
          }));
      return Datum::Nested(std::move(items));
    }
    case TypeRoot::kMultiset: {
      // Element -> count; Tide holds a multiset as its elements, each repeated as often as it counts.
      std::vector<Datum> items;
      TIDE_RETURN_IF_ERROR(ForEachMapEntry(
          value, node, what,
          [&](const AvroValue& k, const AvroNode* k_node, const AvroValue& v, const AvroNode& v_node) -> Status {
            Datum element;
            if (k_node == nullptr) {
              element = Datum(k.string_value());
            } else {
              TIDE_ASSIGN_OR_RETURN(element, AvroToDatum(k, *k_node, type.element(), what));
            }
            TIDE_ASSIGN_OR_RETURN(Datum count, AvroToDatum(v, v_node, DataType::Int(false), what));
            if (count.is_null() || count.as_int() < 0) {
              return Status::Corruption("{}: a multiset element has no valid count", what);
            }
            for (int64_t i = 0; i < count.as_int(); ++i) items.push_back(element);
            return Status::OK();
          }));
      return Datum::Nested(std::move(items));
    }
    case TypeRoot::kRow: {
      if (node.type() != AvroType::kRecord || value.type() != AvroType::kRecord) return Mismatch(what, node, type);
      std::vector<Datum> fields;
      fields.reserve(type.fields().size());
      for (const DataField& f : type.fields()) {
        int idx = node.FieldIndex(f.name);
        if (idx < 0 || static_cast<size_t>(idx) >= value.field_count()) {
          fields.emplace_back();  // a nested field the file does not hold reads as NULL
          continue;
        }
        TIDE_ASSIGN_OR_RETURN(Datum d, AvroToDatum(value.field(static_cast<size_t>(idx)),
                                                   *node.fields()[static_cast<size_t>(idx)].type, f.type,
                                                   what + "." + f.name));
        fields.push_back(std::move(d));
      }
      return Datum::Nested(std::move(fields));
    }
    case TypeRoot::kVariant:
      break;
  }
  return Status::NotSupported("{}: type {} has no Avro form in Paimon", what, type.ToString());
}

Result<std::unique_ptr<AvroDataFileReader>> AvroDataFileReader::Open(const std::string& path,
                                                                     std::vector<ParquetColumnSpec> columns) {
  for (const ParquetColumnSpec& c : columns) {
    const TypeRoot root = c.type.root();
    if (root == TypeRoot::kVariant || (root == TypeRoot::kTime && c.type.precision() > 3) ||
        ((root == TypeRoot::kTimestamp || root == TypeRoot::kTimestampLtz) && c.type.precision() > 6)) {
      return Status::NotSupported("data file {}: column '{}' of type {} has no Avro form in Paimon", path, c.name,
                                  c.type.ToString());
    }
  }
  TIDE_ASSIGN_OR_RETURN(std::string bytes, FileSystem::Local()->ReadFile(path));
  auto reader = std::unique_ptr<AvroDataFileReader>(new AvroDataFileReader());
  reader->path_ = path;
  reader->columns_ = std::move(columns);
  TIDE_ASSIGN_OR_RETURN(reader->reader_, AvroReader::Open(std::move(bytes), path));
  const AvroNode& root = reader->reader_->schema().root();
  if (root.type() != AvroType::kRecord) {
    return Status::Corruption("data file {}: the Avro schema is a {}, not the record Paimon writes", path,
                              AvroTypeName(root.type()));
  }
  for (size_t i = 0; i < reader->columns_.size(); ++i) {
    reader->column_context_.push_back(fmt::format("data file {}, column '{}'", path, reader->columns_[i].name));
    int idx = root.FieldIndex(reader->columns_[i].name);
    reader->field_of_column_.push_back(idx);
    if (idx < 0) reader->missing_.push_back(i);
  }
  return reader;
}

Result<bool> AvroDataFileReader::NextBatch(size_t max_rows, std::vector<Row>* rows, std::vector<int64_t>* positions) {
  const AvroNode& root = reader_->schema().root();
  size_t produced = 0;
  while (produced < std::max<size_t>(max_rows, 1)) {
    TIDE_ASSIGN_OR_RETURN(bool more, reader_->Next(&record_));
    if (!more) break;
    Row row;
    row.reserve(columns_.size());
    for (size_t i = 0; i < columns_.size(); ++i) {
      const int idx = field_of_column_[i];
      if (idx < 0) {
        row.emplace_back();
        continue;
      }
      const auto field = static_cast<size_t>(idx);
      TIDE_ASSIGN_OR_RETURN(Datum d, AvroToDatum(record_.field(field), *root.fields()[field].type, columns_[i].type,
                                                 column_context_[i]));
      row.push_back(std::move(d));
    }
    rows->push_back(std::move(row));
    positions->push_back(next_position_++);
    ++produced;
  }
  return produced > 0;
}

}  // namespace tide
