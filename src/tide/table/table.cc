#include "tide/table/table.h"

#include <optional>
#include <set>

#include "tide/table/operation/file_store_scan.h"
#include "tide/table/schema/core_options.h"
#include "tide/table/schema/schema_manager.h"
#include "tide/table/snapshot/snapshot_manager.h"
#include "tide/table/source/scan_pruner.h"
#include "tide/table/source/snapshot_table_reader.h"

namespace tide {

Result<std::unique_ptr<Table>> Table::Open(FileSystem* fs, std::string path, std::string name, std::string branch) {
  std::string metadata_path = branch == "main" ? path : JoinPath(path, "branch/branch-" + branch);
  SchemaManager schemas(fs, metadata_path);
  auto latest = schemas.Latest();
  if (!latest.ok()) {
    std::string what = branch == "main" ? name : fmt::format("{} (branch {})", name, branch);
    return latest.status().WithContext(fmt::format("opening table {}", what));
  }
  return std::unique_ptr<Table>(
      new Table(fs, std::move(path), std::move(metadata_path), std::move(branch), std::move(name), std::move(latest).value()));
}

Result<TableSchema> Table::ReadSchema(const SnapshotSelector& selector) const {
  // Reads of the latest snapshot see the table's current columns (ALTERs without data since apply);
  // time travel sees the schema the chosen snapshot was committed with.
  if (selector.IsLatest()) return latest_schema_;
  SnapshotManager snapshots(fs_, metadata_path_);
  auto snapshot = snapshots.Resolve(selector);
  if (!snapshot.ok()) return snapshot.status().WithContext(fmt::format("table {}", name_));
  if (!*snapshot) return latest_schema_;
  if ((*snapshot)->schema_id == latest_schema_.id) return latest_schema_;
  return SchemaManager(fs_, metadata_path_).Get((*snapshot)->schema_id);
}

Result<std::vector<DataSplit>> Table::PlanSplits(const ReadOptions& options, const TableSchema& schema,
                                                 std::optional<Snapshot>* resolved_out) const {
  SnapshotManager snapshots(fs_, metadata_path_);
  auto resolved = snapshots.Resolve(options.snapshot);
  if (!resolved.ok()) return resolved.status().WithContext(fmt::format("table {}", name_));
  if (resolved_out) *resolved_out = *resolved;
  if (!*resolved) return std::vector<DataSplit>{};
  FileStoreScan scan(fs_, path_, name_, schema);
  ScanFilter filter;
  std::shared_ptr<ScanPruner> pruner;
  if (options.filter && !options.filter->empty()) {
    TIDE_ASSIGN_OR_RETURN(CoreOptions core, CoreOptions::Create(schema, name_));
    pruner = std::make_shared<ScanPruner>(fs_, metadata_path_, schema, std::move(core), *options.filter);
    filter.keep_manifest = [pruner](const ManifestFileMeta& meta) { return pruner->KeepManifest(meta); };
    filter.keep_entry = [pruner](const ManifestEntry& entry) { return pruner->KeepEntry(entry); };
  }
  auto planned = scan.Plan(**resolved, filter);
  if (!planned.ok()) return planned.status().WithContext(fmt::format("table {}, snapshot {}", name_, (*resolved)->id));
  if (options.read_optimized && !schema.primary_keys.empty()) {
    TIDE_ASSIGN_OR_RETURN(CoreOptions core, CoreOptions::Create(schema, name_));
    int32_t top_level = core.num_levels() - 1;
    std::vector<DataSplit> top;
    for (DataSplit& split : *planned) {
      std::erase_if(split.files, [&](const DataFileMeta& file) { return file.level != top_level; });
      if (!split.files.empty()) top.push_back(std::move(split));
    }
    return top;
  }
  return planned;
}

namespace {

// What a reader reads, to tell an expired snapshot from a damaged table when a read fails. Expiry
// deletes a snapshot's file before the files only it referenced (operation/expire_snapshots.h), so a
// read that fails and then finds its snapshot file gone was overtaken by expiry; tag deletion likewise
// deletes the tag file first.
struct ReadTarget {
  FileSystem* fs = nullptr;
  std::string metadata_path;
  std::string table_name;
  std::optional<int64_t> snapshot_id;  // a snapshot read
  std::optional<std::string> tag;      // a tag read
};

Status ExplainVanished(const ReadTarget& target, Status error) {
  if (error.ok()) return error;
  SnapshotManager snapshots(target.fs, target.metadata_path);
  if (target.tag) {
    auto exists = target.fs->Exists(snapshots.TagPath(*target.tag));
    if (exists.ok() && !*exists) {
      return Status::NotFound("tag '{}' of table {} was deleted while it was being read; read another tag or a "
                              "snapshot ({})",
                              *target.tag, target.table_name, error.message());
    }
  } else if (target.snapshot_id) {
    auto exists = target.fs->Exists(snapshots.SnapshotPath(*target.snapshot_id));
    if (exists.ok() && !*exists) {
      auto earliest = snapshots.EarliestId();
      std::string now = earliest.ok() && *earliest ? fmt::format(" (the earliest is now {})", **earliest) : "";
      return Status::NotFound("snapshot {} of table {} was expired while it was being read; read a newer snapshot{} "
                              "({})",
                              *target.snapshot_id, target.table_name, now, error.message());
    }
  }
  return error;
}

// A TableReader whose errors say so when its snapshot was expired (or its tag deleted) meanwhile.
class VanishAwareTableReader final : public TableReader {
 public:
  VanishAwareTableReader(std::unique_ptr<TableReader> reader, ReadTarget target)
      : reader_(std::move(reader)), target_(std::move(target)) {}
  const std::vector<DataField>& fields() const override { return reader_->fields(); }
  Result<bool> NextBatch(size_t max_rows, std::vector<Row>* out) override {
    auto more = reader_->NextBatch(max_rows, out);
    if (!more.ok()) return ExplainVanished(target_, more.status());
    return more;
  }
  Result<size_t> NextVectors(std::span<const duckdb_vector> vectors, size_t capacity) override {
    auto n = reader_->NextVectors(vectors, capacity);
    if (!n.ok()) return ExplainVanished(target_, n.status());
    return n;
  }
  Result<std::unique_ptr<TableReader>> NewWorker() override {
    TIDE_ASSIGN_OR_RETURN(auto worker, reader_->NewWorker());
    if (!worker) return worker;
    return std::unique_ptr<TableReader>(new VanishAwareTableReader(std::move(worker), target_));
  }
  TableReadStats stats() const override { return reader_->stats(); }

