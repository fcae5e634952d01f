// RAII owners for DuckDB's C API handles, and the few helpers every DuckDB caller in Tide needs.
//
// Each class owns exactly one C handle (or none, after a move) and releases it in its destructor with the
// matching duckdb_destroy_* / duckdb_close / duckdb_disconnect call. They are move-only: copying would
// release a handle twice. `raw()` lends the C handle to code that calls the C API directly; the owner
// keeps it. Failures come back as Status carrying DuckDB's own error text (see DuckErrorToStatus).
//
// Lifetimes: a DuckConnection keeps the database it came from alive (shared ownership), so the order in
// which a DuckDB and its connections are destroyed does not matter. A DuckResult, DuckDataChunk or
// DuckPreparedStatement must not outlive the connection that produced it.
//
// Thread-safety: DuckDB (the database) may be shared by threads, each opening its own DuckConnection. A
// connection and everything it produced belong to one thread at a time (DuckDB connections are not
// meant for concurrent queries); DuckConnection::Interrupt() is the one call another thread may make.
#pragma once

#include <duckdb.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tide/base/result.h"
#include "tide/base/status.h"

namespace tide {

// Maps a DuckDB error class to a Tide status code and builds the Status: IO -> IOError, INTERRUPT ->
// Aborted, CATALOG -> NotFound, NOT_IMPLEMENTED -> NotSupported, INTERNAL/FATAL -> Internal,
// OUT_OF_MEMORY -> Unavailable, everything else (parser, binder, conversion, invalid input...) ->
// InvalidArgument. The message is DuckDB's text, prefixed by `context` when it is not empty.
Status DuckErrorToStatus(duckdb_error_type type, std::string_view message, std::string_view context = {});

// SQL quoting. QuoteSqlIdentifier("a\"b") is "\"a\"\"b\"" (always quoted, so keywords and mixed case are
// safe); QuoteSqlString("it's") is "'it''s'". Both keep the bytes otherwise as given (UTF-8 in, UTF-8 out).
std::string QuoteSqlIdentifier(std::string_view name);
std::string QuoteSqlString(std::string_view text);

// DuckDB's SQL spelling of a (borrowed) logical type, e.g. "DECIMAL(23,5)" or "STRUCT(\"a\" INTEGER)[]".
std::string DuckTypeToString(duckdb_logical_type type);

// Owns a duckdb_logical_type.
class DuckLogicalType {
 public:
  DuckLogicalType() = default;
  explicit DuckLogicalType(duckdb_logical_type type) : type_(type) {}
  ~DuckLogicalType();
  DuckLogicalType(DuckLogicalType&& other) noexcept : type_(std::exchange(other.type_, nullptr)) {}
  DuckLogicalType& operator=(DuckLogicalType&& other) noexcept;
  DuckLogicalType(const DuckLogicalType&) = delete;
  DuckLogicalType& operator=(const DuckLogicalType&) = delete;

  duckdb_logical_type raw() const { return type_; }
  explicit operator bool() const { return type_ != nullptr; }
  duckdb_type id() const { return type_ ? duckdb_get_type_id(type_) : DUCKDB_TYPE_INVALID; }
  // DuckDB's SQL spelling of the type, e.g. "DECIMAL(23,5)" or "STRUCT(a INTEGER, b VARCHAR)[]".
  std::string ToString() const;

 private:
  duckdb_logical_type type_ = nullptr;
};

// Owns a duckdb_value.
class DuckValue {
 public:
  DuckValue() = default;
  explicit DuckValue(duckdb_value value) : value_(value) {}
  ~DuckValue();
  DuckValue(DuckValue&& other) noexcept : value_(std::exchange(other.value_, nullptr)) {}
  DuckValue& operator=(DuckValue&& other) noexcept;
  DuckValue(const DuckValue&) = delete;
  DuckValue& operator=(const DuckValue&) = delete;

  duckdb_value raw() const { return value_; }
  // Gives up ownership (for C calls that take it over).
  duckdb_value release() { return std::exchange(value_, nullptr); }
  explicit operator bool() const { return value_ != nullptr; }

