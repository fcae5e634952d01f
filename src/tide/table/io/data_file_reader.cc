#include "tide/table/io/data_file_reader.h"

#include <mutex>

#include "tide/base/strings.h"
#include "tide/format/avro_data_file_reader.h"
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
    // Paimon data files never change once written (every file has a new name), so their Parquet
    // footers are cached: a point lookup opens a few files and would otherwise parse each footer again.
    TIDE_ASSIGN_OR_RETURN(DuckConnection conn, opened.Connect());
    TIDE_RETURN_IF_ERROR(conn.Execute("SET GLOBAL parquet_metadata_cache = true"));
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
