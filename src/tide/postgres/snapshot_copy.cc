#include "tide/postgres/snapshot_copy.h"

#include <libpq-fe.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <thread>

#include "tide/base/logging.h"
#include "tide/base/strings.h"
#include "tide/base/thread_name.h"
#include "tide/postgres/pg_connection.h"
#include "tide/postgres/pg_type.h"
#include "tide/postgres/pg_value_decoder.h"
#include "tide/postgres/sql_quote.h"

namespace tide {
namespace {

Status ImportSnapshot(PgConnection& conn, const std::string& snapshot) {
  // A copy session holds its snapshot's transaction for the whole copy, idle between tables, and one
  // COPY of a large table runs for minutes: timeouts set for the role or the database (the field
  // report's trap 1) would cut it off, so the session turns them off for itself.
  TIDE_RETURN_IF_ERROR(conn.Execute("SET statement_timeout = 0"));
  TIDE_RETURN_IF_ERROR(conn.Execute("SET idle_in_transaction_session_timeout = 0"));
  // The first session's LOCK waits for DDL under way; a lock_timeout of the role would fail it instead.
  TIDE_RETURN_IF_ERROR(conn.Execute("SET lock_timeout = 0"));
  TIDE_RETURN_IF_ERROR(conn.Execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"));
  Status st = conn.Execute("SET TRANSACTION SNAPSHOT " + SqlQuoteLiteral(snapshot));
  if (!st.ok()) {
    return Status(st.code(),
                  fmt::format("cannot import snapshot {}: {} (an exported snapshot lives only while the replication "
                              "connection that created the slot stays idle; import it before streaming starts)",
                              snapshot, st.message()));
  }
  return Status::OK();
}

struct Leaf {
  std::string quoted;  // "schema"."name"
  int64_t pages = 0;
};

// One table's plan: its description and the relations to read (itself, or its leaf partitions).
struct TablePlan {
  std::shared_ptr<SourceRelation> relation;
  std::vector<Leaf> leaves;
  std::vector<bool> text_columns;  // selected as col::text and decoded from text
  std::string select_list;
};

Result<TablePlan> PlanTable(PgConnection& conn, const PgTableName& table, PgTypeRegistry* types) {
  TablePlan plan;
  std::string regclass = SqlQuoteLiteral(table.Quoted()) + "::regclass";
  TIDE_ASSIGN_OR_RETURN(PgResult cls, conn.Query("SELECT c.oid, c.relkind, c.relreplident FROM pg_class c WHERE c.oid = " +
                                                 regclass));
  if (cls.rows() != 1) return Status::NotFound("table {} does not exist", table.ToString());
  PgRelation rel;
  TIDE_ASSIGN_OR_RETURN(int64_t oid, ParseInt64(cls.Value(0, 0), "pg_class.oid"));
  rel.oid = static_cast<PgOid>(oid);
  rel.namespace_name = table.schema;
  rel.name = table.name;
  rel.replica_identity = static_cast<PgReplicaIdentity>(cls.Value(0, 2).empty() ? 'd' : cls.Value(0, 2)[0]);
  char relkind = cls.Value(0, 1).empty() ? 'r' : cls.Value(0, 1)[0];
  // Columns in attnum order; generated columns are not replicated by pgoutput, so not copied either.
  TIDE_ASSIGN_OR_RETURN(
      PgResult cols,
      conn.Query("SELECT a.attname, a.atttypid, a.atttypmod, coalesce(a.attnum = ANY(i.indkey), false) "
                 "FROM pg_attribute a LEFT JOIN pg_index i ON i.indrelid = a.attrelid AND i.indisprimary "
                 "WHERE a.attrelid = " + regclass +
                 " AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = '' ORDER BY a.attnum"));
  for (int r = 0; r < cols.rows(); ++r) {
    PgRelationColumn col;
    col.name = std::string(cols.Value(r, 0));
    TIDE_ASSIGN_OR_RETURN(int64_t type_oid, ParseInt64(cols.Value(r, 1), "pg_attribute.atttypid"));
    TIDE_ASSIGN_OR_RETURN(int64_t type_modifier, ParseInt64(cols.Value(r, 2), "pg_attribute.atttypmod"));
    col.type_oid = static_cast<PgOid>(type_oid);
    col.type_modifier = static_cast<int32_t>(type_modifier);
    col.is_key = cols.Value(r, 3) == "t";
    rel.columns.push_back(std::move(col));
  }
  if (rel.columns.empty()) return Status::InvalidArgument("table {} has no columns to copy", table.ToString());
  TIDE_RETURN_IF_ERROR(ResolveRelationTypes(conn, rel, types));
  TIDE_ASSIGN_OR_RETURN(PgRowDecoder decoder, PgRowDecoder::Create(rel, *types));
  std::vector<std::string> select;
  for (size_t i = 0; i < rel.columns.size(); ++i) {
    bool text = !decoder.column(i).SupportsBinary();
    plan.text_columns.push_back(text);
    select.push_back(SqlQuoteIdentifier(rel.columns[i].name) + (text ? "::text" : ""));
  }
  plan.select_list = Join(select, ", ");

  auto source = std::make_shared<SourceRelation>();
  source->oid = rel.oid;
  source->table = table;
  source->replica_identity = rel.replica_identity;
  source->columns = rel.columns;
  source->fields = decoder.fields();
  for (size_t i = 0; i < rel.columns.size(); ++i) {
    if (rel.columns[i].is_key) source->key_columns.push_back(static_cast<int>(i));
  }
  source->decoder = std::make_shared<const PgRowDecoder>(std::move(decoder));
  plan.relation = source;

  // The relations holding rows: the table itself, or the leaves of a partition tree.
  std::string leaves_sql =
      relkind == 'p'
          ? "SELECT quote_ident(n.nspname) || '.' || quote_ident(c.relname), pg_relation_size(c.oid) / "
            "current_setting('block_size')::bigint FROM pg_partition_tree(" + regclass +
                ") t JOIN pg_class c ON c.oid = t.relid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE t.isleaf "
                "AND c.relkind = 'r'"
          : "SELECT " + SqlQuoteLiteral(table.Quoted()) + ", pg_relation_size(" + regclass +
                ") / current_setting('block_size')::bigint";
  TIDE_ASSIGN_OR_RETURN(PgResult leaves, conn.Query(leaves_sql));
  for (int r = 0; r < leaves.rows(); ++r) {
    TIDE_ASSIGN_OR_RETURN(int64_t pages, ParseInt64(leaves.Value(r, 1), "pg_relation_size"));
    plan.leaves.push_back({std::string(leaves.Value(r, 0)), pages});
  }
  return plan;
}

// What a copy under an older snapshot cannot read as that snapshot saw it, as `conn` sees it (under an
// imported snapshot: as of that snapshot; in a plain session: as of now): the copied columns (numbers,
// names, types, modifiers), and the storage of the table and of its partitions, which TRUNCATE replaces
// without regard to older snapshots (they would see the table empty).
Result<std::string> TableSignature(PgConnection& conn, const PgTableName& table) {
  const std::string regclass = SqlQuoteLiteral(table.Quoted()) + "::regclass";
  TIDE_ASSIGN_OR_RETURN(
      PgResult r,
      conn.Query("SELECT (SELECT string_agg(a.attnum || ':' || a.attname || ':' || a.atttypid || ':' || a.atttypmod, "
                 "',' ORDER BY a.attnum) FROM pg_attribute a WHERE a.attrelid = " + regclass +
                 " AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''), (SELECT string_agg(c.oid || "
                 "'=' || c.relfilenode, ',' ORDER BY c.oid) FROM pg_class c WHERE c.oid = " + regclass +
                 " OR c.oid IN (SELECT relid FROM pg_partition_tree(" + regclass + ")))"));
  if (r.rows() != 1) return std::string();
  return std::string(r.Value(0, 0)) + "|" + std::string(r.Value(0, 1));
}

// `n` sessions, connected side by side (each waits for its server process to start).
Result<std::vector<std::unique_ptr<PgConnection>>> ConnectSessions(const std::string& conninfo, int n) {
  std::vector<std::optional<Result<std::unique_ptr<PgConnection>>>> results(static_cast<size_t>(n));
  {
    std::vector<std::jthread> connecting;
    for (size_t i = 0; i < results.size(); ++i) {
      connecting.emplace_back([&conninfo, &results, i] {
        results[i] = PgConnection::Connect(conninfo, PgSessionKind::kSql, kPgTextSessionOptions);
      });
    }
  }
  std::vector<std::unique_ptr<PgConnection>> sessions;
  for (auto& result : results) {
    if (!result->ok()) return result->status();
    sessions.push_back(std::move(*result).value());
  }
  return sessions;
}

}  // namespace

Result<std::unique_ptr<SnapshotCopy>> SnapshotCopy::Start(SnapshotCopyOptions options, std::vector<PgTableName> tables) {
  if (options.snapshot_name.empty()) return Status::InvalidArgument("SnapshotCopy needs an exported snapshot name");
  if (tables.empty()) return Status::InvalidArgument("SnapshotCopy needs at least one table");
  std::unique_ptr<SnapshotCopy> copy(new SnapshotCopy());
  copy->options_ = options;
  int workers = std::max(1, options.workers);

  // Workers import the snapshot first: from then on the export may end. Each then locks every table
  // (ACCESS SHARE, as each COPY would anyway until the copy ends: writers go on, DDL waits). A COPY
  // names its columns as the catalog is now, not as the snapshot saw it, so a column dropped between
  // the export and this lock could not be read, and a TRUNCATE in that window would show the copy an
  // empty table; a table whose columns or storage differ between the snapshot's catalog and the
  // current one is left out (changed_tables()), for the caller to copy again at a later position.
  // After the locks, no such change can come in.
  //
  // Every session takes the locks before any COPY, not only the first: an ALTER queued behind the
  // first session's lock makes any later ACCESS SHARE request wait behind it, and a COPY waiting
  // there would wait on a session that only ends with the copy, a deadlock PostgreSQL cannot see
  // (the first session waits on this process, not on a lock). So the first session waits for its
  // locks as long as it must; the others ask with NOWAIT, and when one cannot have them at once, an
  // ALTER is queued: every session rolls back (the ALTER proceeds) and imports the snapshot again,
  // which the still-idle exporting connection allows.
  std::vector<std::string> quoted;
  for (const PgTableName& table : tables) quoted.push_back(table.Quoted());
  const std::string lock_sql = "LOCK TABLE " + Join(quoted, ", ") + " IN ACCESS SHARE MODE";
  constexpr int kLockAttempts = 50;
  std::vector<std::unique_ptr<PgConnection>> conns;
  // The workers' sessions and one more, for the catalog as it is now, connect at once.
  TIDE_ASSIGN_OR_RETURN(auto sessions, ConnectSessions(options.conninfo, workers + 1));
  std::unique_ptr<PgConnection> current = std::move(sessions.back());
  sessions.pop_back();
  for (int attempt = 1;; ++attempt) {
    conns.clear();
    if (sessions.empty()) TIDE_ASSIGN_OR_RETURN(sessions, ConnectSessions(options.conninfo, workers));
    bool queued_ddl = false;
    for (int i = 0; i < workers && !queued_ddl; ++i) {
      std::unique_ptr<PgConnection> conn = std::move(sessions[static_cast<size_t>(i)]);
      TIDE_RETURN_IF_ERROR(ImportSnapshot(*conn, options.snapshot_name));
      Status locked = conn->Execute(i == 0 ? lock_sql : lock_sql + " NOWAIT");
      if (!locked.ok()) {
        if (i == 0 || conn->last_sqlstate() != "55P03") {
          return locked.WithContext("locking the tables to copy against schema changes");
        }
        queued_ddl = true;
      }
      conns.push_back(std::move(conn));
      if (i == 0 && options.on_first_session_locked) options.on_first_session_locked();
    }
    if (!queued_ddl) break;
    if (attempt == kLockAttempts) {
      return Status::Unavailable(
          "could not lock the tables to copy ({}) in {} attempts: a schema change (ALTER TABLE, TRUNCATE, VACUUM "
          "FULL) kept waiting for them; let it finish and run again",
          Join(quoted, ", "), kLockAttempts);
    }
    TIDE_LOG_INFO("a schema change is waiting for a table to copy: the copy sessions step back for it (attempt {})",
                  attempt);
    conns.clear();  // closing the sessions ends their transactions and frees the locks
    sessions.clear();
    std::this_thread::sleep_for(std::chrono::milliseconds(20 * attempt));
  }
  // Plan on the first worker's session (it sees the snapshot's catalog).
  PgTypeRegistry types;
  for (size_t t = 0; t < tables.size(); ++t) {
    TIDE_ASSIGN_OR_RETURN(std::string then, TableSignature(*conns[0], tables[t]));
    TIDE_ASSIGN_OR_RETURN(std::string now, TableSignature(*current, tables[t]));
    if (then != now) {
      TIDE_LOG_INFO("the columns or the storage of {} changed after the snapshot at {} (an ALTER or a TRUNCATE): it "
                    "is left for a later copy",
                    tables[t].ToString(), FormatLsn(options.snapshot_lsn));
      copy->changed_tables_.push_back(tables[t]);
      copy->relations_.push_back(nullptr);
      copy->table_states_.push_back(std::make_unique<TableState>());
      continue;
    }
    TIDE_ASSIGN_OR_RETURN(TablePlan plan, PlanTable(*conns[0], tables[t], &types));
    plan.relation->version = static_cast<uint32_t>(t);
    copy->relations_.push_back(plan.relation);
    copy->copied_relations_.push_back(plan.relation);
    copy->table_states_.push_back(std::make_unique<TableState>());
    int tasks = 0;
    for (const auto& leaf : plan.leaves) {
      std::string base = "COPY (SELECT " + plan.select_list + " FROM " + leaf.quoted;
      int64_t ranges = 1;
      // One worker gains nothing from ranges: it would only run more statements.
      if (workers > 1 && leaf.pages > options.split_pages) {
        ranges = std::max<int64_t>(int64_t{workers} * std::max(1, options.ranges_per_worker),
                                   leaf.pages / std::max<int64_t>(1, options.split_pages));
      }
      if (ranges == 1) {
        copy->tasks_.push_back({t, base + ") TO STDOUT (FORMAT binary)", plan.text_columns});
        ++tasks;
        continue;
      }
      int64_t step = (leaf.pages + ranges - 1) / ranges;
      for (int64_t r = 0; r < ranges; ++r) {
        int64_t lo = r * step;
        std::string where = fmt::format(" WHERE ctid >= '({},0)'::tid", lo);
        // The last range is open-ended: nothing visible in the snapshot lies beyond it.
        if (r + 1 < ranges) where += fmt::format(" AND ctid < '({},0)'::tid", lo + step);
        copy->tasks_.push_back({t, base + where + ") TO STDOUT (FORMAT binary)", plan.text_columns});
        ++tasks;
      }
    }
    copy->table_states_[t]->remaining_tasks = tasks;
    if (tasks == 0) {
      // A partitioned table without partitions: complete at once.
      CopyBatch done;
      done.relation = plan.relation;
      done.snapshot_lsn = options.snapshot_lsn;
      done.table_complete = true;
      copy->queue_.push_back(std::move(done));
    }
  }
  // Largest tasks are not known exactly; interleaving tables keeps workers busy enough.
  copy->workers_running_ = static_cast<size_t>(workers);
  // Every batch in circulation may wait here (the queue's, one per worker, the consumer's): a batch freed
  // for want of room is one a worker allocates again, row by row.
  copy->recycle_limit_ = options.queue_batches + static_cast<size_t>(workers) + 1;
  copy->worker_conns_ = std::move(conns);
  for (int i = 0; i < workers; ++i) copy->threads_.emplace_back([c = copy.get(), i] { c->Worker(static_cast<size_t>(i)); });
  return copy;
}

SnapshotCopy::~SnapshotCopy() {
  Cancel();
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
}

void SnapshotCopy::Cancel() {
  cancelled_ = true;
  std::lock_guard<std::mutex> lock(mu_);
  not_full_.notify_all();
  not_empty_.notify_all();
}

SnapshotCopyStats SnapshotCopy::stats() const {
  SnapshotCopyStats s;
  s.rows = rows_.load();
  s.bytes = bytes_.load();
  s.ranges = tasks_.size();
  return s;
}

void SnapshotCopy::Fail(Status status) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (error_.ok()) error_ = std::move(status);
  }
  Cancel();
}

