// Logical replication slots (pgoutput): creation with an exported snapshot, lookup, checks that say
// what to do, and dropping.
//
// The exported snapshot. CreateReplicationSlot(kExport) returns `snapshot_name`; other sessions copy
// the tables as of the slot's consistent point by running
//   BEGIN ISOLATION LEVEL REPEATABLE READ; SET TRANSACTION SNAPSHOT '<snapshot_name>';
// The snapshot stays importable only while the replication connection that created the slot stays
// idle in that state: the next command on it (START_REPLICATION included) or its disconnect ends the
// export. So: create the slot, let every copy worker import the snapshot (SnapshotCopy does this before
// it copies anything), then start streaming on that connection or close it. Sessions that already
// imported it keep it for the rest of their transaction.
//
// A temporary slot lives exactly as long as the connection that created it: stream on that same
// connection (ReplicationStream::Adopt); it cannot survive a reconnect.
//
// Thread-safety: free functions over a connection the caller uses from one thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "tide/base/result.h"
#include "tide/postgres/lsn.h"
#include "tide/postgres/pg_connection.h"

namespace tide {

enum class SlotSnapshotAction {
  kExport,   // EXPORT_SNAPSHOT: other sessions may import the snapshot (initial copy)
  kNothing,  // NOEXPORT_SNAPSHOT: stream only
};

struct CreateSlotOptions {
  bool temporary = false;
  SlotSnapshotAction snapshot = SlotSnapshotAction::kExport;
};

struct CreatedSlot {
  std::string name;
  Lsn consistent_point = kInvalidLsn;  // changes committed after this are streamed; before it, copied
  std::string snapshot_name;           // empty unless kExport
};

// One row of pg_replication_slots.
struct ReplicationSlotInfo {
  std::string name;
  std::string plugin;     // "pgoutput" for slots Tide can read
  std::string slot_type;  // "logical" or "physical"
  std::string database;
  bool temporary = false;
  bool active = false;
  std::optional<int> active_pid;
  Lsn restart_lsn = kInvalidLsn;
  Lsn confirmed_flush_lsn = kInvalidLsn;
  std::string wal_status;  // reserved, extended, unreserved, lost ("" on servers before 13)
};

// Slot names: 1..63 characters of a-z, 0-9 and _ (PostgreSQL's rule).
Status ValidateSlotName(std::string_view name);

// Checks that the server can serve logical replication to the session's user: wal_level=logical and
// the REPLICATION attribute (or superuser). Errors say what to change.
Status CheckLogicalReplicationReady(PgConnection& conn);

// CREATE_REPLICATION_SLOT name [TEMPORARY] LOGICAL pgoutput (EXPORT|NOEXPORT)_SNAPSHOT on a
// replication session. AlreadyExists when a slot of that name exists (reuse it with FindReplicationSlot
// and CheckSlotUsable instead).
Result<CreatedSlot> CreateReplicationSlot(PgConnection& replication_conn, std::string_view name,
                                          const CreateSlotOptions& options);

// The slot's row in pg_replication_slots, or nullopt when it does not exist.
Result<std::optional<ReplicationSlotInfo>> FindReplicationSlot(PgConnection& conn, std::string_view name);

// Whether Tide can stream from `slot` now: a logical pgoutput slot of `database`, not invalidated
// (wal_status 'lost': its WAL is gone, a new slot and a fresh copy are needed), not held by another
// walsender (active for PID n: stop that consumer or pg_terminate_backend(n)).
Status CheckSlotUsable(const ReplicationSlotInfo& slot, std::string_view database);

// Drops the slot (SQL pg_drop_replication_slot, usable on either session kind). NotFound when absent;
// Conflict when active.
Status DropReplicationSlot(PgConnection& conn, std::string_view name);

// Ends the walsender holding `name` (pg_terminate_backend(active_pid)), waiting up to `timeout_ms` for
// it to exit. Returns whether one was ended.
Result<bool> TerminateSlotHolder(PgConnection& conn, std::string_view name, int timeout_ms = 5000);

}  // namespace tide
