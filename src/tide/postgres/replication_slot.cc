#include "tide/postgres/replication_slot.h"

#include "tide/base/strings.h"
#include "tide/postgres/sql_quote.h"

namespace tide {
namespace {

Result<Lsn> ParseOptionalLsn(const PgResult& r, int row, const char* column) {
  auto v = r.Get(row, column);
  if (!v) return kInvalidLsn;
  return ParseLsn(*v);
}

}  // namespace

Status ValidateSlotName(std::string_view name) {
  if (name.empty() || name.size() > 63) {
    return Status::InvalidArgument("replication slot name '{}' must have 1 to 63 characters", name);
  }
  for (char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) {
      return Status::InvalidArgument(
          "replication slot name '{}' may hold only lower-case letters, digits and underscores", name);
    }
  }
  return Status::OK();
}

Status CheckLogicalReplicationReady(PgConnection& conn) {
  TIDE_ASSIGN_OR_RETURN(PgResult wal, conn.Query("SHOW wal_level"));
  std::string level = wal.rows() ? std::string(wal.Value(0, 0)) : "";
  if (level != "logical") {
    return Status::InvalidArgument(
        "PostgreSQL ({}) runs with wal_level={}: logical replication needs wal_level=logical; run ALTER SYSTEM "
        "SET wal_level = logical and restart the server",
        conn.redacted_conninfo(), level);
  }
  if (conn.kind() == PgSessionKind::kSql) {
    TIDE_ASSIGN_OR_RETURN(PgResult role, conn.Query("SELECT current_user, rolreplication OR rolsuper FROM pg_roles "
                                                   "WHERE rolname = current_user"));
    if (role.rows() == 1 && role.Value(0, 1) != "t") {
      return Status::InvalidArgument(
          "role {} lacks the REPLICATION attribute needed to stream changes: run ALTER ROLE {} WITH REPLICATION "
          "as a superuser, or connect as a role that has it",
          role.Value(0, 0), conn.QuoteIdentifier(role.Value(0, 0)));
    }
  }
  return Status::OK();
}

Result<CreatedSlot> CreateReplicationSlot(PgConnection& replication_conn, std::string_view name,
                                          const CreateSlotOptions& options) {
  TIDE_RETURN_IF_ERROR(ValidateSlotName(name));
  if (replication_conn.kind() != PgSessionKind::kReplication) {
    return Status::InvalidArgument("creating slot {} needs a replication=database session", name);
  }
  std::string sql = fmt::format("CREATE_REPLICATION_SLOT {}{} LOGICAL pgoutput {}", name,
                                options.temporary ? " TEMPORARY" : "",
                                options.snapshot == SlotSnapshotAction::kExport ? "EXPORT_SNAPSHOT" : "NOEXPORT_SNAPSHOT");
  auto result = replication_conn.Query(sql);
  if (!result.ok()) {
    const std::string& state = replication_conn.last_sqlstate();
    if (state == "42710") {
      return Status::AlreadyExists(
          "replication slot {} already exists: reuse it (its position is kept), or drop it first with SELECT "
          "pg_drop_replication_slot('{}') to start over",
          name, name);
    }
    if (state == "53400") {
      return Status::Unavailable(
          "cannot create replication slot {}: all max_replication_slots are in use; drop unused slots (see "
          "pg_replication_slots) or raise max_replication_slots and restart: {}",
          name, result.status().message());
    }
    if (result.status().message().find("wal_level") != std::string::npos) {
      return Status::InvalidArgument(
          "cannot create replication slot {}: logical decoding needs wal_level=logical; run ALTER SYSTEM SET "
          "wal_level = logical and restart the server ({})",
          name, result.status().message());
    }
    return result.status().WithContext(fmt::format("creating replication slot {}", name));
  }
  CreatedSlot slot;
  slot.name = std::string(name);
  auto point = result->Get(0, "consistent_point");
  if (!point) return Status::Corruption("CREATE_REPLICATION_SLOT {} returned no consistent_point", name);
  TIDE_ASSIGN_OR_RETURN(slot.consistent_point, ParseLsn(*point));
  slot.snapshot_name = result->Get(0, "snapshot_name").value_or("");
  if (options.snapshot == SlotSnapshotAction::kExport && slot.snapshot_name.empty()) {
    return Status::Internal("CREATE_REPLICATION_SLOT {} did not export a snapshot", name);
  }
  return slot;
}

