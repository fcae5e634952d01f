// CoreOptions: typed access to the table options Tide's reader and writer act on, with Paimon 1.x
// defaults for options a schema does not set. Option names and defaults follow Java's CoreOptions.
// Thread-safety: an immutable view over a TableSchema; valid while the schema lives.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tide/base/result.h"
#include "tide/types/table_schema.h"

namespace tide {

enum class MergeEngine { kDeduplicate, kPartialUpdate, kAggregation, kFirstRow };

class CoreOptions {
 public:
  explicit CoreOptions(const TableSchema& schema) : schema_(schema) {}

  // `bucket`: N > 0 fixed buckets; -1 dynamic (PK) or unaware (append); -2 postpone.
  int32_t bucket() const;
  std::string file_format() const { return schema_.Option("file.format", "parquet"); }
  std::string manifest_format() const { return schema_.Option("manifest.format", "avro"); }
  Result<MergeEngine> merge_engine() const;
  bool deletion_vectors_enabled() const { return Bool("deletion-vectors.enabled", false); }
  bool ignore_delete() const;
  // `sequence.field`: user columns that order rows of one key before _SEQUENCE_NUMBER does.
  std::vector<std::string> sequence_fields() const;
  bool sequence_field_descending() const;
  bool partial_update_remove_record_on_delete() const {
    return Bool("partial-update.remove-record-on-delete", false);
  }
  // `fields.<name>.aggregate-function`, or `fields.default-aggregate-function`, else last_non_null_value.
  std::string aggregate_function(const std::string& field) const;
  bool ignore_retract(const std::string& field) const;
  std::string partition_default_name() const { return schema_.Option("partition.default-name", "__DEFAULT_PARTITION__"); }
  bool partition_legacy_name() const { return Bool("partition.legacy-name", true); }
  std::string data_file_path_directory() const { return schema_.Option("data-file.path-directory", ""); }
  bool row_tracking_enabled() const { return Bool("row-tracking.enabled", false); }
  bool data_evolution_enabled() const { return Bool("data-evolution.enabled", false); }
  std::string list_agg_delimiter(const std::string& field) const {
    return schema_.Option("fields." + field + ".list-agg-delimiter", ",");
  }

  bool Bool(const std::string& key, bool fallback) const;

 private:
  const TableSchema& schema_;
};

}  // namespace tide
