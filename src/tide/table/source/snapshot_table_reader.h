// SnapshotTableReader: the TableReader of one snapshot: reads its splits one after another.
//
// Per split (one partition and bucket): append tables stream their files in order; primary-key tables
// with deletion vectors stream their files above level 0; other primary-key tables merge all files by
// a k-way merge on (key, sequence.field, _SEQUENCE_NUMBER) and fold each key with the merge engine
// (the deduplicate engine without sequence.field takes each key's newest row without copying it).
// Primary-key lookups (key_equals) skip splits of other partitions and buckets and files whose
// [min_key, max_key] excludes the key, push the key down to the Parquet scan and filter rows by it; on
// deduplicate tables they read files newest first and stop once no remaining file can hold a newer row.
// Every file is read in the schema it was written with and mapped by field id onto the read schema
// (renamed, dropped, added, reordered and re-typed columns). Deletion vectors drop the rows they mark.
// With a filter, the columnar path skips row groups by their Parquet statistics where that is exact (see
// TableReadContext::filter).
// Thread-safety: one thread at a time.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tide/base/result.h"
#include "tide/io/file_system.h"
#include "tide/table/operation/file_store_scan.h"
#include "tide/table/source/table_reader.h"
#include "tide/types/table_schema.h"

namespace tide {

struct TableReadContext {
  FileSystem* fs = nullptr;
  std::string metadata_path;  // the folder holding schema/ (the table, or its branch folder)
  std::string table_name;
  TableSchema read_schema;   // the schema rows are returned in (with read-time option overrides applied)
  std::vector<int> projection;  // indices into read_schema.fields; empty with all_columns = all
  bool all_columns = true;
  // A primary-key point read (ReadOptions::primary_key_equals): values in primary-key order.
  std::optional<Row> key_equals;
  // The read's filter (ReadOptions::filter): inside the files the columnar path reads, row groups whose
  // statistics exclude it are left out (row_group_pruner.h): by any condition where a file's rows are
  // final (append tables, deletion-vector files), by conditions on primary-key columns in merges.
  std::shared_ptr<const ScanPredicate> filter;
};

Result<std::unique_ptr<TableReader>> CreateSnapshotTableReader(TableReadContext context,
                                                               std::vector<DataSplit> splits);

}  // namespace tide
