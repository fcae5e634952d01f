// ComputedColumn: one `--computed-column name=function(args)` of a sync, a column of the lake table
// whose value is computed from a column of the source row, as Java Paimon's CDC actions define it
// (org.apache.paimon.flink.action.cdc.Expression, ComputedColumn and ComputedColumnUtils).
//
// The spec is parsed as Java parses it: split once at '=', the function name before the first '(',
// the arguments up to the first ')' split at ','. The first argument names the referenced column
// (trimmed); the others are literals (trimmed), except for `cast`, whose value is taken verbatim.
// Functions, their arguments and result types (Java's, checked against its source):
//
//   year|month|day|hour|minute|second(col [, precision])   INT
//   date_format(col, pattern [, precision])                 STRING
//   substring(col, begin [, end])                           STRING   (Java's String.substring)
//   truncate(col, width)                                    the type of col
//   cast(value [, type])                                    type (STRING without one)
//   now()                                                   TIMESTAMP(3), the wall clock when evaluated
//   upper|lower|trim(col)                                   STRING
//
// The temporal functions take a DATE, TIMESTAMP or TIMESTAMP_LTZ column, a CHAR/VARCHAR holding a
// date or timestamp text (`2024-01-31`, `2024-01-31 12:34:56.789`, `2024-01-31T12:34`), or an integer
// column (TINYINT..BIGINT) holding epoch time; `precision` (0, 3, 6, 9: epoch seconds, millis, micros,
// nanos; integers default to 0) says the unit, and on a string column makes it an epoch number.
// date_format patterns are Java DateTimeFormatter patterns; Tide implements the letters y, M/MM, d/dd,
// H/HH, m/mm, s/ss, S..SSSSSSSSS and 'quoted' literals, and refuses the others when parsing.
// truncate takes TINYINT, SMALLINT, INT, BIGINT (v - floorMod(v, width)), DECIMAL (the same on the
// unscaled value) and CHAR/VARCHAR (the first `width` characters); upper, lower and trim take VARCHAR
// (STRING included) only, as Java does.
//
// NULL: a function of a column is NULL when the column is NULL (Java's ComputedColumn.eval); cast and
// now() never are. Several computed columns may reference one another (BuildComputedColumns).
//
// Java evaluates over the text form of each value and finds most mistakes only at the first row; Tide
// evaluates typed values, checks what it can when parsing and binding, and otherwise gives Java's
// result. The differences, all where Java fails or gives a value no one wants:
//   - refused up front where Java fails per row: an unknown pattern letter, a precision on a DATE or
//     TIMESTAMP column, a type the function cannot read, truncate width 0 (and a negative width, for
//     which Java computes a ceiling-like value), a cast value that does not convert (Java writes NULL
//     for a DECIMAL that does not fit); also text after the closing ')', arguments to now(), and two
//     specs of one name (Java keeps the last);
//   - substring reads CHAR/VARCHAR, integer and DATE columns (Java: the text of any column);
//   - DATE/TIMESTAMP values before year 1 or (TIMESTAMP) after 9999 get their fields (Java's text round
//     trip fails on them); negative epoch micros/nanos at a day boundary too (Java's LocalTime fails);
//   - truncate results outside the integer type are an error (Java wraps SMALLINT/INT/BIGINT);
//   - TIMESTAMP_LTZ values, a cast to TIMESTAMP_LTZ and now() use ComputedColumnOptions::time_zone, UTC
//     by default (Java: the source's server-time-zone, by default the JVM's zone);
//   - upper/lower use the C library's Unicode case tables plus the common special casings (ß, ﬁ, İ,
//     final sigma), not all of Java's SpecialCasing; a substring or truncate bound that would split a
//     UTF-16 surrogate pair is an error (Java returns half a character).
// date_format refuses the pattern letters Tide does not implement (E, a, h, u, w, Y, ...), which Java
// supports; that is a gap to fill when someone needs one, not a difference in results.
//
// Invariant: a ComputedColumn that Parse returned is well-formed (known function, argument count and
// literals valid, pattern compiled, cast type atomic); after Bind succeeded, result_type() is its
// Java result type and Evaluate reads only the referenced position of the row. Thread-safety:
// immutable after Bind; Evaluate is const and may run on many threads at once (as may the clock given
// in the options).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tide/base/result.h"
#include "tide/types/data_type.h"
#include "tide/types/datum.h"

