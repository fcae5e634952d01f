#include "tide/format/parquet_column_chunk_writer.h"

#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <span>
#include <utility>

#include "tide/format/parquet_level_encoder.h"
#include "tide/format/thrift_compact_writer.h"

namespace tide {
namespace {

constexpr int64_t kMillisPerDay = 86400000;
constexpr int64_t kJulianEpochDay = 2440588;

template <typename T>
const T* Get(const Datum& d) {
  return std::get_if<T>(&d.storage());
}

template <typename T>
void PutLittleEndian(T v, std::string* out) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &v, sizeof(T));  // the build targets little-endian machines only
  out->append(bytes, sizeof(T));
}


// The low `length` bytes of the two's complement of `v`, big-endian (a decimal's FIXED_LEN_BYTE_ARRAY).
void PutBigEndian(__int128 v, int32_t length, std::string* out) {
  for (int32_t i = length - 1; i >= 0; --i) {
    out->push_back(static_cast<char>(static_cast<unsigned __int128>(v) >> (8 * i) & 0xff));
  }
}

__int128 Pow10(int n) {
  __int128 v = 1;
  for (int i = 0; i < n; ++i) v *= 10;
  return v;
}

// A BOOLEAN value, bit-packed into `values` (PLAIN): `bits` counts the bits written so far.
void AppendBoolBit(bool v, std::string* values, int64_t* bits) {
  if (*bits % 8 == 0) values->push_back(0);
  if (v) values->back() = static_cast<char>(values->back() | (1 << (*bits % 8)));
  ++*bits;
}

// The bounds of a FLOAT/DOUBLE chunk's statistics after value `v`: NaN only noted; -0.0 below +0.0.
void UpdateRealBounds(double v, bool* saw_nan, bool* has_bounds, double* min, double* max) {
  if (std::isnan(v)) {
    *saw_nan = true;
  } else if (!*has_bounds) {
    *min = *max = v;
    *has_bounds = true;
  } else {
    if (v < *min || (v == 0 && *min == 0 && std::signbit(v))) *min = v;
    if (v > *max || (v == 0 && *max == 0 && !std::signbit(v))) *max = v;
  }
}

// Stored units of a timestamp at its precision: milliseconds (p <= 3) or microseconds (p <= 6).
__int128 TimestampUnits(const TimestampValue& ts, int precision) {
  if (precision <= 3) return ts.millis;
  return static_cast<__int128>(ts.millis) * 1000 + ts.nanos_of_milli / 1000;
}

}  // namespace

bool EncodeInt96(const TimestampValue& value, char out[12]) {
  // Java: julianDay = millis / MILLIS_IN_DAY + 2440588, nanosOfDay = millis % MILLIS_IN_DAY * 1e6 + nanos,
  // with Java's truncating division and remainder.
  const int64_t day = value.millis / kMillisPerDay + kJulianEpochDay;
  const int64_t nanos_of_day = (value.millis % kMillisPerDay) * 1000000 + value.nanos_of_milli;
  if (day < std::numeric_limits<int32_t>::min() || day > std::numeric_limits<int32_t>::max()) return false;
  const int32_t julian = static_cast<int32_t>(day);
  std::memcpy(out, &nanos_of_day, 8);
  std::memcpy(out + 8, &julian, 4);
  return true;
}

ParquetColumnChunkWriter::ParquetColumnChunkWriter(const ParquetLeafPlan& leaf, ParquetPageCompressor* compressor,
                                                   int64_t page_bytes, int64_t dictionary_bytes)
    : column_(leaf.column),
      leaf_(leaf.node),
      path_(leaf.path),
      physical_(*leaf_.type),
      optional_(leaf_.repetition == ParquetRepetition::kOptional),
      max_def_(leaf.max_def),
      max_rep_(leaf.max_rep),
      compressor_(compressor),
      page_bytes_(page_bytes),
      dictionary_eligible_(physical_ == ParquetPhysicalType::kByteArray && max_rep_ == 0 && dictionary_bytes > 0),
      dictionary_active_(dictionary_eligible_),
      dictionary_bytes_(dictionary_bytes) {}

