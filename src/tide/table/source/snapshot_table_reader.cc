#include "tide/table/source/snapshot_table_reader.h"

#include <algorithm>
#include <atomic>

#include "tide/base/strings.h"
#include "tide/codec/binary_row.h"
#include "tide/codec/bucket.h"
#include "tide/format/duckdb_handle.h"
#include "tide/format/duckdb_vector_writer.h"
#include "tide/table/source/columnar_split_reader.h"
#include "tide/table/schema/core_options.h"
#include "tide/table/io/data_file_reader.h"
#include "tide/table/deletionvectors/deletion_vector.h"
#include "tide/table/mergetree/merge_function.h"
#include "tide/table/schema/schema_manager.h"
#include "tide/types/cast.h"

namespace tide {
namespace {

constexpr size_t kFileBatchRows = 4096;

// Schemas by id, read once per reader.
class SchemaCache {
 public:
  SchemaCache(FileSystem* fs, const std::string& metadata_path, const TableSchema& read_schema)
      : manager_(fs, metadata_path) {
    cache_.emplace(read_schema.id, read_schema);
  }
  Result<const TableSchema*> Get(int64_t id) {
    auto it = cache_.find(id);
    if (it == cache_.end()) {
      TIDE_ASSIGN_OR_RETURN(TableSchema s, manager_.Get(id));
      it = cache_.emplace(id, std::move(s)).first;
    }
    return &it->second;
  }

 private:
  SchemaManager manager_;
  std::map<int64_t, TableSchema> cache_;
};

// How one needed field is filled from one data file.
struct FieldSource {
  int column = -1;  // index into the requested columns, -1 when the file has no such field (NULL)
  DataType file_type;
  bool needs_cast = false;
};

// A primary-key point read: the key's values and where the key columns are among the needed fields.
struct KeyFilter {
  Row values;                  // in primary-key order
  std::vector<int> positions;  // of each primary-key column in the needed fields
};

// A DuckDB literal of `value` for a pushed-down key filter, or empty when the type is not pushed down
// (the reader still filters every row itself).
std::string KeyLiteral(const Datum& value, const DataType& type) {
  if (value.is_null()) return {};
  if (type.IsIntegral() && std::holds_alternative<int64_t>(value.storage())) return std::to_string(value.as_int());
  if (type.root() == TypeRoot::kVarChar && std::holds_alternative<std::string>(value.storage())) {
    // Printable ASCII only: a file that stores the column as plain BINARY reads as BLOB in DuckDB, and
    // the literal's cast to BLOB would read backslashes as escapes and refuse other bytes.
    for (char c : value.as_string()) {
      if (c < 0x20 || c > 0x7e || c == '\\') return {};
    }
    return QuoteSqlString(value.as_string());
  }
  return {};
}

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

// Reads one data file as rows of the needed fields (mapped by field id and cast to the read types),
// with the _SEQUENCE_NUMBER and _VALUE_KIND of primary-key files, dropping rows its deletion vector marks.
class FileCursor {
 public:
  static Result<std::unique_ptr<FileCursor>> Open(const TableReadContext& ctx, SchemaCache* schemas,
                                                  const DataSplit& split, const DataFileMeta& file,
                                                  const std::vector<DataField>& needed, bool primary_key,
                                                  FileSystem* fs, const KeyFilter* key_filter) {
    auto cursor = std::unique_ptr<FileCursor>(new FileCursor());
    cursor->path_ = split.FilePath(file);
    cursor->primary_key_ = primary_key;
    cursor->needed_ = &needed;
    cursor->key_filter_ = key_filter;
    TIDE_ASSIGN_OR_RETURN(const TableSchema* file_schema, schemas->Get(file.schema_id));
    std::vector<ParquetColumnSpec> columns;
    std::string filter_sql;
    for (size_t i = 0; i < needed.size(); ++i) {
      const DataField& field = needed[i];
      FieldSource src;
      int idx = file_schema->FieldIndexById(field.id);
      if (idx >= 0) {
        const DataField& ff = file_schema->fields[static_cast<size_t>(idx)];
        src.column = static_cast<int>(columns.size());
        src.file_type = ff.type;
        src.needs_cast = !ff.type.EqualsIgnoreNullable(field.type) &&
                         !(ff.type.IsNested() && ff.type.root() == field.type.root());
        if (src.needs_cast && !CanCast(ff.type, field.type)) {
          return Status::NotSupported("table {}: data file {} holds column '{}' as {}, which cannot be read as {}",
                                      ctx.table_name, cursor->path_, ff.name, ff.type.ToString(),
                                      field.type.ToString());
        }
        // Nested types are read in the file's shape but with the read schema's nested fields.
        columns.push_back(ParquetColumnSpec{ff.name, ff.id, src.needs_cast ? ff.type : field.type.WithNullable(true)});
        if (key_filter != nullptr && !src.needs_cast) {
          // Pushed down so DuckDB skips row groups (files are sorted by key, so all but one or two).
          for (size_t k = 0; k < key_filter->positions.size(); ++k) {
            if (key_filter->positions[k] != static_cast<int>(i)) continue;
            std::string literal = KeyLiteral(key_filter->values[k], field.type);
            if (literal.empty()) continue;
            if (!filter_sql.empty()) filter_sql += " AND ";
            filter_sql += QuoteSqlIdentifier(ff.name) + " = " + literal;
          }
        }
      }
      cursor->sources_.push_back(std::move(src));
    }
    cursor->identity_ = true;
    for (size_t i = 0; i < cursor->sources_.size(); ++i) {
      const FieldSource& src = cursor->sources_[i];
      if (src.column != static_cast<int>(i) || src.needs_cast) cursor->identity_ = false;
    }
    if (primary_key) {
      cursor->seq_column_ = static_cast<int>(columns.size());
      columns.push_back(ParquetColumnSpec{"_SEQUENCE_NUMBER", 2147483646, DataType::BigInt(false)});
      cursor->kind_column_ = static_cast<int>(columns.size());
      columns.push_back(ParquetColumnSpec{"_VALUE_KIND", 2147483645, DataType::TinyInt(false)});
    }
    if (!EndsWith(file.file_name, ".parquet")) {
      std::string ext = file.file_name.substr(file.file_name.rfind('.') + 1);
      return Status::NotSupported("table {}: data file {} is in {} format; Tide reads Parquet data files only",
                                  ctx.table_name, cursor->path_, ext);
    }
    DataFileReadOptions read_options;
    read_options.filter_sql = std::move(filter_sql);
    TIDE_ASSIGN_OR_RETURN(cursor->deletion_vector_, DeletionVectorOf(fs, ctx.table_name, split, file));
    TIDE_ASSIGN_OR_RETURN(cursor->reader_, OpenDataFile(cursor->path_, columns, ctx.table_name, read_options));
    return cursor;
  }