bool SnapshotCopy::Push(CopyBatch batch, std::vector<Row>* spare) {
  std::unique_lock<std::mutex> lock(mu_);
  not_full_.wait(lock, [&] { return cancelled_.load() || queue_.size() < options_.queue_batches; });
  if (cancelled_) return false;
  queue_.push_back(std::move(batch));
  not_empty_.notify_one();
  TakeSpareLocked(spare);
  return true;
}

void SnapshotCopy::TakeSpareLocked(std::vector<Row>* spare) {
  if (recycled_.empty()) return;
  *spare = std::move(recycled_.back());
  recycled_.pop_back();
}

void SnapshotCopy::Recycle(CopyBatch batch) {
  batch.relation.reset();
  std::lock_guard<std::mutex> lock(mu_);
  if (recycled_.size() < recycle_limit_ && !cancelled_) recycled_.push_back(std::move(batch.rows));
  // Otherwise the rows are freed here, as without Recycle.
}

Result<std::optional<CopyBatch>> SnapshotCopy::Next() {
  std::unique_lock<std::mutex> lock(mu_);
  not_empty_.wait(lock, [&] { return !queue_.empty() || workers_running_ == 0 || cancelled_.load(); });
  if (!error_.ok()) return error_;
  if (!queue_.empty()) {
    CopyBatch batch = std::move(queue_.front());
    queue_.pop_front();
    not_full_.notify_one();
    return std::optional<CopyBatch>(std::move(batch));
  }
  if (cancelled_) return Status::Aborted("snapshot copy cancelled");
  return std::optional<CopyBatch>();
}

