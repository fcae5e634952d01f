// The decoded pgoutput logical-replication messages (PostgreSQL "Logical Replication Message Formats",
// protocol versions 1..4), as plain value types. PgOutputDecoder produces them; the replication stream
// and transaction assembly consume them.
//
// Invariants:
// - Every field holds exactly what the wire carried; nothing is interpreted beyond the layout (column
//   values stay raw text or binary bytes; PgValueDecoder turns them into typed values).
// - `stream_xid` is set exactly when the message arrived inside a streamed-transaction block (between
//   Stream Start and Stream Stop, protocol ≥ 2), where PostgreSQL prefixes data messages with an xid.
//   That xid is the (sub)transaction that made the change: a subtransaction's own xid, not necessarily
//   the top-level xid of the Stream Start — which is what a Stream Abort of a subtransaction refers to.
// - In an old tuple of kind kKey, columns that are not part of the replica identity are kAbsent, never
//   kNull: the server does not send them, it does not say they are NULL.
// - kUnchangedToast means "the value did not change and was not sent" and must never be read as NULL.
// Thread-safety: value types; no shared state.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "tide/postgres/lsn.h"
#include "tide/postgres/pg_epoch.h"

namespace tide {

// Transaction ids are 32-bit on the wire.
using PgXid = uint32_t;
using PgOid = uint32_t;

// ---- Tuple data -----------------------------------------------------------------------------------

enum class PgTupleValueKind : uint8_t {
  kNull,            // 'n' — SQL NULL (in a kKey old tuple only for key columns)
  kUnchangedToast,  // 'u' — TOASTed value unchanged by this UPDATE and not sent; keep the old value
  kText,            // 't' — `bytes` holds the type's text output
  kBinary,          // 'b' — `bytes` holds the type's binary send format (binary 'true')
  kAbsent,          // not part of a kKey old tuple (the wire carried 'n' for a non-key column)
};

std::string_view PgTupleValueKindName(PgTupleValueKind kind);

struct PgTupleValue {
  PgTupleValueKind kind = PgTupleValueKind::kNull;
  std::string bytes;  // only for kText and kBinary

  bool operator==(const PgTupleValue&) const = default;
};

// One row image. values[i] belongs to the i-th column of the relation's Relation message.
struct PgTuple {
  std::vector<PgTupleValue> values;

  bool operator==(const PgTuple&) const = default;
};

// Which old row image an UPDATE or DELETE carries.
enum class PgOldTupleKind : uint8_t {
  kNone,  // UPDATE without old image (no key column changed under REPLICA IDENTITY DEFAULT/INDEX)
  kKey,   // 'K' — only the replica-identity columns; the others are kAbsent
  kFull,  // 'O' — the whole old row (REPLICA IDENTITY FULL)
};

// ---- Relation and type descriptions ----------------------------------------------------------------

// pg_class.relreplident, as sent in the Relation message.
enum class PgReplicaIdentity : char {
  kDefault = 'd',  // primary key
  kNothing = 'n',
  kFull = 'f',
  kIndex = 'i',  // a chosen unique index
};

struct PgRelationColumn {
  bool is_key = false;  // flag bit 1: part of the replica identity
  std::string name;
  PgOid type_oid = 0;
  int32_t type_modifier = -1;  // atttypmod; -1 when the type has none

