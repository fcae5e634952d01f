#include "tide/table/file_store_scan.h"

#include <algorithm>
#include <unordered_map>

#include "tide/base/bytes.h"
#include "tide/base/strings.h"
#include "tide/codec/binary_row.h"
#include "tide/table/core_options.h"

namespace tide {

std::string LocalPathOf(std::string_view uri) {
  // `file:/x`, `file:///x` and Java's `FILE:/x` all name the local path /x.
  if (uri.size() >= 5 && EqualsIgnoreCase(uri.substr(0, 5), "file:")) {
    uri.remove_prefix(5);
    while (uri.size() >= 2 && uri[0] == '/' && uri[1] == '/') uri.remove_prefix(1);
  }
  return std::string(uri);
}

std::string DataSplit::FilePath(const DataFileMeta& file) const {
  if (file.external_path) return LocalPathOf(*file.external_path);
  return JoinPath(bucket_path, file.file_name);
}

std::string EscapePartitionPathSegment(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    bool escape = c < 0x20 || c == 0x7F || c == '"' || c == '#' || c == '%' || c == '\'' || c == '*' || c == '/' ||
                  c == ':' || c == '=' || c == '?' || c == '\\' || c == '{' || c == '}' || c == '[' || c == ']' ||
                  c == '^';
    if (escape) {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  return out;
}

namespace {

// Java's toString of a partition value's internal representation (partition.legacy-name=true).
std::string LegacyPartitionText(const Datum& v, const DataType& type) {
  switch (type.root()) {
    case TypeRoot::kDate:  // the day number, a known quirk of legacy names
    case TypeRoot::kTime:
      return std::to_string(v.as_int());
    case TypeRoot::kDecimal:
      return DecimalToString(v.as_decimal().unscaled, type.scale());
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz: {
      // Timestamp.toString(): LocalDateTime's ISO form, e.g. 2024-01-01T12:30 or 2024-01-01T12:30:05.123
      std::string s = FormatTimestamp(v.as_timestamp(), 9);
      s[10] = 'T';
      while (s.back() == '0') s.pop_back();
      if (s.back() == '.') s.pop_back();
      if (s.size() == 19 && EndsWith(s, ":00")) s.resize(16);
      return s;
    }
    default:
      return DatumToString(v, type);
  }
}

// The identifier of a manifest entry for merging (FileEntry.Identifier).
std::string EntryIdentifier(const ManifestEntry& e) {
  std::string id;
  id.reserve(e.partition.size() + e.file.file_name.size() + 32);
  AppendLE<uint32_t>(&id, static_cast<uint32_t>(e.partition.size()));
  id += e.partition;
  AppendLE<int32_t>(&id, e.bucket);
  AppendLE<int32_t>(&id, e.file.level);
  id += e.file.file_name;
  id.push_back('\0');
  for (const auto& f : e.file.extra_files) {
    id += f;
    id.push_back('\0');
  }
  id.push_back('\1');
  if (e.file.embedded_file_index) id += *e.file.embedded_file_index;
  id.push_back('\1');
  if (e.file.external_path) id += *e.file.external_path;
  return id;
}

}  // namespace

std::string FileStoreScan::ManifestPath(const std::string& name) const {
  return JoinPath(JoinPath(table_path_, "manifest"), name);
}

Result<std::string> FileStoreScan::PartitionPath(const Row& values) const {
  CoreOptions options(schema_);
  std::string path = table_path_;
  std::string dir = options.data_file_path_directory();
  if (!dir.empty()) path = JoinPath(path, dir);
  for (size_t i = 0; i < schema_.partition_keys.size(); ++i) {
    const std::string& key = schema_.partition_keys[i];
    const DataType& type = schema_.fields[schema_.FieldIndex(key)].type;
    std::string text;
    if (i >= values.size() || values[i].is_null()) {
      text = options.partition_default_name();
    } else {
      text = options.partition_legacy_name() ? LegacyPartitionText(values[i], type) : DatumToString(values[i], type);
      if (Trim(text).empty()) text = options.partition_default_name();
    }
    path = JoinPath(path, EscapePartitionPathSegment(key) + "=" + EscapePartitionPathSegment(text));
  }
  return path;
}

Result<std::vector<ManifestEntry>> FileStoreScan::ReadLiveEntries(const Snapshot& snapshot) const {
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
    std::string path = ManifestPath(meta.file_name);
    TIDE_ASSIGN_OR_RETURN(auto entries, ReadManifest(fs_, path));
    for (auto& e : entries) {
      std::string id = EntryIdentifier(e);
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
  CoreOptions options(schema_);
  TIDE_ASSIGN_OR_RETURN(auto entries, ReadLiveEntries(snapshot));

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
      TIDE_ASSIGN_OR_RETURN(std::string partition_path, PartitionPath(split.partition_values));
      split.bucket_path = JoinPath(partition_path, fmt::format("bucket-{}", e.bucket));
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
