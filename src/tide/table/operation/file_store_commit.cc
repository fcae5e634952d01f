#include "tide/table/operation/file_store_commit.h"

#include <algorithm>
#include <chrono>
#include <random>
#include <set>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "tide/base/bytes.h"
#include "tide/base/logging.h"
#include "tide/base/strings.h"
#include "tide/codec/binary_row.h"
#include "tide/table/schema/core_options.h"
#include "tide/table/schema/schema_manager.h"
#include "tide/io/unique_file.h"

namespace tide {

namespace {

constexpr std::string_view kHashIndex = "HASH";
constexpr std::string_view kDeletionVectorsIndex = "DELETION_VECTORS";
constexpr int32_t kPostponeBucket = -2;

int64_t SystemMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

int64_t RowCount(const std::vector<ManifestEntry>& entries, FileKind kind) {
  int64_t n = 0;
  for (const auto& e : entries) {
    if (e.kind == kind) n += e.file.row_count;
  }
  return n;
}

std::string IndexKey(const IndexManifestEntry& e) {
  std::string key;
  AppendLE<uint32_t>(&key, static_cast<uint32_t>(e.partition.size()));
  key += e.partition;
  AppendLE<int32_t>(&key, e.bucket);
  key += e.index_type;
  return key;
}

// Java's IndexManifestFileHandler: the previous index manifest's entries with the changes applied,
// hash indexes first, then deletion vectors. Both are replaced per (partition, bucket, index type),
// except deletion vectors of bucket-unaware tables, which are replaced by file name.
Result<std::vector<IndexManifestEntry>> CombineIndexEntries(std::vector<IndexManifestEntry> previous,
                                                            const std::vector<IndexManifestEntry>& changes,
                                                            bool bucket_unaware, const std::string& previous_name) {
  for (const auto& e : previous) {
    if (e.kind != FileKind::kAdd) {
      return Status::Corruption("index manifest {} holds a DELETE entry for {}; index manifests hold only ADDs",
                                previous_name, e.file_name);
    }
  }
  std::vector<IndexManifestEntry> out;
  for (std::string_view type : {kHashIndex, kDeletionVectorsIndex}) {
    bool by_file_name = type == kDeletionVectorsIndex && bucket_unaware;
    auto key_of = [&](const IndexManifestEntry& e) { return by_file_name ? e.file_name : IndexKey(e); };
    std::vector<std::optional<IndexManifestEntry>> slots;
    std::unordered_map<std::string, size_t> index;
    auto put = [&](const IndexManifestEntry& e) {
      std::string key = key_of(e);
      auto it = index.find(key);
      if (it != index.end()) {
        slots[it->second] = e;
      } else {
        index.emplace(std::move(key), slots.size());
        slots.emplace_back(e);
      }
    };
    auto remove = [&](const IndexManifestEntry& e) {
      auto it = index.find(key_of(e));
      if (it == index.end()) return;
      slots[it->second].reset();
      index.erase(it);
    };
    for (const auto& e : previous) {
      if (e.index_type == type) put(e);
    }
    if (by_file_name) {
      for (const auto& e : changes) {
        if (e.index_type != type) continue;
        if (e.kind == FileKind::kAdd) {
          put(e);
        } else {
          remove(e);
        }
      }
    } else {
      // Deletions first, so a replaced file's DELETE never removes its successor.
      for (const auto& e : changes) {
        if (e.index_type == type && e.kind == FileKind::kDelete) remove(e);
      }
      for (const auto& e : changes) {
        if (e.index_type == type && e.kind == FileKind::kAdd) put(e);
      }
    }
    for (auto& s : slots) {
      if (s) out.push_back(std::move(*s));
    }
  }
  for (const auto& e : previous) {
    if (e.index_type != kHashIndex && e.index_type != kDeletionVectorsIndex) {
      return Status::NotSupported("index manifest {} lists an index file {} of type {}, which Tide cannot carry over",
                                  previous_name, e.file_name, e.index_type);
    }
  }
  return out;
}

}  // namespace

bool OverwriteScope::Contains(const std::string& partition) const {
  if (!partitions) return true;
  return std::find(partitions->begin(), partitions->end(), partition) != partitions->end();
}

struct FileStoreCommit::TableInfo {
  TableSchema schema;
  std::vector<DataType> partition_types;
  std::vector<DataType> key_types;  // trimmed primary key; empty for append tables
  bool has_primary_key = false;
  int32_t num_buckets = -1;
  bool bucket_unaware = false;
  ManifestMergeOptions merge;
  int32_t max_retries = 10;
};

struct FileStoreCommit::Changes {
  std::vector<ManifestEntry> table_files;
  std::vector<ManifestEntry> changelog_files;
  std::vector<IndexManifestEntry> index_files;
  bool empty() const { return table_files.empty() && changelog_files.empty() && index_files.empty(); }
};

struct FileStoreCommit::LastCommit {
  CommitOptions options;
  std::optional<OverwriteScope> overwrite;
  Changes first;                       // the APPEND or OVERWRITE part, as given
  CommitKind first_kind = CommitKind::kAppend;
  std::optional<int64_t> first_id;     // its snapshot
  std::optional<int64_t> compact_id;   // the COMPACT snapshot after it
};

namespace {

// A partition for people: `dt=2024-01-01/hr=1`, or "(unpartitioned)".
std::string PartitionText(const std::vector<std::string>& keys, const std::vector<DataType>& types,
                          const std::string& partition) {
  if (types.empty()) return "(unpartitioned)";
  auto row = DeserializeBinaryRow(partition, types);
  if (!row.ok()) return "0x" + HexEncode(partition);
  std::vector<std::string> parts;
  for (size_t i = 0; i < types.size(); ++i) parts.push_back(keys[i] + "=" + DatumToString((*row)[i], types[i]));
  return Join(parts, "/");
}

}  // namespace

FileStoreCommit::FileStoreCommit(FileSystem* fs, std::string table_path, std::string table_name,
                                 FileStoreCommitConfig config)
    : fs_(fs),
      table_path_(std::move(table_path)),
      table_name_(std::move(table_name)),
      config_(std::move(config)),
      snapshots_(fs_, table_path_),
      namer_(config_.manifest_uuid ? *config_.manifest_uuid : RandomUuidString()) {
  if (!config_.clock) config_.clock = SystemMillis;
}

FileStoreCommit::~FileStoreCommit() = default;

Result<std::unique_ptr<FileStoreCommit>> FileStoreCommit::Create(FileSystem* fs, std::string table_path,
                                                                 std::string table_name, FileStoreCommitConfig config) {
  std::unique_ptr<FileStoreCommit> commit(
      new FileStoreCommit(fs, std::move(table_path), std::move(table_name), std::move(config)));
  TIDE_RETURN_IF_ERROR(commit->LoadTableInfo().status());
  return commit;
}

Result<FileStoreCommit::TableInfo> FileStoreCommit::LoadTableInfo() const {
  TableInfo info;
  SchemaManager schemas(fs_, table_path_);
  auto schema = schemas.Latest();
  if (!schema.ok()) return schema.status().WithContext(fmt::format("table {}", table_name_));
  info.schema = std::move(schema).value();
  const TableSchema& s = info.schema;
  TIDE_ASSIGN_OR_RETURN(CoreOptions options, CoreOptions::Create(s, table_name_));
  if (const std::string& format = options.manifest_format(); format != "avro") {
    return Status::NotSupported("table {} sets manifest.format={}; Tide writes Avro manifests only", table_name_,
                                format);
  }
  for (const auto& key : s.partition_keys) {
    int i = s.FieldIndex(key);
    if (i < 0) return Status::Corruption("table {}: partition key {} is not a column", table_name_, key);
    info.partition_types.push_back(s.fields[i].type);
  }
  info.has_primary_key = s.HasPrimaryKey();
  for (const auto& key : s.TrimmedPrimaryKeys()) {
    int i = s.FieldIndex(key);
    if (i < 0) return Status::Corruption("table {}: primary key {} is not a column", table_name_, key);
    info.key_types.push_back(s.fields[i].type);
  }
  info.num_buckets = options.bucket();
  info.bucket_unaware = info.num_buckets == -1 && !info.has_primary_key;

  if (config_.merge) {
    info.merge = *config_.merge;
  } else {
    info.merge.target_file_size = options.manifest_target_file_size();
    info.merge.full_compaction_threshold_size = options.manifest_full_compaction_threshold_size();
    info.merge.merge_min_count = options.manifest_merge_min_count();
  }
  info.max_retries = config_.max_retries ? *config_.max_retries : options.commit_max_retries();
  return info;
}

Result<std::optional<int64_t>> FileStoreCommit::LatestIdentifierOf(const std::string& user) {
  TIDE_ASSIGN_OR_RETURN(auto latest, snapshots_.LatestId());
  UserProgress& p = user_progress_[user];
  if (!latest) {
    p = UserProgress();
    return std::optional<int64_t>();
  }
  if (*latest < p.checked_through) p = UserProgress();  // rolled back: search again
  TIDE_ASSIGN_OR_RETURN(auto earliest, snapshots_.EarliestId());
  int64_t stop = std::max(p.checked_through + 1, earliest.value_or(1));
  for (int64_t id = *latest; id >= stop; --id) {
    auto s = snapshots_.Get(id);
    if (!s.ok()) {
      if (s.status().IsNotFound()) break;  // expired underneath us
      return s.status();
    }
    if (s->commit_user == user) {
      // The newest snapshot of the user: identifiers only grow, so this one is the largest.
      p.identifier = s->commit_identifier;
      break;
    }
  }
  p.checked_through = *latest;
  return p.identifier;
}

namespace {

// The entries of `snapshot` (base + delta lists) merged, restricted to `partitions` when given.
// Manifests whose partition stats exclude every wanted partition are not read.
Result<std::vector<ManifestEntry>> ReadMergedEntries(const ManifestFileWriter& files, const Snapshot& snapshot,
                                                     const std::optional<std::set<std::string>>& partitions) {
  std::vector<ManifestFileMeta> metas;
  for (const std::string& list : {snapshot.base_manifest_list, snapshot.delta_manifest_list}) {
    TIDE_ASSIGN_OR_RETURN(auto m, files.ReadManifestList(list));
    metas.insert(metas.end(), m.begin(), m.end());
  }
  const auto& types = files.partition_types();
  std::vector<Row> wanted;
  if (partitions && !types.empty()) {
    for (const auto& p : *partitions) {
      TIDE_ASSIGN_OR_RETURN(Row row, DeserializeBinaryRow(p, types));
      wanted.push_back(std::move(row));
    }
  }
  FileEntryMerger merger;
  for (const auto& meta : metas) {
    if (partitions) {
      if (partitions->empty()) break;
      if (!types.empty()) {
        TIDE_ASSIGN_OR_RETURN(bool may, ManifestMayContainAny(meta.partition_stats, wanted, types));
        if (!may) continue;
      }
    }
    TIDE_ASSIGN_OR_RETURN(ManifestEntryCache::Entries entries, files.ReadManifestShared(meta.file_name));
    for (const ManifestEntry& e : *entries) {
      if (partitions && !partitions->count(e.partition)) continue;
      Status s = merger.Add(e);
      if (!s.ok()) {
        return Status::Corruption("snapshot {}: {} (manifest {})", snapshot.id, s.message(),
                                  files.PathOf(meta.file_name));
      }
    }
  }
  return merger.TakeEntries();
}

}  // namespace

namespace {

struct ConflictContext {
  const std::string* table_name;
  const std::string* commit_user;
  int64_t latest_id;
  const std::string* latest_user;
};

Status ConflictError(const ConflictContext& c, const std::string& what) {
  return Status::Conflict(
      "table {}: commit by user {} conflicts with snapshot {} (committed by user {}): {}. Another writer changed "
      "the same files at the same time; rebuild the writer's state from the latest snapshot and write again",
      *c.table_name, *c.commit_user, c.latest_id, *c.latest_user, what);
}

}  // namespace

void FileStoreCommit::WriteHint(const char* name, int64_t id, std::mt19937* rng) {
  // Hints only speed up finding snapshots (readers verify them), so failing to write one does not fail
  // the commit; like Java, try three times.
  std::string path = JoinPath(snapshots_.SnapshotDir(), name);
  Status s;
  for (int attempt = 0; attempt < 3; ++attempt) {
    if (attempt > 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(std::uniform_int_distribution<int>(5, 50)(*rng)));
    }
    s = fs_->WriteHintFile(path, std::to_string(id));
    if (s.ok()) return;
  }
  TIDE_LOG_WARN("table {}: could not write the {} hint ({}): {}", table_name_, name, id, s.ToString());
}

