#include "tide/format/parquet_chunk_reader.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <type_traits>

#include "tide/base/bytes.h"
#include "tide/format/parquet_page_reader.h"
#include "tide/format/thrift_compact.h"

namespace tide {

namespace {

constexpr bool kLittleEndian = std::endian::native == std::endian::little;

// ---- Value sinks: how stored values of one (physical type, output type) pair land in a vector ----

// Output rows of a run of present values: contiguous from `first` when `rows` is null, else rows[i].
struct Rows {
  idx_t first;
  const uint32_t* rows;
  idx_t at(size_t i) const { return rows == nullptr ? first + i : rows[i]; }
};

class ValueSink {
 public:
  virtual ~ValueSink() = default;
  // A dictionary page of `count` PLAIN values.
  virtual Status SetDictionary(std::string_view plain, int64_t count, const std::string& what) = 0;
  // A new data page of PLAIN values begins.
  virtual void StartPage() {}
  // Decodes the next `n` PLAIN values of *plain (consuming them) into `out` at `rows`.
  virtual Status Plain(std::string_view* plain, size_t n, duckdb_vector out, Rows rows, const std::string& what) = 0;
  // Writes the dictionary values at `indices` into `out` at `rows`.
  virtual Status Dict(const uint32_t* indices, size_t n, duckdb_vector out, Rows rows, const std::string& what) = 0;
};

Status CheckIndices(const uint32_t* indices, size_t n, size_t dictionary_size, const std::string& what) {
  uint32_t max = 0;
  for (size_t i = 0; i < n; ++i) max = std::max(max, indices[i]);
  if (n > 0 && max >= dictionary_size) {
    return Status::Corruption("{}: dictionary index {} past the dictionary's {} values", what, max, dictionary_size);
  }
  return Status::OK();
}

// Conversions of fixed-width values.
template <typename Src, typename Out>
struct CastConv {
  static constexpr bool kIdentity = std::is_same_v<Src, Out>;
  static Out Apply(Src v) { return static_cast<Out>(v); }
};
struct MillisToMicros {
  static constexpr bool kIdentity = false;
  // Wraps (no undefined behavior) past year 294,000, where no TIMESTAMP exists anyway.
  static int64_t Apply(int64_t v) { return static_cast<int64_t>(static_cast<uint64_t>(v) * 1000u); }
};
template <typename Src>
struct ToHugeint {
  static constexpr bool kIdentity = false;
  static duckdb_hugeint Apply(Src v) {
    const int64_t x = v;
    return duckdb_hugeint{static_cast<uint64_t>(x), x < 0 ? -1 : 0};
  }
};

template <typename Src, typename Out, typename Conv>
class FixedSink final : public ValueSink {
 public:
  Status SetDictionary(std::string_view plain, int64_t count, const std::string& what) override {
    if (count < 0 || static_cast<uint64_t>(count) > plain.size() / sizeof(Src)) {
      return Status::Corruption("{}: dictionary page of {} bytes cannot hold {} values", what, plain.size(), count);
    }
    dictionary_.resize(static_cast<size_t>(count));
    for (size_t i = 0; i < dictionary_.size(); ++i) dictionary_[i] = Conv::Apply(LoadLE<Src>(plain.data() + i * sizeof(Src)));
    return Status::OK();
  }
  Status Plain(std::string_view* plain, size_t n, duckdb_vector out, Rows rows, const std::string& what) override {
    if (plain->size() / sizeof(Src) < n) {
      return Status::Corruption("{}: data page holds fewer values than its definition levels say", what);
    }
    Out* dst = static_cast<Out*>(duckdb_vector_get_data(out));
    const char* src = plain->data();
    if (rows.rows == nullptr) {
      dst += rows.first;
      if constexpr (Conv::kIdentity && kLittleEndian) {
        std::memcpy(dst, src, n * sizeof(Src));
      } else {
        for (size_t i = 0; i < n; ++i) dst[i] = Conv::Apply(LoadLE<Src>(src + i * sizeof(Src)));
      }
    } else {
      for (size_t i = 0; i < n; ++i) dst[rows.rows[i]] = Conv::Apply(LoadLE<Src>(src + i * sizeof(Src)));
    }
    plain->remove_prefix(n * sizeof(Src));
    return Status::OK();
  }
  Status Dict(const uint32_t* indices, size_t n, duckdb_vector out, Rows rows, const std::string& what) override {
    TIDE_RETURN_IF_ERROR(CheckIndices(indices, n, dictionary_.size(), what));
    Out* dst = static_cast<Out*>(duckdb_vector_get_data(out));
    const Out* dict = dictionary_.data();
    if (rows.rows == nullptr) {
      dst += rows.first;
      for (size_t i = 0; i < n; ++i) dst[i] = dict[indices[i]];
    } else {
      for (size_t i = 0; i < n; ++i) dst[rows.rows[i]] = dict[indices[i]];
    }
    return Status::OK();
  }

