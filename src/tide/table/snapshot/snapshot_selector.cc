#include "tide/table/snapshot/snapshot_selector.h"

#include <fmt/format.h>

namespace tide {

std::string SnapshotSelector::ToString() const {
  if (snapshot_id) return fmt::format("snapshot {}", *snapshot_id);
  if (timestamp_ms) return fmt::format("the snapshot at timestamp_ms {}", *timestamp_ms);
  if (tag) return fmt::format("tag '{}'", *tag);
  return "the latest snapshot";
}

}  // namespace tide