Result<int64_t> FileStoreCommit::TryCommit(const TableInfo& info, const Changes& changes, CommitKind kind,
                                           const CommitOptions& options, const OverwriteScope* overwrite,
                                           int* attempts) {
  ManifestWriterOptions writer_options;
  writer_options.target_file_size = info.merge.target_file_size;
  ManifestFileWriter files(fs_, JoinPath(table_path_, "manifest"), info.partition_types, &namer_, writer_options);
  files.set_cache(&manifest_cache_);

  // Whether this snapshot needs the conflict check (Java skips it for plain appends in streaming).
  bool only_level0_adds = std::all_of(changes.table_files.begin(), changes.table_files.end(), [](const auto& e) {
    return e.kind == FileKind::kAdd && e.file.level == 0;
  });
  bool check_conflicts =
      overwrite != nullptr || kind != CommitKind::kAppend || !only_level0_adds || config_.check_append_conflicts;

  std::optional<int64_t> previous_latest;
  std::mt19937 rng(std::random_device{}());
  for (int attempt = 0;; ++attempt) {
    ++*attempts;
    TIDE_ASSIGN_OR_RETURN(auto latest_id, snapshots_.LatestId());
    std::optional<Snapshot> latest;
    if (latest_id) {
      TIDE_ASSIGN_OR_RETURN(Snapshot s, snapshots_.Get(*latest_id));
      latest = std::move(s);
    }
    // A retry first looks for its own snapshot among the new ones.
    if (attempt > 0 && latest) {
      TIDE_ASSIGN_OR_RETURN(auto own, FindOwnSnapshot(previous_latest.value_or(0) + 1, latest->id, options, kind));
      if (own) return *own;
    }
    previous_latest = latest_id;

    TIDE_ASSIGN_OR_RETURN(Changes delta, AttemptDelta(info, files, changes, latest, overwrite));
    if (check_conflicts && !delta.table_files.empty()) {
      TIDE_RETURN_IF_ERROR(CheckConflicts(info, files, delta, latest, options, kind));
    }

    const int64_t new_id = latest ? latest->id + 1 : 1;
    std::vector<std::string> written;  // this attempt's metadata files, deleted when nothing references them
    auto abandon = [&]() {
      for (const auto& name : written) files.DeleteQuietly(name);
    };
    std::set<std::string> listed_manifests;  // the data manifests the new snapshot lists
    auto snap = WriteMetadata(info, &files, delta, latest, new_id, options, kind, &written, &listed_manifests);
    if (!snap.ok()) {
      abandon();
      return snap.status().WithContext(fmt::format("table {}: preparing snapshot {} (nothing was committed)",
                                                   table_name_, new_id));
    }

    // The manifests were written under their final names (ManifestFileWriter): make their folder
    // entries durable before the snapshot that lists them; the first snapshot also needs the table
    // folder's entries for manifest/ and snapshot/.
    Status synced = SyncLocalDirectory(JoinPath(table_path_, "manifest"));
    if (synced.ok() && !latest) {
      synced = fs_->MakeDirs(snapshots_.SnapshotDir());
      if (synced.ok()) synced = SyncLocalDirectory(table_path_);
    }
    if (!synced.ok()) {
      abandon();
      return synced.WithContext(fmt::format("table {}: preparing snapshot {} (nothing was committed)", table_name_,
                                            new_id));
    }
    bool nothing_landed = false;
    auto outcome = Publish(*snap, &nothing_landed);
    if (!outcome.ok()) {
      if (nothing_landed) abandon();
      return outcome.status();
    }
    if (*outcome == PublishOutcome::kPublished) {
      // What the next commit reads: the manifests of this snapshot.
      manifest_cache_.RetainOnly(listed_manifests);
      WriteHint("LATEST", new_id, &rng);
      if (!latest) WriteHint("EARLIEST", new_id, &rng);
      return new_id;
    }
    // Another committer took the id: this attempt's metadata is referenced by nothing.
    abandon();
    if (attempt >= info.max_retries) {
      return Status::Conflict(
          "table {}: commit by user {} gave up after {} retries: other writers kept taking the next snapshot id "
          "(last tried {}); commit again later or raise commit.max-retries",
          table_name_, options.commit_user, attempt, new_id);
    }
    // Spread competing committers apart before trying again.
    int limit = std::min(100, 2 << std::min(attempt, 6));
    std::this_thread::sleep_for(std::chrono::milliseconds(std::uniform_int_distribution<int>(1, limit)(rng)));
  }
}

