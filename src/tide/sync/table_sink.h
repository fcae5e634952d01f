// TableSink: one target Paimon table of a sync. It turns the source's row changes into Paimon rows
// (+I, +U, -U, -D) in the target's column order, buffers them in a TableWrite, and commits them with
// the source position, exactly once.
//
// Position. Every commit of a sink is made by the sync's commit user with commit identifier = the
// commit LSN of the last source transaction it holds, and carries `tide.source.commit-lsn` (the same
// LSN) and `tide.source.copy-lsn` (the position of the table's initial copy) in the snapshot's
// properties. Identifiers only grow, so the newest snapshot of that user says exactly which source
// transactions the table holds: those with commit LSN <= committed().commit_lsn. A repeated commit of
// the same position is reported as already committed by the committer and writes nothing.
//
// Invariants: a commit holds whole source transactions (the caller commits only between
// transactions); copied rows get lower sequence numbers than every streamed change (they are written
// first, by the same writer). After a failed write or commit the sink is failed and accepts nothing
// (nothing more may be acknowledged). After each commit, snapshot expiry and tags run on the sink's
// BackgroundMaintenance thread (the commit does not wait; destroying the sink waits for a run under
// way); partition expiry runs in Commit. Thread-safety: one thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tide/base/result.h"
#include "tide/io/file_system.h"
#include "tide/postgres/change.h"
#include "tide/postgres/lsn.h"
#include "tide/sync/computed_column.h"
#include "tide/sync/metadata_column.h"
#include "tide/sync/recent_rows.h"
#include "tide/codec/binary_row.h"
#include "tide/table/operation/file_store_commit.h"
#include "tide/table/operation/background_maintenance.h"
#include "tide/table/operation/file_store_scan.h"
#include "tide/table/operation/table_maintenance.h"
#include "tide/table/sink/table_write.h"
#include "tide/types/table_schema.h"

namespace tide {

inline constexpr std::string_view kCommitLsnProperty = "tide.source.commit-lsn";
inline constexpr std::string_view kCopyLsnProperty = "tide.source.copy-lsn";
inline constexpr std::string_view kSourceTableProperty = "tide.source.table";
// Targets of several sources (--into): the copy position of each, `tide.source.copy-lsn.<schema.table>`.
inline constexpr std::string_view kSourceCopyLsnPropertyPrefix = "tide.source.copy-lsn.";
// Table option: the PostgreSQL attnum (pg_attribute.attnum) of each lake column that mirrors a source
// column, as "fieldId:attnum,..." (field ids ascending). It is how a RENAME COLUMN is told from a DROP
// and an ADD: a renamed column keeps its attnum, an added one gets a new one. Kept in the schema file,
// so it changes atomically with the columns it describes, survives restarts, and follows renames made
// by other engines (it is keyed by field id, not by name).
inline constexpr std::string_view kSourceAttnumsOption = "tide.source.attnums";

// The value of kSourceAttnumsOption for `attnums` (field id -> attnum), and back (InvalidArgument on a
// malformed value, naming it).
std::string FormatSourceAttnums(const std::map<int32_t, int32_t>& attnums);
Result<std::map<int32_t, int32_t>> ParseSourceAttnums(std::string_view value);

// A live, non-generated column of a source table in PostgreSQL's catalog (pg_attribute), as of the
// moment it was read (which may be later than the stream position being applied).
struct SourceAttribute {
  int32_t attnum = 0;
  std::string name;
};
// Reads the relation's live, non-generated columns, in attnum order.
using SourceAttributeReader = std::function<Result<std::vector<SourceAttribute>>(PgOid relation_oid)>;

// What a target table holds of its source, read from its newest snapshot by the sync's commit user.
struct SinkPosition {
  Lsn copy_lsn = kInvalidLsn;    // the initial copy's position; kInvalidLsn: no complete copy yet
  Lsn commit_lsn = kInvalidLsn;  // every source transaction with commit LSN <= this is in the table
  std::optional<int64_t> snapshot_id;
  std::string source_table;  // `tide.source.table` of that snapshot: the source(s) it mirrors, comma-separated
  // Targets of several sources: each source's copy position (its transactions at or below it are in
  // the table although they may lie above commit_lsn).
  std::map<std::string, Lsn> source_copy_lsn;

