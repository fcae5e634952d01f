#include "tide/table/table_reader.h"

#include <algorithm>
#include <queue>

#include "tide/base/strings.h"
#include "tide/table/core_options.h"
#include "tide/table/data_file_source.h"
#include "tide/table/deletion_vector.h"
#include "tide/table/merge_function.h"
#include "tide/table/schema_manager.h"
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

// Reads one data file as rows of the needed fields (mapped by field id and cast to the read types),
// with the _SEQUENCE_NUMBER and _VALUE_KIND of primary-key files, dropping rows its deletion vector marks.
class FileCursor {
 public:
  static Result<std::unique_ptr<FileCursor>> Open(const TableReadContext& ctx, SchemaCache* schemas,
                                                  const DataSplit& split, const DataFileMeta& file,
                                                  const std::vector<DataField>& needed, bool primary_key,
                                                  FileSystem* fs) {
    auto cursor = std::unique_ptr<FileCursor>(new FileCursor());
    cursor->path_ = split.FilePath(file);
    cursor->primary_key_ = primary_key;
    cursor->needed_ = &needed;
    TIDE_ASSIGN_OR_RETURN(const TableSchema* file_schema, schemas->Get(file.schema_id));
    std::vector<ParquetColumnSpec> columns;
    for (const auto& field : needed) {
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
      }
      cursor->sources_.push_back(std::move(src));
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
    auto dv = split.deletion_files.find(file.file_name);
    if (dv != split.deletion_files.end()) {
      auto vector = ReadDeletionVector(fs, dv->second.index_path, dv->second.offset, dv->second.length);
      if (!vector.ok()) {
        return vector.status().WithContext(fmt::format("table {}: deletion vector of data file {}", ctx.table_name, cursor->path_));
      }
      cursor->deletion_vector_ = std::move(vector).value();
    }
    TIDE_ASSIGN_OR_RETURN(cursor->reader_, OpenDataFile(cursor->path_, columns, ctx.table_name));
    return cursor;
  }

