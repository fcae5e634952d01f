// DataFileMeta: what a manifest entry says of one data file (name, size, rows, key range, statistics,
// sequence range, level, schema), and SimpleStats, the min/max/null-count statistics it carries.
//
// Field meanings and versions: PAIMON_FORMAT.md §4 (Java's org.apache.paimon.io.DataFileMeta).
// BinaryRow-valued fields are kept as their serialized bytes. Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tide {

// Min/max rows (serialized BinaryRows) and null counts of a set of columns.
struct SimpleStats {
  std::string min_values;
  std::string max_values;
  std::vector<std::optional<int64_t>> null_counts;  // empty when the file stored null
  bool null_counts_present = false;

  bool operator==(const SimpleStats&) const = default;
};

enum class FileSource : int32_t { kAppend = 0, kCompact = 1 };

struct DataFileMeta {
  std::string file_name;
  int64_t file_size = 0;
  int64_t row_count = 0;
  std::string min_key;  // serialized BinaryRow of the first key (empty arity-0 row for append tables)
  std::string max_key;
  SimpleStats key_stats;
  SimpleStats value_stats;
  int64_t min_sequence_number = 0;
  int64_t max_sequence_number = 0;
  int64_t schema_id = 0;
  int32_t level = 0;
  std::vector<std::string> extra_files;
  std::optional<int64_t> creation_time_ms;  // local wall-clock millis, as Java stores them
  std::optional<int64_t> delete_row_count;
  std::optional<std::string> embedded_file_index;
  std::optional<int32_t> file_source;
  std::optional<std::vector<std::string>> value_stats_cols;
  std::optional<std::string> external_path;
  std::optional<int64_t> first_row_id;
  std::optional<std::vector<std::string>> write_cols;

  bool operator==(const DataFileMeta&) const = default;
};

}  // namespace tide
