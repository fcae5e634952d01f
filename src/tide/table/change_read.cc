#include "tide/table/change_read.h"

#include <algorithm>

#include "tide/base/strings.h"
#include "tide/table/operation/file_store_scan.h"
#include "tide/table/schema/core_options.h"
#include "tide/table/snapshot/changelog_manager.h"
#include "tide/table/snapshot/consumer_manager.h"
#include "tide/table/snapshot/snapshot_manager.h"

namespace tide {

namespace {

ChangeReadContext ContextOf(const Table& table, std::vector<int> projection, ChangeReadMode mode) {
  ChangeReadContext ctx;
  ctx.fs = table.fs();
  ctx.metadata_path = table.metadata_path();
  ctx.table_name = table.name();
  ctx.read_schema = table.latest_schema();
  ctx.projection = std::move(projection);
  ctx.mode = mode;
  ctx.order_by_sequence = mode == ChangeReadMode::kChanges;
  return ctx;
}

bool HasFields(const IncrementalReadOptions& options) { return options.all_columns || !options.projection.empty(); }

// A read of no column still reads one (the first) to count the rows, and drops it.
std::vector<int> ProjectionOf(const IncrementalReadOptions& options) {
  if (!HasFields(options)) return {0};
  return options.projection;
}

}  // namespace

Result<std::unique_ptr<TableReader>> NewIncrementalReader(const Table& table, const IncrementalReadOptions& options) {
  if (options.between.has_value() == options.between_timestamp.has_value()) {
    return Status::InvalidArgument("table {}: give exactly one of incremental_between and "
                                   "incremental_between_timestamp",
                                   table.name());
  }
  SnapshotManager snapshots(table.fs(), table.metadata_path());
  IncrementalScan scan(table.fs(), table.path(), table.metadata_path(), table.name(), table.latest_schema());
  bool diff = IsDiffScanMode(options.scan_mode);
  std::optional<std::pair<Snapshot, Snapshot>> compared;  // a diff: (start, end)
  SnapshotRange range;
  if (options.between) {
    // Java: two existing tags name a diff of the tags' snapshots (or, with
    // incremental-between-tag-to-snapshot, the range of their snapshot ids); otherwise snapshot ids.
    TIDE_ASSIGN_OR_RETURN(std::optional<TagPair> tags, ResolveBetweenTags(snapshots, *options.between, table.name()));
    const auto& table_options = table.latest_schema().options;
    auto to_snapshot = table_options.find("incremental-between-tag-to-snapshot");
    bool tag_to_snapshot = to_snapshot != table_options.end() && ToLower(Trim(to_snapshot->second)) == "true";
    if (tags && !tag_to_snapshot) {
      if (tags->end.id < tags->start.id) {
        return Status::InvalidArgument(
            "table {}: incremental_between '{}': tag '{}' (snapshot {}) is older than tag '{}' (snapshot {}); give the "
            "older tag first",
            table.name(), *options.between, tags->end_name, tags->end.id, tags->start_name, tags->start.id);
      }
      diff = true;
      if (tags->start.id != tags->end.id) compared.emplace(tags->start, tags->end);
    } else if (tags) {
      if (diff) {
        return Status::InvalidArgument(
            "table {}: incremental-between-tag-to-snapshot reads the tags' snapshot range in delta or changelog mode, "
            "not diff",
            table.name());
      }
      if (tags->end.id < tags->start.id) {
        return Status::InvalidArgument("table {}: incremental_between '{}': the end tag's snapshot {} is before the "
                                       "start tag's snapshot {}",
                                       table.name(), *options.between, tags->end.id, tags->start.id);
      }
      range = SnapshotRange{tags->start.id, tags->end.id};
    } else {
      TIDE_ASSIGN_OR_RETURN(range, ResolveBetweenSnapshotIds(snapshots, *options.between, table.name()));
      if (diff && !range.empty()) {
        // Java compares the two snapshots themselves: the start must exist too.
        auto start = snapshots.Get(range.start_exclusive);
        if (!start.ok()) {
          return start.status().WithContext(
              fmt::format("table {}: incremental_between '{}' in diff mode compares snapshot {} with snapshot {}",
                          table.name(), *options.between, range.start_exclusive, range.end_inclusive));
        }
        TIDE_ASSIGN_OR_RETURN(Snapshot end, snapshots.Get(range.end_inclusive));
        compared.emplace(std::move(start).value(), std::move(end));
      }
    }
  } else {
    TIDE_ASSIGN_OR_RETURN(range, ResolveBetweenTimestamps(snapshots, *options.between_timestamp, table.name()));
    if (diff && !range.empty()) {
      // Java's diff by timestamps compares the snapshot at or before T1 (else the earliest) with the one at
      // or before T2.
      TIDE_ASSIGN_OR_RETURN(auto earliest, snapshots.EarliestId());
      int64_t start_id = earliest ? std::max(range.start_exclusive, *earliest) : range.start_exclusive;
      if (start_id < range.end_inclusive) {
        TIDE_ASSIGN_OR_RETURN(Snapshot start, snapshots.Get(start_id));
        TIDE_ASSIGN_OR_RETURN(Snapshot end, snapshots.Get(range.end_inclusive));
        compared.emplace(std::move(start), std::move(end));
      }
    }
  }
  std::vector<SnapshotChanges> changes;
  ChangeReadMode read_mode = ChangeReadMode::kChanges;
  if (diff) {
    read_mode = ChangeReadMode::kDiff;
    if (compared) {
      TIDE_ASSIGN_OR_RETURN(SnapshotChanges planned, scan.PlanDiff(compared->first, compared->second));
      changes.push_back(std::move(planned));
    }
  } else {
    TIDE_ASSIGN_OR_RETURN(CoreOptions core, CoreOptions::Create(table.latest_schema(), table.name()));
    TIDE_ASSIGN_OR_RETURN(ChangeScanMode mode, ResolveChangeScanMode(core, options.scan_mode, table.name()));
    if (!range.empty()) TIDE_ASSIGN_OR_RETURN(changes, scan.PlanRange(range, mode));
  }
  TIDE_ASSIGN_OR_RETURN(auto reader, ChangeReader::Open(ContextOf(table, ProjectionOf(options), read_mode),
                                                        std::move(changes)));
  return std::unique_ptr<TableReader>(new ChangeTableReader(std::move(reader), options.with_row_kind, HasFields(options)));
}

Result<std::unique_ptr<TableReader>> NewAuditLogReader(const Table& table, const IncrementalReadOptions& options) {
  SnapshotManager snapshots(table.fs(), table.metadata_path());
  TIDE_ASSIGN_OR_RETURN(auto latest, snapshots.Resolve(SnapshotSelector{}));
  std::vector<SnapshotChanges> changes;
  if (latest) {
    FileStoreScan scan(table.fs(), table.path(), table.name(), table.latest_schema());
    SnapshotChanges snapshot;
    snapshot.snapshot_id = latest->id;
    snapshot.commit_kind = latest->commit_kind;
    auto planned = scan.Plan(*latest);
    if (!planned.ok()) return planned.status().WithContext(fmt::format("table {}, snapshot {}", table.name(), latest->id));
    snapshot.splits = std::move(planned).value();
    changes.push_back(std::move(snapshot));
  }
  TIDE_ASSIGN_OR_RETURN(auto reader, ChangeReader::Open(ContextOf(table, ProjectionOf(options), ChangeReadMode::kAuditLog),
                                                        std::move(changes)));
  return std::unique_ptr<TableReader>(new ChangeTableReader(std::move(reader), options.with_row_kind, HasFields(options)));
}

Result<StreamStart> StreamStart::Parse(std::string_view text) {
  StreamStart start;
  std::string t(Trim(text));
  auto number = [&](std::string_view prefix, std::string_view what) -> Result<int64_t> {
    return ParseInt64(std::string_view(t).substr(prefix.size()), what);
  };
  if (t == "latest-full") {
    start.kind = Kind::kLatestFull;
  } else if (t == "latest") {
    start.kind = Kind::kLatest;
  } else if (t == "earliest") {
    start.kind = Kind::kEarliest;
  } else if (StartsWith(t, "snapshot-full:")) {
    start.kind = Kind::kSnapshotFull;
    TIDE_ASSIGN_OR_RETURN(start.snapshot_id, number("snapshot-full:", "snapshot id"));
  } else if (StartsWith(t, "snapshot:")) {
    start.kind = Kind::kSnapshot;
    TIDE_ASSIGN_OR_RETURN(start.snapshot_id, number("snapshot:", "snapshot id"));
  } else if (StartsWith(t, "timestamp:")) {
    start.kind = Kind::kTimestamp;
    TIDE_ASSIGN_OR_RETURN(start.timestamp_ms, number("timestamp:", "timestamp (epoch milliseconds)"));
  } else {
    return Status::InvalidArgument(
        "--from '{}' is not one of latest-full, latest, earliest, snapshot:N, snapshot-full:N, timestamp:T (T in "
        "epoch milliseconds)",
        text);
  }
  if ((start.kind == Kind::kSnapshot || start.kind == Kind::kSnapshotFull) && start.snapshot_id < 1) {
    return Status::InvalidArgument("--from '{}': snapshot ids start at 1", text);
  }
  return start;
}

Result<std::unique_ptr<TableChangeStream>> TableChangeStream::Open(const Table* table, TableChangeStreamOptions options) {
  std::unique_ptr<TableChangeStream> stream(new TableChangeStream(table));
  TIDE_ASSIGN_OR_RETURN(CoreOptions core, CoreOptions::Create(table->latest_schema(), table->name()));
  TIDE_ASSIGN_OR_RETURN(stream->mode_, ResolveChangeScanMode(core, options.scan_mode, table->name()));
  stream->changelog_decoupled_ = core.changelog_decoupled();
  stream->fields_ = table->latest_schema().fields;
  SnapshotManager snapshots(table->fs(), table->metadata_path());
  // Starts by id may lie in the long-lived changelog (Java's ContinuousFromSnapshotStartingScanner);
  // a full start needs a snapshot.
  TIDE_ASSIGN_OR_RETURN(auto earliest, stream->EarliestReadable());
  TIDE_ASSIGN_OR_RETURN(auto earliest_snapshot, snapshots.EarliestId());
  TIDE_ASSIGN_OR_RETURN(auto latest, snapshots.LatestId());

  // A consumer's recorded progress wins over the start option (Java's createStartingScanner).
  if (options.consumer_id) {
    if (options.consumer_id->empty() || options.consumer_id->find('/') != std::string::npos) {
      return Status::InvalidArgument("consumer id '{}' must be a non-empty name without '/'", *options.consumer_id);
    }
    TIDE_ASSIGN_OR_RETURN(auto consumers, ConsumerManager(table->fs(), table->path()).Consumers());
    auto it = consumers.find(*options.consumer_id);
    if (it != consumers.end()) {
      stream->next_snapshot_ = earliest ? std::max(it->second, *earliest) : it->second;
      stream->committed_ = it->second;
      stream->options_ = std::move(options);
      return stream;
    }
  }
  const StreamStart& start = options.start;
  switch (start.kind) {
    case StreamStart::Kind::kLatestFull:
      if (latest) {
        stream->full_snapshot_ = *latest;
        stream->next_snapshot_ = *latest + 1;
      } else {
        stream->wait_full_ = true;
      }
      break;
    case StreamStart::Kind::kLatest:
      stream->next_snapshot_ = latest ? *latest + 1 : 1;
      break;
    case StreamStart::Kind::kEarliest:
      stream->next_snapshot_ = earliest ? *earliest : 1;
      break;
    case StreamStart::Kind::kSnapshot:
      stream->next_snapshot_ = earliest ? std::max(start.snapshot_id, *earliest) : start.snapshot_id;
      break;
    case StreamStart::Kind::kSnapshotFull: {
      int64_t id = earliest_snapshot ? std::max(start.snapshot_id, *earliest_snapshot) : start.snapshot_id;
      if (!latest || id > *latest) {
        return Status::NotFound("table {}: snapshot {} does not exist (latest: {}); a full start needs it",
                                table->name(), start.snapshot_id, latest ? std::to_string(*latest) : "none");
      }
      stream->full_snapshot_ = id;
      stream->next_snapshot_ = id + 1;
      break;
    }
    case StreamStart::Kind::kTimestamp: {
      // The changes of the snapshots committed at or after T: start after the newest one before T.
      if (!latest) {
        stream->next_snapshot_ = 1;
        break;
      }
      auto before = snapshots.AtOrBefore(start.timestamp_ms - 1);
      if (before.ok()) {
        stream->next_snapshot_ = before->id + 1;
      } else if (before.status().IsNotFound()) {
        stream->next_snapshot_ = earliest.value_or(1);
        // Every snapshot is later: the newest changelog before T, if changelog is kept (ids ascend with
        // commit time, so a binary search as Java's TimeTravelUtil).
        int64_t lo = earliest.value_or(1), hi = earliest_snapshot.value_or(1) - 1;
        while (stream->changelog_decoupled_ && lo <= hi) {
          int64_t mid = lo + (hi - lo) / 2;
          TIDE_ASSIGN_OR_RETURN(auto c, stream->SnapshotOrChangelog(mid));
          if (c && c->time_millis <= start.timestamp_ms - 1) {
            stream->next_snapshot_ = mid + 1;
            lo = mid + 1;
          } else {
            hi = mid - 1;
          }
        }
      } else {
        return before.status();
      }
      break;
    }
  }
  stream->options_ = std::move(options);
  return stream;
}

Status TableChangeStream::ReadFull(int64_t snapshot_id, const std::function<Status(const ChangeRecord&)>& emit) {
  ReadOptions read;
  read.snapshot.snapshot_id = snapshot_id;
  TIDE_ASSIGN_OR_RETURN(auto reader, table_->NewReader(read));
  // The snapshot may have been written with another schema: its columns are mapped by field id.
  std::vector<int> from;
  for (const DataField& field : fields_) {
    int found = -1;
    for (size_t i = 0; i < reader->fields().size(); ++i) {
      if (reader->fields()[i].id == field.id) found = static_cast<int>(i);
    }
    from.push_back(found);
  }
  std::vector<Row> rows;
  ChangeRecord record;
  record.snapshot_id = snapshot_id;
  record.kind = ValueKind::kInsert;
  while (true) {
    rows.clear();
    TIDE_ASSIGN_OR_RETURN(bool more, reader->NextBatch(1024, &rows));
    if (!more) break;
    for (Row& row : rows) {
      record.row.clear();
      for (int i : from) record.row.push_back(i < 0 ? Datum() : std::move(row[static_cast<size_t>(i)]));
      TIDE_RETURN_IF_ERROR(emit(record));
    }
  }
  return Status::OK();
}

Result<std::optional<int64_t>> TableChangeStream::Poll(const std::function<Status(const ChangeRecord&)>& emit) {
  SnapshotManager snapshots(table_->fs(), table_->metadata_path());
  if (full_snapshot_) {
    int64_t id = *full_snapshot_;
    TIDE_RETURN_IF_ERROR(ReadFull(id, emit));
    full_snapshot_.reset();
    return std::optional<int64_t>(id);
  }
  if (wait_full_) {
    TIDE_ASSIGN_OR_RETURN(auto latest, snapshots.LatestId());
    if (!latest) return std::optional<int64_t>();
    TIDE_RETURN_IF_ERROR(ReadFull(*latest, emit));
    wait_full_ = false;
    next_snapshot_ = *latest + 1;
    return std::optional<int64_t>(*latest);
  }
  IncrementalScan scan(table_->fs(), table_->path(), table_->metadata_path(), table_->name(), table_->latest_schema());
  while (true) {
    TIDE_ASSIGN_OR_RETURN(auto snapshot, SnapshotOrChangelog(next_snapshot_));
    if (!snapshot) {
      TIDE_ASSIGN_OR_RETURN(auto earliest, EarliestReadable());
      if (earliest && *earliest > next_snapshot_) {
        return Status::NotFound(
            "table {}: snapshot {}, the next one to read, was expired (the earliest is now {}); restart the read "
            "with --from latest-full, or keep it with a consumer id (expiry keeps what a consumer still needs)",
            table_->name(), next_snapshot_, *earliest);
      }
      return std::optional<int64_t>();
    }
    TIDE_ASSIGN_OR_RETURN(SnapshotChanges changes, scan.PlanSnapshot(*snapshot, mode_));
    const int64_t id = next_snapshot_;
    if (changes.splits.empty()) {
      ++next_snapshot_;
      continue;
    }
    std::vector<SnapshotChanges> one;
    one.push_back(std::move(changes));
    ChangeReadContext ctx;
    ctx.fs = table_->fs();
    ctx.metadata_path = table_->metadata_path();
    ctx.table_name = table_->name();
    ctx.read_schema = table_->latest_schema();
    ctx.mode = ChangeReadMode::kChanges;
    ctx.order_by_sequence = true;
    TIDE_ASSIGN_OR_RETURN(auto reader, ChangeReader::Open(std::move(ctx), std::move(one)));
    std::vector<ChangeRecord> records;
    while (true) {
      records.clear();
      TIDE_ASSIGN_OR_RETURN(bool more, reader->Next(1024, &records));
      if (!more) break;
      for (const ChangeRecord& record : records) TIDE_RETURN_IF_ERROR(emit(record));
    }
    ++next_snapshot_;
    return std::optional<int64_t>(id);
  }
}

Result<std::optional<Snapshot>> TableChangeStream::SnapshotOrChangelog(int64_t id) const {
  auto snapshot = SnapshotManager(table_->fs(), table_->metadata_path()).Get(id);
  if (snapshot.ok()) return std::optional<Snapshot>(std::move(snapshot).value());
  if (!snapshot.status().IsNotFound()) return snapshot.status();
  if (!changelog_decoupled_) return std::optional<Snapshot>();
  auto changelog = ChangelogManager(table_->fs(), table_->metadata_path()).Get(id);
  if (changelog.ok()) return std::optional<Snapshot>(std::move(changelog).value());
  if (!changelog.status().IsNotFound()) return changelog.status();
  return std::optional<Snapshot>();
}

Result<std::optional<int64_t>> TableChangeStream::EarliestReadable() const {
  if (changelog_decoupled_) {
    TIDE_ASSIGN_OR_RETURN(auto changelog, ChangelogManager(table_->fs(), table_->metadata_path()).EarliestId());
    if (changelog) return changelog;
  }
  return SnapshotManager(table_->fs(), table_->metadata_path()).EarliestId();
}

Status TableChangeStream::CommitConsumer() {
  if (!options_.consumer_id || wait_full_ || full_snapshot_) return Status::OK();
  if (committed_ && *committed_ == next_snapshot_) return Status::OK();
  Status written = ConsumerManager(table_->fs(), table_->path()).ResetConsumer(*options_.consumer_id, next_snapshot_);
  if (!written.ok()) {
    return written.WithContext(fmt::format("table {}: recording consumer '{}'", table_->name(), *options_.consumer_id));
  }
  committed_ = next_snapshot_;
  return Status::OK();
}

}  // namespace tide
