// IntervalPartition: splits the files of a compaction into sections whose key ranges do not overlap
// one another, and each section into the fewest sorted runs (files of a run do not overlap), Java's
// IntervalPartition. Sections are merged one at a time, so a compaction holds only one section's runs
// open; a section of one run with large files is upgraded, not rewritten (MergeTreeCompactTask).
// Thread-safety: a pure function.
#pragma once

#include <vector>

#include "tide/table/mergetree/levels.h"

namespace tide {

// Sections in key order; within a section, runs in no particular order.
std::vector<std::vector<SortedRun>> PartitionIntervals(std::vector<LevelFile> files);

}  // namespace tide
