// AvroSchema: an Avro schema parsed from its JSON text into an immutable tree of AvroNodes.
//
// The tree covers the whole Avro 1.11 specification: the primitives (null, boolean, int, long, float,
// double, bytes, string), records, enums, arrays, maps, unions and fixed, named-type references
// (including recursive ones) and logical types, which are kept as annotations on the node
// (`logical_type()`, `precision()`, `scale()`) without changing how the value is encoded.
//
// Invariant: a parsed tree is valid Avro: every named reference resolves, names are unique, unions have
// no directly nested union and no two branches of the same unnamed type or full name, enum symbols are
// unique, fixed sizes are non-negative, record field names are unique. Nodes never change after
// parsing; a named type referenced several times is one node.
//
// AvroSchema keeps the exact text it was parsed from (`json()`), which the container-file writer stores
// in the header unchanged, and can also print itself (`ToJson()`) the way Java Avro's Schema.toString()
// does: compact, Java's key order, namespaces written only where they change.
//
// Thread-safety: an AvroSchema is an immutable handle; copies share the tree and may be used from any
// thread. AvroNode references stay valid while any copy of the schema (or a shared_ptr from
// `Share()`) is alive.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tide/base/result.h"

namespace tide {

enum class AvroType : uint8_t {
  kNull,
  kBoolean,
  kInt,
  kLong,
  kFloat,
  kDouble,
  kBytes,
  kString,
  kRecord,
  kEnum,
  kArray,
  kMap,
  kUnion,
  kFixed,
};

// "null", "boolean", ..., "record", "union" (the spelling used in schemas).
std::string_view AvroTypeName(AvroType type);

class AvroNode;

// A record field: its name, its type, and the optional parts Java Avro keeps.
struct AvroField {
  std::string name;
  const AvroNode* type = nullptr;  // never null in a parsed schema
  std::string doc;                 // empty when absent
  bool has_default = false;
  std::string default_json;  // the "default" value as compact JSON text, when has_default
  std::string order;         // "ascending" (default, left empty), "descending" or "ignore"
  std::vector<std::string> aliases;
  // Other attributes of the field, as (key, compact JSON text), in their order in the source.
  std::vector<std::pair<std::string, std::string>> props;
};

// One node of a schema tree. Which accessors are meaningful depends on `type()`; the others return
// empty values.
class AvroNode {
 public:
  AvroNode(const AvroNode&) = delete;
  AvroNode& operator=(const AvroNode&) = delete;

  AvroType type() const { return type_; }
  bool is_named() const {
    return type_ == AvroType::kRecord || type_ == AvroType::kEnum || type_ == AvroType::kFixed;
  }

  // Named types (record, enum, fixed): the short name, the namespace ("" for none) and the full name
  // ("namespace.name", or just the name without a namespace).
  const std::string& name() const { return name_; }
  const std::string& name_space() const { return namespace_; }
  const std::string& full_name() const { return full_name_; }
  const std::string& doc() const { return doc_; }
  const std::vector<std::string>& aliases() const { return aliases_; }
  // Records declared with "type": "error" (Avro RPC errors); encoded exactly like records.
  bool is_error() const { return is_error_; }

  // Records: the fields in declaration order, and the index of a field by name (-1 if absent).
  const std::vector<AvroField>& fields() const { return fields_; }
  int FieldIndex(std::string_view field_name) const;

  // Enums: the symbols in order, and the default symbol ("" when none).
  const std::vector<std::string>& symbols() const { return symbols_; }
  const std::string& enum_default() const { return enum_default_; }

  // Arrays: the item type. Maps: the value type (keys are always strings).
  const AvroNode* items() const { return items_; }
  const AvroNode* values() const { return items_; }

  // Unions: the branches in order. `NullBranch()` is the index of the "null" branch or -1;
  // `IsNullable()` says whether this is a two-branch union with a null branch (Paimon's nullable T),
  // and `NonNullBranch()` is the other branch's index (-1 if not nullable).
  const std::vector<const AvroNode*>& branches() const { return branches_; }
  int NullBranch() const;
  bool IsNullable() const;
  int NonNullBranch() const;

  // Fixed: the size in bytes.
  int64_t fixed_size() const { return fixed_size_; }

  // Logical type annotation ("" when none), e.g. "timestamp-millis", "decimal", "date", "uuid".
  // `precision()` and `scale()` are those of a decimal (0 otherwise).
  const std::string& logical_type() const { return logical_type_; }
  int precision() const { return precision_; }
  int scale() const { return scale_; }

  // Attributes beyond the ones the spec names for this type, including "logicalType", "precision" and
  // "scale", as (key, compact JSON text), in source order. Printed back by ToJson().
  const std::vector<std::pair<std::string, std::string>>& props() const { return props_; }

  // The fewest bytes one value of this type takes in the binary encoding (0 for null, a record of
  // nulls, ...). Used to reject blocks that claim more objects than their bytes could hold.
  int64_t min_encoded_size() const { return min_encoded_size_; }

 private:
  friend class AvroSchemaBuilder;
  explicit AvroNode(AvroType type) : type_(type) {}

  AvroType type_;
  std::string name_;
  std::string namespace_;
  std::string full_name_;
  std::string doc_;
  std::vector<std::string> aliases_;
  bool is_error_ = false;
  std::vector<AvroField> fields_;
  std::vector<std::pair<std::string_view, int>> field_index_;  // sorted by name, views into fields_
  std::vector<std::string> symbols_;
  std::string enum_default_;
  const AvroNode* items_ = nullptr;
  std::vector<const AvroNode*> branches_;
  int64_t fixed_size_ = 0;
  std::string logical_type_;
  int precision_ = 0;
  int scale_ = 0;
  std::vector<std::pair<std::string, std::string>> props_;
  int64_t min_encoded_size_ = 0;
};

class AvroSchema {
 public:
  // Parses a schema from its JSON text. InvalidArgument, saying what and where, if the text is not
  // JSON or not a valid Avro schema.
  static Result<AvroSchema> Parse(std::string_view json);
  // Parse, through a process-wide cache of the schema texts parsed last: every manifest file of a
  // table carries the same schema text, and parsing it was a tenth of a commit's CPU. Thread-safe.
  static Result<AvroSchema> ParseCached(std::string_view json);

  // REQUIRES: *this came from Parse() (a default-constructed schema has no root).
  const AvroNode& root() const;
  bool valid() const { return tree_ != nullptr; }

  // The exact text this schema was parsed from.
  const std::string& json() const;

  // The schema printed as Java Avro's Schema.toString() prints it (compact JSON).
  std::string ToJson() const;

  // A shared_ptr to `node` (which must belong to this schema) that keeps the whole tree alive.
  std::shared_ptr<const AvroNode> Share(const AvroNode& node) const;

  AvroSchema() = default;

 private:
  friend class AvroSchemaBuilder;
  struct Tree;
  explicit AvroSchema(std::shared_ptr<const Tree> tree) : tree_(std::move(tree)) {}
  std::shared_ptr<const Tree> tree_;
};

// Prints the subtree at `node` as Java Avro would print a schema rooted there.
std::string AvroNodeToJson(const AvroNode& node);

}  // namespace tide
