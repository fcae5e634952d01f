// ParquetFooter: the parts of a Parquet file's footer (the Thrift FileMetaData after the data) that Tide
// reads itself: the schema in its flat pre-order form (names, physical and logical types, repetition,
// field ids), the row groups with their column chunks (and each chunk's min/max statistics), the row count
// and the writer's name.
//
// Tide parses the footer itself (thrift_compact.h) instead of asking DuckDB's parquet_schema() and
// parquet_file_metadata(): two small reads instead of two SQL queries per file, which is most of the cost
// of opening a small data file. It also checks the file's shape first: the `PAR1` magic at both ends and
// a footer length that fits. Damaged input gives Corruption naming the file; a missing file NotFound.
// Thread-safety: plain values and pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tide/base/result.h"

namespace tide {

// Parquet's Thrift enums, as the numbers the footer stores.
enum class ParquetPhysicalType : int32_t {
  kBoolean = 0, kInt32 = 1, kInt64 = 2, kInt96 = 3, kFloat = 4, kDouble = 5, kByteArray = 6, kFixedLenByteArray = 7,
};
enum class ParquetRepetition : int32_t { kRequired = 0, kOptional = 1, kRepeated = 2 };

struct ParquetSchemaElement {
  std::string name;
  std::optional<int32_t> type;            // ParquetPhysicalType; absent for groups
  std::optional<int32_t> type_length;     // FIXED_LEN_BYTE_ARRAY
  std::optional<int32_t> repetition;      // ParquetRepetition; absent on the root
  int32_t num_children = 0;
  std::optional<int32_t> converted_type;  // Parquet's ConvertedType enum
  std::optional<int32_t> scale;
  std::optional<int32_t> precision;
  std::optional<int32_t> field_id;
  std::string logical_type;               // e.g. "TIMESTAMP(MILLIS,UTC=false)", "DECIMAL(23,5)"; empty if none
};

// A column chunk's statistics (Parquet's Statistics struct), as stored: plain-encoded values of the
// column's physical type (little-endian numbers, the bytes of strings and binaries). `min_value` and
// `max_value` are the current fields, ordered by the column's logical type (strings: unsigned bytes);
// `legacy_min`/`legacy_max` the deprecated ones, ordered as signed values (right for integers only).
struct ParquetStatistics {
  std::optional<std::string> min_value, max_value;
  std::optional<std::string> legacy_min, legacy_max;
  std::optional<int64_t> null_count;
};

struct ParquetColumnChunk {
  int32_t type = -1;   // ParquetPhysicalType
  int32_t codec = 0;   // 0 UNCOMPRESSED, 1 SNAPPY, 2 GZIP, 5 LZ4, 6 ZSTD, 7 LZ4_RAW, ...
  int64_t num_values = 0;
  int64_t total_compressed_size = 0;
  int64_t data_page_offset = 0;
  std::optional<int64_t> dictionary_page_offset;
  std::vector<std::string> path;  // path_in_schema
  ParquetStatistics statistics;   // empty when the writer kept none
};

struct ParquetRowGroup {
  std::vector<ParquetColumnChunk> columns;  // one per leaf column, in schema order
  int64_t num_rows = 0;
};

struct ParquetFooter {
  std::vector<ParquetSchemaElement> schema;  // pre-order; schema[0] is the root
  std::vector<ParquetRowGroup> row_groups;
  int64_t num_rows = 0;
  std::string created_by;
  uint64_t file_size = 0;
};

// Checks the file's shape and parses its footer.
Result<ParquetFooter> ReadParquetFooter(const std::string& path);

// Parses footer bytes (the FileMetaData, without the length and magic); `what` names the file in errors.
Result<ParquetFooter> ParseParquetFooter(std::string_view bytes, const std::string& what);

// A top-level column of the file: its schema element and the index of its first leaf among a row
// group's column chunks.
struct ParquetTopColumn {
  size_t element = 0;
  size_t leaf = 0;
};

// The file's top-level columns, in order; Corruption when the schema is shorter than its groups say.
Result<std::vector<ParquetTopColumn>> ParquetTopColumns(const ParquetFooter& footer, const std::string& what);

// The top-level column whose field id is `field_id` (when given and present), else the one named
// `name`; nullptr when the file has neither.
const ParquetTopColumn* FindParquetTopColumn(const ParquetFooter& footer, const std::vector<ParquetTopColumn>& top,
                                             std::optional<int32_t> field_id, const std::string& name);

// Names of the Thrift enums, as DuckDB's parquet_schema() prints them ("INT96", "OPTIONAL", "UTF8").
std::string ParquetPhysicalTypeName(int32_t type);
std::string ParquetRepetitionName(int32_t repetition);
std::string ParquetConvertedTypeName(int32_t converted_type);

}  // namespace tide
