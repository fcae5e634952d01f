#include "tide/table/source/snapshot_table_reader.h"

#include <algorithm>
#include <atomic>

#include "tide/base/strings.h"
#include "tide/codec/binary_row.h"
#include "tide/codec/bucket.h"
#include "tide/format/duckdb_handle.h"
#include "tide/format/duckdb_vector_writer.h"
#include "tide/table/source/columnar_split_reader.h"
#include "tide/table/source/data_file_open_counter.h"
#include "tide/table/schema/core_options.h"
#include "tide/table/io/data_file_reader.h"
#include "tide/table/deletionvectors/deletion_vector.h"
#include "tide/table/io/key_value_file_reader.h"
#include "tide/table/mergetree/merge_function.h"
#include "tide/table/mergetree/sort_merge_heap.h"
#include "tide/table/schema/schema_cache.h"
#include "tide/table/schema/schema_manager.h"
#include "tide/types/cast.h"

namespace tide {
namespace {


// The deletion vector of one of the split's data files, if it has one.
Result<std::optional<DeletionVector>> DeletionVectorOf(FileSystem* fs, const std::string& table_name,
                                                       const DataSplit& split, const DataFileMeta& file) {
  auto dv = split.deletion_files.find(file.file_name);
  if (dv == split.deletion_files.end()) return std::optional<DeletionVector>();
  auto vector = ReadDeletionVector(fs, dv->second.index_path, dv->second.offset, dv->second.length);
  if (!vector.ok()) {
    return vector.status().WithContext(
        fmt::format("table {}: deletion vector of data file {}", table_name, split.FilePath(file)));
  }
  return std::optional<DeletionVector>(std::move(vector).value());
}

// Yields the rows of one split.
class SplitRowSource {
 public:
  virtual ~SplitRowSource() = default;
  // The next row of needed fields, or false at the end.
  virtual Result<bool> Next(Row* row) = 0;
};

// At most one row, found beforehand (deduplicate lookups).
class SingleRowSource final : public SplitRowSource {
 public:
  explicit SingleRowSource(std::optional<Row> row) : row_(std::move(row)) {}
  Result<bool> Next(Row* row) override {
    if (!row_) return false;
    *row = std::move(*row_);
    row_.reset();
    return true;
  }

 private:
  std::optional<Row> row_;
};

// Files one after another (append tables, deletion-vector tables).
class ConcatSource final : public SplitRowSource {
 public:
  ConcatSource(std::vector<std::unique_ptr<KeyValueCursor>> cursors, bool drop_retract)
      : cursors_(std::move(cursors)), drop_retract_(drop_retract) {}
  Result<bool> Next(Row* row) override {
    while (current_ < cursors_.size()) {
      TIDE_ASSIGN_OR_RETURN(bool ok, cursors_[current_]->Advance());
      if (!ok) {
        cursors_[current_].reset();
        ++current_;
        continue;
      }
      KeyValue kv = cursors_[current_]->TakeCurrent();
      if (drop_retract_ && IsRetract(kv.kind)) continue;
      *row = std::move(kv.row);
      return true;
    }
    return false;
  }

 private:
  std::vector<std::unique_ptr<KeyValueCursor>> cursors_;
  bool drop_retract_;
  size_t current_ = 0;
};

// The merge of one split's sorted runs (SortMergeHeap), then the merge function per key.
class MergeSource final : public SplitRowSource {
 public:
  // `deduplicate` (the deduplicate engine without sequence.field): the newest row of each key wins, taken
  // without copies; `ignore_delete` then skips -U/-D rows. Otherwise `merge` folds each key's rows.
  MergeSource(std::vector<std::unique_ptr<KeyValueCursor>> cursors, std::vector<int> key_indices,
              std::vector<int> sequence_indices, bool sequence_descending, std::unique_ptr<MergeFunction> merge,
              bool deduplicate, bool ignore_delete)
      : heap_(std::move(cursors), KeyComparator(std::move(key_indices))),
        sequence_indices_(std::move(sequence_indices)), sequence_descending_(sequence_descending),
        merge_(std::move(merge)), deduplicate_(deduplicate), ignore_delete_(ignore_delete) {}

