#include "tide/sync/table_sink.h"

#include "tide/base/logging.h"
#include "tide/base/strings.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <thread>

#include "tide/table/schema/schema_change.h"
#include "tide/table/schema/schema_manager.h"
#include "tide/table/crosspartition/global_index_assigner.h"
#include "tide/table/schema/core_options.h"
#include "tide/table/operation/file_store_scan.h"
#include "tide/table/snapshot/snapshot_manager.h"
#include "tide/table/source/snapshot_table_reader.h"
#include "tide/table/table.h"

namespace tide {

Result<SinkPosition> ReadSinkPosition(FileSystem* fs, const std::string& table_path, const std::string& commit_user) {
  SnapshotManager snapshots(fs, table_path);
  SinkPosition position;
  TIDE_ASSIGN_OR_RETURN(auto latest, snapshots.LatestId());
  if (!latest) return position;
  TIDE_ASSIGN_OR_RETURN(auto earliest, snapshots.EarliestId());
  for (int64_t id = *latest; id >= earliest.value_or(1); --id) {
    auto s = snapshots.Get(id);
    if (!s.ok()) {
      if (s.status().IsNotFound()) break;  // expired underneath us
      return s.status();
    }
    if (s->commit_user != commit_user) continue;
    position.snapshot_id = id;
    position.commit_lsn = static_cast<Lsn>(s->commit_identifier);
    if (s->properties) {
      auto it = s->properties->find(std::string(kCopyLsnProperty));
      if (it != s->properties->end()) {
        TIDE_ASSIGN_OR_RETURN(position.copy_lsn, ParseLsn(it->second));
      }
      if (auto source = s->properties->find(std::string(kSourceTableProperty)); source != s->properties->end()) {
        position.source_table = source->second;
      }
      for (const auto& [key, value] : *s->properties) {
        if (!StartsWith(key, kSourceCopyLsnPropertyPrefix)) continue;
        TIDE_ASSIGN_OR_RETURN(Lsn lsn, ParseLsn(value));
        position.source_copy_lsn[key.substr(kSourceCopyLsnPropertyPrefix.size())] = lsn;
      }
    }
    break;
  }
  return position;
}

TableSink::~TableSink() {
  if (write_) write_->Abort();
}

Result<std::unique_ptr<TableSink>> TableSink::Open(FileSystem* fs, std::string table_path, std::string table_name,
                                                   std::string source_table, std::string commit_user,
                                                   std::vector<std::string> computed_specs,
                                                   std::vector<MetadataColumn> metadata, std::string source_database,
                                                   TableSinkConfig config) {
  std::unique_ptr<TableSink> sink(new TableSink());
  sink->config_ = std::move(config);
  sink->metadata_ = std::move(metadata);
  sink->source_database_ = std::move(source_database);
  sink->fs_ = fs;
  sink->table_path_ = std::move(table_path);
  sink->table_name_ = std::move(table_name);
  sink->source_table_ = std::move(source_table);
  sink->sources_.push_back(sink->source_table_);
  sink->commit_user_ = std::move(commit_user);
  sink->computed_specs_ = std::move(computed_specs);
  for (const std::string& spec : sink->computed_specs_) {
    TIDE_ASSIGN_OR_RETURN(ComputedColumn c, ComputedColumn::Parse(spec));
    sink->computed_names_.insert(c.name());
  }
  TIDE_ASSIGN_OR_RETURN(sink->schema_, SchemaManager(fs, sink->table_path_).Latest());
  for (const std::string& key : sink->schema_.primary_keys) {
    sink->key_columns_.push_back(sink->schema_.FieldIndex(key));
  }
  std::vector<DataType> key_types;
  for (int k : sink->key_columns_) key_types.push_back(sink->schema_.fields[static_cast<size_t>(k)].type);
  sink->key_writer_ = std::make_unique<BinaryRowWriter>(std::move(key_types));
  TIDE_ASSIGN_OR_RETURN(sink->committed_, ReadSinkPosition(fs, sink->table_path_, sink->commit_user_));
  // The sources the table already holds (several with --into) stay in its properties.
  for (const std::string& source : SplitTrimmed(sink->committed_.source_table, ',')) {
    if (!source.empty() && std::find(sink->sources_.begin(), sink->sources_.end(), source) == sink->sources_.end()) {
      sink->sources_.push_back(source);
    }
  }
  TIDE_ASSIGN_OR_RETURN(CoreOptions options, CoreOptions::Create(sink->schema_, sink->table_name_));
  sink->cross_partition_ = options.bucket() == -1 && IsCrossPartitionUpdate(sink->schema_);
  if (options.merge_engine() == MergeEngine::kAggregation) {
    // An aggregation table retracts what a replaced or deleted row added, unless every value column
    // ignores retractions; a delete may instead remove the whole record.
    for (size_t f = 0; f < sink->schema_.fields.size(); ++f) {
      const std::string& name = sink->schema_.fields[f].name;
      if (std::find(sink->schema_.primary_keys.begin(), sink->schema_.primary_keys.end(), name) !=
          sink->schema_.primary_keys.end()) {
        continue;
      }
      if (sink->schema_.FindOption("fields." + name + ".ignore-retract").value_or("false") != "true") {
        sink->retracts_ = true;
      }
    }
    sink->deletes_remove_records_ =
        sink->schema_.FindOption("aggregation.remove-record-on-delete").value_or("false") == "true";
  }
  sink->remember_rows_ = sink->MayNeedRecentRows();
  TIDE_RETURN_IF_ERROR(sink->NewWriter());
  TIDE_ASSIGN_OR_RETURN(sink->commit_, FileStoreCommit::Create(fs, sink->table_path_, sink->table_name_));
  return sink;
}

Status TableSink::RenewMaintenance() {
  TIDE_ASSIGN_OR_RETURN(auto maintenance, TableMaintenance::Create(fs_, table_path_, table_name_));
  if (maintenance_) {
    // Waits for a run under way (one run is bounded by snapshot.expire.limit).
    const BackgroundMaintenanceStats old = maintenance_->stats();
    maintenance_.reset();
    retired_maintenance_.Accumulate(old);
  }
  maintenance_ = std::make_unique<BackgroundMaintenance>(std::move(maintenance));
  return Status::OK();
}

Status TableSink::NewWriter(bool for_overwrite) {
  int64_t sequence_floor = 0;
  if (write_) {
    sequence_floor = write_->NextSequenceFloor();
    write_->Abort();
  }
  renew_writer_ = false;
  // The new writer restores from the latest snapshot: should a snapshot of the last commit be found
  // replaced later, its files come back after that snapshot and the writer does not hold them.
  renewed_since_commit_ = !for_overwrite;
  TIDE_RETURN_IF_ERROR(RenewMaintenance());
  TableWriteConfig config;
  config.table_name = table_name_;
  // Rows for an OVERWRITE must not be compacted with the files it replaces.
  config.ignore_previous_files = for_overwrite;
  config.keep_alive = config_.keep_alive;
  const auto interval = std::max<int64_t>(1, config_.commit_interval.count());
  const int64_t slack_commits =
      std::chrono::duration_cast<std::chrono::milliseconds>(TableSinkConfig::kCompactionSlack).count() / interval;
  config.sorted_runs_beyond_trigger = static_cast<int32_t>(std::clamp<int64_t>(slack_commits, 3, 1000));
  config.compact_unaware_append = true;  // a long-running writer, as Flink's streaming sink
  config.flush_ahead = true;             // memory flushes (a copy, a catch-up) overlap the next rows
  config.sequence_floor = sequence_floor;  // rows of the new writer sort above the old one's
  TIDE_ASSIGN_OR_RETURN(write_, TableWrite::Create(fs_, table_path_, schema_, commit_user_, config));
  return Status::OK();
}

Status TableSink::Prepare() {
  if (!failed_.ok()) return failed_;
  Status s = write_->LoadKeyIndex();
  if (!s.ok()) return Fail(s);
  return Status::OK();
}

Status TableSink::ReserveKeys(int64_t rows) {
  if (!failed_.ok()) return failed_;
  if (rows <= 0) return Status::OK();
  Status s = write_->ReserveKeys(static_cast<size_t>(rows));
  if (!s.ok()) return Fail(s);
  return Status::OK();
}

Status TableSink::AddSource(const std::string& source) {
  if (std::find(sources_.begin(), sources_.end(), source) != sources_.end()) return Status::OK();
  if (schema_.FieldIndex(std::string(MetadataColumnName(MetadataColumn::kTableName))) < 0) {
    return Status::InvalidArgument(
        "table {}: {} and {} are synced into it, but it has no table_name column to tell their rows apart; drop "
        "it and let the sync create it anew with --into",
        table_name_, source_table_, source);
  }
  sources_.push_back(source);
  remember_rows_ = MayNeedRecentRows();
  return Status::OK();
}

bool TableSink::HasCopyOf(const std::string& source) const {
  if (auto it = committed_.source_copy_lsn.find(source); it != committed_.source_copy_lsn.end()) return true;
  // A table of one source records its copy position alone.
  return committed_.source_copy_lsn.empty() && committed_.copy_lsn != kInvalidLsn &&
         SplitTrimmed(committed_.source_table, ',') == std::vector<std::string>{source};
}

bool TableSink::Holds(const std::string& source, Lsn commit_lsn) const {
  if (commit_lsn <= committed_.commit_lsn) return true;
  // A copy at S holds the transactions that committed before S (a commit record at S itself is not in
  // the snapshot exported at S; the stream delivers it).
  auto it = committed_.source_copy_lsn.find(source);
  return it != committed_.source_copy_lsn.end() && commit_lsn < it->second;
}

bool SinkPosition::CopiedAfter(const std::string& source, bool only_source, Lsn lsn) const {
  Lsn at = kInvalidLsn;
  if (auto it = source_copy_lsn.find(source); it != source_copy_lsn.end()) at = it->second;
  if (only_source && copy_lsn != kInvalidLsn) at = at == kInvalidLsn ? copy_lsn : std::max(at, copy_lsn);
  return at != kInvalidLsn && at > lsn;
}

Status TableSink::DeleteRowsOf(const PgTableName& source) {
  const int table_column = schema_.FieldIndex(std::string(MetadataColumnName(MetadataColumn::kTableName)));
  const int schema_column = schema_.FieldIndex(std::string(MetadataColumnName(MetadataColumn::kSchemaName)));
  auto of_source = [&](const Row& row) {
    return row[static_cast<size_t>(table_column)].as_string() == source.name &&
           (schema_column < 0 || row[static_cast<size_t>(schema_column)].is_null() ||
            row[static_cast<size_t>(schema_column)].as_string() == source.schema);
  };
  if (key_columns_.empty()) {
    return Fail(Status::NotSupported(
        "table {}: a TRUNCATE of {} must delete only its rows, but the table has no primary key to delete rows "
        "by; give the source tables a primary key, or sync them into tables of their own",
        table_name_, source.ToString()));
  }
  if (pending_ && !recent_.complete()) {
    return Fail(Status::NotSupported(
        "table {}: a TRUNCATE of {} came after more rows than Tide keeps since the last commit ({} MiB); its "
        "buffered rows cannot be told apart from the other sources'; truncate it in a transaction of its own",
        table_name_, source.ToString(), kRecentRowsBudget >> 20));
  }
  std::vector<Row> doomed = recent_.RowsWhere(of_source);
  for (Row& row : doomed) row.resize(schema_.fields.size());  // remembered before a column was added
  auto table = Table::Open(fs_, table_path_, table_name_);
  if (!table.ok()) return Fail(table.status());
  auto reader = (*table)->NewReader(ReadOptions{});
  if (!reader.ok()) return Fail(reader.status().WithContext("reading the rows of " + source.ToString() + " to truncate"));
  std::vector<std::string> names;
  for (const DataField& f : (*reader)->fields()) names.push_back(f.name);
  std::vector<Row> rows;
  while (true) {
    rows.clear();
    auto more = (*reader)->NextBatch(4096, &rows);
    if (!more.ok()) return Fail(more.status().WithContext("reading the rows of " + source.ToString() + " to truncate"));
    for (Row& read : rows) {
      // The committed row in the current schema's column order (the snapshot may predate a new column).
      Row row(schema_.fields.size());
      for (size_t i = 0; i < names.size() && i < read.size(); ++i) {
        int idx = schema_.FieldIndex(names[i]);
        if (idx >= 0) row[static_cast<size_t>(idx)] = std::move(read[i]);
      }
      if (of_source(row)) doomed.push_back(std::move(row));
    }
    for (Row& row : doomed) TIDE_RETURN_IF_ERROR(Write(RowKind::kDelete, std::move(row)));
    doomed.clear();
    if (!*more) break;
  }
  return Status::OK();
}

Status TableSink::Truncate(const PgTableName* source) {
  if (!failed_.ok()) return failed_;
  if (source && multi_source()) return DeleteRowsOf(*source);
  // The rows buffered so far came before the TRUNCATE: they go with the table. The writer of what
  // follows starts from an empty table (no files, no bucket assignments), so a whole-table overwrite
  // publishes it in every bucket mode.
  Status s = NewWriter(/*for_overwrite=*/true);
  if (!s.ok()) return Fail(s);
  pending_ = true;
  truncate_ = true;
  recent_.Reset(/*lake_empty=*/true);
  return Status::OK();
}

Status TableSink::Fail(Status status) {
  if (failed_.ok()) failed_ = status;
  return status;
}

Status TableSink::CheckSource(const SourceRelation& relation) const {
  for (const DataField& f : relation.fields) {
    int idx = schema_.FieldIndex(f.name);
    if (idx < 0) {
      return Status::InvalidArgument(
          "table {}: source column {}.{} has no column in the lake table; add it to the Paimon table (tide table "
          "alter) or let Tide create the table anew",
          table_name_, relation.table.ToString(), f.name);
    }
    const DataType& target = schema_.fields[static_cast<size_t>(idx)].type;
    // A narrower source type whose values the target holds as they are (INT in BIGINT, VARCHAR(10) in
    // VARCHAR(20), DECIMAL(10, 2) in DECIMAL(12, 2)): an older description replayed after a restart.
    bool fits = IsImplicitCast(f.type, target) &&
                (target.root() != TypeRoot::kDecimal || target.scale() == f.type.scale());
    if (!target.EqualsIgnoreNullable(f.type) && !fits) {
      return Status::InvalidArgument("table {}: column {} is {} in the lake but {} in PostgreSQL ({}); the types must match",
                                     table_name_, f.name, target.ToString(), f.type.ToString(),
                                     relation.table.ToString());
    }
  }
  for (int k : key_columns_) {
    const std::string& key = schema_.fields[static_cast<size_t>(k)].name;
    bool metadata = std::any_of(metadata_.begin(), metadata_.end(),
                                [&](MetadataColumn m) { return MetadataColumnName(m) == key; });
    if (relation.ColumnIndex(key) < 0 && !computed_names_.count(key) && !metadata) {
      return Status::InvalidArgument("table {}: primary-key column {} is not a column of {}", table_name_, key,
                                     relation.table.ToString());
    }
  }
  return Status::OK();
}

std::string FormatSourceAttnums(const std::map<int32_t, int32_t>& attnums) {
  std::string out;
  for (const auto& [field_id, attnum] : attnums) {
    if (!out.empty()) out += ',';
    out += fmt::format("{}:{}", field_id, attnum);
  }
  return out;
}

Result<std::map<int32_t, int32_t>> ParseSourceAttnums(std::string_view value) {
  std::map<int32_t, int32_t> out;
  size_t pos = 0;
  while (pos < value.size()) {
    size_t comma = value.find(',', pos);
    std::string_view item = value.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    pos = comma == std::string_view::npos ? value.size() : comma + 1;
    size_t colon = item.find(':');
    int32_t field_id = 0, attnum = 0;
    bool ok = colon != std::string_view::npos;
    if (ok) {
      auto a = std::from_chars(item.data(), item.data() + colon, field_id);
      auto b = std::from_chars(item.data() + colon + 1, item.data() + item.size(), attnum);
      ok = a.ec == std::errc() && a.ptr == item.data() + colon && b.ec == std::errc() &&
           b.ptr == item.data() + item.size() && attnum > 0;
    }
    if (!ok) {
      return Status::InvalidArgument("table option {} = '{}' is malformed at '{}' (expected fieldId:attnum,...); "
                                     "remove it (tide table alter --reset-option) and Tide records it again",
                                     kSourceAttnumsOption, value, item);
    }
    out[field_id] = attnum;
  }
  return out;
}

bool TableSink::IsSourceField(const DataField& field) const {
  if (computed_names_.count(field.name)) return false;
  for (MetadataColumn m : metadata_) {
    if (MetadataColumnName(m) == field.name) return false;
  }
  return true;
}

Status TableSink::Evolve(const SourceRelation& relation, Lsn last_complete_lsn, bool touched_in_transaction,
                         const SourceAttributeReader& read_catalog) {
  if (!failed_.ok()) return failed_;
  const std::string source = relation.table.ToString();
  if (read_catalog) {
    // A transaction resent after a restart may describe the table as it was before a schema change
    // that the same transaction made and that the lake already took (its rows are not committed yet).
    auto older = OlderSchemaOf(relation, read_catalog);
    if (!older.ok()) return Fail(older.status().WithContext("table " + table_name_));
    if (older->has_value()) {
      OlderRelation& recorded = older_[&relation];
      recorded.names.clear();
      for (const DataField& f : relation.fields) recorded.names.push_back(f.name);
      recorded.columns = std::move(**older);
      return Status::OK();
    }
  }
  std::map<int32_t, int32_t> attnums;  // lake field id -> source attnum, as recorded
  if (std::optional<std::string> recorded = schema_.FindOption(std::string(kSourceAttnumsOption))) {
    auto parsed = ParseSourceAttnums(*recorded);
    if (!parsed.ok()) return Fail(parsed.status().WithContext("table " + table_name_));
    attnums = std::move(parsed).value();
  }
  std::map<int32_t, int32_t> field_of_attnum;
  for (const auto& [id, attnum] : attnums) {
    if (schema_.FieldIndexById(id) >= 0) field_of_attnum[attnum] = id;
  }

  // The catalog tells renames from drops and adds by attnum; it is read now, possibly after more DDL
  // than the stream has reached, so it is trusted only when it lists exactly the stream's columns.
  std::optional<std::vector<SourceAttribute>> catalog;   // trusted
  std::optional<std::vector<SourceAttribute>> later;     // read, but ahead of the stream
  // A table of several sources (--into) follows each by column name: attnums are per source table, so
  // one source's attnum says nothing of another's columns; a column one source lacks is not a rename.
  const bool by_name = multi_source();
  if (read_catalog && !by_name) {
    auto lists_stream_columns = [&](const std::vector<SourceAttribute>& columns) {
      if (columns.size() != relation.fields.size()) return false;
      for (size_t i = 0; i < columns.size(); ++i) {
        if (columns[i].name != relation.fields[i].name) return false;
      }
      return true;
    };
    auto read = read_catalog(relation.oid);
    // A commit can reach the stream a moment before other sessions see it (PostgreSQL writes the
    // commit record, then makes the transaction visible): a catalog that does not list the stream's
    // columns yet is read again for up to a second before it is taken as ahead of the stream.
    for (int attempt = 0; read.ok() && !lists_stream_columns(*read) && attempt < 50; ++attempt) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      read = read_catalog(relation.oid);
    }
    if (!read.ok()) {
      TIDE_LOG_WARN("table {}: cannot read the columns of {} from the catalog ({}); matching columns by name",
                    table_name_, source, read.status().ToString());
    } else {
      if (lists_stream_columns(*read)) {
        catalog = std::move(read).value();
      } else {
        later = std::move(read).value();
      }
    }
  }

