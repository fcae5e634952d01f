// The metrics of a running `tide sync postgres` in Prometheus' text exposition format (version 0.0.4),
// rendered from one SyncProgressSnapshot: what `/metrics` of the metrics server answers. Every metric
// and its labels are listed in docs/operations.md ("Watching a running sync").
//
// Invariant: a pure function of its arguments; every family has one HELP and one TYPE line before its
// samples, histogram buckets are cumulative and end with le="+Inf" equal to _count, and label values
// are escaped (backslash, double quote, newline). Nothing secret is in a snapshot, so nothing secret is
// rendered (no conninfo).
// Thread-safety: free functions without state.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "tide/sync/sync_progress.h"

namespace tide::cli {

// The content type of the text format.
inline constexpr std::string_view kPrometheusTextContentType = "text/plain; version=0.0.4; charset=utf-8";

// The metrics of `progress` at wall-clock time `now_unix_ms` (ages such as the lag are taken from it).
std::string RenderPrometheusText(const SyncProgressSnapshot& progress, int64_t now_unix_ms);

// A label value as the text format writes it between double quotes: \ as \\, " as \", newline as \n.
std::string EscapeLabelValue(std::string_view value);

// A sample value: integers without a fraction, others in their shortest exact form, +Inf, -Inf, NaN.
std::string FormatSampleValue(double value);

// How far the lake lags the source at `now_unix_ms`, in seconds: the age of the oldest source
// transaction read but not yet acknowledged; 0 when none waits. (Shared by the metrics and the page.)
double LagSeconds(const SyncProgressSnapshot& progress, int64_t now_unix_ms);

// Bytes of WAL read from the stream but not yet acknowledged to PostgreSQL (0 before both are known).
int64_t ReplicationLagBytes(const SyncProgressSnapshot& progress);

}  // namespace tide::cli
