// Snapshot: one committed version of a Paimon table, `snapshot/snapshot-<id>` (JSON).
//
// Names the manifest lists that make up the table at that version (base + delta, changelog), the index
// manifest, who committed it and the record counts. Also the form of a tag file (`tag/tag-<name>`), which
// is a snapshot plus tag fields. Field meanings: PAIMON_FORMAT.md §2. Thread-safety: an immutable value.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tide/base/result.h"

namespace tide {

enum class CommitKind { kAppend, kCompact, kOverwrite, kAnalyze };
std::string_view CommitKindName(CommitKind kind);

struct Snapshot {
  int32_t version = 3;
  int64_t id = 0;
  int64_t schema_id = 0;
  std::string base_manifest_list;
  std::optional<int64_t> base_manifest_list_size;
  std::string delta_manifest_list;
  std::optional<int64_t> delta_manifest_list_size;
  std::optional<std::string> changelog_manifest_list;
  std::optional<int64_t> changelog_manifest_list_size;
  std::optional<std::string> index_manifest;
  std::string commit_user;
  int64_t commit_identifier = 0;
  CommitKind commit_kind = CommitKind::kAppend;
  int64_t time_millis = 0;
  std::optional<std::map<int32_t, int64_t>> log_offsets;
  std::optional<int64_t> total_record_count;
  std::optional<int64_t> delta_record_count;
  std::optional<int64_t> changelog_record_count;
  std::optional<int64_t> watermark;
  std::optional<std::string> statistics;
  std::optional<std::map<std::string, std::string>> properties;
  std::optional<int64_t> next_row_id;

  // Tag files only (Java's Tag): when the tag was created, as a java.time.LocalDateTime (local wall
  // clock, no zone) in Jackson's array form [year, month, day, hour, minute(, second(, nanos))], and how
  // long it is kept, a java.time.Duration (Jackson writes decimal seconds). Java writes both or neither.
  std::optional<std::vector<int64_t>> tag_create_time;
  std::optional<int64_t> tag_time_retained_ms;

  // Parses snapshot or tag JSON; `file` names the source in errors.
  static Result<Snapshot> FromJson(const std::string& text, const std::string& file);
  // Jackson-style JSON with the fields Java Paimon 1.x writes (null-valued optional fields omitted,
  // `changelogManifestList` written as null when absent, as Java does).
  std::string ToJson() const;
};

}  // namespace tide
