// FileSystem: the storage Tide's tables live on. LocalFileSystem is the POSIX implementation; object
// stores come later behind the same interface, and tests wrap it to inject faults.
//
// Paths are plain strings ("/abs/dir/file"). The two primitives that keep commits atomic are
// `WriteFileExclusive` (the file appears whole, or not at all, and never replaces an existing one) and
// `Rename` without replace. Thread-safety: every method may be called from any thread; the file system
// itself decides what concurrent writers see (POSIX: rename is atomic).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tide/base/result.h"

namespace tide {

struct FileInfo {
  std::string name;  // the entry's name within its directory
  bool is_directory = false;
  uint64_t size = 0;
  int64_t modification_time_ms = 0;
};

// A file being written sequentially. Close() makes the data durable (fsync) before it returns OK.
class WritableFile {
 public:
  virtual ~WritableFile() = default;
  virtual Status Append(std::string_view data) = 0;
  virtual Status Close() = 0;  // flush, fsync, close; the file is durable when this returns OK
  virtual uint64_t BytesWritten() const = 0;
};

class FileSystem {
 public:
  virtual ~FileSystem() = default;

  // The local file system (a process-wide instance).
  static FileSystem* Local();

  virtual Result<std::string> ReadFile(const std::string& path) = 0;
  // Reads `length` bytes at `offset`; fails with Corruption if the file is shorter.
  virtual Result<std::string> ReadRange(const std::string& path, uint64_t offset, uint64_t length) = 0;
  virtual Result<bool> Exists(const std::string& path) = 0;
  virtual Result<FileInfo> Stat(const std::string& path) = 0;
  // Entries of a directory, sorted by name. NotFound if the directory does not exist.
  virtual Result<std::vector<FileInfo>> ListDir(const std::string& path) = 0;
  virtual Status MakeDirs(const std::string& path) = 0;
  // Deletes a file; OK if it did not exist.
  virtual Status DeleteFile(const std::string& path) = 0;
  // Deletes a directory and everything below it; OK if it did not exist.
  virtual Status DeleteRecursively(const std::string& path) = 0;
  // Deletes a directory only if it is empty: true when it was deleted (or did not exist), false when it
  // holds entries. Never deletes what it holds, so a file created meanwhile survives.
  virtual Result<bool> DeleteEmptyDirectory(const std::string& path) {
    return Status::NotSupported("deleting an empty directory ({}) is not supported by this file system", path);
  }
  // Creates (or truncates) a file for sequential writing; the parent directory is created if missing.
  virtual Result<std::unique_ptr<WritableFile>> NewWritableFile(const std::string& path) = 0;
  // Renames `from` to `to`; fails with AlreadyExists if `to` exists (never replaces it).
  virtual Status RenameNoReplace(const std::string& from, const std::string& to) = 0;
  // Gives the immutable file `from` a second name `to` (a hard link): no byte is copied, and deleting
  // either name leaves the other whole. AlreadyExists if `to` exists; NotSupported where the file
  // system has no links (the caller copies instead). The new name is durable once `to`'s directory is
  // synced.
  virtual Status LinkFile(const std::string& from, const std::string& to) {
    return Status::NotSupported("linking {} to {} is not supported by this file system", from, to);
  }

  // Writes `data` durably to `path` unless `path` exists: a temporary file in the same directory, fsync,
  // then a no-replace rename. AlreadyExists if another writer got there first; no partial file is ever
  // visible at `path`.
  Status WriteFileExclusive(const std::string& path, std::string_view data);
  // Writes `data` durably to `path`, replacing it atomically (temporary file, fsync, rename, folder
  // sync).
  virtual Status WriteFileAtomic(const std::string& path, std::string_view data) = 0;
  // Writes a hint (a commit's LATEST) to `path`, replacing it atomically but not durably: readers
  // verify a hint and ignore one that is stale, empty or garbled (as after a crash), so a hint whose
  // loss orders nothing needs no fsync. Not for hints written after deletions (expiry, rollback), whose
  // folder sync makes those deletions durable first. By default WriteFileAtomic.
  virtual Status WriteHintFile(const std::string& path, std::string_view data) { return WriteFileAtomic(path, data); }
};

// fsyncs the local directory `path`, so that the entries created in it (files, folders) are durable.
Status SyncLocalDirectory(const std::string& path);

// Joins path segments with single slashes.
std::string JoinPath(std::string_view a, std::string_view b);
// The last segment of a path.
std::string_view BaseName(std::string_view path);
// Everything before the last slash ("" if none).
std::string_view DirName(std::string_view path);

}  // namespace tide
