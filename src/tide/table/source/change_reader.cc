#include "tide/table/source/change_reader.h"

#include <algorithm>
#include <optional>

#include "tide/base/strings.h"
#include "tide/table/deletionvectors/deletion_vector.h"
#include "tide/table/io/key_value_file_reader.h"
#include "tide/table/mergetree/merge_function.h"
#include "tide/table/mergetree/sort_merge_heap.h"
#include "tide/table/schema/core_options.h"
#include "tide/table/schema/schema_cache.h"

namespace tide {

std::string_view RowKindShortString(ValueKind kind) {
  switch (kind) {
    case ValueKind::kInsert:
      return "+I";
    case ValueKind::kUpdateBefore:
      return "-U";
    case ValueKind::kUpdateAfter:
      return "+U";
    case ValueKind::kDelete:
      return "-D";
  }
  return "+I";
}

DataField RowKindField() {
  DataField field;
  // Java's SpecialFields.ROW_KIND id (Integer.MAX_VALUE - 4), so it never collides with a table column.
  field.id = 2147483643;
  field.name = kRowKindColumn;
  field.type = DataType::String(false);
  return field;
}

namespace {

// Yields the records of one split.
class SplitChanges {
 public:
  virtual ~SplitChanges() = default;
  virtual Result<bool> Next(KeyValue* kv) = 0;
};

// The files one after another.
class ConcatChanges final : public SplitChanges {
 public:
  explicit ConcatChanges(std::vector<std::unique_ptr<KeyValueCursor>> cursors) : cursors_(std::move(cursors)) {}
  Result<bool> Next(KeyValue* kv) override {
    while (current_ < cursors_.size()) {
      TIDE_ASSIGN_OR_RETURN(bool ok, cursors_[current_]->Advance());
      if (ok) {
        *kv = cursors_[current_]->TakeCurrent();
        return true;
      }
      cursors_[current_].reset();
      ++current_;
    }
    return false;
  }

 private:
  std::vector<std::unique_ptr<KeyValueCursor>> cursors_;
  size_t current_ = 0;
};

// Records read beforehand (a split put in sequence order).
class BufferedChanges final : public SplitChanges {
 public:
  explicit BufferedChanges(std::vector<KeyValue> records) : records_(std::move(records)) {}
  Result<bool> Next(KeyValue* kv) override {
    if (next_ >= records_.size()) return false;
    *kv = std::move(records_[next_++]);
    return true;
  }

 private:
  std::vector<KeyValue> records_;
  size_t next_ = 0;
};

// A batch read's merge of the split's runs that keeps deleted keys and each result's kind.
class KeepDeleteMerge final : public SplitChanges {
 public:
  KeepDeleteMerge(std::vector<std::unique_ptr<KeyValueCursor>> cursors, std::vector<int> key_indices,
                  std::vector<int> sequence_indices, bool sequence_descending, std::unique_ptr<MergeFunction> merge,
                  bool deduplicate, bool ignore_delete)
      : heap_(std::move(cursors), KeyComparator(std::move(key_indices))),
        sequence_indices_(std::move(sequence_indices)), sequence_descending_(sequence_descending),
        merge_(std::move(merge)), deduplicate_(deduplicate), ignore_delete_(ignore_delete) {}

  Status Init() { return heap_.Init(); }

  Result<bool> Next(KeyValue* kv) override {
    while (true) {
      TIDE_ASSIGN_OR_RETURN(bool more, heap_.NextKey(&group_));
      if (!more) return false;
      std::stable_sort(group_.begin(), group_.end(), [this](const KeyValue& a, const KeyValue& b) {
        for (int i : sequence_indices_) {
          int c = CompareDatum(a.row[static_cast<size_t>(i)], b.row[static_cast<size_t>(i)]);
          if (c != 0) return sequence_descending_ ? c > 0 : c < 0;
        }
        return a.sequence < b.sequence;
      });
      if (deduplicate_) {
        // The newest record wins, with its own kind (Java's DeduplicateMergeFunction).
        std::optional<size_t> winner;
        for (size_t i = 0; i < group_.size(); ++i) {
          if (ignore_delete_ && IsRetract(group_[i].kind)) continue;
          winner = i;
        }
        if (!winner) continue;
        *kv = std::move(group_[*winner]);
        return true;
      }
      merge_->Reset();
      for (const KeyValue& record : group_) TIDE_RETURN_IF_ERROR(merge_->Add(record));
      TIDE_ASSIGN_OR_RETURN(std::optional<Row> result, merge_->GetResult());
      if (!result) continue;
      kv->row = std::move(*result);
      kv->sequence = group_.back().sequence;
      kv->kind = ValueKind::kInsert;
      return true;
    }
  }

