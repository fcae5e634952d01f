#include "tide/sync/key_range_bisection.h"

#include <algorithm>
#include <set>

namespace tide {

Result<std::vector<std::string>> FindDifferingRanges(const BisectionSides& sides, const BisectionLimits& limits) {
  std::vector<std::string> leaves;
  std::vector<std::string> level = {""};
  while (!level.empty() && leaves.size() < limits.max_leaves) {
    TIDE_ASSIGN_OR_RETURN(auto pg, sides.postgres(level));
    TIDE_ASSIGN_OR_RETURN(auto before, sides.lake_before(level));
    std::map<std::string, RangeChecksum> after;
    if (sides.lake_after) {
      TIDE_ASSIGN_OR_RETURN(after, sides.lake_after(level));
    }
    std::set<std::string> children;
    for (const auto* side : {&pg, &before, &after}) {
      for (const auto& [prefix, sum] : *side) children.insert(prefix);
    }
    auto get = [](const std::map<std::string, RangeChecksum>& side, const std::string& prefix) {
      auto it = side.find(prefix);
      return it == side.end() ? RangeChecksum{} : it->second;
    };
    std::vector<std::string> next;
    for (const std::string& child : children) {
      RangeChecksum p = get(pg, child), b = get(before, child), a = get(after, child);
      if (p == b || (sides.lake_after && p == a)) continue;
      int64_t rows = std::max({p.rows, b.rows, a.rows});
      if (rows <= limits.leaf_rows || child.size() >= limits.hash_digits) {
        leaves.push_back(child);
        if (leaves.size() >= limits.max_leaves) break;
      } else {
        next.push_back(child);
      }
    }
    level = std::move(next);
  }
  std::sort(leaves.begin(), leaves.end());
  return leaves;
}

const char* KeyDifferenceName(KeyDifference difference) {
  switch (difference) {
    case KeyDifference::kEqual:
      return "equal";
    case KeyDifference::kInFlight:
      return "changed while verifying";
    case KeyDifference::kMissingInLake:
      return "missing in the lake";
    case KeyDifference::kExtraInLake:
      return "extra in the lake";
    case KeyDifference::kDiffers:
      return "differs";
  }
  return "?";
}

KeyVerdict ClassifyKey(const std::string& key_hash, const std::optional<KeyRows>& postgres,
                       const std::optional<KeyRows>& lake_before, const std::optional<std::optional<KeyRows>>& lake_after,
                       const std::vector<std::string>& column_names) {
  KeyVerdict v;
  v.key_hash = key_hash;
  v.display = postgres ? postgres->display : lake_before ? lake_before->display
                                           : (lake_after && *lake_after) ? (*lake_after)->display : key_hash;
  v.postgres_count = postgres ? postgres->count : 0;
  v.lake_count = lake_before ? lake_before->count : 0;
  if (postgres == lake_before || (lake_after && postgres == *lake_after)) {
    v.difference = KeyDifference::kEqual;
    return v;
  }
  if (lake_after && lake_before != *lake_after) {
    v.difference = KeyDifference::kInFlight;
    return v;
  }
  if (!lake_before || (postgres && postgres->count > lake_before->count)) {
    v.difference = KeyDifference::kMissingInLake;
  } else if (!postgres || lake_before->count > postgres->count) {
    v.difference = KeyDifference::kExtraInLake;
  } else {
    v.difference = KeyDifference::kDiffers;
    for (size_t i = 0; i < column_names.size(); ++i) {
      if (i >= postgres->column_hashes.size() || i >= lake_before->column_hashes.size() ||
          postgres->column_hashes[i] != lake_before->column_hashes[i]) {
        v.columns.push_back(column_names[i]);
      }
    }
  }
  return v;
}

}  // namespace tide
