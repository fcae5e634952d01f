#include "tide/sync/table_sink.h"

#include "tide/base/logging.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "tide/table/schema/schema_change.h"
#include "tide/table/schema/schema_manager.h"
#include "tide/table/schema/core_options.h"
#include "tide/table/snapshot/snapshot_manager.h"
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
                                                   std::vector<MetadataColumn> metadata, std::string source_database) {
  std::unique_ptr<TableSink> sink(new TableSink());
  sink->metadata_ = std::move(metadata);
  sink->source_database_ = std::move(source_database);
  sink->fs_ = fs;
  sink->table_path_ = std::move(table_path);
  sink->table_name_ = std::move(table_name);
  sink->source_table_ = std::move(source_table);
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
  TIDE_ASSIGN_OR_RETURN(sink->committed_, ReadSinkPosition(fs, sink->table_path_, sink->commit_user_));
  TIDE_ASSIGN_OR_RETURN(CoreOptions options, CoreOptions::Create(sink->schema_, sink->table_name_));
  sink->dynamic_bucket_keys_ = sink->schema_.HasPrimaryKey() && options.bucket() == -1;
  TIDE_RETURN_IF_ERROR(sink->NewWriter());
  TIDE_ASSIGN_OR_RETURN(sink->commit_, FileStoreCommit::Create(fs, sink->table_path_, sink->table_name_));
  return sink;
}

Status TableSink::NewWriter(bool for_overwrite) {
  if (write_) write_->Abort();
  TIDE_ASSIGN_OR_RETURN(maintenance_, TableMaintenance::Create(fs_, table_path_, table_name_));
  TableWriteConfig config;
  config.table_name = table_name_;
  // Rows for an OVERWRITE must not be compacted with the files it replaces.
  config.ignore_previous_files = for_overwrite;
  TIDE_ASSIGN_OR_RETURN(write_, TableWrite::Create(fs_, table_path_, schema_, commit_user_, config));
  return Status::OK();
}

Status TableSink::Truncate() {
  if (!failed_.ok()) return failed_;
  // The rows buffered so far came before the TRUNCATE: they go with the table.
  Status s = NewWriter(/*for_overwrite=*/!dynamic_bucket_keys_);
  if (!s.ok()) return Fail(s);
  pending_ = true;
  if (!dynamic_bucket_keys_) {
    truncate_ = true;
    return Status::OK();
  }
  // Every live key of the committed table gets a -D (the new writer finds each key's bucket).
  auto table = Table::Open(fs_, table_path_, table_name_);
  if (!table.ok()) return Fail(table.status());
  ReadOptions read;
  read.projection = key_columns_;
  auto reader = (*table)->NewReader(read);
  if (!reader.ok()) return Fail(reader.status().WithContext("reading the keys to apply a TRUNCATE"));
  std::vector<Row> keys;
  while (true) {
    keys.clear();
    auto more = (*reader)->NextBatch(4096, &keys);
    if (!more.ok()) return Fail(more.status().WithContext("reading the keys to apply a TRUNCATE"));
    for (const Row& key : keys) {
      Row row(schema_.fields.size());
      for (size_t j = 0; j < key_columns_.size() && j < key.size(); ++j) {
        row[static_cast<size_t>(key_columns_[j])] = key[j];
      }
      TIDE_RETURN_IF_ERROR(Write(RowKind::kDelete, std::move(row)));
    }
    if (!*more) break;
  }
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
    if (relation.ColumnIndex(key) < 0 && !computed_names_.count(key)) {
      return Status::InvalidArgument("table {}: primary-key column {} is not a column of {}", table_name_, key,
                                     relation.table.ToString());
    }
  }
  return Status::OK();
}

