#include "tide/table/source/columnar_split_reader.h"

#include <strings.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <utility>

#include "tide/format/duckdb_handle.h"
#include "tide/format/duckdb_type_mapping.h"
#include "tide/format/parquet_chunk_reader.h"
#include "tide/format/parquet_metadata.h"
#include "tide/format/parquet_reader.h"
#include "tide/io/file_system.h"
#include "tide/table/io/data_file_reader.h"
#include "tide/table/mergetree/merge_function.h"

namespace tide {
namespace {

// Files of at most this many rows are read by one materialized query, cheaper than a streaming one;
// larger files stream in bounded memory.
constexpr int64_t kMaterializeMaxRows = 131072;

// Merges of at most this many files of one integer key scan their heads instead of keeping a heap; a
// heap pays off only for more.
constexpr size_t kFlatMergeMaxFiles = 8;

bool IntegerKey(const DataType& type) {
  switch (type.root()) {
    case TypeRoot::kTinyInt:
    case TypeRoot::kSmallInt:
    case TypeRoot::kInt:
    case TypeRoot::kBigInt: return true;
    default: return false;
  }
}

std::string_view StringOf(const duckdb_string_t& s) {
  uint32_t length = s.value.inlined.length;
  if (length <= 12) return {s.value.inlined.inlined, length};
  return {s.value.pointer.ptr, length};
}

// Paimon orders string keys by their UTF-8 bytes, unsigned.
int CompareStrings(const duckdb_string_t& a, const duckdb_string_t& b) {
  std::string_view x = StringOf(a), y = StringOf(b);
  size_t n = std::min(x.size(), y.size());
  int c = n == 0 ? 0 : std::memcmp(x.data(), y.data(), n);
  if (c != 0) return c;
  return (x.size() > y.size()) - (x.size() < y.size());
}

}  // namespace

// One chunk of a file's rows and which of them are handed out.
struct ColumnarSplitReader::ChunkState {
  // A materialized result's chunks may point into the result, so each chunk keeps it alive.
  std::shared_ptr<DuckResult> result;
  DuckDataChunk chunk;
  idx_t size = 0;
  std::vector<sel_t> selected;
};

// One data file being read.
struct ColumnarSplitReader::Cursor {
  ColumnarFile file;
  std::string sql;                               // the DuckDB query of the file (the fallback)
  std::vector<ParquetChunkColumn> native_columns;  // the same columns for Tide's own reader
  std::unique_ptr<ParquetChunkReader> native;    // reading through Tide's reader, when it can
  bool started = false;
  DuckConnection conn;
  std::shared_ptr<DuckResult> result;  // shared with the chunks it produced (see ChunkState)
  std::unique_ptr<ChunkState> state;
  idx_t pos = 0;
  // Columns of the current chunk.
  std::vector<const int64_t*> int_keys;          // per key column; null for a string key
  std::vector<const duckdb_string_t*> str_keys;  // per key column; null for an integer key
  const int64_t* sequence = nullptr;  // null when ranks stand in for sequence numbers
  const int8_t* kind = nullptr;       // null when the file holds no -U/-D rows
  int64_t rank = 0;                   // the file's place in sequence order
  const int64_t* row_number = nullptr;
  ValueKind KindAt() const { return kind != nullptr ? static_cast<ValueKind>(kind[pos]) : ValueKind::kInsert; }
  // Where the extra columns sit in the query's result.
  idx_t key_column = 0, sequence_column = 0, kind_column = 0, row_number_column = 0;
};

namespace {

// The newest of one key's rows, offered oldest first: a tie goes to the later row (as on the row path);
// with ignore-delete, retractions never win. The winner is selected unless it is a retraction.
class NewestRow {
 public:
  explicit NewestRow(bool ignore_delete) : ignore_delete_(ignore_delete) {}
  void Offer(ColumnarSplitReader::ChunkState* state, idx_t pos, int64_t order, ValueKind kind) {
    if (ignore_delete_ && IsRetract(kind)) return;
    if (have_ && order < order_) return;
    state_ = state;
    pos_ = pos;
    order_ = order;
    kind_ = kind;
    have_ = true;
  }
  void SelectIfLive() {
    if (have_ && !IsRetract(kind_)) state_->selected.push_back(static_cast<sel_t>(pos_));
  }