  Status Init() { return heap_.Init(); }

  Result<bool> Next(Row* row) override {
    return deduplicate_ ? NextDeduplicated(row) : NextMerged(row);
  }

 private:
  Result<bool> NextDeduplicated(Row* row) {
    while (!heap_.empty()) {
      TIDE_ASSIGN_OR_RETURN(KeyValue winner, heap_.TakeTop());
      bool have = !(ignore_delete_ && IsRetract(winner.kind));
      while (heap_.TopHasKeyOf(winner.row)) {
        TIDE_ASSIGN_OR_RETURN(KeyValue kv, heap_.TakeTop());
        if (ignore_delete_ && IsRetract(kv.kind)) continue;
        // The newest row wins (runs yield a key's rows oldest first; a tie goes to the later row, as
        // the merge function's stable sort does).
        if (!have || kv.sequence >= winner.sequence) {
          winner = std::move(kv);
          have = true;
        }
      }
      if (have && !IsRetract(winner.kind)) {
        *row = std::move(winner.row);
        return true;
      }
    }
    return false;
  }

  Result<bool> NextMerged(Row* row) {
    while (true) {
      TIDE_ASSIGN_OR_RETURN(bool more, heap_.NextKey(&group_));
      if (!more) return false;
      if (group_.size() == 1) {
        // A key's only record is its row as it is (Java's ReducerMergeFunctionWrapper): the merge
        // engine folds several records, it does not rewrite one (a partial-update record whose
        // sequence group is NULL keeps that group's fields).
        if (IsRetract(group_[0].kind)) continue;
        *row = std::move(group_[0].row);
        return true;
      }
      std::stable_sort(group_.begin(), group_.end(), [this](const KeyValue& a, const KeyValue& b) {
        int c = CompareSequenceFields(a.row, b.row);
        if (c != 0) return c < 0;
        return a.sequence < b.sequence;
      });
      merge_->Reset();
      for (const auto& kv : group_) TIDE_RETURN_IF_ERROR(merge_->Add(kv));
      TIDE_ASSIGN_OR_RETURN(auto result, merge_->GetResult());
      if (result) {
        *row = std::move(*result);
        return true;
      }
    }
  }

  int CompareSequenceFields(const Row& a, const Row& b) const {
    for (int i : sequence_indices_) {
      int c = CompareDatum(a[static_cast<size_t>(i)], b[static_cast<size_t>(i)]);
      if (c != 0) return sequence_descending_ ? -c : c;
    }
    return 0;
  }

  SortMergeHeap heap_;
  std::vector<int> sequence_indices_;
  bool sequence_descending_;
  std::unique_ptr<MergeFunction> merge_;
  bool deduplicate_;
  bool ignore_delete_;
  std::vector<KeyValue> group_;
};

// The splits of one read, shared by the readers that divide it (TableReader::NewWorker).
struct SplitQueue {
  std::vector<DataSplit> splits;
  std::atomic<size_t> next{0};

  const DataSplit* Claim() {
    size_t i = next.fetch_add(1);
    return i < splits.size() ? &splits[i] : nullptr;
  }
};

class SnapshotTableReader final : public TableReader {
 public:
  SnapshotTableReader(TableReadContext ctx, CoreOptions options, std::shared_ptr<SplitQueue> splits)
      : ctx_(std::move(ctx)), splits_(std::move(splits)), schemas_(ctx_.fs, ctx_.metadata_path, ctx_.read_schema),
        options_(std::move(options)) {}

