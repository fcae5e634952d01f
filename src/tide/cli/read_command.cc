#include "tide/cli/read_command.h"

#include <signal.h>

#include <atomic>
#include <iostream>
#include <memory>
#include <thread>

#include "tide/base/strings.h"
#include "tide/catalog/catalog.h"
#include "tide/cli/pg_tail_command.h"
#include "tide/io/file_system.h"
#include "tide/sql/result_format.h"
#include "tide/table/change_read.h"
#include "tide/table/snapshot/snapshot_manager.h"

namespace tide::cli {

namespace {

std::atomic<bool> g_stop{false};

void OnSignal(int) { g_stop.store(true); }

// Stops the command on SIGINT and SIGTERM for as long as it lives.
class StopOnSignals {
 public:
  StopOnSignals() {
    g_stop.store(false);
    struct sigaction sa {};
    sa.sa_handler = OnSignal;
    sigemptyset(&sa.sa_mask);
    ::sigaction(SIGINT, &sa, &previous_int_);
    ::sigaction(SIGTERM, &sa, &previous_term_);
  }
  ~StopOnSignals() {
    ::sigaction(SIGINT, &previous_int_, nullptr);
    ::sigaction(SIGTERM, &previous_term_, nullptr);
  }
  StopOnSignals(const StopOnSignals&) = delete;
  StopOnSignals& operator=(const StopOnSignals&) = delete;

 private:
  struct sigaction previous_int_ = {};
  struct sigaction previous_term_ = {};
};

// Writes records as lines in the chosen format.
class ChangePrinter {
 public:
  ChangePrinter(OutputFormat format, const std::vector<DataField>& fields, std::ostream& out)
      : format_(format), fields_(fields), out_(out) {
    text_.columns.push_back(TextColumn{"rowkind", "VARCHAR", false});
    text_.columns.push_back(TextColumn{"snapshot_id", "BIGINT", true});
    for (const DataField& f : fields_) text_.columns.push_back(TextColumn{f.name, f.type.ToString(), false});
  }

  Status Print(const ChangeRecord& record) {
    if (format_ == OutputFormat::kJson) {
      nlohmann::ordered_json line;
      line["rowkind"] = std::string(RowKindShortString(record.kind));
      line["snapshot_id"] = record.snapshot_id;
      nlohmann::ordered_json row = nlohmann::ordered_json::object();
      for (size_t i = 0; i < fields_.size() && i < record.row.size(); ++i) {
        row[fields_[i].name] = DatumToJson(record.row[i], fields_[i].type);
      }
      line["row"] = std::move(row);
      out_ << line.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << '\n';
    } else {
      std::vector<std::optional<std::string>> cells;
      cells.emplace_back(std::string(RowKindShortString(record.kind)));
      cells.emplace_back(std::to_string(record.snapshot_id));
      for (size_t i = 0; i < fields_.size(); ++i) {
        if (i >= record.row.size() || record.row[i].is_null()) {
          cells.emplace_back(std::nullopt);
        } else {
          cells.emplace_back(DatumToString(record.row[i], fields_[i].type));
        }
      }
      text_.rows.clear();
      text_.rows.push_back(std::move(cells));
      WriteCsv(text_, out_, /*header=*/!header_written_);
      header_written_ = true;
    }
    return out_ ? Status::OK() : Status::IOError("cannot write the changes to standard output");
  }

  Status Flush() {
    if (format_ == OutputFormat::kCsv && !header_written_) {
      text_.rows.clear();
      WriteCsv(text_, out_, /*header=*/true);
      header_written_ = true;
    }
    out_.flush();
    return out_ ? Status::OK() : Status::IOError("cannot write the changes to standard output");
  }

