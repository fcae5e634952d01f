// RemoveOrphanFiles: deletes the files of one table that nothing references, as Java's
// LocalOrphanFilesClean does (remove_orphan_files).
//
// Candidates are the files older than `older_than_ms` (modification time) in manifest/, index/,
// statistics/ and the bucket folders of the data tree, plus the leftovers in snapshot/ and changelog/
// that are not snapshot, changelog or hint files (temporary files of interrupted writes). They are
// listed first; then every snapshot, tag and changelog file of the table and of its branches
// (`branch/branch-<name>/`, which share the table's manifest and data folders) is read, and a candidate is deleted unless
// one of them references it (by file name, as Java compares). Snapshots are listed again until no new
// one appears, so a commit that lands meanwhile is read too. Files younger than the threshold are never
// candidates: that is what keeps the files of a commit in flight (written, not yet referenced) safe, so
// the threshold must exceed the longest commit (Java's default, one day, does). Consumers protect
// snapshots, which protect their files.
//
// Thread-safety: safe to run while writers commit (see above) and readers read; not together with
// expiry or rollback of the same table.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tide/base/result.h"
#include "tide/io/file_system.h"

namespace tide {

struct OrphanFilesResult {
  int64_t files_deleted = 0;  // or, in a dry run, that would be deleted
  int64_t bytes_deleted = 0;
  std::vector<std::string> paths;  // absolute, sorted
};

// Java's default threshold: files older than one day.
constexpr int64_t kDefaultOrphanFileAgeMs = 86'400'000;

// `older_than_ms` (epoch millis) must lie before `now_ms`. `dry_run` lists without deleting.
Result<OrphanFilesResult> RemoveOrphanFiles(FileSystem* fs, const std::string& table_path,
                                            const std::string& table_name, int64_t older_than_ms, int64_t now_ms,
                                            bool dry_run);

}  // namespace tide