Status ParquetColumnChunkWriter::Check(const Datum& value) const {
  const DataType& type = column_.type;
  auto wrong = [&](std::string_view detail) {
    return Status::InvalidArgument("column {} ({}): {}", column_.name, type.ToString(), detail);
  };
  if (value.is_null()) {
    if (!optional_) return wrong("NULL in a NOT NULL column; give the column a value or make it nullable");
    return Status::OK();
  }
  auto check_int = [&](int64_t lo, int64_t hi) -> Status {
    const int64_t* v = Get<int64_t>(value);
    if (v == nullptr) return wrong("the value is not an integer");
    if (*v < lo || *v > hi) return wrong(fmt::format("{} is out of range", *v));
    return Status::OK();
  };
  switch (type.root()) {
    case TypeRoot::kBoolean:
      return Get<bool>(value) ? Status::OK() : wrong("the value is not a boolean");
    case TypeRoot::kTinyInt: return check_int(INT8_MIN, INT8_MAX);
    case TypeRoot::kSmallInt: return check_int(INT16_MIN, INT16_MAX);
    case TypeRoot::kInt:
    case TypeRoot::kDate:
    case TypeRoot::kTime: return check_int(INT32_MIN, INT32_MAX);
    case TypeRoot::kBigInt: return check_int(INT64_MIN, INT64_MAX);
    case TypeRoot::kFloat:
      return Get<float>(value) ? Status::OK() : wrong("the value is not a float");
    case TypeRoot::kDouble:
      return Get<double>(value) ? Status::OK() : wrong("the value is not a double");
    case TypeRoot::kDecimal: {
      const DecimalValue* v = Get<DecimalValue>(value);
      if (v == nullptr) return wrong("the value is not a decimal");
      const __int128 limit = Pow10(type.precision());
      if (v->unscaled >= limit || v->unscaled <= -limit) {
        return wrong(DecimalToString(v->unscaled, type.scale()) + " has too many digits");
      }
      return Status::OK();
    }
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary: {
      const std::string* v = Get<std::string>(value);
      if (v == nullptr) return wrong("the value is not a string");
      if (v->size() > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
        return wrong(fmt::format("a value of {} bytes is longer than Parquet's 2 GiB limit", v->size()));
      }
      return Status::OK();
    }
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz: {
      const TimestampValue* v = Get<TimestampValue>(value);
      if (v == nullptr) return wrong("the value is not a timestamp");
      if (v->nanos_of_milli < 0 || v->nanos_of_milli > 999999) return wrong("nanos of the millisecond out of range");
      if (type.precision() > 6) {
        char bytes[12];
        if (!EncodeInt96(*v, bytes)) return wrong(FormatTimestamp(*v, 9) + " is out of range");
        return Status::OK();
      }
      const __int128 units = TimestampUnits(*v, type.precision());
      if (units > std::numeric_limits<int64_t>::max() || units < std::numeric_limits<int64_t>::min()) {
        return wrong(FormatTimestamp(*v, 9) + " is out of range");
      }
      return Status::OK();
    }
    default:
      return Status::NotSupported("column {}: Tide's Parquet encoder does not write {}", column_.name,
                                  type.ToString());
  }
}

void ParquetColumnChunkWriter::UpdateIntStats(int64_t v) {
  if (!has_bounds_) {
    min_int_ = max_int_ = v;
    has_bounds_ = true;
  } else if (v < min_int_) {
    min_int_ = v;
  } else if (v > max_int_) {
    max_int_ = v;
  }
}

void ParquetColumnChunkWriter::AppendNull(int16_t rep, int16_t def) {
  ++page_values_;
  ++chunk_values_;
  ++chunk_nulls_;
  if (max_rep_ > 0) rep_levels_.push_back(static_cast<uint16_t>(rep));
  def_levels_.push_back(static_cast<uint16_t>(def));
}

