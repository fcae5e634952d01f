// FileStoreCommit: turns writers' CommitMessages into atomically published snapshots of one Paimon
// table, following Java's FileStoreCommitImpl (Paimon 1.2), so Java 0.9 and 1.x read the result.
//
// One attempt of a commit:
//   1. find the latest snapshot (LATEST hint trusted only if snapshot-(hint+1) is absent);
//   2. on a retry, look among the snapshots created since the previous attempt for one with this
//      (commitUser, commitIdentifier, commitKind): if it is there the commit already happened;
//   3. check for conflicts against the live files of the changed partitions: every DELETE names a live
//      file, no ADD repeats a live file, `_TOTAL_BUCKETS` is the same within a partition (not checked
//      for OVERWRITE), and for primary-key tables the key ranges of the files of one (partition,
//      bucket, level >= 1) do not overlap (keys decoded with the trimmed primary-key types);
//   4. write the delta manifests and the delta manifest list, the changelog manifests and list (if any
//      changelog), the base manifest list (the previous base + delta manifests, merged by
//      MergeManifests), and the index manifest (the previous one with entries replaced per
//      (partition, bucket, index type); by file name for bucket-unaware tables) if index files changed;
//   5. create `snapshot/snapshot-<latest+1>` with FileSystem::WriteFileExclusive. If another committer
//      took that id (AlreadyExists), delete every file this attempt wrote and go back to 1, at most
//      `commit.max-retries` times (then Conflict);
//   6. write the LATEST hint (and EARLIEST for a table's first snapshot), best effort (three tries).
//
// Guarantees: every file a snapshot references is durable (written with WriteFileExclusive: fsync of
// data and directory entry) before the snapshot file appears, and the snapshot file appears whole or
// not at all. When Commit returns OK, the snapshot is durable. When it fails before publishing, the
// table is unchanged and the files of the attempt are deleted (best effort; orphan cleaning removes
// what is left). When the outcome of publishing cannot be told (an I/O error in the rename or in the
// directory sync after it), Commit returns IOError and deletes nothing: repeating the same commit (same
// user and identifier) then reports kAlreadyCommitted if the snapshot did land.
//
// Exactly once: commit identifiers must increase per commit user. A Commit or Overwrite whose
// identifier is not greater than that of the newest snapshot of its user reports kAlreadyCommitted and
// writes nothing (Java's filterCommitted). Batch-style writers that always use one identifier (Java
// uses Long.MAX_VALUE) need a fresh commit user per commit.
//
// Manifests a committer writes or reads stay decoded in memory (ManifestEntryCache, bounded), so a
// long-running committer decodes each of its own manifests never and each other one once.
//
// A published snapshot can still be lost: Java's LocalFileIO checks that snapshot-<id> is absent and then
// renames over it, so a Java committer in another process that checked before this one created the
// file replaces it (a lock inside one JVM orders Java's own committers only). RecheckLastCommit finds
// such a replacement and commits the lost files again on the latest snapshot; a writer calls it before
// its next commit and before telling its source the data is durable.
//
// Thread-safety: one FileStoreCommit is used by one thread at a time. Any number of instances, in
// threads or processes, may commit to the same table at once: the exclusive creation of the snapshot
// file decides the order, the losers retry on the new latest snapshot.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "tide/base/result.h"
#include "tide/io/file_system.h"
#include "tide/table/operation/commit_message.h"
#include "tide/table/manifest/manifest_merger.h"
#include "tide/table/manifest/manifest_writer.h"
#include "tide/table/snapshot/snapshot.h"
#include "tide/table/snapshot/snapshot_manager.h"

