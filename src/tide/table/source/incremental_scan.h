// IncrementalScan: plans the changes a table's snapshots made, as Java's incremental reads do
// (IncrementalDeltaStartingScanner for `incremental-between`, DeltaFollowUpScanner and
// ChangelogFollowUpScanner for streaming reads).
//
// A snapshot's changes are the files its commit added, in one of two places:
//   - delta mode: the data files of its delta manifest list; only APPEND snapshots count (a COMPACT
//     snapshot rewrites rows that were already read, an OVERWRITE one is skipped as Java does without
//     `streaming-read-overwrite`);
//   - changelog mode: the files of its changelog manifest list (changelog-producer input, lookup or
//     full-compaction); OVERWRITE snapshots and snapshots without a changelog contribute nothing.
// `incremental-between-scan-mode` auto picks changelog mode when the table has a changelog producer and
// delta mode otherwise. Changes are planned per snapshot, grouped by (partition, bucket) in manifest
// order; the rows they hold are read by change_reader.h with their row kinds.
//
// Ranges follow Java: `incremental_between 'S1,S2'` is (S1, S2] and needs earliest - 1 <= S1 <= S2 <=
// latest; by timestamps (T1, T2] maps T1 to the newest snapshot committed at or before T1 (or to
// earliest - 1 when every snapshot is later) and T2 to the newest at or before T2.
//
// Thread-safety: holds only paths and a schema reference; a plan is a plain value.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tide/base/result.h"
#include "tide/io/file_system.h"
#include "tide/table/operation/file_store_scan.h"
#include "tide/table/schema/core_options.h"
#include "tide/table/snapshot/snapshot.h"
#include "tide/table/snapshot/snapshot_manager.h"
#include "tide/types/table_schema.h"

namespace tide {

enum class ChangeScanMode { kDelta, kChangelog };
std::string_view ChangeScanModeName(ChangeScanMode mode);

// `incremental-between-scan-mode`: "auto" (or empty), "delta" or "changelog"; InvalidArgument for
// anything else ("diff", which compares two snapshots' contents, is handled by the incremental read
// itself: IsDiffScanMode).
Result<ChangeScanMode> ResolveChangeScanMode(const CoreOptions& options, std::string_view mode,
                                             const std::string& table_name);
// Whether `mode` is "diff" (any case).
bool IsDiffScanMode(std::string_view mode);

// The changes one snapshot made: its splits in delta or changelog mode (empty when the mode skips it).
// For a diff (PlanDiff), the end snapshot's files that the start does not hold, per bucket, and in
// `before_splits` (parallel to `splits`, same partition and bucket) the start's files the end does not
// hold.
struct SnapshotChanges {
  int64_t snapshot_id = 0;
  CommitKind commit_kind = CommitKind::kAppend;
  std::vector<DataSplit> splits;
  std::vector<DataSplit> before_splits;
};

// A range of snapshots (start_exclusive, end_inclusive]; empty when start_exclusive >= end_inclusive.
struct SnapshotRange {
  int64_t start_exclusive = 0;
  int64_t end_inclusive = 0;
  bool empty() const { return start_exclusive >= end_inclusive; }
};

// Parses "S1,S2" (snapshot ids) and checks the range against the table's snapshots as Java does.
// An empty range when the table has no snapshot or S1 == S2.
Result<SnapshotRange> ResolveBetweenSnapshotIds(const SnapshotManager& snapshots, std::string_view text,
                                                const std::string& table_name);

// The tags "T1,T2" names, when both parts are names of existing tags (Java looks for tags first, then
// reads the parts as snapshot ids); nullopt otherwise.
struct TagPair {
  std::string start_name, end_name;
  Snapshot start, end;
};
Result<std::optional<TagPair>> ResolveBetweenTags(const SnapshotManager& snapshots, std::string_view text,
                                                  const std::string& table_name);
// Parses "T1,T2" (epoch milliseconds) and maps it to snapshots as Java does. An empty range when no
// snapshot lies in (T1, T2].
Result<SnapshotRange> ResolveBetweenTimestamps(const SnapshotManager& snapshots, std::string_view text,
                                               const std::string& table_name);

class IncrementalScan {
 public:
  // `table_path` is the table's folder, `metadata_path` the folder of its snapshots (the branch's);
  // `schema` the table's latest schema (partition types, options), which must outlive the scan.
  IncrementalScan(FileSystem* fs, std::string table_path, std::string metadata_path, std::string table_name,
                  const TableSchema& schema);

  // The changes of `snapshot` in `mode`.
  Result<SnapshotChanges> PlanSnapshot(const Snapshot& snapshot, ChangeScanMode mode) const;
  // The changes of every snapshot of `range`, oldest first. NotFound naming the snapshot when one of
  // them was expired meanwhile.
  Result<std::vector<SnapshotChanges>> PlanRange(const SnapshotRange& range, ChangeScanMode mode) const;
  // What a diff of snapshot `before` and snapshot `after` reads (Java's readIncrementalDiff): the live
  // files of both, per (partition, bucket), without the files both hold (by name). Buckets in `after`'s
  // plan order, then those only `before` has.
  Result<SnapshotChanges> PlanDiff(const Snapshot& before, const Snapshot& after) const;

 private:
  Result<std::vector<DataSplit>> GroupAdded(const std::string& manifest_list, int64_t snapshot_id) const;

  FileSystem* fs_;
  std::string table_path_;
  std::string metadata_path_;
  std::string table_name_;
  const TableSchema& schema_;
};

}  // namespace tide
