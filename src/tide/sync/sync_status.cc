#include "tide/sync/sync_status.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <ctime>

#include "tide/base/strings.h"
#include "tide/catalog/catalog.h"
#include "tide/postgres/pg_connection.h"
#include "tide/postgres/replication_slot.h"
#include "tide/sync/postgres_sync.h"
#include "tide/sync/table_sink.h"
#include "tide/table/snapshot/snapshot_manager.h"

namespace tide {
namespace {

// Whether the initial copy of every source of the table completed (TableSink::HasCopyOf for each).
bool CopyComplete(const SinkPosition& position) {
  std::vector<std::string> sources = SplitTrimmed(position.source_table, ',');
  if (sources.empty()) return false;
  if (position.source_copy_lsn.empty()) return sources.size() == 1 && position.copy_lsn != kInvalidLsn;
  return std::all_of(sources.begin(), sources.end(),
                     [&](const std::string& s) { return position.source_copy_lsn.count(s) > 0; });
}

Result<SlotSyncStatus> ReadSlot(const std::string& conninfo, const std::string& slot, std::optional<int64_t> newest_commit,
                                int64_t now_millis) {
  TIDE_ASSIGN_OR_RETURN(auto conn, PgConnection::Connect(conninfo));
  SlotSyncStatus out;
  TIDE_ASSIGN_OR_RETURN(PgResult wal, conn->Query("SELECT pg_catalog.pg_current_wal_lsn()"));
  TIDE_ASSIGN_OR_RETURN(out.server_wal_lsn, ParseLsn(wal.Value(0, 0)));
  TIDE_ASSIGN_OR_RETURN(auto info, FindReplicationSlot(*conn, slot));
  if (!info) return out;
  out.exists = true;
  out.active = info->active;
  out.active_pid = info->active_pid;
  out.wal_status = info->wal_status;
  out.confirmed_flush_lsn = info->confirmed_flush_lsn;
  out.lag_bytes = out.server_wal_lsn > out.confirmed_flush_lsn
                      ? static_cast<int64_t>(out.server_wal_lsn - out.confirmed_flush_lsn)
                      : 0;
  if (out.lag_bytes == 0) {
    out.lag_seconds = 0.0;
  } else if (newest_commit) {
    out.lag_seconds = std::max<double>(0.0, static_cast<double>(now_millis - *newest_commit) / 1000.0);
  }
  return out;
}

}  // namespace

Result<SyncStatus> ReadSyncStatus(const SyncStatusOptions& options) {
  FileSystem* fs = FileSystem::Local();
  TIDE_ASSIGN_OR_RETURN(auto catalog, Catalog::Open(fs, options.warehouse));
  SyncStatus status;
  status.database = options.database;
  status.slot = options.slot;
  status.commit_user = PostgresSync::CommitUser(options.slot);
  auto names = catalog->ListTables(options.database);
  if (!names.ok()) {
    return names.status().WithContext(fmt::format("lake database {} in {}", options.database, options.warehouse));
  }
  std::optional<int64_t> newest_commit;
  for (const std::string& name : *names) {
    TableIdentifier id{options.database, name};
    const std::string path = catalog->TablePath(id);
    TIDE_ASSIGN_OR_RETURN(SinkPosition position, ReadSinkPosition(fs, path, status.commit_user));
    TableSyncStatus t;
    t.table = id.ToString();
    t.source = position.source_table;
    t.copied = CopyComplete(position);
    t.commit_lsn = position.commit_lsn;
    t.sync_snapshot_id = position.snapshot_id;
    SnapshotManager snapshots(fs, path);
    if (position.snapshot_id) {
      auto snapshot = snapshots.Get(*position.snapshot_id);
      if (snapshot.ok()) {
        t.last_commit_millis = snapshot->time_millis;
        newest_commit = std::max(newest_commit.value_or(0), snapshot->time_millis);
      }
    }
    TIDE_ASSIGN_OR_RETURN(t.latest_snapshot_id, snapshots.LatestId());
    if (t.latest_snapshot_id) {
      auto latest = snapshots.Get(*t.latest_snapshot_id);
      if (latest.ok()) t.records = latest->total_record_count;
    }
    status.tables.push_back(std::move(t));
  }
  if (!options.conninfo.empty()) {
    const int64_t now = options.now_millis != 0
                            ? options.now_millis
                            : std::chrono::duration_cast<std::chrono::milliseconds>(
                                  std::chrono::system_clock::now().time_since_epoch())
                                  .count();
    TIDE_ASSIGN_OR_RETURN(status.slot_status, ReadSlot(options.conninfo, options.slot, newest_commit, now));
  }
  return status;
}

std::string FormatSyncStatus(const SyncStatus& status) {
  std::vector<std::vector<std::string>> rows = {
      {"table", "source", "copy", "position", "records", "snapshot", "last commit"}};
  for (const TableSyncStatus& t : status.tables) {
    rows.push_back({t.table, t.source.empty() ? "-" : t.source, t.copied ? "copied" : "not copied",
                    t.commit_lsn == kInvalidLsn ? "-" : FormatLsn(t.commit_lsn),
                    t.records ? std::to_string(*t.records) : "-",
                    t.latest_snapshot_id ? std::to_string(*t.latest_snapshot_id) : "-",
                    t.last_commit_millis ? FormatMillisUtc(*t.last_commit_millis) : "-"});
  }
  std::vector<size_t> widths(rows[0].size(), 0);
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line += std::string(widths[i] - row[i].size() + 2, ' ');
    }
    out += line + "\n";
  }
  if (status.tables.empty()) out += fmt::format("(no tables in lake database {})\n", status.database);
  if (status.slot_status) {
    const SlotSyncStatus& s = *status.slot_status;
    if (!s.exists) {
      out += fmt::format("slot {}: does not exist (no sync has started with it; server WAL at {})\n", status.slot,
                         FormatLsn(s.server_wal_lsn));
    } else {
      out += fmt::format(
          "slot {}: {}, confirmed_flush_lsn {}, server WAL at {}, lag {} bytes, {}{}\n", status.slot,
          s.active ? fmt::format("active (PID {})", s.active_pid.value_or(0)) : "not active",
          FormatLsn(s.confirmed_flush_lsn), FormatLsn(s.server_wal_lsn), s.lag_bytes,
          s.lag_seconds ? fmt::format("{:.1f} s", *s.lag_seconds) : "? s (no commit yet)",
          s.wal_status.empty() ? "" : ", wal_status " + s.wal_status);
    }
  }
  return out;
}

}  // namespace tide
