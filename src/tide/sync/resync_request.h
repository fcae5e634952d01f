// ResyncRequest: how `tide sync resync` asks a running sync to copy tables again.
//
// The request travels in the source's own WAL: a transactional pg_logical_emit_message with the prefix
// kResyncMessagePrefix and, as content, the sync's replication slot and the source tables. Every sync
// reading that database sees it in commit order; the one on that slot copies the tables again when its
// stream reaches the message, between two transactions. A request the sync read but did not act on
// before it stopped is read again after a restart (it lies past the acknowledged position); one it
// acted on is passed over because the copied tables hold it (their copy position lies above it).
// Thread-safety: plain functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tide/base/result.h"
#include "tide/postgres/lsn.h"
#include "tide/postgres/pg_connection.h"
#include "tide/postgres/publication.h"

namespace tide {

inline constexpr std::string_view kResyncMessagePrefix = "tide.resync";

struct ResyncRequest {
  std::string slot;                  // the replication slot of the sync asked
  std::vector<PgTableName> tables;   // the source tables to copy again
};

// The message content: "<slot>\n<schema.table>[,<schema.table>...]" (table names as PgTableName prints
// and ParsePgTableList reads them).
std::string EncodeResyncRequest(const ResyncRequest& request);
// InvalidArgument, naming the content, when it is not such a message.
Result<ResyncRequest> ParseResyncRequest(std::string_view content);

// Whether a sync runs on `slot`: it holds the slot's advisory lock (PostgresSync::LockKey). Takes the
// lock for an instant when it is free.
Result<bool> SyncRunsOnSlot(PgConnection& conn, const std::string& slot);
// Writes the request into the WAL (pg_logical_emit_message, transactional) and returns its LSN.
// NotSupported before PostgreSQL 14 (a sync reads messages from 14 on).
Result<Lsn> SendResyncRequest(PgConnection& conn, const ResyncRequest& request);

}  // namespace tide
