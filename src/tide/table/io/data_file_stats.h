// Column statistics of a data file (`_KEY_STATS`, `_VALUE_STATS` of DataFileMeta), computed the way Java
// Paimon 1.x computes them for Parquet files (PAIMON_FORMAT.md §4.3).
//
// Java reads a finished Parquet file's footer statistics back (ParquetSimpleStatsExtractor) and passes
// each column's min/max/null count through the column's stats mode (SimpleColStatsCollector). Tide
// collects the same figures while writing, so the result is what Java would record:
//   * min/max by value for BOOLEAN, integers, FLOAT/DOUBLE, DECIMAL, DATE, TIME, CHAR/VARCHAR (unsigned
//     UTF-8 bytes, i.e. code point order) and TIMESTAMP(_LTZ) up to precision 6 (micros at most);
//   * null min/max for BINARY/VARBINARY, TIMESTAMP(7..9) (INT96 in Java's files) and VARIANT, with the
//     null count kept; nested ARRAY/MAP/MULTISET/ROW columns have no statistics at all (null min, max and
//     null count), because Java looks them up by a column path that nested columns do not have;
//   * FLOAT/DOUBLE columns holding NaN get null min/max (Parquet keeps no usable bounds for them).
// Stats modes (`metadata.stats-mode`, `fields.<f>.stats-mode`): none (no statistics), counts (null count
// only), full, truncate(n): strings' min cut to n code points, max cut to n code points with the last one
// incremented (the next valid code point; when none can be incremented, min and max become null).
// System columns (`_KEY_*`, `_SEQUENCE_NUMBER`, `_VALUE_KIND`) use truncate(128), as Java's
// StatsCollectorFactories does.
//
// Thread-safety: collectors belong to one writer; the functions are pure.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tide/base/result.h"
#include "tide/table/io/data_file_meta.h"
#include "tide/types/column_vector.h"
#include "tide/types/data_type.h"
#include "tide/types/datum.h"
#include "tide/types/table_schema.h"

namespace tide {

enum class StatsModeKind { kNone, kCounts, kFull, kTruncate };

struct StatsMode {
  StatsModeKind kind = StatsModeKind::kTruncate;
  int32_t length = 16;  // kTruncate only

  static StatsMode None() { return {StatsModeKind::kNone, 0}; }
  static StatsMode Counts() { return {StatsModeKind::kCounts, 0}; }
  static StatsMode Full() { return {StatsModeKind::kFull, 0}; }
  static StatsMode Truncate(int32_t n) { return {StatsModeKind::kTruncate, n}; }
  bool operator==(const StatsMode&) const = default;
};

// Parses `none`, `counts`, `full` or `truncate(<n>)` with n > 0 (case-insensitive).
Result<StatsMode> ParseStatsMode(std::string_view text);

// The stats mode of each physical column of a data file, as Java's StatsCollectorFactories assigns them:
// `fields.<name>.stats-mode` if set; else truncate(128) for system columns; else `metadata.stats-mode`,
// or none past the first `metadata.stats-keep-first-n-columns` user columns. `column_names` are the
// file's physical column names in order.
Result<std::vector<StatsMode>> StatsModesFor(const TableSchema& schema, const std::vector<std::string>& column_names,
                                             const std::string& table_name);

// Whether `name` is one of Paimon's system column names (SpecialFields.isSystemField).
bool IsSystemColumnName(std::string_view name);

// Whether Java compares values of `type` in statistics (its Comparable types: numbers, strings, dates,
// times, timestamps; not binary or nested values).
bool IsStatsComparable(const DataType& type);

// The statistics of one column; a NULL Datum is an absent min or max.
struct ColumnStats {
  Datum min;
  Datum max;
  std::optional<int64_t> null_count;
  // Java's SimpleColStats.isNone(): nothing known at all.
  bool IsNone() const { return min.is_null() && max.is_null() && !null_count; }
};

// Collects one column's statistics from its values. Invariant: Finish() describes exactly the values
// added so far.
class ColumnStatsCollector {
 public:
  ColumnStatsCollector(const DataType& type, StatsMode mode);

  void Add(const Datum& value) {
    if (value.is_null()) {
      ++null_count_;
      return;
    }
    if (track_min_max_) AddValue(value);
  }
  // Adds rows[0..n) of `column` (a ColumnVector of the collector's type): the statistics n calls of
  // Add with their Datums give, with two Datums made per call instead of one per value.
  void AddColumn(const ColumnVector& column, const uint32_t* rows, size_t n);
  ColumnStats Finish() const;

 private:
  void AddValue(const Datum& value);

  DataType type_;
  StatsMode mode_;
  bool track_min_max_ = false;  // the type has usable bounds and the mode keeps them
  bool floating_ = false;
  bool saw_nan_ = false;
  int64_t null_count_ = 0;
  Datum min_, max_;
};

// String truncation of the truncate(n) mode, on UTF-8 text (Java's TruncateSimpleColStatsCollector):
// the first n code points; and an upper bound of at most n code points (the value itself when it has at
// most n), or nullopt when no code point can be incremented.
std::string TruncateStringMin(std::string_view utf8, int32_t n);
std::optional<std::string> TruncateStringMax(std::string_view utf8, int32_t n);

// Stats rows of all columns (Java's SimpleStatsConverter.toBinaryAllMode): min and max rows typed by the
// columns' types made nullable, and one null count per column.
Result<SimpleStats> EncodeStatsAllMode(std::span<const ColumnStats> stats, std::span<const DataType> types);

// Value stats with the dense store (Java's SimpleStatsConverter.toBinary): when `dense` and some
// columns have no statistics at all because their mode is none, those columns are left out and
// `columns` names the rest; otherwise every column is kept and `columns` is nullopt. (Unlike Java,
// nested columns, which never have statistics, do not make the store dense by themselves: see the .cc.)
struct EncodedValueStats {
  SimpleStats stats;
  std::optional<std::vector<std::string>> columns;
};
Result<EncodedValueStats> EncodeValueStats(std::span<const ColumnStats> stats, const std::vector<DataField>& fields,
                                           bool dense);

}  // namespace tide