  // The lake column of each source column (index into schema_.fields; -1: a new column).
  std::vector<int> target(relation.fields.size(), -1);
  std::map<int32_t, std::string> renames;                  // field id -> new name
  std::vector<std::pair<std::string, int32_t>> additions;  // new column -> attnum (0: unknown)
  std::map<int32_t, int32_t> next_attnums = attnums;
  if (catalog) {
    std::set<int32_t> live;
    for (const SourceAttribute& a : *catalog) live.insert(a.attnum);
    for (size_t i = 0; i < relation.fields.size(); ++i) {
      const std::string& name = relation.fields[i].name;
      const int32_t attnum = (*catalog)[i].attnum;
      if (auto it = field_of_attnum.find(attnum); it != field_of_attnum.end()) {
        int idx = schema_.FieldIndexById(it->second);
        target[i] = idx;
        if (schema_.fields[static_cast<size_t>(idx)].name != name) renames[it->second] = name;
        continue;
      }
      int idx = schema_.FieldIndex(name);
      if (idx >= 0 && IsSourceField(schema_.fields[static_cast<size_t>(idx)])) {
        const DataField& f = schema_.fields[static_cast<size_t>(idx)];
        auto known = attnums.find(f.id);
        if (known == attnums.end()) {
          // Not recorded yet (a table synced before attnums were kept): the column of that name.
          target[i] = idx;
          next_attnums[f.id] = attnum;
          continue;
        }
        if (!live.count(known->second)) {
          return Fail(Status::InvalidArgument(
              "table {}: column {} of {} is a new column (attnum {}), but lake column {} holds the column of that "
              "name that PostgreSQL dropped (attnum {}); rename or drop the lake column (tide table alter --rename-column or "
              "--drop-column), then restart; nothing after the last commit was acknowledged",
              table_name_, name, source, attnum, name, known->second));
        }
        // The lake column of that name is renamed away (its attnum lives on under another name).
      }
      additions.emplace_back(name, attnum);
    }
  } else {
    std::vector<std::string> gained;
    for (size_t i = 0; i < relation.fields.size(); ++i) {
      int idx = schema_.FieldIndex(relation.fields[i].name);
      if (idx >= 0 && IsSourceField(schema_.fields[static_cast<size_t>(idx)])) {
        target[i] = idx;
      } else {
        gained.push_back(relation.fields[i].name);
      }
    }
    // Lake columns that may have been renamed to a gained name: those the description lacks whose
    // attnum is still alive in the catalog (a dropped attnum never comes back). A column whose attnum
    // is not known (recorded before attnums were kept, or added while the catalog was ahead of the
    // stream) or cannot be checked is taken as dropped, as before attnums were kept: it stays, NULL from
    // now on, and the gained column is added; no value is lost either way.
    std::vector<std::string> lost;
    if (!gained.empty() && !by_name && later) {
      std::set<int32_t> alive;
      for (const SourceAttribute& a : *later) alive.insert(a.attnum);
      for (const DataField& f : schema_.fields) {
        if (!IsSourceField(f) || relation.ColumnIndex(f.name) >= 0) continue;
        auto known = attnums.find(f.id);
        if (known != attnums.end() && alive.count(known->second)) lost.push_back(f.name);
      }
    }
    if (!lost.empty()) {
      return Fail(Status::InvalidArgument(
          "table {}: at this point of the stream {} has column(s) {} the lake lacks, and lacks lake column(s) {}; "
          "PostgreSQL's catalog {}, so Tide cannot tell a RENAME COLUMN from a DROP COLUMN and an ADD COLUMN. If "
          "{} was renamed to {}, rename the lake column to match (tide table alter --warehouse W {} "
          "--rename-column {}={}); if it was dropped, add the new column to the lake table yourself (tide table "
          "alter --add-column); then restart (nothing after the last commit was acknowledged)",
          table_name_, source, Join(gained, ", "), Join(lost, ", "),
          later ? "describes the table differently by now (it changed again since)" : "could not be read",
          lost.front(), gained.front(), table_name_, lost.front(), gained.front()));
    }
    for (const std::string& name : gained) {
      int32_t attnum = 0;
      if (later) {
        for (const SourceAttribute& a : *later) {
          if (a.name == name && !field_of_attnum.count(a.attnum)) attnum = a.attnum;
        }
      }
      additions.emplace_back(name, attnum);
    }
  }

