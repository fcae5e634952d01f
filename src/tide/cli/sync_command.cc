#include "tide/cli/sync_command.h"

#include <algorithm>

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "tide/base/logging.h"
#include "tide/base/strings.h"
#include "tide/catalog/catalog.h"
#include "tide/cli/metrics_server.h"
#include "tide/cli/pipeline_config.h"
#include "tide/cli/progress_display.h"
#include "tide/io/file_system.h"
#include "tide/postgres/publication.h"
#include "tide/postgres/replication_slot.h"
#include "tide/sync/table_sink.h"
#include "tide/table/schema/schema_manager.h"
#include "tide/sync/postgres_sync.h"
#include "tide/sync/resync_request.h"
#include "tide/sync/sync_status.h"
#include "tide/sync/table_selection.h"

namespace tide::cli {
namespace {

struct SyncFlags {
  std::string warehouse;
  std::string database;
  std::string postgres;
  std::string tables;
  std::string excluding_tables;
  std::string into;
  std::vector<std::string> computed_columns;
  std::vector<std::string> partition_keys;
  std::vector<std::string> primary_keys;
  std::vector<std::string> metadata_columns;
  std::string slot;
  std::string publication;
  std::string table_prefix;
  std::string table_suffix;
  std::vector<std::string> table_conf;
  std::string commit_interval = "500ms";
  int copy_workers = 4;
  int metrics_port = -1;  // -1: no metrics server
  std::string metrics_bind = "127.0.0.1";
  std::string config;             // --config: the pipeline file
  std::string log_format = "text";  // --log-format: text or json
};

// The pipeline file's settings, for each flag not given on the command line (flags override the file).
Status ApplyPipelineFile(const CLI::App& cmd, SyncFlags* flags) {
  if (flags->config.empty()) return Status::OK();
  TIDE_ASSIGN_OR_RETURN(PipelineConfig c, LoadPipelineConfig(flags->config));
  auto take = [&cmd](const char* flag, auto& value, auto* field) {
    if (value && cmd.count(flag) == 0) *field = *value;
  };
  take("--postgres", c.postgres, &flags->postgres);
  take("--tables", c.tables, &flags->tables);
  take("--excluding-tables", c.excluding_tables, &flags->excluding_tables);
  take("--slot", c.slot, &flags->slot);
  take("--publication", c.publication, &flags->publication);
  take("--warehouse", c.warehouse, &flags->warehouse);
  take("--database", c.database, &flags->database);
  take("--into", c.into, &flags->into);
  take("--table-prefix", c.table_prefix, &flags->table_prefix);
  take("--table-suffix", c.table_suffix, &flags->table_suffix);
  take("--primary-keys", c.primary_keys, &flags->primary_keys);
  take("--partition-keys", c.partition_keys, &flags->partition_keys);
  take("--computed-column", c.computed_columns, &flags->computed_columns);
  take("--metadata-column", c.metadata_columns, &flags->metadata_columns);
  take("--table-conf", c.table_conf, &flags->table_conf);
  take("--commit-interval", c.commit_interval, &flags->commit_interval);
  take("--copy-workers", c.copy_workers, &flags->copy_workers);
  take("--log-format", c.log_format, &flags->log_format);
  take("--metrics-port", c.metrics_port, &flags->metrics_port);
  take("--metrics-bind", c.metrics_bind, &flags->metrics_bind);
  return Status::OK();
}

// The settings a sync cannot run without, from a flag or the pipeline file.
Status CheckRequired(const SyncFlags& flags) {
  const std::pair<const char*, const std::string*> required[] = {
      {"--warehouse (sink.warehouse)", &flags.warehouse},
      {"--database (sink.database)", &flags.database},
      {"--postgres (source.conninfo)", &flags.postgres},
      {"--tables (source.tables)", &flags.tables},
  };
  for (const auto& [name, value] : required) {
    if (value->empty()) {
      return Status::InvalidArgument("{} is required: give the flag, or the key in the --config pipeline file", name);
    }
  }
  if (flags.log_format != "text" && flags.log_format != "json") {
    return Status::InvalidArgument("--log-format '{}' is not text or json", flags.log_format);
  }
  return Status::OK();
}

// While alive, the process's logger prints through `display` (above the bars, or as JSON).
class DisplayLogger {
 public:
  explicit DisplayLogger(ProgressDisplay& display) : previous_(spdlog::default_logger()) {
    auto logger = std::make_shared<spdlog::logger>("tide-sync", display.LogSink());
    logger->set_level(previous_->level());
    logger->set_pattern("%v");
    spdlog::set_default_logger(logger);
  }
  ~DisplayLogger() {
    spdlog::set_default_logger(previous_);
    spdlog::drop("tide-sync");  // its sink points at the display, which ends after this
  }
  DisplayLogger(const DisplayLogger&) = delete;
  DisplayLogger& operator=(const DisplayLogger&) = delete;