  Status Init() {
    const TableSchema& s = ctx_.read_schema;
    primary_key_ = s.HasPrimaryKey();
    // Output fields: the projection.
    if (ctx_.all_columns && ctx_.projection.empty()) {
      for (size_t i = 0; i < s.fields.size(); ++i) ctx_.projection.push_back(static_cast<int>(i));
    }
    for (int p : ctx_.projection) {
      if (p < 0 || static_cast<size_t>(p) >= s.fields.size()) {
        return Status::InvalidArgument("table {}: projection index {} is out of range", ctx_.table_name, p);
      }
    }
    // Needed fields: the projection, then the primary key and sequence fields it lacks.
    std::vector<int> needed_idx = ctx_.projection;
    auto need = [&](const std::string& name) -> Result<int> {
      int idx = s.FieldIndex(name);
      if (idx < 0) return Status::InvalidArgument("table {}: option names column '{}', which does not exist", ctx_.table_name, name);
      auto it = std::find(needed_idx.begin(), needed_idx.end(), idx);
      if (it != needed_idx.end()) return static_cast<int>(it - needed_idx.begin());
      needed_idx.push_back(idx);
      return static_cast<int>(needed_idx.size() - 1);
    };
    engine_ = options_.merge_engine();
    if (primary_key_) {
      for (const auto& k : s.primary_keys) {
        TIDE_ASSIGN_OR_RETURN(int pos, need(k));
        key_positions_.push_back(pos);
      }
      for (const auto& f : options_.sequence_fields()) {
        TIDE_ASSIGN_OR_RETURN(int pos, need(f));
        sequence_positions_.push_back(pos);
      }
      // Partial-update sequence groups: the sequence fields of the groups of the fields read.
      std::vector<std::string> read_names;
      for (int i : needed_idx) read_names.push_back(s.fields[static_cast<size_t>(i)].name);
      TIDE_ASSIGN_OR_RETURN(std::vector<std::string> group_fields,
                            SequenceGroupFieldsToRead(options_, s.fields, read_names, ctx_.table_name));
      for (const auto& f : group_fields) TIDE_RETURN_IF_ERROR(need(f).status());
    }
    if (ctx_.key_equals) TIDE_RETURN_IF_ERROR(InitKeyFilter());
    for (int i : needed_idx) needed_.push_back(s.fields[static_cast<size_t>(i)]);
    for (size_t i = 0; i < ctx_.projection.size(); ++i) output_.push_back(s.fields[static_cast<size_t>(ctx_.projection[i])]);
    columnar_spec_.table_name = ctx_.table_name;
    columnar_spec_.output = output_;
    if (primary_key_) {
      for (int pos : key_positions_) columnar_spec_.key_fields.push_back(needed_[static_cast<size_t>(pos)]);
      columnar_spec_.merge = !options_.deletion_vectors_enabled();
      columnar_spec_.ignore_delete = options_.ignore_delete();
    }
    return Status::OK();
  }

  TableReadStats stats() const override { return stats_; }

  Result<std::unique_ptr<TableReader>> NewWorker() override {
    auto worker = std::make_unique<SnapshotTableReader>(ctx_, options_, splits_);
    TIDE_RETURN_IF_ERROR(worker->Init());
    return std::unique_ptr<TableReader>(std::move(worker));
  }

