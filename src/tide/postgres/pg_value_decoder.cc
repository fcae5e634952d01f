#include "tide/postgres/pg_value_decoder.h"

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "tide/base/bytes.h"
#include "tide/base/logging.h"
#include "tide/base/strings.h"
#include "tide/postgres/lsn.h"
#include "tide/postgres/pg_epoch.h"

namespace tide {
namespace {

// Warn-once slots (bits of PgValueDecoder::warned_).
enum WarnSlot : int {
  kWarnInfinity = 0,
  kWarnNumericSpecial = 1,
  kWarnTimeTruncated = 2,
};

constexpr int64_t kMicrosPerSecond = 1000000;
constexpr int64_t kMicrosPerMinute = 60 * kMicrosPerSecond;
constexpr int64_t kMicrosPerHour = 60 * kMicrosPerMinute;
constexpr int64_t kMicrosPerDay = 24 * kMicrosPerHour;
constexpr int64_t kMillisPerDay = 86400000;

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

// A PostgreSQL-epoch microsecond count as Tide's timestamp value, without overflowing int64 near the ends
// of PostgreSQL's range (294276 AD does not fit in Unix microseconds).
TimestampValue TimestampFromPgMicros(int64_t pg_micros) {
  const int64_t ms = FloorDiv(pg_micros, 1000);
  const int64_t rem_us = pg_micros - ms * 1000;
  TimestampValue v;
  v.millis = ms + kPgEpochUnixMicros / 1000;
  v.nanos_of_milli = static_cast<int32_t>(rem_us * 1000);
  return v;
}


// ----- Text scanning helpers -----

class Scanner {
 public:
  explicit Scanner(std::string_view s) : s_(s) {}
  bool AtEnd() const { return pos_ >= s_.size(); }
  char Peek() const { return AtEnd() ? '\0' : s_[pos_]; }
  bool Consume(char c) {
    if (Peek() == c && !AtEnd()) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool ConsumeStr(std::string_view t) {
    if (s_.substr(pos_).starts_with(t)) {
      pos_ += t.size();
      return true;
    }
    return false;
  }
  // Reads 1..max_digits decimal digits (exactly `exact` when exact > 0).
  bool Digits(int64_t* out, int min_digits, int max_digits, int* count = nullptr) {
    int64_t v = 0;
    int n = 0;
    while (!AtEnd() && n < max_digits && s_[pos_] >= '0' && s_[pos_] <= '9') {
      v = v * 10 + (s_[pos_] - '0');
      ++pos_;
      ++n;
    }
    if (count != nullptr) *count = n;
    if (n < min_digits) return false;
    *out = v;
    return true;
  }
  size_t pos() const { return pos_; }
  std::string_view rest() const { return s_.substr(pos_); }

 private:
  std::string_view s_;
  size_t pos_ = 0;
};

bool IsLeapYear(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }
int DaysInMonth(int64_t y, int64_t m) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeapYear(y) ? 29 : kDays[m - 1];
}

// "YYYY-MM-DD" (year ≥ 1 digit). Returns astronomical year handling " BC" done by the caller.
bool ScanDate(Scanner& sc, int64_t* y, int64_t* m, int64_t* d) {
  return sc.Digits(y, 1, 9) && sc.Consume('-') && sc.Digits(m, 2, 2) && sc.Consume('-') && sc.Digits(d, 2, 2) &&
         *m >= 1 && *m <= 12 && *d >= 1;
}

// "HH:MM:SS[.f{1,6}]" → microseconds of the day (24:00:00 allowed for time).
bool ScanTime(Scanner& sc, int64_t* micros, int max_hour) {
  int64_t h, mi, se;
  if (!(sc.Digits(&h, 2, 2) && sc.Consume(':') && sc.Digits(&mi, 2, 2) && sc.Consume(':') && sc.Digits(&se, 2, 2)))
    return false;
  int64_t frac = 0;
  if (sc.Consume('.')) {
    int n = 0;
    if (!sc.Digits(&frac, 1, 6, &n)) return false;
    for (int i = n; i < 6; ++i) frac *= 10;
  }
  if (h > max_hour || mi > 59 || se > 60) return false;
  *micros = h * kMicrosPerHour + mi * kMicrosPerMinute + se * kMicrosPerSecond + frac;
  return *micros <= 24 * kMicrosPerHour;
}

// "+HH[:MM[:SS]]" → seconds east of UTC.
bool ScanZone(Scanner& sc, int64_t* east_seconds) {
  int sign;
  if (sc.Consume('+')) {
    sign = 1;
  } else if (sc.Consume('-')) {
    sign = -1;
  } else {
    return false;
  }
  int64_t h, mi = 0, se = 0;
  if (!sc.Digits(&h, 2, 2)) return false;
  if (sc.Consume(':')) {
    if (!sc.Digits(&mi, 2, 2)) return false;
    if (sc.Consume(':') && !sc.Digits(&se, 2, 2)) return false;
  }
  if (mi > 59 || se > 59) return false;
  *east_seconds = sign * (h * 3600 + mi * 60 + se);
  return true;
}

// ----- Formatting helpers reproducing PostgreSQL's text output -----

// "SS[.ffffff]" with trailing fraction zeros removed, as AppendSeconds(..., fillzeros) does.
void AppendSeconds(std::string* out, int64_t sec, int64_t frac_micros) {
  fmt::format_to(std::back_inserter(*out), "{:02d}", sec);
  if (frac_micros != 0) {
    std::string f = fmt::format("{:06d}", frac_micros);
    while (!f.empty() && f.back() == '0') f.pop_back();
    out->push_back('.');
    out->append(f);
  }
}

std::string FormatTimeOfDay(int64_t micros) {
  std::string out;
  const int64_t h = micros / kMicrosPerHour;
  micros -= h * kMicrosPerHour;
  const int64_t mi = micros / kMicrosPerMinute;
  micros -= mi * kMicrosPerMinute;
  const int64_t se = micros / kMicrosPerSecond;
  micros -= se * kMicrosPerSecond;
  fmt::format_to(std::back_inserter(out), "{:02d}:{:02d}:", h, mi);
  AppendSeconds(&out, se, micros);
  return out;
}

// EncodeTimezone: `west_seconds` as PostgreSQL stores it (seconds west of UTC).
void AppendZone(std::string* out, int32_t west_seconds) {
  int64_t sec = std::abs(static_cast<int64_t>(west_seconds));
  int64_t mi = sec / 60;
  sec -= mi * 60;
  const int64_t h = mi / 60;
  mi -= h * 60;
  out->push_back(west_seconds <= 0 ? '+' : '-');
  if (sec != 0) {
    fmt::format_to(std::back_inserter(*out), "{:02d}:{:02d}:{:02d}", h, mi, sec);
  } else if (mi != 0) {
    fmt::format_to(std::back_inserter(*out), "{:02d}:{:02d}", h, mi);
  } else {
    fmt::format_to(std::back_inserter(*out), "{:02d}", h);
  }
}

// IntervalStyle 'postgres' (EncodeInterval, INTSTYLE_POSTGRES).
std::string FormatInterval(int64_t time, int32_t days, int32_t months) {
  if (months == std::numeric_limits<int32_t>::max() && days == std::numeric_limits<int32_t>::max() &&
      time == std::numeric_limits<int64_t>::max()) {
    return "infinity";
  }
  if (months == std::numeric_limits<int32_t>::min() && days == std::numeric_limits<int32_t>::min() &&
      time == std::numeric_limits<int64_t>::min()) {
    return "-infinity";
  }
  std::string out;
  bool is_zero = true;
  bool is_before = false;
  auto add_part = [&](int64_t value, std::string_view unit) {
    if (value == 0) return;
    fmt::format_to(std::back_inserter(out), "{}{}{} {}{}", is_zero ? "" : " ", (is_before && value > 0) ? "+" : "",
                   value, unit, value != 1 ? "s" : "");
    is_before = value < 0;
    is_zero = false;
  };
  add_part(months / 12, "year");
  add_part(months % 12, "mon");
  add_part(days, "day");
  // time may be INT64_MIN only for -infinity (handled above); any other value negates safely.
  const int64_t hour = time / kMicrosPerHour;
  int64_t rest = time - hour * kMicrosPerHour;
  const int64_t min = rest / kMicrosPerMinute;
  rest -= min * kMicrosPerMinute;
  const int64_t sec = rest / kMicrosPerSecond;
  const int64_t fsec = rest - sec * kMicrosPerSecond;
  if (is_zero || hour != 0 || min != 0 || sec != 0 || fsec != 0) {
    const bool minus = hour < 0 || min < 0 || sec < 0 || fsec < 0;
    fmt::format_to(std::back_inserter(out), "{}{}{:02d}:{:02d}:", is_zero ? "" : " ",
                   minus ? "-" : (is_before ? "+" : ""), hour < 0 ? -hour : hour, min < 0 ? -min : min);
    AppendSeconds(&out, sec < 0 ? -sec : sec, fsec < 0 ? -fsec : fsec);
  }
  return out;
}

std::string FormatUuid(std::string_view b) {
  const std::string hex = HexEncode(b);
  return hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) + "-" + hex.substr(16, 4) + "-" +
         hex.substr(20, 12);
}

// charout: '\0' → "", high-bit bytes as \ooo, others as themselves.
std::string FormatPgChar(unsigned char c) {
  if (c == 0) return "";
  if (c & 0x80) return fmt::format("\\{:03o}", static_cast<unsigned>(c));
  return std::string(1, static_cast<char>(c));
}

// Exact decimal text → unscaled integer at `scale`; fails (never rounds) when the text has more
// fraction digits than `scale` or more than `precision` digits in all.
Result<int128_t> ParseExactDecimal(std::string_view text, int precision, int scale) {
  std::string_view s = text;
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  size_t dot = s.find('.');
  std::string_view int_part = dot == std::string_view::npos ? s : s.substr(0, dot);
  std::string_view frac_part = dot == std::string_view::npos ? std::string_view() : s.substr(dot + 1);
  if (int_part.empty() && frac_part.empty()) return Status::Corruption("'{}' is not a decimal number", text);
  for (char c : int_part) {
    if (c < '0' || c > '9') return Status::Corruption("'{}' is not a decimal number", text);
  }
  for (char c : frac_part) {
    if (c < '0' || c > '9') return Status::Corruption("'{}' is not a decimal number", text);
  }
  // Trailing zeros beyond the scale carry no value; anything else would need rounding.
  while (frac_part.size() > static_cast<size_t>(scale) && frac_part.back() == '0') frac_part.remove_suffix(1);
  if (frac_part.size() > static_cast<size_t>(scale)) {
    return Status::Corruption("'{}' has more than {} fraction digits; refusing to round it", text, scale);
  }
  while (int_part.size() > 1 && int_part[0] == '0') int_part.remove_prefix(1);
  if (int_part == "0") int_part = "";
  if (static_cast<int>(int_part.size()) + scale > precision) {
    return Status::Corruption("'{}' does not fit DECIMAL({}, {})", text, precision, scale);
  }
  int128_t v = 0;
  for (char c : int_part) v = v * 10 + (c - '0');
  for (char c : frac_part) v = v * 10 + (c - '0');
  for (size_t i = frac_part.size(); i < static_cast<size_t>(scale); ++i) v *= 10;
  return negative ? -v : v;
}

bool IsNumericText(std::string_view s) {
  if (s == "NaN" || s == "Infinity" || s == "-Infinity") return true;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  bool digits = false, dot = false;
  for (char c : s) {
    if (c >= '0' && c <= '9') {
      digits = true;
    } else if (c == '.' && !dot) {
      dot = true;
    } else {
      return false;
    }
  }
  return digits;
}

// Binary numeric (numeric_send) straight to the unscaled value of DECIMAL(precision, scale): what
// ParseExactDecimal(NumericBinaryToText(b), precision, scale) gives, without the text. False for
// anything else (NaN and infinities, malformed values, fraction digits past the scale, a value too
// wide): those take the text path, which names the problem.
bool NumericBinaryToUnscaled(std::string_view b, int precision, int scale, int128_t* out) {
  if (b.size() < 8 || precision < 1 || precision > 38 || scale < 0 || scale > precision) return false;
  const int ndigits = LoadBE<int16_t>(b.data());
  const int weight = LoadBE<int16_t>(b.data() + 2);
  const uint16_t sign = LoadBE<uint16_t>(b.data() + 4);
  if ((sign != 0x0000 && sign != 0x4000) || ndigits < 0 || b.size() != 8 + 2 * static_cast<size_t>(ndigits)) {
    return false;
  }
  static constexpr auto kPow10 = [] {
    std::array<unsigned __int128, 39> p{};
    p[0] = 1;
    for (size_t i = 1; i < p.size(); ++i) p[i] = p[i - 1] * 10;
    return p;
  }();
  unsigned __int128 v = 0;  // below 10^precision <= 10^38 after each step; a step adds less than 10^38
  for (int d = 0; d < ndigits; ++d) {
    int digit = LoadBE<int16_t>(b.data() + 8 + 2 * d);
    if (digit < 0 || digit > 9999) return false;
    if (digit == 0) continue;
    int exponent = 4 * (weight - d) + scale;  // the power of ten this group's units stand for
    if (exponent < 0) {
      // Decimal digits past the scale: only zeros carry no value.
      if (exponent <= -4) return false;
      const int divisor = static_cast<int>(kPow10[static_cast<size_t>(-exponent)]);
      if (digit % divisor != 0) return false;
      digit /= divisor;
      exponent = 0;
    }
    if (exponent >= precision || static_cast<unsigned __int128>(digit) >= kPow10[static_cast<size_t>(precision - exponent)]) {
      return false;
    }
    v += static_cast<unsigned __int128>(digit) * kPow10[static_cast<size_t>(exponent)];
    if (v >= kPow10[static_cast<size_t>(precision)]) return false;
  }
  *out = sign == 0x4000 ? -static_cast<int128_t>(v) : static_cast<int128_t>(v);
  return true;
}

// Binary numeric (numeric_send) → PostgreSQL's exact text output (get_str_from_var). Written digit by
// digit (no formatting library, no digit vector): every numeric column value of the copy and the
// stream goes through here.
Result<std::string> NumericBinaryToText(std::string_view b) {
  ByteReader r(b, "numeric");
  auto fail = [&](std::string msg) -> Result<std::string> { return Status::Corruption("{}", msg); };
  auto ndigits_r = r.ReadBE<int16_t>();
  auto weight_r = r.ReadBE<int16_t>();
  auto sign_r = r.ReadBE<uint16_t>();
  auto dscale_r = r.ReadBE<int16_t>();
  if (!ndigits_r.ok() || !weight_r.ok() || !sign_r.ok() || !dscale_r.ok()) {
    return fail(fmt::format("binary numeric of {} bytes is shorter than its 8-byte header", b.size()));
  }
  const int ndigits = *ndigits_r, weight = *weight_r, dscale = *dscale_r;
  const uint16_t sign = *sign_r;
  if (sign == 0xC000) return std::string("NaN");
  if (sign == 0xD000) return std::string("Infinity");
  if (sign == 0xF000) return std::string("-Infinity");
  if (sign != 0x0000 && sign != 0x4000) return fail(fmt::format("binary numeric has unknown sign 0x{:04x}", sign));
  if (ndigits < 0 || dscale < 0) {
    return fail(fmt::format("binary numeric has negative digit count {} or scale {}", ndigits, dscale));
  }
  if (r.remaining() != static_cast<size_t>(ndigits) * 2) {
    return fail(fmt::format("binary numeric says {} digits but has {} bytes for them", ndigits, r.remaining()));
  }
  const char* digit_bytes = b.data() + 8;
  for (int i = 0; i < ndigits; ++i) {
    const int16_t d = LoadBE<int16_t>(digit_bytes + 2 * i);
    if (d < 0 || d > 9999) return fail(fmt::format("binary numeric digit {} is {} (must be 0..9999)", i, d));
  }
  // Group d of the base-10000 digits (0 past the stored ones).
  auto group = [&](int d) { return d >= 0 && d < ndigits ? LoadBE<int16_t>(digit_bytes + 2 * d) : 0; };
  auto append4 = [](std::string* out, int v) {
    const char text[4] = {static_cast<char>('0' + v / 1000), static_cast<char>('0' + v / 100 % 10),
                          static_cast<char>('0' + v / 10 % 10), static_cast<char>('0' + v % 10)};
    out->append(text, 4);
  };
  std::string out;
  out.reserve(static_cast<size_t>(std::max(weight, 0) + 1) * 4 + static_cast<size_t>(dscale) + 5);
  if (sign == 0x4000) out.push_back('-');
  if (weight < 0) {
    out.push_back('0');
  } else {
    for (int d = 0; d <= weight; ++d) {
      const int dig = group(d);
      if (d > 0) {
        append4(&out, dig);
        continue;
      }
      // The first group without leading zeros ("0" for zero).
      char first[4];
      out.append(first, std::to_chars(first, first + sizeof first, dig).ptr);
    }
  }
  if (dscale > 0) {
    out.push_back('.');
    const size_t frac_start = out.size();
    // Group d (d > weight) holds fraction digits 4*(d-weight-1) .. +3.
    for (int d = weight + 1; static_cast<int>(out.size() - frac_start) < dscale; ++d) append4(&out, group(d));
    out.resize(frac_start + static_cast<size_t>(dscale));
  }
  return out;
}

std::string FormatInet(int family, int bits, bool is_cidr, std::string_view addr) {
  char buf[INET6_ADDRSTRLEN + 8];
  const int af = family == 2 ? AF_INET : AF_INET6;
  if (inet_ntop(af, addr.data(), buf, sizeof(buf)) == nullptr) return "";
  const int max_bits = family == 2 ? 32 : 128;
  std::string out(buf);
  if (is_cidr || bits != max_bits) fmt::format_to(std::back_inserter(out), "/{}", bits);
  return out;
}

}  // namespace