  std::vector<SchemaChange> changes;
  // Renames first, through temporary names when a new name is still taken (swaps, rename-then-add).
  bool direct = true;
  for (const auto& [id, name] : renames) direct = direct && schema_.FieldIndex(name) < 0;
  for (const auto& [id, name] : renames) {
    const std::string& old_name = schema_.fields[static_cast<size_t>(schema_.FieldIndexById(id))].name;
    changes.push_back(SchemaChange::RenameColumn(old_name, direct ? name : fmt::format("__tide_renaming_{}", id)));
  }
  if (!direct) {
    for (const auto& [id, name] : renames) {
      changes.push_back(SchemaChange::RenameColumn(fmt::format("__tide_renaming_{}", id), name));
    }
  }
  for (size_t i = 0; i < relation.fields.size(); ++i) {
    if (target[i] < 0) continue;
    const DataField& f = relation.fields[i];
    const DataType& lake_type = schema_.fields[static_cast<size_t>(target[i])].type;
    if (lake_type.EqualsIgnoreNullable(f.type)) continue;
    // Another source of a shared table may hold a narrower type that the lake column holds as it is.
    if (by_name && IsImplicitCast(f.type, lake_type) &&
        (lake_type.root() != TypeRoot::kDecimal || lake_type.scale() == f.type.scale())) {
      continue;
    }
    if (!IsImplicitCast(lake_type, f.type)) {
      return Fail(Status::InvalidArgument(
          "table {}: column {} of {} changed from {} to {}, which the lake table cannot follow without losing "
          "values (only widening is); nothing after the last commit was acknowledged",
          table_name_, f.name, source, lake_type.ToString(), f.type.ToString()));
    }
    changes.push_back(SchemaChange::UpdateColumnType(f.name, f.type.WithNullable(lake_type.nullable())));
  }
  // A column the source no longer has is NULL in the rows that follow: it cannot stay NOT NULL.
  std::set<int> mirrored(target.begin(), target.end());
  for (size_t j = 0; j < schema_.fields.size(); ++j) {
    const DataField& f = schema_.fields[j];
    if (mirrored.count(static_cast<int>(j)) || !IsSourceField(f) || f.type.nullable()) continue;
    if (std::find(schema_.primary_keys.begin(), schema_.primary_keys.end(), f.name) != schema_.primary_keys.end()) {
      continue;  // CheckSource names the missing key column
    }
    changes.push_back(SchemaChange::UpdateColumnNullability(f.name, true));
  }
  for (const auto& [name, attnum] : additions) {
    changes.push_back(SchemaChange::AddColumn(name, relation.fields[static_cast<size_t>(relation.ColumnIndex(name))]
                                                        .type.WithNullable(true)));
  }
  const bool columns_change = !changes.empty();
  if (!additions.empty()) {
    // The ids the added columns will get, to record their attnums in the same schema.
    auto preview = ApplySchemaChanges(schema_, changes, true, table_name_, 0);
    if (!preview.ok()) return Fail(preview.status().WithContext("following " + source));
    for (const auto& [name, attnum] : additions) {
      if (attnum > 0) next_attnums[preview->fields[static_cast<size_t>(preview->FieldIndex(name))].id] = attnum;
    }
  }
  if (next_attnums != attnums && !by_name) {
    changes.push_back(SchemaChange::SetOption(std::string(kSourceAttnumsOption), FormatSourceAttnums(next_attnums)));
  }
  if (changes.empty()) return CheckSource(relation);
  // The transaction in flight already wrote rows of the table (or truncated it): they stay in files of
  // the old schema, the rows after the change go into files of the new one, and the writer carries on
  // (sequence numbers, buckets, key index), so the transaction is committed whole, in one snapshot
  // (each data file names its schema).
  const bool continues = pending_ && touched_in_transaction && columns_change;
  if (pending_) {
    // Recording attnums alone can wait for a schema change that needs a commit anyway.
    if (!columns_change) return CheckSource(relation);
    // Whole transactions before this one are committed under the old schema.
    if (!touched_in_transaction) TIDE_RETURN_IF_ERROR(Commit(last_complete_lsn));
  }
  if (continues) {
    // Checked before the schema is committed: a refusal must leave the lake's schema as it was.
    auto preview = ApplySchemaChanges(schema_, changes, true, table_name_, 0);
    if (!preview.ok()) return Fail(preview.status().WithContext("following " + source));
    Status fits = TableWrite::CheckSchemaContinues(schema_, *preview, table_name_);
    if (!fits.ok()) {
      return Fail(Status::NotSupported("{}; the transaction changed rows of {} before this schema change: make it in "
                                       "a transaction of its own, then restart",
                                       fits.message(), source));
    }
  }
  for (const auto& [id, name] : renames) {
    TIDE_LOG_INFO("table {}: column {} of {} was renamed to {} (field id {} kept)", table_name_,
                  schema_.fields[static_cast<size_t>(schema_.FieldIndexById(id))].name, source, name, id);
  }
  auto next = CommitSchemaChanges(fs_, table_path_, table_name_, changes);
  if (!next.ok()) return Fail(next.status().WithContext("following " + source));
  schema_ = std::move(next).value();
  key_columns_.clear();
  for (const std::string& key : schema_.primary_keys) key_columns_.push_back(schema_.FieldIndex(key));
  column_maps_.clear();
  older_.clear();
  committed_plan_.reset();
  evolved_ = true;
  // A column of a new type may now hold TOASTed values; the rows written so far were not kept then.
  if (!remember_rows_ && MayNeedRecentRows()) {
    remember_rows_ = true;
    if (pending_) recent_.Forget();
  }
  if (continues) {
    // Key types are unchanged (CheckSchemaContinues): the remembered keys stay valid.
    Status s = RenewMaintenance();
    if (!s.ok()) return Fail(s);
    s = write_->ChangeSchema(schema_);
    if (!s.ok()) return Fail(s);
    return CheckSource(relation);
  }
  {
    // Key columns may have widened; nothing is written since the last commit, so no key is remembered.
    std::vector<DataType> key_types;
    for (int k : key_columns_) key_types.push_back(schema_.fields[static_cast<size_t>(k)].type);
    key_writer_ = std::make_unique<BinaryRowWriter>(std::move(key_types));
  }
  TIDE_RETURN_IF_ERROR(RenewWriterAfterCommit());
  return CheckSource(relation);
}

