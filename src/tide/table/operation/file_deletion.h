// FileDeletion: what expiry, tag deletion, rollback and orphan removal share: where the files a snapshot
// references are, which of them a set of snapshots still needs, and deleting the rest. Follows Java's
// FileDeletionBase (SnapshotDeletion, TagDeletion).
//
// A snapshot references its manifest lists (base, delta, changelog), the manifests they list, the data
// and changelog files those name (with their extra files), its index manifest and the index files it
// lists, and its statistics file. Manifests are carried from snapshot to snapshot until a merge drops
// them and never come back, so a manifest or index file shared by an expired snapshot and a newer one is
// also referenced by every snapshot in between; the same holds for data files (live from the snapshot
// that ADDs them until the one whose delta DELETEs them). Deletion therefore only needs to consult the
// neighbours of what it deletes, as Java does.
//
// Planning reads manifests and deletes nothing; a plan whose manifests cannot be read is skipped (the
// files stay for orphan removal), never guessed. Thread-safety: one thread at a time.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tide/base/result.h"
#include "tide/io/file_system.h"
#include "tide/table/io/file_store_path_factory.h"
#include "tide/table/manifest/manifest.h"
#include "tide/table/schema/core_options.h"
#include "tide/table/snapshot/snapshot.h"
#include "tide/types/table_schema.h"

namespace tide {

// Data files by (partition, bucket, file name), Java's skipping key.
using DataFileSet = std::set<std::string>;

// Paths of metadata files a snapshot alone referenced.
struct MetadataDeletionPlan {
  std::vector<std::string> manifests;        // manifests and manifest lists
  std::vector<std::string> index_files;
  std::vector<std::string> index_manifests;
  std::vector<std::string> statistics;

  void Append(const MetadataDeletionPlan& other) {
    manifests.insert(manifests.end(), other.manifests.begin(), other.manifests.end());
    index_files.insert(index_files.end(), other.index_files.begin(), other.index_files.end());
    index_manifests.insert(index_manifests.end(), other.index_manifests.begin(), other.index_manifests.end());
    statistics.insert(statistics.end(), other.statistics.begin(), other.statistics.end());
  }
  std::vector<std::string> All() const {
    MetadataDeletionPlan all;
    all.Append(*this);
    all.manifests.insert(all.manifests.end(), all.index_files.begin(), all.index_files.end());
    all.manifests.insert(all.manifests.end(), all.index_manifests.begin(), all.index_manifests.end());
    all.manifests.insert(all.manifests.end(), all.statistics.begin(), all.statistics.end());
    return all.manifests;
  }
};

class FileDeletion {
 public:
  // Reads the table's latest schema and options. `table_name` names the table in errors.
  static Result<std::unique_ptr<FileDeletion>> Create(FileSystem* fs, std::string table_path, std::string table_name);

  FileDeletion(const FileDeletion&) = delete;
  FileDeletion& operator=(const FileDeletion&) = delete;

  FileSystem* fs() const { return fs_; }
  const std::string& table_path() const { return table_path_; }
  const std::string& table_name() const { return table_name_; }
  const TableSchema& schema() const { return schema_; }
  const CoreOptions& options() const { return *options_; }

  std::string ManifestPath(const std::string& name) const;
  std::string StatisticsPath(const std::string& name) const;
  // The bucket folder of (partition, bucket).
  Result<std::string> BucketPath(const std::string& partition, int32_t bucket);
  // A data or changelog file's path and those of its extra files.
  Result<std::vector<std::string>> FilePaths(const ManifestEntry& entry);
  Result<std::string> IndexFilePath(const IndexManifestEntry& entry);
  static std::string DataFileKey(const ManifestEntry& entry);

  // Strict reads (errors returned): the merged live data files of a snapshot (base + delta).
  Result<DataFileSet> LiveDataFiles(const Snapshot& snapshot);
  // The manifest-like files (lists, manifests, index manifest and files, statistics) of the snapshots.
  // With `skip_missing`, lists and index manifests that no longer exist are passed over (a changelog's
  // base and delta lists are gone once its snapshot expired, with a changelog producer).
  Result<std::set<std::string>> ManifestSkippingSet(const std::vector<Snapshot>& snapshots, bool skip_missing = false);

