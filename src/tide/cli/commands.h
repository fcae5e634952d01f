// The `tide` command line: every subcommand registers itself here. Main() returns the process exit
// code: 0 on success, 1 when the command failed (the error is printed to stderr), 2 on a usage error.
// Thread-safety: called once from main().
#pragma once

namespace tide::cli {

int Main(int argc, char** argv);

}  // namespace tide::cli
