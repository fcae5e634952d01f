// SnapshotManager: the snapshot, hint and tag files of one table.
//
// Finds the latest and earliest snapshot with Java's trust rules for the LATEST and EARLIEST hints
// (PAIMON_FORMAT.md §9.2), reads snapshots by id, resolves "the snapshot at time T" and tags, and lists
// them. Thread-safety: holds only paths; safe to share. Answers reflect the files at call time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tide/base/result.h"
#include "tide/io/file_system.h"
#include "tide/table/snapshot/id_file_directory.h"
#include "tide/table/snapshot/snapshot.h"
#include "tide/table/snapshot/snapshot_selector.h"

namespace tide {

class SnapshotManager {
 public:
  SnapshotManager(FileSystem* fs, std::string table_path) : fs_(fs), table_path_(std::move(table_path)) {}

  FileSystem* fs() const { return fs_; }
  const std::string& table_path() const { return table_path_; }
  std::string SnapshotDir() const;
  std::string SnapshotPath(int64_t id) const;
  std::string TagPath(const std::string& tag) const;

  // Ids of all snapshot files, ascending.
  Result<std::vector<int64_t>> ListIds() const;
  // The latest snapshot id, or nullopt for a table with no snapshot. LATEST is trusted only when
  // snapshot-(LATEST+1) does not exist; otherwise the directory is listed.
  Result<std::optional<int64_t>> LatestId() const;
  // The earliest snapshot id; EARLIEST is trusted only when that snapshot exists.
  Result<std::optional<int64_t>> EarliestId() const;

  Result<Snapshot> Get(int64_t id) const;
  // The latest snapshot with timeMillis <= `timestamp_ms`; NotFound if every snapshot is later.
  Result<Snapshot> AtOrBefore(int64_t timestamp_ms) const;
  Result<Snapshot> Tag(const std::string& tag) const;
  Result<std::vector<std::string>> ListTags() const;

  // Resolves a selector; nullopt when it asks for the latest snapshot and the table has none.
  Result<std::optional<Snapshot>> Resolve(const SnapshotSelector& selector) const;

  // Maintenance (expiry, rollback). The hints are replaced atomically; readers verify them, so a stale
  // hint is harmless. DeleteSnapshot is OK when the file is already gone.
  Status CommitEarliestHint(int64_t id) const;
  Status CommitLatestHint(int64_t id) const;
  Status DeleteSnapshot(int64_t id) const;

 private:
  IdFileDirectory Files() const;

  FileSystem* fs_;
  std::string table_path_;
};

}  // namespace tide
