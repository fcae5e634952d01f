#include "tide/table/crosspartition/index_bootstrap.h"

#include "tide/codec/binary_row.h"
#include "tide/table/operation/file_store_scan.h"
#include "tide/table/snapshot/snapshot_manager.h"
#include "tide/table/source/snapshot_table_reader.h"

namespace tide {

Status BootstrapGlobalIndex(FileSystem* fs, const std::string& table_path, const std::string& table_name,
                            const TableSchema& schema, GlobalIndexAssigner* assigner,
                            const std::function<void()>& tick) {
  auto context = [&](Status s) { return s.WithContext("table " + table_name + ", loading the cross-partition key index"); };
  SnapshotManager snapshots(fs, table_path);
  auto latest = snapshots.LatestId();
  if (!latest.ok()) return context(latest.status());
  if (!*latest) return assigner->EndBootstrap();
  auto snapshot = snapshots.Get(**latest);
  if (!snapshot.ok()) return context(snapshot.status());
  FileStoreScan scan(fs, table_path, table_name, schema);
  auto splits = scan.Plan(*snapshot);
  if (!splits.ok()) return context(splits.status());

  std::vector<int> key_indices;
  std::vector<DataField> key_fields;
  for (const std::string& key : schema.primary_keys) {
    int idx = schema.FieldIndex(key);
    if (idx < 0) return Status::InvalidArgument("table {}: primary key {} is not a column", table_name, key);
    key_indices.push_back(idx);
    key_fields.push_back(schema.fields[static_cast<size_t>(idx)]);
  }
  BinaryRowWriter key_writer(FieldTypes(key_fields));
  std::string key;
  std::vector<Row> rows;
  for (DataSplit& split : *splits) {
    const std::string partition = split.partition;
    const int32_t bucket = split.bucket;
    TableReadContext read;
    read.fs = fs;
    read.metadata_path = table_path;
    read.table_name = table_name;
    read.read_schema = schema;
    read.projection = key_indices;
    std::vector<DataSplit> one;
    one.push_back(std::move(split));
    auto reader = CreateSnapshotTableReader(std::move(read), std::move(one));
    if (!reader.ok()) return context(reader.status());
    while (true) {
      rows.clear();
      auto more = (*reader)->NextBatch(4096, &rows);
      if (!more.ok()) return context(more.status());
      for (const Row& row : rows) {
        TIDE_RETURN_IF_ERROR(key_writer.Write(row, &key));
        TIDE_RETURN_IF_ERROR(assigner->BootstrapKey(key, partition, bucket, [&] { return RowToString(row, key_fields); }));
      }
      if (tick) tick();
      if (!*more) break;
    }
  }
  return assigner->EndBootstrap();
}

}  // namespace tide