  Result<size_t> NextVectors(std::span<const duckdb_vector> vectors, size_t capacity) override {
    if (vectors.size() != output_.size()) {
      return Status::InvalidArgument("NextVectors: {} vectors for {} columns", vectors.size(), output_.size());
    }
    if (key_filter_) return TableReader::NextVectors(vectors, capacity);
    while (true) {
      if (columnar_) {
        TIDE_ASSIGN_OR_RETURN(size_t n, columnar_->Next(vectors, capacity));
        if (n > 0) return n;
        columnar_.reset();
        continue;
      }
      if (source_) {
        // A split the columnar path does not read: its rows, written into the vectors.
        vector_rows_.clear();
        Row row;
        while (vector_rows_.size() < capacity) {
          TIDE_ASSIGN_OR_RETURN(bool ok, source_->Next(&row));
          if (!ok) {
            source_.reset();
            break;
          }
          vector_rows_.push_back(std::move(row));
        }
        if (vector_rows_.empty()) continue;
        TIDE_RETURN_IF_ERROR(WriteRows(vectors, output_, vector_rows_));
        return vector_rows_.size();
      }
      const DataSplit* split = splits_->Claim();
      if (split == nullptr) return size_t{0};
      TIDE_ASSIGN_OR_RETURN(columnar_, OpenColumnar(*split));
      if (columnar_) {
        ++stats_.columnar_splits;
      } else {
        TIDE_ASSIGN_OR_RETURN(source_, OpenSplit(*split));
        ++stats_.row_splits;
      }
    }
  }

  const std::vector<DataField>& fields() const override { return output_; }

  Status InitKeyFilter() {
    const TableSchema& s = ctx_.read_schema;
    const Row& key = *ctx_.key_equals;
    if (!primary_key_) {
      return Status::InvalidArgument("table {} has no primary key; a primary-key lookup needs one", ctx_.table_name);
    }
    if (key.size() != s.primary_keys.size()) {
      return Status::InvalidArgument("table {}: a primary-key lookup needs {} values (primary key {}), got {}",
                                     ctx_.table_name, s.primary_keys.size(), Join(s.primary_keys, ", "), key.size());
    }
    for (size_t k = 0; k < key.size(); ++k) {
      if (key[k].is_null()) {
        return Status::InvalidArgument("table {}: primary-key lookup value of column '{}' is NULL; keys are never NULL",
                                       ctx_.table_name, s.primary_keys[k]);
      }
    }
    key_filter_.emplace();
    key_filter_->values = key;
    key_filter_->positions = key_positions_;
    // The lookup's values of the trimmed key (file min/max keys) and of the partition columns.
    for (const std::string& name : s.TrimmedPrimaryKeys()) {
      size_t k = static_cast<size_t>(std::find(s.primary_keys.begin(), s.primary_keys.end(), name) - s.primary_keys.begin());
      trimmed_key_values_.push_back(key[k]);
      trimmed_key_fields_.push_back(s.fields[static_cast<size_t>(s.FieldIndex(name))]);
    }
    for (size_t p = 0; p < s.partition_keys.size(); ++p) {
      auto it = std::find(s.primary_keys.begin(), s.primary_keys.end(), s.partition_keys[p]);
      if (it != s.primary_keys.end()) partition_key_values_.emplace_back(p, key[static_cast<size_t>(it - s.primary_keys.begin())]);
    }
    // The bucket of the key, when the bucket key is part of the primary key.
    std::vector<std::string> bucket_keys = s.BucketKeys();
    bool bucket_from_key = !bucket_keys.empty();
    for (const std::string& name : bucket_keys) {
      auto it = std::find(s.primary_keys.begin(), s.primary_keys.end(), name);
      int idx = s.FieldIndex(name);
      if (it == s.primary_keys.end() || idx < 0) {
        bucket_from_key = false;
        break;
      }
      bucket_key_values_.push_back(key[static_cast<size_t>(it - s.primary_keys.begin())]);
      bucket_key_types_.push_back(s.fields[static_cast<size_t>(idx)].type);
    }
    if (!bucket_from_key) bucket_key_values_.clear();
    auto type = ParseBucketFunctionType(options_.bucket_function_type());
    if (type.ok()) bucket_function_type_ = *type;
    else bucket_key_values_.clear();
    return Status::OK();
  }

