#include "tide/codec/avro_value.h"

#include <cmath>
#include <cstring>

#include <fmt/format.h>

namespace tide {

AvroValue AvroValue::Boolean(bool v) {
  AvroValue out;
  out.type_ = AvroType::kBoolean;
  out.scalar_.b = v;
  return out;
}

AvroValue AvroValue::Int(int32_t v) {
  AvroValue out;
  out.type_ = AvroType::kInt;
  out.scalar_.i = v;
  return out;
}

AvroValue AvroValue::Long(int64_t v) {
  AvroValue out;
  out.type_ = AvroType::kLong;
  out.scalar_.l = v;
  return out;
}

AvroValue AvroValue::Float(float v) {
  AvroValue out;
  out.type_ = AvroType::kFloat;
  out.scalar_.f = v;
  return out;
}

AvroValue AvroValue::Double(double v) {
  AvroValue out;
  out.type_ = AvroType::kDouble;
  out.scalar_.d = v;
  return out;
}

AvroValue AvroValue::String(std::string v) {
  AvroValue out;
  out.type_ = AvroType::kString;
  out.bytes_ = std::move(v);
  return out;
}

AvroValue AvroValue::Bytes(std::string v) {
  AvroValue out;
  out.type_ = AvroType::kBytes;
  out.bytes_ = std::move(v);
  return out;
}

AvroValue AvroValue::Fixed(std::string v) {
  AvroValue out;
  out.type_ = AvroType::kFixed;
  out.bytes_ = std::move(v);
  return out;
}

AvroValue AvroValue::Enum(int32_t symbol_index) {
  AvroValue out;
  out.type_ = AvroType::kEnum;
  out.scalar_.i = symbol_index;
  return out;
}

AvroValue AvroValue::Array(std::vector<AvroValue> items) {
  AvroValue out;
  out.type_ = AvroType::kArray;
  out.items_ = std::move(items);
  return out;
}

AvroValue AvroValue::Map(std::vector<std::pair<std::string, AvroValue>> entries) {
  AvroValue out;
  out.type_ = AvroType::kMap;
  out.items_.reserve(entries.size() * 2);
  for (auto& [key, value] : entries) {
    out.items_.push_back(String(std::move(key)));
    out.items_.push_back(std::move(value));
  }
  return out;
}

AvroValue AvroValue::Record(std::vector<AvroValue> fields) {
  AvroValue out;
  out.type_ = AvroType::kRecord;
  out.items_ = std::move(fields);
  return out;
}

AvroValue AvroValue::Record(std::shared_ptr<const AvroNode> schema, std::vector<AvroValue> fields) {
  AvroValue out = Record(std::move(fields));
  out.record_schema_ = std::move(schema);
  return out;
}

AvroValue AvroValue::Union(int branch, AvroValue value) {
  value.branch_ = branch;
  return value;
}

namespace {

Status WrongType(AvroType actual, std::string_view expected) {
  return Status::Corruption("Avro value is {}, expected {}", AvroTypeName(actual), expected);
}

}  // namespace

Result<bool> AvroValue::AsBool() const {
  if (type_ != AvroType::kBoolean) return WrongType(type_, "boolean");
  return scalar_.b;
}

Result<int32_t> AvroValue::AsInt() const {
  if (type_ != AvroType::kInt) return WrongType(type_, "int");
  return scalar_.i;
}

Result<int64_t> AvroValue::AsLong() const {
  if (type_ == AvroType::kLong) return scalar_.l;
  if (type_ == AvroType::kInt) return static_cast<int64_t>(scalar_.i);
  return WrongType(type_, "long");
}

Result<float> AvroValue::AsFloat() const {
  if (type_ != AvroType::kFloat) return WrongType(type_, "float");
  return scalar_.f;
}

Result<double> AvroValue::AsDouble() const {
  if (type_ == AvroType::kDouble) return scalar_.d;
  if (type_ == AvroType::kFloat) return static_cast<double>(scalar_.f);
  return WrongType(type_, "double");
}

Result<std::string_view> AvroValue::AsString() const {
  if (type_ != AvroType::kString) return WrongType(type_, "string");
  return std::string_view(bytes_);
}

Result<std::string_view> AvroValue::AsBytes() const {
  if (type_ != AvroType::kBytes && type_ != AvroType::kFixed) return WrongType(type_, "bytes");
  return std::string_view(bytes_);
}

Result<int32_t> AvroValue::AsEnum() const {
  if (type_ != AvroType::kEnum) return WrongType(type_, "enum");
  return scalar_.i;
}

const AvroValue* AvroValue::FindMapValue(std::string_view key) const {
  if (type_ != AvroType::kMap) return nullptr;
  for (size_t i = 0; i + 1 < items_.size(); i += 2) {
    if (items_[i].bytes_ == key) return &items_[i + 1];
  }
  return nullptr;
}

const AvroValue* AvroValue::FindField(std::string_view name) const {
  if (type_ != AvroType::kRecord || record_schema_ == nullptr) return nullptr;
  int index = record_schema_->FieldIndex(name);
  if (index < 0 || static_cast<size_t>(index) >= items_.size()) return nullptr;
  return &items_[index];
}

std::string AvroValue::FieldContext(std::string_view name) const {
  if (record_schema_ != nullptr) return fmt::format("field \"{}\" of record \"{}\"", name, record_schema_->full_name());
  return fmt::format("field \"{}\"", name);
}

Status AvroValue::TypeError(std::string_view name, std::string_view expected) const {
  const AvroValue* f = FindField(name);
  return Status::Corruption("Avro {} holds {}, expected {}", FieldContext(name),
                            f ? AvroTypeName(f->type_) : std::string_view("nothing"), expected);
}

Result<const AvroValue*> AvroValue::GetField(std::string_view name) const {
  if (type_ != AvroType::kRecord) {
    return Status::Corruption("Avro value is {}, not a record, so it has no field \"{}\"", AvroTypeName(type_), name);
  }
  if (record_schema_ == nullptr) {
    return Status::Corruption("Avro record was built without a schema, so its field \"{}\" cannot be found by name",
                              name);
  }
  const AvroValue* f = FindField(name);
  if (f == nullptr) return Status::Corruption("Avro record \"{}\" has no field \"{}\"", record_schema_->full_name(), name);
  return f;
}

Result<const AvroValue*> AvroValue::RequiredField(std::string_view name, std::string_view expected) const {
  TIDE_ASSIGN_OR_RETURN(const AvroValue* f, GetField(name));
  if (f->is_null()) return Status::Corruption("Avro {} is null, expected {}", FieldContext(name), expected);
  return f;
}

Result<const AvroValue*> AvroValue::OptionalField(std::string_view name) const {
  if (type_ != AvroType::kRecord || record_schema_ == nullptr) {
    TIDE_RETURN_IF_ERROR(GetField(name).status());  // produces the right error
  }
  const AvroValue* f = FindField(name);
  if (f == nullptr || f->is_null()) return static_cast<const AvroValue*>(nullptr);
  return f;
}

Result<bool> AvroValue::GetBool(std::string_view name) const {
  TIDE_ASSIGN_OR_RETURN(const AvroValue* f, RequiredField(name, "boolean"));
  if (f->type_ != AvroType::kBoolean) return TypeError(name, "boolean");
  return f->scalar_.b;
}

Result<int32_t> AvroValue::GetInt(std::string_view name) const {
  TIDE_ASSIGN_OR_RETURN(const AvroValue* f, RequiredField(name, "int"));
  if (f->type_ != AvroType::kInt) return TypeError(name, "int");
  return f->scalar_.i;
}

Result<int64_t> AvroValue::GetLong(std::string_view name) const {
  TIDE_ASSIGN_OR_RETURN(const AvroValue* f, RequiredField(name, "long"));
  if (f->type_ == AvroType::kLong) return f->scalar_.l;
  if (f->type_ == AvroType::kInt) return static_cast<int64_t>(f->scalar_.i);
  return TypeError(name, "long");
}

Result<float> AvroValue::GetFloat(std::string_view name) const {
  TIDE_ASSIGN_OR_RETURN(const AvroValue* f, RequiredField(name, "float"));
  if (f->type_ != AvroType::kFloat) return TypeError(name, "float");
  return f->scalar_.f;
}

Result<double> AvroValue::GetDouble(std::string_view name) const {
  TIDE_ASSIGN_OR_RETURN(const AvroValue* f, RequiredField(name, "double"));
  if (f->type_ == AvroType::kDouble) return f->scalar_.d;
  if (f->type_ == AvroType::kFloat) return static_cast<double>(f->scalar_.f);
  return TypeError(name, "double");
}

Result<std::string_view> AvroValue::GetString(std::string_view name) const {
  TIDE_ASSIGN_OR_RETURN(const AvroValue* f, RequiredField(name, "string"));
  if (f->type_ != AvroType::kString) return TypeError(name, "string");
  return std::string_view(f->bytes_);
}

Result<std::string_view> AvroValue::GetBytes(std::string_view name) const {
  TIDE_ASSIGN_OR_RETURN(const AvroValue* f, RequiredField(name, "bytes"));
  if (f->type_ != AvroType::kBytes && f->type_ != AvroType::kFixed) return TypeError(name, "bytes");
  return std::string_view(f->bytes_);
}

Result<int32_t> AvroValue::GetEnum(std::string_view name) const {
  TIDE_ASSIGN_OR_RETURN(const AvroValue* f, RequiredField(name, "enum"));
  if (f->type_ != AvroType::kEnum) return TypeError(name, "enum");
  return f->scalar_.i;
}

Result<const AvroValue*> AvroValue::GetRecord(std::string_view name) const {
  TIDE_ASSIGN_OR_RETURN(const AvroValue* f, RequiredField(name, "record"));
  if (f->type_ != AvroType::kRecord) return TypeError(name, "record");
  return f;
}

Result<const std::vector<AvroValue>*> AvroValue::GetArray(std::string_view name) const {
  TIDE_ASSIGN_OR_RETURN(const AvroValue* f, RequiredField(name, "array"));
  if (f->type_ != AvroType::kArray) return TypeError(name, "array");
  return &f->items_;
}

Result<const AvroValue*> AvroValue::GetMap(std::string_view name) const {
  TIDE_ASSIGN_OR_RETURN(const AvroValue* f, RequiredField(name, "map"));
  if (f->type_ != AvroType::kMap) return TypeError(name, "map");
  return f;
}

Result<std::optional<bool>> AvroValue::GetOptionalBool(std::string_view name) const {
  TIDE_ASSIGN_OR_RETURN(const AvroValue* f, OptionalField(name));
  if (f == nullptr) return std::optional<bool>();
  if (f->type_ != AvroType::kBoolean) return TypeError(name, "boolean or null");
  return std::optional<bool>(f->scalar_.b);
}

Result<std::optional<int32_t>> AvroValue::GetOptionalInt(std::string_view name) const {
  TIDE_ASSIGN_OR_RETURN(const AvroValue* f, OptionalField(name));
  if (f == nullptr) return std::optional<int32_t>();
  if (f->type_ != AvroType::kInt) return TypeError(name, "int or null");
  return std::optional<int32_t>(f->scalar_.i);
}

Result<std::optional<int64_t>> AvroValue::GetOptionalLong(std::string_view name) const {
  TIDE_ASSIGN_OR_RETURN(const AvroValue* f, OptionalField(name));
  if (f == nullptr) return std::optional<int64_t>();
  if (f->type_ == AvroType::kLong) return std::optional<int64_t>(f->scalar_.l);
  if (f->type_ == AvroType::kInt) return std::optional<int64_t>(f->scalar_.i);
  return TypeError(name, "long or null");
}

Result<std::optional<double>> AvroValue::GetOptionalDouble(std::string_view name) const {
  TIDE_ASSIGN_OR_RETURN(const AvroValue* f, OptionalField(name));
  if (f == nullptr) return std::optional<double>();
  if (f->type_ == AvroType::kDouble) return std::optional<double>(f->scalar_.d);
  if (f->type_ == AvroType::kFloat) return std::optional<double>(f->scalar_.f);
  return TypeError(name, "double or null");
}

Result<std::optional<std::string_view>> AvroValue::GetOptionalString(std::string_view name) const {
  TIDE_ASSIGN_OR_RETURN(const AvroValue* f, OptionalField(name));
  if (f == nullptr) return std::optional<std::string_view>();
  if (f->type_ != AvroType::kString) return TypeError(name, "string or null");
  return std::optional<std::string_view>(f->bytes_);
}

Result<std::optional<std::string_view>> AvroValue::GetOptionalBytes(std::string_view name) const {
  TIDE_ASSIGN_OR_RETURN(const AvroValue* f, OptionalField(name));
  if (f == nullptr) return std::optional<std::string_view>();
  if (f->type_ != AvroType::kBytes && f->type_ != AvroType::kFixed) return TypeError(name, "bytes or null");
  return std::optional<std::string_view>(f->bytes_);
}

Result<const AvroValue*> AvroValue::GetOptionalRecord(std::string_view name) const {
  TIDE_ASSIGN_OR_RETURN(const AvroValue* f, OptionalField(name));
  if (f == nullptr) return f;
  if (f->type_ != AvroType::kRecord) return TypeError(name, "record or null");
  return f;
}

Result<const std::vector<AvroValue>*> AvroValue::GetOptionalArray(std::string_view name) const {
  TIDE_ASSIGN_OR_RETURN(const AvroValue* f, OptionalField(name));
  if (f == nullptr) return static_cast<const std::vector<AvroValue>*>(nullptr);
  if (f->type_ != AvroType::kArray) return TypeError(name, "array or null");
  return &f->items_;
}

bool AvroValue::operator==(const AvroValue& other) const {
  if (type_ != other.type_) return false;
  switch (type_) {
    case AvroType::kNull: return true;
    case AvroType::kBoolean: return scalar_.b == other.scalar_.b;
    case AvroType::kInt:
    case AvroType::kEnum: return scalar_.i == other.scalar_.i;
    case AvroType::kLong: return scalar_.l == other.scalar_.l;
    case AvroType::kFloat: return std::memcmp(&scalar_.f, &other.scalar_.f, sizeof(float)) == 0;
    case AvroType::kDouble: return std::memcmp(&scalar_.d, &other.scalar_.d, sizeof(double)) == 0;
    case AvroType::kBytes:
    case AvroType::kString:
    case AvroType::kFixed: return bytes_ == other.bytes_;
    case AvroType::kArray:
    case AvroType::kMap:
    case AvroType::kRecord: return items_ == other.items_;
    case AvroType::kUnion: return false;
  }
  return false;
}

namespace {

void AppendEscaped(std::string_view s, bool as_bytes, std::string* out) {
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(static_cast<char>(c));
    } else if (c < 0x20 || c == 0x7f || (as_bytes && c >= 0x80)) {
      fmt::format_to(std::back_inserter(*out), "\\x{:02x}", c);
    } else {
      out->push_back(static_cast<char>(c));
    }
  }
}

}  // namespace