Result<std::optional<std::vector<int>>> TableSink::OlderSchemaOf(const SourceRelation& relation,
                                                                 const SourceAttributeReader& read_catalog) {
  using Columns = std::optional<std::vector<int>>;
  if (evolved_ || multi_source()) return Columns();
  // Only a description the latest schema cannot take as it is.
  bool names_fit = true, fits = true;
  for (const DataField& f : relation.fields) {
    int idx = schema_.FieldIndex(f.name);
    names_fit = names_fit && idx >= 0 && IsSourceField(schema_.fields[static_cast<size_t>(idx)]);
    fits = fits && idx >= 0 && schema_.fields[static_cast<size_t>(idx)].type.EqualsIgnoreNullable(f.type);
  }
  if (fits) return Columns();
  if (!names_fit) {
    // A column the lake knows under another name: an older description only when the catalog is ahead
    // of it (else it is a rename back, to follow).
    if (!read_catalog) return Columns();
    auto catalog = read_catalog(relation.oid);
    if (!catalog.ok()) return Columns();
    bool same = catalog->size() == relation.fields.size();
    for (size_t i = 0; same && i < catalog->size(); ++i) same = (*catalog)[i].name == relation.fields[i].name;
    if (same) return Columns();
  }
  // The schemas taken since the newest snapshot's: a transaction committed under an older one is held.
  int64_t since = 0;
  SnapshotManager snapshots(fs_, table_path_);
  TIDE_ASSIGN_OR_RETURN(auto latest, snapshots.LatestId());
  if (latest) {
    TIDE_ASSIGN_OR_RETURN(Snapshot snapshot, snapshots.Get(*latest));
    since = snapshot.schema_id;
  }
  SchemaManager schemas(fs_, table_path_);
  for (int64_t id = schema_.id - 1; id >= since; --id) {
    auto older = schemas.Get(id);
    if (!older.ok()) {
      if (older.status().IsNotFound()) continue;
      return older.status();
    }
    std::vector<int> columns;
    for (const DataField& f : relation.fields) {
      int idx = older->FieldIndex(f.name);
      if (idx < 0 || !IsSourceField(older->fields[static_cast<size_t>(idx)]) ||
          !older->fields[static_cast<size_t>(idx)].type.EqualsIgnoreNullable(f.type)) {
        break;
      }
      int now = schema_.FieldIndexById(older->fields[static_cast<size_t>(idx)].id);
      if (now < 0) break;
      columns.push_back(now);
    }
    if (columns.size() != relation.fields.size()) continue;
    TIDE_LOG_INFO("table {}: {} is described as in schema {} of the table (a transaction resent after a restart, "
                  "whose schema change the table already took); its rows are written under schema {}",
                  table_name_, relation.table.ToString(), id, schema_.id);
    return Columns(std::move(columns));
  }
  return Columns();
}