namespace tide {

struct CommitOptions {
  std::string commit_user;         // required: the writer's identity, normally a UUID
  int64_t commit_identifier = 0;   // increases per commit user (e.g. a checkpoint counter)
  // Stored as the snapshot's "properties" (e.g. the source LSN); omitted from the JSON when empty.
  std::map<std::string, std::string> properties;
  // kAppend: Java's commit(): new files and changelog form an APPEND snapshot, compaction changes
  // (DELETE of compact_before, ADD of compact_after, deletion-vector index changes) a following
  // COMPACT snapshot with the same identifier; each only if it has anything.
  // kCompact: one COMPACT snapshot with everything; messages must not carry new_files.
  CommitKind kind = CommitKind::kAppend;
  // Create an APPEND snapshot even when the messages hold nothing (Java's ignoreEmptyCommit(false),
  // `commit.force-create-snapshot`), e.g. to record progress in `properties`.
  bool allow_empty = false;
  // The snapshot's watermark is max(this, the previous snapshot's).
  std::optional<int64_t> watermark;
  // With kAppend: a COMPACT snapshot that loses Paimon's conflict check (another engine compacted the
  // same files first) is given up instead of failing the call, once the APPEND snapshot is in:
  // CommitResult::compaction_lost says so, and the writer must re-read its files from the latest
  // snapshot. Java's writers fail and restart instead; a sync that must go on takes this.
  bool give_up_lost_compaction = false;
};

enum class CommitOutcome {
  kCommitted,         // snapshot_ids lists the new snapshots
  kAlreadyCommitted,  // a snapshot of this user and identifier exists; nothing was written
  kNothingToCommit,   // empty messages and allow_empty false; nothing was written
};

struct CommitResult {
  CommitOutcome outcome = CommitOutcome::kNothingToCommit;
  std::vector<int64_t> snapshot_ids;  // created by this call, ascending
  int attempts = 0;                   // publish attempts over all snapshots of this call
  // The COMPACT snapshot lost a conflict and was given up (CommitOptions::give_up_lost_compaction);
  // why. Its files are referenced by no snapshot (orphan removal deletes them).
  std::optional<Status> compaction_lost;
};

// What RecheckLastCommit found.
struct RecheckResult {
  // Snapshots of the last commit whose files now hold another committer's snapshot.
  std::vector<int64_t> replaced;
  // The snapshot that committed the lost new files again (absent when none were lost: a later snapshot
  // already holds them, or nothing was replaced).
  std::optional<int64_t> recommitted;
  // The replaced snapshot was this committer's COMPACT: its compaction is not in the table, and the
  // writer must re-read its files from the latest snapshot (as after CommitResult::compaction_lost).
  std::optional<Status> compaction_lost;
};

// What an Overwrite replaces.
struct OverwriteScope {
  // nullopt: the whole table. Otherwise exactly these partitions (serialized BinaryRows).
  std::optional<std::vector<std::string>> partitions;
  // The messages come from a writer that ignored the table's previous files and bucket assignments
  // (TableWriteConfig::ignore_previous_files): what a whole-table overwrite of a primary-key table in a
  // dynamic bucket mode needs, since the overwrite drops every HASH index file and key location.
  bool fresh_writer = false;

  static OverwriteScope WholeTable(bool fresh_writer = false) { return OverwriteScope{std::nullopt, fresh_writer}; }
  static OverwriteScope Partitions(std::vector<std::string> partitions) {
    return OverwriteScope{std::move(partitions), false};
  }
  bool Contains(const std::string& partition) const;
};

// Overrides of the table options the committer reads (from the latest schema at every commit).
struct FileStoreCommitConfig {
  std::optional<int32_t> max_retries;  // commit.max-retries (10)
  // manifest.target-file-size (8 MiB), manifest.merge-min-count (30),
  // manifest.full-compaction-threshold-size (16 MiB).
  std::optional<ManifestMergeOptions> merge;
  // The UUID of this committer's manifest names; random when unset.
  std::optional<std::string> manifest_uuid;
  // Epoch milliseconds for `timeMillis`; the system clock when unset.
  std::function<int64_t()> clock;
  // Whether APPEND snapshots that only add level-0 files are checked for conflicts too (Java skips
  // this in streaming writes). Checking costs a read of the changed partitions' manifests.
  bool check_append_conflicts = true;
};

class FileStoreCommit {
 public:
  // `table_path` is the table's folder (holding schema/); `table_name` names it in errors. NotFound if
  // the table has no schema.
  static Result<std::unique_ptr<FileStoreCommit>> Create(FileSystem* fs, std::string table_path, std::string table_name,
                                                         FileStoreCommitConfig config = {});

  FileStoreCommit(const FileStoreCommit&) = delete;
  FileStoreCommit& operator=(const FileStoreCommit&) = delete;
  ~FileStoreCommit();

  // Commits the messages as described above. Errors: InvalidArgument for bad options or messages,
  // Conflict when the changes contradict the table (a file to delete is not live, overlapping keys,
  // changed bucket count) or the retries are used up, IOError/Corruption from the files.
  Result<CommitResult> Commit(const std::vector<CommitMessage>& messages, const CommitOptions& options);

  // Replaces everything in `scope` with the new files of `messages`: an OVERWRITE snapshot with a
  // DELETE entry for every live file (and index file) of the scope at commit time plus the new files
  // (which must lie inside the scope), then a COMPACT snapshot for any compaction changes. Changelog
  // files are ignored, as in Java. An empty overwrite of the whole table is TRUNCATE. `options.kind`
  // is not used.
  Result<CommitResult> Overwrite(const OverwriteScope& scope, const std::vector<CommitMessage>& messages,
                                 const CommitOptions& options);

  // Checks that every snapshot the last successful Commit or Overwrite published still holds it (its
  // user, identifier and kind). For a replaced APPEND or OVERWRITE snapshot, the new files no snapshot
  // since holds or has removed are committed again on the latest snapshot (an OVERWRITE again over its
  // scope), with the same user and identifier; a replaced COMPACT snapshot is reported in
  // `compaction_lost`. Nothing to do (an empty result) when nothing was replaced or nothing was committed.
  Result<RecheckResult> RecheckLastCommit();

