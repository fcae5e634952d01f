// ParquetFileEncoder: Tide's own Parquet encoder; rows in, the bytes of a whole Parquet file out, with
// Java Paimon's physical schema (parquet_schema_builder.h).
//
// Layout: `PAR1`; per row group, per leaf column, one chunk: for strings and binary outside lists and
// maps a dictionary page and PLAIN_DICTIONARY data pages (PLAIN once the dictionary is full), else data
// pages v1 of PLAIN values; RLE/bit-packed repetition and definition levels where the leaf has them;
// each page compressed with the file's codec (parquet_column_chunk_writer.h); then the Thrift FileMetaData (version 1, the schema, num_rows, the row
// groups with their ColumnMetaData and Statistics, created_by, a TYPE_ORDER column order per column),
// its 4-byte length and `PAR1`. A row group ends when it holds `row_group_rows` rows or its buffered
// bytes reach `row_group_bytes`; a data page when its values reach `page_bytes`.
//
// Nested values (ARRAY, MAP, MULTISET, ROW) are shredded into their leaf columns with Dremel's repetition
// and definition levels, following the plan of parquet_schema_builder.h: a NULL or empty list or map
// writes one entry below its level to each leaf under it; the elements after the first of a list repeat
// at the list's level; a MULTISET writes each distinct element once with its count.
// Append checks every value of a row before writing any, so a row that does not fit (InvalidArgument
// naming the column) leaves the encoder as it was. VARIANT columns are NotSupported.
// The encoded file is kept in memory (compressed) until Finish hands it over.
// Thread-safety: one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tide/base/result.h"
#include "tide/format/parquet_column.h"
#include "tide/format/parquet_column_chunk_writer.h"
#include "tide/format/parquet_compression.h"
#include "tide/format/parquet_schema_builder.h"
#include "tide/types/datum.h"

namespace tide {

// The created_by Tide writes; in parquet-mr's `<app> version <v>` form, which Java readers parse (an
// unparsable created_by makes parquet-mr ignore the statistics of binary columns).
inline constexpr const char* kTideParquetCreatedBy = "tide version 0.1.0";

struct ParquetEncoderOptions {
  ParquetCodec codec = ParquetCodec::kZstd;
  int zstd_level = 1;
  int64_t row_group_rows = 122880;
  int64_t row_group_bytes = int64_t{128} << 20;  // Paimon's parquet.block.size
  int64_t page_bytes = kDefaultParquetPageBytes;
  int64_t dictionary_bytes = kDefaultParquetDictionaryBytes;  // per chunk; 0: no dictionaries
  bool write_field_ids = true;
};

class ParquetFileEncoder {
 public:
  // InvalidArgument for empty `columns` or bounds that are not positive; NotSupported naming the column
  // for a VARIANT column (at any depth).
  static Result<std::unique_ptr<ParquetFileEncoder>> Create(std::vector<ParquetColumnSpec> columns,
                                                            ParquetEncoderOptions options = {});
  // True if Create accepts these columns' types.
  static bool CanEncode(const std::vector<ParquetColumnSpec>& columns);

  ParquetFileEncoder(const ParquetFileEncoder&) = delete;
  ParquetFileEncoder& operator=(const ParquetFileEncoder&) = delete;

  // Adds one row (a Datum per column, in column order).
  Status Append(const Row& row);

  // Adds rows[0..n) of the columns (one ColumnVector per column, in column order), as n calls of Append
  // with those rows would, to the byte: the same pages, statistics and row groups. The byte bound of a
  // row group is checked every kColumnAppendRows rows far from it and every row near it (as estimated
  // from the bytes per row so far); should rows grow so much within one step that the group passes the
  // bound before its end, the group ends at the step's end instead. Checks every value before writing
  // any. NotSupported when a column is not a flat column that has a ColumnVector (nested columns, wide
  // decimals and timestamps): append such rows with Append.
  static constexpr size_t kColumnAppendRows = 4096;
  Status AppendColumns(const std::vector<const ColumnVector*>& columns, const uint32_t* rows, size_t n);
  // Whether AppendColumns takes columns of these types.
  bool CanAppendColumns() const;

  int64_t row_count() const { return row_count_; }
  int64_t row_groups() const { return static_cast<int64_t>(row_groups_.size()); }

  // Ends the file and returns its bytes. The encoder accepts nothing afterwards.
  Result<std::string> Finish();

 private:
  struct RowGroupMeta {
    std::vector<ParquetChunkMeta> chunks;
    int64_t num_rows = 0;
  };
  ParquetFileEncoder(ParquetSchemaPlan plan, ParquetEncoderOptions options);
  Status CheckValue(const ParquetValuePlan& plan, const Datum& value) const;
  void Shred(const ParquetValuePlan& plan, const Datum& value, int16_t rep, int16_t parent_def);
  Status FinishRowGroup();
  void WriteFooter(std::string* out) const;

  ParquetSchemaPlan plan_;
  ParquetEncoderOptions options_;
  std::unique_ptr<ParquetPageCompressor> compressor_;
  std::vector<ParquetColumnChunkWriter> leaves_;  // one per leaf column, in schema order
  std::vector<RowGroupMeta> row_groups_;
  std::string file_;
  int64_t row_count_ = 0;
  int64_t group_rows_ = 0;
  int64_t group_buffered_bytes_ = 0;  // the group's buffered bytes at the last check
  double bytes_per_row_ = 1;          // of the group at the last column append (a new group: the last one's)
  bool finished_ = false;
};

}  // namespace tide
