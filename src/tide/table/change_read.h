// Change reads of a Table: incremental reads between two snapshots, the audit log, and the change
// stream that follows a table as it is committed (Java's batch `incremental-between`, AuditLogTable and
// streaming DataTableStreamScan).
//
// Incremental reads (NewIncrementalReader) return the changes of the snapshots in (S1, S2] with their row
// kinds, from delta or changelog files (source/incremental_scan.h), in the table's latest schema; in
// diff mode, or between two tags (as Java, unless `incremental-between-tag-to-snapshot`), the
// difference of the two snapshots' contents (source/change_reader.h).
//
// The audit log (NewAuditLogReader) is a batch read of the latest snapshot that keeps each row's kind,
// as Java's `$audit_log` batch read (source/change_reader.h).
//
// TableChangeStream follows a table: it starts as Java's streaming scan starts for `scan.mode` (or where a
// consumer left off), then reads each new snapshot's changes in commit order: from changelog files when
// the table has a changelog producer, else from the delta files of APPEND snapshots (COMPACT and
// OVERWRITE snapshots add nothing, as Java's DeltaFollowUpScanner and ChangelogFollowUpScanner). With a
// consumer id it records in `consumer/consumer-<id>` the next snapshot to read, once the caller says a
// snapshot's records are delivered (Java's notifyCheckpointComplete), so a restart continues there and
// snapshot expiry keeps that snapshot and the ones after it.
//
// Thread-safety: readers and streams are used by one thread at a time; the Table must outlive them.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tide/base/result.h"
#include "tide/table/source/change_reader.h"
#include "tide/table/source/incremental_scan.h"
#include "tide/table/source/table_reader.h"
#include "tide/table/table.h"

namespace tide {

struct IncrementalReadOptions {
  std::optional<std::string> between;            // "S1,S2": snapshots (S1, S2]; "TAG1,TAG2": two tags
  std::optional<std::string> between_timestamp;  // "T1,T2": epoch milliseconds (T1, T2]
  std::string scan_mode = "auto";                // incremental-between-scan-mode: auto, delta, changelog, diff
  std::vector<int> projection;                   // indices into the latest schema's fields; empty = all
  bool all_columns = true;                       // false with an empty projection: no table column
  bool with_row_kind = true;                     // a leading `rowkind` column
};

// Exactly one of `between` and `between_timestamp` must be set.
Result<std::unique_ptr<TableReader>> NewIncrementalReader(const Table& table, const IncrementalReadOptions& options);

// The audit log of the latest snapshot, projected as `options` say (its range fields are ignored).
Result<std::unique_ptr<TableReader>> NewAuditLogReader(const Table& table, const IncrementalReadOptions& options);

// Where a change stream starts when no consumer has progress recorded (Java's `scan.mode`).
struct StreamStart {
  enum class Kind {
    kLatestFull,    // latest-full (Java's default): the latest snapshot in full as +I, then its successors
    kLatest,        // latest: only snapshots committed after the start
    kEarliest,      // from-snapshot at the earliest snapshot: the changes of every snapshot that exists
    kSnapshot,      // from-snapshot: the changes of snapshot N and its successors
    kSnapshotFull,  // from-snapshot-full: snapshot N in full as +I, then its successors
    kTimestamp,     // from-timestamp: the changes of the snapshots committed at or after T
  };
  Kind kind = Kind::kLatestFull;
  int64_t snapshot_id = 0;
  int64_t timestamp_ms = 0;

  // "latest-full", "latest", "earliest", "snapshot:N", "snapshot-full:N", "timestamp:T" (T in epoch
  // milliseconds).
  static Result<StreamStart> Parse(std::string_view text);
};

struct TableChangeStreamOptions {
  StreamStart start;
  std::optional<std::string> consumer_id;
  std::string scan_mode = "auto";  // delta or changelog files: auto, delta, changelog
};

class TableChangeStream {
 public:
  static Result<std::unique_ptr<TableChangeStream>> Open(const Table* table, TableChangeStreamOptions options);

  // Reads the next snapshot that has changes, if one has been committed: calls `emit` for each of its
  // records in order and returns the snapshot's id; nullopt when nothing new is there yet (skipped
  // snapshots still advance the stream). NotFound when the next snapshot to read was expired.
  Result<std::optional<int64_t>> Poll(const std::function<Status(const ChangeRecord&)>& emit);

  // The next snapshot the stream will read (after the full read of a snapshot, if one is still due).
  int64_t next_snapshot() const { return next_snapshot_; }
  // Whether the next Poll reads a snapshot in full (a *-full start).
  bool full_read_due() const { return full_snapshot_.has_value() || wait_full_; }
  // Records next_snapshot() as the consumer's progress (no-op without a consumer id).
  Status CommitConsumer();
  // The fields of the records' rows (the table's latest schema).
  const std::vector<DataField>& fields() const { return fields_; }
  ChangeScanMode scan_mode() const { return mode_; }

 private:
  explicit TableChangeStream(const Table* table) : table_(table) {}
  Status ReadFull(int64_t snapshot_id, const std::function<Status(const ChangeRecord&)>& emit);
  // Snapshot `id`, or (changelog kept longer than snapshots) changelog `id` once the snapshot expired;
  // nullopt when neither exists.
  Result<std::optional<Snapshot>> SnapshotOrChangelog(int64_t id) const;
  // The earliest id a stream can read: the earliest changelog when decoupled, else the earliest snapshot.
  Result<std::optional<int64_t>> EarliestReadable() const;

  const Table* table_;
  TableChangeStreamOptions options_;
  ChangeScanMode mode_ = ChangeScanMode::kDelta;
  bool changelog_decoupled_ = false;  // expired snapshots live on as changelog/changelog-<id>
  std::vector<DataField> fields_;
  bool started_ = false;
  std::optional<int64_t> full_snapshot_;  // a full read still to do first
  bool wait_full_ = false;                // latest-full on an empty table: the first snapshot in full
  int64_t next_snapshot_ = 1;
  std::optional<int64_t> committed_;       // the consumer progress last written
};

}  // namespace tide
