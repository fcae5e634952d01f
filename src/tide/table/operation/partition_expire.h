// PartitionExpire: drops the partitions whose time, read from their values, is older than
// `partition.expiration-time`, as Java's PartitionExpire with the values-time strategy does.
//
// A partition's time is its first value, or `partition.timestamp-pattern` with `$key` replaced by the
// partition's values (e.g. `$dt $hour:00:00`), parsed with `partition.timestamp-formatter` (a
// java.time pattern such as `yyyyMMdd` or `yyyy-MM-dd HH`) or, without one, as `yyyy-MM-dd[ HH:mm:ss]`;
// a date alone means its midnight. A partition expires when now (local time) minus the expiration time
// is after its time; values that do not parse (or NULL) never expire. At most
// `partition.expiration-max-num` partitions go per run (the smallest values first), in OVERWRITE
// commits of `partition.expiration-batch-size` partitions each (all in one when unset), each an
// overwrite of those partitions with nothing, by a commit user of its own. A run happens at most every
// `partition.expiration-check-interval` (0: every call). Their files stay until snapshot expiry.
//
// Thread-safety: one PartitionExpire per thread; it keeps the time of its last check.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tide/base/result.h"
#include "tide/io/file_system.h"
#include "tide/table/schema/core_options.h"

namespace tide {

struct PartitionExpireConfig {
  int64_t expiration_time_ms = 0;
  int64_t check_interval_ms = 0;
  int32_t max_num = 100;
  std::optional<int32_t> batch_size;
  std::optional<std::string> timestamp_formatter;
  std::optional<std::string> timestamp_pattern;

  // The table's partition.* options; nullopt when partition.expiration-time is not set.
  // `expiration_time_ms` overrides it (the CLI's --expiration-time).
  static Result<std::optional<PartitionExpireConfig>> FromOptions(const CoreOptions& options,
                                                                  const std::string& table_name,
                                                                  std::optional<int64_t> expiration_time_ms);
};

class PartitionExpire {
 public:
  // `now_ms` is the time of construction (the first check comes at once when the interval is 0, or
  // within one interval otherwise, as Java spreads writers' checks).
  PartitionExpire(FileSystem* fs, std::string table_path, std::string table_name, PartitionExpireConfig config,
                  int64_t now_ms);

  // The partitions dropped (as `k=v/k2=v2`), or nullopt when the check interval has not passed.
  Result<std::optional<std::vector<std::string>>> Expire(int64_t now_ms);

 private:
  FileSystem* fs_;
  std::string table_path_;
  std::string table_name_;
  PartitionExpireConfig config_;
  int64_t last_check_ms_;
};

// The local time (millis since 1970-01-01T00:00, no zone) that `text` names under the java.time pattern
// `formatter` (nullopt: Java's default yyyy-M-d[ H:m:s[.fraction]]); nullopt if it does not parse.
// Supported pattern letters: y, M, d, H, m, s, S and quoted literals.
std::optional<int64_t> ParsePartitionTime(const std::string& text, const std::optional<std::string>& formatter);

}  // namespace tide
