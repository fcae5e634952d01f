// ChangeReader: reads rows together with their row kinds (+I, -U, +U, -D), for incremental reads, the
// change stream (`tide read`) and the `$audit_log` system table.
//
// Two ways to read a split (one partition and bucket):
//   - changes (ChangeReadMode::kChanges): the files of an IncrementalScan plan (a snapshot's delta or
//     changelog files), read one after another without merging, every record with its _VALUE_KIND, as
//     Java reads streaming splits (MergeFileSplitRead.createNoMergeReader). With `order_by_sequence`
//     a split's records come in _SEQUENCE_NUMBER order, which for a table written by one writer per
//     bucket (Tide's sync) is commit order; a split of more than kMaxOrderedSplitRows rows (an initial
//     copy) is read in file order instead, so memory stays bounded.
//   - audit log (ChangeReadMode::kAuditLog): the live files of one snapshot, merged per key as a batch
//     read merges them, but keeping deleted keys (Java's AuditLogTable reads with forceKeepDelete): the
//     deduplicate engine yields each key's newest record with its own kind (+I, +U, or -D for a delete
//     not yet compacted away); other merge engines yield their merged row as +I. Level-0 files of
//     deletion-vector and first-row tables are skipped and deletion vectors applied, as batch reads do.
//   - diff (ChangeReadMode::kDiff): two snapshots compared, as Java's `incremental-between-scan-mode`
//     diff (IncrementalDiffSplitRead): per bucket, the files only the start snapshot holds
//     (SnapshotChanges::before_splits) and the files only the end snapshot holds (splits) are each
//     merged as the audit log merges them, deletes dropped; a key only the end has comes with its kind,
//     a key whose whole row differs comes as the end's record, a key only the start has as -D with its
//     old row. Rows of one bucket come in key order; each side of a bucket is held in memory. Append
//     tables: the rows of the end's files that the start does not hold, +I.
// Append tables have no row kinds: every row is +I.
//
// Rows are mapped by field id onto `read_schema` (schema evolution) and projected to `projection`.
// ChangeTableReader adapts a ChangeReader to the TableReader interface with a leading `rowkind` STRING
// column (Java's audit-log column name), for SQL.
//
// Thread-safety: one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tide/base/result.h"
#include "tide/io/file_system.h"
#include "tide/table/io/key_value.h"
#include "tide/table/source/incremental_scan.h"
#include "tide/table/source/table_reader.h"
#include "tide/types/table_schema.h"

namespace tide {

// The row kind's short string as Java prints it ("+I", "-U", "+U", "-D").
std::string_view RowKindShortString(ValueKind kind);

inline constexpr const char* kRowKindColumn = "rowkind";
inline constexpr size_t kMaxOrderedSplitRows = 1 << 20;

enum class ChangeReadMode { kChanges, kAuditLog, kDiff };

struct ChangeReadContext {
  FileSystem* fs = nullptr;
  std::string metadata_path;  // the folder holding schema/
  std::string table_name;
  TableSchema read_schema;      // rows are returned in this schema
  std::vector<int> projection;  // indices into read_schema.fields; empty = all
  ChangeReadMode mode = ChangeReadMode::kChanges;
  bool order_by_sequence = false;  // kChanges: each split's records by _SEQUENCE_NUMBER
};

// One row with its kind and the snapshot it came from.
struct ChangeRecord {
  int64_t snapshot_id = 0;
  ValueKind kind = ValueKind::kInsert;
  Row row;
};

class ChangeReader {
 public:
  // Reads the splits of `changes`, snapshot by snapshot.
  static Result<std::unique_ptr<ChangeReader>> Open(ChangeReadContext context, std::vector<SnapshotChanges> changes);
  virtual ~ChangeReader() = default;
  // The fields of each record's row (the projection of read_schema).
  virtual const std::vector<DataField>& fields() const = 0;
  // Appends up to `max_rows` records to `out`; false once the reader is exhausted (nothing appended).
  virtual Result<bool> Next(size_t max_rows, std::vector<ChangeRecord>* out) = 0;
};

// A TableReader over a ChangeReader: each row is (rowkind, fields...) when `with_row_kind`, else the
// fields alone; without `with_fields` the reader's fields are dropped (a count needs no column).
class ChangeTableReader final : public TableReader {
 public:
  ChangeTableReader(std::unique_ptr<ChangeReader> reader, bool with_row_kind, bool with_fields = true);
  const std::vector<DataField>& fields() const override { return fields_; }
  Result<bool> NextBatch(size_t max_rows, std::vector<Row>* out) override;

 private:
  std::unique_ptr<ChangeReader> reader_;
  bool with_row_kind_;
  bool with_fields_;
  std::vector<DataField> fields_;
  std::vector<ChangeRecord> records_;
};

// The `rowkind` column (a STRING that is never NULL).
DataField RowKindField();

}  // namespace tide
