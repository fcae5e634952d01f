#include "tide/types/cast.h"

#include <cmath>
#include <limits>

#include "tide/base/strings.h"

namespace tide {
namespace {

bool IsNumeric(const DataType& t) {
  return t.IsIntegral() || t.root() == TypeRoot::kFloat || t.root() == TypeRoot::kDouble ||
         t.root() == TypeRoot::kDecimal;
}

int128_t Pow10(int n) {
  int128_t v = 1;
  for (int i = 0; i < n; ++i) v *= 10;
  return v;
}

// Java's (long) cast of a double: truncation toward zero, NaN to 0, saturation at the limits.
int64_t DoubleToLong(double d) {
  if (std::isnan(d)) return 0;
  if (d >= 9.2233720368547758e18) return std::numeric_limits<int64_t>::max();
  if (d <= -9.2233720368547758e18) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(d);
}

// Wraps an int64 to the width of an integral type, as Java's narrowing casts do.
int64_t Narrow(int64_t v, TypeRoot root) {
  switch (root) {
    case TypeRoot::kTinyInt: return static_cast<int8_t>(v);
    case TypeRoot::kSmallInt: return static_cast<int16_t>(v);
    case TypeRoot::kInt: return static_cast<int32_t>(v);
    default: return v;
  }
}

// Rescales an unscaled decimal HALF_UP; nullopt when it exceeds `precision` digits.
std::optional<int128_t> Rescale(int128_t v, int from_scale, int to_scale, int precision) {
  if (to_scale > from_scale) {
    int d = to_scale - from_scale;
    if (DecimalDigits(v) + d > 38) return std::nullopt;
    v *= Pow10(d);
  } else if (to_scale < from_scale) {
    int128_t div = Pow10(from_scale - to_scale);
    int128_t q = v / div, r = v % div;
    if (r < 0) r = -r;
    if (r * 2 >= div) q += v < 0 ? -1 : 1;
    v = q;
  }
  if (v != 0 && DecimalDigits(v) > precision) return std::nullopt;
  return v;
}

double DecimalToDouble(int128_t v, int scale) { return std::stod(DecimalToString(v, scale)); }

Result<Datum> ToString(const Datum& v, const DataType& from, const DataType& to) {
  std::string s;
  switch (from.root()) {
    case TypeRoot::kFloat: {
      s = fmt::format("{}", v.as_float());
      break;
    }
    case TypeRoot::kDouble: {
      s = fmt::format("{}", v.as_double());
      break;
    }
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary:
      s = v.as_string();
      break;
    default:
      s = DatumToString(v, from);
  }
  if (to.root() == TypeRoot::kChar || (to.root() == TypeRoot::kVarChar && to.length() != DataType::kMaxLength)) {
    // Truncate to the declared length in characters (UTF-8 aware).
    size_t chars = 0, i = 0;
    while (i < s.size() && chars < static_cast<size_t>(to.length())) {
      unsigned char c = static_cast<unsigned char>(s[i]);
      i += c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : 4;
      ++chars;
    }
    s.resize(std::min(i, s.size()));
  }
  return Datum(std::move(s));
}

Result<Datum> FromString(const std::string& s, const DataType& to) {
  std::string_view t = Trim(s);
  switch (to.root()) {
    case TypeRoot::kBoolean: {
      std::string l = ToLower(t);
      if (l == "t" || l == "true" || l == "y" || l == "yes" || l == "1") return Datum(true);
      if (l == "f" || l == "false" || l == "n" || l == "no" || l == "0") return Datum(false);
      return Status::InvalidArgument("cannot cast '{}' to BOOLEAN", s);
    }
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary:
      return Datum(s);
    default: {
      auto r = ParseDatum(t, to);
      if (!r.ok()) return Status::InvalidArgument("cannot cast '{}' to {}: {}", s, to.ToString(), r.status().message());
      return r;
    }
  }
}

}  // namespace

bool CanCast(const DataType& from, const DataType& to) {
  if (from.EqualsIgnoreNullable(to)) return true;
  if (to.IsString()) return !from.IsNested();
  if (from.IsString()) return !to.IsNested();
  if (IsNumeric(from) && IsNumeric(to)) return true;
  if (from.root() == TypeRoot::kBoolean && IsNumeric(to)) return true;
  if (IsNumeric(from) && to.root() == TypeRoot::kBoolean) return true;
  if (from.IsBinary() && to.IsBinary()) return true;
  if ((from.root() == TypeRoot::kDate || from.IsTimestamp()) && (to.root() == TypeRoot::kDate || to.IsTimestamp()))
    return true;
  if (from.IsTimestamp() && to.root() == TypeRoot::kTime) return true;
  // Timestamps and epoch seconds (TimestampToNumericPrimitiveCastRule, NumericPrimitiveToTimestamp).
  bool int_or_bigint = [](const DataType& t) { return t.root() == TypeRoot::kInt || t.root() == TypeRoot::kBigInt; }(to) ||
                       [](const DataType& t) { return t.root() == TypeRoot::kInt || t.root() == TypeRoot::kBigInt; }(from);
  if (int_or_bigint && (from.IsTimestamp() || to.IsTimestamp())) return true;
  if (from.root() == TypeRoot::kTime && to.root() == TypeRoot::kTime) return true;
  return false;
}

Result<Datum> CastDatum(const Datum& v, const DataType& from, const DataType& to) {
  if (v.is_null()) return Datum();
  if (from.EqualsIgnoreNullable(to)) return v;
  if (to.IsString()) return ToString(v, from, to);
  if (from.IsString()) return FromString(v.as_string(), to);

  // Numbers and booleans.
  if ((IsNumeric(from) || from.root() == TypeRoot::kBoolean) && (IsNumeric(to) || to.root() == TypeRoot::kBoolean)) {
    if (to.root() == TypeRoot::kBoolean) {
      if (from.root() == TypeRoot::kDecimal) return Datum(v.as_decimal().unscaled != 0);
      if (from.root() == TypeRoot::kFloat) return Datum(v.as_float() != 0);
      if (from.root() == TypeRoot::kDouble) return Datum(v.as_double() != 0);
      return Datum(v.as_int() != 0);
    }
    if (from.root() == TypeRoot::kBoolean) {
      int64_t i = v.as_bool() ? 1 : 0;
      if (to.root() == TypeRoot::kDecimal) {
        auto r = Rescale(i, 0, to.scale(), to.precision());
        return r ? Datum(DecimalValue{*r}) : Datum();
      }
      if (to.root() == TypeRoot::kFloat) return Datum(static_cast<float>(i));
      if (to.root() == TypeRoot::kDouble) return Datum(static_cast<double>(i));
      return Datum(i);
    }
    if (to.IsIntegral()) {
      int64_t i;
      if (from.IsIntegral()) {
        i = v.as_int();
      } else if (from.root() == TypeRoot::kFloat) {
        i = DoubleToLong(v.as_float());
      } else if (from.root() == TypeRoot::kDouble) {
        i = DoubleToLong(v.as_double());
      } else {
        int128_t q = v.as_decimal().unscaled / Pow10(from.scale());  // truncates, as BigDecimal.longValue
        i = static_cast<int64_t>(q);
      }
      return Datum(Narrow(i, to.root()));
    }
    if (to.root() == TypeRoot::kFloat || to.root() == TypeRoot::kDouble) {
      double d;
      if (from.IsIntegral()) {
        d = static_cast<double>(v.as_int());
      } else if (from.root() == TypeRoot::kFloat) {
        d = v.as_float();
      } else if (from.root() == TypeRoot::kDouble) {
        d = v.as_double();
      } else {
        d = DecimalToDouble(v.as_decimal().unscaled, from.scale());
      }
      if (to.root() == TypeRoot::kFloat) return Datum(static_cast<float>(d));
      return Datum(d);
    }
    // To DECIMAL.
    std::optional<int128_t> r;
    if (from.IsIntegral()) {
      r = Rescale(v.as_int(), 0, to.scale(), to.precision());
    } else if (from.root() == TypeRoot::kDecimal) {
      r = Rescale(v.as_decimal().unscaled, from.scale(), to.scale(), to.precision());
    } else {
      double d = from.root() == TypeRoot::kFloat ? v.as_float() : v.as_double();
      if (!std::isfinite(d)) return Datum();
      auto parsed = ParseDecimal(fmt::format("{}", d), to.precision(), to.scale());
      if (parsed.ok()) r = *parsed;
    }
    return r ? Datum(DecimalValue{*r}) : Datum();
  }

  if (from.IsBinary() && to.IsBinary()) {
    std::string s = v.as_string();
    if (to.root() == TypeRoot::kBinary) s.resize(static_cast<size_t>(to.length()), '\0');
    if (to.root() == TypeRoot::kVarBinary && s.size() > static_cast<size_t>(to.length())) s.resize(static_cast<size_t>(to.length()));
    return Datum(std::move(s));
  }

  // Timestamps and epoch seconds, as Java: a timestamp casts to INT/BIGINT as its epoch seconds (millis
  // / 1000, truncated) and INT/BIGINT to a timestamp as seconds. WITH LOCAL TIME ZONE values convert in
  // UTC (Java uses the JVM's zone; Tide takes UTC so the result does not depend on the machine).
  if (from.IsTimestamp() && (to.root() == TypeRoot::kInt || to.root() == TypeRoot::kBigInt)) {
    int64_t seconds = v.as_timestamp().millis / 1000;
    return Datum(to.root() == TypeRoot::kInt ? static_cast<int64_t>(static_cast<int32_t>(seconds)) : seconds);
  }
  if ((from.root() == TypeRoot::kInt || from.root() == TypeRoot::kBigInt) && to.IsTimestamp()) {
    return Datum(TimestampValue{v.as_int() * 1000, 0});
  }

  // Dates, times and timestamps.
  auto truncate = [](TimestampValue ts, int precision) {
    if (precision >= 9) return ts;
    if (precision <= 3) {
      int64_t unit = 1;
      for (int i = precision; i < 3; ++i) unit *= 10;
      int64_t m = ts.millis - ((ts.millis % unit) + unit) % unit;
      return TimestampValue{m, 0};
    }
    int32_t unit = 1;
    for (int i = precision; i < 9; ++i) unit *= 10;
    return TimestampValue{ts.millis, ts.nanos_of_milli - ts.nanos_of_milli % unit};
  };
  if (from.root() == TypeRoot::kDate && to.IsTimestamp()) return Datum(TimestampValue{v.as_int() * 86400000, 0});
  if (from.IsTimestamp() && to.root() == TypeRoot::kDate) {
    int64_t ms = v.as_timestamp().millis;
    return Datum((ms >= 0 ? ms : ms - 86399999) / 86400000);
  }
  if (from.IsTimestamp() && to.IsTimestamp()) return Datum(truncate(v.as_timestamp(), to.precision()));
  if (from.IsTimestamp() && to.root() == TypeRoot::kTime) {
    int64_t ms = v.as_timestamp().millis % 86400000;
    if (ms < 0) ms += 86400000;
    return Datum(ms);
  }
  if (from.root() == TypeRoot::kTime && to.root() == TypeRoot::kTime) return v;
  return Status::NotSupported("cannot cast {} to {}", from.ToString(), to.ToString());
}

}  // namespace tide