// ----- PgValueDecoder -----

PgValueDecoder::PgValueDecoder(PgTypeMapping mapping, std::string column)
    : mapping_(std::move(mapping)), column_(std::move(column)) {
  if (mapping_.kind == PgValueKind::kArray && mapping_.element) {
    element_ = PgValueDecoder::Create(*mapping_.element, column_ + "[]");
  }
}

std::shared_ptr<const PgValueDecoder> PgValueDecoder::Create(PgTypeMapping mapping, std::string column) {
  return std::make_shared<const PgValueDecoder>(std::move(mapping), std::move(column));
}

Result<std::shared_ptr<const PgValueDecoder>> PgValueDecoder::ForType(PgOid type_oid, int32_t type_modifier,
                                                                      const PgTypeRegistry& types,
                                                                      std::string column) {
  TIDE_ASSIGN_OR_RETURN(PgTypeMapping mapping, MapPgType(type_oid, type_modifier, types));
  return Create(std::move(mapping), std::move(column));
}

void PgValueDecoder::WarnOnce(int which, std::string_view what) const {
  const uint32_t bit = 1u << which;
  if ((warned_.fetch_or(bit) & bit) == 0) {
    TIDE_LOG_WARN("column {} ({}): {}", column_, mapping_.pg_type_name, what);
  }
}

