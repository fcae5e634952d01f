// The streaming-replication CopyData envelope around pgoutput messages (PostgreSQL "Streaming
// Replication Protocol"): what the server sends inside COPY BOTH mode, and the status update the client
// sends back.
//
// Server → client: XLogData ('w': WAL start, WAL end, send time, one pgoutput message as payload) and
// Primary keepalive ('k': WAL end, send time, reply-requested flag). Client → server: Standby status
// update ('r': written, flushed, applied LSN, client time, reply-requested flag). All integers are
// big-endian. Decoding is bounds-checked: malformed input gives Corruption naming the message kind and
// byte offset. Thread-safety: pure functions and value types.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include "tide/base/result.h"
#include "tide/postgres/lsn.h"
#include "tide/postgres/pg_epoch.h"

namespace tide {

// 'w'. `payload` points into the buffer given to DecodeReplicationCopyData (for a libpq stream, the
// PQgetCopyData buffer): it is valid only as long as that buffer is.
struct PgXLogData {
  Lsn wal_start = 0;              // WAL position of the start of this message's data
  Lsn wal_end = 0;                // current end of WAL on the server
  PgTimestampMicros send_time = 0;  // server clock when sent
  std::string_view payload;         // exactly one pgoutput message
};

// 'k'. When `reply_requested` is set the client must send a status update at once, or the server
// disconnects it after wal_sender_timeout.
struct PgPrimaryKeepalive {
  Lsn wal_end = 0;
  PgTimestampMicros send_time = 0;
  bool reply_requested = false;
};

using PgReplicationCopyMessage = std::variant<PgXLogData, PgPrimaryKeepalive>;

// Decodes one CopyData payload from the server. An unknown leading byte is Corruption (the caller
// should drop the connection; the stream is not one Tide understands).
Result<PgReplicationCopyMessage> DecodeReplicationCopyData(std::string_view data);

// 'r'. For a logical slot, `flush_lsn` is what advances the slot's confirmed_flush_lsn: it must never
// pass what is durably committed downstream.
struct PgStandbyStatusUpdate {
  Lsn write_lsn = 0;  // last WAL byte + 1 received
  Lsn flush_lsn = 0;  // last WAL byte + 1 durably processed
  Lsn apply_lsn = 0;  // last WAL byte + 1 applied
  PgTimestampMicros client_time = 0;
  bool reply_requested = false;  // ask the server to answer with a keepalive at once
};

// The 34-byte CopyData payload for PQputCopyData.
std::string EncodeStandbyStatusUpdate(const PgStandbyStatusUpdate& update);

}  // namespace tide
