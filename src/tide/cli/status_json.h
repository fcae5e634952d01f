// The JSON document behind the status page (`/api/status` of the metrics server): the figures of one
// SyncProgressSnapshot, the same ones `/metrics` renders, plus the recent commits and the sampled
// history of lag and freshness. Positions are in PostgreSQL's X/Y form and as integers.
//
// Invariant: a pure function of its arguments; nothing secret is in its inputs (no conninfo).
// Thread-safety: free function without state.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tide/cli/status_history.h"
#include "tide/sync/sync_progress.h"

namespace tide::cli {

std::string RenderStatusJson(const SyncProgressSnapshot& progress, const std::vector<StatusSample>& history,
                             int64_t now_unix_ms);

}  // namespace tide::cli
