#include "tide/sql/paimon_scan.h"

#include <atomic>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "tide/sql/duckdb_table_function.h"
#include "tide/format/duckdb_type_mapping.h"
#include "tide/sql/sql_table_name.h"
#include "tide/sql/statement_filters.h"
#include "tide/table/source/scan_pruner.h"

namespace tide {

namespace {

// The most threads one paimon_scan uses (each reads whole splits, so more threads than splits idle).
constexpr idx_t kMaxScanThreads = 64;

struct ScanState;

struct ScanBindData {
  TableIdentifier id;
  SnapshotSelector selector;
  // An incremental read or the audit log (rows with their kinds): a leading `rowkind` column.
  std::optional<IncrementalReadOptions> change;
  bool audit_log = false;
  bool read_optimized = false;  // the `$ro` view: a primary-key table's top level only
  std::vector<DataField> fields;  // the read schema's fields, in column order
  TableSchema schema;             // the read schema (its primary key, for point reads)
  // The statement's filter of this table (statement_filters.h), if it has one.
  std::shared_ptr<PushedFilter> pushed;
  // The scan being run (set by Init): DuckDB's C API gives LocalInit the bind data but not the global
  // init data.
  mutable std::atomic<ScanState*> scan{nullptr};
};

// The scan of one query: the reader that planned the snapshot, and how output columns map to its fields.
struct ScanState {
  std::unique_ptr<TableReader> reader;
  // For each output column: the index into the reader's fields, or -1 for a column DuckDB asked for that
  // is not a table column (the row id of a count(*)); such a column is all NULL.
  std::vector<int> row_index;
  size_t reader_columns = 0;
  std::mutex mu;
  bool reader_taken = false;  // a thread reads `reader` itself (it could not share its work)
};

// One thread's part of the scan: a worker sharing the scan's splits, or the scan's own reader.
struct LocalScanState {
  std::unique_ptr<TableReader> worker;
  TableReader* reader = nullptr;  // worker, the scan's reader, or null (nothing left for this thread)
  std::vector<duckdb_vector> vectors;
};

// Adds the table's name to an error that does not already carry it.
Status NameTheTable(const Status& status, const TableIdentifier& id) {
  if (status.ok() || status.message().find(id.ToString()) != std::string::npos) return status;
  return status.WithContext(fmt::format("reading table {}", id.ToString()));
}

const std::shared_ptr<const TableSource>& SourceOf(void* extra_info) {
  return *static_cast<std::shared_ptr<const TableSource>*>(extra_info);
}

// The change read the named parameters ask for (incremental_between..., audit_log), if any.
Result<std::optional<IncrementalReadOptions>> BindChangeRead(duckdb_bind_info info, const SnapshotSelector& selector,
                                                             bool* audit_log) {
  IncrementalReadOptions options;
  options.between = BindNamedString(info, "incremental_between");
  options.between_timestamp = BindNamedString(info, "incremental_between_timestamp");
  std::optional<std::string> mode = BindNamedString(info, "incremental_between_scan_mode");
  *audit_log = BindNamedBool(info, "audit_log").value_or(false);
  bool incremental = options.between || options.between_timestamp;
  if (!incremental && !*audit_log) {
    if (mode) return Status::InvalidArgument("paimon_scan: incremental_between_scan_mode needs incremental_between");
    return std::optional<IncrementalReadOptions>();
  }
  if (options.between && options.between_timestamp) {
    return Status::InvalidArgument(
        "paimon_scan: give one of incremental_between and incremental_between_timestamp, not both");
  }
  if (!selector.IsLatest()) {
    return Status::InvalidArgument(
        "paimon_scan: incremental_between and audit_log read changes; they do not combine with snapshot_id, "
        "timestamp_ms or tag");
  }
  if (mode) options.scan_mode = *mode;
  // With a range the audit log is the incremental read (Java's `$audit_log` with incremental-between).
  if (incremental) *audit_log = false;
  return std::optional<IncrementalReadOptions>(std::move(options));
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
        auto data = std::make_unique<ScanBindData>();
        TIDE_ASSIGN_OR_RETURN(data->change, BindChangeRead(info, selector, &data->audit_log));
        TIDE_ASSIGN_OR_RETURN(TableSchema schema, source->ReadSchema(id, selector));
        if (data->change) {
          DuckLogicalType varchar(duckdb_create_logical_type(DUCKDB_TYPE_VARCHAR));
          duckdb_bind_add_result_column(info, kRowKindColumn, varchar.raw());
        }
        for (const DataField& field : schema.fields) {
          Result<DuckLogicalType> type = DuckTypeFor(field.type, field.name);
          if (!type.ok()) return type.status().WithContext(fmt::format("table {}", id.ToString()));
          duckdb_bind_add_result_column(info, field.name.c_str(), type->raw());
        }
        if (schema.fields.empty()) {
          return Status::NotSupported("table {} has no columns to read", id.ToString());
        }
        data->read_optimized = BindNamedBool(info, "read_optimized").value_or(false);
        // Every bind of the table counts (a change read too): the filter is used only by a lone scan.
        data->pushed = ClaimStatementFilter(id);
        if (data->change) data->pushed.reset();
        data->id = std::move(id);
        data->selector = std::move(selector);
        data->fields = schema.fields;
        data->schema = std::move(schema);
        duckdb_bind_set_bind_data(info, data.release(), [](void* p) { delete static_cast<ScanBindData*>(p); });
        return Status::OK();
      },
      [&](const char* error) { duckdb_bind_set_error(info, error); });
}

