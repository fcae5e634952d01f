#include "tide/table/operation/file_store_scan.h"

#include <algorithm>
#include <unordered_map>

#include "tide/base/bytes.h"
#include "tide/base/strings.h"
#include "tide/codec/binary_row.h"
#include "tide/table/io/file_store_path_factory.h"
#include "tide/table/manifest/file_entry_merger.h"
#include "tide/table/schema/core_options.h"

namespace tide {

std::string DataSplit::FilePath(const DataFileMeta& file) const {
  if (file.external_path) return LocalPathOf(*file.external_path);
  return JoinPath(bucket_path, file.file_name);
}

std::string FileStoreScan::ManifestPath(const std::string& name) const {
  return JoinPath(JoinPath(table_path_, "manifest"), name);
}

Result<std::vector<ManifestEntry>> FileStoreScan::ReadLiveEntries(const Snapshot& snapshot,
                                                                  const ScanFilter& filter) const {
  std::vector<ManifestFileMeta> lists;
  for (const std::string& list : {snapshot.base_manifest_list, snapshot.delta_manifest_list}) {
    TIDE_ASSIGN_OR_RETURN(auto metas, ReadManifestList(fs_, ManifestPath(list)));
    lists.insert(lists.end(), metas.begin(), metas.end());
  }
  // Merge in order: ADD inserts, DELETE removes an earlier ADD or stays pending.
  std::vector<ManifestEntry> adds;
  std::unordered_map<std::string, size_t> live;  // identifier -> index in adds
  std::vector<bool> removed;
  for (const auto& meta : lists) {
    if (filter.keep_manifest && !filter.keep_manifest(meta)) continue;
    std::string path = ManifestPath(meta.file_name);
    TIDE_ASSIGN_OR_RETURN(auto entries, ReadManifest(fs_, path));
    for (auto& e : entries) {
      if (e.kind == FileKind::kAdd && filter.keep_entry) {
        // A DELETE of a file whose ADD was dropped here finds nothing live, as for an expired ADD.
        TIDE_ASSIGN_OR_RETURN(bool keep, filter.keep_entry(e));
        if (!keep) continue;
      }
      std::string id = FileEntryKey(e);
      if (e.kind == FileKind::kAdd) {
        if (live.count(id)) {
          return Status::Corruption("table {}: manifest {} adds file {} (bucket {}, level {}) that is already live",
                                    table_name_, path, e.file.file_name, e.bucket, e.file.level);
        }
        live[id] = adds.size();
        adds.push_back(std::move(e));
        removed.push_back(false);
      } else {
        auto it = live.find(id);
        if (it != live.end()) {
          removed[it->second] = true;
          live.erase(it);
        }
        // A DELETE of a file added in an earlier (expired) manifest: nothing live to remove.
      }
    }
  }
  std::vector<ManifestEntry> out;
  out.reserve(live.size());
  for (size_t i = 0; i < adds.size(); ++i) {
    if (!removed[i]) out.push_back(std::move(adds[i]));
  }
  return out;
}

Result<std::vector<DataSplit>> FileStoreScan::Plan(const Snapshot& snapshot, const ScanFilter& filter) const {
  TIDE_ASSIGN_OR_RETURN(CoreOptions options, CoreOptions::Create(schema_, table_name_));
  FileStorePathFactory paths(table_path_, schema_, options);
  TIDE_ASSIGN_OR_RETURN(auto entries, ReadLiveEntries(snapshot, filter));

  std::vector<DataType> partition_types;
  for (const auto& key : schema_.partition_keys) partition_types.push_back(schema_.fields[schema_.FieldIndex(key)].type);

  std::map<std::pair<std::string, int32_t>, DataSplit> splits;
  for (auto& e : entries) {
    if (!filter.buckets.empty() &&
        std::find(filter.buckets.begin(), filter.buckets.end(), e.bucket) == filter.buckets.end()) {
      continue;
    }
    const DataFileMeta& f = e.file;
    if (options.data_evolution_enabled() && f.write_cols) {
      return Status::NotSupported(
          "table {}: data file {} holds only some columns (data evolution, _WRITE_COLS); Tide does not read "
          "data-evolution tables yet",
          table_name_, f.file_name);
    }
    if (f.first_row_id || options.row_tracking_enabled()) {
      return Status::NotSupported(
          "table {}: data file {} carries row tracking (_FIRST_ROW_ID / row-tracking.enabled); Tide does not "
          "read row-tracking tables yet",
          table_name_, f.file_name);
    }
    if (f.write_cols) {
      return Status::NotSupported(
          "table {}: data file {} holds only some columns (data evolution, _WRITE_COLS); Tide does not read "
          "data-evolution tables yet",
          table_name_, f.file_name);
    }
    if (EndsWith(f.file_name, ".blob")) {
      return Status::NotSupported("table {}: data file {} is a blob file; Tide does not read blob files yet",
                                  table_name_, f.file_name);
    }
    auto key = std::make_pair(e.partition, e.bucket);
    auto it = splits.find(key);
    if (it == splits.end()) {
      DataSplit split;
      split.partition = e.partition;
      auto values = DeserializeBinaryRow(e.partition, partition_types);
      if (!values.ok()) {
        return values.status().WithContext(fmt::format("table {}: partition of data file {}", table_name_, f.file_name));
      }
      split.partition_values = std::move(values).value();
      split.bucket = e.bucket;
      split.total_buckets = e.total_buckets;
      TIDE_ASSIGN_OR_RETURN(std::string partition_path, paths.PartitionPath(split.partition_values));
      split.bucket_path = FileStorePathFactory::BucketPath(partition_path, e.bucket);
      it = splits.emplace(key, std::move(split)).first;
    }
    it->second.files.push_back(std::move(e.file));
  }

  if (snapshot.index_manifest) {
    std::string path = ManifestPath(*snapshot.index_manifest);
    TIDE_ASSIGN_OR_RETURN(auto index_entries, ReadIndexManifest(fs_, path));
    for (const auto& ie : index_entries) {
      if (ie.has_global_index) {
        return Status::NotSupported(
            "table {}: index manifest {} lists a global index file {}; Tide does not read global indexes yet",
            table_name_, path, ie.file_name);
      }
      if (ie.kind != FileKind::kAdd || ie.index_type != "DELETION_VECTORS" || !ie.deletion_vectors) continue;
      auto it = splits.find(std::make_pair(ie.partition, ie.bucket));
      if (it == splits.end()) continue;
      std::string index_path;
      if (ie.external_path) {
        index_path = LocalPathOf(*ie.external_path);
      } else {
        index_path = JoinPath(JoinPath(table_path_, "index"), ie.file_name);
        TIDE_ASSIGN_OR_RETURN(bool in_index_dir, fs_->Exists(index_path));
        if (!in_index_dir) {
          // index-file-in-data-file-dir=true (1.3+) keeps DV files beside the data files.
          std::string beside = JoinPath(it->second.bucket_path, ie.file_name);
          TIDE_ASSIGN_OR_RETURN(bool in_bucket_dir, fs_->Exists(beside));
          if (in_bucket_dir) index_path = beside;
        }
      }
      for (const auto& dv : *ie.deletion_vectors) {
        it->second.deletion_files[dv.data_file_name] = DeletionFile{index_path, dv.offset, dv.length, dv.cardinality};
      }
    }
  }

  std::vector<DataSplit> out;
  out.reserve(splits.size());
  for (auto& [key, split] : splits) out.push_back(std::move(split));
  return out;
}

}  // namespace tide