 private:
  duckdb_value value_ = nullptr;
};

// Owns a duckdb_data_chunk. A default-constructed (or exhausted-fetch) chunk is empty and false.
class DuckDataChunk {
 public:
  DuckDataChunk() = default;
  explicit DuckDataChunk(duckdb_data_chunk chunk) : chunk_(chunk) {}
  ~DuckDataChunk();
  DuckDataChunk(DuckDataChunk&& other) noexcept : chunk_(std::exchange(other.chunk_, nullptr)) {}
  DuckDataChunk& operator=(DuckDataChunk&& other) noexcept;
  DuckDataChunk(const DuckDataChunk&) = delete;
  DuckDataChunk& operator=(const DuckDataChunk&) = delete;

  duckdb_data_chunk raw() const { return chunk_; }
  explicit operator bool() const { return chunk_ != nullptr; }
  idx_t size() const { return chunk_ ? duckdb_data_chunk_get_size(chunk_) : 0; }
  idx_t column_count() const { return chunk_ ? duckdb_data_chunk_get_column_count(chunk_) : 0; }
  // The column's vector; owned by the chunk (valid while the chunk lives).
  duckdb_vector column(idx_t index) const { return duckdb_data_chunk_get_vector(chunk_, index); }

 private:
  duckdb_data_chunk chunk_ = nullptr;
};

// Owns a duckdb_result: materialized (DuckConnection::Query) or streaming (QueryStreaming).
class DuckResult {
 public:
  DuckResult() = default;
  ~DuckResult();
  DuckResult(DuckResult&& other) noexcept;
  DuckResult& operator=(DuckResult&& other) noexcept;
  DuckResult(const DuckResult&) = delete;
  DuckResult& operator=(const DuckResult&) = delete;

  duckdb_result* raw() { return &result_; }
  idx_t column_count();
  std::string column_name(idx_t index);
  duckdb_type column_type(idx_t index);
  DuckLogicalType column_logical_type(idx_t index);
  idx_t rows_changed();  // for INSERT/UPDATE/DELETE/COPY

  // The next chunk, or an empty (false) chunk at the end. For a streaming result a failure during
  // execution also ends the stream: call error() after an empty chunk to tell the two apart.
  DuckDataChunk FetchChunk();
  // OK, or the error the query ended with (for streaming results that failed mid-way).
  Status error();

 private:
  friend class DuckConnection;
  friend class DuckPreparedStatement;
  duckdb_result result_{};
  bool valid_ = false;  // result_ holds something to destroy
};

// Owns a duckdb_prepared_statement. Parameters are 1-based, as in duckdb.h.
class DuckPreparedStatement {
 public:
  DuckPreparedStatement() = default;
  ~DuckPreparedStatement();
  DuckPreparedStatement(DuckPreparedStatement&& other) noexcept
      : stmt_(std::exchange(other.stmt_, nullptr)) {}
  DuckPreparedStatement& operator=(DuckPreparedStatement&& other) noexcept;
  DuckPreparedStatement(const DuckPreparedStatement&) = delete;
  DuckPreparedStatement& operator=(const DuckPreparedStatement&) = delete;

  duckdb_prepared_statement raw() const { return stmt_; }
  idx_t parameter_count() const { return duckdb_nparams(stmt_); }
  Status Bind(idx_t index, const DuckValue& value);
  Status BindNull(idx_t index);
  Status ClearBindings();
  // Runs the statement to completion (the whole result in memory).
  Result<DuckResult> Execute();
  // Runs it as a stream: chunks are produced as FetchChunk asks for them (bounded memory).
  Result<DuckResult> ExecuteStreaming();

 private:
  friend class DuckConnection;
  duckdb_prepared_statement stmt_ = nullptr;
};

// Owns a duckdb_appender (bulk insert into a table of the connection's database).
class DuckAppender {
 public:
  DuckAppender() = default;
  ~DuckAppender();
  DuckAppender(DuckAppender&& other) noexcept : appender_(std::exchange(other.appender_, nullptr)) {}
  DuckAppender& operator=(DuckAppender&& other) noexcept;
  DuckAppender(const DuckAppender&) = delete;
  DuckAppender& operator=(const DuckAppender&) = delete;

