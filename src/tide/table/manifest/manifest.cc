#include "tide/table/manifest/manifest.h"

#include "tide/codec/avro_reader.h"

namespace tide {
namespace {

// Opens an Avro manifest-like file, refusing other formats by their magic bytes.
Result<std::unique_ptr<AvroReader>> OpenManifestFile(FileSystem* fs, const std::string& path) {
  TIDE_ASSIGN_OR_RETURN(std::string data, fs->ReadFile(path));
  if (data.size() >= 3 && data.compare(0, 3, "ORC") == 0) {
    return Status::NotSupported(
        "manifest file {} is ORC (table option manifest.format=orc): Tide reads Avro manifests only; "
        "rewrite the table's metadata with manifest.format=avro",
        path);
  }
  if (data.size() >= 4 && data.compare(0, 4, "PAR1") == 0) {
    return Status::NotSupported(
        "manifest file {} is Parquet (table option manifest.format=parquet): Tide reads Avro manifests only", path);
  }
  return AvroReader::Open(std::move(data), path);
}

Result<SimpleStats> DecodeStats(const AvroValue& record) {
  SimpleStats s;
  TIDE_ASSIGN_OR_RETURN(auto min, record.GetBytes("_MIN_VALUES"));
  TIDE_ASSIGN_OR_RETURN(auto max, record.GetBytes("_MAX_VALUES"));
  s.min_values = std::string(min);
  s.max_values = std::string(max);
  TIDE_ASSIGN_OR_RETURN(auto nulls, record.GetOptionalArray("_NULL_COUNTS"));
  if (nulls) {
    s.null_counts_present = true;
    for (const auto& n : *nulls) {
      if (n.is_null()) {
        s.null_counts.emplace_back();
      } else {
        TIDE_ASSIGN_OR_RETURN(int64_t v, n.AsLong());
        s.null_counts.emplace_back(v);
      }
    }
  }
  return s;
}

Result<std::optional<std::vector<std::string>>> OptionalStringArray(const AvroValue& record, std::string_view name) {
  TIDE_ASSIGN_OR_RETURN(auto arr, record.GetOptionalArray(name));
  if (!arr) return std::optional<std::vector<std::string>>();
  std::vector<std::string> out;
  for (const auto& v : *arr) {
    TIDE_ASSIGN_OR_RETURN(auto s, v.AsString());
    out.emplace_back(s);
  }
  return std::optional<std::vector<std::string>>(std::move(out));
}

Result<DataFileMeta> DecodeDataFileMeta(const AvroValue& f) {
  DataFileMeta m;
  TIDE_ASSIGN_OR_RETURN(auto name, f.GetString("_FILE_NAME"));
  m.file_name = std::string(name);
  TIDE_ASSIGN_OR_RETURN(m.file_size, f.GetLong("_FILE_SIZE"));
  TIDE_ASSIGN_OR_RETURN(m.row_count, f.GetLong("_ROW_COUNT"));
  TIDE_ASSIGN_OR_RETURN(auto min_key, f.GetBytes("_MIN_KEY"));
  TIDE_ASSIGN_OR_RETURN(auto max_key, f.GetBytes("_MAX_KEY"));
  m.min_key = std::string(min_key);
  m.max_key = std::string(max_key);
  TIDE_ASSIGN_OR_RETURN(const AvroValue* key_stats, f.GetRecord("_KEY_STATS"));
  TIDE_ASSIGN_OR_RETURN(m.key_stats, DecodeStats(*key_stats));
  TIDE_ASSIGN_OR_RETURN(const AvroValue* value_stats, f.GetRecord("_VALUE_STATS"));
  TIDE_ASSIGN_OR_RETURN(m.value_stats, DecodeStats(*value_stats));
  TIDE_ASSIGN_OR_RETURN(m.min_sequence_number, f.GetLong("_MIN_SEQUENCE_NUMBER"));
  TIDE_ASSIGN_OR_RETURN(m.max_sequence_number, f.GetLong("_MAX_SEQUENCE_NUMBER"));
  TIDE_ASSIGN_OR_RETURN(m.schema_id, f.GetLong("_SCHEMA_ID"));
  TIDE_ASSIGN_OR_RETURN(m.level, f.GetInt("_LEVEL"));
  TIDE_ASSIGN_OR_RETURN(auto extra, OptionalStringArray(f, "_EXTRA_FILES"));
  if (extra) m.extra_files = std::move(*extra);
  TIDE_ASSIGN_OR_RETURN(m.creation_time_ms, f.GetOptionalLong("_CREATION_TIME"));
  TIDE_ASSIGN_OR_RETURN(m.delete_row_count, f.GetOptionalLong("_DELETE_ROW_COUNT"));
  TIDE_ASSIGN_OR_RETURN(auto index, f.GetOptionalBytes("_EMBEDDED_FILE_INDEX"));
  if (index) m.embedded_file_index = std::string(*index);
  TIDE_ASSIGN_OR_RETURN(m.file_source, f.GetOptionalInt("_FILE_SOURCE"));
  TIDE_ASSIGN_OR_RETURN(m.value_stats_cols, OptionalStringArray(f, "_VALUE_STATS_COLS"));
  TIDE_ASSIGN_OR_RETURN(auto ext, f.GetOptionalString("_EXTERNAL_PATH"));
  if (ext) m.external_path = std::string(*ext);
  TIDE_ASSIGN_OR_RETURN(m.first_row_id, f.GetOptionalLong("_FIRST_ROW_ID"));
  TIDE_ASSIGN_OR_RETURN(m.write_cols, OptionalStringArray(f, "_WRITE_COLS"));
  return m;
}

Status CheckVersion(const AvroValue& record, int32_t expected, const std::string& path) {
  TIDE_ASSIGN_OR_RETURN(int32_t version, record.GetInt("_VERSION"));
  if (version != expected) {
    return Status::NotSupported("{}: record version {} (expected {}); the table was written by an unsupported Paimon version",
                                path, version, expected);
  }
  return Status::OK();
}

}  // namespace

Result<std::vector<ManifestFileMeta>> ReadManifestList(FileSystem* fs, const std::string& path) {
  TIDE_ASSIGN_OR_RETURN(auto reader, OpenManifestFile(fs, path));
  std::vector<ManifestFileMeta> out;
  AvroValue v;
  while (true) {
    TIDE_ASSIGN_OR_RETURN(bool more, reader->Next(&v));
    if (!more) break;
    auto decode = [&]() -> Status {
      TIDE_RETURN_IF_ERROR(CheckVersion(v, 2, path));
      ManifestFileMeta m;
      TIDE_ASSIGN_OR_RETURN(auto name, v.GetString("_FILE_NAME"));
      m.file_name = std::string(name);
      TIDE_ASSIGN_OR_RETURN(m.file_size, v.GetLong("_FILE_SIZE"));
      TIDE_ASSIGN_OR_RETURN(m.num_added_files, v.GetLong("_NUM_ADDED_FILES"));
      TIDE_ASSIGN_OR_RETURN(m.num_deleted_files, v.GetLong("_NUM_DELETED_FILES"));
      TIDE_ASSIGN_OR_RETURN(const AvroValue* stats, v.GetRecord("_PARTITION_STATS"));
      TIDE_ASSIGN_OR_RETURN(m.partition_stats, DecodeStats(*stats));
      TIDE_ASSIGN_OR_RETURN(m.schema_id, v.GetLong("_SCHEMA_ID"));
      TIDE_ASSIGN_OR_RETURN(m.min_bucket, v.GetOptionalInt("_MIN_BUCKET"));
      TIDE_ASSIGN_OR_RETURN(m.max_bucket, v.GetOptionalInt("_MAX_BUCKET"));
      TIDE_ASSIGN_OR_RETURN(m.min_level, v.GetOptionalInt("_MIN_LEVEL"));
      TIDE_ASSIGN_OR_RETURN(m.max_level, v.GetOptionalInt("_MAX_LEVEL"));
      TIDE_ASSIGN_OR_RETURN(m.min_row_id, v.GetOptionalLong("_MIN_ROW_ID"));
      TIDE_ASSIGN_OR_RETURN(m.max_row_id, v.GetOptionalLong("_MAX_ROW_ID"));
      out.push_back(std::move(m));
      return Status::OK();
    };
    Status s = decode();
    if (!s.ok()) return s.WithContext(fmt::format("manifest list {}", path));
  }
  return out;
}

Result<std::vector<ManifestEntry>> ReadManifest(FileSystem* fs, const std::string& path) {
  TIDE_ASSIGN_OR_RETURN(auto reader, OpenManifestFile(fs, path));
  std::vector<ManifestEntry> out;
  AvroValue v;
  while (true) {
    TIDE_ASSIGN_OR_RETURN(bool more, reader->Next(&v));
    if (!more) break;
    auto decode = [&]() -> Status {
      TIDE_RETURN_IF_ERROR(CheckVersion(v, 2, path));
      ManifestEntry e;
      TIDE_ASSIGN_OR_RETURN(int32_t kind, v.GetInt("_KIND"));
      if (kind != 0 && kind != 1) return Status::Corruption("unknown _KIND {}", kind);
      e.kind = static_cast<FileKind>(kind);
      TIDE_ASSIGN_OR_RETURN(auto partition, v.GetBytes("_PARTITION"));
      e.partition = std::string(partition);
      TIDE_ASSIGN_OR_RETURN(e.bucket, v.GetInt("_BUCKET"));
      TIDE_ASSIGN_OR_RETURN(e.total_buckets, v.GetInt("_TOTAL_BUCKETS"));
      TIDE_ASSIGN_OR_RETURN(const AvroValue* file, v.GetRecord("_FILE"));
      TIDE_ASSIGN_OR_RETURN(e.file, DecodeDataFileMeta(*file));
      out.push_back(std::move(e));
      return Status::OK();
    };
    Status s = decode();
    if (!s.ok()) return s.WithContext(fmt::format("manifest {}", path));
  }
  return out;
}

Result<std::vector<IndexManifestEntry>> ReadIndexManifest(FileSystem* fs, const std::string& path) {
  TIDE_ASSIGN_OR_RETURN(auto reader, OpenManifestFile(fs, path));
  std::vector<IndexManifestEntry> out;
  AvroValue v;
  while (true) {
    TIDE_ASSIGN_OR_RETURN(bool more, reader->Next(&v));
    if (!more) break;
    auto decode = [&]() -> Status {
      TIDE_RETURN_IF_ERROR(CheckVersion(v, 1, path));
      IndexManifestEntry e;
      TIDE_ASSIGN_OR_RETURN(int32_t kind, v.GetInt("_KIND"));
      if (kind != 0 && kind != 1) return Status::Corruption("unknown _KIND {}", kind);
      e.kind = static_cast<FileKind>(kind);
      TIDE_ASSIGN_OR_RETURN(auto partition, v.GetBytes("_PARTITION"));
      e.partition = std::string(partition);
      TIDE_ASSIGN_OR_RETURN(e.bucket, v.GetInt("_BUCKET"));
      TIDE_ASSIGN_OR_RETURN(auto type, v.GetString("_INDEX_TYPE"));
      e.index_type = std::string(type);
      TIDE_ASSIGN_OR_RETURN(auto name, v.GetString("_FILE_NAME"));
      e.file_name = std::string(name);
      TIDE_ASSIGN_OR_RETURN(e.file_size, v.GetLong("_FILE_SIZE"));
      TIDE_ASSIGN_OR_RETURN(e.row_count, v.GetLong("_ROW_COUNT"));
      TIDE_ASSIGN_OR_RETURN(auto ranges, v.GetOptionalArray("_DELETIONS_VECTORS_RANGES"));
      if (ranges) {
        std::vector<DeletionVectorMeta> dvs;
        for (const auto& r : *ranges) {
          if (r.is_null()) continue;
          DeletionVectorMeta d;
          TIDE_ASSIGN_OR_RETURN(auto f0, r.GetString("f0"));
          d.data_file_name = std::string(f0);
          TIDE_ASSIGN_OR_RETURN(d.offset, r.GetInt("f1"));
          TIDE_ASSIGN_OR_RETURN(d.length, r.GetInt("f2"));
          TIDE_ASSIGN_OR_RETURN(d.cardinality, r.GetOptionalLong("_CARDINALITY"));
          dvs.push_back(std::move(d));
        }
        e.deletion_vectors = std::move(dvs);
      }
      TIDE_ASSIGN_OR_RETURN(auto ext, v.GetOptionalString("_EXTERNAL_PATH"));
      if (ext) e.external_path = std::string(*ext);
      TIDE_ASSIGN_OR_RETURN(const AvroValue* global, v.GetOptionalRecord("_GLOBAL_INDEX"));
      e.has_global_index = global != nullptr;
      out.push_back(std::move(e));
      return Status::OK();
    };
    Status s = decode();
    if (!s.ok()) return s.WithContext(fmt::format("index manifest {}", path));
  }
  return out;
}

}  // namespace tide