Result<std::optional<int64_t>> FileStoreCommit::FindOwnSnapshot(int64_t from, int64_t to, const CommitOptions& options,
                                                                CommitKind kind) const {
  for (int64_t id = from; id <= to; ++id) {
    auto s = snapshots_.Get(id);
    if (!s.ok()) {
      if (s.status().IsNotFound()) continue;
      return s.status();
    }
    if (s->commit_user == options.commit_user && s->commit_identifier == options.commit_identifier &&
        s->commit_kind == kind) {
      return std::optional<int64_t>(id);
    }
  }
  return std::optional<int64_t>();
}

std::string FileStoreCommit::Describe(const TableInfo& info, const ManifestEntry& e) const {
  return fmt::format("{} (partition {}, bucket {}, level {})", e.file.file_name,
                     PartitionText(info.schema.partition_keys, info.partition_types, e.partition), e.bucket,
                     e.file.level);
}

Result<FileStoreCommit::Changes> FileStoreCommit::AttemptDelta(const TableInfo& info, const ManifestFileWriter& files,
                                                               const Changes& changes,
                                                               const std::optional<Snapshot>& latest,
                                                               const OverwriteScope* overwrite) const {
  // The delta of this attempt; an overwrite deletes what is live in its scope now.
  Changes delta;
  if (overwrite && latest) {
    std::optional<std::set<std::string>> scope;
    if (overwrite->partitions) scope = std::set<std::string>(overwrite->partitions->begin(), overwrite->partitions->end());
    TIDE_ASSIGN_OR_RETURN(auto live, ReadMergedEntries(files, *latest, scope));
    for (auto& e : live) {
      if (e.kind != FileKind::kAdd) continue;
      if (info.num_buckets != kPostponeBucket && e.bucket < 0) continue;
      e.kind = FileKind::kDelete;
      delta.table_files.push_back(std::move(e));
    }
    if (latest->index_manifest) {
      TIDE_ASSIGN_OR_RETURN(auto index, files.ReadIndexManifest(*latest->index_manifest));
      for (auto& e : index) {
        if (!overwrite->Contains(e.partition)) continue;
        e.kind = FileKind::kDelete;
        delta.index_files.push_back(std::move(e));
      }
    }
  }
  delta.table_files.insert(delta.table_files.end(), changes.table_files.begin(), changes.table_files.end());
  delta.changelog_files = changes.changelog_files;
  delta.index_files.insert(delta.index_files.end(), changes.index_files.begin(), changes.index_files.end());

  return delta;
}

