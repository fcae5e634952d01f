#include "tide/cli/status_history.h"

#include "tide/cli/prometheus_text.h"

namespace tide::cli {

void StatusHistory::Record(const SyncProgressSnapshot& progress, int64_t now_unix_ms) {
  StatusSample s;
  s.unix_ms = now_unix_ms;
  s.lag_bytes = ReplicationLagBytes(progress);
  s.lag_seconds = LagSeconds(progress, now_unix_ms);
  s.freshness_seconds = progress.last_freshness_seconds;
  for (const TableProgress& t : progress.tables) {
    s.rows_copied += t.rows_copied;
    s.changes_streamed += t.changes_streamed;
  }
  std::lock_guard<std::mutex> lock(mu_);
  samples_.push_back(s);
  while (samples_.size() > capacity_) samples_.pop_front();
}

std::vector<StatusSample> StatusHistory::Samples() const {
  std::lock_guard<std::mutex> lock(mu_);
  return {samples_.begin(), samples_.end()};
}

}  // namespace tide::cli
