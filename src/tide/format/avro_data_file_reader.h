// AvroDataFileReader: reads the rows of a Paimon data file written in Avro (`file.format = avro`) as
// Tide Rows.
//
// Paimon's Avro data files are Avro object container files whose writer schema is one record with a
// field per column of the file's row type (for primary-key files `_KEY_<k>`, `_SEQUENCE_NUMBER`,
// `_VALUE_KIND`, then the value columns), converted as Java's AvroSchemaConverter does: BOOLEAN as
// boolean; TINYINT, SMALLINT, INT as int; BIGINT as long; FLOAT, DOUBLE; CHAR, VARCHAR as string;
// BINARY, VARBINARY as bytes; DECIMAL as bytes (logicalType decimal: the unscaled value, big-endian
// two's complement); DATE as int days; TIME(p <= 3) as int milliseconds of the day; TIMESTAMP(p <= 6)
// and TIMESTAMP_LTZ(p <= 6) as long milliseconds (p <= 3) or microseconds; ARRAY as array; MAP with a
// string key as map, any other MAP as an array of records (key, value); MULTISET as a map (or array of
// records) from element to its count; ROW as record; a nullable type as the union [null, T].
//
// The caller names the columns it wants (ParquetColumnSpec: physical name and Paimon type; the field id
// is not used, since Avro files carry names only). Each is looked up among the record's fields by name;
// a column the file does not have is listed in missing_columns() and read as NULL. Nested ROW fields are
// matched by name too. Rows come in batches with their 0-based position in the file (what deletion
// vectors index).
//
// The whole file is read into memory when opened (Paimon's data files are at most `target-file-size`,
// 128 MiB by default); rows are decoded one datum at a time.
//
// Errors: a missing file is NotFound; damaged bytes give Corruption naming the file (from AvroReader);
// a value whose Avro type does not fit the wanted Paimon type gives Corruption naming the file and the
// column; a type Avro cannot hold in Paimon's mapping (VARIANT, TIME(p > 3), TIMESTAMP(p > 6)) is
// NotSupported naming the column.
//
// Thread-safety: a reader belongs to one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tide/base/result.h"
#include "tide/codec/avro_reader.h"
#include "tide/format/parquet_column.h"
#include "tide/types/datum.h"

namespace tide {

class AvroDataFileReader {
 public:
  static Result<std::unique_ptr<AvroDataFileReader>> Open(const std::string& path,
                                                          std::vector<ParquetColumnSpec> columns);

  // Indexes (into the requested columns) of the columns this file does not hold.
  const std::vector<size_t>& missing_columns() const { return missing_; }

  // Appends up to `max_rows` rows (columns in request order) and their positions; false at the end.
  Result<bool> NextBatch(size_t max_rows, std::vector<Row>* rows, std::vector<int64_t>* positions);

 private:
  AvroDataFileReader() = default;

  std::string path_;
  std::vector<ParquetColumnSpec> columns_;
  std::vector<int> field_of_column_;  // record field index per requested column, -1 when missing
  std::vector<size_t> missing_;
  std::vector<std::string> column_context_;  // "data file F, column 'c'" for errors
  std::unique_ptr<AvroReader> reader_;
  AvroValue record_;
  int64_t next_position_ = 0;
};

// Converts one Avro datum, written with schema `node`, to a Datum of `type` as Paimon's Avro mapping
// stores it (see above). `what` names the file and column in errors.
Result<Datum> AvroToDatum(const AvroValue& value, const AvroNode& node, const DataType& type,
                          const std::string& what);

}  // namespace tide
