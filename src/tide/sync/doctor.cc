#include "tide/sync/doctor.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
#include <set>
#include <thread>

#include "tide/base/logging.h"
#include "tide/base/strings.h"
#include "tide/postgres/lsn.h"
#include "tide/postgres/pg_type.h"
#include "tide/postgres/pg_type_mapping.h"
#include "tide/postgres/replication_slot.h"
#include "tide/postgres/sql_quote.h"

namespace tide {

std::string_view DoctorOutcomeName(DoctorOutcome outcome) {
  switch (outcome) {
    case DoctorOutcome::kOk:
      return "ok";
    case DoctorOutcome::kWarn:
      return "warn";
    case DoctorOutcome::kFail:
      return "FAIL";
  }
  return "?";
}

bool DoctorReport::ok() const { return failures() == 0; }

int DoctorReport::failures() const {
  return static_cast<int>(std::count_if(checks.begin(), checks.end(),
                                        [](const DoctorCheck& c) { return c.outcome == DoctorOutcome::kFail; }));
}

namespace {

void FormatCheck(const DoctorCheck& check, std::string* out) {
  fmt::format_to(std::back_inserter(*out), "{:<5} {}\n", DoctorOutcomeName(check.outcome), check.what);
  for (const std::string& line : check.fix) fmt::format_to(std::back_inserter(*out), "        {}\n", line);
}

}  // namespace

std::string DoctorReport::Format() const {
  std::string out;
  for (const DoctorCheck& check : checks) FormatCheck(check, &out);
  return out;
}

std::string DoctorReport::FormatFailures() const {
  std::string out;
  for (const DoctorCheck& check : checks) {
    if (check.outcome == DoctorOutcome::kFail) FormatCheck(check, &out);
  }
  return out;
}

// ---- pure helpers ----

namespace {

// Splits "64MB" into 64 and "MB"; the number may be negative (only -1 is meaningful).
bool SplitNumberAndUnit(std::string_view text, int64_t* number, std::string_view* unit) {
  text = Trim(text);
  size_t i = 0;
  if (i < text.size() && text[i] == '-') ++i;
  const size_t digits_start = i;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  if (i == digits_start) return false;
  auto parsed = ParseInt64(text.substr(0, i), "number");
  if (!parsed.ok()) return false;
  *number = *parsed;
  *unit = Trim(text.substr(i));
  return true;
}

}  // namespace

Result<int64_t> ParsePgSize(std::string_view text) {
  int64_t number = 0;
  std::string_view unit;
  if (!SplitNumberAndUnit(text, &number, &unit)) {
    return Status::InvalidArgument("'{}' is not a PostgreSQL size (a number and B, kB, MB, GB or TB)", text);
  }
  if (number == -1) return int64_t{-1};
  if (number < 0) return Status::InvalidArgument("size '{}' is negative", text);
  int64_t factor = 0;
  if (unit.empty() || unit == "B") factor = 1;
  else if (unit == "kB") factor = int64_t{1} << 10;
  else if (unit == "MB") factor = int64_t{1} << 20;
  else if (unit == "GB") factor = int64_t{1} << 30;
  else if (unit == "TB") factor = int64_t{1} << 40;
  else return Status::InvalidArgument("'{}' is not a PostgreSQL size: unit {} is none of B, kB, MB, GB, TB", text, unit);
  if (number > INT64_MAX / factor) return Status::InvalidArgument("size '{}' is too large", text);
  return number * factor;
}

Result<int64_t> ParsePgDuration(std::string_view text) {
  int64_t number = 0;
  std::string_view unit;
  if (!SplitNumberAndUnit(text, &number, &unit)) {
    return Status::InvalidArgument("'{}' is not a PostgreSQL duration (a number and us, ms, s, min, h or d)", text);
  }
  if (number == -1) return int64_t{-1};
  if (number < 0) return Status::InvalidArgument("duration '{}' is negative", text);
  if (unit == "us") return number / 1000;
  int64_t factor = 0;
  if (unit.empty() || unit == "ms") factor = 1;
  else if (unit == "s") factor = 1000;
  else if (unit == "min") factor = 60 * 1000;
  else if (unit == "h") factor = 60 * 60 * 1000;
  else if (unit == "d") factor = 24 * 60 * 60 * 1000;
  else return Status::InvalidArgument("'{}' is not a PostgreSQL duration: unit {} is none of us, ms, s, min, h, d", text, unit);
  if (number > INT64_MAX / factor) return Status::InvalidArgument("duration '{}' is too large", text);
  return number * factor;
}

Result<int64_t> PgSettingValue(std::string_view setting, std::string_view unit) {
  TIDE_ASSIGN_OR_RETURN(int64_t value, ParseInt64(Trim(setting), "setting"));
  if (value == -1) return value;
  if (unit.empty()) return value;
  // A unit with a number ("8kB") is a multiple of that many units.
  std::string with_number(unit);
  if (!std::isdigit(static_cast<unsigned char>(with_number[0]))) with_number = "1" + with_number;
  int64_t per = 0;
  if (auto size = ParsePgSize(with_number); size.ok()) {
    per = *size;
  } else if (auto duration = ParsePgDuration(with_number); duration.ok()) {
    per = *duration;
  } else {
    return Status::InvalidArgument("pg_settings unit '{}' is neither a size nor a duration", unit);
  }
  return value * per;
}

std::string FormatByteSize(int64_t bytes) {
  if (bytes < 1024) return fmt::format("{} bytes", bytes);
  static constexpr const char* kUnits[] = {"kB", "MB", "GB", "TB", "PB"};
  double value = static_cast<double>(bytes);
  int unit = -1;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  if (value >= 100 || value == static_cast<double>(static_cast<int64_t>(value))) {
    return fmt::format("{:.0f} {}", value, kUnits[unit]);
  }
  return fmt::format("{:.1f} {}", value, kUnits[unit]);
}

std::string SqlIdentifier(std::string_view name) {
  bool bare = !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0]));
  for (char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) bare = false;
  }
  if (bare) return std::string(name);
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

// ---- the checks ----

