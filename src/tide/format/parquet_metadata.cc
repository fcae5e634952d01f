#include "tide/format/parquet_metadata.h"

#include <cstring>
#include <map>
#include <optional>
#include <utility>

#include "tide/base/bytes.h"
#include "tide/format/parquet_footer.h"
#include "tide/io/file_system.h"

namespace tide {
namespace {

// One row of parquet_schema(), flattened.
struct SchemaRow {
  ParquetFileColumn column;
  int64_t num_children = 0;
};

std::optional<std::string> CellString(duckdb_vector vector, idx_t row) {
  uint64_t* validity = duckdb_vector_get_validity(vector);
  if (validity != nullptr && !duckdb_validity_row_is_valid(validity, row)) return std::nullopt;
  auto* s = static_cast<duckdb_string_t*>(duckdb_vector_get_data(vector)) + row;
  return std::string(duckdb_string_t_data(s), duckdb_string_t_length(*s));
}

// REQUIRES: the column is BIGINT (the queries below cast to it).
std::optional<int64_t> CellInt(duckdb_vector vector, idx_t row) {
  uint64_t* validity = duckdb_vector_get_validity(vector);
  if (validity != nullptr && !duckdb_validity_row_is_valid(validity, row)) return std::nullopt;
  return static_cast<int64_t*>(duckdb_vector_get_data(vector))[row];
}

std::optional<int32_t> ToInt32(std::optional<int64_t> v) {
  if (!v) return std::nullopt;
  return static_cast<int32_t>(*v);
}

// Rebuilds the schema tree from parquet_schema()'s pre-order rows. `*next` is the row to consume.
Status BuildTree(std::vector<SchemaRow>& rows, size_t* next, int64_t count, std::vector<ParquetFileColumn>* out,
                 const std::string& path, int depth) {
  if (depth > 64) return Status::Corruption("Parquet file {}: schema nests deeper than 64 levels", path);
  for (int64_t i = 0; i < count; ++i) {
    if (*next >= rows.size()) {
      return Status::Corruption("Parquet file {}: schema declares more children than it has elements", path);
    }
    SchemaRow& row = rows[(*next)++];
    ParquetFileColumn column = std::move(row.column);
    if (row.num_children > 0) {
      TIDE_RETURN_IF_ERROR(BuildTree(rows, next, row.num_children, &column.children, path, depth + 1));
    }
    out->push_back(std::move(column));
  }
  return Status::OK();
}

}  // namespace

const ParquetFileColumn* ParquetFileInfo::FindColumn(const std::string& name,
                                                     std::optional<int32_t> field_id) const {
  if (field_id) {
    for (const ParquetFileColumn& c : columns) {
      if (c.field_id == field_id) return &c;
    }
  }
  for (const ParquetFileColumn& c : columns) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

Status ParquetReadError(const std::string& path, const Status& duckdb_error) {
  switch (duckdb_error.code()) {
    case StatusCode::kAborted:
    case StatusCode::kUnavailable:
      return duckdb_error.WithContext("reading Parquet file " + path);
    default:
      return Status::Corruption("Parquet file {} is corrupt or unreadable: {}", path, duckdb_error.message());
  }
}

namespace {

std::string SqlPathList(const std::vector<std::string>& paths) {
  std::string list = "[";
  for (size_t i = 0; i < paths.size(); ++i) {
    if (i > 0) list += ", ";
    list += QuoteSqlString(paths[i]);
  }
  return list + "]";
}

// Names one file in errors about a query over several.
std::string FilesForError(const std::vector<std::string>& paths) {
  if (paths.size() == 1) return paths[0];
  return fmt::format("{} (or one of {} others)", paths[0], paths.size() - 1);
}

}  // namespace

Result<std::vector<ParquetFileInfo>> ReadParquetFileInfosWithDuckDB(DuckConnection& conn,
                                                                    const std::vector<std::string>& paths) {
  std::vector<ParquetFileInfo> infos(paths.size());
  if (paths.empty()) return infos;
  std::map<std::string, size_t> index_of;
  for (size_t i = 0; i < paths.size(); ++i) {
    TIDE_RETURN_IF_ERROR(ReadParquetFooter(paths[i]).status());
    infos[i].path = paths[i];
    index_of.emplace(paths[i], i);
  }
  const std::string list = SqlPathList(paths);
  const std::string error_name = FilesForError(paths);
  std::vector<bool> seen(paths.size(), false);
  {
    auto result = conn.Query(
        "SELECT file_name, created_by, CAST(num_rows AS BIGINT), CAST(num_row_groups AS BIGINT), "
        "CAST(file_size_bytes AS BIGINT) FROM parquet_file_metadata(" + list + ")");
    if (!result.ok()) return ParquetReadError(error_name, result.status());
    while (DuckDataChunk chunk = result->FetchChunk()) {
      for (idx_t r = 0; r < chunk.size(); ++r) {
        auto it = index_of.find(CellString(chunk.column(0), r).value_or(""));
        if (it == index_of.end()) return Status::Internal("DuckDB reported metadata for a file Tide did not ask for");
        ParquetFileInfo& info = infos[it->second];
        info.created_by = CellString(chunk.column(1), r).value_or("");
        info.num_rows = CellInt(chunk.column(2), r).value_or(0);
        info.num_row_groups = CellInt(chunk.column(3), r).value_or(0);
        info.file_size = CellInt(chunk.column(4), r).value_or(0);
        seen[it->second] = true;
      }
    }
    TIDE_RETURN_IF_ERROR(result->error());
  }
  for (size_t i = 0; i < paths.size(); ++i) {
    if (!seen[i]) return Status::Corruption("Parquet file {}: DuckDB returned no footer for it", paths[i]);
  }
  std::vector<std::vector<SchemaRow>> rows(paths.size());
  {
    auto result = conn.Query(
        "SELECT file_name, name, type, TRY_CAST(type_length AS BIGINT), repetition_type, "
        "CAST(num_children AS BIGINT), converted_type, CAST(scale AS BIGINT), CAST(precision AS BIGINT), "
        "CAST(field_id AS BIGINT), logical_type, duckdb_type FROM parquet_schema(" + list + ")");
    if (!result.ok()) return ParquetReadError(error_name, result.status());
    while (DuckDataChunk chunk = result->FetchChunk()) {
      for (idx_t r = 0; r < chunk.size(); ++r) {
        auto it = index_of.find(CellString(chunk.column(0), r).value_or(""));
        if (it == index_of.end()) return Status::Internal("DuckDB reported a schema for a file Tide did not ask for");
        SchemaRow row;
        row.column.name = CellString(chunk.column(1), r).value_or("");
        row.column.physical_type = CellString(chunk.column(2), r).value_or("");
        row.column.type_length = ToInt32(CellInt(chunk.column(3), r));
        row.column.repetition = CellString(chunk.column(4), r).value_or("");
        row.num_children = CellInt(chunk.column(5), r).value_or(0);
        row.column.converted_type = CellString(chunk.column(6), r).value_or("");
        row.column.scale = ToInt32(CellInt(chunk.column(7), r));
        row.column.precision = ToInt32(CellInt(chunk.column(8), r));
        row.column.field_id = ToInt32(CellInt(chunk.column(9), r));
        row.column.logical_type = CellString(chunk.column(10), r).value_or("");
        row.column.duckdb_type = CellString(chunk.column(11), r).value_or("");
        rows[it->second].push_back(std::move(row));
      }
    }
    TIDE_RETURN_IF_ERROR(result->error());
  }
  for (size_t i = 0; i < paths.size(); ++i) {
    std::vector<SchemaRow>& file_rows = rows[i];
    if (file_rows.empty()) return Status::Corruption("Parquet file {}: the schema is empty", paths[i]);
    infos[i].root_name = file_rows[0].column.name;
    size_t next = 1;
    TIDE_RETURN_IF_ERROR(BuildTree(file_rows, &next, file_rows[0].num_children, &infos[i].columns, paths[i], 0));
    if (next != file_rows.size()) {
      return Status::Corruption("Parquet file {}: the schema has {} elements its root does not reach", paths[i],
                                file_rows.size() - next);
    }
  }
  return infos;
}

Result<ParquetFileInfo> ReadParquetFileInfoWithDuckDB(DuckConnection& conn, const std::string& path) {
  TIDE_ASSIGN_OR_RETURN(std::vector<ParquetFileInfo> infos, ReadParquetFileInfosWithDuckDB(conn, {path}));
  return std::move(infos[0]);
}

namespace {

// Builds the column tree from the footer's pre-order schema. `*next` is the element to consume.
Status BuildFromFooter(const std::vector<ParquetSchemaElement>& schema, size_t* next, int32_t count,
                       std::vector<ParquetFileColumn>* out, const std::string& path, int depth) {
  if (depth > 64) return Status::Corruption("Parquet file {}: schema nests deeper than 64 levels", path);
  for (int32_t i = 0; i < count; ++i) {
    if (*next >= schema.size()) {
      return Status::Corruption("Parquet file {}: schema declares more children than it has elements", path);
    }
    const ParquetSchemaElement& e = schema[(*next)++];
    ParquetFileColumn column;
    column.name = e.name;
    column.field_id = e.field_id;
    if (e.num_children == 0) {
      if (!e.type) return Status::Corruption("Parquet file {}: leaf column {} has no type", path, e.name);
      column.physical_type = ParquetPhysicalTypeName(*e.type);
    }
    column.type_length = e.type_length;
    column.repetition = e.repetition ? ParquetRepetitionName(*e.repetition) : std::string("REQUIRED");
    column.converted_type = e.converted_type ? ParquetConvertedTypeName(*e.converted_type) : std::string();
    column.logical_type = e.logical_type;
    column.precision = e.precision;
    column.scale = e.scale;
    if (e.num_children > 0) {
      TIDE_RETURN_IF_ERROR(BuildFromFooter(schema, next, e.num_children, &column.children, path, depth + 1));
    }
    out->push_back(std::move(column));
  }
  return Status::OK();
}

}  // namespace

Result<ParquetFileInfo> ReadParquetFileInfo(const std::string& path) {
  TIDE_ASSIGN_OR_RETURN(ParquetFooter footer, ReadParquetFooter(path));
  ParquetFileInfo info;
  info.path = path;
  info.num_rows = footer.num_rows;
  info.num_row_groups = static_cast<int64_t>(footer.row_groups.size());
  info.file_size = static_cast<int64_t>(footer.file_size);
  info.created_by = footer.created_by;
  info.root_name = footer.schema[0].name;
  size_t next = 1;
  TIDE_RETURN_IF_ERROR(BuildFromFooter(footer.schema, &next, footer.schema[0].num_children, &info.columns, path, 0));
  if (next != footer.schema.size()) {
    return Status::Corruption("Parquet file {}: the schema has {} elements its root does not reach", path,
                              footer.schema.size() - next);
  }
  return info;
}

Result<std::vector<ParquetFileInfo>> ReadParquetFileInfos(const std::vector<std::string>& paths) {
  std::vector<ParquetFileInfo> infos;
  infos.reserve(paths.size());
  for (const std::string& path : paths) {
    TIDE_ASSIGN_OR_RETURN(ParquetFileInfo info, ReadParquetFileInfo(path));
    infos.push_back(std::move(info));
  }
  return infos;
}

Result<int64_t> ReadParquetRowCount(const std::string& path) {
  TIDE_ASSIGN_OR_RETURN(ParquetFooter footer, ReadParquetFooter(path));
  return footer.num_rows;
}

}  // namespace tide
