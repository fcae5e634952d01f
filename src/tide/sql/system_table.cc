#include "tide/sql/system_table.h"

#include <time.h>

#include <algorithm>
#include <cmath>
#include <span>

#include "tide/base/bytes.h"
#include "tide/base/strings.h"
#include "tide/format/duckdb_type_mapping.h"
#include "tide/format/duckdb_vector_writer.h"
#include "tide/sql/duckdb_table_function.h"
#include "tide/sql/sql_table_name.h"
#include "tide/table/snapshot/snapshot_manager.h"

namespace tide {

namespace {

struct SystemTableInfo {
  std::shared_ptr<const TableSource> source;
  SystemTable table;
};

struct SystemScanState {
  std::vector<Row> rows;
  size_t next = 0;
};

const SystemTableInfo& InfoOf(void* extra_info) { return *static_cast<const SystemTableInfo*>(extra_info); }

Result<SnapshotSelector> BindSnapshot(duckdb_bind_info info, const std::string& function) {
  SnapshotSelector selector;
  selector.snapshot_id = BindNamedInt64(info, "snapshot_id");
  selector.timestamp_ms = BindNamedInt64(info, "timestamp_ms");
  selector.tag = BindNamedString(info, "tag");
  int set = (selector.snapshot_id ? 1 : 0) + (selector.timestamp_ms ? 1 : 0) + (selector.tag ? 1 : 0);
  if (set > 1) {
    return Status::InvalidArgument("{}: give at most one of snapshot_id, timestamp_ms and tag", function);
  }
  return selector;
}

void Bind(duckdb_bind_info info) {
  GuardCallback(
      [&]() -> Status {
        const SystemTableInfo& table = InfoOf(duckdb_bind_get_extra_info(info));
        auto query = std::make_unique<SystemTableQuery>();
        if (table.table.scope == SystemTableScope::kTable) {
          TIDE_ASSIGN_OR_RETURN(std::string name, BindStringParameter(info, 0, table.table.function));
          TIDE_ASSIGN_OR_RETURN(query->id, ParseSqlTableName(name));
        }
        if (table.table.time_travel) {
          TIDE_ASSIGN_OR_RETURN(query->snapshot, BindSnapshot(info, table.table.function));
        }
        for (const DataField& column : table.table.columns) {
          TIDE_ASSIGN_OR_RETURN(DuckLogicalType type, DuckTypeFor(column.type, column.name));
          duckdb_bind_add_result_column(info, column.name.c_str(), type.raw());
        }
        duckdb_bind_set_bind_data(info, query.release(), [](void* p) { delete static_cast<SystemTableQuery*>(p); });
        return Status::OK();
      },
      [&](const char* error) { duckdb_bind_set_error(info, error); });
}

void Init(duckdb_init_info info) {
  GuardCallback(
      [&]() -> Status {
        const SystemTableInfo& table = InfoOf(duckdb_init_get_extra_info(info));
        const auto* query = static_cast<const SystemTableQuery*>(duckdb_init_get_bind_data(info));
        auto state = std::make_unique<SystemScanState>();
        Result<std::vector<Row>> rows = table.table.rows(*table.source, *query);
        if (!rows.ok()) {
          const Status& st = rows.status();
          if (table.table.scope == SystemTableScope::kTable &&
              st.message().find(query->id.ToString()) == std::string::npos) {
            return st.WithContext(fmt::format("{}: table {}", table.table.function, query->id.ToString()));
          }
          return st;
        }
        state->rows = std::move(rows).value();
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

// Java's LocalDateTime.toString(): `2024-01-31T12:34`, seconds when not zero, then the fraction in groups
// of three digits.
std::string JavaLocalDateTimeText(const TimestampValue& ts) {
  int64_t millis = ts.millis;
  int64_t days = millis >= 0 ? millis / 86400000 : -((-millis + 86399999) / 86400000);
  int64_t ms_of_day = millis - days * 86400000;
  int64_t nanos = (ms_of_day % 1000) * 1000000 + ts.nanos_of_milli;
  int64_t seconds = ms_of_day / 1000;
  std::string text = fmt::format("{}T{:02}:{:02}", FormatDate(days), seconds / 3600, seconds / 60 % 60);
  if (seconds % 60 != 0 || nanos != 0) text += fmt::format(":{:02}", seconds % 60);
  if (nanos != 0) {
    if (nanos % 1000000 == 0) {
      text += fmt::format(".{:03}", nanos / 1000000);
    } else if (nanos % 1000 == 0) {
      text += fmt::format(".{:06}", nanos / 1000);
    } else {
      text += fmt::format(".{:09}", nanos);
    }
  }
  return text;
}

// Java's Float/Double.toString for ordinary values: an integral value keeps ".0".
std::string JavaFloatingText(double v, bool is_float) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  std::string text = is_float ? fmt::format("{}", static_cast<float>(v)) : fmt::format("{}", v);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

}  // namespace

Status RegisterSystemTable(const DuckConnection& connection, std::shared_ptr<const TableSource> source,
                           SystemTable table) {
  DuckTableFunction function(table.function);
  if (table.scope == SystemTableScope::kTable) function.AddParameter(DUCKDB_TYPE_VARCHAR);
  if (table.time_travel) {
    function.AddNamedParameter("snapshot_id", DUCKDB_TYPE_BIGINT);
    function.AddNamedParameter("timestamp_ms", DUCKDB_TYPE_BIGINT);
    function.AddNamedParameter("tag", DUCKDB_TYPE_VARCHAR);
  }
  duckdb_table_function_set_extra_info(function.raw(), new SystemTableInfo{std::move(source), std::move(table)},
                                       [](void* p) { delete static_cast<SystemTableInfo*>(p); });
  duckdb_table_function_set_bind(function.raw(), Bind);
  duckdb_table_function_set_init(function.raw(), Init);
  duckdb_table_function_set_function(function.raw(), Scan);
  return function.Register(connection);
}

DataField SystemColumn(int32_t id, std::string name, DataType type) {
  DataField field;
  field.id = id;
  field.name = std::move(name);
  field.type = std::move(type);
  return field;
}

Datum OptionalInt(const std::optional<int64_t>& v) { return v ? Datum(*v) : Datum(); }
Datum OptionalString(const std::optional<std::string>& v) { return v ? Datum(*v) : Datum(); }

int64_t LocalWallClockMillis(int64_t epoch_ms) {
  time_t seconds = static_cast<time_t>(epoch_ms >= 0 ? epoch_ms / 1000 : (epoch_ms - 999) / 1000);
  struct tm local {};
  if (localtime_r(&seconds, &local) == nullptr) return epoch_ms;
  return epoch_ms + static_cast<int64_t>(local.tm_gmtoff) * 1000;
}

Datum LocalTimestamp(int64_t epoch_ms) { return Datum(TimestampValue{LocalWallClockMillis(epoch_ms), 0}); }
Datum WallClockTimestamp(int64_t wall_clock_ms) { return Datum(TimestampValue{wall_clock_ms, 0}); }

std::string PaimonCastText(const Datum& value, const DataType& type) {
  if (value.is_null()) return "null";
  switch (type.root()) {
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary:
      return value.as_string();  // Paimon casts bytes to a string of the same bytes
    default:
      return DatumToString(value, type);
  }
}

std::string PartitionRowText(const Row& values, const std::vector<DataType>& types) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < values.size() && i < types.size(); ++i) parts.push_back(PaimonCastText(values[i], types[i]));
  return "{" + Join(parts, ", ") + "}";
}

std::string PartitionSpecText(const Row& values, const std::vector<DataField>& partition_fields,
                              const std::string& default_name) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < values.size() && i < partition_fields.size(); ++i) {
    std::string text = values[i].is_null() ? default_name : PaimonCastText(values[i], partition_fields[i].type);
    parts.push_back(partition_fields[i].name + "=" + text);
  }
  return Join(parts, "/");
}