 private:
  std::unique_ptr<TableReader> reader_;
  ReadTarget target_;
};

// Reads one reader after another (a table's own splits, then its fallback branch's).
class ChainedTableReader final : public TableReader {
 public:
  explicit ChainedTableReader(std::vector<std::unique_ptr<TableReader>> readers) : readers_(std::move(readers)) {}
  const std::vector<DataField>& fields() const override { return readers_.front()->fields(); }
  Result<bool> NextBatch(size_t max_rows, std::vector<Row>* out) override {
    while (current_ < readers_.size()) {
      TIDE_ASSIGN_OR_RETURN(bool more, readers_[current_]->NextBatch(max_rows, out));
      if (more) return true;
      ++current_;
    }
    return false;
  }
  Result<size_t> NextVectors(std::span<const duckdb_vector> vectors, size_t capacity) override {
    while (current_ < readers_.size()) {
      TIDE_ASSIGN_OR_RETURN(size_t n, readers_[current_]->NextVectors(vectors, capacity));
      if (n > 0) return n;
      ++current_;
    }
    return size_t{0};
  }
  TableReadStats stats() const override {
    TableReadStats sum;
    for (const auto& reader : readers_) {
      sum.columnar_splits += reader->stats().columnar_splits;
      sum.row_splits += reader->stats().row_splits;
    }
    return sum;
  }

