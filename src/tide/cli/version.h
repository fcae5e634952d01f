// The text `tide --version` prints: Tide's own version (CMake's project VERSION), and those of what it
// is built on and writes: the DuckDB library it runs, the libpq it links, and the Paimon format
// versions of the files it writes. Thread-safety: a pure function.
#pragma once

#include <string>

namespace tide::cli {

std::string VersionText();

}  // namespace tide::cli
