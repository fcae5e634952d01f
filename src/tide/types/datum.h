// Datum: one value of any Paimon type, as Tide holds it in memory; Row: a vector of them.
//
// Representation by type root (the DataType travels beside the value, not inside it):
//   NULL                                   std::monostate
//   BOOLEAN                                bool
//   TINYINT, SMALLINT, INT, BIGINT         int64_t
//   DATE                                   int64_t days since 1970-01-01
//   TIME(p)                                int64_t milliseconds of the day (Paimon keeps millis)
//   FLOAT / DOUBLE                         float / double
//   DECIMAL(p, s)                          DecimalValue: the unscaled 128-bit integer
//   TIMESTAMP(p), TIMESTAMP_LTZ(p)         TimestampValue: epoch millis + nanos within the milli
//                                          (TIMESTAMP is wall-clock time read as if UTC; LTZ an instant)
//   CHAR, VARCHAR, STRING                  std::string holding UTF-8 bytes
//   BINARY, VARBINARY, BYTES               std::string holding the bytes
//   ARRAY, MULTISET                        NestedValue: the elements
//   MAP                                    NestedValue: key0, value0, key1, value1, ...
//   ROW                                    NestedValue: the fields in order
// Thread-safety: values; NestedValue is shared immutably, so copies may cross threads.
#pragma once

#include <compare>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "tide/base/result.h"
#include "tide/types/data_type.h"

namespace tide {

using int128_t = __int128;

struct DecimalValue {
  int128_t unscaled = 0;
  bool operator==(const DecimalValue&) const = default;
};

struct TimestampValue {
  int64_t millis = 0;          // milliseconds since 1970-01-01T00:00:00
  int32_t nanos_of_milli = 0;  // 0..999999
  bool operator==(const TimestampValue&) const = default;
  auto operator<=>(const TimestampValue&) const = default;
  static TimestampValue FromMicros(int64_t micros);
  static TimestampValue FromNanos(int64_t nanos);
  int64_t ToMicros() const;  // truncates sub-microsecond digits toward -infinity
};

class Datum;
using Row = std::vector<Datum>;
struct NestedValue {
  std::vector<Datum> items;
};

class Datum {
 public:
  using Storage = std::variant<std::monostate, bool, int64_t, float, double, DecimalValue, TimestampValue,
                               std::string, std::shared_ptr<const NestedValue>>;

  Datum() = default;  // NULL
  Datum(bool v) : v_(v) {}  // NOLINT
  Datum(int32_t v) : v_(static_cast<int64_t>(v)) {}  // NOLINT
  Datum(int64_t v) : v_(v) {}  // NOLINT
  Datum(float v) : v_(v) {}  // NOLINT
  Datum(double v) : v_(v) {}  // NOLINT
  Datum(DecimalValue v) : v_(v) {}  // NOLINT
  Datum(TimestampValue v) : v_(v) {}  // NOLINT
  Datum(std::string v) : v_(std::move(v)) {}  // NOLINT
  Datum(std::string_view v) : v_(std::string(v)) {}  // NOLINT
  Datum(const char* v) : v_(std::string(v)) {}  // NOLINT
  static Datum Nested(std::vector<Datum> items) {
    Datum d;
    d.v_ = std::make_shared<const NestedValue>(NestedValue{std::move(items)});
    return d;
  }

  bool is_null() const { return std::holds_alternative<std::monostate>(v_); }
  bool as_bool() const { return std::get<bool>(v_); }
  int64_t as_int() const { return std::get<int64_t>(v_); }
  float as_float() const { return std::get<float>(v_); }
  double as_double() const { return std::get<double>(v_); }
  const DecimalValue& as_decimal() const { return std::get<DecimalValue>(v_); }
  const TimestampValue& as_timestamp() const { return std::get<TimestampValue>(v_); }
  const std::string& as_string() const { return std::get<std::string>(v_); }
  const std::vector<Datum>& as_nested() const { return std::get<std::shared_ptr<const NestedValue>>(v_)->items; }