 private:
  std::vector<std::unique_ptr<TableReader>> readers_;
  size_t current_ = 0;
};

}  // namespace

Result<std::unique_ptr<TableReader>> Table::NewReader(const ReadOptions& options) const {
  TIDE_ASSIGN_OR_RETURN(TableSchema schema, ReadSchema(options.snapshot));
  for (const auto& [key, value] : options.dynamic_options) schema.SetOption(key, value);

  // Whether a fallback branch is read is a property of the table as opened (its latest schema and the
  // read's options), not of the schema a time-travelled snapshot was written with: Java wraps the table
  // in FallbackReadFileStoreTable when it is loaded, and time travel only changes what each side reads.
  std::optional<std::string> fallback;
  if (options.snapshot.IsLatest()) {
    TIDE_ASSIGN_OR_RETURN(CoreOptions core, CoreOptions::Create(schema, name_));
    fallback = core.scan_fallback_branch();
  } else {
    TIDE_ASSIGN_OR_RETURN(TableSchema latest_schema, ReadSchema(SnapshotSelector{}));
    for (const auto& [key, value] : options.dynamic_options) latest_schema.SetOption(key, value);
    TIDE_ASSIGN_OR_RETURN(CoreOptions core, CoreOptions::Create(latest_schema, name_));
    fallback = core.scan_fallback_branch();
  }
  // With a fallback branch, the partitions read from it are those the main plan lacks: a main plan
  // pruned by the filter would lack partitions it has, so neither side is pruned.
  const bool has_fallback = fallback && !fallback->empty() && branch_ == "main";
  ReadOptions main_options_storage;
  const ReadOptions* main_options = &options;
  if (has_fallback && options.filter) {
    main_options_storage = options;
    main_options_storage.filter.reset();
    main_options = &main_options_storage;
  }
  std::optional<Snapshot> resolved;
  ReadTarget target{fs_, metadata_path_, name_, std::nullopt, options.snapshot.tag};
  auto planned = PlanSplits(*main_options, schema, &resolved);
  if (resolved) target.snapshot_id = resolved->id;
  if (!planned.ok()) return ExplainVanished(target, planned.status());
  std::vector<DataSplit> splits = std::move(planned).value();

  std::unique_ptr<TableReader> fallback_reader;
  if (has_fallback) {
    TIDE_ASSIGN_OR_RETURN(auto branch_table, Table::Open(fs_, path_, name_, *fallback));
    // Time travel reads the fallback branch as it was then: its newest snapshot committed no later than
    // the main snapshot, or its first snapshot when every one is later (Java's FallbackReadFileStoreTable).
    SnapshotSelector branch_selector;
    if (!options.snapshot.IsLatest()) {
      SnapshotManager main_snapshots(fs_, metadata_path_);
      TIDE_ASSIGN_OR_RETURN(auto main_snapshot, main_snapshots.Resolve(options.snapshot));
      SnapshotManager branch_snapshots(fs_, branch_table->metadata_path());
      if (main_snapshot) {
        auto at = branch_snapshots.AtOrBefore(main_snapshot->time_millis);
        if (at.ok()) {
          branch_selector.snapshot_id = at->id;
        } else if (at.status().IsNotFound()) {
          TIDE_ASSIGN_OR_RETURN(auto earliest, branch_snapshots.EarliestId());
          if (earliest) branch_selector.snapshot_id = *earliest;
        } else {
          return at.status();
        }
      }
    }
    std::set<std::string> own_partitions;
    for (const auto& split : splits) own_partitions.insert(split.partition);
    TIDE_ASSIGN_OR_RETURN(TableSchema branch_schema, branch_table->ReadSchema(branch_selector));
    for (const auto& [key, value] : options.dynamic_options) branch_schema.SetOption(key, value);
    ReadOptions branch_options = *main_options;
    branch_options.snapshot = branch_selector;
    // The projection is by position in the main schema; map it onto the branch's fields by name.
    branch_options.projection.clear();
    std::vector<int> projection = options.projection;
    if (projection.empty() && options.all_columns) {
      for (size_t i = 0; i < schema.fields.size(); ++i) projection.push_back(static_cast<int>(i));
    }
    for (int p : projection) {
      int idx = branch_schema.FieldIndex(schema.fields[static_cast<size_t>(p)].name);
      if (idx < 0) {
        return Status::InvalidArgument("table {}: fallback branch '{}' has no column '{}'", name_, *fallback,
                                       schema.fields[static_cast<size_t>(p)].name);
      }
      branch_options.projection.push_back(idx);
    }
    branch_options.all_columns = !branch_options.projection.empty() || options.all_columns;
    TIDE_ASSIGN_OR_RETURN(auto branch_splits, branch_table->PlanSplits(branch_options, branch_schema));
    std::vector<DataSplit> missing;
    for (auto& split : branch_splits) {
      if (!own_partitions.count(split.partition)) missing.push_back(std::move(split));
    }
    TableReadContext bctx;
    bctx.fs = fs_;
    bctx.metadata_path = branch_table->metadata_path();
    bctx.table_name = fmt::format("{} (branch {})", name_, *fallback);
    bctx.projection = branch_options.projection;
    bctx.all_columns = branch_options.all_columns;
    bctx.key_equals = options.primary_key_equals;
    bctx.read_schema = std::move(branch_schema);
    TIDE_ASSIGN_OR_RETURN(fallback_reader, CreateSnapshotTableReader(std::move(bctx), std::move(missing)));
  }

  TableReadContext ctx;
  ctx.fs = fs_;
  ctx.metadata_path = metadata_path_;
  ctx.table_name = name_;
  ctx.projection = options.projection;
  ctx.all_columns = options.all_columns;
  ctx.key_equals = options.primary_key_equals;
  ctx.filter = main_options->filter;
  ctx.read_schema = std::move(schema);
  TIDE_ASSIGN_OR_RETURN(auto snapshot_reader, CreateSnapshotTableReader(std::move(ctx), std::move(splits)));
  std::unique_ptr<TableReader> reader(new VanishAwareTableReader(std::move(snapshot_reader), std::move(target)));
  if (!fallback_reader) return reader;
  std::vector<std::unique_ptr<TableReader>> readers;
  readers.push_back(std::move(reader));
  readers.push_back(std::move(fallback_reader));
  return std::unique_ptr<TableReader>(new ChainedTableReader(std::move(readers)));
}

}  // namespace tide
