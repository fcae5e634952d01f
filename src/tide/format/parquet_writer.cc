#include "tide/format/parquet_writer.h"

#include <fcntl.h>
#include <strings.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <utility>

#include "tide/format/duckdb_vector_encoder.h"
#include "tide/format/parquet_compression.h"
#include "tide/io/file_system.h"
#include "tide/io/unique_file.h"

namespace tide {
namespace {

constexpr const char* kTable = "tide_parquet_rows";

// The FIELD_IDS entry of one column: its id, or a struct literal with the ids of its nested parts, laid
// out as Java Paimon numbers them (ParquetSchemaConverter): ARRAY elements and MAP keys/values take ids
// derived from the top-level field id and the depth; ROW fields carry their own ids and restart the depth.
std::string FieldIdEntry(const DataType& type, std::optional<int32_t> own_id, std::optional<int32_t> field_id,
                         int depth) {
  std::vector<std::pair<std::string, std::string>> children;
  switch (type.root()) {
    case TypeRoot::kArray:
      if (field_id) {
        children.emplace_back("element", FieldIdEntry(type.element(), ArrayElementFieldId(*field_id, depth + 1),
                                                      field_id, depth + 1));
      }
      break;
    case TypeRoot::kMap:
    case TypeRoot::kMultiset: {
      if (field_id) {
        const DataType& key = type.root() == TypeRoot::kMap ? type.key() : type.element();
        DataType value = type.root() == TypeRoot::kMap ? type.value() : DataType::Int(false);
        children.emplace_back("key", FieldIdEntry(key, MapKeyFieldId(*field_id, depth + 1), field_id, depth + 1));
        children.emplace_back("value",
                              FieldIdEntry(value, MapValueFieldId(*field_id, depth + 1), field_id, depth + 1));
      }
      break;
    }
    case TypeRoot::kRow:
      for (const DataField& field : type.fields()) {
        children.emplace_back(field.name, FieldIdEntry(field.type, field.id, field.id, 0));
      }
      break;
    default:
      break;
  }
  // Drop parts without any id.
  std::erase_if(children, [](const auto& c) { return c.second.empty(); });
  if (children.empty()) return own_id ? std::to_string(*own_id) : std::string();
  std::string out = "{";
  if (own_id) out += "'__duckdb_field_id': " + std::to_string(*own_id);
  for (const auto& [name, entry] : children) {
    if (out.size() > 1) out += ", ";
    out += QuoteSqlString(name) + ": " + entry;
  }
  return out + "}";
}

Status FsyncPath(const std::string& path, bool directory) {
  int fd = ::open(path.c_str(), directory ? (O_RDONLY | O_DIRECTORY) : O_RDONLY);
  if (fd < 0) return Status::IOError("open {} for fsync: {}", path, std::strerror(errno));
  int rc = ::fsync(fd);
  int err = errno;
  ::close(fd);
  if (rc != 0) return Status::IOError("fsync {}: {}", path, std::strerror(err));
  return Status::OK();
}

std::string TempSuffix() {
  static std::atomic<uint64_t> counter{0};
  uint64_t now = static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  return fmt::format(".tmp-{}-{:x}-{}", ::getpid(), now, counter.fetch_add(1));
}

}  // namespace

ParquetFileWriter::~ParquetFileWriter() = default;

Result<std::unique_ptr<ParquetFileWriter>> ParquetFileWriter::Create(const DuckDB& db, std::string path,
                                                                     std::vector<ParquetColumnSpec> columns,
                                                                     ParquetWriteOptions options) {
  if (columns.empty()) return Status::InvalidArgument("Parquet file {}: a data file needs at least one column", path);
  if (options.row_group_rows <= 0) {
    return Status::InvalidArgument("Parquet file {}: row_group_rows must be positive", path);
  }
  std::unique_ptr<ParquetFileWriter> writer(new ParquetFileWriter());
  writer->path_ = std::move(path);
  writer->columns_ = std::move(columns);
  writer->options_ = std::move(options);
  for (size_t i = 0; i < writer->columns_.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (writer->columns_[j].name == writer->columns_[i].name) {
        return Status::InvalidArgument("Parquet file {}: column {} is listed twice", writer->path_,
                                       writer->columns_[i].name);
      }
    }
  }
  std::optional<ParquetCodec> codec = ParquetCodecNamed(writer->options_.compression);
  if (codec && ParquetFileEncoder::CanEncode(writer->columns_)) {
    ParquetEncoderOptions encoder_options;
    encoder_options.codec = *codec;
    encoder_options.zstd_level = writer->options_.compression_level;
    encoder_options.row_group_rows = writer->options_.row_group_rows;
    encoder_options.row_group_bytes = writer->options_.row_group_bytes;
    encoder_options.write_field_ids = writer->options_.write_field_ids;
    auto encoder = ParquetFileEncoder::Create(writer->columns_, encoder_options);
    if (!encoder.ok()) return encoder.status().WithContext("Parquet file " + writer->path_);
    writer->encoder_ = std::move(*encoder);
    return writer;
  }
  return CreateThroughDuckDB(db, std::move(writer));
}