  // Whether a key lookup can skip the split: another partition, or another bucket of the key's bucket
  // function (a split written with a different bucket count is checked with its own count).
  bool LookupSkipsSplit(const DataSplit& split) {
    for (const auto& [p, value] : partition_key_values_) {
      if (p < split.partition_values.size() && CompareDatum(split.partition_values[p], value) != 0) return true;
    }
    if (bucket_key_values_.empty() || split.total_buckets <= 0) return false;
    auto function = BucketFunction::Create(bucket_function_type_, bucket_key_types_, split.total_buckets);
    if (!function.ok()) return false;
    auto bucket = function->Bucket(bucket_key_values_, &bucket_scratch_);
    return bucket.ok() && *bucket != split.bucket;
  }

  // Whether a key lookup can skip the file: its [min_key, max_key] excludes the key. Files whose key
  // columns have another type in their schema are never skipped.
  Result<bool> LookupSkipsFile(const DataFileMeta& file) {
    TIDE_ASSIGN_OR_RETURN(const TableSchema* file_schema, schemas_.Get(file.schema_id));
    std::vector<DataType> types;
    for (const DataField& field : trimmed_key_fields_) {
      int idx = file_schema->FieldIndexById(field.id);
      if (idx < 0) return false;
      const DataType& type = file_schema->fields[static_cast<size_t>(idx)].type;
      if (!type.EqualsIgnoreNullable(field.type)) return false;
      types.push_back(type);
    }
    auto min_key = DeserializeBinaryRow(file.min_key, types);
    auto max_key = DeserializeBinaryRow(file.max_key, types);
    if (!min_key.ok() || !max_key.ok() || min_key->size() != types.size() || max_key->size() != types.size()) {
      return false;  // a key range Tide cannot decode only costs the pruning
    }
    return CompareRows(trimmed_key_values_, *min_key) < 0 || CompareRows(trimmed_key_values_, *max_key) > 0;
  }

  Result<bool> NextBatch(size_t max_rows, std::vector<Row>* out) override {
    size_t produced = 0;
    Row row;
    while (produced < max_rows) {
      if (!source_) {
        const DataSplit* split = splits_->Claim();
        if (split == nullptr) break;
        TIDE_ASSIGN_OR_RETURN(source_, OpenSplit(*split));
        ++stats_.row_splits;
        continue;
      }
      TIDE_ASSIGN_OR_RETURN(bool ok, source_->Next(&row));
      if (!ok) {
        source_.reset();
        continue;
      }
      if (row.size() != output_.size()) row.resize(output_.size());  // drop helper fields past the projection
      out->push_back(std::move(row));
      ++produced;
    }
    return produced > 0;
  }

 private:
  // The split's columnar reader, or nullptr when the split takes the row path (columnar_split_reader.h).
  Result<std::unique_ptr<ColumnarSplitReader>> OpenColumnar(const DataSplit& split) {
    const bool dv = options_.deletion_vectors_enabled();
    if (primary_key_ && (engine_ != MergeEngine::kDeduplicate || !sequence_positions_.empty())) {
      return std::unique_ptr<ColumnarSplitReader>();
    }
    std::vector<const DataFileMeta*> files;
    std::vector<const TableSchema*> file_schemas;
    for (const auto& f : split.files) {
      if (primary_key_ && dv && f.level == 0) continue;  // as OpenSplit: invisible until compacted
      if (!EndsWith(f.file_name, ".parquet")) return std::unique_ptr<ColumnarSplitReader>();
      TIDE_ASSIGN_OR_RETURN(const TableSchema* schema, schemas_.Get(f.schema_id));
      files.push_back(&f);
      file_schemas.push_back(schema);
    }
    if (!ColumnarSplitReader::Supports(columnar_spec_, file_schemas)) return std::unique_ptr<ColumnarSplitReader>();
    std::vector<size_t> order(files.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    if (!primary_key_) {
      std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return files[a]->min_sequence_number < files[b]->min_sequence_number;
      });
    }
    std::vector<ColumnarFile> columnar_files;
    for (size_t i : order) {
      const DataFileMeta& f = *files[i];
      ColumnarFile file;
      file.path = split.FilePath(f);
      CountDataFileOpen(file.path);
      file.schema = file_schemas[i];
      file.row_count = f.row_count;
      file.min_sequence_number = f.min_sequence_number;
      file.max_sequence_number = f.max_sequence_number;
      file.delete_row_count = f.delete_row_count;
      TIDE_ASSIGN_OR_RETURN(file.deletion_vector, DeletionVectorOf(ctx_.fs, ctx_.table_name, split, f));
      file.row_group_conditions = RowGroupConditionsFor(*file.schema);
      columnar_files.push_back(std::move(file));
    }
    return ColumnarSplitReader::Open(columnar_spec_, std::move(columnar_files));
  }

