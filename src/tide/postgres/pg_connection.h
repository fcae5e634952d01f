// PgConnection and PgResult: RAII owners of a libpq connection (PGconn) and a query result (PGresult),
// plus conninfo helpers (parsing key=value strings and postgresql:// URIs, redacting passwords).
//
// A PgConnection is either a regular SQL session or a walsender session opened with
// `replication=database` (which accepts replication commands and simple-query SQL only, no extended
// protocol). Every setting of the caller's conninfo is honoured as libpq honours it (sslmode,
// sslrootcert, target_session_attrs, ...): Tide only adds `replication`, a default `connect_timeout` and a
// fallback application name. Passwords never appear in a Status or a log line: messages name the
// connection by RedactConnInfo(). Errors carry the server's SQLSTATE in the message and in
// last_sqlstate().
//
// Thread-safety: a PgConnection is used by one thread at a time (libpq's rule); distinct connections are
// independent. PgResult is an immutable value once made.
#pragma once

#include <libpq-fe.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tide/base/result.h"

namespace tide {

// A query result. Row and column indexes are checked by the caller (rows(), columns()).
class PgResult {
 public:
  PgResult() = default;
  explicit PgResult(PGresult* result) : result_(result) {}
  ~PgResult() { Reset(); }
  PgResult(PgResult&& other) noexcept : result_(std::exchange(other.result_, nullptr)) {}
  PgResult& operator=(PgResult&& other) noexcept {
    if (this != &other) {
      Reset();
      result_ = std::exchange(other.result_, nullptr);
    }
    return *this;
  }
  PgResult(const PgResult&) = delete;
  PgResult& operator=(const PgResult&) = delete;

  PGresult* get() const { return result_; }
  ExecStatusType status() const { return result_ ? PQresultStatus(result_) : PGRES_FATAL_ERROR; }
  int rows() const { return result_ ? PQntuples(result_) : 0; }
  int columns() const { return result_ ? PQnfields(result_) : 0; }
  // -1 when the result has no such column.
  int ColumnIndex(const char* name) const { return result_ ? PQfnumber(result_, name) : -1; }
  bool IsNull(int row, int column) const { return PQgetisnull(result_, row, column) != 0; }
  // The text of a value ("" for NULL; check IsNull when the difference matters).
  std::string_view Value(int row, int column) const {
    return std::string_view(PQgetvalue(result_, row, column),
                            static_cast<size_t>(PQgetlength(result_, row, column)));
  }
  // The value of the named column, nullopt when NULL or when the column is absent.
  std::optional<std::string> Get(int row, const char* column) const;

 private:
  void Reset() {
    if (result_) PQclear(result_);
    result_ = nullptr;
  }
  PGresult* result_ = nullptr;
};

enum class PgSessionKind {
  kSql,          // a regular session
  kReplication,  // replication=database: replication commands and simple-query SQL
};

class PgConnection {
 public:
  // Connects with `conninfo` (key=value or a postgresql:// URI). Fails with Unavailable when the server
  // cannot be reached or refuses the login, InvalidArgument when the conninfo does not parse.
  // `session_options` (e.g. "-c DateStyle=ISO") are appended to the conninfo's own `options`.
  static Result<std::unique_ptr<PgConnection>> Connect(std::string_view conninfo,
                                                       PgSessionKind kind = PgSessionKind::kSql,
                                                       std::string_view session_options = {});
  ~PgConnection();
  PgConnection(const PgConnection&) = delete;
  PgConnection& operator=(const PgConnection&) = delete;

  // Runs one statement with the simple query protocol; OK for results that return rows
  // (PGRES_TUPLES_OK) or none (PGRES_COMMAND_OK). `sql` may hold several statements; the last result
  // is returned.
  Result<PgResult> Query(std::string_view sql);
  // Query() for statements whose rows do not matter.
  Status Execute(std::string_view sql);
  // Sends `sql` that starts COPY ... TO STDOUT or START_REPLICATION; OK when the server answers with
  // the expected COPY state (PGRES_COPY_OUT or PGRES_COPY_BOTH).
  Status StartCopy(std::string_view sql, ExecStatusType expected);

  // The Status for the connection's current error (after a libpq call failed), with `context` first.
  Status LastError(std::string_view context);
  // The SQLSTATE of the last failed Query/Execute/StartCopy ("" if none or not a server error).
  const std::string& last_sqlstate() const { return last_sqlstate_; }

  std::string QuoteLiteral(std::string_view text) const;     // 'it''s', safe for this connection
  std::string QuoteIdentifier(std::string_view name) const;  // "Weird ""name"""

  PGconn* raw() const { return conn_; }
  int server_version() const { return PQserverVersion(conn_); }  // 150018 for 15.18
  PgSessionKind kind() const { return kind_; }
  bool ok() const { return PQstatus(conn_) == CONNECTION_OK; }
  // The conninfo with the password replaced: what messages may show.
  const std::string& redacted_conninfo() const { return redacted_conninfo_; }

 private:
  PgConnection(PGconn* conn, PgSessionKind kind, std::string redacted)
      : conn_(conn), kind_(kind), redacted_conninfo_(std::move(redacted)) {}
  Status ResultError(const PgResult& result, std::string_view sql);

  PGconn* conn_;
  PgSessionKind kind_;
  std::string redacted_conninfo_;
  std::string last_sqlstate_;
};

// One keyword=value setting of a conninfo.
struct ConnInfoSetting {
  std::string keyword;
  std::string value;
};

// Parses a conninfo (key=value string or postgresql:// URI) into the settings it gives explicitly,
// in libpq's keyword order. The error names the problem without echoing the string (which may hold a
// password).
Result<std::vector<ConnInfoSetting>> ParseConnInfo(std::string_view conninfo);
// The value of `keyword` in `conninfo`, nullopt if absent or unparseable.
std::optional<std::string> ConnInfoValue(std::string_view conninfo, std::string_view keyword);
// The conninfo as `key=value` pairs with any password shown as `********`. Never fails: an
// unparseable string becomes "<conninfo that does not parse>" (it is not echoed: it may hold a secret).
std::string RedactConnInfo(std::string_view conninfo);
// The SQLSTATE of a server error result ("" when none).
std::string SqlState(const PGresult* result);

}  // namespace tide
