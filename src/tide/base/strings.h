// Small string helpers shared by every module: splitting, trimming, joining, case folding, parsing.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tide/base/result.h"

namespace tide {

std::vector<std::string> Split(std::string_view s, char sep);
// Split, each part trimmed, empty parts dropped: "a, b,,c " is {"a", "b", "c"}.
std::vector<std::string> SplitTrimmed(std::string_view s, char sep);
std::string_view Trim(std::string_view s);
std::string ToLower(std::string_view s);
std::string ToUpper(std::string_view s);
bool StartsWith(std::string_view s, std::string_view prefix);
bool EndsWith(std::string_view s, std::string_view suffix);
bool EqualsIgnoreCase(std::string_view a, std::string_view b);
// Appends the UTF-8 encoding of code point `cp` (at most U+10FFFF).
void AppendUtf8(std::string* out, char32_t cp);

template <typename Range>
std::string Join(const Range& parts, std::string_view sep) {
  std::string out;
  bool first = true;
  for (const auto& p : parts) {
    if (!first) out.append(sep);
    first = false;
    out.append(p);
  }
  return out;
}

// Parses a whole decimal integer; fails (naming `what`) on anything else, including overflow.
Result<int64_t> ParseInt64(std::string_view s, std::string_view what);

// Milliseconds since 1970-01-01 UTC as "YYYY-MM-DD HH:MM:SS.mmm UTC".
std::string FormatMillisUtc(int64_t millis);

// A duration as Java's TimeUtils.parseDuration writes it, in milliseconds: a number and a unit (ms,
// s, min, h, d and their long names; blanks allowed; no unit: milliseconds). Fails naming `what`.
Result<int64_t> ParseDurationMillis(std::string_view text, std::string_view what);

}  // namespace tide
