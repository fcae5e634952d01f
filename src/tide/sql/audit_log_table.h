// The `$audit_log` system table: `<db>."<table>$audit_log"`, every row of the table's latest snapshot
// with its row kind first, as Java's AuditLogTable reads it in batch mode:
//
//   rowkind VARCHAR ('+I', '-U', '+U', '-D'), then the table's columns
//
// A primary-key table's rows are merged per key as a normal read merges them, but a key whose newest
// record is a delete is kept (as '-D') until compaction drops it, and each row carries the kind of the
// record that won ('+U' for a key last updated). Append tables' rows are all '+I'. The history of changes
// is an incremental read of the same shape:
//   paimon_scan('<db>.<table>', incremental_between => 'S1,S2')     (changes of snapshots S1+1..S2)
// or `tide read --follow` (docs/cli.md).
//
// The view is `SELECT * FROM paimon_scan('<db>.<table>', audit_log => true)` (paimon_scan.h); this file
// creates it for each table. Thread-safety: as LakeConnection (one thread at a time).
#pragma once

#include "tide/base/status.h"
#include "tide/catalog/catalog.h"
#include "tide/format/duckdb_handle.h"

namespace tide {

// The suffix Paimon gives the system table.
inline constexpr const char* kAuditLogSuffix = "$audit_log";

// Creates the view `<database>."<table>$audit_log"` for table `id` in `connection`'s database (whose
// schema `<database>` must exist and which must have paimon_scan registered).
Status CreateAuditLogView(DuckConnection& connection, const TableIdentifier& id);

}  // namespace tide