 private:
  bool ignore_delete_;
  ColumnarSplitReader::ChunkState* state_ = nullptr;
  idx_t pos_ = 0;
  int64_t order_ = 0;
  ValueKind kind_ = ValueKind::kInsert;
  bool have_ = false;
};

}  // namespace

ColumnarSplitReader::ColumnarSplitReader() = default;
ColumnarSplitReader::~ColumnarSplitReader() = default;

bool ColumnarSplitReader::Supports(const ColumnarScanSpec& spec, std::span<const TableSchema* const> file_schemas) {
  for (const DataField& field : spec.output) {
    if (DuckTypeSqlName(field.type).empty()) return false;
    // TIME and TIMESTAMP_LTZ have Parquet forms (Tide's TIME without annotation, millisecond LTZ) that
    // SQL casts misread, and Java stores TIMESTAMP(7..9) as INT96, which DuckDB reads at microseconds:
    // Tide's row path decodes all of them itself.
    const TypeRoot root = field.type.root();
    if (root == TypeRoot::kTime || root == TypeRoot::kTimestampLtz) return false;
    if (root == TypeRoot::kTimestamp && field.type.precision() > 6) return false;
  }
  for (const DataField& field : spec.key_fields) {
    if (spec.merge && !IntegerKey(field.type) && !field.type.IsString()) return false;
  }
  for (const TableSchema* schema : file_schemas) {
    if (schema == nullptr) return false;
    std::vector<std::string> names;
    auto check = [&](const DataField& field, bool must_exist) {
      int idx = schema->FieldIndexById(field.id);
      if (idx < 0) return !must_exist;
      const DataField& stored = schema->fields[static_cast<size_t>(idx)];
      if (!stored.type.EqualsIgnoreNullable(field.type)) return false;
      names.push_back(stored.name);
      return true;
    };
    for (const DataField& field : spec.output) {
      if (!check(field, false)) return false;
    }
    if (spec.merge) {
      for (const DataField& field : spec.key_fields) {
        if (!check(field, true)) return false;
      }
    }
    // DuckDB binds names case-insensitively and has virtual columns of its own: such files take the row
    // path, whose reader refuses or resolves them by field id.
    for (size_t i = 0; i < names.size(); ++i) {
      if (strcasecmp(names[i].c_str(), "file_row_number") == 0 || strcasecmp(names[i].c_str(), "file_index") == 0) {
        return false;
      }
      for (size_t j = 0; j < i; ++j) {
        if (names[i] != names[j] && strcasecmp(names[i].c_str(), names[j].c_str()) == 0) return false;
      }
    }
  }
  return true;
}

Result<std::unique_ptr<ColumnarSplitReader>> ColumnarSplitReader::Open(const ColumnarScanSpec& spec,
                                                                       std::vector<ColumnarFile> files) {
  std::unique_ptr<ColumnarSplitReader> reader(new ColumnarSplitReader());
  reader->spec_ = &spec;
  reader->single_int_key_ = spec.merge && spec.key_fields.size() == 1 && IntegerKey(spec.key_fields[0].type);
  const bool primary_key = !spec.key_fields.empty();
  if (spec.merge) {
    // Ranks can replace sequence numbers when no two files' ranges overlap.
    std::vector<size_t> order(files.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return files[a].min_sequence_number < files[b].min_sequence_number;
    });
    reader->use_sequence_ = false;
    for (size_t i = 1; i < order.size(); ++i) {
      if (files[order[i]].min_sequence_number <= files[order[i - 1]].max_sequence_number) reader->use_sequence_ = true;
    }
    std::vector<ColumnarFile> ranked;
    for (size_t i : order) ranked.push_back(std::move(files[i]));
    files = std::move(ranked);
  }
  int64_t rank = 0;
  for (ColumnarFile& file : files) {
    auto cursor = std::make_unique<Cursor>();
    cursor->rank = rank++;
    const TableSchema& schema = *file.schema;
    std::string select;
    // One column of the file's read: its SQL expression and the same for Tide's reader.
    auto add = [&](const std::string& expression, ParquetChunkColumn native) {
      if (!select.empty()) select += ", ";
      select += expression;
      cursor->native_columns.push_back(std::move(native));
    };
    auto column = [](std::string name, DuckLogicalType type) {
      ParquetChunkColumn c;
      c.name = std::move(name);
      c.type = std::move(type);
      return c;
    };
    for (const DataField& field : spec.output) {
      int idx = schema.FieldIndexById(field.id);
      std::string type = DuckTypeSqlName(field.type);
      TIDE_ASSIGN_OR_RETURN(DuckLogicalType duck_type, DuckTypeFor(field.type, field.name));
      if (idx < 0) {
        // No name: the file may hold another field of the same name (dropped, then added again).
        ParquetChunkColumn absent = column("", std::move(duck_type));
        absent.absent_is_null = true;
        add("CAST(NULL AS " + type + ")", std::move(absent));
      } else {
        const std::string& name = schema.fields[static_cast<size_t>(idx)].name;
        add("CAST(" + QuoteSqlIdentifier(name) + " AS " + type + ")", column(name, std::move(duck_type)));
      }
    }
    idx_t next = spec.output.size();
    if (primary_key) {
      cursor->key_column = next;
      if (spec.merge) {
        for (const DataField& field : spec.key_fields) {
          int idx = schema.FieldIndexById(field.id);
          if (idx < 0) {
            return Status::Corruption("table {}: data file {} has no primary-key column '{}'", spec.table_name,
                                      file.path, field.name);
          }
          const std::string& name = schema.fields[static_cast<size_t>(idx)].name;
          const bool integer = IntegerKey(field.type);
          add("CAST(" + QuoteSqlIdentifier(name) + " AS " + (integer ? "BIGINT" : "VARCHAR") + ")",
              column(name, DuckLogicalType(duckdb_create_logical_type(integer ? DUCKDB_TYPE_BIGINT : DUCKDB_TYPE_VARCHAR))));
          ++next;
        }
        if (reader->use_sequence_) {
          cursor->sequence_column = next++;
          add("CAST(\"_SEQUENCE_NUMBER\" AS BIGINT)",
              column("_SEQUENCE_NUMBER", DuckLogicalType(duckdb_create_logical_type(DUCKDB_TYPE_BIGINT))));
        }
      }
      if (file.delete_row_count.value_or(1) != 0) {
        cursor->kind_column = next++;
        add("CAST(\"_VALUE_KIND\" AS TINYINT)",
            column("_VALUE_KIND", DuckLogicalType(duckdb_create_logical_type(DUCKDB_TYPE_TINYINT))));
      }
    }
    if (file.deletion_vector || select.empty()) {
      cursor->row_number_column = next++;
      ParquetChunkColumn row_number = column("file_row_number", DuckLogicalType(duckdb_create_logical_type(DUCKDB_TYPE_BIGINT)));
      row_number.row_number = true;
      add("file_row_number", std::move(row_number));
    }
    cursor->sql = "SELECT " + select + " FROM " + ReadParquetCall({file.path}, false);
    cursor->file = std::move(file);
    reader->cursors_.push_back(std::move(cursor));
  }
  return reader;
}