  const Storage& storage() const { return v_; }

  // Set the value in place. A slot that already holds a value of the kind is written directly, without
  // the variant's generic assignment (a visit that destroys the old value first); a text slot keeps its
  // buffer. The copy's decoders refill reused rows this way, where each slot held its column's kind.
  void Assign(bool v) { AssignKind(v); }
  void Assign(int64_t v) { AssignKind(v); }
  void Assign(double v) { AssignKind(v); }
  void Assign(DecimalValue v) { AssignKind(v); }
  void Assign(TimestampValue v) { AssignKind(v); }
  void AssignBytes(std::string_view v) {
    if (std::string* held = std::get_if<std::string>(&v_)) {
      held->assign(v.data(), v.size());
    } else {
      v_.emplace<std::string>(v);
    }
  }
  void SetNull() {
    if (!is_null()) v_.emplace<std::monostate>();
  }

  // Structural equality (nested values compared element by element; NaN equals NaN).
  bool operator==(const Datum& other) const;

 private:
  template <typename T>
  void AssignKind(T v) {
    if (T* held = std::get_if<T>(&v_)) {
      *held = v;
    } else {
      v_.emplace<T>(v);
    }
  }

  Storage v_;
};

// Orders two values of the same type as Paimon orders keys: NULL first; numbers, decimals and timestamps
// by value; strings and binary as unsigned bytes. Returns <0, 0 or >0.
int CompareDatum(const Datum& a, const Datum& b);
int CompareRows(const Row& a, const Row& b);

// Text for people and CSV: integers, decimals with their scale (`12.30`), dates `2024-01-31`, times
// `12:34:56.789`, timestamps `2024-01-31 12:34:56.123456789` (precision digits), strings as-is, binary as
// hex, nested values as `[1, 2]`, `{k=v}`, `(a, b)`; NULL as "NULL".
std::string DatumToString(const Datum& value, const DataType& type);
std::string RowToString(const Row& row, const std::vector<DataField>& fields);

// Java's Double.toString / Float.toString of `v`: the shortest digits that read back as `v`, in decimal
// notation with at least one fractional digit for 1e-3 <= |v| < 1e7 (`0.0`, `-0.0`, `1.5`, `0.001`),
// else as `d.dddE<exponent>` (`1.0E7`, `1.0E-4`); `NaN`, `Infinity`, `-Infinity`. Paimon names a FLOAT
// or DOUBLE partition's folder with this text. (The digits are those of Java 19 and later, whose
// toString is shortest; older Java prints a longer form for a few values.)
std::string JavaFloatingText(double v);
std::string JavaFloatingText(float v);

// Decimal text and parsing. ParseDecimal rounds half-up to `scale` digits and fails if the result
// needs more than `precision` digits.
std::string DecimalToString(int128_t unscaled, int scale);
Result<int128_t> ParseDecimal(std::string_view text, int precision, int scale);
// The number of decimal digits of |v| (0 has 1).
int DecimalDigits(int128_t v);

// Calendar helpers (proleptic Gregorian, as Java's LocalDate): days since 1970-01-01 <-> y/m/d.
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d);
void CivilFromDays(int64_t days, int64_t* y, unsigned* m, unsigned* d);
std::string FormatDate(int64_t days);
std::string FormatTimestamp(const TimestampValue& ts, int precision);
std::string FormatTime(int64_t millis_of_day, int precision);
// Parses `YYYY-MM-DD`, `YYYY-MM-DD[ T]HH:MM:SS[.fffffffff]` and `HH:MM:SS[.fff]`.
Result<int64_t> ParseDate(std::string_view text);
Result<TimestampValue> ParseTimestamp(std::string_view text);
Result<int64_t> ParseTime(std::string_view text);

// Converts `text` to a value of `type` (used by CSV input and tests); nested types are not parsed.
Result<Datum> ParseDatum(std::string_view text, const DataType& type);

}  // namespace tide
