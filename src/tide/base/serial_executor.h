// SerialExecutor: one worker thread that runs submitted tasks one after another, in submission order
// (Java's single-thread ExecutorService, as a Paimon writer's compaction executor). The thread starts
// with the first task. The destructor waits for the tasks already submitted, then joins. A background
// executor's thread runs at a lower CPU priority (thread_priority.h); the thread carries the executor's
// name (thread_name.h).
//
// Thread-safety: Submit may be called from any thread; tasks run on the worker thread only.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "tide/base/thread_name.h"
#include "tide/base/thread_priority.h"

namespace tide {

class SerialExecutor {
 public:
  enum class Priority { kNormal, kBackground };
  explicit SerialExecutor(Priority priority = Priority::kNormal, std::string name = "tide-executor")
      : priority_(priority), name_(std::move(name)) {}
  ~SerialExecutor() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
    }
    cv_.notify_all();
    if (worker_.joinable()) worker_.join();
  }
  SerialExecutor(const SerialExecutor&) = delete;
  SerialExecutor& operator=(const SerialExecutor&) = delete;

  // Queues `task`; the future holds its result once it has run.
  template <typename T>
  std::future<T> Submit(std::function<T()> task) {
    auto packaged = std::make_shared<std::packaged_task<T()>>(std::move(task));
    std::future<T> result = packaged->get_future();
    {
      std::lock_guard<std::mutex> lock(mu_);
      queue_.push_back([packaged] { (*packaged)(); });
      if (!worker_.joinable()) worker_ = std::thread([this] { Run(); });
    }
    cv_.notify_one();
    return result;
  }

 private:
  void Run() {
    SetCurrentThreadName(name_);
    if (priority_ == Priority::kBackground) LowerCurrentThreadPriority();
    while (true) {
      std::function<void()> task;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
        if (queue_.empty()) return;  // stopping, and nothing left to run
        task = std::move(queue_.front());
        queue_.pop_front();
      }
      task();
    }
  }

  const Priority priority_;
  const std::string name_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  std::thread worker_;
};

}  // namespace tide
