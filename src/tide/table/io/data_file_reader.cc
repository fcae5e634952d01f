#include "tide/table/io/data_file_reader.h"

#include <mutex>

#include "tide/base/strings.h"
#include "tide/format/avro_data_file_reader.h"
#include "tide/format/duckdb_type_mapping.h"
#include "tide/format/duckdb_vector_decoder.h"
#include "tide/format/parquet_chunk_reader.h"
#include "tide/format/parquet_reader.h"

namespace tide {
namespace {

class ParquetRowReader final : public DataFileRowReader {
 public:
  explicit ParquetRowReader(std::unique_ptr<ParquetFileReader> reader) : reader_(std::move(reader)) {}

  Result<bool> NextBatch(size_t max_rows, std::vector<Row>* rows, std::vector<int64_t>* positions) override {
    TIDE_ASSIGN_OR_RETURN(bool more, reader_->Next(&batch_));
    if (!more) return false;
    if (rows->empty() && positions->empty()) {
      // Hand the batch over whole; the caller's emptied vectors come back for the next one.
      rows->swap(batch_.rows);
      positions->swap(batch_.positions);
      return true;
    }
    for (size_t i = 0; i < batch_.size(); ++i) {
      rows->push_back(std::move(batch_.rows[i]));
      positions->push_back(batch_.positions[i]);
    }
    return true;
  }

 private:
  std::unique_ptr<ParquetFileReader> reader_;
  ParquetBatch batch_;
};

// Tide's own Parquet reader behind DataFileRowReader: rows decoded from its chunks (the requested
// columns, then the row number). A page it cannot decode (an encoding met mid-file) hands the rest of
// the file, from the first row not yet returned, to a DuckDB query.
class NativeParquetRowReader final : public DataFileRowReader {
 public:
  // NotSupported when the file or a column is outside the chunk reader's scope.
  static Result<std::unique_ptr<DataFileRowReader>> Open(const std::string& path,
                                                         const std::vector<ParquetColumnSpec>& columns,
                                                         const std::string& table_name,
                                                         const DataFileReadOptions& options) {
    for (const auto& [column, value] : options.native_row_equals) {
      if (column >= columns.size()) {
        return Status::InvalidArgument("table {}: a row filter names column {} of the {} read from {}", table_name,
                                       column, columns.size(), path);
      }
    }
    std::unique_ptr<NativeParquetRowReader> reader(new NativeParquetRowReader());
    reader->path_ = path;
    reader->columns_ = columns;
    reader->table_name_ = table_name;
    reader->database_ = options.database;
    std::vector<ParquetChunkColumn> chunk_columns;
    for (const ParquetColumnSpec& spec : columns) {
      ParquetChunkColumn c;
      c.name = spec.name;
      c.field_id = spec.field_id;
      auto type = DuckTypeFor(spec.type, spec.name);
      if (!type.ok()) return Status::NotSupported("{}", type.status().message());
      c.type = std::move(type).value();
      chunk_columns.push_back(std::move(c));
    }
    ParquetChunkColumn row_number;
    row_number.name = "file_row_number";
    row_number.row_number = true;
    row_number.type = DuckLogicalType(duckdb_create_logical_type(DUCKDB_TYPE_BIGINT));
    chunk_columns.push_back(std::move(row_number));
    for (size_t i = 0; i < columns.size(); ++i) {
      auto decoder = VectorDecoder::Create(chunk_columns[i].type.raw(), columns[i].type, nullptr, columns[i].name);
      if (!decoder.ok()) return Status::NotSupported("{}", decoder.status().message());
      reader->decoders_.push_back(std::move(decoder).value());
    }
    TIDE_ASSIGN_OR_RETURN(reader->native_, ParquetChunkReader::Open(path, std::move(chunk_columns)));
    if (options.select_row_groups) {
      TIDE_RETURN_IF_ERROR(reader->native_->SelectRowGroups(options.select_row_groups(reader->native_->footer())));
    }
    reader->row_equals_ = options.native_row_equals;
    return std::unique_ptr<DataFileRowReader>(std::move(reader));
  }

  Result<bool> NextBatch(size_t max_rows, std::vector<Row>* rows, std::vector<int64_t>* positions) override {
    if (rest_) return rest_->NextBatch(max_rows, rows, positions);
    Result<DuckDataChunk> next = native_->Next();
    if (!next.ok()) {
      if (!next.status().IsNotSupported()) return next.status().WithContext(fmt::format("table {}", table_name_));
      // With row groups left out, DuckDB reads the later ones too: more rows than needed, never fewer
      // (the caller checks its rows).
      DataFileReadOptions rest;
      rest.database = database_;
      rest.filter_sql = fmt::format("file_row_number >= {}", native_->next_position());
      native_.reset();
      TIDE_ASSIGN_OR_RETURN(rest_, OpenDataFile(path_, columns_, table_name_, rest));
      return rest_->NextBatch(max_rows, rows, positions);
    }
    const DuckDataChunk& chunk = *next;
    if (!chunk) return false;
    const idx_t n = chunk.size();
    const auto* numbers = static_cast<const int64_t*>(duckdb_vector_get_data(chunk.column(decoders_.size())));
    for (size_t c = 0; c < decoders_.size(); ++c) decoders_[c]->Bind(chunk.column(c));
    if (row_equals_.empty()) rows->reserve(rows->size() + n);
    for (idx_t r = 0; r < n; ++r) {
      bool passed_over = false;
      for (const auto& [column, value] : row_equals_) {
        if (CompareDatum(decoders_[column]->Get(r), value) != 0) {
          passed_over = true;
          break;
        }
      }
      if (passed_over) continue;
      positions->push_back(numbers[r]);
      Row& row = rows->emplace_back();
      row.reserve(decoders_.size());
      for (const auto& decoder : decoders_) row.push_back(decoder->Get(r));
    }
    return true;
  }

