// Doctor: the checks `tide doctor` runs against a live PostgreSQL server, and that `tide sync postgres`
// runs before it starts: everything a sync needs from the server (the settings, privileges, pg_hba
// entry, slot and publication that the field report's §2 sets up by hand), each found ok, worth a
// warning, or failing, with the exact statement or setting that fixes it.
//
// A failing check (kFail) means the sync would not run, or would lose data or break the source's
// writes; a warning means it runs but something deserves attention (a table synced as an append
// table, a column kept as text, a slot that may be invalidated). The report is `ok()` when nothing
// fails. docs/operations.md lists every check.
//
// Fixes are lines: those ending in ';' are SQL to run (as the role named, usually a superuser), the
// others say what to change in a file or how to apply it.
//
// Thread-safety: the functions are independent; each uses the connection given (one thread) or its
// own.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tide/base/result.h"
#include "tide/postgres/pg_connection.h"
#include "tide/postgres/publication.h"
#include "tide/sync/postgres_sync.h"
#include "tide/sync/table_selection.h"

namespace tide {

enum class DoctorOutcome { kOk, kWarn, kFail };

// "ok", "warn" or "FAIL": the word a report line starts with.
std::string_view DoctorOutcomeName(DoctorOutcome outcome);

struct DoctorCheck {
  DoctorOutcome outcome = DoctorOutcome::kOk;
  std::string what;              // one line: what was checked and what was found
  std::vector<std::string> fix;  // what to do (empty when ok)
};

struct DoctorReport {
  std::vector<DoctorCheck> checks;

  // Nothing fails: the sync would run.
  bool ok() const;
  int failures() const;
  // One line per check (`ok`/`warn`/`FAIL`, then what), the fix indented below it.
  std::string Format() const;
  // Format() of the failing checks only.
  std::string FormatFailures() const;
};

struct DoctorOptions {
  std::string conninfo;
  // The tables as --tables selects them among the server's tables; or, without a selection, `tables`.
  // Neither: the per-table checks are skipped (with a warning saying so).
  std::optional<TableSelection> selection;
  std::vector<PgTableName> tables;
  std::string slot;         // "" when not named: the slot checks count room only
  std::string publication;  // "" when not named: the sync creates one
  // Whether the sync owns the publication (adds selected tables it lacks) or only checks a named one.
  bool manage_publication = true;
  int copy_sessions = 4;  // the sync's --copy-workers: sessions it opens at once to copy
  // How long a slot active in another process may take to become free before it counts as failing (a
  // sync restarted right after its predecessor died waits for the old walsender to exit).
  std::chrono::milliseconds slot_active_grace{0};
  // Table selection errors (a named table that does not exist, nothing selected) are returned as the
  // Status instead of a failing check (the sync reports them in its own words).
  bool selection_errors_as_status = false;
};

// Connects with `options.conninfo` and runs every check. A connection the server refuses is a failing
// check (with the pg_hba.conf line or grant that fixes it), not an error; errors are reserved for a
// conninfo that does not parse.
Result<DoctorReport> RunDoctor(const DoctorOptions& options);
// The checks over an open SQL session (the sync's own).
Result<DoctorReport> RunDoctor(PgConnection& sql, const DoctorOptions& options);

// The checks `tide sync postgres` runs at start: InvalidArgument listing every failing check and its fix
// (the words `tide doctor` prints) when one fails; warnings are logged.
Status CheckServerForSync(PgConnection& sql, const PostgresSyncOptions& options);

// A PostgreSQL memory size as SHOW prints it or as a pg_settings unit ("64MB", "1GB", "8kB", "512",
// "-1") in bytes (units are powers of 1024; B, kB, MB, GB, TB). -1 stays -1 (unlimited).
// InvalidArgument naming the text otherwise.
Result<int64_t> ParsePgSize(std::string_view text);
// A PostgreSQL duration as SHOW prints it or as a pg_settings unit ("60s", "1min", "500ms", "2h", "1d",
// "0") in milliseconds. InvalidArgument naming the text otherwise.
Result<int64_t> ParsePgDuration(std::string_view text);
// A pg_settings row's value in bytes or milliseconds: `setting` (a number) times `unit` ("8kB", "MB",
// "ms", "s", "min"; "" for none). -1 stays -1.
Result<int64_t> PgSettingValue(std::string_view setting, std::string_view unit);
// Bytes as a person reads them: "0 bytes", "512 bytes", "64 kB", "1.5 GB" (powers of 1024).
std::string FormatByteSize(int64_t bytes);
// An identifier as SQL text: bare when it is lower-case letters, digits and '_' (not starting with a
// digit), else double-quoted.
std::string SqlIdentifier(std::string_view name);

}  // namespace tide
