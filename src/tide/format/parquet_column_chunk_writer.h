// ParquetColumnChunkWriter: encodes the values of one leaf column into the column chunks of a Parquet
// file, one chunk per row group.
//
// Values are PLAIN-encoded into the current data page (v1) as they arrive. A leaf with a maximum
// repetition level above 0 (inside an ARRAY, MAP or MULTISET) keeps a repetition level per entry, one with
// a maximum definition level above 0 (an OPTIONAL leaf or ancestor, or a repeated ancestor) a definition
// level per entry; each is written RLE/bit-packed with its 4-byte length before the values (repetition
// first), as data pages v1 require. MaybeFinishPage, called between rows (pages start at a row, so a
// list never spans two pages), compresses the page once its values reach `page_bytes` and appends it,
// with its Thrift PageHeader (carrying the page's CRC32, as parquet-mr's does), to the chunk.
//
// BYTE_ARRAY leaves outside lists and maps (strings and binary of top-level columns and ROW fields) are
// dictionary-encoded as Java's parquet-mr v1 writer does: each distinct value once in a PLAIN dictionary
// page at the start of the chunk, data pages of PLAIN_DICTIONARY indices (a bit-width byte, then the
// indices RLE/bit-packed). When the chunk's dictionary would pass `dictionary_bytes` the open page is
// ended and the rest of the chunk is PLAIN (the dictionary stays for the pages before), so a column of
// mostly distinct values costs little more than PLAIN. A page ends when the PLAIN size of its values
// reaches `page_bytes`, in either encoding. FinishChunk appends the chunk to the file and
// returns what the footer needs: sizes, offsets, value and null counts, and the Statistics' min_value /
// max_value in Parquet's sort order for the column (signed for integers, dates, times, timestamps and
// decimals, also when stored as FIXED_LEN_BYTE_ARRAY; unsigned bytewise for strings and binary; none for
// INT96, whose order is undefined, nor for FLOAT/DOUBLE chunks holding a NaN; -0.0 as the minimum and
// +0.0 as the maximum when zero is the bound, as the format asks; none for strings above
// kMaxStatisticsValueBytes, rather than a truncated bound).
//
// Check() validates a value without changing anything; Append() requires a value that passed Check(), so
// a row can be checked whole before any of its values is written.
// Thread-safety: one thread at a time.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tide/base/result.h"
#include "tide/format/parquet_column.h"
#include "tide/format/parquet_compression.h"
#include "tide/format/parquet_schema_builder.h"
#include "tide/types/column_vector.h"
#include "tide/types/datum.h"

namespace tide {

inline constexpr int64_t kDefaultParquetPageBytes = int64_t{1} << 20;
inline constexpr int64_t kDefaultParquetDictionaryBytes = int64_t{1} << 20;  // parquet-mr's default
inline constexpr size_t kMaxStatisticsValueBytes = 4096;

// One written column chunk, as the footer's ColumnChunk / ColumnMetaData describes it.
struct ParquetChunkMeta {
  ParquetPhysicalType type = ParquetPhysicalType::kInt32;
  std::vector<std::string> path;  // path_in_schema
  int64_t num_values = 0;  // NULLs included
  int64_t null_count = 0;
  int64_t total_uncompressed_size = 0;  // page headers included
  int64_t total_compressed_size = 0;
  int64_t data_page_offset = 0;
  std::optional<int64_t> dictionary_page_offset;
  bool plain_pages = false;       // some data pages are PLAIN
  bool dictionary_pages = false;  // some data pages are PLAIN_DICTIONARY
  std::optional<std::string> min_value;  // Statistics, PLAIN-encoded as the format specifies
  std::optional<std::string> max_value;
};

// Java Paimon's INT96 for a timestamp: 8 bytes little-endian nanoseconds of the day, then 4 bytes
// little-endian Julian day, both from a division truncated toward zero (so instants before 1970 have a
// negative nanosecond part, which readers add back: parquet_int96.h). Fails only past the int32 Julian day.
bool EncodeInt96(const TimestampValue& value, char out[12]);

class ParquetColumnChunkWriter {
 public:
  // `dictionary_bytes` 0 turns dictionaries off.
  ParquetColumnChunkWriter(const ParquetLeafPlan& leaf, ParquetPageCompressor* compressor,
                           int64_t page_bytes = kDefaultParquetPageBytes,
                           int64_t dictionary_bytes = kDefaultParquetDictionaryBytes);
  ParquetColumnChunkWriter(const ParquetColumnChunkWriter&) = delete;
  ParquetColumnChunkWriter& operator=(const ParquetColumnChunkWriter&) = delete;
  ParquetColumnChunkWriter(ParquetColumnChunkWriter&&) = default;

  const ParquetColumnSpec& column() const { return column_; }
  const ParquetSchemaNode& leaf() const { return leaf_; }

