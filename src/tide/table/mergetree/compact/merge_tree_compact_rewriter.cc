#include "tide/table/mergetree/compact/merge_tree_compact_rewriter.h"

#include <algorithm>

#include "tide/base/strings.h"
#include "tide/table/io/key_value_file_reader.h"
#include "tide/table/io/key_value_file_writer.h"
#include "tide/table/mergetree/sort_merge_heap.h"

namespace tide {

Result<std::unique_ptr<CompactionContext>> CompactionContext::Create(FileSystem* fs, std::string table_path,
                                                                     std::string table_name, const TableSchema& schema,
                                                                     const CoreOptions& options,
                                                                     std::function<int64_t()> creation_time_ms) {
  std::unique_ptr<CompactionContext> c(new CompactionContext(options));
  c->fs_ = fs;
  c->table_name_ = std::move(table_name);
  c->schema_ = schema;
  TIDE_ASSIGN_OR_RETURN(c->write_context_.layout, DataFileLayout::Create(schema, options, c->table_name_));
  TIDE_ASSIGN_OR_RETURN(c->write_context_.db, DuckDB::Open());
  {
    // Compaction reads each input file once and then the file is deleted: DuckDB's cache of file
    // contents would only grow in a long-running writer.
    TIDE_ASSIGN_OR_RETURN(DuckConnection conn, c->write_context_.db.Connect());
    TIDE_RETURN_IF_ERROR(conn.Execute("SET enable_external_file_cache = false"));
  }
  c->write_context_.creation_time_ms = std::move(creation_time_ms);
  c->schemas_ = std::make_unique<SchemaCache>(fs, table_path, schema);
  TIDE_ASSIGN_OR_RETURN(c->merge_, WriteMergeFunction::Create(schema, c->table_name_));
  for (const std::string& key : schema.TrimmedPrimaryKeys()) {
    int idx = schema.FieldIndex(key);
    if (idx < 0) return Status::InvalidArgument("table {}: primary key '{}' is not a column", c->table_name_, key);
    c->key_indices_.push_back(idx);
  }
  for (const std::string& field : options.sequence_fields()) {
    int idx = schema.FieldIndex(field);
    if (idx < 0) {
      return Status::InvalidArgument("table {}: option 'sequence.field' names column '{}', which does not exist",
                                     c->table_name_, field);
    }
    c->sequence_field_indices_.push_back(idx);
  }
  return c;
}

MergeTreeCompactRewriter::MergeTreeCompactRewriter(CompactionContext* context, std::string bucket_dir)
    : context_(context), bucket_dir_(bucket_dir), paths_(std::move(bucket_dir), context->options()) {}

Result<CompactResult> MergeTreeCompactRewriter::Upgrade(int32_t output_level, const DataFileMeta& file) {
  CompactResult result;
  result.before.push_back(file);
  DataFileMeta upgraded = file;
  upgraded.level = output_level;
  result.after.push_back(std::move(upgraded));
  return result;
}

void MergeTreeCompactRewriter::DeleteWritten(const DataFileMeta& file) {
  context_->fs()->DeleteFile(JoinPath(bucket_dir_, file.file_name)).IgnoreError();
}

Result<CompactResult> MergeTreeCompactRewriter::Rewrite(int32_t output_level, bool drop_delete,
                                                        const std::vector<std::vector<SortedRun>>& sections) {
  CompactionContext* ctx = context_;
  auto factory = [this, ctx, output_level]() -> Result<std::unique_ptr<DataFileWriter>> {
    std::string path = JoinPath(bucket_dir_, paths_.NewDataFileName());
    TIDE_ASSIGN_OR_RETURN(auto writer,
                          KeyValueFileWriter::Create(ctx->write_context(), std::move(path), output_level,
                                                     FileSource::kCompact));
    return std::unique_ptr<DataFileWriter>(std::move(writer));
  };
  RollingDataFileWriter out(factory, ctx->options().target_file_size(), ctx->fs());
  for (const auto& section : sections) {
    Status s = RewriteSection(section, drop_delete, &out);
    if (!s.ok()) {
      out.Abort();
      return s.WithContext(fmt::format("table {}: compacting bucket folder {}", ctx->table_name(), bucket_dir_));
    }
  }
  auto written = out.Finish();
  if (!written.ok()) {
    out.Abort();
    return written.status().WithContext(fmt::format("table {}: compacting bucket folder {}", ctx->table_name(), bucket_dir_));
  }
  CompactResult result;
  for (const auto& section : sections) {
    for (const auto& run : section) {
      for (const auto& f : run.files) result.before.push_back(f.meta);
    }
  }
  result.after = std::move(written).value();
  return result;
}

Status MergeTreeCompactRewriter::RewriteSection(const std::vector<SortedRun>& section, bool drop_delete,
                                                RollingDataFileWriter* out) {
  CompactionContext* ctx = context_;
  const std::vector<DataField>& fields = ctx->schema().fields;
  std::vector<std::unique_ptr<KeyValueCursor>> runs;
  for (const auto& run : section) {
    const std::vector<LevelFile>* files = &run.files;
    runs.push_back(std::make_unique<ConcatKeyValueCursor>(
        files->size(), [this, ctx, files, &fields](size_t i) -> Result<std::unique_ptr<KeyValueCursor>> {
          const DataFileMeta& meta = (*files)[i].meta;
          KeyValueFileReadSpec spec;
          spec.path = JoinPath(bucket_dir_, meta.file_name);
          TIDE_ASSIGN_OR_RETURN(spec.file_schema, ctx->schemas()->Get(meta.schema_id));
          spec.needed = &fields;
          spec.primary_key = true;
          spec.table_name = ctx->table_name();
          spec.database = &ctx->write_context()->db;  // no footer cache (DataFileReadOptions::database)
          TIDE_ASSIGN_OR_RETURN(auto reader, KeyValueFileReader::Open(std::move(spec)));
          return std::unique_ptr<KeyValueCursor>(std::move(reader));
        }));
  }
  SortMergeHeap heap(std::move(runs), KeyComparator(ctx->key_indices()));
  TIDE_RETURN_IF_ERROR(heap.Init());
  const std::vector<int>& sequence_fields = ctx->sequence_field_indices();
  const bool descending = ctx->options().sequence_field_descending();
  while (true) {
    TIDE_ASSIGN_OR_RETURN(bool more, heap.NextKey(&group_));
    if (!more) return Status::OK();
    std::optional<KeyValue> merged;
    if (group_.size() == 1) {
      merged = std::move(group_[0]);
    } else {
      if (!sequence_fields.empty()) {
        // `sequence.field` orders a key's records before _SEQUENCE_NUMBER does, as the write buffer sorts.
        std::stable_sort(group_.begin(), group_.end(), [&](const KeyValue& a, const KeyValue& b) {
          for (int i : sequence_fields) {
            int c = CompareDatum(a.row[static_cast<size_t>(i)], b.row[static_cast<size_t>(i)]);
            if (c != 0) return descending ? c > 0 : c < 0;
          }
          return a.sequence < b.sequence;
        });
      }
      TIDE_ASSIGN_OR_RETURN(merged, ctx->merge()->Merge(group_));
    }
    if (!merged) continue;
    if (drop_delete && IsRetract(merged->kind)) continue;
    TIDE_RETURN_IF_ERROR(out->Write(merged->row, merged->sequence, merged->kind));
  }
}

}  // namespace tide
