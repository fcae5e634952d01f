// The changes a PostgreSQL source hands to the sync: whole committed transactions, in commit order,
// as a sequence of events (ChangeStream::Next):
//
//   BeginTransaction, then the transaction's RowChange / SourceSchemaChange / TruncateTables / LogicalMessage
//   events in the order PostgreSQL made them, then CommitTransaction.
//
// Invariants: events of one transaction are contiguous and never interleave with another's; only
// committed work appears (streamed transactions that abort, and aborted subtransactions of committed
// ones, never do); commit LSNs strictly increase across transactions; no transaction appears twice,
// even across reconnects and server restarts. A large transaction is not held in memory as a whole:
// its events are produced one by one from memory and spill files.
//
// Row values are Tide Datums of each column's mapped type (pg_type_mapping.h), in the relation's column
// order. The values of columns that were not sent are NULL in the row and listed in `unchanged_columns`
// (new rows: unchanged TOASTed values, 'u') or `old_absent` (key-only old rows: non-identity columns) —
// they are "unknown", never a real NULL.
//
// Thread-safety: value types. SourceRelation is immutable and shared (shared_ptr to const), so events
// may be moved to other threads.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "tide/postgres/lsn.h"
#include "tide/postgres/pg_value_decoder.h"
#include "tide/postgres/pgoutput_message.h"
#include "tide/postgres/publication.h"
#include "tide/types/datum.h"

namespace tide {

// One version of a published table's description (from a pgoutput Relation message), with its Tide
// column types. A new version is made whenever PostgreSQL sends a different description.
struct SourceRelation {
  PgOid oid = 0;
  PgTableName table;  // as published: the root for partitioned tables (publish_via_partition_root)
  PgReplicaIdentity replica_identity = PgReplicaIdentity::kDefault;
  std::vector<PgRelationColumn> columns;  // PostgreSQL's view: names, type OIDs, typmods, key flags
  std::vector<DataField> fields;          // Tide's view: the same columns with their mapped types
  std::vector<int> key_columns;           // indexes of replica-identity columns
  uint32_t version = 0;                   // distinct per description within a ChangeStream
  std::shared_ptr<const PgRowDecoder> decoder;  // decodes tuples of this version

  int ColumnIndex(std::string_view name) const;
};
using SourceRelationPtr = std::shared_ptr<const SourceRelation>;

struct TransactionInfo {
  PgXid xid = 0;
  Lsn commit_lsn = kInvalidLsn;  // the commit record's LSN: the transaction's position
  Lsn end_lsn = kInvalidLsn;     // end of the commit record: acknowledge this once durable
  int64_t commit_time_micros = 0;  // Unix epoch microseconds (UTC)
  std::optional<std::string> origin;  // replication origin name, when the transaction came from one
  bool streamed = false;  // arrived as a streamed in-progress transaction (Stream Start ... Stream Commit)
};

struct BeginTransaction {
  TransactionInfo txn;
};

struct CommitTransaction {
  TransactionInfo txn;
  uint64_t change_count = 0;  // RowChange events in the transaction
};

enum class ChangeKind : uint8_t { kInsert, kUpdate, kDelete };

struct RowChange {
  SourceRelationPtr relation;
  ChangeKind kind = ChangeKind::kInsert;
  Row new_row;                              // kInsert, kUpdate
  std::vector<int> unchanged_columns;       // kUpdate: columns not sent (unchanged TOAST); NULL in new_row
  PgOldTupleKind old_kind = PgOldTupleKind::kNone;  // kUpdate: kNone/kKey/kFull; kDelete: kKey/kFull
  Row old_row;                              // when old_kind != kNone
  std::vector<int> old_absent;              // old_kind == kKey: non-identity columns (NULL in old_row)
};

// A table's description changed (or is seen for the first time in this session: previous == nullptr).
// Changes after this event use `current`.
struct SourceSchemaChange {
  SourceRelationPtr previous;
  SourceRelationPtr current;
};

struct TruncateTables {
  std::vector<SourceRelationPtr> relations;
  bool cascade = false;
  bool restart_identity = false;
};

// pg_logical_emit_message output (messages 'true'). A transactional message appears inside its
// transaction; a non-transactional one is sent by PostgreSQL at once, outside any transaction, and
// appears as a lone event between transactions (it may repeat after a reconnect).
struct LogicalMessage {
  bool transactional = false;
  Lsn lsn = kInvalidLsn;
  std::string prefix;
  std::string content;
};

using ChangeEvent =
    std::variant<BeginTransaction, RowChange, SourceSchemaChange, TruncateTables, LogicalMessage, CommitTransaction>;

}  // namespace tide
