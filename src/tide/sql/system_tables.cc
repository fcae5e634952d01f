#include "tide/sql/system_tables.h"

#include <functional>
#include <string>
#include <vector>

#include "tide/sql/duckdb_table_function.h"
#include "tide/format/duckdb_type_mapping.h"
#include "tide/format/duckdb_vector_writer.h"
#include "tide/sql/sql_table_name.h"

namespace tide {

namespace {

// One system table: its columns (as Paimon types, mapped like any table's) and how to produce its rows.
struct SystemTable {
  std::string function;
  std::vector<DataField> columns;
  std::function<Result<std::vector<Row>>(const TableSource&, const TableIdentifier&)> rows;
};

struct SystemTableInfo {
  std::shared_ptr<const TableSource> source;
  SystemTable table;
};

struct SystemBindData {
  TableIdentifier id;
};

struct SystemScanState {
  std::vector<Row> rows;
  size_t next = 0;
};

DataField Column(int32_t id, std::string name, DataType type) {
  DataField field;
  field.id = id;
  field.name = std::move(name);
  field.type = std::move(type);
  return field;
}

Datum OptionalInt(const std::optional<int64_t>& v) { return v ? Datum(*v) : Datum(); }
Datum OptionalString(const std::optional<std::string>& v) { return v ? Datum(*v) : Datum(); }
Datum Instant(int64_t millis) { return Datum(TimestampValue{millis, 0}); }
Datum StringList(const std::vector<std::string>& items) {
  std::vector<Datum> values(items.begin(), items.end());
  return Datum::Nested(std::move(values));
}

SystemTable SnapshotsTable() {
  SystemTable t;
  t.function = kSnapshotsFunction;
  t.columns = {Column(0, "snapshot_id", DataType::BigInt(false)),
               Column(1, "schema_id", DataType::BigInt(false)),
               Column(2, "commit_user", DataType::String(false)),
               Column(3, "commit_identifier", DataType::BigInt(false)),
               Column(4, "commit_kind", DataType::String(false)),
               Column(5, "commit_time", DataType::TimestampLtz(3, false)),
               Column(6, "total_record_count", DataType::BigInt()),
               Column(7, "delta_record_count", DataType::BigInt()),
               Column(8, "changelog_record_count", DataType::BigInt()),
               Column(9, "watermark", DataType::BigInt()),
               Column(10, "base_manifest_list", DataType::String(false)),
               Column(11, "delta_manifest_list", DataType::String(false)),
               Column(12, "changelog_manifest_list", DataType::String()),
               Column(13, "index_manifest", DataType::String())};
  t.rows = [](const TableSource& source, const TableIdentifier& id) -> Result<std::vector<Row>> {
    TIDE_ASSIGN_OR_RETURN(std::vector<Snapshot> snapshots, source.ListSnapshots(id));
    std::vector<Row> rows;
    rows.reserve(snapshots.size());
    for (const Snapshot& s : snapshots) {
      rows.push_back(Row{Datum(s.id), Datum(s.schema_id), Datum(s.commit_user), Datum(s.commit_identifier),
                         Datum(std::string(CommitKindName(s.commit_kind))), Instant(s.time_millis),
                         OptionalInt(s.total_record_count), OptionalInt(s.delta_record_count),
                         OptionalInt(s.changelog_record_count), OptionalInt(s.watermark),
                         Datum(s.base_manifest_list), Datum(s.delta_manifest_list),
                         OptionalString(s.changelog_manifest_list), OptionalString(s.index_manifest)});
    }
    return rows;
  };
  return t;
}

SystemTable SchemasTable() {
  SystemTable t;
  t.function = kSchemasFunction;
  t.columns = {Column(0, "schema_id", DataType::BigInt(false)),
               Column(1, "fields", DataType::String(false)),
               Column(2, "partition_keys", DataType::Array(DataType::String(false), false)),
               Column(3, "primary_keys", DataType::Array(DataType::String(false), false)),
               Column(4, "options", DataType::Map(DataType::String(false), DataType::String(), false)),
               Column(5, "comment", DataType::String()),
               Column(6, "update_time", DataType::TimestampLtz(3, false))};
  t.rows = [](const TableSource& source, const TableIdentifier& id) -> Result<std::vector<Row>> {
    TIDE_ASSIGN_OR_RETURN(std::vector<TableSchema> schemas, source.ListSchemas(id));
    std::vector<Row> rows;
    rows.reserve(schemas.size());
    for (const TableSchema& s : schemas) {
      nlohmann::ordered_json fields = nlohmann::ordered_json::array();
      for (const DataField& f : s.fields) fields.push_back(f.ToJson());
      std::vector<Datum> options;
      // The file's order when it is known, else the map's (sorted).
      std::vector<std::string> keys = s.option_order;
      if (keys.size() != s.options.size()) {
        keys.clear();
        for (const auto& [k, v] : s.options) keys.push_back(k);
      }
      for (const std::string& k : keys) {
        auto it = s.options.find(k);
        if (it == s.options.end()) continue;
        options.emplace_back(k);
        options.emplace_back(it->second);
      }
      rows.push_back(Row{Datum(s.id), Datum(fields.dump()), StringList(s.partition_keys), StringList(s.primary_keys),
                         Datum::Nested(std::move(options)), OptionalString(s.comment), Instant(s.time_millis)});
    }
    return rows;
  };
  return t;
}

const SystemTableInfo& InfoOf(void* extra_info) { return *static_cast<const SystemTableInfo*>(extra_info); }

void Bind(duckdb_bind_info info) {
  GuardCallback(
      [&]() -> Status {
        const SystemTableInfo& table = InfoOf(duckdb_bind_get_extra_info(info));
        TIDE_ASSIGN_OR_RETURN(std::string name, BindStringParameter(info, 0, table.table.function));
        TIDE_ASSIGN_OR_RETURN(TableIdentifier id, ParseSqlTableName(name));
        for (const DataField& column : table.table.columns) {
          TIDE_ASSIGN_OR_RETURN(DuckLogicalType type, DuckTypeFor(column.type, column.name));
          duckdb_bind_add_result_column(info, column.name.c_str(), type.raw());
        }
        auto data = std::make_unique<SystemBindData>();
        data->id = std::move(id);
        duckdb_bind_set_bind_data(info, data.release(), [](void* p) { delete static_cast<SystemBindData*>(p); });
        return Status::OK();
      },
      [&](const char* error) { duckdb_bind_set_error(info, error); });
}

void Init(duckdb_init_info info) {
  GuardCallback(
      [&]() -> Status {
        const SystemTableInfo& table = InfoOf(duckdb_init_get_extra_info(info));
        const auto* bind = static_cast<const SystemBindData*>(duckdb_init_get_bind_data(info));
        auto state = std::make_unique<SystemScanState>();
        TIDE_ASSIGN_OR_RETURN(state->rows, table.table.rows(*table.source, bind->id));
        duckdb_init_set_max_threads(info, 1);
        duckdb_init_set_init_data(info, state.release(), [](void* p) { delete static_cast<SystemScanState*>(p); });
        return Status::OK();
      },
      [&](const char* error) { duckdb_init_set_error(info, error); });
}

void Scan(duckdb_function_info info, duckdb_data_chunk output) {
  GuardCallback(
      [&]() -> Status {
        const SystemTableInfo& table = InfoOf(duckdb_function_get_extra_info(info));
        auto* state = static_cast<SystemScanState*>(duckdb_function_get_init_data(info));
        size_t count = std::min<size_t>(duckdb_vector_size(), state->rows.size() - state->next);
        std::span<const Row> rows(state->rows.data() + state->next, count);
        for (size_t c = 0; c < table.table.columns.size(); ++c) {
          const DataField& column = table.table.columns[c];
          TIDE_RETURN_IF_ERROR(
              WriteRowsColumn(duckdb_data_chunk_get_vector(output, c), column.type, rows, c, 0, column.name));
        }
        state->next += count;
        duckdb_data_chunk_set_size(output, count);
        return Status::OK();
      },
      [&](const char* error) { duckdb_function_set_error(info, error); });
}

Status RegisterOne(const DuckConnection& connection, std::shared_ptr<const TableSource> source, SystemTable table) {
  DuckTableFunction function(table.function);
  function.AddParameter(DUCKDB_TYPE_VARCHAR);
  duckdb_table_function_set_extra_info(function.raw(), new SystemTableInfo{std::move(source), std::move(table)},
                                       [](void* p) { delete static_cast<SystemTableInfo*>(p); });
  duckdb_table_function_set_bind(function.raw(), Bind);
  duckdb_table_function_set_init(function.raw(), Init);
  duckdb_table_function_set_function(function.raw(), Scan);
  return function.Register(connection);
}

}  // namespace

Status RegisterSystemTables(const DuckConnection& connection, std::shared_ptr<const TableSource> source) {
  TIDE_RETURN_IF_ERROR(RegisterOne(connection, source, SnapshotsTable()));
  return RegisterOne(connection, std::move(source), SchemasTable());
}

}  // namespace tide