bool PgValueDecoder::SupportsBinary() const {
  if (mapping_.kind == PgValueKind::kTextFallback) return false;
  if (mapping_.kind == PgValueKind::kArray) return element_ && element_->SupportsBinary();
  return true;
}

Result<Datum> PgValueDecoder::Decode(const PgTupleValue& value) const {
  switch (value.kind) {
    case PgTupleValueKind::kNull: return Datum();
    case PgTupleValueKind::kText: return DecodeText(value.bytes);
    case PgTupleValueKind::kBinary: return DecodeBinary(value.bytes);
    case PgTupleValueKind::kUnchangedToast:
    case PgTupleValueKind::kAbsent:
      return Status::InvalidArgument("column {}: a {} tuple value has no value to decode; keep the previous value",
                                     column_, PgTupleValueKindName(value.kind));
  }
  return Status::Internal("column {}: unknown tuple value kind", column_);
}

namespace {

// Shared by text and binary paths: a PostgreSQL-epoch timestamp (or its infinity sentinel) as a Datum.
Datum TimestampDatum(const PgValueDecoder& dec, int64_t pg_micros) {
  if (pg_micros == std::numeric_limits<int64_t>::max()) {
    // The last instant of 9999 that the column's precision can hold (…59.999 for TIMESTAMP(3)).
    const int precision = std::clamp(dec.type().precision(), 0, 6);
    int64_t unit = 1;
    for (int i = precision; i < 6; ++i) unit *= 10;
    const int64_t sentinel = kPgInfinityTimestampMicros - 999999 % unit;  // the sentinel ends in .999999
    dec.WarnOnce(kWarnInfinity, fmt::format("'infinity' stored as {} (Paimon has no infinite timestamp)",
                                            FormatTimestamp(TimestampValue::FromMicros(sentinel), precision)));
    return Datum(TimestampValue::FromMicros(sentinel));
  }
  if (pg_micros == std::numeric_limits<int64_t>::min()) {
    dec.WarnOnce(kWarnInfinity, "'-infinity' stored as 0001-01-01 00:00:00 (Paimon has no infinite timestamp)");
    return Datum(TimestampValue::FromMicros(kPgMinusInfinityTimestampMicros));
  }
  return Datum(TimestampFromPgMicros(pg_micros));
}

Datum DateDatum(const PgValueDecoder& dec, int64_t unix_days, int infinity) {
  if (infinity > 0) {
    dec.WarnOnce(kWarnInfinity, "'infinity' stored as 9999-12-31 (Paimon has no infinite date)");
    return Datum(kPgInfinityDateDays);
  }
  if (infinity < 0) {
    dec.WarnOnce(kWarnInfinity, "'-infinity' stored as 0001-01-01 (Paimon has no infinite date)");
    return Datum(kPgMinusInfinityDateDays);
  }
  return Datum(unix_days);
}

Datum TimeDatum(const PgValueDecoder& dec, int64_t micros_of_day) {
  if (micros_of_day % 1000 != 0) {
    dec.WarnOnce(kWarnTimeTruncated,
                 "sub-millisecond digits of time values are dropped: Paimon's TIME keeps milliseconds");
  }
  return Datum(micros_of_day / 1000);
}

// Parses "infinity" / "-infinity" markers shared by date and timestamp text.
int InfinityMarker(std::string_view s) {
  if (s == "infinity") return 1;
  if (s == "-infinity") return -1;
  return 0;
}

// Text date/timestamp: [date][ time[zone]][ BC] → pg micros (timestamp) or unix days (date).
struct ParsedDateTime {
  int64_t unix_days = 0;
  int64_t micros_of_day = 0;
  int64_t zone_east_seconds = 0;
};

bool ParseDateTimeText(std::string_view text, bool with_time, bool with_zone, ParsedDateTime* out) {
  bool bc = false;
  if (text.ends_with(" BC")) {
    bc = true;
    text.remove_suffix(3);
  }
  Scanner sc(text);
  int64_t y, m, d;
  if (!ScanDate(sc, &y, &m, &d)) return false;
  if (bc) {
    if (y < 1) return false;
    y = 1 - y;  // 1 BC is year 0
  }
  if (d > DaysInMonth(y, m)) return false;
  out->unix_days = DaysFromCivil(y, static_cast<unsigned>(m), static_cast<unsigned>(d));
  if (with_time) {
    if (!sc.Consume(' ')) return false;
    if (!ScanTime(sc, &out->micros_of_day, 23)) return false;
    if (with_zone && !ScanZone(sc, &out->zone_east_seconds)) return false;
  }
  return sc.AtEnd();
}

}  // namespace

