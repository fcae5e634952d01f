#include "tide/cli/prometheus_text.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace tide::cli {
namespace {

using Labels = std::vector<std::pair<std::string, std::string>>;

// HELP text escapes backslash and newline (not quotes).
std::string EscapeHelp(std::string_view help) {
  std::string out;
  for (char c : help) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

class TextWriter {
 public:
  void Family(std::string_view name, std::string_view type, std::string_view help) {
    out_ += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, EscapeHelp(help), name, type);
  }
  void Sample(std::string_view name, const Labels& labels, double value) {
    out_ += name;
    if (!labels.empty()) {
      out_ += '{';
      for (size_t i = 0; i < labels.size(); ++i) {
        if (i > 0) out_ += ',';
        out_ += fmt::format("{}=\"{}\"", labels[i].first, EscapeLabelValue(labels[i].second));
      }
      out_ += '}';
    }
    out_ += ' ';
    out_ += FormatSampleValue(value);
    out_ += '\n';
  }
  // The _bucket (cumulative, then +Inf), _sum and _count samples of `h`.
  void Histogram(std::string_view name, const Labels& labels, const DurationHistogram& h) {
    int64_t cumulative = 0;
    for (size_t i = 0; i <= DurationHistogram::kBoundsSeconds.size(); ++i) {
      cumulative += h.counts[i];
      Labels with_le = labels;
      with_le.emplace_back("le", i < DurationHistogram::kBoundsSeconds.size()
                                     ? FormatSampleValue(DurationHistogram::kBoundsSeconds[i])
                                     : "+Inf");
      Sample(fmt::format("{}_bucket", name), with_le, static_cast<double>(cumulative));
    }
    Sample(fmt::format("{}_sum", name), labels, h.sum_seconds);
    Sample(fmt::format("{}_count", name), labels, static_cast<double>(h.count));
  }
  std::string Take() { return std::move(out_); }

 private:
  std::string out_;
};

Labels TableLabels(const TableProgress& t) { return {{"table", t.source}, {"target", t.target}}; }

double Seconds(int64_t unix_ms) { return static_cast<double>(unix_ms) / 1000; }

}  // namespace

