#include "tide/sync/computed_column.h"

#include <locale.h>
#include <wctype.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstring>
#include <ctime>
#include <limits>
#include <map>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "tide/base/strings.h"

namespace tide {
namespace {

constexpr int64_t kMillisPerDay = 86400000;
constexpr int64_t kNanosPerDay = 86400LL * 1000000000LL;
// java.time.LocalDate's range of epoch days (years -999999999 to 999999999).
constexpr int64_t kMinEpochDay = -365243219162LL;
constexpr int64_t kMaxEpochDay = 365241780471LL;

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
int64_t FloorMod(int64_t a, int64_t b) { return a - FloorDiv(a, b) * b; }

// ---------------------------------------------------------------------------------------------------
// Java's view of a value: java.time.LocalDateTime fields.

struct LocalDateTime {
  int64_t year = 1970;  // proleptic: 0 is 1 BC
  unsigned month = 1;
  unsigned day = 1;
  unsigned hour = 0;
  unsigned minute = 0;
  unsigned second = 0;
  int32_t nano = 0;  // of the second
};

Result<LocalDateTime> FromEpochDayAndNanos(int64_t days, int64_t nanos_of_day) {
  if (days < kMinEpochDay || days > kMaxEpochDay) {
    return Status::InvalidArgument("the date is outside the years -999999999..999999999 that Java's LocalDate holds");
  }
  LocalDateTime t;
  CivilFromDays(days, &t.year, &t.month, &t.day);
  int64_t seconds = nanos_of_day / 1000000000;
  t.nano = static_cast<int32_t>(nanos_of_day % 1000000000);
  t.hour = static_cast<unsigned>(seconds / 3600);
  t.minute = static_cast<unsigned>(seconds / 60 % 60);
  t.second = static_cast<unsigned>(seconds % 60);
  return t;
}

Result<LocalDateTime> FromTimestamp(const TimestampValue& ts) {
  int64_t days = FloorDiv(ts.millis, kMillisPerDay);
  int64_t nanos = FloorMod(ts.millis, kMillisPerDay) * 1000000 + ts.nanos_of_milli;
  return FromEpochDayAndNanos(days, nanos);
}

TimestampValue ToTimestamp(const LocalDateTime& t) {
  int64_t days = DaysFromCivil(t.year, t.month, t.day);
  int64_t millis_of_day = ((t.hour * 60 + t.minute) * 60 + t.second) * 1000LL + t.nano / 1000000;
  TimestampValue ts;
  ts.millis = days * kMillisPerDay + millis_of_day;
  ts.nanos_of_milli = t.nano % 1000000;
  return ts;
}

// The offset of the process's local time zone from UTC at the instant `utc_millis`, in milliseconds.
int64_t LocalOffsetMillis(int64_t utc_millis) {
  time_t seconds = static_cast<time_t>(FloorDiv(utc_millis, 1000));
  struct tm local;
  if (localtime_r(&seconds, &local) == nullptr) return 0;
  return static_cast<int64_t>(local.tm_gmtoff) * 1000;
}

// The instant whose local wall-clock time is `wall_millis` (as if UTC), for the process's zone; in a
// gap or an overlap, mktime's choice (the offset in force before the transition).
int64_t LocalWallToUtcMillis(int64_t wall_millis) {
  int64_t guess = wall_millis - LocalOffsetMillis(wall_millis);
  // One refinement covers instants near a transition.
  return wall_millis - LocalOffsetMillis(guess);
}

TimestampValue WallClock(const TimestampValue& instant, ComputedColumnOptions::TimeZone zone) {
  if (zone == ComputedColumnOptions::TimeZone::kUtc) return instant;
  TimestampValue wall = instant;
  wall.millis += LocalOffsetMillis(instant.millis);
  return wall;
}

// Epoch time in units of 10^-precision seconds, as Java's TemporalExpressionBase reads an integer.
// Java computes millis and nanos with truncating division and fails (LocalTime.ofNanoOfDay) when the
// nanos come out negative at a day boundary; Tide gives the exact instant in every case.
Result<LocalDateTime> FromEpoch(int64_t value, int precision) {
  int64_t unit = precision == 0 ? 1 : precision == 3 ? 1000 : precision == 6 ? 1000000 : 1000000000;
  int64_t seconds = FloorDiv(value, unit);
  int64_t nanos = FloorMod(value, unit) * (1000000000 / unit);
  int64_t days = FloorDiv(seconds, 86400);
  return FromEpochDayAndNanos(days, FloorMod(seconds, 86400) * 1000000000 + nanos);
}

// Java's Integer.parseInt / Long.parseLong: an optional sign and ASCII digits, nothing else.
Result<int64_t> ParseJavaInteger(std::string_view s, int64_t min, int64_t max) {
  size_t i = 0;
  bool negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
  if (i == s.size()) return Status::InvalidArgument("'{}' is not an integer", s);
  __int128 v = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return Status::InvalidArgument("'{}' is not an integer", s);
    v = v * 10 + (s[i] - '0');
    if (v > static_cast<__int128>(max) + 1) return Status::InvalidArgument("'{}' is out of range", s);
  }
  if (negative) v = -v;
  if (v < min || v > max) return Status::InvalidArgument("'{}' is out of range", s);
  return static_cast<int64_t>(v);
}

Result<int32_t> ParseJavaInt(std::string_view s) {
  TIDE_ASSIGN_OR_RETURN(int64_t v, ParseJavaInteger(s, INT32_MIN, INT32_MAX));
  return static_cast<int32_t>(v);
}

// Reads 1 or 2 ASCII digits (Java's `[HH][H]`); false if there are none or more than 2.
bool ReadOneOrTwoDigits(std::string_view s, size_t* pos, unsigned* out) {
  size_t start = *pos, i = start;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
  size_t n = i - start;
  if (n < 1 || n > 2) return false;
  *out = 0;
  for (size_t k = start; k < i; ++k) *out = *out * 10 + static_cast<unsigned>(s[k] - '0');
  *pos = i;
  return true;
}

// `.` followed by 0 to 9 digits (Java's appendFraction(NANO_OF_SECOND, 0, 9, true)), if present.
void ReadFraction(std::string_view s, size_t* pos, int32_t* nano) {
  if (*pos >= s.size() || s[*pos] != '.') return;
  size_t i = *pos + 1;
  int32_t value = 0;
  int digits = 0;
  while (i < s.size() && digits < 9 && s[i] >= '0' && s[i] <= '9') {
    value = value * 10 + (s[i] - '0');
    ++digits;
    ++i;
  }
  for (int k = digits; k < 9; ++k) value *= 10;
  *nano = value;
  *pos = i;
}

unsigned DaysInMonth(int64_t year, unsigned month) {
  static constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return month == 2 && leap ? 29 : kDays[month - 1];
}

// Parses a date or timestamp text as Java's DateTimeUtils.toLocalDateTime(text, 9) does: its
// DEFAULT_TIMESTAMP_FORMATTER `yyyy-[MM][M]-[dd][d]`, then optionally ` [HH][H]:[mm][m]:[ss][s]` with a
// fraction, or `'T'[HH][H]:[mm][m]` with optional `:[ss][s]` and fraction; strict parsing, SMART
// resolution (a day 29-31 past the month's end is the month's last day; 24:00:00 is the next midnight).
Result<LocalDateTime> ParseJavaTimestampText(std::string_view s) {
  auto bad = [&](std::string_view why) {
    return Status::InvalidArgument(
        "'{}' is not a date or timestamp text ({}); Java reads `yyyy-MM-dd`, `yyyy-MM-dd HH:mm:ss[.fffffffff]` "
        "or `yyyy-MM-ddTHH:mm[:ss[.fffffffff]]`",
        s, why);
  };
  size_t pos = 0;
  bool plus = pos < s.size() && s[pos] == '+';
  if (plus) ++pos;
  size_t year_start = pos;
  while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') ++pos;
  size_t year_digits = pos - year_start;
  // `yyyy` is year-of-era with SignStyle.EXCEEDS_PAD: exactly 4 digits, or '+' and more than 4.
  if (plus ? (year_digits <= 4 || year_digits > 9) : year_digits != 4) return bad("the year");
  LocalDateTime t;
  t.year = 0;
  for (size_t k = year_start; k < pos; ++k) t.year = t.year * 10 + (s[k] - '0');
  if (t.year < 1) return bad("year-of-era 0");
  if (pos >= s.size() || s[pos++] != '-') return bad("no '-' after the year");
  if (!ReadOneOrTwoDigits(s, &pos, &t.month)) return bad("the month");
  if (pos >= s.size() || s[pos++] != '-') return bad("no '-' after the month");
  if (!ReadOneOrTwoDigits(s, &pos, &t.day)) return bad("the day");
  if (pos < s.size() && (s[pos] == ' ' || s[pos] == 'T')) {
    bool space_form = s[pos] == ' ';
    ++pos;
    if (!ReadOneOrTwoDigits(s, &pos, &t.hour)) return bad("the hour");
    if (pos >= s.size() || s[pos++] != ':') return bad("no ':' after the hour");
    if (!ReadOneOrTwoDigits(s, &pos, &t.minute)) return bad("the minute");
    if (space_form || (pos < s.size() && s[pos] == ':')) {
      if (pos >= s.size() || s[pos++] != ':') return bad("no seconds");
      if (!ReadOneOrTwoDigits(s, &pos, &t.second)) return bad("the second");
      ReadFraction(s, &pos, &t.nano);
    }
  }
  if (pos != s.size()) return bad("unexpected text at position " + std::to_string(pos));
  if (t.month < 1 || t.month > 12) return bad("month out of range");
  if (t.day < 1 || t.day > 31) return bad("day out of range");
  t.day = std::min(t.day, DaysInMonth(t.year, t.month));
  if (t.minute > 59 || t.second > 59) return bad("minute or second out of range");
  if (t.hour == 24 && t.minute == 0 && t.second == 0 && t.nano == 0) {
    int64_t days = DaysFromCivil(t.year, t.month, t.day) + 1;
    return FromEpochDayAndNanos(days, 0);
  }
  if (t.hour > 23) return bad("hour out of range");
  return t;
}

// ---------------------------------------------------------------------------------------------------
// date_format: Java DateTimeFormatter patterns, the letters Tide implements.

struct PatternToken {
  enum class Kind : uint8_t { kLiteral, kYear, kMonth, kDay, kHour, kMinute, kSecond, kFraction };
  Kind kind = Kind::kLiteral;
  int count = 0;
  std::string literal;
};

Result<std::vector<PatternToken>> CompileDatePattern(std::string_view pattern) {
  auto refuse = [&](std::string what) {
    return Status::InvalidArgument(
        "date_format pattern '{}': {}; Tide's date_format implements y (yyyy, yy), M/MM, d/dd, H/HH, m/mm, s/ss, "
        "S..SSSSSSSSS and literal text in single quotes",
        pattern, what);
  };
  std::vector<PatternToken> tokens;
  auto add_literal = [&](std::string_view text) {
    if (!tokens.empty() && tokens.back().kind == PatternToken::Kind::kLiteral) {
      tokens.back().literal.append(text);
    } else {
      PatternToken t;
      t.literal = std::string(text);
      tokens.push_back(std::move(t));
    }
  };
  size_t i = 0;
  while (i < pattern.size()) {
    char c = pattern[i];
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')) {
      size_t j = i;
      while (j < pattern.size() && pattern[j] == c) ++j;
      int count = static_cast<int>(j - i);
      PatternToken t;
      t.count = count;
      int max_count = 2;
      switch (c) {
        case 'y': t.kind = PatternToken::Kind::kYear; max_count = 19; break;
        case 'M': t.kind = PatternToken::Kind::kMonth; break;
        case 'd': t.kind = PatternToken::Kind::kDay; break;
        case 'H': t.kind = PatternToken::Kind::kHour; break;
        case 'm': t.kind = PatternToken::Kind::kMinute; break;
        case 's': t.kind = PatternToken::Kind::kSecond; break;
        case 'S': t.kind = PatternToken::Kind::kFraction; max_count = 9; break;
        default:
          if (c == 'T' || c == 'Z') {
            return refuse(fmt::format("the letter '{}' is a pattern letter (Java fails on it too); to print it, quote "
                                      "it: '{}'",
                                      c, c));
          }
          return refuse(fmt::format("the pattern letter '{}' is not supported", c));
      }
      if (c == 'M' && count >= 3 && count <= 5) {
        return refuse("month names (MMM, MMMM) are not supported; write MM or M");
      }
      if (count > max_count) return refuse(fmt::format("too many pattern letters '{}'", std::string(count, c)));
      tokens.push_back(std::move(t));
      i = j;
    } else if (c == '\'') {
      if (i + 1 < pattern.size() && pattern[i + 1] == '\'') {
        add_literal("'");
        i += 2;
        continue;
      }
      std::string text;
      size_t j = i + 1;
      bool closed = false;
      while (j < pattern.size()) {
        if (pattern[j] == '\'') {
          if (j + 1 < pattern.size() && pattern[j + 1] == '\'') {
            text += '\'';
            j += 2;
            continue;
          }
          closed = true;
          ++j;
          break;
        }
        text += pattern[j++];
      }
      if (!closed) return refuse("a quoted literal is not closed (end it with ')");
      add_literal(text);
      i = j;
    } else if (c == '[' || c == ']') {
      return refuse("optional sections [ ] are not supported; every field is printed, so remove the brackets");
    } else if (c == '{' || c == '}' || c == '#') {
      return refuse(fmt::format("'{}' is reserved in Java patterns", c));
    } else {
      add_literal(std::string_view(&pattern[i], 1));
      ++i;
    }
  }
  return tokens;
}

