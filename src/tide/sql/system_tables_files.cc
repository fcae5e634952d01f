// The system tables of a table's files at one snapshot, as Paimon 2.0 defines them: `$files`
// (FilesTable), `$manifests` (ManifestsTable), `$partitions` (PartitionsTable), `$buckets`
// (BucketsTable), `$table_indexes` (TableIndexesTable). Each reads the latest snapshot, or the one
// snapshot_id / timestamp_ms / tag picks; a table without snapshots has no rows. Partitions are shown
// as Java shows them: `{v1, v2}` (its row-to-string cast) in $files, $buckets, $manifests and
// $table_indexes, `k1=v1/k2=v2` in $partitions. Thread-safety: as system_table.h.
#include <algorithm>
#include <map>

#include "tide/base/strings.h"
#include "tide/codec/binary_row.h"
#include "tide/sql/system_table.h"
#include "tide/table/io/file_store_path_factory.h"
#include "tide/table/manifest/manifest.h"
#include "tide/table/operation/file_store_scan.h"
#include "tide/table/schema/core_options.h"
#include "tide/table/schema/schema_manager.h"

namespace tide {

namespace {

// The table and its snapshot for one scan; `snapshot` is empty for a table without one.
struct SnapshotFiles {
  std::unique_ptr<Table> table;
  std::optional<Snapshot> snapshot;
  std::vector<DataField> partition_fields;
  std::vector<DataType> partition_types;
};

Result<SnapshotFiles> OpenSnapshot(const TableSource& source, const SystemTableQuery& q) {
  SnapshotFiles out;
  TIDE_ASSIGN_OR_RETURN(out.table, source.OpenTable(q.id));
  TIDE_ASSIGN_OR_RETURN(out.snapshot, ResolveSnapshot(*out.table, q.snapshot));
  out.partition_fields = PartitionFields(out.table->latest_schema());
  out.partition_types = TypesOf(out.partition_fields);
  return out;
}

// The live data files of the snapshot grouped by partition and bucket, sorted by (partition bytes,
// bucket). Unlike a read's plan this refuses no table feature (data evolution, row tracking, blob
// files): listing metadata needs none of them read.
Result<std::vector<DataSplit>> PlanFiles(const SnapshotFiles& files) {
  std::vector<DataSplit> out;
  if (!files.snapshot) return out;
  const Table& table = *files.table;
  FileStoreScan scan(table.fs(), table.path(), table.name(), table.latest_schema());
  TIDE_ASSIGN_OR_RETURN(std::vector<ManifestEntry> entries, scan.ReadLiveEntries(*files.snapshot));
  TIDE_ASSIGN_OR_RETURN(CoreOptions options, CoreOptions::Create(table.latest_schema(), table.name()));
  FileStorePathFactory paths(table.path(), table.latest_schema(), options);
  std::map<std::pair<std::string, int32_t>, DataSplit> splits;
  for (ManifestEntry& e : entries) {
    auto key = std::make_pair(e.partition, e.bucket);
    auto it = splits.find(key);
    if (it == splits.end()) {
      DataSplit split;
      split.partition = e.partition;
      TIDE_ASSIGN_OR_RETURN(split.partition_values, DeserializeBinaryRow(e.partition, files.partition_types));
      split.bucket = e.bucket;
      split.total_buckets = e.total_buckets;
      TIDE_ASSIGN_OR_RETURN(std::string partition_path, paths.PartitionPath(split.partition_values));
      split.bucket_path = FileStorePathFactory::BucketPath(partition_path, e.bucket);
      it = splits.emplace(key, std::move(split)).first;
    }
    it->second.files.push_back(std::move(e.file));
  }
  for (auto& [key, split] : splits) out.push_back(std::move(split));
  return out;
}

// Where a data file is, as Java's FilesTable shows it: its external path as stored, else its bucket
// folder's file.
std::string DataFilePath(const DataSplit& split, const DataFileMeta& file) {
  if (file.external_path) return *file.external_path;
  return split.bucket_path + "/" + file.file_name;
}

// A serialized partition row as `{v1, v2}`; "{}" for an empty row.
Result<std::string> SerializedPartitionText(const std::string& serialized, const std::vector<DataType>& types) {
  TIDE_ASSIGN_OR_RETURN(SerializedBinaryRow split, SplitSerializedBinaryRow(serialized));
  if (split.arity == 0) return std::string("{}");
  TIDE_ASSIGN_OR_RETURN(Row values, DeserializeBinaryRow(serialized, types));
  return PartitionRowText(values, types);
}

// A data file's schema, read once per scan.
class SchemaCache {
 public:
  explicit SchemaCache(const Table& table) : schemas_(table.fs(), table.path()) {}
  Result<const TableSchema*> Get(int64_t id) {
    auto it = cache_.find(id);
    if (it == cache_.end()) {
      TIDE_ASSIGN_OR_RETURN(TableSchema schema, schemas_.Get(id));
      it = cache_.emplace(id, std::move(schema)).first;
    }
    return &it->second;
  }

