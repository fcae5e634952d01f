// `tide compact`: compacts a primary-key table on request, as Paimon's `compact` action does: every
// bucket of the latest snapshot (or of the partitions named), a full compaction with --full, else what
// the universal strategy picks, committed as one COMPACT snapshot. Thread-safety: one command at a time.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace tide::cli {

struct CompactCommandOptions {
  std::string warehouse;
  std::string table;                   // <database>.<table>
  bool full = false;
  std::vector<std::string> partitions;  // each `k=v[,k=v...]`
};

// Runs the command; returns the exit code.
int RunCompactCommand(const CompactCommandOptions& options, std::ostream& out, std::ostream& err);

// Adds the `compact` subcommand to `app`.
void RegisterCompact(CLI::App& app);

}  // namespace tide::cli