Result<Datum> PgValueDecoder::DecodeText(std::string_view text) const {
  auto bad = [&](std::string_view what) {
    return Status::Corruption("column {} ({}): text value '{}' {}", column_, mapping_.pg_type_name,
                              text.size() > 200 ? std::string(text.substr(0, 200)) + "..." : std::string(text),
                              what);
  };
  switch (mapping_.kind) {
    case PgValueKind::kBool:
      if (text == "t" || text == "true") return Datum(true);
      if (text == "f" || text == "false") return Datum(false);
      return bad("is not a boolean (t or f)");
    case PgValueKind::kInt2:
    case PgValueKind::kInt4:
    case PgValueKind::kInt8:
    case PgValueKind::kOid: {
      int64_t v = 0;
      auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      if (ec != std::errc() || p != text.data() + text.size() || text.empty()) return bad("is not an integer");
      int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
      if (mapping_.kind == PgValueKind::kInt2) lo = -32768, hi = 32767;
      if (mapping_.kind == PgValueKind::kInt4) lo = std::numeric_limits<int32_t>::min(), hi = std::numeric_limits<int32_t>::max();
      if (mapping_.kind == PgValueKind::kOid) lo = 0, hi = 0xFFFFFFFFLL;
      if (v < lo || v > hi) return bad("is out of the type's range");
      return Datum(v);
    }
    case PgValueKind::kFloat4:
    case PgValueKind::kFloat8: {
      double inf = std::numeric_limits<double>::infinity();
      double v;
      if (text == "NaN") {
        v = std::numeric_limits<double>::quiet_NaN();
      } else if (text == "Infinity") {
        v = inf;
      } else if (text == "-Infinity") {
        v = -inf;
      } else if (mapping_.kind == PgValueKind::kFloat4) {
        float f = 0;
        auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), f);
        if (ec != std::errc() || p != text.data() + text.size() || text.empty()) return bad("is not a float4");
        return Datum(f);
      } else {
        auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (ec != std::errc() || p != text.data() + text.size() || text.empty()) return bad("is not a float8");
      }
      if (mapping_.kind == PgValueKind::kFloat4) return Datum(static_cast<float>(v));
      return Datum(v);
    }
    case PgValueKind::kNumericDecimal: {
      if (text == "NaN" || text == "Infinity" || text == "-Infinity") {
        WarnOnce(kWarnNumericSpecial, fmt::format("'{}' cannot be held by {}; stored as NULL", text,
                                                  mapping_.type.ToString()));
        return Datum();
      }
      auto v = ParseExactDecimal(text, mapping_.type.precision(), mapping_.type.scale());
      if (!v.ok()) return bad(v.status().message());
      return Datum(DecimalValue{*v});
    }
    case PgValueKind::kNumericString:
      if (!IsNumericText(text)) return bad("is not a numeric value");
      return Datum(text);
    case PgValueKind::kMoney: {
      // lc_monetary C / en_US: "$1,234.56", "-$1,234.56". Other locales may use other symbols or
      // separators; anything this parser does not recognise is an error, never a guess.
      std::string digits;
      bool negative = false;
      for (char c : text) {
        if (c == '-' || c == '(') {
          negative = true;
        } else if ((c >= '0' && c <= '9') || c == '.') {
          digits.push_back(c);
        } else if (c == '$' || c == ',' || c == ' ' || c == ')') {
          continue;
        } else {
          return bad("is not a money value in the C/en_US lc_monetary format; use binary mode or lc_monetary=C");
        }
      }
      size_t dot = digits.find('.');
      if (dot == std::string::npos || digits.size() - dot - 1 != 2) {
        return bad("does not have exactly 2 fraction digits (Tide maps money to DECIMAL(19, 2))");
      }
      auto v = ParseExactDecimal(digits, 19, 2);
      if (!v.ok()) return bad(v.status().message());
      return Datum(DecimalValue{negative ? -*v : *v});
    }
    case PgValueKind::kText:
    case PgValueKind::kChar:
    case PgValueKind::kJson:
    case PgValueKind::kJsonb:
    case PgValueKind::kTimeTz:
    case PgValueKind::kInterval:
    case PgValueKind::kInet:
    case PgValueKind::kMacaddr:
    case PgValueKind::kBit:
    case PgValueKind::kPgLsn:
    case PgValueKind::kTextFallback:
      return Datum(text);
    case PgValueKind::kUuid:
      if (text.size() != 36) return bad("is not a uuid");
      return Datum(ToLower(text));
    case PgValueKind::kBytea: {
      if (text.starts_with("\\x")) {
        auto bytes = HexDecode(text.substr(2));
        if (!bytes.ok()) return bad("is not valid bytea hex");
        return Datum(std::move(*bytes));
      }
      std::string out;
      out.reserve(text.size());
      for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '\\') {
          out.push_back(text[i]);
        } else if (i + 1 < text.size() && text[i + 1] == '\\') {
          out.push_back('\\');
          ++i;
        } else if (i + 3 < text.size() && text[i + 1] >= '0' && text[i + 1] <= '3' && text[i + 2] >= '0' &&
                   text[i + 2] <= '7' && text[i + 3] >= '0' && text[i + 3] <= '7') {
          out.push_back(static_cast<char>((text[i + 1] - '0') * 64 + (text[i + 2] - '0') * 8 + (text[i + 3] - '0')));
          i += 3;
        } else {
          return bad("has an invalid bytea escape");
        }
      }
      return Datum(std::move(out));
    }
    case PgValueKind::kDate: {
      if (int inf = InfinityMarker(text)) return DateDatum(*this, 0, inf);
      ParsedDateTime p;
      if (!ParseDateTimeText(text, false, false, &p)) return bad("is not an ISO date (DateStyle must be ISO)");
      return DateDatum(*this, p.unix_days, 0);
    }
    case PgValueKind::kTime: {
      Scanner sc(text);
      int64_t micros;
      if (!ScanTime(sc, &micros, 24) || !sc.AtEnd()) return bad("is not a time of day");
      return TimeDatum(*this, micros);
    }
    case PgValueKind::kTimestamp:
    case PgValueKind::kTimestampTz: {
      if (int inf = InfinityMarker(text)) {
        return TimestampDatum(*this, inf > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min());
      }
      ParsedDateTime p;
      const bool tz = mapping_.kind == PgValueKind::kTimestampTz;
      if (!ParseDateTimeText(text, true, tz, &p)) {
        return bad(tz ? "is not an ISO timestamp with UTC offset (DateStyle must be ISO)"
                      : "is not an ISO timestamp (DateStyle must be ISO)");
      }
      // Unix millis and micros-of-milli without passing through int64 micros (which overflows near
      // PostgreSQL's upper bound).
      const int64_t ms_of_day = p.micros_of_day / 1000;
      TimestampValue v;
      v.millis = p.unix_days * kMillisPerDay + ms_of_day - p.zone_east_seconds * 1000;
      v.nanos_of_milli = static_cast<int32_t>((p.micros_of_day % 1000) * 1000);
      return Datum(v);
    }
    case PgValueKind::kArray:
      break;  // below
  }

  // ----- one-dimensional array text: [ '[lb:ub]=' ] '{' elem, elem, ... '}' -----
  std::string_view s = text;
  if (!s.empty() && s[0] == '[') {
    size_t eq = s.find('=');
    if (eq == std::string_view::npos) return bad("is not an array");
    if (s.substr(0, eq).find("][") != std::string_view::npos) {
      return Status::NotSupported("column {} ({}): multi-dimensional array value '{}': Tide maps PostgreSQL arrays to "
                                  "one-dimensional ARRAY",
                                  column_, mapping_.pg_type_name, text);
    }
    s.remove_prefix(eq + 1);
  }
  if (s.size() < 2 || s.front() != '{' || s.back() != '}') return bad("is not an array literal");
  s = s.substr(1, s.size() - 2);
  std::vector<Datum> items;
  size_t i = 0;
  auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; };
  bool expect_more = !s.empty();
  while (expect_more) {
    while (i < s.size() && is_space(s[i])) ++i;
    if (i < s.size() && s[i] == '{') {
      return Status::NotSupported("column {} ({}): multi-dimensional array value: Tide maps PostgreSQL arrays to "
                                  "one-dimensional ARRAY",
                                  column_, mapping_.pg_type_name);
    }
    std::string elem;
    bool quoted = false;
    bool null = false;
    if (i < s.size() && s[i] == '"') {
      quoted = true;
      ++i;
      bool closed = false;
      while (i < s.size()) {
        char c = s[i++];
        if (c == '\\') {
          if (i >= s.size()) return bad("ends inside an escape");
          elem.push_back(s[i++]);
        } else if (c == '"') {
          closed = true;
          break;
        } else {
          elem.push_back(c);
        }
      }
      if (!closed) return bad("has an unterminated quoted element");
      while (i < s.size() && is_space(s[i])) ++i;
    } else {
      size_t last_non_space = 0;  // length of elem up to its last non-space character
      while (i < s.size() && s[i] != ',') {
        char c = s[i++];
        if (c == '\\') {
          if (i >= s.size()) return bad("ends inside an escape");
          elem.push_back(s[i++]);
          last_non_space = elem.size();
        } else if (c == '"' || c == '{' || c == '}') {
          return bad("has a misplaced quote or brace");
        } else {
          elem.push_back(c);
          if (!is_space(c)) last_non_space = elem.size();
        }
      }
      elem.resize(last_non_space);
      if (elem.empty()) return bad("has an empty unquoted element");
      null = EqualsIgnoreCase(elem, "NULL");
    }
    if (i < s.size()) {
      if (s[i] != ',') return bad("has garbage after a quoted element");
      ++i;
      expect_more = true;
    } else {
      expect_more = false;
    }
    if (null && !quoted) {
      items.emplace_back();
    } else {
      TIDE_ASSIGN_OR_RETURN(Datum d, element_->DecodeText(elem));
      items.push_back(std::move(d));
    }
  }
  return Datum::Nested(std::move(items));
}

