// Tag operations of one table, as Java Paimon does them: creating a tag of a snapshot, deleting a tag
// together with the files only it referenced (TagDeletion), expiring tags whose retention time is over
// (TagTimeExpire), and creating tags automatically after commits (TagAutoCreation, `tag.automatic-creation`
// = process-time or watermark, periods daily / hourly / two-hours or `tag.creation-period-duration`,
// `tag.creation-delay`, `tag.num-retained-max`, `tag.default-time-retained`, `tag.automatic-completion`).
//
// Deleting a tag whose snapshot still exists deletes only the tag file (the snapshot keeps its files).
// Otherwise the files the tag alone kept are those not live in its neighbours: the previous tag and the
// nearer of the next tag and the earliest snapshot (files are live over a contiguous range of
// snapshots). The tag file goes first, so a reader of the tag meets a missing tag, not missing data.
//
// Thread-safety: one caller at a time per table (as with expiry).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tide/base/result.h"
#include "tide/io/file_system.h"
#include "tide/table/schema/core_options.h"
#include "tide/table/snapshot/snapshot.h"

namespace tide {

struct TagDeletionResult {
  bool tag_existed = false;
  int64_t data_files_deleted = 0;
  int64_t manifest_files_deleted = 0;  // manifests, manifest lists, index manifests and files, statistics
};

// Creates tag `name` of snapshot `snapshot_id` (the latest when unset). `time_retained_ms` unset takes
// `tag.default-time-retained`; with neither, the tag is the plain snapshot JSON. InvalidArgument /
// NotFound / AlreadyExists naming the table and what to do.
Result<Snapshot> CreateTag(FileSystem* fs, const std::string& table_path, const std::string& table_name,
                           const std::string& name, std::optional<int64_t> snapshot_id,
                           std::optional<int64_t> time_retained_ms, int64_t now_ms);

// Deletes tag `name` and the files only it kept. NotFound (naming the tags there are) if it does not exist.
Result<TagDeletionResult> DeleteTag(FileSystem* fs, const std::string& table_path, const std::string& table_name,
                                    const std::string& name);

// Deletes the tags whose tagCreateTime + tagTimeRetained is before `now_ms`; returns their names.
Result<std::vector<std::string>> ExpireTagsByTime(FileSystem* fs, const std::string& table_path,
                                                  const std::string& table_name, int64_t now_ms);

// The names and periods of automatic tags (Java's TagPeriodHandler): a period's tag is named after the
// period's start, e.g. `2024-01-01` (daily) or `2024-01-01 13` (hourly), and is created from the first
// snapshot whose time is at least one period (plus the delay) past that start.
class TagPeriod {
 public:
  static Result<TagPeriod> FromOptions(const CoreOptions& options, const std::string& table_name);

  int64_t period_ms() const { return period_ms_; }
  // Local-time millis (a LocalDateTime as millis since 1970-01-01T00:00, no zone) of a tag name;
  // nullopt if `name` is not an automatic tag of this period.
  std::optional<int64_t> TagToTime(const std::string& name) const;
  std::string TimeToTag(int64_t local_ms) const;
  // The start of the period before the one holding `local_ms`.
  int64_t NormalizeToPreviousTag(int64_t local_ms) const;

 private:
  enum class Format { kDay, kDayNoDashes, kHour, kHourNoDashes, kHourNoDashesNoSpaces, kMinute };
  TagPeriod(int64_t period_ms, Format format) : period_ms_(period_ms), format_(format) {}
  int64_t period_ms_;
  Format format_;
};

// Creates automatic tags after commits. Keeps, like Java, the next snapshot to look at and the next tag
// time in memory, restored from the newest automatic tag when created.
class TagAutoCreation {
 public:
  // nullptr (no error) when `tag.automatic-creation` is none or batch.
  static Result<std::unique_ptr<TagAutoCreation>> Create(FileSystem* fs, std::string table_path,
                                                         std::string table_name, const CoreOptions& options);

  // Looks at every snapshot since the last call and creates the tags that are due, then deletes the
  // oldest automatic tags past `tag.num-retained-max`. `now_ms` stamps tags with a retention time.
  // Returns the tags created.
  Result<std::vector<std::string>> Run(int64_t now_ms);

 private:
  TagAutoCreation(FileSystem* fs, std::string table_path, std::string table_name, TagPeriod period,
                  TagCreationMode mode, std::optional<int64_t> zone_offset_ms, int64_t delay_ms,
                  std::optional<int32_t> num_retained_max, std::optional<int64_t> default_time_retained_ms,
                  bool automatic_completion);
  Status Restore();
  // Local-time millis of a snapshot (its commit time or watermark), nullopt when it has none.
  std::optional<int64_t> TimeOf(const Snapshot& snapshot) const;

  FileSystem* fs_;
  std::string table_path_;
  std::string table_name_;
  TagPeriod period_;
  TagCreationMode mode_;
  std::optional<int64_t> zone_offset_ms_;  // fixed offset; nullopt: the process's local zone
  int64_t delay_ms_;
  std::optional<int32_t> num_retained_max_;
  std::optional<int64_t> default_time_retained_ms_;
  bool automatic_completion_;
  std::optional<int64_t> next_tag_;  // local-time millis of the next tag's period start
  int64_t next_snapshot_ = 1;
};

// Parses a time zone option ("UTC", "GMT+08:00", "+05:30", "Z"); nullopt for the process's local zone
// (unset); NotSupported for region names other than UTC/GMT.
Result<std::optional<int64_t>> ParseZoneOffset(const std::optional<std::string>& zone, const std::string& option);

}  // namespace tide