Status FileStoreCommit::CheckConflicts(const TableInfo& info, const ManifestFileWriter& files, const Changes& delta,
                                       const std::optional<Snapshot>& latest, const CommitOptions& options,
                                       CommitKind kind) const {
  auto partition_text = [&](const std::string& p) {
    return PartitionText(info.schema.partition_keys, info.partition_types, p);
  };
  auto describe = [&](const ManifestEntry& e) { return Describe(info, e); };
  // Against the live files of the changed partitions; on an empty table the delta is checked alone.
  std::vector<ManifestEntry> base;
  static const std::string kNobody = "(none: the table has no snapshot)";
  if (latest) {
    std::set<std::string> changed;
    for (const auto& e : delta.table_files) changed.insert(e.partition);
    TIDE_ASSIGN_OR_RETURN(base, ReadMergedEntries(files, *latest, changed));
  }
  ConflictContext ctx{&table_name_, &options.commit_user, latest ? latest->id : 0,
                      latest ? &latest->commit_user : &kNobody};

  if (kind != CommitKind::kOverwrite) {
    std::map<std::string, int32_t> total_buckets;
    const std::vector<ManifestEntry>* lists[] = {&base, &delta.table_files};
    for (const std::vector<ManifestEntry>* list : lists) {
      for (const auto& e : *list) {
        if (e.total_buckets <= 0) continue;
        auto [it, inserted] = total_buckets.emplace(e.partition, e.total_buckets);
        if (!inserted && it->second != e.total_buckets) {
          return ConflictError(ctx, fmt::format("the bucket count of partition {} changed from {} to {} without "
                                                "an overwrite (data file {})",
                                                partition_text(e.partition), it->second, e.total_buckets,
                                                e.file.file_name));
        }
      }
    }
  }

  FileEntryMerger merged;
  for (auto& e : base) {
    if (e.kind == FileKind::kAdd) TIDE_RETURN_IF_ERROR(merged.Add(std::move(e)));
  }
  for (const auto& e : delta.table_files) {
    Status s = merged.Add(e);
    if (!s.ok()) return ConflictError(ctx, std::string(s.message()));
  }
  auto entries = merged.TakeEntries();
  for (const auto& e : entries) {
    if (e.kind == FileKind::kDelete) {
      return ConflictError(ctx, fmt::format("data file {} is to be deleted but is not live", describe(e)));
    }
  }
  if (info.has_primary_key) {
    // Files of one (partition, bucket, level >= 1) form one sorted run: no key range may overlap.
    struct Ranged {
      const ManifestEntry* entry;
      Row min, max;
    };
    std::map<std::tuple<std::string, int32_t, int32_t>, std::vector<Ranged>> levels;
    for (const auto& e : entries) {
      if (e.file.level < 1) continue;
      auto min = DeserializeBinaryRow(e.file.min_key, info.key_types);
      auto max = DeserializeBinaryRow(e.file.max_key, info.key_types);
      if (!min.ok() || !max.ok()) {
        return Status::Corruption("table {}: the key range of data file {} does not decode with the primary key "
                                  "types: {}",
                                  table_name_, describe(e), (!min.ok() ? min : max).status().ToString());
      }
      levels[{e.partition, e.bucket, e.file.level}].push_back(
          Ranged{&e, std::move(min).value(), std::move(max).value()});
    }
    for (auto& [key, run] : levels) {
      std::stable_sort(run.begin(), run.end(),
                       [](const Ranged& a, const Ranged& b) { return CompareRows(a.min, b.min) < 0; });
      for (size_t i = 0; i + 1 < run.size(); ++i) {
        if (CompareRows(run[i].max, run[i + 1].min) >= 0) {
          return ConflictError(ctx, fmt::format("the key ranges of data files {} and {} overlap in one level",
                                                describe(*run[i].entry), describe(*run[i + 1].entry)));
        }
      }
    }
  }
  return Status::OK();
}