Status PgValueDecoder::DecodeBinaryInto(std::string_view b, Datum* out) const {
  // The hot kinds of an initial copy; anything else (and every malformed value, for its message) goes
  // through DecodeBinary.
  switch (mapping_.kind) {
    case PgValueKind::kInt8:
      if (b.size() != 8) break;
      out->Assign(LoadBE<int64_t>(b.data()));
      return Status::OK();
    case PgValueKind::kInt4:
      if (b.size() != 4) break;
      out->Assign(static_cast<int64_t>(LoadBE<int32_t>(b.data())));
      return Status::OK();
    case PgValueKind::kInt2:
      if (b.size() != 2) break;
      out->Assign(static_cast<int64_t>(LoadBE<int16_t>(b.data())));
      return Status::OK();
    case PgValueKind::kFloat8: {
      if (b.size() != 8) break;
      uint64_t bits = LoadBE<uint64_t>(b.data());
      double d;
      std::memcpy(&d, &bits, 8);
      out->Assign(d);
      return Status::OK();
    }
    case PgValueKind::kBool:
      if (b.size() != 1) break;
      out->Assign(b[0] != 0);
      return Status::OK();
    case PgValueKind::kText:
    case PgValueKind::kJson:
    case PgValueKind::kBytea:
      out->AssignBytes(b);  // keeps the slot's buffer: no allocation once it is large enough
      return Status::OK();
    case PgValueKind::kNumericDecimal: {
      int128_t unscaled;
      if (!NumericBinaryToUnscaled(b, mapping_.type.precision(), mapping_.type.scale(), &unscaled)) break;
      out->Assign(DecimalValue{unscaled});
      return Status::OK();
    }
    case PgValueKind::kTimestamp:
    case PgValueKind::kTimestampTz: {
      if (b.size() != 8) break;
      const int64_t micros = LoadBE<int64_t>(b.data());
      if (micros == std::numeric_limits<int64_t>::max() || micros == std::numeric_limits<int64_t>::min()) break;
      out->Assign(TimestampFromPgMicros(micros));
      return Status::OK();
    }
    default:
      break;
  }
  TIDE_ASSIGN_OR_RETURN(*out, DecodeBinary(b));
  return Status::OK();
}

