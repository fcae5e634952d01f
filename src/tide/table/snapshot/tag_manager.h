// TagManager: the tag files of one table, `tag/tag-<name>`, as Java's TagManager writes them.
//
// A tag is a copy of one snapshot's JSON kept under a name; it keeps that snapshot's files alive after
// the snapshot itself expires. A tag created with a retention time also carries `tagCreateTime` (the
// local wall clock) and `tagTimeRetained`; without one it is the plain snapshot JSON, which Java <= 0.7
// readers need. Deleting the files only a tag referenced is operation/tag_operations.h's job; this class
// only handles the tag files. Thread-safety: holds only paths; safe to share. Answers reflect the files
// at call time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tide/base/result.h"
#include "tide/io/file_system.h"
#include "tide/table/snapshot/snapshot.h"

namespace tide {

// One tagged snapshot and every tag name that points at it.
struct TaggedSnapshot {
  Snapshot snapshot;               // the tag file's content (tag fields included)
  std::vector<std::string> names;  // sorted
};

// A java.time.LocalDateTime for `epoch_ms` in the process's local time zone, in Jackson's array form
// (trailing zero second and nanos left out, as Jackson does).
std::vector<int64_t> LocalDateTimeArray(int64_t epoch_ms);

class TagManager {
 public:
  TagManager(FileSystem* fs, std::string table_path) : fs_(fs), table_path_(std::move(table_path)) {}

  std::string TagDir() const;
  std::string TagPath(const std::string& name) const;

  Result<bool> Exists(const std::string& name) const;
  // NotFound naming the tag and the tags there are.
  Result<Snapshot> Get(const std::string& name) const;
  // Tag names, sorted.
  Result<std::vector<std::string>> ListNames() const;
  // Every tag, grouped by snapshot, ascending snapshot id. Tags deleted while listing are skipped.
  Result<std::vector<TaggedSnapshot>> ListTagged() const;

  // Writes tag `name` of `snapshot`. With `time_retained_ms` the tag carries tagCreateTime (local time
  // of `now_ms`) and tagTimeRetained. InvalidArgument for a blank name or one with '/'; AlreadyExists if
  // the tag exists (unless `ignore_if_exists`, then nothing is written and false is returned).
  Result<bool> Create(const Snapshot& snapshot, const std::string& name, std::optional<int64_t> time_retained_ms,
                      int64_t now_ms, bool ignore_if_exists = false) const;
  // Deletes the tag file only; OK if it is gone.
  Status DeleteFile(const std::string& name) const;

 private:
  FileSystem* fs_;
  std::string table_path_;
};

}  // namespace tide