 private:
  std::shared_ptr<spdlog::logger> previous_;
};

std::atomic<PostgresSync*> g_sync{nullptr};
std::atomic<int> g_signals{0};

void OnSignal(int) {
  // The first signal stops after a final commit; a second one exits at once, acknowledging nothing new.
  if (g_signals.fetch_add(1) > 0) ::_exit(130);
  if (PostgresSync* sync = g_sync.load()) sync->RequestStop();
}

// Runs `sync` with SIGINT and SIGTERM asking it to stop (a second signal exits at once).
Status RunUntilSignalled(PostgresSync& sync) {
  g_sync.store(&sync);
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
  Status st = sync.Run();
  g_sync.store(nullptr);
  return st;
}

Status Run(const SyncFlags& flags) {
  TIDE_RETURN_IF_ERROR(CheckRequired(flags));
  PostgresSyncOptions options;
  options.warehouse = flags.warehouse;
  options.database = flags.database;
  options.conninfo = flags.postgres;
  TIDE_ASSIGN_OR_RETURN(TableSelection selection,
                        TableSelection::Parse(flags.tables, flags.excluding_tables, flags.table_prefix,
                                              flags.table_suffix, flags.into));
  if (selection.into_database()) options.database = *selection.into_database();
  const bool into = selection.has_into();
  options.selection = std::move(selection);
  auto scoped = [](const std::vector<std::string>& values,
                   std::vector<ScopedValue>* out) -> Status {
    for (const std::string& v : values) {
      TIDE_ASSIGN_OR_RETURN(ScopedValue parsed, ScopedValue::Parse(v));
      out->push_back(std::move(parsed));
    }
    return Status::OK();
  };
  TIDE_RETURN_IF_ERROR(scoped(flags.computed_columns, &options.computed_columns));
  TIDE_RETURN_IF_ERROR(scoped(flags.partition_keys, &options.partition_keys));
  TIDE_RETURN_IF_ERROR(scoped(flags.primary_keys, &options.primary_keys));
  for (const std::string& list : flags.metadata_columns) {
    TIDE_ASSIGN_OR_RETURN(auto columns, ParseMetadataColumns(list));
    for (MetadataColumn c : columns) {
      if (std::find(options.metadata_columns.begin(), options.metadata_columns.end(), c) !=
          options.metadata_columns.end()) {
        return Status::InvalidArgument("--metadata-column names {} twice", MetadataColumnName(c));
      }
      options.metadata_columns.push_back(c);
    }
  }
  if (into && std::find(options.metadata_columns.begin(), options.metadata_columns.end(), MetadataColumn::kTableName) ==
                  options.metadata_columns.end()) {
    // The rows of several tables in one: table_name tells them apart (and is part of the key).
    options.metadata_columns.push_back(MetadataColumn::kTableName);
  }
  options.slot = flags.slot.empty() ? "tide_" + ToLower(flags.database) : flags.slot;
  options.publication = flags.publication.empty() ? options.slot : flags.publication;
  options.manage_publication = flags.publication.empty();
  options.table_prefix = flags.table_prefix;
  options.table_suffix = flags.table_suffix;
  for (const std::string& kv : flags.table_conf) {
    size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Status::InvalidArgument("--table-conf '{}' is not KEY=VALUE (e.g. --table-conf bucket=4)", kv);
    }
    options.table_conf.emplace_back(std::string(Trim(kv.substr(0, eq))), std::string(Trim(kv.substr(eq + 1))));
  }
  TIDE_ASSIGN_OR_RETURN(int64_t interval, ParseDurationMillis(flags.commit_interval, "--commit-interval"));
  options.commit_interval = std::chrono::milliseconds(interval);
  if (flags.copy_workers < 1) return Status::InvalidArgument("--copy-workers must be at least 1");
  options.copy_workers = flags.copy_workers;
  auto progress = std::make_shared<SyncProgress>();
  options.progress = progress;
  ProgressDisplay display(progress, ProgressDisplay::FormFor(flags.log_format == "json"));
  Status st;
  PostgresSyncStats stats;
  {
    DisplayLogger logger(display);
    options.on_progress = [&display](const std::string& line) { display.Print("info", line); };
    // The metrics endpoint and status page (cli/metrics_server.h) live as long as the sync runs.
    std::unique_ptr<MetricsServer> metrics;
    if (flags.metrics_port >= 0) {
      TIDE_ASSIGN_OR_RETURN(metrics, MetricsServer::Start(flags.metrics_bind, flags.metrics_port, progress));
      display.Print("info", "serving metrics on " + metrics->url() + "/metrics and the status page on " +
                                metrics->url() + "/");
    }
    PostgresSync sync(std::move(options));
    st = RunUntilSignalled(sync);
    stats = sync.stats();
  }
  display.Stop();
  display.Print("info", fmt::format("{} rows copied, {} changes in {} transactions streamed, {} commits",
                                    stats.copied_rows, stats.streamed_changes, stats.transactions, stats.commits));
  return st;
}

struct ResyncFlags {
  std::string warehouse;
  std::string database;
  std::string postgres;
  std::string table;
  std::string slot;
  std::string publication;
  int copy_workers = 4;
};

// Whether the table's newest commit by the sync on `slot` holds a copy of every source made after
// `asked` (a copy's position is that of the slot it was made at, which is after the request).
Result<bool> CopiedAfter(FileSystem* fs, const std::string& path, const std::string& slot,
                         const std::vector<PgTableName>& sources, Lsn asked) {
  TIDE_ASSIGN_OR_RETURN(SinkPosition position, ReadSinkPosition(fs, path, PostgresSync::CommitUser(slot)));
  for (const PgTableName& source : sources) {
    if (!position.CopiedAfter(source.ToString(), sources.size() == 1, asked)) return false;
  }
  return true;
}

// `tide sync resync` beside a running sync: the request goes into the WAL (resync_request.h); the sync
// copies the table when its stream reaches it; this waits until the table holds that copy, or until
// the sync stops (it then copies the table when it starts again: the request lies past what it
// acknowledged).
Status ResyncThroughRunningSync(PgConnection& conn, FileSystem* fs, const std::string& path, const TableIdentifier& id,
                                const std::string& slot, const std::vector<PgTableName>& sources) {
  TIDE_ASSIGN_OR_RETURN(Lsn asked, SendResyncRequest(conn, ResyncRequest{slot, sources}));
  std::vector<std::string> names;
  for (const PgTableName& source : sources) names.push_back(source.ToString());
  std::cerr << fmt::format("tide sync resync: a tide sync runs on replication slot {}; asked it at {} to copy {} "
                           "again into {}; waiting for the copy\n",
                           slot, FormatLsn(asked), Join(names, ", "), id.ToString());
  const auto started = std::chrono::steady_clock::now();
  auto last_check = started;
  while (true) {
    TIDE_ASSIGN_OR_RETURN(bool done, CopiedAfter(fs, path, slot, sources, asked));
    if (done) {
      TIDE_ASSIGN_OR_RETURN(SinkPosition position, ReadSinkPosition(fs, path, PostgresSync::CommitUser(slot)));
      std::cerr << fmt::format("tide sync resync: {} copied again into {} by the running sync (snapshot {}, in "
                               "{:.1f} s); it streams on from there\n",
                               Join(names, ", "), id.ToString(), position.snapshot_id.value_or(0),
                               std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
      return Status::OK();
    }
    if (std::chrono::steady_clock::now() - last_check >= std::chrono::seconds(2)) {
      last_check = std::chrono::steady_clock::now();
      // Read before the table: a copy is committed before the sync acknowledges past the request.
      TIDE_ASSIGN_OR_RETURN(bool running, SyncRunsOnSlot(conn, slot));
      TIDE_ASSIGN_OR_RETURN(auto slot_info, FindReplicationSlot(conn, slot));
      const bool passed = slot_info && slot_info->confirmed_flush_lsn != kInvalidLsn &&
                          slot_info->confirmed_flush_lsn > asked;
      TIDE_ASSIGN_OR_RETURN(bool copied, CopiedAfter(fs, path, slot, sources, asked));
      if (copied) continue;
      if (passed) {
        return Status::Aborted(
            "the sync on replication slot {} read the request and went past it without copying {} (its log says "
            "why: a table it does not mirror, or a tide older than resync requests); stop the sync, then run "
            "tide sync resync again",
            slot, Join(names, ", "));
      }
      if (!running) {
        return Status::Aborted("the sync on replication slot {} stopped before it copied {}; it copies it when it "
                               "starts again (the request lies past the position it acknowledged), unless it "
                               "stopped on an error it meets again before the request",
                               slot, Join(names, ", "));
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

// `tide sync resync`: the lake table's source (from the sync's own snapshots), its computed and
// metadata columns (from the column comments the sync wrote), copied again at a fresh position.
Status Resync(const ResyncFlags& flags) {
  PostgresSyncOptions options;
  options.warehouse = flags.warehouse;
  options.database = flags.database;
  options.conninfo = flags.postgres;
  options.slot = flags.slot.empty() ? "tide_" + ToLower(flags.database) : flags.slot;
  options.publication = flags.publication.empty() ? options.slot : flags.publication;
  options.manage_publication = flags.publication.empty();
  if (flags.copy_workers < 1) return Status::InvalidArgument("--copy-workers must be at least 1");
  options.copy_workers = flags.copy_workers;
  std::string table = ToLower(flags.table);
  if (size_t dot = table.find('.'); dot != std::string::npos) {
    if (table.substr(0, dot) != ToLower(flags.database)) {
      return Status::InvalidArgument("--table {} is not a table of --database {}", flags.table, flags.database);
    }
    table = table.substr(dot + 1);
  }
  FileSystem* fs = FileSystem::Local();
  TIDE_ASSIGN_OR_RETURN(auto catalog, Catalog::Open(fs, flags.warehouse));
  TableIdentifier id{ToLower(flags.database), table};
  const std::string path = catalog->TablePath(id);
  TIDE_ASSIGN_OR_RETURN(bool exists, SchemaManager(fs, path).Exists());
  if (!exists) return Status::NotFound("lake table {} does not exist in {}", id.ToString(), flags.warehouse);
  TIDE_ASSIGN_OR_RETURN(SinkPosition position, ReadSinkPosition(fs, path, PostgresSync::CommitUser(options.slot)));
  if (position.source_table.empty()) {
    return Status::NotFound(
        "lake table {} holds no commit of the sync on replication slot {}, so its source is unknown; name the "
        "slot the table is synced with (--slot)",
        id.ToString(), options.slot);
  }
  TIDE_ASSIGN_OR_RETURN(std::vector<PgTableName> sources, ParsePgTableList(position.source_table));
  TIDE_ASSIGN_OR_RETURN(TableSchema schema, SchemaManager(fs, path).Latest());
  for (const DataField& f : schema.fields) {
    if (!f.description) continue;
    if (StartsWith(*f.description, "computed: ")) {
      TIDE_ASSIGN_OR_RETURN(ScopedValue spec, ScopedValue::Parse(f.description->substr(10)));
      options.computed_columns.push_back(std::move(spec));
    } else if (StartsWith(*f.description, "metadata: ")) {
      TIDE_ASSIGN_OR_RETURN(auto columns, ParseMetadataColumns(f.description->substr(10)));
      for (MetadataColumn c : columns) options.metadata_columns.push_back(c);
    }
  }
  {
    // A running sync holds the slot: it is asked through the WAL, and copies the table itself.
    TIDE_ASSIGN_OR_RETURN(auto conn, PgConnection::Connect(options.conninfo));
    TIDE_ASSIGN_OR_RETURN(bool running, SyncRunsOnSlot(*conn, options.slot));
    if (running) return ResyncThroughRunningSync(*conn, fs, path, id, options.slot, sources);
  }
  options.tables = sources;
  for (const PgTableName& source : sources) options.target_names[source] = table;
  options.resync = sources;
  options.copy_only = true;
  // The copy's bars on a terminal, plain lines otherwise, as the sync shows them.
  auto progress = std::make_shared<SyncProgress>();
  options.progress = progress;
  ProgressDisplay display(progress, ProgressDisplay::FormFor(false));
  Status st;
  int64_t copied_rows = 0;
  {
    DisplayLogger logger(display);
    options.on_progress = [&display](const std::string& line) { display.Print("info", line); };
    PostgresSync sync(std::move(options));
    st = RunUntilSignalled(sync);
    copied_rows = sync.stats().copied_rows;
  }
  display.Stop();
  if (st.ok()) {
    std::vector<std::string> names;
    for (const PgTableName& source : sources) names.push_back(source.ToString());
    display.Print("info", fmt::format("{} copied again into {} ({} rows); the sync continues from there when it starts",
                                      Join(names, ", "), id.ToString(), copied_rows));
  }
  return st;
}

}  // namespace

void RegisterSync(CLI::App& app) {
  CLI::App* sync = app.add_subcommand("sync", "Keep Paimon tables in step with a source");
  sync->require_subcommand(1);
  auto flags = std::make_shared<SyncFlags>();
  CLI::App* pg = sync->add_subcommand(
      "postgres", "Mirror PostgreSQL tables into Paimon tables: initial copy, then the change stream, exactly once, "
                  "until SIGINT or SIGTERM");
  pg->add_option("--warehouse", flags->warehouse, "the lake's warehouse folder (created if missing)");
  pg->add_option("--database", flags->database, "the lake database the tables go to (created if missing)");
  pg->add_option("--postgres", flags->postgres, "libpq connection string or postgresql:// URI");
  pg->add_option("--tables", flags->tables,
                 "comma-separated PostgreSQL tables: names (schema.table) or regular expressions (public\\..*)");
  pg->add_option("--excluding-tables", flags->excluding_tables, "tables left out: names or regular expressions");
  pg->add_option("--into", flags->into,
                 "one lake table ([DB.]T) for every selected table (shards such as public.orders_\\d+); adds the "
                 "table_name metadata column, part of the primary key");
  pg->add_option("--computed-column", flags->computed_columns,
                 "[TABLE:]name=function(args), e.g. 'dt=date_format(update_time, yyyy-MM-dd)' (repeatable)")
      ->allow_extra_args(false);
  pg->add_option("--partition-keys", flags->partition_keys, "[TABLE:]comma-separated partition columns (repeatable)")
      ->allow_extra_args(false);
  pg->add_option("--primary-keys", flags->primary_keys,
                 "[TABLE:]comma-separated primary-key columns (repeatable; default PostgreSQL's)")
      ->allow_extra_args(false);
  pg->add_option("--metadata-column", flags->metadata_columns,
                 "columns filled from the row's origin: database_name, schema_name, table_name, op_ts "
                 "(comma-separated or repeated)")
      ->allow_extra_args(false);
  pg->add_option("--slot", flags->slot, "replication slot (created when missing, reused when present; default tide_<database>)");
  pg->add_option("--publication", flags->publication,
                 "publication (created for the tables when missing, else checked to cover them; default: the slot's name)");
  pg->add_option("--table-prefix", flags->table_prefix, "prefix of the lake table names");
  pg->add_option("--table-suffix", flags->table_suffix, "suffix of the lake table names");
  pg->add_option("--table-conf", flags->table_conf, "Paimon table option KEY=VALUE for the tables the sync creates (repeatable)")
      ->allow_extra_args(false);
  pg->add_option("--commit-interval", flags->commit_interval,
                 "how often buffered changes are committed (at a transaction boundary), e.g. 500ms, 2s; default 500ms");
  pg->add_option("--copy-workers", flags->copy_workers, "PostgreSQL sessions copying tables in parallel (default 4)");
  pg->add_option("--metrics-port", flags->metrics_port,
                 "serve Prometheus metrics (/metrics) and a status page (/) on this port while the sync runs; 0 "
                 "picks a free port (printed)")
      ->check(CLI::Range(0, 65535));
  pg->add_option("--metrics-bind", flags->metrics_bind,
                 "address the metrics server listens on (default 127.0.0.1; 0.0.0.0 for every interface)");
  pg->add_option("--config", flags->config,
                 "a YAML pipeline file with these settings (docs/operations.md, \"The pipeline file\"); flags override it");
  pg->add_option("--log-format", flags->log_format,
                 "text (bars on a terminal, lines otherwise) or json (one JSON object per line on stderr)");
  // `tide sync status`: where each table of the lake database stands (sync/sync_status.h).
  auto status_options = std::make_shared<SyncStatusOptions>();
  CLI::App* status = sync->add_subcommand(
      "status", "Per table: the committed source position, records, last commit, copy state; with --postgres the slot's lag");
  status->add_option("--warehouse", status_options->warehouse, "the lake's warehouse folder")->required();
  status->add_option("--database", status_options->database, "the lake database of the sync")->required();
  status->add_option("--postgres", status_options->conninfo, "libpq connection string: adds the slot's position and lag");
  status->add_option("--slot", status_options->slot, "the sync's replication slot (default tide_<database>)");
  status->callback([status_options, &app] {
    InitLogging(app.count("--verbose") > 0 ? LogLevel::kDebug : LogLevel::kWarn);
    SyncStatusOptions options = *status_options;
    if (options.slot.empty()) options.slot = "tide_" + ToLower(options.database);
    auto read = ReadSyncStatus(options);
    if (!read.ok()) {
      std::cerr << "tide sync status: " << read.status().ToString() << std::endl;
      throw CLI::RuntimeError(1);
    }
    std::cout << FormatSyncStatus(*read);
    throw CLI::RuntimeError(0);
  });
  auto resync_flags = std::make_shared<ResyncFlags>();
  CLI::App* resync = sync->add_subcommand(
      "resync", "Copy one synced table again from PostgreSQL, replacing its lake contents (a running sync is asked to do it)");
  resync->add_option("--warehouse", resync_flags->warehouse, "the lake's warehouse folder")->required();
  resync->add_option("--database", resync_flags->database, "the lake database of the table")->required();
  resync->add_option("--postgres", resync_flags->postgres, "libpq connection string or postgresql:// URI")->required();
  resync->add_option("--table", resync_flags->table, "the lake table to copy again (T or DB.T)")->required();
  resync->add_option("--slot", resync_flags->slot, "the sync's replication slot (default tide_<database>)");
  resync->add_option("--publication", resync_flags->publication, "the sync's publication (default: the slot's name)");
  resync->add_option("--copy-workers", resync_flags->copy_workers, "PostgreSQL sessions copying in parallel (default 4)");
  resync->callback([resync_flags, &app] {
    InitLogging(app.count("--verbose") > 0 ? LogLevel::kDebug : LogLevel::kWarn);
    Status st = Resync(*resync_flags);
    if (!st.ok()) {
      std::cerr << "tide sync resync: " << st.ToString() << std::endl;
      throw CLI::RuntimeError(1);
    }
    throw CLI::RuntimeError(0);
  });
  pg->callback([flags, pg, &app] {
    InitLogging(app.count("--verbose") > 0 ? LogLevel::kDebug : LogLevel::kWarn);
    Status st = ApplyPipelineFile(*pg, flags.get());
    if (st.ok()) st = Run(*flags);
    if (!st.ok()) {
      if (flags->log_format == "json") {
        std::cerr << RenderLogJson("error", "tide sync postgres: " + st.ToString(),
                                   std::chrono::duration_cast<std::chrono::milliseconds>(
                                       std::chrono::system_clock::now().time_since_epoch())
                                       .count()) << std::endl;
        throw CLI::RuntimeError(1);
      }
      std::cerr << "tide sync postgres: " << st.ToString() << std::endl;
      throw CLI::RuntimeError(1);
    }
    throw CLI::RuntimeError(0);
  });
}

}  // namespace tide::cli