Result<std::unique_ptr<ParquetFileWriter>> ParquetFileWriter::CreateThroughDuckDB(
    const DuckDB& db, std::unique_ptr<ParquetFileWriter> writer) {
  std::string create = std::string("CREATE TEMP TABLE ") + kTable + " (";
  for (size_t i = 0; i < writer->columns_.size(); ++i) {
    const ParquetColumnSpec& column = writer->columns_[i];
    for (size_t j = 0; j < i; ++j) {
      if (strcasecmp(writer->columns_[j].name.c_str(), column.name.c_str()) == 0) {
        return Status::NotSupported(
            "Parquet file {}: columns {} and {} differ only in case, which DuckDB cannot write (it renames one)",
            writer->path_, writer->columns_[j].name, column.name);
      }
    }
    TIDE_ASSIGN_OR_RETURN(DuckLogicalType type, ParquetStorageType(column.type, column.name));
    if (i > 0) create += ", ";
    create += "c" + std::to_string(i) + " " + type.ToString();
    writer->types_.push_back(std::move(type));
  }
  create += ")";
  TIDE_ASSIGN_OR_RETURN(writer->conn_, db.Connect());
  TIDE_RETURN_IF_ERROR(writer->conn_.Execute(create));
  TIDE_ASSIGN_OR_RETURN(writer->appender_, writer->conn_.CreateAppender(kTable, "main", "temp"));
  TIDE_RETURN_IF_ERROR(writer->NewChunk());
  return writer;
}

Status ParquetFileWriter::NewChunk() {
  std::vector<duckdb_logical_type> raw;
  raw.reserve(types_.size());
  for (const DuckLogicalType& t : types_) raw.push_back(t.raw());
  chunk_ = DuckDataChunk(duckdb_create_data_chunk(raw.data(), raw.size()));
  chunk_rows_ = 0;
  if (!chunk_) return Status::Internal("cannot create a DuckDB data chunk");
  return Status::OK();
}

Status ParquetFileWriter::FlushChunk() {
  if (chunk_rows_ == 0) return Status::OK();
  duckdb_data_chunk_set_size(chunk_.raw(), chunk_rows_);
  Status st = appender_.AppendChunk(chunk_);
  if (!st.ok()) return st.WithContext("Parquet file " + path_);
  return NewChunk();
}

Status ParquetFileWriter::Append(const Row& row) {
  if (finished_) return Status::InvalidArgument("Parquet file {}: append after Finish", path_);
  if (encoder_ != nullptr) {
    Status st = encoder_->Append(row);
    if (!st.ok()) return st.WithContext("Parquet file " + path_);
    ++row_count_;
    return Status::OK();
  }
  if (row.size() != columns_.size()) {
    return Status::InvalidArgument("Parquet file {}: a row has {} values but the file has {} columns", path_,
                                   row.size(), columns_.size());
  }
  for (size_t c = 0; c < columns_.size(); ++c) {
    Status st = EncodeDatum(chunk_.column(c), chunk_rows_, row[c], columns_[c].type, columns_[c].name);
    if (!st.ok()) return st.WithContext("Parquet file " + path_);
  }
  ++chunk_rows_;
  ++row_count_;
  if (chunk_rows_ == duckdb_vector_size()) TIDE_RETURN_IF_ERROR(FlushChunk());
  return Status::OK();
}

Status ParquetFileWriter::AppendColumns(const std::vector<const ColumnVector*>& columns, const uint32_t* rows,
                                        size_t n) {
  if (finished_) return Status::InvalidArgument("Parquet file {}: append after Finish", path_);
  if (encoder_ == nullptr) {
    return Status::NotSupported("Parquet file {}: columns are appended only by Tide's encoder", path_);
  }
  Status st = encoder_->AppendColumns(columns, rows, n);
  if (!st.ok()) return st.WithContext("Parquet file " + path_);
  row_count_ += static_cast<int64_t>(n);
  return Status::OK();
}

Status ParquetFileWriter::AppendRows(std::span<const Row> rows) {
  for (const Row& row : rows) TIDE_RETURN_IF_ERROR(Append(row));
  return Status::OK();
}

