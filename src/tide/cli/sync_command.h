// `tide sync postgres`: mirrors PostgreSQL tables into Paimon tables until stopped (sync/postgres_sync.h).
// Thread-safety: registered once from main().
#pragma once

#include <CLI/CLI.hpp>

namespace tide::cli {

void RegisterSync(CLI::App& app);

}  // namespace tide::cli
