#include "tide/types/data_type.h"

#include <cctype>

#include "tide/base/strings.h"

namespace tide {

namespace {
const std::vector<DataField>& EmptyFields() {
  static const std::vector<DataField> kEmpty;
  return kEmpty;
}
}  // namespace

DataType DataType::Decimal(int precision, int scale, bool nullable) {
  DataType t(TypeRoot::kDecimal, nullable);
  t.precision_ = precision;
  t.scale_ = scale;
  return t;
}
DataType DataType::Char(int32_t length, bool nullable) {
  DataType t(TypeRoot::kChar, nullable);
  t.length_ = length;
  return t;
}
DataType DataType::VarChar(int32_t length, bool nullable) {
  DataType t(TypeRoot::kVarChar, nullable);
  t.length_ = length;
  return t;
}
DataType DataType::Binary(int32_t length, bool nullable) {
  DataType t(TypeRoot::kBinary, nullable);
  t.length_ = length;
  return t;
}
DataType DataType::VarBinary(int32_t length, bool nullable) {
  DataType t(TypeRoot::kVarBinary, nullable);
  t.length_ = length;
  return t;
}
DataType DataType::Time(int precision, bool nullable) {
  DataType t(TypeRoot::kTime, nullable);
  t.precision_ = precision;
  return t;
}
DataType DataType::Timestamp(int precision, bool nullable) {
  DataType t(TypeRoot::kTimestamp, nullable);
  t.precision_ = precision;
  return t;
}
DataType DataType::TimestampLtz(int precision, bool nullable) {
  DataType t(TypeRoot::kTimestampLtz, nullable);
  t.precision_ = precision;
  return t;
}
DataType DataType::Array(DataType element, bool nullable) {
  DataType t(TypeRoot::kArray, nullable);
  t.element_ = std::make_shared<const DataType>(std::move(element));
  return t;
}
DataType DataType::Multiset(DataType element, bool nullable) {
  DataType t(TypeRoot::kMultiset, nullable);
  t.element_ = std::make_shared<const DataType>(std::move(element));
  return t;
}
DataType DataType::Map(DataType key, DataType value, bool nullable) {
  DataType t(TypeRoot::kMap, nullable);
  t.element_ = std::make_shared<const DataType>(std::move(key));
  t.value_ = std::make_shared<const DataType>(std::move(value));
  return t;
}
DataType DataType::Row(std::vector<DataField> fields, bool nullable) {
  DataType t(TypeRoot::kRow, nullable);
  t.fields_ = std::make_shared<const std::vector<DataField>>(std::move(fields));
  return t;
}

const std::vector<DataField>& DataType::fields() const { return fields_ ? *fields_ : EmptyFields(); }

DataType DataType::WithNullable(bool nullable) const {
  DataType t = *this;
  t.nullable_ = nullable;
  return t;
}

bool DataType::IsIntegral() const {
  return root_ == TypeRoot::kTinyInt || root_ == TypeRoot::kSmallInt || root_ == TypeRoot::kInt ||
         root_ == TypeRoot::kBigInt;
}

bool DataType::IsNested() const {
  return root_ == TypeRoot::kArray || root_ == TypeRoot::kMultiset || root_ == TypeRoot::kMap ||
         root_ == TypeRoot::kRow;
}

std::string DataType::ToString() const {
  std::string s;
  switch (root_) {
    case TypeRoot::kBoolean: s = "BOOLEAN"; break;
    case TypeRoot::kTinyInt: s = "TINYINT"; break;
    case TypeRoot::kSmallInt: s = "SMALLINT"; break;
    case TypeRoot::kInt: s = "INT"; break;
    case TypeRoot::kBigInt: s = "BIGINT"; break;
    case TypeRoot::kFloat: s = "FLOAT"; break;
    case TypeRoot::kDouble: s = "DOUBLE"; break;
    case TypeRoot::kDecimal: s = fmt::format("DECIMAL({}, {})", precision_, scale_); break;
    case TypeRoot::kChar: s = fmt::format("CHAR({})", length_); break;
    case TypeRoot::kVarChar: s = length_ == kMaxLength ? "STRING" : fmt::format("VARCHAR({})", length_); break;
    case TypeRoot::kBinary: s = fmt::format("BINARY({})", length_); break;
    case TypeRoot::kVarBinary: s = length_ == kMaxLength ? "BYTES" : fmt::format("VARBINARY({})", length_); break;
    case TypeRoot::kDate: s = "DATE"; break;
    case TypeRoot::kTime: s = fmt::format("TIME({})", precision_); break;
    case TypeRoot::kTimestamp: s = fmt::format("TIMESTAMP({})", precision_); break;
    case TypeRoot::kTimestampLtz: s = fmt::format("TIMESTAMP({}) WITH LOCAL TIME ZONE", precision_); break;
    case TypeRoot::kArray: s = fmt::format("ARRAY<{}>", element_->ToString()); break;
    case TypeRoot::kMultiset: s = fmt::format("MULTISET<{}>", element_->ToString()); break;
    case TypeRoot::kMap: s = fmt::format("MAP<{}, {}>", element_->ToString(), value_->ToString()); break;
    case TypeRoot::kRow: {
      std::vector<std::string> parts;
      for (const auto& f : fields()) {
        std::string p = fmt::format("`{}` {}", f.name, f.type.ToString());
        if (f.description) p += fmt::format(" '{}'", *f.description);
        parts.push_back(std::move(p));
      }
      s = fmt::format("ROW<{}>", Join(parts, ", "));
      break;
    }
    case TypeRoot::kVariant: s = "VARIANT"; break;
  }
  if (!nullable_) s += " NOT NULL";
  return s;
}

nlohmann::ordered_json DataType::ToJson() const {
  const char* suffix = nullable_ ? "" : " NOT NULL";
  switch (root_) {
    case TypeRoot::kArray:
    case TypeRoot::kMultiset: {
      nlohmann::ordered_json j;
      j["type"] = std::string(root_ == TypeRoot::kArray ? "ARRAY" : "MULTISET") + suffix;
      j["element"] = element_->ToJson();
      return j;
    }
    case TypeRoot::kMap: {
      nlohmann::ordered_json j;
      j["type"] = std::string("MAP") + suffix;
      j["key"] = element_->ToJson();
      j["value"] = value_->ToJson();
      return j;
    }
    case TypeRoot::kRow: {
      nlohmann::ordered_json j;
      j["type"] = std::string("ROW") + suffix;
      nlohmann::ordered_json fs = nlohmann::ordered_json::array();
      for (const auto& f : fields()) fs.push_back(f.ToJson());
      j["fields"] = std::move(fs);
      return j;
    }
    default:
      return ToString();
  }
}

namespace {

// Recursive-descent parser over the SQL string form of a type.
class TypeParser {
 public:
  TypeParser(std::string_view text, int32_t* next_field_id) : text_(text), next_id_(next_field_id) {}

