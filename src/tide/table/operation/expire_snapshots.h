// ExpireSnapshots: deletes old snapshots of one table and the files only they referenced, with Java
// Paimon's retention rules (ExpireSnapshotsImpl, 1.x).
//
// Which snapshots go: from the earliest on, up to (not including) the first snapshot that must stay:
//   - at most `retain_max` snapshots remain (snapshot.num-retained.max) and at least `retain_min`
//     (snapshot.num-retained.min);
//   - a snapshot goes only if the snapshot after it was committed more than `time_retained_ms` ago
//     (snapshot.time-retained), so every snapshot still needed to read "the table as of T" for T in that
//     window stays;
//   - nothing from the smallest `nextSnapshot` of a consumer (consumer/consumer-<id>) on goes;
//   - at most `max_deletes` snapshots go per call (snapshot.expire.limit).
// Which files go, for the expired range [begin, end): data files the deltas of snapshots (begin, end]
// DELETE (replaced by compaction or overwrite; live only in expired snapshots) unless the nearest tag
// before that snapshot holds them; changelog files of the expired snapshots; their manifests, manifest
// lists, index manifests, index files and statistics unless snapshot `end` or a tag in the range uses
// them. A tag therefore keeps every file it references.
//
// Order (unlike Java, which deletes the snapshot files last): the plan is made first (manifests read,
// nothing deleted), then the snapshot files go (oldest first) and EARLIEST is written, and only then the
// data files, changelog files and metadata. A reader that opens an expired snapshot finds it missing,
// and a reader already inside one that meets a missing file finds its snapshot gone and reports that the
// snapshot expired (Table::NewReader). A crash after the snapshot files went leaves the planned files
// unreferenced: orphan removal deletes them.
//
// Tables that keep changelog longer than snapshots (`changelog.num-retained.*` or
// `changelog.time-retained` above the snapshot values: ExpireConfig::changelog_decoupled) expire as
// Java's decoupled mode: each expired snapshot is written as `changelog/changelog-<id>` (its JSON
// unchanged) and changelog/LATEST moved to it before the snapshot file goes; its changelog lists,
// manifests and files stay, and without a changelog producer so do its base and delta lists and the
// data files writers wrote (file source APPEND) that its delta DELETEs, since a stream reads deltas
// then; compaction output, index files and statistics go as usual. Changelog expiry (ExpireChangelog)
// then runs with the changelog.* retention, after snapshot expiry, in the same Expire() call.
//
// Thread-safety: one ExpireSnapshots per thread. Concurrent committers are safe (the newest snapshots
// are never expired, and what they reference stays); two expiries of one table at once are not (Java
// has the same limit: run expiry from one place).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "tide/base/result.h"
#include "tide/io/file_system.h"
#include "tide/table/operation/expire_changelog.h"
#include "tide/table/schema/core_options.h"

namespace tide {

struct ExpireConfig {
  int32_t retain_min = 10;
  int32_t retain_max = 2147483647;
  int64_t time_retained_ms = 3'600'000;
  int32_t max_deletes = 50;
  // consumer.changelog-only: consumers protect only changelog, not snapshots.
  bool consumer_changelog_only = false;
  // changelog.* retention (each falling back to its snapshot.* value) and whether it exceeds the
  // snapshot retention (Java's changelogLifecycleDecoupled).
  bool changelog_decoupled = false;
  int32_t changelog_retain_min = 10;
  int32_t changelog_retain_max = 2147483647;
  int64_t changelog_time_retained_ms = 3'600'000;

  // What changelog expiry uses: the changelog.* retention, the same expire limit and consumers.
  ChangelogExpireConfig ForChangelog() const {
    return {changelog_retain_min, changelog_retain_max, changelog_time_retained_ms, max_deletes};
  }

  // The table's snapshot.* and changelog.* options.
  static ExpireConfig FromOptions(const CoreOptions& options);
};

struct ExpireResult {
  int64_t snapshots_deleted = 0;
  int64_t data_files_deleted = 0;       // with their extra files
  int64_t changelog_files_deleted = 0;
  int64_t manifest_files_deleted = 0;   // manifests and manifest lists
  int64_t index_files_deleted = 0;      // index files and index manifests
  int64_t statistics_files_deleted = 0;
  std::optional<int64_t> earliest;      // the earliest snapshot afterwards
  int64_t changelogs_written = 0;       // decoupled: expired snapshots kept as changelog/changelog-<id>
  ChangelogExpireResult changelog;      // decoupled: what changelog expiry deleted
};

class ExpireSnapshots {
 public:
  // `table_name` names the table in errors. `clock` gives epoch millis (the system clock when unset).
  ExpireSnapshots(FileSystem* fs, std::string table_path, std::string table_name,
                  std::function<int64_t()> clock = nullptr);

  // Expires with `config`. InvalidArgument when retain_max < retain_min or a value is below 1.
  Result<ExpireResult> Expire(const ExpireConfig& config);
  // Expires with the table's options.
  Result<ExpireResult> Expire();
  // Expires every snapshot in [earliest, end_exclusive), protections aside (Java's expireUntil), decoupled
  // as the table's options say (no changelog expiry).
  Result<ExpireResult> ExpireUntil(int64_t earliest, int64_t end_exclusive);

 private:
  Result<ExpireResult> ExpireUntil(int64_t earliest, int64_t end_exclusive, bool decoupled);
  // Snapshot expiry, then changelog expiry when decoupled.
  Result<ExpireResult> ExpireThenChangelog(const ExpireConfig& config, int64_t earliest, int64_t end_exclusive);

  FileSystem* fs_;
  std::string table_path_;
  std::string table_name_;
  std::function<int64_t()> clock_;
};

}  // namespace tide
