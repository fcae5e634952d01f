// PostgresSync: the pipeline of `tide sync postgres`: PostgreSQL tables mirrored into Paimon tables,
// continuously and exactly once (DESIGN.md §2).
//
// Start-up. The publication is created for the selected tables (or an existing one checked to cover
// them); every target table is created from PostgreSQL's catalog when missing, else checked against
// it. When the slot does not exist it is created with an exported snapshot, and every table is copied
// under that snapshot (position S = the slot's consistent point). When it exists, the tables whose
// initial copy never completed are copied under the exported snapshot of a temporary slot (their own
// position S_t), while the other tables keep their positions.
//
// Streaming. Whole transactions come from the slot in commit order. A transaction whose commit LSN is
// at or below a table's position is already in that table and is dropped for it; every later one is
// applied. Commits go out between transactions, once `commit_interval` has passed since the last
// one; each table's commit carries its position (TableSink). PostgreSQL is told a transaction is
// flushed only after every table holding part of it has committed it, so its WAL is freed only then;
// while the selected tables are idle the acknowledged position follows the stream, so WAL is freed
// even when only other tables change.
//
// Stopping. RequestStop() (from a signal handler too) ends the loop at the next event; Run then
// commits what is buffered, acknowledges it and returns OK. Errors stop the sync with nothing
// acknowledged past the last durable commit.
//
// Thread-safety: Run on one thread; RequestStop from any thread or a signal handler.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tide/base/result.h"
#include "tide/io/file_system.h"
#include "tide/postgres/publication.h"
#include "tide/sync/metadata_column.h"
#include "tide/sync/sync_progress.h"
#include "tide/sync/table_selection.h"

namespace tide {

class ChangeStream;
class PgConnection;

struct PostgresSyncOptions {
  std::string warehouse;
  std::string database;  // the lake database the targets live in
  std::string conninfo;  // PostgreSQL (libpq conninfo)
  std::vector<PgTableName> tables;
  // --tables patterns, --excluding-tables, prefix and suffix: when set, `tables` is what it selects
  // among the server's tables (and partitioned roots), and it names the lake tables.
  std::optional<TableSelection> selection;
  // Per-table flags in their `[TABLE:]VALUE` form. A value without a scope applies to every selected
  // table that has the columns it names; a scoped one must fit its table.
  std::vector<ScopedValue> computed_columns;  // name=function(args)
  std::vector<ScopedValue> partition_keys;    // comma-separated columns (computed ones too)
  std::vector<ScopedValue> primary_keys;      // comma-separated; default: PostgreSQL's primary key
  // --metadata-column: columns every target gets, filled from the row's origin (sync/metadata_column.h).
  std::vector<MetadataColumn> metadata_columns;
  std::string slot;
  std::string publication;
  // Whether the sync owns the publication: it then adds tables newly selected to it (a publication the
  // user names is only checked to cover them).
  bool manage_publication = true;
  std::string table_prefix, table_suffix;
  std::vector<std::pair<std::string, std::string>> table_conf;  // options of tables created by the sync
  // Lake names given explicitly (`tide sync resync`), before the selection's and the prefix's.
  std::map<PgTableName, std::string> target_names;
  // Tables copied again at start (`tide sync resync`): under the exported snapshot of a temporary slot,
  // at a position of their own, and committed as an OVERWRITE that replaces their lake contents.
  std::vector<PgTableName> resync;
  // Stop once the copies are committed instead of following the stream.
  bool copy_only = false;
  std::chrono::milliseconds commit_interval{500};
  // How often a running sync looks for tables newly created into the selection (`selection` only).
  std::chrono::milliseconds table_discovery_interval{5000};
  int copy_workers = 4;
  // Progress lines (copy finished, commits); default: none.
  std::function<void(const std::string&)> on_progress;
  // Live figures per table and overall (sync/sync_progress.h), published as the sync goes; none when null.
  std::shared_ptr<SyncProgress> progress;
};

struct PostgresSyncStats {
  int64_t copied_rows = 0;
  int64_t streamed_changes = 0;
  int64_t transactions = 0;
  int64_t commits = 0;  // commit rounds
};

class PostgresSync {
 public:
  explicit PostgresSync(PostgresSyncOptions options) : options_(std::move(options)) {}

  // Runs until RequestStop or an error.
  Status Run();
  // Async-signal-safe: atomic stores only. Also ends the stream's reconnect loop.
  void RequestStop();
  // The stream Run reads, for RequestStop (set and cleared by Run).
  void SetStream(ChangeStream* stream) { stream_.store(stream); }
  const PostgresSyncStats& stats() const { return stats_; }

  // The lake name of a source table: lower-case `<prefix><table><suffix>`.
  std::string TargetName(const PgTableName& table) const;
  // The commit user of the sync on `slot`: its commits carry the source positions.
  static std::string CommitUser(const std::string& slot) { return "tide-sync-" + slot; }
  // The key of the advisory lock a sync on `slot` holds while it runs (hashtext of it).
  static std::string LockKey(const std::string& slot) { return "tide sync " + slot; }
  // Takes that lock for `conn`'s session if it is free; false when another session holds it.
  static Result<bool> TryLockSlot(PgConnection& conn, const std::string& slot);

 private:
  PostgresSyncOptions options_;
  std::atomic<bool> stop_{false};
  std::atomic<ChangeStream*> stream_{nullptr};
  PostgresSyncStats stats_;
};

}  // namespace tide
