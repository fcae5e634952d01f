#include "tide/table/crosspartition/key_index.h"

#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>

#include <signal.h>
#include <unistd.h>

#include <charconv>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>

#include <fmt/format.h>

#include "tide/base/bytes.h"

namespace tide {
namespace {

// Bounds of the index's memory: RocksDB flushes its memtable to a sorted file past this size and
// caches this much of those files' blocks.
constexpr size_t kMemtableBytes = 32 << 20;
constexpr uint64_t kBlockCacheMb = 16;

Status FromRocks(const rocksdb::Status& s, const std::string& table, const char* what, const std::string& dir) {
  if (s.ok()) return Status::OK();
  return Status::IOError("table {}: the cross-partition key index ({}) failed to {}: {}", table, dir, what,
                         s.ToString());
}

void EncodeValue(PartitionBucket v, std::string* out) {
  out->clear();
  AppendLE<int32_t>(out, v.partition_id);
  AppendLE<int32_t>(out, v.bucket);
}

// Folders are named `tide-key-index-<pid>-XXXXXX`: the process that made one is known, so the folders
// of processes that died without cleaning up (SIGKILL, a crash) are removed by the next index made in
// the same parent folder.
constexpr std::string_view kFolderPrefix = "tide-key-index-";

void RemoveLeftovers(const std::filesystem::path& parent) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(parent, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(kFolderPrefix, 0) != 0) continue;
    const std::string rest = name.substr(kFolderPrefix.size());
    const size_t dash = rest.find('-');
    if (dash == std::string::npos || dash == 0) continue;
    pid_t pid = 0;
    auto [end, parsed] = std::from_chars(rest.data(), rest.data() + dash, pid);
    if (parsed != std::errc() || end != rest.data() + dash || pid <= 0) continue;
    // Only folders of processes that no longer exist (a live process, even one that reused the pid,
    // keeps its folder).
    if (::kill(pid, 0) == 0 || errno != ESRCH) continue;
    std::error_code ignored;
    std::filesystem::remove_all(entry.path(), ignored);
  }
}

}  // namespace

Result<std::unique_ptr<KeyIndex>> KeyIndex::Create(const std::string& parent_dir, std::string table_name) {
  std::error_code ec;
  std::filesystem::path parent =
      parent_dir.empty() ? std::filesystem::temp_directory_path(ec) : std::filesystem::path(parent_dir);
  if (ec) return Status::IOError("table {}: no temporary folder for the cross-partition key index: {}", table_name, ec.message());
  std::filesystem::create_directories(parent, ec);
  if (ec) {
    return Status::IOError("table {}: cannot create {} for the cross-partition key index: {}", table_name,
                           parent.string(), ec.message());
  }
  RemoveLeftovers(parent);
  std::string pattern = (parent / fmt::format("{}{}-XXXXXX", kFolderPrefix, ::getpid())).string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    return Status::IOError("table {}: cannot create a folder in {} for the cross-partition key index: {}", table_name,
                           parent.string(), std::strerror(errno));
  }
  std::unique_ptr<KeyIndex> index(new KeyIndex());
  index->dir_ = pattern;
  index->table_name_ = std::move(table_name);

  rocksdb::Options options;
  options.create_if_missing = true;
  options.OptimizeForPointLookup(kBlockCacheMb);
  options.write_buffer_size = kMemtableBytes;
  options.max_write_buffer_number = 2;
  options.max_background_jobs = 2;
  options.max_open_files = 256;
  options.keep_log_file_num = 1;
  options.info_log_level = rocksdb::InfoLogLevel::WARN_LEVEL;
  rocksdb::DB* db = nullptr;
  rocksdb::Status s = rocksdb::DB::Open(options, index->dir_ + "/db", &db);
  TIDE_RETURN_IF_ERROR(FromRocks(s, index->table_name_, "open", index->dir_));
  index->db_.reset(db);
  index->batch_ = std::make_unique<rocksdb::WriteBatch>();
  return index;
}

KeyIndex::~KeyIndex() {
  batch_.reset();
  if (db_) {
    db_->Close().PermitUncheckedError();
    db_.reset();
  }
  if (!dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
}

Result<std::optional<PartitionBucket>> KeyIndex::Get(std::string_view key) {
  std::string value;
  rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), rocksdb::Slice(key.data(), key.size()), &value);
  if (s.IsNotFound()) return std::optional<PartitionBucket>();
  TIDE_RETURN_IF_ERROR(FromRocks(s, table_name_, "read a key", dir_));
  if (value.size() != 8) {
    return Status::Corruption("table {}: the cross-partition key index ({}) holds a value of {} bytes", table_name_,
                              dir_, value.size());
  }
  PartitionBucket out;
  out.partition_id = LoadLE<int32_t>(value.data());
  out.bucket = LoadLE<int32_t>(value.data() + 4);
  return std::optional<PartitionBucket>(out);
}

Status KeyIndex::Put(std::string_view key, PartitionBucket value) {
  EncodeValue(value, &value_scratch_);
  rocksdb::WriteOptions write;
  write.disableWAL = true;  // rebuilt from the table at every start
  rocksdb::Status s = db_->Put(write, rocksdb::Slice(key.data(), key.size()), value_scratch_);
  ++puts_;
  return FromRocks(s, table_name_, "write a key", dir_);
}

Status KeyIndex::BatchPut(std::string_view key, PartitionBucket value) {
  EncodeValue(value, &value_scratch_);
  rocksdb::Status s = batch_->Put(rocksdb::Slice(key.data(), key.size()), value_scratch_);
  TIDE_RETURN_IF_ERROR(FromRocks(s, table_name_, "buffer a key", dir_));
  ++puts_;
  ++batch_entries_;
  return Status::OK();
}

Status KeyIndex::Flush() {
  if (batch_entries_ == 0) return Status::OK();
  rocksdb::WriteOptions write;
  write.disableWAL = true;
  rocksdb::Status s = db_->Write(write, batch_.get());
  batch_->Clear();
  batch_entries_ = 0;
  return FromRocks(s, table_name_, "write keys", dir_);
}

}  // namespace tide