Result<const TableSink::RelationMap*> TableSink::MapOf(const SourceRelationPtr& relation) {
  auto it = column_maps_.find(relation.get());
  if (it != column_maps_.end()) return &it->second;
  const OlderRelation* older = nullptr;
  if (auto found = older_.find(relation.get()); found != older_.end()) {
    bool same = found->second.names.size() == relation->fields.size();
    for (size_t i = 0; same && i < relation->fields.size(); ++i) same = found->second.names[i] == relation->fields[i].name;
    if (same) older = &found->second;
  }
  if (older == nullptr) {
    Status fits = CheckSource(*relation);
    if (!fits.ok()) return Fail(fits);
  }
  RelationMap map;
  map.relation = relation;
  std::vector<std::string> specs;
  for (const std::string& spec : computed_specs_) {
    auto parsed = ComputedColumn::Parse(spec);
    if (!parsed.ok()) return Fail(parsed.status());
    if (parsed->reference() && relation->ColumnIndex(*parsed->reference()) < 0) continue;
    specs.push_back(spec);
  }
  auto computed = BuildComputedColumns(specs, relation->fields);
  if (!computed.ok()) return Fail(computed.status().WithContext("table " + table_name_));
  map.computed = std::move(computed).value();
  if (older != nullptr) {
    map.columns = older->columns;
  } else {
    for (const DataField& f : relation->fields) map.columns.push_back(schema_.FieldIndex(f.name));
  }
  for (const ComputedColumn& col : map.computed) {
    int idx = schema_.FieldIndex(col.name());
    if (idx < 0) {
      return Fail(Status::InvalidArgument("table {}: computed column {} is not a column of the lake table",
                                          table_name_, col.name()));
    }
    map.columns.push_back(idx);
  }
  for (MetadataColumn m : metadata_) {
    int idx = schema_.FieldIndex(std::string(MetadataColumnName(m)));
    if (idx < 0) {
      return Fail(Status::InvalidArgument(
          "table {}: metadata column {} is not a column of the lake table; add it (tide table alter) or let the "
          "sync create the table anew",
          table_name_, MetadataColumnName(m)));
    }
    map.metadata_columns.push_back(idx);
  }
  map.in_place = map.columns.size() <= schema_.fields.size();
  for (size_t i = 0; map.in_place && i < map.columns.size(); ++i) map.in_place = map.columns[i] == static_cast<int>(i);
  return &column_maps_.emplace(relation.get(), std::move(map)).first->second;
}

Result<Row> TableSink::ToTarget(const SourceRelationPtr& relation, Row source, int64_t commit_time_micros) {
  TIDE_ASSIGN_OR_RETURN(const RelationMap* map, MapOf(relation));
  Row extended = std::move(source);
  extended.resize(relation->fields.size());
  if (!map->computed.empty()) {
    Status s = AppendComputedValues(map->computed, &extended);
    if (!s.ok()) return Fail(s.WithContext("table " + table_name_));
  }
  Row row;
  if (map->in_place && extended.size() == map->columns.size()) {
    row = std::move(extended);
    row.resize(schema_.fields.size());
  } else {
    row.resize(schema_.fields.size());
    for (size_t i = 0; i < map->columns.size() && i < extended.size(); ++i) {
      row[static_cast<size_t>(map->columns[i])] = std::move(extended[i]);
    }
  }
  if (!metadata_.empty()) {
    RowOrigin origin{source_database_, &relation->table, commit_time_micros};
    for (size_t i = 0; i < metadata_.size(); ++i) {
      row[static_cast<size_t>(map->metadata_columns[i])] = MetadataColumnValue(metadata_[i], origin);
    }
  }
  return row;
}

int64_t TableSink::buffered_bytes() const { return write_ ? write_->buffered_bytes() : 0; }
BucketFileCounts TableSink::file_counts() const { return write_ ? write_->FileCounts() : BucketFileCounts{}; }

BackgroundMaintenanceStats TableSink::maintenance_stats() const {
  BackgroundMaintenanceStats stats = retired_maintenance_;
  if (!maintenance_) return stats;
  const BackgroundMaintenanceStats current = maintenance_->stats();
  stats.Accumulate(current);
  stats.running = current.running;
  return stats;
}

Status TableSink::EncodeKey(const Row& row) {
  Status s = key_writer_->WriteProjected(row, key_columns_, &key_scratch_);
  if (!s.ok()) return Fail(s.WithContext("table " + table_name_ + ", primary key"));
  return Status::OK();
}

bool TableSink::MayNeedRecentRows() const {
  // A TRUNCATE of one of several sources deletes that source's rows written since the last commit.
  if (multi_source()) return true;
  // PostgreSQL leaves out (`u`) only unchanged values it stored out of line (TOASTed): those of
  // variable-length types, which map to lake types of variable length. A table whose columns are all
  // of fixed length never meets one, and its rows need not be kept.
  for (const DataField& f : schema_.fields) {
    switch (f.type.root()) {
      case TypeRoot::kBoolean:
      case TypeRoot::kTinyInt:
      case TypeRoot::kSmallInt:
      case TypeRoot::kInt:
      case TypeRoot::kBigInt:
      case TypeRoot::kFloat:
      case TypeRoot::kDouble:
      case TypeRoot::kDate:
      case TypeRoot::kTime:
      case TypeRoot::kTimestamp:
      case TypeRoot::kTimestampLtz: continue;
      default: return true;
    }
  }
  return false;
}