 private:
  SortMergeHeap heap_;
  std::vector<int> sequence_indices_;
  bool sequence_descending_;
  std::unique_ptr<MergeFunction> merge_;
  bool deduplicate_;
  bool ignore_delete_;
  std::vector<KeyValue> group_;
};

class ChangeReaderImpl final : public ChangeReader {
 public:
  ChangeReaderImpl(ChangeReadContext ctx, CoreOptions options, std::vector<SnapshotChanges> changes)
      : ctx_(std::move(ctx)), options_(std::move(options)), changes_(std::move(changes)),
        schemas_(ctx_.fs, ctx_.metadata_path, ctx_.read_schema) {}

  Status Init() {
    const TableSchema& s = ctx_.read_schema;
    primary_key_ = s.HasPrimaryKey();
    if (ctx_.projection.empty()) {
      for (size_t i = 0; i < s.fields.size(); ++i) ctx_.projection.push_back(static_cast<int>(i));
    }
    for (int p : ctx_.projection) {
      if (p < 0 || static_cast<size_t>(p) >= s.fields.size()) {
        return Status::InvalidArgument("table {}: projection index {} is out of range", ctx_.table_name, p);
      }
      output_.push_back(s.fields[static_cast<size_t>(p)]);
    }
    if (ctx_.mode == ChangeReadMode::kDiff) {
      // A diff compares whole rows (Java compares the merged values), so every field is read and the
      // projection is applied to what the comparison yields.
      diff_projection_ = ctx_.projection;
      ctx_.projection.clear();
      for (size_t i = 0; i < s.fields.size(); ++i) ctx_.projection.push_back(static_cast<int>(i));
    }
    // A merge needs the key and sequence fields; they follow the projection and are cut off afterwards.
    std::vector<int> needed = ctx_.projection;
    auto need = [&](const std::string& name) -> Result<int> {
      int idx = s.FieldIndex(name);
      if (idx < 0) {
        return Status::InvalidArgument("table {}: option names column '{}', which does not exist", ctx_.table_name,
                                       name);
      }
      auto it = std::find(needed.begin(), needed.end(), idx);
      if (it != needed.end()) return static_cast<int>(it - needed.begin());
      needed.push_back(idx);
      return static_cast<int>(needed.size() - 1);
    };
    if (ctx_.mode != ChangeReadMode::kChanges && primary_key_) {
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
      for (int i : needed) read_names.push_back(s.fields[static_cast<size_t>(i)].name);
      TIDE_ASSIGN_OR_RETURN(std::vector<std::string> group_fields,
                            SequenceGroupFieldsToRead(options_, s.fields, read_names, ctx_.table_name));
      for (const auto& f : group_fields) TIDE_RETURN_IF_ERROR(need(f).status());
    }
    for (int i : needed) needed_.push_back(s.fields[static_cast<size_t>(i)]);
    return Status::OK();
  }

  const std::vector<DataField>& fields() const override { return output_; }

  Result<bool> Next(size_t max_rows, std::vector<ChangeRecord>* out) override {
    size_t produced = 0;
    KeyValue kv;
    while (produced < max_rows) {
      if (!source_) {
        if (snapshot_ >= changes_.size()) break;
        const SnapshotChanges& changes = changes_[snapshot_];
        if (split_ >= changes.splits.size()) {
          ++snapshot_;
          split_ = 0;
          continue;
        }
        if (ctx_.mode == ChangeReadMode::kDiff) {
          const DataSplit* before = split_ < changes.before_splits.size() ? &changes.before_splits[split_] : nullptr;
          TIDE_ASSIGN_OR_RETURN(source_, OpenDiff(before, changes.splits[split_]));
          ++split_;
        } else {
          TIDE_ASSIGN_OR_RETURN(source_, OpenSplit(changes.splits[split_++]));
        }
        continue;
      }
      TIDE_ASSIGN_OR_RETURN(bool ok, source_->Next(&kv));
      if (!ok) {
        source_.reset();
        continue;
      }
      ChangeRecord record;
      record.snapshot_id = changes_[snapshot_].snapshot_id;
      record.kind = primary_key_ ? kv.kind : ValueKind::kInsert;
      if (ctx_.mode == ChangeReadMode::kDiff) {
        record.row.reserve(diff_projection_.size());
        for (int p : diff_projection_) record.row.push_back(std::move(kv.row[static_cast<size_t>(p)]));
      } else {
        record.row = std::move(kv.row);
        if (record.row.size() != output_.size()) record.row.resize(output_.size());
      }
      out->push_back(std::move(record));
      ++produced;
    }
    return produced > 0;
  }

