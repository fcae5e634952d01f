// Test builders for commit tests: small Paimon tables (just a schema file) and hand-made DataFileMeta /
// CommitMessage values with valid BinaryRow keys, partitions and stats, so the commit logic can be
// exercised without writing data files. Header-only. Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tide/codec/binary_row.h"
#include "tide/io/file_system.h"
#include "tide/table/operation/commit_message.h"
#include "tide/table/manifest/manifest.h"
#include "tide/types/table_schema.h"

namespace tide::testing {

// A primary-key table `id BIGINT NOT NULL, dt STRING NOT NULL, v STRING`, primary key (dt, id),
// partitioned by dt, `bucket` buckets (or an unpartitioned append table `id BIGINT, v STRING` when
// `primary_key` is false). Extra options are added to the schema.
inline TableSchema CommitTestSchema(bool primary_key = true, int buckets = 2,
                                    std::vector<std::pair<std::string, std::string>> options = {}) {
  TableSchema s;
  s.id = 0;
  if (primary_key) {
    s.fields = {DataField{0, "id", DataType::BigInt(false), std::nullopt, std::nullopt},
                DataField{1, "dt", DataType::String(false), std::nullopt, std::nullopt},
                DataField{2, "v", DataType::String(), std::nullopt, std::nullopt}};
    s.highest_field_id = 2;
    s.partition_keys = {"dt"};
    s.primary_keys = {"dt", "id"};
  } else {
    s.fields = {DataField{0, "id", DataType::BigInt(), std::nullopt, std::nullopt},
                DataField{1, "v", DataType::String(), std::nullopt, std::nullopt}};
    s.highest_field_id = 1;
  }
  s.SetOption("bucket", std::to_string(buckets));
  for (const auto& [k, v] : options) s.SetOption(k, v);
  s.time_millis = 1700000000000;
  return s;
}

// Writes schema-0 of `schema` into `table_path`.
inline Status CreateTestTable(FileSystem* fs, const std::string& table_path, const TableSchema& schema) {
  return fs->WriteFileExclusive(JoinPath(table_path, "schema/schema-0"), schema.ToJson());
}

inline std::string Partition(const std::string& dt) {
  std::vector<Datum> v{Datum(dt)};
  std::vector<DataType> t{DataType::String(false)};
  return EncodeSerializedBinaryRow(v, t).value();
}

inline std::string UnpartitionedPartition() { return EncodeSerializedBinaryRow({}, {}).value(); }

inline std::string KeyRow(int64_t id) {
  std::vector<Datum> v{Datum(id)};
  std::vector<DataType> t{DataType::BigInt(false)};
  return EncodeSerializedBinaryRow(v, t).value();
}

// A data file of a primary-key table holding keys [min_id, max_id].
inline DataFileMeta PkFile(const std::string& name, int64_t min_id, int64_t max_id, int32_t level = 0,
                           int64_t rows = 0, int64_t seq = 0) {
  DataFileMeta f;
  f.file_name = name;
  f.file_size = 1000 + static_cast<int64_t>(name.size());
  f.row_count = rows > 0 ? rows : max_id - min_id + 1;
  f.min_key = KeyRow(min_id);
  f.max_key = KeyRow(max_id);
  f.key_stats.min_values = f.min_key;
  f.key_stats.max_values = f.max_key;
  f.key_stats.null_counts = {0};
  f.key_stats.null_counts_present = true;
  std::vector<DataType> vt{DataType::BigInt(false), DataType::String(false), DataType::String()};
  f.value_stats.min_values = EncodeSerializedBinaryRow(std::vector<Datum>{Datum(min_id), Datum(), Datum()}, vt).value();
  f.value_stats.max_values = EncodeSerializedBinaryRow(std::vector<Datum>{Datum(max_id), Datum(), Datum()}, vt).value();
  f.value_stats.null_counts = {0, std::nullopt, 0};
  f.value_stats.null_counts_present = true;
  f.min_sequence_number = seq;
  f.max_sequence_number = seq + f.row_count - 1;
  f.schema_id = 0;
  f.level = level;
  f.creation_time_ms = 1700000000000;
  f.delete_row_count = 0;
  f.file_source = level == 0 ? 0 : 1;
  return f;
}

// A data file of an append table (empty keys and key stats).
inline DataFileMeta AppendFile(const std::string& name, int64_t rows) {
  DataFileMeta f;
  f.file_name = name;
  f.file_size = 500 + rows;
  f.row_count = rows;
  f.min_key = UnpartitionedPartition();
  f.max_key = f.min_key;
  f.key_stats.min_values = f.min_key;
  f.key_stats.max_values = f.min_key;
  f.key_stats.null_counts_present = true;
  std::vector<DataType> vt{DataType::BigInt(), DataType::String()};
  f.value_stats.min_values = EncodeSerializedBinaryRow(std::vector<Datum>{Datum(int64_t{0}), Datum("a")}, vt).value();
  f.value_stats.max_values = EncodeSerializedBinaryRow(std::vector<Datum>{Datum(rows), Datum("z")}, vt).value();
  f.value_stats.null_counts = {0, 0};
  f.value_stats.null_counts_present = true;
  f.schema_id = 0;
  f.delete_row_count = 0;
  f.file_source = 0;
  return f;
}

inline CommitMessage NewFilesMessage(const std::string& partition, int32_t bucket, int32_t total_buckets,
                                     std::vector<DataFileMeta> files) {
  CommitMessage m;
  m.partition = partition;
  m.bucket = bucket;
  m.total_buckets = total_buckets;
  m.new_files = std::move(files);
  return m;
}

}  // namespace tide::testing
