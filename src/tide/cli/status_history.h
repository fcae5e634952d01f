// StatusHistory: the last minutes of a running sync's lag and freshness, sampled at a fixed interval by
// the metrics server, for the status page's charts (the page can draw minutes it was not open for).
//
// Invariant: samples are in time order and at most `capacity` are kept (the oldest are dropped).
// Thread-safety: every method may be called from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <vector>

#include "tide/sync/sync_progress.h"

namespace tide::cli {

struct StatusSample {
  int64_t unix_ms = 0;
  int64_t lag_bytes = 0;       // received but not acknowledged WAL
  double lag_seconds = 0;      // age of the oldest transaction not yet in the lake
  double freshness_seconds = -1;  // of the last commit round (-1: none yet)
  int64_t rows_copied = 0;     // all tables
  int64_t changes_streamed = 0;  // all tables
};

class StatusHistory {
 public:
  explicit StatusHistory(size_t capacity) : capacity_(capacity) {}
  // Adds the sample of `progress` at `now_unix_ms`.
  void Record(const SyncProgressSnapshot& progress, int64_t now_unix_ms);
  std::vector<StatusSample> Samples() const;

 private:
  const size_t capacity_;
  mutable std::mutex mu_;
  std::deque<StatusSample> samples_;
};

}  // namespace tide::cli
