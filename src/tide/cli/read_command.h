// `tide read`: prints a table's changes, one line per row with its row kind and snapshot id, as Java's
// streaming read returns them (table/change_read.h).
//
//   tide read --warehouse DIR --table DB.T [--follow] [--from START] [--consumer-id ID]
//             [--format json|csv] [--scan-mode auto|delta|changelog] [--poll-interval DURATION]
//
// START (Java's scan.mode): latest-full (default: the latest snapshot in full as +I, then each new
// snapshot's changes), latest (only what is committed after the start), earliest (the changes of every
// snapshot still there), snapshot:N (the changes of snapshot N on), snapshot-full:N (snapshot N in full,
// then the changes after it), timestamp:T (the changes of snapshots committed at or after T, epoch ms).
// Changes come from changelog files when the table has a changelog producer, else from the delta files
// of APPEND snapshots (--scan-mode overrides, as incremental-between-scan-mode). Within a snapshot,
// each bucket's rows come in commit order (sequence number), buckets one after another.
//
// Without --follow the command prints up to the snapshot that was latest when it started and exits;
// with it, it polls for new snapshots every --poll-interval (100ms) until SIGINT or SIGTERM, which
// stop it cleanly after the snapshot being printed. --consumer-id ID records after each snapshot, in
// the table's `consumer/consumer-ID` ({"nextSnapshot": N}, Java's format), the next snapshot to read;
// a later run with the same id continues there (ignoring --from), and snapshot expiry keeps the
// snapshots it still needs.
//
// json lines: {"rowkind":"+U","snapshot_id":7,"row":{"id":1,"name":"a"}} (values as `tide pg tail`
// prints them); csv: a header `rowkind,snapshot_id,<columns>`, then one line per row.
// Thread-safety: runs on the main thread; the signal handler only sets a flag.
#pragma once

#include <chrono>
#include <optional>
#include <ostream>
#include <string>

#include <CLI/CLI.hpp>

namespace tide::cli {

struct ReadCommandOptions {
  std::string warehouse;
  std::string table;  // DB.T
  bool follow = false;
  std::string from = "latest-full";
  std::optional<std::string> consumer_id;
  std::string format = "json";
  std::string scan_mode = "auto";
  std::chrono::milliseconds poll_interval{20};
};

// Runs the command; returns the exit code (0 on success and on a clean stop by signal, 1 on failure).
int RunReadCommand(const ReadCommandOptions& options, std::ostream& out, std::ostream& err);

// Adds the `read` subcommand to `app`.
void RegisterRead(CLI::App& app);

}  // namespace tide::cli