  // Moves to the next live row; false at the end of the file.
  Result<bool> Advance() {
    while (true) {
      ++index_;
      if (index_ < batch_.size()) {
        if (deletion_vector_ && deletion_vector_->IsDeleted(positions_[index_])) continue;
        TIDE_RETURN_IF_ERROR(Materialize());
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
    if (primary_key_) {
      current_.sequence = raw[static_cast<size_t>(seq_column_)].as_int();
      int64_t kind = raw[static_cast<size_t>(kind_column_)].as_int();
      if (kind < 0 || kind > 3) return Status::Corruption("data file {}: _VALUE_KIND {} is not a row kind", path_, kind);
      current_.kind = static_cast<ValueKind>(kind);
    }
    return Status::OK();
  }

  FileCursor() = default;
  std::string path_;
  bool primary_key_ = false;
  const std::vector<DataField>* needed_ = nullptr;
  std::vector<FieldSource> sources_;
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

// K-way merge of sorted runs by key, then the merge function per key.
class MergeSource final : public SplitRowSource {
 public:
  MergeSource(std::vector<std::unique_ptr<FileCursor>> cursors, std::vector<int> key_indices,
              std::vector<int> sequence_indices, bool sequence_descending, std::unique_ptr<MergeFunction> merge)
      : cursors_(std::move(cursors)), key_indices_(std::move(key_indices)),
        sequence_indices_(std::move(sequence_indices)), sequence_descending_(sequence_descending),
        merge_(std::move(merge)), heap_(HeapLess{this}) {}

  Status Init() {
    for (size_t i = 0; i < cursors_.size(); ++i) {
      TIDE_ASSIGN_OR_RETURN(bool ok, cursors_[i]->Advance());
      if (ok) heap_.push(i);
    }
    return Status::OK();
  }

  Result<bool> Next(Row* row) override {
    while (!heap_.empty()) {
      // Gather every row of the smallest key.
      group_.clear();
      size_t first = heap_.top();
      Row key = KeyOf(cursors_[first]->current().row);
      while (!heap_.empty() && CompareKey(cursors_[heap_.top()]->current().row, key) == 0) {
        size_t i = heap_.top();
        heap_.pop();
        group_.push_back(cursors_[i]->TakeCurrent());
        TIDE_ASSIGN_OR_RETURN(bool ok, cursors_[i]->Advance());
        if (ok) heap_.push(i);
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

 private:
  struct HeapLess {
    MergeSource* self;
    // std::priority_queue is a max-heap: "less" means lower priority, so invert.
    bool operator()(size_t a, size_t b) const {
      const KeyValue& x = self->cursors_[a]->current();
      const KeyValue& y = self->cursors_[b]->current();
      int c = self->CompareKeys(x.row, y.row);
      if (c != 0) return c > 0;
      return x.sequence > y.sequence;
    }
  };

  Row KeyOf(const Row& row) const {
    Row key;
    for (int i : key_indices_) key.push_back(row[static_cast<size_t>(i)]);
    return key;
  }
  int CompareKey(const Row& row, const Row& key) const {
    for (size_t k = 0; k < key_indices_.size(); ++k) {
      int c = CompareDatum(row[static_cast<size_t>(key_indices_[k])], key[k]);
      if (c != 0) return c;
    }
    return 0;
  }
  int CompareKeys(const Row& a, const Row& b) const {
    for (int i : key_indices_) {
      int c = CompareDatum(a[static_cast<size_t>(i)], b[static_cast<size_t>(i)]);
      if (c != 0) return c;
    }
    return 0;
  }
  int CompareSequenceFields(const Row& a, const Row& b) const {
    for (int i : sequence_indices_) {
      int c = CompareDatum(a[static_cast<size_t>(i)], b[static_cast<size_t>(i)]);
      if (c != 0) return sequence_descending_ ? -c : c;
    }
    return 0;
  }

  std::vector<std::unique_ptr<FileCursor>> cursors_;
  std::vector<int> key_indices_;
  std::vector<int> sequence_indices_;
  bool sequence_descending_;
  std::unique_ptr<MergeFunction> merge_;
  std::priority_queue<size_t, std::vector<size_t>, HeapLess> heap_;
  std::vector<KeyValue> group_;
};

class SnapshotTableReader final : public TableReader {
 public:
  SnapshotTableReader(TableReadContext ctx, std::vector<DataSplit> splits)
      : ctx_(std::move(ctx)), splits_(std::move(splits)), schemas_(ctx_.fs, ctx_.metadata_path, ctx_.read_schema),
        options_(ctx_.read_schema) {}

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
    TIDE_ASSIGN_OR_RETURN(engine_, options_.merge_engine());
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
    for (int i : needed_idx) needed_.push_back(s.fields[static_cast<size_t>(i)]);
    for (size_t i = 0; i < ctx_.projection.size(); ++i) output_.push_back(s.fields[static_cast<size_t>(ctx_.projection[i])]);
    return Status::OK();
  }

  const std::vector<DataField>& fields() const override { return output_; }

  Result<bool> NextBatch(size_t max_rows, std::vector<Row>* out) override {
    size_t produced = 0;
    Row row;
    while (produced < max_rows) {
      if (!source_) {
        if (next_split_ >= splits_.size()) break;
        TIDE_ASSIGN_OR_RETURN(source_, OpenSplit(splits_[next_split_++]));
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
  Result<std::unique_ptr<SplitRowSource>> OpenSplit(const DataSplit& split) {
    bool dv = options_.deletion_vectors_enabled();
    // Level-0 files are invisible to batch reads of deletion-vector and first-row tables (Java's
    // batchScanSkipLevel0): their rows appear once compaction moves them up.
    bool skip_level0 = primary_key_ && (dv || engine_ == MergeEngine::kFirstRow);
    std::vector<const DataFileMeta*> files;
    for (const auto& f : split.files) {
      if (skip_level0 && f.level == 0) continue;
      files.push_back(&f);
    }
    if (!primary_key_) {
      // Append tables: files in sequence order.
      std::stable_sort(files.begin(), files.end(), [](const DataFileMeta* a, const DataFileMeta* b) {
        return a->min_sequence_number < b->min_sequence_number;
      });
    }
    std::vector<std::unique_ptr<FileCursor>> cursors;
    for (const DataFileMeta* f : files) {
      TIDE_ASSIGN_OR_RETURN(auto cursor, FileCursor::Open(ctx_, &schemas_, split, *f, needed_, primary_key_, ctx_.fs));
      cursors.push_back(std::move(cursor));
    }
    if (!primary_key_ || dv) {
      return std::unique_ptr<SplitRowSource>(new ConcatSource(std::move(cursors), primary_key_));
    }
    TIDE_ASSIGN_OR_RETURN(auto merge, CreateMergeFunction(options_, needed_, ctx_.read_schema.primary_keys, ctx_.table_name));
    auto source = std::make_unique<MergeSource>(std::move(cursors), key_positions_, sequence_positions_,
                                                options_.sequence_field_descending(), std::move(merge));
    TIDE_RETURN_IF_ERROR(source->Init());
    return std::unique_ptr<SplitRowSource>(std::move(source));
  }

  TableReadContext ctx_;
  std::vector<DataSplit> splits_;
  SchemaCache schemas_;
  CoreOptions options_;
  bool primary_key_ = false;
  MergeEngine engine_ = MergeEngine::kDeduplicate;
  std::vector<DataField> needed_;
  std::vector<DataField> output_;
  std::vector<int> key_positions_;
  std::vector<int> sequence_positions_;
  size_t next_split_ = 0;
  std::unique_ptr<SplitRowSource> source_;
};

}  // namespace

Result<std::unique_ptr<TableReader>> CreateSnapshotTableReader(TableReadContext context, std::vector<DataSplit> splits) {
  auto reader = std::make_unique<SnapshotTableReader>(std::move(context), std::move(splits));
  TIDE_RETURN_IF_ERROR(reader->Init());
  return std::unique_ptr<TableReader>(std::move(reader));
}

}  // namespace tide