 private:
  Result<std::unique_ptr<KeyValueCursor>> OpenFile(const DataSplit& split, const DataFileMeta& file,
                                                   bool with_deletion_vector) {
    KeyValueFileReadSpec spec;
    spec.path = split.FilePath(file);
    TIDE_ASSIGN_OR_RETURN(spec.file_schema, schemas_.Get(file.schema_id));
    spec.needed = &needed_;
    spec.primary_key = primary_key_;
    spec.table_name = ctx_.table_name;
    if (with_deletion_vector) {
      auto dv = split.deletion_files.find(file.file_name);
      if (dv != split.deletion_files.end()) {
        auto vector = ReadDeletionVector(ctx_.fs, dv->second.index_path, dv->second.offset, dv->second.length);
        if (!vector.ok()) {
          return vector.status().WithContext(
              fmt::format("table {}: deletion vector of data file {}", ctx_.table_name, spec.path));
        }
        auto shared = std::make_shared<DeletionVector>(std::move(vector).value());
        spec.skip_position = [shared](int64_t position) { return shared->IsDeleted(position); };
      }
    }
    TIDE_ASSIGN_OR_RETURN(auto reader, KeyValueFileReader::Open(std::move(spec)));
    return std::unique_ptr<KeyValueCursor>(std::move(reader));
  }

  Result<std::unique_ptr<SplitChanges>> OpenSplit(const DataSplit& split) {
    std::vector<const DataFileMeta*> files;
    // A diff reads each side as the audit log reads a snapshot.
    const bool audit = ctx_.mode != ChangeReadMode::kChanges;
    const bool dv = options_.deletion_vectors_enabled();
    const MergeEngine engine = options_.merge_engine();
    // Batch reads do not see level-0 files of deletion-vector and first-row tables (Java's
    // batchScanSkipLevel0).
    const bool skip_level0 = audit && primary_key_ && (dv || engine == MergeEngine::kFirstRow);
    int64_t rows = 0;
    for (const DataFileMeta& f : split.files) {
      if (skip_level0 && f.level == 0) continue;
      files.push_back(&f);
      rows += f.row_count;
    }
    if (!primary_key_) {
      std::stable_sort(files.begin(), files.end(), [](const DataFileMeta* a, const DataFileMeta* b) {
        return a->min_sequence_number < b->min_sequence_number;
      });
    }
    std::vector<std::unique_ptr<KeyValueCursor>> cursors;
    for (const DataFileMeta* f : files) {
      TIDE_ASSIGN_OR_RETURN(auto cursor, OpenFile(split, *f, audit));
      cursors.push_back(std::move(cursor));
    }
    if (!audit) {
      auto concat = std::make_unique<ConcatChanges>(std::move(cursors));
      if (!ctx_.order_by_sequence || !primary_key_ || rows > static_cast<int64_t>(kMaxOrderedSplitRows)) {
        return std::unique_ptr<SplitChanges>(std::move(concat));
      }
      std::vector<KeyValue> records;
      KeyValue kv;
      while (true) {
        TIDE_ASSIGN_OR_RETURN(bool ok, concat->Next(&kv));
        if (!ok) break;
        records.push_back(std::move(kv));
      }
      std::stable_sort(records.begin(), records.end(),
                       [](const KeyValue& a, const KeyValue& b) { return a.sequence < b.sequence; });
      return std::unique_ptr<SplitChanges>(new BufferedChanges(std::move(records)));
    }
    if (!primary_key_ || dv) {
      // Append files, or deletion-vector files above level 0 (each key once): nothing to merge.
      return std::unique_ptr<SplitChanges>(new ConcatChanges(std::move(cursors)));
    }
    TIDE_ASSIGN_OR_RETURN(auto merge, CreateMergeFunction(options_, needed_, ctx_.read_schema.primary_keys,
                                                          ctx_.table_name));
    auto source = std::make_unique<KeepDeleteMerge>(std::move(cursors), key_positions_, sequence_positions_,
                                                    options_.sequence_field_descending(), std::move(merge),
                                                    engine == MergeEngine::kDeduplicate, options_.ignore_delete());
    TIDE_RETURN_IF_ERROR(source->Init());
    return std::unique_ptr<SplitChanges>(std::move(source));
  }