Result<Snapshot> FileStoreCommit::WriteMetadata(const TableInfo& info, ManifestFileWriter* writer, const Changes& delta,
                                                const std::optional<Snapshot>& latest, int64_t new_id,
                                                const CommitOptions& options, CommitKind kind,
                                                std::vector<std::string>* written_files,
                                                std::set<std::string>* listed_manifests) const {
  ManifestFileWriter& files = *writer;
  std::vector<std::string>& written = *written_files;
  Snapshot snap;
  std::vector<ManifestFileMeta> previous;
  int64_t previous_total = 0;
  if (latest) {
    for (const std::string& list : {latest->base_manifest_list, latest->delta_manifest_list}) {
      TIDE_ASSIGN_OR_RETURN(auto m, files.ReadManifestList(list));
      previous.insert(previous.end(), m.begin(), m.end());
    }
    if (latest->total_record_count) {
      previous_total = *latest->total_record_count;
    } else {
      TIDE_ASSIGN_OR_RETURN(auto live, ReadMergedEntries(files, *latest, std::nullopt));
      previous_total = RowCount(live, FileKind::kAdd);
    }
  }
  TIDE_ASSIGN_OR_RETURN(auto merged, MergeManifests(previous, &files, info.merge));
  written.insert(written.end(), merged.new_files.begin(), merged.new_files.end());
  TIDE_ASSIGN_OR_RETURN(auto base_list, files.WriteManifestList(merged.manifests));
  written.push_back(base_list.first);

  TIDE_ASSIGN_OR_RETURN(auto delta_manifests, files.WriteManifests(delta.table_files));
  for (const auto& m : delta_manifests) written.push_back(m.file_name);
  TIDE_ASSIGN_OR_RETURN(auto delta_list, files.WriteManifestList(delta_manifests));
  written.push_back(delta_list.first);
  listed_manifests->clear();
  for (const auto& m : merged.manifests) listed_manifests->insert(m.file_name);
  for (const auto& m : delta_manifests) listed_manifests->insert(m.file_name);

  std::optional<std::pair<std::string, int64_t>> changelog_list;
  if (!delta.changelog_files.empty()) {
    TIDE_ASSIGN_OR_RETURN(auto changelog_manifests, files.WriteManifests(delta.changelog_files));
    for (const auto& m : changelog_manifests) written.push_back(m.file_name);
    TIDE_ASSIGN_OR_RETURN(auto list, files.WriteManifestList(changelog_manifests));
    written.push_back(list.first);
    changelog_list = std::move(list);
  }

  std::optional<std::string> index_manifest = latest ? latest->index_manifest : std::nullopt;
  if (!delta.index_files.empty()) {
    std::vector<IndexManifestEntry> previous_index;
    if (index_manifest) {
      TIDE_ASSIGN_OR_RETURN(previous_index, files.ReadIndexManifest(*index_manifest));
    }
    TIDE_ASSIGN_OR_RETURN(auto combined, CombineIndexEntries(std::move(previous_index), delta.index_files,
                                                             info.bucket_unaware, index_manifest.value_or("")));
    TIDE_ASSIGN_OR_RETURN(std::string name, files.WriteIndexManifest(combined));
    written.push_back(name);
    index_manifest = std::move(name);
  }

  // The latest schema id now (Java reads it at every attempt): a column added meanwhile counts.
  int64_t schema_id = info.schema.id;
  if (auto ids = SchemaManager(fs_, table_path_).ListIds(); ids.ok() && !ids->empty()) {
    schema_id = std::max(schema_id, ids->back());
  }
  snap.version = 3;
  snap.id = new_id;
  snap.schema_id = schema_id;
  snap.base_manifest_list = base_list.first;
  snap.base_manifest_list_size = base_list.second;
  snap.delta_manifest_list = delta_list.first;
  snap.delta_manifest_list_size = delta_list.second;
  if (changelog_list) {
    snap.changelog_manifest_list = changelog_list->first;
    snap.changelog_manifest_list_size = changelog_list->second;
  }
  snap.index_manifest = index_manifest;
  snap.commit_user = options.commit_user;
  snap.commit_identifier = options.commit_identifier;
  snap.commit_kind = kind;
  snap.time_millis = config_.clock();
  snap.log_offsets = latest && latest->log_offsets ? *latest->log_offsets : std::map<int32_t, int64_t>{};
  int64_t delta_count = RowCount(delta.table_files, FileKind::kAdd) - RowCount(delta.table_files, FileKind::kDelete);
  snap.total_record_count = previous_total + delta_count;
  snap.delta_record_count = delta_count;
  snap.changelog_record_count = RowCount(delta.changelog_files, FileKind::kAdd);
  snap.watermark = options.watermark;
  if (latest && latest->watermark) {
    snap.watermark = snap.watermark ? std::max(*snap.watermark, *latest->watermark) : *latest->watermark;
  }
  if (latest && latest->statistics) {
    // Statistics stay valid while the schema does (Java reads the file to compare schema ids).
    std::string path = JoinPath(JoinPath(table_path_, "statistics"), *latest->statistics);
    auto text = fs_->ReadFile(path);
    if (text.ok()) {
      auto json = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
      if (json.is_object() && json.contains("schemaId") && json["schemaId"].is_number_integer() &&
          json["schemaId"].get<int64_t>() == info.schema.id) {
        snap.statistics = latest->statistics;
      }
    } else {
      TIDE_LOG_WARN("table {}: statistics file {} of snapshot {} is not readable ({}); not carried over",
                    table_name_, path, latest->id, text.status().ToString());
    }
  }
  if (!options.properties.empty()) snap.properties = options.properties;
  return snap;
}