  // Moves to the next live row; false at the end of the file.
  Result<bool> Advance() {
    while (true) {
      ++index_;
      if (index_ < batch_.size()) {
        if (deletion_vector_ && deletion_vector_->IsDeleted(positions_[index_])) continue;
        TIDE_RETURN_IF_ERROR(Materialize());
        if (key_filter_ != nullptr && !MatchesKey()) continue;
        return true;
      }
      batch_.clear();
      positions_.clear();
      index_ = static_cast<size_t>(-1);
      TIDE_ASSIGN_OR_RETURN(bool more, reader_->NextBatch(kFileBatchRows, &batch_, &positions_));
      if (!more || batch_.empty()) {
        if (!more) return false;
      }
    }
  }

  const KeyValue& current() const { return current_; }
  KeyValue TakeCurrent() { return std::move(current_); }

 private:
  Status Materialize() {
    Row& raw = batch_[index_];
    if (primary_key_) {
      current_.sequence = raw[static_cast<size_t>(seq_column_)].as_int();
      int64_t kind = raw[static_cast<size_t>(kind_column_)].as_int();
      if (kind < 0 || kind > 3) return Status::Corruption("data file {}: _VALUE_KIND {} is not a row kind", path_, kind);
      current_.kind = static_cast<ValueKind>(kind);
    }
    if (identity_) {
      // The file's columns are the needed fields in order: the row is taken as it was read, without the
      // trailing _SEQUENCE_NUMBER and _VALUE_KIND (no allocation, no per-value copy).
      current_.row = std::move(raw);
      current_.row.resize(sources_.size());
      return Status::OK();
    }
    current_.row.assign(sources_.size(), Datum());
    for (size_t i = 0; i < sources_.size(); ++i) {
      const FieldSource& src = sources_[i];
      if (src.column < 0) continue;
      Datum& v = raw[static_cast<size_t>(src.column)];
      if (src.needs_cast) {
        auto cast = CastDatum(v, src.file_type, (*needed_)[i].type);
        if (!cast.ok()) {
          return cast.status().WithContext(fmt::format("data file {}, column '{}'", path_, (*needed_)[i].name));
        }
        current_.row[i] = std::move(cast).value();
      } else {
        current_.row[i] = std::move(v);
      }
    }
    return Status::OK();
  }

