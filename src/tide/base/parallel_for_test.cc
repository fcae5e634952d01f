#include "tide/base/parallel_for.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace tide {
namespace {

// Every index runs once, whatever the count and thread limit (none, one, fewer or more than indices).
TEST(ParallelForTest, RunsEachIndexOnce) {
  for (size_t count : {0u, 1u, 3u, 100u}) {
    for (size_t threads : {0u, 1u, 4u, 200u}) {
      std::vector<std::atomic<int>> runs(count);
      ParallelFor(count, threads, "test", [&](size_t i) { runs[i].fetch_add(1); });
      for (size_t i = 0; i < count; ++i) EXPECT_EQ(runs[i].load(), 1) << count << " indices, " << threads << " threads";
    }
  }
}

// Work that blocks (as an fsync does) overlaps: eight indices that each wait until four are waiting
// at once finish only if four threads run them side by side, the caller's among them.
TEST(ParallelForTest, BlockingWorkRunsSideBySide) {
  std::mutex mu;
  std::set<std::thread::id> threads;
  std::atomic<int> waiting{0};
  std::atomic<int> most{0};
  ParallelFor(8, 4, "test", [&](size_t) {
    {
      std::lock_guard<std::mutex> lock(mu);
      threads.insert(std::this_thread::get_id());
    }
    int now = waiting.fetch_add(1) + 1;
    int seen = most.load();
    while (now > seen && !most.compare_exchange_weak(seen, now)) {
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (most.load() < 4 && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
    waiting.fetch_sub(1);
  });
  EXPECT_EQ(most.load(), 4);
  EXPECT_EQ(threads.size(), 4u);
  EXPECT_EQ(threads.count(std::this_thread::get_id()), 1u);
}

}  // namespace
}  // namespace tide