// Starts the DuckDB query of the cursor's file, from row `first_row` on.
Status ColumnarSplitReader::StartQuery(Cursor* cursor, int64_t first_row) {
  TIDE_ASSIGN_OR_RETURN(const DuckDB* db, DataFileDatabase());
  TIDE_ASSIGN_OR_RETURN(cursor->conn, db->Connect());
  std::string sql = cursor->sql;
  if (first_row > 0) sql += " WHERE file_row_number >= " + std::to_string(first_row);
  auto result = cursor->file.row_count <= kMaterializeMaxRows ? cursor->conn.Query(sql) : cursor->conn.QueryStreaming(sql);
  if (!result.ok()) {
    auto exists = FileSystem::Local()->Exists(cursor->file.path);
    if (exists.ok() && !*exists) {
      return Status::NotFound("table {}: data file {} does not exist (the table's metadata lists it)",
                              spec_->table_name, cursor->file.path);
    }
    return ParquetReadError(cursor->file.path, result.status()).WithContext(fmt::format("table {}", spec_->table_name));
  }
  cursor->result = std::make_shared<DuckResult>(std::move(result).value());
  // The slices handed out must have exactly the types paimon_scan declared.
  for (size_t i = 0; i < spec_->output.size(); ++i) {
    DuckLogicalType got = cursor->result->column_logical_type(i);
    TIDE_ASSIGN_OR_RETURN(DuckLogicalType want, DuckTypeFor(spec_->output[i].type, spec_->output[i].name));
    if (got.ToString() != want.ToString()) {
      return Status::Internal("table {}: data file {} column '{}' reads as {}, not {}", spec_->table_name,
                              cursor->file.path, spec_->output[i].name, got.ToString(), want.ToString());
    }
  }
  return Status::OK();
}

