// TableWrite: the writer of one Paimon table. Rows go in with their row kind; level-0 data files and
// the CommitMessages that describe them come out, as Java Paimon 1.x's TableWriteImpl /
// KeyValueFileStoreWrite / AppendOnlyFileStoreWrite produce them, so Java, the engines on it and Tide's
// own reader read the table once a committer (FileStoreCommit) publishes the messages.
//
// Routing of a row:
//   partition  the partition columns, as a BinaryRow (the message's `partition`), in the folder
//              FileStoreScan::PartitionPath gives (`k=v/...`, Hive escaping, default partition name);
//   bucket     `bucket` = N > 0: Java's bucket function over the bucket key (`bucket-key`, else the
//              trimmed primary key; `bucket-function.type`); `bucket` = -1 on an append table: the
//              bucket-unaware bucket 0, total_buckets -1; `bucket` = -1 on a primary-key table: dynamic
//              bucket mode, total_buckets -1, each key's bucket from DynamicBucketIndex (Java's
//              HashBucketAssigner for one writer: an existing key keeps its bucket, a new one goes to a
//              bucket with fewer than `dynamic-bucket.target-row-num` keys), and every commit carries a
//              new HASH index file for each bucket that met a new key; `bucket` = -1 on a primary-key
//              table whose primary key lacks a partition column: cross-partition update mode (Java's
//              KEY_DYNAMIC), each key's partition and bucket from GlobalIndexAssigner (a RocksDB key
//              index in a local temporary folder, built from the latest snapshot before the first
//              row): an update that moves a key to another partition also writes a -D of it where it
//              was (deduplicate), so the table never holds two rows of one key; no index files.
//              Postpone buckets (-2) are refused (NotSupported).
// Sequence numbers: per (partition, bucket), strictly increasing in write order, starting after the
// largest `_MAX_SEQUENCE_NUMBER` of the bucket's live files in the latest snapshot when the writer first
// meets the bucket (0 for a new bucket), as KeyValueFileStoreWrite restores them; bucket-unaware append
// tables start every writer at 0, as Java's AppendFileStoreWrite ignores the previous files. Primary-key
// files store them; append files only record their range in the metadata.
// Buffering: one WriteBuffer per (partition, bucket) under one shared byte budget (`write-buffer-size`,
// Tide default 64 MiB): past it the largest buffers flush to files at once. Primary-key buffers sort by
// key and fold each key with the merge engine at flush; files roll at `target-file-size`. Tables of
// the deduplicate engine whose columns all have a column vector form buffer as columns instead
// (ColumnarWriteBuffer: about a fifth of the memory, files encoded from the vectors, the same bytes).
// `ignore-delete`: -U/-D rows are dropped at Write, as Java's TableWriteImpl does. `changelog-producer`
// input: primary-key flushes also write every buffered record, unmerged, to changelog files.
//
// Durability and visibility: PrepareCommit flushes every buffer and returns once every file it lists is
// durable (fsync of file and folder entries). Files written before (flushes under memory pressure) are
// listed by the next PrepareCommit. No file is part of the table until a committer references it;
// Abort() deletes the files not yet handed out. After any failed flush the writer refuses further
// calls (the buffered rows are lost; the caller restarts from its last commit).
//
// Compaction (primary-key tables, unless `write-only`): each bucket writer keeps its files as Levels
// (restored from the latest snapshot with the sequence numbers) and a MergeTreeCompactManager; after
// every flush the universal strategy may start a compaction on the writer's compaction thread (one
// per TableWrite, one task at a time). PrepareCommit hands finished compactions to the committer as
// compact_before/compact_after (the committer makes them a COMPACT snapshot after the APPEND one),
// waiting for a running one only when the bucket has more than `num-sorted-run.stop-trigger` + 1
// sorted runs or `commit.force-compact` is set; a flush waits when there are more than the stop
// trigger. `full-compaction.delta-commits` = N makes every Nth PrepareCommit fully compact every bucket
// the writer holds. Compact() compacts the buckets of the latest snapshot on request (`tide compact`).
// Intermediate files (written by one compaction and replaced by a later one before any commit) are
// deleted at once, as Java's MergeTreeWriter does.
//
// Lookup tables (deletion vectors, first-row, `changelog-producer` lookup; Java's LookupStrategy)
// compact as Java's lookup mode does: level 0 is forced up after every flush (ForceUpLevel0Compaction)
// and, with `lookup-wait` (default true), PrepareCommit waits until the bucket's level 0 is compacted,
// so every commit carries the APPEND snapshot of its level-0 files and the COMPACT snapshot that moves
// them up. Lookup compaction (MergeTreeCompactRewriter) looks each level-0 key up in the levels above:
// deletion vectors mark the older row's position (the bucket's BucketedDvMaintainer, restored from the
// latest snapshot's index manifest), and PrepareCommit writes the bucket's vectors into one new DV index
// file (32-bit, or 64-bit with `deletion-vectors.bitmap64`) listed in the COMPACT snapshot's index
// manifest in place of the previous one; first-row keeps a key's first row; `changelog-producer` lookup
// writes the exact -U/+U/-D/+I changes as changelog files of the compaction (compact_changelog_files,
// committed with the COMPACT snapshot). First-row tables refuse -U/-D rows unless `ignore-delete`.
// `changelog-producer` full-compaction: compactions into the max level write the changes against the
// max level's previous records as changelog files (committed likewise).
//
// Idle bucket writers (Java's AbstractFileStoreWrite.prepareCommit): a bucket writer that hands out
// nothing at a PrepareCommit, whose last change went out before the last PrepareCommit that handed out
// anything (so, callers committing each PrepareCommit's messages before the next, it is in the table),
// and whose compaction is neither running nor unclaimed, is closed: its levels, deletion vectors and
// key hashes leave memory, and the next row of the bucket opens it again from the latest snapshot. Not
// at the first PrepareCommit that hands out anything, nor for writes an OVERWRITE publishes.
//
// Refused tables (NotSupported, naming the option): the above bucket modes, first-row with deletion
// vectors (as Java), VARIANT columns, and the options
// CheckWritable (table_write.cc) refuses.
//
// Thread-safety: one thread at a time. Data files go to the local file system (the Parquet writer's).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "tide/base/result.h"
#include "tide/codec/binary_row.h"
#include "tide/codec/bucket.h"
#include "tide/io/file_system.h"
#include "tide/table/operation/commit_message.h"
#include "tide/table/io/data_file_writer.h"
#include "tide/table/crosspartition/global_index_assigner.h"
#include "tide/table/index/dynamic_bucket_index.h"
#include "tide/base/serial_executor.h"
#include "tide/table/append/bucketed_append_compact_manager.h"
#include "tide/table/append/unaware_append_compact_manager.h"
#include "tide/table/mergetree/compact/merge_tree_compact_manager.h"
#include "tide/table/mergetree/columnar_write_buffer.h"
#include "tide/table/mergetree/write_buffer.h"
#include "tide/table/mergetree/write_merge_function.h"
#include "tide/table/schema/core_options.h"
#include "tide/types/table_schema.h"

