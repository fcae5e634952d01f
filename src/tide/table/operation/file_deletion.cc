#include "tide/table/operation/file_deletion.h"

#include <unordered_map>

#include "tide/base/bytes.h"
#include "tide/base/logging.h"
#include "tide/base/strings.h"
#include "tide/codec/binary_row.h"
#include "tide/table/manifest/file_entry_merger.h"
#include "tide/table/schema/schema_manager.h"

namespace tide {

FileDeletion::FileDeletion(FileSystem* fs, std::string table_path, std::string table_name, TableSchema schema,
                           std::unique_ptr<CoreOptions> options)
    : fs_(fs),
      table_path_(std::move(table_path)),
      table_name_(std::move(table_name)),
      schema_(std::move(schema)),
      options_(std::move(options)) {
  paths_ = std::make_unique<FileStorePathFactory>(table_path_, schema_, *options_);
  for (const auto& key : schema_.partition_keys) {
    int i = schema_.FieldIndex(key);
    if (i >= 0) partition_types_.push_back(schema_.fields[static_cast<size_t>(i)].type);
  }
}

Result<std::unique_ptr<FileDeletion>> FileDeletion::Create(FileSystem* fs, std::string table_path,
                                                           std::string table_name) {
  auto schema = SchemaManager(fs, table_path).Latest();
  if (!schema.ok()) return schema.status().WithContext(fmt::format("table {}", table_name));
  TIDE_ASSIGN_OR_RETURN(CoreOptions options, CoreOptions::Create(*schema, table_name));
  if (options.manifest_format() != "avro") {
    return Status::NotSupported("table {} sets manifest.format={}; Tide reads Avro manifests only", table_name,
                                options.manifest_format());
  }
  return std::unique_ptr<FileDeletion>(new FileDeletion(fs, std::move(table_path), std::move(table_name),
                                                        std::move(schema).value(),
                                                        std::make_unique<CoreOptions>(std::move(options))));
}

std::string FileDeletion::ManifestPath(const std::string& name) const {
  return JoinPath(JoinPath(table_path_, "manifest"), name);
}

std::string FileDeletion::StatisticsPath(const std::string& name) const {
  return JoinPath(JoinPath(table_path_, "statistics"), name);
}

Result<std::string> FileDeletion::BucketPath(const std::string& partition, int32_t bucket) {
  auto it = partition_paths_.find(partition);
  if (it == partition_paths_.end()) {
    auto row = DeserializeBinaryRow(partition, partition_types_);
    if (!row.ok()) return row.status().WithContext(fmt::format("table {}: a manifest entry's partition", table_name_));
    TIDE_ASSIGN_OR_RETURN(std::string path, paths_->PartitionPath(*row));
    it = partition_paths_.emplace(partition, std::move(path)).first;
  }
  return FileStorePathFactory::BucketPath(it->second, bucket);
}

Result<std::vector<std::string>> FileDeletion::FilePaths(const ManifestEntry& entry) {
  std::string dir;
  std::vector<std::string> out;
  if (entry.file.external_path) {
    std::string path = LocalPathOf(*entry.file.external_path);
    dir = std::string(DirName(path));
    out.push_back(std::move(path));
  } else {
    TIDE_ASSIGN_OR_RETURN(dir, BucketPath(entry.partition, entry.bucket));
    out.push_back(JoinPath(dir, entry.file.file_name));
  }
  // Extra files (e.g. a file index) sit beside their data file (Java's toAlignedPath).
  for (const auto& extra : entry.file.extra_files) out.push_back(JoinPath(dir, extra));
  return out;
}

Result<std::string> FileDeletion::IndexFilePath(const IndexManifestEntry& entry) {
  if (entry.external_path) return LocalPathOf(*entry.external_path);
  if (options_->index_file_in_data_file_dir()) {
    TIDE_ASSIGN_OR_RETURN(std::string bucket, BucketPath(entry.partition, entry.bucket));
    return JoinPath(bucket, entry.file_name);
  }
  return JoinPath(JoinPath(table_path_, "index"), entry.file_name);
}

std::string FileDeletion::DataFileKey(const ManifestEntry& entry) {
  std::string key;
  AppendLE<uint32_t>(&key, static_cast<uint32_t>(entry.partition.size()));
  key += entry.partition;
  AppendLE<int32_t>(&key, entry.bucket);
  key += entry.file.file_name;
  return key;
}

Result<std::vector<ManifestEntry>> FileDeletion::ReadListEntries(const std::string& list) {
  TIDE_ASSIGN_OR_RETURN(auto metas, ReadManifestList(fs_, ManifestPath(list)));
  std::vector<ManifestEntry> out;
  for (const auto& meta : metas) {
    TIDE_ASSIGN_OR_RETURN(auto entries, ReadManifest(fs_, ManifestPath(meta.file_name)));
    for (auto& e : entries) out.push_back(std::move(e));
  }
  return out;
}

Result<DataFileSet> FileDeletion::LiveDataFiles(const Snapshot& snapshot) {
  FileEntryMerger merger;
  for (const std::string& list : {snapshot.base_manifest_list, snapshot.delta_manifest_list}) {
    TIDE_ASSIGN_OR_RETURN(auto entries, ReadListEntries(list));
    TIDE_RETURN_IF_ERROR(merger.AddAll(std::move(entries)));
  }
  DataFileSet live;
  for (const auto& e : merger.Entries()) {
    if (e.kind == FileKind::kAdd) live.insert(DataFileKey(e));
  }
  return live;
}

Result<std::set<std::string>> FileDeletion::ManifestSkippingSet(const std::vector<Snapshot>& snapshots,
                                                                 bool skip_missing) {
  std::set<std::string> skipping;
  for (const auto& s : snapshots) {
    for (const std::string& list : {s.base_manifest_list, s.delta_manifest_list}) {
      skipping.insert(list);
      auto metas = ReadManifestList(fs_, ManifestPath(list));
      if (!metas.ok()) {
        if (skip_missing && metas.status().IsNotFound()) continue;
        return metas.status();
      }
      for (const auto& m : *metas) skipping.insert(m.file_name);
    }
    if (s.index_manifest) {
      skipping.insert(*s.index_manifest);
      auto entries = ReadIndexManifest(fs_, ManifestPath(*s.index_manifest));
      if (!entries.ok()) {
        if (skip_missing && entries.status().IsNotFound()) continue;
        return entries.status();
      }
      for (const auto& e : *entries) skipping.insert(e.file_name);
    }
    if (s.statistics) skipping.insert(*s.statistics);
  }
  return skipping;
}

void FileDeletion::RecordBucket(const ManifestEntry& entry) { deletion_buckets_[entry.partition].insert(entry.bucket); }

std::vector<std::string> FileDeletion::PlanDeletedInDelta(const Snapshot& snapshot, const DataFileSet& skip,
                                                          bool keep_append_sourced) {
  auto entries = ReadListEntries(snapshot.delta_manifest_list);
  if (!entries.ok()) {
    TIDE_LOG_WARN("table {}: the delta manifests of snapshot {} cannot be read ({}); its replaced data files are "
                  "left for orphan removal",
                  table_name_, snapshot.id, entries.status().ToString());
    return {};
  }
  // A DELETE may be followed by an ADD of the same file (a level upgrade), which keeps it.
  std::vector<std::optional<ManifestEntry>> deleted;
  std::unordered_map<std::string, size_t> index;
  for (auto& e : *entries) {
    std::string key = DataFileKey(e);
    if (e.kind == FileKind::kAdd) {
      if (auto it = index.find(key); it != index.end()) {
        deleted[it->second].reset();
        index.erase(it);
      }
    } else if (!index.count(key)) {
      index.emplace(std::move(key), deleted.size());
      deleted.emplace_back(std::move(e));
    }
  }
  std::vector<std::string> out;
  for (const auto& e : deleted) {
    if (!e || skip.count(DataFileKey(*e))) continue;
    if (keep_append_sourced &&
        e->file.file_source.value_or(static_cast<int32_t>(FileSource::kAppend)) == static_cast<int32_t>(FileSource::kAppend)) {
      continue;
    }
    auto paths = FilePaths(*e);
    if (!paths.ok()) {
      TIDE_LOG_WARN("table {}: {}; data file {} is left for orphan removal", table_name_, paths.status().ToString(),
                    e->file.file_name);
      continue;
    }
    out.insert(out.end(), paths->begin(), paths->end());
    RecordBucket(*e);
  }
  return out;
}

std::vector<std::string> FileDeletion::PlanAddedInChangelog(const Snapshot& snapshot) {
  std::vector<std::string> out;
  if (!snapshot.changelog_manifest_list) return out;
  auto metas = ReadManifestList(fs_, ManifestPath(*snapshot.changelog_manifest_list));
  if (!metas.ok()) return out;
  for (const auto& meta : *metas) {
    auto entries = ReadManifest(fs_, ManifestPath(meta.file_name));
    if (!entries.ok()) continue;  // as Java: the files it names cannot be found, so they are left
    for (const auto& e : *entries) {
      if (e.kind != FileKind::kAdd) continue;
      auto paths = FilePaths(e);
      if (!paths.ok()) continue;
      out.push_back(paths->front());
      RecordBucket(e);
    }
  }
  return out;
}

std::vector<std::string> FileDeletion::PlanLiveDataFiles(const Snapshot& snapshot, const DataFileSet& skip) {
  FileEntryMerger merger;
  for (const std::string& list : {snapshot.base_manifest_list, snapshot.delta_manifest_list}) {
    auto entries = ReadListEntries(list);
    Status s = entries.ok() ? merger.AddAll(std::move(entries).value()) : entries.status();
    if (!s.ok()) {
      TIDE_LOG_WARN("table {}: the manifests of tagged snapshot {} cannot be read ({}); its data files are left "
                    "for orphan removal",
                    table_name_, snapshot.id, s.ToString());
      return {};
    }
  }
  std::vector<std::string> out;
  for (const auto& e : merger.Entries()) {
    if (e.kind != FileKind::kAdd || skip.count(DataFileKey(e))) continue;
    auto paths = FilePaths(e);
    if (!paths.ok()) continue;
    out.insert(out.end(), paths->begin(), paths->end());
    RecordBucket(e);
  }
  return out;
}

MetadataDeletionPlan FileDeletion::PlanMetadata(const Snapshot& snapshot, std::set<std::string>* skipping,
                                                bool data_lists, bool changelog, bool index_and_statistics) {
  MetadataDeletionPlan plan;
  auto add_list = [&](const std::string& list) {
    auto metas = ReadManifestList(fs_, ManifestPath(list));
    if (metas.ok()) {
      for (const auto& m : *metas) {
        if (skipping->insert(m.file_name).second) plan.manifests.push_back(ManifestPath(m.file_name));
      }
    }
    if (skipping->insert(list).second) plan.manifests.push_back(ManifestPath(list));
  };
  if (data_lists) {
    add_list(snapshot.base_manifest_list);
    add_list(snapshot.delta_manifest_list);
  }
  if (changelog && snapshot.changelog_manifest_list) add_list(*snapshot.changelog_manifest_list);
  if (!index_and_statistics) return plan;
  if (snapshot.index_manifest) {
    auto entries = ReadIndexManifest(fs_, ManifestPath(*snapshot.index_manifest));
    if (entries.ok()) {
      for (const auto& e : *entries) {
        if (!skipping->insert(e.file_name).second) continue;
        auto path = IndexFilePath(e);
        if (path.ok()) plan.index_files.push_back(*path);
      }
      if (skipping->insert(*snapshot.index_manifest).second) {
        plan.index_manifests.push_back(ManifestPath(*snapshot.index_manifest));
      }
    }
    // An index manifest that cannot be read was deleted by an earlier, interrupted expiry: nothing to do.
  }
  if (snapshot.statistics && skipping->insert(*snapshot.statistics).second) {
    plan.statistics.push_back(StatisticsPath(*snapshot.statistics));
  }
  return plan;
}

Status FileDeletion::CollectReferenced(const Snapshot& snapshot, bool strict, std::set<std::string>* paths,
                                       std::set<std::string>* manifests_read) {
  auto tolerate = [&](const Status& s) { return !strict && s.IsNotFound(); };
  std::vector<std::string> lists = {snapshot.base_manifest_list, snapshot.delta_manifest_list};
  if (snapshot.changelog_manifest_list) lists.push_back(*snapshot.changelog_manifest_list);
  for (const auto& list : lists) {
    paths->insert(ManifestPath(list));
    auto metas = ReadManifestList(fs_, ManifestPath(list));
    if (!metas.ok()) {
      if (tolerate(metas.status())) continue;
      return metas.status();
    }
    for (const auto& meta : *metas) {
      paths->insert(ManifestPath(meta.file_name));
      if (!manifests_read->insert(meta.file_name).second) continue;
      auto entries = ReadManifest(fs_, ManifestPath(meta.file_name));
      if (!entries.ok()) {
        if (tolerate(entries.status())) continue;
        return entries.status();
      }
      for (const auto& e : *entries) {
        TIDE_ASSIGN_OR_RETURN(auto files, FilePaths(e));
        paths->insert(files.begin(), files.end());
      }
    }
  }
  if (snapshot.index_manifest) {
    paths->insert(ManifestPath(*snapshot.index_manifest));
    auto entries = ReadIndexManifest(fs_, ManifestPath(*snapshot.index_manifest));
    if (!entries.ok()) {
      if (!tolerate(entries.status())) return entries.status();
    } else {
      for (const auto& e : *entries) {
        TIDE_ASSIGN_OR_RETURN(std::string path, IndexFilePath(e));
        paths->insert(std::move(path));
      }
    }
  }
  if (snapshot.statistics) paths->insert(StatisticsPath(*snapshot.statistics));
  return Status::OK();
}

Result<int64_t> FileDeletion::DeleteFiles(const std::vector<std::string>& paths) {
  int64_t deleted = 0;
  std::set<std::string> done;
  for (const auto& path : paths) {
    if (!done.insert(path).second) continue;
    TIDE_ASSIGN_OR_RETURN(bool exists, fs_->Exists(path));
    if (!exists) continue;
    TIDE_RETURN_IF_ERROR(fs_->DeleteFile(path));
    ++deleted;
  }
  return deleted;
}

void FileDeletion::CleanEmptyDirectories(bool force) {
  if ((!force && !options_->snapshot_clean_empty_directories()) || deletion_buckets_.empty()) {
    deletion_buckets_.clear();
    return;
  }
  // Bucket folders first, then each partition level from the deepest up (Java's cleanEmptyDirectories).
  std::set<std::string> parents;
  for (const auto& [partition, buckets] : deletion_buckets_) {
    bool all_gone = true;
    for (int32_t bucket : buckets) {
      auto path = BucketPath(partition, bucket);
      if (!path.ok()) continue;
      auto gone = fs_->DeleteEmptyDirectory(*path);
      if (!gone.ok() || !*gone) all_gone = false;
    }
    if (all_gone && !partition_types_.empty()) {
      auto path = BucketPath(partition, 0);
      if (path.ok()) parents.insert(std::string(DirName(*path)));
    }
  }
  for (size_t level = 0; level < partition_types_.size(); ++level) {
    std::set<std::string> next;
    for (const auto& dir : parents) {
      if (dir.size() <= table_path_.size()) continue;
      auto gone = fs_->DeleteEmptyDirectory(dir);
      if (gone.ok() && *gone) next.insert(std::string(DirName(dir)));
    }
    parents = std::move(next);
  }
  deletion_buckets_.clear();
}

const DataFileSet* TagDataFileSkipper::For(int64_t id) {
  const Snapshot* tag = nullptr;
  for (const Snapshot& t : tags_) {
    if (t.id < id) tag = &t;
  }
  if (!tag) return &empty_;
  auto it = files_.find(tag->id);
  if (it == files_.end()) {
    auto live = deletion_->LiveDataFiles(*tag);
    if (!live.ok()) {
      TIDE_LOG_WARN("table {}: the files of the tag of snapshot {} cannot be read ({}); the data files replaced "
                    "after it are left for orphan removal",
                    deletion_->table_name(), tag->id, live.status().ToString());
    }
    it = files_.emplace(tag->id, live.ok() ? std::optional<DataFileSet>(std::move(live).value()) : std::nullopt).first;
  }
  return it->second ? &*it->second : nullptr;
}

std::vector<Snapshot> TagDataFileSkipper::InRange(int64_t begin, int64_t end) const {
  std::vector<Snapshot> out;
  int left = -1, right = -1;
  for (size_t i = 0; i < tags_.size(); ++i) {
    if (tags_[i].id <= begin) left = static_cast<int>(i);
    if (tags_[i].id < end) right = static_cast<int>(i);
  }
  for (int i = std::max(left, 0); i <= right; ++i) out.push_back(tags_[static_cast<size_t>(i)]);
  return out;
}

}  // namespace tide