std::string EscapeLabelValue(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string FormatSampleValue(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  // Integers below 2^53 print exactly, without an exponent (an LSN, a row count).
  if (value == std::floor(value) && std::fabs(value) < 9007199254740992.0) {
    return fmt::format("{}", static_cast<int64_t>(value));
  }
  return fmt::format("{}", value);
}

double LagSeconds(const SyncProgressSnapshot& progress, int64_t now_unix_ms) {
  if (progress.pending_since_unix_us <= 0) return 0;
  return std::max<double>(0, static_cast<double>(now_unix_ms) * 1000 - static_cast<double>(progress.pending_since_unix_us)) /
         1e6;
}

int64_t ReplicationLagBytes(const SyncProgressSnapshot& progress) {
  if (progress.received_lsn == kInvalidLsn || progress.acknowledged_lsn == kInvalidLsn ||
      progress.received_lsn <= progress.acknowledged_lsn) {
    return 0;
  }
  return static_cast<int64_t>(progress.received_lsn - progress.acknowledged_lsn);
}

std::string RenderPrometheusText(const SyncProgressSnapshot& p, int64_t now_unix_ms) {
  TextWriter w;
  w.Family("tide_sync_up", "gauge", "1 while the sync runs, 0 once an error stopped it");
  w.Sample("tide_sync_up", {}, p.last_error.empty() ? 1 : 0);
  w.Family("tide_sync_info", "gauge", "The sync's replication slot and publication (value 1)");
  w.Sample("tide_sync_info", {{"slot", p.slot}, {"publication", p.publication}}, 1);
  w.Family("tide_sync_start_time_seconds", "gauge", "When the sync started (Unix time)");
  w.Sample("tide_sync_start_time_seconds", {}, Seconds(p.started_unix_ms));

  // Per table.
  w.Family("tide_sync_table_phase", "gauge",
           "1 for the phase the table is in (waiting, copying, streaming), 0 for the others");
  for (const TableProgress& t : p.tables) {
    for (TablePhase phase : {TablePhase::kWaiting, TablePhase::kCopying, TablePhase::kStreaming}) {
      Labels labels = TableLabels(t);
      labels.emplace_back("phase", TablePhaseName(phase));
      w.Sample("tide_sync_table_phase", labels, t.phase == phase ? 1 : 0);
    }
  }
  w.Family("tide_sync_rows_copied_total", "counter", "Rows of the table's initial copy written in this run");
  for (const TableProgress& t : p.tables) w.Sample("tide_sync_rows_copied_total", TableLabels(t), t.rows_copied);
  w.Family("tide_sync_rows_estimate", "gauge",
           "PostgreSQL's estimate of the table's rows when its copy started (pg_class.reltuples)");
  for (const TableProgress& t : p.tables) {
    if (t.rows_estimate >= 0) w.Sample("tide_sync_rows_estimate", TableLabels(t), t.rows_estimate);
  }
  w.Family("tide_sync_changes_streamed_total", "counter",
           "Row changes of the table applied from the replication stream in this run");
  for (const TableProgress& t : p.tables) {
    w.Sample("tide_sync_changes_streamed_total", TableLabels(t), t.changes_streamed);
  }
  w.Family("tide_sync_write_buffer_bytes", "gauge",
           "Bytes of rows the lake table's writer buffered in memory after its last commit");
  for (const TableProgress& t : p.tables) w.Sample("tide_sync_write_buffer_bytes", TableLabels(t), t.write_buffer_bytes);
  w.Family("tide_sync_data_files", "gauge",
           "Data files of the buckets the lake table's writer holds (its LSM levels), after its last commit");
  for (const TableProgress& t : p.tables) w.Sample("tide_sync_data_files", TableLabels(t), t.data_files);
  w.Family("tide_sync_max_files_per_bucket", "gauge", "The most data files in one bucket of the lake table");
  for (const TableProgress& t : p.tables) w.Sample("tide_sync_max_files_per_bucket", TableLabels(t), t.max_files_per_bucket);
  w.Family("tide_sync_max_sorted_runs_per_bucket", "gauge",
           "The most sorted runs in one bucket of the lake table (compaction keeps it under the stop trigger: "
           "num-sorted-run.stop-trigger, else the compaction trigger + 10 s of commits)");
  for (const TableProgress& t : p.tables) {
    w.Sample("tide_sync_max_sorted_runs_per_bucket", TableLabels(t), t.max_sorted_runs_per_bucket);
  }
  w.Family("tide_sync_table_maintenance_runs_total", "counter",
           "Maintenance runs after the table's commits (snapshot expiry, tags; beside the commits), in this run");
  for (const TableProgress& t : p.tables) w.Sample("tide_sync_table_maintenance_runs_total", TableLabels(t), t.maintenance_runs);
  w.Family("tide_sync_table_maintenance_failures_total", "counter",
           "Maintenance runs that failed (logged; the commits stand and the next run retries), in this run");
  for (const TableProgress& t : p.tables) {
    w.Sample("tide_sync_table_maintenance_failures_total", TableLabels(t), t.maintenance_failures);
  }
  w.Family("tide_sync_table_snapshots_expired_total", "counter", "Snapshots of the table expired in this run");
  for (const TableProgress& t : p.tables) w.Sample("tide_sync_table_snapshots_expired_total", TableLabels(t), t.snapshots_expired);
  w.Family("tide_sync_table_last_maintenance_duration_seconds", "gauge", "How long the table's last maintenance run took");
  for (const TableProgress& t : p.tables) {
    w.Sample("tide_sync_table_last_maintenance_duration_seconds", TableLabels(t), t.last_maintenance_ms / 1000);
  }
  w.Family("tide_sync_table_commits_total", "counter", "Lake commits that included the table, in this run");
  for (const TableProgress& t : p.tables) w.Sample("tide_sync_table_commits_total", TableLabels(t), t.commits);
  w.Family("tide_sync_table_committed_lsn", "gauge",
           "The source position the lake table durably holds, as an integer (0: none yet)");
  for (const TableProgress& t : p.tables) {
    w.Sample("tide_sync_table_committed_lsn", TableLabels(t), static_cast<double>(t.committed_lsn));
  }
  w.Family("tide_sync_table_last_commit_timestamp_seconds", "gauge",
           "When the table's last lake commit landed (Unix time; 0: none in this run)");
  for (const TableProgress& t : p.tables) {
    w.Sample("tide_sync_table_last_commit_timestamp_seconds", TableLabels(t), Seconds(t.last_commit_unix_ms));
  }
  w.Family("tide_sync_table_last_commit_duration_seconds", "gauge", "How long the table's last lake commit took");
  for (const TableProgress& t : p.tables) {
    w.Sample("tide_sync_table_last_commit_duration_seconds", TableLabels(t), t.last_commit_duration_ms / 1000);
  }

  // Overall.
  w.Family("tide_sync_transactions_total", "counter", "Source transactions read from the replication stream");
  w.Sample("tide_sync_transactions_total", {}, static_cast<double>(p.transactions));
  w.Family("tide_sync_commits_total", "counter", "Commit rounds that committed at least one lake table");
  w.Sample("tide_sync_commits_total", {}, static_cast<double>(p.commit_rounds));
  w.Family("tide_sync_commit_duration_seconds", "histogram", "Time of each lake table commit (prepare + commit)");
  w.Histogram("tide_sync_commit_duration_seconds", {}, p.commit_duration);
  w.Family("tide_sync_last_commit_timestamp_seconds", "gauge",
           "When the last lake commit landed (Unix time; 0: none in this run)");
  w.Sample("tide_sync_last_commit_timestamp_seconds", {}, Seconds(p.last_commit_unix_ms));
  w.Family("tide_sync_received_lsn", "gauge", "End of the last source transaction read from the stream, as an integer");
  w.Sample("tide_sync_received_lsn", {}, static_cast<double>(p.received_lsn));
  w.Family("tide_sync_acknowledged_lsn", "gauge", "The flush position last reported to PostgreSQL, as an integer");
  w.Sample("tide_sync_acknowledged_lsn", {}, static_cast<double>(p.acknowledged_lsn));
  w.Family("tide_sync_replication_lag_bytes", "gauge", "WAL bytes read from the stream but not yet acknowledged");
  w.Sample("tide_sync_replication_lag_bytes", {}, static_cast<double>(ReplicationLagBytes(p)));
  w.Family("tide_sync_lag_seconds", "gauge",
           "Age of the oldest source transaction read but not yet in the lake (0 when the lake holds all)");
  w.Sample("tide_sync_lag_seconds", {}, LagSeconds(p, now_unix_ms));
  w.Family("tide_sync_freshness_seconds", "histogram",
           "Per commit round: time from the newest source transaction's commit to its lake commit");
  w.Histogram("tide_sync_freshness_seconds", {}, p.freshness);
  w.Family("tide_sync_last_freshness_seconds", "gauge", "Freshness of the last commit round (-1: none yet)");
  w.Sample("tide_sync_last_freshness_seconds", {}, p.last_freshness_seconds);
  w.Family("tide_sync_errors_total", "counter",
           "Errors by kind: replication connections lost (and made again, kind=\"connection_lost\"), and the error "
           "that stopped the sync (kind: its status code)");
  w.Sample("tide_sync_errors_total", {{"kind", "connection_lost"}}, p.reconnects);
  if (!p.last_error_kind.empty()) w.Sample("tide_sync_errors_total", {{"kind", p.last_error_kind}}, 1);
  return w.Take();
}

}  // namespace tide::cli
