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
#include "tide/table/mergetree/write_merge_function.h"
#include "tide/table/schema/core_options.h"
#include "tide/table/schema/schema_cache.h"
#include "tide/types/table_schema.h"

namespace tide {

class CompactionContext {
 public:
  // For the table at `table_path` whose current schema is `schema`.
  static Result<std::unique_ptr<CompactionContext>> Create(FileSystem* fs, std::string table_path,
                                                           std::string table_name, const TableSchema& schema,
                                                           const CoreOptions& options,
                                                           std::function<int64_t()> creation_time_ms);

  FileSystem* fs() const { return fs_; }
  const std::string& table_name() const { return table_name_; }
  const TableSchema& schema() const { return schema_; }
  const CoreOptions& options() const { return options_; }
  DataFileWriteContext* write_context() { return &write_context_; }
  SchemaCache* schemas() { return schemas_.get(); }
  WriteMergeFunction* merge() { return merge_.get(); }
  const std::vector<int>& key_indices() const { return key_indices_; }
  const std::vector<int>& sequence_field_indices() const { return sequence_field_indices_; }

 private:
  CompactionContext(CoreOptions options) : options_(std::move(options)) {}
  FileSystem* fs_ = nullptr;
  std::string table_name_;
  TableSchema schema_;
  CoreOptions options_;
  DataFileWriteContext write_context_;
  std::unique_ptr<SchemaCache> schemas_;
  std::unique_ptr<WriteMergeFunction> merge_;
  std::vector<int> key_indices_;
  std::vector<int> sequence_field_indices_;
};

class MergeTreeCompactRewriter final : public CompactRewriter {
 public:
  // Rewrites files of the bucket folder `bucket_dir`; new files get names of a fresh path factory.
  MergeTreeCompactRewriter(CompactionContext* context, std::string bucket_dir);

  Result<CompactResult> Rewrite(int32_t output_level, bool drop_delete,
                                const std::vector<std::vector<SortedRun>>& sections) override;
  Result<CompactResult> Upgrade(int32_t output_level, const DataFileMeta& file) override;
  void DeleteWritten(const DataFileMeta& file) override;

 private:
  Status RewriteSection(const std::vector<SortedRun>& section, bool drop_delete, RollingDataFileWriter* out);

  CompactionContext* context_;
  std::string bucket_dir_;
  DataFilePathFactory paths_;
  std::vector<KeyValue> group_;
};

}  // namespace tide