namespace {

std::string FormatMillis(int64_t ms) {
  if (ms % (60 * 60 * 1000) == 0) return fmt::format("{}h", ms / (60 * 60 * 1000));
  if (ms % (60 * 1000) == 0) return fmt::format("{}min", ms / (60 * 1000));
  if (ms % 1000 == 0) return fmt::format("{}s", ms / 1000);
  return fmt::format("{}ms", ms);
}

// At most `n` names, then "and k more".
std::string ListNames(const std::vector<std::string>& names, size_t n = 8) {
  if (names.size() <= n) return Join(names, ", ");
  std::vector<std::string> head(names.begin(), names.begin() + static_cast<std::ptrdiff_t>(n));
  return fmt::format("{} and {} more", Join(head, ", "), names.size() - n);
}

// One row of pg_settings as the session sees it.
struct Setting {
  std::string setting;
  std::string unit;
  std::string source;  // default, configuration file, database, user, database user, client, ...
};

// A selected table as the catalog describes it.
struct TableFacts {
  PgTableName name;
  std::string oid;
  char relkind = 'r';
  char replident = 'd';
  std::string owner;
  bool owned = false;  // the session's role is (a member of) the owner
  bool can_select = false;
  std::vector<std::string> leaves_without_select;  // partitions the copy reads but may not
  bool has_primary_key = false;
};

// The server's refusal of a connection, as the fix for it.
DoctorCheck ConnectionRefused(const Status& status, std::string_view conninfo, bool replication) {
  DoctorCheck check;
  check.outcome = DoctorOutcome::kFail;
  const std::string& msg = status.message();
  check.what = replication ? "the server refuses a replication connection: " + msg : msg;
  const bool has_password = ConnInfoValue(conninfo, "password").has_value() ||
                            (std::getenv("PGPASSWORD") != nullptr && *std::getenv("PGPASSWORD") != '\0');
  const std::string method = has_password ? "scram-sha-256" : "trust";
  size_t at = msg.find("no pg_hba.conf entry for ");
  if (at != std::string::npos) {
    // no pg_hba.conf entry for [replication connection from] host "H", user "U", database "D", ...
    auto quoted_after = [&](std::string_view key) -> std::string {
      size_t k = msg.find(std::string(key) + " \"", at);
      if (k == std::string::npos) return "";
      size_t start = k + key.size() + 2;
      size_t end = msg.find('"', start);
      return end == std::string::npos ? "" : msg.substr(start, end - start);
    };
    std::string host = quoted_after("host"), user = quoted_after("user"), database = quoted_after("database");
    if (database.empty()) database = std::string(ConnInfoValue(conninfo, "dbname").value_or("all"));
    if (user.empty()) user = "all";
    std::string line;
    if (host.empty() || host == "[local]") {
      line = fmt::format("local {} {} {}", database, user, method);
    } else {
      const char* mask = host.find(':') != std::string::npos ? "/128" : "/32";
      line = fmt::format("host {} {} {}{} {}", database, user, host, mask, method);
    }
    check.fix = {"add this line to pg_hba.conf (SHOW hba_file), above any line that would match first: " + line,
                 "(a logical replication connection matches the lines of its database, like any session; "
                 "`replication` lines serve physical replication only. Use the method your other lines use; "
                 + std::string(has_password ? "" : "trust only where the network is trusted, ") +
                 "scram-sha-256 for password logins)",
                 "then, as a superuser, reload the configuration:", "SELECT pg_reload_conf();"};
  } else if (msg.find("must be superuser or replication role") != std::string::npos ||
             msg.find("permission denied to start WAL sender") != std::string::npos ||
             msg.find("REPLICATION attribute") != std::string::npos) {
    std::string user(ConnInfoValue(conninfo, "user").value_or("<role>"));
    check.fix = {"as a superuser:", fmt::format("ALTER ROLE {} WITH REPLICATION;", SqlIdentifier(user))};
  } else if (msg.find("max_wal_senders") != std::string::npos ||
             msg.find("too many clients") != std::string::npos ||
             msg.find("remaining connection slots") != std::string::npos) {
    check.fix = {"free a connection, or raise the limit named above, e.g. as a superuser:",
                 "ALTER SYSTEM SET max_wal_senders = 20;", "then restart the server"};
  } else if (msg.find("password authentication failed") != std::string::npos) {
    check.fix = {"check the password: password= in the conninfo, PGPASSWORD, or ~/.pgpass"};
  } else if (size_t r = msg.find("role \""); r != std::string::npos && msg.find("does not exist") != std::string::npos) {
    size_t end = msg.find('"', r + 6);
    std::string role = msg.substr(r + 6, end == std::string::npos ? std::string::npos : end - r - 6);
    check.fix = {"check user= in the conninfo, or create the role as a superuser:",
                 fmt::format("CREATE ROLE {} WITH LOGIN REPLICATION;", SqlIdentifier(role))};
  } else if (msg.find("not permitted to log in") != std::string::npos) {
    std::string user(ConnInfoValue(conninfo, "user").value_or("<role>"));
    check.fix = {"as a superuser:", fmt::format("ALTER ROLE {} WITH LOGIN;", SqlIdentifier(user))};
  } else if (msg.find("permission denied for database") != std::string::npos) {
    std::string user(ConnInfoValue(conninfo, "user").value_or("<role>"));
    std::string db(ConnInfoValue(conninfo, "dbname").value_or("<database>"));
    check.fix = {"as a superuser or the database's owner:",
                 fmt::format("GRANT CONNECT ON DATABASE {} TO {};", SqlIdentifier(db), SqlIdentifier(user))};
  } else if (msg.find("does not exist") != std::string::npos) {
    check.fix = {"check dbname= in the conninfo (SELECT datname FROM pg_database lists the databases)"};
  } else {
    check.fix = {"check host=, port= and sslmode= in the conninfo, that the server runs and listens there "
                 "(listen_addresses), and that no firewall is in between"};
  }
  return check;
}

class Doctor {
 public:
  Doctor(PgConnection& sql, const DoctorOptions& options) : sql_(sql), o_(options) {}

  Result<DoctorReport> Run() {
    TIDE_RETURN_IF_ERROR(ReadSession());
    Add(DoctorOutcome::kOk, fmt::format("connected to {} as role {} (PostgreSQL {})", sql_.redacted_conninfo(),
                                        role_, server_version_));
    Guard("wal_level", [&] { return CheckWalLevel(); });
    Guard("the role's REPLICATION attribute", [&] { return CheckRoleAttribute(); });
    Guard("a replication connection", [&] { return CheckReplicationConnection(); });
    Guard("the replication slot", [&] { return ReadSlot(); });
    Guard("max_replication_slots", [&] { return CheckSlotRoom(); });
    Guard("max_wal_senders", [&] { return CheckSenderRoom(); });
    Guard("WAL retention", [&] { return CheckWalRetention(); });
    Guard("the replication slot", [&] { return CheckSlot(); });
    Guard("CONNECT on the database", [&] { return CheckConnect(); });
    {
      Status st = ReadTables();
      if (!st.ok()) {
        if (o_.selection_errors_as_status) return st;
        Add(DoctorOutcome::kFail, "tables: " + st.message(),
            {"check --tables (names as schema.table; patterns are regular expressions matching the whole name)"});
      }
    }
    if (tables_known_) {
      Guard("USAGE on the schemas", [&] { return CheckSchemaUsage(); });
      Guard("SELECT on the tables", [&] { return CheckSelect(); });
      Guard("default privileges", [&] { return CheckDefaultPrivileges(); });
    }
    Guard("the publication", [&] { return CheckPublication(); });
    Guard("idle_in_transaction_session_timeout", [&] { return CheckTimeout("idle_in_transaction_session_timeout"); });
    Guard("statement_timeout", [&] { return CheckTimeout("statement_timeout"); });
    Guard("max_connections", [&] { return CheckConnectionRoom(); });
    if (tables_known_) {
      Guard("primary keys and replica identity", [&] { return CheckKeys(); });
      Guard("column types", [&] { return CheckTypes(); });
    }
    return std::move(report_);
  }