namespace tide {

struct TableWriteConfig {
  // Names the table in errors; the table folder's name when empty.
  std::string table_name;
  // Override the table's `write-buffer-size` and `target-file-size`.
  std::optional<int64_t> write_buffer_size;
  std::optional<int64_t> target_file_size;
  // The `_CREATION_TIME` clock (local wall-clock millis); LocalWallClockMillis when unset.
  std::function<int64_t()> creation_time_ms;
  // Start every bucket empty, ignoring the latest snapshot's files and sequence numbers (Java's
  // withIgnorePreviousFiles): for writes that an OVERWRITE commit will publish, which replaces them.
  bool ignore_previous_files = false;
  // Cross-partition update tables: the folder under which the key index's RocksDB folder is made (and
  // deleted with the writer); the system's temporary folder when empty. Never inside the warehouse.
  std::string key_index_dir;
  // Cross-partition update tables: bytes of keys the key index keeps in memory before it spills them
  // into RocksDB (KeyIndex); about 50 bytes per key of one BIGINT.
  size_t key_index_memory = KeyIndex::kDefaultMemoryBudget;
  // Called now and then on the writer's thread while it works long without taking rows (the key index
  // bootstrap reads the whole table), e.g. to keep a replication connection alive meanwhile.
  std::function<void()> keep_alive;
  // Bucket-unaware append tables: merge each partition's small files beside the writes, as Java's
  // streaming sink does (its compaction coordinator). For long-running writers (the sync); batch
  // writes leave them, as Java's batch writes do (`tide compact` merges them).
  bool compact_unaware_append = false;
  // Primary-key tables of the deduplicate engine whose columns all have a column vector form: hold
  // the buffered records as column vectors (ColumnarWriteBuffer) and encode files from them, instead of
  // Datum rows. The files are the same to the byte; off only to compare the two paths.
  bool columnar_buffers = true;
  // When the table's options do not set `num-sorted-run.stop-trigger`: the sorted runs a bucket may
  // hold beyond `num-sorted-run.compaction-trigger` before a flush or commit waits for its compaction
  // (Java's default, and this one's when unset: 3). Java's writers flush at checkpoints, minutes apart,
  // so 3 runs are minutes of slack; a writer that commits every half second (the sync) needs more runs
  // for the same time.
  std::optional<int32_t> sorted_runs_beyond_trigger;
  // Memory flushes of column-buffered buckets run on a flush thread while the writes go on: when the
  // filling buffers pass `write-buffer-size`, the largest is handed to the flush thread and its bucket
  // fills a fresh one. The buffers in flight hold at most half the budget more (a flush waits for the
  // oldest in flight beyond that; one buffer larger than that goes alone, and the buffers filling
  // meanwhile get half the budget), so the buffers take about 1.5 times `write-buffer-size` (each counted
  // at its vectors' capacity, which grows by doubling: a buffer may pass its share by its last growth),
  // plus the flush's Parquet encoder. The files are booked (compaction, the next commit's list) on the writer's
  // thread in flush order, at the next memory flush once written and before anything else the writer
  // does with its buckets (PrepareCommit, Compact, ChangeSchema); a failed flush fails the writer
  // there. For a writer that takes many rows at once (the sync's initial copy, its catch-up);
  // rows-buffered buckets flush in place.
  bool flush_ahead = false;
  // The lowest sequence number a bucket writer of a primary-key or bucketed table starts at, above what
  // its restored files hold: a writer that replaces another of the same table (TableWrite::
  // NextSequenceFloor of the one it replaces) numbers every row above the rows the other wrote, even
  // when the snapshot it restores from lacks some of their files (a snapshot another committer replaced,
  // whose files are committed again later): a later change of a key never sorts below an earlier one.
  int64_t sequence_floor = 0;
};

// The data files of the buckets a writer compacts (their levels), as of its last flush or commit.
struct BucketFileCounts {
  int64_t buckets = 0;
  int64_t files = 0;
  int64_t max_files = 0;        // in one bucket
  int64_t max_sorted_runs = 0;  // in one bucket
};

struct TableWriteMetrics {
  int64_t rows_written = 0;   // rows accepted by Write (after ignore-delete)
  int64_t rows_dropped = 0;   // -U/-D rows dropped by ignore-delete
  int64_t flushes = 0;        // buffers flushed (under memory pressure or by PrepareCommit)
  int64_t memory_flushes = 0; // of those, flushes because the budget was passed
  int64_t flushes_at_max_level = 0;  // of those, flushes whose files went to the max level (keys apart)
  int64_t flushes_ahead = 0;         // memory flushes handed to the flush thread (flush_ahead)
  int64_t data_files = 0;     // data files written
  int64_t changelog_files = 0;
  int64_t compactions = 0;          // compaction results taken
  int64_t compaction_waits = 0;     // times a flush or commit waited for a running compaction
  int64_t compaction_wait_micros = 0;  // time those waits took
  int64_t flush_micros = 0;         // time the writer's thread spent flushing buffers into files (waits for compaction aside)
  int64_t flush_ahead_micros = 0;   // time the flush thread spent on flushes ahead (booked ones)
  int64_t compacted_files_before = 0;
  int64_t compacted_files_after = 0;
  int64_t compactions_given_up = 0;  // bucket-unaware merges that failed and were dropped (logged)
  int64_t partition_moves = 0;      // cross-partition tables: keys that moved to another partition
  int64_t bootstrapped_keys = 0;    // cross-partition tables: keys loaded into the key index
};

class TableWrite {
 public:
  // A writer of the table at `table_path` whose latest schema is `schema` (its id goes into every
  // file). `commit_user` is this writer's identity for the committer.
  static Result<std::unique_ptr<TableWrite>> Create(FileSystem* fs, std::string table_path, TableSchema schema,
                                                    std::string commit_user, TableWriteConfig config = {});
  ~TableWrite();
  TableWrite(const TableWrite&) = delete;
  TableWrite& operator=(const TableWrite&) = delete;

