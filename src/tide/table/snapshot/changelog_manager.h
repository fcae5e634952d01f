// ChangelogManager: the long-lived changelog of one table, `changelog/changelog-<id>` with its own
// EARLIEST and LATEST hints (Java's ChangelogManager). When a table keeps changelog longer than
// snapshots (`changelog.num-retained.*` or `changelog.time-retained` above the `snapshot.*` values:
// CoreOptions::changelog_decoupled), snapshot expiry turns each expired snapshot into a changelog file
// (the snapshot's JSON, unchanged) instead of deleting what its changes need, and changelog expiry
// deletes those later. Streaming reads fall back to them below the earliest snapshot; batch reads and
// time travel never do (as in Java).
//
// Invariant: changelog ids lie below the earliest snapshot id (a changelog is written just before its
// snapshot is deleted); a rollback may leave LATEST at -1, which readers ignore.
//
// Thread-safety: holds only paths; safe to share. Answers reflect the files at call time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tide/base/result.h"
#include "tide/io/file_system.h"
#include "tide/table/snapshot/id_file_directory.h"
#include "tide/table/snapshot/snapshot.h"

namespace tide {

class ChangelogManager {
 public:
  // `table_path`: the folder holding snapshot/ (the table, or its branch folder).
  ChangelogManager(FileSystem* fs, std::string table_path);

  const IdFileDirectory& files() const { return files_; }
  std::string ChangelogDir() const { return files_.dir(); }
  std::string ChangelogPath(int64_t id) const { return files_.Path(id); }

  Result<std::optional<int64_t>> EarliestId() const { return files_.EarliestId(); }
  Result<std::optional<int64_t>> LatestId() const { return files_.LatestId(); }
  Result<bool> Exists(int64_t id) const { return files_.Exists(id); }
  // NotFound when the changelog does not exist.
  Result<Snapshot> Get(int64_t id) const;

  // Writes changelog-<id> with `json` (a snapshot file's content), replacing one that exists, as Java does.
  Status Commit(int64_t id, std::string_view json) const;

 private:
  FileSystem* fs_;
  IdFileDirectory files_;
};

}  // namespace tide