Status TableSink::Evolve(const SourceRelation& relation, Lsn last_complete_lsn, bool touched_in_transaction) {
  if (!failed_.ok()) return failed_;
  std::vector<SchemaChange> changes;
  for (const DataField& f : relation.fields) {
    int idx = schema_.FieldIndex(f.name);
    if (idx < 0) {
      changes.push_back(SchemaChange::AddColumn(f.name, f.type.WithNullable(true)));
      continue;
    }
    const DataType& target = schema_.fields[static_cast<size_t>(idx)].type;
    if (target.EqualsIgnoreNullable(f.type)) continue;
    if (!IsImplicitCast(target, f.type)) {
      return Fail(Status::InvalidArgument(
          "table {}: column {} of {} changed from {} to {}, which the lake table cannot follow without losing "
          "values (only widening is); nothing after the last commit was acknowledged",
          table_name_, f.name, relation.table.ToString(), target.ToString(), f.type.ToString()));
    }
    changes.push_back(SchemaChange::UpdateColumnType(f.name, f.type.WithNullable(target.nullable())));
  }
  if (changes.empty()) return CheckSource(relation);
  if (pending_) {
    if (touched_in_transaction) {
      return Fail(Status::NotSupported(
          "table {}: a transaction changed rows of {} and then its columns; Tide cannot split it between two "
          "schemas yet; make the schema change in a transaction of its own, then restart",
          table_name_, relation.table.ToString()));
    }
    // Whole transactions only: the rows of the old shape are committed under the old schema.
    TIDE_RETURN_IF_ERROR(Commit(last_complete_lsn));
  }
  auto next = CommitSchemaChanges(fs_, table_path_, table_name_, changes);
  if (!next.ok()) return Fail(next.status().WithContext("following " + relation.table.ToString()));
  schema_ = std::move(next).value();
  column_maps_.clear();
  Status s = NewWriter();
  if (!s.ok()) return Fail(s);
  return CheckSource(relation);
}

Result<const TableSink::RelationMap*> TableSink::MapOf(const SourceRelationPtr& relation) {
  auto it = column_maps_.find(relation.get());
  if (it != column_maps_.end()) return &it->second;
  Status fits = CheckSource(*relation);
  if (!fits.ok()) return Fail(fits);
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
  for (const DataField& f : relation->fields) map.columns.push_back(schema_.FieldIndex(f.name));
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
  return &column_maps_.emplace(relation.get(), std::move(map)).first->second;
}

Result<Row> TableSink::ToTarget(const SourceRelationPtr& relation, const Row& source, int64_t commit_time_micros) {
  TIDE_ASSIGN_OR_RETURN(const RelationMap* map, MapOf(relation));
  Row extended = source;
  extended.resize(relation->fields.size());
  if (!map->computed.empty()) {
    Status s = AppendComputedValues(map->computed, &extended);
    if (!s.ok()) return Fail(s.WithContext("table " + table_name_));
  }
  Row row(schema_.fields.size());
  for (size_t i = 0; i < map->columns.size() && i < extended.size(); ++i) {
    row[static_cast<size_t>(map->columns[i])] = std::move(extended[i]);
  }
  if (!metadata_.empty()) {
    RowOrigin origin{source_database_, &relation->table, commit_time_micros};
    for (size_t i = 0; i < metadata_.size(); ++i) {
      row[static_cast<size_t>(map->metadata_columns[i])] = MetadataColumnValue(metadata_[i], origin);
    }
  }
  return row;
}

Status TableSink::Write(RowKind kind, Row row) {
  Status s = write_->Write(kind, std::move(row));
  if (!s.ok()) return Fail(s.WithContext("source table " + source_table_));
  pending_ = true;
  ++rows_written_;
  return Status::OK();
}

