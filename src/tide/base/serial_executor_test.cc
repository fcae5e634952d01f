#include "tide/base/serial_executor.h"

#include <gtest/gtest.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <string>
#include <vector>

namespace tide {
namespace {

int CurrentThreadNice() { return ::getpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid))); }

TEST(SerialExecutorTest, RunsTasksInSubmissionOrder) {
  std::vector<int> order;
  std::vector<std::future<int>> results;
  {
    SerialExecutor executor;
    for (int i = 0; i < 20; ++i) {
      results.push_back(executor.Submit<int>([&order, i] {
        order.push_back(i);
        return i * i;
      }));
    }
  }  // the destructor waits for every task submitted
  ASSERT_EQ(order.size(), 20u);
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(order[static_cast<size_t>(i)], i);
    EXPECT_EQ(results[static_cast<size_t>(i)].get(), i * i);
  }
}

TEST(SerialExecutorTest, ABackgroundExecutorRunsItsTasksAtALowerPriorityThanTheCaller) {
  const int caller = CurrentThreadNice();
  SerialExecutor normal;
  SerialExecutor background(SerialExecutor::Priority::kBackground);
  const int normal_nice = normal.Submit<int>(CurrentThreadNice).get();
  const int background_nice = background.Submit<int>(CurrentThreadNice).get();
  EXPECT_EQ(normal_nice, caller);
  EXPECT_EQ(background_nice, std::min(19, caller + kBackgroundNiceIncrement));
  // The caller's own priority is untouched: the nice value is per thread.
  EXPECT_EQ(CurrentThreadNice(), caller);
}

TEST(SerialExecutorTest, ItsThreadCarriesTheExecutorsNameCutToLinuxsLimit) {
  auto name_of_task_thread = [](SerialExecutor& executor) {
    return executor.Submit<std::string>([] {
      char name[32] = {};
      return ::pthread_getname_np(::pthread_self(), name, sizeof name) == 0 ? std::string(name) : std::string("?");
    }).get();
  };
  SerialExecutor compact(SerialExecutor::Priority::kBackground, "tide-compact");
  EXPECT_EQ(name_of_task_thread(compact), "tide-compact");
  SerialExecutor long_name(SerialExecutor::Priority::kNormal, "tide-a-name-longer-than-fifteen");
  EXPECT_EQ(name_of_task_thread(long_name), "tide-a-name-lon");
}

}  // namespace
}  // namespace tide