  // Buffers one row (one value per table column, in schema order, each in the representation datum.h
  // gives its type). InvalidArgument, naming the column, for a value that does not fit its column or a
  // NULL in a NOT NULL column, and for -U/-D rows of an append table. May flush buffers to files.
  Status Write(RowKind kind, const Row& row);
  Status Write(RowKind kind, Row&& row);
  // Write(kind, std::move(rows[i])) for each of the n rows in order, stopping at the first error. On a
  // cross-partition update table the key index is asked for the keys of the rows ahead before it is
  // read (its lookups miss the CPU's caches otherwise).
  Status WriteRows(RowKind kind, Row* rows, size_t n);

  // Cross-partition update tables: room in the key index for `keys` more keys (an initial copy's
  // estimated rows), within its memory budget. Builds the key index first (LoadKeyIndex).
  Status ReserveKeys(size_t keys);

  // Cross-partition update tables: builds the key index from the latest snapshot now (else it is built
  // before the first row); nothing for other tables or when it is built already.
  Status LoadKeyIndex() { return cross_partition_ && !global_index_ ? LoadGlobalIndex() : Status::OK(); }

  // While on, the rows written are a bulk load (an initial copy): every flush, the commit's too, not only
  // those the memory budget forces, goes to the max level when its keys lie apart from its bucket's
  // (AddFlushedFiles). Off by default; a writer that streams changes keeps it off.
  void SetBulkLoad(bool on) { bulk_load_ = on; }

