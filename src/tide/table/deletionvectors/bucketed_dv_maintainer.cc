#include "tide/table/deletionvectors/bucketed_dv_maintainer.h"

#include <algorithm>

#include "tide/base/strings.h"

namespace tide {
namespace {

// java.util.HashMap.tableSizeFor: the power of two >= n (at least 1, at most 2^30).
int64_t TableSizeFor(int64_t n) {
  int64_t cap = 1;
  while (cap < n && cap < (int64_t{1} << 30)) cap <<= 1;
  return cap;
}

}  // namespace

int32_t JavaHashMapOrder::JavaStringHash(const std::string& s) {
  uint32_t h = 0;
  auto add = [&h](uint32_t unit) { h = h * 31u + unit; };
  for (size_t i = 0; i < s.size();) {
    auto c = static_cast<unsigned char>(s[i]);
    uint32_t cp;
    size_t len;
    if (c < 0x80) {
      cp = c, len = 1;
    } else if ((c >> 5) == 0x6 && i + 1 < s.size()) {
      cp = ((c & 0x1Fu) << 6) | (static_cast<unsigned char>(s[i + 1]) & 0x3Fu), len = 2;
    } else if ((c >> 4) == 0xE && i + 2 < s.size()) {
      cp = ((c & 0x0Fu) << 12) | ((static_cast<unsigned char>(s[i + 1]) & 0x3Fu) << 6) |
           (static_cast<unsigned char>(s[i + 2]) & 0x3Fu);
      len = 3;
    } else if ((c >> 3) == 0x1E && i + 3 < s.size()) {
      cp = ((c & 0x07u) << 18) | ((static_cast<unsigned char>(s[i + 1]) & 0x3Fu) << 12) |
           ((static_cast<unsigned char>(s[i + 2]) & 0x3Fu) << 6) | (static_cast<unsigned char>(s[i + 3]) & 0x3Fu);
      len = 4;
    } else {
      cp = c, len = 1;
    }
    if (cp >= 0x10000) {
      cp -= 0x10000;
      add(0xD800u + (cp >> 10));
      add(0xDC00u + (cp & 0x3FFu));
    } else {
      add(cp);
    }
    i += len;
  }
  return static_cast<int32_t>(h);
}

JavaHashMapOrder JavaHashMapOrder::CopyOf(const std::vector<std::string>& keys) {
  JavaHashMapOrder m;
  if (!keys.empty()) {
    // HashMap.putMapEntries on an empty map: size the table for the whole source first.
    float ft = static_cast<float>(keys.size()) / 0.75f + 1.0f;
    auto t = static_cast<int64_t>(ft);
    if (t > m.threshold_) m.threshold_ = TableSizeFor(t);
  }
  for (const auto& k : keys) m.Put(k);
  return m;
}

void JavaHashMapOrder::Resize() {
  if (capacity_ == 0) {
    capacity_ = threshold_ > 0 ? threshold_ : 16;
  } else {
    capacity_ *= 2;
  }
  threshold_ = static_cast<int64_t>(static_cast<float>(capacity_) * 0.75f);
}

void JavaHashMapOrder::Put(const std::string& key) {
  if (present_.count(key)) return;  // a replaced value keeps its place
  if (capacity_ == 0) Resize();
  present_.emplace(key, next_stamp_++);
  insertion_.push_back(key);
  if (static_cast<int64_t>(present_.size()) > threshold_) Resize();
}

void JavaHashMapOrder::Remove(const std::string& key) {
  if (!present_.erase(key)) return;
  insertion_.erase(std::find(insertion_.begin(), insertion_.end(), key));
}

std::vector<std::string> JavaHashMapOrder::Keys() const {
  std::vector<std::pair<uint32_t, size_t>> order;  // (bin, insertion index)
  order.reserve(insertion_.size());
  const auto mask = static_cast<uint32_t>(std::max<int64_t>(capacity_, 1) - 1);
  for (size_t i = 0; i < insertion_.size(); ++i) {
    auto h = static_cast<uint32_t>(JavaStringHash(insertion_[i]));
    order.emplace_back((h ^ (h >> 16)) & mask, i);
  }
  std::sort(order.begin(), order.end());
  std::vector<std::string> keys;
  keys.reserve(order.size());
  for (const auto& [bin, i] : order) keys.push_back(insertion_[i]);
  return keys;
}

Status BucketedDvMaintainer::Restore(FileSystem* fs, const std::vector<IndexManifestEntry>& index_files,
                                     const std::vector<std::string>& index_paths) {
  // Java: readAllDeletionVectors(files) puts each file's vectors (a HashMap filled in the file's
  // order) into one HashMap, which the maintainer copies.
  JavaHashMapOrder all;
  for (size_t i = 0; i < index_files.size(); ++i) {
    const IndexManifestEntry& e = index_files[i];
    if (!e.deletion_vectors) continue;
    TIDE_ASSIGN_OR_RETURN(std::string bytes, fs->ReadFile(index_paths[i]));
    auto read = ReadDeletionVectorIndexFile(bytes, *e.deletion_vectors, index_paths[i]);
    if (!read.ok()) return read.status().WithContext("table " + options_.table_name);
    JavaHashMapOrder one;
    for (auto& [name, vector] : *read) {
      one.Put(name);
      vectors_.insert_or_assign(name, std::move(vector));
    }
    std::vector<std::string> keys = one.Keys();
    if (all.size() == 0) {
      all = JavaHashMapOrder::CopyOf(keys);
    } else {
      for (const auto& k : keys) all.Put(k);
    }
  }
  order_ = JavaHashMapOrder::CopyOf(all.Keys());
  modified_ = false;
  return Status::OK();
}

void BucketedDvMaintainer::NotifyNewDeletion(const std::string& data_file, int64_t position) {
  auto it = vectors_.find(data_file);
  if (it == vectors_.end()) {
    it = vectors_.emplace(data_file, DeletionVector()).first;
    order_.Put(data_file);
  }
  if (it->second.CheckedDelete(position)) modified_ = true;
}

void BucketedDvMaintainer::RemoveDeletionVectorOf(const std::string& data_file) {
  if (vectors_.erase(data_file)) {
    order_.Remove(data_file);
    modified_ = true;
  }
}

bool BucketedDvMaintainer::IsDeleted(const std::string& data_file, int64_t position) const {
  auto it = vectors_.find(data_file);
  return it != vectors_.end() && it->second.IsDeleted(position);
}

const DeletionVector* BucketedDvMaintainer::VectorOf(const std::string& data_file) const {
  auto it = vectors_.find(data_file);
  return it == vectors_.end() ? nullptr : &it->second;
}

Result<IndexManifestEntry> BucketedDvMaintainer::WriteIndexFile(FileSystem* fs) {
  DeletionVectorIndexFileWriter writer(options_.format);
  for (const std::string& name : order_.Keys()) {
    Status added = writer.Add(name, vectors_.at(name));
    if (!added.ok()) return added.WithContext("table " + options_.table_name + ", writing deletion vectors");
  }
  IndexManifestEntry entry;
  entry.kind = FileKind::kAdd;
  entry.index_type = std::string(kDeletionVectorsIndexType);
  entry.file_name = options_.file_prefix + std::to_string((*options_.next_file)++);
  entry.file_size = writer.size();
  entry.row_count = static_cast<int64_t>(writer.metas().size());
  entry.deletion_vectors = writer.metas();
  // A new index folder's entry must be durable before a snapshot names a file in it.
  Status made;
  auto exists = fs->Exists(options_.index_dir);
  if (!exists.ok()) made = exists.status();
  if (made.ok() && !*exists) {
    made = fs->MakeDirs(options_.index_dir);
    if (made.ok()) made = SyncLocalDirectory(std::string(DirName(options_.index_dir)));
  }
  if (made.ok()) made = fs->WriteFileExclusive(JoinPath(options_.index_dir, entry.file_name), writer.bytes());
  if (!made.ok()) {
    return made.WithContext("table " + options_.table_name + ", writing deletion-vector index file " + entry.file_name);
  }
  modified_ = false;
  return entry;
}

}  // namespace tide