std::string JavaInternalText(const Datum& value, const DataType& type) {
  if (value.is_null()) return "null";
  switch (type.root()) {
    case TypeRoot::kFloat: return JavaFloatingText(value.as_float(), true);
    case TypeRoot::kDouble: return JavaFloatingText(value.as_double(), false);
    case TypeRoot::kDate:
    case TypeRoot::kTime: return std::to_string(value.as_int());  // Paimon keeps days / millis of day
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz: return JavaLocalDateTimeText(value.as_timestamp());
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary: return HexEncode(value.as_string());
    default: return DatumToString(value, type);
  }
}

std::vector<DataField> PartitionFields(const TableSchema& schema) {
  std::vector<DataField> fields;
  for (const std::string& key : schema.partition_keys) {
    int index = schema.FieldIndex(key);
    if (index >= 0) fields.push_back(schema.fields[static_cast<size_t>(index)]);
  }
  return fields;
}

std::vector<DataType> TypesOf(const std::vector<DataField>& fields) {
  std::vector<DataType> types;
  types.reserve(fields.size());
  for (const DataField& f : fields) types.push_back(f.type);
  return types;
}

Result<std::optional<Snapshot>> ResolveSnapshot(const Table& table, const SnapshotSelector& selector) {
  SnapshotManager snapshots(table.fs(), table.metadata_path());
  return snapshots.Resolve(selector);
}

}  // namespace tide
