// PgOutputDecoder: turns the payload of one XLogData message into a PgOutputMessage (pgoutput protocol
// versions 1..4), keeping the small state the protocol needs between messages.
//
// State (and why):
// - whether the stream is inside a streamed-transaction block (between Stream Start 'S' and Stream Stop
//   'E') and that block's xid: inside a block PostgreSQL prefixes every data message (R, Y, I, U, D, T,
//   M) with an Int32 xid, outside it does not, and nothing else on the wire says which;
// - the relation cache (Relation messages): needed to mark the non-key columns of a 'K' old tuple as
//   kAbsent and to report schema changes. A change for a relation OID that has no Relation message yet
//   is Corruption (PostgreSQL always sends the Relation first in a session).
// Every read is bounds-checked. Malformed input (truncated, unknown type byte, bad tuple kind, trailing
// bytes, a Begin inside a stream block, ...) gives Status::Corruption naming the message and the byte
// offset; the decoder's state is then unspecified and the caller must Reset() (reconnect) before
// decoding more. Thread-safety: not thread-safe; one decoder per replication connection.
#pragma once

#include <cstdint>
#include <string_view>

#include "tide/base/result.h"
#include "tide/postgres/pg_relation_cache.h"
#include "tide/postgres/pgoutput_message.h"

namespace tide {

struct PgOutputDecoderOptions {
  // proto_version given to START_REPLICATION (1..4).
  int proto_version = 1;
  // streaming 'parallel' was requested (protocol 4): Stream Abort then carries abort LSN and time.
  bool streaming_parallel = false;
};

class PgOutputDecoder {
 public:
  explicit PgOutputDecoder(PgOutputDecoderOptions options = {});

  // Decodes one pgoutput message (the XLogData payload) and updates the stream-block state and the
  // relation cache. The returned message owns its bytes; `payload` may be freed afterwards.
  Result<PgOutputMessage> Decode(std::string_view payload);

  // True between a Stream Start and its Stream Stop.
  bool in_stream_block() const { return in_stream_block_; }
  // The xid of the current stream block; meaningful only when in_stream_block().
  PgXid stream_xid() const { return stream_xid_; }

  const PgRelationCache& relations() const { return relations_; }
  const PgOutputDecoderOptions& options() const { return options_; }

  // Forgets the stream-block state and every cached relation: call when the replication connection is
  // re-established (the server resends Relation messages in a new session).
  void Reset();

 private:
  PgOutputDecoderOptions options_;
  bool in_stream_block_ = false;
  PgXid stream_xid_ = 0;
  PgRelationCache relations_;
};

}  // namespace tide
