#include "tide/table/io/data_file_stats.h"

#include <cmath>

#include "tide/base/strings.h"
#include "tide/codec/binary_row.h"

namespace tide {

Result<StatsMode> ParseStatsMode(std::string_view text) {
  std::string t = ToLower(Trim(text));
  if (t == "none") return StatsMode::None();
  if (t == "counts") return StatsMode::Counts();
  if (t == "full") return StatsMode::Full();
  if (StartsWith(t, "truncate(") && EndsWith(t, ")")) {
    auto n = ParseInt64(Trim(std::string_view(t).substr(9, t.size() - 10)), "truncate length");
    if (n.ok() && *n > 0 && *n <= INT32_MAX) return StatsMode::Truncate(static_cast<int32_t>(*n));
  }
  return Status::InvalidArgument("stats mode '{}' is not one of none, counts, full, truncate(<n>) with n > 0", text);
}

bool IsSystemColumnName(std::string_view name) {
  return StartsWith(name, "_KEY_") || name == "_SEQUENCE_NUMBER" || name == "_VALUE_KIND" || name == "_LEVEL" ||
         name == "rowkind";
}

Result<std::vector<StatsMode>> StatsModesFor(const TableSchema& schema, const std::vector<std::string>& column_names,
                                             const std::string& table_name) {
  auto global = ParseStatsMode(schema.Option("metadata.stats-mode", "truncate(16)"));
  if (!global.ok()) return global.status().WithContext("table " + table_name + ", option 'metadata.stats-mode'");
  int64_t keep_first = -1;
  if (auto v = schema.FindOption("metadata.stats-keep-first-n-columns")) {
    auto parsed = ParseInt64(Trim(*v), "metadata.stats-keep-first-n-columns");
    if (!parsed.ok()) return parsed.status().WithContext("table " + table_name);
    keep_first = *parsed;
  }
  std::vector<StatsMode> modes;
  modes.reserve(column_names.size());
  int64_t counted = 0;
  for (const std::string& name : column_names) {
    std::string key = "fields." + name + ".stats-mode";
    if (auto v = schema.FindOption(key)) {
      auto mode = ParseStatsMode(*v);
      if (!mode.ok()) return mode.status().WithContext("table " + table_name + ", option '" + key + "'");
      modes.push_back(*mode);
      ++counted;
    } else if (IsSystemColumnName(name)) {
      modes.push_back(StatsMode::Truncate(128));
    } else {
      modes.push_back(keep_first >= 0 && counted >= keep_first ? StatsMode::None() : *global);
      ++counted;
    }
  }
  return modes;
}

namespace {

// Bytes of the UTF-8 sequence a lead byte starts, as Java's BinaryString counts characters.
int Utf8SequenceLength(unsigned char lead) {
  if (lead >= 0xF0) return 4;
  if (lead >= 0xE0) return 3;
  if (lead >= 0xC0) return 2;
  return 1;
}

// Byte length of the first `n` characters of `utf8`.
size_t PrefixBytes(std::string_view utf8, int32_t n) {
  size_t pos = 0;
  for (int32_t i = 0; i < n && pos < utf8.size(); ++i) {
    pos += static_cast<size_t>(Utf8SequenceLength(static_cast<unsigned char>(utf8[pos])));
  }
  return pos < utf8.size() ? pos : utf8.size();
}

// Decodes UTF-8 into code points; a malformed sequence decodes as U+FFFD, as Java's decoder does.
std::vector<uint32_t> DecodeUtf8(std::string_view s) {
  std::vector<uint32_t> out;
  size_t i = 0;
  while (i < s.size()) {
    unsigned char b = static_cast<unsigned char>(s[i]);
    int len = b < 0x80 ? 1 : (b >= 0xC2 && b < 0xE0) ? 2 : (b >= 0xE0 && b < 0xF0) ? 3 : (b >= 0xF0 && b < 0xF5) ? 4 : 0;
    if (len == 0 || i + static_cast<size_t>(len) > s.size()) {
      out.push_back(0xFFFD);
      ++i;
      continue;
    }
    uint32_t cp = len == 1 ? b : len == 2 ? (b & 0x1F) : len == 3 ? (b & 0x0F) : (b & 0x07);
    bool ok = true;
    for (int k = 1; k < len; ++k) {
      unsigned char c = static_cast<unsigned char>(s[i + static_cast<size_t>(k)]);
      if ((c & 0xC0) != 0x80) {
        ok = false;
        break;
      }
      cp = (cp << 6) | (c & 0x3F);
    }
    if (!ok) {
      out.push_back(0xFFFD);
      ++i;
      continue;
    }
    out.push_back(cp);
    i += static_cast<size_t>(len);
  }
  return out;
}

bool HasMinMax(const DataType& type) {
  // TIMESTAMP(7..9) is INT96 in Java's files: no usable statistics.
  bool int96 = (type.root() == TypeRoot::kTimestamp || type.root() == TypeRoot::kTimestampLtz) && type.precision() > 6;
  return IsStatsComparable(type) && !int96;
}

bool HasNoStatistics(const DataType& type) {
  // Nested columns and VARIANT are Parquet groups: Java finds no statistics under the field's name.
  return type.IsNested() || type.root() == TypeRoot::kVariant;
}

}  // namespace

bool IsStatsComparable(const DataType& type) {
  switch (type.root()) {
    case TypeRoot::kBoolean:
    case TypeRoot::kTinyInt:
    case TypeRoot::kSmallInt:
    case TypeRoot::kInt:
    case TypeRoot::kBigInt:
    case TypeRoot::kFloat:
    case TypeRoot::kDouble:
    case TypeRoot::kDecimal:
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
    case TypeRoot::kDate:
    case TypeRoot::kTime:
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz:
      return true;
    default:  // byte[] and nested values are not Comparable in Java
      return false;
  }
}

std::string TruncateStringMin(std::string_view utf8, int32_t n) { return std::string(utf8.substr(0, PrefixBytes(utf8, n))); }

std::optional<std::string> TruncateStringMax(std::string_view utf8, int32_t n) {
  size_t cut = PrefixBytes(utf8, n);
  if (cut == utf8.size()) return std::string(utf8);
  std::vector<uint32_t> cps = DecodeUtf8(utf8.substr(0, cut));
  size_t limit = std::min<size_t>(cps.size(), static_cast<size_t>(n));
  for (size_t i = limit; i-- > 0;) {
    uint32_t next = cps[i] + 1;
    // Java appends a lone surrogate here, which its UTF-8 encoder turns into '?', a value below the
    // original; the first code point after the surrogates keeps the bound an upper bound.
    if (next >= 0xD800 && next <= 0xDFFF) next = 0xE000;
    if (next <= 0x10FFFF) {
      std::string out;
      for (size_t k = 0; k < i; ++k) AppendUtf8(&out, cps[k]);
      AppendUtf8(&out, next);
      return out;
    }
  }
  return std::nullopt;
}

ColumnStatsCollector::ColumnStatsCollector(const DataType& type, StatsMode mode) : type_(type), mode_(mode) {
  track_min_max_ = HasMinMax(type) && (mode.kind == StatsModeKind::kFull || mode.kind == StatsModeKind::kTruncate);
  floating_ = type.root() == TypeRoot::kFloat || type.root() == TypeRoot::kDouble;
}

void ColumnStatsCollector::AddValue(const Datum& value) {
  if (floating_) {
    bool nan = type_.root() == TypeRoot::kFloat ? std::isnan(value.as_float()) : std::isnan(value.as_double());
    if (nan) {
      saw_nan_ = true;
      return;
    }
  }
  if (min_.is_null()) {
    min_ = value;
    max_ = value;
    return;
  }
  // Fast paths for the common representations; CompareDatum for the rest.
  switch (value.storage().index()) {
    case 2: {
      int64_t v = value.as_int();
      if (v < min_.as_int()) min_ = value;
      if (v > max_.as_int()) max_ = value;
      return;
    }
    case 6: {
      const TimestampValue& v = value.as_timestamp();
      if (v < min_.as_timestamp()) min_ = value;
      if (v > max_.as_timestamp()) max_ = value;
      return;
    }
    case 5: {
      int128_t v = value.as_decimal().unscaled;
      if (v < min_.as_decimal().unscaled) min_ = value;
      if (v > max_.as_decimal().unscaled) max_ = value;
      return;
    }
    case 7: {
      const std::string& v = value.as_string();
      if (v.compare(min_.as_string()) < 0) min_ = value;
      if (v.compare(max_.as_string()) > 0) max_ = value;
      return;
    }
    default:
      if (CompareDatum(value, min_) < 0) min_ = value;
      if (CompareDatum(value, max_) > 0) max_ = value;
  }
}

void ColumnStatsCollector::AddColumn(const ColumnVector& column, const uint32_t* rows, size_t n) {
  const bool nulls = column.has_nulls();
  if (!track_min_max_) {
    if (nulls) {
      for (size_t i = 0; i < n; ++i) null_count_ += column.IsNull(rows[i]) ? 1 : 0;
    }
    return;
  }
  // The first of the smallest and of the largest values (ties keep the earlier, as Add does), then
  // those two through Add's own comparison with what came before.
  std::optional<size_t> lo, hi;
  auto scan = [&](auto value_of, auto skip) {
    for (size_t i = 0; i < n; ++i) {
      const size_t r = rows[i];
      if (nulls && column.IsNull(r)) {
        ++null_count_;
        continue;
      }
      if (skip(r)) continue;
      const auto v = value_of(r);
      if (!lo) {
        lo = hi = r;
        continue;
      }
      if (v < value_of(*lo)) lo = r;
      if (value_of(*hi) < v) hi = r;
    }
  };
  auto none = [](size_t) { return false; };
  // NaN is left out of the bounds and noted, as AddValue does.
  auto nan_of = [&](auto value_of) {
    return [&, value_of](size_t r) {
      if (!std::isnan(value_of(r))) return false;
      saw_nan_ = true;
      return true;
    };
  };
  auto float_at = [&](size_t r) { return column.Float(r); };
  auto double_at = [&](size_t r) { return column.Double(r); };
  switch (column.kind()) {
    case ColumnVector::Kind::kInt64: scan([&](size_t r) { return column.Int64(r); }, none); break;
    case ColumnVector::Kind::kFloat: scan(float_at, nan_of(float_at)); break;
    case ColumnVector::Kind::kDouble: scan(double_at, nan_of(double_at)); break;
    case ColumnVector::Kind::kBytes: scan([&](size_t r) { return column.Bytes(r); }, none); break;
  }
  if (lo) AddValue(column.GetDatum(*lo));
  if (hi && *hi != *lo) AddValue(column.GetDatum(*hi));
}

ColumnStats ColumnStatsCollector::Finish() const {
  ColumnStats out;
  if (mode_.kind == StatsModeKind::kNone || HasNoStatistics(type_)) return out;
  out.null_count = null_count_;
  if (!track_min_max_ || min_.is_null() || saw_nan_) return out;
  Datum min = min_, max = max_;
  if (type_.IsTimestamp()) {
    // Java's files keep millis (precision <= 3) or micros (4..6); the statistics are read back from them.
    int32_t unit = type_.precision() <= 3 ? 1000000 : 1000;
    for (Datum* d : {&min, &max}) {
      TimestampValue ts = d->as_timestamp();
      ts.nanos_of_milli -= ts.nanos_of_milli % unit;
      *d = Datum(ts);
    }
  }
  if (mode_.kind == StatsModeKind::kTruncate && type_.IsString()) {
    auto upper = TruncateStringMax(max.as_string(), mode_.length);
    if (!upper) return out;
    min = Datum(TruncateStringMin(min.as_string(), mode_.length));
    max = Datum(std::move(*upper));
  }
  out.min = std::move(min);
  out.max = std::move(max);
  return out;
}

Result<SimpleStats> EncodeStatsAllMode(std::span<const ColumnStats> stats, std::span<const DataType> types) {
  if (stats.size() != types.size()) {
    return Status::Internal("{} column statistics for {} columns", stats.size(), types.size());
  }
  std::vector<Datum> mins, maxs;
  std::vector<DataType> nullable;
  mins.reserve(stats.size());
  maxs.reserve(stats.size());
  SimpleStats out;
  out.null_counts_present = true;
  for (size_t i = 0; i < stats.size(); ++i) {
    mins.push_back(stats[i].min);
    maxs.push_back(stats[i].max);
    out.null_counts.push_back(stats[i].null_count);
    nullable.push_back(types[i].WithNullable(true));
  }
  TIDE_ASSIGN_OR_RETURN(out.min_values, EncodeSerializedBinaryRow(mins, nullable));
  TIDE_ASSIGN_OR_RETURN(out.max_values, EncodeSerializedBinaryRow(maxs, nullable));
  return out;
}

Result<EncodedValueStats> EncodeValueStats(std::span<const ColumnStats> stats, const std::vector<DataField>& fields,
                                           bool dense) {
  if (stats.size() != fields.size()) {
    return Status::Internal("{} column statistics for {} columns", stats.size(), fields.size());
  }
  // Nested columns have no statistics in any mode; Java's dense store would list every other column in
  // `_VALUE_STATS_COLS` because of them, which Paimon 0.9 readers misread. Keeping them as all-null
  // statistics says the same to 1.x readers and keeps 0.9 readers right.
  auto dropped = [&](size_t i) { return stats[i].IsNone() && !HasNoStatistics(fields[i].type); };
  bool any_none = false;
  for (size_t i = 0; i < stats.size(); ++i) any_none = any_none || dropped(i);
  EncodedValueStats out;
  if (!dense || !any_none) {
    std::vector<DataType> types = FieldTypes(fields);
    TIDE_ASSIGN_OR_RETURN(out.stats, EncodeStatsAllMode(stats, types));
    return out;
  }
  std::vector<ColumnStats> kept;
  std::vector<DataType> types;
  out.columns.emplace();
  for (size_t i = 0; i < stats.size(); ++i) {
    if (dropped(i)) continue;
    kept.push_back(stats[i]);
    types.push_back(fields[i].type);
    out.columns->push_back(fields[i].name);
  }
  TIDE_ASSIGN_OR_RETURN(out.stats, EncodeStatsAllMode(kept, types));
  return out;
}

}  // namespace tide