  Result<DataType> ParseAll() {
    TIDE_ASSIGN_OR_RETURN(DataType t, ParseType());
    SkipSpace();
    if (pos_ != text_.size()) return Error("unexpected text");
    return t;
  }

 private:
  Status Error(std::string_view what) const {
    return Status::InvalidArgument("cannot parse type '{}': {} at position {}", text_, what, pos_);
  }

  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  // An identifier (letters, digits, underscore), upper-cased; empty if none.
  std::string PeekWord() {
    SkipSpace();
    size_t p = pos_;
    while (p < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[p])) || text_[p] == '_')) ++p;
    return ToUpper(text_.substr(pos_, p - pos_));
  }
  std::string Word() {
    std::string w = PeekWord();
    pos_ += w.size();
    return w;
  }
  bool AcceptWord(std::string_view w) {
    size_t saved = pos_;
    if (Word() == w) return true;
    pos_ = saved;
    return false;
  }
  bool Accept(char c) {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  Status Expect(char c) {
    if (!Accept(c)) return Error(fmt::format("expected '{}'", c));
    return Status::OK();
  }
  Result<int64_t> Number() {
    SkipSpace();
    size_t p = pos_;
    while (p < text_.size() && std::isdigit(static_cast<unsigned char>(text_[p]))) ++p;
    if (p == pos_) return Error("expected a number");
    auto v = ParseInt64(text_.substr(pos_, p - pos_), "type parameter");
    pos_ = p;
    return v;
  }
  // "(n)" if present, else `fallback`.
  Result<int64_t> OptionalParam(int64_t fallback) {
    if (!Accept('(')) return fallback;
    TIDE_ASSIGN_OR_RETURN(int64_t n, Number());
    TIDE_RETURN_IF_ERROR(Expect(')'));
    return n;
  }

  Result<std::string> FieldName() {
    SkipSpace();
    if (pos_ < text_.size() && (text_[pos_] == '`' || text_[pos_] == '"')) {
      char quote = text_[pos_++];
      size_t end = text_.find(quote, pos_);
      if (end == std::string_view::npos) return Error("unterminated quoted name");
      std::string name(text_.substr(pos_, end - pos_));
      pos_ = end + 1;
      return name;
    }
    size_t p = pos_;
    while (p < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[p])) || text_[p] == '_')) ++p;
    if (p == pos_) return Error("expected a field name");
    std::string name(text_.substr(pos_, p - pos_));
    pos_ = p;
    return name;
  }

  Result<DataType> ParseType() {
    TIDE_ASSIGN_OR_RETURN(DataType t, ParseBase());
    // Nullability suffix.
    size_t saved = pos_;
    if (AcceptWord("NOT")) {
      if (!AcceptWord("NULL")) return Error("expected NULL after NOT");
      return t.WithNullable(false);
    }
    pos_ = saved;
    if (AcceptWord("NULL")) return t.WithNullable(true);
    pos_ = saved;
    return t;
  }

  Result<DataType> ParseBase() {
    std::string w = Word();
    if (w.empty()) return Error("expected a type name");
    if (w == "BOOLEAN" || w == "BOOL") return DataType::Boolean();
    if (w == "TINYINT") return DataType::TinyInt();
    if (w == "SMALLINT") return DataType::SmallInt();
    if (w == "INT" || w == "INTEGER") return DataType::Int();
    if (w == "BIGINT") return DataType::BigInt();
    if (w == "FLOAT") return DataType::Float();
    if (w == "DOUBLE") {
      AcceptWord("PRECISION");
      return DataType::Double();
    }
    if (w == "DECIMAL" || w == "DEC" || w == "NUMERIC") {
      int64_t p = 10, s = 0;
      if (Accept('(')) {
        TIDE_ASSIGN_OR_RETURN(p, Number());
        if (Accept(',')) {
          TIDE_ASSIGN_OR_RETURN(s, Number());
        }
        TIDE_RETURN_IF_ERROR(Expect(')'));
      }
      if (p < 1 || p > 38 || s < 0 || s > p) {
        return Status::InvalidArgument("type '{}': DECIMAL precision must be 1..38 and scale 0..precision",
                                       text_);
      }
      return DataType::Decimal(static_cast<int>(p), static_cast<int>(s));
    }
    if (w == "CHAR" || w == "CHARACTER") {
      if (AcceptWord("VARYING")) {
        TIDE_ASSIGN_OR_RETURN(int64_t n, OptionalParam(1));
        return DataType::VarChar(static_cast<int32_t>(n));
      }
      TIDE_ASSIGN_OR_RETURN(int64_t n, OptionalParam(1));
      return DataType::Char(static_cast<int32_t>(n));
    }
    if (w == "VARCHAR") {
      TIDE_ASSIGN_OR_RETURN(int64_t n, OptionalParam(1));
      return DataType::VarChar(static_cast<int32_t>(n));
    }
    if (w == "STRING" || w == "TEXT") return DataType::String();
    if (w == "BINARY") {
      TIDE_ASSIGN_OR_RETURN(int64_t n, OptionalParam(1));
      return DataType::Binary(static_cast<int32_t>(n));
    }
    if (w == "VARBINARY") {
      TIDE_ASSIGN_OR_RETURN(int64_t n, OptionalParam(1));
      return DataType::VarBinary(static_cast<int32_t>(n));
    }
    if (w == "BYTES") return DataType::Bytes();
    if (w == "DATE") return DataType::Date();
    if (w == "TIME") {
      TIDE_ASSIGN_OR_RETURN(int64_t p, OptionalParam(0));
      if (p < 0 || p > 9) return Status::InvalidArgument("type '{}': TIME precision must be 0..9", text_);
      SkipZoneClause(/*allow_local=*/false);
      return DataType::Time(static_cast<int>(p));
    }
    if (w == "TIMESTAMP" || w == "TIMESTAMP_LTZ") {
      TIDE_ASSIGN_OR_RETURN(int64_t p, OptionalParam(6));
      if (p < 0 || p > 9) return Status::InvalidArgument("type '{}': TIMESTAMP precision must be 0..9", text_);
      bool ltz = w == "TIMESTAMP_LTZ" || SkipZoneClause(/*allow_local=*/true);
      return ltz ? DataType::TimestampLtz(static_cast<int>(p)) : DataType::Timestamp(static_cast<int>(p));
    }
    if (w == "ARRAY" || w == "MULTISET") {
      TIDE_RETURN_IF_ERROR(Expect('<'));
      TIDE_ASSIGN_OR_RETURN(DataType e, ParseType());
      TIDE_RETURN_IF_ERROR(Expect('>'));
      return w == "ARRAY" ? DataType::Array(std::move(e)) : DataType::Multiset(std::move(e));
    }
    if (w == "MAP") {
      TIDE_RETURN_IF_ERROR(Expect('<'));
      TIDE_ASSIGN_OR_RETURN(DataType k, ParseType());
      TIDE_RETURN_IF_ERROR(Expect(','));
      TIDE_ASSIGN_OR_RETURN(DataType v, ParseType());
      TIDE_RETURN_IF_ERROR(Expect('>'));
      return DataType::Map(std::move(k), std::move(v));
    }
    if (w == "ROW") {
      char close;
      if (Accept('<')) {
        close = '>';
      } else if (Accept('(')) {
        close = ')';
      } else {
        return Error("expected '<' after ROW");
      }
      std::vector<DataField> fields;
      if (!Accept(close)) {
        do {
          DataField f;
          TIDE_ASSIGN_OR_RETURN(f.name, FieldName());
          TIDE_ASSIGN_OR_RETURN(f.type, ParseType());
          SkipSpace();
          if (pos_ < text_.size() && text_[pos_] == '\'') {
            size_t end = text_.find('\'', pos_ + 1);
            if (end == std::string_view::npos) return Error("unterminated description");
            f.description = std::string(text_.substr(pos_ + 1, end - pos_ - 1));
            pos_ = end + 1;
          }
          f.id = next_id_ ? (*next_id_)++ : static_cast<int32_t>(fields.size());
          fields.push_back(std::move(f));
        } while (Accept(','));
        TIDE_RETURN_IF_ERROR(Expect(close));
      }
      return DataType::Row(std::move(fields));
    }
    if (w == "VARIANT") return DataType::Variant();
    if (w == "BLOB") {
      return Status::NotSupported("type BLOB (blob files, Paimon 1.3+) is not supported yet");
    }
    return Status::InvalidArgument("unknown type '{}' in '{}'", w, text_);
  }

  // Consumes "WITHOUT TIME ZONE" or "WITH [LOCAL] TIME ZONE"; returns true for WITH LOCAL TIME ZONE.
  bool SkipZoneClause(bool allow_local) {
    size_t saved = pos_;
    if (AcceptWord("WITHOUT")) {
      if (AcceptWord("TIME") && AcceptWord("ZONE")) return false;
      pos_ = saved;
      return false;
    }
    if (AcceptWord("WITH")) {
      bool local = AcceptWord("LOCAL");
      if (AcceptWord("TIME") && AcceptWord("ZONE") && (local || !allow_local)) return local && allow_local;
      if (local && allow_local) return true;
    }
    pos_ = saved;
    return false;
  }

  std::string_view text_;
  int32_t* next_id_;
  size_t pos_ = 0;
};

}  // namespace