Status TableSink::Write(RowKind kind, Row row, bool remember) {
  if (remember && !remember_rows_) {
    // Not kept: should a lookup come anyway, the set says it is incomplete, and the lake is made
    // current first.
    if (recent_.complete()) recent_.Forget();
  } else if (remember && !key_columns_.empty() && kind != RowKind::kUpdateBefore) {
    TIDE_RETURN_IF_ERROR(EncodeKey(row));
    if (kind == RowKind::kDelete) {
      recent_.PutDeleted(key_scratch_);
    } else {
      recent_.Put(key_scratch_, row);
    }
  }
  Status s = write_->Write(kind, std::move(row));
  if (!s.ok()) return Fail(s.WithContext("source table " + source_table_));
  pending_ = true;
  ++rows_written_;
  return Status::OK();
}

Status TableSink::WriteCopyRows(const SourceRelationPtr& relation, std::vector<Row>* rows) {
  if (!failed_.ok()) return failed_;
  // Copied rows are not remembered (the copy commits before the stream's changes apply): any lookup
  // before that commit finds the set incomplete and commits first.
  recent_.Forget();
  // Copied rows are new keys, read in the table's order: their files may start at the top level.
  write_->SetBulkLoad(true);
  // A copy session filled these rows on another core: their value slots are loaded a few rows ahead,
  // so that mapping a row does not wait for its cache lines one by one (a string's bytes are not).
  constexpr size_t kPrefetchRows = 4;
  for (size_t i = 0; i < rows->size(); ++i) {
    if (i + kPrefetchRows < rows->size()) {
      const Row& ahead = (*rows)[i + kPrefetchRows];
      const char* p = reinterpret_cast<const char*>(ahead.data());
      for (size_t b = 0; b < ahead.size() * sizeof(Datum); b += 64) __builtin_prefetch(p + b);
    }
    Row& source = (*rows)[i];
    TIDE_ASSIGN_OR_RETURN(source, ToTarget(relation, std::move(source)));
  }
  // The batch at once: the table writer looks its keys up ahead (WriteRows).
  Status s = write_->WriteRows(RowKind::kInsert, rows->data(), rows->size());
  if (!s.ok()) return Fail(s.WithContext("source table " + source_table_));
  pending_ = true;
  rows_written_ += static_cast<int64_t>(rows->size());
  return Status::OK();
}

Result<std::optional<std::map<std::string, Datum>>> TableSink::ReadCommittedRow(const Row& key_values) {
  using Found = std::optional<std::map<std::string, Datum>>;
  std::vector<Row> rows;
  std::unique_ptr<TableReader> reader;
  for (int attempt = 0;; ++attempt) {
    if (!committed_plan_) {
      // The lake's files as of its newest snapshot, planned once until the next commit: each lookup of
      // the round reads only the files that may hold its key.
      CommittedPlan plan;
      SnapshotManager snapshots(fs_, table_path_);
      TIDE_ASSIGN_OR_RETURN(auto latest, snapshots.LatestId());
      if (latest) {
        TIDE_ASSIGN_OR_RETURN(Snapshot snapshot, snapshots.Get(*latest));
        FileStoreScan scan(fs_, table_path_, table_name_, schema_);
        TIDE_ASSIGN_OR_RETURN(plan.splits, scan.Plan(snapshot));
      }
      committed_plan_ = std::move(plan);
    }
    TableReadContext read;
    read.fs = fs_;
    read.metadata_path = table_path_;
    read.table_name = table_name_;
    read.read_schema = schema_;  // the files of older schemas read by field id
    read.key_equals = key_values;
    auto opened = CreateSnapshotTableReader(std::move(read), committed_plan_->splits);
    Status status = opened.status();
    if (opened.ok()) {
      reader = std::move(opened).value();
      rows.clear();
      while (rows.empty() && status.ok()) {
        auto more = reader->NextBatch(16, &rows);
        if (!more.ok()) {
          status = more.status();
        } else if (!*more) {
          break;
        }
      }
    }
    if (status.ok()) break;
    // Another writer's maintenance may have removed files of the planned snapshot: plan again, once.
    committed_plan_.reset();
    if (attempt > 0 || !status.IsNotFound()) return status;
  }
  if (rows.empty()) return Found();
  std::map<std::string, Datum> by_name;
  const auto& fields = reader->fields();
  for (size_t i = 0; i < fields.size() && i < rows[0].size(); ++i) by_name[fields[i].name] = rows[0][i];
  return Found(std::move(by_name));
}

Status TableSink::FillUnchanged(const SourceRelationPtr& relation, const RowChange& change,
                                const TransactionContext& context, Row* source) {
  const SourceRelation& rel = *relation;
  TIDE_ASSIGN_OR_RETURN(const RelationMap* map, MapOf(relation));
  auto unchanged_name = [&](int c) { return rel.fields[static_cast<size_t>(c)].name; };
  // The key of the row as it was: the old key when PostgreSQL sent it (the key changed), else the new
  // row's (the key did not change), which must not depend on an unsent value.
  Row key_source = change.old_kind == PgOldTupleKind::kNone ? *source : change.old_row;
  if (change.old_kind == PgOldTupleKind::kNone) {
    for (int c : change.unchanged_columns) {
      bool keyed = false;
      int target = map->columns[static_cast<size_t>(c)];
      if (std::find(key_columns_.begin(), key_columns_.end(), target) != key_columns_.end()) keyed = true;
      for (const ComputedColumn& computed : map->computed) {
        int idx = schema_.FieldIndex(computed.name());
        if (computed.reference_index() == c &&
            std::find(key_columns_.begin(), key_columns_.end(), idx) != key_columns_.end()) {
          keyed = true;
        }
      }
      if (keyed) {
        return Fail(Status::NotSupported(
            "table {}: an UPDATE of {} did not send column {} (an unchanged TOASTed value), which the primary key "
            "is made of; run ALTER TABLE {} REPLICA IDENTITY FULL so PostgreSQL sends the old row, then restart",
            table_name_, rel.table.ToString(), unchanged_name(c), rel.table.Quoted()));
      }
    }
  }
  TIDE_ASSIGN_OR_RETURN(Row key_row, ToTarget(relation, key_source, context.commit_time_micros));
  TIDE_RETURN_IF_ERROR(EncodeKey(key_row));
  Row key_values;
  for (int k : key_columns_) key_values.push_back(key_row[static_cast<size_t>(k)]);
  auto describe_key = [&] {
    std::vector<DataField> fields;
    for (int k : key_columns_) fields.push_back(schema_.fields[static_cast<size_t>(k)]);
    return RowToString(key_values, fields);
  };

  Row recent;
  RecentRows::Found found = recent_.Find(key_scratch_, &recent);
  // A row remembered before a column was added (in this transaction) has no value for it yet.
  if (found == RecentRows::Found::kRow) recent.resize(schema_.fields.size());
  std::optional<std::map<std::string, Datum>> committed;
  if (found == RecentRows::Found::kUnknown && !recent_.complete()) {
    // Rows were dropped for the memory budget: the key may have been written since the last commit.
    // Commit the whole transactions before this one; then the lake is the current state.
    if (context.touched || context.last_complete_lsn == kInvalidLsn) {
      return Fail(Status::NotSupported(
          "table {}: an UPDATE of {} did not send unchanged TOASTed values, and its transaction wrote more rows "
          "of the table than Tide keeps to fill them ({} MiB); run ALTER TABLE {} REPLICA IDENTITY FULL, then "
          "restart",
          table_name_, rel.table.ToString(), kRecentRowsBudget >> 20, rel.table.Quoted()));
    }
    TIDE_RETURN_IF_ERROR(Commit(context.last_complete_lsn));
    TIDE_RETURN_IF_ERROR(EncodeKey(key_row));
  }
  if (found == RecentRows::Found::kUnknown && !recent_.lake_empty()) {
    auto read = ReadCommittedRow(key_values);
    if (!read.ok()) return Fail(read.status().WithContext("reading the current row to fill unchanged TOASTed values"));
    committed = std::move(read).value();
  }
  if (found == RecentRows::Found::kDeleted || (found == RecentRows::Found::kUnknown && !committed)) {
    return Fail(Status::Corruption(
        "table {}: an UPDATE of {} did not send unchanged TOASTed values of key {}, but the lake holds no row "
        "with that key to take them from; the lake is behind PostgreSQL: resync the table",
        table_name_, rel.table.ToString(), describe_key()));
  }
  for (int c : change.unchanged_columns) {
    int target = map->columns[static_cast<size_t>(c)];
    Datum value;
    if (found == RecentRows::Found::kRow) {
      value = recent[static_cast<size_t>(target)];
    } else {
      auto it = committed->find(schema_.fields[static_cast<size_t>(target)].name);
      if (it == committed->end()) {
        return Fail(Status::Corruption("table {}: the lake's row of key {} has no column {} to fill an unchanged "
                                       "TOASTed value from",
                                       table_name_, describe_key(), unchanged_name(c)));
      }
      value = it->second;
    }
    (*source)[static_cast<size_t>(c)] = std::move(value);
  }
  return Status::OK();
}

