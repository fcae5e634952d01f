// ParquetChunkReader: Tide's own reader of flat Parquet columns, decoding a file's pages straight into
// DuckDB data chunks, without a DuckDB query (no planning, no result copies, no thread hand-offs).
//
// Scope: top-level, non-repeated primitive columns, REQUIRED or OPTIONAL; data pages v1 and v2; PLAIN,
// PLAIN_DICTIONARY and RLE_DICTIONARY values (dictionary pages, with PLAIN pages after a dictionary that
// filled up); codecs UNCOMPRESSED, SNAPPY, GZIP, ZSTD. Conversions (file's physical type and annotation
// -> output vector type):
//   INT32 (no annotation or a signed INT)   -> TINYINT, SMALLINT, INTEGER (narrowed like a C cast), BIGINT
//   INT32 DATE                               -> DATE
//   INT64 (no annotation or a signed INT)   -> BIGINT
//   INT64 TIMESTAMP(MILLIS | MICROS)         -> TIMESTAMP, TIMESTAMP WITH TIME ZONE (microseconds; the
//                                               stored instant, never shifted by a time zone)
//   BOOLEAN -> BOOLEAN;  FLOAT -> FLOAT, DOUBLE;  DOUBLE -> DOUBLE
//   DECIMAL(p, s) in INT32, INT64, FIXED_LEN_BYTE_ARRAY or BYTE_ARRAY
//                                            -> DECIMAL(p', s) with p' >= p (same scale)
//   BYTE_ARRAY STRING (UTF8), ENUM, JSON     -> VARCHAR (checked to be UTF-8: Corruption otherwise)
//   BYTE_ARRAY without annotation            -> BLOB (bytes as stored)
// and a row-number column (BIGINT, the row's 0-based position in the file). Everything else (nested or
// repeated columns, INT96, TIMESTAMP(NANOS), unsigned integers, DELTA_* or BYTE_STREAM_SPLIT encodings,
// LZ4, other type pairs) is NotSupported naming the file and column: the caller then reads the file
// through DuckDB. The footer does not tell every page's encoding, so NotSupported for an encoding (a
// DELTA_* page, as DuckDB's V2 writer makes; never in Tide's or Java parquet-mr v1 files) can also come
// from Next(), when the page is met: rows_read() then says how many rows were already returned, and the
// caller continues the file through DuckDB from that row (file_row_number >= rows_read()).
//
// Row groups can be left out (SelectRowGroups, for pruning by their statistics): their chunks are never
// read, and row numbers stay the rows' positions in the file.
//
// Reading: each column chunk of a row group is read with one pread, then decoded page by page into the
// output chunk, across page and row-group boundaries. Memory: one column chunk per column plus one
// decompressed page. Every read is bounds-checked, and no allocation is sized by the file's claims beyond
// the caps of parquet_page_reader.h; damaged bytes are Corruption naming the file and column.
//
// Thread-safety: a reader belongs to one thread at a time. The chunks it returns own their memory and
// may outlive it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tide/base/result.h"
#include "tide/format/duckdb_handle.h"
#include "tide/format/parquet_footer.h"

namespace tide {

class ParquetPageDecompressor;

struct ParquetChunkColumn {
  std::string name;                 // top-level physical column name (matched exactly)
  std::optional<int32_t> field_id;  // when given and present in the file, matched first
  DuckLogicalType type;             // the DuckDB type of the output vector (see the conversions above)
  bool row_number = false;          // instead of a file column: the row's position in the file (BIGINT)
  bool absent_is_null = false;      // a column the file lacks reads as NULL (else Corruption naming it)
};

class ParquetChunkReader {
 public:
  // Reads the footer and resolves `columns`. NotSupported when the file or a column is outside the
  // reader's scope; NotFound for a missing file; Corruption naming the file (and column) for damage.
  static Result<std::unique_ptr<ParquetChunkReader>> Open(const std::string& path,
                                                          std::vector<ParquetChunkColumn> columns);
  ~ParquetChunkReader();
  ParquetChunkReader(const ParquetChunkReader&) = delete;
  ParquetChunkReader& operator=(const ParquetChunkReader&) = delete;

  // The file's footer (schema, row groups and their statistics).
  const ParquetFooter& footer() const { return footer_; }
  // Reads only the row groups whose entry in `keep` (one per row group of footer()) is true; the rows of
  // the others are never read nor returned, and row numbers stay positions in the file. Call before the
  // first Next. InvalidArgument when `keep` has the wrong size.
  Status SelectRowGroups(std::vector<bool> keep);
  // The rows the reader returns in all (the file's, or those of the selected row groups).
  int64_t row_count() const { return total_rows_; }
  // Rows returned so far.
  int64_t rows_read() const { return rows_read_; }
  // The position in the file of the next row Next would return (the file's row count at the end).
  int64_t next_position() const;
  // Row groups the reader reads (all, or the selected ones).
  int64_t row_groups_read() const { return row_groups_read_; }

  // The next up to duckdb_vector_size() rows as a chunk whose column i has columns[i].type; an empty
  // (false) chunk at the end. After an error the reader must not be used further.
  Result<DuckDataChunk> Next();

 private:
  class Column;
  ParquetChunkReader() = default;

  std::string path_;
  int fd_ = -1;
  ParquetFooter footer_;
  std::vector<ParquetChunkColumn> columns_;
  std::vector<duckdb_logical_type> raw_types_;  // borrowed from columns_, for duckdb_create_data_chunk
  std::unique_ptr<ParquetPageDecompressor> decompressor_;  // shared by the columns (declared before them)
  std::vector<std::unique_ptr<Column>> decoders_;  // parallel to columns_; null for row numbers and absent
  int64_t total_rows_ = 0;
  int64_t rows_read_ = 0;
  // Row-group selection (SelectRowGroups): empty keeps every group. The columns look at it.
  std::vector<bool> keep_;
  // The selected groups' rows as (first position in the file, rows), for row numbers.
  std::vector<std::pair<int64_t, int64_t>> spans_;
  size_t span_ = 0;          // the span holding the next row
  int64_t span_offset_ = 0;  // its offset in that span
  int64_t row_groups_read_ = 0;
};

}  // namespace tide