 private:
  SchemaManager schemas_;
  std::map<int64_t, TableSchema> cache_;
};

// A key row (min_key / max_key) as Java's Arrays.toString of its values: `[1, x]`; NULL when the file
// has no key (append tables).
Result<Datum> KeyText(const std::string& serialized, const TableSchema& file_schema) {
  if (serialized.empty()) return Datum();
  TIDE_ASSIGN_OR_RETURN(SerializedBinaryRow split, SplitSerializedBinaryRow(serialized));
  if (split.arity <= 0) return Datum();
  std::vector<DataField> key_fields;
  for (const std::string& key : file_schema.TrimmedPrimaryKeys()) {
    int index = file_schema.FieldIndex(key);
    if (index >= 0) key_fields.push_back(file_schema.fields[static_cast<size_t>(index)]);
  }
  if (key_fields.empty()) key_fields = file_schema.fields;
  std::vector<DataType> types = TypesOf(key_fields);
  TIDE_ASSIGN_OR_RETURN(Row values, DeserializeBinaryRow(serialized, types));
  std::vector<std::string> parts;
  for (size_t i = 0; i < values.size(); ++i) parts.push_back(JavaInternalText(values[i], types[i]));
  return Datum("[" + Join(parts, ", ") + "]");
}

// The value statistics of a file as Java's FilesTable shows them: three maps `{name=value, ...}` over
// the table's current columns, sorted by name (a TreeMap), each column found in the file's statistics
// by field id.
struct StatsText {
  std::string null_counts = "{}";
  std::string mins = "{}";
  std::string maxs = "{}";
};

Result<StatsText> ValueStatsText(const DataFileMeta& file, const TableSchema& file_schema,
                                 const TableSchema& table_schema) {
  StatsText out;
  const SimpleStats& stats = file.value_stats;
  if (stats.min_values.empty()) return out;
  TIDE_ASSIGN_OR_RETURN(SerializedBinaryRow split, SplitSerializedBinaryRow(stats.min_values));
  if (split.arity <= 0) return out;
  // The columns the statistics cover: `valueStatsCols` when the file names them (dense statistics),
  // else the columns the file holds (`writeCols`, data evolution), else every column of its schema.
  std::vector<DataField> stats_fields;
  const std::optional<std::vector<std::string>>& named = file.value_stats_cols ? file.value_stats_cols : file.write_cols;
  if (named) {
    for (const std::string& name : *named) {
      int index = file_schema.FieldIndex(name);
      if (index < 0) return Status::Corruption("data file {} has statistics for an unknown column '{}'", file.file_name, name);
      stats_fields.push_back(file_schema.fields[static_cast<size_t>(index)]);
    }
  } else {
    stats_fields = file_schema.fields;
  }
  std::vector<DataType> types = TypesOf(stats_fields);
  TIDE_ASSIGN_OR_RETURN(Row mins, DeserializeBinaryRow(stats.min_values, types));
  TIDE_ASSIGN_OR_RETURN(Row maxs, DeserializeBinaryRow(stats.max_values, types));
  std::map<std::string, std::string> null_counts, lower, upper;
  for (const DataField& field : table_schema.fields) {
    int at = -1;
    for (size_t i = 0; i < stats_fields.size(); ++i) {
      if (stats_fields[i].id == field.id) at = static_cast<int>(i);
    }
    if (at < 0) {
      null_counts[field.name] = "null";
      lower[field.name] = "null";
      upper[field.name] = "null";
      continue;
    }
    size_t i = static_cast<size_t>(at);
    std::optional<int64_t> nulls = i < stats.null_counts.size() ? stats.null_counts[i] : std::nullopt;
    null_counts[field.name] = nulls ? std::to_string(*nulls) : "null";
    lower[field.name] = JavaInternalText(mins[i], stats_fields[i].type);
    upper[field.name] = JavaInternalText(maxs[i], stats_fields[i].type);
  }
  auto map_text = [](const std::map<std::string, std::string>& m) {
    std::vector<std::string> parts;
    for (const auto& [k, v] : m) parts.push_back(k + "=" + v);
    return "{" + Join(parts, ", ") + "}";
  };
  out.null_counts = map_text(null_counts);
  out.mins = map_text(lower);
  out.maxs = map_text(upper);
  return out;
}

// `data-....parquet` -> `parquet` (Java's DataFilePathFactory.formatIdentifier).
std::string FileFormatOf(const std::string& file_name) {
  size_t dot = file_name.rfind('.');
  return dot == std::string::npos ? "" : file_name.substr(dot + 1);
}

SystemTable FilesTable() {
  SystemTable t;
  t.name = "files";
  t.function = "paimon_files";
  t.time_travel = true;
  t.columns = {SystemColumn(0, "partition", DataType::String()),
               SystemColumn(1, "bucket", DataType::Int(false)),
               SystemColumn(2, "file_path", DataType::String(false)),
               SystemColumn(3, "file_format", DataType::String(false)),
               SystemColumn(4, "schema_id", DataType::BigInt(false)),
               SystemColumn(5, "level", DataType::Int(false)),
               SystemColumn(6, "record_count", DataType::BigInt(false)),
               SystemColumn(7, "file_size_in_bytes", DataType::BigInt(false)),
               SystemColumn(8, "min_key", DataType::String()),
               SystemColumn(9, "max_key", DataType::String()),
               SystemColumn(10, "null_value_counts", DataType::String(false)),
               SystemColumn(11, "min_value_stats", DataType::String(false)),
               SystemColumn(12, "max_value_stats", DataType::String(false)),
               SystemColumn(13, "min_sequence_number", DataType::BigInt()),
               SystemColumn(14, "max_sequence_number", DataType::BigInt()),
               SystemColumn(15, "creation_time", DataType::Timestamp(3)),
               SystemColumn(16, "deleteRowCount", DataType::BigInt()),
               SystemColumn(17, "file_source", DataType::String()),
               SystemColumn(18, "first_row_id", DataType::BigInt()),
               SystemColumn(19, "write_cols", DataType::Array(DataType::String()))};
  t.rows = [](const TableSource& source, const SystemTableQuery& q) -> Result<std::vector<Row>> {
    TIDE_ASSIGN_OR_RETURN(SnapshotFiles files, OpenSnapshot(source, q));
    TIDE_ASSIGN_OR_RETURN(std::vector<DataSplit> splits, PlanFiles(files));
    SchemaCache schemas(*files.table);
    const TableSchema& table_schema = files.table->latest_schema();
    std::vector<Row> rows;
    for (const DataSplit& split : splits) {
      std::string partition = PartitionRowText(split.partition_values, files.partition_types);
      for (const DataFileMeta& file : split.files) {
        TIDE_ASSIGN_OR_RETURN(const TableSchema* file_schema, schemas.Get(file.schema_id));
        TIDE_ASSIGN_OR_RETURN(Datum min_key, KeyText(file.min_key, *file_schema));
        TIDE_ASSIGN_OR_RETURN(Datum max_key, KeyText(file.max_key, *file_schema));
        TIDE_ASSIGN_OR_RETURN(StatsText stats, ValueStatsText(file, *file_schema, table_schema));
        Datum source_kind;
        if (file.file_source) source_kind = Datum(std::string(*file.file_source == 0 ? "APPEND" : "COMPACT"));
        Datum write_cols;
        if (file.write_cols) {
          std::vector<Datum> names(file.write_cols->begin(), file.write_cols->end());
          write_cols = Datum::Nested(std::move(names));
        }
        rows.push_back(Row{Datum(partition), Datum(int64_t{split.bucket}), Datum(DataFilePath(split, file)),
                           Datum(FileFormatOf(file.file_name)), Datum(file.schema_id), Datum(int64_t{file.level}),
                           Datum(file.row_count), Datum(file.file_size), min_key, max_key, Datum(stats.null_counts),
                           Datum(stats.mins), Datum(stats.maxs), Datum(file.min_sequence_number),
                           Datum(file.max_sequence_number),
                           file.creation_time_ms ? WallClockTimestamp(*file.creation_time_ms) : Datum(),
                           OptionalInt(file.delete_row_count), source_kind, OptionalInt(file.first_row_id),
                           write_cols});
      }
    }
    return rows;
  };
  return t;
}

SystemTable ManifestsTable() {
  SystemTable t;
  t.name = "manifests";
  t.function = "paimon_manifests";
  t.time_travel = true;
  t.columns = {SystemColumn(0, "file_name", DataType::String(false)),
               SystemColumn(1, "file_size", DataType::BigInt(false)),
               SystemColumn(2, "num_added_files", DataType::BigInt(false)),
               SystemColumn(3, "num_deleted_files", DataType::BigInt(false)),
               SystemColumn(4, "schema_id", DataType::BigInt(false)),
               SystemColumn(5, "min_partition_stats", DataType::String()),
               SystemColumn(6, "max_partition_stats", DataType::String()),
               SystemColumn(7, "min_row_id", DataType::BigInt()),
               SystemColumn(8, "max_row_id", DataType::BigInt())};
  t.rows = [](const TableSource& source, const SystemTableQuery& q) -> Result<std::vector<Row>> {
    TIDE_ASSIGN_OR_RETURN(SnapshotFiles files, OpenSnapshot(source, q));
    std::vector<Row> rows;
    if (!files.snapshot) return rows;
    FileStoreScan scan(files.table->fs(), files.table->path(), files.table->name(), files.table->latest_schema());
    // Java's ManifestList.readAllManifests: the data manifests (base, then delta), then the changelog's.
    std::vector<std::string> lists = {files.snapshot->base_manifest_list, files.snapshot->delta_manifest_list};
    if (files.snapshot->changelog_manifest_list) lists.push_back(*files.snapshot->changelog_manifest_list);
    for (const std::string& list : lists) {
      if (list.empty()) continue;
      TIDE_ASSIGN_OR_RETURN(std::vector<ManifestFileMeta> metas,
                            ReadManifestList(files.table->fs(), scan.ManifestPath(list)));
      for (const ManifestFileMeta& m : metas) {
        auto stats_text = [&](const std::string& row) -> Result<Datum> {
          if (row.empty()) return Datum();
          TIDE_ASSIGN_OR_RETURN(std::string text, SerializedPartitionText(row, files.partition_types));
          return Datum(text);
        };
        TIDE_ASSIGN_OR_RETURN(Datum min_partition, stats_text(m.partition_stats.min_values));
        TIDE_ASSIGN_OR_RETURN(Datum max_partition, stats_text(m.partition_stats.max_values));
        rows.push_back(Row{Datum(m.file_name), Datum(m.file_size), Datum(m.num_added_files),
                           Datum(m.num_deleted_files), Datum(m.schema_id), min_partition, max_partition,
                           OptionalInt(m.min_row_id), OptionalInt(m.max_row_id)});
      }
    }
    return rows;
  };
  return t;
}

// What the files of one partition, or one bucket, add up to.
struct FileTotals {
  Row partition_values;
  int32_t total_buckets = 0;
  int64_t record_count = 0;
  int64_t file_size = 0;
  int64_t file_count = 0;
  int64_t last_creation_ms = 0;  // local wall clock, as the files store it

