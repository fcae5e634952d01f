#include "tide/cli/doctor_command.h"

#include <iostream>
#include <memory>
#include <string>

#include "tide/base/logging.h"
#include "tide/sync/doctor.h"
#include "tide/sync/table_selection.h"

namespace tide::cli {
namespace {

struct DoctorFlags {
  std::string postgres;
  std::string tables;
  std::string excluding_tables;
  std::string slot;
  std::string publication;
  int copy_workers = 4;
};

// The report on stdout; 0 when nothing fails, 1 otherwise (or when the checks cannot run).
int Run(const DoctorFlags& flags) {
  DoctorOptions options;
  options.conninfo = flags.postgres;
  if (!flags.tables.empty()) {
    auto selection = TableSelection::Parse(flags.tables, flags.excluding_tables, "", "", "");
    if (!selection.ok()) {
      std::cerr << "tide doctor: " << selection.status().ToString() << std::endl;
      return 1;
    }
    options.selection = std::move(selection).value();
  }
  options.slot = flags.slot;
  options.publication = flags.publication;
  options.manage_publication = flags.publication.empty();
  options.copy_sessions = flags.copy_workers;
  auto report = RunDoctor(options);
  if (!report.ok()) {
    std::cerr << "tide doctor: " << report.status().ToString() << std::endl;
    return 1;
  }
  std::cout << report->Format();
  int warnings = 0;
  for (const DoctorCheck& c : report->checks) warnings += c.outcome == DoctorOutcome::kWarn ? 1 : 0;
  if (report->ok()) {
    std::cout << "PostgreSQL is ready for tide sync postgres"
              << (warnings > 0 ? " (" + std::to_string(warnings) + " warning(s) above)" : std::string()) << std::endl;
    return 0;
  }
  std::cout << report->failures() << " check(s) failed: tide sync postgres would not start; apply the fixes above and "
            << "run tide doctor again" << std::endl;
  return 1;
}

}  // namespace

void RegisterDoctor(CLI::App& app) {
  auto flags = std::make_shared<DoctorFlags>();
  CLI::App* doctor = app.add_subcommand(
      "doctor", "Check that a PostgreSQL server is ready for tide sync postgres, and print the fix for each problem");
  doctor->add_option("--postgres", flags->postgres, "libpq connection string or postgresql:// URI")->required();
  doctor->add_option("--tables", flags->tables,
                     "the tables as tide sync postgres --tables selects them: names (schema.table) or regular "
                     "expressions");
  doctor->add_option("--excluding-tables", flags->excluding_tables, "tables left out: names or regular expressions");
  doctor->add_option("--slot", flags->slot, "the replication slot the sync uses (its state is checked)");
  doctor->add_option("--publication", flags->publication, "the publication the sync uses (its coverage is checked)");
  doctor->add_option("--copy-workers", flags->copy_workers, "the sync's --copy-workers (default 4)");
  doctor->callback([flags, &app] {
    InitLogging(app.count("--verbose") > 0 ? LogLevel::kDebug : LogLevel::kWarn);
    throw CLI::RuntimeError(Run(*flags));
  });
}

}  // namespace tide::cli