// Whether `tokens` are yyyy-MM-dd: the partition pattern of most tables, formatted by a shortcut.
bool IsIsoDatePattern(const std::vector<PatternToken>& tokens) {
  using K = PatternToken::Kind;
  return tokens.size() == 5 && tokens[0].kind == K::kYear && tokens[0].count == 4 && tokens[1].kind == K::kLiteral &&
         tokens[1].literal == "-" && tokens[2].kind == K::kMonth && tokens[2].count == 2 &&
         tokens[3].kind == K::kLiteral && tokens[3].literal == "-" && tokens[4].kind == K::kDay && tokens[4].count == 2;
}

// yyyy-MM-dd of an epoch day of the years 1000..9999 (four digits, no sign: what FormatDatePattern
// prints for them), into `out`; false for other years. No allocation: it runs for every row of a table
// partitioned by day.
bool FormatIsoDate(int64_t epoch_day, char (&out)[10]) {
  static const int64_t first = DaysFromCivil(1000, 1, 1), last = DaysFromCivil(9999, 12, 31);
  if (epoch_day < first || epoch_day > last) return false;
  int64_t year = 0;
  unsigned month = 0, day = 0;
  CivilFromDays(epoch_day, &year, &month, &day);
  auto put2 = [&](int at, unsigned v) {
    out[at] = static_cast<char>('0' + v / 10);
    out[at + 1] = static_cast<char>('0' + v % 10);
  };
  put2(0, static_cast<unsigned>(year / 100));
  put2(2, static_cast<unsigned>(year % 100));
  out[4] = '-';
  put2(5, month);
  out[7] = '-';
  put2(8, day);
  return true;
}