bool FileStoreCommit::IsThisCommit(const Snapshot& landed, const Snapshot& mine) {
  return landed.id == mine.id && landed.commit_user == mine.commit_user &&
         landed.commit_identifier == mine.commit_identifier && landed.commit_kind == mine.commit_kind &&
         landed.delta_manifest_list == mine.delta_manifest_list;
}

Result<FileStoreCommit::PublishOutcome> FileStoreCommit::Publish(const Snapshot& snap, bool* nothing_landed) {
  const std::string snapshot_path = snapshots_.SnapshotPath(snap.id);
  Status published = fs_->WriteFileExclusive(snapshot_path, snap.ToJson());
  if (published.ok()) return PublishOutcome::kPublished;

  // Whatever the file system said, the snapshot file itself tells what landed. AlreadyExists is
  // usually a lost race, but an object store that retried an exclusive create may report it for this
  // very commit's file: then the commit landed and its manifests must stay.
  auto text = fs_->ReadFile(snapshot_path);
  if (!text.ok()) {
    if (text.status().IsNotFound() && !published.IsAlreadyExists()) {
      *nothing_landed = true;
      return published.WithContext(
          fmt::format("table {}: publishing snapshot {} (nothing was committed)", table_name_, snap.id));
    }
    return Status::IOError(
        "table {}: publishing snapshot {} failed ({}) and whether it landed cannot be told ({}); repeat the "
        "commit with the same user and identifier",
        table_name_, snap.id, published.ToString(), text.status().ToString());
  }
  auto landed = Snapshot::FromJson(*text, snapshot_path);
  if (!landed.ok()) {
    // It may be this commit's own file, cut short: nothing is deleted.
    return Status::IOError(
        "table {}: publishing snapshot {} failed ({}) and the file there does not parse ({}); whether it is this "
        "commit's cannot be told; repeat the commit with the same user and identifier",
        table_name_, snap.id, published.ToString(), landed.status().ToString());
  }
  if (IsThisCommit(*landed, snap)) {
    if (published.IsAlreadyExists()) return PublishOutcome::kPublished;
    return Status::IOError(
        "table {}: snapshot {} was created, but the file system reported an error, so it may not be durable "
        "({}); repeat the commit with the same user and identifier: it will be reported as already committed "
        "if the snapshot stays",
        table_name_, snap.id, published.ToString());
  }
  return PublishOutcome::kLostRace;  // another committer's snapshot holds the id
}

Result<CommitResult> FileStoreCommit::Commit(const std::vector<CommitMessage>& messages, const CommitOptions& options) {
  return CommitImpl(nullptr, messages, options);
}

Result<CommitResult> FileStoreCommit::Overwrite(const OverwriteScope& scope, const std::vector<CommitMessage>& messages,
                                                const CommitOptions& options) {
  return CommitImpl(&scope, messages, options);
}

