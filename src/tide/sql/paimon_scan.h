// paimon_scan: the DuckDB table function that reads one Paimon table.
//
//   paimon_scan(name VARCHAR, snapshot_id := BIGINT, timestamp_ms := BIGINT, tag := VARCHAR,
//               read_optimized := BOOLEAN)
//
// `read_optimized => true` reads a primary-key table's top-level files only (the `$ro` system table).
// `name` is `database.table` (sql_table_name.h). At most one of the named parameters picks the snapshot
// (by id, the latest committed at or before a time in epoch milliseconds, or a tag); none reads the
// latest. Bind resolves the schema that snapshot was committed with and declares its columns with the
// types of duckdb_type_mapping.h. The function supports projection pushdown: init opens a TableReader
// for exactly the columns the query uses (ReadOptions.projection, in DuckDB's order), and each call
// fills one DuckDB chunk from the reader's batches. DuckDB cannot push filters into a C API table
// function; instead bind claims the running statement's filter of its table (statement_filters.h, found
// by LakeConnection::Query through filter_pushdown.h) and init passes it to the reader
// (ReadOptions::filter, and primary_key_equals when it fixes the whole key), which skips partitions,
// buckets and files that cannot match; DuckDB still filters every row returned. Errors (unknown table,
// unknown snapshot, unreadable file) fail the query with Tide's message.
//
// Change reads (table/change_read.h): `incremental_between := 'S1,S2'` or
// `incremental_between_timestamp := 'T1,T2'` (with `incremental_between_scan_mode := auto|delta|changelog`)
// return the changes of the snapshots in (S1, S2], and `audit_log := true` the latest snapshot with each
// row's kind (the `$audit_log` view, audit_log_table.h). Their first column is `rowkind` ('+I', '-U',
// '+U', '-D'), then the table's latest columns; they are read on one thread.
//
// Thread-safety: one scan reads on one thread at a time (max_threads 1); separate scans, in one query
// or several, have separate readers.
#pragma once

#include <memory>

#include "tide/base/status.h"
#include "tide/format/duckdb_handle.h"
#include "tide/sql/table_source.h"

namespace tide {

inline constexpr const char* kPaimonScanFunction = "paimon_scan";

// Registers paimon_scan in the database of `connection`; it reads through `source`, which the function
// keeps alive.
Status RegisterPaimonScan(const DuckConnection& connection, std::shared_ptr<const TableSource> source);

}  // namespace tide
