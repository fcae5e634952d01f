#include "tide/table/crosspartition/key_index.h"

#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/sst_file_writer.h>
#include <rocksdb/table.h>

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>

#include <fmt/format.h>

#include "tide/base/bytes.h"

namespace tide {
namespace {

// RocksDB's own memory, once keys spilled into it: it caches this much of its files' blocks. Its
// memtable stays empty (spills are ingested as sorted files).
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

Result<std::unique_ptr<KeyIndex>> KeyIndex::Create(const std::string& parent_dir, std::string table_name,
                                                  size_t memory_budget) {
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
  index->memory_budget_ = memory_budget;
  return index;
}

Status KeyIndex::OpenDb() {
  auto options = std::make_unique<rocksdb::Options>();
  options->create_if_missing = true;
  options->OptimizeForPointLookup(kBlockCacheMb);
  options->max_background_jobs = 2;
  options->max_open_files = 256;
  options->keep_log_file_num = 1;
  options->info_log_level = rocksdb::InfoLogLevel::WARN_LEVEL;
  rocksdb::DB* db = nullptr;
  rocksdb::Status s = rocksdb::DB::Open(*options, dir_ + "/db", &db);
  TIDE_RETURN_IF_ERROR(FromRocks(s, table_name_, "open", dir_));
  db_.reset(db);
  db_options_ = std::move(options);
  return Status::OK();
}

KeyIndex::~KeyIndex() {
  if (db_) {
    db_->Close().PermitUncheckedError();
    db_.reset();
  }
  if (!dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
}

Result<std::optional<PartitionBucket>> KeyIndex::Get(std::string_view key, uint32_t hash) {
  if (auto found = memory_.Find(key, hash)) return found;
  if (!db_) return std::optional<PartitionBucket>();
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

void KeyIndex::Reserve(size_t keys) {
  size_t total = memory_.size() + keys;
  // The keys' bytes take room too: the slots get at most half the budget, and half of what the keys
  // held now leave of it (the rest is for the keys to come: a reservation must not make Put spill).
  const size_t key_bytes = memory_.memory_bytes() - memory_.slot_bytes();
  const size_t limit = std::min(memory_budget_ / 2, key_bytes < memory_budget_ ? (memory_budget_ - key_bytes) / 2 : 0);
  while (total > 0 && KeyHashTable::SlotBytesFor(total) > limit) total /= 2;
  if (total > memory_.size()) memory_.Reserve(total);
}

Status KeyIndex::Put(std::string_view key, uint32_t hash, PartitionBucket value) {
  Status put = memory_.Put(key, hash, value);
  if (!put.ok()) return put.WithContext("table " + table_name_);
  ++puts_;
  if (memory_.memory_bytes() > memory_budget_) return Spill();
  return Status::OK();
}

// Writes every key in memory, sorted, into one RocksDB table file and ingests it: the file's entries
// get sequence numbers above everything in the database, so they override older values of their keys.
Status KeyIndex::Spill() {
  if (!db_) TIDE_RETURN_IF_ERROR(OpenDb());
  const std::string file = fmt::format("{}/spill-{}.sst", dir_, spills_);
  rocksdb::SstFileWriter writer(rocksdb::EnvOptions(), *db_options_);
  TIDE_RETURN_IF_ERROR(FromRocks(writer.Open(file), table_name_, "start a spill file", dir_));
  rocksdb::Status failed;
  memory_.ForEachSorted([&](std::string_view key, PartitionBucket value) {
    if (!failed.ok()) return;
    EncodeValue(value, &value_scratch_);
    failed = writer.Put(rocksdb::Slice(key.data(), key.size()), value_scratch_);
  });
  TIDE_RETURN_IF_ERROR(FromRocks(failed, table_name_, "write a spill file", dir_));
  TIDE_RETURN_IF_ERROR(FromRocks(writer.Finish(), table_name_, "finish a spill file", dir_));
  rocksdb::IngestExternalFileOptions ingest;
  ingest.move_files = true;
  TIDE_RETURN_IF_ERROR(FromRocks(db_->IngestExternalFile({file}, ingest), table_name_, "take in a spill file", dir_));
  memory_.Clear();
  ++spills_;
  return Status::OK();
}

}  // namespace tide
