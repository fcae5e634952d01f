#include "tide/table/mergetree/compact/lookup_levels.h"


#include "tide/base/strings.h"
#include "tide/io/file_system.h"
#include "tide/table/io/key_value_file_reader.h"
#include "tide/table/mergetree/compact/merge_tree_compact_rewriter.h"
#include "tide/table/mergetree/sort_merge_heap.h"

namespace tide {
namespace {

// Decoded records take several times their compressed Parquet size.
constexpr int64_t kDecodedSizeFactor = 8;

}  // namespace

LookupFileCache::File* LookupFileCache::Find(const std::string& path) {
  auto it = files_.find(path);
  if (it == files_.end()) return nullptr;
  lru_.erase(it->second.lru);
  lru_.push_front(path);
  it->second.lru = lru_.begin();
  return &it->second;
}

LookupFileCache::File* LookupFileCache::Put(const std::string& path, File file) {
  while (!lru_.empty() && bytes_ + file.bytes > budget_) {
    auto victim = files_.find(lru_.back());
    bytes_ -= victim->second.bytes;
    files_.erase(victim);
    lru_.pop_back();
  }
  lru_.push_front(path);
  file.lru = lru_.begin();
  bytes_ += file.bytes;
  return &files_.insert_or_assign(path, std::move(file)).first->second;
}

LookupLevels::LookupLevels(CompactionContext* context, std::string bucket_dir, const BucketedDvMaintainer* dv,
                           LookupFileCache* cache)
    : context_(context), bucket_dir_(std::move(bucket_dir)), dv_(dv), cache_(cache) {}

void LookupLevels::SetRuns(const std::vector<LevelSortedRun>& runs) {
  levels_.clear();
  for (const auto& r : runs) {
    if (r.level != 0) levels_.emplace_back(r.level, r.run.files);
  }
  std::sort(levels_.begin(), levels_.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
}

int LookupLevels::CompareToKey(const Row& row, const Row& key) const {
  const std::vector<int>& indices = context_->key_indices();
  for (size_t i = 0; i < indices.size() && i < key.size(); ++i) {
    int c = CompareDatum(row[static_cast<size_t>(indices[i])], key[i]);
    if (c != 0) return c;
  }
  return 0;
}

Result<LookupFileCache::File*> LookupLevels::Load(const LevelFile& file) {
  std::string path = JoinPath(bucket_dir_, file.meta.file_name);
  if (LookupFileCache::File* cached = cache_->Find(path)) return cached;
  LookupFileCache::File loaded;
  KeyValueFileReadSpec spec;
  spec.path = path;
  TIDE_ASSIGN_OR_RETURN(spec.file_schema, context_->schemas()->Get(file.meta.schema_id));
  spec.needed = &context_->schema().fields;
  spec.primary_key = true;
  spec.table_name = context_->table_name();
  spec.database = &context_->write_context()->db;
  TIDE_ASSIGN_OR_RETURN(auto reader, KeyValueFileReader::Open(std::move(spec)));
  while (true) {
    TIDE_ASSIGN_OR_RETURN(bool more, reader->Advance());
    if (!more) break;
    loaded.positions.push_back(reader->current_position());
    loaded.records.push_back(reader->TakeCurrent());
    loaded.records.back().level = file.meta.level;
  }
  loaded.bytes = std::max<int64_t>(file.meta.file_size, 1) * kDecodedSizeFactor;
  return cache_->Put(path, std::move(loaded));
}

Result<std::optional<LookupHit>> LookupLevels::Lookup(const Row& row, int32_t start_level) {
  for (const auto& [level, files] : levels_) {
    if (level < start_level) continue;
    // The one file whose range may hold the key: the last file whose min key is <= the key.
    auto after = std::upper_bound(files.begin(), files.end(), row, [this](const Row& r, const LevelFile& f) {
      return CompareToKey(r, f.min_key) < 0;
    });
    if (after == files.begin()) continue;
    const LevelFile& file = *(after - 1);
    if (CompareToKey(row, file.max_key) > 0) continue;
    TIDE_ASSIGN_OR_RETURN(LookupFileCache::File * cached, Load(file));
    const KeyComparator keys(context_->key_indices());
    auto found = std::lower_bound(cached->records.begin(), cached->records.end(), row,
                                  [&keys](const KeyValue& kv, const Row& r) { return keys.Compare(kv.row, r) < 0; });
    if (found == cached->records.end() || keys.Compare(found->row, row) != 0) continue;
    const int64_t position = cached->positions[static_cast<size_t>(found - cached->records.begin())];
    if (dv_ && dv_->IsDeleted(file.meta.file_name, position)) continue;
    LookupHit hit;
    hit.record = *found;
    hit.record.level = level;  // the file may have moved up since it was cached
    hit.file_name = file.meta.file_name;
    hit.position = position;
    return std::optional<LookupHit>(std::move(hit));
  }
  return std::optional<LookupHit>();
}

}  // namespace tide
