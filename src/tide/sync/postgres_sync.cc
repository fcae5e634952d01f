#include "tide/sync/postgres_sync.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <thread>

#include "tide/base/logging.h"
#include "tide/base/strings.h"
#include "tide/catalog/catalog.h"
#include "tide/postgres/change_stream.h"
#include "tide/postgres/pg_connection.h"
#include "tide/postgres/replication_slot.h"
#include "tide/postgres/snapshot_copy.h"
#include "tide/sync/computed_column.h"
#include "tide/sync/doctor.h"
#include "tide/sync/metadata_column.h"
#include "tide/sync/resync_request.h"
#include "tide/sync/table_sink.h"
#include "tide/table/schema/schema_manager.h"
#include "tide/table/snapshot/snapshot_manager.h"

namespace tide {

std::string PostgresSync::TargetName(const PgTableName& table) const {
  if (auto it = options_.target_names.find(table); it != options_.target_names.end()) return it->second;
  if (options_.selection) return options_.selection->TargetName(table);
  return ToLower(options_.table_prefix + table.name + options_.table_suffix);
}

namespace {

using Clock = std::chrono::steady_clock;

// What the per-table flags make of one source table: its computed columns, partition and primary keys.
struct TableLayout {
  std::vector<std::string> computed_specs;  // in flag order
  std::vector<ComputedColumn> computed;     // bound against the source columns
  std::vector<std::string> partition_keys;
  std::vector<std::string> primary_keys;
};

// The keys a [TABLE:]a,b flag gives `table` whose columns are `columns`: the table's own value, else an
// unscoped one when the table has every column it names; `fallback` otherwise.
Result<std::vector<std::string>> KeysFor(const std::vector<ScopedValue>& values, const PgTableName& table,
                                         const std::vector<std::string>& columns, std::string_view flag,
                                         std::vector<std::string> fallback) {
  const ScopedValue* own = nullptr;
  const ScopedValue* any = nullptr;
  for (const ScopedValue& v : values) {
    if (v.scoped() && v.AppliesTo(table)) own = &v;
    if (!v.scoped()) any = &v;
  }
  for (const ScopedValue* v : {own, any}) {
    if (v == nullptr) continue;
    std::vector<std::string> keys = SplitTrimmed(v->value, ',');
    bool fits = true;
    for (const std::string& k : keys) {
      if (std::find(columns.begin(), columns.end(), k) == columns.end()) {
        if (v == own) {
          return Status::InvalidArgument("{} names column {}, which {} does not have (columns: {})", flag, k,
                                         table.ToString(), Join(columns, ", "));
        }
        fits = false;
      }
    }
    if (fits) return keys;
  }
  return fallback;
}

Result<TableLayout> LayoutFor(const SourceRelation& relation, const PostgresSyncOptions& options) {
  TableLayout layout;
  for (const ScopedValue& v : options.computed_columns) {
    if (!v.AppliesTo(relation.table)) continue;
    TIDE_ASSIGN_OR_RETURN(ComputedColumn c, ComputedColumn::Parse(v.value));
    if (c.reference() && relation.ColumnIndex(*c.reference()) < 0) {
      // An unscoped computed column applies to the tables that have its column.
      if (!v.scoped()) continue;
      return Status::InvalidArgument("--computed-column {} reads column {}, which {} does not have", v.value,
                                     *c.reference(), relation.table.ToString());
    }
    layout.computed_specs.push_back(v.value);
  }
  TIDE_ASSIGN_OR_RETURN(layout.computed, BuildComputedColumns(layout.computed_specs, relation.fields));
  std::vector<std::string> columns;
  for (const DataField& f : relation.fields) columns.push_back(f.name);
  for (const ComputedColumn& c : layout.computed) columns.push_back(c.name());
  for (MetadataColumn m : options.metadata_columns) {
    std::string name(MetadataColumnName(m));
    if (std::find(columns.begin(), columns.end(), name) != columns.end()) {
      return Status::InvalidArgument("--metadata-column {}: {} already has a column of that name", name,
                                     relation.table.ToString());
    }
    columns.push_back(std::move(name));
  }
  std::vector<std::string> source_keys;
  for (int k : relation.key_columns) source_keys.push_back(relation.fields[static_cast<size_t>(k)].name);
  if (options.selection && options.selection->has_into() && !source_keys.empty()) {
    // Several tables in one: their keys may repeat (shards numbering from 1), so the table's name is
    // part of the key.
    source_keys.emplace_back(MetadataColumnName(MetadataColumn::kTableName));
  }
  TIDE_ASSIGN_OR_RETURN(layout.primary_keys,
                        KeysFor(options.primary_keys, relation.table, columns, "--primary-keys", source_keys));
  TIDE_ASSIGN_OR_RETURN(layout.partition_keys,
                        KeysFor(options.partition_keys, relation.table, columns, "--partition-keys", {}));
  return layout;
}

// Creates the target of `relation` from PostgreSQL's description of it: its columns with their mapped
// types, then the computed columns; its primary key (NOT NULL) and partition keys; the sync's table
// options.
// NOT NULL and comments of a table's columns, from pg_attribute and pg_description.
struct ColumnDetails {
  std::set<std::string> not_null;
  std::map<std::string, std::string> comments;
  std::vector<SourceAttribute> attributes;  // live, non-generated columns in attnum order
};

// The live, non-generated columns of relation `oid` (generated columns are not replicated).
Result<std::vector<SourceAttribute>> ReadSourceAttributes(PgConnection& sql, const std::string& relation) {
  std::string generated = sql.server_version() >= 120000 ? " AND a.attgenerated = ''" : "";
  TIDE_ASSIGN_OR_RETURN(PgResult rows, sql.Query("SELECT a.attnum, a.attname FROM pg_attribute a WHERE a.attrelid = " +
                                                 relation + " AND a.attnum > 0 AND NOT a.attisdropped" + generated +
                                                 " ORDER BY a.attnum"));
  std::vector<SourceAttribute> out;
  for (int r = 0; r < rows.rows(); ++r) {
    TIDE_ASSIGN_OR_RETURN(int64_t attnum, ParseInt64(rows.Value(r, 0), "pg_attribute.attnum"));
    out.push_back(SourceAttribute{static_cast<int32_t>(attnum), std::string(rows.Value(r, 1))});
  }
  return out;
}

Result<ColumnDetails> ReadColumnDetails(PgConnection& sql, const PgTableName& table) {
  std::string regclass = sql.QuoteLiteral(table.Quoted()) + "::regclass";
  TIDE_ASSIGN_OR_RETURN(PgResult rows,
                        sql.Query("SELECT a.attname, a.attnotnull, col_description(a.attrelid, a.attnum) FROM "
                                  "pg_attribute a WHERE a.attrelid = " + regclass +
                                  " AND a.attnum > 0 AND NOT a.attisdropped"));
  ColumnDetails details;
  for (int r = 0; r < rows.rows(); ++r) {
    std::string name(rows.Value(r, 0));
    if (rows.Value(r, 1) == "t") details.not_null.insert(name);
    if (!rows.IsNull(r, 2)) details.comments[name] = std::string(rows.Value(r, 2));
  }
  TIDE_ASSIGN_OR_RETURN(details.attributes, ReadSourceAttributes(sql, regclass));
  return details;
}

Status CreateTargetTable(const Catalog& catalog, const TableIdentifier& id, const SourceRelation& relation,
                         const TableLayout& layout, const ColumnDetails& details, const PostgresSyncOptions& options) {
  std::vector<ColumnDefinition> columns;
  for (const DataField& f : relation.fields) {
    DataType type = details.not_null.count(f.name) ? f.type.WithNullable(false) : f.type;
    std::optional<std::string> comment = f.description;
    if (auto it = details.comments.find(f.name); it != details.comments.end()) comment = it->second;
    columns.push_back(ColumnDefinition{f.name, type, comment});
  }
  for (const ComputedColumn& c : layout.computed) {
    columns.push_back(ColumnDefinition{c.name(), c.result_type(), "computed: " + c.spec()});
  }
  for (MetadataColumn m : options.metadata_columns) {
    columns.push_back(ColumnDefinition{std::string(MetadataColumnName(m)), MetadataColumnType(m),
                                       "metadata: " + std::string(MetadataColumnName(m))});
  }
  // The attnum of each source column (field ids 0.. follow the relation's columns), when the catalog
  // describes the table as the copy saw it (else they are recorded at the first schema change).
  auto table_conf = options.table_conf;
  bool same = details.attributes.size() == relation.fields.size();
  for (size_t i = 0; same && i < relation.fields.size(); ++i) {
    same = details.attributes[i].name == relation.fields[i].name;
  }
  if (same && !relation.fields.empty()) {
    std::map<int32_t, int32_t> attnums;
    for (size_t i = 0; i < details.attributes.size(); ++i) {
      attnums[static_cast<int32_t>(i)] = details.attributes[i].attnum;
    }
    table_conf.emplace_back(std::string(kSourceAttnumsOption), FormatSourceAttnums(attnums));
  }
  auto created = catalog.CreateTable(id, columns, layout.partition_keys, layout.primary_keys, table_conf);
  if (!created.ok() && !created.status().IsAlreadyExists()) {
    return created.status().WithContext("creating the lake table for " + relation.table.ToString());
  }
  return Status::OK();
}

class Pipeline {
 public:
  Pipeline(PostgresSyncOptions& options, PostgresSync* sync, PostgresSyncStats* stats,
           const std::atomic<bool>* stop)
      : o_(options), sync_(sync), stats_(stats), stop_(stop), user_(PostgresSync::CommitUser(options.slot)) {}