// Moves the cursor to the next non-empty chunk of its file; false at the end of the file.
Result<bool> ColumnarSplitReader::Refill(Cursor* cursor) {
  auto fail = [&](const Status& status) {
    return ParquetReadError(cursor->file.path, status).WithContext(fmt::format("table {}", spec_->table_name));
  };
  if (!cursor->started) {
    cursor->started = true;
    // Tide's own reader first; files it cannot read (encodings, types) go through DuckDB.
    auto native = ParquetChunkReader::Open(cursor->file.path, std::move(cursor->native_columns));
    if (native.ok()) {
      cursor->native = std::move(native).value();
      const int64_t groups = static_cast<int64_t>(cursor->native->footer().row_groups.size());
      if (!cursor->file.row_group_conditions.empty()) {
        TIDE_RETURN_IF_ERROR(cursor->native->SelectRowGroups(
            RowGroupsMayMatch(cursor->native->footer(), cursor->file.row_group_conditions)));
      }
      CountRowGroups(cursor->native->row_groups_read(), groups - cursor->native->row_groups_read());
    } else if (native.status().IsNotSupported()) {
      TIDE_RETURN_IF_ERROR(StartQuery(cursor, 0));
    } else {
      return native.status().WithContext(fmt::format("table {}", spec_->table_name));
    }
  }
  while (true) {
    DuckDataChunk chunk;
    if (cursor->native) {
      Result<DuckDataChunk> next = cursor->native->Next();
      if (next.ok()) {
        chunk = std::move(next).value();
      } else if (next.status().IsNotSupported()) {
        // A page Tide's reader cannot decode (say, an encoding met mid-file): DuckDB reads on from the
        // first row not yet returned.
        // With row groups left out, DuckDB reads the later ones too: more rows than needed, never fewer.
        int64_t resume_at = cursor->native->next_position();
        cursor->native.reset();
        TIDE_RETURN_IF_ERROR(StartQuery(cursor, resume_at));
        continue;
      } else {
        return next.status().WithContext(fmt::format("table {}", spec_->table_name));
      }
      if (!chunk) {
        cursor->native.reset();
        cursor->state.reset();
        return false;
      }
    } else {
      chunk = cursor->result->FetchChunk();
      if (!chunk) {
        Status error = cursor->result->error();
        if (!error.ok()) return fail(error);
        cursor->state.reset();
        cursor->result.reset();
        cursor->conn = DuckConnection();
        return false;
      }
    }
    if (chunk.size() == 0) continue;
    auto state = std::make_unique<ChunkState>();
    state->size = chunk.size();
    state->chunk = std::move(chunk);
    state->result = cursor->result;
    const DuckDataChunk& c = state->chunk;
    const size_t keys = spec_->merge ? spec_->key_fields.size() : 0;
    cursor->int_keys.assign(keys, nullptr);
    cursor->str_keys.assign(keys, nullptr);
    for (size_t k = 0; k < keys; ++k) {
      void* data = duckdb_vector_get_data(c.column(cursor->key_column + k));
      if (IntegerKey(spec_->key_fields[k].type)) {
        cursor->int_keys[k] = static_cast<const int64_t*>(data);
      } else {
        cursor->str_keys[k] = static_cast<const duckdb_string_t*>(data);
      }
    }
    if (spec_->merge && use_sequence_) {
      cursor->sequence = static_cast<const int64_t*>(duckdb_vector_get_data(c.column(cursor->sequence_column)));
    }
    if (!spec_->key_fields.empty() && cursor->file.delete_row_count.value_or(1) != 0) {
      cursor->kind = static_cast<const int8_t*>(duckdb_vector_get_data(c.column(cursor->kind_column)));
      for (idx_t r = 0; r < state->size; ++r) {
        if (cursor->kind[r] < 0 || cursor->kind[r] > 3) {
          return Status::Corruption("table {}: data file {}: _VALUE_KIND {} is not a row kind", spec_->table_name,
                                    cursor->file.path, static_cast<int>(cursor->kind[r]));
        }
      }
    }
    if (cursor->file.deletion_vector) {
      cursor->row_number = static_cast<const int64_t*>(duckdb_vector_get_data(c.column(cursor->row_number_column)));
    }
    cursor->state = std::move(state);
    cursor->pos = 0;
    return true;
  }
}