// Init of a change read: column 0 is `rowkind`, column i > 0 the table's field i - 1.
Status InitChangeRead(duckdb_init_info info, const TableSource& source, const ScanBindData& bind, ScanState* state) {
  IncrementalReadOptions options = *bind.change;
  options.all_columns = false;
  options.with_row_kind = false;
  idx_t columns = duckdb_init_get_column_count(info);
  for (idx_t i = 0; i < columns; ++i) {
    idx_t index = duckdb_init_get_column_index(info, i);
    if (index == 0) options.with_row_kind = true;
  }
  for (idx_t i = 0; i < columns; ++i) {
    idx_t index = duckdb_init_get_column_index(info, i);
    if (index == 0) {
      state->row_index.push_back(0);
    } else if (index <= bind.fields.size()) {
      state->row_index.push_back(static_cast<int>(options.projection.size()) + (options.with_row_kind ? 1 : 0));
      options.projection.push_back(static_cast<int>(index - 1));
    } else {
      state->row_index.push_back(-1);
    }
  }
  state->reader_columns = options.projection.size() + (options.with_row_kind ? 1 : 0);
  Result<std::unique_ptr<TableReader>> reader = source.NewChangeReader(bind.id, bind.audit_log, options);
  if (!reader.ok()) return NameTheTable(reader.status(), bind.id);
  state->reader = std::move(reader).value();
  // The reader reads the latest schema again; a schema change since the bind must not be read as it.
  const std::vector<DataField>& got = state->reader->fields();
  bool same = got.size() == state->reader_columns;
  size_t offset = options.with_row_kind ? 1 : 0;
  for (size_t i = 0; same && i < options.projection.size(); ++i) {
    const DataField& want = bind.fields[static_cast<size_t>(options.projection[i])];
    same = got[i + offset].name == want.name && got[i + offset].type.EqualsIgnoreNullable(want.type);
  }
  if (!same) {
    return Status::Conflict("table {}: its schema changed while the query was planned; run the query again",
                            bind.id.ToString());
  }
  return Status::OK();
}

