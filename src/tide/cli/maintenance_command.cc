#include "tide/cli/maintenance_command.h"

#include <chrono>
#include <ctime>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "tide/base/logging.h"
#include "tide/base/strings.h"
#include "tide/catalog/catalog.h"
#include "tide/table/operation/expire_snapshots.h"
#include "tide/table/operation/orphan_files_clean.h"
#include "tide/table/operation/partition_expire.h"
#include "tide/table/operation/rollback.h"
#include "tide/table/operation/tag_operations.h"
#include "tide/table/schema/core_options.h"
#include "tide/table/snapshot/changelog_manager.h"
#include "tide/table/snapshot/snapshot_manager.h"
#include "tide/table/snapshot/tag_manager.h"

namespace tide::cli {

namespace {

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Epoch millis of a local timestamp text (Java's DateTimeUtils.parseTimestampData in the default zone).
Result<int64_t> ParseLocalTimestamp(const std::string& text, const char* flag) {
  auto local = ParsePartitionTime(std::string(Trim(text)), std::nullopt);
  if (!local) {
    return Status::InvalidArgument("{} '{}' is not a timestamp; use local time as 'yyyy-MM-dd HH:mm:ss' or "
                                   "'yyyy-MM-dd'",
                                   flag, text);
  }
  // The local zone's offset at that time (twice, to land on the right side of a DST change).
  int64_t epoch = *local;
  for (int i = 0; i < 2; ++i) {
    std::time_t seconds = static_cast<std::time_t>(epoch / 1000);
    std::tm tm{};
    localtime_r(&seconds, &tm);
    epoch = *local - static_cast<int64_t>(tm.tm_gmtoff) * 1000;
  }
  return epoch;
}

std::string LocalTimeText(int64_t epoch_ms) {
  std::time_t seconds = static_cast<std::time_t>(epoch_ms / 1000);
  std::tm tm{};
  localtime_r(&seconds, &tm);
  return fmt::format("{:04}-{:02}-{:02} {:02}:{:02}:{:02}", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                     tm.tm_min, tm.tm_sec);
}

struct OpenedTable {
  TableIdentifier id;
  std::string path;
  TableSchema schema;
};

Result<OpenedTable> OpenTable(const MaintenanceOptions& o) {
  TIDE_ASSIGN_OR_RETURN(TableIdentifier id, TableIdentifier::Parse(o.table));
  TIDE_ASSIGN_OR_RETURN(auto catalog, Catalog::Open(FileSystem::Local(), o.warehouse));
  TIDE_ASSIGN_OR_RETURN(auto table, catalog->GetTable(id));
  return OpenedTable{id, table->path(), table->latest_schema()};
}

Status ExpireSnapshotsCommand(const MaintenanceOptions& o, std::ostream& out) {
  TIDE_ASSIGN_OR_RETURN(OpenedTable t, OpenTable(o));
  const std::string name = t.id.ToString();
  TIDE_ASSIGN_OR_RETURN(CoreOptions options, CoreOptions::Create(t.schema, name));
  ExpireConfig config = ExpireConfig::FromOptions(options);
  if (o.retain_max) config.retain_max = *o.retain_max;
  if (o.retain_min) config.retain_min = *o.retain_min;
  if (o.max_deletes) config.max_deletes = *o.max_deletes;
  const int64_t now = NowMs();
  if (!o.older_than.empty()) {
    TIDE_ASSIGN_OR_RETURN(int64_t older_than, ParseLocalTimestamp(o.older_than, "--older-than"));
    config.time_retained_ms = now - older_than;
  }
  ExpireSnapshots expire(FileSystem::Local(), t.path, name, [now] { return now; });
  TIDE_ASSIGN_OR_RETURN(ExpireResult r, expire.Expire(config));
  SnapshotManager snapshots(FileSystem::Local(), t.path);
  TIDE_ASSIGN_OR_RETURN(auto earliest, snapshots.EarliestId());
  TIDE_ASSIGN_OR_RETURN(auto latest, snapshots.LatestId());
  std::string remain = latest ? fmt::format("snapshots {} to {} remain", earliest.value_or(*latest), *latest)
                              : std::string("the table has no snapshot");
  out << fmt::format("Expired {} snapshots of {} ({}); deleted {} data files, {} changelog files, {} manifest files, "
                     "{} index files, {} statistics files\n",
                     r.snapshots_deleted, name, remain, r.data_files_deleted, r.changelog_files_deleted,
                     r.manifest_files_deleted, r.index_files_deleted, r.statistics_files_deleted);
  if (config.changelog_decoupled) {
    ChangelogManager changelogs(FileSystem::Local(), t.path);
    TIDE_ASSIGN_OR_RETURN(auto first, changelogs.EarliestId());
    TIDE_ASSIGN_OR_RETURN(auto last, changelogs.LatestId());
    std::string kept = first && last ? fmt::format("changelogs {} to {} remain", *first, *last)
                                     : std::string("no changelog remains");
    out << fmt::format("Kept {} expired snapshots as changelog; expired {} changelogs ({}); deleted {} data files, {} "
                       "manifest files\n",
                       r.changelogs_written, r.changelog.changelogs_deleted, kept, r.changelog.data_files_deleted,
                       r.changelog.manifest_files_deleted);
  }
  return Status::OK();
}

Status RemoveOrphanFilesCommand(const MaintenanceOptions& o, std::ostream& out) {
  TIDE_ASSIGN_OR_RETURN(OpenedTable t, OpenTable(o));
  const std::string name = t.id.ToString();
  const int64_t now = NowMs();
  int64_t older_than = now - kDefaultOrphanFileAgeMs;
  if (!o.older_than.empty()) {
    TIDE_ASSIGN_OR_RETURN(older_than, ParseLocalTimestamp(o.older_than, "--older-than"));
  }
  TIDE_ASSIGN_OR_RETURN(OrphanFilesResult r,
                        RemoveOrphanFiles(FileSystem::Local(), t.path, name, older_than, now, o.dry_run));
  if (o.dry_run) {
    out << fmt::format("Would delete {} orphan files ({} bytes) of {} older than {}:\n", r.files_deleted,
                       r.bytes_deleted, name, LocalTimeText(older_than));
    for (const auto& p : r.paths) out << "  " << p << "\n";
  } else {
    out << fmt::format("Deleted {} orphan files ({} bytes) of {} older than {}\n", r.files_deleted, r.bytes_deleted,
                       name, LocalTimeText(older_than));
  }
  return Status::OK();
}

Status TagCommand(const MaintenanceOptions& o, std::ostream& out) {
  TIDE_ASSIGN_OR_RETURN(OpenedTable t, OpenTable(o));
  const std::string name = t.id.ToString();
  FileSystem* fs = FileSystem::Local();
  if (o.action == "list") {
    TIDE_ASSIGN_OR_RETURN(auto tagged, TagManager(fs, t.path).ListTagged());
    out << "tag_name\tsnapshot_id\tschema_id\tcommit_time\trecord_count\ttime_retained\n";
    for (const auto& tag : tagged) {
      for (const auto& n : tag.names) {
        const Snapshot& s = tag.snapshot;
        std::string retained =
            s.tag_time_retained_ms ? fmt::format("{} s", *s.tag_time_retained_ms / 1000) : std::string("");
        out << fmt::format("{}\t{}\t{}\t{}\t{}\t{}\n", n, s.id, s.schema_id, LocalTimeText(s.time_millis),
                           s.total_record_count ? std::to_string(*s.total_record_count) : "", retained);
      }
    }
    return Status::OK();
  }
  if (o.tag.empty()) return Status::InvalidArgument("tag {} needs --tag NAME", o.action);
  if (o.action == "create") {
    std::optional<int64_t> retained;
    if (!o.time_retained.empty()) {
      TIDE_ASSIGN_OR_RETURN(int64_t ms, ParseDurationMillis(o.time_retained, "--time-retained"));
      retained = ms;
    }
    TIDE_ASSIGN_OR_RETURN(Snapshot s, CreateTag(fs, t.path, name, o.tag, o.snapshot, retained, NowMs()));
    out << fmt::format("Created tag '{}' of {} at snapshot {}{}\n", o.tag, name, s.id,
                       s.tag_time_retained_ms ? fmt::format(", kept for {} s", *s.tag_time_retained_ms / 1000) : "");
    return Status::OK();
  }
  if (o.action == "delete") {
    TIDE_ASSIGN_OR_RETURN(TagDeletionResult r, DeleteTag(fs, t.path, name, o.tag));
    out << fmt::format("Deleted tag '{}' of {}; deleted {} data files and {} manifest files only it kept\n", o.tag,
                       name, r.data_files_deleted, r.manifest_files_deleted);
    return Status::OK();
  }
  return Status::InvalidArgument("tag takes create, delete or list, not '{}'", o.action);
}

Status RollbackCommand(const MaintenanceOptions& o, std::ostream& out) {
  TIDE_ASSIGN_OR_RETURN(OpenedTable t, OpenTable(o));
  const std::string name = t.id.ToString();
  if (o.snapshot.has_value() == !o.tag.empty()) {
    return Status::InvalidArgument("rollback of {} needs exactly one of --snapshot N and --tag NAME", name);
  }
  std::optional<std::string> tag;
  if (!o.tag.empty()) tag = o.tag;
  TIDE_ASSIGN_OR_RETURN(RollbackResult r, RollbackTo(FileSystem::Local(), t.path, name, o.snapshot, tag));
  out << fmt::format("Rolled {} back to snapshot {}; deleted {} snapshots, {} tags and {} files\n", name,
                     r.retained_snapshot, r.snapshots_deleted, r.tags_deleted, r.files_deleted);
  return Status::OK();
}

Status ExpirePartitionsCommand(const MaintenanceOptions& o, std::ostream& out) {
  TIDE_ASSIGN_OR_RETURN(OpenedTable t, OpenTable(o));
  const std::string name = t.id.ToString();
  if (t.schema.partition_keys.empty()) {
    return Status::InvalidArgument("table {} is not partitioned; there are no partitions to expire", name);
  }
  TIDE_ASSIGN_OR_RETURN(CoreOptions options, CoreOptions::Create(t.schema, name));
  std::optional<int64_t> expiration;
  if (!o.expiration_time.empty()) {
    TIDE_ASSIGN_OR_RETURN(int64_t ms, ParseDurationMillis(o.expiration_time, "--expiration-time"));
    expiration = ms;
  }
  TIDE_ASSIGN_OR_RETURN(auto config, PartitionExpireConfig::FromOptions(options, name, expiration));
  if (!config) {
    return Status::InvalidArgument(
        "table {} sets no partition.expiration-time; give --expiration-time (e.g. '7 d') or set the option", name);
  }
  config->check_interval_ms = 0;  // the procedure checks now
  if (!o.timestamp_formatter.empty()) config->timestamp_formatter = o.timestamp_formatter;
  if (!o.timestamp_pattern.empty()) config->timestamp_pattern = o.timestamp_pattern;
  if (o.max_expires) config->max_num = *o.max_expires;
  const int64_t now = NowMs();
  PartitionExpire expire(FileSystem::Local(), t.path, name, *config, now);
  TIDE_ASSIGN_OR_RETURN(auto dropped, expire.Expire(now));
  std::vector<std::string> parts = dropped.value_or(std::vector<std::string>{});
  out << fmt::format("Expired {} partitions of {}\n", parts.size(), name);
  for (const auto& p : parts) out << "  " << p << "\n";
  return Status::OK();
}

}  // namespace

int RunMaintenanceCommand(const MaintenanceOptions& options, std::ostream& out, std::ostream& err) {
  Status s;
  if (options.command == "expire-snapshots") {
    s = ExpireSnapshotsCommand(options, out);
  } else if (options.command == "remove-orphan-files") {
    s = RemoveOrphanFilesCommand(options, out);
  } else if (options.command == "tag") {
    s = TagCommand(options, out);
  } else if (options.command == "rollback") {
    s = RollbackCommand(options, out);
  } else if (options.command == "expire-partitions") {
    s = ExpirePartitionsCommand(options, out);
  } else {
    s = Status::InvalidArgument("unknown maintenance command '{}'", options.command);
  }
  if (!s.ok()) {
    err << "Error: " << s.message() << std::endl;
    return 1;
  }
  return 0;
}

void RegisterMaintenance(CLI::App& app) {
  auto add_table = [](CLI::App* c, MaintenanceOptions* o) {
    c->add_option("--warehouse", o->warehouse, "Warehouse folder (holds <database>.db/<table>/)")->required();
    c->add_option("--table", o->table, "The table, <database>.<table>")->required();
  };
  auto run = [&app](std::shared_ptr<MaintenanceOptions> o) {
    return [o, &app]() {
      // The callback runs while the command line is parsed, before Main sets up logging.
      InitLogging(app.count("--verbose") > 0 ? LogLevel::kDebug : LogLevel::kWarn);
      int code = RunMaintenanceCommand(*o, std::cout, std::cerr);
      if (code != 0) throw CLI::RuntimeError(code);
    };
  };

  auto expire = std::make_shared<MaintenanceOptions>();
  expire->command = "expire-snapshots";
  CLI::App* e = app.add_subcommand("expire-snapshots", "Expire old snapshots and delete the files only they used");
  add_table(e, expire.get());
  e->add_option("--retain-max", expire->retain_max, "Keep at most N snapshots (snapshot.num-retained.max)");
  e->add_option("--retain-min", expire->retain_min, "Keep at least N snapshots (snapshot.num-retained.min)");
  e->add_option("--older-than", expire->older_than,
                "Expire only snapshots replaced before this local time, 'yyyy-MM-dd HH:mm:ss' (snapshot.time-retained)");
  e->add_option("--max-deletes", expire->max_deletes, "Expire at most N snapshots now (snapshot.expire.limit)");
  e->callback(run(expire));

  auto orphans = std::make_shared<MaintenanceOptions>();
  orphans->command = "remove-orphan-files";
  CLI::App* r = app.add_subcommand("remove-orphan-files", "Delete files no snapshot, tag or changelog references");
  add_table(r, orphans.get());
  r->add_option("--older-than", orphans->older_than,
                "Only files modified before this local time, 'yyyy-MM-dd HH:mm:ss' (default: one day ago)");
  r->add_flag("--dry-run", orphans->dry_run, "List the files without deleting them");
  r->callback(run(orphans));

  auto tag = std::make_shared<MaintenanceOptions>();
  tag->command = "tag";
  CLI::App* t = app.add_subcommand("tag", "Create, delete or list tags");
  t->add_option("action", tag->action, "create, delete or list")->required()->check(CLI::IsMember({"create", "delete", "list"}));
  add_table(t, tag.get());
  t->add_option("--tag", tag->tag, "The tag name");
  t->add_option("--snapshot", tag->snapshot, "create: the snapshot to tag (default: the latest)");
  t->add_option("--time-retained", tag->time_retained, "create: how long to keep the tag, e.g. '7 d'");
  t->callback(run(tag));

  auto rollback = std::make_shared<MaintenanceOptions>();
  rollback->command = "rollback";
  CLI::App* b = app.add_subcommand("rollback", "Roll a table back to a snapshot or tag (stop its writers first)");
  add_table(b, rollback.get());
  b->add_option("--snapshot", rollback->snapshot, "The snapshot to roll back to");
  b->add_option("--tag", rollback->tag, "The tag to roll back to");
  b->callback(run(rollback));

  auto partitions = std::make_shared<MaintenanceOptions>();
  partitions->command = "expire-partitions";
  CLI::App* p = app.add_subcommand("expire-partitions", "Drop partitions whose time value is older than a duration");
  add_table(p, partitions.get());
  p->add_option("--expiration-time", partitions->expiration_time,
                "Drop partitions older than this, e.g. '7 d' (partition.expiration-time)");
  p->add_option("--timestamp-formatter", partitions->timestamp_formatter,
                "How partition values spell time, e.g. 'yyyyMMdd' (partition.timestamp-formatter)");
  p->add_option("--timestamp-pattern", partitions->timestamp_pattern,
                "How partition values make a time, e.g. '$dt $hour:00:00' (partition.timestamp-pattern)");
  p->add_option("--max-expires", partitions->max_expires, "Drop at most N partitions (partition.expiration-max-num)");
  p->callback(run(partitions));
}

}  // namespace tide::cli