  // Whether the table holds a copy of `source` (its first or a later one) made at a position after
  // `lsn`: a resync request at `lsn` is done. `only_source`: the table mirrors `source` alone, whose
  // copies are the plain copy position.
  bool CopiedAfter(const std::string& source, bool only_source, Lsn lsn) const;
};

// Reads the position of the table at `table_path` for `commit_user` (the newest snapshot of that user;
// snapshots of other writers, such as a compaction job, are passed over).
Result<SinkPosition> ReadSinkPosition(FileSystem* fs, const std::string& table_path, const std::string& commit_user);

// How the sync runs a table's writers.
struct TableSinkConfig {
  // Called now and then while a writer works long without taking changes (a cross-partition table's
  // key index bootstrap), for the sync to keep its replication connection alive.
  std::function<void()> keep_alive;
  // The sync's commit interval. Unless the table sets `num-sorted-run.stop-trigger`, a bucket may
  // hold kCompactionSlack of commits' sorted runs beyond the compaction trigger (at least Java's 3)
  // before a commit waits for its compaction: a waiting commit delays every change behind it, and
  // after an initial copy every bucket reaches the trigger within the same few commits.
  std::chrono::milliseconds commit_interval{500};
  static constexpr std::chrono::seconds kCompactionSlack{10};
};

class TableSink {
 public:
  // Opens the sink of an existing target table (its latest schema).
  // `computed_specs`: the computed columns of the table (sync/computed_column.h), each a column of the
  // target, evaluated over every source row (those whose column a relation lacks are skipped for it).
  // `metadata`: the metadata columns of the table (sync/metadata_column.h), filled with
  // `source_database`, the row's source table and its transaction's commit time.
  static Result<std::unique_ptr<TableSink>> Open(FileSystem* fs, std::string table_path, std::string table_name,
                                                 std::string source_table, std::string commit_user,
                                                 std::vector<std::string> computed_specs = {},
                                                 std::vector<MetadataColumn> metadata = {},
                                                 std::string source_database = {}, TableSinkConfig config = {});
  ~TableSink();
  TableSink(const TableSink&) = delete;
  TableSink& operator=(const TableSink&) = delete;

  const std::string& table_name() const { return table_name_; }
  const TableSchema& schema() const { return schema_; }
  // The values a source row grows to on its way into the table (its columns, the computed ones appended,
  // then the target's width): the initial copy allocates its rows with this room (SnapshotCopyOptions::
  // row_capacity), so they are not grown again row by row.
  size_t TargetRowCapacity() const { return schema_.fields.size() + computed_specs_.size(); }
  const SinkPosition& committed() const { return committed_; }
  // Whether the transaction that committed at `commit_lsn` is already in the table (for `source`: also
  // when it is at or below that source's own copy position).
  bool Holds(Lsn commit_lsn) const { return commit_lsn <= committed_.commit_lsn; }
  bool Holds(const std::string& source, Lsn commit_lsn) const;
  // Whether a resync request at `lsn` for `source` is done (SinkPosition::CopiedAfter).
  bool CopiedAfter(const std::string& source, Lsn lsn) const {
    return committed_.CopiedAfter(source, sources_.size() <= 1, lsn);
  }
  // Another source table merged into this target (`--into`); `table_name` must be a metadata column.
  Status AddSource(const std::string& source);
  bool multi_source() const { return sources_.size() > 1; }
  const std::vector<std::string>& sources() const { return sources_; }
  // Whether a complete initial copy of `source` is in the table.
  bool HasCopyOf(const std::string& source) const;
  // Whether changes wait for a commit.
  bool pending() const { return pending_; }
  // Readies the writer for the stream now: a cross-partition table's key index is built from the lake
  // (else before its first row, in the middle of the stream).
  Status Prepare();
  int64_t rows_written() const { return rows_written_; }
  // The writer's buffered bytes and the files of its buckets (TableWrite::FileCounts).
  int64_t buffered_bytes() const;
  BucketFileCounts file_counts() const;
  // The maintenance after commits (snapshot expiry, tags) in this run: runs, failures, the last error.
  BackgroundMaintenanceStats maintenance_stats() const;

  // Checks that rows of `relation` fit the target: every source column is a target column of the same
  // type (nullability aside). InvalidArgument naming the column and the difference otherwise.
  Status CheckSource(const SourceRelation& relation) const;

  // Brings the target in step with a new description of its source, in stream order:
  // - a column renamed in PostgreSQL (same attnum, new name) is renamed in the lake, keeping its field
  //   id, so rows before and after read as one column;
  // - a column the target lacks is added (nullable, at the end);
  // - a column whose type widened (INT to BIGINT, longer VARCHAR, larger DECIMAL precision) is widened;
  // - a column the source dropped stays and is NULL from then on (made nullable if it was NOT NULL).
  // Renames are recognised through `read_catalog` (pg_attribute attnums, see kSourceAttnumsOption),
  // trusted only when the catalog lists exactly the columns of `relation`, in order (else it changed
  // again after this stream position); when a rename cannot be told from a DROP and an ADD the result
  // is InvalidArgument naming the columns and the fix. Without `read_catalog` columns match by name.
  // What is buffered of whole transactions before this one (up to `last_complete_lsn`) is committed
  // first, under the old schema. When the transaction in flight already changed rows of the table (or
  // truncated it) (`touched_in_transaction`), the writer goes on under the new schema with those rows
  // in files of the old one (TableWrite::ChangeSchema), so the whole transaction still goes out in one
  // commit; NotSupported when the writer cannot (a key column's type changed). A description older
  // than the lake's schema, from a transaction resent after a restart whose own schema change the lake
  // already took (OlderSchemaOf), changes nothing. Any other difference is InvalidArgument naming the
  // column and both types.
  Status Evolve(const SourceRelation& relation, Lsn last_complete_lsn, bool touched_in_transaction,
                const SourceAttributeReader& read_catalog = {});

