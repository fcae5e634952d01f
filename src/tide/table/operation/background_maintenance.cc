#include "tide/table/operation/background_maintenance.h"

#include <algorithm>
#include <chrono>

#include "tide/base/logging.h"
#include "tide/base/thread_name.h"
#include "tide/base/thread_priority.h"

namespace tide {

BackgroundMaintenance::BackgroundMaintenance(std::unique_ptr<TableMaintenance> maintenance)
    : maintenance_(std::move(maintenance)), table_name_(maintenance_->table_name()) {}

BackgroundMaintenance::~BackgroundMaintenance() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    pending_ = false;
  }
  cv_.notify_all();
  if (worker_.joinable()) worker_.join();
}

void BackgroundMaintenance::Request() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;
    ++stats_.requests;
    pending_ = true;
    if (!worker_.joinable()) worker_ = std::thread([this] { Loop(); });
  }
  cv_.notify_all();
}

void BackgroundMaintenance::WaitIdle() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [this] { return stopping_ || (!pending_ && !stats_.running); });
}

BackgroundMaintenanceStats BackgroundMaintenance::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

void BackgroundMaintenance::Loop() {
  SetCurrentThreadName("tide-maintain");
  LowerCurrentThreadPriority();  // expiry may wait; the sync's commits may not
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    cv_.wait(lock, [this] { return stopping_ || pending_; });
    if (stopping_) break;
    pending_ = false;
    stats_.running = true;
    lock.unlock();
    const auto started = std::chrono::steady_clock::now();
    auto report = maintenance_->AfterCommitExceptPartitions();
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    if (!report.ok()) {
      TIDE_LOG_WARN("table {}: maintenance after a commit failed (the commits stand; it runs again after the next "
                    "one): {}",
                    table_name_, report.status().ToString());
    }
    lock.lock();
    ++stats_.runs;
    stats_.last_run_ms = ms;
    stats_.max_run_ms = std::max(stats_.max_run_ms, ms);
    if (report.ok()) {
      stats_.snapshots_expired += report->snapshots.snapshots_deleted;
      stats_.data_files_deleted += report->snapshots.data_files_deleted;
      stats_.last_error.clear();
    } else {
      ++stats_.failures;
      stats_.last_error = report.status().ToString();
    }
    stats_.running = false;
    cv_.notify_all();
  }
  stats_.running = false;
  cv_.notify_all();
}

}  // namespace tide
