#include "tide/table/manifest/file_entry_merger.h"

#include "tide/base/bytes.h"

namespace tide {

std::string FileEntryKey(const ManifestEntry& e) {
  // Length-prefixed fields, so no two different identities share a key.
  std::string key;
  key.reserve(e.partition.size() + e.file.file_name.size() + 40);
  auto add = [&key](std::string_view s) {
    AppendLE<uint32_t>(&key, static_cast<uint32_t>(s.size()));
    key.append(s);
  };
  add(e.partition);
  AppendLE<int32_t>(&key, e.bucket);
  AppendLE<int32_t>(&key, e.file.level);
  add(e.file.file_name);
  AppendLE<uint32_t>(&key, static_cast<uint32_t>(e.file.extra_files.size()));
  for (const auto& f : e.file.extra_files) add(f);
  key.push_back(e.file.embedded_file_index ? '\1' : '\0');
  if (e.file.embedded_file_index) add(*e.file.embedded_file_index);
  key.push_back(e.file.external_path ? '\1' : '\0');
  if (e.file.external_path) add(*e.file.external_path);
  return key;
}

Status FileEntryMerger::Add(ManifestEntry entry) {
  std::string key = FileEntryKey(entry);
  auto it = index_.find(key);
  if (entry.kind == FileKind::kAdd) {
    if (it != index_.end()) {
      return Status::Conflict("data file {} (bucket {}, level {}) is added although it is already live",
                              entry.file.file_name, entry.bucket, entry.file.level);
    }
    index_.emplace(std::move(key), slots_.size());
    slots_.emplace_back(std::move(entry));
    return Status::OK();
  }
  if (it != index_.end()) {
    // ADD then DELETE: the file was added and removed, nothing is left of it.
    slots_[it->second].reset();
    index_.erase(it);
  } else {
    // The ADD is in an earlier manifest: keep the DELETE.
    index_.emplace(std::move(key), slots_.size());
    slots_.emplace_back(std::move(entry));
  }
  return Status::OK();
}

Status FileEntryMerger::AddAll(std::vector<ManifestEntry> entries) {
  for (auto& e : entries) TIDE_RETURN_IF_ERROR(Add(std::move(e)));
  return Status::OK();
}

std::vector<ManifestEntry> FileEntryMerger::Entries() const {
  std::vector<ManifestEntry> out;
  out.reserve(index_.size());
  for (const auto& s : slots_) {
    if (s) out.push_back(*s);
  }
  return out;
}

std::vector<ManifestEntry> FileEntryMerger::TakeEntries() {
  std::vector<ManifestEntry> out;
  out.reserve(index_.size());
  for (auto& s : slots_) {
    if (s) out.push_back(std::move(*s));
  }
  slots_.clear();
  index_.clear();
  return out;
}

}  // namespace tide