void ParquetColumnChunkWriter::AppendBytes(std::string_view v) {
  page_plain_bytes_ += static_cast<int64_t>(4 + v.size());
  if (dictionary_active_) {
    if (last_entry_ != nullptr && *last_entry_ == v) {
      indices_.push_back(last_entry_index_);
      return;
    }
    auto it = dictionary_index_.find(v);
    if (it != dictionary_index_.end()) {
      last_entry_ = &it->first;
      last_entry_index_ = it->second;
      indices_.push_back(it->second);
      return;
    }
    if (static_cast<int64_t>(dictionary_.size() + 4 + v.size()) <= dictionary_bytes_) {
      const uint32_t index = static_cast<uint32_t>(dictionary_index_.size());
      last_entry_ = &dictionary_index_.emplace(std::string(v), index).first->first;
      last_entry_index_ = index;
      PutLittleEndian(static_cast<int32_t>(v.size()), &dictionary_);
      dictionary_.append(v);
      indices_.push_back(index);
      return;
    }
    // The dictionary is full: end the open page (without this value) and write PLAIN from here on.
    page_plain_bytes_ -= static_cast<int64_t>(4 + v.size());
    const uint16_t rep = rep_levels_.empty() ? 0 : rep_levels_.back();
    const uint16_t def = def_levels_.empty() ? 0 : def_levels_.back();
    // This entry's levels are already recorded; move them to the next page.
    if (max_rep_ > 0) rep_levels_.pop_back();
    if (max_def_ > 0) def_levels_.pop_back();
    --page_values_;
    Status st = FinishPage();
    if (!st.ok() && deferred_.ok()) deferred_ = st;
    dictionary_active_ = false;
    ++page_values_;
    if (max_rep_ > 0) rep_levels_.push_back(rep);
    if (max_def_ > 0) def_levels_.push_back(def);
    page_plain_bytes_ += static_cast<int64_t>(4 + v.size());
  }
  PutLittleEndian(static_cast<int32_t>(v.size()), &values_);
  values_.append(v);
}

void ParquetColumnChunkWriter::AppendValue(int16_t rep, const Datum& value) {
  ++page_values_;
  ++chunk_values_;
  if (max_rep_ > 0) rep_levels_.push_back(static_cast<uint16_t>(rep));
  if (max_def_ > 0) def_levels_.push_back(static_cast<uint16_t>(max_def_));
  const DataType& type = column_.type;
  switch (physical_) {
    case ParquetPhysicalType::kBoolean:
      AppendBoolBit(value.as_bool(), &values_, &bool_bits_);
      UpdateIntStats(value.as_bool() ? 1 : 0);
      break;
    case ParquetPhysicalType::kInt32: {
      const int64_t v = type.root() == TypeRoot::kDecimal ? static_cast<int64_t>(value.as_decimal().unscaled)
                                                          : value.as_int();
      PutLittleEndian(static_cast<int32_t>(v), &values_);
      UpdateIntStats(v);
      break;
    }
    case ParquetPhysicalType::kInt64: {
      int64_t v;
      if (type.root() == TypeRoot::kDecimal) {
        v = static_cast<int64_t>(value.as_decimal().unscaled);
      } else if (type.IsTimestamp()) {
        v = static_cast<int64_t>(TimestampUnits(value.as_timestamp(), type.precision()));
      } else {
        v = value.as_int();
      }
      PutLittleEndian(v, &values_);
      UpdateIntStats(v);
      break;
    }
    case ParquetPhysicalType::kInt96: {
      char bytes[12];
      EncodeInt96(value.as_timestamp(), bytes);
      values_.append(bytes, 12);
      break;
    }
    case ParquetPhysicalType::kFloat:
      PutLittleEndian(value.as_float(), &values_);
      UpdateRealBounds(static_cast<double>(value.as_float()), &saw_nan_, &has_bounds_, &min_real_, &max_real_);
      break;
    case ParquetPhysicalType::kDouble:
      PutLittleEndian(value.as_double(), &values_);
      UpdateRealBounds(value.as_double(), &saw_nan_, &has_bounds_, &min_real_, &max_real_);
      break;
    case ParquetPhysicalType::kByteArray: {
      const std::string& v = value.as_string();
      AppendBytes(v);
      UpdateBytesStats(v);
      break;
    }
    case ParquetPhysicalType::kFixedLenByteArray: {
      const __int128 v = value.as_decimal().unscaled;
      PutBigEndian(v, *leaf_.type_length, &values_);
      if (!has_bounds_) {
        min_wide_ = max_wide_ = v;
        has_bounds_ = true;
      } else if (v < min_wide_) {
        min_wide_ = v;
      } else if (v > max_wide_) {
        max_wide_ = v;
      }
      break;
    }
  }
}