Status TableSink::WriteCopyRows(const SourceRelationPtr& relation, std::vector<Row>* rows) {
  if (!failed_.ok()) return failed_;
  for (Row& source : *rows) {
    TIDE_ASSIGN_OR_RETURN(Row row, ToTarget(relation, source));
    TIDE_RETURN_IF_ERROR(Write(RowKind::kInsert, std::move(row)));
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
    bool keyed = std::find(schema_.primary_keys.begin(), schema_.primary_keys.end(), c.name()) !=
                     schema_.primary_keys.end() ||
                 std::find(schema_.partition_keys.begin(), schema_.partition_keys.end(), c.name()) !=
                     schema_.partition_keys.end();
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

Status TableSink::Apply(const RowChange& change, int64_t commit_time_micros) {
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
      Row source = change.new_row;
      for (int c : change.unchanged_columns) {
        if (change.old_kind != PgOldTupleKind::kFull) {
          return Fail(Status::NotSupported(
              "table {}: an UPDATE of {} did not send column {} (an unchanged TOASTed value) and Tide cannot fill it "
              "yet; run ALTER TABLE {} REPLICA IDENTITY FULL so PostgreSQL sends the old row, then restart",
              table_name_, rel.table.ToString(), rel.fields[static_cast<size_t>(c)].name, rel.table.Quoted()));
        }
        source[static_cast<size_t>(c)] = change.old_row[static_cast<size_t>(c)];
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
      TIDE_RETURN_IF_ERROR(CheckOldRowComputes(relation, change));
      TIDE_ASSIGN_OR_RETURN(Row row, ToTarget(relation, change.old_row, commit_time_micros));
      return Write(RowKind::kDelete, std::move(row));
    }
  }
  return Status::OK();
}

Status TableSink::Commit(Lsn commit_lsn, std::optional<Lsn> copy_lsn) {
  if (!failed_.ok()) return failed_;
  if (!pending_ && !copy_lsn) return Status::OK();
  // Durations of the commit's steps, for the debug log (`tide -v`): where a commit's time goes.
  auto started = std::chrono::steady_clock::now();
  auto prepared = write_->PrepareCommit();
  auto prepared_at = std::chrono::steady_clock::now();
  if (!prepared.ok()) return Fail(prepared.status());
  const std::vector<CommitMessage>* messages = &*prepared;
  CommitOptions options;
  options.commit_user = commit_user_;
  options.commit_identifier = static_cast<int64_t>(commit_lsn);
  options.allow_empty = copy_lsn.has_value();
  Lsn copy = copy_lsn.value_or(committed_.copy_lsn);
  options.properties[std::string(kCommitLsnProperty)] = FormatLsn(commit_lsn);
  options.properties[std::string(kSourceTableProperty)] = source_table_;
  if (copy != kInvalidLsn) options.properties[std::string(kCopyLsnProperty)] = FormatLsn(copy);
  auto result = truncate_ ? commit_->Overwrite(OverwriteScope::WholeTable(), *messages, options)
                          : commit_->Commit(*messages, options);
  if (!result.ok()) {
    Status s = result.status();
    if (truncate_) s = s.WithContext("applying a TRUNCATE of " + source_table_);
    return Fail(s);
  }
  if (truncate_) {
    // The writer knew nothing of the files the overwrite replaced; after it, the table is what it wrote.
    truncate_ = false;
    Status s = NewWriter();
    if (!s.ok()) return Fail(s);
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
  pending_ = false;
  auto committed_at = std::chrono::steady_clock::now();
  if (!result->snapshot_ids.empty() && maintenance_) {
    // The commit stands whatever maintenance does: a failure is logged and retried after the next one.
    auto report = maintenance_->AfterCommit();
    if (!report.ok()) TIDE_LOG_WARN("table {}: maintenance after a commit failed: {}", table_name_, report.status().ToString());
  }
  auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
  TIDE_LOG_DEBUG("table {}: committed up to {} ({} snapshot(s)): prepare {:.1f} ms, commit {:.1f} ms, maintenance "
                 "{:.1f} ms",
                 table_name_, FormatLsn(commit_lsn), result->snapshot_ids.size(), ms(started, prepared_at),
                 ms(prepared_at, committed_at), ms(committed_at, std::chrono::steady_clock::now()));
  return Status::OK();
}

}  // namespace tide