 private:
  std::vector<Out> dictionary_;
};

// PLAIN booleans are bit-packed, least significant bit first, continuing across a page's values.
class BooleanSink final : public ValueSink {
 public:
  Status SetDictionary(std::string_view, int64_t, const std::string& what) override {
    return Status::NotSupported("{}: dictionary-encoded BOOLEAN values are not supported by Tide's reader", what);
  }
  void StartPage() override { bit_ = 0; }
  Status Plain(std::string_view* plain, size_t n, duckdb_vector out, Rows rows, const std::string& what) override {
    if ((bit_ + n + 7) / 8 > plain->size()) {
      return Status::Corruption("{}: data page holds fewer values than its definition levels say", what);
    }
    bool* dst = static_cast<bool*>(duckdb_vector_get_data(out));
    const auto* src = reinterpret_cast<const uint8_t*>(plain->data());
    for (size_t i = 0; i < n; ++i, ++bit_) dst[rows.at(i)] = (src[bit_ / 8] >> (bit_ % 8)) & 1;
    return Status::OK();
  }
  Status Dict(const uint32_t*, size_t, duckdb_vector, Rows, const std::string& what) override {
    return Status::NotSupported("{}: dictionary-encoded BOOLEAN values are not supported by Tide's reader", what);
  }

 private:
  size_t bit_ = 0;
};

// Writes one string into a VARCHAR/BLOB vector: short strings inline (no call), longer ones copied into
// the vector's own string heap by DuckDB.
inline void PutString(duckdb_vector out, duckdb_string_t* data, idx_t row, const char* p, uint32_t len) {
  if (len <= 12) {
    duckdb_string_t& s = data[row];
    s.value.inlined.length = len;
    std::memset(s.value.inlined.inlined, 0, 12);
    std::memcpy(s.value.inlined.inlined, p, len);
  } else {
    duckdb_vector_assign_string_element_len(out, row, p, len);
  }
}

// Splits the next PLAIN BYTE_ARRAY value (4-byte length, bytes) off *plain.
inline bool NextByteArray(std::string_view* plain, const char** p, uint32_t* len) {
  if (plain->size() < 4) return false;
  const uint32_t n = LoadLE<uint32_t>(plain->data());
  if (n > plain->size() - 4) return false;
  *p = plain->data() + 4;
  *len = n;
  plain->remove_prefix(4 + size_t{n});
  return true;
}

// True if `p[0..len)` is well-formed UTF-8 (no overlongs, surrogates or code points past U+10FFFF).
bool IsUtf8(const char* p, size_t len) {
  const auto* s = reinterpret_cast<const uint8_t*>(p);
  size_t i = 0;
  while (i < len) {
    // ASCII eight bytes at a time: the common case.
    if (i + 8 <= len) {
      uint64_t word;
      std::memcpy(&word, s + i, 8);
      if ((word & 0x8080808080808080ull) == 0) {
        i += 8;
        continue;
      }
    }
    const uint8_t c = s[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    int n;
    uint32_t cp;
    if (c >= 0xc2 && c <= 0xdf) {
      n = 1;
      cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
      n = 2;
      cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      n = 3;
      cp = c & 0x07;
    } else {
      return false;
    }
    for (int k = 1; k <= n; ++k) {
      if (i + k >= len || (s[i + k] & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (s[i + k] & 0x3f);
    }
    if ((n == 2 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (n == 3 && (cp < 0x10000 || cp > 0x10ffff))) {
      return false;
    }
    i += static_cast<size_t>(n) + 1;
  }
  return true;
}

// BYTE_ARRAY values as VARCHAR (checked to be UTF-8, as DuckDB checks them) or BLOB.
class StringSink final : public ValueSink {
 public:
  explicit StringSink(bool check_utf8) : check_utf8_(check_utf8) {}

  Status SetDictionary(std::string_view plain, int64_t count, const std::string& what) override {
    if (count < 0 || static_cast<uint64_t>(count) > plain.size() / 4) {
      return Status::Corruption("{}: dictionary page of {} bytes cannot hold {} values", what, plain.size(), count);
    }
    bytes_.assign(plain.data(), plain.size());
    entries_.clear();
    entries_.reserve(static_cast<size_t>(count));
    std::string_view rest(bytes_);
    for (int64_t i = 0; i < count; ++i) {
      const char* p;
      uint32_t len;
      if (!NextByteArray(&rest, &p, &len)) return Status::Corruption("{}: dictionary value {} overruns its page", what, i);
      if (check_utf8_ && !IsUtf8(p, len)) return NotUtf8(what);
      entries_.push_back(Entry{p, len});
    }
    return Status::OK();
  }
  Status Plain(std::string_view* plain, size_t n, duckdb_vector out, Rows rows, const std::string& what) override {
    auto* data = static_cast<duckdb_string_t*>(duckdb_vector_get_data(out));
    for (size_t i = 0; i < n; ++i) {
      const char* p;
      uint32_t len;
      if (!NextByteArray(plain, &p, &len)) return Status::Corruption("{}: a string value overruns its data page", what);
      if (check_utf8_ && !IsUtf8(p, len)) return NotUtf8(what);
      PutString(out, data, rows.at(i), p, len);
    }
    return Status::OK();
  }
  Status Dict(const uint32_t* indices, size_t n, duckdb_vector out, Rows rows, const std::string& what) override {
    TIDE_RETURN_IF_ERROR(CheckIndices(indices, n, entries_.size(), what));
    auto* data = static_cast<duckdb_string_t*>(duckdb_vector_get_data(out));
    for (size_t i = 0; i < n; ++i) {
      const Entry& e = entries_[indices[i]];
      PutString(out, data, rows.at(i), e.data, e.size);
    }
    return Status::OK();
  }

 private:
  static Status NotUtf8(const std::string& what) {
    return Status::Corruption("{}: a string value is not valid UTF-8 (read the column as binary)", what);
  }
  struct Entry {
    const char* data;
    uint32_t size;
  };
  const bool check_utf8_;
  std::string bytes_;  // the dictionary page; entries_ point into it
  std::vector<Entry> entries_;
};

// Big-endian two's-complement bytes (FIXED_LEN_BYTE_ARRAY or BYTE_ARRAY decimals) as a 128-bit integer.
inline bool BigEndianToInt128(const uint8_t* p, size_t len, __int128* out) {
  if (len == 0) {
    *out = 0;
    return true;
  }
  // Bytes beyond 16 must be the sign extension of the rest.
  while (len > 16) {
    const uint8_t sign = (p[1] & 0x80) ? 0xff : 0x00;
    if (p[0] != sign) return false;
    ++p;
    --len;
  }
  unsigned __int128 v = (p[0] & 0x80) ? ~static_cast<unsigned __int128>(0) : 0;
  for (size_t i = 0; i < len; ++i) v = (v << 8) | p[i];
  *out = static_cast<__int128>(v);
  return true;
}

template <typename Out>
inline Out FromInt128(__int128 v) {
  if constexpr (std::is_same_v<Out, duckdb_hugeint>) {
    return duckdb_hugeint{static_cast<uint64_t>(v), static_cast<int64_t>(v >> 64)};
  } else {
    return static_cast<Out>(v);
  }
}

// Decimals stored as bytes: FIXED_LEN_BYTE_ARRAY (`fixed_length` > 0) or BYTE_ARRAY (`fixed_length` 0).
template <typename Out>
class DecimalBytesSink final : public ValueSink {
 public:
  explicit DecimalBytesSink(int32_t fixed_length) : fixed_length_(fixed_length) {}

  Status SetDictionary(std::string_view plain, int64_t count, const std::string& what) override {
    const size_t min_bytes = fixed_length_ > 0 ? static_cast<size_t>(fixed_length_) : 4;
    if (count < 0 || static_cast<uint64_t>(count) > plain.size() / min_bytes) {
      return Status::Corruption("{}: dictionary page of {} bytes cannot hold {} values", what, plain.size(), count);
    }
    dictionary_.resize(static_cast<size_t>(count));
    for (auto& v : dictionary_) TIDE_RETURN_IF_ERROR(NextValue(&plain, &v, what));
    return Status::OK();
  }
  Status Plain(std::string_view* plain, size_t n, duckdb_vector out, Rows rows, const std::string& what) override {
    Out* dst = static_cast<Out*>(duckdb_vector_get_data(out));
    for (size_t i = 0; i < n; ++i) TIDE_RETURN_IF_ERROR(NextValue(plain, &dst[rows.at(i)], what));
    return Status::OK();
  }
  Status Dict(const uint32_t* indices, size_t n, duckdb_vector out, Rows rows, const std::string& what) override {
    TIDE_RETURN_IF_ERROR(CheckIndices(indices, n, dictionary_.size(), what));
    Out* dst = static_cast<Out*>(duckdb_vector_get_data(out));
    for (size_t i = 0; i < n; ++i) dst[rows.at(i)] = dictionary_[indices[i]];
    return Status::OK();
  }

 private:
  Status NextValue(std::string_view* plain, Out* out, const std::string& what) const {
    const char* p;
    uint32_t len;
    if (fixed_length_ > 0) {
      if (plain->size() < static_cast<size_t>(fixed_length_)) {
        return Status::Corruption("{}: data page holds fewer values than its definition levels say", what);
      }
      p = plain->data();
      len = static_cast<uint32_t>(fixed_length_);
      plain->remove_prefix(len);
    } else if (!NextByteArray(plain, &p, &len)) {
      return Status::Corruption("{}: a decimal value overruns its page", what);
    }
    __int128 v;
    if (!BigEndianToInt128(reinterpret_cast<const uint8_t*>(p), len, &v)) {
      return Status::Corruption("{}: a decimal of {} bytes does not fit 38 digits", what, len);
    }
    *out = FromInt128<Out>(v);
    return Status::OK();
  }

  int32_t fixed_length_;
  std::vector<Out> dictionary_;
};

// ---- Choosing the sink of a column ----

struct Annotation {
  bool decimal = false;
  int32_t precision = 0;
  int32_t scale = 0;
  bool date = false;
  std::string timestamp_unit;  // MILLIS, MICROS, NANOS for timestamps
  bool plain_integer = true;   // no annotation, or a signed INT of any width
  bool text = false;           // STRING (UTF8), ENUM or JSON: DuckDB reads these as VARCHAR
};

Annotation AnnotationOf(const ParquetSchemaElement& e) {
  Annotation a;
  const std::string& lt = e.logical_type;
  const int32_t ct = e.converted_type.value_or(-1);
  if (ct == 5 || lt.rfind("DECIMAL", 0) == 0) {
    a.decimal = true;
    a.precision = e.precision.value_or(0);
    a.scale = e.scale.value_or(0);
    int p = 0, s = 0;
    if (std::sscanf(lt.c_str(), "DECIMAL(%d,%d)", &p, &s) == 2) {
      a.precision = p;
      a.scale = s;
    }
  }
  a.date = ct == 6 || lt == "DATE";
  if (lt.rfind("TIMESTAMP(", 0) == 0) {
    a.timestamp_unit = lt.substr(10, 6);
  } else if (ct == 9) {
    a.timestamp_unit = "MILLIS";
  } else if (ct == 10) {
    a.timestamp_unit = "MICROS";
  }
  const bool signed_int = (ct >= 15 && ct <= 18) || (lt.rfind("INT(", 0) == 0 && lt.find("unsigned") == std::string::npos);
  a.plain_integer = (ct == -1 && lt.empty()) || signed_int;
  a.text = ct == 0 || ct == 4 || ct == 19 || lt == "STRING" || lt == "ENUM" || lt == "JSON";
  return a;
}

// No annotation at all (plain binary).
bool Unannotated(const ParquetSchemaElement& e) { return !e.converted_type && e.logical_type.empty(); }

template <typename Src>
Result<std::unique_ptr<ValueSink>> IntegerDecimalSink(duckdb_type internal) {
  switch (internal) {
    case DUCKDB_TYPE_SMALLINT: return std::unique_ptr<ValueSink>(new FixedSink<Src, int16_t, CastConv<Src, int16_t>>());
    case DUCKDB_TYPE_INTEGER: return std::unique_ptr<ValueSink>(new FixedSink<Src, int32_t, CastConv<Src, int32_t>>());
    case DUCKDB_TYPE_BIGINT: return std::unique_ptr<ValueSink>(new FixedSink<Src, int64_t, CastConv<Src, int64_t>>());
    case DUCKDB_TYPE_HUGEINT: return std::unique_ptr<ValueSink>(new FixedSink<Src, duckdb_hugeint, ToHugeint<Src>>());
    default: return Status::Internal("DECIMAL stored as {}", static_cast<int>(internal));
  }
}

Result<std::unique_ptr<ValueSink>> MakeSink(const ParquetSchemaElement& e, const DuckLogicalType& out,
                                            const std::string& what) {
  const int32_t physical = e.type.value_or(-1);
  const Annotation a = AnnotationOf(e);
  const duckdb_type want = out.id();
  auto unsupported = [&]() -> Status {
    return Status::NotSupported("{}: Tide's reader does not read {}{} as {}", what, ParquetPhysicalTypeName(physical),
                                e.logical_type.empty() ? "" : " " + e.logical_type, out.ToString());
  };
  using P = ParquetPhysicalType;
  if (want == DUCKDB_TYPE_DECIMAL) {
    const int width = duckdb_decimal_width(out.raw());
    const int scale = duckdb_decimal_scale(out.raw());
    if (!a.decimal || a.scale != scale || a.precision <= 0 || a.precision > width) return unsupported();
    const duckdb_type internal = duckdb_decimal_internal_type(out.raw());
    switch (static_cast<P>(physical)) {
      case P::kInt32: return IntegerDecimalSink<int32_t>(internal);
      case P::kInt64: return IntegerDecimalSink<int64_t>(internal);
      case P::kFixedLenByteArray:
      case P::kByteArray: {
        int32_t fixed = 0;
        if (static_cast<P>(physical) == P::kFixedLenByteArray) {
          fixed = e.type_length.value_or(0);
          if (fixed <= 0 || fixed > 64) return Status::Corruption("{}: FIXED_LEN_BYTE_ARRAY of length {}", what, fixed);
        }
        switch (internal) {
          case DUCKDB_TYPE_SMALLINT: return std::unique_ptr<ValueSink>(new DecimalBytesSink<int16_t>(fixed));
          case DUCKDB_TYPE_INTEGER: return std::unique_ptr<ValueSink>(new DecimalBytesSink<int32_t>(fixed));
          case DUCKDB_TYPE_BIGINT: return std::unique_ptr<ValueSink>(new DecimalBytesSink<int64_t>(fixed));
          case DUCKDB_TYPE_HUGEINT: return std::unique_ptr<ValueSink>(new DecimalBytesSink<duckdb_hugeint>(fixed));
          default: return unsupported();
        }
      }
      default: return unsupported();
    }
  }
  switch (static_cast<P>(physical)) {
    case P::kBoolean:
      if (want == DUCKDB_TYPE_BOOLEAN) return std::unique_ptr<ValueSink>(new BooleanSink());
      return unsupported();
    case P::kInt32:
      if (a.date) {
        if (want == DUCKDB_TYPE_DATE) return std::unique_ptr<ValueSink>(new FixedSink<int32_t, int32_t, CastConv<int32_t, int32_t>>());
        return unsupported();
      }
      if (!a.plain_integer) return unsupported();
      switch (want) {
        case DUCKDB_TYPE_TINYINT: return std::unique_ptr<ValueSink>(new FixedSink<int32_t, int8_t, CastConv<int32_t, int8_t>>());
        case DUCKDB_TYPE_SMALLINT: return std::unique_ptr<ValueSink>(new FixedSink<int32_t, int16_t, CastConv<int32_t, int16_t>>());
        case DUCKDB_TYPE_INTEGER: return std::unique_ptr<ValueSink>(new FixedSink<int32_t, int32_t, CastConv<int32_t, int32_t>>());
        case DUCKDB_TYPE_BIGINT: return std::unique_ptr<ValueSink>(new FixedSink<int32_t, int64_t, CastConv<int32_t, int64_t>>());
        default: return unsupported();
      }
    case P::kInt64:
      if (want == DUCKDB_TYPE_TIMESTAMP || want == DUCKDB_TYPE_TIMESTAMP_TZ) {
        if (a.timestamp_unit == "MILLIS") return std::unique_ptr<ValueSink>(new FixedSink<int64_t, int64_t, MillisToMicros>());
        if (a.timestamp_unit == "MICROS") return std::unique_ptr<ValueSink>(new FixedSink<int64_t, int64_t, CastConv<int64_t, int64_t>>());
        return unsupported();
      }
      if (want == DUCKDB_TYPE_BIGINT && a.plain_integer) {
        return std::unique_ptr<ValueSink>(new FixedSink<int64_t, int64_t, CastConv<int64_t, int64_t>>());
      }
      return unsupported();
    case P::kFloat:
      if (want == DUCKDB_TYPE_FLOAT) return std::unique_ptr<ValueSink>(new FixedSink<float, float, CastConv<float, float>>());
      if (want == DUCKDB_TYPE_DOUBLE) return std::unique_ptr<ValueSink>(new FixedSink<float, double, CastConv<float, double>>());
      return unsupported();
    case P::kDouble:
      if (want == DUCKDB_TYPE_DOUBLE) return std::unique_ptr<ValueSink>(new FixedSink<double, double, CastConv<double, double>>());
      return unsupported();
    case P::kByteArray:
      // Text as VARCHAR, bytes as BLOB: DuckDB's casts between the two rewrite bytes (escapes), which
      // this reader does not copy.
      if (a.text && want == DUCKDB_TYPE_VARCHAR) return std::unique_ptr<ValueSink>(new StringSink(true));
      if (!a.text && !a.decimal && Unannotated(e) && want == DUCKDB_TYPE_BLOB) {
        return std::unique_ptr<ValueSink>(new StringSink(false));
      }
      return unsupported();
    default:
      return unsupported();
  }
}

}  // namespace

// ---- One file column: its row groups' chunks, pages and levels ----

class ParquetChunkReader::Column {
 public:
  // `decompressor` is the reader's, shared by its columns (they decode one after the other).
  // `keep` is the reader's row-group selection (empty: every group).
  Column(std::string what, int fd, const ParquetFooter* footer, const std::vector<bool>* keep,
         ParquetPageDecompressor* decompressor, size_t leaf, bool optional, int32_t physical, size_t null_slot_bytes,
         std::unique_ptr<ValueSink> sink)
      : what_(std::move(what)), fd_(fd), footer_(footer), keep_(keep), decompressor_(decompressor), leaf_(leaf),
        optional_(optional), physical_(physical), null_slot_bytes_(null_slot_bytes), sink_(std::move(sink)) {
    const size_t n = duckdb_vector_size();
    levels_.resize(n);
    rows_.resize(n);
    indices_.resize(n);
  }

  // Writes the column's next `n` rows into `out` (rows 0..n).
  Status Fill(duckdb_vector out, idx_t n) {
    idx_t done = 0;
    uint64_t* validity = nullptr;
    while (done < n) {
      if (page_left_ == 0) TIDE_RETURN_IF_ERROR(NextPage());
      const size_t k = static_cast<size_t>(std::min<uint64_t>(n - done, page_left_));
      size_t present = k;
      Rows rows{done, nullptr};
      if (optional_) {
        TIDE_RETURN_IF_ERROR(defs_.GetBatch(levels_.data(), k, what_));
        // Count first (a loop the compiler vectorizes); positions are gathered only when NULLs occur.
        size_t p = 0;
        uint8_t bad = 0;
        for (size_t i = 0; i < k; ++i) {
          p += levels_[i] & 1;
          bad |= levels_[i];
        }
        if (bad > 1) return Status::Corruption("{}: definition level above 1 in a top-level column", what_);
        if (p < k) {
          size_t at = 0;
          for (size_t i = 0; i < k; ++i) {
            rows_[at] = static_cast<uint32_t>(done + i);
            at += levels_[i];
          }
          if (validity == nullptr) {
            duckdb_vector_ensure_validity_writable(out);
            validity = duckdb_vector_get_validity(out);
          }
          auto* data = static_cast<char*>(duckdb_vector_get_data(out));
          for (size_t i = 0; i < k; ++i) {
            if (levels_[i] == 0) {
              duckdb_validity_set_row_invalid(validity, done + i);
              std::memset(data + (done + i) * null_slot_bytes_, 0, null_slot_bytes_);
            }
          }
          rows.rows = rows_.data();
        }
        present = p;
      }
      if (present > 0) {
        if (dictionary_page_) {
          TIDE_RETURN_IF_ERROR(indices_decoder_.GetBatch(indices_.data(), present, what_));
          TIDE_RETURN_IF_ERROR(sink_->Dict(indices_.data(), present, out, rows, what_));
        } else {
          TIDE_RETURN_IF_ERROR(sink_->Plain(&plain_, present, out, rows, what_));
        }
      }
      page_left_ -= k;
      done += k;
    }
    return Status::OK();
  }

 private:
  // Reads the column's chunk of the next non-empty row group.
  Status NextRowGroup() {
    while (row_group_ < footer_->row_groups.size()) {
      if (!keep_->empty() && !(*keep_)[row_group_]) {
        ++row_group_;
        continue;
      }
      const ParquetRowGroup& rg = footer_->row_groups[row_group_++];
      if (rg.num_rows == 0) continue;
      if (leaf_ >= rg.columns.size()) return Status::Corruption("{}: row group {} lacks the column", what_, row_group_ - 1);
      const ParquetColumnChunk& meta = rg.columns[leaf_];
      if (meta.num_values != rg.num_rows) {
        return Status::Corruption("{}: a row group of {} rows declares {} values", what_, rg.num_rows, meta.num_values);
      }
      if (meta.type != physical_) {
        return Status::Corruption("{}: the column chunk's type {} differs from the schema's {}", what_,
                                  ParquetPhysicalTypeName(meta.type), ParquetPhysicalTypeName(physical_));
      }
      if (!ParquetPageDecompressor::Supports(meta.codec)) {
        return Status::NotSupported("{}: Parquet compression codec {} is not supported by Tide's reader", what_,
                                    meta.codec);
      }
      int64_t start = meta.data_page_offset;
      if (meta.dictionary_page_offset && *meta.dictionary_page_offset > 0 && *meta.dictionary_page_offset < start) {
        start = *meta.dictionary_page_offset;
      }
      const uint64_t file_size = footer_->file_size;
      if (start < 4 || meta.total_compressed_size <= 0 || static_cast<uint64_t>(meta.total_compressed_size) > file_size ||
          static_cast<uint64_t>(start) > file_size - static_cast<uint64_t>(meta.total_compressed_size)) {
        return Status::Corruption("{}: column chunk at {} (+{} bytes) lies outside the {}-byte file", what_, start,
                                  meta.total_compressed_size, file_size);
      }
      // One read for the whole chunk: its size is bounded by the file's.
      chunk_.resize(static_cast<size_t>(meta.total_compressed_size));
      size_t got = 0;
      while (got < chunk_.size()) {
        ssize_t r = ::pread(fd_, chunk_.data() + got, chunk_.size() - got, static_cast<off_t>(start + got));
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return Status::IOError("{}: cannot read: {}", what_, std::strerror(errno));
        if (r == 0) return Status::Corruption("{}: the file ends inside a column chunk (truncated?)", what_);
        got += static_cast<size_t>(r);
      }
      rest_ = chunk_;
      codec_ = meta.codec;
      chunk_values_left_ = meta.num_values;
      has_dictionary_ = false;
      return Status::OK();
    }
    return Status::Corruption("{}: the row groups end before the rows they declare", what_);
  }

  // Moves to the next data page that holds values, across dictionary pages and row groups.
  Status NextPage() {
    while (true) {
      if (chunk_values_left_ == 0) {
        TIDE_RETURN_IF_ERROR(NextRowGroup());
        continue;
      }
      if (rest_.empty()) {
        return Status::Corruption("{}: column chunk ends {} values short of its row group", what_, chunk_values_left_);
      }
      ParquetPageHeader h;
      TIDE_RETURN_IF_ERROR(ReadParquetPageHeader(&rest_, &h, what_));
      if (h.compressed_size > static_cast<int64_t>(rest_.size())) {
        return Status::Corruption("{}: page of {} bytes overruns its column chunk", what_, h.compressed_size);
      }
      std::string_view body = rest_.substr(0, static_cast<size_t>(h.compressed_size));
      rest_.remove_prefix(static_cast<size_t>(h.compressed_size));
      const auto type = static_cast<ParquetPageType>(h.type);
      if (type == ParquetPageType::kIndexPage) continue;
      if (type == ParquetPageType::kDictionaryPage) {
        if (h.encoding != static_cast<int32_t>(ParquetEncoding::kPlain) &&
            h.encoding != static_cast<int32_t>(ParquetEncoding::kPlainDictionary)) {
          return Status::NotSupported("{}: dictionary page encoding {} is not supported by Tide's reader", what_,
                                      h.encoding);
        }
        TIDE_ASSIGN_OR_RETURN(std::string_view page,
                              decompressor_->Decompress(codec_, body, h.uncompressed_size, &page_buffer_, what_));
        TIDE_RETURN_IF_ERROR(sink_->SetDictionary(page, h.num_values, what_));
        has_dictionary_ = true;
        continue;
      }
      if (h.num_values > chunk_values_left_) {
        return Status::Corruption("{}: a page declares {} values, {} are left in its row group", what_, h.num_values,
                                  chunk_values_left_);
      }
      std::string_view values;
      if (type == ParquetPageType::kDataPage) {
        TIDE_ASSIGN_OR_RETURN(std::string_view page,
                              decompressor_->Decompress(codec_, body, h.uncompressed_size, &page_buffer_, what_));
        if (optional_) {
          if (h.def_level_encoding != static_cast<int32_t>(ParquetEncoding::kRle)) {
            return Status::NotSupported("{}: definition level encoding {} is not supported by Tide's reader", what_,
                                        h.def_level_encoding);
          }
          if (page.size() < 4) return Status::Corruption("{}: page too short for its definition levels", what_);
          const uint32_t len = LoadLE<uint32_t>(page.data());
          if (len > page.size() - 4) return Status::Corruption("{}: definition levels overrun the page", what_);
          defs_.Reset(page.substr(4, len), 1);
          page.remove_prefix(4 + size_t{len});
        }
        values = page;
      } else if (type == ParquetPageType::kDataPageV2) {
        if (h.rep_levels_length != 0) return Status::Corruption("{}: repetition levels in a top-level column", what_);
        if (h.def_levels_length < 0 || h.def_levels_length > static_cast<int64_t>(body.size()) ||
            h.def_levels_length > h.uncompressed_size) {
          return Status::Corruption("{}: definition levels overrun the page", what_);
        }
        const size_t def_len = static_cast<size_t>(h.def_levels_length);
        if (optional_) defs_.Reset(body.substr(0, def_len), 1);
        std::string_view rest = body.substr(def_len);
        if (h.v2_compressed) {
          TIDE_ASSIGN_OR_RETURN(values, decompressor_->Decompress(codec_, rest, h.uncompressed_size - h.def_levels_length,
                                                                 &page_buffer_, what_));
        } else {
          values = rest;
        }
      } else {
        return Status::Corruption("{}: unknown page type {}", what_, h.type);
      }
      const auto encoding = static_cast<ParquetEncoding>(h.encoding);
      if (encoding == ParquetEncoding::kPlain) {
        dictionary_page_ = false;
        plain_ = values;
        sink_->StartPage();
      } else if (encoding == ParquetEncoding::kPlainDictionary || encoding == ParquetEncoding::kRleDictionary) {
        if (!has_dictionary_) return Status::Corruption("{}: dictionary-encoded page without a dictionary", what_);
        dictionary_page_ = true;
        int width = 0;
        if (!values.empty()) {
          width = static_cast<uint8_t>(values[0]);
          values.remove_prefix(1);
        }
        if (width > 32) return Status::Corruption("{}: dictionary index width {}", what_, width);
        indices_decoder_.Reset(values, width);
      } else {
        return Status::NotSupported("{}: Parquet encoding {} is not supported by Tide's reader", what_, h.encoding);
      }
      chunk_values_left_ -= h.num_values;
      page_left_ = static_cast<uint64_t>(h.num_values);
      if (page_left_ > 0) return Status::OK();
    }
  }

  const std::string what_;
  const int fd_;
  const ParquetFooter* footer_;
  const std::vector<bool>* keep_;
  ParquetPageDecompressor* const decompressor_;
  const size_t leaf_;
  const bool optional_;
  const int32_t physical_;
  const size_t null_slot_bytes_;
  std::unique_ptr<ValueSink> sink_;

  // The current column chunk.
  size_t row_group_ = 0;
  std::string chunk_;
  std::string_view rest_;  // pages not yet read
  int32_t codec_ = 0;
  int64_t chunk_values_left_ = 0;
  bool has_dictionary_ = false;

  // The current data page.
  std::string page_buffer_;
  uint64_t page_left_ = 0;
  RleBitPackedDecoder defs_;
  bool dictionary_page_ = false;
  std::string_view plain_;
  RleBitPackedDecoder indices_decoder_;

  // Scratch for one output chunk.
  std::vector<uint8_t> levels_;
  std::vector<uint32_t> rows_;
  std::vector<uint32_t> indices_;
};

// ---- The reader ----

namespace {


size_t SlotBytes(duckdb_type type, duckdb_logical_type logical) {
  switch (type) {
    case DUCKDB_TYPE_BOOLEAN:
    case DUCKDB_TYPE_TINYINT: return 1;
    case DUCKDB_TYPE_SMALLINT: return 2;
    case DUCKDB_TYPE_INTEGER:
    case DUCKDB_TYPE_DATE:
    case DUCKDB_TYPE_FLOAT: return 4;
    case DUCKDB_TYPE_VARCHAR:
    case DUCKDB_TYPE_BLOB: return sizeof(duckdb_string_t);
    case DUCKDB_TYPE_DECIMAL:
      switch (duckdb_decimal_internal_type(logical)) {
        case DUCKDB_TYPE_SMALLINT: return 2;
        case DUCKDB_TYPE_INTEGER: return 4;
        case DUCKDB_TYPE_HUGEINT: return 16;
        default: return 8;
      }
    default: return 8;
  }
}

}  // namespace

ParquetChunkReader::~ParquetChunkReader() {
  if (fd_ >= 0) ::close(fd_);
}

Result<std::unique_ptr<ParquetChunkReader>> ParquetChunkReader::Open(const std::string& path,
                                                                     std::vector<ParquetChunkColumn> columns) {
  const std::string file_what = "Parquet file " + path;
  if (columns.empty()) return Status::InvalidArgument("{}: no columns to read", file_what);
  std::unique_ptr<ParquetChunkReader> reader(new ParquetChunkReader());
  reader->path_ = path;
  reader->decompressor_ = std::make_unique<ParquetPageDecompressor>();
  TIDE_ASSIGN_OR_RETURN(reader->footer_, ReadParquetFooter(path));
  const ParquetFooter& footer = reader->footer_;
  int64_t rows = 0;
  for (const ParquetRowGroup& rg : footer.row_groups) {
    if (rg.num_rows < 0 || rg.num_rows > footer.num_rows - rows) {
      return Status::Corruption("{}: row groups hold more rows than the footer's {}", file_what, footer.num_rows);
    }
    rows += rg.num_rows;
  }
  if (rows != footer.num_rows) {
    return Status::Corruption("{}: row groups hold {} rows, the footer says {}", file_what, rows, footer.num_rows);
  }
  reader->total_rows_ = rows;
  int64_t first = 0;
  for (const ParquetRowGroup& rg : footer.row_groups) {
    reader->spans_.emplace_back(first, rg.num_rows);
    first += rg.num_rows;
  }
  reader->row_groups_read_ = static_cast<int64_t>(footer.row_groups.size());
  TIDE_ASSIGN_OR_RETURN(std::vector<ParquetTopColumn> top, ParquetTopColumns(footer, file_what));
  reader->fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (reader->fd_ < 0) {
    if (errno == ENOENT) return Status::NotFound("{} does not exist", file_what);
    return Status::IOError("{}: cannot open: {}", file_what, std::strerror(errno));
  }

  reader->columns_ = std::move(columns);
  for (const ParquetChunkColumn& c : reader->columns_) {
    const std::string what = file_what + ", column " + c.name;
    if (!c.type) return Status::InvalidArgument("{}: no output type given", what);
    reader->raw_types_.push_back(c.type.raw());
    if (c.row_number) {
      if (c.type.id() != DUCKDB_TYPE_BIGINT) return Status::InvalidArgument("{}: row numbers are BIGINT", what);
      reader->decoders_.push_back(nullptr);
      continue;
    }
    const ParquetTopColumn* found = FindParquetTopColumn(footer, top, c.field_id, c.name);
    if (found == nullptr) {
      if (!c.absent_is_null) return Status::Corruption("{}: the file has no such column", what);
      reader->decoders_.push_back(nullptr);
      continue;
    }
    const ParquetSchemaElement& e = footer.schema[found->element];
    if (e.num_children > 0 || !e.type) {
      return Status::NotSupported("{}: a nested column is not read by Tide's reader", what);
    }
    const int32_t repetition = e.repetition.value_or(0);
    if (repetition == static_cast<int32_t>(ParquetRepetition::kRepeated)) {
      return Status::NotSupported("{}: a repeated column is not read by Tide's reader", what);
    }
    TIDE_ASSIGN_OR_RETURN(std::unique_ptr<ValueSink> sink, MakeSink(e, c.type, what));
    const bool optional = repetition == static_cast<int32_t>(ParquetRepetition::kOptional);
    reader->decoders_.push_back(std::make_unique<Column>(what, reader->fd_, &reader->footer_, &reader->keep_,
                                                         reader->decompressor_.get(), found->leaf, optional, *e.type,
                                                         SlotBytes(c.type.id(), c.type.raw()), std::move(sink)));
  }
  return reader;
}

Status ParquetChunkReader::SelectRowGroups(std::vector<bool> keep) {
  if (keep.size() != footer_.row_groups.size()) {
    return Status::InvalidArgument("Parquet file {}: a selection of {} row groups for a file of {}", path_, keep.size(),
                                   footer_.row_groups.size());
  }
  if (rows_read_ > 0) return Status::InvalidArgument("Parquet file {}: row groups are selected before reading", path_);
  spans_.clear();
  total_rows_ = 0;
  row_groups_read_ = 0;
  int64_t first = 0;
  for (size_t g = 0; g < keep.size(); ++g) {
    const int64_t rows = footer_.row_groups[g].num_rows;
    if (keep[g]) {
      spans_.emplace_back(first, rows);
      total_rows_ += rows;
      ++row_groups_read_;
    }
    first += rows;
  }
  keep_ = std::move(keep);
  return Status::OK();
}

int64_t ParquetChunkReader::next_position() const {
  size_t span = span_;
  int64_t offset = span_offset_;
  while (span < spans_.size() && offset >= spans_[span].second) {
    ++span;
    offset = 0;
  }
  return span < spans_.size() ? spans_[span].first + offset : footer_.num_rows;
}

Result<DuckDataChunk> ParquetChunkReader::Next() {
  if (rows_read_ >= total_rows_) return DuckDataChunk();
  const idx_t n = static_cast<idx_t>(std::min<int64_t>(static_cast<int64_t>(duckdb_vector_size()), total_rows_ - rows_read_));
  DuckDataChunk chunk(duckdb_create_data_chunk(raw_types_.data(), raw_types_.size()));
  if (!chunk) return Status::Internal("cannot create a DuckDB data chunk");
  for (size_t i = 0; i < columns_.size(); ++i) {
    duckdb_vector out = chunk.column(i);
    if (columns_[i].row_number) {
      auto* data = static_cast<int64_t*>(duckdb_vector_get_data(out));
      size_t span = span_;
      int64_t offset = span_offset_;
      for (idx_t r = 0; r < n; ++r) {
        while (span < spans_.size() && offset >= spans_[span].second) {
          ++span;
          offset = 0;
        }
        data[r] = span < spans_.size() ? spans_[span].first + offset : rows_read_ + static_cast<int64_t>(r);
        ++offset;
      }
    } else if (decoders_[i] == nullptr) {
      duckdb_vector_ensure_validity_writable(out);
      uint64_t* validity = duckdb_vector_get_validity(out);
      for (idx_t r = 0; r < n; ++r) duckdb_validity_set_row_invalid(validity, r);
      std::memset(duckdb_vector_get_data(out), 0, n * SlotBytes(columns_[i].type.id(), columns_[i].type.raw()));
    } else {
      TIDE_RETURN_IF_ERROR(decoders_[i]->Fill(out, n));
    }
  }
  duckdb_data_chunk_set_size(chunk.raw(), n);
  rows_read_ += static_cast<int64_t>(n);
  // Moves the row-number cursor past the rows returned.
  for (int64_t left = static_cast<int64_t>(n); left > 0 && span_ < spans_.size();) {
    const int64_t in_span = spans_[span_].second - span_offset_;
    if (left < in_span) {
      span_offset_ += left;
      left = 0;
    } else {
      left -= in_span;
      ++span_;
      span_offset_ = 0;
    }
  }
  return chunk;
}

}  // namespace tide
