#include "tide/table/manifest/manifest_entry_cache.h"

#include <utility>

namespace tide {

ManifestEntryCache::Entries ManifestEntryCache::Find(const std::string& name) const {
  auto it = files_.find(name);
  return it == files_.end() ? nullptr : it->second;
}

void ManifestEntryCache::Put(const std::string& name, Entries entries) {
  if (!entries || entries->size() > max_entries_ || files_.count(name)) return;
  while (!order_.empty() && entries_ + entries->size() > max_entries_) {
    auto it = files_.find(order_.front());
    entries_ -= it->second->size();
    files_.erase(it);
    order_.pop_front();
  }
  entries_ += entries->size();
  order_.push_back(name);
  files_.emplace(name, std::move(entries));
}

}  // namespace tide