void SnapshotCopy::Worker(size_t worker_index) {
  SetCurrentThreadName("tide-copy-" + std::to_string(worker_index));
  PgConnection* conn = worker_conns_[worker_index].get();
  while (!cancelled_) {
    size_t index = next_task_.fetch_add(1);
    if (index >= tasks_.size()) break;
    Status st = RunTask(conn, tasks_[index]);
    if (!st.ok()) {
      Fail(st);
      break;
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  --workers_running_;
  not_empty_.notify_all();
}

Status SnapshotCopy::RunTask(PgConnection* conn, const Task& task) {
  const SourceRelationPtr& relation = relations_[task.table_index];
  const PgRowDecoder& decoder = *relation->decoder;
  TIDE_RETURN_IF_ERROR(conn->StartCopy(task.sql, PGRES_COPY_OUT).WithContext("copying " + relation->table.ToString()));
  const size_t columns = decoder.size();
  BinaryCopyParser parser(columns, "COPY of " + relation->table.ToString());
  // The columns' decoders, looked up once per task (task.text_columns says which were selected as text).
  std::vector<const PgValueDecoder*> column_decoders(columns);
  for (size_t i = 0; i < columns; ++i) column_decoders[i] = &decoder.column(i);

  // Rows [0, filled) hold the batch being filled; rows past it are storage from a recycled batch,
  // overwritten in place (each Row keeps its capacity, each value slot is assigned).
  std::vector<Row> rows;
  {
    // A spare left by an earlier range or handed back by the consumer: without it each range would
    // add a batch to those in circulation, and the pool would overflow and free on the consumer.
    std::lock_guard<std::mutex> lock(mu_);
    TakeSpareLocked(&rows);
  }
  size_t filled = 0;
  size_t batch_bytes = 0;
  size_t row_capacity = columns;
  if (auto it = options_.row_capacity.find(relation->table); it != options_.row_capacity.end()) {
    row_capacity = std::max(columns, it->second);
  } else if (auto extra = options_.row_extra.find(relation->table); extra != options_.row_extra.end()) {
    row_capacity += extra->second;
  }
  uint64_t copy_bytes = 0;
  auto ship = [&](bool table_complete) -> bool {
    rows.resize(filled);
    rows_ += filled;
    bytes_ += copy_bytes;
    copy_bytes = 0;
    CopyBatch full;
    full.relation = relation;
    full.snapshot_lsn = options_.snapshot_lsn;
    full.table_complete = table_complete;
    std::swap(full.rows, rows);
    filled = 0;
    batch_bytes = 0;
    return Push(std::move(full), &rows);
  };
  auto on_row = [&](const std::vector<std::optional<std::string_view>>& fields) -> Status {
    if (filled == rows.size()) rows.emplace_back();
    Row& row = rows[filled];
    if (row.capacity() < row_capacity) row.reserve(row_capacity);
    row.resize(columns);
    // A row holds a Datum per slot besides its values' bytes: a wide table's batches are bounded by
    // their slots, not by rows alone.
    batch_bytes += row_capacity * sizeof(Datum);
    for (size_t i = 0; i < columns; ++i) {
      const auto& field = fields[i];
      if (!field) {
        row[i].SetNull();
        continue;
      }
      batch_bytes += field->size();
      if (task.text_columns[i]) {
        TIDE_ASSIGN_OR_RETURN(row[i], column_decoders[i]->DecodeText(*field));
      } else {
        TIDE_RETURN_IF_ERROR(column_decoders[i]->DecodeBinaryInto(*field, &row[i]));
      }
    }
    ++filled;
    if (filled >= options_.batch_rows || batch_bytes >= options_.batch_bytes) {
      if (!ship(false)) return Status::Aborted("snapshot copy cancelled");
      if (rows.capacity() < options_.batch_rows) rows.reserve(options_.batch_rows);
    }
    return Status::OK();
  };
  rows.reserve(options_.batch_rows);
  while (true) {
    char* buf = nullptr;
    int n = PQgetCopyData(conn->raw(), &buf, /*async=*/0);
    if (n > 0) {
      copy_bytes += static_cast<uint64_t>(n);
      Status st = parser.Feed(std::string_view(buf, static_cast<size_t>(n)), on_row);
      PQfreemem(buf);
      if (!st.ok()) return st;
      if (cancelled_) return Status::Aborted("snapshot copy cancelled");
      continue;
    }
    if (n == -1) break;
    return conn->LastError("reading COPY of " + relation->table.ToString());
  }
  PgResult result(PQgetResult(conn->raw()));
  if (result.status() != PGRES_COMMAND_OK) {
    return Status::IOError("COPY of {} failed: {}", relation->table.ToString(),
                           result.get() ? PQresultErrorMessage(result.get()) : PQerrorMessage(conn->raw()));
  }
  while (PGresult* extra = PQgetResult(conn->raw())) PQclear(extra);
  TIDE_RETURN_IF_ERROR(parser.Finish());
  const bool table_complete = --table_states_[task.table_index]->remaining_tasks == 0;
  if (filled > 0 || table_complete) {
    if (!ship(table_complete)) return Status::Aborted("snapshot copy cancelled");
  } else {
    bytes_ += copy_bytes;
  }
  // A spare taken by the last ship goes back for the other workers.
  if (rows.capacity() > 0) {
    std::lock_guard<std::mutex> lock(mu_);
    if (recycled_.size() < recycle_limit_) recycled_.push_back(std::move(rows));
  }
  return Status::OK();
}

}  // namespace tide