  Status Run() {
    TIDE_RETURN_IF_ERROR(ValidateSlotName(o_.slot));
    TIDE_ASSIGN_OR_RETURN(sql_, PgConnection::Connect(o_.conninfo));
    {
      TIDE_ASSIGN_OR_RETURN(PgResult db, sql_->Query("SELECT current_database()"));
      if (db.rows() == 1) source_database_ = std::string(db.Value(0, 0));
    }
    // One sync per slot: a second one would acknowledge what the first has not committed. The lock is
    // the session's, held until this process ends. A sync killed a moment ago may still hold it until
    // its server process notices the closed connection, so a restart waits a few seconds for it.
    for (int attempt = 0;; ++attempt) {
      TIDE_ASSIGN_OR_RETURN(bool locked, PostgresSync::TryLockSlot(*sql_, o_.slot));
      if (locked) break;
      if (stop_->load()) return Status::Aborted("stopped while waiting for the lock of replication slot {}", o_.slot);
      if (attempt == kLockAttempts - 1) {
        return Status::Conflict(
            "another tide sync is running on replication slot {} (it holds the slot's advisory lock); stop it first",
            o_.slot);
      }
      if (attempt == 0) Progress(fmt::format("waiting for the lock of replication slot {}", o_.slot));
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
    // tide doctor's checks (wal_level and REPLICATION among them): a failing one stops the start.
    TIDE_RETURN_IF_ERROR(CheckServerForSync(*sql_, o_));
    if (o_.selection) {
      TIDE_ASSIGN_OR_RETURN(o_.tables, SelectTables());
      std::vector<std::string> names;
      for (const auto& t : o_.tables) names.push_back(t.ToString());
      Progress(fmt::format("selected {}", Join(names, ", ")));
    }
    if (o_.tables.empty()) return Status::InvalidArgument("no tables to sync: give --tables");
    TIDE_RETURN_IF_ERROR(CheckTablesExist(*sql_, o_.tables));
    TIDE_RETURN_IF_ERROR(KeepPublicationInStep());

    FileSystem* fs = FileSystem::Local();
    TIDE_RETURN_IF_ERROR(fs->MakeDirs(o_.warehouse));
    TIDE_ASSIGN_OR_RETURN(catalog_, Catalog::Open(fs, o_.warehouse));
    TIDE_RETURN_IF_ERROR(catalog_->CreateDatabase(o_.database, /*ignore_if_exists=*/true));

    // The tables whose copy never completed; the others resume from their positions.
    std::vector<PgTableName> to_copy;
    for (const PgTableName& table : o_.tables) {
      TableIdentifier id{o_.database, sync_->TargetName(table)};
      TIDE_ASSIGN_OR_RETURN(bool exists, SchemaManager(fs, catalog_->TablePath(id)).Exists());
      if (exists) TIDE_RETURN_IF_ERROR(OpenSink(table));
      if (exists && sinks_.at(table)->committed().copy_lsn == kInvalidLsn &&
          sinks_.at(table)->committed().source_copy_lsn.empty()) {
        TIDE_ASSIGN_OR_RETURN(auto latest, SnapshotManager(fs, catalog_->TablePath(id)).LatestId());
        if (latest) {
          return Status::InvalidArgument(
              "lake table {} holds data that no initial copy of this sync (commit user {}) wrote, so copying {} "
              "into it would add rows twice; drop it (tide table drop --warehouse {} --table {}) or sync into "
              "another table (--table-prefix)",
              id.ToString(), user_, table.ToString(), o_.warehouse, id.ToString());
        }
      }
      if (!exists || !sinks_.at(table)->HasCopyOf(table.ToString())) to_copy.push_back(table);
    }
    for (const PgTableName& table : o_.resync) {
      if (std::find(o_.tables.begin(), o_.tables.end(), table) == o_.tables.end()) {
        return Status::InvalidArgument("{} is not among the synced tables; it cannot be copied again",
                                       table.ToString());
      }
      if (std::find(to_copy.begin(), to_copy.end(), table) == to_copy.end()) to_copy.push_back(table);
      resync_.insert(table);
    }

    Publish([&](SyncProgressSnapshot& p) {
      p.slot = o_.slot;
      p.publication = o_.publication;
      p.started_unix_ms = NowUnixMs();
      for (const PgTableName& table : o_.tables) {
        TableProgress& t = SyncProgress::TableOf(p, table.ToString(), o_.database + "." + sync_->TargetName(table));
        const bool copied = std::find(to_copy.begin(), to_copy.end(), table) == to_copy.end();
        t.phase = copied ? TablePhase::kStreaming : TablePhase::kWaiting;
        if (copied) t.committed_lsn = sinks_.at(table)->committed().commit_lsn;
      }
    });
    TIDE_ASSIGN_OR_RETURN(auto slot, FindReplicationSlot(*sql_, o_.slot));
    if (!slot && o_.copy_only) {
      return Status::NotFound(
          "replication slot {} does not exist: no sync has run with it, so there is nothing to copy again; start "
          "tide sync postgres (it copies every table first)",
          o_.slot);
    }
    if (!slot) {
      // A new slot: every table is copied at its consistent point. A table that already holds data of
      // an earlier slot cannot be continued: the changes after its position are gone.
      for (const PgTableName& table : o_.tables) {
        auto it = sinks_.find(table);
        if (it != sinks_.end() && it->second->committed().snapshot_id) {
          return Status::InvalidArgument(
              "lake table {}.{} holds {} up to LSN {} from an earlier sync, but replication slot {} does not exist "
              "any more, so the changes after that position are gone; drop the lake table (tide table drop "
              "--warehouse {} --table {}.{}) to copy it again, or use the slot it was synced with",
              o_.database, sync_->TargetName(table), table.ToString(),
              FormatLsn(it->second->committed().commit_lsn), o_.slot, o_.warehouse, o_.database,
              sync_->TargetName(table));
        }
      }
      TIDE_ASSIGN_OR_RETURN(auto repl, PgConnection::Connect(o_.conninfo, PgSessionKind::kReplication));
      TIDE_ASSIGN_OR_RETURN(CreatedSlot created,
                            CreateReplicationSlot(*repl, o_.slot, {false, SlotSnapshotAction::kExport}));
      Progress(fmt::format("created replication slot {} at {}", o_.slot, FormatLsn(created.consistent_point)));
      TIDE_RETURN_IF_ERROR(Copy(o_.tables, created.snapshot_name, created.consistent_point, repl));
    } else if (!to_copy.empty()) {
      // Tables joining an existing slot are copied at a temporary slot's position of their own.
      std::unique_ptr<PgConnection> repl;
      TIDE_ASSIGN_OR_RETURN(CreatedSlot created, CreateCopySlot(to_copy, &repl));
      TIDE_RETURN_IF_ERROR(Copy(to_copy, created.snapshot_name, created.consistent_point, repl));
    }
    if (o_.copy_only || stop_->load()) return Status::OK();
    return Stream();
  }

 private:
  // Tries for the slot's advisory lock, 250 ms apart: five seconds.
  static constexpr int kLockAttempts = 20;
  // Copies of one table whose columns changed under them, before the sync gives up.
  static constexpr int kCopyAttempts = 5;

  // Publishes to o_.progress, if any.
  void Publish(const std::function<void(SyncProgressSnapshot&)>& change) {
    if (o_.progress) o_.progress->Update(change);
  }
  static int64_t NowUnixMs() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
  // PostgreSQL's estimate of the rows of `table` (its leaf partitions' for a partitioned table); -1 when
  // it has none (never analyzed).
  int64_t EstimateRows(const PgTableName& table) {
    const std::string relation = sql_->QuoteLiteral(table.Quoted()) + "::regclass";
    // pg_partition_tree lists nothing for a table that is not partitioned.
    auto r = sql_->Query("SELECT sum(greatest(c.reltuples, 0))::bigint, bool_or(c.reltuples >= 0) FROM pg_class c "
                         "WHERE (c.oid = " + relation + " AND c.relkind <> 'p') OR c.oid IN (SELECT relid FROM "
                         "pg_partition_tree(" + relation + ") WHERE isleaf)");
    if (!r.ok() || r->rows() != 1 || r->IsNull(0, 0) || r->Value(0, 1) != "t") return -1;
    auto n = ParseInt64(r->Value(0, 0), "row estimate");
    return n.ok() ? *n : -1;
  }
  // After a commit of `sink` at `lsn`: its sources' positions and commit times.
  void PublishCommit(TableSink& sink, Lsn lsn, double duration_ms) {
    if (!o_.progress) return;
    const int64_t now = NowUnixMs();
    const int64_t buffered = sink.buffered_bytes();
    const BucketFileCounts files = sink.file_counts();
    const BackgroundMaintenanceStats maintenance = sink.maintenance_stats();
    Publish([&](SyncProgressSnapshot& p) {
      for (const std::string& source : sink.sources()) {
        TableProgress& t = SyncProgress::TableOf(p, source, sink.table_name());
        t.committed_lsn = std::max(t.committed_lsn == kInvalidLsn ? 0 : t.committed_lsn, lsn);
        ++t.commits;
        t.last_commit_unix_ms = now;
        t.last_commit_duration_ms = duration_ms;
        t.write_buffer_bytes = buffered;
        t.data_files = files.files;
        t.max_files_per_bucket = files.max_files;
        t.max_sorted_runs_per_bucket = files.max_sorted_runs;
        t.maintenance_runs = maintenance.runs;
        t.maintenance_failures = maintenance.failures;
        t.snapshots_expired = maintenance.snapshots_expired;
        t.last_maintenance_ms = maintenance.last_run_ms;
        t.maintenance_error = maintenance.last_error;
      }
      p.last_commit_unix_ms = now;
      p.commit_duration.Observe(duration_ms / 1000);
      p.recent_commits.push_back(
          CommitRecord{now, sink.table_name(), lsn, sink.committed().snapshot_id.value_or(-1), duration_ms});
      if (p.recent_commits.size() > SyncProgressSnapshot::kRecentCommits) p.recent_commits.pop_front();
    });
  }

  void Progress(const std::string& line) {
    TIDE_LOG_INFO("{}", line);
    if (o_.on_progress) o_.on_progress(line);
  }

  // The server's tables (partitioned roots, not their partitions) that the selection selects.
  Result<std::vector<PgTableName>> SelectTables() {
    TIDE_ASSIGN_OR_RETURN(
        PgResult rows,
        sql_->Query("SELECT n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                    "WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition AND n.nspname NOT IN "
                    "('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%' ORDER BY 1, 2"));
    std::vector<PgTableName> candidates;
    for (int r = 0; r < rows.rows(); ++r) {
      candidates.push_back(PgTableName{std::string(rows.Value(r, 0)), std::string(rows.Value(r, 1))});
    }
    return o_.selection->Select(candidates);
  }

  // Creates the publication for the tables, or adds the tables it lacks when the sync owns it.
  Status KeepPublicationInStep() {
    TIDE_ASSIGN_OR_RETURN(bool exists, PublicationExists(*sql_, o_.publication));
    if (exists && o_.manage_publication) {
      TIDE_ASSIGN_OR_RETURN(auto published, PublicationTables(*sql_, o_.publication));
      std::vector<std::string> missing;
      for (const PgTableName& t : o_.tables) {
        if (std::find(published.begin(), published.end(), t) == published.end()) missing.push_back(t.Quoted());
      }
      if (!missing.empty()) {
        TIDE_RETURN_IF_ERROR(sql_->Execute(fmt::format("ALTER PUBLICATION {} ADD TABLE {}",
                                                       sql_->QuoteIdentifier(o_.publication), Join(missing, ", "))));
        Progress(fmt::format("added {} to publication {}", Join(missing, ", "), o_.publication));
      }
    }
    return EnsurePublication(*sql_, o_.publication, o_.tables);
  }

  Status OpenSink(const PgTableName& table) {
    TableIdentifier id{o_.database, sync_->TargetName(table)};
    if (auto it = targets_.find(id.ToString()); it != targets_.end()) {
      // Another source of the same target (--into).
      TIDE_RETURN_IF_ERROR(it->second->AddSource(table.ToString()));
      sinks_[table] = it->second.get();
      return Status::OK();
    }
    std::vector<std::string> computed;
    for (const ScopedValue& v : o_.computed_columns) {
      if (v.AppliesTo(table)) computed.push_back(v.value);
    }
    TIDE_ASSIGN_OR_RETURN(auto sink, TableSink::Open(FileSystem::Local(), catalog_->TablePath(id), id.ToString(),
                                                     table.ToString(), user_, std::move(computed),
                                                     o_.metadata_columns, source_database_,
                                                     TableSinkConfig{[this] { KeepAlive(); }, o_.commit_interval}));
    sinks_[table] = sink.get();
    targets_[id.ToString()] = std::move(sink);
    return Status::OK();
  }

  // Copies `tables` under the exported snapshot of the slot that `repl` created (at `lsn`), then ends
  // the export. Each table is committed when its last row is in, with the copy's position. A copy at
  // start may stop part-way (the tables not committed are copied at the next start); one while the
  // stream runs (`in_stream`) finishes first, for the round that commits at the stop would otherwise
  // publish a table half copied.
  // A table altered or truncated between the snapshot and the copy's start (SnapshotCopy's
  // changed_tables()) is copied again at a temporary slot's later position, as a table joining an
  // existing slot is; `attempt` counts those rounds.
  Status Copy(const std::vector<PgTableName>& tables, const std::string& snapshot, Lsn lsn,
              std::unique_ptr<PgConnection>& repl, bool in_stream = false, int attempt = 1) {
    SnapshotCopyOptions copy_options;
    copy_options.conninfo = o_.conninfo;
    copy_options.snapshot_name = snapshot;
    copy_options.snapshot_lsn = lsn;
    copy_options.workers = o_.copy_workers;
    // A target opened after the copy starts (created from the relation it reports) appends at most
    // this many values to a copied row: without the room, every row grew once more on the main thread.
    for (const PgTableName& table : tables) {
      auto it = sinks_.find(table);
      if (it != sinks_.end()) {
        copy_options.row_capacity[table] = it->second->TargetRowCapacity();
      } else {
        copy_options.row_extra[table] = ValuesFor(o_.computed_columns, table).size() + o_.metadata_columns.size();
      }
    }
    TIDE_ASSIGN_OR_RETURN(auto copy, SnapshotCopy::Start(copy_options, tables));
    repl.reset();  // every worker holds the snapshot now; the export (and a temporary slot) may end
    // The sources each target still waits for, and those this copy completes: a target of several
    // sources (--into) is committed once all of its sources copied here are in.
    std::map<TableSink*, std::vector<std::string>> copying;
    std::set<TableSink*> truncated;
    for (const SourceRelationPtr& relation : copy->relations()) {
      TableIdentifier id{o_.database, sync_->TargetName(relation->table)};
      TIDE_ASSIGN_OR_RETURN(TableLayout layout, LayoutFor(*relation, o_));
      TIDE_ASSIGN_OR_RETURN(ColumnDetails details, ReadColumnDetails(*sql_, relation->table));
      TIDE_RETURN_IF_ERROR(CreateTargetTable(*catalog_, id, *relation, layout, details, o_));
      if (!sinks_.count(relation->table)) TIDE_RETURN_IF_ERROR(OpenSink(relation->table));
      TableSink& sink = *sinks_.at(relation->table);
      // The table follows the source as the copy sees it: a source of a shared target may have columns
      // the target lacks, and a table copied again may have changed in ways the stream has not shown
      // yet (an ADD COLUMN with no row change after it). Nothing is pending here (a copy while
      // streaming commits the round first), so this commits nothing but the schema.
      TIDE_RETURN_IF_ERROR(sink.Evolve(*relation, kInvalidLsn, false));
      TIDE_RETURN_IF_ERROR(sink.CheckSource(*relation));
      copying[&sink].push_back(relation->table.ToString());
    }
    for (const SourceRelationPtr& relation : copy->relations()) {
      TableSink& sink = *sinks_.at(relation->table);
      if (!resync_.count(relation->table)) continue;
      // Copied again: the copy replaces the table's contents (an OVERWRITE at the copy's position), or,
      // when other sources of a shared target are not copied with it, this source's rows.
      if (copying[&sink].size() >= sink.sources().size()) {
        if (!truncated.insert(&sink).second) continue;
        TIDE_RETURN_IF_ERROR(sink.Truncate());
      } else {
        TIDE_RETURN_IF_ERROR(sink.Truncate(&relation->table));
      }
      Progress(fmt::format("copying {} again into {}, replacing its rows", relation->table.ToString(),
                           sink.table_name()));
    }
    std::map<TableSink*, size_t> remaining;
    for (const auto& [sink, sources] : copying) remaining[sink] = sources.size();
    std::map<TableSink*, int64_t> estimated_rows;  // by target: the sum over the sources it copies
    for (const SourceRelationPtr& relation : copy->relations()) {
      const int64_t estimate = EstimateRows(relation->table);
      if (estimate > 0) estimated_rows[sinks_.at(relation->table)] += estimate;
      if (o_.progress) {
        Publish([&](SyncProgressSnapshot& p) {
          TableProgress& t = SyncProgress::TableOf(p, relation->table.ToString(),
                                                   sinks_.at(relation->table)->table_name());
          t.phase = TablePhase::kCopying;
          t.rows_estimate = estimate;
          t.rows_copied = 0;
        });
      }
    }
    for (const auto& [sink, rows] : estimated_rows) TIDE_RETURN_IF_ERROR(sink->ReserveKeys(rows));
    Progress(fmt::format("copying {} table(s) at {}", tables.size(), FormatLsn(lsn)));
    while (true) {
      TIDE_ASSIGN_OR_RETURN(auto batch, copy->Next());
      if (!batch) break;
      TableSink& sink = *sinks_.at(batch->relation->table);
      stats_->copied_rows += static_cast<int64_t>(batch->rows.size());
      Publish([&](SyncProgressSnapshot& p) {
        SyncProgress::TableOf(p, batch->relation->table.ToString(), sink.table_name()).rows_copied +=
            static_cast<int64_t>(batch->rows.size());
      });
      TIDE_RETURN_IF_ERROR(sink.WriteCopyRows(batch->relation, &batch->rows));
      if (batch->table_complete && --remaining[&sink] == 0) {
        // The commit's position: just below the copy's, unless the target holds other sources at a
        // position of their own P; then P + 1 (no transaction commits at P + 1: WAL records are 8-byte
        // aligned), and the copied sources' positions go into the snapshot beside it.
        const std::vector<std::string>& copied = copying[&sink];
        // A copy at S holds the transactions committed before S: a commit record at S itself is not in
        // the snapshot exported there, and the stream delivers it.
        Lsn commit_lsn = lsn - 1;
        if (sink.committed().commit_lsn != kInvalidLsn && copied.size() < sink.sources().size()) {
          commit_lsn = sink.committed().commit_lsn + 1;
        }
        const Clock::time_point commit_started = Clock::now();
        TIDE_RETURN_IF_ERROR(sink.Commit(commit_lsn, lsn, copied));
        PublishCommit(sink, commit_lsn,
                      std::chrono::duration<double, std::milli>(Clock::now() - commit_started).count());
        Publish([&](SyncProgressSnapshot& p) {
          for (const std::string& source : copied) SyncProgress::TableOf(p, source, "").phase = TablePhase::kStreaming;
        });
        Progress(fmt::format("copied {} into {} ({} rows)", Join(copied, ", "), sink.table_name(),
                             sink.rows_written()));
      }
      copy->Recycle(std::move(*batch));
      if (stop_->load() && !in_stream) {
        if (o_.copy_only) return Status::Aborted("stopped before the copy was complete; no table was replaced");
        // A clean stop: the tables copied so far are committed; the others are copied at the next start.
        Progress("stopped during the initial copy; tables not copied yet are copied when the sync starts again");
        return Status::OK();
      }
    }
    if (copy->changed_tables().empty()) return Status::OK();
    std::vector<PgTableName> changed = copy->changed_tables();
    copy.reset();  // ends the snapshot's transactions, and their locks
    std::vector<std::string> names;
    for (const PgTableName& t : changed) names.push_back(t.ToString());
    if (attempt >= kCopyAttempts) {
      return Status::Aborted(
          "{} changed (an ALTER or a TRUNCATE) between the copy's snapshot and its start {} times in a row; let "
          "the changes settle and start the sync again (the tables copied so far are kept)",
          Join(names, ", "), attempt);
    }
    Progress(fmt::format("{} changed after the copy's snapshot (an ALTER or a TRUNCATE); copying it again at a later "
                         "position",
                         Join(names, ", ")));
    if (stop_->load() && !in_stream) return Status::OK();
    TIDE_ASSIGN_OR_RETURN(auto again, PgConnection::Connect(o_.conninfo, PgSessionKind::kReplication));
    std::string temp = TemporarySlotName();
    TIDE_ASSIGN_OR_RETURN(CreatedSlot created, CreateReplicationSlot(*again, temp, {true, SlotSnapshotAction::kExport}));
    return Copy(changed, created.snapshot_name, created.consistent_point, again, in_stream, attempt + 1);
  }

  // Tables created (or renamed) into the selection while the sync runs: each is added to the
  // publication (one the sync owns; a publication the user named must already publish it, else it
  // waits, with a warning, until it does), copied under the exported snapshot of a temporary slot at
  // a position S_t of its own, and committed at S_t - 1, so that the stream then drops its changes up
  // to S_t and applies every later one: the same hand-over as a table added to --tables at a restart.
  // The publication is extended before that slot is made, so the stream carries every change after S_t.
  // The other tables wait while the new ones copy (a table new to the server is usually small).
  // Runs between transactions only. A failure to look up the server's tables is a warning (the next
  // round tries again); a failure to add or copy a table stops the sync, as at start.
  Status AddNewTables(Lsn last_commit_lsn) {
    last_discovery_ = Clock::now();
    auto selected = SelectTables();
    if (!selected.ok()) {
      TIDE_LOG_WARN("looking for new tables matching --tables: {}", selected.status().ToString());
      return Status::OK();
    }
    std::vector<PgTableName> added;
    for (const PgTableName& t : *selected) {
      if (std::find(o_.tables.begin(), o_.tables.end(), t) != o_.tables.end()) continue;
      if (!o_.manage_publication) {
        Status published = EnsurePublication(*sql_, o_.publication, {t});
        if (!published.ok()) {
          if (unpublished_.insert(t).second) {
            TIDE_LOG_WARN("{} matches --tables but is not synced yet: {}", t.ToString(), published.message());
            Progress(fmt::format("{} matches --tables but publication {} does not publish it; it joins once it does",
                                 t.ToString(), o_.publication));
          }
          continue;
        }
      }
      added.push_back(t);
    }
    if (added.empty()) return Status::OK();
    std::vector<std::string> names;
    for (const PgTableName& t : added) {
      names.push_back(t.ToString());
      o_.tables.push_back(t);
      unpublished_.erase(t);
    }
    Progress(fmt::format("new table(s) matching --tables: {}", Join(names, ", ")));
    TIDE_RETURN_IF_ERROR(KeepPublicationInStep());
    // What is buffered is committed first, at its own position: a target the copy commits (a shared
    // one, --into) must not publish other sources' rows under the copy's position.
    TIDE_RETURN_IF_ERROR(CommitRound(last_commit_lsn));
    std::unique_ptr<PgConnection> repl;
    TIDE_ASSIGN_OR_RETURN(CreatedSlot created, CreateCopySlot(added, &repl));
    return Copy(added, created.snapshot_name, created.consistent_point, repl, /*in_stream=*/true);
  }

  // A `tide sync resync` request read from the stream (resync_request.h): the tables it names that this
  // sync mirrors and that do not hold it yet (a request read again after a restart was done before)
  // are queued for CopyAgain, which runs once the message's transaction is over.
  void QueueResync(const LogicalMessage& message, Lsn at) {
    auto request = ParseResyncRequest(message.content);
    if (!request.ok()) {
      TIDE_LOG_WARN("a {} message at {} was passed over: {}", kResyncMessagePrefix, FormatLsn(message.lsn),
                    request.status().message());
      return;
    }
    if (request->slot != o_.slot) return;  // for the sync on another slot
    for (const PgTableName& table : request->tables) {
      TableSink* sink = sinks_.count(table) ? sinks_.at(table) : nullptr;
      if (sink == nullptr) {
        TIDE_LOG_WARN("tide sync resync asked to copy {} again, but this sync does not mirror it", table.ToString());
        continue;
      }
      if (sink->CopiedAfter(table.ToString(), at)) continue;  // done before a restart
      if (std::find(resync_queue_.begin(), resync_queue_.end(), table) == resync_queue_.end()) {
        resync_queue_.push_back(table);
      }
    }
  }

  // Copies the queued tables again at a temporary slot's position S_t, each committed as an OVERWRITE
  // at S_t - 1 with the copy's position, as at a restart with --resync: the stream then drops their
  // transactions up to S_t and applies every later one. Runs between transactions; the other tables
  // wait meanwhile. Their rows buffered since the last commit are kept and committed as usual.
  Status CopyAgain(Lsn last_commit_lsn) {
    std::vector<PgTableName> tables = std::move(resync_queue_);
    resync_queue_.clear();
    std::vector<std::string> names;
    for (const PgTableName& t : tables) {
      names.push_back(t.ToString());
      resync_.insert(t);
    }
    Progress(fmt::format("copying {} again, as tide sync resync asked", Join(names, ", ")));
    // What is buffered is committed first, at its own position (see AddNewTables). Whether the request
    // is done is told by the tables' copy positions, which this does not move.
    TIDE_RETURN_IF_ERROR(CommitRound(last_commit_lsn));
    std::unique_ptr<PgConnection> repl;
    Status copied;
    if (auto created = CreateCopySlot(tables, &repl); created.ok()) {
      copied = Copy(tables, created->snapshot_name, created->consistent_point, repl, /*in_stream=*/true);
    } else {
      copied = created.status();
    }
    for (const PgTableName& t : tables) resync_.erase(t);
    if (!copied.ok()) {
      return copied.WithContext(fmt::format("copying {} again as tide sync resync asked (the request is read again "
                                            "at the next start)",
                                            Join(names, ", ")));
    }
    return copied;
  }

  // Makes the temporary slot (with an exported snapshot) that copies `tables` at a position of their
  // own, on a replication connection of its own (returned in *repl). A server without room for it
  // (every replication slot or walsender taken) is an error that says so and how to make room: such a
  // copy, retried at the next start, would fail the same way until then.
  Result<CreatedSlot> CreateCopySlot(const std::vector<PgTableName>& tables, std::unique_ptr<PgConnection>* repl) {
    std::vector<std::string> names;
    for (const PgTableName& t : tables) names.push_back(t.ToString());
    auto no_room = [&](const Status& why, std::string_view setting, std::string_view free) {
      return Status::Unavailable(
          "PostgreSQL has no room for the temporary replication slot that copies {} at a position of its own ({}); "
          "{}, or raise {} (ALTER SYSTEM SET {} = ...; then restart PostgreSQL), then start the sync again. A "
          "running sync needs its slot and walsender plus one temporary slot and walsender for each copy it makes "
          "(a table joining, tide sync resync); tide doctor counts them",
          Join(names, ", "), why.message(), free, setting, setting);
    };
    auto conn = PgConnection::Connect(o_.conninfo, PgSessionKind::kReplication);
    if (!conn.ok()) {
      const std::string& m = conn.status().message();
      if (m.find("max_wal_senders") != std::string::npos || m.find("too many") != std::string::npos) {
        return no_room(conn.status(), "max_wal_senders", "end replication connections nobody needs");
      }
      return conn.status();
    }
    auto created = CreateReplicationSlot(**conn, TemporarySlotName(), {true, SlotSnapshotAction::kExport});
    if (!created.ok()) {
      if ((*conn)->last_sqlstate() == "53400" ||
          created.status().message().find("replication slots are in use") != std::string::npos) {
        return no_room(created.status(), "max_replication_slots",
                       "drop slots nobody reads (SELECT slot_name, active FROM pg_replication_slots; SELECT "
                       "pg_drop_replication_slot('NAME'))");
      }
      return created.status();
    }
    *repl = std::move(conn).value();
    return created;
  }

  // A temporary slot's name of its own for each copy: a walsender drops the previous one a moment
  // after its session ends.
  std::string TemporarySlotName() {
    return fmt::format("{}_copy_{}_{}", o_.slot.substr(0, 40), ::getpid(), ++temporary_slots_);
  }

  TableSink* SinkOf(const SourceRelation& relation) {
    auto it = sinks_.find(relation.table);
    return it == sinks_.end() ? nullptr : it->second;
  }

  // Commits every table with pending changes as holding the source up to `lsn`.
  Status CommitRound(Lsn lsn) {
    // The interval runs from the start of a commit round to the start of the next, so the time a round
    // takes does not add to the next one's wait.
    const Clock::time_point started = Clock::now();
    // Every table's last commit is rechecked: a pending one's by its Commit (before anything newer is
    // published), the others' here, so the previous round's position may be acknowledged after it.
    bool any = false;
    for (auto& [target, sink] : targets_) {
      if (!sink->pending()) {
        TIDE_RETURN_IF_ERROR(sink->RecheckCommit());
        continue;
      }
      const Clock::time_point sink_started = Clock::now();
      TIDE_RETURN_IF_ERROR(sink->Commit(lsn));
      PublishCommit(*sink, lsn, std::chrono::duration<double, std::milli>(Clock::now() - sink_started).count());
      any = true;
      KeepAlive();  // a round over many tables may take a while
    }
    if (any) {
      Publish([](SyncProgressSnapshot& p) {
        ++p.commit_rounds;
        // The round holds every transaction read so far: its freshness is that of the newest one.
        if (p.received_commit_unix_us > 0) {
          p.last_freshness_seconds = std::max<double>(0, NowUnixMs() * 1000 - p.received_commit_unix_us) / 1e6;
          p.freshness.Observe(p.last_freshness_seconds);
        }
      });
    }
    if (any) ++stats_->commits;
    // ... but a round that took longer than the interval leaves at least half an interval to the next.
    last_commit_ = std::max(started, Clock::now() - o_.commit_interval / 2);
    return Status::OK();
  }

  // Every table's last commit still stands (TableSink::RecheckCommit).
  Status RecheckCommits() {
    for (auto& [target, sink] : targets_) TIDE_RETURN_IF_ERROR(sink->RecheckCommit());
    return Status::OK();
  }

  bool AnyPending() const {
    for (const auto& [target, sink] : targets_) {
      if (sink->pending()) return true;
    }
    return false;
  }

  // Tells PostgreSQL the stream is alive (a status update with the acknowledged position) while the
  // sync works long between reads of the stream, at most once a second: the server ends a connection
  // that says nothing for wal_sender_timeout (60 s by default).
  void KeepAlive() {
    ChangeStream* stream = live_stream_;
    if (stream == nullptr || Clock::now() - last_keep_alive_ < std::chrono::seconds(1)) return;
    last_keep_alive_ = Clock::now();
    Status sent = stream->Flush();
    if (!sent.ok()) TIDE_LOG_DEBUG("keeping the replication connection alive: {}", sent.ToString());
  }

  Status Stream() {
    // Cross-partition tables build their key index from the lake before the stream starts, not at
    // their first change, when the stream would wait (and say nothing to the server) meanwhile. Writers
    // made later (after a schema change or a TRUNCATE) keep the connection alive while they build it.
    for (auto& [target, sink] : targets_) {
      const Clock::time_point started = Clock::now();
      TIDE_RETURN_IF_ERROR(sink->Prepare());
      const double seconds = std::chrono::duration<double>(Clock::now() - started).count();
      if (seconds >= 1) Progress(fmt::format("built the key index of {} in {:.1f} s", target, seconds));
    }
    ChangeStreamOptions options;
    options.replication.conninfo = o_.conninfo;
    options.replication.slot = o_.slot;
    options.replication.publications = {o_.publication};
    options.replication.status_interval = std::chrono::seconds(1);
    options.replication.reconnect.max_attempts = 1000000;  // keep trying until stopped
    options.replication.messages = true;                   // tide sync resync's requests (resync_request.h)
    TIDE_ASSIGN_OR_RETURN(auto stream, ChangeStream::Start(options));
    sync_->SetStream(stream.get());
    live_stream_ = stream.get();
    struct Unset {
      PostgresSync* sync;
      ChangeStream** live;
      ~Unset() {
        sync->SetStream(nullptr);
        *live = nullptr;
      }
    } unset{sync_, &live_stream_};
    Progress(fmt::format("streaming from slot {} (publication {})", o_.slot, o_.publication));

    TransactionInfo txn;
    bool in_txn = false;
    bool txn_truncated = false;    // the transaction in flight truncated a table
    std::set<TableSink*> touched;  // sinks the transaction in flight wrote to
    Lsn last_commit_lsn = kInvalidLsn, last_end_lsn = kInvalidLsn, acknowledged = kInvalidLsn;
    last_commit_ = Clock::now();
    // The metric shows the flush position the stream reports, which an idle stream also moves past
    // the last commit to the server's keepalive position (nothing of the selected tables lies between).
    Lsn published_ack = kInvalidLsn;
    auto publish_acknowledged = [&] {
      const Lsn reported = stream->replication().reported_flush_lsn();
      if (reported == kInvalidLsn || (published_ack != kInvalidLsn && reported <= published_ack)) return;
      published_ack = reported;
      Publish([reported](SyncProgressSnapshot& p) {
        p.acknowledged_lsn = reported;
        if (reported >= p.received_lsn) p.pending_since_unix_us = 0;
      });
    };
    auto acknowledge = [&](Lsn end) {
      if (end != kInvalidLsn && end > acknowledged) {
        stream->Acknowledge(end);
        acknowledged = end;
      }
      publish_acknowledged();
    };
    // PostgreSQL hears of a position once the snapshots holding it were rechecked (RecheckCommits) a
    // commit interval or more after they landed: by the next round, or when the tables are idle.
    // `unchecked_end`: the end of the last round's transactions, while its snapshots are not rechecked.
    Lsn unchecked_end = kInvalidLsn;
    auto commit_round = [&]() -> Status {
      const Lsn covered = last_end_lsn, previous = unchecked_end;
      TIDE_RETURN_IF_ERROR(CommitRound(last_commit_lsn));  // rechecks the previous round's snapshots first
      acknowledge(previous);
      unchecked_end = covered;
      return Status::OK();
    };
    auto acknowledge_idle = [&]() -> Status {
      if (unchecked_end != kInvalidLsn) {
        if (Clock::now() - last_commit_ < o_.commit_interval) {
          publish_acknowledged();
          return Status::OK();
        }
        TIDE_RETURN_IF_ERROR(RecheckCommits());
        unchecked_end = kInvalidLsn;
      }
      acknowledge(last_end_lsn);
      return Status::OK();
    };
    // Changes of the transaction in flight per source table, published when it commits.
    std::vector<std::pair<PgTableName, int64_t>> txn_changes;
    Status result;
    last_discovery_ = Clock::now();
    while (!(stop_->load() && !in_txn)) {
      if (!in_txn && o_.selection && Clock::now() - last_discovery_ >= o_.table_discovery_interval) {
        result = AddNewTables(last_commit_lsn);
        if (!result.ok()) break;
        if (stop_->load()) continue;
      }
      auto next = stream->Next(std::chrono::milliseconds(100));
      if (!next.ok()) {
        // A stop requested while the server was away ends the stream with Aborted: a clean stop.
        if (!(next.status().code() == StatusCode::kAborted && stop_->load())) result = next.status();
        break;
      }
      if (!*next) {
        if (in_txn) continue;
        if (AnyPending()) {
          if (Clock::now() - last_commit_ >= o_.commit_interval) {
            result = commit_round();
            if (!result.ok()) break;
          }
        } else {
          result = acknowledge_idle();  // the selected tables are idle: let PostgreSQL free the WAL
          if (!result.ok()) break;
        }
        continue;
      }
      ChangeEvent& event = **next;
      if (auto* begin = std::get_if<BeginTransaction>(&event)) {
        txn = begin->txn;
        in_txn = true;
        touched.clear();
        txn_changes.clear();
      } else if (auto* change = std::get_if<RowChange>(&event)) {
        TableSink* sink = SinkOf(*change->relation);
        if (sink == nullptr || sink->Holds(change->relation->table.ToString(), txn.commit_lsn)) continue;
        result = sink->Apply(*change, TableSink::TransactionContext{txn.commit_time_micros, last_commit_lsn,
                                                                     touched.count(sink) > 0});
        if (!result.ok()) break;
        touched.insert(sink);
        ++stats_->streamed_changes;
        if (o_.progress) {
          const PgTableName& source = change->relation->table;
          auto it = std::find_if(txn_changes.begin(), txn_changes.end(), [&](const auto& c) { return c.first == source; });
          if (it == txn_changes.end()) {
            txn_changes.emplace_back(source, 1);
          } else {
            ++it->second;
          }
        }
      } else if (auto* schema = std::get_if<SourceSchemaChange>(&event)) {
        TableSink* sink = SinkOf(*schema->current);
        if (sink == nullptr) continue;
        // A transaction the table holds may carry an older description (replayed after a restart).
        if (sink->Holds(schema->current->table.ToString(), txn.commit_lsn)) continue;
        result = sink->Evolve(*schema->current, last_commit_lsn, touched.count(sink) > 0,
                              [this](PgOid oid) { return ReadSourceAttributes(*sql_, std::to_string(oid)); });
        if (!result.ok()) {
          result = result.WithContext(fmt::format("the description of {} changed at LSN {}",
                                                  schema->current->table.ToString(), FormatLsn(txn.commit_lsn)));
          break;
        }
      } else if (auto* truncate = std::get_if<TruncateTables>(&event)) {
        for (const auto& relation : truncate->relations) {
          TableSink* sink = SinkOf(*relation);
          if (sink == nullptr || sink->Holds(relation->table.ToString(), txn.commit_lsn)) continue;
          result = sink->Truncate(&relation->table);
          if (!result.ok()) break;
          // The TRUNCATE is part of this transaction: a schema change after it must not commit it early.
          touched.insert(sink);
          txn_truncated = true;
        }
        if (!result.ok()) break;
      } else if (auto* message = std::get_if<LogicalMessage>(&event)) {
        if (message->prefix != kResyncMessagePrefix) continue;
        // A transactional request is ordered by its transaction's commit.
        QueueResync(*message, in_txn ? txn.commit_lsn : message->lsn);
        if (!in_txn && !resync_queue_.empty()) {
          result = CopyAgain(last_commit_lsn);
          if (!result.ok()) break;
        }
      } else if (auto* commit = std::get_if<CommitTransaction>(&event)) {
        in_txn = false;
        last_commit_lsn = commit->txn.commit_lsn;
        last_end_lsn = commit->txn.end_lsn;
        ++stats_->transactions;
        Publish([&](SyncProgressSnapshot& p) {
          ++p.transactions;
          p.reconnects = static_cast<int64_t>(stream->stats().reconnects);
          p.received_lsn = last_end_lsn;
          p.received_commit_unix_us = commit->txn.commit_time_micros;
          if (p.pending_since_unix_us == 0) p.pending_since_unix_us = commit->txn.commit_time_micros;
          for (const auto& [source, n] : txn_changes) {
            SyncProgress::TableOf(p, source.ToString(), "").changes_streamed += n;
            p.streamed_changes += n;
          }
        });
        // Before anything commits past the request: a stop now must not acknowledge it undone.
        if (!resync_queue_.empty()) {
          result = CopyAgain(last_commit_lsn);
          if (!result.ok()) break;
        }
        // A TRUNCATE is an OVERWRITE commit, which carries no changelog (as Java's overwrite): it goes out
        // at its transaction's end, so the changes of the transactions after it are committed as APPEND
        // snapshots with their changelog. (Rows the truncating transaction itself writes after the
        // TRUNCATE go with the overwrite: a snapshot never holds part of a transaction.)
        if (txn_truncated || Clock::now() - last_commit_ >= o_.commit_interval) {
          txn_truncated = false;
          result = AnyPending() ? commit_round() : acknowledge_idle();
          if (!result.ok()) break;
        }
      }
    }
    if (result.ok() && !in_txn) {
      // Stopping: what is buffered is whole transactions; commit it, then tell PostgreSQL.
      result = CommitRound(last_commit_lsn);
      if (result.ok()) result = RecheckCommits();
      if (result.ok()) {
        acknowledge(last_end_lsn);
        stream->Flush().IgnoreError();
        Progress(fmt::format("stopped at {}", FormatLsn(last_commit_lsn)));
      }
    }
    stream->Close().IgnoreError();
    return result;
  }

  PostgresSyncOptions& o_;
  PostgresSync* sync_;
  PostgresSyncStats* stats_;
  const std::atomic<bool>* stop_;
  std::string user_;
  std::unique_ptr<PgConnection> sql_;
  std::string source_database_;  // current_database() of the source, for the database_name metadata column
  std::unique_ptr<Catalog> catalog_;
  std::map<std::string, std::unique_ptr<TableSink>> targets_;  // by lake table (db.table)
  std::map<PgTableName, TableSink*> sinks_;                     // by source table
  std::set<PgTableName> resync_;  // tables copied again (o_.resync, or a request while streaming)
  std::vector<PgTableName> resync_queue_;  // tables a tide sync resync request asked for, not copied yet
  int temporary_slots_ = 0;                // temporary slots made so far (for their names)
  ChangeStream* live_stream_ = nullptr;    // the stream Stream() reads, while it runs
  Clock::time_point last_keep_alive_ = Clock::now();
  Clock::time_point last_commit_ = Clock::now();
  Clock::time_point last_discovery_ = Clock::now();
  std::set<PgTableName> unpublished_;  // selected tables the user's publication lacks (warned once)
};

}  // namespace

Result<bool> PostgresSync::TryLockSlot(PgConnection& conn, const std::string& slot) {
  TIDE_ASSIGN_OR_RETURN(PgResult locked,
                        conn.Query("SELECT pg_try_advisory_lock(hashtext(" + conn.QuoteLiteral(LockKey(slot)) + "))"));
  return locked.rows() == 1 && locked.Value(0, 0) == "t";
}

void PostgresSync::RequestStop() {
  stop_.store(true);
  if (ChangeStream* stream = stream_.load()) stream->RequestStop();
}

Status PostgresSync::Run() {
  PostgresSyncOptions options = options_;
  Pipeline pipeline(options, this, &stats_, &stop_);
  Status result = pipeline.Run();
  if (!result.ok() && options.progress) {
    options.progress->Update([&](SyncProgressSnapshot& p) {
      p.last_error = result.ToString();
      p.last_error_kind = std::string(StatusCodeName(result.code()));
    });
  }
  return result;
}

}  // namespace tide
