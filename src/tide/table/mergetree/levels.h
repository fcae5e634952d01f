// Levels: the data files of one (partition, bucket) of a primary-key table as an LSM tree, Java's
// org.apache.paimon.mergetree.Levels. Level 0 holds files that may overlap, each its own sorted run,
// ordered newest first (larger max sequence number first); each level 1..max holds one sorted run of
// files with disjoint key ranges, ordered by key. LevelSortedRuns() lists the runs newest to oldest:
// every level-0 file, then each non-empty level upwards; compaction strategies pick from that list.
//
// LevelFile keeps a file's metadata with its min and max key decoded once (the key ranges decide runs
// and sections). Invariant: every file is in exactly one place; the files of a level >= 1 are sorted by
// min key and do not overlap (Update checks it and refuses a change that would break it).
// Thread-safety: one thread at a time (the writer's); compaction tasks get copies of the files.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tide/base/result.h"
#include "tide/table/io/data_file_meta.h"
#include "tide/types/data_type.h"
#include "tide/types/datum.h"

namespace tide {

struct LevelFile {
  DataFileMeta meta;
  Row min_key, max_key;  // decoded with the trimmed primary-key types

  // Decodes the key range of `meta`; Corruption naming the file when it does not decode.
  static Result<LevelFile> Create(DataFileMeta meta, const std::vector<DataType>& key_types);
};

// Files with disjoint key ranges in ascending key order.
struct SortedRun {
  std::vector<LevelFile> files;
  int64_t TotalSize() const {
    int64_t total = 0;
    for (const auto& f : files) total += f.meta.file_size;
    return total;
  }
};

struct LevelSortedRun {
  int32_t level = 0;
  SortedRun run;
};

class Levels {
 public:
  // The tree of `files` (all of one bucket). `num_levels` is the table's `num-levels`; a restored file
  // of a higher level raises it, as Java does.
  static Result<Levels> Create(std::vector<DataFileMeta> files, int32_t num_levels, std::vector<DataType> key_types,
                               std::string table_name);

  Status AddLevel0File(DataFileMeta file);
  // Adds the files of one flush (sorted and disjoint, as one rolling writer wrote them, none holding a
  // retraction) at the max level, setting their level, when their key range lies wholly below or above
  // every key the tree has held since it was made; false (nothing added) otherwise. The max level holds
  // the oldest record of a key, and no other file holds one of these keys, so the tree reads the same as
  // with them at level 0. The range of every file ever added, not that of today's files: a compaction
  // writes within the range of its inputs, but a result taken before the commit that publishes it may
  // have dropped deletes at the range's edge while the table still holds the files it replaces.
  Result<bool> AddAtMaxLevelIfApart(std::vector<DataFileMeta>* files);
  // Removes `before` (matched by file name and level) and adds `after`; InvalidArgument when a file of
  // `before` is missing or `after` would overlap a level's run.
  Status Update(const std::vector<DataFileMeta>& before, const std::vector<DataFileMeta>& after);

  std::vector<LevelSortedRun> LevelSortedRuns() const;
  int32_t NumberOfSortedRuns() const;
  int32_t NumberOfLevels() const { return static_cast<int32_t>(levels_.size()) + 1; }
  int32_t MaxLevel() const { return static_cast<int32_t>(levels_.size()); }
  // The highest level that holds a file, or -1 when the tree is empty (0 when only level 0 has files).
  int32_t NonEmptyHighestLevel() const;
  size_t Level0Count() const { return level0_.size(); }
  std::vector<DataFileMeta> AllFiles() const;
  size_t FileCount() const;
  int64_t TotalFileSize() const;

 private:
  Levels() = default;
  Status Insert(LevelFile file);
  void SortLevel0();

  std::vector<DataType> key_types_;
  std::string table_name_;
  // Widens held_low_ / held_high_ to the file's range.
  void Hold(const LevelFile& file);

  std::vector<LevelFile> level0_;   // newest first
  std::vector<SortedRun> levels_;   // levels_[i] is level i + 1
  // The key range of every file the tree has held (Update never narrows it); empty rows when none.
  std::optional<Row> held_low_, held_high_;
};

}  // namespace tide
