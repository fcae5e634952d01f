#include "tide/cli/commands.h"

#include <CLI/CLI.hpp>
#include <iostream>

#include "tide/base/logging.h"
#include "tide/cli/compact_command.h"
#include "tide/cli/doctor_command.h"
#include "tide/cli/maintenance_command.h"
#include "tide/cli/pg_tail_command.h"
#include "tide/cli/read_command.h"
#include "tide/cli/sql_command.h"
#include "tide/cli/sync_command.h"
#include "tide/cli/table_command.h"
#include "tide/cli/verify_command.h"
#include "tide/cli/version.h"
#include "tide/cli/write_command.h"

namespace tide::cli {

int Main(int argc, char** argv) {
  CLI::App app{"Tide: PostgreSQL tables kept in step with Apache Paimon lake tables"};
  app.require_subcommand(1);
  bool verbose = false;
  app.add_flag("-v,--verbose", verbose, "Log debug detail to stderr");
  app.set_version_flag("--version", [] { return VersionText(); }, "Print the versions of Tide, DuckDB, libpq and the Paimon format");
  RegisterCompact(app);
  RegisterDoctor(app);
  RegisterMaintenance(app);
  RegisterPgTail(app);
  RegisterRead(app);
  RegisterSql(app);
  RegisterSync(app);
  RegisterTable(app);
  RegisterVerify(app);
  RegisterWrite(app);
  CLI11_PARSE(app, argc, argv);
  InitLogging(verbose ? LogLevel::kDebug : LogLevel::kWarn);
  return 0;
}

}  // namespace tide::cli