namespace tide {

enum class ComputedFunction : uint8_t {
  kYear,
  kMonth,
  kDay,
  kHour,
  kMinute,
  kSecond,
  kDateFormat,
  kSubstring,
  kTruncate,
  kCast,
  kNow,
  kUpper,
  kLower,
  kTrim,
};

// The lower-case name a spec uses: "year", "date_format", ...
std::string_view ComputedFunctionName(ComputedFunction function);

struct ComputedColumnOptions {
  // The zone in which TIMESTAMP_LTZ values (instants) are read as wall-clock time by the temporal
  // functions and a cast to TIMESTAMP_LTZ is read, and in which now() tells the time. Java uses the
  // source's `server-time-zone`, by default the JVM's zone (kLocal); Tide defaults to UTC so that the
  // lake does not depend on the machine it runs on.
  enum class TimeZone : uint8_t { kUtc, kLocal };
  TimeZone time_zone = TimeZone::kUtc;
  // now()'s clock: microseconds since the epoch (UTC). Empty: the system clock.
  std::function<int64_t()> clock_micros;
};

class ComputedColumn {
 public:
  // Parses `name=function(args)`; InvalidArgument naming the spec, the problem and the form to write.
  static Result<ComputedColumn> Parse(std::string_view spec);

  const std::string& spec() const { return spec_; }
  const std::string& name() const { return name_; }
  ComputedFunction function() const { return function_; }
  // The column the function reads (its first argument), or nullopt for cast and now().
  const std::optional<std::string>& reference() const { return reference_; }
  // What Java's dependency sort takes as the reference: the first argument trimmed, for every function
  // (cast's value, "" for now()).
  const std::string& first_argument() const { return first_argument_; }

  // Resolves the referenced column among `fields` (the row layout Evaluate will get) and the result
  // type. NotFound when the referenced column is not among them (so a caller applying one spec to many
  // tables can skip the tables without that column); InvalidArgument when its type is not one the
  // function takes, when the computed column's name is already a field, or when cast's value does not
  // convert to its type.
  Status Bind(const std::vector<DataField>& fields, const ComputedColumnOptions& options = {});
  bool bound() const { return bound_; }
  // REQUIRES: bound().
  const DataType& result_type() const { return result_type_; }
  // The position of the referenced column in the bound fields, or -1 for cast and now().
  int reference_index() const { return reference_index_; }

  // The value for `row`, laid out as the fields given to Bind. InvalidArgument naming the spec and the
  // value when Java would fail on it too (a substring index past the end, a string shorter than
  // truncate's width, a text that is not a timestamp) or when the result does not fit its type.
  // REQUIRES: bound().
  Result<Datum> Evaluate(const Row& row) const;

  struct Impl;  // parsed arguments and compiled pattern; shared, immutable

 private:
  ComputedColumn() = default;

  std::string spec_;
  std::string name_;
  ComputedFunction function_ = ComputedFunction::kNow;
  std::optional<std::string> reference_;
  std::string first_argument_;
  std::shared_ptr<const Impl> impl_;

  bool bound_ = false;
  DataType source_type_;
  DataType result_type_;
  int reference_index_ = -1;
  ComputedColumnOptions options_;
  Datum constant_;  // cast's value, converted at Bind
};

// ComputedColumn::Parse.
Result<ComputedColumn> ParseComputedColumn(std::string_view spec);

// The computed columns of a table, as Java's ComputedColumnUtils.buildComputedColumns builds them: the
// specs parsed, ordered so that a column that references another computed column comes after it (Java's
// DfsSort, including its order among columns of one dependency), and each bound against
// `source_fields` followed by the computed columns before it. That order is the order of the columns
// in the lake table and of the values AppendComputedValues appends. InvalidArgument for two specs of
// one name or a cycle; Bind's errors otherwise (NotFound for a missing column).
Result<std::vector<ComputedColumn>> BuildComputedColumns(const std::vector<std::string>& specs,
                                                         const std::vector<DataField>& source_fields,
                                                         const ComputedColumnOptions& options = {});

// Evaluates `columns` (as BuildComputedColumns returned them) over `row`, which holds the source
// fields, and appends each value to it in order.
Status AppendComputedValues(const std::vector<ComputedColumn>& columns, Row* row);

}  // namespace tide