Result<Datum> PgValueDecoder::DecodeBinary(std::string_view b) const {
  auto bad = [&](std::string_view what) {
    return Status::Corruption("column {} ({}): binary value of {} bytes{}: {}", column_, mapping_.pg_type_name,
                              b.size(), b.size() <= 32 ? " (" + HexEncode(b) + ")" : std::string(), what);
  };
  auto need = [&](size_t n) -> Status {
    if (b.size() != n) return bad(fmt::format("expected exactly {} bytes", n));
    return Status::OK();
  };
  switch (mapping_.kind) {
    case PgValueKind::kBool:
      TIDE_RETURN_IF_ERROR(need(1));
      return Datum(b[0] != 0);
    case PgValueKind::kInt2:
      TIDE_RETURN_IF_ERROR(need(2));
      return Datum(static_cast<int64_t>(LoadBE<int16_t>(b.data())));
    case PgValueKind::kInt4:
      TIDE_RETURN_IF_ERROR(need(4));
      return Datum(static_cast<int64_t>(LoadBE<int32_t>(b.data())));
    case PgValueKind::kInt8:
      TIDE_RETURN_IF_ERROR(need(8));
      return Datum(LoadBE<int64_t>(b.data()));
    case PgValueKind::kOid:
      TIDE_RETURN_IF_ERROR(need(4));
      return Datum(static_cast<int64_t>(LoadBE<uint32_t>(b.data())));
    case PgValueKind::kFloat4: {
      TIDE_RETURN_IF_ERROR(need(4));
      uint32_t bits = LoadBE<uint32_t>(b.data());
      float f;
      std::memcpy(&f, &bits, 4);
      return Datum(f);
    }
    case PgValueKind::kFloat8: {
      TIDE_RETURN_IF_ERROR(need(8));
      uint64_t bits = LoadBE<uint64_t>(b.data());
      double d;
      std::memcpy(&d, &bits, 8);
      return Datum(d);
    }
    case PgValueKind::kNumericDecimal:
    case PgValueKind::kNumericString: {
      auto text = NumericBinaryToText(b);
      if (!text.ok()) return bad(text.status().message());
      return DecodeText(*text);
    }
    case PgValueKind::kMoney:
      TIDE_RETURN_IF_ERROR(need(8));
      return Datum(DecimalValue{static_cast<int128_t>(LoadBE<int64_t>(b.data()))});
    case PgValueKind::kText:
    case PgValueKind::kJson:
      return Datum(b);
    case PgValueKind::kChar:
      TIDE_RETURN_IF_ERROR(need(1));
      return Datum(FormatPgChar(static_cast<unsigned char>(b[0])));
    case PgValueKind::kJsonb:
      if (b.empty() || b[0] != 1) return bad("jsonb binary value must start with version byte 1");
      return Datum(b.substr(1));
    case PgValueKind::kBytea:
      return Datum(b);
    case PgValueKind::kUuid:
      TIDE_RETURN_IF_ERROR(need(16));
      return Datum(FormatUuid(b));
    case PgValueKind::kDate: {
      TIDE_RETURN_IF_ERROR(need(4));
      int32_t days = LoadBE<int32_t>(b.data());
      if (days == std::numeric_limits<int32_t>::max()) return DateDatum(*this, 0, 1);
      if (days == std::numeric_limits<int32_t>::min()) return DateDatum(*this, 0, -1);
      return DateDatum(*this, static_cast<int64_t>(days) + kPgEpochUnixDays, 0);
    }
    case PgValueKind::kTime: {
      TIDE_RETURN_IF_ERROR(need(8));
      int64_t micros = LoadBE<int64_t>(b.data());
      if (micros < 0 || micros > kMicrosPerDay) return bad("time of day out of range");
      return TimeDatum(*this, micros);
    }
    case PgValueKind::kTimeTz: {
      TIDE_RETURN_IF_ERROR(need(12));
      int64_t micros = LoadBE<int64_t>(b.data());
      int32_t zone = LoadBE<int32_t>(b.data() + 8);
      if (micros < 0 || micros > kMicrosPerDay) return bad("time of day out of range");
      if (zone < -15 * 3600 - 59 * 60 - 59 || zone > 15 * 3600 + 59 * 60 + 59) return bad("time zone offset out of range");
      std::string out = FormatTimeOfDay(micros);
      AppendZone(&out, zone);
      return Datum(std::move(out));
    }
    case PgValueKind::kTimestamp:
    case PgValueKind::kTimestampTz:
      TIDE_RETURN_IF_ERROR(need(8));
      return TimestampDatum(*this, LoadBE<int64_t>(b.data()));
    case PgValueKind::kInterval: {
      TIDE_RETURN_IF_ERROR(need(16));
      return Datum(FormatInterval(LoadBE<int64_t>(b.data()), LoadBE<int32_t>(b.data() + 8),
                                  LoadBE<int32_t>(b.data() + 12)));
    }
    case PgValueKind::kInet: {
      if (b.size() < 4) return bad("inet value shorter than its 4-byte header");
      const int family = static_cast<unsigned char>(b[0]);
      const int bits = static_cast<unsigned char>(b[1]);
      const bool is_cidr = b[2] != 0;
      const size_t nb = static_cast<unsigned char>(b[3]);
      if (family != 2 && family != 3) return bad("inet family is neither IPv4 (2) nor IPv6 (3)");
      const size_t want = family == 2 ? 4 : 16;
      if (nb != want || b.size() != 4 + nb) return bad("inet address length does not match its family");
      if (bits > (family == 2 ? 32 : 128)) return bad("inet netmask longer than the address");
      std::string out = FormatInet(family, bits, is_cidr, b.substr(4));
      if (out.empty()) return bad("inet address cannot be formatted");
      return Datum(std::move(out));
    }
    case PgValueKind::kMacaddr: {
      if (b.size() != 6 && b.size() != 8) return bad("macaddr must be 6 bytes (macaddr8: 8)");
      std::string out;
      for (size_t i = 0; i < b.size(); ++i) {
        if (i) out.push_back(':');
        fmt::format_to(std::back_inserter(out), "{:02x}", static_cast<unsigned>(static_cast<unsigned char>(b[i])));
      }
      return Datum(std::move(out));
    }
    case PgValueKind::kBit: {
      if (b.size() < 4) return bad("bit string shorter than its 4-byte length");
      int32_t nbits = LoadBE<int32_t>(b.data());
      if (nbits < 0 || b.size() - 4 != (static_cast<size_t>(nbits) + 7) / 8) return bad("bit length does not match its bytes");
      std::string out;
      out.reserve(nbits);
      for (int32_t i = 0; i < nbits; ++i) {
        out.push_back((static_cast<unsigned char>(b[4 + i / 8]) >> (7 - i % 8)) & 1 ? '1' : '0');
      }
      return Datum(std::move(out));
    }
    case PgValueKind::kPgLsn:
      TIDE_RETURN_IF_ERROR(need(8));
      return Datum(FormatLsn(LoadBE<uint64_t>(b.data())));
    case PgValueKind::kTextFallback:
      return Status::NotSupported(
          "column {} ({}): Tide cannot decode this type's binary format; stream it with binary 'false' or copy it as "
          "text (col::text)",
          column_, mapping_.pg_type_name);
    case PgValueKind::kArray:
      break;  // below
  }

  // ----- binary array (array_send) -----
  ByteReader r(b, "array");
  auto ndim = r.ReadBE<int32_t>();
  auto flags = r.ReadBE<int32_t>();
  auto elem_oid = r.ReadBE<uint32_t>();
  if (!ndim.ok() || !flags.ok() || !elem_oid.ok()) return bad("array shorter than its 12-byte header");
  if (*ndim == 0) return Datum::Nested({});
  if (*ndim < 0 || *ndim > 6) return bad(fmt::format("array has {} dimensions", *ndim));
  if (*ndim > 1) {
    return Status::NotSupported("column {} ({}): {}-dimensional array value: Tide maps PostgreSQL arrays to "
                                "one-dimensional ARRAY",
                                column_, mapping_.pg_type_name, *ndim);
  }
  auto size = r.ReadBE<int32_t>();
  auto lower = r.ReadBE<int32_t>();
  if (!size.ok() || !lower.ok()) return bad("array truncated in its dimension header");
  if (*size < 0) return bad("array has a negative size");
  // Each element needs at least its 4-byte length: check before allocating.
  if (static_cast<size_t>(*size) > r.remaining() / 4) return bad("array claims more elements than its bytes hold");
  std::vector<Datum> items;
  items.reserve(*size);
  for (int32_t i = 0; i < *size; ++i) {
    auto len = r.ReadBE<int32_t>();
    if (!len.ok()) return bad(fmt::format("array truncated at element {}", i));
    if (*len == -1) {
      items.emplace_back();
      continue;
    }
    if (*len < 0) return bad(fmt::format("array element {} has length {}", i, *len));
    auto bytes = r.ReadBytes(static_cast<size_t>(*len));
    if (!bytes.ok()) return bad(fmt::format("array element {} truncated", i));
    TIDE_ASSIGN_OR_RETURN(Datum d, element_->DecodeBinary(*bytes));
    items.push_back(std::move(d));
  }
  if (!r.AtEnd()) return bad(fmt::format("{} trailing bytes after the array's elements", r.remaining()));
  return Datum::Nested(std::move(items));
}

