// RunTide: runs the built `tide` binary (TIDE_BUILD_DIR/tide) as a user would, with arguments and
// standard input, and returns its exit code and everything it printed. For the CLI tests.
// Thread-safety: each call is independent (fork + exec; temporary files of its own).
#pragma once

#include <string>
#include <vector>

namespace tide::testing {

struct TideRun {
  int exit_code = -1;  // -1 when the process did not exit normally
  std::string out;
  std::string err;
};

// Runs `tide args...` with `input` on stdin; waits for it to exit.
TideRun RunTide(const std::vector<std::string>& args, const std::string& input = "");

}  // namespace tide::testing
