// The page codecs Tide's Parquet encoder writes: UNCOMPRESSED, SNAPPY, GZIP and ZSTD, with Parquet's
// CompressionCodec numbers, and the compression of one page body.
//
// Names are ParquetWriteOptions::compression's (Paimon's file.compression): "zstd", "snappy", "gzip",
// "uncompressed" (or "none"). LZ4 is not among them: Parquet's LZ4_RAW needs liblz4, which Tide does not
// link (the writer takes DuckDB's path for it).
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "tide/base/result.h"

namespace tide {

enum class ParquetCodec : int32_t { kUncompressed = 0, kSnappy = 1, kGzip = 2, kZstd = 6 };

// The codec named `name` (case-sensitive, as the options hold it), or nullopt if Tide cannot write it.
std::optional<ParquetCodec> ParquetCodecNamed(std::string_view name);

// Compresses page bodies with one codec (zstd through the thread's reused context: zstd_context.h).
// Thread-safety: one compressor per thread (writers own theirs).
class ParquetPageCompressor {
 public:
  // `zstd_level` is used by ZSTD only (Paimon's file.compression.zstd-level, default 1).
  ParquetPageCompressor(ParquetCodec codec, int zstd_level);
  ~ParquetPageCompressor();
  ParquetPageCompressor(const ParquetPageCompressor&) = delete;
  ParquetPageCompressor& operator=(const ParquetPageCompressor&) = delete;

  ParquetCodec codec() const { return codec_; }
  // Compresses `input` into `*out`, replacing its contents.
  Status Compress(std::string_view input, std::string* out);

 private:
  ParquetCodec codec_;
  int zstd_level_;
};

}  // namespace tide
