// `tide pg tail`: prints the changes of PostgreSQL tables as they commit, one JSON object per line on
// stdout, until SIGINT or SIGTERM.
//
//   tide pg tail --postgres CONNINFO --tables LIST [--slot NAME | --temporary] [--publication NAME]
//
// Each line: {"lsn": commit LSN "X/Y", "commit_time": ISO-8601 UTC, "xid": n, "table": "schema.name",
// "kind": "+I" | "-U" | "+U" | "-D" | "truncate", "row": {column: value}, "unchanged": [columns]}.
// Values: JSON numbers for integers within ±2^53 and for floats; the exact decimal text as a string for
// numeric and for larger integers; timestamptz as ISO-8601 UTC ("...Z"); timestamp, date and time as
// ISO-8601 without zone; bytea as base64; arrays as JSON arrays; NULL as null. An update with an old
// image prints -U (old row: key columns only under REPLICA IDENTITY DEFAULT/INDEX) then +U. Columns
// that were not sent (unchanged TOAST) are absent from "row" and listed in "unchanged".
//
// Without --slot, a temporary slot is used (gone when the command exits); with --slot, the named slot is
// reused or created, and the position advances as lines are written. Without --publication, one named
// after the slot is created for the tables (and dropped at exit for a temporary slot).
// Thread-safety: runs on the main thread; the signal handler only sets a flag.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "tide/postgres/change.h"
#include "tide/types/data_type.h"
#include "tide/types/datum.h"

namespace tide::cli {

// Adds the `pg` command with its `tail` subcommand to `app`. The subcommand's callback runs the command
// and ends parsing with CLI::RuntimeError carrying the exit code (0 on a clean stop, 1 on failure).
void RegisterPgTail(CLI::App& app);

// A value as tail prints it (see above).
nlohmann::ordered_json DatumToJson(const Datum& value, const DataType& type);
// The JSON lines for one change: one line, or two (-U, +U) for an update with an old image.
std::vector<nlohmann::ordered_json> ChangeToJson(const RowChange& change, const TransactionInfo& txn);
// "2024-01-31T10:00:00.123456Z".
std::string FormatUtcMicros(int64_t unix_micros);
std::string Base64Encode(std::string_view bytes);

}  // namespace tide::cli
