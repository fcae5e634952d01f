// ReplicationStream: the client side of one logical replication connection in COPY BOTH mode
// (START_REPLICATION SLOT s LOGICAL lsn (...)), below the pgoutput decoder.
//
// It yields the server's XLogData messages in order, answers keepalives that request a reply, sends
// standby status updates on a timer, and reconnects after a lost connection with exponential backoff
// and jitter, resuming from the last acknowledged position.
//
// Acknowledgement invariant: the flush LSN reported to PostgreSQL (which becomes the slot's
// confirmed_flush_lsn) is never more than what the caller declared durable with Acknowledge(), except
// that while the caller declares nothing in flight (SetInFlight(false): every transaction it received
// is durable and none is partly received) the WAL end of keepalives received in that state is reported,
// so that a slot whose publication sees no traffic does not pin WAL. It never goes below the position
// the stream started from.
//
// After a reconnect the server resends every transaction that commits after the acknowledged position;
// Next() reports kReconnected first so the caller can drop partial state and skip what it already
// consumed (ChangeStream does both).
//
// Options negotiated by server version: proto_version 2 (PG14), 3 (PG15), 4 (PG16+); binary 'true' and
// streaming 'on' on PG14+; messages 'true' when asked.
//
// Thread-safety: one thread calls everything except RequestStop(), which any thread (or a signal
// handler's flag-setter) may call. Call Next() at least once per status interval so status updates
// and keepalive replies go out (they are sent from inside Next()).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "tide/base/result.h"
#include "tide/postgres/lsn.h"
#include "tide/postgres/pg_connection.h"
#include "tide/postgres/replication_envelope.h"

namespace tide {

struct ReconnectPolicy {
  std::chrono::milliseconds initial_delay{200};
  std::chrono::milliseconds max_delay{30000};
  int max_attempts = 30;  // consecutive failed attempts before Next() gives up with Unavailable
  double jitter = 0.5;    // each delay is multiplied by a random factor in [1 - jitter, 1]
};

struct ReplicationStreamOptions {
  std::string conninfo;  // replication=database is added; sslmode and the rest are honoured
  std::string slot;
  std::vector<std::string> publications;
  Lsn start_lsn = kInvalidLsn;  // 0: the slot's confirmed_flush_lsn
  bool binary = true;           // binary 'true' where the server supports it (PG14+)
  bool streaming = true;        // streaming 'on' where supported (PG14+)
  bool messages = false;        // messages 'true': pg_logical_emit_message output (PostgreSQL 14+; none before)
  int max_proto_version = 4;    // lower it to test older protocol paths
  std::chrono::milliseconds status_interval{10000};
  ReconnectPolicy reconnect;
};

struct ReplicationEvent {
  enum class Kind {
    kXLogData,     // `data` holds one pgoutput message
    kReconnected,  // the connection was re-established; the server resends from the acknowledged LSN
  };
  Kind kind = Kind::kXLogData;
  PgXLogData data;  // payload valid until the next Next() call
};

class ReplicationStream {
 public:
  // Connects, checks the slot (exists, pgoutput, not active, not invalidated) and the publications,
  // and starts streaming.
  static Result<std::unique_ptr<ReplicationStream>> Start(ReplicationStreamOptions options);
  // Starts streaming on a replication connection the caller opened (needed for a temporary slot, which
  // lives only as long as the connection that created it). Such a stream cannot reconnect: a lost
  // connection is an Unavailable error.
  static Result<std::unique_ptr<ReplicationStream>> Adopt(std::unique_ptr<PgConnection> conn,
                                                          ReplicationStreamOptions options);
  ~ReplicationStream();
  ReplicationStream(const ReplicationStream&) = delete;
  ReplicationStream& operator=(const ReplicationStream&) = delete;

  // The next message, waiting up to `timeout` (nullopt when none came). Keepalives, status updates and
  // reconnects happen inside. Errors: Unavailable after the reconnect policy is exhausted; NotFound /
  // InvalidArgument for errors a retry cannot fix (slot or publication dropped, slot invalidated);
  // Aborted after RequestStop().
  Result<std::optional<ReplicationEvent>> Next(std::chrono::milliseconds timeout);

  // Declares everything up to `lsn` durable downstream (normally a transaction's end LSN). Monotonic:
  // smaller values are ignored.
  void Acknowledge(Lsn lsn);
  // Whether the caller holds received data that is not yet durable (see the invariant above).
  void SetInFlight(bool in_flight) { in_flight_ = in_flight; }
  // Sends a standby status update now.
  Status SendStatus(bool request_reply = false);
  // Makes Next() (and a reconnect in progress) return Aborted soon. Safe from any thread.
  void RequestStop() { stop_requested_.store(true); }
  // Sends a last status update and ends the COPY; the connection is closed.
  Status Close();
  // Stops streaming binary values: ends the current COPY and closes the connection, so that Next()
  // reconnects with binary 'false' from the acknowledged position and reports kReconnected, as after a
  // lost connection. `why` says which column needs text (logged). No-op when not in binary mode.
  // NotSupported on an adopted connection (a temporary slot), which cannot reconnect.
  Status RestartInTextMode(std::string_view why);

  int proto_version() const { return proto_version_; }
  bool binary() const { return binary_; }
  bool streaming() const { return streaming_; }
  Lsn start_lsn() const { return start_lsn_; }
  Lsn acknowledged_lsn() const { return durable_; }
  Lsn reported_flush_lsn() const { return FlushToReport(); }
  Lsn received_lsn() const { return received_; }
  uint64_t reconnect_count() const { return reconnects_; }
  int server_version() const { return server_version_; }

 private:
  explicit ReplicationStream(ReplicationStreamOptions options);
  Status Open(std::unique_ptr<PgConnection> adopted);
  Status StartStreaming();
  Lsn FlushToReport() const;
  // After the connection broke: the Status to return if it cannot be retried, else OK (conn_ reset).
  Status HandleLoss(Status why);
  Status Reconnect();
  Status MaybeSendStatus();
  void FreeBuffer();
  // Sends CopyDone and reads until the server ends the COPY (bounded wait).
  void EndCopy();

  ReplicationStreamOptions options_;
  std::unique_ptr<PgConnection> conn_;
  bool adopted_ = false;
  int server_version_ = 0;
  int proto_version_ = 1;
  bool binary_ = false;
  bool streaming_ = false;
  Lsn start_lsn_ = kInvalidLsn;  // the position streaming started from (never report below it)
  Lsn durable_ = kInvalidLsn;
  Lsn idle_ack_ = kInvalidLsn;
  Lsn received_ = kInvalidLsn;
  bool in_flight_ = false;
  char* buffer_ = nullptr;  // the last PQgetCopyData buffer
  std::chrono::steady_clock::time_point next_status_;
  std::atomic<bool> stop_requested_{false};
  uint64_t reconnects_ = 0;
  bool pending_reconnected_event_ = false;
  std::mt19937_64 rng_;
};

}  // namespace tide