  bool MatchesKey() const {
    for (size_t k = 0; k < key_filter_->positions.size(); ++k) {
      if (CompareDatum(current_.row[static_cast<size_t>(key_filter_->positions[k])], key_filter_->values[k]) != 0) {
        return false;
      }
    }
    return true;
  }

  FileCursor() = default;
  const KeyFilter* key_filter_ = nullptr;
  std::string path_;
  bool primary_key_ = false;
  const std::vector<DataField>* needed_ = nullptr;
  std::vector<FieldSource> sources_;
  bool identity_ = false;  // sources_[i] is file column i, uncast
  int seq_column_ = -1, kind_column_ = -1;
  std::optional<DeletionVector> deletion_vector_;
  std::unique_ptr<DataFileRowReader> reader_;
  std::vector<Row> batch_;
  std::vector<int64_t> positions_;
  size_t index_ = static_cast<size_t>(-1);
  KeyValue current_;
};

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
  ConcatSource(std::vector<std::unique_ptr<FileCursor>> cursors, bool drop_retract)
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
  std::vector<std::unique_ptr<FileCursor>> cursors_;
  bool drop_retract_;
  size_t current_ = 0;
};

// Compares the primary keys of two rows: the key fields in order, with a fast path for a single
// integer key (the common `id BIGINT` key) that skips the general comparison.
class KeyComparator {
 public:
  explicit KeyComparator(std::vector<int> key_indices) : key_indices_(std::move(key_indices)) {}
  int Compare(const Row& a, const Row& b) const {
    if (key_indices_.size() == 1) {
      size_t k = static_cast<size_t>(key_indices_[0]);
      const auto* x = std::get_if<int64_t>(&a[k].storage());
      const auto* y = std::get_if<int64_t>(&b[k].storage());
      if (x != nullptr && y != nullptr) return (*x > *y) - (*x < *y);
    }
    for (int i : key_indices_) {
      int c = CompareDatum(a[static_cast<size_t>(i)], b[static_cast<size_t>(i)]);
      if (c != 0) return c;
    }
    return 0;
  }

 private:
  std::vector<int> key_indices_;
};

// K-way merge of sorted runs by key, then the merge function per key. The runs sit in a binary min-heap
// on (key, _SEQUENCE_NUMBER); after a run yields its row it is advanced and sifted down in place, so the
// rows of one key come out oldest first.
class MergeSource final : public SplitRowSource {
 public:
  // `deduplicate` (the deduplicate engine without sequence.field): the newest row of each key wins, taken
  // without copies; `ignore_delete` then skips -U/-D rows. Otherwise `merge` folds each key's rows.
  MergeSource(std::vector<std::unique_ptr<FileCursor>> cursors, std::vector<int> key_indices,
              std::vector<int> sequence_indices, bool sequence_descending, std::unique_ptr<MergeFunction> merge,
              bool deduplicate, bool ignore_delete)
      : cursors_(std::move(cursors)), keys_(std::move(key_indices)), sequence_indices_(std::move(sequence_indices)),
        sequence_descending_(sequence_descending), merge_(std::move(merge)), deduplicate_(deduplicate),
        ignore_delete_(ignore_delete) {}

  Status Init() {
    for (size_t i = 0; i < cursors_.size(); ++i) {
      TIDE_ASSIGN_OR_RETURN(bool ok, cursors_[i]->Advance());
      if (ok) heap_.push_back(i);
    }
    for (size_t i = heap_.size() / 2; i-- > 0;) SiftDown(i);
    return Status::OK();
  }

  Result<bool> Next(Row* row) override {
    return deduplicate_ ? NextDeduplicated(row) : NextMerged(row);
  }