// `value` (>= 0) in decimal, zero-padded to `width` digits (std::to_chars: no allocation; date_format
// runs for every row of a table partitioned by it).
void AppendPadded(std::string* out, int64_t value, int width) {
  char digits[20];
  const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, value);
  const int n = static_cast<int>(end - digits);
  if (n < width) out->append(static_cast<size_t>(width - n), '0');
  out->append(digits, end);
}

std::string FormatDatePattern(const std::vector<PatternToken>& tokens, const LocalDateTime& t) {
  std::string out;
  for (const PatternToken& tok : tokens) {
    switch (tok.kind) {
      case PatternToken::Kind::kLiteral: out += tok.literal; break;
      case PatternToken::Kind::kYear: {
        int64_t year_of_era = t.year >= 1 ? t.year : 1 - t.year;
        if (tok.count == 2) {
          AppendPadded(&out, year_of_era % 100, 2);  // appendValueReduced(YEAR_OF_ERA, 2, 2, 2000)
        } else {
          if (tok.count >= 4 && tok.count < 10) {
            // SignStyle.EXCEEDS_PAD: a '+' when the value has more digits than the pattern letters
            // (a year-of-era has at most 9).
            int64_t limit = 1;
            for (int k = 0; k < tok.count; ++k) limit *= 10;
            if (year_of_era >= limit) out += '+';
          }
          AppendPadded(&out, year_of_era, tok.count);
        }
        break;
      }
      case PatternToken::Kind::kMonth: AppendPadded(&out, t.month, tok.count); break;
      case PatternToken::Kind::kDay: AppendPadded(&out, t.day, tok.count); break;
      case PatternToken::Kind::kHour: AppendPadded(&out, t.hour, tok.count); break;
      case PatternToken::Kind::kMinute: AppendPadded(&out, t.minute, tok.count); break;
      case PatternToken::Kind::kSecond: AppendPadded(&out, t.second, tok.count); break;
      case PatternToken::Kind::kFraction: {
        std::string nanos;
        AppendPadded(&nanos, t.nano, 9);
        out.append(nanos, 0, static_cast<size_t>(tok.count));  // truncated, as Java's FLOOR rounding
        break;
      }
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Strings: UTF-8 in Tide, UTF-16 indexes in Java.

// Decodes one UTF-8 sequence at `i`; invalid bytes come back one at a time as themselves (ok = false).
char32_t DecodeUtf8(std::string_view s, size_t* i, bool* ok) {
  unsigned char c = static_cast<unsigned char>(s[*i]);
  int len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
  *ok = len > 0 && *i + static_cast<size_t>(len) <= s.size();
  if (!*ok) {
    ++*i;
    return c;
  }
  char32_t cp = len == 1 ? c : len == 2 ? (c & 0x1F) : len == 3 ? (c & 0x0F) : (c & 0x07);
  for (int k = 1; k < len; ++k) {
    unsigned char cc = static_cast<unsigned char>(s[*i + static_cast<size_t>(k)]);
    if ((cc >> 6) != 2) {
      *ok = false;
      ++*i;
      return c;
    }
    cp = (cp << 6) | (cc & 0x3F);
  }
  *i += static_cast<size_t>(len);
  return cp;
}

// The string's length in UTF-16 code units, Java's String.length().
int64_t Utf16Length(std::string_view s) {
  int64_t n = 0;
  size_t i = 0;
  bool ok = true;
  while (i < s.size()) n += DecodeUtf8(s, &i, &ok) >= 0x10000 ? 2 : 1;
  return n;
}

// Java's s.substring(begin, end) in UTF-16 units. REQUIRES: 0 <= begin <= end <= Utf16Length(s).
// Fails where a bound would split a character outside the Basic Multilingual Plane (Java would return
// half of its surrogate pair, which UTF-8 cannot hold).
Result<std::string> Utf16Substring(std::string_view s, int64_t begin, int64_t end) {
  int64_t unit = 0;
  size_t i = 0;
  size_t from = std::string_view::npos, to = std::string_view::npos;
  bool ok = true;
  while (true) {
    if (unit == begin && from == std::string_view::npos) from = i;
    if (unit == end) {
      to = i;
      break;
    }
    if (i >= s.size()) break;
    size_t at = i;
    int64_t units = DecodeUtf8(s, &i, &ok) >= 0x10000 ? 2 : 1;
    if ((begin > unit && begin < unit + units) || (end > unit && end < unit + units)) {
      return Status::InvalidArgument("the index falls inside the character at byte {} (a UTF-16 surrogate pair)", at);
    }
    unit += units;
  }
  if (from == std::string_view::npos || to == std::string_view::npos) {
    return Status::Internal("substring [{}, {}) out of range of a string of {} UTF-16 units", begin, end, unit);
  }
  return std::string(s.substr(from, to - from));
}

locale_t Utf8Locale() {
  static locale_t locale = newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(nullptr));
  return locale;
}

// Java's String.toUpperCase / toLowerCase (a non-Turkish locale): the Unicode case mapping of each
// character (the C library's C.UTF-8 tables), with the unconditional multi-character mappings of
// SpecialCasing.txt that matter for text in practice (ß → SS, the Latin ligatures ﬀ..ﬆ, İ → i̇) and
// Greek final sigma (Σ at the end of a word → ς). Invalid UTF-8 bytes are kept.
std::string ChangeCase(std::string_view s, bool upper) {
  static const std::map<char32_t, std::u32string> kUpperSpecial = {
      {0x00DF, U"SS"}, {0xFB00, U"FF"}, {0xFB01, U"FI"}, {0xFB02, U"FL"},
      {0xFB03, U"FFI"}, {0xFB04, U"FFL"}, {0xFB05, U"ST"}, {0xFB06, U"ST"}};
  locale_t loc = Utf8Locale();
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  char32_t previous = 0;
  while (i < s.size()) {
    size_t at = i;
    bool ok = true;
    char32_t cp = DecodeUtf8(s, &i, &ok);
    if (!ok) {
      out.push_back(s[at]);
      previous = 0;
      continue;
    }
    if (cp < 0x80 || loc == static_cast<locale_t>(nullptr)) {
      if (cp < 0x80) {
        char c = static_cast<char>(cp);
        out.push_back(upper ? (c >= 'a' && c <= 'z' ? static_cast<char>(c - 32) : c)
                            : (c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c));
      } else {
        AppendUtf8(&out, cp);
      }
      previous = cp;
      continue;
    }
    if (upper) {
      auto special = kUpperSpecial.find(cp);
      if (special != kUpperSpecial.end()) {
        for (char32_t u : special->second) AppendUtf8(&out, u);
      } else {
        AppendUtf8(&out, static_cast<char32_t>(towupper_l(static_cast<wint_t>(cp), loc)));
      }
    } else if (cp == 0x0130) {
      AppendUtf8(&out, U'i');
      AppendUtf8(&out, 0x0307);
    } else if (cp == 0x03A3) {
      size_t j = i;
      bool next_ok = true;
      char32_t next = j < s.size() ? DecodeUtf8(s, &j, &next_ok) : 0;
      bool final_sigma = previous != 0 && iswalpha_l(static_cast<wint_t>(previous), loc) &&
                         !(next != 0 && next_ok && iswalpha_l(static_cast<wint_t>(next), loc));
      AppendUtf8(&out, final_sigma ? 0x03C2 : 0x03C3);
    } else {
      AppendUtf8(&out, static_cast<char32_t>(towlower_l(static_cast<wint_t>(cp), loc)));
    }
    previous = cp;
  }
  return out;
}

// Java's String.trim(): drops leading and trailing characters <= U+0020.
std::string JavaTrim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && static_cast<unsigned char>(s[b]) <= 0x20) ++b;
  while (e > b && static_cast<unsigned char>(s[e - 1]) <= 0x20) --e;
  return std::string(s.substr(b, e - b));
}

