#include "tide/table/operation/background_maintenance.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "testing/temp_dir.h"
#include "tide/table/operation/maintenance_test_util.h"
#include "tide/table/snapshot/snapshot_manager.h"

namespace tide {
namespace {

using testing::Field;
using testing::MaintenanceTable;
using testing::ValueOrFail;
using testing::WriterTestSchema;

TableSchema Schema(std::vector<std::pair<std::string, std::string>> options) {
  options.emplace_back("bucket", "-1");
  return WriterTestSchema({Field(0, "id", DataType::BigInt(false)), Field(1, "dt", DataType::String())}, {}, {"dt"},
                          options);
}

// A clock an hour ahead that, while held, blocks whoever reads it: a maintenance run that takes as
// long as the test wants.
class HeldClock {
 public:
  void Hold() {
    std::lock_guard<std::mutex> lock(mu_);
    held_ = true;
  }
  void Release() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      held_ = false;
    }
    cv_.notify_all();
  }
  // Waits until a reader is blocked on the held clock.
  void WaitForReader() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return waiting_ > 0; });
  }
  int64_t Read() {
    std::unique_lock<std::mutex> lock(mu_);
    ++waiting_;
    cv_.notify_all();
    cv_.wait(lock, [this] { return !held_; });
    --waiting_;
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
               .count() +
           3'600'000;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool held_ = false;
  int waiting_ = 0;
};

std::vector<int64_t> SnapshotIds(const std::string& path) {
  return ValueOrFail(SnapshotManager(FileSystem::Local(), path).ListIds(), "snapshot ids");
}

TEST(BackgroundMaintenanceTest, RequestsNeverWaitForARunAndFoldIntoOnePendingRun) {
  ::tide::testing::TempDir dir;
  MaintenanceTable table(dir.path() + "/db.db/t",
                         Schema({{"snapshot.num-retained.min", "2"}, {"snapshot.time-retained", "1 min"}}));
  HeldClock clock;
  auto maintenance = ValueOrFail(
      TableMaintenance::Create(FileSystem::Local(), table.path(), "db.t", [&clock] { return clock.Read(); }), "m");
  BackgroundMaintenance background(std::move(maintenance));

  for (int64_t i = 0; i < 3; ++i) table.Append({Row{Datum(i), Datum("2999-01-01")}});
  clock.Hold();
  background.Request();
  clock.WaitForReader();  // the first run is under way and cannot finish
  // Commits go on meanwhile; their requests return at once and fold into one pending run.
  const auto started = std::chrono::steady_clock::now();
  for (int64_t i = 3; i < 8; ++i) {
    table.Append({Row{Datum(i), Datum("2999-01-01")}});
    background.Request();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));
  EXPECT_TRUE(background.stats().running);
  EXPECT_EQ(background.stats().runs, 0);
  EXPECT_EQ(SnapshotIds(table.path()).size(), 8u) << "nothing expired while the run is held";

  clock.Release();
  background.WaitIdle();
  BackgroundMaintenanceStats stats = background.stats();
  EXPECT_EQ(stats.requests, 6);
  EXPECT_EQ(stats.runs, 2) << "the run under way, then one for the five requests made during it";
  EXPECT_EQ(stats.failures, 0);
  EXPECT_FALSE(stats.running);
  EXPECT_TRUE(stats.last_error.empty());
  // The pending run saw the last commit: only snapshot.num-retained.min snapshots are left.
  EXPECT_EQ(SnapshotIds(table.path()), (std::vector<int64_t>{7, 8}));
  EXPECT_EQ(stats.snapshots_expired, 6);
  EXPECT_EQ(ValueOrFail(testing::ReadTable(table.path()), "read").size(), 8u);
}