  // Data files the snapshot's delta DELETEs (and does not ADD again), except those in `skip`; empty
  // (with a warning) when its manifests cannot be read. With `keep_append_sourced`, files a writer
  // wrote (file source APPEND, or none recorded) are kept: only compaction output goes (a decoupled
  // changelog without a producer reads its changes from them). The buckets are remembered for
  // CleanEmptyDirectories.
  std::vector<std::string> PlanDeletedInDelta(const Snapshot& snapshot, const DataFileSet& skip,
                                              bool keep_append_sourced = false);
  // The changelog files the snapshot's changelog manifests ADD; unreadable manifests are left out.
  std::vector<std::string> PlanAddedInChangelog(const Snapshot& snapshot);
  // Live data files of a tagged snapshot except those in `skip` (TagDeletion); empty when unreadable.
  std::vector<std::string> PlanLiveDataFiles(const Snapshot& snapshot, const DataFileSet& skip);
  // Manifest lists and manifests (data lists; the changelog list when `changelog`), index manifest and
  // index files and statistics (when `index_and_statistics`) of `snapshot` that are not in `skipping`;
  // adds them to `skipping`.
  MetadataDeletionPlan PlanMetadata(const Snapshot& snapshot, std::set<std::string>* skipping, bool data_lists,
                                    bool changelog, bool index_and_statistics = true);

  // Adds every file `snapshot` references to `paths` (absolute): manifest lists, manifests, the data and
  // changelog files of every entry (ADD or DELETE) with their extra files, the index manifest and index
  // files, statistics. Manifests named in `manifests_read` are not read again (and are added to it).
  // With `strict`, an unreadable file is an error; otherwise a missing one is skipped (its snapshot was
  // expired meanwhile) and other errors are returned.
  Status CollectReferenced(const Snapshot& snapshot, bool strict, std::set<std::string>* paths,
                           std::set<std::string>* manifests_read);

  // Deletes the files; returns how many existed. The first error stops and is returned.
  Result<int64_t> DeleteFiles(const std::vector<std::string>& paths);
  // Deletes the bucket folders (then partition folders) of planned data files that are now empty, when
  // `snapshot.clean-empty-directories` is on (or `force`).
  void CleanEmptyDirectories(bool force = false);

 private:
  FileDeletion(FileSystem* fs, std::string table_path, std::string table_name, TableSchema schema,
               std::unique_ptr<CoreOptions> options);

  // Every entry of the manifests of `list`; errors as they come.
  Result<std::vector<ManifestEntry>> ReadListEntries(const std::string& list);
  void RecordBucket(const ManifestEntry& entry);

  FileSystem* fs_;
  std::string table_path_;
  std::string table_name_;
  TableSchema schema_;
  std::unique_ptr<CoreOptions> options_;
  std::unique_ptr<FileStorePathFactory> paths_;
  std::vector<DataType> partition_types_;
  std::map<std::string, std::string> partition_paths_;     // serialized partition -> folder
  std::map<std::string, std::set<int32_t>> deletion_buckets_;  // partition -> buckets with deletions
};

// The data files a tag keeps, for expiry: a file that a snapshot's delta DELETEs stays when the nearest
// tag before that snapshot still holds it (Java's createDataFileSkipperForTags). Tag files are read once.
class TagDataFileSkipper {
 public:
  // `tags`: the tagged snapshots, ascending by id.
  TagDataFileSkipper(FileDeletion* deletion, std::vector<Snapshot> tags)
      : deletion_(deletion), tags_(std::move(tags)) {}
  const std::vector<Snapshot>& tags() const { return tags_; }
  // The files to keep among those snapshot `id` deletes; null when the tag's files cannot be read (then
  // nothing may be deleted: the files are left for orphan removal, with a warning).
  const DataFileSet* For(int64_t id);
  // The tags that keep metadata of the range [begin, end): the last tag at or before `begin` up to the
  // last one before `end` (Java's findSkippingTags).
  std::vector<Snapshot> InRange(int64_t begin, int64_t end) const;

 private:
  FileDeletion* deletion_;
  std::vector<Snapshot> tags_;
  std::map<int64_t, std::optional<DataFileSet>> files_;  // by tag snapshot id; nullopt: unreadable
  const DataFileSet empty_;
};

}  // namespace tide
