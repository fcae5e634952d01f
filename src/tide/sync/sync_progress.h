// SyncProgress: what a running `tide sync postgres` has done, per table and overall, as the progress
// display, the metrics endpoint and the status page show it. The pipeline thread publishes (per copy
// batch, per transaction, per commit round); any thread reads a consistent copy with Snapshot().
//
// Invariant: a snapshot is taken under one lock, so its figures belong together (a table's
// committed_lsn never runs ahead of what its counts say was applied). Counts only grow within a run.
// Thread-safety: every method may be called from any thread.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
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

// Counts of observed durations by bucket, the upper bounds of Prometheus' default latency buckets
// (seconds). counts[i] holds the observations in (kBoundsSeconds[i-1], kBoundsSeconds[i]]; the last
// entry those above every bound. Not cumulative: the metrics text sums them.
struct DurationHistogram {
  static constexpr std::array<double, 13> kBoundsSeconds = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
                                                            1,     2.5,  5,     10,   30,  60};
  std::array<int64_t, kBoundsSeconds.size() + 1> counts{};
  int64_t count = 0;
  double sum_seconds = 0;
  void Observe(double seconds);
};

// One lake commit of a target table, for the status page's list of recent commits.
struct CommitRecord {
  int64_t unix_ms = 0;  // when it landed
  std::string target;   // db.table
  Lsn commit_lsn = kInvalidLsn;
  int64_t snapshot_id = -1;  // the Paimon snapshot it created (-1: unknown)
  double duration_ms = 0;
};

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
  // The lake table's writer after its last commit: rows it buffers (bytes), and the data files of the
  // buckets it compacts (in all, and the most in one bucket, with that bucket's sorted runs).
  int64_t write_buffer_bytes = 0;
  int64_t data_files = 0;
  int64_t max_files_per_bucket = 0;
  int64_t max_sorted_runs_per_bucket = 0;
  // Maintenance after its commits (snapshot expiry, tags; on a thread of its own, so commits do not
  // wait for it): runs finished, runs failed, snapshots expired, the last run's duration, and the error
  // of the last run when it failed (empty otherwise). A failed run does not stop the sync.
  int64_t maintenance_runs = 0;
  int64_t maintenance_failures = 0;
  int64_t snapshots_expired = 0;
  double last_maintenance_ms = 0;
  std::string maintenance_error = {};
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
  int64_t reconnects = 0;  // replication connections lost and made again (this run)
  std::string last_error;  // the error that stopped the sync, if it did (no secrets: conninfo is redacted)
  std::string last_error_kind;  // its StatusCode name (e.g. "Unavailable")

  // Freshness. Source commit times are PostgreSQL's clock, lake commit times this machine's.
  int64_t received_commit_unix_us = 0;  // commit time of the newest source transaction read
  // Commit time of the oldest source transaction read but not yet acknowledged (0: none waits): the
  // lake lags the source by now minus this.
  int64_t pending_since_unix_us = 0;
  // Per commit round: its landing time minus the commit time of the newest source transaction in it.
  DurationHistogram freshness;
  double last_freshness_seconds = -1;  // of the last round (-1: none yet)
  DurationHistogram commit_duration;   // per table commit (prepare + commit)
  static constexpr size_t kRecentCommits = 20;
  std::deque<CommitRecord> recent_commits;  // newest last, at most kRecentCommits
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
