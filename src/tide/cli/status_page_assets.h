// The status page of a running sync (`/` of the metrics server): one self-contained HTML document with
// its CSS and JS inline, compiled into the binary. The script polls `/api/status` (cli/status_json.h)
// every two seconds and draws the tables, their copy progress, the lag and freshness charts (plain
// SVG), the recent commits and the last error. Nothing is loaded from elsewhere: no network, no CDN.
//
// Invariant: text from the sync (table names, errors) reaches the page only through textContent,
// never as markup. Thread-safety: constant data.
#pragma once

#include <string_view>

namespace tide::cli {

extern const std::string_view kStatusPageHtml;

}  // namespace tide::cli
