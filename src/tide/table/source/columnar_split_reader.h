// ColumnarSplitReader: reads one split (partition and bucket) of a table straight into DuckDB vectors,
// without building Rows: the fast path of full scans through SQL (paimon_scan).
//
// Each data file is decoded by Tide's own Parquet reader (parquet_chunk_reader.h) straight into chunks
// of the projected columns in their paimon_scan types (duckdb_type_mapping.h), plus what the merge needs:
// the primary-key columns, _SEQUENCE_NUMBER, _VALUE_KIND and, with a deletion vector, the row's position.
// A file that reader cannot decode (encodings, codecs or types outside its scope, even mid-file) is read
// on by a DuckDB query over the file returning the same columns (CAST in SQL). Output vectors reference
// the file's result chunk and select the rows that survive (duckdb_slice_vector): no value is copied.
// A chunk (and the query result it may point into) stays alive until the next call of Next, by which
// time DuckDB has consumed the vectors that referenced it. Small files go through one materialized
// DuckDB query, larger ones through a streaming query in bounded memory.
//
//   * Append splits, and primary-key splits read without merging (deletion-vector tables, level > 0):
//     the files one after another; rows marked by the file's deletion vector (and, for primary-key
//     files, -U/-D rows) are not selected.
//   * Primary-key splits of the deduplicate engine without sequence.field: a k-way merge over the
//     files on the key columns (a binary heap on (key, _SEQUENCE_NUMBER); for one integer key over at
//     most 8 files, a scan of the files' heads) decides for every stored row whether it is its key's newest row; the newest row of each key
//     is selected unless it is a retraction (with ignore-delete retractions never win). A file's chunk is
//     handed out once the merge has passed its last row, so rows come grouped by the chunk they were
//     stored in, not in key order.
//     Two columns are read only when needed: when the files' sequence-number ranges do not overlap (as
//     for the level-0 files of successive commits), a file's rank in sequence order stands in for
//     _SEQUENCE_NUMBER (inside a file, rows of one key are stored oldest first); a file whose metadata
//     counts no -U/-D rows is not asked for _VALUE_KIND.
//
// Supports() says whether a split can be read this way: every projected column is a scalar type that
// DuckDB reads exactly (not TIME, TIMESTAMP_LTZ, TIMESTAMP(7..9), nested types) and each file holds it
// with the read type or lacks it (NULL); key columns are integers or strings. Other splits, and the
// other merge engines, take the row path (table_reader.cc).
// Thread-safety: a reader belongs to one thread at a time.
#pragma once

#include <duckdb.h>

#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tide/base/result.h"
#include "tide/table/deletionvectors/deletion_vector.h"
#include "tide/table/source/row_group_pruner.h"
#include "tide/types/table_schema.h"

namespace tide {

// What a columnar scan of a table reads; the same for every split.
struct ColumnarScanSpec {
  std::string table_name;
  std::vector<DataField> output;      // the projected fields of the read schema
  std::vector<DataField> key_fields;  // the primary key's fields (empty for append tables)
  bool merge = false;                 // merge the files by key (deduplicate engine)
  bool ignore_delete = false;         // with merge: retractions never win
};

// One data file of a split, as the scan reads it.
struct ColumnarFile {
  std::string path;
  const TableSchema* schema = nullptr;  // the schema the file was written with
  int64_t row_count = 0;
  int64_t min_sequence_number = 0;
  int64_t max_sequence_number = 0;
  std::optional<int64_t> delete_row_count;  // -U/-D rows; 0 lets the scan skip _VALUE_KIND
  std::optional<DeletionVector> deletion_vector;
  // Row groups whose statistics exclude one of these are not read (row_group_pruner.h; the caller
  // passes only conditions for which leaving rows out is exact). Tide's own reader only.
  std::vector<RowGroupCondition> row_group_conditions;
};

class ColumnarSplitReader {
 public:
  // Whether the split's files can be read columnar with `spec` (see the header comment).
  static bool Supports(const ColumnarScanSpec& spec, std::span<const TableSchema* const> file_schemas);

  // Starts reading `files` (in the order given; for merges the order does not matter). Supports() must
  // have said yes.
  static Result<std::unique_ptr<ColumnarSplitReader>> Open(const ColumnarScanSpec& spec,
                                                           std::vector<ColumnarFile> files);
  ~ColumnarSplitReader();
  ColumnarSplitReader(const ColumnarSplitReader&) = delete;
  ColumnarSplitReader& operator=(const ColumnarSplitReader&) = delete;

  // Points vectors[i] (of the paimon_scan type of spec.output[i]) at the next rows and returns how many
  // (at most `capacity`, which must be at least DuckDB's vector size); 0 at the end of the split.
  Result<size_t> Next(std::span<const duckdb_vector> vectors, size_t capacity);

  struct ChunkState;

 private:
  struct Cursor;
  ColumnarSplitReader();
  Result<bool> Refill(Cursor* cursor);
  Status StartQuery(Cursor* cursor, int64_t first_row);
  Result<size_t> NextConcatenated(std::span<const duckdb_vector> vectors, size_t capacity);
  Result<size_t> NextMerged(std::span<const duckdb_vector> vectors, size_t capacity);
  Status MergeUntilAChunkIsDone();
  Status MergeFewIntKeysUntilAChunkIsDone();
  Status AdvanceFlatHead(size_t i);
  Status AdvanceTop();
  bool Less(const Cursor& a, const Cursor& b) const;
  bool HasGroupKey(const Cursor& c) const;
  int64_t SequenceOf(const Cursor& c) const;
  void SiftDown(size_t i);

  const ColumnarScanSpec* spec_ = nullptr;  // owned by the caller, outlives the reader
  std::vector<std::unique_ptr<Cursor>> cursors_;
  size_t next_file_ = 0;                          // concatenation: the file being read
  std::vector<Cursor*> heap_;                     // merge: cursors with undecided rows, a min-heap by Less
  // The flat merge (one integer key, a few files): each file's head key and order (sequence number or
  // rank) in an unordered array.
  struct IntHead {
    int64_t key;
    int64_t order;
    Cursor* cursor;
  };
  std::vector<IntHead> heads_;
  std::deque<std::unique_ptr<ChunkState>> done_;  // merge: chunks whose rows are all decided, to hand out
  std::unique_ptr<ChunkState> handed_out_;        // merge: the chunk of the last call, alive until the next
  std::vector<int64_t> group_ints_;               // merge: the key being decided
  std::vector<duckdb_string_t> group_strings_;
  bool started_ = false;
  bool single_int_key_ = false;
  bool flat_merge_ = false;   // one integer key over a few files: heads_ instead of heap_
  bool use_sequence_ = true;  // compare _SEQUENCE_NUMBER; else the files' ranks
};

}  // namespace tide