namespace {

// Points the output vectors at the selected rows of a chunk; returns how many.
Result<size_t> EmitChunk(ColumnarSplitReader::ChunkState& state, std::span<const duckdb_vector> vectors, size_t capacity,
                         const std::string& table_name) {
  const size_t count = state.selected.size();
  if (count == 0) return size_t{0};
  if (count > capacity || state.size > capacity) {
    return Status::Internal("table {}: a chunk of {} rows does not fit an output of {}", table_name, state.size,
                            capacity);
  }
  if (vectors.empty()) return count;
  duckdb_selection_vector sel = nullptr;
  if (count < state.size) {
    sel = duckdb_create_selection_vector(count);
    std::memcpy(duckdb_selection_vector_get_data_ptr(sel), state.selected.data(), count * sizeof(sel_t));
  }
  for (size_t i = 0; i < vectors.size(); ++i) {
    duckdb_vector_reference_vector(vectors[i], state.chunk.column(i));
    // The dictionary shares the selection's buffer, so the handle can go right away.
    if (sel != nullptr) duckdb_slice_vector(vectors[i], sel, count);
  }
  if (sel != nullptr) duckdb_destroy_selection_vector(sel);
  return count;
}

}  // namespace

Result<size_t> ColumnarSplitReader::Next(std::span<const duckdb_vector> vectors, size_t capacity) {
  // DuckDB has consumed the vectors of the previous call by now.
  handed_out_.reset();
  return spec_->merge ? NextMerged(vectors, capacity) : NextConcatenated(vectors, capacity);
}

