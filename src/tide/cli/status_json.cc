#include "tide/cli/status_json.h"

#include <nlohmann/json.hpp>

#include "tide/cli/prometheus_text.h"
#include "tide/postgres/lsn.h"

namespace tide::cli {

std::string RenderStatusJson(const SyncProgressSnapshot& p, const std::vector<StatusSample>& history,
                             int64_t now_unix_ms) {
  using nlohmann::json;
  auto lsn = [](Lsn l) { return l == kInvalidLsn ? json(nullptr) : json(FormatLsn(l)); };
  json doc = {
      {"now_ms", now_unix_ms},
      {"up", p.last_error.empty()},
      {"slot", p.slot},
      {"publication", p.publication},
      {"started_ms", p.started_unix_ms},
      {"transactions", p.transactions},
      {"changes_streamed", p.streamed_changes},
      {"commits", p.commit_rounds},
      {"received_lsn", lsn(p.received_lsn)},
      {"acknowledged_lsn", lsn(p.acknowledged_lsn)},
      {"lag_bytes", ReplicationLagBytes(p)},
      {"lag_seconds", LagSeconds(p, now_unix_ms)},
      {"last_freshness_seconds", p.last_freshness_seconds},
      {"last_commit_ms", p.last_commit_unix_ms},
      {"last_error", p.last_error},
      {"last_error_kind", p.last_error_kind},
  };
  json tables = json::array();
  for (const TableProgress& t : p.tables) {
    tables.push_back({{"source", t.source},
                      {"target", t.target},
                      {"phase", TablePhaseName(t.phase)},
                      {"rows_estimate", t.rows_estimate},
                      {"rows_copied", t.rows_copied},
                      {"changes_streamed", t.changes_streamed},
                      {"commits", t.commits},
                      {"committed_lsn", lsn(t.committed_lsn)},
                      {"last_commit_ms", t.last_commit_unix_ms},
                      {"last_commit_duration_ms", t.last_commit_duration_ms},
                      {"maintenance_runs", t.maintenance_runs},
                      {"maintenance_failures", t.maintenance_failures},
                      {"snapshots_expired", t.snapshots_expired},
                      {"maintenance_error", t.maintenance_error}});
  }
  doc["tables"] = std::move(tables);
  json commits = json::array();
  for (auto it = p.recent_commits.rbegin(); it != p.recent_commits.rend(); ++it) {  // newest first
    commits.push_back({{"ms", it->unix_ms},
                       {"target", it->target},
                       {"lsn", lsn(it->commit_lsn)},
                       {"snapshot_id", it->snapshot_id},
                       {"duration_ms", it->duration_ms}});
  }
  doc["recent_commits"] = std::move(commits);
  json samples = json::array();
  for (const StatusSample& s : history) {
    samples.push_back({{"ms", s.unix_ms},
                       {"lag_bytes", s.lag_bytes},
                       {"lag_seconds", s.lag_seconds},
                       {"freshness_seconds", s.freshness_seconds},
                       {"rows_copied", s.rows_copied},
                       {"changes_streamed", s.changes_streamed}});
  }
  doc["history"] = std::move(samples);
  // Invalid UTF-8 (a table name from a LATIN1 database) becomes U+FFFD instead of an exception.
  return doc.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace tide::cli