  const std::string& manifest_uuid() const { return namer_.uuid(); }
  // The decoded manifests it keeps: after a commit, those its snapshot lists.
  const ManifestEntryCache& manifest_cache() const { return manifest_cache_; }

 private:
  struct Changes;
  struct TableInfo;

  FileStoreCommit(FileSystem* fs, std::string table_path, std::string table_name, FileStoreCommitConfig config);

  Result<TableInfo> LoadTableInfo() const;
  // Commit (overwrite == nullptr) and Overwrite.
  Result<CommitResult> CommitImpl(const OverwriteScope* overwrite, const std::vector<CommitMessage>& messages,
                                  const CommitOptions& options);
  // The newest identifier committed by `user`, scanning snapshots newer than the ones already seen.
  Result<std::optional<int64_t>> LatestIdentifierOf(const std::string& user);
  // Publishes one snapshot with retries: each attempt reads the latest snapshot, looks for its own
  // snapshot among those that landed since the last attempt, builds its delta (AttemptDelta), checks it
  // against the live files (CheckConflicts), writes its manifests and lists (WriteMetadata) and
  // publishes (Publish). `overwrite` set: the changes are completed at every attempt with DELETEs of the
  // live files in the scope.
  Result<int64_t> TryCommit(const TableInfo& info, const Changes& changes, CommitKind kind,
                            const CommitOptions& options, const OverwriteScope* overwrite, int* attempts);
  // The id of a snapshot in [from, to] committed by this user and identifier with `kind`, if any.
  Result<std::optional<int64_t>> FindOwnSnapshot(int64_t from, int64_t to, const CommitOptions& options,
                                                 CommitKind kind) const;
  // `changes`, preceded for an overwrite by DELETEs of what is live in its scope in `latest`.
  Result<Changes> AttemptDelta(const TableInfo& info, const ManifestFileWriter& files, const Changes& changes,
                               const std::optional<Snapshot>& latest, const OverwriteScope* overwrite) const;
  // Java's conflict rules: bucket counts, deletes of live files only, no overlapping key ranges in a
  // level. Conflict naming the files otherwise.
  Status CheckConflicts(const TableInfo& info, const ManifestFileWriter& files, const Changes& delta,
                        const std::optional<Snapshot>& latest, const CommitOptions& options, CommitKind kind) const;
  // Writes the manifests, manifest lists and index manifest of snapshot `new_id` and returns it (not
  // yet published). Every file written is appended to `written`, also on error.
  Result<Snapshot> WriteMetadata(const TableInfo& info, ManifestFileWriter* files, const Changes& delta,
                                 const std::optional<Snapshot>& latest, int64_t new_id, const CommitOptions& options,
                                 CommitKind kind, std::vector<std::string>* written,
                                 std::set<std::string>* listed_manifests) const;
  enum class PublishOutcome {
    kPublished,  // snapshot-<id> holds this commit
    kLostRace,   // another committer's snapshot holds the id; this attempt's metadata is unreferenced
  };
  // Creates snapshot-<id> exclusively. On any error the landed file decides: this commit's (also after
  // AlreadyExists) or another's. Errors set *nothing_landed when no snapshot file exists, so the
  // attempt's metadata may be deleted; otherwise it stays.
  Result<PublishOutcome> Publish(const Snapshot& snapshot, bool* nothing_landed);
  // Whether `landed` is the snapshot this commit wrote as `mine`.
  static bool IsThisCommit(const Snapshot& landed, const Snapshot& mine);
  std::string Describe(const TableInfo& info, const ManifestEntry& entry) const;

  // Writes snapshot/<name> (LATEST or EARLIEST) = id, best effort.
  void WriteHint(const char* name, int64_t id, std::mt19937* rng);

  FileSystem* fs_;
  std::string table_path_;
  std::string table_name_;
  FileStoreCommitConfig config_;
  SnapshotManager snapshots_;
  ManifestFileNamer namer_;
  // The manifests this committer wrote or read, decoded (a long-running writer's commits read the same
  // ones again: the conflict check, the manifest merge).
  ManifestEntryCache manifest_cache_;
  // Per commit user: snapshots up to `checked_through` have been searched; `identifier` is the newest
  // one of that user found.
  struct UserProgress {
    int64_t checked_through = 0;
    std::optional<int64_t> identifier;
  };
  std::map<std::string, UserProgress> user_progress_;
  // The last successful Commit or Overwrite, for RecheckLastCommit.
  struct LastCommit;
  std::unique_ptr<LastCommit> last_;
};

}  // namespace tide
