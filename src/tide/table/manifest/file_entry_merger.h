// FileEntryMerger: Java's identity of a file in manifests (FileEntry.Identifier) and its order-keeping
// merge of entries (FileEntry.mergeEntries), used by the scan, the manifest merger and the committer's
// conflict checks.
//
// Invariant: at most one entry per file identity. Thread-safety: a single-owner value.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "tide/base/result.h"
#include "tide/table/manifest/manifest.h"

namespace tide {

// The identity of a data file in manifests (partition, bucket, level, file name, extra files, embedded
// index, external path) as a byte string: two entries name the same file iff their keys are equal.
std::string FileEntryKey(const ManifestEntry& entry);

// Merges manifest entries in order, as FileEntry.mergeEntries does into a LinkedHashMap: an ADD
// inserts its file (a second ADD of a live file is an error), a DELETE removes the live ADD of its
// file or, when there is none, is kept as a pending DELETE. Entries() lists the survivors in insertion
// order. Invariant: at most one entry per file identity.
class FileEntryMerger {
 public:
  // Conflict naming the file when `entry` ADDs a file that is already live.
  Status Add(ManifestEntry entry);
  // Adds every entry, stopping at the first error.
  Status AddAll(std::vector<ManifestEntry> entries);

  size_t size() const { return index_.size(); }
  // The surviving entries in order (ADDs of live files and unmatched DELETEs).
  std::vector<ManifestEntry> Entries() const;
  // Moves the survivors out; the merger is empty afterwards.
  std::vector<ManifestEntry> TakeEntries();

 private:
  std::vector<std::optional<ManifestEntry>> slots_;
  std::unordered_map<std::string, size_t> index_;  // key -> slot
};

}  // namespace tide