// Java's LocalDate.toString(): `yyyy-MM-dd`, years past 9999 with '+', years before 0 with '-'.
std::string JavaDateText(int64_t days) {
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  std::string out;
  if (y > 9999) out += '+';
  if (y < 0) out += '-';
  AppendPadded(&out, y < 0 ? -y : y, 4);
  out += fmt::format("-{:02}-{:02}", m, d);
  return out;
}

// Java's Base64.getDecoder() (the basic alphabet; padding optional; nothing else accepted).
Result<std::string> DecodeBase64(std::string_view s) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  size_t end = s.size();
  size_t padding = 0;
  while (end > 0 && s[end - 1] == '=' && padding < 2) {
    --end;
    ++padding;
  }
  if (padding > 0 && (end + padding) % 4 != 0) return Status::InvalidArgument("'{}' is not Base64", s);
  if (end % 4 == 1) return Status::InvalidArgument("'{}' is not Base64", s);
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < end; ++i) {
    int v = value(s[i]);
    if (v < 0) return Status::InvalidArgument("'{}' is not Base64", s);
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xFF));
    }
  }
  return out;
}

// Java's new BigDecimal(text) then Decimal.fromBigDecimal(value, precision, scale): rounded HALF_UP
// to `scale`. Java gives NULL when the value needs more than `precision` digits; for cast's constant
// that is an error here.
Result<int128_t> ParseJavaBigDecimal(std::string_view s, int precision, int scale) {
  auto bad = [&]() { return Status::InvalidArgument("'{}' is not a decimal number", s); };
  size_t i = 0;
  bool negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
  std::string digits;
  int64_t exponent = 0;
  bool any = false, dot = false;
  for (; i < s.size(); ++i) {
    char c = s[i];
    if (c >= '0' && c <= '9') {
      any = true;
      if (!(digits.empty() && c == '0')) digits.push_back(c);
      if (dot) --exponent;
    } else if (c == '.' && !dot) {
      dot = true;
    } else {
      break;
    }
  }
  if (!any) return bad();
  if (i < s.size()) {
    if (s[i] != 'e' && s[i] != 'E') return bad();
    auto e = ParseJavaInteger(s.substr(i + 1), -999999999, 999999999);
    if (!e.ok()) return bad();
    exponent += *e;
  }
  // value = digits * 10^exponent; unscaled = digits * 10^(exponent + scale), HALF_UP.
  int64_t shift = exponent + scale;
  if (shift < 0) {
    size_t drop = static_cast<size_t>(-shift);
    bool round_up = false;
    if (drop <= digits.size()) {
      round_up = digits[digits.size() - drop] >= '5';
      digits.resize(digits.size() - drop);
    } else {
      digits.clear();
    }
    int128_t v = 0;
    if (digits.size() > 38) return Status::InvalidArgument("'{}' needs more than {} digits", s, precision);
    for (char c : digits) v = v * 10 + (c - '0');
    if (round_up) ++v;
    if (DecimalDigits(v) > precision) return Status::InvalidArgument("'{}' needs more than {} digits", s, precision);
    return negative ? -v : v;
  }
  if (!digits.empty()) digits.append(static_cast<size_t>(std::min<int64_t>(shift, 40)), '0');
  if (digits.size() > static_cast<size_t>(precision)) {
    return Status::InvalidArgument("'{}' needs more than {} digits", s, precision);
  }
  int128_t v = 0;
  for (char c : digits) v = v * 10 + (c - '0');
  return negative ? -v : v;
}

// Java's Paimon DateTimeUtils.parseDate: the text up to the first space, `y[-m[-d]]`, parts trimmed,
// and a valid date.
Result<int64_t> ParseJavaDate(std::string_view text) {
  std::string_view s = text;
  size_t space = s.find(' ');
  if (space != std::string_view::npos && space > 0) s = s.substr(0, space);
  std::vector<std::string> parts = Split(s, '-');
  auto bad = [&]() { return Status::InvalidArgument("'{}' is not a date (yyyy-MM-dd)", text); };
  if (parts.empty() || parts.size() > 3) return bad();
  int64_t ymd[3] = {0, 1, 1};
  for (size_t k = 0; k < parts.size(); ++k) {
    auto v = ParseJavaInteger(Trim(parts[k]), INT32_MIN, INT32_MAX);
    if (!v.ok()) return bad();
    ymd[k] = *v;
  }
  if (ymd[1] < 1 || ymd[1] > 12 || ymd[2] < 1 || ymd[2] > DaysInMonth(ymd[0], static_cast<unsigned>(ymd[1]))) {
    return bad();
  }
  return DaysFromCivil(ymd[0], static_cast<unsigned>(ymd[1]), static_cast<unsigned>(ymd[2]));
}

// Paimon's StringUtils.isNumeric: an optional '-' and ASCII digits.
bool IsJavaNumeric(std::string_view s) {
  size_t i = !s.empty() && s[0] == '-' ? 1 : 0;
  if (i == s.size()) return false;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
  }
  return true;
}

int64_t IntegralMin(TypeRoot root) {
  return root == TypeRoot::kTinyInt ? INT8_MIN : root == TypeRoot::kSmallInt ? INT16_MIN
                                             : root == TypeRoot::kInt        ? INT32_MIN
                                                                             : INT64_MIN;
}
int64_t IntegralMax(TypeRoot root) {
  return root == TypeRoot::kTinyInt ? INT8_MAX : root == TypeRoot::kSmallInt ? INT16_MAX
                                             : root == TypeRoot::kInt        ? INT32_MAX
                                                                             : INT64_MAX;
}

bool IsIntegralRoot(TypeRoot r) {
  return r == TypeRoot::kTinyInt || r == TypeRoot::kSmallInt || r == TypeRoot::kInt || r == TypeRoot::kBigInt;
}
bool IsStringRoot(TypeRoot r) { return r == TypeRoot::kChar || r == TypeRoot::kVarChar; }

