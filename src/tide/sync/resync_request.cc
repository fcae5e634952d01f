#include "tide/sync/resync_request.h"

#include "tide/base/strings.h"
#include "tide/sync/postgres_sync.h"

namespace tide {

std::string EncodeResyncRequest(const ResyncRequest& request) {
  std::vector<std::string> names;
  for (const PgTableName& t : request.tables) names.push_back(t.ToString());
  return request.slot + "\n" + Join(names, ",");
}

Result<ResyncRequest> ParseResyncRequest(std::string_view content) {
  const size_t newline = content.find('\n');
  if (newline == std::string_view::npos || newline == 0 || newline + 1 == content.size()) {
    return Status::InvalidArgument("'{}' is not a resync request: expected '<slot>\\n<tables>'", content);
  }
  ResyncRequest request;
  request.slot = std::string(content.substr(0, newline));
  TIDE_ASSIGN_OR_RETURN(request.tables, ParsePgTableList(content.substr(newline + 1)));
  return request;
}

Result<bool> SyncRunsOnSlot(PgConnection& conn, const std::string& slot) {
  TIDE_ASSIGN_OR_RETURN(bool locked, PostgresSync::TryLockSlot(conn, slot));
  if (!locked) return true;
  TIDE_RETURN_IF_ERROR(
      conn.Query("SELECT pg_advisory_unlock(hashtext(" + conn.QuoteLiteral(PostgresSync::LockKey(slot)) + "))").status());
  return false;
}

Result<Lsn> SendResyncRequest(PgConnection& conn, const ResyncRequest& request) {
  if (conn.server_version() < 140000) {
    return Status::NotSupported(
        "a tide sync runs on replication slot {}, and PostgreSQL {} cannot carry a resync request to it (that "
        "needs PostgreSQL 14 or later): stop the sync, then run tide sync resync again",
        request.slot, conn.server_version());
  }
  TIDE_ASSIGN_OR_RETURN(PgResult r, conn.Query(fmt::format("SELECT pg_logical_emit_message(true, {}, {})::text",
                                                            conn.QuoteLiteral(std::string(kResyncMessagePrefix)),
                                                            conn.QuoteLiteral(EncodeResyncRequest(request)))));
  if (r.rows() != 1) return Status::Internal("pg_logical_emit_message returned {} rows", r.rows());
  return ParseLsn(r.Value(0, 0));
}

}  // namespace tide
