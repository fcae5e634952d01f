#include "tide/cli/compact_command.h"

#include <iostream>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "tide/base/strings.h"
#include "tide/base/uuid.h"
#include "tide/catalog/catalog.h"
#include "tide/io/file_system.h"
#include "tide/table/operation/file_store_commit.h"
#include "tide/table/sink/table_write.h"

namespace tide::cli {
namespace {

// The partition values of one `k=v[,k=v...]` spec, in partition-key order; every key must be named.
Result<Row> ParsePartitionSpec(const std::string& spec, const TableSchema& schema, const std::string& table) {
  std::map<std::string, std::string> values;
  for (const std::string& part : SplitTrimmed(spec, ',')) {
    size_t eq = part.find('=');
    if (eq == std::string::npos) {
      return Status::InvalidArgument("--partition '{}': '{}' is not key=value", spec, part);
    }
    values[std::string(Trim(part.substr(0, eq)))] = std::string(Trim(part.substr(eq + 1)));
  }
  Row row;
  for (const std::string& key : schema.partition_keys) {
    auto it = values.find(key);
    if (it == values.end()) {
      return Status::InvalidArgument("--partition '{}' does not give partition column '{}' of table {} (its "
                                     "partition columns: {})",
                                     spec, key, table, Join(schema.partition_keys, ", "));
    }
    const DataType& type = schema.fields[static_cast<size_t>(schema.FieldIndex(key))].type;
    auto value = ParseDatum(it->second, type);
    if (!value.ok()) return value.status().WithContext(fmt::format("--partition '{}', column '{}'", spec, key));
    row.push_back(std::move(value).value());
    values.erase(it);
  }
  if (!values.empty()) {
    return Status::InvalidArgument("--partition '{}': '{}' is not a partition column of table {} (its partition "
                                   "columns: {})",
                                   spec, values.begin()->first, table,
                                   schema.partition_keys.empty() ? "none" : Join(schema.partition_keys, ", "));
  }
  return row;
}

struct CompactOutcome {
  int64_t files_before = 0;
  int64_t files_after = 0;
  std::vector<int64_t> snapshot_ids;
};

Result<CompactOutcome> Compact(const CompactCommandOptions& options) {
  TIDE_ASSIGN_OR_RETURN(TableIdentifier id, TableIdentifier::Parse(options.table));
  FileSystem* fs = FileSystem::Local();
  TIDE_ASSIGN_OR_RETURN(std::unique_ptr<Catalog> catalog, Catalog::Open(fs, options.warehouse));
  TIDE_ASSIGN_OR_RETURN(std::unique_ptr<Table> table, catalog->GetTable(id));
  const TableSchema& schema = table->latest_schema();
  std::optional<std::vector<Row>> partitions;
  if (!options.partitions.empty()) {
    partitions.emplace();
    for (const std::string& spec : options.partitions) {
      TIDE_ASSIGN_OR_RETURN(Row row, ParsePartitionSpec(spec, schema, options.table));
      partitions->push_back(std::move(row));
    }
  }
  std::string commit_user = RandomUuidString();
  TableWriteConfig config;
  config.table_name = options.table;
  TIDE_ASSIGN_OR_RETURN(std::unique_ptr<TableWrite> writer,
                        TableWrite::Create(fs, table->path(), schema, commit_user, config));
  Status compacted = writer->Compact(options.full, partitions);
  if (!compacted.ok()) {
    writer->Abort();
    return compacted;
  }
  auto messages = writer->PrepareCommit();
  if (!messages.ok()) {
    writer->Abort();
    return messages.status();
  }
  CompactOutcome outcome;
  for (const auto& m : *messages) {
    outcome.files_before += static_cast<int64_t>(m.compact_before.size());
    outcome.files_after += static_cast<int64_t>(m.compact_after.size());
  }
  TIDE_ASSIGN_OR_RETURN(std::unique_ptr<FileStoreCommit> committer,
                        FileStoreCommit::Create(fs, table->path(), options.table));
  CommitOptions commit_options;
  commit_options.commit_user = commit_user;
  commit_options.commit_identifier = std::numeric_limits<int64_t>::max();  // a batch job, as Java's
  commit_options.kind = CommitKind::kCompact;
  auto committed = committer->Commit(*messages, commit_options);
  if (!committed.ok()) {
    writer->Abort();
    return committed.status().WithContext(
        "the compaction was not committed (another writer changed the same files meanwhile; run it again, or "
        "stop the other writer or set 'write-only' = 'true' on it)");
  }
  outcome.snapshot_ids = committed->snapshot_ids;
  return outcome;
}

}  // namespace

int RunCompactCommand(const CompactCommandOptions& options, std::ostream& out, std::ostream& err) {
  Result<CompactOutcome> outcome = Compact(options);
  if (!outcome.ok()) {
    err << "Error: " << outcome.status().message() << std::endl;
    return 1;
  }
  if (outcome->snapshot_ids.empty()) {
    out << "Nothing to compact in " << options.table << '\n';
  } else {
    out << "Compacted " << options.table << ": " << outcome->files_before << " files replaced by "
        << outcome->files_after << " in snapshot " << outcome->snapshot_ids.back() << '\n';
  }
  return 0;
}

void RegisterCompact(CLI::App& app) {
  auto options = std::make_shared<CompactCommandOptions>();
  CLI::App* command = app.add_subcommand("compact", "Compact a table: merge its small files (one COMPACT snapshot)");
  command->add_option("--warehouse", options->warehouse, "Warehouse folder (holds <database>.db/<table>/)")
      ->required();
  command->add_option("--table", options->table, "The table, <database>.<table>")->required();
  command->add_flag("--full", options->full, "Compact fully: primary-key buckets into one sorted run at the top level; append tables's small files even when fewer than compaction.min.file-num");
  command->add_option("--partition", options->partitions,
                      "Only this partition, as k=v[,k=v...] (repeat the flag for several)");
  command->callback([options]() {
    int code = RunCompactCommand(*options, std::cout, std::cerr);
    if (code != 0) throw CLI::RuntimeError(code);
  });
}

}  // namespace tide::cli
