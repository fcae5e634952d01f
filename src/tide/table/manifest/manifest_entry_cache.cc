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

void ManifestEntryCache::RetainOnly(const std::set<std::string>& live) {
  std::deque<std::string> kept;
  for (std::string& name : order_) {
    if (live.count(name)) {
      kept.push_back(std::move(name));
      continue;
    }
    auto it = files_.find(name);
    entries_ -= it->second->size();
    files_.erase(it);
  }
  order_ = std::move(kept);
}

}  // namespace tide
