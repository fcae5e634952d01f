// BackgroundMaintenance: runs a table's maintenance after commits (TableMaintenance: consumer and
// snapshot expiry, automatic tags) on a thread of its own, so a writer that commits on an interval
// never waits for it. Java's committer runs the same steps after each commit, on the committing
// thread; a sync cannot afford that: once snapshots start to expire, one run deletes the files of up to
// `snapshot.expire.limit` snapshots and takes longer than a commit interval.
//
// Invariants: at most one run at a time; Request() never blocks on a run: it marks one pending, and
// requests made while a run is under way fold into that one pending run (so a writer that stops
// committing still gets a run after its last commit). A failed run is logged and counted (stats()),
// never returned to the caller: the commit it follows stands, and the next request retries. Partition
// expiry is not run here (ExpirePartitions, on the caller's thread): its OVERWRITE changes what the
// writer holds, so the writer must see it at once.
//
// Stopping: the destructor drops a pending run and waits for a running one to finish (one run is
// bounded by `snapshot.expire.limit`). A process killed in the middle of a run is safe: expiry deletes
// the snapshot files (and moves EARLIEST) before the data and metadata files only they referenced, so
// a crash leaves at worst unreferenced files for orphan removal, never a snapshot missing a file.
//
// Thread-safety: Request, WaitIdle and stats from any thread; ExpirePartitions from one thread at a time.
#pragma once

#include <algorithm>

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "tide/base/result.h"
#include "tide/table/operation/table_maintenance.h"

namespace tide {

struct BackgroundMaintenanceStats {
  int64_t requests = 0;  // calls of Request
  int64_t runs = 0;      // runs finished (succeeded or failed)
  int64_t failures = 0;  // runs that failed
  int64_t snapshots_expired = 0;
  int64_t data_files_deleted = 0;
  double last_run_ms = 0;  // duration of the last finished run
  double max_run_ms = 0;
  std::string last_error;  // the error of the last failed run; empty once a later run succeeds
  bool running = false;

  // Adds the counts of `later` (a maintenance that came after this one); its last run, if any, is
  // the last run. `running` is left as it is.
  void Accumulate(const BackgroundMaintenanceStats& later) {
    requests += later.requests;
    runs += later.runs;
    failures += later.failures;
    snapshots_expired += later.snapshots_expired;
    data_files_deleted += later.data_files_deleted;
    max_run_ms = std::max(max_run_ms, later.max_run_ms);
    if (later.runs > 0) {
      last_run_ms = later.last_run_ms;
      last_error = later.last_error;
    }
  }
};

class BackgroundMaintenance {
 public:
  explicit BackgroundMaintenance(std::unique_ptr<TableMaintenance> maintenance);
  ~BackgroundMaintenance();
  BackgroundMaintenance(const BackgroundMaintenance&) = delete;
  BackgroundMaintenance& operator=(const BackgroundMaintenance&) = delete;

  // Asks for a run after a commit; returns at once.
  void Request();
  // Waits until no run is under way or pending (tests, benchmarks, `tide` commands that exit).
  void WaitIdle();
  BackgroundMaintenanceStats stats() const;

  // Partition expiry on the caller's thread (TableMaintenance::ExpirePartitions).
  Result<std::vector<std::string>> ExpirePartitions() { return maintenance_->ExpirePartitions(); }

  const std::string& table_name() const { return table_name_; }

 private:
  void Loop();

  std::unique_ptr<TableMaintenance> maintenance_;
  std::string table_name_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool pending_ = false;
  bool stopping_ = false;
  BackgroundMaintenanceStats stats_;
  std::thread worker_;  // started by the first Request
};

}  // namespace tide
