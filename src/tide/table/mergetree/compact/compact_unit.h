// CompactUnit: what a compaction strategy picks (the files of some sorted runs and the level their
// output goes to); CompactResult: what a compaction did (files removed, files added, both with their
// levels, and the changelog files of a lookup compaction). Java's CompactUnit and CompactResult. Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <vector>

#include "tide/table/io/data_file_meta.h"
#include "tide/table/mergetree/levels.h"

namespace tide {

struct CompactUnit {
  int32_t output_level = 0;
  std::vector<LevelFile> files;
  // Rewrite each file on its own (a full compaction of a max level only), not merge them.
  bool file_rewrite = false;

  static CompactUnit FromLevelRuns(int32_t output_level, const std::vector<LevelSortedRun>& runs, size_t count) {
    CompactUnit unit;
    unit.output_level = output_level;
    for (size_t i = 0; i < count && i < runs.size(); ++i) {
      for (const auto& f : runs[i].run.files) unit.files.push_back(f);
    }
    return unit;
  }
};

struct CompactResult {
  std::vector<DataFileMeta> before;  // removed (each with the level it had)
  std::vector<DataFileMeta> after;   // added (each with its new level)
  // Changelog files lookup compaction produced (changelog-producer lookup).
  std::vector<DataFileMeta> changelog;

  void Merge(CompactResult other) {
    for (auto& f : other.before) before.push_back(std::move(f));
    for (auto& f : other.after) after.push_back(std::move(f));
    for (auto& f : other.changelog) changelog.push_back(std::move(f));
  }
  bool empty() const { return before.empty() && after.empty(); }
};

}  // namespace tide
