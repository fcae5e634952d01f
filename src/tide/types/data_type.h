// DataType and DataField: Paimon's logical types, with their JSON and SQL string forms.
//
// A DataType is an immutable value: a type root, nullability, the parameters its root takes (length,
// precision, scale) and, for ARRAY/MULTISET/MAP/ROW, its children. Children are shared (shared_ptr to
// const), so copies are cheap. The string form is Java Paimon's `asSQLString` (e.g. `DECIMAL(10, 2) NOT
// NULL`, `TIMESTAMP(3) WITH LOCAL TIME ZONE`); the JSON form is what schema files hold: a string for
// atomic types and an object for complex ones (PAIMON_FORMAT.md §3). Thread-safety: immutable after
// construction, so safe to share.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "tide/base/result.h"

namespace tide {

enum class TypeRoot : uint8_t {
  kBoolean,
  kTinyInt,
  kSmallInt,
  kInt,
  kBigInt,
  kFloat,
  kDouble,
  kDecimal,
  kChar,
  kVarChar,
  kBinary,
  kVarBinary,
  kDate,
  kTime,
  kTimestamp,     // wall-clock date and time, no zone
  kTimestampLtz,  // TIMESTAMP WITH LOCAL TIME ZONE: an instant (UTC)
  kArray,
  kMultiset,
  kMap,
  kRow,
  kVariant,
};

struct DataField;

class DataType {
 public:
  static constexpr int32_t kMaxLength = 2147483647;  // STRING = VARCHAR(max), BYTES = VARBINARY(max)

  DataType() = default;  // BOOLEAN, nullable; prefer the named constructors

  static DataType Boolean(bool nullable = true) { return DataType(TypeRoot::kBoolean, nullable); }
  static DataType TinyInt(bool nullable = true) { return DataType(TypeRoot::kTinyInt, nullable); }
  static DataType SmallInt(bool nullable = true) { return DataType(TypeRoot::kSmallInt, nullable); }
  static DataType Int(bool nullable = true) { return DataType(TypeRoot::kInt, nullable); }
  static DataType BigInt(bool nullable = true) { return DataType(TypeRoot::kBigInt, nullable); }
  static DataType Float(bool nullable = true) { return DataType(TypeRoot::kFloat, nullable); }
  static DataType Double(bool nullable = true) { return DataType(TypeRoot::kDouble, nullable); }
  static DataType Decimal(int precision, int scale, bool nullable = true);
  static DataType Char(int32_t length, bool nullable = true);
  static DataType VarChar(int32_t length, bool nullable = true);
  static DataType String(bool nullable = true) { return VarChar(kMaxLength, nullable); }
  static DataType Binary(int32_t length, bool nullable = true);
  static DataType VarBinary(int32_t length, bool nullable = true);
  static DataType Bytes(bool nullable = true) { return VarBinary(kMaxLength, nullable); }
  static DataType Date(bool nullable = true) { return DataType(TypeRoot::kDate, nullable); }
  static DataType Time(int precision = 0, bool nullable = true);
  static DataType Timestamp(int precision = 6, bool nullable = true);
  static DataType TimestampLtz(int precision = 6, bool nullable = true);
  static DataType Array(DataType element, bool nullable = true);
  static DataType Multiset(DataType element, bool nullable = true);
  static DataType Map(DataType key, DataType value, bool nullable = true);
  static DataType Row(std::vector<DataField> fields, bool nullable = true);
  static DataType Variant(bool nullable = true) { return DataType(TypeRoot::kVariant, nullable); }

  TypeRoot root() const { return root_; }
  bool nullable() const { return nullable_; }
  int32_t length() const { return length_; }        // CHAR, VARCHAR, BINARY, VARBINARY
  int precision() const { return precision_; }      // DECIMAL, TIME, TIMESTAMP(_LTZ)
  int scale() const { return scale_; }              // DECIMAL
  const DataType& element() const { return *element_; }  // ARRAY, MULTISET
  const DataType& key() const { return *element_; }      // MAP
  const DataType& value() const { return *value_; }      // MAP
  const std::vector<DataField>& fields() const;          // ROW (empty for others)

  DataType WithNullable(bool nullable) const;

  bool IsString() const { return root_ == TypeRoot::kChar || root_ == TypeRoot::kVarChar; }
  bool IsBinary() const { return root_ == TypeRoot::kBinary || root_ == TypeRoot::kVarBinary; }
  bool IsIntegral() const;
  bool IsTimestamp() const { return root_ == TypeRoot::kTimestamp || root_ == TypeRoot::kTimestampLtz; }
  bool IsNested() const;
  // DECIMAL with precision <= 18 is stored as a long; TIMESTAMP with precision <= 3 as millis.
  bool IsCompactDecimal() const { return root_ == TypeRoot::kDecimal && precision_ <= 18; }
  bool IsCompactTimestamp() const { return IsTimestamp() && precision_ <= 3; }

  // Java Paimon's asSQLString: `INT NOT NULL`, `DECIMAL(10, 2)`, `ARRAY<STRING>`, `ROW<a INT, b STRING>`.
  std::string ToString() const;
  // The schema-file JSON form: a string for atomic types, an object for ARRAY/MULTISET/MAP/ROW.
  nlohmann::ordered_json ToJson() const;

  // Parses the schema-file JSON form.
  static Result<DataType> FromJson(const nlohmann::json& json);
  // Parses the SQL string form, atomic and nested (`ARRAY<INT>`, `MAP<STRING, BIGINT>`,
  // `ROW<a INT, b STRING NOT NULL>`), case-insensitive, with Paimon's aliases (INTEGER, STRING, BYTES,
  // NUMERIC/DEC for DECIMAL, TIMESTAMP_LTZ). Nested ROW fields get ids from `next_field_id` if given.
  static Result<DataType> Parse(std::string_view text, int32_t* next_field_id = nullptr);

  // Equality including nullability and children (field ids and names of ROW fields included).
  bool operator==(const DataType& other) const;
  // Equality ignoring nullability at every level.
  bool EqualsIgnoreNullable(const DataType& other) const;

 private:
  DataType(TypeRoot root, bool nullable) : root_(root), nullable_(nullable) {}

  TypeRoot root_ = TypeRoot::kBoolean;
  bool nullable_ = true;
  int32_t length_ = 0;
  int precision_ = 0;
  int scale_ = 0;
  std::shared_ptr<const DataType> element_;  // ARRAY/MULTISET element, MAP key
  std::shared_ptr<const DataType> value_;    // MAP value
  std::shared_ptr<const std::vector<DataField>> fields_;  // ROW
};

// A named, typed column with a stable id: ids never change across schema versions (renames keep them).
struct DataField {
  int32_t id = 0;
  std::string name;
  DataType type;
  std::optional<std::string> description;
  std::optional<std::string> default_value;

  nlohmann::ordered_json ToJson() const;
  static Result<DataField> FromJson(const nlohmann::json& json);
  bool operator==(const DataField& other) const;
};

// The highest field id used by `type` and its nested ROW fields (or `floor` if none is higher).
int32_t MaxNestedFieldId(const DataType& type, int32_t floor);

}  // namespace tide
