// ExpireChangelog: deletes old long-lived changelog (`changelog/changelog-<id>`, written by snapshot
// expiry on tables that keep changelog longer than snapshots) and the files only it still needed, with
// Java Paimon's rules (ExpireChangelogImpl, with the fixes of 2.0: a missing changelog is passed over,
// and deletion is either the changelog files or the replaced data files).
//
// Which changelogs go: counts are anchored on the latest *snapshot* (changelogs and live snapshots
// together): at most `retain_max` remain and at least `retain_min`; one goes only if it was committed
// more than `time_retained_ms` ago; nothing from the smallest consumer `nextSnapshot` on; at most
// `max_deletes` per call; and never the latest changelog.
// Which files go, per expired changelog: with a changelog manifest list, the changelog files it ADDs;
// otherwise (no changelog producer) the data files its delta DELETEs, unless the nearest tag before it
// holds them; then its manifest lists and manifests unless the changelog (or snapshot) after the range,
// the earliest snapshot or a tag in the range uses them. Index files and statistics went with the
// snapshot.
//
// Order, as for snapshots: the plan first, then the changelog JSON files (oldest first) and
// changelog/EARLIEST, then the files: a streaming reader finds a changelog whole or missing.
//
// Thread-safety: one per thread; two expiries of one table at once are not safe (run expiry from one
// place, as Java).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "tide/base/result.h"
#include "tide/io/file_system.h"

namespace tide {

struct ChangelogExpireConfig {
  int32_t retain_min = 10;          // changelog.num-retained.min
  int32_t retain_max = 2147483647;  // changelog.num-retained.max
  int64_t time_retained_ms = 3'600'000;  // changelog.time-retained
  int32_t max_deletes = 50;         // snapshot.expire.limit
};

struct ChangelogExpireResult {
  int64_t changelogs_deleted = 0;
  int64_t data_files_deleted = 0;      // changelog files, or data files a delta replaced
  int64_t manifest_files_deleted = 0;  // manifests and manifest lists
  std::optional<int64_t> earliest;     // the earliest changelog afterwards
};

class ExpireChangelog {
 public:
  // `table_name` names the table in errors. `clock` gives epoch millis (the system clock when unset).
  ExpireChangelog(FileSystem* fs, std::string table_path, std::string table_name,
                  std::function<int64_t()> clock = nullptr);

  // InvalidArgument when retain_max < retain_min or a value is below 1. Nothing to do without
  // snapshots or changelogs.
  Result<ChangelogExpireResult> Expire(const ChangelogExpireConfig& config);
  // Expires every changelog in [earliest, end_exclusive), protections aside (Java's expireUntil).
  Result<ChangelogExpireResult> ExpireUntil(int64_t earliest, int64_t end_exclusive);

 private:
  FileSystem* fs_;
  std::string table_path_;
  std::string table_name_;
  std::function<int64_t()> clock_;
};

}  // namespace tide
