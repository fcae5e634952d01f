// KeyValueFileReader: reads one data file of a table as records of the fields a reader needs, in the
// reader's schema: each needed field is found in the file by field id (schema evolution: renamed
// columns keep their id, added ones read as NULL, widened ones are cast), and primary-key files also
// yield each record's _SEQUENCE_NUMBER and _VALUE_KIND (Java's KeyValueFileReaderFactory).
//
// Records come in file order, each with its 0-based position in the file; the caller may skip
// positions (deletion vectors) with `skip_position`. A key filter (a primary-key point read) is pushed
// down to the Parquet reader where the type allows, so row groups whose statistics exclude the key are
// not read, and is applied to every record either way.
//
// Thread-safety: one thread at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tide/base/result.h"
#include "tide/table/io/data_file_reader.h"
#include "tide/table/io/key_value.h"
#include "tide/types/table_schema.h"

namespace tide {

// A primary-key point read: the key's values and where the key columns are among the needed fields.
struct KeyFilter {
  Row values;                  // in primary-key order
  std::vector<int> positions;  // of each primary-key column in the needed fields
};

struct KeyValueFileReadSpec {
  std::string path;                   // the data file
  const TableSchema* file_schema = nullptr;  // the schema the file was written with (its schema_id)
  const std::vector<DataField>* needed = nullptr;  // the fields to read, in the reader's types
  bool primary_key = false;           // a key-value file: also read _SEQUENCE_NUMBER and _VALUE_KIND
  const KeyFilter* key_filter = nullptr;  // optional; must outlive the reader
  // With a key filter: which row groups of a Parquet file may hold the key, given its footer (unset:
  // all). A key read goes through Tide's own Parquet reader where it can (DataFileReadOptions::native).
  std::function<std::vector<bool>(const ParquetFooter&)> select_row_groups;
  std::function<bool(int64_t)> skip_position;  // optional: true for positions to skip
  std::string table_name;             // for errors
  const DuckDB* database = nullptr;   // optional: reads through this database (DataFileReadOptions)
};

class KeyValueFileReader final : public KeyValueCursor {
 public:
  static Result<std::unique_ptr<KeyValueFileReader>> Open(KeyValueFileReadSpec spec);

  // Moves to the next record; false at the end of the file.
  Result<bool> Advance() override;
  const KeyValue& current() const override { return current_; }
  KeyValue TakeCurrent() override { return std::move(current_); }
  const std::string& path() const { return spec_.path; }
  // The 0-based position in the file of the current record. REQUIRES: the last Advance returned true.
  int64_t current_position() const { return positions_[index_]; }

 private:
  // How one needed field is filled from the file.
  struct FieldSource {
    int column = -1;  // index into the file columns read, -1 when the file has no such field (NULL)
    DataType file_type;
    bool needs_cast = false;
  };

  KeyValueFileReader() = default;
  Status Materialize();
  bool MatchesKey() const;

  KeyValueFileReadSpec spec_;
  std::vector<FieldSource> sources_;
  bool identity_ = false;  // sources_[i] is file column i, uncast
  int seq_column_ = -1, kind_column_ = -1;
  std::unique_ptr<DataFileRowReader> reader_;
  std::vector<Row> batch_;
  std::vector<int64_t> positions_;
  size_t index_ = static_cast<size_t>(-1);
  KeyValue current_;
};

}  // namespace tide