// cast's value as Java's TypeUtils.castFromCdcValueString converts it to the cast's type when the row
// is written. Tide converts it once, at Bind.
Result<Datum> ConvertCastValue(const std::string& s, const DataType& type, ComputedColumnOptions::TimeZone zone) {
  switch (type.root()) {
    case TypeRoot::kChar:
    case TypeRoot::kVarChar: {
      if (type.length() != DataType::kMaxLength) {
        int64_t chars = 0;
        size_t i = 0;
        bool ok = true;
        while (i < s.size()) {
          DecodeUtf8(s, &i, &ok);
          ++chars;
        }
        if (chars > type.length()) {
          return Status::InvalidArgument("'{}' has {} characters, more than {} holds", s, chars, type.ToString());
        }
      }
      return Datum(s);
    }
    case TypeRoot::kBoolean: {
      std::string l = ToLower(s);
      if (l == "t" || l == "true" || l == "y" || l == "yes" || l == "1") return Datum(true);
      if (l == "f" || l == "false" || l == "n" || l == "no" || l == "0") return Datum(false);
      return Status::InvalidArgument("'{}' is not a BOOLEAN (write true, false, t, f, yes, no, y, n, 1 or 0)", s);
    }
    case TypeRoot::kTinyInt:
    case TypeRoot::kSmallInt:
    case TypeRoot::kInt:
    case TypeRoot::kBigInt: {
      auto v = ParseJavaInteger(s, IntegralMin(type.root()), IntegralMax(type.root()));
      if (!v.ok()) return Status::InvalidArgument("{} for {}", v.status().message(), type.ToString());
      return Datum(*v);
    }
    case TypeRoot::kFloat:
    case TypeRoot::kDouble: {
      // Java's Double.valueOf: surrounding whitespace ignored, an optional f/F/d/D suffix, NaN and
      // Infinity spelled so (hexadecimal literals are not taken here).
      std::string body = JavaTrim(s);
      if (!body.empty() && std::strchr("fFdD", body.back()) != nullptr) body.pop_back();
      std::string unsigned_body = !body.empty() && (body[0] == '+' || body[0] == '-') ? body.substr(1) : body;
      double d = 0;
      if (unsigned_body == "NaN" || unsigned_body == "Infinity") {
        d = unsigned_body == "NaN" ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
        if (body[0] == '-') d = -d;
      } else {
        bool plain = !unsigned_body.empty() && unsigned_body.find_first_not_of("0123456789.eE+-") == std::string::npos;
        char* end = nullptr;
        d = plain ? std::strtod(body.c_str(), &end) : 0;
        if (!plain || end != body.c_str() + body.size()) return Status::InvalidArgument("'{}' is not a number", s);
      }
      if (type.root() == TypeRoot::kDouble) return Datum(d);
      float f = static_cast<float>(d);
      // Java keeps a float when it prints as the double does (its canal-cdc compatibility rule).
      if (static_cast<double>(f) != d && fmt::format("{}", f) != fmt::format("{}", d)) {
        return Status::InvalidArgument("'{}' cannot be a FLOAT without losing precision", s);
      }
      return Datum(f);
    }
    case TypeRoot::kDecimal: {
      auto v = ParseJavaBigDecimal(s, type.precision(), type.scale());
      if (!v.ok()) {
        return Status::InvalidArgument("{} of {} (Java would write NULL)", v.status().message(), type.ToString());
      }
      return Datum(DecimalValue{*v});
    }
    case TypeRoot::kBinary: {
      TIDE_ASSIGN_OR_RETURN(std::string bytes, DecodeBase64(s));  // Java decodes BINARY from Base64
      if (static_cast<int64_t>(bytes.size()) > type.length()) {
        return Status::InvalidArgument("'{}' decodes to {} bytes, more than {} holds", s, bytes.size(), type.ToString());
      }
      bytes.resize(static_cast<size_t>(type.length()), '\0');
      return Datum(std::move(bytes));
    }
    case TypeRoot::kVarBinary: {
      if (static_cast<int64_t>(s.size()) > type.length()) {
        return Status::InvalidArgument("'{}' has {} bytes, more than {} holds", s, s.size(), type.ToString());
      }
      return Datum(s);
    }
    case TypeRoot::kDate: {
      if (IsJavaNumeric(s)) {
        auto v = ParseJavaInteger(s, INT32_MIN, INT32_MAX);
        if (!v.ok()) return v.status();
        return Datum(*v);  // days since 1970-01-01
      }
      TIDE_ASSIGN_OR_RETURN(int64_t days, ParseJavaDate(s));
      return Datum(days);
    }
    case TypeRoot::kTime: {
      TIDE_ASSIGN_OR_RETURN(int64_t millis, ParseTime(s));
      return Datum(millis);
    }
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz: {
      int p = type.precision();
      LocalDateTime t;
      if (type.root() == TypeRoot::kTimestamp && IsJavaNumeric(s)) {
        if (p != 0 && p != 3 && p != 6 && p != 9) {
          return Status::InvalidArgument("an epoch number casts only to TIMESTAMP(0), (3), (6) or (9), not {}",
                                         type.ToString());
        }
        TIDE_ASSIGN_OR_RETURN(int64_t epoch, ParseJavaInteger(s, INT64_MIN, INT64_MAX));
        TIDE_ASSIGN_OR_RETURN(t, FromEpoch(epoch, p));
      } else {
        TIDE_ASSIGN_OR_RETURN(t, ParseJavaTimestampText(s));
        int32_t unit = 1;
        for (int k = p; k < 9; ++k) unit *= 10;
        t.nano -= t.nano % unit;
      }
      TimestampValue ts = ToTimestamp(t);
      if (type.root() == TypeRoot::kTimestampLtz && zone == ComputedColumnOptions::TimeZone::kLocal) {
        ts.millis = LocalWallToUtcMillis(ts.millis);
      }
      return Datum(ts);
    }
    default:
      return Status::InvalidArgument("cast takes an atomic type, not {}", type.ToString());
  }
}

// Java's String.hashCode over the UTF-16 code units of `s`.
int32_t JavaStringHash(std::string_view s) {
  uint32_t h = 0;
  size_t i = 0;
  bool ok = true;
  while (i < s.size()) {
    char32_t cp = DecodeUtf8(s, &i, &ok);
    if (cp >= 0x10000) {
      cp -= 0x10000;
      h = 31 * h + static_cast<uint32_t>(0xD800 + (cp >> 10));
      h = 31 * h + static_cast<uint32_t>(0xDC00 + (cp & 0x3FF));
    } else {
      h = 31 * h + static_cast<uint32_t>(cp);
    }
  }
  return static_cast<int32_t>(h);
}

// The iteration order of a java.util.HashSet<String> after adding `inserted` in order (default
// capacity 16, load factor 0.75, no removals): by bucket (spread hash & (capacity - 1)), then by
// insertion within a bucket. Exact while no bucket holds 8 or more names.
std::vector<std::string> JavaHashSetOrder(std::vector<std::string> inserted) {
  uint32_t capacity = 16;
  while (inserted.size() > capacity * 3 / 4) capacity *= 2;
  auto bucket = [&](const std::string& s) {
    uint32_t h = static_cast<uint32_t>(JavaStringHash(s));
    return (h ^ (h >> 16)) & (capacity - 1);
  };
  std::stable_sort(inserted.begin(), inserted.end(),
                   [&](const std::string& a, const std::string& b) { return bucket(a) < bucket(b); });
  return inserted;
}

Status SyntaxError(std::string_view spec, std::string_view problem) {
  return Status::InvalidArgument(
      "computed column '{}': {}; write it as name=function(args), e.g. "
      "dt=date_format(update_time, yyyy-MM-dd), y=year(create_time), p=substring(name, 0, 3)",
      spec, problem);
}

// Java's String.split(","): the parts, with trailing empty parts dropped ("" gives {""}).
std::vector<std::string> JavaSplitComma(std::string_view s) {
  std::vector<std::string> parts = Split(s, ',');
  if (s.empty()) return {""};
  while (!parts.empty() && parts.back().empty()) parts.pop_back();
  return parts;
}

