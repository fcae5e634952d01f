// ManifestEntryCache: the decoded entries of manifest files, by file name, for a committer that reads
// the same manifests commit after commit (the conflict check reads the live files of the changed
// partitions, the manifest merge the small delta manifests).
//
// Manifest files never change once written (their names are unique: `manifest-<uuid>-<n>`), so an entry
// kept here is never stale; a file that expiry deleted is simply no longer asked for. The files a
// committer writes go in as it writes them, so in a long-running sync its own manifests are never
// decoded again. Bounded by entries: past `max_entries` the files put in first leave first; after each
// commit its owner keeps only the manifests of the new snapshot (RetainOnly), so what it holds follows
// the table's live manifests rather than its history.
//
// Thread-safety: none; one committer (one thread at a time) owns it.
#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "tide/table/manifest/manifest.h"

namespace tide {

class ManifestEntryCache {
 public:
  using Entries = std::shared_ptr<const std::vector<ManifestEntry>>;
  static constexpr size_t kDefaultMaxEntries = 200'000;

  explicit ManifestEntryCache(size_t max_entries = kDefaultMaxEntries) : max_entries_(max_entries) {}

  // The entries of manifest `name`, or null when not held.
  Entries Find(const std::string& name) const;
  // Keeps the entries of manifest `name` (a file larger than the whole budget is not kept).
  void Put(const std::string& name, Entries entries);
  // Drops every file not named in `live` (a committer keeps the manifests its latest snapshot lists:
  // merged-away, changelog and expired ones are never read by it again).
  void RetainOnly(const std::set<std::string>& live);

  size_t files() const { return files_.size(); }
  size_t entries() const { return entries_; }

 private:
  size_t max_entries_;
  size_t entries_ = 0;
  std::unordered_map<std::string, Entries> files_;
  std::deque<std::string> order_;  // names in the order they were put
};

}  // namespace tide
