#include "tide/table/io/key_value_file_reader.h"

#include "tide/base/strings.h"
#include "tide/format/duckdb_handle.h"
#include "tide/types/cast.h"

namespace tide {
namespace {

constexpr size_t kFileBatchRows = 4096;

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

}  // namespace

Result<std::unique_ptr<KeyValueFileReader>> KeyValueFileReader::Open(KeyValueFileReadSpec spec) {
  auto reader = std::unique_ptr<KeyValueFileReader>(new KeyValueFileReader());
  reader->spec_ = std::move(spec);
  const KeyValueFileReadSpec& s = reader->spec_;
  const std::vector<DataField>& needed = *s.needed;
  const TableSchema& file_schema = *s.file_schema;
  std::vector<ParquetColumnSpec> columns;
  std::string filter_sql;
  std::vector<std::pair<size_t, Datum>> row_equals;
  for (size_t i = 0; i < needed.size(); ++i) {
    const DataField& field = needed[i];
    FieldSource src;
    int idx = file_schema.FieldIndexById(field.id);
    if (idx >= 0) {
      const DataField& ff = file_schema.fields[static_cast<size_t>(idx)];
      src.column = static_cast<int>(columns.size());
      src.file_type = ff.type;
      src.needs_cast = !ff.type.EqualsIgnoreNullable(field.type) &&
                       !(ff.type.IsNested() && ff.type.root() == field.type.root());
      if (src.needs_cast && !CanCast(ff.type, field.type)) {
        return Status::NotSupported("table {}: data file {} holds column '{}' as {}, which cannot be read as {}",
                                    s.table_name, s.path, ff.name, ff.type.ToString(), field.type.ToString());
      }
      // Nested types are read in the file's shape but with the read schema's nested fields.
      columns.push_back(ParquetColumnSpec{ff.name, ff.id, src.needs_cast ? ff.type : field.type.WithNullable(true)});
      if (s.key_filter != nullptr && !src.needs_cast) {
        // Pushed down so DuckDB skips row groups (files are sorted by key, so all but one or two), and
        // so Tide's reader builds only the key's rows.
        for (size_t k = 0; k < s.key_filter->positions.size(); ++k) {
          if (s.key_filter->positions[k] != static_cast<int>(i)) continue;
          if (!s.key_filter->values[k].is_null()) {
            row_equals.emplace_back(static_cast<size_t>(src.column), s.key_filter->values[k]);
          }
          std::string literal = KeyLiteral(s.key_filter->values[k], field.type);
          if (literal.empty()) continue;
          if (!filter_sql.empty()) filter_sql += " AND ";
          filter_sql += QuoteSqlIdentifier(ff.name) + " = " + literal;
        }
      }
    }
    reader->sources_.push_back(std::move(src));
  }
  reader->identity_ = true;
  for (size_t i = 0; i < reader->sources_.size(); ++i) {
    const FieldSource& src = reader->sources_[i];
    if (src.column != static_cast<int>(i) || src.needs_cast) reader->identity_ = false;
  }
  if (s.primary_key) {
    reader->seq_column_ = static_cast<int>(columns.size());
    columns.push_back(ParquetColumnSpec{"_SEQUENCE_NUMBER", 2147483646, DataType::BigInt(false)});
    reader->kind_column_ = static_cast<int>(columns.size());
    columns.push_back(ParquetColumnSpec{"_VALUE_KIND", 2147483645, DataType::TinyInt(false)});
  }
  DataFileReadOptions read_options;
  read_options.filter_sql = std::move(filter_sql);
  read_options.database = s.database;
  if (s.key_filter != nullptr) {
    // A point read takes a few rows of a few files: Tide's reader spares a DuckDB query per file.
    read_options.native = true;
    read_options.select_row_groups = s.select_row_groups;
    read_options.native_row_equals = std::move(row_equals);
  } else if (read_options.filter_sql.empty()) {
    // Every row of the file (compaction, merged reads): Tide's reader too. A compaction of a table that
    // takes a few changes a round reads many small files, and a DuckDB query per file (planning,
    // binding, its threads) cost more than the rows in them.
    read_options.native = true;
  }
  TIDE_ASSIGN_OR_RETURN(reader->reader_, OpenDataFile(s.path, columns, s.table_name, read_options));
  return reader;
}

Result<bool> KeyValueFileReader::Advance() {
  while (true) {
    ++index_;
    if (index_ < batch_.size()) {
      if (spec_.skip_position && spec_.skip_position(positions_[index_])) continue;
      TIDE_RETURN_IF_ERROR(Materialize());
      if (spec_.key_filter != nullptr && !MatchesKey()) continue;
      return true;
    }
    batch_.clear();
    positions_.clear();
    index_ = static_cast<size_t>(-1);
    TIDE_ASSIGN_OR_RETURN(bool more, reader_->NextBatch(kFileBatchRows, &batch_, &positions_));
    if (!more) return false;
  }
}

Status KeyValueFileReader::Materialize() {
  Row& raw = batch_[index_];
  if (spec_.primary_key) {
    current_.sequence = raw[static_cast<size_t>(seq_column_)].as_int();
    int64_t kind = raw[static_cast<size_t>(kind_column_)].as_int();
    if (kind < 0 || kind > 3) return Status::Corruption("data file {}: _VALUE_KIND {} is not a row kind", spec_.path, kind);
    current_.kind = static_cast<ValueKind>(kind);
  }
  if (identity_) {
    // The file's columns are the needed fields in order: the row is taken as it was read, without the
    // trailing _SEQUENCE_NUMBER and _VALUE_KIND (no allocation, no per-value copy).
    current_.row = std::move(raw);
    current_.row.resize(sources_.size());
    return Status::OK();
  }
  const std::vector<DataField>& needed = *spec_.needed;
  current_.row.assign(sources_.size(), Datum());
  for (size_t i = 0; i < sources_.size(); ++i) {
    const FieldSource& src = sources_[i];
    if (src.column < 0) continue;
    Datum& v = raw[static_cast<size_t>(src.column)];
    if (src.needs_cast) {
      auto cast = CastDatum(v, src.file_type, needed[i].type);
      if (!cast.ok()) {
        return cast.status().WithContext(fmt::format("data file {}, column '{}'", spec_.path, needed[i].name));
      }
      current_.row[i] = std::move(cast).value();
    } else {
      current_.row[i] = std::move(v);
    }
  }
  return Status::OK();
}

bool KeyValueFileReader::MatchesKey() const {
  const KeyFilter& filter = *spec_.key_filter;
  for (size_t k = 0; k < filter.positions.size(); ++k) {
    if (CompareDatum(current_.row[static_cast<size_t>(filter.positions[k])], filter.values[k]) != 0) return false;
  }
  return true;
}

}  // namespace tide