  // The filter's conditions that may leave row groups of a file written with `file_schema` out: every
  // one when the split's rows are final (no merge), else those on primary-key columns, whose every
  // version shares the key (Java pushes only key filters into merged sections). Each is in the file's
  // own column and type; a column whose type changed since is not pruned on.
  std::vector<RowGroupCondition> RowGroupConditionsFor(const TableSchema& file_schema) const {
    std::vector<RowGroupCondition> out;
    if (!ctx_.filter) return out;
    for (const ColumnPredicate& c : ctx_.filter->conjuncts) {
      if (!PrunableType(c.type) && c.op != PredicateOp::kIsNull && c.op != PredicateOp::kIsNotNull) continue;
      if (columnar_spec_.merge) {
        bool key = false;
        for (const DataField& k : columnar_spec_.key_fields) key = key || k.id == c.field_id;
        if (!key) continue;
      }
      int idx = file_schema.FieldIndexById(c.field_id);
      if (idx < 0) continue;
      const DataField& stored = file_schema.fields[static_cast<size_t>(idx)];
      if (!stored.type.EqualsIgnoreNullable(c.type)) continue;
      out.push_back(RowGroupCondition{stored.id, stored.name, c});
    }
    return out;
  }

  Result<std::unique_ptr<SplitRowSource>> OpenSplit(const DataSplit& split) {
    bool dv = options_.deletion_vectors_enabled();
    // Level-0 files are invisible to batch reads of deletion-vector and first-row tables (Java's
    // batchScanSkipLevel0): their rows appear once compaction moves them up.
    bool skip_level0 = primary_key_ && (dv || engine_ == MergeEngine::kFirstRow);
    std::vector<const DataFileMeta*> files;
    bool lookup = key_filter_.has_value();
    if (!(lookup && LookupSkipsSplit(split))) {
      for (const auto& f : split.files) {
        if (skip_level0 && f.level == 0) continue;
        if (lookup) {
          TIDE_ASSIGN_OR_RETURN(bool skip, LookupSkipsFile(f));
          if (skip) continue;
        }
        files.push_back(&f);
      }
    }
    if (!primary_key_) {
      // Append tables: files in sequence order.
      std::stable_sort(files.begin(), files.end(), [](const DataFileMeta* a, const DataFileMeta* b) {
        return a->min_sequence_number < b->min_sequence_number;
      });
    }
    if (lookup && primary_key_ && !dv && engine_ == MergeEngine::kDeduplicate && sequence_positions_.empty()) {
      TIDE_ASSIGN_OR_RETURN(std::optional<Row> row, LookupNewest(split, std::move(files)));
      return std::unique_ptr<SplitRowSource>(new SingleRowSource(std::move(row)));
    }
    std::vector<std::unique_ptr<KeyValueCursor>> cursors;
    for (const DataFileMeta* f : files) {
      TIDE_ASSIGN_OR_RETURN(auto cursor, OpenFile(split, *f, needed_, key_filter_ ? &*key_filter_ : nullptr));
      cursors.push_back(std::move(cursor));
    }
    if (!primary_key_ || dv) {
      return std::unique_ptr<SplitRowSource>(new ConcatSource(std::move(cursors), primary_key_));
    }
    TIDE_ASSIGN_OR_RETURN(auto merge, CreateMergeFunction(options_, needed_, ctx_.read_schema.primary_keys, ctx_.table_name));
    bool deduplicate = engine_ == MergeEngine::kDeduplicate && sequence_positions_.empty();
    auto source = std::make_unique<MergeSource>(std::move(cursors), key_positions_, sequence_positions_,
                                                options_.sequence_field_descending(), std::move(merge), deduplicate,
                                                options_.ignore_delete());
    TIDE_RETURN_IF_ERROR(source->Init());
    return std::unique_ptr<SplitRowSource>(std::move(source));
  }

