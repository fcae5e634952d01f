// LookupLevels: point lookups of a primary key in the levels >= 1 of one bucket, for lookup compaction
// (Java's LookupLevels). Lookup(key, start_level) searches level start_level, then the next ones, and
// returns the first live record of the key it finds: its values, the file holding it and the record's
// position in that file (deletion vectors mark positions). A level's files have disjoint key ranges,
// so at most one file per level is searched, chosen by its min/max key.
//
// Java builds a local sorted lookup file per data file; Tide keeps a searched file's records in memory
// instead (in key order, as the file holds them), reading it once, in a LookupFileCache shared by the
// buckets of one writer, which evicts the least recently used files past `lookup.cache-max-memory-size`
// (their decoded size estimated from the file size), so a writer's lookups stay within that budget
// however many buckets it holds. Deleted positions are checked at each lookup against the bucket's
// BucketedDvMaintainer, so cached files stay valid while compaction marks rows; data files are never
// changed in place, so a cached file is never stale (a file no level holds any more just ages out).
//
// Thread-safety: LookupFileCache and Lookup are used by the writer's compaction thread alone (one task
// at a time); SetRuns is called on the writer's thread while no task of the bucket runs.
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

// The records of searched data files, by path, least recently used evicted past a byte budget.
class LookupFileCache {
 public:
  struct File {
    std::vector<KeyValue> records;  // in key order, each with its level
    std::vector<int64_t> positions;
    int64_t bytes = 0;
    std::list<std::string>::iterator lru;
  };

  explicit LookupFileCache(int64_t budget_bytes) : budget_(budget_bytes) {}
  // The cached file at `path`, or null; a hit becomes the most recently used.
  File* Find(const std::string& path);
  // Caches `file` (evicting others first; the new one stays even if alone above the budget).
  File* Put(const std::string& path, File file);

 private:
  int64_t budget_;
  std::unordered_map<std::string, File> files_;
  std::list<std::string> lru_;  // most recent first
  int64_t bytes_ = 0;
};

class LookupLevels {
 public:
  // Files of `bucket_dir`, read through `context` and kept in `cache`; `dv` (may be null) marks
  // deleted positions.
  LookupLevels(CompactionContext* context, std::string bucket_dir, const BucketedDvMaintainer* dv,
               LookupFileCache* cache);

  // The files to search, from Levels::LevelSortedRuns (level-0 runs are ignored).
  void SetRuns(const std::vector<LevelSortedRun>& runs);
  // The newest live record of the key of `row` (a row of the table's fields) in levels >= start_level.
  Result<std::optional<LookupHit>> Lookup(const Row& row, int32_t start_level);

 private:
  // Compares the key of `row` with a decoded key (trimmed primary key values).
  int CompareToKey(const Row& row, const Row& key) const;
  Result<LookupFileCache::File*> Load(const LevelFile& file);

  CompactionContext* context_;
  std::string bucket_dir_;
  const BucketedDvMaintainer* dv_;
  LookupFileCache* cache_;
  std::vector<std::pair<int32_t, std::vector<LevelFile>>> levels_;  // ascending level
};

}  // namespace tide
