// MergeTreeCompactRewriter: the file work of compacting one bucket of a primary-key table, Java's
// MergeTreeCompactRewriter. Rewrite reads each section's runs (files read in the table's current
// schema, by field id), merges them by key (SortMergeHeap), folds each key's records with the write
// merge function (a single record stays as it is), drops -U/-D results when `drop_delete`, and writes
// new files of the output level (FileSource COMPACT), rolling at `target-file-size`. Upgrade moves a
// file to another level by metadata alone (DataFileMeta.upgrade).
//
// CompactionContext holds what the rewriters of one writer share: the output files' layout and their
// own DuckDB (compaction runs beside the writer's flushes), the schemas of older files, the merge
// function. Files written by a Rewrite that fails are deleted before it returns; nothing written is
// part of the table until a committer references it.
//
// Lookup compaction (Java's LookupMergeTreeCompactRewriter), for tables that need it (LookupOptions):
// a rewrite whose sections hold level-0 files, and the upgrade of a level-0 file, merge each key's
// level-0 records with its newest record above them: the section's lowest-level record, else a
// LookupLevels lookup in the levels above the output. With deletion vectors the looked-up record's
// position is marked deleted (BucketedDvMaintainer), and every rewritten file's vector goes away;
// `changelog-producer` lookup writes the exact changes (+I, -U/+U, -D) of the keys level 0 touched to
// changelog files of the output level; first-row keeps a level-0 key only when no level holds it. Other
// rewrites of such tables keep, per key, only the lowest-level record (later levels hold older
// states). Upgrades follow Java's strategy: a level-0 file is read for its changelog, and rewritten
// when it holds deletes under deletion vectors, or for engines other than deduplicate (or with a
// sequence field) below the max level.
//
// `changelog-producer` full-compaction (Java's FullChangelogMergeTreeCompactRewriter): a compaction into
// the max level writes, per key, the change from the key's max-level record to the merged one (+I,
// -U/+U, -D) to changelog files; a file upgraded to the max level yields +I for its records.
// With `changelog-producer.row-deduplicate` (both producers) an update whose row stays equal (the
// fields of `changelog-producer.row-deduplicate-ignore-fields` aside) yields no -U/+U, as Java's
// RecordEqualiser decides.
//
// Thread-safety: a CompactionContext and its rewriters are used by one thread at a time (the writer's
// compaction thread).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tide/base/result.h"
#include "tide/io/file_system.h"
#include "tide/table/io/data_file_writer.h"
#include "tide/table/mergetree/compact/merge_tree_compact_task.h"
#include "tide/table/mergetree/sort_merge_heap.h"
#include "tide/table/mergetree/write_merge_function.h"
#include "tide/table/schema/core_options.h"
#include "tide/table/schema/schema_cache.h"
#include "tide/types/table_schema.h"

namespace tide {

class LookupLevels;
class LookupFileCache;
class BucketedDvMaintainer;

// What lookup compaction does for a table (Java's LookupStrategy and the lookup options).
struct LookupOptions {
  bool need_lookup = false;        // first-row, changelog-producer lookup, deletion vectors, force-lookup
  bool produce_changelog = false;  // changelog-producer lookup
  bool full_changelog = false;     // changelog-producer full-compaction (no lookup)
  bool deletion_vectors = false;   // deletion-vectors.enabled
  bool first_row = false;
  bool bitmap64 = false;           // deletion-vectors.bitmap64
  bool wait = true;                // lookup-wait: a commit waits for level 0 to be compacted
  std::optional<int32_t> gentle_interval;  // lookup-compact gentle: force level 0 up every N triggers
  int64_t cache_bytes = 256LL * 1024 * 1024;  // lookup.cache-max-memory-size
  // changelog-producer.row-deduplicate: no -U/+U pair for an update that leaves the row equal, the
  // fields of changelog-producer.row-deduplicate-ignore-fields aside (lookup and full-compaction).
  bool row_deduplicate = false;
  std::vector<std::string> row_deduplicate_ignore_fields;
};

class CompactionContext {
 public:
  // For the table at `table_path` whose current schema is `schema`.
  static Result<std::unique_ptr<CompactionContext>> Create(FileSystem* fs, std::string table_path,
                                                           std::string table_name, const TableSchema& schema,
                                                           const CoreOptions& options,
                                                           std::function<int64_t()> creation_time_ms);
  ~CompactionContext();

