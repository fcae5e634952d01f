// How Tide names Parquet columns: the column a caller asks for (ParquetColumnSpec), the column a file
// holds (ParquetFileColumn), and Paimon's field-id rules for the parts of nested types that have no
// DataField of their own (PAIMON_FORMAT.md §6.2).
//
// A ParquetColumnSpec is a request or a declaration: the physical column name (for primary-key files the
// `_KEY_x`, `_SEQUENCE_NUMBER`, `_VALUE_KIND` columns included), the Parquet field id when the caller
// knows it (Paimon 1.0+ writes field ids; 0.9 does not), and the Paimon type. A ParquetFileColumn is one
// node of a file's schema as DuckDB reports it (parquet_schema()), with its children for groups.
// Thread-safety: plain values and pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tide/types/data_type.h"

namespace tide {

struct ParquetColumnSpec {
  std::string name;
  std::optional<int32_t> field_id;
  DataType type;
};

// The columns of a Paimon row type, with their field ids: the table's fields in order.
std::vector<ParquetColumnSpec> ParquetColumnsFor(const std::vector<DataField>& fields);

// One node of a Parquet file's schema.
struct ParquetFileColumn {
  std::string name;
  std::optional<int32_t> field_id;
  std::string physical_type;   // BOOLEAN, INT32, INT64, INT96, FLOAT, DOUBLE, BYTE_ARRAY,
                               // FIXED_LEN_BYTE_ARRAY; empty for groups
  std::optional<int32_t> type_length;  // FIXED_LEN_BYTE_ARRAY
  std::string repetition;      // REQUIRED, OPTIONAL, REPEATED
  std::string converted_type;  // UTF8, DECIMAL, DATE, LIST, MAP, INT_8, TIMESTAMP_MILLIS, ... or empty
  std::string logical_type;    // the Thrift LogicalType as text, or empty: Tide's footer parser writes
                               // e.g. "TIMESTAMP(NANOS,UTC=false)", DuckDB's parquet_schema() its own form
  std::optional<int32_t> precision;  // DECIMAL
  std::optional<int32_t> scale;      // DECIMAL
  std::string duckdb_type;     // the type DuckDB reads the column as, e.g. "TIMESTAMP WITH TIME ZONE";
                               // filled only by ReadParquetFileInfoWithDuckDB
  std::vector<ParquetFileColumn> children;

  bool is_group() const { return physical_type.empty(); }
  // The child with `field_id` if given and present, else the child named `name` (exact match first, then
  // ASCII case-insensitive); nullptr if neither.
  const ParquetFileColumn* FindChild(const std::string& name, std::optional<int32_t> field_id) const;
};

// Paimon's field ids for synthetic columns (SpecialFields in Java).
inline constexpr int32_t kSequenceNumberFieldId = 2147483646;  // _SEQUENCE_NUMBER
inline constexpr int32_t kValueKindFieldId = 2147483645;       // _VALUE_KIND
inline constexpr int32_t kKeyFieldIdStart = 1073741823;        // _KEY_<x> has kKeyFieldIdStart + id(x)
inline constexpr int32_t kStructuredTypeFieldIdBase = 536870911;  // Integer.MAX_VALUE / 4
inline constexpr int32_t kStructuredTypeDepthLimit = 1024;

// The field id of the element of the ARRAY whose top-level field has `field_id`, at nesting `depth`
// (1 for the array's direct element, 2 for the element of an array inside it, ...).
int32_t ArrayElementFieldId(int32_t field_id, int depth);
int32_t MapKeyFieldId(int32_t field_id, int depth);
int32_t MapValueFieldId(int32_t field_id, int depth);

}  // namespace tide