Result<Datum> DecodePgBinaryValue(PgOid type_oid, int32_t type_modifier, std::string_view bytes,
                                  const PgTypeRegistry& types) {
  TIDE_ASSIGN_OR_RETURN(auto decoder,
                        PgValueDecoder::ForType(type_oid, type_modifier, types, fmt::format("(type OID {})", type_oid)));
  return decoder->DecodeBinary(bytes);
}

// ----- PgRowDecoder -----

Result<PgRowDecoder> PgRowDecoder::Create(const PgRelation& relation, const PgTypeRegistry& types,
                                          const PgTypeMappingOptions& options) {
  PgRowDecoder out;
  const std::string ns = relation.namespace_name.empty() ? "pg_catalog" : relation.namespace_name;
  out.relation_name_ = ns + "." + relation.name;
  for (size_t i = 0; i < relation.columns.size(); ++i) {
    TIDE_ASSIGN_OR_RETURN(PgTypeMapping mapping, MapPgColumn(relation, i, types, options));
    DataField field;
    field.id = static_cast<int32_t>(i);
    field.name = relation.columns[i].name;
    field.type = mapping.type;
    out.fields_.push_back(std::move(field));
    out.columns_.push_back(PgValueDecoder::Create(std::move(mapping), out.relation_name_ + "." + relation.columns[i].name));
  }
  return out;
}

Status PgRowDecoder::Decode(const PgTuple& tuple, Row* row, std::vector<bool>* missing) const {
  if (tuple.values.size() != columns_.size()) {
    return Status::Corruption("relation {}: tuple has {} columns, the relation {}", relation_name_,
                              tuple.values.size(), columns_.size());
  }
  row->clear();
  row->reserve(columns_.size());
  missing->assign(columns_.size(), false);
  for (size_t i = 0; i < columns_.size(); ++i) {
    const PgTupleValue& v = tuple.values[i];
    if (v.kind == PgTupleValueKind::kUnchangedToast || v.kind == PgTupleValueKind::kAbsent) {
      row->emplace_back();
      (*missing)[i] = true;
      continue;
    }
    TIDE_ASSIGN_OR_RETURN(Datum d, columns_[i]->Decode(v));
    row->push_back(std::move(d));
  }
  return Status::OK();
}

}  // namespace tide
