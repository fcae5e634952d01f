#include "tide/postgres/change_stream.h"

#include <algorithm>

#include "tide/base/logging.h"
#include "tide/base/strings.h"
#include "tide/postgres/sql_quote.h"

namespace tide {
namespace {

// The first column whose binary values Tide cannot decode (its type falls back to STRING of the text
// form), or -1.
int FirstTextOnlyColumn(const PgRowDecoder& decoder) {
  for (size_t i = 0; i < decoder.size(); ++i) {
    if (!decoder.column(i).SupportsBinary()) return static_cast<int>(i);
  }
  return -1;
}

bool SameDescription(const SourceRelation& a, const PgRelation& b) {
  std::string ns = b.namespace_name.empty() ? "pg_catalog" : b.namespace_name;
  return a.table.schema == ns && a.table.name == b.name && a.replica_identity == b.replica_identity &&
         a.columns == b.columns;
}

}  // namespace

int SourceRelation::ColumnIndex(std::string_view name) const {
  for (size_t i = 0; i < columns.size(); ++i) {
    if (columns[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

ChangeStream::ChangeStream(ChangeStreamOptions options)
    : options_(std::move(options)), assembler_(options_.assembler) {
  last_commit_lsn_ = options_.skip_through_commit_lsn;
}

ChangeStream::~ChangeStream() = default;

Result<std::unique_ptr<ChangeStream>> ChangeStream::Start(ChangeStreamOptions options) {
  std::unique_ptr<ChangeStream> stream(new ChangeStream(std::move(options)));
  stream->ChooseValueFormat();
  TIDE_ASSIGN_OR_RETURN(stream->replication_, ReplicationStream::Start(stream->options_.replication));
  stream->decoder_ = PgOutputDecoder(PgOutputDecoderOptions{stream->replication_->proto_version(), false});
  return stream;
}

Result<std::unique_ptr<ChangeStream>> ChangeStream::Adopt(std::unique_ptr<PgConnection> conn,
                                                          ChangeStreamOptions options) {
  std::unique_ptr<ChangeStream> stream(new ChangeStream(std::move(options)));
  stream->ChooseValueFormat();
  TIDE_ASSIGN_OR_RETURN(stream->replication_,
                        ReplicationStream::Adopt(std::move(conn), stream->options_.replication));
  stream->decoder_ = PgOutputDecoder(PgOutputDecoderOptions{stream->replication_->proto_version(), false});
  return stream;
}

std::unique_ptr<ChangeStream> ChangeStream::ForMessages(ChangeStreamOptions options, int proto_version) {
  std::unique_ptr<ChangeStream> stream(new ChangeStream(std::move(options)));
  stream->decoder_ = PgOutputDecoder(PgOutputDecoderOptions{proto_version, false});
  return stream;
}

Status ChangeStream::Feed(std::string_view payload) {
  if (replaying_ || lone_event_) {
    // As from the server: the next message is read only once every event before it was taken.
    return Status::Internal("ChangeStream::Feed while events are ready: call Next() until it returns nothing");
  }
  ++stats_.messages;
  stats_.bytes += payload.size();
  TIDE_ASSIGN_OR_RETURN(PgOutputMessage message, decoder_.Decode(payload));
  bool lone = false;
  TIDE_RETURN_IF_ERROR(HandleMessage(std::move(message), &lone));
  UpdateInFlight();
  return Status::OK();
}

void ChangeStream::OnReconnected() {
  // The server starts over from the acknowledged position: partial transactions come again whole, and
  // so do the descriptions they carried (pgoutput's relation cache is per session).
  decoder_.Reset();
  assembler_.Reset();
  stream_current_.clear();
  txn_current_.clear();
  UpdateInFlight();
}

SourceRelationPtr ChangeStream::FindRelation(PgOid oid) const {
  auto it = current_.find(oid);
  return it == current_.end() ? nullptr : versions_[it->second];
}

void ChangeStream::Acknowledge(Lsn end_lsn) {
  acknowledged_ = std::max(acknowledged_, end_lsn);
  if (replication_) replication_->Acknowledge(end_lsn);
  UpdateInFlight();
}

void ChangeStream::UpdateInFlight() {
  if (!replication_) return;
  bool in_flight = assembler_.has_open_transactions() || replaying_ != nullptr || delivered_end_lsn_ > acknowledged_;
  replication_->SetInFlight(in_flight);
}

Status ChangeStream::ConnectCatalog() {
  if (!catalog_conn_ || !catalog_conn_->ok()) {
    TIDE_ASSIGN_OR_RETURN(catalog_conn_, PgConnection::Connect(options_.replication.conninfo, PgSessionKind::kSql));
  }
  return Status::OK();
}

void ChangeStream::ChooseValueFormat() {
  if (!options_.replication.binary || options_.replication.publications.empty()) return;
  Status st = CheckPublishedTypes();
  if (!st.ok()) {
    // Not fatal: the check on each Relation message still restarts the stream in text mode if needed.
    TIDE_LOG_WARN("cannot check the published tables' column types before streaming ({}); asking for binary "
                  "values, and switching to text if a column needs it",
                  st.ToString());
  }
}

Status ChangeStream::CheckPublishedTypes() {
  TIDE_RETURN_IF_ERROR(ConnectCatalog());
  // Binary pgoutput exists from PostgreSQL 14 on; ReplicationStream does not ask for it before.
  if (catalog_conn_->server_version() < 140000) return Status::OK();
  std::string names;
  for (const auto& p : options_.replication.publications) names += (names.empty() ? "" : ", ") + SqlQuoteLiteral(p);
  // Every column of every published table (generated ones included, conservatively: a column list or
  // a generated column that is not sent only makes Tide choose text when binary would have worked).
  TIDE_ASSIGN_OR_RETURN(
      PgResult cols,
      catalog_conn_->Query("SELECT DISTINCT p.schemaname, p.tablename, a.attname, a.atttypid, a.atttypmod "
                           "FROM pg_publication_tables p JOIN pg_namespace n ON n.nspname = p.schemaname "
                           "JOIN pg_class c ON c.relnamespace = n.oid AND c.relname = p.tablename "
                           "JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped "
                           "WHERE p.pubname IN (" + names + ") ORDER BY 1, 2, 3"));
  PgRelation all;  // the columns of all tables, to resolve their types in one query
  for (int r = 0; r < cols.rows(); ++r) {
    PgRelationColumn col;
    col.name = fmt::format("{}.{}.{}", cols.Value(r, 0), cols.Value(r, 1), cols.Value(r, 2));
    TIDE_ASSIGN_OR_RETURN(int64_t type_oid, ParseInt64(cols.Value(r, 3), "pg_attribute.atttypid"));
    TIDE_ASSIGN_OR_RETURN(int64_t type_modifier, ParseInt64(cols.Value(r, 4), "pg_attribute.atttypmod"));
    col.type_oid = static_cast<PgOid>(type_oid);
    col.type_modifier = static_cast<int32_t>(type_modifier);
    all.columns.push_back(std::move(col));
  }
  TIDE_RETURN_IF_ERROR(ResolveTypes(all));
  for (const auto& col : all.columns) {
    TIDE_ASSIGN_OR_RETURN(PgTypeMapping mapping, MapPgType(col.type_oid, col.type_modifier, types_, options_.type_mapping));
    auto decoder = PgValueDecoder::Create(std::move(mapping), col.name);
    if (!decoder->SupportsBinary()) {
      TIDE_LOG_INFO("column {} has type {}, which Tide reads only in its text form: streaming in text mode "
                    "(binary 'false')",
                    col.name, decoder->mapping().pg_type_name);
      options_.replication.binary = false;
      return Status::OK();
    }
  }
  return Status::OK();
}

Status ChangeStream::ResolveTypes(const PgRelation& relation) {
  if (types_.UnresolvedTypeOids(relation).empty()) return Status::OK();
  TIDE_RETURN_IF_ERROR(ConnectCatalog());
  return ResolveRelationTypes(*catalog_conn_, relation, &types_);
}

uint32_t ChangeStream::VersionFor(PgOid oid, std::optional<PgXid> top_xid) const {
  if (top_xid) {
    auto s = stream_current_.find(*top_xid);
    if (s != stream_current_.end()) {
      auto it = s->second.find(oid);
      if (it != s->second.end()) return it->second;
    }
  } else if (auto staged = txn_current_.find(oid); staged != txn_current_.end()) {
    return staged->second;
  }
  auto it = current_.find(oid);
  return it == current_.end() ? TxnItem::kNoRelationVersion : it->second;
}

Result<uint32_t> ChangeStream::OnRelation(const PgRelation& relation, std::optional<PgXid> top_xid,
                                          uint32_t* previous, bool* restarted) {
  *previous = VersionFor(relation.oid, top_xid);
  if (*previous != TxnItem::kNoRelationVersion && SameDescription(*versions_[*previous], relation)) {
    return *previous;  // a resend of what we know
  }
  TIDE_RETURN_IF_ERROR(ResolveTypes(relation));
  TIDE_ASSIGN_OR_RETURN(PgRowDecoder row_decoder, PgRowDecoder::Create(relation, types_, options_.type_mapping));
  if (replication_ && replication_->binary()) {
    // A column Tide can read only as text (added to the publication, or to a table, after streaming
    // began): its values would arrive in binary. Stream again in text mode from the acknowledged position;
    // the server resends this description, and it is registered then.
    int column = FirstTextOnlyColumn(row_decoder);
    if (column >= 0) {
      TIDE_RETURN_IF_ERROR(replication_->RestartInTextMode(
          fmt::format("column {}.{}.{} has type {}, which Tide reads only in its text form",
                      relation.namespace_name, relation.name, relation.columns[static_cast<size_t>(column)].name,
                      row_decoder.column(static_cast<size_t>(column)).mapping().pg_type_name)));
      *restarted = true;
      return *previous;
    }
  }
  auto rel = std::make_shared<SourceRelation>();
  rel->oid = relation.oid;
  rel->table = PgTableName{relation.namespace_name.empty() ? "pg_catalog" : relation.namespace_name, relation.name};
  rel->replica_identity = relation.replica_identity;
  rel->columns = relation.columns;
  rel->fields = row_decoder.fields();
  for (size_t i = 0; i < relation.columns.size(); ++i) {
    if (relation.columns[i].is_key) rel->key_columns.push_back(static_cast<int>(i));
  }
  rel->version = static_cast<uint32_t>(versions_.size());
  rel->decoder = std::make_shared<const PgRowDecoder>(std::move(row_decoder));
  versions_.push_back(rel);
  if (top_xid) {
    stream_current_[*top_xid][relation.oid] = rel->version;
  } else if (assembler_.has_open_ordinary_transaction()) {
    // Staged until the Commit: should the connection drop before it, the server sends the transaction
    // (and this description) again, and the change must be seen again then.
    txn_current_[relation.oid] = rel->version;
  } else {
    current_[relation.oid] = rel->version;
  }
  return rel->version;
}

void ChangeStream::OnTransactionEnd(PgXid top_xid, bool committed) {
  auto it = stream_current_.find(top_xid);
  if (it == stream_current_.end()) return;
  // The descriptions a committed streamed transaction saw are now the current ones.
  if (committed) {
    for (const auto& [oid, version] : it->second) current_[oid] = version;
  }
  stream_current_.erase(it);
}

Status ChangeStream::HandleMessage(PgOutputMessage message, bool* produced_lone_event) {
  std::optional<PgXid> top_xid;
  if (decoder_.in_stream_block()) top_xid = decoder_.stream_xid();
  auto add = [&](TxnItem item, std::optional<PgXid> subxid) -> Status {
    item.subxid = subxid.value_or(0);
    return assembler_.Add(std::move(item), top_xid);
  };
  auto check_known = [&](PgOid oid, uint32_t version) -> Status {
    if (version == TxnItem::kNoRelationVersion) {
      return Status::Corruption("pgoutput: a change for relation OID {} before its Relation message", oid);
    }
    return Status::OK();
  };
  return std::visit(
      [&](auto& m) -> Status {
        using T = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<T, PgBegin>) {
          return assembler_.Begin(m);
        } else if constexpr (std::is_same_v<T, PgCommit>) {
          TIDE_ASSIGN_OR_RETURN(replaying_, assembler_.Commit(m));
          // The descriptions the transaction carried are now the server's idea of what this session
          // knows (also for a transaction dropped below as already delivered: it will not send them again).
          for (const auto& [oid, version] : txn_current_) current_[oid] = version;
          txn_current_.clear();
          if (m.commit_lsn <= last_commit_lsn_) {
            ++stats_.skipped_transactions;
            replaying_.reset();
          }
          begin_sent_ = false;
          return Status::OK();
        } else if constexpr (std::is_same_v<T, PgOrigin>) {
          assembler_.SetOrigin(m, top_xid);
          return Status::OK();
        } else if constexpr (std::is_same_v<T, PgRelation>) {
          uint32_t previous = TxnItem::kNoRelationVersion;
          bool restarted = false;
          TIDE_ASSIGN_OR_RETURN(uint32_t version, OnRelation(m, top_xid, &previous, &restarted));
          if (restarted || version == previous) return Status::OK();
          TxnItem item;
          item.relation_versions = {previous, version};
          item.body = TxnItem::RelationMarker{};
          // The marker belongs to the top transaction, not to the subtransaction whose change made
          // pgoutput send the description: pgoutput records the description as sent for the whole
          // streamed transaction, so after a rolled-back savepoint it does not send it again, and the
          // changes that follow use it.
          return add(std::move(item), std::nullopt);
        } else if constexpr (std::is_same_v<T, PgTypeMessage>) {
          types_.AddFromTypeMessage(m);
          return Status::OK();
        } else if constexpr (std::is_same_v<T, PgInsert> || std::is_same_v<T, PgUpdate> ||
                             std::is_same_v<T, PgDelete>) {
          uint32_t version = VersionFor(m.relation_oid, top_xid);
          TIDE_RETURN_IF_ERROR(check_known(m.relation_oid, version));
          TxnItem item;
          item.relation_versions = {version};
          auto subxid = m.stream_xid;
          item.body = std::move(m);
          return add(std::move(item), subxid);
        } else if constexpr (std::is_same_v<T, PgTruncate>) {
          TxnItem item;
          for (PgOid oid : m.relation_oids) {
            uint32_t version = VersionFor(oid, top_xid);
            TIDE_RETURN_IF_ERROR(check_known(oid, version));
            item.relation_versions.push_back(version);
          }
          auto subxid = m.stream_xid;
          item.body = std::move(m);
          return add(std::move(item), subxid);
        } else if constexpr (std::is_same_v<T, PgLogicalMessage>) {
          if (!m.transactional) {
            lone_event_ = LogicalMessage{false, m.lsn, std::move(m.prefix), std::move(m.content)};
            *produced_lone_event = true;
            return Status::OK();
          }
          TxnItem item;
          auto subxid = m.stream_xid;
          item.body = std::move(m);
          return add(std::move(item), subxid);
        } else if constexpr (std::is_same_v<T, PgStreamStart> || std::is_same_v<T, PgStreamStop>) {
          return Status::OK();  // the decoder tracks the block
        } else if constexpr (std::is_same_v<T, PgStreamCommit>) {
          TIDE_ASSIGN_OR_RETURN(replaying_, assembler_.StreamCommit(m));
          OnTransactionEnd(m.xid, true);
          if (m.commit_lsn <= last_commit_lsn_) {
            ++stats_.skipped_transactions;
            replaying_.reset();
          }
          begin_sent_ = false;
          return Status::OK();
        } else if constexpr (std::is_same_v<T, PgStreamAbort>) {
          assembler_.StreamAbort(m);
          if (m.subtransaction_xid == m.xid) OnTransactionEnd(m.xid, false);
          return Status::OK();
        } else {
          return Status::NotSupported("pgoutput: two-phase commit message {} arrived, but Tide does not request "
                                      "two_phase; is the slot created with two_phase enabled?",
                                      PgOutputMessageName(PgOutputMessage(m)));
        }
      },
      message);
}

Result<ChangeEvent> ChangeStream::Convert(TxnItem item) {
  auto relation = [&](uint32_t version) -> Result<SourceRelationPtr> {
    if (version >= versions_.size()) return Status::Internal("unknown relation version {}", version);
    return versions_[version];
  };
  return std::visit(
      [&](auto& m) -> Result<ChangeEvent> {
        using T = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<T, TxnItem::RelationMarker>) {
          SourceSchemaChange change;
          if (item.relation_versions[0] != TxnItem::kNoRelationVersion) {
            TIDE_ASSIGN_OR_RETURN(change.previous, relation(item.relation_versions[0]));
          }
          TIDE_ASSIGN_OR_RETURN(change.current, relation(item.relation_versions[1]));
          return ChangeEvent(std::move(change));
        } else if constexpr (std::is_same_v<T, PgTruncate>) {
          TruncateTables truncate;
          truncate.cascade = m.cascade;
          truncate.restart_identity = m.restart_identity;
          for (uint32_t v : item.relation_versions) {
            TIDE_ASSIGN_OR_RETURN(auto rel, relation(v));
            truncate.relations.push_back(std::move(rel));
          }
          return ChangeEvent(std::move(truncate));
        } else if constexpr (std::is_same_v<T, PgLogicalMessage>) {
          return ChangeEvent(LogicalMessage{m.transactional, m.lsn, std::move(m.prefix), std::move(m.content)});
        } else {
          RowChange change;
          TIDE_ASSIGN_OR_RETURN(change.relation, relation(item.relation_versions.at(0)));
          const PgRowDecoder& decoder = *change.relation->decoder;
          std::vector<bool> missing;
          auto list = [](const std::vector<bool>& flags, std::vector<int>* out) {
            for (size_t i = 0; i < flags.size(); ++i) {
              if (flags[i]) out->push_back(static_cast<int>(i));
            }
          };
          if constexpr (std::is_same_v<T, PgInsert>) {
            change.kind = ChangeKind::kInsert;
            TIDE_RETURN_IF_ERROR(decoder.Decode(m.new_tuple, &change.new_row, &missing));
            // A new row has no previous value to keep: an "unchanged" column in it would become a NULL
            // that PostgreSQL never stored.
            for (size_t i = 0; i < missing.size(); ++i) {
              if (missing[i]) {
                return Status::Corruption(
                    "an INSERT into {} marks column {} as an unchanged TOASTed value, which an inserted row cannot "
                    "have; the change stream is damaged (restart the sync; report it if it repeats)",
                    change.relation->table.ToString(),
                    i < change.relation->fields.size() ? change.relation->fields[i].name : std::to_string(i));
              }
            }
          } else if constexpr (std::is_same_v<T, PgUpdate>) {
            change.kind = ChangeKind::kUpdate;
            change.old_kind = m.old_kind;
            TIDE_RETURN_IF_ERROR(decoder.Decode(m.new_tuple, &change.new_row, &missing));
            if (m.old_kind != PgOldTupleKind::kNone) {
              std::vector<bool> old_missing;
              TIDE_RETURN_IF_ERROR(decoder.Decode(m.old_tuple, &change.old_row, &old_missing));
              list(old_missing, &change.old_absent);
              if (m.old_kind == PgOldTupleKind::kFull) {
                // REPLICA IDENTITY FULL: the old image holds the real (detoasted) value of every column,
                // so an unchanged TOASTed value is known.
                for (size_t i = 0; i < missing.size(); ++i) {
                  if (missing[i] && i < old_missing.size() && !old_missing[i]) {
                    change.new_row[i] = change.old_row[i];
                    missing[i] = false;
                  }
                }
              }
            }
            list(missing, &change.unchanged_columns);
          } else {
            change.kind = ChangeKind::kDelete;
            change.old_kind = m.old_kind;
            std::vector<bool> old_missing;
            TIDE_RETURN_IF_ERROR(decoder.Decode(m.old_tuple, &change.old_row, &old_missing));
            list(old_missing, &change.old_absent);
          }
          return ChangeEvent(std::move(change));
        }
      },
      item.body);
}

Result<std::optional<ChangeEvent>> ChangeStream::Next(std::chrono::milliseconds timeout) {
  // Errors are sticky: after one, the transaction in flight is missing events, and nothing after it
  // may be delivered (or acknowledged).
  if (!failed_.ok()) return failed_;
  auto next = NextEvent(timeout);
  if (!next.ok()) failed_ = next.status();
  return next;
}

Result<std::optional<ChangeEvent>> ChangeStream::TakeReady() {
  if (lone_event_) {
    ChangeEvent event = std::move(*lone_event_);
    lone_event_.reset();
    return std::optional<ChangeEvent>(std::move(event));
  }
  if (!replaying_) return std::optional<ChangeEvent>();
  if (!begin_sent_) {
    begin_sent_ = true;
    txn_changes_ = 0;
    return std::optional<ChangeEvent>(BeginTransaction{replaying_->info()});
  }
  TIDE_ASSIGN_OR_RETURN(auto item, replaying_->Next());
  if (item) {
    TIDE_ASSIGN_OR_RETURN(ChangeEvent event, Convert(std::move(*item)));
    if (std::holds_alternative<RowChange>(event)) {
      ++txn_changes_;
      ++stats_.changes;
    }
    return std::optional<ChangeEvent>(std::move(event));
  }
  CommitTransaction commit{replaying_->info(), txn_changes_};
  last_commit_lsn_ = commit.txn.commit_lsn;
  delivered_end_lsn_ = std::max(delivered_end_lsn_, commit.txn.end_lsn);
  ++stats_.transactions;
  replaying_.reset();
  UpdateInFlight();
  return std::optional<ChangeEvent>(std::move(commit));
}

Result<std::optional<ChangeEvent>> ChangeStream::NextEvent(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    TIDE_ASSIGN_OR_RETURN(auto ready, TakeReady());
    if (ready || !replication_) return ready;
    auto now = std::chrono::steady_clock::now();
    auto left = now >= deadline ? std::chrono::milliseconds(0)
                                : std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now);
    TIDE_ASSIGN_OR_RETURN(auto event, replication_->Next(left));
    if (!event) return std::optional<ChangeEvent>();
    if (event->kind == ReplicationEvent::Kind::kReconnected) {
      ++stats_.reconnects;
      OnReconnected();
      continue;
    }
    TIDE_RETURN_IF_ERROR(Feed(event->data.payload));
  }
}

}  // namespace tide