  // Reads one of the split's data files as `fields` (mapped by field id and cast to the read types), with
  // the _SEQUENCE_NUMBER and _VALUE_KIND of primary-key files, skipping rows its deletion vector marks.
  Result<std::unique_ptr<KeyValueFileReader>> OpenFile(const DataSplit& split, const DataFileMeta& file,
                                                       const std::vector<DataField>& fields,
                                                       const KeyFilter* key_filter) {
    KeyValueFileReadSpec spec;
    spec.path = split.FilePath(file);
    CountDataFileOpen(spec.path);
    TIDE_ASSIGN_OR_RETURN(spec.file_schema, schemas_.Get(file.schema_id));
    spec.needed = &fields;
    spec.primary_key = primary_key_;
    spec.key_filter = key_filter;
    spec.table_name = ctx_.table_name;
    if (key_filter != nullptr) {
      // The key's row groups only: files are sorted by key, so one or two per file.
      std::vector<RowGroupCondition> conditions;
      for (size_t k = 0; k < key_filter->positions.size(); ++k) {
        const DataField& field = fields[static_cast<size_t>(key_filter->positions[k])];
        int idx = spec.file_schema->FieldIndexById(field.id);
        if (idx < 0 || !PrunableType(field.type)) continue;
        const DataField& stored = spec.file_schema->fields[static_cast<size_t>(idx)];
        if (!stored.type.EqualsIgnoreNullable(field.type)) continue;
        ColumnPredicate equal{field.id, field.name, field.type, PredicateOp::kEqual, {key_filter->values[k]}};
        conditions.push_back(RowGroupCondition{stored.id, stored.name, std::move(equal)});
      }
      if (!conditions.empty()) {
        spec.select_row_groups = [conditions = std::move(conditions)](const ParquetFooter& footer) {
          std::vector<bool> keep = RowGroupsMayMatch(footer, conditions);
          int64_t kept = std::count(keep.begin(), keep.end(), true);
          CountRowGroups(kept, static_cast<int64_t>(keep.size()) - kept);
          return keep;
        };
      }
    }
    TIDE_ASSIGN_OR_RETURN(std::optional<DeletionVector> dv, DeletionVectorOf(ctx_.fs, ctx_.table_name, split, file));
    if (dv) {
      auto vector = std::make_shared<DeletionVector>(std::move(*dv));
      spec.skip_position = [vector](int64_t position) { return vector->IsDeleted(position); };
    }
    return KeyValueFileReader::Open(std::move(spec));
  }

