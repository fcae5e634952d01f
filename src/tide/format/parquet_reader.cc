#include "tide/format/parquet_reader.h"

#include <strings.h>

#include <utility>

#include "tide/format/duckdb_vector_decoder.h"

namespace tide {

// How one requested column is read.
struct ParquetFileReader::ColumnPlan {
  bool missing = true;                       // no file has it: always NULL
  std::string physical_name;                 // its name in the files
  const ParquetFileColumn* file_column = nullptr;  // its schema node in the first file that has it
  idx_t result_index = 0;                    // its column in the DuckDB result
  std::unique_ptr<VectorDecoder> decoder;
  std::vector<uint8_t> exact_int96;          // per file: stored as top-level INT96, decoded by Tide
};

std::string ReadParquetCall(const std::vector<std::string>& paths, bool union_by_name) {
  std::string call = "read_parquet([";
  for (size_t i = 0; i < paths.size(); ++i) {
    if (i > 0) call += ", ";
    call += QuoteSqlString(paths[i]);
  }
  // Paimon's partition directories (dt=2024-01-01/) must not become columns; binary stays BLOB.
  call += "], hive_partitioning = false, binary_as_string = false";
  if (union_by_name) call += ", union_by_name = true";
  return call + ")";
}

ParquetFileReader::~ParquetFileReader() = default;

Result<std::unique_ptr<ParquetFileReader>> ParquetFileReader::Open(const DuckDB& db, const std::string& path,
                                                                   std::vector<ParquetColumnSpec> columns,
                                                                   ParquetReadOptions options) {
  return OpenImpl(db, {path}, std::move(columns), std::move(options));
}

Result<std::unique_ptr<ParquetFileReader>> ParquetFileReader::OpenMany(const DuckDB& db,
                                                                       const std::vector<std::string>& paths,
                                                                       std::vector<ParquetColumnSpec> columns,
                                                                       ParquetReadOptions options) {
  if (paths.empty()) return Status::InvalidArgument("OpenMany needs at least one Parquet file");
  return OpenImpl(db, paths, std::move(columns), std::move(options));
}

Result<std::unique_ptr<ParquetFileReader>> ParquetFileReader::OpenImpl(const DuckDB& db,
                                                                       std::vector<std::string> paths,
                                                                       std::vector<ParquetColumnSpec> columns,
                                                                       ParquetReadOptions options) {
  std::unique_ptr<ParquetFileReader> reader(new ParquetFileReader());
  reader->paths_ = std::move(paths);
  reader->columns_ = std::move(columns);
  reader->options_ = std::move(options);
  TIDE_ASSIGN_OR_RETURN(reader->conn_, db.Connect());
  TIDE_ASSIGN_OR_RETURN(reader->infos_, ReadParquetFileInfos(reader->paths_));
  TIDE_RETURN_IF_ERROR(reader->Start());
  return reader;
}

std::string ParquetFileReader::FileNameForError() const {
  if (paths_.size() == 1) return paths_[0];
  return fmt::format("{} (or one of the {} other files of the scan)", paths_[0], paths_.size() - 1);
}

Status ParquetFileReader::Start() {
  // DuckDB binds column names case-insensitively and offers file_row_number / file_index as virtual
  // columns: a file whose own column names would make either ambiguous is refused rather than misread.
  for (const ParquetFileInfo& info : infos_) {
    for (size_t i = 0; i < info.columns.size(); ++i) {
      const std::string& name = info.columns[i].name;
      if (strcasecmp(name.c_str(), "file_row_number") == 0 || strcasecmp(name.c_str(), "file_index") == 0) {
        return Status::NotSupported("Parquet file {} has a column named {}, which Tide's DuckDB scan reserves",
                                    info.path, name);
      }
      for (size_t j = 0; j < i; ++j) {
        if (strcasecmp(name.c_str(), info.columns[j].name.c_str()) == 0) {
          return Status::NotSupported(
              "Parquet file {} has columns {} and {}, whose names differ only in case; Tide's DuckDB scan "
              "cannot tell them apart",
              info.path, info.columns[j].name, name);
        }
      }
    }
  }
  plans_.clear();
  plans_.resize(columns_.size());
  missing_.clear();
  std::string select;
  idx_t next_result = 0;
  for (size_t c = 0; c < columns_.size(); ++c) {
    const ParquetColumnSpec& spec = columns_[c];
    ColumnPlan& plan = plans_[c];
    plan.exact_int96.assign(paths_.size(), 0);
    for (size_t f = 0; f < infos_.size(); ++f) {
      const ParquetFileColumn* found = infos_[f].FindColumn(spec.name, spec.field_id);
      if (found == nullptr) continue;
      if (plan.missing) {
        plan.missing = false;
        plan.physical_name = found->name;
        plan.file_column = found;
      } else if (found->name != plan.physical_name) {
        return Status::InvalidArgument(
            "column {} is stored as {} in {} but as {} in {}: files with different schemas cannot be read in "
            "one scan; read them one by one",
            spec.name, plan.physical_name, paths_[0], found->name, paths_[f]);
      }
      if (options_.exact_int96 && found->physical_type == "INT96" && found->repetition != "REPEATED" &&
          spec.type.IsTimestamp()) {
        plan.exact_int96[f] = 1;
      }
    }
    if (plan.missing) {
      missing_.push_back(c);
      continue;
    }
    plan.result_index = next_result++;
    select += QuoteSqlIdentifier(plan.physical_name);
    select += ", ";
  }
  std::string sql = "SELECT " + select + "file_row_number, file_index FROM " + ReadParquetCall(paths_, paths_.size() > 1);
  if (!options_.filter_sql.empty()) sql += " WHERE " + options_.filter_sql;

  int64_t total_rows = 0;
  for (const ParquetFileInfo& info : infos_) total_rows += info.num_rows;
  auto result = total_rows <= options_.materialize_max_rows ? conn_.Query(sql) : conn_.QueryStreaming(sql);
  if (!result.ok()) {
    // A bad filter is the caller's mistake, not the file's.
    if (!options_.filter_sql.empty() && result.status().IsInvalidArgument() &&
        result.status().message().find("Binder Error") != std::string::npos) {
      return Status::InvalidArgument("Parquet filter `{}` on {}: {}", options_.filter_sql, FileNameForError(),
                                     result.status().message());
    }
    return ParquetReadError(FileNameForError(), result.status());
  }
  result_ = std::move(result).value();
  for (size_t c = 0; c < columns_.size(); ++c) {
    ColumnPlan& plan = plans_[c];
    if (plan.missing) continue;
    DuckLogicalType type = result_.column_logical_type(plan.result_index);
    TIDE_ASSIGN_OR_RETURN(plan.decoder,
                          VectorDecoder::Create(type.raw(), columns_[c].type, plan.file_column, columns_[c].name));
  }
  return Status::OK();
}

Result<const Int96Column*> ParquetFileReader::Int96For(size_t column, uint32_t file_index) {
  if (file_index != int96_file_) {
    // Rows arrive file by file, so only the current file's values are kept.
    int96_.clear();
    int96_file_ = file_index;
  }
  auto it = int96_.find(column);
  if (it == int96_.end()) {
    const std::string& path = paths_[file_index];
    TIDE_ASSIGN_OR_RETURN(Int96Column values, ReadInt96Column(path, plans_[column].physical_name));
    if (static_cast<int64_t>(values.size()) != infos_[file_index].num_rows) {
      return Status::Corruption("Parquet file {}: column {} holds {} values but the footer declares {} rows", path,
                                plans_[column].physical_name, values.size(), infos_[file_index].num_rows);
    }
    it = int96_.emplace(column, std::move(values)).first;
  }
  return &it->second;
}

Status ParquetFileReader::FillBatch(const DuckDataChunk& chunk, ParquetBatch* batch) {
  const idx_t n = chunk.size();
  const idx_t position_column = chunk.column_count() - 2;
  const auto* positions = static_cast<const int64_t*>(duckdb_vector_get_data(chunk.column(position_column)));
  const auto* files = static_cast<const uint64_t*>(duckdb_vector_get_data(chunk.column(position_column + 1)));
  for (ColumnPlan& plan : plans_) {
    if (!plan.missing) plan.decoder->Bind(chunk.column(plan.result_index));
  }
  batch->rows.reserve(n);
  batch->positions.resize(n);
  batch->file_indexes.resize(n);
  for (idx_t r = 0; r < n; ++r) {
    if (files[r] >= paths_.size()) return Status::Internal("DuckDB returned file index {} of {}", files[r], paths_.size());
    batch->positions[r] = positions[r];
    batch->file_indexes[r] = static_cast<uint32_t>(files[r]);
    // Values are constructed in place: this loop is the reader's hot path.
    Row& row = batch->rows.emplace_back();
    row.reserve(plans_.size());
    for (const ColumnPlan& plan : plans_) {
      if (plan.missing) {
        row.emplace_back();
      } else {
        row.push_back(plan.decoder->Get(r));
      }
    }
  }
  // Replace DuckDB's microsecond reading of INT96 columns with the exact values.
  for (size_t c = 0; c < plans_.size(); ++c) {
    const ColumnPlan& plan = plans_[c];
    if (plan.missing) continue;
    for (idx_t r = 0; r < n; ++r) {
      uint32_t file = batch->file_indexes[r];
      if (!plan.exact_int96[file]) continue;
      TIDE_ASSIGN_OR_RETURN(const Int96Column* values, Int96For(c, file));
      int64_t pos = batch->positions[r];
      if (pos < 0 || static_cast<size_t>(pos) >= values->size()) {
        return Status::Corruption("Parquet file {}: row position {} is past the {} values of column {}",
                                  paths_[file], pos, values->size(), plan.physical_name);
      }
      Datum& cell = batch->rows[r][c];
      if (!values->valid[pos]) {
        cell = Datum();
      } else {
        cell = Datum(TruncateTimestamp(values->values[pos], columns_[c].type.precision()));
      }
    }
  }
  return Status::OK();
}

Result<bool> ParquetFileReader::Next(ParquetBatch* batch) {
  batch->Clear();
  if (done_) return false;
  DuckDataChunk chunk = result_.FetchChunk();
  if (!chunk) {
    done_ = true;
    Status error = result_.error();
    if (!error.ok()) return ParquetReadError(FileNameForError(), error);
    return false;
  }
  TIDE_RETURN_IF_ERROR(FillBatch(chunk, batch));
  return true;
}

Result<std::vector<Row>> ParquetFileReader::ReadAll(std::vector<int64_t>* positions,
                                                    std::vector<uint32_t>* file_indexes) {
  std::vector<Row> rows;
  ParquetBatch batch;
  while (true) {
    TIDE_ASSIGN_OR_RETURN(bool more, Next(&batch));
    if (!more) break;
    for (size_t i = 0; i < batch.size(); ++i) {
      rows.push_back(std::move(batch.rows[i]));
      if (positions != nullptr) positions->push_back(batch.positions[i]);
      if (file_indexes != nullptr) file_indexes->push_back(batch.file_indexes[i]);
    }
  }
  return rows;
}

}  // namespace tide
