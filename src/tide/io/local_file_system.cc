// LocalFileSystem: FileSystem on POSIX files.
#include <dirent.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <random>

#include "tide/io/file_system.h"

namespace tide {
namespace {

Status ErrnoStatus(std::string_view op, const std::string& path, int err) {
  if (err == ENOENT) return Status::NotFound("{} {}: no such file or directory", op, path);
  if (err == EEXIST) return Status::AlreadyExists("{} {}: already exists", op, path);
  return Status::IOError("{} {}: {}", op, path, std::strerror(err));
}

// Closes a file descriptor when it goes out of scope.
class FdGuard {
 public:
  explicit FdGuard(int fd) : fd_(fd) {}
  ~FdGuard() {
    if (fd_ >= 0) ::close(fd_);
  }
  FdGuard(const FdGuard&) = delete;
  FdGuard& operator=(const FdGuard&) = delete;
  int get() const { return fd_; }
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_;
};

Status FsyncDir(const std::string& dir) {
  int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus("open directory", dir, errno);
  FdGuard guard(fd);
  if (::fsync(fd) != 0) return ErrnoStatus("fsync directory", dir, errno);
  return Status::OK();
}

// A temporary name beside `path`, unique across threads and processes: the process id is part of it
// because a forked child inherits the parent's generator state and counter.
std::string TempName(const std::string& path) {
  static std::atomic<uint64_t> counter{0};
  thread_local std::mt19937_64 rng(std::random_device{}());
  return fmt::format("{}/.{}.{}.{:x}{}.tmp", DirName(path), BaseName(path), ::getpid(), rng(), counter++);
}

class LocalWritableFile final : public WritableFile {
 public:
  // Without `sync`, Close() leaves the bytes to the kernel's write-back (hint files).
  LocalWritableFile(std::string path, int fd, bool sync = true) : path_(std::move(path)), fd_(fd), sync_(sync) {}
  ~LocalWritableFile() override {
    if (fd_ >= 0) ::close(fd_);
  }

  Status Append(std::string_view data) override {
    while (!data.empty()) {
      ssize_t n = ::write(fd_, data.data(), data.size());
      if (n < 0) {
        if (errno == EINTR) continue;
        return ErrnoStatus("write", path_, errno);
      }
      data.remove_prefix(static_cast<size_t>(n));
      written_ += static_cast<uint64_t>(n);
    }
    return Status::OK();
  }

  Status Close() override {
    if (fd_ < 0) return Status::OK();
    int fd = fd_;
    fd_ = -1;
    if (sync_ && ::fsync(fd) != 0) {
      int err = errno;
      ::close(fd);
      return ErrnoStatus("fsync", path_, err);
    }
    if (::close(fd) != 0) return ErrnoStatus("close", path_, errno);
    return Status::OK();
  }

  uint64_t BytesWritten() const override { return written_; }

 private:
  std::string path_;
  int fd_;
  bool sync_;
  uint64_t written_ = 0;
};

class LocalFileSystem final : public FileSystem {
 public:
  Result<std::string> ReadFile(const std::string& path) override {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return ErrnoStatus("open", path, errno);
    FdGuard guard(fd);
    struct stat st;
    if (::fstat(fd, &st) != 0) return ErrnoStatus("stat", path, errno);
    if (S_ISDIR(st.st_mode)) return Status::IOError("read {}: is a directory", path);
    std::string out;
    out.resize(static_cast<size_t>(st.st_size));
    size_t done = 0;
    while (done < out.size()) {
      ssize_t n = ::read(fd, out.data() + done, out.size() - done);
      if (n < 0) {
        if (errno == EINTR) continue;
        return ErrnoStatus("read", path, errno);
      }
      if (n == 0) break;
      done += static_cast<size_t>(n);
    }
    out.resize(done);
    return out;
  }

