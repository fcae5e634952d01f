#include "tide/types/datum.h"

#include <charconv>
#include <cmath>
#include <cstring>

#include "tide/base/bytes.h"
#include "tide/base/strings.h"

namespace tide {

TimestampValue TimestampValue::FromMicros(int64_t micros) {
  int64_t millis = micros / 1000;
  int64_t rem = micros % 1000;
  if (rem < 0) {
    rem += 1000;
    millis -= 1;
  }
  return TimestampValue{millis, static_cast<int32_t>(rem * 1000)};
}

TimestampValue TimestampValue::FromNanos(int64_t nanos) {
  int64_t millis = nanos / 1000000;
  int64_t rem = nanos % 1000000;
  if (rem < 0) {
    rem += 1000000;
    millis -= 1;
  }
  return TimestampValue{millis, static_cast<int32_t>(rem)};
}

int64_t TimestampValue::ToMicros() const { return millis * 1000 + nanos_of_milli / 1000; }

bool Datum::operator==(const Datum& o) const {
  if (v_.index() != o.v_.index()) return false;
  switch (v_.index()) {
    case 0: return true;
    case 3: {
      float a = as_float(), b = o.as_float();
      return a == b || (std::isnan(a) && std::isnan(b));
    }
    case 4: {
      double a = as_double(), b = o.as_double();
      return a == b || (std::isnan(a) && std::isnan(b));
    }
    case 8: return as_nested() == o.as_nested();
    default: return v_ == o.v_;
  }
}

namespace {
template <typename T>
int Cmp(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}
}  // namespace

int CompareDatum(const Datum& a, const Datum& b) {
  if (a.is_null() || b.is_null()) return a.is_null() == b.is_null() ? 0 : (a.is_null() ? -1 : 1);
  const auto& x = a.storage();
  const auto& y = b.storage();
  if (x.index() != y.index()) return Cmp(x.index(), y.index());
  switch (x.index()) {
    case 1: return Cmp(a.as_bool(), b.as_bool());
    case 2: return Cmp(a.as_int(), b.as_int());
    case 3: {
      // Java's Float.compare: NaN is greater than everything, -0.0 < 0.0.
      float p = a.as_float(), q = b.as_float();
      if (std::isnan(p) || std::isnan(q)) return Cmp(std::isnan(p), std::isnan(q));
      return Cmp(p, q);
    }
    case 4: {
      double p = a.as_double(), q = b.as_double();
      if (std::isnan(p) || std::isnan(q)) return Cmp(std::isnan(p), std::isnan(q));
      return Cmp(p, q);
    }
    case 5: return Cmp(a.as_decimal().unscaled, b.as_decimal().unscaled);
    case 6: return Cmp(a.as_timestamp(), b.as_timestamp());
    case 7: {
      int c = a.as_string().compare(b.as_string());  // char_traits<char> compares as unsigned bytes
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    case 8: {
      const auto& p = a.as_nested();
      const auto& q = b.as_nested();
      for (size_t i = 0; i < p.size() && i < q.size(); ++i) {
        int c = CompareDatum(p[i], q[i]);
        if (c != 0) return c;
      }
      return Cmp(p.size(), q.size());
    }
  }
  return 0;
}

int CompareRows(const Row& a, const Row& b) {
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    int c = CompareDatum(a[i], b[i]);
    if (c != 0) return c;
  }
  return Cmp(a.size(), b.size());
}

int DecimalDigits(int128_t v) {
  if (v < 0) v = -v;
  int n = 1;
  while (v >= 10) {
    v /= 10;
    ++n;
  }
  return n;
}

std::string DecimalToString(int128_t unscaled, int scale) {
  bool negative = unscaled < 0;
  // Work on the magnitude as unsigned so that the minimum value does not overflow.
  unsigned __int128 mag = negative ? static_cast<unsigned __int128>(-(unscaled + 1)) + 1
                                   : static_cast<unsigned __int128>(unscaled);
  std::string digits;
  do {
    digits.push_back(static_cast<char>('0' + static_cast<int>(mag % 10)));
    mag /= 10;
  } while (mag != 0);
  while (static_cast<int>(digits.size()) <= scale) digits.push_back('0');
  std::string out;
  if (negative) out.push_back('-');
  for (size_t i = digits.size(); i-- > 0;) {
    out.push_back(digits[i]);
    if (scale > 0 && i == static_cast<size_t>(scale)) out.push_back('.');
  }
  return out;
}

Result<int128_t> ParseDecimal(std::string_view text, int precision, int scale) {
  std::string_view s = Trim(text);
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  int64_t exponent = 0;
  size_t e = s.find_first_of("eE");
  if (e != std::string_view::npos) {
    TIDE_ASSIGN_OR_RETURN(exponent, ParseInt64(s.substr(e + 1), "decimal exponent"));
    s = s.substr(0, e);
  }
  std::string digits;
  int64_t frac_digits = 0;
  bool seen_point = false, any = false;
  for (char c : s) {
    if (c == '.' && !seen_point) {
      seen_point = true;
    } else if (c >= '0' && c <= '9') {
      digits.push_back(c);
      any = true;
      if (seen_point) ++frac_digits;
    } else {
      return Status::InvalidArgument("'{}' is not a decimal number", text);
    }
  }
  if (!any) return Status::InvalidArgument("'{}' is not a decimal number", text);
  int64_t shift = scale - (frac_digits - exponent);  // digits to append (>0) or drop (<0)
  bool round_up = false;
  if (shift < 0) {
    int64_t drop = -shift;
    if (drop > static_cast<int64_t>(digits.size())) {
      digits = "0";
    } else {
      round_up = digits[digits.size() - static_cast<size_t>(drop)] >= '5';
      digits.resize(digits.size() - static_cast<size_t>(drop));
      if (digits.empty()) digits = "0";
    }
  } else {
    if (shift > 80) return Status::InvalidArgument("'{}' does not fit DECIMAL({}, {})", text, precision, scale);
    digits.append(static_cast<size_t>(shift), '0');
  }
  size_t first = digits.find_first_not_of('0');
  digits = first == std::string::npos ? "0" : digits.substr(first);
  if (static_cast<int>(digits.size()) > 39) {
    return Status::InvalidArgument("'{}' does not fit DECIMAL({}, {})", text, precision, scale);
  }
  unsigned __int128 v = 0;
  for (char c : digits) v = v * 10 + static_cast<unsigned>(c - '0');
  if (round_up) v += 1;
  int128_t result = static_cast<int128_t>(v);
  if (DecimalDigits(result) > precision && result != 0) {
    return Status::InvalidArgument("'{}' does not fit DECIMAL({}, {})", text, precision, scale);
  }
  return negative ? -result : result;
}

int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

void CivilFromDays(int64_t z, int64_t* y, unsigned* m, unsigned* d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  *d = doy - (153 * mp + 2) / 5 + 1;
  *m = mp < 10 ? mp + 3 : mp - 9;
  *y = static_cast<int64_t>(yoe) + era * 400 + (*m <= 2);
}

std::string FormatDate(int64_t days) {
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  if (y < 0 || y > 9999) return fmt::format("{:+05d}-{:02d}-{:02d}", y, m, d);
  return fmt::format("{:04d}-{:02d}-{:02d}", y, m, d);
}

namespace {
std::string Fraction(int64_t nanos, int precision) {
  if (precision <= 0) return "";
  std::string f = fmt::format("{:09d}", nanos);
  return "." + f.substr(0, static_cast<size_t>(std::min(precision, 9)));
}
int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
}  // namespace

std::string FormatTime(int64_t millis_of_day, int precision) {
  int64_t ms = millis_of_day;
  return fmt::format("{:02d}:{:02d}:{:02d}{}", ms / 3600000, ms / 60000 % 60, ms / 1000 % 60,
                     Fraction(ms % 1000 * 1000000, precision));
}

std::string FormatTimestamp(const TimestampValue& ts, int precision) {
  int64_t days = FloorDiv(ts.millis, 86400000);
  int64_t ms_of_day = ts.millis - days * 86400000;
  int64_t nanos = ms_of_day % 1000 * 1000000 + ts.nanos_of_milli;
  return fmt::format("{} {:02d}:{:02d}:{:02d}{}", FormatDate(days), ms_of_day / 3600000, ms_of_day / 60000 % 60,
                     ms_of_day / 1000 % 60, Fraction(nanos, precision));
}

Result<int64_t> ParseDate(std::string_view text) {
  std::string_view s = Trim(text);
  auto parts = Split(s, '-');
  bool negative_year = false;
  if (!s.empty() && s[0] == '-') {
    negative_year = true;
    parts = Split(s.substr(1), '-');
  }
  if (parts.size() != 3) return Status::InvalidArgument("'{}' is not a date (YYYY-MM-DD)", text);
  TIDE_ASSIGN_OR_RETURN(int64_t y, ParseInt64(parts[0], "year"));
  TIDE_ASSIGN_OR_RETURN(int64_t m, ParseInt64(parts[1], "month"));
  TIDE_ASSIGN_OR_RETURN(int64_t d, ParseInt64(parts[2], "day"));
  if (m < 1 || m > 12 || d < 1 || d > 31) return Status::InvalidArgument("'{}' is not a valid date", text);
  return DaysFromCivil(negative_year ? -y : y, static_cast<unsigned>(m), static_cast<unsigned>(d));
}

Result<int64_t> ParseTime(std::string_view text) {
  std::string_view s = Trim(text);
  std::string_view frac;
  size_t dot = s.find('.');
  if (dot != std::string_view::npos) {
    frac = s.substr(dot + 1);
    s = s.substr(0, dot);
  }
  auto parts = Split(s, ':');
  if (parts.size() < 2 || parts.size() > 3) return Status::InvalidArgument("'{}' is not a time (HH:MM:SS)", text);
  TIDE_ASSIGN_OR_RETURN(int64_t h, ParseInt64(parts[0], "hour"));
  TIDE_ASSIGN_OR_RETURN(int64_t mi, ParseInt64(parts[1], "minute"));
  int64_t sec = 0;
  if (parts.size() == 3) {
    TIDE_ASSIGN_OR_RETURN(sec, ParseInt64(parts[2], "second"));
  }
  int64_t ms = 0;
  if (!frac.empty()) {
    std::string f(frac.substr(0, 3));
    while (f.size() < 3) f.push_back('0');
    TIDE_ASSIGN_OR_RETURN(ms, ParseInt64(f, "fraction"));
  }
  if (h > 23 || mi > 59 || sec > 59) return Status::InvalidArgument("'{}' is not a valid time", text);
  return ((h * 60 + mi) * 60 + sec) * 1000 + ms;
}

Result<TimestampValue> ParseTimestamp(std::string_view text) {
  std::string_view s = Trim(text);
  size_t sep = s.find_first_of(" T", 1);
  std::string_view date = sep == std::string_view::npos ? s : s.substr(0, sep);
  TIDE_ASSIGN_OR_RETURN(int64_t days, ParseDate(date));
  int64_t nanos_of_day = 0;
  if (sep != std::string_view::npos) {
    std::string_view t = s.substr(sep + 1);
    if (!t.empty() && (t.back() == 'Z' || t.back() == 'z')) t.remove_suffix(1);
    std::string_view frac;
    size_t dot = t.find('.');
    if (dot != std::string_view::npos) {
      frac = t.substr(dot + 1);
      t = t.substr(0, dot);
    }
    TIDE_ASSIGN_OR_RETURN(int64_t ms, ParseTime(t));
    int64_t n = 0;
    if (!frac.empty()) {
      if (frac.size() > 9) return Status::InvalidArgument("'{}': more than 9 fractional digits", text);
      std::string f(frac);
      while (f.size() < 9) f.push_back('0');
      TIDE_ASSIGN_OR_RETURN(n, ParseInt64(f, "fraction"));
    }
    nanos_of_day = ms * 1000000 + n;
  }
  TimestampValue ts;
  ts.millis = days * 86400000 + nanos_of_day / 1000000;
  ts.nanos_of_milli = static_cast<int32_t>(nanos_of_day % 1000000);
  return ts;
}

namespace {

// `magnitude` (> 0) in scientific form: its digits and the power of ten of the first. The shortest
// digits that read back as the value, or (precision >= 0) precision + 1 digits correctly rounded.
template <typename F>
void ScientificDigits(F magnitude, int precision, std::string* digits, int* exponent) {
  char buf[64];
  const auto written = precision < 0
                           ? std::to_chars(buf, buf + sizeof buf, magnitude, std::chars_format::scientific)
                           : std::to_chars(buf, buf + sizeof buf, magnitude, std::chars_format::scientific, precision);
  const std::string_view text(buf, static_cast<size_t>(written.ptr - buf));  // d[.ddd]e<sign><exponent>
  const size_t e = text.find('e');
  digits->clear();
  for (char c : text.substr(0, e)) {
    if (c != '.') digits->push_back(c);
  }
  std::string_view exponent_text = text.substr(e + 1);
  const bool negative = exponent_text.front() == '-';
  if (exponent_text.front() == '+' || negative) exponent_text.remove_prefix(1);
  *exponent = 0;
  std::from_chars(exponent_text.data(), exponent_text.data() + exponent_text.size(), *exponent);
  if (negative) *exponent = -*exponent;
}

template <typename F>
std::string JavaFloatingTextOf(F v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  if (v == 0) return std::signbit(v) ? "-0.0" : "0.0";
  std::string out = v < 0 ? "-" : "";
  const F magnitude = std::fabs(v);
  std::string digits;
  int exponent = 0;
  ScientificDigits(magnitude, -1, &digits, &exponent);
  if (magnitude >= F(1e-3) && magnitude < F(1e7)) {
    if (exponent >= 0) {
      const size_t whole = static_cast<size_t>(exponent) + 1;
      if (digits.size() <= whole) {
        out += digits + std::string(whole - digits.size(), '0') + ".0";
      } else {
        out += digits.substr(0, whole) + "." + digits.substr(whole);
      }
    } else {
      out += "0." + std::string(static_cast<size_t>(-exponent - 1), '0') + digits;
    }
    return out;
  }
  // d.dE<n> has two digits whatever the shortest form: Java prints the two closest to the value, which
  // differ from d.0 only below the normal range (Double.MIN_VALUE is 4.9E-324, not 5.0E-324).
  if (digits.size() == 1) ScientificDigits(magnitude, 1, &digits, &exponent);
  out += digits.substr(0, 1) + "." + digits.substr(1) + "E" + std::to_string(exponent);
  return out;
}

}  // namespace

std::string JavaFloatingText(double v) { return JavaFloatingTextOf(v); }
std::string JavaFloatingText(float v) { return JavaFloatingTextOf(v); }

std::string DatumToString(const Datum& v, const DataType& type) {
  if (v.is_null()) return "NULL";
  switch (type.root()) {
    case TypeRoot::kBoolean: return v.as_bool() ? "true" : "false";
    case TypeRoot::kTinyInt:
    case TypeRoot::kSmallInt:
    case TypeRoot::kInt:
    case TypeRoot::kBigInt: return std::to_string(v.as_int());
    case TypeRoot::kFloat: return fmt::format("{}", v.as_float());
    case TypeRoot::kDouble: return fmt::format("{}", v.as_double());
    case TypeRoot::kDecimal: return DecimalToString(v.as_decimal().unscaled, type.scale());
    case TypeRoot::kChar:
    case TypeRoot::kVarChar: return v.as_string();
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary: return HexEncode(v.as_string());
    case TypeRoot::kDate: return FormatDate(v.as_int());
    case TypeRoot::kTime: return FormatTime(v.as_int(), std::min(type.precision(), 3));
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz: return FormatTimestamp(v.as_timestamp(), type.precision());
    case TypeRoot::kArray:
    case TypeRoot::kMultiset: {
      std::vector<std::string> parts;
      for (const auto& e : v.as_nested()) parts.push_back(DatumToString(e, type.element()));
      return "[" + Join(parts, ", ") + "]";
    }
    case TypeRoot::kMap: {
      std::vector<std::string> parts;
      const auto& items = v.as_nested();
      for (size_t i = 0; i + 1 < items.size(); i += 2) {
        parts.push_back(DatumToString(items[i], type.key()) + "=" + DatumToString(items[i + 1], type.value()));
      }
      return "{" + Join(parts, ", ") + "}";
    }
    case TypeRoot::kRow: {
      std::vector<std::string> parts;
      const auto& items = v.as_nested();
      for (size_t i = 0; i < items.size() && i < type.fields().size(); ++i) {
        parts.push_back(DatumToString(items[i], type.fields()[i].type));
      }
      return "(" + Join(parts, ", ") + ")";
    }
    case TypeRoot::kVariant: return HexEncode(v.as_string());
  }
  return "?";
}

std::string RowToString(const Row& row, const std::vector<DataField>& fields) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < row.size() && i < fields.size(); ++i) parts.push_back(DatumToString(row[i], fields[i].type));
  return "(" + Join(parts, ", ") + ")";
}

