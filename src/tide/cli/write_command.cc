#include "tide/cli/write_command.h"

#include <cstdint>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "tide/base/strings.h"
#include "tide/catalog/catalog.h"
#include "tide/format/duckdb_type_mapping.h"
#include "tide/format/duckdb_handle.h"
#include "tide/format/duckdb_vector_decoder.h"
#include "tide/io/file_system.h"
#include "tide/table/operation/file_store_commit.h"
#include "tide/base/uuid.h"
#include "tide/table/sink/table_write.h"

namespace tide::cli {

namespace {

int Fail(std::ostream& err, const Status& status) {
  err << "Error: " << status.message() << std::endl;
  return 1;
}

Result<RowKind> ParseRowKind(std::string_view text, int64_t row_number) {
  std::string_view t = Trim(text);
  if (t == "+I") return RowKind::kInsert;
  if (t == "-U") return RowKind::kUpdateBefore;
  if (t == "+U") return RowKind::kUpdateAfter;
  if (t == "-D") return RowKind::kDelete;
  return Status::InvalidArgument("row {}: row kind '{}' is not one of +I, -U, +U, -D", row_number, text);
}

struct LoadResult {
  int64_t rows = 0;
  std::vector<int64_t> snapshot_ids;
};

Result<LoadResult> Load(const WriteCommandOptions& options) {
  TIDE_ASSIGN_OR_RETURN(TableIdentifier id, TableIdentifier::Parse(options.table));
  FileSystem* fs = FileSystem::Local();
  TIDE_ASSIGN_OR_RETURN(std::unique_ptr<Catalog> catalog, Catalog::Open(fs, options.warehouse));
  TIDE_ASSIGN_OR_RETURN(std::unique_ptr<Table> table, catalog->GetTable(id));
  const TableSchema& schema = table->latest_schema();
  TIDE_ASSIGN_OR_RETURN(bool input_exists, fs->Exists(options.input));
  if (!input_exists) return Status::NotFound("input file {} does not exist", options.input);

  std::string lower = ToLower(options.input);
  bool parquet = EndsWith(lower, ".parquet") || EndsWith(lower, ".parq");
  std::string source = fmt::format("{}({})", parquet ? "read_parquet" : "read_csv_auto", QuoteSqlString(options.input));
  TIDE_ASSIGN_OR_RETURN(DuckDB db, DuckDB::Open(":memory:", {{"threads", "1"}}));
  TIDE_ASSIGN_OR_RETURN(DuckConnection conn, db.Connect());

  // The file's columns, matched to the table's by name.
  TIDE_ASSIGN_OR_RETURN(DuckResult probe, conn.Query(fmt::format("SELECT * FROM {} LIMIT 0", source)));
  std::vector<std::string> file_columns;
  for (idx_t i = 0; i < probe.column_count(); ++i) file_columns.push_back(probe.column_name(i));
  std::optional<size_t> kind_index;
  std::vector<int> file_index_of_field(schema.fields.size(), -1);
  for (size_t c = 0; c < file_columns.size(); ++c) {
    if (!options.row_kind_column.empty() && ToLower(file_columns[c]) == ToLower(options.row_kind_column)) {
      kind_index = c;
      continue;
    }
    int field = -1;
    for (size_t f = 0; f < schema.fields.size(); ++f) {
      if (ToLower(schema.fields[f].name) == ToLower(file_columns[c])) field = static_cast<int>(f);
    }
    if (field < 0) {
      return Status::InvalidArgument("column {} of {} is not a column of table {} (columns: {}){}", file_columns[c],
                                     options.input, id.ToString(), Join(schema.FieldNames(), ", "),
                                     options.row_kind_column.empty() ? "; a row-kind column needs --row-kind-column" : "");
    }
    file_index_of_field[static_cast<size_t>(field)] = static_cast<int>(c);
  }
  if (!options.row_kind_column.empty() && !kind_index) {
    return Status::InvalidArgument("{} has no row-kind column {}", options.input, options.row_kind_column);
  }
  std::string select;
  std::vector<size_t> selected_fields;  // table field per selected column (before the row kind)
  for (size_t f = 0; f < schema.fields.size(); ++f) {
    const DataField& field = schema.fields[f];
    int c = file_index_of_field[f];
    if (c < 0) {
      if (!field.type.nullable()) {
        return Status::InvalidArgument("{} has no column {}, which table {} needs (NOT NULL)", options.input,
                                       field.name, id.ToString());
      }
      continue;
    }
    std::string column = QuoteSqlIdentifier(file_columns[static_cast<size_t>(c)]);
    // Atomic types are cast to their DuckDB type before decoding; nested ones (no SQL name) are decoded
    // from the file's own LIST/MAP/STRUCT.
    const std::string cast = DuckTypeSqlName(field.type);
    if (!select.empty()) select += ", ";
    select += cast.empty() ? column : fmt::format("CAST({} AS {})", column, cast);
    selected_fields.push_back(f);
  }
  if (kind_index) {
    if (!select.empty()) select += ", ";
    select += fmt::format("CAST({} AS VARCHAR)", QuoteSqlIdentifier(file_columns[*kind_index]));
  }
  if (select.empty()) return Status::InvalidArgument("{} has no column of table {}", options.input, id.ToString());
  if (!parquet) {
    // A CSV value bound for a string column is kept as written: left to DuckDB's type detection,
    // '007' would load as '7' and '2026-12-01 10:00' as '2026-12-01 10:00:00'.
    std::vector<std::string> as_text;
    for (size_t f = 0; f < schema.fields.size(); ++f) {
      int c = file_index_of_field[f];
      if (c >= 0 && schema.fields[f].type.IsString()) {
        as_text.push_back(fmt::format("{}: 'VARCHAR'", QuoteSqlString(file_columns[static_cast<size_t>(c)])));
      }
    }
    if (!as_text.empty()) {
      source = fmt::format("read_csv_auto({}, types = {{{}}})", QuoteSqlString(options.input), Join(as_text, ", "));
    }
  }

  TIDE_ASSIGN_OR_RETURN(DuckResult result, conn.QueryStreaming(fmt::format("SELECT {} FROM {}", select, source)));
  std::vector<std::unique_ptr<VectorDecoder>> decoders;
  for (size_t i = 0; i < selected_fields.size(); ++i) {
    const DataField& field = schema.fields[selected_fields[i]];
    DuckLogicalType type = result.column_logical_type(i);
    TIDE_ASSIGN_OR_RETURN(auto decoder, VectorDecoder::Create(type.raw(), field.type, nullptr, field.name));
    decoders.push_back(std::move(decoder));
  }
  std::unique_ptr<VectorDecoder> kind_decoder;
  if (kind_index) {
    DuckLogicalType type = result.column_logical_type(selected_fields.size());
    TIDE_ASSIGN_OR_RETURN(kind_decoder, VectorDecoder::Create(type.raw(), DataType::String(), nullptr,
                                                              options.row_kind_column));
  }

  std::string commit_user = RandomUuidString();
  TIDE_ASSIGN_OR_RETURN(std::unique_ptr<TableWrite> writer,
                        TableWrite::Create(fs, table->path(), schema, commit_user));
  LoadResult loaded;
  auto write_all = [&]() -> Status {
    while (true) {
      DuckDataChunk chunk = result.FetchChunk();
      if (!chunk) break;
      for (size_t i = 0; i < decoders.size(); ++i) decoders[i]->Bind(chunk.column(i));
      if (kind_decoder) kind_decoder->Bind(chunk.column(decoders.size()));
      for (idx_t r = 0; r < chunk.size(); ++r) {
        ++loaded.rows;
        Row row(schema.fields.size());
        for (size_t i = 0; i < decoders.size(); ++i) row[selected_fields[i]] = decoders[i]->Get(r);
        RowKind kind = RowKind::kInsert;
        if (kind_decoder) {
          Datum k = kind_decoder->Get(r);
          if (k.is_null()) return Status::InvalidArgument("row {}: the row kind is empty", loaded.rows);
          TIDE_ASSIGN_OR_RETURN(kind, ParseRowKind(DatumToString(k, DataType::String()), loaded.rows));
        }
        Status written = writer->Write(kind, std::move(row));
        if (!written.ok()) return written.WithContext(fmt::format("row {} of {}", loaded.rows, options.input));
      }
    }
    return result.error();
  };
  Status status = write_all();
  if (!status.ok()) {
    writer->Abort();
    return status;
  }
  Result<std::vector<CommitMessage>> messages = writer->PrepareCommit();
  if (!messages.ok()) {
    writer->Abort();
    return messages.status();
  }
  TIDE_ASSIGN_OR_RETURN(std::unique_ptr<FileStoreCommit> committer,
                        FileStoreCommit::Create(fs, table->path(), id.ToString()));
  CommitOptions commit_options;
  commit_options.commit_user = commit_user;
  // Java's batch writes commit with identifier Long.MAX_VALUE.
  commit_options.commit_identifier = std::numeric_limits<int64_t>::max();
  TIDE_ASSIGN_OR_RETURN(CommitResult committed, committer->Commit(*messages, commit_options));
  loaded.snapshot_ids = committed.snapshot_ids;
  return loaded;
}

}  // namespace

int RunWriteCommand(const WriteCommandOptions& options, std::ostream& out, std::ostream& err) {
  Result<LoadResult> loaded = Load(options);
  if (!loaded.ok()) return Fail(err, loaded.status());
  if (loaded->snapshot_ids.empty()) {
    out << "Wrote " << loaded->rows << " rows to " << options.table << ": nothing to commit\n";
  } else {
    out << "Wrote " << loaded->rows << " rows to " << options.table << " in snapshot " << loaded->snapshot_ids.back()
        << '\n';
  }
  return 0;
}

void RegisterWrite(CLI::App& app) {
  auto options = std::make_shared<WriteCommandOptions>();
  CLI::App* command = app.add_subcommand("write", "Load a CSV or Parquet file into a table as one commit");
  command->add_option("--warehouse", options->warehouse, "Warehouse folder (holds <database>.db/<table>/)")
      ->required();
  command->add_option("--table", options->table, "The table, <database>.<table>")->required();
  command->add_option("--input", options->input, "A CSV file, or a Parquet file (*.parquet)")->required();
  command->add_option("--row-kind-column", options->row_kind_column,
                      "A column of the file holding +I, -U, +U or -D per row (default: every row +I)");
  command->callback([options]() {
    int code = RunWriteCommand(*options, std::cout, std::cerr);
    if (code != 0) throw CLI::RuntimeError(code);
  });
}

}  // namespace tide::cli