void ParquetColumnChunkWriter::UpdateBytesStats(std::string_view v) {
  if (v.size() > kMaxStatisticsValueBytes) {
    oversized_ = true;
  } else if (!has_bounds_) {
    min_bytes_ = max_bytes_ = v;
    has_bounds_ = true;
  } else if (v < std::string_view(min_bytes_)) {  // compares as unsigned bytes
    min_bytes_ = v;
  } else if (v > std::string_view(max_bytes_)) {
    max_bytes_ = v;
  }
}

Status ParquetColumnChunkWriter::CheckColumn(const ColumnVector& column, const uint32_t* rows, size_t n) const {
  const DataType& type = column_.type;
  if (max_rep_ > 0 || column.kind() != ColumnVector::KindOf(type) || column.type().root() != type.root() ||
      column.type().precision() != type.precision()) {
    return Status::Internal("column {} ({}): a column vector of {} cannot be written to it", column_.name,
                            type.ToString(), column.type().ToString());
  }
  auto wrong = [&](std::string_view detail) {
    return Status::InvalidArgument("column {} ({}): {}", column_.name, type.ToString(), detail);
  };
  if (column.has_nulls() && !optional_) {
    for (size_t i = 0; i < n; ++i) {
      if (column.IsNull(rows[i])) return wrong("NULL in a NOT NULL column; give the column a value or make it nullable");
    }
  }
  auto check_range = [&](int64_t lo, int64_t hi) -> Status {
    for (size_t i = 0; i < n; ++i) {
      const int64_t v = column.Int64(rows[i]);
      if ((v < lo || v > hi) && !column.IsNull(rows[i])) return wrong(fmt::format("{} is out of range", v));
    }
    return Status::OK();
  };
  switch (type.root()) {
    case TypeRoot::kTinyInt: return check_range(INT8_MIN, INT8_MAX);
    case TypeRoot::kSmallInt: return check_range(INT16_MIN, INT16_MAX);
    case TypeRoot::kInt:
    case TypeRoot::kDate:
    case TypeRoot::kTime: return check_range(INT32_MIN, INT32_MAX);
    case TypeRoot::kDecimal: {
      const __int128 limit = Pow10(type.precision());
      for (size_t i = 0; i < n; ++i) {
        const __int128 v = column.Int64(rows[i]);
        if (v >= limit || v <= -limit) return wrong(DecimalToString(v, type.scale()) + " has too many digits");
      }
      return Status::OK();
    }
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary:
      for (size_t i = 0; i < n; ++i) {
        const size_t size = column.Bytes(rows[i]).size();
        if (size > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
          return wrong(fmt::format("a value of {} bytes is longer than Parquet's 2 GiB limit", size));
        }
      }
      return Status::OK();
    default: return Status::OK();  // every stored value fits: booleans, floats, timestamps in their units
  }
}

Status ParquetColumnChunkWriter::AppendColumn(const ColumnVector& column, const uint32_t* rows, size_t n) {
  const bool nulls = column.has_nulls();
  // After each value, as MaybeFinishPage after each row.
  auto end_of_row = [&]() -> Status {
    const int64_t page_size = std::max(static_cast<int64_t>(values_.size()), page_plain_bytes_);
    return page_size >= page_bytes_ ? FinishPage() : Status::OK();
  };
  auto present = [&]() {
    ++page_values_;
    ++chunk_values_;
    if (max_def_ > 0) def_levels_.push_back(static_cast<uint16_t>(max_def_));
  };
  for (size_t i = 0; i < n; ++i) {
    const size_t r = rows[i];
    if (nulls && column.IsNull(r)) {
      AppendNull(0, 0);
    } else {
      present();
      switch (physical_) {
        case ParquetPhysicalType::kBoolean: {
          const bool v = column.Int64(r) != 0;
          AppendBoolBit(v, &values_, &bool_bits_);
          UpdateIntStats(v ? 1 : 0);
          break;
        }
        case ParquetPhysicalType::kInt32: {
          const int64_t v = column.Int64(r);
          PutLittleEndian(static_cast<int32_t>(v), &values_);
          UpdateIntStats(v);
          break;
        }
        case ParquetPhysicalType::kInt64: {
          const int64_t v = column.Int64(r);
          PutLittleEndian(v, &values_);
          UpdateIntStats(v);
          break;
        }
        case ParquetPhysicalType::kFloat:
          PutLittleEndian(column.Float(r), &values_);
          UpdateRealBounds(static_cast<double>(column.Float(r)), &saw_nan_, &has_bounds_, &min_real_, &max_real_);
          break;
        case ParquetPhysicalType::kDouble:
          PutLittleEndian(column.Double(r), &values_);
          UpdateRealBounds(column.Double(r), &saw_nan_, &has_bounds_, &min_real_, &max_real_);
          break;
        case ParquetPhysicalType::kByteArray: {
          const std::string_view v = column.Bytes(r);
          AppendBytes(v);
          UpdateBytesStats(v);
          break;
        }
        case ParquetPhysicalType::kInt96:
        case ParquetPhysicalType::kFixedLenByteArray:
          return Status::Internal("column {}: no column vector is written as {}", column_.name,
                                  static_cast<int>(physical_));
      }
    }
    if (!deferred_.ok()) return deferred_;
    TIDE_RETURN_IF_ERROR(end_of_row());
  }
  return Status::OK();
}

