// `tide doctor`: checks a PostgreSQL server for everything `tide sync postgres` needs and prints one
// line per check (ok / warn / FAIL) with the fix below each one that is not ok (sync/doctor.h). Exit 0
// only when nothing fails. Thread-safety: registered once from main().
#pragma once

#include <CLI/CLI.hpp>

namespace tide::cli {

void RegisterDoctor(CLI::App& app);

}  // namespace tide::cli