  // Rows of the initial copy, in `relation`'s column order (moved from).
  Status WriteCopyRows(const SourceRelationPtr& relation, std::vector<Row>* rows);
  // Before a copy of about `rows` rows: room for their keys in a cross-partition table's key index
  // (spares its growing while the rows arrive). Nothing for other tables or rows <= 0.
  Status ReserveKeys(int64_t rows);
  // Where a streamed change stands in its transaction.
  struct TransactionContext {
    int64_t commit_time_micros = 0;       // the transaction's commit time (Unix epoch)
    Lsn last_complete_lsn = kInvalidLsn;  // the commit LSN of the newest complete transaction before it
    bool touched = false;                 // it already changed rows of this table
  };
  // One streamed change. An UPDATE that did not send unchanged TOASTed values (`u`) takes them from
  // the row's current value: the newest row written since the last commit, else the lake's (when
  // rows were dropped for the memory budget, whole transactions are committed first).
  Status Apply(const RowChange& change, const TransactionContext& context);
  Status Apply(const RowChange& change, int64_t commit_time_micros = 0) {
    return Apply(change, TransactionContext{commit_time_micros, kInvalidLsn, true});
  }
  // A TRUNCATE in stream order: what is buffered is dropped, and the next commit replaces the whole
  // table (an OVERWRITE snapshot) with what is written after it, by a writer that started from an
  // empty table (so dynamic-bucket HASH indexes and the cross-partition key index start empty too).
  // With several sources, `source` names the one truncated: only its rows are deleted (a -D of each of
  // its keys, committed and buffered), the other sources' rows stay.
  Status Truncate(const PgTableName* source = nullptr);

  // Checks that the snapshots of the last commit still hold it (FileStoreCommit::RecheckLastCommit): a
  // Java writer in another process may replace a snapshot file a moment after it landed. Lost files are
  // committed again at once; a lost compaction renews the writer (after the next commit when changes
  // are pending). Called before each commit and before the source is told a position is durable.
  Status RecheckCommit();
  // After a commit, with nothing pending: RecheckCommit, then a new writer restored from the latest
  // snapshot (unless the recheck made one).
  Status RenewWriterAfterCommit();

  // Commits what is buffered as holding every source transaction up to `commit_lsn`. With `copy_lsn`
  // the commit also completes the initial copy taken at that position (and is made even when the table
  // is empty). No-op when nothing is pending and no copy completes.
  // `copied_sources`: the sources whose copy the commit completes (targets of several sources).
  Status Commit(Lsn commit_lsn, std::optional<Lsn> copy_lsn = std::nullopt,
                const std::vector<std::string>& copied_sources = {});

 private:
  TableSink() = default;
  Status Fail(Status status);
  Result<Row> ToTarget(const SourceRelationPtr& relation, Row source, int64_t commit_time_micros = 0);
  // `remember`: keep the row in recent_ (streamed rows; copied rows are not).
  Status Write(RowKind kind, Row row, bool remember = true);
  // NotSupported when a key-only old row lacks a column that a key or partition column is computed from.
  Status CheckOldRowComputes(const SourceRelationPtr& relation, const RowChange& change);
  // The error for `what` ("an UPDATE", "a DELETE") of `relation` without its old row on a table that retracts.
  Status OldRowNeeded(const SourceRelation& relation, std::string_view what) const;
  Status NewWriter(bool for_overwrite = false);
  // A maintenance thread for the current schema (options may have changed); the old one's run under
  // way is waited for and its counts kept.
  Status RenewMaintenance();
  // Writes a -D of every key of `source` (committed and buffered): a TRUNCATE of one of several sources.
  Status DeleteRowsOf(const PgTableName& source);
  // The BinaryRow bytes of the primary key of target row `row` (in key_scratch_).
  Status EncodeKey(const Row& row);
  // Fills the unchanged TOASTed values of `source` (an UPDATE's new row) from the row's current value.
  Status FillUnchanged(const SourceRelationPtr& relation, const RowChange& change, const TransactionContext& context,
                       Row* source);
  // The committed row of the key in key_values (target primary-key order), by column name; nullopt
  // when the lake has none.
  Result<std::optional<std::map<std::string, Datum>>> ReadCommittedRow(const Row& key_values);
  // Whether the rows written since the last commit may be needed (RecentRows): to fill TOASTed values
  // (a column of variable length), or to delete one source's rows (several sources).
  bool MayNeedRecentRows() const;
  // Whether lake column `field` mirrors a source column (not a computed or metadata column).
  bool IsSourceField(const DataField& field) const;
  // Whether `relation` describes the table as one of its schemas since the newest snapshot's did, not
  // as the latest does: a transaction resent after a restart that changed the table's columns after
  // changing rows; the lake took the schema change before the crash, not the rows. Its rows then map to
  // the lake's columns by field id: the lake column of each of its columns, else nullopt. Only before
  // this sink changed a schema itself, and for a table of one source.
  // A rename among them counts only when `read_catalog` shows the catalog ahead of the description.
  Result<std::optional<std::vector<int>>> OlderSchemaOf(const SourceRelation& relation,
                                                        const SourceAttributeReader& read_catalog);

