// SnapshotSelector: which snapshot of a table a read or a lookup means (latest, an id, a time, a tag).
//
// A plain value; SnapshotManager::Resolve turns it into a snapshot. Thread-safety: a value type.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace tide {

// Which snapshot to read. At most one of the selectors may be set; none means the latest snapshot.
struct SnapshotSelector {
  std::optional<int64_t> snapshot_id;
  std::optional<int64_t> timestamp_ms;  // the latest snapshot committed at or before this time
  std::optional<std::string> tag;

  bool IsLatest() const { return !snapshot_id && !timestamp_ms && !tag; }
  std::string ToString() const;
};

}  // namespace tide