Result<DataType> DataType::Parse(std::string_view text, int32_t* next_field_id) {
  return TypeParser(text, next_field_id).ParseAll();
}

Result<DataType> DataType::FromJson(const nlohmann::json& json) {
  if (json.is_string()) return Parse(json.get<std::string>());
  if (!json.is_object() || !json.contains("type") || !json["type"].is_string()) {
    return Status::Corruption("data type JSON is neither a string nor an object with \"type\": {}",
                              json.dump());
  }
  std::string type = json["type"].get<std::string>();
  bool nullable = true;
  if (EndsWith(type, " NOT NULL")) {
    nullable = false;
    type = type.substr(0, type.size() - 9);
  }
  type = ToUpper(Trim(type));
  if (type == "ARRAY" || type == "MULTISET") {
    if (!json.contains("element")) return Status::Corruption("{} type JSON has no \"element\"", type);
    TIDE_ASSIGN_OR_RETURN(DataType e, FromJson(json["element"]));
    return type == "ARRAY" ? Array(std::move(e), nullable) : Multiset(std::move(e), nullable);
  }
  if (type == "MAP") {
    if (!json.contains("key") || !json.contains("value")) {
      return Status::Corruption("MAP type JSON needs \"key\" and \"value\"");
    }
    TIDE_ASSIGN_OR_RETURN(DataType k, FromJson(json["key"]));
    TIDE_ASSIGN_OR_RETURN(DataType v, FromJson(json["value"]));
    return Map(std::move(k), std::move(v), nullable);
  }
  if (type == "ROW") {
    if (!json.contains("fields") || !json["fields"].is_array()) {
      return Status::Corruption("ROW type JSON has no \"fields\" array");
    }
    std::vector<DataField> fields;
    for (const auto& f : json["fields"]) {
      TIDE_ASSIGN_OR_RETURN(DataField field, DataField::FromJson(f));
      fields.push_back(std::move(field));
    }
    return Row(std::move(fields), nullable);
  }
  TIDE_ASSIGN_OR_RETURN(DataType t, Parse(json["type"].get<std::string>()));
  return t;
}