Result<CommitResult> FileStoreCommit::CommitImpl(const OverwriteScope* overwrite,
                                                 const std::vector<CommitMessage>& messages,
                                                 const CommitOptions& options) {
  if (options.commit_user.empty()) {
    return Status::InvalidArgument("table {}: CommitOptions.commit_user is empty; give every writer an identity",
                                   table_name_);
  }
  if (!overwrite && options.kind != CommitKind::kAppend && options.kind != CommitKind::kCompact) {
    return Status::InvalidArgument("table {}: Commit takes kind APPEND or COMPACT, not {}; use Overwrite for {}",
                                   table_name_, CommitKindName(options.kind), CommitKindName(options.kind));
  }
  TIDE_ASSIGN_OR_RETURN(TableInfo info, LoadTableInfo());
  if (overwrite && info.has_primary_key && info.num_buckets == -1 && (overwrite->partitions || !overwrite->fresh_writer)) {
    // An overwrite drops the HASH index files of the replaced partitions while a writer that started
    // from the table writes index files only for buckets that received new keys: a later writer could
    // then put a key into a second bucket. Only a whole-table overwrite by a writer that started from
    // an empty table (as Java's overwrite bucket assigner does) leaves whole indexes.
    return Status::NotSupported(
        "table {}: overwriting a primary-key table in dynamic bucket mode (bucket = -1) needs a whole-table "
        "overwrite by a writer that ignored the previous files; delete its rows with -D rows instead, or "
        "recreate the table with a fixed bucket count",
        table_name_);
  }

  // Sort the messages into the APPEND part and the COMPACT part, as Java's collectChanges does.
  Changes append, compact;
  for (const auto& m : messages) {
    auto partition = DeserializeBinaryRow(m.partition, info.partition_types);
    if (!partition.ok()) {
      return Status::InvalidArgument("table {}: a commit message's partition ({}) is not a row of the partition "
                                     "types: {}",
                                     table_name_, HexEncode(m.partition), partition.status().ToString());
    }
    // A message without a bucket count gets the table's, as Java's makeEntry does for a null one.
    const int32_t total_buckets = m.total_buckets != 0 ? m.total_buckets : info.num_buckets;
    auto entry = [&](FileKind kind, const DataFileMeta& f) {
      return ManifestEntry{kind, m.partition, m.bucket, total_buckets, f};
    };
    for (const auto& f : m.new_files) append.table_files.push_back(entry(FileKind::kAdd, f));
    for (const auto& f : m.compact_before) compact.table_files.push_back(entry(FileKind::kDelete, f));
    for (const auto& f : m.compact_after) compact.table_files.push_back(entry(FileKind::kAdd, f));
    bool changelog_with_append = !m.new_files.empty() || (m.compact_before.empty() && m.compact_after.empty());
    for (const auto& f : m.changelog_files) {
      (changelog_with_append ? append : compact).changelog_files.push_back(entry(FileKind::kAdd, f));
    }
    for (const auto& f : m.compact_changelog_files) compact.changelog_files.push_back(entry(FileKind::kAdd, f));
    auto index_entry = [&](FileKind kind, IndexManifestEntry e) {
      e.kind = kind;
      e.partition = m.partition;
      e.bucket = m.bucket;
      return e;
    };
    for (const auto& f : m.new_index_files) {
      if (f.index_type == kHashIndex) {
        append.index_files.push_back(index_entry(FileKind::kAdd, f));
      } else if (f.index_type == kDeletionVectorsIndex) {
        compact.index_files.push_back(index_entry(FileKind::kAdd, f));
      } else {
        return Status::InvalidArgument("table {}: index file {} has unknown index type '{}' (HASH or DELETION_VECTORS)",
                                       table_name_, f.file_name, f.index_type);
      }
    }
    for (const auto& f : m.deleted_index_files) {
      if (f.index_type != kDeletionVectorsIndex) {
        return Status::InvalidArgument("table {}: index file {} of type '{}' cannot be deleted by a commit; only "
                                       "DELETION_VECTORS index files are replaced",
                                       table_name_, f.file_name, f.index_type);
      }
      compact.index_files.push_back(index_entry(FileKind::kDelete, f));
    }
  }

  if (overwrite) {
    for (const auto& e : append.table_files) {
      if (!overwrite->Contains(e.partition)) {
        return Status::InvalidArgument(
            "table {}: new data file {} is in partition {}, outside the partitions being overwritten", table_name_,
            e.file.file_name, PartitionText(info.schema.partition_keys, info.partition_types, e.partition));
      }
    }
    if (!append.changelog_files.empty() || !compact.changelog_files.empty()) {
      TIDE_LOG_WARN("table {}: overwrite does not commit changelog files; {} changelog files are ignored", table_name_,
                    append.changelog_files.size() + compact.changelog_files.size());
      append.changelog_files.clear();
      compact.changelog_files.clear();
    }
  } else if (options.kind == CommitKind::kCompact) {
    if (!append.table_files.empty()) {
      return Status::InvalidArgument(
          "table {}: a COMPACT commit got new data file {}; new files must be committed with kind APPEND, or "
          "streaming readers would never see them",
          table_name_, append.table_files.front().file.file_name);
    }
    for (auto& e : append.changelog_files) compact.changelog_files.push_back(std::move(e));
    for (auto& e : append.index_files) compact.index_files.push_back(std::move(e));
    append = Changes();
  }

  CommitResult result;
  bool do_first = overwrite || !append.empty() || options.allow_empty;
  if (!do_first && compact.empty()) return result;  // kNothingToCommit

  TIDE_ASSIGN_OR_RETURN(auto committed, LatestIdentifierOf(options.commit_user));
  if (committed && *committed >= options.commit_identifier) {
    result.outcome = CommitOutcome::kAlreadyCommitted;
    return result;
  }

  auto record = [&](int64_t id) {
    result.snapshot_ids.push_back(id);
    UserProgress& p = user_progress_[options.commit_user];
    p.checked_through = std::max(p.checked_through, id);
    p.identifier = options.commit_identifier;
  };
  auto last = std::make_unique<LastCommit>();
  last->options = options;
  if (overwrite) last->overwrite = *overwrite;
  last->first_kind = overwrite ? CommitKind::kOverwrite : CommitKind::kAppend;
  if (do_first) {
    TIDE_ASSIGN_OR_RETURN(int64_t id, TryCommit(info, append, last->first_kind, options, overwrite, &result.attempts));
    record(id);
    last->first_id = id;
    last->first = std::move(append);
    last_ = std::move(last);
  }
  if (!compact.empty()) {
    auto id = TryCommit(info, compact, CommitKind::kCompact, options, nullptr, &result.attempts);
    if (!id.ok() && options.give_up_lost_compaction && id.status().IsConflict()) {
      result.compaction_lost = id.status();
      result.outcome = result.snapshot_ids.empty() ? CommitOutcome::kNothingToCommit : CommitOutcome::kCommitted;
      return result;
    }
    if (!id.ok()) {
      if (result.snapshot_ids.empty()) return id.status();
      return id.status().WithContext(fmt::format(
          "table {}: snapshot {} with the new files was committed, the COMPACT snapshot after it was not (repeating "
          "this commit reports it as already committed; the compaction's files stay unreferenced)",
          table_name_, result.snapshot_ids.back()));
    }
    record(*id);
    if (last) last_ = std::move(last);  // a COMPACT-only commit
    last_->compact_id = *id;
  }
  result.outcome = CommitOutcome::kCommitted;
  return result;
}