std::string ParquetFileWriter::FieldIdsOption() const {
  std::string out;
  for (const ParquetColumnSpec& column : columns_) {
    std::string entry = FieldIdEntry(column.type, column.field_id, column.field_id, 0);
    if (entry.empty()) continue;
    out += out.empty() ? "{" : ", ";
    out += QuoteSqlString(column.name) + ": " + entry;
  }
  return out.empty() ? out : out + "}";
}

Result<ParquetWriteResult> ParquetFileWriter::Finish() {
  if (finished_) return Status::InvalidArgument("Parquet file {}: Finish called twice", path_);
  finished_ = true;
  if (encoder_ != nullptr) return FinishEncoded();
  TIDE_RETURN_IF_ERROR(FlushChunk());
  Status closed = appender_.Close();
  if (!closed.ok()) return closed.WithContext("Parquet file " + path_);

  FileSystem* fs = FileSystem::Local();
  TIDE_ASSIGN_OR_RETURN(bool exists, fs->Exists(path_));
  if (exists) return Status::AlreadyExists("Parquet file {} already exists; data files are never replaced", path_);
  std::string dir(DirName(path_));
  if (!dir.empty()) TIDE_RETURN_IF_ERROR(fs->MakeDirs(dir));

  std::string select;
  for (size_t i = 0; i < columns_.size(); ++i) {
    if (i > 0) select += ", ";
    select += "c" + std::to_string(i) + " AS " + QuoteSqlIdentifier(columns_[i].name);
  }
  std::string options = "FORMAT parquet, COMPRESSION " + QuoteSqlString(options_.compression);
  if (options_.compression == "zstd") options += ", COMPRESSION_LEVEL " + std::to_string(options_.compression_level);
  options += ", ROW_GROUP_SIZE " + std::to_string(options_.row_group_rows);
  if (options_.write_field_ids) {
    std::string ids = FieldIdsOption();
    if (!ids.empty()) options += ", FIELD_IDS " + ids;
  }
  const std::string temp = path_ + TempSuffix();
  std::string sql = "COPY (SELECT " + select + " FROM " + kTable + ") TO " + QuoteSqlString(temp) + " (" + options + ")";
  Status copied = conn_.Execute(sql);
  if (!copied.ok()) {
    fs->DeleteFile(temp).IgnoreError();
    return copied.WithContext("writing Parquet file " + path_);
  }
  conn_.Execute(std::string("DROP TABLE ") + kTable).IgnoreError();
  Status synced = FsyncPath(temp, false);
  if (!synced.ok()) {
    fs->DeleteFile(temp).IgnoreError();
    return synced;
  }
  // The local file system's rename makes the new name durable (it fsyncs the folder).
  Status renamed = fs->RenameNoReplace(temp, path_);
  if (!renamed.ok()) {
    fs->DeleteFile(temp).IgnoreError();
    return renamed;
  }
  TIDE_ASSIGN_OR_RETURN(FileInfo info, fs->Stat(path_));
  return ParquetWriteResult{path_, row_count_, static_cast<int64_t>(info.size)};
}

Result<ParquetWriteResult> ParquetFileWriter::FinishEncoded() {
  Result<std::string> encoded = encoder_->Finish();
  encoder_.reset();
  if (!encoded.ok()) return encoded.status().WithContext("Parquet file " + path_);
  const std::string& bytes = *encoded;

  FileSystem* fs = FileSystem::Local();
  TIDE_ASSIGN_OR_RETURN(bool exists, fs->Exists(path_));
  if (exists) return Status::AlreadyExists("Parquet file {} already exists; data files are never replaced", path_);
  std::string dir(DirName(path_));
  if (!dir.empty()) TIDE_RETURN_IF_ERROR(fs->MakeDirs(dir));
  if (options_.write_in_place) {
    Status written = WriteNewFile(fs, path_, bytes);
    if (!written.ok()) return written.WithContext("writing Parquet file " + path_);
    return ParquetWriteResult{path_, row_count_, static_cast<int64_t>(bytes.size())};
  }
  const std::string temp = path_ + TempSuffix();
  auto write_temp = [&]() -> Status {
    TIDE_ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> file, fs->NewWritableFile(temp));
    TIDE_RETURN_IF_ERROR(file->Append(bytes));
    return file->Close();  // fsyncs
  };
  Status written = write_temp();
  if (!written.ok()) {
    fs->DeleteFile(temp).IgnoreError();
    return written.WithContext("writing Parquet file " + path_);
  }
  // The local file system's rename makes the new name durable (it fsyncs the folder).
  Status renamed = fs->RenameNoReplace(temp, path_);
  if (!renamed.ok()) {
    fs->DeleteFile(temp).IgnoreError();
    return renamed;
  }
  return ParquetWriteResult{path_, row_count_, static_cast<int64_t>(bytes.size())};
}

}  // namespace tide
