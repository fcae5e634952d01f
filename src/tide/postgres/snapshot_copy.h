// SnapshotCopy: the initial copy of tables as of a replication slot's exported snapshot, by N worker
// sessions in parallel, streaming typed rows in bounded batches.
//
// Every worker opens its own session and runs
//   BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SET TRANSACTION SNAPSHOT '<snapshot>';
// before Start() returns, and locks every table IN ACCESS SHARE MODE (writes go on, DDL waits for the
// copy; a table altered or truncated before the locks is reported, not copied; a schema change queued
// while the sessions lock makes them all step back and import again), so that afterwards the
// exporting replication connection may start streaming (which ends the export). Each table is copied with
//   COPY (SELECT <columns> FROM <table> [WHERE ctid >= '(a,0)' AND ctid < '(b,0)']) TO STDOUT (FORMAT binary)
// With more than one worker, a table larger than `split_pages` is cut into block ranges (PostgreSQL
// 14+ scans them with a TID range scan, reading only those blocks); a partitioned table is copied
// partition by partition, and its rows are reported under the root. The binary COPY stream is
// parsed here (signature, flags, header extension, per-row field count, -1 = NULL, trailer) and each
// field decoded with the column's PgValueDecoder; columns whose type has no binary decoder are
// selected as `col::text` and decoded from text. Generated columns are left out, as pgoutput leaves
// them out.
//
// Memory is bounded: batches hold at most `batch_rows` rows or `batch_bytes` bytes (the values'
// bytes and a Datum slot for each value a row has room for), and at most `queue_batches` wait for the
// consumer; workers block when the queue is full. A consumer that hands batches back with Recycle()
// lets the workers refill their storage (row vectors, value buffers) instead of allocating anew and
// freeing on the consumer's thread. A worker starts each range with a spare batch when one waits, so
// at most queue_batches + workers + 1 batches are alive at once (the queue's, one being filled per
// worker, one at the consumer), and as many wait in the spare pool.
//
// Thread-safety: Next(), Recycle() and Cancel() are called by one consumer thread (Cancel also from
// others, Recycle from any thread); the workers are internal threads.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "tide/base/result.h"
#include "tide/postgres/change.h"
#include "tide/postgres/lsn.h"
#include "tide/postgres/pg_connection.h"
#include "tide/postgres/publication.h"

namespace tide {

struct SnapshotCopyOptions {
  std::string conninfo;       // a regular session's conninfo (same database as the slot)
  std::string snapshot_name;  // from CreateReplicationSlot(kExport)
  Lsn snapshot_lsn = kInvalidLsn;  // the slot's consistent point: rows are as of this position
  int workers = 4;
  int64_t split_pages = 4096;  // with workers > 1, tables (or partitions) with more 8 kB pages are cut into ranges
  int ranges_per_worker = 2;   // a split table gets workers * ranges_per_worker ranges (at least)
  size_t batch_rows = 4096;
  size_t batch_bytes = 4u << 20;
  size_t queue_batches = 8;
  // Room for values each row of a table is allocated with (at least its column count): the consumer's
  // width when it appends values (computed columns), so its rows need not grow. Tables not named: none.
  std::map<PgTableName, size_t> row_capacity;
  // Room beyond its column count for every row of a table not in row_capacity (a target not opened
  // yet: the values its consumer may append, computed and metadata columns). Tables not named: none.
  std::map<PgTableName, size_t> row_extra;
  // Tests only: called each time the first session holds its locks, before the others ask for theirs.
  std::function<void()> on_first_session_locked;
};

// Rows of one table, all visible in the snapshot. Batches of one range arrive in table order; ranges
// and tables interleave.
struct CopyBatch {
  SourceRelationPtr relation;  // the table (the root of a partitioned table); key_columns = primary key
  Lsn snapshot_lsn = kInvalidLsn;
  std::vector<Row> rows;
  bool table_complete = false;  // the table's last batch (it may be empty)
};

struct SnapshotCopyStats {
  uint64_t rows = 0;
  uint64_t bytes = 0;  // COPY payload bytes
  uint64_t ranges = 0;
};

class SnapshotCopy {
 public:
  // Plans the copy under the snapshot, starts the workers and waits until each imported the snapshot.
  static Result<std::unique_ptr<SnapshotCopy>> Start(SnapshotCopyOptions options, std::vector<PgTableName> tables);
  ~SnapshotCopy();  // cancels and joins the workers
  SnapshotCopy(const SnapshotCopy&) = delete;
  SnapshotCopy& operator=(const SnapshotCopy&) = delete;