 private:
  void Add(DoctorOutcome outcome, std::string what, std::vector<std::string> fix = {}) {
    report_.checks.push_back(DoctorCheck{outcome, std::move(what), std::move(fix)});
  }

  // A check whose queries fail is a warning saying so, not the end of the report.
  template <typename F>
  void Guard(std::string_view what, F check) {
    Status st = check();
    if (!st.ok()) Add(DoctorOutcome::kWarn, fmt::format("could not check {}: {}", what, st.message()));
  }

  Status ReadSession() {
    TIDE_ASSIGN_OR_RETURN(
        PgResult r,
        sql_.Query("SELECT current_user, r.rolsuper, r.rolreplication, current_database(), "
                   "current_setting('server_version'), has_database_privilege(current_database(), 'CONNECT'), "
                   "has_database_privilege(current_database(), 'CREATE') "
                   "FROM pg_catalog.pg_roles r WHERE r.rolname = current_user"));
    if (r.rows() != 1) return Status::Internal("the session's role is not in pg_roles");
    role_ = std::string(r.Value(0, 0));
    superuser_ = r.Value(0, 1) == "t";
    replication_ = r.Value(0, 2) == "t";
    database_ = std::string(r.Value(0, 3));
    server_version_ = std::string(r.Value(0, 4));
    can_connect_ = r.Value(0, 5) == "t";
    can_create_ = r.Value(0, 6) == "t";
    TIDE_ASSIGN_OR_RETURN(
        PgResult s, sql_.Query("SELECT name, setting, coalesce(unit, ''), source FROM pg_catalog.pg_settings WHERE name IN "
                               "('wal_level', 'max_replication_slots', 'max_wal_senders', 'max_slot_wal_keep_size', "
                               "'wal_keep_size', 'idle_in_transaction_session_timeout', 'statement_timeout', "
                               "'max_connections', 'superuser_reserved_connections')"));
    for (int i = 0; i < s.rows(); ++i) {
      settings_[std::string(s.Value(i, 0))] =
          Setting{std::string(s.Value(i, 1)), std::string(s.Value(i, 2)), std::string(s.Value(i, 3))};
    }
    return Status::OK();
  }

  Result<int64_t> SettingValue(const std::string& name) {
    auto it = settings_.find(name);
    if (it == settings_.end()) return Status::NotFound("setting {} is not in pg_settings", name);
    return PgSettingValue(it->second.setting, it->second.unit);
  }

  std::string Role() const { return SqlIdentifier(role_); }

  Status CheckWalLevel() {
    const std::string level = settings_.count("wal_level") ? settings_["wal_level"].setting : "";
    if (level == "logical") {
      Add(DoctorOutcome::kOk, "wal_level = logical");
    } else {
      Add(DoctorOutcome::kFail,
          fmt::format("wal_level = {}: logical replication needs wal_level=logical (PostgreSQL runs with "
                      "wal_level={})",
                      level, level),
          {"as a superuser:", "ALTER SYSTEM SET wal_level = logical;",
           "then restart the server (pg_ctl restart, or systemctl restart postgresql): wal_level changes only at "
           "start"});
    }
    return Status::OK();
  }

  Status CheckRoleAttribute() {
    if (superuser_) {
      Add(DoctorOutcome::kOk, fmt::format("role {} is a superuser, so it may replicate (a role of its own WITH "
                                          "REPLICATION and SELECT on the tables is safer)",
                                          role_));
    } else if (replication_) {
      Add(DoctorOutcome::kOk, fmt::format("role {} has the REPLICATION attribute", role_));
    } else {
      Add(DoctorOutcome::kFail,
          fmt::format("role {} lacks the REPLICATION attribute needed to stream changes (and to create the slot)",
                      role_),
          {"as a superuser:", fmt::format("ALTER ROLE {} WITH REPLICATION;", Role())});
    }
    return Status::OK();
  }

  // pg_hba.conf, the REPLICATION attribute and max_wal_senders together: the server's own answer.
  Status CheckReplicationConnection() {
    auto conn = PgConnection::Connect(o_.conninfo, PgSessionKind::kReplication);
    if (!conn.ok()) {
      if (conn.status().IsInvalidArgument()) return conn.status();
      DoctorCheck check = ConnectionRefused(conn.status(), o_.conninfo, /*replication=*/true);
      if (!replication_ && !superuser_) check.fix = {"as a superuser:", fmt::format("ALTER ROLE {} WITH REPLICATION;", Role())};
      report_.checks.push_back(std::move(check));
      return Status::OK();
    }
    auto identified = (*conn)->Query("IDENTIFY_SYSTEM");
    if (!identified.ok()) {
      Add(DoctorOutcome::kFail, "a replication connection opens but IDENTIFY_SYSTEM fails: " + identified.status().message(),
          {"check the server log for why the walsender refuses"});
      return Status::OK();
    }
    Add(DoctorOutcome::kOk, "the server accepts a replication connection (pg_hba.conf, REPLICATION, a free walsender)");
    return Status::OK();
  }

  Status ReadSlot() {
    TIDE_ASSIGN_OR_RETURN(PgResult used, sql_.Query("SELECT count(*) FROM pg_catalog.pg_replication_slots"));
    TIDE_ASSIGN_OR_RETURN(slots_in_use_, ParseInt64(used.Value(0, 0), "slot count"));
    if (o_.slot.empty()) return Status::OK();
    TIDE_ASSIGN_OR_RETURN(slot_, FindReplicationSlot(sql_, o_.slot));
    auto deadline = std::chrono::steady_clock::now() + o_.slot_active_grace;
    while (slot_ && slot_->active && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      TIDE_ASSIGN_OR_RETURN(slot_, FindReplicationSlot(sql_, o_.slot));
    }
    if (slot_ && slot_->slot_type == "logical") {
      TIDE_ASSIGN_OR_RETURN(
          PgResult lag,
          sql_.Query("SELECT coalesce(pg_catalog.pg_wal_lsn_diff(pg_catalog.pg_current_wal_lsn(), confirmed_flush_lsn), 0)"
                     "::bigint, coalesce(pg_catalog.pg_wal_lsn_diff(pg_catalog.pg_current_wal_lsn(), restart_lsn), 0)"
                     "::bigint FROM pg_catalog.pg_replication_slots WHERE slot_name = " + SqlQuoteLiteral(o_.slot)));
      if (lag.rows() == 1) {
        TIDE_ASSIGN_OR_RETURN(slot_lag_bytes_, ParseInt64(lag.Value(0, 0), "lag"));
        TIDE_ASSIGN_OR_RETURN(slot_held_bytes_, ParseInt64(lag.Value(0, 1), "held WAL"));
      }
    }
    return Status::OK();
  }

