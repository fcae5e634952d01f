#include "tide/format/duckdb_handle.h"

#include <atomic>
#include <mutex>
#include <string>

namespace tide {

struct DuckDatabaseBox {
  duckdb_database db = nullptr;
  // What to open and how (DuckDB::OpenLater opens on first use, once, under `once`).
  std::string path;
  DuckConfig config;
  std::once_flag once;
  std::atomic<bool> attempted{false};
  Status opened;
  ~DuckDatabaseBox() {
    if (db != nullptr) duckdb_close(&db);
  }
};

Status DuckErrorToStatus(duckdb_error_type type, std::string_view message, std::string_view context) {
  StatusCode code;
  switch (type) {
    case DUCKDB_ERROR_IO:
    case DUCKDB_ERROR_PERMISSION:
    case DUCKDB_ERROR_NETWORK:
    case DUCKDB_ERROR_HTTP:
      code = StatusCode::kIOError;
      break;
    case DUCKDB_ERROR_INTERRUPT:
      code = StatusCode::kAborted;
      break;
    case DUCKDB_ERROR_CATALOG:
      code = StatusCode::kNotFound;
      break;
    case DUCKDB_ERROR_NOT_IMPLEMENTED:
    case DUCKDB_ERROR_MISSING_EXTENSION:
      code = StatusCode::kNotSupported;
      break;
    case DUCKDB_ERROR_INTERNAL:
    case DUCKDB_ERROR_FATAL:
      code = StatusCode::kInternal;
      break;
    case DUCKDB_ERROR_OUT_OF_MEMORY:
      code = StatusCode::kUnavailable;
      break;
    case DUCKDB_ERROR_TRANSACTION:
      code = StatusCode::kConflict;
      break;
    default:
      code = StatusCode::kInvalidArgument;
      break;
  }
  std::string text = context.empty() ? std::string(message) : std::string(context) + ": " + std::string(message);
  return Status(code, std::move(text));
}

std::string QuoteSqlIdentifier(std::string_view name) {
  std::string out;
  out.reserve(name.size() + 2);
  out.push_back('"');
  for (char c : name) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

std::string QuoteSqlString(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  out.push_back('\'');
  for (char c : text) {
    if (c == '\'') out.push_back('\'');
    out.push_back(c);
  }
  out.push_back('\'');
  return out;
}

// ---- DuckLogicalType ----

DuckLogicalType::~DuckLogicalType() {
  if (type_ != nullptr) duckdb_destroy_logical_type(&type_);
}

DuckLogicalType& DuckLogicalType::operator=(DuckLogicalType&& other) noexcept {
  if (this != &other) {
    if (type_ != nullptr) duckdb_destroy_logical_type(&type_);
    type_ = std::exchange(other.type_, nullptr);
  }
  return *this;
}

namespace {

const char* SimpleTypeName(duckdb_type id) {
  switch (id) {
    case DUCKDB_TYPE_BOOLEAN: return "BOOLEAN";
    case DUCKDB_TYPE_TINYINT: return "TINYINT";
    case DUCKDB_TYPE_SMALLINT: return "SMALLINT";
    case DUCKDB_TYPE_INTEGER: return "INTEGER";
    case DUCKDB_TYPE_BIGINT: return "BIGINT";
    case DUCKDB_TYPE_UTINYINT: return "UTINYINT";
    case DUCKDB_TYPE_USMALLINT: return "USMALLINT";
    case DUCKDB_TYPE_UINTEGER: return "UINTEGER";
    case DUCKDB_TYPE_UBIGINT: return "UBIGINT";
    case DUCKDB_TYPE_FLOAT: return "FLOAT";
    case DUCKDB_TYPE_DOUBLE: return "DOUBLE";
    case DUCKDB_TYPE_TIMESTAMP: return "TIMESTAMP";
    case DUCKDB_TYPE_DATE: return "DATE";
    case DUCKDB_TYPE_TIME: return "TIME";
    case DUCKDB_TYPE_INTERVAL: return "INTERVAL";
    case DUCKDB_TYPE_HUGEINT: return "HUGEINT";
    case DUCKDB_TYPE_UHUGEINT: return "UHUGEINT";
    case DUCKDB_TYPE_VARCHAR: return "VARCHAR";
    case DUCKDB_TYPE_BLOB: return "BLOB";
    case DUCKDB_TYPE_TIMESTAMP_S: return "TIMESTAMP_S";
    case DUCKDB_TYPE_TIMESTAMP_MS: return "TIMESTAMP_MS";
    case DUCKDB_TYPE_TIMESTAMP_NS: return "TIMESTAMP_NS";
    case DUCKDB_TYPE_UUID: return "UUID";
    case DUCKDB_TYPE_BIT: return "BIT";
    case DUCKDB_TYPE_TIME_TZ: return "TIME WITH TIME ZONE";
    case DUCKDB_TYPE_TIMESTAMP_TZ: return "TIMESTAMP WITH TIME ZONE";
    case DUCKDB_TYPE_SQLNULL: return "NULL";
    default: return nullptr;
  }
}

std::string LogicalTypeToString(duckdb_logical_type type) {
  duckdb_type id = duckdb_get_type_id(type);
  if (const char* name = SimpleTypeName(id)) return name;
  switch (id) {
    case DUCKDB_TYPE_DECIMAL:
      return "DECIMAL(" + std::to_string(duckdb_decimal_width(type)) + "," +
             std::to_string(duckdb_decimal_scale(type)) + ")";
    case DUCKDB_TYPE_LIST: {
      duckdb_logical_type child = duckdb_list_type_child_type(type);
      std::string s = LogicalTypeToString(child) + "[]";
      duckdb_destroy_logical_type(&child);
      return s;
    }
    case DUCKDB_TYPE_ARRAY: {
      duckdb_logical_type child = duckdb_array_type_child_type(type);
      std::string s = LogicalTypeToString(child) + "[" + std::to_string(duckdb_array_type_array_size(type)) + "]";
      duckdb_destroy_logical_type(&child);
      return s;
    }
    case DUCKDB_TYPE_MAP: {
      duckdb_logical_type k = duckdb_map_type_key_type(type);
      duckdb_logical_type v = duckdb_map_type_value_type(type);
      std::string s = "MAP(" + LogicalTypeToString(k) + ", " + LogicalTypeToString(v) + ")";
      duckdb_destroy_logical_type(&k);
      duckdb_destroy_logical_type(&v);
      return s;
    }
    case DUCKDB_TYPE_STRUCT: {
      std::string s = "STRUCT(";
      idx_t n = duckdb_struct_type_child_count(type);
      for (idx_t i = 0; i < n; ++i) {
        if (i > 0) s += ", ";
        char* name = duckdb_struct_type_child_name(type, i);
        s += QuoteSqlIdentifier(name ? name : "");
        duckdb_free(name);
        duckdb_logical_type child = duckdb_struct_type_child_type(type, i);
        s += " " + LogicalTypeToString(child);
        duckdb_destroy_logical_type(&child);
      }
      return s + ")";
    }
    case DUCKDB_TYPE_ENUM:
      return "ENUM";
    case DUCKDB_TYPE_UNION:
      return "UNION";
    default:
      return "TYPE#" + std::to_string(static_cast<int>(id));
  }
}

}  // namespace

std::string DuckTypeToString(duckdb_logical_type type) {
  if (type == nullptr) return "INVALID";
  return LogicalTypeToString(type);
}

std::string DuckLogicalType::ToString() const { return DuckTypeToString(type_); }

// ---- DuckValue ----

DuckValue::~DuckValue() {
  if (value_ != nullptr) duckdb_destroy_value(&value_);
}

DuckValue& DuckValue::operator=(DuckValue&& other) noexcept {
  if (this != &other) {
    if (value_ != nullptr) duckdb_destroy_value(&value_);
    value_ = std::exchange(other.value_, nullptr);
  }
  return *this;
}

// ---- DuckDataChunk ----

DuckDataChunk::~DuckDataChunk() {
  if (chunk_ != nullptr) duckdb_destroy_data_chunk(&chunk_);
}

DuckDataChunk& DuckDataChunk::operator=(DuckDataChunk&& other) noexcept {
  if (this != &other) {
    if (chunk_ != nullptr) duckdb_destroy_data_chunk(&chunk_);
    chunk_ = std::exchange(other.chunk_, nullptr);
  }
  return *this;
}

// ---- DuckResult ----

DuckResult::~DuckResult() {
  if (valid_) duckdb_destroy_result(&result_);
}

DuckResult::DuckResult(DuckResult&& other) noexcept : result_(other.result_), valid_(other.valid_) {
  other.result_ = duckdb_result{};
  other.valid_ = false;
}

DuckResult& DuckResult::operator=(DuckResult&& other) noexcept {
  if (this != &other) {
    if (valid_) duckdb_destroy_result(&result_);
    result_ = other.result_;
    valid_ = other.valid_;
    other.result_ = duckdb_result{};
    other.valid_ = false;
  }
  return *this;
}

idx_t DuckResult::column_count() { return valid_ ? duckdb_column_count(&result_) : 0; }

std::string DuckResult::column_name(idx_t index) {
  const char* name = valid_ ? duckdb_column_name(&result_, index) : nullptr;
  return name ? std::string(name) : std::string();
}

duckdb_type DuckResult::column_type(idx_t index) {
  return valid_ ? duckdb_column_type(&result_, index) : DUCKDB_TYPE_INVALID;
}

DuckLogicalType DuckResult::column_logical_type(idx_t index) {
  return valid_ ? DuckLogicalType(duckdb_column_logical_type(&result_, index)) : DuckLogicalType();
}

idx_t DuckResult::rows_changed() { return valid_ ? duckdb_rows_changed(&result_) : 0; }

DuckDataChunk DuckResult::FetchChunk() {
  if (!valid_) return DuckDataChunk();
  return DuckDataChunk(duckdb_fetch_chunk(result_));
}

Status DuckResult::error() {
  if (!valid_) return Status::OK();
  const char* message = duckdb_result_error(&result_);
  if (message == nullptr) return Status::OK();
  return DuckErrorToStatus(duckdb_result_error_type(&result_), message);
}

// ---- DuckPreparedStatement ----

DuckPreparedStatement::~DuckPreparedStatement() {
  if (stmt_ != nullptr) duckdb_destroy_prepare(&stmt_);
}

DuckPreparedStatement& DuckPreparedStatement::operator=(DuckPreparedStatement&& other) noexcept {
  if (this != &other) {
    if (stmt_ != nullptr) duckdb_destroy_prepare(&stmt_);
    stmt_ = std::exchange(other.stmt_, nullptr);
  }
  return *this;
}

Status DuckPreparedStatement::Bind(idx_t index, const DuckValue& value) {
  if (duckdb_bind_value(stmt_, index, value.raw()) != DuckDBSuccess) {
    const char* message = duckdb_prepare_error(stmt_);
    return Status::InvalidArgument("cannot bind parameter {}: {}", index, message ? message : "unknown error");
  }
  return Status::OK();
}

Status DuckPreparedStatement::BindNull(idx_t index) {
  if (duckdb_bind_null(stmt_, index) != DuckDBSuccess) {
    return Status::InvalidArgument("cannot bind NULL to parameter {}", index);
  }
  return Status::OK();
}

Status DuckPreparedStatement::ClearBindings() {
  if (duckdb_clear_bindings(stmt_) != DuckDBSuccess) return Status::Internal("cannot clear DuckDB bindings");
  return Status::OK();
}

Result<DuckResult> DuckPreparedStatement::Execute() {
  DuckResult result;
  result.valid_ = true;
  if (duckdb_execute_prepared(stmt_, &result.result_) != DuckDBSuccess) {
    Status st = result.error();
    return st.ok() ? Status::Internal("DuckDB execution failed without an error message") : st;
  }
  return result;
}

Result<DuckResult> DuckPreparedStatement::ExecuteStreaming() {
  duckdb_pending_result pending = nullptr;
  if (duckdb_pending_prepared_streaming(stmt_, &pending) != DuckDBSuccess) {
    const char* message = pending ? duckdb_pending_error(pending) : nullptr;
    Status st = Status::InvalidArgument("{}", message ? message : "DuckDB could not start the query");
    if (pending != nullptr) duckdb_destroy_pending(&pending);
    return st;
  }
  DuckResult result;
  result.valid_ = true;
  duckdb_state state = duckdb_execute_pending(pending, &result.result_);
  duckdb_destroy_pending(&pending);
  if (state != DuckDBSuccess) {
    Status st = result.error();
    return st.ok() ? Status::Internal("DuckDB execution failed without an error message") : st;
  }
  return result;
}

// ---- DuckAppender ----

DuckAppender::~DuckAppender() {
  if (appender_ != nullptr) duckdb_appender_destroy(&appender_);
}

DuckAppender& DuckAppender::operator=(DuckAppender&& other) noexcept {
  if (this != &other) {
    if (appender_ != nullptr) duckdb_appender_destroy(&appender_);
    appender_ = std::exchange(other.appender_, nullptr);
  }
  return *this;
}

Status DuckAppender::LastError(std::string_view context) const {
  duckdb_error_data error = duckdb_appender_error_data(appender_);
  Status st;
  if (error != nullptr && duckdb_error_data_has_error(error)) {
    st = DuckErrorToStatus(duckdb_error_data_error_type(error), duckdb_error_data_message(error), context);
  } else {
    st = Status::Internal("{}: DuckDB appender failed without an error message", context);
  }
  if (error != nullptr) duckdb_destroy_error_data(&error);
  return st;
}

Status DuckAppender::AppendChunk(const DuckDataChunk& chunk) {
  if (appender_ == nullptr) return Status::Internal("append to a closed DuckDB appender");
  if (duckdb_append_data_chunk(appender_, chunk.raw()) != DuckDBSuccess) return LastError("append");
  return Status::OK();
}

Status DuckAppender::Close() {
  if (appender_ == nullptr) return Status::OK();
  Status st;
  if (duckdb_appender_close(appender_) != DuckDBSuccess) st = LastError("appender close");
  duckdb_appender_destroy(&appender_);
  appender_ = nullptr;
  return st;
}

// ---- DuckConnection ----

DuckConnection::~DuckConnection() {
  if (conn_ != nullptr) duckdb_disconnect(&conn_);
}

DuckConnection::DuckConnection(DuckConnection&& other) noexcept
    : database_(std::move(other.database_)), conn_(std::exchange(other.conn_, nullptr)) {}

DuckConnection& DuckConnection::operator=(DuckConnection&& other) noexcept {
  if (this != &other) {
    if (conn_ != nullptr) duckdb_disconnect(&conn_);
    conn_ = std::exchange(other.conn_, nullptr);
    database_ = std::move(other.database_);
  }
  return *this;
}

Result<DuckResult> DuckConnection::Query(std::string_view sql) {
  if (conn_ == nullptr) return Status::Internal("query on a closed DuckDB connection");
  std::string text(sql);
  DuckResult result;
  result.valid_ = true;
  if (duckdb_query(conn_, text.c_str(), &result.result_) != DuckDBSuccess) {
    Status st = result.error();
    return st.ok() ? Status::Internal("DuckDB query failed without an error message") : st;
  }
  return result;
}

Result<DuckResult> DuckConnection::QueryStreaming(std::string_view sql) {
  TIDE_ASSIGN_OR_RETURN(DuckPreparedStatement stmt, Prepare(sql));
  return stmt.ExecuteStreaming();
}

Status DuckConnection::Execute(std::string_view sql) {
  TIDE_ASSIGN_OR_RETURN(DuckResult result, Query(sql));
  (void)result;
  return Status::OK();
}

Result<DuckPreparedStatement> DuckConnection::Prepare(std::string_view sql) {
  if (conn_ == nullptr) return Status::Internal("prepare on a closed DuckDB connection");
  std::string text(sql);
  DuckPreparedStatement stmt;
  if (duckdb_prepare(conn_, text.c_str(), &stmt.stmt_) != DuckDBSuccess) {
    const char* message = stmt.stmt_ ? duckdb_prepare_error(stmt.stmt_) : nullptr;
    std::string msg = message ? message : "DuckDB could not prepare the statement";
    // The prepare API gives no error class; recover the common ones from DuckDB's message prefix.
    if (msg.rfind("Catalog Error", 0) == 0) return Status(StatusCode::kNotFound, msg);
    if (msg.rfind("IO Error", 0) == 0) return Status(StatusCode::kIOError, msg);
    if (msg.rfind("Not implemented Error", 0) == 0) return Status(StatusCode::kNotSupported, msg);
    if (msg.rfind("INTERNAL Error", 0) == 0) return Status(StatusCode::kInternal, msg);
    return Status(StatusCode::kInvalidArgument, msg);
  }
  return stmt;
}

Result<DuckAppender> DuckConnection::CreateAppender(std::string_view table, std::string_view schema,
                                                    std::string_view catalog) {
  if (conn_ == nullptr) return Status::Internal("appender on a closed DuckDB connection");
  std::string table_name(table);
  std::string schema_name(schema);
  std::string catalog_name(catalog);
  DuckAppender appender;
  if (duckdb_appender_create_ext(conn_, catalog_name.empty() ? nullptr : catalog_name.c_str(),
                                 schema_name.empty() ? nullptr : schema_name.c_str(), table_name.c_str(),
                                 &appender.appender_) != DuckDBSuccess) {
    if (appender.appender_ == nullptr) return Status::Internal("cannot create a DuckDB appender for {}", table);
    return appender.LastError("appender for table " + table_name);
  }
  return appender;
}

void DuckConnection::Interrupt() {
  if (conn_ != nullptr) duckdb_interrupt(conn_);
}

// ---- DuckDB ----

namespace {

// Opens `box`'s database (box->path, box->config) into box->db.
Status OpenBox(DuckDatabaseBox* box) {
  duckdb_config cfg = nullptr;
  if (duckdb_create_config(&cfg) != DuckDBSuccess) return Status::Internal("cannot create a DuckDB config");
  // Tide is one binary with the extensions it needs built in: DuckDB must never fetch one from the
  // network when a query names a function of another (httpfs for an https:// path, say).
  DuckConfig effective = {{"autoinstall_known_extensions", "false"}};
  effective.insert(effective.end(), box->config.begin(), box->config.end());
  for (const auto& [name, value] : effective) {
    if (duckdb_set_config(cfg, name.c_str(), value.c_str()) != DuckDBSuccess) {
      duckdb_destroy_config(&cfg);
      return Status::InvalidArgument("DuckDB rejects the option {} = {}: check its name and value", name, value);
    }
  }
  char* error = nullptr;
  const char* open_path = box->path.empty() ? ":memory:" : box->path.c_str();
  duckdb_state state = duckdb_open_ext(open_path, &box->db, cfg, &error);
  duckdb_destroy_config(&cfg);
  if (state != DuckDBSuccess) {
    std::string message = error ? error : "unknown error";
    if (error != nullptr) duckdb_free(error);
    box->db = nullptr;
    return Status::IOError("cannot open DuckDB database {}: {}", open_path, message);
  }
  return Status::OK();
}

}  // namespace

Result<DuckDB> DuckDB::Open(const std::string& path, const DuckConfig& config) {
  DuckDB db = OpenLater(path, config);
  TIDE_RETURN_IF_ERROR(db.EnsureOpen());
  return db;
}

DuckDB DuckDB::OpenLater(const std::string& path, const DuckConfig& config) {
  auto box = std::make_shared<DuckDatabaseBox>();
  box->path = path;
  box->config = config;
  DuckDB db;
  db.database_ = std::move(box);
  return db;
}

Status DuckDB::EnsureOpen() const {
  if (!database_) return Status::Internal("use of a DuckDB database that is not open");
  DuckDatabaseBox* box = database_.get();
  std::call_once(box->once, [box] {
    box->opened = OpenBox(box);
    box->attempted.store(true, std::memory_order_release);
  });
  return box->opened;
}

duckdb_database DuckDB::raw() const { return database_ && EnsureOpen().ok() ? database_->db : nullptr; }

Result<DuckConnection> DuckDB::Connect() const {
  TIDE_RETURN_IF_ERROR(EnsureOpen());
  DuckConnection conn;
  if (duckdb_connect(database_->db, &conn.conn_) != DuckDBSuccess) {
    return Status::Internal("cannot open a DuckDB connection");
  }
  conn.database_ = database_;
  return conn;
}

Status DuckDB::ForgetFiles() const {
  // A database opened later and not opened yet has opened no file.
  if (database_ && !database_->attempted.load(std::memory_order_acquire)) return Status::OK();
  TIDE_ASSIGN_OR_RETURN(DuckConnection conn, Connect());
  // Setting it (even to its current value) clears the map of cached files (DuckDB 1.4's
  // ExternalFileCache::SetEnabled).
  return conn.Execute("SET enable_external_file_cache = false");
}

}  // namespace tide
