// FaultFileSystem: a FileSystem wrapper for fault-injection tests. It forwards every call to a real file
// system and counts the operations that change files: creating a writable file, appending to it,
// closing (syncing) it, renames and atomic writes. The k-th counted operation (1-based, counting from
// the last Reset) can be made to fail with IOError, either before it happens (the operation is not
// performed) or after it (the operation took effect but the caller sees an error, like a lost reply).
// Deletes are forwarded but never counted or failed, so cleanup paths run normally.
//
// Every counted operation is logged ("create <path>", "rename <from> -> <to>", ...) so a test can say
// which step it broke. Thread-safety: all methods may be called from any thread (a mutex guards the
// counter and the log). The injected error is IOError, or AlreadyExists (FailAt's `fault`), as an
// object store may report for an exclusive create it retried after the object was written.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "tide/io/file_system.h"

namespace tide::testing {

class FaultFileSystem final : public FileSystem {
 public:
  enum class When { kBefore, kAfter };
  enum class Fault { kIOError, kAlreadyExists };

  // REQUIRES: `base` outlives this wrapper.
  explicit FaultFileSystem(FileSystem* base) : base_(base) {}

  // Fail the `k`-th counted operation from now on (1-based); the counter restarts at 0.
  void FailAt(int64_t k, When when = When::kBefore, Fault fault = Fault::kIOError);
  // No failure; the counter and the log restart.
  void Reset();
  // Counted operations since the last FailAt/Reset.
  int64_t operations() const;
  // Whether the armed failure has fired.
  bool fired() const;
  // The counted operations since the last FailAt/Reset, in order.
  std::vector<std::string> log() const;

  Result<std::string> ReadFile(const std::string& path) override { return base_->ReadFile(path); }
  Result<std::string> ReadRange(const std::string& path, uint64_t offset, uint64_t length) override {
    return base_->ReadRange(path, offset, length);
  }
  Result<bool> Exists(const std::string& path) override { return base_->Exists(path); }
  Result<FileInfo> Stat(const std::string& path) override { return base_->Stat(path); }
  Result<std::vector<FileInfo>> ListDir(const std::string& path) override { return base_->ListDir(path); }
  Status MakeDirs(const std::string& path) override { return base_->MakeDirs(path); }
  Status DeleteFile(const std::string& path) override { return base_->DeleteFile(path); }
  Status DeleteRecursively(const std::string& path) override { return base_->DeleteRecursively(path); }
  Result<bool> DeleteEmptyDirectory(const std::string& path) override { return base_->DeleteEmptyDirectory(path); }
  Result<std::unique_ptr<WritableFile>> NewWritableFile(const std::string& path) override;
  Status RenameNoReplace(const std::string& from, const std::string& to) override;
  Status WriteFileAtomic(const std::string& path, std::string_view data) override;

  // Counts one operation; returns the failure to inject before or after it, if this is the one.
  // (Used by the wrapped WritableFile too.)
  std::optional<When> Count(std::string description);
  // The error an injected fault returns.
  Status InjectedError(const std::string& what) const;

 private:
  FileSystem* base_;
  mutable std::mutex mu_;
  int64_t count_ = 0;
  std::optional<int64_t> fail_at_;
  When when_ = When::kBefore;
  Fault fault_ = Fault::kIOError;
  bool fired_ = false;
  std::vector<std::string> log_;
};

}  // namespace tide::testing