  Status CheckSlotRoom() {
    TIDE_ASSIGN_OR_RETURN(int64_t max, SettingValue("max_replication_slots"));
    const bool exists = slot_.has_value();
    const int64_t with_slot = slots_in_use_ + (exists ? 0 : 1);
    const std::vector<std::string> fix = {
        "drop slots nobody reads (SELECT slot_name, active FROM pg_replication_slots), or as a superuser:",
        fmt::format("ALTER SYSTEM SET max_replication_slots = {};", std::max<int64_t>(with_slot + 1, 10)),
        "then restart the server"};
    if (with_slot > max) {
      Add(DoctorOutcome::kFail,
          fmt::format("max_replication_slots = {} and {} in use: no room for {}", max, slots_in_use_,
                      o_.slot.empty() ? "Tide's slot" : "slot " + o_.slot),
          fix);
    } else if (with_slot + 1 > max) {
      Add(DoctorOutcome::kWarn,
          fmt::format("max_replication_slots = {} and {} in use: room for {} but not for the temporary slot that "
                      "copies a table added later or asked for by tide sync resync (the sync stops when it needs one)",
                      max, slots_in_use_, o_.slot.empty() ? "Tide's slot" : "slot " + o_.slot),
          fix);
    } else {
      const std::string slot = o_.slot.empty() ? "Tide's slot" : "slot " + o_.slot;
      Add(DoctorOutcome::kOk, fmt::format("max_replication_slots = {}, {} in use: room for {}{} and a temporary copy slot",
                                          max, slots_in_use_, exists ? "" : "a new ", slot));
    }
    return Status::OK();
  }

  Status CheckSenderRoom() {
    TIDE_ASSIGN_OR_RETURN(int64_t max, SettingValue("max_wal_senders"));
    TIDE_ASSIGN_OR_RETURN(PgResult r, sql_.Query("SELECT count(*) FROM pg_catalog.pg_stat_activity WHERE backend_type = "
                                                 "'walsender'"));
    TIDE_ASSIGN_OR_RETURN(int64_t used, ParseInt64(r.Value(0, 0), "walsender count"));
    if (used + 1 > max) {
      Add(DoctorOutcome::kFail, fmt::format("max_wal_senders = {} and {} in use: no walsender left to stream to Tide", max, used),
          {"as a superuser:", fmt::format("ALTER SYSTEM SET max_wal_senders = {};", std::max<int64_t>(used + 2, 10)),
           "then restart the server"});
    } else if (used + 2 > max) {
      // A copy while the sync streams (a table joining, tide sync resync) makes its temporary slot on a
      // replication connection of its own, beside the stream's.
      Add(DoctorOutcome::kWarn,
          fmt::format("max_wal_senders = {} and {} in use: room for the stream but not for the temporary slot's "
                      "connection that copies a table added later or asked for by tide sync resync",
                      max, used),
          {"as a superuser:", fmt::format("ALTER SYSTEM SET max_wal_senders = {};", std::max<int64_t>(used + 2, 10)),
           "then restart the server"});
    } else {
      Add(DoctorOutcome::kOk, fmt::format("max_wal_senders = {}, {} in use: room for the stream and a copy's "
                                          "temporary slot",
                                          max, used));
    }
    return Status::OK();
  }

  Status CheckWalRetention() {
    std::string keep = "wal_keep_size does not hold WAL for slots";
    if (auto k = SettingValue("wal_keep_size"); k.ok()) {
      keep = fmt::format("wal_keep_size = {} (it keeps WAL for physical standbys; a slot keeps its own)",
                         FormatByteSize(*k));
    }
    std::string held = slot_ ? fmt::format("slot {} holds back {} of WAL now", slot_->name, FormatByteSize(slot_held_bytes_))
                             : "no slot yet";
    auto limit = SettingValue("max_slot_wal_keep_size");
    if (!limit.ok() || *limit < 0) {
      Add(DoctorOutcome::kOk,
          fmt::format("WAL retention: {}max_slot_wal_keep_size = -1, so the slot keeps every WAL file it still needs "
                      "(disk use grows while the sync is stopped); {}; {}",
                      limit.ok() ? "" : "(server before 13) ", held, keep));
      return Status::OK();
    }
    const std::vector<std::string> fix = {
        "keep the sync running so the slot advances, or give it more room, as a superuser:",
        fmt::format("ALTER SYSTEM SET max_slot_wal_keep_size = '{}GB';", std::max<int64_t>((*limit * 4) >> 30, 16)),
        "SELECT pg_reload_conf();"};
    if (slot_ && (slot_->wal_status == "unreserved" || slot_held_bytes_ * 10 >= *limit * 8)) {
      Add(DoctorOutcome::kWarn,
          fmt::format("WAL retention: {} of max_slot_wal_keep_size = {} (wal_status {}): past the limit PostgreSQL "
                      "invalidates the slot and every table must be copied again; {}",
                      held, FormatByteSize(*limit), slot_->wal_status, keep),
          fix);
    } else if (*limit < (int64_t{1} << 30)) {
      Add(DoctorOutcome::kWarn,
          fmt::format("WAL retention: max_slot_wal_keep_size = {}: a sync stopped while the server writes that much "
                      "WAL loses its slot and must copy every table again; {}; {}",
                      FormatByteSize(*limit), held, keep),
          fix);
    } else {
      Add(DoctorOutcome::kOk, fmt::format("WAL retention: max_slot_wal_keep_size = {} (a slot further behind is "
                                          "invalidated); {}; {}",
                                          FormatByteSize(*limit), held, keep));
    }
    return Status::OK();
  }