  // OK if `value` can be written; InvalidArgument naming the column otherwise (a NULL in a NOT NULL
  // column, a value of the wrong representation, an integer, decimal, date or timestamp out of range).
  Status Check(const Datum& value) const;
  // A top-level leaf's value (NULL included). REQUIRES: Check(value).ok().
  void Append(const Datum& value) {
    if (value.is_null()) {
      AppendNull(0, 0);
    } else {
      AppendValue(0, value);
    }
  }
  // A present value at repetition level `rep` (its definition level is the maximum).
  // REQUIRES: Check(value).ok(), value not NULL.
  void AppendValue(int16_t rep, const Datum& value);
  // An entry without a value: NULL, or an ancestor NULL or empty, at definition level `def` < max.
  void AppendNull(int16_t rep, int16_t def);
  // The typed form of Check and Append for a top-level leaf of a flat type: `rows[0..n)` of `column`
  // (whose type is the leaf's column type), each checked as Check checks it / written as Append followed
  // by MaybeFinishPage writes it, so pages end where row-by-row appends end them.
  Status CheckColumn(const ColumnVector& column, const uint32_t* rows, size_t n) const;
  Status AppendColumn(const ColumnVector& column, const uint32_t* rows, size_t n);

  // Ends the open page if its values reached the page size. Call between rows only.
  Status MaybeFinishPage() {
    if (!deferred_.ok()) return deferred_;
    const int64_t page_size = std::max(static_cast<int64_t>(values_.size()), page_plain_bytes_);
    return page_size >= page_bytes_ ? FinishPage() : Status::OK();
  }

  // Bytes held for the current row group (compressed pages plus the open page).
  int64_t buffered_bytes() const {
    return static_cast<int64_t>(chunk_.size() + values_.size() + dictionary_.size() + 4 * indices_.size() +
                                (def_levels_.size() + rep_levels_.size()) / 4);
  }
  // Pages written so far in the current chunk (the open page not counted).
  int64_t pages_in_chunk() const { return pages_in_chunk_; }

  // Appends the chunk's pages to `file` (the chunk starts at file->size()) and starts the next chunk.
  Result<ParquetChunkMeta> FinishChunk(std::string* file);

 private:
  Status FinishPage();
  void UpdateIntStats(int64_t v);
  void AppendBytes(std::string_view v);
  void UpdateBytesStats(std::string_view v);
  void WritePage(int32_t page_type, const std::string& body, int64_t num_values, int32_t encoding);

  ParquetColumnSpec column_;
  ParquetSchemaNode leaf_;
  std::vector<std::string> path_;
  ParquetPhysicalType physical_;
  bool optional_;  // the leaf itself is OPTIONAL
  int16_t max_def_;
  int16_t max_rep_;
  ParquetPageCompressor* compressor_;
  int64_t page_bytes_;

  // Dictionary state of the current chunk.
  bool dictionary_eligible_;    // BYTE_ARRAY, not repeated, dictionary_bytes > 0
  bool dictionary_active_;      // values still go to the dictionary in this chunk
  int64_t dictionary_bytes_;
  struct StringHash {
    using is_transparent = void;
    size_t operator()(std::string_view v) const { return std::hash<std::string_view>{}(v); }
  };
  std::unordered_map<std::string, uint32_t, StringHash, std::equal_to<>> dictionary_index_;
  std::string dictionary_;      // the distinct values, PLAIN
  // The dictionary value met last, as its key in dictionary_index_ (a node's key stays in place until
  // the index is cleared): a partition column (or a run of equal values) repeats it row after row,
  // found again with a compare instead of a hash lookup.
  const std::string* last_entry_ = nullptr;
  uint32_t last_entry_index_ = 0;
  Status deferred_;             // a page that failed to compress while appending

  // The open page.
  std::string values_;          // PLAIN values
  std::vector<uint32_t> indices_;  // dictionary indices (when dictionary_active_)
  int64_t page_plain_bytes_ = 0;
  std::vector<uint16_t> def_levels_;
  std::vector<uint16_t> rep_levels_;
  int64_t page_values_ = 0;
  int64_t bool_bits_ = 0;  // BOOLEAN: values bit-packed into values_ so far

  // The current chunk.
  std::string chunk_;
  std::string page_buffer_;      // scratch: levels + values of a page
  std::string compressed_;       // scratch: the compressed page
  std::string header_;           // scratch: the page header
  int64_t pages_in_chunk_ = 0;
  int64_t chunk_values_ = 0;
  int64_t chunk_nulls_ = 0;
  int64_t chunk_uncompressed_ = 0;
  bool chunk_plain_pages_ = false;
  bool chunk_dictionary_pages_ = false;

  // Statistics of the current chunk.
  bool has_bounds_ = false;
  bool saw_nan_ = false;
  bool oversized_ = false;  // a string longer than kMaxStatisticsValueBytes
  int64_t min_int_ = 0, max_int_ = 0;        // BOOLEAN, INT32, INT64
  double min_real_ = 0, max_real_ = 0;       // FLOAT, DOUBLE
  __int128 min_wide_ = 0, max_wide_ = 0;     // FIXED_LEN_BYTE_ARRAY decimals
  std::string min_bytes_, max_bytes_;        // BYTE_ARRAY
};

}  // namespace tide
