// ConsumerManager: the consumer files of one table, `consumer/consumer-<id>` = {"nextSnapshot" : N}, as
// Java's ConsumerManager reads and writes them.
//
// A streaming reader with a `consumer-id` records the next snapshot it will read; snapshot expiry keeps
// every snapshot from the smallest such id on. `consumer.expiration-time` ends idle consumers: a file not
// modified for that long is deleted. Thread-safety: holds only paths; safe to share. Answers reflect the
// files at call time.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "tide/base/result.h"
#include "tide/io/file_system.h"

namespace tide {

class ConsumerManager {
 public:
  ConsumerManager(FileSystem* fs, std::string table_path) : fs_(fs), table_path_(std::move(table_path)) {}

  std::string ConsumerDir() const;
  std::string ConsumerPath(const std::string& consumer_id) const;

  // nextSnapshot of every consumer, by id. A file that vanished while listing is skipped.
  Result<std::map<std::string, int64_t>> Consumers() const;
  // The smallest nextSnapshot over all consumers; nullopt when there is none.
  Result<std::optional<int64_t>> MinNextSnapshot() const;
  // Writes (replaces) one consumer file.
  Status ResetConsumer(const std::string& consumer_id, int64_t next_snapshot) const;
  // Deletes the consumer files last modified before `before_ms` (epoch millis); returns how many.
  Result<int> ExpireBefore(int64_t before_ms) const;

 private:
  FileSystem* fs_;
  std::string table_path_;
};

}  // namespace tide