TEST(BackgroundMaintenanceTest, AFailedRunIsCountedAndReportedNotReturned) {
  ::tide::testing::TempDir dir;
  // changelog.num-retained.min above changelog.num-retained.max (which falls back to the snapshot one):
  // expiry refuses the table, as Java does, before anything goes.
  MaintenanceTable table(dir.path() + "/db.db/t", Schema({{"snapshot.num-retained.min", "1"},
                                                          {"snapshot.num-retained.max", "1"},
                                                          {"changelog.num-retained.min", "5"}}));
  auto maintenance = ValueOrFail(TableMaintenance::Create(FileSystem::Local(), table.path(), "db.t"), "m");
  BackgroundMaintenance background(std::move(maintenance));
  for (int64_t i = 0; i < 3; ++i) {
    table.Append({Row{Datum(i), Datum("2999-01-01")}});
    background.Request();
    background.WaitIdle();
  }
  BackgroundMaintenanceStats stats = background.stats();
  EXPECT_EQ(stats.runs, 3);
  EXPECT_GE(stats.failures, 2);
  EXPECT_NE(stats.last_error.find("db.t"), std::string::npos) << stats.last_error;
  EXPECT_NE(stats.last_error.find("changelog"), std::string::npos) << stats.last_error;
  EXPECT_EQ(SnapshotIds(table.path()).size(), 3u) << "a refused expiry deletes nothing";
}

TEST(BackgroundMaintenanceTest, DestructionWaitsForTheRunUnderWay) {
  ::tide::testing::TempDir dir;
  MaintenanceTable table(dir.path() + "/db.db/t",
                         Schema({{"snapshot.num-retained.min", "1"}, {"snapshot.time-retained", "1 min"}}));
  HeldClock clock;
  auto background = std::make_unique<BackgroundMaintenance>(ValueOrFail(
      TableMaintenance::Create(FileSystem::Local(), table.path(), "db.t", [&clock] { return clock.Read(); }), "m"));
  for (int64_t i = 0; i < 4; ++i) table.Append({Row{Datum(i), Datum("2999-01-01")}});
  clock.Hold();
  background->Request();
  clock.WaitForReader();
  std::atomic<bool> destroyed{false};
  std::thread stopper([&] {
    background.reset();
    destroyed = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_FALSE(destroyed.load()) << "the destructor returned while a run was under way";
  clock.Release();
  stopper.join();
  EXPECT_TRUE(destroyed.load());
  // The run finished whole: one snapshot left, EARLIEST pointing at it, every row readable.
  EXPECT_EQ(SnapshotIds(table.path()), (std::vector<int64_t>{4}));
  EXPECT_EQ(ValueOrFail(SnapshotManager(FileSystem::Local(), table.path()).EarliestId(), "earliest"), 4);
  EXPECT_EQ(ValueOrFail(testing::ReadTable(table.path()), "read").size(), 4u);
}

TEST(BackgroundMaintenanceTest, PartitionExpiryRunsOnTheCallersThread) {
  ::tide::testing::TempDir dir;
  MaintenanceTable table(dir.path() + "/db.db/t", Schema({{"partition.expiration-time", "1 d"},
                                                          {"partition.expiration-check-interval", "0 s"}}));
  auto maintenance = ValueOrFail(TableMaintenance::Create(FileSystem::Local(), table.path(), "db.t"), "m");
  BackgroundMaintenance background(std::move(maintenance));
  table.Append({Row{Datum(int64_t{1}), Datum("2020-01-01")}, Row{Datum(int64_t{2}), Datum("2999-01-01")}});
  auto dropped = ValueOrFail(background.ExpirePartitions(), "expire partitions");
  EXPECT_EQ(dropped, (std::vector<std::string>{"dt=2020-01-01"}));
  EXPECT_EQ(ValueOrFail(testing::ReadTable(table.path()), "read").size(), 1u);
  // The background part never drops partitions.
  table.Append({Row{Datum(int64_t{3}), Datum("2020-01-02")}});
  background.Request();
  background.WaitIdle();
  EXPECT_EQ(ValueOrFail(testing::ReadTable(table.path()), "read").size(), 2u);
}

}  // namespace
}  // namespace tide