  Status CheckSlot() {
    if (o_.slot.empty()) {
      Add(DoctorOutcome::kOk, "no --slot given: tide sync postgres creates tide_<lake database> (pgoutput) when missing");
      return Status::OK();
    }
    if (!slot_) {
      Add(DoctorOutcome::kOk, fmt::format("replication slot {} does not exist yet: tide sync postgres creates it "
                                          "(pgoutput) and copies every table first",
                                          o_.slot));
      return Status::OK();
    }
    const ReplicationSlotInfo& s = *slot_;
    const std::string another = "name another slot with --slot (tide sync postgres creates it), or drop this one "
                                "(whoever reads it loses its position):";
    const std::string drop = fmt::format("SELECT pg_drop_replication_slot({});", SqlQuoteLiteral(s.name));
    if (s.slot_type != "logical") {
      Add(DoctorOutcome::kFail, fmt::format("replication slot {} is a {} slot: Tide reads a logical pgoutput slot",
                                            s.name, s.slot_type),
          {another, drop});
    } else if (s.plugin != "pgoutput") {
      Add(DoctorOutcome::kFail, fmt::format("replication slot {} uses the output plugin {}: Tide reads pgoutput",
                                            s.name, s.plugin),
          {another, drop});
    } else if (s.database != database_) {
      Add(DoctorOutcome::kFail, fmt::format("replication slot {} belongs to database {}, not {}", s.name, s.database,
                                            database_),
          {fmt::format("connect to {} (dbname= in --postgres), or name another slot with --slot", s.database)});
    } else if (s.wal_status == "lost") {
      Add(DoctorOutcome::kFail,
          fmt::format("replication slot {} was invalidated (wal_status = lost): PostgreSQL removed WAL it still "
                      "needed, so changes since its position are gone",
                      s.name),
          {"drop it, then start the sync again: it creates a new slot and copies every table afresh", drop});
    } else if (s.active) {
      std::string pid = s.active_pid ? std::to_string(*s.active_pid) : "?";
      std::string who;
      if (s.active_pid) {
        auto r = sql_.Query("SELECT coalesce(application_name, ''), coalesce(client_addr::text, 'local'), "
                            "coalesce(usename::text, '') FROM pg_catalog.pg_stat_activity WHERE pid = " + pid);
        if (r.ok() && r->rows() == 1) {
          who = fmt::format(" (application_name '{}', client {}, role {})", r->Value(0, 0), r->Value(0, 1),
                            r->Value(0, 2));
        }
      }
      Add(DoctorOutcome::kFail,
          fmt::format("replication slot {} is active for PID {}{}: another process streams from it, and a slot "
                      "serves one consumer at a time",
                      s.name, pid, who),
          {"stop that consumer, or end it (as a superuser, or as its role):",
           fmt::format("SELECT pg_terminate_backend({});", pid)});
    } else {
      Add(DoctorOutcome::kOk,
          fmt::format("replication slot {}: pgoutput, not in use, confirmed up to {}, {} behind the server's WAL{}",
                      s.name, FormatLsn(s.confirmed_flush_lsn), FormatByteSize(slot_lag_bytes_),
                      s.wal_status.empty() ? "" : " (wal_status " + s.wal_status + ")"));
    }
    return Status::OK();
  }

  Status CheckConnect() {
    if (can_connect_) {
      Add(DoctorOutcome::kOk, fmt::format("role {} has CONNECT on database {}", role_, database_));
    } else {
      Add(DoctorOutcome::kFail, fmt::format("role {} lacks CONNECT on database {} (the copy's sessions would be refused)",
                                            role_, database_),
          {"as a superuser or the database's owner:",
           fmt::format("GRANT CONNECT ON DATABASE {} TO {};", SqlIdentifier(database_), Role())});
    }
    return Status::OK();
  }

  // Resolves the selected tables and reads what the checks need of them.
  Status ReadTables() {
    std::vector<PgTableName> names;
    if (o_.selection) {
      TIDE_ASSIGN_OR_RETURN(
          PgResult rows,
          sql_.Query("SELECT n.nspname, c.relname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = "
                     "c.relnamespace WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition AND n.nspname NOT IN "
                     "('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%' ORDER BY 1, 2"));
      std::vector<PgTableName> candidates;
      for (int r = 0; r < rows.rows(); ++r) {
        candidates.push_back(PgTableName{std::string(rows.Value(r, 0)), std::string(rows.Value(r, 1))});
      }
      TIDE_ASSIGN_OR_RETURN(names, o_.selection->Select(candidates));
    } else if (!o_.tables.empty()) {
      TIDE_RETURN_IF_ERROR(CheckTablesExist(sql_, o_.tables));
      names = o_.tables;
    } else {
      Add(DoctorOutcome::kWarn, "no --tables given: privileges, keys and column types of the tables are not checked",
          {"give --tables as for tide sync postgres"});
      return Status::OK();
    }
    for (const PgTableName& name : names) {
      TIDE_ASSIGN_OR_RETURN(
          PgResult r,
          sql_.Query(fmt::format(
              "SELECT c.oid, c.relkind, c.relreplident, pg_catalog.pg_get_userbyid(c.relowner), "
              "pg_catalog.pg_has_role(c.relowner, 'USAGE'), pg_catalog.has_table_privilege(c.oid, 'SELECT'), "
              "EXISTS (SELECT 1 FROM pg_catalog.pg_index i WHERE i.indrelid = c.oid AND i.indisprimary) "
              "FROM pg_catalog.pg_class c WHERE c.oid = {}::regclass",
              SqlQuoteLiteral(name.Quoted()))));
      if (r.rows() != 1) return Status::NotFound("table {} does not exist", name.ToString());
      TableFacts t;
      t.name = name;
      t.oid = std::string(r.Value(0, 0));
      t.relkind = r.Value(0, 1).empty() ? 'r' : r.Value(0, 1)[0];
      t.replident = r.Value(0, 2).empty() ? 'd' : r.Value(0, 2)[0];
      t.owner = std::string(r.Value(0, 3));
      t.owned = r.Value(0, 4) == "t";
      t.can_select = r.Value(0, 5) == "t";
      t.has_primary_key = r.Value(0, 6) == "t";
      if (t.relkind == 'p') {
        // The copy reads each leaf partition itself, so each needs SELECT too.
        TIDE_ASSIGN_OR_RETURN(
            PgResult leaves,
            sql_.Query("SELECT quote_ident(n.nspname) || '.' || quote_ident(c.relname) FROM pg_catalog.pg_partition_tree(" +
                       t.oid + ") p JOIN pg_catalog.pg_class c ON c.oid = p.relid JOIN pg_catalog.pg_namespace n ON "
                       "n.oid = c.relnamespace WHERE p.isleaf AND c.relkind = 'r' AND NOT "
                       "pg_catalog.has_table_privilege(c.oid, 'SELECT') ORDER BY 1"));
        for (int i = 0; i < leaves.rows(); ++i) t.leaves_without_select.emplace_back(leaves.Value(i, 0));
      }
      tables_.push_back(std::move(t));
    }
    tables_known_ = true;
    std::vector<std::string> shown;
    for (const TableFacts& t : tables_) shown.push_back(t.name.ToString());
    Add(DoctorOutcome::kOk, fmt::format("{} table(s) selected: {}", tables_.size(), ListNames(shown)));
    return Status::OK();
  }