  // Flushes every buffer and returns one message per (partition, bucket) with files written since the
  // previous call, sorted by partition bytes then bucket. The files are durable when this returns.
  Result<std::vector<CommitMessage>> PrepareCommit();

  // Compacts the buckets of the latest snapshot (with `partitions`, only those whose partition values,
  // in partition-key order, are listed; with `buckets`, only those buckets): a full compaction with
  // `full`, else what the strategy picks (Java's FileStoreWrite.compact). Buffered rows of those buckets
  // are flushed first and take part. Waits for the compactions; the next PrepareCommit returns their
  // results. Append tables: fixed buckets as Java's BucketedAppendCompactManager, bucket-unaware ones
  // as Java's AppendCompactCoordinator plans a batch compaction (small files of a partition merged;
  // every task of the plan, one after another).
  Status Compact(bool full, const std::optional<std::vector<Row>>& partitions = std::nullopt,
                 const std::optional<std::vector<int32_t>>& buckets = std::nullopt);

  // Drops every buffered row and deletes the files written since the last PrepareCommit (waiting for a
  // running compaction first). The writer then starts afresh from the latest snapshot.
  void Abort();
  // Above every sequence number this writer gave a row (and its restored files hold, for the buckets it
  // opened): a replacing writer's TableWriteConfig::sequence_floor.
  int64_t NextSequenceFloor() const;

  // Goes on under `next`, a later schema of the table, keeping everything written so far: every
  // buffer is flushed into files of the current schema and running compactions finish; the rows that
  // follow are checked, merged, written and compacted under `next`. The next PrepareCommit lists the
  // files of both schemas, for one commit (each data file names its schema, and readers and compaction
  // read a file by it, column by field id). Sequence numbers, bucket assignments, the key index,
  // levels and deletion vectors carry on, so one transaction may span a schema change.
  // `next` must continue the current schema as column additions, renames, widenings and NOT NULL
  // relaxations do: the current columns keep their ids and places, new ones are nullable and come
  // after them, key, partition, bucket-key and sequence columns keep their names and types, and table
  // options are unchanged (those under `tide.` aside, which the writer does not read). NotSupported,
  // naming the difference, otherwise (the writer is then unchanged).
  Status ChangeSchema(TableSchema next);
  // Whether ChangeSchema can go from `current` to `next` (the NotSupported it would return).
  static Status CheckSchemaContinues(const TableSchema& current, const TableSchema& next,
                                     const std::string& table_name);

  const std::string& commit_user() const { return commit_user_; }
  const TableSchema& schema() const { return schema_; }
  // The table's options with the writer's overrides (TableWriteConfig) applied.
  const CoreOptions& options() const { return options_; }
  const std::string& table_path() const { return table_path_; }
  int64_t buffered_bytes() const { return memory_->used(); }
  int64_t write_buffer_size() const { return memory_->budget(); }
  // The files of the buckets it compacts.
  BucketFileCounts FileCounts() const;
  const TableWriteMetrics& metrics() const { return metrics_; }
  // Bucket writers open (idle ones are closed at PrepareCommit).
  size_t open_bucket_writers() const { return writers_.size(); }