Result<Datum> ParseDatum(std::string_view text, const DataType& type) {
  switch (type.root()) {
    case TypeRoot::kBoolean: {
      std::string t = ToLower(Trim(text));
      if (t == "true" || t == "t" || t == "1") return Datum(true);
      if (t == "false" || t == "f" || t == "0") return Datum(false);
      return Status::InvalidArgument("'{}' is not a BOOLEAN", text);
    }
    case TypeRoot::kTinyInt:
    case TypeRoot::kSmallInt:
    case TypeRoot::kInt:
    case TypeRoot::kBigInt: {
      TIDE_ASSIGN_OR_RETURN(int64_t v, ParseInt64(text, type.ToString()));
      int64_t lo = type.root() == TypeRoot::kTinyInt ? INT8_MIN
                   : type.root() == TypeRoot::kSmallInt ? INT16_MIN
                   : type.root() == TypeRoot::kInt      ? INT32_MIN
                                                        : INT64_MIN;
      int64_t hi = type.root() == TypeRoot::kTinyInt ? INT8_MAX
                   : type.root() == TypeRoot::kSmallInt ? INT16_MAX
                   : type.root() == TypeRoot::kInt      ? INT32_MAX
                                                        : INT64_MAX;
      if (v < lo || v > hi) return Status::InvalidArgument("{} is out of range for {}", v, type.ToString());
      return Datum(v);
    }
    case TypeRoot::kFloat:
    case TypeRoot::kDouble: {
      std::string t(Trim(text));
      char* end = nullptr;
      double d = std::strtod(t.c_str(), &end);
      if (t.empty() || end != t.c_str() + t.size()) return Status::InvalidArgument("'{}' is not a number", text);
      if (type.root() == TypeRoot::kFloat) return Datum(static_cast<float>(d));
      return Datum(d);
    }
    case TypeRoot::kDecimal: {
      TIDE_ASSIGN_OR_RETURN(int128_t v, ParseDecimal(text, type.precision(), type.scale()));
      return Datum(DecimalValue{v});
    }
    case TypeRoot::kChar:
    case TypeRoot::kVarChar: return Datum(std::string(text));
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary: return Datum(std::string(text));
    case TypeRoot::kDate: {
      TIDE_ASSIGN_OR_RETURN(int64_t d, ParseDate(text));
      return Datum(d);
    }
    case TypeRoot::kTime: {
      TIDE_ASSIGN_OR_RETURN(int64_t t, ParseTime(text));
      return Datum(t);
    }
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz: {
      TIDE_ASSIGN_OR_RETURN(TimestampValue ts, ParseTimestamp(text));
      return Datum(ts);
    }
    default:
      return Status::NotSupported("parsing a {} value from text", type.ToString());
  }
}

}  // namespace tide