  void Add(const DataSplit& split) {
    total_buckets = split.total_buckets;
    for (const DataFileMeta& f : split.files) {
      record_count += f.row_count;
      file_size += f.file_size;
      ++file_count;
      last_creation_ms = std::max(last_creation_ms, f.creation_time_ms.value_or(0));
    }
  }
};

SystemTable PartitionsTable() {
  SystemTable t;
  t.name = "partitions";
  t.function = "paimon_partitions";
  t.time_travel = true;
  t.columns = {SystemColumn(0, "partition", DataType::String()),
               SystemColumn(1, "record_count", DataType::BigInt(false)),
               SystemColumn(2, "file_size_in_bytes", DataType::BigInt(false)),
               SystemColumn(3, "file_count", DataType::BigInt(false)),
               SystemColumn(4, "last_update_time", DataType::Timestamp(3)),
               SystemColumn(5, "created_at", DataType::Timestamp(3)),
               SystemColumn(6, "created_by", DataType::String()),
               SystemColumn(7, "updated_by", DataType::String()),
               SystemColumn(8, "options", DataType::String()),
               SystemColumn(9, "total_buckets", DataType::Int(false)),
               SystemColumn(10, "done", DataType::Boolean(false)),
               SystemColumn(11, "deleted_record_count", DataType::BigInt())};
  t.rows = [](const TableSource& source, const SystemTableQuery& q) -> Result<std::vector<Row>> {
    TIDE_ASSIGN_OR_RETURN(SnapshotFiles files, OpenSnapshot(source, q));
    TIDE_ASSIGN_OR_RETURN(std::vector<DataSplit> splits, PlanFiles(files));
    TIDE_ASSIGN_OR_RETURN(CoreOptions core, CoreOptions::Create(files.table->latest_schema(), files.table->name()));
    std::map<std::string, FileTotals> by_partition;  // by serialized partition
    for (const DataSplit& split : splits) {
      FileTotals& totals = by_partition[split.partition];
      totals.partition_values = split.partition_values;
      totals.Add(split);
    }
    // Rows deleted by deletion vectors, per partition: the vectors' cardinalities (NULL when one is
    // unknown); 0 for a table without deletion vectors.
    std::map<std::string, std::optional<int64_t>> deleted;
    if (core.deletion_vectors_enabled() && files.snapshot && files.snapshot->index_manifest) {
      FileStoreScan scan(files.table->fs(), files.table->path(), files.table->name(), files.table->latest_schema());
      TIDE_ASSIGN_OR_RETURN(std::vector<IndexManifestEntry> entries,
                            ReadIndexManifest(files.table->fs(), scan.ManifestPath(*files.snapshot->index_manifest)));
      for (const IndexManifestEntry& e : entries) {
        if (e.kind != FileKind::kAdd || e.index_type != "DELETION_VECTORS" || !e.deletion_vectors) continue;
        auto it = deleted.emplace(e.partition, int64_t{0}).first;
        for (const DeletionVectorMeta& dv : *e.deletion_vectors) {
          if (!it->second) break;
          if (!dv.cardinality) {
            it->second.reset();
            break;
          }
          *it->second += *dv.cardinality;
        }
      }
    }
    std::vector<std::pair<std::string, Row>> rows;
    for (const auto& [partition, totals] : by_partition) {
      std::string spec = PartitionSpecText(totals.partition_values, files.partition_fields, core.partition_default_name());
      Datum deleted_count(int64_t{0});
      if (auto it = deleted.find(partition); it != deleted.end()) deleted_count = OptionalInt(it->second);
      rows.emplace_back(spec, Row{Datum(spec), Datum(totals.record_count), Datum(totals.file_size),
                                  Datum(totals.file_count), WallClockTimestamp(totals.last_creation_ms), Datum(),
                                  Datum(), Datum(), Datum(), Datum(int64_t{totals.total_buckets}), Datum(false),
                                  deleted_count});
    }
    // Java sorts the rows by the partition text.
    std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<Row> out;
    for (auto& [spec, row] : rows) out.push_back(std::move(row));
    return out;
  };
  return t;
}

SystemTable BucketsTable() {
  SystemTable t;
  t.name = "buckets";
  t.function = "paimon_buckets";
  t.time_travel = true;
  t.columns = {SystemColumn(0, "partition", DataType::String()),
               SystemColumn(1, "bucket", DataType::Int(false)),
               SystemColumn(2, "record_count", DataType::BigInt(false)),
               SystemColumn(3, "file_size_in_bytes", DataType::BigInt(false)),
               SystemColumn(4, "file_count", DataType::BigInt(false)),
               SystemColumn(5, "last_update_time", DataType::Timestamp(3))};
  t.rows = [](const TableSource& source, const SystemTableQuery& q) -> Result<std::vector<Row>> {
    TIDE_ASSIGN_OR_RETURN(SnapshotFiles files, OpenSnapshot(source, q));
    TIDE_ASSIGN_OR_RETURN(std::vector<DataSplit> splits, PlanFiles(files));
    struct Keyed {
      std::string partition;
      int32_t bucket;
      Row row;
    };
    std::vector<Keyed> rows;
    for (const DataSplit& split : splits) {
      FileTotals totals;
      totals.Add(split);
      std::string partition = PartitionRowText(split.partition_values, files.partition_types);
      rows.push_back(Keyed{partition, split.bucket,
                           Row{Datum(partition), Datum(int64_t{split.bucket}), Datum(totals.record_count),
                               Datum(totals.file_size), Datum(totals.file_count),
                               WallClockTimestamp(totals.last_creation_ms)}});
    }
    // Java sorts by the partition text, then the bucket.
    std::stable_sort(rows.begin(), rows.end(), [](const Keyed& a, const Keyed& b) {
      return a.partition != b.partition ? a.partition < b.partition : a.bucket < b.bucket;
    });
    std::vector<Row> out;
    for (Keyed& k : rows) out.push_back(std::move(k.row));
    return out;
  };
  return t;
}

SystemTable TableIndexesTable() {
  SystemTable t;
  t.name = "table_indexes";
  t.function = "paimon_table_indexes";
  t.time_travel = true;
  DataType dv_range = DataType::Row({SystemColumn(0, "f0", DataType::String(false)),
                                     SystemColumn(1, "f1", DataType::Int(false)),
                                     SystemColumn(2, "f2", DataType::Int(false)),
                                     SystemColumn(3, "_CARDINALITY", DataType::BigInt())});
  t.columns = {SystemColumn(0, "partition", DataType::String()),
               SystemColumn(1, "bucket", DataType::Int(false)),
               SystemColumn(2, "index_type", DataType::String(false)),
               SystemColumn(3, "file_name", DataType::String(false)),
               SystemColumn(4, "file_size", DataType::BigInt(false)),
               SystemColumn(5, "row_count", DataType::BigInt(false)),
               SystemColumn(6, "dv_ranges", DataType::Array(dv_range)),
               SystemColumn(7, "row_range_start", DataType::BigInt()),
               SystemColumn(8, "row_range_end", DataType::BigInt()),
               SystemColumn(9, "index_field_id", DataType::Int()),
               SystemColumn(10, "index_field_name", DataType::String())};
  t.rows = [](const TableSource& source, const SystemTableQuery& q) -> Result<std::vector<Row>> {
    TIDE_ASSIGN_OR_RETURN(SnapshotFiles files, OpenSnapshot(source, q));
    std::vector<Row> rows;
    if (!files.snapshot || !files.snapshot->index_manifest) return rows;
    FileStoreScan scan(files.table->fs(), files.table->path(), files.table->name(), files.table->latest_schema());
    TIDE_ASSIGN_OR_RETURN(std::vector<IndexManifestEntry> entries,
                          ReadIndexManifest(files.table->fs(), scan.ManifestPath(*files.snapshot->index_manifest)));
    for (const IndexManifestEntry& e : entries) {
      TIDE_ASSIGN_OR_RETURN(std::string partition, SerializedPartitionText(e.partition, files.partition_types));
      Datum ranges;
      if (e.deletion_vectors) {
        std::vector<Datum> items;
        for (const DeletionVectorMeta& dv : *e.deletion_vectors) {
          items.push_back(Datum::Nested({Datum(dv.data_file_name), Datum(int64_t{dv.offset}),
                                         Datum(int64_t{dv.length}), OptionalInt(dv.cardinality)}));
        }
        ranges = Datum::Nested(std::move(items));
      }
      // The global-index fields (row range, indexed field) are not read by Tide yet: NULL.
      rows.push_back(Row{Datum(partition), Datum(int64_t{e.bucket}), Datum(e.index_type), Datum(e.file_name),
                         Datum(e.file_size), Datum(e.row_count), ranges, Datum(), Datum(), Datum(), Datum()});
    }
    return rows;
  };
  return t;
}

}  // namespace

std::vector<SystemTable> FileSystemTables() {
  return {FilesTable(), ManifestsTable(), PartitionsTable(), BucketsTable(), TableIndexesTable()};
}

}  // namespace tide
