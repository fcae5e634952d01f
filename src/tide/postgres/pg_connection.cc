#include "tide/postgres/pg_connection.h"

#include <cstring>

#include "tide/base/strings.h"

namespace tide {
namespace {

struct ConnInfoOptionsDeleter {
  void operator()(PQconninfoOption* options) const { PQconninfoFree(options); }
};
using ConnInfoOptions = std::unique_ptr<PQconninfoOption, ConnInfoOptionsDeleter>;

Result<ConnInfoOptions> ParseOptions(std::string_view conninfo) {
  std::string text(conninfo);
  char* error = nullptr;
  ConnInfoOptions options(PQconninfoParse(text.c_str(), &error));
  if (!options) {
    std::string why = error ? std::string(Trim(error)) : "out of memory";
    if (error) PQfreemem(error);
    return Status::InvalidArgument(
        "the PostgreSQL connection string does not parse ({}); give key=value pairs such as "
        "'host=127.0.0.1 port=5432 dbname=app user=tide' or a postgresql:// URI",
        why);
  }
  return options;
}

// Maps a server error to a status code by its SQLSTATE class, so callers can tell a transient loss
// from a mistake that a retry will not fix.
StatusCode CodeForSqlState(std::string_view state) {
  if (state.empty()) return StatusCode::kUnavailable;  // no server answer: the connection broke
  if (StartsWith(state, "08") || StartsWith(state, "57P") || state == "53300") {
    return StatusCode::kUnavailable;  // connection exception, shutdown, too many connections
  }
  if (state == "55006") return StatusCode::kConflict;  // object in use (an active slot)
  if (state == "42704" || state == "42P01" || state == "3D000") return StatusCode::kNotFound;
  if (StartsWith(state, "42") || StartsWith(state, "22") || StartsWith(state, "28")) {
    return StatusCode::kInvalidArgument;
  }
  if (state == "55000") return StatusCode::kInvalidArgument;  // object not in prerequisite state
  return StatusCode::kIOError;
}

std::string FirstLine(std::string_view sql) {
  std::string_view s = Trim(sql);
  size_t nl = s.find('\n');
  if (nl != std::string_view::npos) s = s.substr(0, nl);
  if (s.size() > 120) return std::string(s.substr(0, 117)) + "...";
  return std::string(s);
}

}  // namespace

std::optional<std::string> PgResult::Get(int row, const char* column) const {
  int c = ColumnIndex(column);
  if (c < 0 || row < 0 || row >= rows() || IsNull(row, c)) return std::nullopt;
  return std::string(Value(row, c));
}

Result<std::vector<ConnInfoSetting>> ParseConnInfo(std::string_view conninfo) {
  TIDE_ASSIGN_OR_RETURN(ConnInfoOptions options, ParseOptions(conninfo));
  std::vector<ConnInfoSetting> settings;
  for (PQconninfoOption* o = options.get(); o->keyword != nullptr; ++o) {
    if (o->val != nullptr) settings.push_back({o->keyword, o->val});
  }
  return settings;
}

std::optional<std::string> ConnInfoValue(std::string_view conninfo, std::string_view keyword) {
  auto settings = ParseConnInfo(conninfo);
  if (!settings.ok()) return std::nullopt;
  for (const auto& s : *settings) {
    if (s.keyword == keyword) return s.value;
  }
  return std::nullopt;
}

std::string RedactConnInfo(std::string_view conninfo) {
  auto options = ParseOptions(conninfo);
  if (!options.ok()) return "<conninfo that does not parse>";
  std::string out;
  for (PQconninfoOption* o = options->get(); o->keyword != nullptr; ++o) {
    if (o->val == nullptr) continue;
    if (!out.empty()) out += ' ';
    out += o->keyword;
    out += '=';
    // dispchar '*' marks secrets (password, sslpassword); treat any keyword naming a password alike.
    bool secret = (o->dispchar && std::strchr(o->dispchar, '*') != nullptr) ||
                  std::string_view(o->keyword).find("password") != std::string_view::npos;
    if (secret) {
      out += "********";
      continue;
    }
    std::string_view v = o->val;
    bool plain = !v.empty() && v.find_first_of(" '\\") == std::string_view::npos;
    if (plain) {
      out += v;
    } else {
      out += '\'';
      for (char c : v) {
        if (c == '\'' || c == '\\') out += '\\';
        out += c;
      }
      out += '\'';
    }
  }
  return out;
}

std::string SqlState(const PGresult* result) {
  if (result == nullptr) return "";
  const char* state = PQresultErrorField(result, PG_DIAG_SQLSTATE);
  return state ? state : "";
}

Result<std::unique_ptr<PgConnection>> PgConnection::Connect(std::string_view conninfo, PgSessionKind kind,
                                                            std::string_view session_options) {
  TIDE_RETURN_IF_ERROR(ParseOptions(conninfo).status());
  std::string redacted = RedactConnInfo(conninfo);
  std::string dbname(conninfo);
  // libpq expands `dbname` into its settings; keywords before it are defaults the caller's string
  // overrides, keywords after it override the caller's string.
  std::vector<const char*> keys = {"connect_timeout", "fallback_application_name", "dbname"};
  std::vector<const char*> values = {"10", "tide", dbname.c_str()};
  if (kind == PgSessionKind::kReplication) {
    keys.push_back("replication");
    values.push_back("database");
  }
  std::string options;
  if (!session_options.empty()) {
    options = ConnInfoValue(conninfo, "options").value_or("");
    if (!options.empty()) options += ' ';
    options += session_options;
    keys.push_back("options");
    values.push_back(options.c_str());
  }
  keys.push_back(nullptr);
  values.push_back(nullptr);
  PGconn* conn = PQconnectdbParams(keys.data(), values.data(), /*expand_dbname=*/1);
  if (conn == nullptr) return Status::Unavailable("cannot connect to PostgreSQL ({}): out of memory", redacted);
  if (PQstatus(conn) != CONNECTION_OK) {
    std::string why(Trim(PQerrorMessage(conn)));
    PQfinish(conn);
    std::string hint;
    if (why.find("must be superuser or replication role") != std::string::npos ||
        why.find("permission denied to start WAL sender") != std::string::npos ||
        why.find("REPLICATION attribute") != std::string::npos) {
      hint = "; grant it with ALTER ROLE <user> WITH REPLICATION (or connect as a role that has it)";
    } else if (why.find("pg_hba.conf") != std::string::npos) {
      hint = kind == PgSessionKind::kReplication
                 ? "; allow the user in pg_hba.conf (replication connections to a database match the "
                   "database's entries)"
                 : "; allow the user in pg_hba.conf";
    }
    return Status::Unavailable("cannot connect to PostgreSQL ({}): {}{}", redacted, why, hint);
  }
  return std::unique_ptr<PgConnection>(new PgConnection(conn, kind, std::move(redacted)));
}

PgConnection::~PgConnection() {
  if (conn_) PQfinish(conn_);
}

Status PgConnection::ResultError(const PgResult& result, std::string_view sql) {
  last_sqlstate_ = SqlState(result.get());
  std::string why = result.get() ? std::string(Trim(PQresultErrorMessage(result.get()))) : "";
  if (why.empty()) why = std::string(Trim(PQerrorMessage(conn_)));
  if (why.empty()) why = "unexpected result status";
  StatusCode code = CodeForSqlState(last_sqlstate_);
  if (PQstatus(conn_) != CONNECTION_OK) code = StatusCode::kUnavailable;
  std::string state = last_sqlstate_.empty() ? "" : " [SQLSTATE " + last_sqlstate_ + "]";
  return Status(code, fmt::format("PostgreSQL ({}) failed on `{}`: {}{}", redacted_conninfo_, FirstLine(sql),
                                  why, state));
}

Result<PgResult> PgConnection::Query(std::string_view sql) {
  last_sqlstate_.clear();
  std::string text(sql);
  PgResult result(PQexec(conn_, text.c_str()));
  ExecStatusType st = result.status();
  if (st == PGRES_TUPLES_OK || st == PGRES_COMMAND_OK) return result;
  return ResultError(result, sql);
}

Status PgConnection::Execute(std::string_view sql) { return Query(sql).status(); }

Status PgConnection::StartCopy(std::string_view sql, ExecStatusType expected) {
  last_sqlstate_.clear();
  std::string text(sql);
  PgResult result(PQexec(conn_, text.c_str()));
  if (result.status() == expected) return Status::OK();
  return ResultError(result, sql);
}

Status PgConnection::LastError(std::string_view context) {
  std::string why(Trim(PQerrorMessage(conn_)));
  StatusCode code = PQstatus(conn_) == CONNECTION_OK ? StatusCode::kIOError : StatusCode::kUnavailable;
  return Status(code, fmt::format("{} ({}): {}", context, redacted_conninfo_, why.empty() ? "unknown error" : why));
}

std::string PgConnection::QuoteLiteral(std::string_view text) const {
  char* quoted = PQescapeLiteral(conn_, text.data(), text.size());
  if (quoted == nullptr) return "''";
  std::string out(quoted);
  PQfreemem(quoted);
  return out;
}

std::string PgConnection::QuoteIdentifier(std::string_view name) const {
  char* quoted = PQescapeIdentifier(conn_, name.data(), name.size());
  if (quoted == nullptr) return "\"\"";
  std::string out(quoted);
  PQfreemem(quoted);
  return out;
}

}  // namespace tide
