// SyncStatus: where a sync stands, read from the lake (and, given a connection, from its replication
// slot): `tide sync status`.
//
// Per table of the lake database: the source position committed by the sync on `slot` (its commit
// user's newest snapshot: `tide.source.commit-lsn` / the commit identifier, and whether the initial
// copy completed: `tide.source.copy-lsn`), the time of that commit, and the records of the table's
// latest snapshot (its total record count, from the snapshot file: no data file is read; for a
// primary-key table these are records before merging, so the rows once compacted, more before). With
// a connection: the slot's confirmed_flush_lsn, how many bytes of WAL the server has written past it,
// and, when it is behind, the seconds since the sync's newest commit.
//
// Reads only: it works with the sync stopped or running (a snapshot is immutable once written).
// Thread-safety: pure functions over the files and the connection given.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tide/base/result.h"
#include "tide/postgres/lsn.h"

namespace tide {

struct TableSyncStatus {
  std::string table;   // the lake table, db.table
  std::string source;  // the source table(s) it mirrors (tide.source.table), "" when unknown
  bool copied = false;                       // the initial copy of every source completed
  Lsn commit_lsn = kInvalidLsn;              // every source transaction committed at or below this is in
  std::optional<int64_t> sync_snapshot_id;   // the sync's newest snapshot
  std::optional<int64_t> last_commit_millis; // its commit time (Unix epoch milliseconds)
  std::optional<int64_t> latest_snapshot_id; // the table's newest snapshot, by any writer
  std::optional<int64_t> records;            // that snapshot's total record count
};

struct SlotSyncStatus {
  bool exists = false;
  bool active = false;
  std::optional<int> active_pid;
  std::string wal_status;
  Lsn confirmed_flush_lsn = kInvalidLsn;
  Lsn server_wal_lsn = kInvalidLsn;  // pg_current_wal_lsn()
  int64_t lag_bytes = 0;             // server_wal_lsn - confirmed_flush_lsn (0 when caught up)
  // 0 when caught up; else the seconds since the sync's newest commit; nullopt when it never committed.
  std::optional<double> lag_seconds;
};

struct SyncStatus {
  std::string database;
  std::string slot;
  std::string commit_user;
  std::vector<TableSyncStatus> tables;
  std::optional<SlotSyncStatus> slot_status;  // set when a connection was given
};

struct SyncStatusOptions {
  std::string warehouse;
  std::string database;
  std::string slot;      // the sync's slot (its commit user is tide-sync-<slot>)
  std::string conninfo;  // "" for the lake only
  int64_t now_millis = 0;  // the clock for lag_seconds (0: the system clock)
};

Result<SyncStatus> ReadSyncStatus(const SyncStatusOptions& options);

// The report `tide sync status` prints: a table of the tables, then the slot's line.
std::string FormatSyncStatus(const SyncStatus& status);

}  // namespace tide