Result<std::optional<ReplicationSlotInfo>> FindReplicationSlot(PgConnection& conn, std::string_view name) {
  bool has_wal_status = conn.server_version() >= 130000;
  TIDE_ASSIGN_OR_RETURN(
      PgResult r, conn.Query(fmt::format("SELECT slot_name, coalesce(plugin, '') AS plugin, slot_type, "
                                         "coalesce(database::text, '') AS database, temporary, active, active_pid, "
                                         "restart_lsn, confirmed_flush_lsn, {} AS wal_status "
                                         "FROM pg_replication_slots WHERE slot_name = {}",
                                         has_wal_status ? "coalesce(wal_status, '')" : "''", SqlQuoteLiteral(name))));
  if (r.rows() == 0) return std::optional<ReplicationSlotInfo>();
  ReplicationSlotInfo info;
  info.name = *r.Get(0, "slot_name");
  info.plugin = r.Get(0, "plugin").value_or("");
  info.slot_type = r.Get(0, "slot_type").value_or("");
  info.database = r.Get(0, "database").value_or("");
  info.temporary = r.Get(0, "temporary") == "t";
  info.active = r.Get(0, "active") == "t";
  if (auto pid = r.Get(0, "active_pid")) info.active_pid = std::atoi(pid->c_str());
  TIDE_ASSIGN_OR_RETURN(info.restart_lsn, ParseOptionalLsn(r, 0, "restart_lsn"));
  TIDE_ASSIGN_OR_RETURN(info.confirmed_flush_lsn, ParseOptionalLsn(r, 0, "confirmed_flush_lsn"));
  info.wal_status = r.Get(0, "wal_status").value_or("");
  return std::optional<ReplicationSlotInfo>(std::move(info));
}

Status CheckSlotUsable(const ReplicationSlotInfo& slot, std::string_view database) {
  if (slot.slot_type != "logical") {
    return Status::InvalidArgument("replication slot {} is a {} slot: Tide needs a logical pgoutput slot; name "
                                   "another slot",
                                   slot.name, slot.slot_type);
  }
  if (slot.plugin != "pgoutput") {
    return Status::InvalidArgument("replication slot {} uses the output plugin {}: Tide reads pgoutput; name "
                                   "another slot or drop and recreate this one",
                                   slot.name, slot.plugin);
  }
  if (!database.empty() && slot.database != database) {
    return Status::InvalidArgument("replication slot {} belongs to database {}, not {}: connect to {} or name "
                                   "another slot",
                                   slot.name, slot.database, database, slot.database);
  }
  if (slot.wal_status == "lost") {
    return Status::InvalidArgument(
        "replication slot {} was invalidated (wal_status = lost): PostgreSQL removed WAL it still needed, "
        "so changes since its position are gone; drop it (SELECT pg_drop_replication_slot('{}')) and start "
        "again with a new slot and a fresh initial copy",
        slot.name, slot.name);
  }
  if (slot.active) {
    std::string pid = slot.active_pid ? std::to_string(*slot.active_pid) : "?";
    return Status::Conflict(
        "replication slot {} is active for PID {}: another consumer is streaming from it; stop that consumer, "
        "or end it with SELECT pg_terminate_backend({}) if it is a stale connection",
        slot.name, pid, pid);
  }
  return Status::OK();
}

Status DropReplicationSlot(PgConnection& conn, std::string_view name) {
  auto r = conn.Query("SELECT pg_drop_replication_slot(" + SqlQuoteLiteral(name) + ")");
  if (r.ok()) return Status::OK();
  if (conn.last_sqlstate() == "42704") return Status::NotFound("replication slot {} does not exist", name);
  if (conn.last_sqlstate() == "55006") {
    return Status::Conflict("replication slot {} is in use by a walsender and cannot be dropped: {}", name,
                            r.status().message());
  }
  return r.status();
}

Result<bool> TerminateSlotHolder(PgConnection& conn, std::string_view name, int timeout_ms) {
  TIDE_ASSIGN_OR_RETURN(
      PgResult r, conn.Query(fmt::format("SELECT pg_terminate_backend(active_pid, {}) FROM pg_replication_slots "
                                         "WHERE slot_name = {} AND active_pid IS NOT NULL",
                                         timeout_ms, SqlQuoteLiteral(name))));
  return r.rows() > 0 && r.Value(0, 0) == "t";
}

}  // namespace tide