  // The next batch; nullopt when every table is complete. The first worker error is returned (the
  // copy is then cancelled).
  Result<std::optional<CopyBatch>> Next();
  // Gives back a batch whose rows the consumer no longer needs (they may have been moved out); a worker
  // reuses its storage for a later batch. Optional: batches not given back are simply freed.
  void Recycle(CopyBatch batch);
  void Cancel();

  // The descriptions of the tables copied, in the order given (changed_tables() left out).
  const std::vector<SourceRelationPtr>& relations() const { return copied_relations_; }
  // The tables not copied because their columns or storage changed between the snapshot and the start
  // of the copy (a COPY can only name the columns the catalog has now, and sees a table truncated
  // since as empty); copy them again under a later snapshot.
  const std::vector<PgTableName>& changed_tables() const { return changed_tables_; }
  SnapshotCopyStats stats() const;

 private:
  struct Task {
    size_t table_index;
    std::string sql;  // the COPY statement
    std::vector<bool> text_columns;
  };
  struct TableState {
    std::atomic<int> remaining_tasks{0};
  };
  SnapshotCopy() = default;
  void Worker(size_t worker_index);
  Status RunTask(PgConnection* conn, const Task& task);
  // Queues a batch; false when cancelled. Hands a recycled row vector (if any) to `*spare`.
  bool Push(CopyBatch batch, std::vector<Row>* spare);
  // Moves a recycled row vector (if any) into `*spare`. REQUIRES: mu_ held.
  void TakeSpareLocked(std::vector<Row>* spare);
  void Fail(Status status);

  SnapshotCopyOptions options_;
  std::vector<SourceRelationPtr> relations_;  // by table index; null for a changed table
  std::vector<SourceRelationPtr> copied_relations_;
  std::vector<PgTableName> changed_tables_;
  std::vector<std::unique_ptr<TableState>> table_states_;
  std::vector<Task> tasks_;
  std::atomic<size_t> next_task_{0};
  std::vector<std::unique_ptr<PgConnection>> worker_conns_;  // one per worker, inside the imported snapshot
  std::vector<std::thread> threads_;

  mutable std::mutex mu_;
  std::condition_variable not_empty_;
  std::condition_variable not_full_;
  std::deque<CopyBatch> queue_;
  std::vector<std::vector<Row>> recycled_;  // given back by the consumer, for the workers to refill
  size_t recycle_limit_ = 0;                // at most this many wait in recycled_
  size_t workers_running_ = 0;
  Status error_;
  std::atomic<bool> cancelled_{false};
  std::atomic<uint64_t> rows_{0};
  std::atomic<uint64_t> bytes_{0};
};

// Parses binary COPY output incrementally: feed CopyData chunks in order; complete rows come out.
// Corruption on a bad signature, a field count that differs from `columns`, or a truncated stream at
// Finish(). Thread-safety: one thread.
class BinaryCopyParser {
 public:
  explicit BinaryCopyParser(size_t columns, std::string what) : columns_(columns), what_(std::move(what)) {}
  // Feeds bytes; calls `on_row(fields)` for each complete row, where fields[i] is nullopt for NULL.
  // `on_row` returns a Status; an error stops parsing and is returned.
  template <typename OnRow>
  Status Feed(std::string_view chunk, OnRow&& on_row);
  // The stream ended: OK only after the trailer (or, for an empty chunk list, never).
  Status Finish() const;
  bool done() const { return done_; }

 private:
  // Parses one row from `data` if complete: returns bytes consumed (0 if incomplete).
  template <typename OnRow>
  Result<size_t> ParseOne(std::string_view data, OnRow&& on_row);

  size_t columns_;
  std::string what_;
  bool header_done_ = false;
  bool done_ = false;
  std::string pending_;
  std::vector<std::optional<std::string_view>> fields_;
};

}  // namespace tide

#include "tide/postgres/snapshot_copy_parser_inl.h"