  Status CheckSchemaUsage() {
    std::set<std::string> schemas;
    for (const TableFacts& t : tables_) schemas.insert(t.name.schema);
    std::vector<std::string> missing, fix;
    for (const std::string& schema : schemas) {
      TIDE_ASSIGN_OR_RETURN(PgResult r, sql_.Query("SELECT pg_catalog.has_schema_privilege(" + SqlQuoteLiteral(schema) +
                                                   ", 'USAGE')"));
      if (r.Value(0, 0) != "t") {
        missing.push_back(schema);
        fix.push_back(fmt::format("GRANT USAGE ON SCHEMA {} TO {};", SqlIdentifier(schema), Role()));
      }
    }
    if (missing.empty()) {
      Add(DoctorOutcome::kOk, fmt::format("USAGE on schema(s) {}", Join(schemas, ", ")));
    } else {
      fix.insert(fix.begin(), "as a superuser or the schemas' owner:");
      Add(DoctorOutcome::kFail,
          fmt::format("role {} lacks USAGE on schema(s) {}: it cannot read their tables", role_, Join(missing, ", ")),
          fix);
    }
    return Status::OK();
  }

  Status CheckSelect() {
    std::vector<std::string> missing;
    for (const TableFacts& t : tables_) {
      if (!t.can_select) missing.push_back(t.name.ToString());
      for (const std::string& leaf : t.leaves_without_select) missing.push_back(leaf);
    }
    if (missing.empty()) {
      Add(DoctorOutcome::kOk, fmt::format("SELECT on every selected table ({}) for the initial copy", tables_.size()));
    } else {
      Add(DoctorOutcome::kFail,
          fmt::format("role {} lacks SELECT on {}: the initial copy reads every row", role_, ListNames(missing)),
          {"as a superuser or the tables' owner:", fmt::format("GRANT SELECT ON {} TO {};", Join(missing, ", "), Role())});
    }
    return Status::OK();
  }

  // Tables created later (a pattern in --tables picks them up at the next start) need SELECT too.
  Status CheckDefaultPrivileges() {
    if (superuser_) {
      Add(DoctorOutcome::kOk, "default privileges: a superuser reads tables created later");
      return Status::OK();
    }
    std::set<std::pair<std::string, std::string>> schema_owners;
    for (const TableFacts& t : tables_) {
      if (!t.owned) schema_owners.insert({t.name.schema, t.owner});
    }
    std::vector<std::string> fix;
    std::vector<std::string> missing;
    for (const auto& [schema, owner] : schema_owners) {
      TIDE_ASSIGN_OR_RETURN(
          PgResult r,
          sql_.Query(fmt::format(
              "SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_default_acl d CROSS JOIN LATERAL "
              "pg_catalog.aclexplode(d.defaclacl) a WHERE d.defaclobjtype = 'r' AND d.defaclrole = "
              "(SELECT oid FROM pg_catalog.pg_roles WHERE rolname = {}) AND (d.defaclnamespace = 0 OR "
              "d.defaclnamespace = (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = {})) AND a.privilege_type "
              "= 'SELECT' AND (a.grantee = 0 OR pg_catalog.pg_has_role(a.grantee, 'USAGE')))",
              SqlQuoteLiteral(owner), SqlQuoteLiteral(schema))));
      if (r.Value(0, 0) == "t") continue;
      missing.push_back(fmt::format("{} (tables of {})", schema, owner));
      fix.push_back(fmt::format("ALTER DEFAULT PRIVILEGES FOR ROLE {} IN SCHEMA {} GRANT SELECT ON TABLES TO {};",
                                SqlIdentifier(owner), SqlIdentifier(schema), Role()));
    }
    if (missing.empty()) {
      Add(DoctorOutcome::kOk, "default privileges: tables created later in these schemas are readable too");
    } else {
      fix.insert(fix.begin(), "as a superuser or that owner:");
      Add(DoctorOutcome::kWarn,
          fmt::format("default privileges: tables created later in {} will not be readable by {} (a --tables pattern "
                      "that selects them fails then)",
                      Join(missing, ", "), role_),
          fix);
    }
    return Status::OK();
  }

  Status CheckPublication() {
    std::string name = !o_.publication.empty() ? o_.publication : o_.slot;
    const bool named = !name.empty();
    if (!named) name = "tide_pub";
    std::vector<std::string> quoted;
    for (const TableFacts& t : tables_) quoted.push_back(t.name.ToString());
    const std::string create =
        fmt::format("CREATE PUBLICATION {} FOR TABLE {} WITH (publish_via_partition_root = true);", SqlIdentifier(name),
                    quoted.empty() ? "<tables>" : Join(quoted, ", "));
    const bool has_viaroot = sql_.server_version() >= 130000;
    TIDE_ASSIGN_OR_RETURN(
        PgResult p,
        sql_.Query(fmt::format("SELECT p.puballtables, p.pubinsert, p.pubupdate, p.pubdelete, p.pubtruncate, {}, "
                               "pg_catalog.pg_has_role(p.pubowner, 'USAGE') FROM pg_catalog.pg_publication p WHERE "
                               "p.pubname = {}",
                               has_viaroot ? "p.pubviaroot" : "false", SqlQuoteLiteral(name))));
    const bool owns_all = std::all_of(tables_.begin(), tables_.end(), [](const TableFacts& t) { return t.owned; });
    if (p.rows() == 0 || !named) {
      if (superuser_ || (can_create_ && owns_all)) {
        Add(DoctorOutcome::kOk, named ? fmt::format("publication {} does not exist yet: tide sync postgres creates it",
                                                    name)
                                      : "no --publication given: tide sync postgres creates one for the tables");
      } else {
        std::vector<std::string> fix = {"as a superuser (or the tables' owner with CREATE on the database):", create};
        if (!named) fix.push_back("then pass --publication " + name);
        Add(DoctorOutcome::kFail,
            fmt::format("{}, and role {} cannot create it: a publication needs CREATE on database {} and ownership of "
                        "every table it publishes",
                        named ? "publication " + name + " does not exist" : "no --publication given", role_, database_),
            fix);
      }
      return Status::OK();
    }
    const bool all_tables = p.Value(0, 0) == "t";
    std::vector<std::string> unpublished;
    for (auto [column, kind] : {std::pair{1, "inserts"}, {2, "updates"}, {3, "deletes"}}) {
      if (p.Value(0, column) != "t") unpublished.push_back(kind);
    }
    const std::string set_publish =
        fmt::format("ALTER PUBLICATION {} SET (publish = 'insert, update, delete, truncate');", SqlIdentifier(name));
    if (!unpublished.empty()) {
      Add(DoctorOutcome::kFail,
          fmt::format("publication {} does not publish {}: those changes would never reach the lake", name,
                      Join(unpublished, ", ")),
          {"as the publication's owner or a superuser:", set_publish});
    } else if (p.Value(0, 4) != "t") {
      Add(DoctorOutcome::kWarn,
          fmt::format("publication {} does not publish TRUNCATE: a truncated table keeps its rows in the lake", name),
          {"as the publication's owner or a superuser:", set_publish});
    }
    if (!tables_known_) {
      Add(DoctorOutcome::kOk, fmt::format("publication {} exists{}", name, all_tables ? " (FOR ALL TABLES)" : ""));
      return Status::OK();
    }
    std::vector<std::string> missing;
    bool can_add = superuser_ || p.Value(0, 6) == "t";
    if (!all_tables) {
      TIDE_ASSIGN_OR_RETURN(std::vector<PgTableName> published, PublicationTables(sql_, name));
      for (const TableFacts& t : tables_) {
        if (std::find(published.begin(), published.end(), t.name) == published.end()) {
          missing.push_back(t.name.ToString());
          can_add = can_add && (superuser_ || t.owned);
        }
      }
    }
    std::vector<std::string> partitioned;
    for (const TableFacts& t : tables_) {
      if (t.relkind == 'p') partitioned.push_back(t.name.ToString());
    }
    if (!missing.empty()) {
      std::vector<std::string> fix = {
          "as the owner of the publication and of the tables, or a superuser:",
          fmt::format("ALTER PUBLICATION {} ADD TABLE {};", SqlIdentifier(name), Join(missing, ", "))};
      if (o_.manage_publication && can_add) {
        Add(DoctorOutcome::kOk, fmt::format("publication {} lacks {}: tide sync postgres adds them", name,
                                            ListNames(missing)));
      } else {
        Add(DoctorOutcome::kFail,
            fmt::format("publication {} does not publish {}{}", name, ListNames(missing),
                        o_.manage_publication ? fmt::format(", and role {} cannot add them (it must own the "
                                                            "publication and the tables)",
                                                            role_)
                                              : ""),
            fix);
      }
    } else {
      Add(DoctorOutcome::kOk, fmt::format("publication {} publishes every selected table", name));
    }
    if (!partitioned.empty() && p.Value(0, 5) != "t") {
      Add(DoctorOutcome::kFail,
          fmt::format("publication {} has publish_via_partition_root = false: the changes of the partitions of {} would "
                      "arrive under the partitions' names and miss their lake table",
                      name, ListNames(partitioned)),
          {"as the publication's owner or a superuser:",
           fmt::format("ALTER PUBLICATION {} SET (publish_via_partition_root = true);", SqlIdentifier(name))});
    }
    return Status::OK();
  }