  Result<std::string> ReadRange(const std::string& path, uint64_t offset, uint64_t length) override {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return ErrnoStatus("open", path, errno);
    FdGuard guard(fd);
    std::string out;
    out.resize(length);
    size_t done = 0;
    while (done < length) {
      ssize_t n = ::pread(fd, out.data() + done, length - done, static_cast<off_t>(offset + done));
      if (n < 0) {
        if (errno == EINTR) continue;
        return ErrnoStatus("read", path, errno);
      }
      if (n == 0) {
        return Status::Corruption("{}: truncated: wanted {} bytes at offset {}, file ends after {}", path,
                                  length, offset, offset + done);
      }
      done += static_cast<size_t>(n);
    }
    return out;
  }

  Result<bool> Exists(const std::string& path) override {
    struct stat st;
    if (::stat(path.c_str(), &st) == 0) return true;
    if (errno == ENOENT || errno == ENOTDIR) return false;
    return ErrnoStatus("stat", path, errno);
  }

  Result<FileInfo> Stat(const std::string& path) override {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) return ErrnoStatus("stat", path, errno);
    FileInfo info;
    info.name = std::string(BaseName(path));
    info.is_directory = S_ISDIR(st.st_mode);
    info.size = static_cast<uint64_t>(st.st_size);
    info.modification_time_ms = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000;
    return info;
  }

  Result<std::vector<FileInfo>> ListDir(const std::string& path) override {
    DIR* dir = ::opendir(path.c_str());
    if (dir == nullptr) return ErrnoStatus("list", path, errno);
    std::vector<FileInfo> out;
    while (struct dirent* e = ::readdir(dir)) {
      std::string name = e->d_name;
      if (name == "." || name == "..") continue;
      FileInfo info;
      info.name = name;
      struct stat st;
      if (::fstatat(::dirfd(dir), e->d_name, &st, 0) == 0) {
        info.is_directory = S_ISDIR(st.st_mode);
        info.size = static_cast<uint64_t>(st.st_size);
        info.modification_time_ms =
            static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000;
      }
      out.push_back(std::move(info));
    }
    ::closedir(dir);
    std::sort(out.begin(), out.end(), [](const FileInfo& a, const FileInfo& b) { return a.name < b.name; });
    return out;
  }

  Status MakeDirs(const std::string& path) override {
    if (path.empty()) return Status::OK();
    struct stat st;
    if (::stat(path.c_str(), &st) == 0) {
      if (S_ISDIR(st.st_mode)) return Status::OK();
      return Status::IOError("create directory {}: a file is in the way", path);
    }
    std::string parent(DirName(path));
    if (!parent.empty() && parent != path) TIDE_RETURN_IF_ERROR(MakeDirs(parent));
    if (::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) return ErrnoStatus("create directory", path, errno);
    return Status::OK();
  }

  Status DeleteFile(const std::string& path) override {
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) return ErrnoStatus("delete", path, errno);
    return Status::OK();
  }