Result<size_t> ColumnarSplitReader::NextConcatenated(std::span<const duckdb_vector> vectors, size_t capacity) {
  while (next_file_ < cursors_.size()) {
    Cursor* cursor = cursors_[next_file_].get();
    TIDE_ASSIGN_OR_RETURN(bool more, Refill(cursor));
    if (!more) {
      cursors_[next_file_].reset();
      ++next_file_;
      continue;
    }
    ChunkState& state = *cursor->state;
    state.selected.clear();
    const DeletionVector* dv = cursor->file.deletion_vector ? &*cursor->file.deletion_vector : nullptr;
    for (idx_t r = 0; r < state.size; ++r) {
      if (dv != nullptr && dv->IsDeleted(cursor->row_number[r])) continue;
      if (cursor->kind != nullptr && IsRetract(static_cast<ValueKind>(cursor->kind[r]))) continue;
      state.selected.push_back(static_cast<sel_t>(r));
    }
    TIDE_ASSIGN_OR_RETURN(size_t n, EmitChunk(state, vectors, capacity, spec_->table_name));
    if (n > 0) return n;
  }
  return size_t{0};
}

bool ColumnarSplitReader::Less(const Cursor& a, const Cursor& b) const {
  for (size_t k = 0; k < a.int_keys.size(); ++k) {
    int c;
    if (a.int_keys[k] != nullptr) {
      int64_t x = a.int_keys[k][a.pos], y = b.int_keys[k][b.pos];
      c = (x > y) - (x < y);
    } else {
      c = CompareStrings(a.str_keys[k][a.pos], b.str_keys[k][b.pos]);
    }
    if (c != 0) return c < 0;
  }
  return SequenceOf(a) < SequenceOf(b);
}

int64_t ColumnarSplitReader::SequenceOf(const Cursor& c) const {
  return use_sequence_ ? c.sequence[c.pos] : c.rank;
}

void ColumnarSplitReader::SiftDown(size_t i) {
  const size_t n = heap_.size();
  while (true) {
    size_t smallest = i, l = 2 * i + 1, r = l + 1;
    if (l < n && Less(*heap_[l], *heap_[smallest])) smallest = l;
    if (r < n && Less(*heap_[r], *heap_[smallest])) smallest = r;
    if (smallest == i) return;
    std::swap(heap_[i], heap_[smallest]);
    i = smallest;
  }
}

bool ColumnarSplitReader::HasGroupKey(const Cursor& c) const {
  for (size_t k = 0; k < c.int_keys.size(); ++k) {
    if (c.int_keys[k] != nullptr) {
      if (c.int_keys[k][c.pos] != group_ints_[k]) return false;
    } else if (CompareStrings(c.str_keys[k][c.pos], group_strings_[k]) != 0) {
      return false;
    }
  }
  return true;
}

// The top cursor moves past its row. A chunk it leaves behind goes to done_ (its rows are all decided once
// the current key group is), and the cursor moves on to its next chunk at once, so that a key whose rows
// continue in the next chunk stays one group.
Status ColumnarSplitReader::AdvanceTop() {
  Cursor* c = heap_[0];
  if (++c->pos < c->state->size) {
    SiftDown(0);
    return Status::OK();
  }
  done_.push_back(std::move(c->state));
  TIDE_ASSIGN_OR_RETURN(bool more, Refill(c));
  if (!more) {
    heap_[0] = heap_.back();
    heap_.pop_back();
  }
  if (!heap_.empty()) SiftDown(0);
  return Status::OK();
}

Status ColumnarSplitReader::MergeUntilAChunkIsDone() {
  const size_t keys = spec_->key_fields.size();
  group_ints_.resize(keys);
  group_strings_.resize(keys);
  while (done_.empty() && !heap_.empty()) {
    Cursor* top = heap_[0];
    for (size_t k = 0; k < keys; ++k) {
      if (top->int_keys[k] != nullptr) {
        group_ints_[k] = top->int_keys[k][top->pos];
      } else {
        group_strings_[k] = top->str_keys[k][top->pos];  // its bytes stay in a chunk kept until handed out
      }
    }
    // The heap yields one key's rows oldest first (equal keys are ordered by sequence number or rank).
    NewestRow newest(spec_->ignore_delete);
    do {
      Cursor* c = heap_[0];
      newest.Offer(c->state.get(), c->pos, SequenceOf(*c), c->KindAt());
      TIDE_RETURN_IF_ERROR(AdvanceTop());
    } while (!heap_.empty() && HasGroupKey(*heap_[0]));
    newest.SelectIfLive();
  }
  return Status::OK();
}