  bool operator==(const PgRelationColumn&) const = default;
};

// ---- Messages ---------------------------------------------------------------------------------------

// 'B'
struct PgBegin {
  Lsn final_lsn = 0;  // LSN of the commit record: the transaction's position in the stream
  PgTimestampMicros commit_time = 0;
  PgXid xid = 0;
};

// 'C'
struct PgCommit {
  uint8_t flags = 0;  // unused (0)
  Lsn commit_lsn = 0;
  Lsn end_lsn = 0;  // end of the commit record: the position to confirm once applied
  PgTimestampMicros commit_time = 0;
};

// 'O' — the transaction came from another node (replication origin).
struct PgOrigin {
  Lsn origin_commit_lsn = 0;
  std::string name;
};

// How a Relation message differs from the description cached for the same OID before it.
struct PgSchemaChange {
  std::string old_namespace_name;
  std::string old_name;
  PgReplicaIdentity old_replica_identity = PgReplicaIdentity::kDefault;
  std::vector<PgRelationColumn> old_columns;
  std::vector<PgRelationColumn> new_columns;  // same as the message's columns
};

// 'R'. `schema_change` is filled by the decoder (from its relation cache) when a relation it had
// already seen arrives with a different namespace, name, replica identity or column list. A Relation
// message that repeats the cached description (PostgreSQL resends them after any cache invalidation)
// has no schema_change.
struct PgRelation {
  std::optional<PgXid> stream_xid;
  PgOid oid = 0;
  std::string namespace_name;  // "" means pg_catalog
  std::string name;
  PgReplicaIdentity replica_identity = PgReplicaIdentity::kDefault;
  std::vector<PgRelationColumn> columns;
  std::optional<PgSchemaChange> schema_change;
};

// 'Y' — sent for a non-built-in column type before the Relation that uses it. For a domain PostgreSQL
// sends the domain's OID with its *base type's* namespace and name.
struct PgTypeMessage {
  std::optional<PgXid> stream_xid;
  PgOid oid = 0;
  std::string namespace_name;  // "" means pg_catalog
  std::string name;
};

// 'I'
struct PgInsert {
  std::optional<PgXid> stream_xid;
  PgOid relation_oid = 0;
  PgTuple new_tuple;
};

// 'U'
struct PgUpdate {
  std::optional<PgXid> stream_xid;
  PgOid relation_oid = 0;
  PgOldTupleKind old_kind = PgOldTupleKind::kNone;
  PgTuple old_tuple;  // empty when old_kind == kNone
  PgTuple new_tuple;
};

// 'D'
struct PgDelete {
  std::optional<PgXid> stream_xid;
  PgOid relation_oid = 0;
  PgOldTupleKind old_kind = PgOldTupleKind::kKey;  // kKey or kFull, never kNone
  PgTuple old_tuple;
};

// 'T'
struct PgTruncate {
  std::optional<PgXid> stream_xid;
  bool cascade = false;           // option bit 1
  bool restart_identity = false;  // option bit 2
  std::vector<PgOid> relation_oids;
};

// 'M' — pg_logical_emit_message output (only with messages 'true').
struct PgLogicalMessage {
  std::optional<PgXid> stream_xid;
  bool transactional = false;
  Lsn lsn = 0;
  std::string prefix;
  std::string content;  // arbitrary bytes
};

// 'S' (protocol ≥ 2)
struct PgStreamStart {
  PgXid xid = 0;
  bool first_segment = false;
};

// 'E'
struct PgStreamStop {};

// 'c'
struct PgStreamCommit {
  PgXid xid = 0;
  uint8_t flags = 0;
  Lsn commit_lsn = 0;
  Lsn end_lsn = 0;
  PgTimestampMicros commit_time = 0;
};

// 'A'. When subtransaction_xid == xid the whole transaction aborted, else only that subtransaction.
// abort_lsn / abort_time are present only with protocol 4 and streaming 'parallel'.
struct PgStreamAbort {
  PgXid xid = 0;
  PgXid subtransaction_xid = 0;
  std::optional<Lsn> abort_lsn;
  std::optional<PgTimestampMicros> abort_time;
};

// Two-phase commit (protocol ≥ 3, two_phase 'on'). Decoded so that the consumer can refuse them by name.
// 'b'
struct PgBeginPrepare {
  Lsn prepare_lsn = 0;
  Lsn end_lsn = 0;
  PgTimestampMicros prepare_time = 0;
  PgXid xid = 0;
  std::string gid;
};
// 'P'
struct PgPrepare {
  uint8_t flags = 0;
  Lsn prepare_lsn = 0;
  Lsn end_lsn = 0;
  PgTimestampMicros prepare_time = 0;
  PgXid xid = 0;
  std::string gid;
};
// 'K'
struct PgCommitPrepared {
  uint8_t flags = 0;
  Lsn commit_lsn = 0;
  Lsn end_lsn = 0;
  PgTimestampMicros commit_time = 0;
  PgXid xid = 0;
  std::string gid;
};
// 'r'
struct PgRollbackPrepared {
  uint8_t flags = 0;
  Lsn prepare_end_lsn = 0;
  Lsn rollback_end_lsn = 0;
  PgTimestampMicros prepare_time = 0;
  PgTimestampMicros rollback_time = 0;
  PgXid xid = 0;
  std::string gid;
};
// 'p'
struct PgStreamPrepare {
  uint8_t flags = 0;
  Lsn prepare_lsn = 0;
  Lsn end_lsn = 0;
  PgTimestampMicros prepare_time = 0;
  PgXid xid = 0;
  std::string gid;
};

using PgOutputMessage =
    std::variant<PgBegin, PgCommit, PgOrigin, PgRelation, PgTypeMessage, PgInsert, PgUpdate, PgDelete,
                 PgTruncate, PgLogicalMessage, PgStreamStart, PgStreamStop, PgStreamCommit, PgStreamAbort,
                 PgBeginPrepare, PgPrepare, PgCommitPrepared, PgRollbackPrepared, PgStreamPrepare>;

// "Begin", "Insert", "Stream Abort", ... — the documentation's name of the message, for logs and errors.
std::string_view PgOutputMessageName(const PgOutputMessage& message);

// The message's type byte ('B', 'I', ...).
char PgOutputMessageTag(const PgOutputMessage& message);

// True for the two-phase-commit messages (b, P, K, r, p).
bool IsTwoPhaseMessage(const PgOutputMessage& message);

}  // namespace tide