bool DataType::operator==(const DataType& o) const {
  if (root_ != o.root_ || nullable_ != o.nullable_ || length_ != o.length_ || precision_ != o.precision_ ||
      scale_ != o.scale_) {
    return false;
  }
  if ((element_ == nullptr) != (o.element_ == nullptr) || (element_ && !(*element_ == *o.element_))) return false;
  if ((value_ == nullptr) != (o.value_ == nullptr) || (value_ && !(*value_ == *o.value_))) return false;
  return fields() == o.fields();
}

bool DataType::EqualsIgnoreNullable(const DataType& o) const {
  if (root_ != o.root_ || length_ != o.length_ || precision_ != o.precision_ || scale_ != o.scale_) return false;
  if ((element_ == nullptr) != (o.element_ == nullptr) || (element_ && !element_->EqualsIgnoreNullable(*o.element_)))
    return false;
  if ((value_ == nullptr) != (o.value_ == nullptr) || (value_ && !value_->EqualsIgnoreNullable(*o.value_)))
    return false;
  if (fields().size() != o.fields().size()) return false;
  for (size_t i = 0; i < fields().size(); ++i) {
    if (fields()[i].name != o.fields()[i].name || !fields()[i].type.EqualsIgnoreNullable(o.fields()[i].type))
      return false;
  }
  return true;
}