 private:
  // The smallest run's row; then that run moves on.
  Result<KeyValue> TakeTop() {
    size_t top = heap_[0];
    KeyValue kv = cursors_[top]->TakeCurrent();
    TIDE_ASSIGN_OR_RETURN(bool ok, cursors_[top]->Advance());
    if (!ok) {
      heap_[0] = heap_.back();
      heap_.pop_back();
    }
    if (!heap_.empty()) SiftDown(0);
    return kv;
  }
  bool TopHasKeyOf(const Row& row) const {
    return !heap_.empty() && keys_.Compare(cursors_[heap_[0]]->current().row, row) == 0;
  }

  Result<bool> NextDeduplicated(Row* row) {
    while (!heap_.empty()) {
      TIDE_ASSIGN_OR_RETURN(KeyValue winner, TakeTop());
      bool have = !(ignore_delete_ && IsRetract(winner.kind));
      while (TopHasKeyOf(winner.row)) {
        TIDE_ASSIGN_OR_RETURN(KeyValue kv, TakeTop());
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
    while (!heap_.empty()) {
      // Gather every row of the smallest key.
      group_.clear();
      TIDE_ASSIGN_OR_RETURN(KeyValue first, TakeTop());
      group_.push_back(std::move(first));
      while (TopHasKeyOf(group_[0].row)) {
        TIDE_ASSIGN_OR_RETURN(KeyValue kv, TakeTop());
        group_.push_back(std::move(kv));
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
    return false;
  }

  bool Less(size_t a, size_t b) const {
    const KeyValue& x = cursors_[a]->current();
    const KeyValue& y = cursors_[b]->current();
    int c = keys_.Compare(x.row, y.row);
    if (c != 0) return c < 0;
    return x.sequence < y.sequence;
  }
  void SiftDown(size_t i) {
    const size_t n = heap_.size();
    while (true) {
      size_t smallest = i, l = 2 * i + 1, r = l + 1;
      if (l < n && Less(heap_[l], heap_[smallest])) smallest = l;
      if (r < n && Less(heap_[r], heap_[smallest])) smallest = r;
      if (smallest == i) return;
      std::swap(heap_[i], heap_[smallest]);
      i = smallest;
    }
  }
  int CompareSequenceFields(const Row& a, const Row& b) const {
    for (int i : sequence_indices_) {
      int c = CompareDatum(a[static_cast<size_t>(i)], b[static_cast<size_t>(i)]);
      if (c != 0) return sequence_descending_ ? -c : c;
    }
    return 0;
  }

  std::vector<std::unique_ptr<FileCursor>> cursors_;
  KeyComparator keys_;
  std::vector<int> sequence_indices_;
  bool sequence_descending_;
  std::unique_ptr<MergeFunction> merge_;
  bool deduplicate_;
  bool ignore_delete_;
  std::vector<size_t> heap_;  // indices into cursors_, a min-heap by Less
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
      for (const auto& [key, value] : s.options) {
        if (StartsWith(key, "fields.") && EndsWith(key, ".sequence-group")) {
          return Status::NotSupported("table {}: option '{}' (partial-update sequence groups) is not supported yet",
                                      ctx_.table_name, key);
        }
      }
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
      file.schema = file_schemas[i];
      file.row_count = f.row_count;
      file.min_sequence_number = f.min_sequence_number;
      file.max_sequence_number = f.max_sequence_number;
      file.delete_row_count = f.delete_row_count;
      TIDE_ASSIGN_OR_RETURN(file.deletion_vector, DeletionVectorOf(ctx_.fs, ctx_.table_name, split, f));
      columnar_files.push_back(std::move(file));
    }
    return ColumnarSplitReader::Open(columnar_spec_, std::move(columnar_files));
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
    std::vector<std::unique_ptr<FileCursor>> cursors;
    for (const DataFileMeta* f : files) {
      TIDE_ASSIGN_OR_RETURN(auto cursor, FileCursor::Open(ctx_, &schemas_, split, *f, needed_, primary_key_, ctx_.fs,
                                                          key_filter_ ? &*key_filter_ : nullptr));
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
      TIDE_ASSIGN_OR_RETURN(auto probe, FileCursor::Open(ctx_, &schemas_, split, *f, probe_fields_, primary_key_,
                                                         ctx_.fs, &probe_filter_));
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
    TIDE_ASSIGN_OR_RETURN(auto cursor, FileCursor::Open(ctx_, &schemas_, split, *winner, needed_, primary_key_,
                                                        ctx_.fs, &*key_filter_));
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