Status ParquetColumnChunkWriter::FinishPage() {
  if (page_values_ == 0) return Status::OK();
  page_buffer_.clear();
  auto append_levels = [&](const std::vector<uint16_t>& levels, int16_t max_level) {
    const size_t start = page_buffer_.size();
    page_buffer_.append(4, '\0');
    AppendRleBitPackedHybrid(levels, ParquetLevelBitWidth(max_level), &page_buffer_);
    const int32_t levels_size = static_cast<int32_t>(page_buffer_.size() - start - 4);
    std::memcpy(page_buffer_.data() + start, &levels_size, 4);
  };
  if (max_rep_ > 0) append_levels(rep_levels_, max_rep_);
  if (max_def_ > 0) append_levels(def_levels_, max_def_);
  int32_t encoding = 0;  // PLAIN
  if (dictionary_active_) {
    encoding = 2;  // PLAIN_DICTIONARY, as parquet-mr's v1 writer says
    const int width = std::max(1, ParquetLevelBitWidth(static_cast<int>(dictionary_index_.size()) - 1));
    page_buffer_.push_back(static_cast<char>(width));
    AppendRleBitPackedHybrid(std::span<const uint32_t>(indices_), width, &page_buffer_);
    chunk_dictionary_pages_ = true;
  } else {
    page_buffer_.append(values_);
    chunk_plain_pages_ = true;
  }
  WritePage(0, page_buffer_, page_values_, encoding);
  if (!deferred_.ok()) return deferred_;
  values_.clear();
  indices_.clear();
  def_levels_.clear();
  rep_levels_.clear();
  page_values_ = 0;
  page_plain_bytes_ = 0;
  bool_bits_ = 0;
  return Status::OK();
}

// Compresses `body` and appends it with its PageHeader to the chunk: a data page v1 (page_type 0) of
// `num_values` entries, or the dictionary page (page_type 2) of `num_values` distinct values.
void ParquetColumnChunkWriter::WritePage(int32_t page_type, const std::string& body, int64_t num_values,
                                         int32_t encoding) {
  Status st = compressor_->Compress(body, &compressed_);
  if (!st.ok()) {
    if (deferred_.ok()) deferred_ = st;
    return;
  }
  header_.clear();
  ThriftCompactWriter out(&header_);
  out.BeginStruct();
  out.I32Field(1, page_type);
  out.I32Field(2, static_cast<int32_t>(body.size()));
  out.I32Field(3, static_cast<int32_t>(compressed_.size()));
  // The CRC32 of the page's bytes as stored (after compression), as parquet-mr writes it.
  const uLong crc = crc32(0, reinterpret_cast<const Bytef*>(compressed_.data()), static_cast<uInt>(compressed_.size()));
  out.I32Field(4, static_cast<int32_t>(static_cast<uint32_t>(crc)));
  if (page_type == 0) {
    out.BeginStructField(5);  // DataPageHeader
    out.I32Field(1, static_cast<int32_t>(num_values));
    out.I32Field(2, encoding);
    out.I32Field(3, 3);  // definition levels: RLE
    out.I32Field(4, 3);  // repetition levels: RLE
    out.EndStruct();
    ++pages_in_chunk_;
  } else {
    out.BeginStructField(7);  // DictionaryPageHeader
    out.I32Field(1, static_cast<int32_t>(num_values));
    out.I32Field(2, encoding);
    out.EndStruct();
  }
  out.EndStruct();
  chunk_.append(header_);
  chunk_.append(compressed_);
  chunk_uncompressed_ += static_cast<int64_t>(header_.size() + body.size());
}

