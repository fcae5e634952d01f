#include "tide/table/operation/table_maintenance.h"

#include <chrono>

#include "tide/table/schema/schema_manager.h"
#include "tide/table/snapshot/consumer_manager.h"

namespace tide {

Result<std::unique_ptr<TableMaintenance>> TableMaintenance::Create(FileSystem* fs, std::string table_path,
                                                                   std::string table_name,
                                                                   std::function<int64_t()> clock) {
  if (!clock) {
    clock = [] {
      return std::chrono::duration_cast<std::chrono::milliseconds>(
                 std::chrono::system_clock::now().time_since_epoch())
          .count();
    };
  }
  auto schema = SchemaManager(fs, table_path).Latest();
  if (!schema.ok()) return schema.status().WithContext(fmt::format("table {}", table_name));
  TIDE_ASSIGN_OR_RETURN(CoreOptions options, CoreOptions::Create(*schema, table_name));
  std::unique_ptr<TableMaintenance> m(new TableMaintenance(fs, table_path, table_name, clock));
  m->write_only_ = options.write_only();
  m->consumer_expiration_ms_ = options.consumer_expiration_time_ms();
  m->expire_ = ExpireConfig::FromOptions(options);
  TIDE_ASSIGN_OR_RETURN(auto partition, PartitionExpireConfig::FromOptions(options, table_name, std::nullopt));
  if (partition && !schema->partition_keys.empty()) {
    m->partition_expire_ = std::make_unique<PartitionExpire>(fs, table_path, table_name, *partition, clock());
  }
  TIDE_ASSIGN_OR_RETURN(m->tag_creation_, TagAutoCreation::Create(fs, table_path, table_name, options));
  return m;
}

Result<MaintenanceReport> TableMaintenance::AfterCommit() {
  // Java's order: consumers, snapshots, partitions, tags.
  MaintenanceReport report;
  TIDE_RETURN_IF_ERROR(ExpireConsumersAndSnapshots(&report));
  TIDE_ASSIGN_OR_RETURN(report.partitions_dropped, ExpirePartitions());
  TIDE_RETURN_IF_ERROR(UpdateTags(&report));
  return report;
}

Result<MaintenanceReport> TableMaintenance::AfterCommitExceptPartitions() {
  MaintenanceReport report;
  TIDE_RETURN_IF_ERROR(ExpireConsumersAndSnapshots(&report));
  TIDE_RETURN_IF_ERROR(UpdateTags(&report));
  return report;
}

Status TableMaintenance::ExpireConsumersAndSnapshots(MaintenanceReport* report) {
  if (write_only_) return Status::OK();
  if (consumer_expiration_ms_) {
    TIDE_ASSIGN_OR_RETURN(report->consumers_expired,
                          ConsumerManager(fs_, table_path_).ExpireBefore(clock_() - *consumer_expiration_ms_));
  }
  TIDE_ASSIGN_OR_RETURN(report->snapshots, ExpireSnapshots(fs_, table_path_, table_name_, clock_).Expire(expire_));
  return Status::OK();
}

Result<std::vector<std::string>> TableMaintenance::ExpirePartitions() {
  if (write_only_ || !partition_expire_) return std::vector<std::string>{};
  TIDE_ASSIGN_OR_RETURN(auto dropped, partition_expire_->Expire(clock_()));
  if (!dropped) return std::vector<std::string>{};
  return std::move(*dropped);
}

Status TableMaintenance::UpdateTags(MaintenanceReport* report) {
  if (write_only_) return Status::OK();
  const int64_t now = clock_();
  if (tag_creation_) {
    TIDE_ASSIGN_OR_RETURN(report->tags_created, tag_creation_->Run(now));
  }
  TIDE_ASSIGN_OR_RETURN(report->tags_expired, ExpireTagsByTime(fs_, table_path_, table_name_, now));
  return Status::OK();
}

}  // namespace tide
