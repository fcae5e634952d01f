#include "tide/sql/paimon_scan.h"

#include <string>
#include <vector>

#include "tide/sql/duckdb_table_function.h"
#include "tide/sql/duckdb_type_mapping.h"
#include "tide/sql/duckdb_vector_writer.h"
#include "tide/sql/sql_table_name.h"

namespace tide {

namespace {

struct ScanBindData {
  TableIdentifier id;
  SnapshotSelector selector;
  std::vector<DataField> fields;  // the read schema's fields, in column order
};

struct ScanState {
  std::unique_ptr<TableReader> reader;
  // For each output column: the index into the reader's row, or -1 for a column DuckDB asked for that
  // is not a table column (the row id of a count(*)); such a column is all NULL.
  std::vector<int> row_index;
  std::vector<int> field_index;  // the read-schema field of each output column, or -1
  std::vector<Row> rows;
  bool done = false;
};

// Adds the table's name to an error that does not already carry it.
Status NameTheTable(const Status& status, const TableIdentifier& id) {
  if (status.ok() || status.message().find(id.ToString()) != std::string::npos) return status;
  return status.WithContext(fmt::format("reading table {}", id.ToString()));
}

const std::shared_ptr<const TableSource>& SourceOf(void* extra_info) {
  return *static_cast<std::shared_ptr<const TableSource>*>(extra_info);
}

Result<SnapshotSelector> BindSelector(duckdb_bind_info info) {
  SnapshotSelector selector;
  selector.snapshot_id = BindNamedInt64(info, "snapshot_id");
  selector.timestamp_ms = BindNamedInt64(info, "timestamp_ms");
  selector.tag = BindNamedString(info, "tag");
  int set = (selector.snapshot_id ? 1 : 0) + (selector.timestamp_ms ? 1 : 0) + (selector.tag ? 1 : 0);
  if (set > 1) {
    return Status::InvalidArgument(
        "paimon_scan: give at most one of snapshot_id, timestamp_ms and tag (they each pick a snapshot)");
  }
  return selector;
}

void Bind(duckdb_bind_info info) {
  GuardCallback(
      [&]() -> Status {
        const auto& source = SourceOf(duckdb_bind_get_extra_info(info));
        TIDE_ASSIGN_OR_RETURN(std::string name, BindStringParameter(info, 0, kPaimonScanFunction));
        TIDE_ASSIGN_OR_RETURN(TableIdentifier id, ParseSqlTableName(name));
        TIDE_ASSIGN_OR_RETURN(SnapshotSelector selector, BindSelector(info));
        TIDE_ASSIGN_OR_RETURN(TableSchema schema, source->ReadSchema(id, selector));
        auto data = std::make_unique<ScanBindData>();
        for (const DataField& field : schema.fields) {
          Result<DuckLogicalType> type = DuckTypeFor(field.type, field.name);
          if (!type.ok()) return type.status().WithContext(fmt::format("table {}", id.ToString()));
          duckdb_bind_add_result_column(info, field.name.c_str(), type->raw());
        }
        if (schema.fields.empty()) {
          return Status::NotSupported("table {} has no columns to read", id.ToString());
        }
        data->id = std::move(id);
        data->selector = std::move(selector);
        data->fields = std::move(schema.fields);
        duckdb_bind_set_bind_data(info, data.release(), [](void* p) { delete static_cast<ScanBindData*>(p); });
        return Status::OK();
      },
      [&](const char* error) { duckdb_bind_set_error(info, error); });
}

void Init(duckdb_init_info info) {
  GuardCallback(
      [&]() -> Status {
        const auto& source = SourceOf(duckdb_init_get_extra_info(info));
        const auto* bind = static_cast<const ScanBindData*>(duckdb_init_get_bind_data(info));
        auto state = std::make_unique<ScanState>();
        ReadOptions options;
        options.snapshot = bind->selector;
        options.all_columns = false;
        idx_t columns = duckdb_init_get_column_count(info);
        for (idx_t i = 0; i < columns; ++i) {
          idx_t index = duckdb_init_get_column_index(info, i);
          if (index < bind->fields.size()) {
            state->row_index.push_back(static_cast<int>(options.projection.size()));
            state->field_index.push_back(static_cast<int>(index));
            options.projection.push_back(static_cast<int>(index));
          } else {
            state->row_index.push_back(-1);
            state->field_index.push_back(-1);
          }
        }
        Result<std::unique_ptr<TableReader>> reader = source->NewReader(bind->id, options);
        if (!reader.ok()) return NameTheTable(reader.status(), bind->id);
        state->reader = std::move(reader).value();
        // The reader resolves the snapshot again; a commit that changed the schema in between (for the
        // latest snapshot) must not be read with the columns bound before it.
        const std::vector<DataField>& got = state->reader->fields();
        bool same = got.size() == options.projection.size();
        for (size_t i = 0; same && i < got.size(); ++i) {
          const DataField& want = bind->fields[options.projection[i]];
          same = got[i].name == want.name && got[i].type.EqualsIgnoreNullable(want.type);
        }
        if (!same) {
          return Status::Conflict("table {}: its schema changed while the query was planned; run the query again",
                                  bind->id.ToString());
        }
        duckdb_init_set_max_threads(info, 1);
        duckdb_init_set_init_data(info, state.release(), [](void* p) { delete static_cast<ScanState*>(p); });
        return Status::OK();
      },
      [&](const char* error) { duckdb_init_set_error(info, error); });
}

void Scan(duckdb_function_info info, duckdb_data_chunk output) {
  GuardCallback(
      [&]() -> Status {
        const auto* bind = static_cast<const ScanBindData*>(duckdb_function_get_bind_data(info));
        auto* state = static_cast<ScanState*>(duckdb_function_get_init_data(info));
        state->rows.clear();
        idx_t capacity = duckdb_vector_size();
        while (!state->done && state->rows.empty()) {
          Result<bool> more = state->reader->NextBatch(capacity, &state->rows);
          if (!more.ok()) return NameTheTable(more.status(), bind->id);
          if (!*more) state->done = true;
        }
        if (state->rows.size() > capacity) {
          return Status::Internal("table {}: the reader returned {} rows where at most {} were asked for",
                                  bind->id.ToString(), state->rows.size(), capacity);
        }
        for (size_t c = 0; c < state->row_index.size(); ++c) {
          duckdb_vector vector = duckdb_data_chunk_get_vector(output, c);
          if (state->row_index[c] < 0) {
            duckdb_vector_ensure_validity_writable(vector);
            uint64_t* mask = duckdb_vector_get_validity(vector);
            for (size_t r = 0; r < state->rows.size(); ++r) duckdb_validity_set_row_invalid(mask, r);
            continue;
          }
          const DataField& field = bind->fields[state->field_index[c]];
          TIDE_RETURN_IF_ERROR(NameTheTable(
              WriteRowsColumn(vector, field.type, state->rows, state->row_index[c], 0, field.name), bind->id));
        }
        duckdb_data_chunk_set_size(output, state->rows.size());
        return Status::OK();
      },
      [&](const char* error) { duckdb_function_set_error(info, error); });
}

}  // namespace

Status RegisterPaimonScan(const DuckConnection& connection, std::shared_ptr<const TableSource> source) {
  DuckTableFunction function(kPaimonScanFunction);
  function.AddParameter(DUCKDB_TYPE_VARCHAR);
  function.AddNamedParameter("snapshot_id", DUCKDB_TYPE_BIGINT);
  function.AddNamedParameter("timestamp_ms", DUCKDB_TYPE_BIGINT);
  function.AddNamedParameter("tag", DUCKDB_TYPE_VARCHAR);
  duckdb_table_function_set_extra_info(function.raw(), new std::shared_ptr<const TableSource>(std::move(source)),
                                       [](void* p) { delete static_cast<std::shared_ptr<const TableSource>*>(p); });
  duckdb_table_function_set_bind(function.raw(), Bind);
  duckdb_table_function_set_init(function.raw(), Init);
  duckdb_table_function_set_function(function.raw(), Scan);
  duckdb_table_function_supports_projection_pushdown(function.raw(), true);
  return function.Register(connection);
}

}  // namespace tide
