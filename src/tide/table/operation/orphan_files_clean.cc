#include "tide/table/operation/orphan_files_clean.h"

#include <algorithm>
#include <map>
#include <set>

#include "tide/base/logging.h"
#include "tide/base/strings.h"
#include "tide/table/operation/file_deletion.h"
#include "tide/table/snapshot/snapshot_manager.h"
#include "tide/table/snapshot/tag_manager.h"

namespace tide {

namespace {

struct Candidate {
  std::string path;
  uint64_t size = 0;
};

// The files of `dir` older than the threshold; a missing folder has none.
Result<std::vector<FileInfo>> ListOld(FileSystem* fs, const std::string& dir, int64_t older_than_ms) {
  std::vector<FileInfo> out;
  auto entries = fs->ListDir(dir);
  if (!entries.ok()) {
    if (entries.status().IsNotFound()) return out;
    return entries.status();
  }
  for (auto& e : *entries) {
    if (!e.is_directory && e.modification_time_ms < older_than_ms) out.push_back(std::move(e));
  }
  return out;
}

// The bucket folders under `dir`, `levels` partition levels deep (Java's listFileDirs).
Status ListBucketDirs(FileSystem* fs, const std::string& dir, size_t levels, std::vector<std::string>* out) {
  auto entries = fs->ListDir(dir);
  if (!entries.ok()) return entries.status().IsNotFound() ? Status::OK() : entries.status();
  for (const auto& e : *entries) {
    if (!e.is_directory) continue;
    if (levels == 0) {
      if (StartsWith(e.name, "bucket-")) out->push_back(JoinPath(dir, e.name));
    } else if (e.name.find('=') != std::string::npos) {
      TIDE_RETURN_IF_ERROR(ListBucketDirs(fs, JoinPath(dir, e.name), levels - 1, out));
    }
  }
  return Status::OK();
}

}  // namespace

Result<OrphanFilesResult> RemoveOrphanFiles(FileSystem* fs, const std::string& table_path,
                                            const std::string& table_name, int64_t older_than_ms, int64_t now_ms,
                                            bool dry_run) {
  if (older_than_ms >= now_ms) {
    return Status::InvalidArgument(
        "table {}: older-than must lie in the past: files being written by a commit in flight are not referenced "
        "yet and would be deleted",
        table_name);
  }
  TIDE_ASSIGN_OR_RETURN(auto deletion, FileDeletion::Create(fs, table_path, table_name));
  SnapshotManager snapshots(fs, table_path);

  // 1. Candidates, listed before anything is read.
  std::vector<std::string> dirs = {JoinPath(table_path, "manifest"), JoinPath(table_path, "index"),
                                   JoinPath(table_path, "statistics")};
  std::string data_root = deletion->options().data_file_path_directory().empty()
                              ? table_path
                              : JoinPath(table_path, deletion->options().data_file_path_directory());
  TIDE_RETURN_IF_ERROR(ListBucketDirs(fs, data_root, deletion->schema().partition_keys.size(), &dirs));
  std::map<std::string, Candidate> candidates;  // by file name
  for (const auto& dir : dirs) {
    TIDE_ASSIGN_OR_RETURN(auto files, ListOld(fs, dir, older_than_ms));
    for (const auto& f : files) candidates[f.name] = Candidate{JoinPath(dir, f.name), f.size};
  }
  // Leftovers beside the snapshot and changelog files are deleted without looking them up.
  std::vector<Candidate> leftovers;
  for (const auto& [dir, prefix] : {std::pair<std::string, std::string>{snapshots.SnapshotDir(), "snapshot-"},
                                    {JoinPath(table_path, "changelog"), "changelog-"}}) {
    TIDE_ASSIGN_OR_RETURN(auto files, ListOld(fs, dir, older_than_ms));
    for (const auto& f : files) {
      if (StartsWith(f.name, prefix) || f.name == "EARLIEST" || f.name == "LATEST") continue;
      leftovers.push_back(Candidate{JoinPath(dir, f.name), f.size});
    }
  }

  // 2. Everything the snapshots, tags and changelogs of the table and of its branches (which share its
  // manifest and data folders) reference, until no new snapshot appears.
  std::vector<std::string> metadata_paths = {table_path};
  auto branches = fs->ListDir(JoinPath(table_path, "branch"));
  if (branches.ok()) {
    for (const auto& e : *branches) {
      if (e.is_directory && StartsWith(e.name, "branch-")) metadata_paths.push_back(JoinPath(JoinPath(table_path, "branch"), e.name));
    }
  } else if (!branches.status().IsNotFound()) {
    return branches.status();
  }
  std::set<std::string> used_paths, manifests_read;
  for (const auto& metadata : metadata_paths) {
    SnapshotManager branch_snapshots(fs, metadata);
    std::set<int64_t> seen;
    while (true) {
      TIDE_ASSIGN_OR_RETURN(auto ids, branch_snapshots.ListIds());
      bool fresh = false;
      for (int64_t id : ids) {
        if (!seen.insert(id).second) continue;
        fresh = true;
        auto s = branch_snapshots.Get(id);
        if (!s.ok()) {
          if (s.status().IsNotFound()) continue;  // expired meanwhile
          return s.status();
        }
        TIDE_RETURN_IF_ERROR(deletion->CollectReferenced(*s, /*strict=*/false, &used_paths, &manifests_read));
      }
      if (!fresh) break;
    }
    TIDE_ASSIGN_OR_RETURN(auto tagged, TagManager(fs, metadata).ListTagged());
    for (const auto& t : tagged) {
      TIDE_RETURN_IF_ERROR(deletion->CollectReferenced(t.snapshot, /*strict=*/false, &used_paths, &manifests_read));
    }
    auto changelogs = fs->ListDir(JoinPath(metadata, "changelog"));
    if (changelogs.ok()) {
      for (const auto& e : *changelogs) {
        if (!StartsWith(e.name, "changelog-")) continue;
        std::string path = JoinPath(JoinPath(metadata, "changelog"), e.name);
        auto text = fs->ReadFile(path);
        if (!text.ok()) continue;
        TIDE_ASSIGN_OR_RETURN(Snapshot s, Snapshot::FromJson(*text, path));
        TIDE_RETURN_IF_ERROR(deletion->CollectReferenced(s, /*strict=*/false, &used_paths, &manifests_read));
      }
    } else if (!changelogs.status().IsNotFound()) {
      return changelogs.status();
    }
  }
  std::set<std::string> used;
  for (const auto& p : used_paths) used.insert(std::string(BaseName(p)));

  // 3. Delete what nothing references.
  OrphanFilesResult result;
  std::vector<Candidate> orphans = leftovers;
  for (const auto& [name, c] : candidates) {
    if (!used.count(name)) orphans.push_back(c);
  }
  std::set<std::string> touched_dirs;
  for (const auto& c : orphans) {
    if (!dry_run) {
      TIDE_RETURN_IF_ERROR(fs->DeleteFile(c.path));
      touched_dirs.insert(std::string(DirName(c.path)));
    }
    ++result.files_deleted;
    result.bytes_deleted += static_cast<int64_t>(c.size);
    result.paths.push_back(c.path);
  }
  std::sort(result.paths.begin(), result.paths.end());
  // Emptied bucket folders, then their partition folders, deepest first.
  for (size_t level = 0; !dry_run && level <= deletion->schema().partition_keys.size(); ++level) {
    std::set<std::string> parents;
    for (const auto& dir : touched_dirs) {
      std::string_view name = BaseName(dir);
      bool data_dir = StartsWith(name, "bucket-") || name.find('=') != std::string_view::npos;
      if (!data_dir || dir.size() <= table_path.size()) continue;
      auto gone = fs->DeleteEmptyDirectory(dir);
      if (gone.ok() && *gone) parents.insert(std::string(DirName(dir)));
    }
    touched_dirs = std::move(parents);
  }
  TIDE_LOG_INFO("table {}: {} {} orphan files ({} bytes)", table_name, dry_run ? "found" : "deleted",
                result.files_deleted, result.bytes_deleted);
  return result;
}

}  // namespace tide