 private:
  struct BucketWriter;

  explicit TableWrite(CoreOptions options);
  Status ValidateRow(RowKind kind, const Row& row) const;
  // NULLs of NOT NULL non-key columns in a retraction become zero values (engines that ignore them).
  void FillRetractPlaceholders(Row* row) const;
  Result<BucketWriter*> WriterFor(const Row& row);
  // The serialized partition of `row`; valid until the next call.
  Result<const std::string*> PartitionOf(const Row& row);
  // The writer of (partition, bucket); `row` gives the partition's values when it is new.
  Result<BucketWriter*> WriterAt(const std::string& partition, int32_t bucket, const Row& row);
  // Cross-partition update tables: routes the row through the key index (then validates what it writes).
  Status WriteCrossPartition(RowKind kind, Row&& row);
  // As WriteCrossPartition, the row's primary key already in scratch_primary_key_ with its hash.
  Status WriteCrossPartitionKeyed(RowKind kind, Row&& row, uint32_t key_hash);
  Status LoadGlobalIndex();
  Result<BucketWriter*> CreateBucketWriter(std::string key, std::string partition, int32_t bucket, const Row& row);
  // What the latest snapshot holds of one bucket, for a new writer of it.
  struct RestoredBucket {
    std::string partition;  // serialized BinaryRow
    int32_t bucket = 0;
    int64_t max_sequence = 0;          // the largest _MAX_SEQUENCE_NUMBER of its live files
    std::vector<DataFileMeta> files;   // its live files (kept only when the writer compacts)
    // Deletion-vector tables: the bucket's DV index files and where each is.
    std::vector<IndexManifestEntry> dv_index_files;
    std::vector<std::string> dv_index_paths;
  };
  // Reads the live files of the latest snapshot once per snapshot id, for new bucket writers.
  Status LoadRestore();
  // The latest snapshot's state of the bucket `writer_key`, or nullptr when it has no live file there.
  Result<const RestoredBucket*> RestoredBucketOf(const std::string& writer_key);
  // The compaction of a new primary-key bucket writer, over the bucket's live files.
  Status StartCompaction(BucketWriter* writer, const RestoredBucket* restored);
  // Lookup tables with lookup-wait: compacts until the bucket's level 0 is empty (PrepareCommit).
  Status CompactLevel0(BucketWriter* writer);
  // Takes a compaction result (waiting for a running task when `blocking`) into the writer's pending
  // compact_before / compact_after.
  Status SyncCompaction(BucketWriter* writer, bool blocking);
  // Books a compaction's result into the writer's pending compact_before / compact_after / changelog.
  void ApplyCompactResult(BucketWriter* writer, std::vector<DataFileMeta> before, std::vector<DataFileMeta> after,
                          std::vector<DataFileMeta> changelog);
  bool compaction_enabled() const { return compaction_context_ != nullptr; }
  // Append tables that compact beside the writes (not `write-only`; bucket-unaware ones only with
  // TableWriteConfig::compact_unaware_append).
  bool append_compaction_enabled() const { return writer_compacts_append_; }
  // Whether LoadRestore keeps the live files of each bucket (for compaction).
  bool keeps_restored_files() const { return compaction_enabled() || append_compaction_context_ != nullptr; }
  // Bucket-unaware append tables: merges the small files of each partition (PlanAppendCompaction,
  // planned once, every task run) on this thread; with a writer's compaction, over the files its
  // manager holds.
  Status CompactUnawareBuckets(bool full, const std::optional<std::vector<Row>>& partitions);
  Status FlushWhileOverBudget();
  // Whether the filling buffers (those not in flight) passed the budget.
  // In-flight bytes beyond half the budget do not count as in flight here: with one bucket's buffer
  // (up to the whole budget) in flight, the next flush comes at half the budget, so the writer holds at
  // most 1.5 times the budget; and a buffer drained but not yet taken off in_flight_bytes_ cannot
  // let the filling ones grow past that.
  bool MemoryFlushDue() const {
    return memory_->used() - std::min(in_flight_bytes_.load(std::memory_order_relaxed), memory_->budget() / 2) >
           memory_->budget();
  }
  // Flush-ahead (TableWriteConfig::flush_ahead): hands `w`'s column buffer to the flush thread.
  Status FlushAhead(BucketWriter* w);
  // Books the flushes in flight, oldest first: all of them (keep = 0), or until at most `keep` are
  // left. With `finished_only`, stops at the first still running instead of waiting for it.
  Status AwaitFlushes(size_t keep = 0, bool finished_only = false);
  // The files one flush of a bucket's buffer wrote.
  struct FlushedFiles {
    std::vector<DataFileMeta> data;
    std::vector<DataFileMeta> changelog;
  };
  // Buckets flushing at once, and folder syncs of one commit in flight at once: a commit's small
  // flushes wait on their files' fsyncs more than they use a CPU.
  static constexpr size_t kFlushThreads = 8;
  static constexpr size_t kSyncThreads = 8;
  // Writes `w`'s buffer (or `columns`, a column buffer detached from it) into data (and changelog)
  // files and empties it. Touches only `w`, the buffer, the shared write context and the file system,
  // so buckets may flush on several threads (ParallelFlushes, flush-ahead).
  Result<FlushedFiles> WriteBufferFiles(BucketWriter* w, ColumnarWriteBuffer* columns = nullptr);
  // Books a flush's files: metrics, the bucket's compaction (which may wait, the write stall), the
  // files the next commit lists. On the writer's thread.
  // `memory_flush`: the buffer flushed because the writer's buffers passed their budget (a large flush).
  Status AddFlushedFiles(BucketWriter* w, FlushedFiles files, bool memory_flush = false);
  // Whether a large flush whose keys lie apart from every file of its bucket may go straight to the max
  // level (AddFlushedFiles): deduplicate tables whose compaction produces no changelog and needs no
  // lookup, so a file read from the max level gives what it would from level 0.
  bool LargeFlushesMayStartAtMaxLevel() const;
  bool ParallelFlushes() const;
  // Flushes every buffer of `writers` (in parallel when allowed), booking the files in their order.
  Status FlushAll(const std::vector<BucketWriter*>& writers);
  // `data_files` again under changelog file names (changelog-producer=input, when the flush's changelog
  // records are exactly its data records): hard links where the file system has them, else copies.
  Result<std::vector<DataFileMeta>> CopyAsChangelog(BucketWriter* w, const std::vector<DataFileMeta>& data_files);
  Status Flush(BucketWriter* writer, bool memory_flush = false);
  // Closes the idle bucket writers (above); at the end of PrepareCommit.
  void CloseIdleWriters();
  Status Fail(Status status);
  // Whether this schema, options and config let bucket writers buffer as columns.
  bool ColumnarBuffersFit() const;
  // A bucket writer's columnar buffer for the current schema; null unless columnar_buffers_.
  std::unique_ptr<ColumnarWriteBuffer> NewColumnarBuffer();

