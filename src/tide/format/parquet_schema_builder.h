// ParquetSchemaBuilder: the Parquet schema Java Paimon 1.x writes for a Paimon row type
// (ParquetSchemaConverter in paimon-format), as the SchemaElements of a footer, and their Thrift encoding.
//
// Per column (NOT NULL -> REQUIRED, else OPTIONAL; the field id on every element that has one):
//   BOOLEAN            BOOLEAN
//   TINYINT, SMALLINT  INT32, INT_8 / INT_16 and INTEGER(8|16, signed)
//   INT, BIGINT        INT32, INT64, bare
//   FLOAT, DOUBLE      FLOAT, DOUBLE
//   DECIMAL(p, s)      INT32 (p <= 9), INT64 (p <= 18), else FIXED_LEN_BYTE_ARRAY of the fewest bytes that
//                      hold 10^p; DECIMAL converted and logical types with p and s
//   CHAR, VARCHAR      BYTE_ARRAY, UTF8 and STRING;  BINARY, VARBINARY  BYTE_ARRAY, bare
//   DATE               INT32, DATE and DATE
//   TIME(p)            INT32 milliseconds of the day, TIME_MILLIS and TIME(MILLIS, isAdjustedToUTC=true)
//   TIMESTAMP(p)       INT64 TIMESTAMP_MILLIS / TIMESTAMP(MILLIS, UTC=false) for p <= 3, TIMESTAMP_MICROS /
//                      TIMESTAMP(MICROS, UTC=false) for p <= 6, INT96 without annotation above
//   TIMESTAMP_LTZ(p)   the same with isAdjustedToUTC=true
//   ARRAY<T>           group (LIST, LIST) { repeated group list { element } }, the 3-level list
//   MAP<K, V>          group (MAP, MAP) { repeated group key_value (MAP_KEY_VALUE) { key; value } }, the
//                      key always REQUIRED (Java makes it NOT NULL)
//   MULTISET<T>        MAP<T NOT NULL, INT NOT NULL>: each distinct element and its count
//   ROW<...>           a group of the fields, without annotation
// Field ids: top-level columns and ROW fields carry their DataField ids; an ARRAY's element and a MAP's
// key and value carry the ids Paimon derives from the nearest field id and the depth (parquet_column.h;
// the depth restarts inside a ROW); the repeated `list` and `key_value` groups carry none. VARIANT is
// NotSupported.
// The root is the message `paimon_schema` without repetition. Element fields are written in Thrift id
// order (type, type_length, repetition, name, num_children, converted_type, scale, precision, field_id,
// logicalType), as parquet-mr does.
//
// Beside the schema, the builder plans how a value is shredded into the leaf columns (Dremel levels): a
// tree per column (ParquetValuePlan) with each node's definition level when present and, for ARRAY and
// MAP nodes, the repetition level of their repeated group; and per leaf its path, maximum levels and
// type (ParquetLeafPlan). Leaves below a node are contiguous in schema order.
// Thread-safety: plain values and pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tide/base/result.h"
#include "tide/format/parquet_column.h"
#include "tide/format/parquet_footer.h"
#include "tide/format/thrift_compact_writer.h"

namespace tide {

// Parquet's ConvertedType numbers, for the ones Paimon's schema uses.
enum class ParquetConvertedType : int32_t {
  kUtf8 = 0, kMap = 1, kMapKeyValue = 2, kList = 3, kDecimal = 5, kDate = 6, kTimeMillis = 7,
  kTimestampMillis = 9, kTimestampMicros = 10, kInt8 = 15, kInt16 = 16,
};

// The LogicalType union member of an element (Thrift field ids of parquet.thrift's LogicalType).
struct ParquetLogicalAnnotation {
  enum Kind : int16_t { kNone = 0, kString = 1, kMap = 2, kList = 3, kDecimal = 5, kDate = 6, kTime = 7,
                        kTimestamp = 8, kInteger = 10 };
  enum Unit : int16_t { kMillis = 1, kMicros = 2, kNanos = 3 };
  Kind kind = kNone;
  int32_t scale = 0;       // DECIMAL
  int32_t precision = 0;   // DECIMAL
  bool adjusted_to_utc = false;  // TIME, TIMESTAMP
  Unit unit = kMillis;     // TIME, TIMESTAMP
  int8_t bit_width = 0;    // INTEGER
  bool is_signed = true;   // INTEGER
};

struct ParquetSchemaNode {
  std::string name;
  std::optional<ParquetPhysicalType> type;  // absent for groups (and the root)
  std::optional<int32_t> type_length;       // FIXED_LEN_BYTE_ARRAY
  std::optional<ParquetRepetition> repetition;  // absent on the root
  int32_t num_children = 0;
  std::optional<ParquetConvertedType> converted_type;
  std::optional<int32_t> scale;
  std::optional<int32_t> precision;
  std::optional<int32_t> field_id;
  ParquetLogicalAnnotation logical;
};

inline constexpr const char* kPaimonParquetRootName = "paimon_schema";

// Java's FIXED_LEN_BYTE_ARRAY length for DECIMAL(precision): the fewest bytes n with 2^(8n-1) >= 10^p.
int32_t DecimalFixedLength(int precision);

// The leaf element of a non-nested column. NotSupported naming the column for nested and VARIANT types.
Result<ParquetSchemaNode> ParquetLeafNode(const ParquetColumnSpec& column, bool write_field_id);

// How the values of one node of a column's type reach the leaf columns.
struct ParquetValuePlan {
  enum Kind : uint8_t { kLeaf, kRow, kList, kMap, kMultiset };
  Kind kind = kLeaf;
  DataType type;
  std::string name;          // the column's dotted path, for errors
  bool optional = true;      // the node is OPTIONAL: NULL allowed, one definition level when present
  int16_t def_level = 0;     // definition level of the node when its value is present
  int16_t rep_level = 0;     // kList, kMap, kMultiset: repetition level of the repeated group
  int first_leaf = 0;        // the leaves below the node: [first_leaf, first_leaf + leaf_count)
  int leaf_count = 0;
  std::vector<ParquetValuePlan> children;  // kRow: the fields; kList: element; kMap, kMultiset: key, value
};

struct ParquetLeafPlan {
  std::vector<std::string> path;  // path_in_schema
  int16_t max_def = 0;
  int16_t max_rep = 0;
  ParquetColumnSpec column;       // the leaf's name (dotted path), field id and Paimon type
  ParquetSchemaNode node;
};

struct ParquetSchemaPlan {
  std::vector<ParquetSchemaNode> nodes;   // the footer's schema, pre-order, root first
  std::vector<ParquetValuePlan> columns;  // one per top-level column
  std::vector<ParquetLeafPlan> leaves;    // in schema order
};

// The schema and shredding plan of a file of `columns`. NotSupported naming the column for VARIANT.
Result<ParquetSchemaPlan> BuildParquetSchema(const std::vector<ParquetColumnSpec>& columns, bool write_field_ids);

// Writes one SchemaElement struct (a list element: the caller wrote the list header).
void WriteParquetSchemaNode(ThriftCompactWriter& out, const ParquetSchemaNode& node);

}  // namespace tide