  FileSystem* fs_ = nullptr;
  std::string table_path_;
  std::string table_name_;
  std::string source_table_;
  std::vector<std::string> sources_;  // source_table_ and the sources added after it
  std::string commit_user_;
  TableSchema schema_;
  std::vector<int> key_columns_;  // target indices of the primary key
  std::unique_ptr<TableWrite> write_;
  std::unique_ptr<FileStoreCommit> commit_;
  // Expiry and automatic tags after each commit, with the table's options (Java's writers do the same),
  // on the maintenance's own thread so commits never wait for it; partition expiry on this thread.
  // Recreated when the schema changes; retired_maintenance_ sums the runs of the ones it replaced.
  std::unique_ptr<BackgroundMaintenance> maintenance_;
  BackgroundMaintenanceStats retired_maintenance_;
  SinkPosition committed_;
  // How the rows of one relation version become target rows: the computed columns bound to it, and the
  // target column of each source column, then of each computed column.
  struct RelationMap {
    SourceRelationPtr relation;  // held, so no other version can take its address
    std::vector<ComputedColumn> computed;
    std::vector<int> columns;
    std::vector<int> metadata_columns;  // target column of each of metadata_
    // The source's columns and computed ones are the target's first columns, in order: a row becomes
    // its target row in place.
    bool in_place = false;
  };
  Result<const RelationMap*> MapOf(const SourceRelationPtr& relation);
  std::vector<std::string> computed_specs_;
  std::set<std::string> computed_names_;
  std::vector<MetadataColumn> metadata_;
  std::string source_database_;
  std::map<const SourceRelation*, RelationMap> column_maps_;
  // Descriptions of an earlier schema (OlderSchemaOf) met by Evolve: their column names (checked when
  // a relation's address is met again) and the lake column of each.
  struct OlderRelation {
    std::vector<std::string> names;
    std::vector<int> columns;
  };
  std::map<const SourceRelation*, OlderRelation> older_;
  bool evolved_ = false;  // this sink changed the table's schema
  // The rows written since the last commit, for TOAST fill; the primary-key encoder of their keys.
  RecentRows recent_{kRecentRowsBudget};
  // The lake's files for ReadCommittedRow, planned at its first lookup after a commit.
  struct CommittedPlan {
    std::vector<DataSplit> splits;
  };
  std::optional<CommittedPlan> committed_plan_;
  std::unique_ptr<BinaryRowWriter> key_writer_;
  std::string key_scratch_;
  static constexpr int64_t kRecentRowsBudget = 64 << 20;
  bool remember_rows_ = true;  // MayNeedRecentRows()
  bool pending_ = false;
  bool renew_writer_ = false;  // a recheck found a compaction of the writer lost while changes were pending
  // The writer was made anew (restored from the latest snapshot) after the last commit: a snapshot of
  // that commit found replaced later has files the writer does not hold.
  bool renewed_since_commit_ = false;
  bool truncate_ = false;  // the next commit overwrites the table
  // A cross-partition update table: the key index routes deletes, so a key-only delete need not
  // compute partition columns.
  bool cross_partition_ = false;
  // An aggregation table whose value columns retract: UPDATE and DELETE need PostgreSQL's whole old row
  // (REPLICA IDENTITY FULL) ...
  bool retracts_ = false;
  // ... except a DELETE when aggregation.remove-record-on-delete removes the record instead.
  bool deletes_remove_records_ = false;
  int64_t rows_written_ = 0;
  TableSinkConfig config_;
  Status failed_;
};

}  // namespace tide
