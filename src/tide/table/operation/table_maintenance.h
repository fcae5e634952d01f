// TableMaintenance: what Java Paimon runs after every commit of a writer (TableCommitImpl's expire),
// for a writer to call after each commit: idle consumers expire (`consumer.expiration-time`), then
// snapshots (`snapshot.*`, ExpireSnapshots), then partitions (`partition.expiration-time`, at most every
// `partition.expiration-check-interval`), then automatic tags are created (`tag.automatic-creation`) and
// tags past their retention time deleted. A table with `write-only` = true does none of it (another job
// maintains it, as in Java).
//
// The options are read when the TableMaintenance is created; create a new one after an ALTER TABLE.
// Thread-safety: AfterCommit on one thread; or ExpirePartitions on one thread and
// AfterCommitExceptPartitions on another (BackgroundMaintenance does: they touch disjoint state, and
// each commits or deletes through the file system as concurrent writers do). One TableMaintenance per
// table and process (it keeps the partition check time and the tag creation progress).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tide/base/result.h"
#include "tide/io/file_system.h"
#include "tide/table/operation/expire_snapshots.h"
#include "tide/table/operation/partition_expire.h"
#include "tide/table/operation/tag_operations.h"

namespace tide {

struct MaintenanceReport {
  int consumers_expired = 0;
  ExpireResult snapshots;
  std::vector<std::string> partitions_dropped;
  std::vector<std::string> tags_created;
  std::vector<std::string> tags_expired;
};

class TableMaintenance {
 public:
  // `clock` gives epoch millis (the system clock when unset).
  static Result<std::unique_ptr<TableMaintenance>> Create(FileSystem* fs, std::string table_path,
                                                          std::string table_name,
                                                          std::function<int64_t()> clock = nullptr);

  // Runs the steps above once.
  Result<MaintenanceReport> AfterCommit();
  // The steps above but partition expiry: consumers, snapshots, tags.
  Result<MaintenanceReport> AfterCommitExceptPartitions();
  // Partition expiry alone: the partitions dropped (as `k=v/...`); empty when none, or when the check
  // interval has not passed (then it only compares two clock readings).
  Result<std::vector<std::string>> ExpirePartitions();

  const std::string& table_name() const { return table_name_; }

 private:
  Status ExpireConsumersAndSnapshots(MaintenanceReport* report);
  Status UpdateTags(MaintenanceReport* report);

  TableMaintenance(FileSystem* fs, std::string table_path, std::string table_name, std::function<int64_t()> clock)
      : fs_(fs), table_path_(std::move(table_path)), table_name_(std::move(table_name)), clock_(std::move(clock)) {}

  FileSystem* fs_;
  std::string table_path_;
  std::string table_name_;
  std::function<int64_t()> clock_;
  bool write_only_ = false;
  std::optional<int64_t> consumer_expiration_ms_;
  ExpireConfig expire_;
  std::unique_ptr<PartitionExpire> partition_expire_;
  std::unique_ptr<TagAutoCreation> tag_creation_;
};

}  // namespace tide
