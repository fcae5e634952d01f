#include "tide/postgres/replication_envelope.h"

#include "tide/base/bytes.h"

namespace tide {

Result<PgReplicationCopyMessage> DecodeReplicationCopyData(std::string_view data) {
  if (data.empty()) {
    return Status::Corruption("replication CopyData: empty message at offset 0");
  }
  const char tag = data[0];
  if (tag == 'w') {
    ByteReader r(data.substr(1), "replication XLogData ('w') after its type byte");
    PgXLogData m;
    TIDE_ASSIGN_OR_RETURN(m.wal_start, r.ReadBE<uint64_t>());
    TIDE_ASSIGN_OR_RETURN(m.wal_end, r.ReadBE<uint64_t>());
    TIDE_ASSIGN_OR_RETURN(m.send_time, r.ReadBE<int64_t>());
    m.payload = data.substr(1 + r.position());
    return PgReplicationCopyMessage(m);
  }
  if (tag == 'k') {
    ByteReader r(data.substr(1), "replication Primary keepalive ('k') after its type byte");
    PgPrimaryKeepalive m;
    TIDE_ASSIGN_OR_RETURN(m.wal_end, r.ReadBE<uint64_t>());
    TIDE_ASSIGN_OR_RETURN(m.send_time, r.ReadBE<int64_t>());
    TIDE_ASSIGN_OR_RETURN(uint8_t reply, r.ReadBE<uint8_t>());
    if (!r.AtEnd()) {
      return Status::Corruption("replication Primary keepalive ('k'): {} unexpected trailing bytes at offset {}",
                                r.remaining(), 1 + r.position());
    }
    m.reply_requested = reply != 0;
    return PgReplicationCopyMessage(m);
  }
  return Status::Corruption(
      "replication CopyData: unknown message type byte 0x{:02x} at offset 0 (expected 'w' XLogData or 'k' "
      "keepalive); the server speaks a protocol Tide does not understand",
      static_cast<unsigned>(static_cast<unsigned char>(tag)));
}

std::string EncodeStandbyStatusUpdate(const PgStandbyStatusUpdate& update) {
  std::string out;
  out.reserve(34);
  out.push_back('r');
  AppendBE<uint64_t>(&out, update.write_lsn);
  AppendBE<uint64_t>(&out, update.flush_lsn);
  AppendBE<uint64_t>(&out, update.apply_lsn);
  AppendBE<int64_t>(&out, update.client_time);
  out.push_back(update.reply_requested ? 1 : 0);
  return out;
}

}  // namespace tide
