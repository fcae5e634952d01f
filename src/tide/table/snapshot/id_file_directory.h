// IdFileDirectory: a folder of JSON files named <prefix><id> (snapshot/snapshot-<id>,
// changelog/changelog-<id>) with EARLIEST and LATEST hint files, read with Java's trust rules
// (HintFileUtils, PAIMON_FORMAT.md §9.2): LATEST is trusted only when file LATEST+1 does not exist and
// EARLIEST only when its file exists; otherwise the folder is listed. A hint holds the decimal id, no
// newline; a torn or garbled one is ignored.
//
// Thread-safety: holds only paths; safe to share. Answers reflect the files at call time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tide/base/result.h"
#include "tide/io/file_system.h"

namespace tide {

class IdFileDirectory {
 public:
  IdFileDirectory(FileSystem* fs, std::string dir, std::string prefix)
      : fs_(fs), dir_(std::move(dir)), prefix_(std::move(prefix)) {}

  const std::string& dir() const { return dir_; }
  std::string Path(int64_t id) const;

  // Ids of all files, ascending; empty when the folder does not exist.
  Result<std::vector<int64_t>> ListIds() const;
  Result<std::optional<int64_t>> LatestId() const;
  Result<std::optional<int64_t>> EarliestId() const;
  Result<bool> Exists(int64_t id) const;

  // The hints are replaced atomically.
  Status CommitEarliestHint(int64_t id) const;
  Status CommitLatestHint(int64_t id) const;
  // OK when the file is already gone.
  Status Delete(int64_t id) const;

 private:
  Result<std::optional<int64_t>> ReadHint(const std::string& name) const;

  FileSystem* fs_;
  std::string dir_;
  std::string prefix_;
};

}  // namespace tide
