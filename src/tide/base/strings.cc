#include "tide/base/strings.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <ctime>

namespace tide {

std::vector<std::string> Split(std::string_view s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t pos = s.find(sep, start);
    if (pos == std::string_view::npos) {
      out.emplace_back(s.substr(start));
      return out;
    }
    out.emplace_back(s.substr(start, pos - start));
    start = pos + 1;
  }
}

std::string_view Trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

std::string ToLower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

std::string ToUpper(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::toupper(c); });
  return out;
}

bool StartsWith(std::string_view s, std::string_view prefix) { return s.starts_with(prefix); }
bool EndsWith(std::string_view s, std::string_view suffix) { return s.ends_with(suffix); }

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  }
  return true;
}

std::vector<std::string> SplitTrimmed(std::string_view s, char sep) {
  std::vector<std::string> out;
  for (const std::string& part : Split(s, sep)) {
    std::string_view t = Trim(part);
    if (!t.empty()) out.emplace_back(t);
  }
  return out;
}

void AppendUtf8(std::string* out, char32_t cp) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

Result<int64_t> ParseDurationMillis(std::string_view text, std::string_view what) {
  std::string_view t = Trim(text);
  size_t digits = 0;
  while (digits < t.size() && t[digits] >= '0' && t[digits] <= '9') ++digits;
  if (digits == 0) {
    return Status::InvalidArgument("{} '{}' is not a duration (a number and a unit, e.g. 500ms, 2s, 1min)", what,
                                   text);
  }
  auto number = ParseInt64(t.substr(0, digits), what);
  if (!number.ok()) return Status::InvalidArgument("{} '{}' is too large", what, text);
  std::string unit = ToLower(Trim(t.substr(digits)));
  int64_t scale = 0;
  if (unit.empty() || unit == "ms" || unit == "milli" || unit == "millis" || unit == "millisecond" ||
      unit == "milliseconds") {
    scale = 1;
  } else if (unit == "s" || unit == "sec" || unit == "secs" || unit == "second" || unit == "seconds") {
    scale = 1000;
  } else if (unit == "m" || unit == "min" || unit == "mins" || unit == "minute" || unit == "minutes") {
    scale = 60'000;
  } else if (unit == "h" || unit == "hour" || unit == "hours") {
    scale = 3'600'000;
  } else if (unit == "d" || unit == "day" || unit == "days") {
    scale = 86'400'000;
  } else {
    return Status::InvalidArgument("{} '{}': unknown time unit '{}' (use ms, s, min, h or d)", what, text, unit);
  }
  if (*number > INT64_MAX / scale) return Status::InvalidArgument("{} '{}' is too large", what, text);
  return *number * scale;
}

Result<int64_t> ParseInt64(std::string_view s, std::string_view what) {
  s = Trim(s);
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size() || s.empty()) {
    return Status::InvalidArgument("{}: '{}' is not a 64-bit integer", what, s);
  }
  return v;
}

std::string FormatMillisUtc(int64_t millis) {
  time_t seconds = static_cast<time_t>(millis / 1000);
  struct tm tm {};
  gmtime_r(&seconds, &tm);
  return fmt::format("{:04}-{:02}-{:02} {:02}:{:02}:{:02}.{:03} UTC", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                     tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(millis % 1000));
}

}  // namespace tide
