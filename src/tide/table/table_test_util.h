// Test helpers for the table writer's tests: building schemas, creating a table folder, committing a
// TableWrite's messages with FileStoreCommit, and reading a table back through Table::NewReader (rows, or
// DuckDB vectors as SQL reads them).
// Header-only. Thread-safety: one test at a time.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tide/io/file_system.h"
#include "tide/table/operation/commit_message.h"
#include "tide/table/operation/file_store_commit.h"
#include "tide/table/operation/file_store_scan.h"
#include "tide/table/schema/schema_manager.h"
#include "tide/table/snapshot/snapshot_manager.h"
#include "tide/table/table.h"
#include "tide/table/sink/table_write.h"
#include "tide/types/table_schema.h"
#include "testing/read_by_vectors.h"

namespace tide::testing {

inline DataField Field(int32_t id, std::string name, DataType type) {
  return DataField{id, std::move(name), std::move(type), std::nullopt, std::nullopt};
}

// A schema-0 with `fields` (ids as given), keys and options.
inline TableSchema WriterTestSchema(std::vector<DataField> fields, std::vector<std::string> primary_keys,
                                    std::vector<std::string> partition_keys,
                                    std::vector<std::pair<std::string, std::string>> options) {
  TableSchema s;
  s.id = 0;
  s.fields = std::move(fields);
  for (const auto& f : s.fields) s.highest_field_id = std::max(s.highest_field_id, MaxNestedFieldId(f.type, f.id));
  s.primary_keys = std::move(primary_keys);
  s.partition_keys = std::move(partition_keys);
  for (const auto& [k, v] : options) s.SetOption(k, v);
  s.time_millis = 1700000000000;
  return s;
}

// Writes `schema` as schema-<id> of the table at `table_path`.
inline Status CreateWriterTestTable(const std::string& table_path, const TableSchema& schema) {
  return FileSystem::Local()->WriteFileExclusive(JoinPath(table_path, "schema/schema-" + std::to_string(schema.id)),
                                                 schema.ToJson());
}

// Commits `messages` as an APPEND commit of `user` with `identifier`.
inline Result<CommitResult> CommitMessages(const std::string& table_path, const std::vector<CommitMessage>& messages,
                                           const std::string& user, int64_t identifier) {
  TIDE_ASSIGN_OR_RETURN(auto committer, FileStoreCommit::Create(FileSystem::Local(), table_path, "test.t"));
  CommitOptions options;
  options.commit_user = user;
  options.commit_identifier = identifier;
  return committer->Commit(messages, options);
}

// Every row of the latest snapshot, in reader order.
inline Result<std::vector<Row>> ReadTable(const std::string& table_path) {
  TIDE_ASSIGN_OR_RETURN(auto table, Table::Open(FileSystem::Local(), table_path, "test.t"));
  TIDE_ASSIGN_OR_RETURN(auto reader, table->NewReader(ReadOptions{}));
  std::vector<Row> rows;
  while (true) {
    TIDE_ASSIGN_OR_RETURN(bool more, reader->NextBatch(1024, &rows));
    if (!more) break;
  }
  return rows;
}

// Every row of the latest snapshot read through TableReader::NextVectors, the SQL path, by `workers`
// readers sharing the splits (testing/read_by_vectors.h).
inline Result<std::vector<Row>> ReadTableByVectors(const std::string& table_path, int workers = 1) {
  TIDE_ASSIGN_OR_RETURN(auto table, Table::Open(FileSystem::Local(), table_path, "test.t"));
  TIDE_ASSIGN_OR_RETURN(auto reader, table->NewReader(ReadOptions{}));
  return ReadByVectors(std::move(reader), workers);
}

// The live data files of the latest snapshot (none when the table has no snapshot).
inline Result<std::vector<ManifestEntry>> LiveEntries(const std::string& table_path) {
  SnapshotManager snapshots(FileSystem::Local(), table_path);
  TIDE_ASSIGN_OR_RETURN(auto latest, snapshots.LatestId());
  if (!latest) return std::vector<ManifestEntry>();
  TIDE_ASSIGN_OR_RETURN(Snapshot snapshot, snapshots.Get(*latest));
  TIDE_ASSIGN_OR_RETURN(TableSchema schema, SchemaManager(FileSystem::Local(), table_path).Latest());
  FileStoreScan scan(FileSystem::Local(), table_path, "test.t", schema);
  return scan.ReadLiveEntries(snapshot);
}

inline std::vector<Row> SortedRows(std::vector<Row> rows) {
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return CompareRows(a, b) < 0; });
  return rows;
}

}  // namespace tide::testing