Status TableSink::CheckOldRowComputes(const SourceRelationPtr& relation, const RowChange& change) {
  if (change.old_kind != PgOldTupleKind::kKey || change.old_absent.empty()) return Status::OK();
  TIDE_ASSIGN_OR_RETURN(const RelationMap* map, MapOf(relation));
  for (const ComputedColumn& c : map->computed) {
    if (c.reference_index() < 0) continue;
    bool absent = std::find(change.old_absent.begin(), change.old_absent.end(), c.reference_index()) !=
                  change.old_absent.end();
    // A partition column outside the primary key of a cross-partition table is not needed: the key
    // index knows where the key lives.
    bool keyed = std::find(schema_.primary_keys.begin(), schema_.primary_keys.end(), c.name()) !=
                     schema_.primary_keys.end() ||
                 (!cross_partition_ && std::find(schema_.partition_keys.begin(), schema_.partition_keys.end(),
                                                 c.name()) != schema_.partition_keys.end());
    if (absent && keyed) {
      return Fail(Status::NotSupported(
          "table {}: a {} of {} sent only the old row's replica identity, but key column {} is computed from "
          "column {}, which it lacks; run ALTER TABLE {} REPLICA IDENTITY FULL so PostgreSQL sends whole old "
          "rows, then restart",
          table_name_, change.kind == ChangeKind::kDelete ? "DELETE" : "key-changing UPDATE",
          relation->table.ToString(), c.name(), *c.reference(), relation->table.Quoted()));
    }
  }
  return Status::OK();
}

Status TableSink::OldRowNeeded(const SourceRelation& relation, std::string_view what) const {
  return Status::InvalidArgument(
      "table {} (merge-engine aggregation): {} of {} came without the old row, so what that row added cannot be "
      "retracted and the aggregates would count it twice; stop the sync, run ALTER TABLE {} REPLICA IDENTITY FULL "
      "in PostgreSQL, run tide sync resync --table {}, then start the sync again (or set "
      "fields.<column>.ignore-retract=true on every value column)",
      table_name_, what, relation.table.ToString(), relation.table.Quoted(), table_name_);
}

Status TableSink::Apply(const RowChange& change, const TransactionContext& context) {
  const int64_t commit_time_micros = context.commit_time_micros;
  if (!failed_.ok()) return failed_;
  const SourceRelationPtr& relation = change.relation;
  const SourceRelation& rel = *relation;
  const bool primary_key = !key_columns_.empty();
  if (!primary_key && change.kind != ChangeKind::kInsert) {
    return Fail(Status::NotSupported(
        "table {}: {} changed a row of {}, which has no primary key, so the lake table is an append table that "
        "cannot apply updates and deletes; add a primary key to the PostgreSQL table (then resync), or name key "
        "columns with --primary-keys",
        table_name_, change.kind == ChangeKind::kUpdate ? "an UPDATE" : "a DELETE", rel.table.ToString()));
  }
  switch (change.kind) {
    case ChangeKind::kInsert: {
      TIDE_ASSIGN_OR_RETURN(Row row, ToTarget(relation, change.new_row, commit_time_micros));
      return Write(RowKind::kInsert, std::move(row));
    }
    case ChangeKind::kUpdate: {
      if (retracts_ && change.old_kind != PgOldTupleKind::kFull) return Fail(OldRowNeeded(rel, "an UPDATE"));
      Row source = change.new_row;
      if (!change.unchanged_columns.empty()) {
        if (change.old_kind == PgOldTupleKind::kFull) {
          for (int c : change.unchanged_columns) source[static_cast<size_t>(c)] = change.old_row[static_cast<size_t>(c)];
        } else {
          TIDE_RETURN_IF_ERROR(FillUnchanged(relation, change, context, &source));
        }
      }
      TIDE_ASSIGN_OR_RETURN(Row row, ToTarget(relation, source, commit_time_micros));
      if (change.old_kind != PgOldTupleKind::kNone) {
        TIDE_RETURN_IF_ERROR(CheckOldRowComputes(relation, change));
        TIDE_ASSIGN_OR_RETURN(Row old_row, ToTarget(relation, change.old_row, commit_time_micros));
        bool key_changed = false;
        for (int k : key_columns_) {
          if (CompareDatum(old_row[static_cast<size_t>(k)], row[static_cast<size_t>(k)]) != 0) key_changed = true;
        }
        if (key_changed) {
          // The row now lives under another key: the old key is deleted.
          TIDE_RETURN_IF_ERROR(Write(RowKind::kDelete, std::move(old_row)));
          return Write(RowKind::kInsert, std::move(row));
        }
        if (change.old_kind == PgOldTupleKind::kFull) {
          TIDE_RETURN_IF_ERROR(Write(RowKind::kUpdateBefore, std::move(old_row)));
        }
      }
      return Write(RowKind::kUpdateAfter, std::move(row));
    }
    case ChangeKind::kDelete: {
      if (retracts_ && !deletes_remove_records_ && change.old_kind != PgOldTupleKind::kFull) {
        return Fail(OldRowNeeded(rel, "a DELETE"));
      }
      TIDE_RETURN_IF_ERROR(CheckOldRowComputes(relation, change));
      TIDE_ASSIGN_OR_RETURN(Row row, ToTarget(relation, change.old_row, commit_time_micros));
      return Write(RowKind::kDelete, std::move(row));
    }
  }
  return Status::OK();
}

Status TableSink::RecheckCommit() {
  if (!failed_.ok()) return failed_;
  auto recheck = commit_->RecheckLastCommit();
  if (!recheck.ok()) return Fail(recheck.status());
  if (recheck->replaced.empty()) return Status::OK();
  TIDE_LOG_WARN("table {}: snapshot(s) {} of this sync were replaced by another committer's snapshot file (Java "
                "Paimon on a local file system renames over a snapshot created after its check); {}",
                table_name_, fmt::join(recheck->replaced, ", "),
                recheck->recommitted ? fmt::format("their files are committed again as snapshot {}", *recheck->recommitted)
                                     : std::string("the table holds their files"));
  if (recheck->recommitted) {
    committed_.snapshot_id = *recheck->recommitted;
    if (renewed_since_commit_) {
      // The writer restored from the snapshot that replaced ours: it does not hold the files just
      // committed again, so its compactions could drop a delete while an older version of the row
      // stays in one of them. Re-read the table; with changes pending (a replacement that landed long
      // after the snapshot it replaced), stop instead: a restart resumes from the committed positions.
      if (pending_) {
        return Fail(Status::Conflict(
            "table {}: snapshot(s) {} of this sync were replaced by another committer's snapshot file after "
            "the writer re-read the table; their files are committed again as snapshot {}, and the changes "
            "since cannot be written by a writer that does not hold them. Restart the sync: it resumes from "
            "the committed positions (run one committer per table, or a file system whose rename does not "
            "replace, to avoid this)",
            table_name_, fmt::join(recheck->replaced, ", "), *recheck->recommitted));
      }
      Status s = NewWriter();
      if (!s.ok()) return Fail(s);
      return Status::OK();
    }
  }
  if (recheck->compaction_lost) {
    // The writer's levels hold the lost compaction's files: re-read the table, once nothing is pending.
    if (pending_) {
      renew_writer_ = true;
    } else {
      Status s = NewWriter();
      if (!s.ok()) return Fail(s);
    }
  }
  return Status::OK();
}