  // Trap 1 of the field report: a timeout that ends the long transactions of the initial copy.
  Status CheckTimeout(const std::string& name) {
    TIDE_ASSIGN_OR_RETURN(int64_t ms, SettingValue(name));
    if (ms <= 0) {
      Add(DoctorOutcome::kOk, fmt::format("{} = 0 for role {} (the copy is not cut off)", name, role_));
      return Status::OK();
    }
    const Setting& s = settings_[name];
    const std::string why =
        name == "statement_timeout"
            ? "one COPY of a large table runs longer and would be cancelled, and the copy would start over"
            : "each copy session holds its snapshot transaction open, idle while other tables copy, and would be "
              "cut off (the copy would start over)";
    std::vector<std::string> fix;
    if (s.source == "client") {
      fix = {fmt::format("remove -c {}=... from options= in the conninfo (or set it to 0 there)", name)};
    } else {
      fix = {fmt::format("as a superuser (it applies to the new sessions of {} only; the server keeps its setting):", role_),
             s.source == "database user"
                 ? fmt::format("ALTER ROLE {} IN DATABASE {} SET {} = 0;", Role(), SqlIdentifier(database_), name)
                 : fmt::format("ALTER ROLE {} SET {} = 0;", Role(), name)};
    }
    // Tide's copy sessions turn both off for themselves, so they cannot cut off the sync's copy; they
    // still end other sessions of the role (a copy made by another tool, a long query).
    Add(DoctorOutcome::kWarn,
        fmt::format("{} = {} for role {} (set by {}): {}, were it not that Tide's copy sessions set it to 0 "
                    "for themselves; other clients of the role keep it",
                    name, FormatMillis(ms), role_, s.source, why),
        fix);
    return Status::OK();
  }

  Status CheckConnectionRoom() {
    TIDE_ASSIGN_OR_RETURN(int64_t max, SettingValue("max_connections"));
    TIDE_ASSIGN_OR_RETURN(int64_t reserved, SettingValue("superuser_reserved_connections"));
    TIDE_ASSIGN_OR_RETURN(PgResult r, sql_.Query("SELECT count(*) FROM pg_catalog.pg_stat_activity WHERE backend_type = "
                                                 "'client backend'"));
    TIDE_ASSIGN_OR_RETURN(int64_t used, ParseInt64(r.Value(0, 0), "connection count"));
    const int64_t free = max - (superuser_ ? 0 : reserved) - used;
    const int64_t needed = o_.copy_sessions + 1;  // the copy sessions and the sync's SQL session (this one is counted)
    if (free < needed) {
      Add(DoctorOutcome::kWarn,
          fmt::format("max_connections = {}: {} free, and the initial copy opens {} more sessions", max, free, needed),
          {"lower --copy-workers, or as a superuser:",
           fmt::format("ALTER SYSTEM SET max_connections = {};", max + needed - free + 10), "then restart the server"});
    } else {
      Add(DoctorOutcome::kOk, fmt::format("max_connections = {}: {} free for the copy's {} sessions", max, free, needed));
    }
    return Status::OK();
  }

  Status CheckKeys() {
    int problems = 0;
    for (const TableFacts& t : tables_) {
      const std::string table = t.name.ToString();
      if (!t.has_primary_key) {
        ++problems;
        std::string identity =
            t.replident == 'f'
                ? ""
                : " With no replica identity, PostgreSQL refuses UPDATE and DELETE on it once it is in a publication "
                  "that publishes them.";
        Add(DoctorOutcome::kWarn,
            fmt::format("{} has no primary key: it is synced as an append table (inserts only; an UPDATE or DELETE "
                        "stops the sync).{}",
                        table, identity),
            {fmt::format("give it a primary key: ALTER TABLE {} ADD PRIMARY KEY (<columns>);", table)});
      } else if (t.replident == 'n') {
        ++problems;
        Add(DoctorOutcome::kWarn,
            fmt::format("{} has REPLICA IDENTITY NOTHING: PostgreSQL refuses UPDATE and DELETE on it once it is in a "
                        "publication that publishes them",
                        table),
            {fmt::format("ALTER TABLE {} REPLICA IDENTITY DEFAULT;", table)});
      }
    }
    if (problems == 0) Add(DoctorOutcome::kOk, "every selected table has a primary key and a replica identity");
    return Status::OK();
  }