void AvroValue::AppendDebug(std::string* out) const {
  switch (type_) {
    case AvroType::kNull: out->append("null"); return;
    case AvroType::kBoolean: out->append(scalar_.b ? "true" : "false"); return;
    case AvroType::kInt: out->append(std::to_string(scalar_.i)); return;
    case AvroType::kLong: out->append(std::to_string(scalar_.l)); return;
    case AvroType::kFloat: fmt::format_to(std::back_inserter(*out), "{}f", scalar_.f); return;
    case AvroType::kDouble: fmt::format_to(std::back_inserter(*out), "{}", scalar_.d); return;
    case AvroType::kEnum: fmt::format_to(std::back_inserter(*out), "enum#{}", scalar_.i); return;
    case AvroType::kString:
      out->push_back('"');
      AppendEscaped(bytes_, false, out);
      out->push_back('"');
      return;
    case AvroType::kBytes:
    case AvroType::kFixed:
      out->append("b\"");
      AppendEscaped(bytes_, true, out);
      out->push_back('"');
      return;
    case AvroType::kArray:
      out->push_back('[');
      for (size_t i = 0; i < items_.size(); ++i) {
        if (i > 0) out->append(", ");
        items_[i].AppendDebug(out);
      }
      out->push_back(']');
      return;
    case AvroType::kMap:
      out->push_back('{');
      for (size_t i = 0; i < map_size(); ++i) {
        if (i > 0) out->append(", ");
        out->push_back('"');
        AppendEscaped(map_key(i), false, out);
        out->append("\": ");
        map_value(i).AppendDebug(out);
      }
      out->push_back('}');
      return;
    case AvroType::kRecord:
      out->push_back('{');
      for (size_t i = 0; i < items_.size(); ++i) {
        if (i > 0) out->append(", ");
        if (record_schema_ != nullptr && i < record_schema_->fields().size()) {
          out->append(record_schema_->fields()[i].name);
        } else {
          out->append(std::to_string(i));
        }
        out->append(": ");
        items_[i].AppendDebug(out);
      }
      out->push_back('}');
      return;
    case AvroType::kUnion: out->append("<union>"); return;
  }
}

std::string AvroValue::DebugString() const {
  std::string out;
  AppendDebug(&out);
  return out;
}

}  // namespace tide
