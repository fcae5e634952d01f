// Manifest merging: keeps a table's metadata from growing without bound by rewriting the small
// manifests of a snapshot's base list into bigger ones, as Java's ManifestFileMerger does on every
// commit.
//
// Two passes, in Java's order:
//  * Full compaction, when the manifests that "must change" (those holding DELETE entries or smaller
//    than `manifest.target-file-size`) add up to `manifest.full-compaction-threshold-size`: every
//    DELETE entry and the ADD it cancels are dropped, manifests of partitions no DELETE touches stay as
//    they are, the rest is rewritten into target-size files. The result holds only ADD entries.
//  * Otherwise minor compaction: walking the list in order, runs of manifests that reach the target
//    size together are merged into one (ADD then DELETE of the same file cancel out; a DELETE whose
//    ADD lies in an earlier run is kept); a trailing run is merged only when it has at least
//    `manifest.merge-min-count` manifests.
// Order is preserved, so merging never changes which files are live.
//
// Thread-safety: plain functions and single-owner values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tide/base/result.h"
#include "tide/table/manifest/file_entry_merger.h"
#include "tide/table/manifest/manifest.h"
#include "tide/table/manifest/manifest_writer.h"

namespace tide {

struct ManifestMergeOptions {
  int64_t target_file_size = 8 * 1024 * 1024;                  // manifest.target-file-size
  int32_t merge_min_count = 30;                                // manifest.merge-min-count
  int64_t full_compaction_threshold_size = 16 * 1024 * 1024;  // manifest.full-compaction-threshold-size
};

struct ManifestMergeResult {
  std::vector<ManifestFileMeta> manifests;  // the new base list, in order
  std::vector<std::string> new_files;       // manifests written by the merge (to delete on abort)
};

// Merges `input` (a snapshot's base + delta manifests, in order), writing new manifests through
// `writer`. On error every manifest it wrote is deleted again and the input files are untouched.
Result<ManifestMergeResult> MergeManifests(const std::vector<ManifestFileMeta>& input, ManifestFileWriter* writer,
                                           const ManifestMergeOptions& options);

// Whether a manifest whose partition stats are `stats` may hold entries of any of `partitions`
// (decoded partition rows of `partition_types`): some partition lies inside the stats' min/max box
// (a NULL value needs a non-zero null count). Conservative: true when the stats cannot tell.
Result<bool> ManifestMayContainAny(const SimpleStats& stats, const std::vector<Row>& partitions,
                                   const std::vector<DataType>& partition_types);

}  // namespace tide