void Init(duckdb_init_info info) {
  GuardCallback(
      [&]() -> Status {
        const auto& source = SourceOf(duckdb_init_get_extra_info(info));
        const auto* bind = static_cast<const ScanBindData*>(duckdb_init_get_bind_data(info));
        auto state = std::make_unique<ScanState>();
        if (bind->change) {
          TIDE_RETURN_IF_ERROR(InitChangeRead(info, *source, *bind, state.get()));
          duckdb_init_set_max_threads(info, 1);
          bind->scan.store(state.get());
          duckdb_init_set_init_data(info, state.release(), [](void* p) { delete static_cast<ScanState*>(p); });
          return Status::OK();
        }
        ReadOptions options;
        options.snapshot = bind->selector;
        options.read_optimized = bind->read_optimized;
        options.all_columns = false;
        idx_t columns = duckdb_init_get_column_count(info);
        for (idx_t i = 0; i < columns; ++i) {
          idx_t index = duckdb_init_get_column_index(info, i);
          if (index < bind->fields.size()) {
            state->row_index.push_back(static_cast<int>(options.projection.size()));
            options.projection.push_back(static_cast<int>(index));
          } else {
            state->row_index.push_back(-1);
          }
        }
        state->reader_columns = options.projection.size();
        if (bind->pushed) {
          options.filter = bind->pushed->UsableBy(bind->selector, bind->read_optimized);
          // A condition fixing the whole primary key reads that key alone (its bucket, the files whose
          // key range holds it, row groups by their statistics).
          if (options.filter) options.primary_key_equals = ScanPruner::PrimaryKeyEquals(bind->schema, *options.filter);
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
        // Every DuckDB thread may take a share of the splits (LocalInit); DuckDB caps this at its threads.
        duckdb_init_set_max_threads(info, kMaxScanThreads);
        bind->scan.store(state.get());
        duckdb_init_set_init_data(info, state.release(), [](void* p) { delete static_cast<ScanState*>(p); });
        return Status::OK();
      },
      [&](const char* error) { duckdb_init_set_error(info, error); });
}

void LocalInit(duckdb_init_info info) {
  GuardCallback(
      [&]() -> Status {
        const auto* bind = static_cast<const ScanBindData*>(duckdb_init_get_bind_data(info));
        ScanState* state = bind->scan.load();
        if (state == nullptr) return Status::Internal("paimon_scan: a thread started before the scan");
        auto local = std::make_unique<LocalScanState>();
        {
          std::lock_guard<std::mutex> lock(state->mu);
          Result<std::unique_ptr<TableReader>> worker = state->reader->NewWorker();
          if (!worker.ok()) return NameTheTable(worker.status(), bind->id);
          local->worker = std::move(worker).value();
          if (local->worker) {
            local->reader = local->worker.get();
          } else if (!state->reader_taken) {
            state->reader_taken = true;
            local->reader = state->reader.get();
          }
        }
        local->vectors.resize(state->reader_columns);
        duckdb_init_set_init_data(info, local.release(), [](void* p) { delete static_cast<LocalScanState*>(p); });
        return Status::OK();
      },
      [&](const char* error) { duckdb_init_set_error(info, error); });
}

void Scan(duckdb_function_info info, duckdb_data_chunk output) {
  GuardCallback(
      [&]() -> Status {
        const auto* bind = static_cast<const ScanBindData*>(duckdb_function_get_bind_data(info));
        const auto* state = static_cast<const ScanState*>(duckdb_function_get_init_data(info));
        auto* local = static_cast<LocalScanState*>(duckdb_function_get_local_init_data(info));
        if (local->reader == nullptr) {
          duckdb_data_chunk_set_size(output, 0);
          return Status::OK();
        }
        for (size_t c = 0; c < state->row_index.size(); ++c) {
          if (state->row_index[c] >= 0) local->vectors[static_cast<size_t>(state->row_index[c])] = duckdb_data_chunk_get_vector(output, c);
        }
        Result<size_t> rows = local->reader->NextVectors(local->vectors, duckdb_vector_size());
        if (!rows.ok()) return NameTheTable(rows.status(), bind->id);
        if (*rows == 0) local->reader = nullptr;
        for (size_t c = 0; c < state->row_index.size(); ++c) {
          if (state->row_index[c] >= 0) continue;
          duckdb_vector vector = duckdb_data_chunk_get_vector(output, c);
          duckdb_vector_ensure_validity_writable(vector);
          uint64_t* mask = duckdb_vector_get_validity(vector);
          for (size_t r = 0; r < *rows; ++r) duckdb_validity_set_row_invalid(mask, r);
        }
        duckdb_data_chunk_set_size(output, *rows);
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
  function.AddNamedParameter("incremental_between", DUCKDB_TYPE_VARCHAR);
  function.AddNamedParameter("incremental_between_timestamp", DUCKDB_TYPE_VARCHAR);
  function.AddNamedParameter("incremental_between_scan_mode", DUCKDB_TYPE_VARCHAR);
  function.AddNamedParameter("audit_log", DUCKDB_TYPE_BOOLEAN);
  function.AddNamedParameter("read_optimized", DUCKDB_TYPE_BOOLEAN);
  duckdb_table_function_set_extra_info(function.raw(), new std::shared_ptr<const TableSource>(std::move(source)),
                                       [](void* p) { delete static_cast<std::shared_ptr<const TableSource>*>(p); });
  duckdb_table_function_set_bind(function.raw(), Bind);
  duckdb_table_function_set_init(function.raw(), Init);
  duckdb_table_function_set_local_init(function.raw(), LocalInit);
  duckdb_table_function_set_function(function.raw(), Scan);
  duckdb_table_function_supports_projection_pushdown(function.raw(), true);
  return function.Register(connection);
}

}  // namespace tide
