// The page-level pieces of reading a Parquet column chunk: the Thrift PageHeader, page decompression
// and the RLE / bit-packed hybrid decoder of definition levels and dictionary indices.
//
// ParquetPageHeader holds the fields of data pages v1 and v2 and of dictionary pages that a reader of
// flat columns needs; ReadParquetPageHeader parses one from the front of a column chunk's bytes.
// ParquetPageDecompressor turns a page body back into its bytes for UNCOMPRESSED, SNAPPY, GZIP and ZSTD
// (other codecs are NotSupported) and keeps its zstd context between pages. RleBitPackedDecoder decodes
// values of up to 32 bits in bulk: RLE runs are filled, bit-packed runs unpacked with 64-bit loads.
// Every read is bounds-checked against the data given; damaged input is Corruption naming `what`.
// Thread-safety: plain values and pure functions; a decompressor or decoder belongs to one thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "tide/base/result.h"

namespace tide {

// Parquet's PageType numbers.
enum class ParquetPageType : int32_t { kDataPage = 0, kIndexPage = 1, kDictionaryPage = 2, kDataPageV2 = 3 };

// Parquet's Encoding numbers that a flat-column reader meets.
enum class ParquetEncoding : int32_t {
  kPlain = 0, kPlainDictionary = 2, kRle = 3, kBitPacked = 4, kDeltaBinaryPacked = 5,
  kDeltaLengthByteArray = 6, kDeltaByteArray = 7, kRleDictionary = 8, kByteStreamSplit = 9,
};

// Pages larger than this (compressed or not) are taken as damage.
inline constexpr int64_t kMaxParquetPageBytes = int64_t{1} << 30;

struct ParquetPageHeader {
  int32_t type = -1;  // ParquetPageType
  int64_t uncompressed_size = 0;
  int64_t compressed_size = 0;
  int64_t num_values = 0;          // data pages: entries (NULLs included); dictionary pages: values
  int32_t encoding = 0;            // ParquetEncoding of the values
  int32_t def_level_encoding = 3;  // v1: RLE
  int64_t def_levels_length = 0;   // v2: bytes of definition levels (never compressed)
  int64_t rep_levels_length = 0;   // v2: bytes of repetition levels
  int64_t num_nulls = 0;           // v2
  bool v2_compressed = true;       // v2: is_compressed
};

// Parses the page header at the front of *data and removes it (not the page body) from *data.
Status ReadParquetPageHeader(std::string_view* data, ParquetPageHeader* header, const std::string& what);

// Decompresses page bodies of one column chunk's codec (zstd through the thread's reused context:
// tide/codec/zstd_context.h).
class ParquetPageDecompressor {
 public:
  ParquetPageDecompressor() = default;
  ParquetPageDecompressor(const ParquetPageDecompressor&) = delete;
  ParquetPageDecompressor& operator=(const ParquetPageDecompressor&) = delete;

  // True for the codecs Decompress handles: UNCOMPRESSED (0), SNAPPY (1), GZIP (2), ZSTD (6).
  static bool Supports(int32_t codec);

  // The `uncompressed_size` bytes of a page body `in` compressed with `codec`. For UNCOMPRESSED the
  // result is `in` itself (no copy); otherwise it points into *buffer, which it overwrites. Corruption
  // if the data does not decompress to exactly the declared size; NotSupported for other codecs.
  Result<std::string_view> Decompress(int32_t codec, std::string_view in, int64_t uncompressed_size,
                                      std::string* buffer, const std::string& what);
};

// The RLE / bit-packed hybrid encoding (without a length prefix) of values `bit_width` bits wide.
class RleBitPackedDecoder {
 public:
  RleBitPackedDecoder() = default;
  // REQUIRES: 0 <= bit_width <= 32.
  RleBitPackedDecoder(std::string_view data, int bit_width) { Reset(data, bit_width); }
  void Reset(std::string_view data, int bit_width);

  // Decodes the next `n` values into out[0..n); Corruption naming `what` if the data ends first. A
  // value that does not fit T is truncated (callers check values against their limits).
  template <typename T>
  Status GetBatch(T* out, size_t n, const std::string& what);

 private:
  Status NextRun(const std::string& what);

  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  size_t pos_ = 0;  // next run header
  int bit_width_ = 0;
  // The current run.
  bool packed_ = false;
  uint64_t run_left_ = 0;      // values left in the run
  uint32_t run_value_ = 0;     // RLE run
  const uint8_t* packed_data_ = nullptr;  // bit-packed run: its bytes available in the data
  size_t packed_bytes_ = 0;
  uint64_t packed_index_ = 0;  // next value of the packed run
};

extern template Status RleBitPackedDecoder::GetBatch<uint8_t>(uint8_t*, size_t, const std::string&);
extern template Status RleBitPackedDecoder::GetBatch<uint32_t>(uint32_t*, size_t, const std::string&);

}  // namespace tide
