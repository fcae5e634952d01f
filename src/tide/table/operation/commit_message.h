// CommitMessage: what a writer hands the committer for one (partition, bucket): the data files it
// wrote, the files compaction replaced and produced, changelog files, and index-file changes.
//
// The committer turns a list of them into one snapshot (FileStoreCommit). Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tide/table/manifest/manifest.h"

namespace tide {

struct CommitMessage {
  std::string partition;   // serialized BinaryRow of the partition (arity-0 row when unpartitioned)
  int32_t bucket = 0;
  int32_t total_buckets = 0;  // the table's bucket count when written; -1 for bucket-unaware tables

  std::vector<DataFileMeta> new_files;        // ADD: freshly flushed data files (level 0)
  std::vector<DataFileMeta> compact_before;   // DELETE: files compaction replaced (with their levels)
  std::vector<DataFileMeta> compact_after;    // ADD: files compaction produced
  std::vector<DataFileMeta> changelog_files;  // changelog files of the new files (changelog-producer input)
  // Changelog files compaction produced (changelog-producer lookup or full-compaction): committed with the
  // COMPACT snapshot, as Java's CompactIncrement.changelogFiles.
  std::vector<DataFileMeta> compact_changelog_files;
  std::vector<IndexManifestEntry> new_index_files;      // index files added (e.g. deletion vectors)
  std::vector<IndexManifestEntry> deleted_index_files;  // index files replaced

  bool IsEmpty() const {
    return new_files.empty() && compact_before.empty() && compact_after.empty() && changelog_files.empty() &&
           compact_changelog_files.empty() && new_index_files.empty() && deleted_index_files.empty();
  }
};

}  // namespace tide