Result<ComputedFunction> FunctionByName(std::string_view name) {
  static const std::pair<const char*, ComputedFunction> kFunctions[] = {
      {"year", ComputedFunction::kYear},         {"month", ComputedFunction::kMonth},
      {"day", ComputedFunction::kDay},           {"hour", ComputedFunction::kHour},
      {"minute", ComputedFunction::kMinute},     {"second", ComputedFunction::kSecond},
      {"date_format", ComputedFunction::kDateFormat}, {"substring", ComputedFunction::kSubstring},
      {"truncate", ComputedFunction::kTruncate}, {"cast", ComputedFunction::kCast},
      {"now", ComputedFunction::kNow},           {"upper", ComputedFunction::kUpper},
      {"lower", ComputedFunction::kLower},       {"trim", ComputedFunction::kTrim},
  };
  std::string lower = ToLower(name);
  for (const auto& [n, f] : kFunctions) {
    if (lower == n) return f;
  }
  std::vector<std::string> names;
  for (const auto& [n, f] : kFunctions) names.emplace_back(n);
  return Status::InvalidArgument("unknown function '{}' (the functions are {})", name, Join(names, ", "));
}

bool IsTemporal(ComputedFunction f) {
  return f == ComputedFunction::kYear || f == ComputedFunction::kMonth || f == ComputedFunction::kDay ||
         f == ComputedFunction::kHour || f == ComputedFunction::kMinute || f == ComputedFunction::kSecond ||
         f == ComputedFunction::kDateFormat;
}

}  // namespace

struct ComputedColumn::Impl {
  std::optional<int> precision;  // temporal functions: the epoch unit, when given
  std::vector<PatternToken> pattern;
  bool iso_date = false;             // date_format: the pattern is yyyy-MM-dd (IsIsoDatePattern)
  int32_t begin = 0;                 // substring
  std::optional<int32_t> end;        // substring
  int32_t width = 0;                 // truncate
  std::string cast_value;            // cast, verbatim
  DataType cast_type = DataType::String();
};

std::string_view ComputedFunctionName(ComputedFunction function) {
  switch (function) {
    case ComputedFunction::kYear: return "year";
    case ComputedFunction::kMonth: return "month";
    case ComputedFunction::kDay: return "day";
    case ComputedFunction::kHour: return "hour";
    case ComputedFunction::kMinute: return "minute";
    case ComputedFunction::kSecond: return "second";
    case ComputedFunction::kDateFormat: return "date_format";
    case ComputedFunction::kSubstring: return "substring";
    case ComputedFunction::kTruncate: return "truncate";
    case ComputedFunction::kCast: return "cast";
    case ComputedFunction::kNow: return "now";
    case ComputedFunction::kUpper: return "upper";
    case ComputedFunction::kLower: return "lower";
    case ComputedFunction::kTrim: return "trim";
  }
  return "?";
}

Result<ComputedColumn> ComputedColumn::Parse(std::string_view spec_text) {
  std::string spec(Trim(spec_text));
  size_t eq = spec.find('=');
  if (eq == std::string::npos || spec.find('=', eq + 1) != std::string::npos) {
    return SyntaxError(spec, "it needs exactly one '=' between the column name and the function");
  }
  ComputedColumn column;
  column.spec_ = spec;
  column.name_ = std::string(Trim(std::string_view(spec).substr(0, eq)));
  if (column.name_.empty()) return SyntaxError(spec, "the column name before '=' is empty");
  std::string_view expression = Trim(std::string_view(spec).substr(eq + 1));
  size_t left = expression.find('(');
  size_t right = expression.find(')');
  if (left == std::string_view::npos || left == 0 || right == std::string_view::npos || right < left) {
    return SyntaxError(spec, fmt::format("'{}' is not function(args)", expression));
  }
  if (!Trim(expression.substr(right + 1)).empty()) {
    return SyntaxError(spec, fmt::format("text after the first ')' ('{}'): the arguments end at the first ')', so "
                                         "no argument can hold one (a cast type takes no parameters: write DECIMAL, "
                                         "not DECIMAL(10, 2))",
                                         expression.substr(right + 1)));
  }
  auto function = FunctionByName(Trim(expression.substr(0, left)));
  if (!function.ok()) return SyntaxError(spec, function.status().message());
  column.function_ = *function;
  std::string_view fname = ComputedFunctionName(column.function_);
  std::vector<std::string> args = JavaSplitComma(expression.substr(left + 1, right - left - 1));
  if (args.empty()) return SyntaxError(spec, "the arguments are only commas");
  column.first_argument_ = std::string(Trim(args[0]));

  auto impl = std::make_shared<Impl>();
  std::vector<std::string> literals;
  for (size_t k = 1; k < args.size(); ++k) literals.emplace_back(Trim(args[k]));
  auto arg_count_error = [&](std::string_view expected) {
    return SyntaxError(spec, fmt::format("{} takes {}, but found {} argument(s)", fname, expected, args.size()));
  };

  ComputedFunction f = column.function_;
  if (f != ComputedFunction::kCast && f != ComputedFunction::kNow) {
    if (column.first_argument_.empty()) {
      return SyntaxError(spec, fmt::format("{}'s first argument must name a column", fname));
    }
    column.reference_ = column.first_argument_;
  }
  auto parse_precision = [&](const std::string& text) -> Status {
    auto p = ParseJavaInt(text);
    if (!p.ok() || (*p != 0 && *p != 3 && *p != 6 && *p != 9)) {
      return SyntaxError(spec, fmt::format("precision '{}' is not one of 0 (epoch seconds), 3 (milliseconds), 6 "
                                           "(microseconds) and 9 (nanoseconds)",
                                           text));
    }
    impl->precision = *p;
    return Status::OK();
  };
  switch (f) {
    case ComputedFunction::kYear:
    case ComputedFunction::kMonth:
    case ComputedFunction::kDay:
    case ComputedFunction::kHour:
    case ComputedFunction::kMinute:
    case ComputedFunction::kSecond:
      if (literals.size() > 1) return arg_count_error("a column and an optional precision");
      if (literals.size() == 1) TIDE_RETURN_IF_ERROR(parse_precision(literals[0]));
      break;
    case ComputedFunction::kDateFormat: {
      if (literals.empty() || literals.size() > 2) {
        return arg_count_error("a column, a pattern and an optional precision");
      }
      auto pattern = CompileDatePattern(literals[0]);
      if (!pattern.ok()) return SyntaxError(spec, pattern.status().message());
      impl->pattern = std::move(*pattern);
      impl->iso_date = IsIsoDatePattern(impl->pattern);
      if (literals.size() == 2) TIDE_RETURN_IF_ERROR(parse_precision(literals[1]));
      break;
    }
    case ComputedFunction::kSubstring: {
      if (literals.empty() || literals.size() > 2) return arg_count_error("a column, a begin and an optional end index");
      auto begin = ParseJavaInt(literals[0]);
      auto end = literals.size() == 2 ? ParseJavaInt(literals[1]) : Result<int32_t>(0);
      if (!begin.ok() || !end.ok()) {
        return SyntaxError(spec, fmt::format("the indexes [{}] are not all integers", Join(literals, ", ")));
      }
      if (*begin < 0) return SyntaxError(spec, fmt::format("begin index {} must be >= 0", *begin));
      impl->begin = *begin;
      if (literals.size() == 2) {
        if (*end <= *begin) {
          return SyntaxError(spec, fmt::format("end index ({}) must be larger than begin index ({})", *end, *begin));
        }
        impl->end = *end;
      }
      break;
    }
    case ComputedFunction::kTruncate: {
      if (literals.size() != 1) return arg_count_error("a column and a width");
      auto width = ParseJavaInt(literals[0]);
      if (!width.ok()) return SyntaxError(spec, fmt::format("width '{}' is not an integer", literals[0]));
      // Java fails at the first row for 0 and computes a ceiling-like value for a negative width.
      if (*width <= 0) return SyntaxError(spec, fmt::format("width {} must be positive", *width));
      impl->width = *width;
      break;
    }
    case ComputedFunction::kCast: {
      if (args.size() > 2) return arg_count_error("a value and an optional type");
      impl->cast_value = args[0];  // verbatim: Java does not trim cast's arguments
      if (args.size() == 2) {
        auto type = DataType::Parse(Trim(args[1]));
        if (!type.ok()) return SyntaxError(spec, fmt::format("'{}' is not a type: {}", Trim(args[1]), type.status().message()));
        if (type->IsNested() || type->root() == TypeRoot::kVariant) {
          return SyntaxError(spec, fmt::format("cast takes an atomic type, not {}", type->ToString()));
        }
        impl->cast_type = *type;
      }
      break;
    }
    case ComputedFunction::kNow:
      if (args.size() > 1 || !Trim(args[0]).empty()) return arg_count_error("no arguments");
      break;
    case ComputedFunction::kUpper:
    case ComputedFunction::kLower:
    case ComputedFunction::kTrim:
      if (!literals.empty()) return arg_count_error("only a column");
      break;
  }
  column.impl_ = std::move(impl);
  return column;
}

