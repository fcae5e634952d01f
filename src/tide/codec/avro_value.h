// AvroValue: one generic Avro datum (a "GenericRecord" and everything inside it).
//
// A value has a type (AvroType; never kUnion) and the payload for it: bool, int32, int64, float,
// double, the bytes of a string/bytes/fixed, an enum symbol index, the elements of an array, the
// entries of a map, or the field values of a record in schema order.
//
// Unions are flattened: a value read from a union is the chosen branch's value, with `branch()` set to
// the branch index (it is -1 for values not inside a union). Avro forbids a union directly inside a
// union, so nothing is lost, and a Paimon nullable field ["null", T] reads as either a null value or
// a T value: `is_null()` tells which, and the typed getters unwrap it transparently.
//
// Records read from a file carry a shared pointer to their schema node, which keeps the schema alive
// and gives lookup by field name. Records built by hand may omit it (positional fields only).
//
// The record getters (`GetLong("_FILE_SIZE")`, ...) return Corruption naming the field and the record
// when the field is missing, null, or holds another type; callers add the file name with
// Status::WithContext.
//
// Cheap to move (no allocation). Copies are deep. Thread-safety: a value type; concurrent reads of one
// value are safe, writes need external synchronization.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tide/base/result.h"
#include "tide/codec/avro_schema.h"

namespace tide {

class AvroValue {
 public:
  AvroValue() = default;  // null

  static AvroValue Null() { return AvroValue(); }
  static AvroValue Boolean(bool v);
  static AvroValue Int(int32_t v);
  static AvroValue Long(int64_t v);
  static AvroValue Float(float v);
  static AvroValue Double(double v);
  static AvroValue String(std::string v);
  static AvroValue Bytes(std::string v);
  static AvroValue Fixed(std::string v);
  static AvroValue Enum(int32_t symbol_index);
  static AvroValue Array(std::vector<AvroValue> items);
  static AvroValue Map(std::vector<std::pair<std::string, AvroValue>> entries);
  // A record whose fields are given in schema order. Without a schema, lookup by name fails.
  static AvroValue Record(std::vector<AvroValue> fields);
  // REQUIRES: schema is a record node (e.g. from AvroSchema::Share) with fields.size() fields.
  static AvroValue Record(std::shared_ptr<const AvroNode> schema, std::vector<AvroValue> fields);
  // `value` as the given branch of a union (the writer then uses that branch instead of choosing).
  static AvroValue Union(int branch, AvroValue value);

  AvroType type() const { return type_; }
  bool is_null() const { return type_ == AvroType::kNull; }
  // The union branch this value was read from or is meant for; -1 if none.
  int branch() const { return branch_; }
  void set_branch(int branch) { branch_ = branch; }

  // Unchecked accessors. REQUIRES: type() is the one named (string_value: string, bytes or fixed).
  bool bool_value() const { return scalar_.b; }
  int32_t int_value() const { return scalar_.i; }
  int64_t long_value() const { return scalar_.l; }
  float float_value() const { return scalar_.f; }
  double double_value() const { return scalar_.d; }
  int32_t enum_index() const { return scalar_.i; }
  std::string_view string_value() const { return bytes_; }
  std::string_view bytes_value() const { return bytes_; }

  // Checked accessors: Corruption if the type differs. AsLong also takes an int; AsDouble a float;
  // AsBytes takes bytes or fixed; AsString only string.
  Result<bool> AsBool() const;
  Result<int32_t> AsInt() const;
  Result<int64_t> AsLong() const;
  Result<float> AsFloat() const;
  Result<double> AsDouble() const;
  Result<std::string_view> AsString() const;
  Result<std::string_view> AsBytes() const;
  Result<int32_t> AsEnum() const;

  // Arrays. REQUIRES: type() == kArray.
  const std::vector<AvroValue>& items() const { return items_; }
  std::vector<AvroValue>& mutable_items() { return items_; }