Result<RecheckResult> FileStoreCommit::RecheckLastCommit() {
  RecheckResult result;
  if (!last_) return result;
  LastCommit& last = *last_;
  auto stands = [&](int64_t id, CommitKind kind) -> Result<bool> {
    auto s = snapshots_.Get(id);
    if (!s.ok()) {
      if (s.status().IsNotFound()) return true;  // expired or rolled back since: nothing left to compare
      return s.status().WithContext("table " + table_name_ + ", checking its last commit");
    }
    return s->commit_user == last.options.commit_user && s->commit_identifier == last.options.commit_identifier &&
           s->commit_kind == kind;
  };
  bool first_replaced = false;
  if (last.first_id) {
    TIDE_ASSIGN_OR_RETURN(bool ok, stands(*last.first_id, last.first_kind));
    if (!ok) {
      first_replaced = true;
      result.replaced.push_back(*last.first_id);
    }
  }
  if (last.compact_id) {
    TIDE_ASSIGN_OR_RETURN(bool ok, stands(*last.compact_id, CommitKind::kCompact));
    if (!ok) {
      result.replaced.push_back(*last.compact_id);
      result.compaction_lost = Status::Conflict(
          "table {}: COMPACT snapshot {} of user {} was replaced by another committer's snapshot file; its "
          "compaction is not in the table",
          table_name_, *last.compact_id, last.options.commit_user);
      last.compact_id.reset();  // reported once
    }
  }
  if (!first_replaced) return result;

  // The new files some snapshot since holds, or held and removed (compacted), are in the table.
  TIDE_ASSIGN_OR_RETURN(TableInfo info, LoadTableInfo());
  ManifestWriterOptions writer_options;
  writer_options.target_file_size = info.merge.target_file_size;
  ManifestFileWriter files(fs_, JoinPath(table_path_, "manifest"), info.partition_types, &namer_, writer_options);
  files.set_cache(&manifest_cache_);
  std::unordered_set<std::string> held;
  TIDE_ASSIGN_OR_RETURN(auto latest_id, snapshots_.LatestId());
  if (latest_id) {
    TIDE_ASSIGN_OR_RETURN(Snapshot latest, snapshots_.Get(*latest_id));
    TIDE_ASSIGN_OR_RETURN(auto live, ReadMergedEntries(files, latest, std::nullopt));
    for (const ManifestEntry& e : live) held.insert(FileEntryKey(e));
    for (int64_t id = *last.first_id; id <= *latest_id; ++id) {
      auto s = snapshots_.Get(id);
      if (!s.ok()) {
        if (s.status().IsNotFound()) continue;
        return s.status();
      }
      TIDE_ASSIGN_OR_RETURN(auto metas, files.ReadManifestList(s->delta_manifest_list));
      for (const ManifestFileMeta& m : metas) {
        TIDE_ASSIGN_OR_RETURN(ManifestEntryCache::Entries entries, files.ReadManifestShared(m.file_name));
        for (const ManifestEntry& e : *entries) {
          if (e.kind == FileKind::kDelete) held.insert(FileEntryKey(e));
        }
      }
    }
  }
  Changes again;
  size_t adds = 0;
  for (const ManifestEntry& e : last.first.table_files) {
    if (e.kind != FileKind::kAdd) continue;
    ++adds;
    if (!held.count(FileEntryKey(e))) again.table_files.push_back(e);
  }
  if (again.table_files.empty() && !(last.overwrite && adds == 0)) return result;
  if (again.table_files.size() == adds) {
    // Nothing of the commit is in the table: its changelog and index files go again with its files.
    again.changelog_files = last.first.changelog_files;
    again.index_files = last.first.index_files;
  }
  int attempts = 0;
  TIDE_ASSIGN_OR_RETURN(int64_t id, TryCommit(info, again, last.first_kind, last.options,
                                              last.overwrite ? &*last.overwrite : nullptr, &attempts));
  result.recommitted = id;
  last.first_id = id;
  UserProgress& p = user_progress_[last.options.commit_user];
  p.checked_through = std::max(p.checked_through, id);
  p.identifier = last.options.commit_identifier;
  return result;
}

}  // namespace tide