  // Columns whose PostgreSQL type has no typed Paimon counterpart and are kept as text (STRING).
  Status CheckTypes() {
    PgTypeRegistry types;
    struct Column {
      std::string table, name, type_name;
      PgOid oid;
      int32_t typmod;
    };
    std::vector<Column> columns;
    std::vector<std::string> oids;
    std::map<std::string, std::string> table_of;  // oid -> schema.table
    for (const TableFacts& t : tables_) {
      oids.push_back(t.oid);
      table_of[t.oid] = t.name.ToString();
    }
    if (oids.empty()) return Status::OK();
    TIDE_ASSIGN_OR_RETURN(
        PgResult r,
        sql_.Query("SELECT a.attrelid, a.attname, a.atttypid, a.atttypmod, "
                   "pg_catalog.format_type(a.atttypid, a.atttypmod) FROM pg_catalog.pg_attribute a WHERE a.attrelid IN (" +
                   Join(oids, ", ") + ") AND a.attnum > 0 AND NOT a.attisdropped" +
                   (sql_.server_version() >= 120000 ? " AND a.attgenerated = ''" : "") +
                   " ORDER BY a.attrelid, a.attnum"));
    std::set<PgOid> unknown;
    for (int i = 0; i < r.rows(); ++i) {
      TIDE_ASSIGN_OR_RETURN(int64_t oid, ParseInt64(r.Value(i, 2), "atttypid"));
      TIDE_ASSIGN_OR_RETURN(int64_t typmod, ParseInt64(r.Value(i, 3), "atttypmod"));
      columns.push_back(Column{table_of[std::string(r.Value(i, 0))], std::string(r.Value(i, 1)), std::string(r.Value(i, 4)),
                               static_cast<PgOid>(oid), static_cast<int32_t>(typmod)});
      const PgTypeInfo* info = types.Find(static_cast<PgOid>(oid));
      if (info == nullptr || !info->complete) unknown.insert(static_cast<PgOid>(oid));
    }
    // User types (enums, domains, their arrays), then what they refer to.
    for (int round = 0; round < 4 && !unknown.empty(); ++round) {
      std::vector<PgOid> ask(unknown.begin(), unknown.end());
      unknown.clear();
      TIDE_ASSIGN_OR_RETURN(PgResult rows, sql_.Query(PgTypeCatalogQuery(ask)));
      for (int i = 0; i < rows.rows(); ++i) {
        std::vector<std::string> fields;
        for (int c = 0; c < rows.columns(); ++c) fields.emplace_back(rows.Value(i, c));
        TIDE_RETURN_IF_ERROR(types.AddFromCatalogRow(fields));
        for (size_t c : {size_t{5}, size_t{6}}) {
          auto ref = ParseInt64(fields[c], "type reference");
          if (ref.ok() && *ref != 0) {
            const PgTypeInfo* info = types.Find(static_cast<PgOid>(*ref));
            if (info == nullptr || !info->complete) unknown.insert(static_cast<PgOid>(*ref));
          }
        }
      }
    }
    std::map<std::string, std::vector<std::string>> as_text;  // table -> "column type"
    bool numeric = false;
    for (const Column& c : columns) {
      auto mapping = MapPgType(c.oid, c.typmod, types);
      if (!mapping.ok()) continue;
      const PgTypeMapping* m = &*mapping;
      if (m->kind == PgValueKind::kArray && m->element) m = m->element.get();
      switch (m->kind) {
        case PgValueKind::kNumericString:
          numeric = true;
          [[fallthrough]];
        case PgValueKind::kJson:
        case PgValueKind::kJsonb:
        case PgValueKind::kUuid:
        case PgValueKind::kTimeTz:
        case PgValueKind::kInterval:
        case PgValueKind::kInet:
        case PgValueKind::kMacaddr:
        case PgValueKind::kBit:
        case PgValueKind::kPgLsn:
        case PgValueKind::kTextFallback:
          as_text[c.table].push_back(c.name + " " + c.type_name);
          break;
        default:
          break;
      }
    }
    if (as_text.empty()) {
      Add(DoctorOutcome::kOk, "every column of the selected tables maps to a typed Paimon column or to text from text");
      return Status::OK();
    }
    for (const auto& [table, list] : as_text) {
      std::vector<std::string> fix = {"they hold PostgreSQL's text form (docs/postgres-types.md); cast them in "
                                      "queries, or change the column type where a typed one fits"};
      if (numeric) {
        fix.push_back("numeric without precision: ALTER TABLE ... ALTER COLUMN ... TYPE numeric(p, s) maps it to "
                      "DECIMAL(p, s)");
      }
      Add(DoctorOutcome::kWarn, fmt::format("{}: column(s) kept as STRING: {}", table, Join(list, ", ")), fix);
    }
    return Status::OK();
  }

  PgConnection& sql_;
  const DoctorOptions& o_;
  DoctorReport report_;
  std::string role_, database_, server_version_;
  bool superuser_ = false, replication_ = false, can_connect_ = false, can_create_ = false;
  std::map<std::string, Setting> settings_;
  int64_t slots_in_use_ = 0;
  std::optional<ReplicationSlotInfo> slot_;
  int64_t slot_lag_bytes_ = 0, slot_held_bytes_ = 0;
  std::vector<TableFacts> tables_;
  bool tables_known_ = false;
};

}  // namespace

Result<DoctorReport> RunDoctor(PgConnection& sql, const DoctorOptions& options) {
  return Doctor(sql, options).Run();
}

Result<DoctorReport> RunDoctor(const DoctorOptions& options) {
  auto conn = PgConnection::Connect(options.conninfo);
  if (!conn.ok()) {
    if (conn.status().IsInvalidArgument()) return conn.status();
    DoctorReport report;
    report.checks.push_back(ConnectionRefused(conn.status(), options.conninfo, /*replication=*/false));
    return report;
  }
  return RunDoctor(**conn, options);
}

Status CheckServerForSync(PgConnection& sql, const PostgresSyncOptions& options) {
  DoctorOptions d;
  d.conninfo = options.conninfo;
  d.selection = options.selection;
  d.tables = options.tables;
  d.slot = options.slot;
  d.publication = options.publication;
  d.manage_publication = options.manage_publication;
  d.copy_sessions = options.copy_workers;
  d.slot_active_grace = std::chrono::seconds(10);
  d.selection_errors_as_status = true;
  TIDE_ASSIGN_OR_RETURN(DoctorReport report, RunDoctor(sql, d));
  for (const DoctorCheck& check : report.checks) {
    if (check.outcome == DoctorOutcome::kWarn) TIDE_LOG_WARN("{}", check.what);
  }
  if (report.ok()) return Status::OK();
  return Status::InvalidArgument("PostgreSQL is not ready for the sync ({} failing check(s) of tide doctor):\n{}",
                                 report.failures(), report.FormatFailures());
}

}  // namespace tide