  duckdb_appender raw() const { return appender_; }
  // Appends a whole chunk whose columns match the table's.
  Status AppendChunk(const DuckDataChunk& chunk);
  // Flushes buffered rows into the table and closes the appender; reports constraint or conversion
  // errors. The destructor closes silently (errors lost), so call Close() on every success path.
  Status Close();

 private:
  friend class DuckConnection;
  Status LastError(std::string_view context) const;
  duckdb_appender appender_ = nullptr;
};

class DuckDB;
struct DuckDatabaseBox;  // the duckdb_database, closed by its destructor

// Owns a duckdb_connection, and shares ownership of its database.
class DuckConnection {
 public:
  DuckConnection() = default;
  ~DuckConnection();
  DuckConnection(DuckConnection&& other) noexcept;
  DuckConnection& operator=(DuckConnection&& other) noexcept;
  DuckConnection(const DuckConnection&) = delete;
  DuckConnection& operator=(const DuckConnection&) = delete;

  duckdb_connection raw() const { return conn_; }

  // Runs `sql` (one or more statements; the last one's result is returned) and materializes the result.
  Result<DuckResult> Query(std::string_view sql);
  // Runs one statement as a stream (bounded memory for large scans).
  Result<DuckResult> QueryStreaming(std::string_view sql);
  // Runs `sql` and discards any result.
  Status Execute(std::string_view sql);
  Result<DuckPreparedStatement> Prepare(std::string_view sql);
  // An appender into `table` (in `schema`, "main" when empty, of `catalog`, the default database when
  // empty; temporary tables live in catalog "temp").
  Result<DuckAppender> CreateAppender(std::string_view table, std::string_view schema = {},
                                      std::string_view catalog = {});
  // Asks the running query to stop; safe from another thread. The query fails with Aborted.
  void Interrupt();

 private:
  friend class DuckDB;
  std::shared_ptr<DuckDatabaseBox> database_;  // keeps the database open while this connection lives
  duckdb_connection conn_ = nullptr;
};

// Configuration options for DuckDB::Open, as DuckDB's SET names them: {"threads", "1"},
// {"memory_limit", "1GB"}, {"access_mode", "READ_ONLY"}, {"allow_unsigned_extensions", "false"}...
using DuckConfig = std::vector<std::pair<std::string, std::string>>;

// A DuckDB database (in memory for ":memory:" or an empty path, else a database file), open, or opened
// on first use (OpenLater). Thread-safety: const methods from any thread (the first use opens it once).
class DuckDB {
 public:
  DuckDB() = default;
  static Result<DuckDB> Open(const std::string& path = ":memory:", const DuckConfig& config = {});
  // The same database, opened on first use (raw, Connect), once, by whichever thread comes first: for
  // owners that may never need it (a writer whose files Tide's own Parquet encoder writes), so that
  // creating them does not wait for DuckDB's start. An error opening it is returned by each use.
  static DuckDB OpenLater(const std::string& path = ":memory:", const DuckConfig& config = {});

  duckdb_database raw() const;  // nullptr when the database could not be opened
  explicit operator bool() const { return database_ != nullptr; }
  // A new connection; use one per thread.
  Result<DuckConnection> Connect() const;
  // Turns DuckDB's cache of file contents off and empties its map of the files opened so far, which
  // DuckDB keeps even with the cache off and never trims: a long-running writer that reads files once
  // and then deletes them (compaction) calls this after each task. REQUIRES: no file of this database
  // is open (no reader in flight on any connection).
  Status ForgetFiles() const;

 private:
  Status EnsureOpen() const;  // opens a database of OpenLater, once
  std::shared_ptr<DuckDatabaseBox> database_;  // closed when the last owner goes
};

}  // namespace tide
