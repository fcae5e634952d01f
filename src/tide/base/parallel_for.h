// ParallelFor: runs fn(0) .. fn(count - 1) on the calling thread and up to max_threads - 1 helper
// threads started for the call, each taking the next index until none is left, and returns when all
// have run. For short bursts of independent work per commit (flushing buckets, syncing their
// folders), where the work blocks on the disk more than it uses a CPU and a pool would outlive it.
// The helpers carry `thread_name` (thread_name.h). A helper that cannot be started leaves its share
// to the others.
//
// Thread-safety: fn is called concurrently from several threads with distinct indices; it must not
// throw.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "tide/base/thread_name.h"

namespace tide {

template <typename Fn>
void ParallelFor(size_t count, size_t max_threads, const std::string& thread_name, Fn&& fn) {
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next.fetch_add(1); i < count; i = next.fetch_add(1)) fn(i);
  };
  const size_t threads = std::min(count, std::max<size_t>(max_threads, 1));
  std::vector<std::jthread> helpers;
  helpers.reserve(threads > 0 ? threads - 1 : 0);
  for (size_t t = 1; t < threads; ++t) {
    try {
      helpers.emplace_back([&] {
        SetCurrentThreadName(thread_name);
        work();
      });
    } catch (const std::system_error&) {
      break;  // no thread to be had: the threads started (and this one) do the rest
    }
  }
  work();
}  // the helpers join here

}  // namespace tide
