// LookupLevels: point lookups of a primary key in the levels >= 1 of one bucket, for lookup compaction
// (Java's LookupLevels). Lookup(key, start_level) searches level start_level, then the next ones, and
// returns the first live record of the key it finds: its values, the file holding it and the record's
// position in that file (deletion vectors mark positions). A level's files have disjoint key ranges,
// so at most one file per level is searched, chosen by its min/max key.
//
// Java builds a local sorted lookup file per data file; Tide keeps a searched file's records in memory
// instead (in key order, as the file holds them), reading it once, and evicts the least recently used
// files past `lookup.cache-max-memory-size` (their decoded size estimated from the file size). Deleted
// positions are checked at each lookup against the bucket's BucketedDvMaintainer, so cached files stay
// valid while compaction marks rows.
//
// Thread-safety: one thread at a time (the bucket's compaction task).
#pragma once

#include <cstdint>
#include <list>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "tide/base/result.h"
#include "tide/table/deletionvectors/bucketed_dv_maintainer.h"
#include "tide/table/io/key_value.h"
#include "tide/table/mergetree/levels.h"

namespace tide {

class CompactionContext;

struct LookupHit {
  KeyValue record;  // its level set
  std::string file_name;
  int64_t position = 0;
};

class LookupLevels {
 public:
  // Files of `bucket_dir`, read through `context`; `dv` (may be null) marks deleted positions.
  LookupLevels(CompactionContext* context, std::string bucket_dir, const BucketedDvMaintainer* dv, int64_t cache_bytes);

  // The files to search, from Levels::LevelSortedRuns (level-0 runs are ignored). Cached files no
  // longer listed are dropped.
  void SetRuns(const std::vector<LevelSortedRun>& runs);
  // The newest live record of the key of `row` (a row of the table's fields) in levels >= start_level.
  Result<std::optional<LookupHit>> Lookup(const Row& row, int32_t start_level);

 private:
  struct CachedFile {
    std::vector<KeyValue> records;  // in key order
    std::vector<int64_t> positions;
    int64_t bytes = 0;
    std::list<std::string>::iterator lru;
  };
  // Compares the key of `row` with a decoded key (trimmed primary key values).
  int CompareToKey(const Row& row, const Row& key) const;
  Result<CachedFile*> Load(const LevelFile& file);

  CompactionContext* context_;
  std::string bucket_dir_;
  const BucketedDvMaintainer* dv_;
  int64_t cache_bytes_;
  std::vector<std::pair<int32_t, std::vector<LevelFile>>> levels_;  // ascending level
  std::unordered_map<std::string, CachedFile> cache_;
  std::list<std::string> lru_;  // most recent first
  int64_t cached_bytes_ = 0;
};

}  // namespace tide