Result<ComputedColumn> ParseComputedColumn(std::string_view spec) { return ComputedColumn::Parse(spec); }

Status ComputedColumn::Bind(const std::vector<DataField>& fields, const ComputedColumnOptions& options) {
  bound_ = false;
  options_ = options;
  std::string_view fname = ComputedFunctionName(function_);
  for (const DataField& f : fields) {
    if (f.name == name_) {
      return Status::InvalidArgument("computed column '{}': '{}' is already a column of the table; choose another name",
                                     spec_, name_);
    }
  }
  if (reference_) {
    reference_index_ = -1;
    for (size_t i = 0; i < fields.size(); ++i) {
      if (fields[i].name == *reference_) reference_index_ = static_cast<int>(i);
    }
    if (reference_index_ < 0) {
      std::vector<std::string> names;
      for (const DataField& f : fields) names.push_back(f.name);
      return Status::NotFound("computed column '{}': '{}' is not a column of the table (its columns: {})", spec_,
                              *reference_, Join(names, ", "));
    }
    source_type_ = fields[static_cast<size_t>(reference_index_)].type;
  }
  TypeRoot root = source_type_.root();
  auto refuse = [&](std::string_view accepted, std::string_view hint) {
    return Status::InvalidArgument("computed column '{}': {} takes {}, but '{}' is {}{}", spec_, fname, accepted,
                                   *reference_, source_type_.ToString(), hint);
  };
  if (IsTemporal(function_)) {
    bool temporal_type = root == TypeRoot::kDate || root == TypeRoot::kTimestamp || root == TypeRoot::kTimestampLtz;
    if (!temporal_type && !IsStringRoot(root) && !IsIntegralRoot(root)) {
      return refuse("a DATE, TIMESTAMP or TIMESTAMP_LTZ column, a string holding a date or timestamp, or an integer "
                    "holding epoch time",
                    "");
    }
    if (temporal_type && impl_->precision) {
      return Status::InvalidArgument(
          "computed column '{}': a precision gives the unit of an epoch number, but '{}' is {}; drop the precision",
          spec_, *reference_, source_type_.ToString());
    }
    result_type_ = function_ == ComputedFunction::kDateFormat ? DataType::String() : DataType::Int();
  } else {
    switch (function_) {
      case ComputedFunction::kSubstring:
        // Java takes the text form of any column; Tide takes those whose text form is unambiguous.
        if (!IsStringRoot(root) && !IsIntegralRoot(root) && root != TypeRoot::kDate) {
          return refuse("a CHAR, VARCHAR, integer or DATE column", "; for a timestamp use date_format");
        }
        result_type_ = DataType::String();
        break;
      case ComputedFunction::kTruncate:
        if (!IsStringRoot(root) && !IsIntegralRoot(root) && root != TypeRoot::kDecimal) {
          return refuse("a TINYINT, SMALLINT, INT, BIGINT, DECIMAL, CHAR or VARCHAR column", "");
        }
        result_type_ = source_type_;
        break;
      case ComputedFunction::kCast: {
        result_type_ = impl_->cast_type;
        auto value = ConvertCastValue(impl_->cast_value, impl_->cast_type, options.time_zone);
        if (!value.ok()) {
          return Status::InvalidArgument("computed column '{}': {}", spec_, value.status().message());
        }
        constant_ = std::move(*value);
        break;
      }
      case ComputedFunction::kNow: result_type_ = DataType::Timestamp(3); break;
      case ComputedFunction::kUpper:
      case ComputedFunction::kLower:
      case ComputedFunction::kTrim:
        if (root != TypeRoot::kVarChar) {
          return refuse("a VARCHAR or STRING column", root == TypeRoot::kChar ? " (Java refuses CHAR too)" : "");
        }
        result_type_ = DataType::String();
        break;
      default: return Status::Internal("computed column '{}': unhandled function", spec_);
    }
  }
  bound_ = true;
  return Status::OK();
}