Status TableSink::RenewWriterAfterCommit() {
  // Another committer may have replaced a snapshot just made (Java on a local file system renames over
  // a snapshot created after its check; a compaction of the writer lost to such a snapshot, often to the
  // very one that replaced ours): its files are committed again first, so the new writer restores a
  // table that holds them.
  // The writer in place is replaced below whatever the recheck finds; a writer the recheck makes
  // (a lost compaction) sets the flag again and serves.
  renewed_since_commit_ = false;
  TIDE_RETURN_IF_ERROR(RecheckCommit());
  if (renewed_since_commit_) return Status::OK();
  Status s = NewWriter();  // clears renew_writer_
  if (!s.ok()) return Fail(s);
  return Status::OK();
}

Status TableSink::Commit(Lsn commit_lsn, std::optional<Lsn> copy_lsn, const std::vector<std::string>& copied_sources) {
  if (!failed_.ok()) return failed_;
  if (!pending_ && !copy_lsn) return Status::OK();
  // Nothing newer is published before the last commit is known to stand.
  TIDE_RETURN_IF_ERROR(RecheckCommit());
  std::map<std::string, Lsn> source_copy_lsn = committed_.source_copy_lsn;
  if (sources_.size() > 1 && committed_.copy_lsn != kInvalidLsn) {
    // Sources held before a second one joined recorded only the plain copy position: it is theirs.
    for (const std::string& held : SplitTrimmed(committed_.source_table, ',')) {
      if (!held.empty()) source_copy_lsn.try_emplace(held, committed_.copy_lsn);
    }
  }
  if (copy_lsn) {
    for (const std::string& source : copied_sources) source_copy_lsn[source] = *copy_lsn;
  }
  // The plain copy position is the table's first copy; a copy of every source (or of the only one)
  // replaces it.
  const bool copies_all = copy_lsn && (copied_sources.empty() || copied_sources.size() >= sources_.size());
  // Durations of the commit's steps, for the debug log (`tide -v`): where a commit's time goes.
  auto started = std::chrono::steady_clock::now();
  const TableWriteMetrics before_prepare = write_->metrics();
  auto prepared = write_->PrepareCommit();
  write_->SetBulkLoad(false);  // the copy, if any, is flushed; what follows is the stream
  auto prepared_at = std::chrono::steady_clock::now();
  const TableWriteMetrics& after_prepare = write_->metrics();
  const double flush_ms = static_cast<double>(after_prepare.flush_micros - before_prepare.flush_micros) / 1000;
  const double wait_ms =
      static_cast<double>(after_prepare.compaction_wait_micros - before_prepare.compaction_wait_micros) / 1000;
  const int64_t flushes = after_prepare.flushes - before_prepare.flushes;
  if (!prepared.ok()) return Fail(prepared.status());
  const std::vector<CommitMessage>* messages = &*prepared;
  CommitOptions options;
  options.commit_user = commit_user_;
  options.commit_identifier = static_cast<int64_t>(commit_lsn);
  options.allow_empty = copy_lsn.has_value();
  // Another engine may compact the table too (docs/interop.md): a compaction of the sync's that loses
  // to one of its is given up, and the writer re-reads the table, instead of stopping the sync.
  options.give_up_lost_compaction = true;
  Lsn copy = copies_all || committed_.copy_lsn == kInvalidLsn ? copy_lsn.value_or(committed_.copy_lsn) : committed_.copy_lsn;
  options.properties[std::string(kCommitLsnProperty)] = FormatLsn(commit_lsn);
  options.properties[std::string(kSourceTableProperty)] = Join(sources_, ",");
  if (sources_.size() > 1 || source_copy_lsn.size() > 1) {
    for (const auto& [source, lsn] : source_copy_lsn) {
      options.properties[std::string(kSourceCopyLsnPropertyPrefix) + source] = FormatLsn(lsn);
    }
  }
  if (copy != kInvalidLsn) options.properties[std::string(kCopyLsnProperty)] = FormatLsn(copy);
  auto result = truncate_ ? commit_->Overwrite(OverwriteScope::WholeTable(/*fresh_writer=*/true), *messages, options)
                          : commit_->Commit(*messages, options);
  if (!result.ok()) {
    Status s = result.status();
    if (truncate_) s = s.WithContext("applying a TRUNCATE of " + source_table_);
    return Fail(s);
  }
  // The writer is made anew after an overwrite (it knew nothing of the files replaced) or a lost
  // compaction (its levels are not what the table holds).
  const bool renew = truncate_ || result->compaction_lost || renew_writer_;
  truncate_ = false;
  if (result->compaction_lost) {
    TIDE_LOG_WARN("table {}: a compaction was given up, another writer compacted the same files first ({}); "
                  "its files are left for orphan removal and the writer re-reads the table",
                  table_name_, result->compaction_lost->message());
  }
  if (result->outcome == CommitOutcome::kAlreadyCommitted && pending_) {
    return Fail(Status::Conflict(
        "table {}: position {} is already committed by another writer of commit user {} while this sync holds "
        "changes for it; is a second tide sync running on the same slot or lake table?",
        table_name_, FormatLsn(commit_lsn), commit_user_));
  }
  if (!result->snapshot_ids.empty()) committed_.snapshot_id = result->snapshot_ids.back();
  committed_.commit_lsn = commit_lsn;
  committed_.copy_lsn = copy;
  committed_.source_copy_lsn = std::move(source_copy_lsn);
  committed_.source_table = Join(sources_, ",");
  pending_ = false;
  recent_.Reset();
  committed_plan_.reset();
  renewed_since_commit_ = false;
  if (renew) TIDE_RETURN_IF_ERROR(RenewWriterAfterCommit());
  auto committed_at = std::chrono::steady_clock::now();
  if (!result->snapshot_ids.empty() && maintenance_) {
    // The commit stands whatever maintenance does: a failure is logged and retried after the next one.
    // Partition expiry runs here (its check is due at most every partition.expiration-check-interval),
    // because the writer must drop what it holds of the dropped partitions before it writes on.
    auto dropped = maintenance_->ExpirePartitions();
    if (!dropped.ok()) {
      TIDE_LOG_WARN("table {}: partition expiry after a commit failed: {}", table_name_, dropped.status().ToString());
    } else if (!dropped->empty()) {
      // Expired partitions are gone: the writer's buckets and key index must not hold them any more.
      TIDE_RETURN_IF_ERROR(RenewWriterAfterCommit());
    }
    // Snapshot expiry and tags on the maintenance thread: this commit does not wait for them.
    maintenance_->Request();
  }
  auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
  TIDE_LOG_DEBUG("table {}: committed up to {} ({} snapshot(s)): prepare {:.1f} ms ({} flushes {:.1f} ms, waits for "
                 "compaction {:.1f} ms), commit {:.1f} ms, partition expiry {:.1f} ms",
                 table_name_, FormatLsn(commit_lsn), result->snapshot_ids.size(), ms(started, prepared_at), flushes,
                 flush_ms, wait_ms, ms(prepared_at, committed_at),
                 ms(committed_at, std::chrono::steady_clock::now()));
  return Status::OK();
}

}  // namespace tide
