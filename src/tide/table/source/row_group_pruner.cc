#include "tide/table/source/row_group_pruner.h"

#include <atomic>
#include <cstring>

namespace tide {

namespace {

std::atomic<int64_t> g_row_groups_read{0};
std::atomic<int64_t> g_row_groups_skipped{0};

template <typename T>
std::optional<T> LittleEndian(const std::string& bytes) {
  if (bytes.size() != sizeof(T)) return std::nullopt;
  T v;
  std::memcpy(&v, bytes.data(), sizeof(T));
  return v;
}

// A big-endian two's-complement integer of 1..16 bytes (decimals in binary form).
std::optional<int128_t> BigEndian(const std::string& bytes) {
  if (bytes.empty() || bytes.size() > 16) return std::nullopt;
  unsigned __int128 v = (static_cast<unsigned char>(bytes[0]) & 0x80) ? ~static_cast<unsigned __int128>(0) : 0;
  for (char c : bytes) v = (v << 8) | static_cast<unsigned char>(c);
  return static_cast<int128_t>(v);
}

bool Unsigned(const ParquetSchemaElement& e) {
  // ConvertedType UINT_8..UINT_64 are 11..14.
  if (e.converted_type && *e.converted_type >= 11 && *e.converted_type <= 14) return true;
  return e.logical_type.find("unsigned") != std::string::npos;
}

// An integer statistic of an INT32 or INT64 column.
std::optional<int64_t> IntegerOf(const std::string& bytes, const ParquetSchemaElement& e) {
  if (Unsigned(e)) return std::nullopt;
  if (e.type == static_cast<int32_t>(ParquetPhysicalType::kInt32)) {
    auto v = LittleEndian<int32_t>(bytes);
    if (v) return *v;
  } else if (e.type == static_cast<int32_t>(ParquetPhysicalType::kInt64)) {
    return LittleEndian<int64_t>(bytes);
  }
  return std::nullopt;
}

}  // namespace

Datum DecodeParquetStatistic(const std::string& bytes, const ParquetSchemaElement& e, const DataType& type) {
  switch (type.root()) {
    case TypeRoot::kTinyInt:
    case TypeRoot::kSmallInt:
    case TypeRoot::kInt:
    case TypeRoot::kBigInt:
    case TypeRoot::kDate: {
      auto v = IntegerOf(bytes, e);
      return v ? Datum(*v) : Datum();
    }
    case TypeRoot::kDecimal: {
      if (e.type == static_cast<int32_t>(ParquetPhysicalType::kFixedLenByteArray) ||
          e.type == static_cast<int32_t>(ParquetPhysicalType::kByteArray)) {
        auto v = BigEndian(bytes);
        return v ? Datum(DecimalValue{*v}) : Datum();
      }
      auto v = IntegerOf(bytes, e);
      return v ? Datum(DecimalValue{*v}) : Datum();
    }
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz: {
      if (e.type != static_cast<int32_t>(ParquetPhysicalType::kInt64)) return Datum();  // INT96: not read
      auto v = LittleEndian<int64_t>(bytes);
      if (!v) return Datum();
      const std::string& l = e.logical_type;
      // ConvertedType TIMESTAMP_MILLIS 9, TIMESTAMP_MICROS 10.
      if (l.find("MILLIS") != std::string::npos || (l.empty() && e.converted_type == 9)) {
        return Datum(TimestampValue{*v, 0});
      }
      if (l.find("MICROS") != std::string::npos || (l.empty() && e.converted_type == 10)) {
        return Datum(TimestampValue::FromMicros(*v));
      }
      if (l.find("NANOS") != std::string::npos) return Datum(TimestampValue::FromNanos(*v));
      return Datum();
    }
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
      if (e.type != static_cast<int32_t>(ParquetPhysicalType::kByteArray)) return Datum();
      return Datum(bytes);
    default: return Datum();
  }
}

std::vector<bool> RowGroupsMayMatch(const ParquetFooter& footer, const std::vector<RowGroupCondition>& conditions) {
  std::vector<bool> keep(footer.row_groups.size(), true);
  if (conditions.empty()) return keep;
  auto top = ParquetTopColumns(footer, "a Parquet file");
  if (!top.ok()) return keep;  // a malformed schema prunes nothing; the reader reports it
  // Each condition's column in the file (field id first, then name); conditions on columns the file
  // lacks or holds nested are left out here.
  std::vector<std::pair<const RowGroupCondition*, const ParquetTopColumn*>> usable;
  for (const RowGroupCondition& c : conditions) {
    const ParquetTopColumn* found = FindParquetTopColumn(footer, *top, c.field_id, c.column);
    if (found == nullptr) continue;
    const ParquetSchemaElement& e = footer.schema[found->element];
    const bool flat = e.num_children == 0 && e.type.has_value() &&
                      e.repetition.value_or(0) != static_cast<int32_t>(ParquetRepetition::kRepeated);
    if (flat) usable.emplace_back(&c, found);
  }
  for (size_t g = 0; g < footer.row_groups.size(); ++g) {
    const ParquetRowGroup& rg = footer.row_groups[g];
    for (const auto& [c, column] : usable) {
      if (column->leaf >= rg.columns.size()) continue;
      const ParquetSchemaElement& e = footer.schema[column->element];
      const ParquetStatistics& stats = rg.columns[column->leaf].statistics;
      // The current fields first; the deprecated ones only for integers, whose signed order is right.
      const std::optional<std::string>* lo = &stats.min_value;
      const std::optional<std::string>* hi = &stats.max_value;
      const bool integer = e.type == static_cast<int32_t>(ParquetPhysicalType::kInt32) ||
                           e.type == static_cast<int32_t>(ParquetPhysicalType::kInt64);
      if ((!lo->has_value() || !hi->has_value()) && integer) {
        lo = &stats.legacy_min;
        hi = &stats.legacy_max;
      }
      Datum min, max;
      if (lo->has_value() && hi->has_value()) {
        min = DecodeParquetStatistic(**lo, e, c->predicate.type);
        max = DecodeParquetStatistic(**hi, e, c->predicate.type);
        if (min.is_null() || max.is_null()) min = max = Datum();
      }
      if (!PredicateMayMatchRange(c->predicate, min, max, stats.null_count, rg.num_rows)) {
        keep[g] = false;
        break;
      }
    }
  }
  return keep;
}

void CountRowGroups(int64_t read, int64_t skipped) {
  g_row_groups_read.fetch_add(read, std::memory_order_relaxed);
  g_row_groups_skipped.fetch_add(skipped, std::memory_order_relaxed);
}
int64_t RowGroupsRead() { return g_row_groups_read.load(std::memory_order_relaxed); }
int64_t RowGroupsSkipped() { return g_row_groups_skipped.load(std::memory_order_relaxed); }

}  // namespace tide
