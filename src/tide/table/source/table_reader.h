// ReadOptions and TableReader: what a reader of one Paimon table asks for, and the row stream it gets.
//
// A TableReader yields the rows of one snapshot of one table, already merged (primary-key tables:
// merge engine applied, deletes removed; deletion vectors applied), mapped to the schema that snapshot
// was committed with, projected to the requested columns. Rows come in batches. Thread-safety: a
// TableReader is used by one thread at a time; separate readers of one table may run in parallel.
#pragma once

#include <duckdb.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tide/base/result.h"
#include "tide/table/snapshot/snapshot_selector.h"
#include "tide/table/source/scan_predicate.h"
#include "tide/types/datum.h"
#include "tide/types/table_schema.h"

namespace tide {

struct ReadOptions {
  SnapshotSelector snapshot;
  // Indices into the read schema's fields to return, in this order. Empty means all fields.
  std::vector<int> projection;
  bool all_columns = true;  // false with an empty projection reads no columns (row counts only)
  // Table options overridden for this read only, e.g. {"ignore-delete": "true"}, as Flink's dynamic
  // table options (`/*+ OPTIONS(...) */`).
  std::map<std::string, std::string> dynamic_options;
  // A primary-key point read: only the row whose primary key equals these values (one per primary-key
  // column, in the table's primary-key order, each in the representation datum.h gives the column's
  // type). Splits of other partitions and buckets and files whose [min_key, max_key] excludes the key
  // are not opened; inside a file the key is pushed down to the Parquet scan (DuckDB skips row groups by
  // their statistics). InvalidArgument on a table without a primary key, with the wrong number of
  // values, or with a NULL value.
  std::optional<Row> primary_key_equals;
  // Read-optimized (Java's `$ro` system table): a primary-key table reads only the files of its top
  // level (`num-levels` - 1), which need no merge, so the rows are those of its last full compaction.
  // Other tables read everything.
  bool read_optimized = false;
  // A conjunction of column conditions the caller will apply itself (scan_predicate.h): partitions,
  // buckets and data files that cannot hold a matching row are skipped (scan_pruner.h), and inside data
  // files the row groups whose statistics exclude it (row_group_pruner.h). Rows that do not match may
  // still be returned (for a primary-key table, even an older version of a key that does not match:
  // the caller's filter drops it). Ignored for tables read with a fallback branch.
  std::shared_ptr<const ScanPredicate> filter;
};

// What a reader has done so far: the splits it read columnar (NextVectors' fast path) and by rows.
struct TableReadStats {
  int64_t columnar_splits = 0;
  int64_t row_splits = 0;
};

class TableReader {
 public:
  virtual ~TableReader() = default;
  // The fields of the rows this reader returns (the projection of the read schema).
  virtual const std::vector<DataField>& fields() const = 0;
  // Appends up to `max_rows` rows to `out`; returns false once the reader is exhausted (and appends
  // nothing then).
  virtual Result<bool> NextBatch(size_t max_rows, std::vector<Row>* out) = 0;

  // Columnar reading, for SQL: puts the next rows into `vectors` (vectors[i] has the DuckDB type
  // DuckTypeFor(fields()[i].type), format/duckdb_type_mapping.h, and room for `capacity` rows, at least
  // DuckDB's vector size) and returns how many; 0 once the reader is exhausted. A reader may point the
  // vectors at data it read (slices) instead of copying values. Do not mix with NextBatch on one reader.
  // The default writes the rows of NextBatch.
  virtual Result<size_t> NextVectors(std::span<const duckdb_vector> vectors, size_t capacity);

  // For parallel reads: another reader of the same snapshot and columns that shares this reader's
  // remaining work, so that each split is read by exactly one of the readers. nullptr when the reader
  // cannot share its work (then it alone reads everything). Safe to call from several threads at once,
  // but not while this reader itself is reading.
  virtual Result<std::unique_ptr<TableReader>> NewWorker() { return std::unique_ptr<TableReader>(); }

  virtual TableReadStats stats() const { return {}; }

 private:
  std::vector<Row> rows_;  // NextVectors' buffer
};

}  // namespace tide