Result<ParquetChunkMeta> ParquetColumnChunkWriter::FinishChunk(std::string* file) {
  TIDE_RETURN_IF_ERROR(FinishPage());
  if (!deferred_.ok()) return deferred_;
  ParquetChunkMeta meta;
  meta.type = physical_;
  meta.path = path_;
  meta.num_values = chunk_values_;
  meta.null_count = chunk_nulls_;
  meta.plain_pages = chunk_plain_pages_;
  meta.dictionary_pages = chunk_dictionary_pages_;
  if (chunk_dictionary_pages_) {
    // The dictionary page goes first; the data pages written so far follow it.
    std::string data_pages = std::move(chunk_);
    const int64_t data_uncompressed = chunk_uncompressed_;
    chunk_.clear();
    chunk_uncompressed_ = 0;
    WritePage(2, dictionary_, static_cast<int64_t>(dictionary_index_.size()), 2);  // PLAIN_DICTIONARY
    if (!deferred_.ok()) return deferred_;
    meta.dictionary_page_offset = static_cast<int64_t>(file->size());
    meta.data_page_offset = static_cast<int64_t>(file->size() + chunk_.size());
    chunk_.append(data_pages);
    chunk_uncompressed_ += data_uncompressed;
  } else {
    meta.data_page_offset = static_cast<int64_t>(file->size());
  }
  meta.total_uncompressed_size = chunk_uncompressed_;
  meta.total_compressed_size = static_cast<int64_t>(chunk_.size());
  file->append(chunk_);

  if (has_bounds_) {
    std::string lo, hi;
    bool write = true;
    switch (physical_) {
      case ParquetPhysicalType::kBoolean:
        lo.push_back(static_cast<char>(min_int_));
        hi.push_back(static_cast<char>(max_int_));
        break;
      case ParquetPhysicalType::kInt32:
        PutLittleEndian(static_cast<int32_t>(min_int_), &lo);
        PutLittleEndian(static_cast<int32_t>(max_int_), &hi);
        break;
      case ParquetPhysicalType::kInt64:
        PutLittleEndian(min_int_, &lo);
        PutLittleEndian(max_int_, &hi);
        break;
      case ParquetPhysicalType::kFloat:
      case ParquetPhysicalType::kDouble: {
        write = !saw_nan_;
        // A zero bound is written as -0.0 (min) and +0.0 (max), so both zeros fall inside.
        const double lo_v = min_real_ == 0 ? -0.0 : min_real_;
        const double hi_v = max_real_ == 0 ? 0.0 : max_real_;
        if (physical_ == ParquetPhysicalType::kFloat) {
          PutLittleEndian(static_cast<float>(lo_v), &lo);
          PutLittleEndian(static_cast<float>(hi_v), &hi);
        } else {
          PutLittleEndian(lo_v, &lo);
          PutLittleEndian(hi_v, &hi);
        }
        break;
      }
      case ParquetPhysicalType::kByteArray:
        write = !oversized_;
        lo = min_bytes_;
        hi = max_bytes_;
        break;
      case ParquetPhysicalType::kFixedLenByteArray:
        PutBigEndian(min_wide_, *leaf_.type_length, &lo);
        PutBigEndian(max_wide_, *leaf_.type_length, &hi);
        break;
      case ParquetPhysicalType::kInt96:
        write = false;
        break;
    }
    if (write) {
      meta.min_value = std::move(lo);
      meta.max_value = std::move(hi);
    }
  }

  chunk_.clear();
  pages_in_chunk_ = 0;
  chunk_plain_pages_ = false;
  chunk_dictionary_pages_ = false;
  dictionary_active_ = dictionary_eligible_;
  dictionary_index_.clear();
  dictionary_.clear();
  last_entry_ = nullptr;
  chunk_values_ = 0;
  chunk_nulls_ = 0;
  chunk_uncompressed_ = 0;
  has_bounds_ = false;
  saw_nan_ = false;
  oversized_ = false;
  min_bytes_.clear();
  max_bytes_.clear();
  return meta;
}

}  // namespace tide
