#include "tide/table/mergetree/compact/interval_partition.h"

#include <algorithm>

namespace tide {
namespace {

// The fewest runs of one section: each file goes to the run whose last file ends first, if it starts
// after that end, else to a new run (a greedy interval colouring).
std::vector<SortedRun> PartitionSection(std::vector<LevelFile> files) {
  std::vector<SortedRun> runs;
  for (auto& f : files) {
    size_t best = runs.size();
    for (size_t i = 0; i < runs.size(); ++i) {
      if (best == runs.size() ||
          CompareRows(runs[i].files.back().max_key, runs[best].files.back().max_key) < 0) {
        best = i;
      }
    }
    if (best != runs.size() && CompareRows(f.min_key, runs[best].files.back().max_key) > 0) {
      runs[best].files.push_back(std::move(f));
    } else {
      runs.push_back(SortedRun{});
      runs.back().files.push_back(std::move(f));
    }
  }
  return runs;
}

}  // namespace

std::vector<std::vector<SortedRun>> PartitionIntervals(std::vector<LevelFile> files) {
  std::stable_sort(files.begin(), files.end(), [](const LevelFile& a, const LevelFile& b) {
    int c = CompareRows(a.min_key, b.min_key);
    return c != 0 ? c < 0 : CompareRows(a.max_key, b.max_key) < 0;
  });
  std::vector<std::vector<SortedRun>> sections;
  std::vector<LevelFile> section;
  const Row* bound = nullptr;
  Row bound_value;
  for (auto& f : files) {
    if (!section.empty() && CompareRows(f.min_key, *bound) > 0) {
      sections.push_back(PartitionSection(std::move(section)));
      section.clear();
      bound = nullptr;
    }
    if (bound == nullptr || CompareRows(f.max_key, *bound) > 0) {
      bound_value = f.max_key;
      bound = &bound_value;
    }
    section.push_back(std::move(f));
  }
  if (!section.empty()) sections.push_back(PartitionSection(std::move(section)));
  return sections;
}

}  // namespace tide
