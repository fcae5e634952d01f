// PipelineConfig: the settings of `tide sync postgres --config FILE`, read from a YAML pipeline file
// (docs/operations.md, "The pipeline file"). The file has the sections `source:` (PostgreSQL and what
// to read from it), `sink:` (the lake and how tables land there), `pipeline:` (how the sync runs) and
// `metrics:` (the metrics endpoint); each key carries the value of the flag of the same name.
//
// Invariant: a parsed PipelineConfig holds only keys the file set (unset ones stay empty / nullopt),
// every `${VAR}` already replaced from the environment, every value of the right type (durations and
// integers checked). Parsing never throws: yaml-cpp's exceptions end at this boundary as a Status
// naming the file, the line and the key, never the value (a value may hold a password).
// Thread-safety: the functions are pure (the environment is read through the function passed in).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tide/base/result.h"

namespace tide::cli {

struct PipelineConfig {
  // source:
  std::optional<std::string> postgres;          // source.conninfo
  std::optional<std::string> tables;            // source.tables (a list joins with commas)
  std::optional<std::string> excluding_tables;  // source.excluding-tables
  std::optional<std::string> slot;              // source.slot
  std::optional<std::string> publication;       // source.publication
  // sink:
  std::optional<std::string> warehouse;     // sink.warehouse
  std::optional<std::string> database;      // sink.database
  std::optional<std::string> into;          // sink.into
  std::optional<std::string> table_prefix;  // sink.table-prefix
  std::optional<std::string> table_suffix;  // sink.table-suffix
  // Each in the flag's `[TABLE:]VALUE` form, one entry per repetition of the flag.
  std::optional<std::vector<std::string>> primary_keys;      // sink.primary-keys
  std::optional<std::vector<std::string>> partition_keys;    // sink.partition-keys
  std::optional<std::vector<std::string>> computed_columns;  // sink.computed-columns
  std::optional<std::vector<std::string>> metadata_columns;  // sink.metadata-columns
  std::optional<std::vector<std::string>> table_conf;        // sink.table-conf, as KEY=VALUE
  // pipeline:
  std::optional<std::string> commit_interval;  // pipeline.commit-interval (checked to be a duration)
  std::optional<int> copy_workers;             // pipeline.copy-workers
  std::optional<std::string> log_format;       // pipeline.log-format: text or json
  // metrics:
  std::optional<int> metrics_port;          // metrics.port
  std::optional<std::string> metrics_bind;  // metrics.bind
};

// Looks a variable up in the environment: its value, or nullopt when unset.
using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;
// The process environment (getenv).
EnvLookup ProcessEnvironment();

// Parses the YAML `text` of the pipeline file `file_name` (used in messages only).
Result<PipelineConfig> ParsePipelineConfig(std::string_view text, std::string_view file_name, const EnvLookup& env);
// Reads and parses the pipeline file at `path` with the process environment.
Result<PipelineConfig> LoadPipelineConfig(const std::string& path);

}  // namespace tide::cli