  FileSystem* fs() const { return fs_; }
  const std::string& table_name() const { return table_name_; }
  const TableSchema& schema() const { return schema_; }
  const CoreOptions& options() const { return options_; }
  DataFileWriteContext* write_context() { return &write_context_; }
  SchemaCache* schemas() { return schemas_.get(); }
  WriteMergeFunction* merge() { return merge_.get(); }
  const std::vector<int>& key_indices() const { return key_indices_; }
  const std::vector<int>& sequence_field_indices() const { return sequence_field_indices_; }
  const LookupOptions& lookup() const { return lookup_; }
  // changelog-producer.row-deduplicate: whether an update from `before` to `after` changes nothing
  // the changelog shows (the ignored fields aside). False without the option.
  bool SameForChangelog(const Row& before, const Row& after) const;
  // The searched files of every bucket's lookups (lookup tables only), on the compaction thread alone.
  LookupFileCache* lookup_cache() { return lookup_cache_.get(); }

 private:
  explicit CompactionContext(CoreOptions options);
  FileSystem* fs_ = nullptr;
  std::string table_name_;
  TableSchema schema_;
  CoreOptions options_;
  DataFileWriteContext write_context_;
  std::unique_ptr<SchemaCache> schemas_;
  std::unique_ptr<WriteMergeFunction> merge_;
  std::vector<int> key_indices_;
  std::vector<int> sequence_field_indices_;
  LookupOptions lookup_;
  std::vector<bool> dedup_ignored_;  // per table field: ignored by row-deduplicate
  std::unique_ptr<LookupFileCache> lookup_cache_;
};

// The lookup options of a table; InvalidArgument naming a malformed option, NotSupported for
// combinations Java refuses (first-row with deletion vectors).
Result<LookupOptions> LookupOptionsOf(const CoreOptions& options, const std::string& table_name);

class MergeTreeCompactRewriter final : public CompactRewriter {
 public:
  // Rewrites files of the bucket folder `bucket_dir`; new files get names of a fresh path factory.
  // Lookup tables pass the bucket's `lookup` levels (required when context->lookup().need_lookup) and
  // deletion vectors `dv` (required with deletion vectors), both used by this rewriter alone meanwhile.
  MergeTreeCompactRewriter(CompactionContext* context, std::string bucket_dir, int32_t max_level = 0,
                           LookupLevels* lookup = nullptr, BucketedDvMaintainer* dv = nullptr);

  Result<CompactResult> Rewrite(int32_t output_level, bool drop_delete,
                                const std::vector<std::vector<SortedRun>>& sections) override;
  Result<CompactResult> Upgrade(int32_t output_level, const DataFileMeta& file) override;
  void DeleteWritten(const DataFileMeta& file) override;

 private:
  Status RewriteSection(const std::vector<SortedRun>& section, bool drop_delete, RollingDataFileWriter* out);
  // Java's rewriteOrProduceChangelog: merges with lookups; writes the output files when `rewrite`
  // (else the input files move to `output_level`), and changelog files when the table produces them.
  Result<CompactResult> RewriteLookup(int32_t output_level, bool drop_delete, bool rewrite,
                                      const std::vector<std::vector<SortedRun>>& sections);
  // Java's FullChangelogMergeFunctionWrapper over the sections (output at the max level).
  Result<CompactResult> RewriteFullChangelog(bool drop_delete, bool rewrite,
                                             const std::vector<std::vector<SortedRun>>& sections);
  Status LookupSection(const std::vector<SortedRun>& section, int32_t output_level, bool drop_delete,
                       RollingDataFileWriter* out, RollingDataFileWriter* changelog);
  // The heap over the runs of a section, each record tagged with its file's level, deleted positions
  // skipped.
  Result<std::unique_ptr<SortMergeHeap>> OpenSection(const std::vector<SortedRun>& section);
  // Folds a key's records (oldest first) keeping only level-0 ones and the lowest-level one above
  // (Java's LookupMergeFunction).
  Result<std::optional<KeyValue>> MergeLookupGroup(std::vector<KeyValue>* group);
  Result<std::optional<KeyValue>> MergeGroup(std::vector<KeyValue>* group);
  RollingDataFileWriter::Factory FileFactory(int32_t level, bool changelog);
  void ForgetVectorsOf(const std::vector<std::vector<SortedRun>>& sections);

  CompactionContext* context_;
  std::string bucket_dir_;
  DataFilePathFactory paths_;
  int32_t max_level_;
  LookupLevels* lookup_;
  BucketedDvMaintainer* dv_;
  std::vector<KeyValue> group_;
};

}  // namespace tide