Result<Datum> ComputedColumn::Evaluate(const Row& row) const {
  if (!bound_) return Status::Internal("computed column '{}' evaluated before Bind", spec_);
  const Datum* input = nullptr;
  if (reference_) {
    if (reference_index_ >= static_cast<int>(row.size())) {
      return Status::Internal("computed column '{}': the row has {} values, the column is at {}", spec_, row.size(),
                              reference_index_);
    }
    input = &row[static_cast<size_t>(reference_index_)];
    if (input->is_null()) return Datum();
  }
  auto fail = [&](std::string_view problem) {
    return Status::InvalidArgument("computed column '{}': {}", spec_, problem);
  };
  TypeRoot root = source_type_.root();
  if (function_ == ComputedFunction::kDateFormat && impl_->iso_date &&
      (root == TypeRoot::kDate || root == TypeRoot::kTimestamp)) {
    const int64_t day = root == TypeRoot::kDate ? input->as_int() : FloorDiv(input->as_timestamp().millis, kMillisPerDay);
    // Rows in a row mostly share their day: the last day's text is kept (per thread; Evaluate is const).
    thread_local int64_t last_day = std::numeric_limits<int64_t>::min();
    thread_local char last_text[10];
    if (day == last_day) return Datum(std::string_view(last_text, sizeof last_text));
    char text[10];
    if (FormatIsoDate(day, text)) {
      std::memcpy(last_text, text, sizeof text);
      last_day = day;
      return Datum(std::string_view(text, sizeof text));
    }
  }
  if (IsTemporal(function_)) {
    Result<LocalDateTime> t = LocalDateTime{};
    if (root == TypeRoot::kDate) {
      t = FromEpochDayAndNanos(input->as_int(), 0);
    } else if (root == TypeRoot::kTimestamp) {
      t = FromTimestamp(input->as_timestamp());
    } else if (root == TypeRoot::kTimestampLtz) {
      t = FromTimestamp(WallClock(input->as_timestamp(), options_.time_zone));
    } else if (IsIntegralRoot(root)) {
      t = FromEpoch(input->as_int(), impl_->precision.value_or(0));
    } else if (impl_->precision) {
      auto epoch = ParseJavaInteger(input->as_string(), INT64_MIN, INT64_MAX);
      if (!epoch.ok()) {
        return fail(fmt::format("{} (with a precision the column must hold an epoch number)", epoch.status().message()));
      }
      t = FromEpoch(*epoch, *impl_->precision);
    } else {
      t = ParseJavaTimestampText(input->as_string());
    }
    if (!t.ok()) return fail(t.status().message());
    switch (function_) {
      case ComputedFunction::kYear: return Datum(t->year);
      case ComputedFunction::kMonth: return Datum(static_cast<int64_t>(t->month));
      case ComputedFunction::kDay: return Datum(static_cast<int64_t>(t->day));
      case ComputedFunction::kHour: return Datum(static_cast<int64_t>(t->hour));
      case ComputedFunction::kMinute: return Datum(static_cast<int64_t>(t->minute));
      case ComputedFunction::kSecond: return Datum(static_cast<int64_t>(t->second));
      default: return Datum(FormatDatePattern(impl_->pattern, *t));
    }
  }
  switch (function_) {
    case ComputedFunction::kSubstring: {
      std::string text = IsStringRoot(root) ? input->as_string()
                         : root == TypeRoot::kDate ? JavaDateText(input->as_int())
                                                   : std::to_string(input->as_int());
      int64_t length = Utf16Length(text);
      int64_t end = impl_->end ? *impl_->end : length;
      if (impl_->begin > length || end > length) {
        return fail(fmt::format("cannot take the substring of '{}' ({} characters): the indexes are out of range "
                                "(begin {}, end {})",
                                text, length, impl_->begin, impl_->end ? std::to_string(*impl_->end) : "none"));
      }
      auto sub = Utf16Substring(text, impl_->begin, end);
      if (!sub.ok()) return fail(sub.status().message());
      return Datum(std::move(*sub));
    }
    case ComputedFunction::kTruncate: {
      int64_t width = impl_->width;
      if (IsIntegralRoot(root)) {
        __int128 v = input->as_int();
        __int128 result = v - (((v % width) + width) % width);
        if (result < IntegralMin(root) || result > IntegralMax(root)) {
          // Java wraps around (SMALLINT, INT, BIGINT) or fails (TINYINT) here.
          return fail(fmt::format("truncating {} to a multiple of {} gives {}, outside {}", input->as_int(), width,
                                  static_cast<int64_t>(result), source_type_.ToString()));
        }
        return Datum(static_cast<int64_t>(result));
      }
      if (root == TypeRoot::kDecimal) {
        int128_t v = input->as_decimal().unscaled;
        int128_t result = v - (((v % width) + width) % width);
        if (DecimalDigits(result) > source_type_.precision()) {
          // Java's Decimal.fromBigDecimal gives NULL for a value the precision cannot hold.
          if (result_type_.nullable()) return Datum();
          return fail(fmt::format("truncating {} gives a value that {} cannot hold",
                                  DecimalToString(v, source_type_.scale()), source_type_.ToString()));
        }
        return Datum(DecimalValue{result});
      }
      const std::string& text = input->as_string();
      int64_t length = Utf16Length(text);
      if (width > length) {
        return fail(fmt::format("'{}' has {} characters, fewer than the width {} (Java fails on it too)", text, length,
                                width));
      }
      auto sub = Utf16Substring(text, 0, width);
      if (!sub.ok()) return fail(sub.status().message());
      return Datum(std::move(*sub));
    }
    case ComputedFunction::kCast: return constant_;
    case ComputedFunction::kNow: {
      int64_t micros = options_.clock_micros
                           ? options_.clock_micros()
                           : std::chrono::duration_cast<std::chrono::microseconds>(
                                 std::chrono::system_clock::now().time_since_epoch())
                                 .count();
      TimestampValue now;
      now.millis = FloorDiv(micros, 1000);
      return Datum(WallClock(now, options_.time_zone));
    }
    case ComputedFunction::kUpper: return Datum(ChangeCase(input->as_string(), true));
    case ComputedFunction::kLower: return Datum(ChangeCase(input->as_string(), false));
    case ComputedFunction::kTrim: return Datum(JavaTrim(input->as_string()));
    default: return Status::Internal("computed column '{}': unhandled function", spec_);
  }
}

Result<std::vector<ComputedColumn>> BuildComputedColumns(const std::vector<std::string>& specs,
                                                         const std::vector<DataField>& source_fields,
                                                         const ComputedColumnOptions& options) {
  std::vector<ComputedColumn> parsed;
  std::map<std::string, size_t> by_name;
  for (const std::string& spec : specs) {
    TIDE_ASSIGN_OR_RETURN(ComputedColumn column, ComputedColumn::Parse(spec));
    auto [it, inserted] = by_name.emplace(column.name(), parsed.size());
    if (!inserted) {
      return Status::InvalidArgument("computed columns '{}' and '{}' have the same name; give each its own",
                                     parsed[it->second].spec(), column.spec());
    }
    parsed.push_back(std::move(column));
  }

  // Java's DfsSort.sortKeys over name -> first argument: the columns that reference no computed column
  // in spec order, then the others in reverse DFS post-order of the reversed dependency graph.
  std::map<std::string, std::vector<std::string>> dependents;  // name -> columns referencing it
  std::vector<std::string> no_deps;
  for (const ComputedColumn& c : parsed) {
    if (by_name.count(c.first_argument())) {
      dependents[c.first_argument()].push_back(c.name());
    } else {
      no_deps.push_back(c.name());
    }
  }
  std::vector<std::string> sorted;
  std::set<std::string> visited, in_progress;
  std::function<Status(const std::string&)> dfs = [&](const std::string& node) -> Status {
    if (in_progress.count(node)) {
      return Status::InvalidArgument("computed column '{}' depends on itself through computed columns it references",
                                     parsed[by_name[node]].spec());
    }
    if (visited.count(node)) return Status::OK();
    in_progress.insert(node);
    auto it = dependents.find(node);
    if (it != dependents.end()) {
      for (const std::string& d : JavaHashSetOrder(it->second)) TIDE_RETURN_IF_ERROR(dfs(d));
    }
    in_progress.erase(node);
    visited.insert(node);
    sorted.push_back(node);
    return Status::OK();
  };
  for (const ComputedColumn& c : parsed) {
    if (by_name.count(c.first_argument()) && !visited.count(c.name())) TIDE_RETURN_IF_ERROR(dfs(c.name()));
  }
  std::vector<std::string> order = no_deps;
  order.insert(order.end(), sorted.rbegin(), sorted.rend());

  std::vector<DataField> fields = source_fields;
  std::vector<ComputedColumn> out;
  for (const std::string& name : order) {
    ComputedColumn column = parsed[by_name[name]];
    TIDE_RETURN_IF_ERROR(column.Bind(fields, options));
    DataField field;
    field.id = -1;
    field.name = column.name();
    field.type = column.result_type();
    fields.push_back(std::move(field));
    out.push_back(std::move(column));
  }
  return out;
}

Status AppendComputedValues(const std::vector<ComputedColumn>& columns, Row* row) {
  for (const ComputedColumn& column : columns) {
    TIDE_ASSIGN_OR_RETURN(Datum value, column.Evaluate(*row));
    row->push_back(std::move(value));
  }
  return Status::OK();
}

}  // namespace tide
