// Test helpers for expiry, tags, rollback, orphan removal and partition expiry: a table written with
// TableWrite and FileStoreCommit (appends, compactions of every live file into one, overwrites), the
// rows of any snapshot or tag, every file under the table and the files a set of snapshots references.
// Header-only. Thread-safety: one MaintenanceTable per thread; the read helpers are safe from any thread.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "testing/value_or_fail.h"
#include "tide/table/manifest/manifest.h"
#include "tide/table/operation/file_store_commit.h"
#include "tide/table/operation/file_store_scan.h"
#include "tide/table/schema/schema_manager.h"
#include "tide/table/snapshot/snapshot_manager.h"
#include "tide/table/table.h"
#include "tide/table/table_test_util.h"

namespace tide::testing {

class MaintenanceTable {
 public:
  MaintenanceTable(std::string path, TableSchema schema, std::string user = "writer")
      : path_(std::move(path)), schema_(std::move(schema)), user_(std::move(user)) {
    CheckOrFail(CreateWriterTestTable(path_, schema_).ok(), "creating the table");
    commit_ = ValueOrFail(FileStoreCommit::Create(FileSystem::Local(), path_, "db.t"), "FileStoreCommit::Create");
  }

  const std::string& path() const { return path_; }
  const TableSchema& schema() const { return schema_; }
  CoreOptions Options() const { return ValueOrFail(CoreOptions::Create(schema_, "db.t"), "options"); }

  // One APPEND commit of `rows` (+I); returns the snapshot id.
  int64_t Append(const std::vector<Row>& rows) {
    auto messages = WriteRows(rows);
    CommitOptions options;
    options.commit_user = user_;
    options.commit_identifier = ++identifier_;
    auto result = ValueOrFail(commit_->Commit(messages, options), "commit");
    CheckOrFail(result.outcome == CommitOutcome::kCommitted, "append committed nothing");
    return result.snapshot_ids.back();
  }

  // A COMPACT commit that replaces every live file of each (partition, bucket) by one file with the
  // same rows (an append table's full compaction); returns the snapshot id.
  int64_t CompactAll() {
    std::vector<Row> rows = ValueOrFail(ReadTable(path_), "reading before compaction");
    auto messages = WriteRows(rows);
    TableSchema latest = ValueOrFail(SchemaManager(FileSystem::Local(), path_).Latest(), "schema");
    SnapshotManager snapshots(FileSystem::Local(), path_);
    auto latest_id = ValueOrFail(snapshots.LatestId(), "latest");
    Snapshot s = ValueOrFail(snapshots.Get(*latest_id), "latest snapshot");
    FileStoreScan scan(FileSystem::Local(), path_, "db.t", latest);
    auto live = ValueOrFail(scan.ReadLiveEntries(s), "live entries");
    for (auto& m : messages) {
      m.compact_after = std::move(m.new_files);
      m.new_files.clear();
      for (const auto& e : live) {
        if (e.partition == m.partition && e.bucket == m.bucket) m.compact_before.push_back(e.file);
      }
    }
    CommitOptions options;
    options.commit_user = user_;
    options.commit_identifier = ++identifier_;
    options.kind = CommitKind::kCompact;
    auto result = ValueOrFail(commit_->Commit(messages, options), "compact commit");
    CheckOrFail(result.outcome == CommitOutcome::kCommitted, "compaction committed nothing");
    return result.snapshot_ids.back();
  }

  // An OVERWRITE of the whole table (or of `partitions`) with `rows`.
  int64_t Overwrite(const std::vector<Row>& rows, std::optional<std::vector<std::string>> partitions = std::nullopt) {
    auto messages = WriteRows(rows);
    CommitOptions options;
    options.commit_user = user_;
    options.commit_identifier = ++identifier_;
    OverwriteScope scope = partitions ? OverwriteScope::Partitions(*partitions) : OverwriteScope::WholeTable();
    auto result = ValueOrFail(commit_->Overwrite(scope, messages, options), "overwrite");
    return result.snapshot_ids.back();
  }

 private:
  std::vector<CommitMessage> WriteRows(const std::vector<Row>& rows) {
    auto write = ValueOrFail(TableWrite::Create(FileSystem::Local(), path_, schema_, user_), "TableWrite::Create");
    for (const auto& r : rows) CheckOrFail(write->Write(RowKind::kInsert, r).ok(), "write");
    return ValueOrFail(write->PrepareCommit(), "PrepareCommit");
  }

  std::string path_;
  TableSchema schema_;
  std::string user_;
  int64_t identifier_ = 0;
  std::unique_ptr<FileStoreCommit> commit_;
};

// The sorted rows of one snapshot or tag.
inline Result<std::vector<Row>> ReadRowsAt(const std::string& path, const SnapshotSelector& selector) {
  TIDE_ASSIGN_OR_RETURN(auto table, Table::Open(FileSystem::Local(), path, "db.t"));
  ReadOptions options;
  options.snapshot = selector;
  TIDE_ASSIGN_OR_RETURN(auto reader, table->NewReader(options));
  std::vector<Row> rows;
  while (true) {
    TIDE_ASSIGN_OR_RETURN(bool more, reader->NextBatch(1024, &rows));
    if (!more) break;
  }
  return SortedRows(std::move(rows));
}

inline SnapshotSelector AtSnapshot(int64_t id) {
  SnapshotSelector s;
  s.snapshot_id = id;
  return s;
}

inline SnapshotSelector AtTag(std::string tag) {
  SnapshotSelector s;
  s.tag = std::move(tag);
  return s;
}

// Every regular file under `path`, relative to it.
inline std::set<std::string> AllFiles(const std::string& path) {
  std::set<std::string> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(path)) {
    if (e.is_regular_file()) out.insert(std::filesystem::relative(e.path(), path).string());
  }
  return out;
}

// The data, manifest and index files (relative paths) that `snapshots` reference.
inline std::set<std::string> ReferencedFiles(const std::string& path, const std::vector<Snapshot>& snapshots) {
  FileSystem* fs = FileSystem::Local();
  TableSchema schema = ValueOrFail(SchemaManager(fs, path).Latest(), "schema");
  FileStoreScan scan(fs, path, "db.t", schema);
  std::set<std::string> out;
  for (const auto& s : snapshots) {
    std::vector<std::string> lists = {s.base_manifest_list, s.delta_manifest_list};
    if (s.changelog_manifest_list) lists.push_back(*s.changelog_manifest_list);
    for (const auto& list : lists) {
      out.insert("manifest/" + list);
      for (const auto& m : ValueOrFail(ReadManifestList(fs, scan.ManifestPath(list)), "manifest list")) {
        out.insert("manifest/" + m.file_name);
      }
    }
    if (s.index_manifest) {
      out.insert("manifest/" + *s.index_manifest);
      for (const auto& e : ValueOrFail(ReadIndexManifest(fs, scan.ManifestPath(*s.index_manifest)), "index")) {
        out.insert("index/" + e.file_name);
      }
    }
    for (const auto& split : ValueOrFail(scan.Plan(s), "plan")) {
      for (const auto& f : split.files) {
        out.insert(std::filesystem::relative(split.FilePath(f), path).string());
      }
    }
  }
  return out;
}

// Files the table keeps besides what snapshots reference: schema, snapshot, tag, consumer and changelog
// JSON files.
inline bool IsTableMetadata(const std::string& relative) {
  for (const char* dir : {"schema/", "snapshot/", "tag/", "consumer/", "changelog/"}) {
    if (relative.rfind(dir, 0) == 0) return true;
  }
  return false;
}

}  // namespace tide::testing