  // Maps, in the order the entries were read or given. REQUIRES: type() == kMap.
  size_t map_size() const { return items_.size() / 2; }
  std::string_view map_key(size_t i) const { return items_[2 * i].bytes_; }
  const AvroValue& map_value(size_t i) const { return items_[2 * i + 1]; }
  const AvroValue* FindMapValue(std::string_view key) const;

  // Records. REQUIRES: type() == kRecord.
  size_t field_count() const { return items_.size(); }
  const AvroValue& field(size_t i) const { return items_[i]; }
  AvroValue& mutable_field(size_t i) { return items_[i]; }
  const std::vector<AvroValue>& fields() const { return items_; }
  // The record's schema node, or nullptr for a record built without one.
  const AvroNode* record_schema() const { return record_schema_.get(); }
  // The field's value, or nullptr if the record (or its schema) has no such field.
  const AvroValue* FindField(std::string_view name) const;

  // Typed field getters on a record. A nullable union is unwrapped. Corruption naming the field if
  // this is not a record, the field is missing, the field is null, or it holds another type.
  Result<const AvroValue*> GetField(std::string_view name) const;
  Result<bool> GetBool(std::string_view name) const;
  Result<int32_t> GetInt(std::string_view name) const;
  Result<int64_t> GetLong(std::string_view name) const;  // int or long
  Result<float> GetFloat(std::string_view name) const;
  Result<double> GetDouble(std::string_view name) const;  // float or double
  Result<std::string_view> GetString(std::string_view name) const;
  Result<std::string_view> GetBytes(std::string_view name) const;  // bytes or fixed
  Result<int32_t> GetEnum(std::string_view name) const;
  Result<const AvroValue*> GetRecord(std::string_view name) const;
  Result<const std::vector<AvroValue>*> GetArray(std::string_view name) const;
  Result<const AvroValue*> GetMap(std::string_view name) const;

  // The same for fields that may be null or absent from the writer's schema (a field added in a later
  // format version): nullopt / nullptr then. Still Corruption when the field holds another type.
  Result<std::optional<bool>> GetOptionalBool(std::string_view name) const;
  Result<std::optional<int32_t>> GetOptionalInt(std::string_view name) const;
  Result<std::optional<int64_t>> GetOptionalLong(std::string_view name) const;
  Result<std::optional<double>> GetOptionalDouble(std::string_view name) const;
  Result<std::optional<std::string_view>> GetOptionalString(std::string_view name) const;
  Result<std::optional<std::string_view>> GetOptionalBytes(std::string_view name) const;
  Result<const AvroValue*> GetOptionalRecord(std::string_view name) const;
  Result<const std::vector<AvroValue>*> GetOptionalArray(std::string_view name) const;

  // Deep equality of the data: types and payloads, with floats compared bit for bit (so NaN equals the
  // same NaN). Union branches and record schemas are not compared.
  bool operator==(const AvroValue& other) const;

  // A JSON-like rendering for messages and test failures: records show field names when known, bytes
  // are written as b"\xNN..." escapes.
  std::string DebugString() const;

 private:
  friend class AvroDatumDecoder;

  // "field "x" of record "y"" for error messages.
  std::string FieldContext(std::string_view name) const;
  Result<const AvroValue*> RequiredField(std::string_view name, std::string_view expected) const;
  Result<const AvroValue*> OptionalField(std::string_view name) const;  // nullptr if absent or null
  Status TypeError(std::string_view name, std::string_view expected) const;
  void AppendDebug(std::string* out) const;

  AvroType type_ = AvroType::kNull;
  int32_t branch_ = -1;
  union Scalar {
    bool b;
    int32_t i;
    int64_t l;
    float f;
    double d;
  } scalar_{.l = 0};
  std::string bytes_;              // string, bytes, fixed; the key of a map entry
  std::vector<AvroValue> items_;   // array elements, record fields, map entries as key, value, key, ...
  std::shared_ptr<const AvroNode> record_schema_;  // records read from a file
};

// For GoogleTest failure messages.
inline void PrintTo(const AvroValue& value, std::ostream* os) { *os << value.DebugString(); }

}  // namespace tide
