// The `tide` command: parses the command line and runs a subcommand (see cli/commands.h).
#include "tide/cli/commands.h"

int main(int argc, char** argv) { return tide::cli::Main(argc, argv); }