  FileSystem* fs_ = nullptr;
  std::string table_path_;
  std::string table_name_;
  TableSchema schema_;
  std::string commit_user_;
  TableWriteConfig config_;
  CoreOptions options_;
  std::unique_ptr<DataFileWriteContext> context_;
  std::unique_ptr<WriteMergeFunction> merge_;
  WriteBufferSpec buffer_spec_;
  std::unique_ptr<WriteBufferMemory> memory_;
  // Whether new bucket writers buffer as columns (config_.columnar_buffers and the schema allow it).
  bool columnar_buffers_ = false;

  int32_t num_buckets_ = 0;  // > 0 fixed; -1 bucket-unaware append or dynamic-bucket primary key
  // Dynamic-bucket primary-key tables: the bucket assigner and index files, and the trimmed
  // primary-key encoder whose hash it assigns by (the hash of the row WriterFor routed last).
  std::unique_ptr<DynamicBucketIndex> dynamic_index_;
  DynamicBucketOptions dynamic_options_;
  // Cross-partition update tables: the key index (built on first use, dropped by Abort), the encoder of
  // the full primary key it is keyed by, and the writes of the row being routed.
  bool cross_partition_ = false;
  std::unique_ptr<GlobalIndexAssigner> global_index_;
  std::unique_ptr<BinaryRowWriter> primary_key_writer_;
  std::vector<int> primary_key_indices_;
  std::vector<IndexedWrite> indexed_writes_;
  std::string scratch_primary_key_;
  std::vector<std::string> ahead_keys_;  // WriteRows: the primary keys of the rows ahead
  std::unique_ptr<BinaryRowWriter> key_writer_;
  int32_t last_key_hash_ = 0;
  std::vector<int> partition_indices_;
  std::vector<DataType> partition_types_;
  std::unique_ptr<BinaryRowWriter> partition_writer_;
  std::string unpartitioned_;  // the serialized arity-0 partition
  std::vector<int> bucket_key_indices_;
  std::optional<BucketFunction> bucket_function_;
  // ValidateRow's test of one column's values, taken from its type once: the Datum alternative its
  // values have, and the range they must fall in.
  struct ValueCheck {
    static constexpr uint8_t kNoIndex = 255;  // a type Tide cannot write: no value fits
    enum class Range : uint8_t { kNone, kInt, kDecimal, kTimestamp };
    uint8_t index = kNoIndex;
    bool not_null = false;
    Range range = Range::kNone;
    int64_t lo = 0, hi = 0;       // kInt
    int128_t decimal_limit = 0;   // kDecimal: |unscaled| below it
    bool nanos_limited = false;   // kTimestamp of precision 7..9: INT64 nanoseconds
    static ValueCheck For(const DataType& type);
    bool Fits(const Datum& value) const;  // REQUIRES: value is not NULL
  };
  void SetColumnChecks(const TableSchema& schema);
  std::vector<bool> is_key_column_;  // primary-key or partition column
  std::vector<ValueCheck> value_checks_;

