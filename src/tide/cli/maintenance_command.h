// The maintenance commands, named and flagged after Paimon's Flink procedures and actions:
//
//   tide expire-snapshots --warehouse DIR --table DB.T [--retain-max N] [--retain-min N]
//                         [--older-than TIMESTAMP] [--max-deletes N]
//   tide remove-orphan-files --warehouse DIR --table DB.T [--older-than TIMESTAMP] [--dry-run]
//   tide tag create|delete|list --warehouse DIR --table DB.T [--tag NAME] [--snapshot N] [--time-retained DUR]
//   tide rollback --warehouse DIR --table DB.T (--snapshot N | --tag NAME)
//   tide expire-partitions --warehouse DIR --table DB.T [--expiration-time DUR] [--timestamp-formatter F]
//                          [--timestamp-pattern P] [--max-expires N]
//
// Unset flags take the table's options (snapshot.*, partition.*), as the procedures do. TIMESTAMP is
// local time, `yyyy-MM-dd HH:mm:ss[.SSS]` or `yyyy-MM-dd`; DUR is a Paimon duration (`1 d`, `12 h`).
// Each prints what it did; errors name the table and what to do. Thread-safety: the main thread.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

#include <CLI/CLI.hpp>

namespace tide::cli {

struct MaintenanceOptions {
  std::string command;  // expire-snapshots, remove-orphan-files, tag, rollback, expire-partitions
  std::string action;   // tag: create, delete, list
  std::string warehouse;
  std::string table;
  std::optional<int32_t> retain_max, retain_min, max_deletes, max_expires;
  std::string older_than;
  bool dry_run = false;
  std::string tag;
  std::optional<int64_t> snapshot;
  std::string time_retained;
  std::string expiration_time;
  std::string timestamp_formatter;
  std::string timestamp_pattern;
};

// Runs one command; returns the exit code.
int RunMaintenanceCommand(const MaintenanceOptions& options, std::ostream& out, std::ostream& err);

// Adds expire-snapshots, remove-orphan-files, tag, rollback and expire-partitions to `app`.
void RegisterMaintenance(CLI::App& app);

}  // namespace tide::cli