  Status DeleteRecursively(const std::string& path) override {
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0) {
      if (errno == ENOENT) return Status::OK();
      return ErrnoStatus("stat", path, errno);
    }
    if (!S_ISDIR(st.st_mode)) return DeleteFile(path);
    TIDE_ASSIGN_OR_RETURN(auto entries, ListDir(path));
    for (const auto& e : entries) TIDE_RETURN_IF_ERROR(DeleteRecursively(JoinPath(path, e.name)));
    if (::rmdir(path.c_str()) != 0 && errno != ENOENT) return ErrnoStatus("delete directory", path, errno);
    return Status::OK();
  }

  Result<bool> DeleteEmptyDirectory(const std::string& path) override {
    if (::rmdir(path.c_str()) == 0 || errno == ENOENT) return true;
    if (errno == ENOTEMPTY || errno == EEXIST) return false;
    return ErrnoStatus("delete directory", path, errno);
  }

  Result<std::unique_ptr<WritableFile>> NewWritableFile(const std::string& path) override {
    std::string parent(DirName(path));
    TIDE_RETURN_IF_ERROR(MakeDirs(parent));
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return ErrnoStatus("create", path, errno);
    return std::unique_ptr<WritableFile>(new LocalWritableFile(path, fd));
  }

  Status RenameNoReplace(const std::string& from, const std::string& to) override {
    // renameat2(RENAME_NOREPLACE) is atomic; where the file system lacks it, link + unlink gives the
    // same no-replace guarantee (link fails with EEXIST).
    if (::syscall(SYS_renameat2, AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) {
      return FsyncDir(std::string(DirName(to)));
    }
    int err = errno;
    if (err == EINVAL || err == ENOSYS) {
      if (::link(from.c_str(), to.c_str()) != 0) return ErrnoStatus("rename to", to, errno);
      ::unlink(from.c_str());
      return FsyncDir(std::string(DirName(to)));
    }
    return ErrnoStatus("rename to", to, err);
  }

  Status LinkFile(const std::string& from, const std::string& to) override {
    if (::link(from.c_str(), to.c_str()) == 0) return Status::OK();
    const int err = errno;
    // Folders on other devices, file systems without links (some FUSE and network mounts), a file at
    // its link limit: the caller copies.
    if (err == EXDEV || err == EPERM || err == ENOTSUP || err == EOPNOTSUPP || err == EMLINK || err == ENOSYS) {
      return Status::NotSupported("cannot link {} to {}: {}", from, to, std::strerror(err));
    }
    return ErrnoStatus("link to", to, err);
  }

  Status WriteFileAtomic(const std::string& path, std::string_view data) override {
    TIDE_RETURN_IF_ERROR(MakeDirs(std::string(DirName(path))));
    TIDE_RETURN_IF_ERROR(ReplaceFile(path, data, /*sync=*/true));
    return FsyncDir(std::string(DirName(path)));
  }

  Status WriteHintFile(const std::string& path, std::string_view data) override {
    return ReplaceFile(path, data, /*sync=*/false);
  }

  friend class FileSystem;
  static std::string MakeTempName(const std::string& path) { return TempName(path); }

 private:
  // `data` in a temporary file beside `path` (fsynced with `sync`), then renamed over `path`; on
  // failure the temporary file is removed.
  Status ReplaceFile(const std::string& path, std::string_view data, bool sync) {
    std::string tmp = TempName(path);
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return ErrnoStatus("create", tmp, errno);
    LocalWritableFile file(tmp, fd, sync);
    Status s = file.Append(data);
    if (s.ok()) s = file.Close();
    if (s.ok() && ::rename(tmp.c_str(), path.c_str()) != 0) s = ErrnoStatus("rename to", path, errno);
    if (!s.ok()) DeleteFile(tmp).IgnoreError();
    return s;
  }
};

}  // namespace

Status SyncLocalDirectory(const std::string& path) { return FsyncDir(path); }

FileSystem* FileSystem::Local() {
  static LocalFileSystem* fs = new LocalFileSystem();
  return fs;
}

Status FileSystem::WriteFileExclusive(const std::string& path, std::string_view data) {
  TIDE_ASSIGN_OR_RETURN(bool exists, Exists(path));
  if (exists) return Status::AlreadyExists("{} already exists", path);
  std::string tmp = TempName(path);
  {
    TIDE_ASSIGN_OR_RETURN(auto file, NewWritableFile(tmp));
    Status s = file->Append(data);
    if (s.ok()) s = file->Close();
    if (!s.ok()) {
      DeleteFile(tmp).IgnoreError();
      return s;
    }
  }
  Status s = RenameNoReplace(tmp, path);
  if (!s.ok()) DeleteFile(tmp).IgnoreError();
  return s;
}

std::string JoinPath(std::string_view a, std::string_view b) {
  if (a.empty()) return std::string(b);
  if (b.empty()) return std::string(a);
  std::string out(a);
  if (out.back() != '/') out.push_back('/');
  if (b.front() == '/') b.remove_prefix(1);
  out.append(b);
  return out;
}

std::string_view BaseName(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  size_t pos = path.rfind('/');
  return pos == std::string_view::npos ? path : path.substr(pos + 1);
}

std::string_view DirName(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  size_t pos = path.rfind('/');
  if (pos == std::string_view::npos) return "";
  if (pos == 0) return "/";
  return path.substr(0, pos);
}

}  // namespace tide
