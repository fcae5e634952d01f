// `tide verify`: compares synced lake tables with their PostgreSQL tables at a consistent point
// (sync/verify.h) and prints what differs. Exit 0 when every table matches, 1 otherwise.
// Thread-safety: registered once from main().
#pragma once

#include <CLI/CLI.hpp>

namespace tide::cli {

void RegisterVerify(CLI::App& app);

}  // namespace tide::cli
