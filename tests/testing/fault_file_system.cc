#include "testing/fault_file_system.h"

namespace tide::testing {
namespace {


// Counts Append and Close of a file opened through the fault file system.
class FaultWritableFile final : public WritableFile {
 public:
  FaultWritableFile(FaultFileSystem* fs, std::string path, std::unique_ptr<WritableFile> base)
      : fs_(fs), path_(std::move(path)), base_(std::move(base)) {}

  Status Append(std::string_view data) override { return Step("append " + path_, [&] { return base_->Append(data); }); }
  Status Close() override { return Step("sync " + path_, [&] { return base_->Close(); }); }
  uint64_t BytesWritten() const override { return base_->BytesWritten(); }

 private:
  template <typename F>
  Status Step(std::string what, F op) {
    auto fault = fs_->Count(what);
    if (fault == FaultFileSystem::When::kBefore) return fs_->InjectedError(what);
    Status s = op();
    if (!s.ok()) return s;
    if (fault == FaultFileSystem::When::kAfter) return fs_->InjectedError(what);
    return Status::OK();
  }

  FaultFileSystem* fs_;
  std::string path_;
  std::unique_ptr<WritableFile> base_;
};

}  // namespace

void FaultFileSystem::FailAt(int64_t k, When when, Fault fault) {
  std::lock_guard<std::mutex> lock(mu_);
  count_ = 0;
  fail_at_ = k;
  when_ = when;
  fault_ = fault;
  fired_ = false;
  log_.clear();
}

Status FaultFileSystem::InjectedError(const std::string& what) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (fault_ == Fault::kAlreadyExists) return Status::AlreadyExists("injected fault: {}", what);
  return Status::IOError("injected fault: {}", what);
}

void FaultFileSystem::Reset() {
  std::lock_guard<std::mutex> lock(mu_);
  count_ = 0;
  fail_at_.reset();
  fired_ = false;
  log_.clear();
}

int64_t FaultFileSystem::operations() const {
  std::lock_guard<std::mutex> lock(mu_);
  return count_;
}

bool FaultFileSystem::fired() const {
  std::lock_guard<std::mutex> lock(mu_);
  return fired_;
}

std::vector<std::string> FaultFileSystem::log() const {
  std::lock_guard<std::mutex> lock(mu_);
  return log_;
}

std::optional<FaultFileSystem::When> FaultFileSystem::Count(std::string description) {
  std::lock_guard<std::mutex> lock(mu_);
  ++count_;
  log_.push_back(std::move(description));
  if (fail_at_ && *fail_at_ == count_) {
    fired_ = true;
    return when_;
  }
  return std::nullopt;
}

Result<std::unique_ptr<WritableFile>> FaultFileSystem::NewWritableFile(const std::string& path) {
  std::string what = "create " + path;
  auto fault = Count(what);
  if (fault == When::kBefore) return InjectedError(what);
  TIDE_ASSIGN_OR_RETURN(auto file, base_->NewWritableFile(path));
  if (fault == When::kAfter) return InjectedError(what);  // the empty file stays behind, as after a crash
  return std::unique_ptr<WritableFile>(new FaultWritableFile(this, path, std::move(file)));
}

Status FaultFileSystem::RenameNoReplace(const std::string& from, const std::string& to) {
  std::string what = "rename " + from + " -> " + to;
  auto fault = Count(what);
  if (fault == When::kBefore) return InjectedError(what);
  TIDE_RETURN_IF_ERROR(base_->RenameNoReplace(from, to));
  if (fault == When::kAfter) return InjectedError(what);
  return Status::OK();
}

Status FaultFileSystem::WriteFileAtomic(const std::string& path, std::string_view data) {
  std::string what = "write-atomic " + path;
  auto fault = Count(what);
  if (fault == When::kBefore) return InjectedError(what);
  TIDE_RETURN_IF_ERROR(base_->WriteFileAtomic(path, data));
  if (fault == When::kAfter) return InjectedError(what);
  return Status::OK();
}

}  // namespace tide::testing
