// AppendCompactRewriter: the file work of compacting an append (no primary key) table, Java's
// BaseAppendFileStoreWrite.compactRewrite. The rows of the input files are read in the given order
// (each file in the table's current schema, by field id, as readers do), row order kept, and written
// into new data files (FileSource COMPACT, level 0) of the same bucket folder, rolling at
// `target-file-size`. Sequence numbers restart at the first input's `_MIN_SEQUENCE_NUMBER`, one per
// row, as Java's compaction counts them: for a fixed bucket whose inputs are consecutive by sequence,
// the output covers exactly the inputs' range, so readers ordering files by sequence keep write order.
//
// AppendCompactContext holds what the compactions of one writer share: the output layout and its own
// DuckDB (compaction runs beside the writer's flushes) and the schemas of older files. Files written by
// a rewrite that fails are deleted before it returns; nothing written is part of the table until a
// committer references it.
//
// Thread-safety: a context and its rewrites are used by one thread at a time (the writer's compaction
// thread, or the caller of a manual compaction).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tide/base/result.h"
#include "tide/io/file_system.h"
#include "tide/table/io/data_file_meta.h"
#include "tide/table/io/data_file_writer.h"
#include "tide/table/schema/core_options.h"
#include "tide/table/schema/schema_cache.h"
#include "tide/types/table_schema.h"

namespace tide {

class AppendCompactContext {
 public:
  // For the append table at `table_path` whose current schema is `schema`.
  static Result<std::unique_ptr<AppendCompactContext>> Create(FileSystem* fs, std::string table_path,
                                                              std::string table_name, const TableSchema& schema,
                                                              const CoreOptions& options,
                                                              std::function<int64_t()> creation_time_ms);

  FileSystem* fs() const { return fs_; }
  const std::string& table_name() const { return table_name_; }
  const TableSchema& schema() const { return schema_; }
  const CoreOptions& options() const { return options_; }
  DataFileWriteContext* write_context() { return &write_context_; }
  SchemaCache* schemas() { return schemas_.get(); }

 private:
  explicit AppendCompactContext(CoreOptions options) : options_(std::move(options)) {}
  FileSystem* fs_ = nullptr;
  std::string table_name_;
  TableSchema schema_;
  CoreOptions options_;
  DataFileWriteContext write_context_;
  std::unique_ptr<SchemaCache> schemas_;
};

// Rewrites `files` (of the bucket folder `bucket_dir`, in this order) into new files named by a fresh
// path factory of that folder. Returns the new files in write order; empty for no input.
Result<std::vector<DataFileMeta>> RewriteAppendFiles(AppendCompactContext* context, const std::string& bucket_dir,
                                                     const std::vector<DataFileMeta>& files);

}  // namespace tide
