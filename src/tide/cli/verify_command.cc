#include "tide/cli/verify_command.h"

#include <iostream>
#include <memory>
#include <string>

#include "tide/base/logging.h"
#include "tide/base/strings.h"
#include "tide/sync/verify.h"

namespace tide::cli {
namespace {

struct VerifyFlags {
  VerifyOptions options;
  std::string timeout = "60s";
  bool quiet = false;
};

// 0: every table matches; 1: a table differs (the report says which, where and what) or verify failed.
int Run(VerifyFlags& flags) {
  auto timeout = ParseDurationMillis(flags.timeout, "--timeout");
  if (!timeout.ok()) {
    std::cerr << "tide verify: " << timeout.status().ToString() << std::endl;
    return 1;
  }
  flags.options.timeout = std::chrono::milliseconds(*timeout);
  if (!flags.quiet) {
    flags.options.on_progress = [](const std::string& line) { std::cerr << "tide verify: " << line << std::endl; };
  }
  auto report = Verify(flags.options);
  if (!report.ok()) {
    std::cerr << "tide verify: " << report.status().ToString() << std::endl;
    return 1;
  }
  std::cout << report->ToString() << std::flush;
  return report->all_match() ? 0 : 1;
}

}  // namespace

void RegisterVerify(CLI::App& app) {
  auto flags = std::make_shared<VerifyFlags>();
  CLI::App* cmd = app.add_subcommand(
      "verify", "Compare synced lake tables with their PostgreSQL tables at a consistent point");
  VerifyOptions& o = flags->options;
  cmd->add_option("--warehouse", o.warehouse, "the lake's warehouse folder")->required();
  cmd->add_option("--database", o.database, "the lake database the sync writes")->required();
  cmd->add_option("--postgres", o.conninfo, "libpq connection string or postgresql:// URI")->required();
  cmd->add_option("--tables", o.tables, "the sync's --tables: comma-separated names or regular expressions")
      ->required();
  cmd->add_option("--excluding-tables", o.excluding_tables, "the sync's --excluding-tables");
  cmd->add_option("--table-prefix", o.table_prefix, "the sync's --table-prefix");
  cmd->add_option("--table-suffix", o.table_suffix, "the sync's --table-suffix");
  cmd->add_option("--into", o.into,
                  "the sync's --into [DB.]T: each selected table is compared with its rows there (table_name)");
  cmd->add_option("--slot", o.slot, "the sync's replication slot (default: the one the lake's commits name)");
  cmd->add_option("--timeout", flags->timeout, "how long to wait for the lake to reach PostgreSQL (default 60s)");
  cmd->add_option("--max-keys", o.max_keys, "differing keys listed per table (default 10)");
  cmd->add_flag("--quiet", flags->quiet, "print only the report");
  cmd->callback([flags, &app] {
    InitLogging(app.count("--verbose") > 0 ? LogLevel::kDebug : LogLevel::kWarn);
    throw CLI::RuntimeError(Run(*flags));
  });
}

}  // namespace tide::cli