nlohmann::ordered_json DataField::ToJson() const {
  nlohmann::ordered_json j;
  j["id"] = id;
  j["name"] = name;
  j["type"] = type.ToJson();
  if (description) j["description"] = *description;
  if (default_value) j["defaultValue"] = *default_value;
  return j;
}

Result<DataField> DataField::FromJson(const nlohmann::json& json) {
  if (!json.is_object() || !json.contains("id") || !json.contains("name") || !json.contains("type")) {
    return Status::Corruption("data field JSON needs \"id\", \"name\" and \"type\": {}", json.dump());
  }
  DataField f;
  if (!json["id"].is_number_integer() || !json["name"].is_string()) {
    return Status::Corruption("data field JSON has a bad \"id\" or \"name\": {}", json.dump());
  }
  f.id = json["id"].get<int32_t>();
  f.name = json["name"].get<std::string>();
  auto type = DataType::FromJson(json["type"]);
  if (!type.ok()) return type.status().WithContext(fmt::format("field '{}'", f.name));
  f.type = std::move(type).value();
  if (json.contains("description") && json["description"].is_string()) {
    f.description = json["description"].get<std::string>();
  }
  if (json.contains("defaultValue") && json["defaultValue"].is_string()) {
    f.default_value = json["defaultValue"].get<std::string>();
  }
  return f;
}

bool DataField::operator==(const DataField& o) const {
  return id == o.id && name == o.name && type == o.type && description == o.description &&
         default_value == o.default_value;
}

int32_t MaxNestedFieldId(const DataType& type, int32_t floor) {
  int32_t m = floor;
  switch (type.root()) {
    case TypeRoot::kArray:
    case TypeRoot::kMultiset:
      return MaxNestedFieldId(type.element(), m);
    case TypeRoot::kMap:
      return MaxNestedFieldId(type.value(), MaxNestedFieldId(type.key(), m));
    case TypeRoot::kRow:
      for (const auto& f : type.fields()) m = MaxNestedFieldId(f.type, std::max(m, f.id));
      return m;
    default:
      return m;
  }
}

}  // namespace tide