  // Every live record a side of a diff holds in the bucket (retractions dropped, as Java's merge
  // without keep-delete does), sorted by key.
  Result<std::vector<KeyValue>> ReadDiffSide(const DataSplit& split) {
    std::vector<KeyValue> records;
    TIDE_ASSIGN_OR_RETURN(auto source, OpenSplit(split));
    KeyValue kv;
    while (true) {
      TIDE_ASSIGN_OR_RETURN(bool ok, source->Next(&kv));
      if (!ok) break;
      if (IsRetract(kv.kind)) continue;
      records.push_back(std::move(kv));
    }
    KeyComparator keys(key_positions_);
    std::stable_sort(records.begin(), records.end(),
                     [&keys](const KeyValue& a, const KeyValue& b) { return keys.Compare(a.row, b.row) < 0; });
    return records;
  }

  // One bucket of a diff (Java's IncrementalDiffSplitRead): files both snapshots hold were removed by
  // the plan; the rest of each side is merged per key, and a key only the end holds comes with its own
  // kind, a key both hold with another value comes as the end's record, and a key only the start holds
  // comes as -D with its old row (the audit log keeps deletes). Append tables: the end's new files, +I.
  Result<std::unique_ptr<SplitChanges>> OpenDiff(const DataSplit* before, const DataSplit& after) {
    if (!primary_key_) return OpenSplit(after);
    std::vector<KeyValue> old_records;
    if (before != nullptr) TIDE_ASSIGN_OR_RETURN(old_records, ReadDiffSide(*before));
    TIDE_ASSIGN_OR_RETURN(std::vector<KeyValue> new_records, ReadDiffSide(after));
    KeyComparator keys(key_positions_);
    const size_t width = ctx_.read_schema.fields.size();
    auto same_value = [width](const Row& a, const Row& b) {
      for (size_t i = 0; i < width; ++i) {
        if (!(a[i] == b[i])) return false;
      }
      return true;
    };
    std::vector<KeyValue> out;
    size_t i = 0, j = 0;
    while (i < old_records.size() || j < new_records.size()) {
      int c = i >= old_records.size()   ? 1
              : j >= new_records.size() ? -1
                                        : keys.Compare(old_records[i].row, new_records[j].row);
      if (c < 0) {
        KeyValue gone = std::move(old_records[i++]);
        gone.kind = ValueKind::kDelete;
        out.push_back(std::move(gone));
      } else if (c > 0) {
        out.push_back(std::move(new_records[j++]));
      } else {
        if (!same_value(old_records[i].row, new_records[j].row)) out.push_back(std::move(new_records[j]));
        ++i;
        ++j;
      }
    }
    return std::unique_ptr<SplitChanges>(new BufferedChanges(std::move(out)));
  }

  ChangeReadContext ctx_;
  CoreOptions options_;
  std::vector<SnapshotChanges> changes_;
  SchemaCache schemas_;
  bool primary_key_ = false;
  std::vector<DataField> output_;
  std::vector<DataField> needed_;
  std::vector<int> key_positions_;
  std::vector<int> sequence_positions_;
  std::vector<int> diff_projection_;  // kDiff: the fields returned, of the whole rows compared
  size_t snapshot_ = 0;
  size_t split_ = 0;
  std::unique_ptr<SplitChanges> source_;
};

}  // namespace

Result<std::unique_ptr<ChangeReader>> ChangeReader::Open(ChangeReadContext context,
                                                         std::vector<SnapshotChanges> changes) {
  TIDE_ASSIGN_OR_RETURN(CoreOptions options, CoreOptions::Create(context.read_schema, context.table_name));
  auto reader = std::make_unique<ChangeReaderImpl>(std::move(context), std::move(options), std::move(changes));
  TIDE_RETURN_IF_ERROR(reader->Init());
  return std::unique_ptr<ChangeReader>(std::move(reader));
}

ChangeTableReader::ChangeTableReader(std::unique_ptr<ChangeReader> reader, bool with_row_kind, bool with_fields)
    : reader_(std::move(reader)), with_row_kind_(with_row_kind), with_fields_(with_fields) {
  if (with_row_kind_) fields_.push_back(RowKindField());
  if (with_fields_) {
    for (const DataField& f : reader_->fields()) fields_.push_back(f);
  }
}

Result<bool> ChangeTableReader::NextBatch(size_t max_rows, std::vector<Row>* out) {
  records_.clear();
  TIDE_ASSIGN_OR_RETURN(bool more, reader_->Next(max_rows, &records_));
  if (!more) return false;
  for (ChangeRecord& record : records_) {
    if (!with_fields_) record.row.clear();
    if (!with_row_kind_) {
      out->push_back(std::move(record.row));
      continue;
    }
    Row row;
    row.reserve(record.row.size() + 1);
    row.emplace_back(std::string(RowKindShortString(record.kind)));
    for (Datum& d : record.row) row.push_back(std::move(d));
    out->push_back(std::move(row));
  }
  return true;
}

}  // namespace tide
