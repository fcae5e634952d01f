// TableSchema: one version of a Paimon table's schema, as stored in `schema/schema-<id>` (JSON).
//
// Holds the fields (with stable ids), partition and primary keys, the options map and bookkeeping
// (highest field id, creation time). Knows the derived key sets a reader and writer need: the trimmed
// primary key (primary key minus partition keys) and the bucket key. Thread-safety: an immutable value
// once built; share it by const reference or shared_ptr<const>.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tide/base/result.h"
#include "tide/types/data_type.h"

namespace tide {

struct TableSchema {
  int32_t version = 3;
  int64_t id = 0;
  std::vector<DataField> fields;
  int32_t highest_field_id = -1;
  std::vector<std::string> partition_keys;
  std::vector<std::string> primary_keys;
  // Stored as strings; the JSON keeps the insertion order, which std::map does not: `option_order`
  // remembers it so a schema read and written again is unchanged.
  std::map<std::string, std::string> options;
  std::vector<std::string> option_order;
  std::optional<std::string> comment;
  int64_t time_millis = 0;

  // Parses schema JSON; `file` names the source in errors. Applies the version rules of
  // PAIMON_FORMAT.md §3 (schema version <= 1 without `bucket` means bucket=1; version <= 2 without
  // `file.format` means orc).
  static Result<TableSchema> FromJson(const std::string& text, const std::string& file);
  // Jackson-style JSON exactly as Java Paimon writes it.
  std::string ToJson() const;

  // Index of the field named `name`, or -1.
  int FieldIndex(const std::string& name) const;
  // Index of the field with `id`, or -1.
  int FieldIndexById(int32_t id) const;
  std::vector<std::string> FieldNames() const;
  // Primary key minus partition keys, in primary-key order.
  std::vector<std::string> TrimmedPrimaryKeys() const;
  // The `bucket-key` option, else the trimmed primary key.
  std::vector<std::string> BucketKeys() const;
  // The option's value or `fallback`.
  std::string Option(const std::string& key, const std::string& fallback) const;
  std::optional<std::string> FindOption(const std::string& key) const;
  void SetOption(const std::string& key, const std::string& value);
  void RemoveOption(const std::string& key);
  bool HasPrimaryKey() const { return !primary_keys.empty(); }
};

}  // namespace tide
