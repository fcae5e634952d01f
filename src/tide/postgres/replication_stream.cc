#include "tide/postgres/replication_stream.h"

#include <poll.h>

#include <algorithm>
#include <thread>

#include "tide/base/logging.h"
#include "tide/base/strings.h"
#include "tide/postgres/pg_value_decoder.h"
#include "tide/postgres/publication.h"
#include "tide/postgres/replication_slot.h"

namespace tide {
namespace {

using Clock = std::chrono::steady_clock;

PgTimestampMicros NowPgMicros() {
  auto since_epoch = std::chrono::system_clock::now().time_since_epoch();
  return UnixMicrosToPgTimestamp(std::chrono::duration_cast<std::chrono::microseconds>(since_epoch).count());
}

std::string QuotePublicationList(const std::vector<std::string>& publications) {
  // A string literal holding a comma-separated list of double-quoted identifiers.
  std::string list;
  for (const auto& p : publications) {
    if (!list.empty()) list += ',';
    list += '"';
    for (char c : p) {
      if (c == '"') list += '"';
      list += c;
    }
    list += '"';
  }
  std::string literal = "'";
  for (char c : list) {
    if (c == '\'') literal += '\'';
    literal += c;
  }
  return literal + "'";
}

bool Retryable(const Status& st) { return st.IsUnavailable() || st.IsConflict(); }

}  // namespace

ReplicationStream::ReplicationStream(ReplicationStreamOptions options)
    : options_(std::move(options)), rng_(std::random_device{}()) {}

ReplicationStream::~ReplicationStream() {
  FreeBuffer();
  if (conn_) Close().IgnoreError();
}

void ReplicationStream::FreeBuffer() {
  if (buffer_) PQfreemem(buffer_);
  buffer_ = nullptr;
}

Result<std::unique_ptr<ReplicationStream>> ReplicationStream::Start(ReplicationStreamOptions options) {
  std::unique_ptr<ReplicationStream> stream(new ReplicationStream(std::move(options)));
  TIDE_RETURN_IF_ERROR(stream->Open(nullptr));
  return stream;
}

Result<std::unique_ptr<ReplicationStream>> ReplicationStream::Adopt(std::unique_ptr<PgConnection> conn,
                                                                    ReplicationStreamOptions options) {
  if (!conn || conn->kind() != PgSessionKind::kReplication) {
    return Status::InvalidArgument("ReplicationStream::Adopt needs a replication=database connection");
  }
  std::unique_ptr<ReplicationStream> stream(new ReplicationStream(std::move(options)));
  stream->adopted_ = true;
  TIDE_RETURN_IF_ERROR(stream->Open(std::move(conn)));
  return stream;
}

Status ReplicationStream::Open(std::unique_ptr<PgConnection> adopted) {
  if (options_.slot.empty()) return Status::InvalidArgument("no replication slot named");
  if (options_.publications.empty()) return Status::InvalidArgument("no publication named");
  if (adopted) {
    conn_ = std::move(adopted);
  } else {
    TIDE_ASSIGN_OR_RETURN(conn_, PgConnection::Connect(options_.conninfo, PgSessionKind::kReplication,
                                                       kPgTextSessionOptions));
  }
  server_version_ = conn_->server_version();
  if (server_version_ < 100000) {
    return Status::NotSupported("PostgreSQL {} has no pgoutput logical replication: Tide needs 10 or later",
                                server_version_);
  }
  proto_version_ = server_version_ >= 160000 ? 4 : server_version_ >= 150000 ? 3 : server_version_ >= 140000 ? 2 : 1;
  proto_version_ = std::min(proto_version_, std::max(1, options_.max_proto_version));
  binary_ = options_.binary && server_version_ >= 140000;
  streaming_ = options_.streaming && proto_version_ >= 2;

  for (const auto& pub : options_.publications) {
    TIDE_ASSIGN_OR_RETURN(bool exists, PublicationExists(*conn_, pub));
    if (!exists) {
      return Status::NotFound("publication {} does not exist in the database ({}): create it with CREATE "
                              "PUBLICATION {} FOR TABLE ... or let Tide create it",
                              pub, conn_->redacted_conninfo(), pub);
    }
  }
  TIDE_ASSIGN_OR_RETURN(auto slot, FindReplicationSlot(*conn_, options_.slot));
  if (!slot) {
    return Status::NotFound("replication slot {} does not exist ({}): create it first (tide creates it when "
                            "asked), or check the name",
                            options_.slot, conn_->redacted_conninfo());
  }
  TIDE_ASSIGN_OR_RETURN(PgResult db, conn_->Query("SELECT current_database()"));
  // A temporary slot is held by the session that created it: on an adopted connection that is us.
  if (slot->active && slot->active_pid && *slot->active_pid == PQbackendPID(conn_->raw())) slot->active = false;
  TIDE_RETURN_IF_ERROR(CheckSlotUsable(*slot, db.Value(0, 0)));
  start_lsn_ = std::max(options_.start_lsn, slot->confirmed_flush_lsn);
  durable_ = start_lsn_;
  received_ = start_lsn_;
  return StartStreaming();
}

Status ReplicationStream::StartStreaming() {
  std::string opts = fmt::format("proto_version '{}', publication_names {}", proto_version_,
                                 QuotePublicationList(options_.publications));
  if (binary_) opts += ", binary 'true'";
  if (streaming_) opts += ", streaming 'on'";
  if (options_.messages && server_version_ >= 140000) opts += ", messages 'true'";
  Lsn from = FlushToReport();
  std::string sql = fmt::format("START_REPLICATION SLOT {} LOGICAL {} ({})", options_.slot, FormatLsn(from), opts);
  Status st = conn_->StartCopy(sql, PGRES_COPY_BOTH);
  if (!st.ok()) {
    if (conn_->last_sqlstate() == "55006") {
      return Status::Conflict("{}: another consumer holds replication slot {}; stop it, or end it with "
                              "pg_terminate_backend(<active_pid from pg_replication_slots>)",
                              st.message(), options_.slot);
    }
    if (st.message().find("can no longer get changes") != std::string::npos ||
        st.message().find("invalidated") != std::string::npos) {
      return Status::InvalidArgument("replication slot {} was invalidated: drop it and start again with a new "
                                     "slot and a fresh initial copy ({})",
                                     options_.slot, st.message());
    }
    return st;
  }
  next_status_ = Clock::now() + options_.status_interval;
  TIDE_LOG_INFO("streaming from slot {} at {} (proto_version {}, binary {}, streaming {})", options_.slot,
                FormatLsn(from), proto_version_, binary_, streaming_);
  return Status::OK();
}

Lsn ReplicationStream::FlushToReport() const {
  Lsn flush = std::max(durable_, start_lsn_);
  if (!in_flight_) flush = std::max(flush, idle_ack_);
  return flush;
}

void ReplicationStream::Acknowledge(Lsn lsn) { durable_ = std::max(durable_, lsn); }

Status ReplicationStream::SendStatus(bool request_reply) {
  if (!conn_) return Status::OK();
  PgStandbyStatusUpdate update;
  update.flush_lsn = FlushToReport();
  update.write_lsn = std::max(received_, update.flush_lsn);
  update.apply_lsn = update.flush_lsn;
  update.client_time = NowPgMicros();
  update.reply_requested = request_reply;
  std::string bytes = EncodeStandbyStatusUpdate(update);
  if (PQputCopyData(conn_->raw(), bytes.data(), static_cast<int>(bytes.size())) != 1 || PQflush(conn_->raw()) != 0) {
    return conn_->LastError("sending a standby status update");
  }
  next_status_ = Clock::now() + options_.status_interval;
  return Status::OK();
}

Status ReplicationStream::MaybeSendStatus() {
  if (Clock::now() >= next_status_) return SendStatus(false);
  return Status::OK();
}

Status ReplicationStream::HandleLoss(Status why) {
  FreeBuffer();
  // Collect the server's final word, if any: it says whether a retry can help.
  Status server_error;
  if (conn_) {
    for (int i = 0; i < 8; ++i) {
      PGresult* r = PQgetResult(conn_->raw());
      if (r == nullptr) break;
      PgResult result(r);
      if (result.status() == PGRES_FATAL_ERROR) {
        std::string state = SqlState(r);
        std::string msg(Trim(PQresultErrorMessage(r)));
        StatusCode code = StatusCode::kUnavailable;
        if (state == "42704") code = StatusCode::kNotFound;
        else if (state == "55000") code = StatusCode::kInvalidArgument;
        else if (state == "55006") code = StatusCode::kConflict;
        else if (StartsWith(state, "42") || StartsWith(state, "22")) code = StatusCode::kInvalidArgument;
        server_error = Status(code, fmt::format("replication from slot {}: {} [SQLSTATE {}]", options_.slot, msg, state));
      }
      if (result.status() == PGRES_COPY_BOTH || result.status() == PGRES_COPY_OUT) break;
    }
  }
  if (!server_error.ok()) why = server_error;
  conn_.reset();
  if (!Retryable(why)) return why;
  if (adopted_) {
    return Status::Unavailable("{}; the stream used a temporary slot, which ended with its connection: use a "
                               "permanent slot to survive reconnects",
                               why.message());
  }
  TIDE_LOG_WARN("replication connection lost ({}); reconnecting from {}", why.message(), FormatLsn(FlushToReport()));
  return Status::OK();
}

Status ReplicationStream::Reconnect() {
  auto delay = options_.reconnect.initial_delay;
  Status last;
  for (int attempt = 1; attempt <= options_.reconnect.max_attempts; ++attempt) {
    // Sleep first (the server may still be shutting down or the old walsender exiting), in slices so
    // that RequestStop() is noticed.
    std::uniform_real_distribution<double> factor(1.0 - options_.reconnect.jitter, 1.0);
    auto sleep = std::chrono::milliseconds(static_cast<int64_t>(static_cast<double>(delay.count()) * factor(rng_)));
    auto until = Clock::now() + sleep;
    while (Clock::now() < until) {
      if (stop_requested_.load()) return Status::Aborted("replication stream stopped");
      std::this_thread::sleep_for(std::min<Clock::duration>(std::chrono::milliseconds(50), until - Clock::now()));
    }
    delay = std::min(options_.reconnect.max_delay, delay * 2);

    auto conn = PgConnection::Connect(options_.conninfo, PgSessionKind::kReplication, kPgTextSessionOptions);
    if (!conn.ok()) {
      last = conn.status();
      continue;
    }
    conn_ = std::move(conn).value();
    auto slot = FindReplicationSlot(*conn_, options_.slot);
    if (!slot.ok()) {
      last = slot.status();
      conn_.reset();
      if (!Retryable(last)) return last;
      continue;
    }
    if (!slot->has_value()) {
      conn_.reset();
      return Status::NotFound("replication slot {} disappeared while reconnecting: it was dropped; create a new "
                              "slot and take a fresh initial copy",
                              options_.slot);
    }
    if ((*slot)->wal_status == "lost") {
      Status st = CheckSlotUsable(**slot, "");
      conn_.reset();
      return st;
    }
    // The server will not go back before the slot's confirmed position; neither do we.
    Status st = StartStreaming();
    if (st.ok()) {
      ++reconnects_;
      return Status::OK();
    }
    last = st;
    conn_.reset();
    if (!Retryable(st)) return st;
  }
  return Status::Unavailable("replication slot {}: gave up reconnecting after {} attempts: {}", options_.slot,
                             options_.reconnect.max_attempts, last.message());
}

Result<std::optional<ReplicationEvent>> ReplicationStream::Next(std::chrono::milliseconds timeout) {
  FreeBuffer();
  auto deadline = Clock::now() + timeout;
  while (true) {
    if (stop_requested_.load()) return Status::Aborted("replication stream stopped");
    if (!conn_) {
      TIDE_RETURN_IF_ERROR(Reconnect());
      ReplicationEvent event;
      event.kind = ReplicationEvent::Kind::kReconnected;
      return std::optional<ReplicationEvent>(event);
    }
    Status st = MaybeSendStatus();
    if (!st.ok()) {
      TIDE_RETURN_IF_ERROR(HandleLoss(st));
      continue;
    }
    int n = PQgetCopyData(conn_->raw(), &buffer_, /*async=*/1);
    if (n > 0) {
      auto message = DecodeReplicationCopyData(std::string_view(buffer_, static_cast<size_t>(n)));
      if (!message.ok()) {
        return message.status().WithContext(fmt::format("replication slot {}", options_.slot));
      }
      if (auto* data = std::get_if<PgXLogData>(&*message)) {
        received_ = std::max(received_, data->wal_start);
        ReplicationEvent event;
        event.data = *data;
        return std::optional<ReplicationEvent>(event);
      }
      const auto& keepalive = std::get<PgPrimaryKeepalive>(*message);
      FreeBuffer();
      if (!in_flight_) idle_ack_ = std::max(idle_ack_, keepalive.wal_end);
      if (keepalive.reply_requested) {
        Status sent = SendStatus(false);
        if (!sent.ok()) TIDE_RETURN_IF_ERROR(HandleLoss(sent));
      }
      continue;
    }
    if (n == 0) {
      auto now = Clock::now();
      if (now >= deadline) return std::optional<ReplicationEvent>();
      auto wait_until = std::min(deadline, next_status_);
      int wait_ms = static_cast<int>(
          std::max<int64_t>(0, std::chrono::duration_cast<std::chrono::milliseconds>(wait_until - now).count()));
      // Wake at least every 200 ms to notice RequestStop().
      pollfd pfd{PQsocket(conn_->raw()), POLLIN, 0};
      int rc = ::poll(&pfd, 1, std::min(wait_ms + 1, 200));
      if (rc < 0 && errno != EINTR) {
        TIDE_RETURN_IF_ERROR(HandleLoss(Status::Unavailable("poll on the replication socket failed")));
        continue;
      }
      if (rc > 0 && PQconsumeInput(conn_->raw()) == 0) {
        TIDE_RETURN_IF_ERROR(HandleLoss(conn_->LastError("reading from the replication connection")));
      }
      continue;
    }
    // -1: the server ended the COPY (an error or a shutdown); -2: the connection failed.
    Status why = n == -1 ? Status::Unavailable("the server ended the replication stream")
                         : conn_->LastError("reading from the replication connection");
    TIDE_RETURN_IF_ERROR(HandleLoss(why));
  }
}

void ReplicationStream::EndCopy() {
  if (PQputCopyEnd(conn_->raw(), nullptr) != 1) return;
  PQflush(conn_->raw());
  // Drain: the server answers CopyDone, then the command completes. Bounded by a short wait.
  auto until = Clock::now() + std::chrono::seconds(2);
  while (Clock::now() < until) {
    char* buf = nullptr;
    int n = PQgetCopyData(conn_->raw(), &buf, 1);
    if (buf) PQfreemem(buf);
    if (n < 0) break;
    if (n == 0) {
      pollfd pfd{PQsocket(conn_->raw()), POLLIN, 0};
      ::poll(&pfd, 1, 100);
      if (PQconsumeInput(conn_->raw()) == 0) break;
    }
  }
  while (PGresult* r = PQgetResult(conn_->raw())) PQclear(r);
}

Status ReplicationStream::Close() {
  FreeBuffer();
  if (!conn_) return Status::OK();
  Status st = SendStatus(false);
  if (st.ok()) EndCopy();
  conn_.reset();
  return st;
}

Status ReplicationStream::RestartInTextMode(std::string_view why) {
  if (!binary_) return Status::OK();
  if (adopted_) {
    // PostgreSQL ends a second START_REPLICATION ... LOGICAL on the same walsender at once, and a
    // temporary slot ends with its connection: there is no way to go on in text mode.
    return Status::NotSupported("replication slot {}: {}, and its binary values cannot be decoded; a stream on a "
                                "temporary slot cannot switch to text mode: stream in text mode from the start "
                                "(binary 'false', `tide pg tail --text`) or use a permanent slot",
                                options_.slot, why);
  }
  FreeBuffer();
  binary_ = false;
  options_.binary = false;
  TIDE_LOG_INFO("replication slot {}: {}; streaming again in text mode (binary 'false') from {}", options_.slot, why,
                FormatLsn(FlushToReport()));
  if (conn_) {
    if (SendStatus(false).ok()) EndCopy();
    conn_.reset();  // Next() reconnects (in text mode) and reports kReconnected
  }
  return Status::OK();
}

}  // namespace tide