  std::unordered_map<std::string, std::unique_ptr<BucketWriter>> writers_;
  BucketWriter* last_writer_ = nullptr;
  std::string scratch_bucket_, scratch_key_;
  std::string scratch_partition_row_;  // PartitionOf: the BinaryRow before its arity prefix
  // PartitionOf's last answer and the values it was made of: rows come in runs of one partition (a copy
  // reads a table in its physical order, which mostly follows the time it is partitioned by), and a
  // value compare is cheaper than encoding the BinaryRow again.
  Row last_partition_values_;
  std::string last_partition_;

  // The buckets of snapshot `restore_snapshot_id_` by writer key.
  std::optional<int64_t> restore_snapshot_id_;
  std::unordered_map<std::string, RestoredBucket> restored_;

  // Compaction: the context and thread of this writer's compactions (null when it does not compact),
  // and the PrepareCommits since the last full compaction (`full-compaction.delta-commits`).
  std::unique_ptr<CompactionContext> compaction_context_;
  std::unique_ptr<SerialExecutor> compaction_executor_;
  // Flush-ahead: the flush thread and the flushes handed to it, oldest first. in_flight_bytes_: the
  // memory of the buffers handed over and not yet written (the flush thread takes a buffer's bytes off
  // once it is written).
  struct FlushInFlight {
    BucketWriter* writer = nullptr;
    std::unique_ptr<ColumnarWriteBuffer> columns;
    std::future<std::pair<Result<FlushedFiles>, int64_t>> files;  // and the flush's microseconds
  };
  std::unique_ptr<SerialExecutor> flush_executor_;
  std::deque<FlushInFlight> flushes_in_flight_;
  std::atomic<int64_t> in_flight_bytes_{0};
  std::atomic<bool> cancel_flushes_{false};  // Abort, the destructor: queued flushes are abandoned
  int64_t commits_since_full_compaction_ = 0;
  // Append tables: what their compactions share (unless write-only: from the start, with
  // compaction_executor_, and writer_compacts_append_; else made by Compact for bucket-unaware ones).
  std::unique_ptr<AppendCompactContext> append_compaction_context_;
  bool writer_compacts_append_ = false;
  AppendCompactPlanOptions unaware_plan_;  // bucket-unaware tables that compact beside the writes
  // Lookup tables: what lookup compaction does, and the names of new DV index files
  // (`index-<uuid>-<n>`, the counter shared by the buckets).
  LookupOptions lookup_;
  bool bulk_load_ = false;  // SetBulkLoad
  std::string dv_file_prefix_;
  std::shared_ptr<int64_t> dv_next_file_;

  // PrepareCommits so far, and the last one that handed out a message (-1: none), for idle writers.
  int64_t prepared_commits_ = 0;
  int64_t last_handed_out_commit_ = -1;

  Status failed_;
  TableWriteMetrics metrics_;
};

}  // namespace tide