  // A lookup on a deduplicate table: the key's newest row wins, so the files are read newest first and
  // the search stops once the row found is newer than anything the remaining files hold. The files are
  // probed on the key columns alone (with _SEQUENCE_NUMBER and _VALUE_KIND): a probe decodes a few
  // integer or string columns of one row group; only the file holding the winning row is read in full.
  Result<std::optional<Row>> LookupNewest(const DataSplit& split, std::vector<const DataFileMeta*> files) {
    std::stable_sort(files.begin(), files.end(), [](const DataFileMeta* a, const DataFileMeta* b) {
      return a->max_sequence_number > b->max_sequence_number;
    });
    if (probe_fields_.empty()) {
      for (size_t k = 0; k < key_positions_.size(); ++k) {
        probe_fields_.push_back(needed_[static_cast<size_t>(key_positions_[k])]);
        probe_filter_.positions.push_back(static_cast<int>(k));
      }
      probe_filter_.values = key_filter_->values;
    }
    bool ignore_delete = options_.ignore_delete();
    const DataFileMeta* winner = nullptr;
    int64_t winner_sequence = 0;
    ValueKind winner_kind = ValueKind::kInsert;
    for (const DataFileMeta* f : files) {
      if (winner != nullptr && f->max_sequence_number < winner_sequence) break;
      TIDE_ASSIGN_OR_RETURN(auto probe, OpenFile(split, *f, probe_fields_, &probe_filter_));
      while (true) {
        TIDE_ASSIGN_OR_RETURN(bool ok, probe->Advance());
        if (!ok) break;
        const KeyValue& kv = probe->current();
        if (ignore_delete && IsRetract(kv.kind)) continue;
        if (winner == nullptr || kv.sequence >= winner_sequence) {
          winner = f;
          winner_sequence = kv.sequence;
          winner_kind = kv.kind;
        }
      }
    }
    if (winner == nullptr || IsRetract(winner_kind)) return std::optional<Row>();
    TIDE_ASSIGN_OR_RETURN(auto cursor, OpenFile(split, *winner, needed_, &*key_filter_));
    std::optional<Row> found;
    while (true) {
      TIDE_ASSIGN_OR_RETURN(bool ok, cursor->Advance());
      if (!ok) break;
      if (cursor->current().sequence == winner_sequence) found = cursor->TakeCurrent().row;
    }
    if (!found) {
      return Status::Corruption("table {}: data file {} changed while it was read (the row of sequence number {} "
                                "its key columns showed is gone)",
                                ctx_.table_name, split.FilePath(*winner), winner_sequence);
    }
    return found;
  }

  TableReadContext ctx_;
  std::shared_ptr<SplitQueue> splits_;
  SchemaCache schemas_;
  CoreOptions options_;
  bool primary_key_ = false;
  MergeEngine engine_ = MergeEngine::kDeduplicate;
  std::vector<DataField> needed_;
  std::vector<DataField> output_;
  std::vector<int> key_positions_;
  std::vector<int> sequence_positions_;
  std::unique_ptr<SplitRowSource> source_;
  // NextVectors.
  ColumnarScanSpec columnar_spec_;
  std::unique_ptr<ColumnarSplitReader> columnar_;
  std::vector<Row> vector_rows_;
  TableReadStats stats_;
  // Primary-key lookups (ReadOptions::primary_key_equals).
  std::optional<KeyFilter> key_filter_;
  std::vector<DataField> probe_fields_;  // the key columns, for lookups' first pass over each file
  KeyFilter probe_filter_;               // key_filter_ with positions in probe_fields_
  Row trimmed_key_values_;
  std::vector<DataField> trimmed_key_fields_;
  std::vector<std::pair<size_t, Datum>> partition_key_values_;  // (index in the partition, value)
  Row bucket_key_values_;  // empty: the bucket is not known from the key
  std::vector<DataType> bucket_key_types_;
  BucketFunctionType bucket_function_type_ = BucketFunctionType::kDefault;
  std::string bucket_scratch_;
};

}  // namespace

Result<std::unique_ptr<TableReader>> CreateSnapshotTableReader(TableReadContext context, std::vector<DataSplit> splits) {
  auto queue = std::make_shared<SplitQueue>();
  queue->splits = std::move(splits);
  TIDE_ASSIGN_OR_RETURN(CoreOptions options, CoreOptions::Create(context.read_schema, context.table_name));
  auto reader = std::make_unique<SnapshotTableReader>(std::move(context), std::move(options), std::move(queue));
  TIDE_RETURN_IF_ERROR(reader->Init());
  return std::unique_ptr<TableReader>(std::move(reader));
}

}  // namespace tide