// Moves the cursor of heads[i] past its row; a finished chunk goes to done_, a finished file leaves the
// heads (swapped with the last one, so heads are unordered). For the flat merge.
Status ColumnarSplitReader::AdvanceFlatHead(size_t i) {
  IntHead& head = heads_[i];
  Cursor* c = head.cursor;
  if (++c->pos >= c->state->size) {
    done_.push_back(std::move(c->state));
    TIDE_ASSIGN_OR_RETURN(bool more, Refill(c));
    if (!more) {
      heads_[i] = heads_.back();
      heads_.pop_back();
      return Status::OK();
    }
  }
  head.key = c->int_keys[0][c->pos];
  head.order = SequenceOf(*c);
  return Status::OK();
}

// MergeIntKeysUntilAChunkIsDone for a few files: the heads sit unordered in a small array and each row
// is found by a scan for the smallest (key, order), whose compares the compiler turns into conditional
// moves; with a handful of runs this beats a heap, whose compares the CPU cannot predict.
Status ColumnarSplitReader::MergeFewIntKeysUntilAChunkIsDone() {
  while (done_.empty() && !heads_.empty()) {
    size_t best = 0;
    for (size_t i = 1; i < heads_.size(); ++i) {
      const IntHead& h = heads_[i];
      const IntHead& b = heads_[best];
      bool less = h.key < b.key || (h.key == b.key && h.order < b.order);
      best = less ? i : best;
    }
    const int64_t key = heads_[best].key;
    // Every row of the key, oldest first: each next one is the smallest order among heads still at it.
    NewestRow newest(spec_->ignore_delete);
    size_t at = best;
    while (at < heads_.size()) {
      const IntHead& h = heads_[at];
      newest.Offer(h.cursor->state.get(), h.cursor->pos, h.order, h.cursor->KindAt());
      TIDE_RETURN_IF_ERROR(AdvanceFlatHead(at));
      at = heads_.size();
      for (size_t i = 0; i < heads_.size(); ++i) {
        if (heads_[i].key == key && (at == heads_.size() || heads_[i].order < heads_[at].order)) at = i;
      }
    }
    newest.SelectIfLive();
  }
  return Status::OK();
}

Result<size_t> ColumnarSplitReader::NextMerged(std::span<const duckdb_vector> vectors, size_t capacity) {
  if (!started_) {
    started_ = true;
    flat_merge_ = single_int_key_ && cursors_.size() <= kFlatMergeMaxFiles;
    for (auto& cursor : cursors_) {
      TIDE_ASSIGN_OR_RETURN(bool more, Refill(cursor.get()));
      if (!more) continue;
      if (flat_merge_) {
        heads_.push_back(IntHead{cursor->int_keys[0][0], SequenceOf(*cursor), cursor.get()});
      } else {
        heap_.push_back(cursor.get());
      }
    }
    for (size_t i = heap_.size() / 2; i-- > 0;) SiftDown(i);
  }
  while (true) {
    while (!done_.empty()) {
      std::unique_ptr<ChunkState> state = std::move(done_.front());
      done_.pop_front();
      TIDE_ASSIGN_OR_RETURN(size_t n, EmitChunk(*state, vectors, capacity, spec_->table_name));
      if (n > 0) {
        handed_out_ = std::move(state);
        return n;
      }
    }
    if (flat_merge_) {
      if (heads_.empty()) return size_t{0};
      TIDE_RETURN_IF_ERROR(MergeFewIntKeysUntilAChunkIsDone());
    } else {
      if (heap_.empty()) return size_t{0};
      TIDE_RETURN_IF_ERROR(MergeUntilAChunkIsDone());
    }
  }
}

}  // namespace tide
