// SyncProgress: what a running `tide sync postgres` has done, per table and overall, as the progress
// display, the metrics endpoint and the status page show it. The pipeline thread publishes (per copy
// batch, per transaction, per commit round); any thread reads a consistent copy with Snapshot().
//
// Invariant: a snapshot is taken under one lock, so its figures belong together (a table's
// committed_lsn never runs ahead of what its counts say was applied). Counts only grow within a run.
// Thread-safety: every method may be called from any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "tide/postgres/lsn.h"

namespace tide {

enum class TablePhase {
  kWaiting,    // selected; its copy has not started (or waits for a restart)
  kCopying,    // its initial copy runs
  kStreaming,  // copied (now or by an earlier run) and following the stream
};
const char* TablePhaseName(TablePhase phase);

struct TableProgress {
  std::string source;  // schema.table in PostgreSQL
  std::string target;  // db.table in the lake
  TablePhase phase = TablePhase::kWaiting;
  int64_t rows_estimate = -1;  // PostgreSQL's estimate of the rows to copy (pg_class.reltuples); -1: none
  int64_t rows_copied = 0;     // rows of the initial copy written so far (this run)
  int64_t changes_streamed = 0;  // streamed row changes applied (this run)
  int64_t commits = 0;           // lake commits of this table (this run)
  Lsn committed_lsn = kInvalidLsn;  // the source position the lake table holds, durably
  int64_t last_commit_unix_ms = 0;  // wall-clock time of its last commit (0: none this run)
  double last_commit_duration_ms = 0;  // how long that commit took (prepare + commit)
};

struct SyncProgressSnapshot {
  std::string slot;
  std::string publication;
  int64_t started_unix_ms = 0;
  std::vector<TableProgress> tables;  // in the order they were selected
  int64_t transactions = 0;           // source transactions read from the stream (this run)
  int64_t streamed_changes = 0;       // row changes applied, all tables
  int64_t commit_rounds = 0;
  Lsn received_lsn = kInvalidLsn;      // end of the last source transaction read
  Lsn acknowledged_lsn = kInvalidLsn;  // the flush position last reported to PostgreSQL
  int64_t last_commit_unix_ms = 0;
  std::string last_error;  // the error that stopped the sync, if it did (no secrets: conninfo is redacted)
};

class SyncProgress {
 public:
  SyncProgressSnapshot Snapshot() const {
    std::lock_guard<std::mutex> lock(mu_);
    return state_;
  }
  // Changes the state under the lock (the pipeline's side).
  void Update(const std::function<void(SyncProgressSnapshot&)>& change) {
    std::lock_guard<std::mutex> lock(mu_);
    change(state_);
  }
  // The entry of `source` (added, with `target`, when missing).
  static TableProgress& TableOf(SyncProgressSnapshot& state, const std::string& source, const std::string& target);

 private:
  mutable std::mutex mu_;
  SyncProgressSnapshot state_;
};

}  // namespace tide
