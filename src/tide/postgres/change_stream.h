// ChangeStream: the PostgreSQL change source the sync reads — a ReplicationStream, the pgoutput
// decoder, the type registry and a TransactionAssembler put together to yield ChangeEvents (change.h):
// whole committed transactions, in commit order, with typed rows.
//
// No repeats: after a reconnect PostgreSQL resends every transaction that commits after the
// acknowledged position; those whose commit LSN is at or below the last one this stream delivered (or
// `skip_through_commit_lsn`) are dropped. No gap: nothing is acknowledged to PostgreSQL beyond what the
// caller passed to Acknowledge() (see ReplicationStream for the idle-keepalive rule; the stream tells
// it what is in flight).
//
// Unknown column types (enums, domains, extension types) are looked up in pg_type over a separate
// regular SQL session, opened on first need.
//
// Value format: binary 'true' is asked for (when the options allow it and the server has it) only if
// every column of every published table has a type whose binary format Tide decodes; types that fall
// back to STRING (point, ranges, tsvector, extension types, ...) can be read only as text, so a
// publication holding one streams in text mode. Should such a column appear later (a table added to
// the publication, a column added), the stream restarts in text mode from the acknowledged position
// when its Relation message arrives, before any of its values are decoded (a stream on a temporary
// slot cannot restart: Next() then fails with NotSupported saying so).
//
// Relation descriptions follow the transactions that carry them: a description that arrives inside an
// ordinary transaction becomes the current one at its Commit (a reconnect before the Commit forgets it,
// and the resent transaction raises its schema change again); inside a streamed transaction, at its
// Stream Commit. A description's marker (SourceSchemaChange) belongs to the top transaction, so a
// rolled-back savepoint does not take it along (pgoutput does not send the description again).
//
// Thread-safety: one thread calls everything except RequestStop() (any thread).
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "tide/base/result.h"
#include "tide/postgres/change.h"
#include "tide/postgres/pg_connection.h"
#include "tide/postgres/pg_type.h"
#include "tide/postgres/pgoutput_decoder.h"
#include "tide/postgres/replication_stream.h"
#include "tide/postgres/transaction_assembler.h"

namespace tide {

struct ChangeStreamOptions {
  ReplicationStreamOptions replication;
  TransactionAssemblerOptions assembler;
  // Transactions with a commit LSN at or below this were consumed before (e.g. by the previous run):
  // they are dropped if the server sends them again.
  Lsn skip_through_commit_lsn = kInvalidLsn;
  PgTypeMappingOptions type_mapping;
};

struct ChangeStreamStats {
  uint64_t transactions = 0;          // delivered (Begin..Commit emitted)
  uint64_t changes = 0;               // RowChange events delivered
  uint64_t skipped_transactions = 0;  // resent after a reconnect and dropped
  uint64_t reconnects = 0;            // connections lost and made again
  uint64_t messages = 0;              // pgoutput messages decoded
  uint64_t bytes = 0;                 // pgoutput payload bytes
};

class ChangeStream {
 public:
  static Result<std::unique_ptr<ChangeStream>> Start(ChangeStreamOptions options);
  // Streams on the caller's replication connection (a temporary slot created on it); cannot reconnect.
  static Result<std::unique_ptr<ChangeStream>> Adopt(std::unique_ptr<PgConnection> conn, ChangeStreamOptions options);
  // A stream without a server, fed pgoutput message payloads by Feed() (tests of the protocol's edge
  // cases). Next() returns what the fed messages completed, nullopt when nothing is ready. Column types
  // must be built-in ones (there is no catalog to look others up in); replication() must not be called.
  static std::unique_ptr<ChangeStream> ForMessages(ChangeStreamOptions options, int proto_version);
  // Handles one pgoutput message payload, as if it came from the server (Internal while events are
  // ready: take them with Next() first, as the server loop does).
  Status Feed(std::string_view payload);
  // The connection was lost and made again: what was partly received is forgotten (the server resends
  // it from the acknowledged position).
  void OnReconnected();
  ~ChangeStream();

  // The next event, waiting up to `timeout` for the server (nullopt when nothing completed in time).
  // After an error every call returns that error.
  Result<std::optional<ChangeEvent>> Next(std::chrono::milliseconds timeout);

  // Everything up to `end_lsn` (a delivered transaction's end LSN) is durable downstream.
  void Acknowledge(Lsn end_lsn);
  // Sends a status update now (e.g. right after an Acknowledge at shutdown).
  Status Flush() { return replication_ ? replication_->SendStatus(false) : Status::OK(); }
  void RequestStop() {
    if (replication_) replication_->RequestStop();
  }
  Status Close() { return replication_ ? replication_->Close() : Status::OK(); }

  ReplicationStream& replication() { return *replication_; }
  const TransactionAssembler& assembler() const { return assembler_; }
  const ChangeStreamStats& stats() const { return stats_; }
  Lsn last_commit_lsn() const { return last_commit_lsn_; }
  // The current description of a relation, nullptr if not seen yet.
  SourceRelationPtr FindRelation(PgOid oid) const;

 private:
  explicit ChangeStream(ChangeStreamOptions options);
  Result<std::optional<ChangeEvent>> NextEvent(std::chrono::milliseconds timeout);
  // The next event of what was received (a lone message, or the next part of a committed transaction).
  Result<std::optional<ChangeEvent>> TakeReady();
  Status HandleMessage(PgOutputMessage message, bool* produced_lone_event);
  // Registers a relation description; sets *restarted instead when it made the stream restart in text
  // mode (the description comes again).
  Result<uint32_t> OnRelation(const PgRelation& relation, std::optional<PgXid> top_xid, uint32_t* previous,
                              bool* restarted);
  // Before streaming: asks for text values (binary 'false') when a published table has a column whose
  // binary format Tide cannot decode.
  void ChooseValueFormat();
  Status CheckPublishedTypes();  // ChooseValueFormat's catalog query; sets options_.replication.binary
  Status ConnectCatalog();
  Status ResolveTypes(const PgRelation& relation);
  uint32_t VersionFor(PgOid oid, std::optional<PgXid> top_xid) const;
  Result<ChangeEvent> Convert(TxnItem item);
  void UpdateInFlight();
  void OnTransactionEnd(PgXid top_xid, bool committed);

  ChangeStreamOptions options_;
  std::unique_ptr<ReplicationStream> replication_;
  PgOutputDecoder decoder_;
  PgTypeRegistry types_;
  std::unique_ptr<PgConnection> catalog_conn_;  // for pg_type lookups
  TransactionAssembler assembler_;

  std::vector<SourceRelationPtr> versions_;             // by version number
  std::unordered_map<PgOid, uint32_t> current_;         // as of the last committed transaction
  std::unordered_map<PgOid, uint32_t> txn_current_;     // staged by the open ordinary transaction
  std::map<PgXid, std::unordered_map<PgOid, uint32_t>> stream_current_;  // inside a streamed transaction

  std::unique_ptr<AssembledTransaction> replaying_;
  bool begin_sent_ = false;
  uint64_t txn_changes_ = 0;
  std::optional<ChangeEvent> lone_event_;
  Lsn last_commit_lsn_ = kInvalidLsn;
  Lsn delivered_end_lsn_ = kInvalidLsn;
  Lsn acknowledged_ = kInvalidLsn;
  ChangeStreamStats stats_;
  Status failed_;  // the first error Next returned; every later call returns it
};

}  // namespace tide