 private:
  NativeParquetRowReader() = default;

  std::string path_;
  std::vector<ParquetColumnSpec> columns_;
  std::string table_name_;
  const DuckDB* database_ = nullptr;
  std::unique_ptr<ParquetChunkReader> native_;
  std::vector<std::unique_ptr<VectorDecoder>> decoders_;
  std::vector<std::pair<size_t, Datum>> row_equals_;  // DataFileReadOptions::native_row_equals
  std::unique_ptr<DataFileRowReader> rest_;  // DuckDB, from the first row the chunk reader could not decode
};

class AvroRowReader final : public DataFileRowReader {
 public:
  explicit AvroRowReader(std::unique_ptr<AvroDataFileReader> reader) : reader_(std::move(reader)) {}

  Result<bool> NextBatch(size_t max_rows, std::vector<Row>* rows, std::vector<int64_t>* positions) override {
    return reader_->NextBatch(max_rows, rows, positions);
  }

 private:
  std::unique_ptr<AvroDataFileReader> reader_;
};

// The format of a data file, from its name as Java's reader takes it (not from the table's options: a
// table whose `file.format` changed holds files of both formats).
std::string DataFileFormat(const std::string& path) {
  size_t slash = path.rfind('/');
  size_t dot = path.rfind('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "unknown";
  return ToLower(path.substr(dot + 1));
}

}  // namespace

Result<const DuckDB*> DataFileDatabase() {
  static std::mutex mu;
  static std::unique_ptr<DuckDB> db;
  std::lock_guard<std::mutex> lock(mu);
  if (!db) {
    TIDE_ASSIGN_OR_RETURN(DuckDB opened, DuckDB::Open(":memory:"));
    // No cache of file contents or footers: both are kept per file name and never trimmed (DuckDB 1.4),
    // so in a long sync, where compaction keeps writing new files and deleting old ones, they only
    // grow. The files are local (the page cache serves re-reads), and point lookups, which open few
    // files often, read them with Tide's own reader (DataFileReadOptions::native).
    TIDE_ASSIGN_OR_RETURN(DuckConnection conn, opened.Connect());
    TIDE_RETURN_IF_ERROR(conn.Execute("SET GLOBAL enable_external_file_cache = false"));
    TIDE_RETURN_IF_ERROR(conn.Execute("SET GLOBAL parquet_metadata_cache = false"));
    db = std::make_unique<DuckDB>(std::move(opened));
  }
  return db.get();
}

Result<std::unique_ptr<DataFileRowReader>> OpenDataFile(const std::string& path,
                                                        const std::vector<ParquetColumnSpec>& columns,
                                                        const std::string& table_name,
                                                        const DataFileReadOptions& options) {
  const std::string format = DataFileFormat(path);
  if (format == "avro") {
    // No statistics to skip by: the whole file is decoded and `filter_sql` is left to the caller.
    auto reader = AvroDataFileReader::Open(path, columns);
    if (!reader.ok()) return reader.status().WithContext(fmt::format("table {}", table_name));
    if (!(*reader)->missing_columns().empty()) {
      return Status::Corruption("table {}: data file {} has no column '{}' although its schema lists it",
                                table_name, path, columns[(*reader)->missing_columns().front()].name);
    }
    return std::unique_ptr<DataFileRowReader>(new AvroRowReader(std::move(reader).value()));
  }
  if (format != "parquet") {
    return Status::NotSupported(
        "table {}: data file {} is in {} format, which Tide does not read (it reads Parquet and Avro data "
        "files); to convert the table, set 'file.format' = 'parquet' and run a full compaction with the engine "
        "that wrote it",
        table_name, path, format == "orc" ? "ORC" : format);
  }
  if (options.native) {
    auto native = NativeParquetRowReader::Open(path, columns, table_name, options);
    if (native.ok() || !native.status().IsNotSupported()) return native;
  }
  const DuckDB* db = options.database;
  if (db == nullptr) TIDE_ASSIGN_OR_RETURN(db, DataFileDatabase());
  ParquetReadOptions parquet_options;
  parquet_options.filter_sql = options.filter_sql;
  auto reader = ParquetFileReader::Open(*db, path, columns, std::move(parquet_options));
  if (!reader.ok()) return reader.status().WithContext(fmt::format("table {}", table_name));
  for (size_t missing : (*reader)->missing_columns()) {
    const std::string& name = columns[missing].name;
    // The schema the file was written with says it holds this column; a file without it is damaged.
    return Status::Corruption("table {}: data file {} has no column '{}' although its schema lists it",
                              table_name, path, name);
  }
  return std::unique_ptr<DataFileRowReader>(new ParquetRowReader(std::move(reader).value()));
}

}  // namespace tide