 private:
  OutputFormat format_;
  const std::vector<DataField>& fields_;
  std::ostream& out_;
  TextResult text_;
  bool header_written_ = false;
};

Status RunRead(const ReadCommandOptions& options, std::ostream& out) {
  TIDE_ASSIGN_OR_RETURN(OutputFormat format, ParseOutputFormat(options.format));
  if (format == OutputFormat::kTable) {
    return Status::InvalidArgument("--format table is not offered by tide read; use json or csv");
  }
  TIDE_ASSIGN_OR_RETURN(TableIdentifier id, TableIdentifier::Parse(options.table));
  TIDE_ASSIGN_OR_RETURN(auto catalog, Catalog::Open(FileSystem::Local(), options.warehouse));
  TIDE_ASSIGN_OR_RETURN(std::unique_ptr<Table> table, catalog->GetTable(id));
  TableChangeStreamOptions stream_options;
  TIDE_ASSIGN_OR_RETURN(stream_options.start, StreamStart::Parse(options.from));
  stream_options.consumer_id = options.consumer_id;
  stream_options.scan_mode = options.scan_mode;
  TIDE_ASSIGN_OR_RETURN(auto stream, TableChangeStream::Open(table.get(), std::move(stream_options)));

  // Without --follow: up to the snapshot that is latest now.
  std::optional<int64_t> last;
  if (!options.follow) {
    TIDE_ASSIGN_OR_RETURN(auto latest, SnapshotManager(table->fs(), table->metadata_path()).LatestId());
    last = latest.value_or(0);
  }
  StopOnSignals signals;
  ChangePrinter printer(format, stream->fields(), out);
  auto emit = [&printer](const ChangeRecord& record) { return printer.Print(record); };
  while (!g_stop.load()) {
    if (last && stream->next_snapshot() > *last && !stream->full_read_due()) break;
    TIDE_ASSIGN_OR_RETURN(std::optional<int64_t> read, stream->Poll(emit));
    // The rows are out before the consumer says they were read: a crash in between repeats a snapshot,
    // never skips one.
    TIDE_RETURN_IF_ERROR(printer.Flush());
    TIDE_RETURN_IF_ERROR(stream->CommitConsumer());
    if (read) continue;
    if (last) break;
    // Sleep in short steps so that a signal ends the wait promptly.
    auto until = std::chrono::steady_clock::now() + options.poll_interval;
    while (!g_stop.load() && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::min<std::chrono::milliseconds>(options.poll_interval, std::chrono::milliseconds(20)));
    }
  }
  TIDE_RETURN_IF_ERROR(printer.Flush());
  return stream->CommitConsumer();
}

}  // namespace

int RunReadCommand(const ReadCommandOptions& options, std::ostream& out, std::ostream& err) {
  Status st = RunRead(options, out);
  if (!st.ok()) {
    err << "Error: " << st.message() << std::endl;
    return 1;
  }
  return 0;
}

void RegisterRead(CLI::App& app) {
  auto options = std::make_shared<ReadCommandOptions>();
  auto poll = std::make_shared<std::string>("20ms");
  auto consumer = std::make_shared<std::string>();
  CLI::App* command = app.add_subcommand("read", "Print a table's changes with their row kinds, following new commits");
  command->add_option("--warehouse", options->warehouse, "Warehouse folder (holds <database>.db/<table>/)")
      ->required();
  command->add_option("--table", options->table, "The table, DATABASE.TABLE")->required();
  command->add_flag("--follow", options->follow, "Keep printing changes as they are committed, until SIGINT/SIGTERM");
  command->add_option("--from", options->from,
                      "Where to start: latest-full, latest, earliest, snapshot:N, snapshot-full:N, timestamp:T (ms)")
      ->capture_default_str();
  command->add_option("--consumer-id", *consumer,
                      "Record progress in consumer/consumer-ID and continue from it on the next run");
  command->add_option("--format", options->format, "Output format: json or csv")
      ->capture_default_str()
      ->check(CLI::IsMember({"csv", "json"}, CLI::ignore_case));
  command->add_option("--scan-mode", options->scan_mode, "Read changelog or delta files: auto, delta or changelog")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "delta", "changelog"}, CLI::ignore_case));
  command->add_option("--poll-interval", *poll, "How often --follow looks for a new snapshot (e.g. 100ms, 1s)")
      ->capture_default_str();
  command->callback([options, poll, consumer]() {
    Result<int64_t> millis = ParseDurationMillis(*poll, "--poll-interval");
    if (!millis.ok() || *millis < 1) {
      std::cerr << "Error: " << (millis.ok() ? "--poll-interval must be at least 1ms" : millis.status().message())
                << std::endl;
      throw CLI::RuntimeError(2);
    }
    options->poll_interval = std::chrono::milliseconds(*millis);
    if (!consumer->empty()) options->consumer_id = *consumer;
    int code = RunReadCommand(*options, std::cout, std::cerr);
    if (code != 0) throw CLI::RuntimeError(code);
  });
}

}  // namespace tide::cli
