#include "tide/table/append/append_compact_rewriter.h"

#include <fmt/format.h>

#include "tide/base/logging.h"
#include "tide/base/strings.h"
#include "tide/table/io/append_file_writer.h"
#include "tide/table/io/key_value_file_reader.h"

namespace tide {

Result<std::unique_ptr<AppendCompactContext>> AppendCompactContext::Create(FileSystem* fs, std::string table_path,
                                                                           std::string table_name,
                                                                           const TableSchema& schema,
                                                                           const CoreOptions& options,
                                                                           std::function<int64_t()> creation_time_ms) {
  if (schema.HasPrimaryKey()) {
    return Status::Internal("table {}: append compaction of a primary-key table", table_name);
  }
  std::unique_ptr<AppendCompactContext> c(new AppendCompactContext(options));
  c->fs_ = fs;
  c->table_name_ = std::move(table_name);
  c->schema_ = schema;
  TIDE_ASSIGN_OR_RETURN(c->write_context_.layout, DataFileLayout::Create(schema, options, c->table_name_));
  // Opened at the first compaction that needs it (not every writer compacts).
  // Each input file is read once and then replaced: DuckDB's cache of file contents would only grow.
  c->write_context_.db = DuckDB::OpenLater(":memory:", {{"enable_external_file_cache", "false"}});
  c->write_context_.creation_time_ms = std::move(creation_time_ms);
  c->schemas_ = std::make_unique<SchemaCache>(fs, table_path, schema);
  return c;
}

Result<std::vector<DataFileMeta>> RewriteAppendFiles(AppendCompactContext* context, const std::string& bucket_dir,
                                                     const std::vector<DataFileMeta>& files) {
  if (files.empty()) return std::vector<DataFileMeta>{};
  DataFilePathFactory paths(bucket_dir, context->options());
  DataFileWriteContext* write_context = context->write_context();
  RollingDataFileWriter out(
      [&paths, &bucket_dir, write_context]() -> Result<std::unique_ptr<DataFileWriter>> {
        TIDE_ASSIGN_OR_RETURN(auto writer, AppendFileWriter::Create(write_context, JoinPath(bucket_dir, paths.NewDataFileName()),
                                                                    FileSource::kCompact));
        return std::unique_ptr<DataFileWriter>(std::move(writer));
      },
      context->options().target_file_size(), context->fs());
  const std::vector<DataField>& fields = context->schema().fields;
  int64_t sequence = files.front().min_sequence_number;
  auto copy = [&]() -> Status {
    for (const DataFileMeta& meta : files) {
      KeyValueFileReadSpec spec;
      spec.path = JoinPath(bucket_dir, meta.file_name);
      TIDE_ASSIGN_OR_RETURN(spec.file_schema, context->schemas()->Get(meta.schema_id));
      spec.needed = &fields;
      spec.primary_key = false;
      spec.table_name = context->table_name();
      spec.database = &write_context->db;  // no footer cache (DataFileReadOptions::database)
      TIDE_ASSIGN_OR_RETURN(auto reader, KeyValueFileReader::Open(std::move(spec)));
      while (true) {
        TIDE_ASSIGN_OR_RETURN(bool more, reader->Advance());
        if (!more) break;
        KeyValue kv = reader->TakeCurrent();
        TIDE_RETURN_IF_ERROR(out.Write(kv.row, sequence++, ValueKind::kInsert));
      }
    }
    return Status::OK();
  };
  Status copied = copy();
  // The readers are closed: DuckDB's map of the files read (never trimmed) is emptied.
  Status forgot = write_context->db.ForgetFiles();
  if (!forgot.ok()) {
    // Only memory is at stake: the compaction goes on.
    TIDE_LOG_WARN("table {}: emptying DuckDB's map of files read: {}", context->table_name(), forgot.ToString());
  }
  Result<std::vector<DataFileMeta>> written = copied.ok() ? out.Finish() : Result<std::vector<DataFileMeta>>(copied);
  if (!written.ok()) {
    out.Abort();
    return written.status().WithContext(
        fmt::format("table {}: compacting {} files of bucket folder {}", context->table_name(), files.size(), bucket_dir));
  }
  return written;
}

}  // namespace tide
