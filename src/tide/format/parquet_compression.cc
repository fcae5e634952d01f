#include "tide/format/parquet_compression.h"

#include <snappy.h>
#include <zlib.h>
#include <zstd.h>

#include "tide/codec/zstd_context.h"

namespace tide {

std::optional<ParquetCodec> ParquetCodecNamed(std::string_view name) {
  if (name == "zstd") return ParquetCodec::kZstd;
  if (name == "snappy") return ParquetCodec::kSnappy;
  if (name == "gzip") return ParquetCodec::kGzip;
  if (name == "uncompressed" || name == "none") return ParquetCodec::kUncompressed;
  return std::nullopt;
}

namespace {

Status Gzip(std::string_view input, std::string* out) {
  z_stream zs{};
  // windowBits 15 + 16: a gzip header and trailer, as Parquet's GZIP codec (RFC 1952) requires.
  if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    return Status::Internal("gzip: deflateInit2 failed");
  }
  out->resize(deflateBound(&zs, static_cast<uLong>(input.size())) + 32);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
  zs.avail_in = static_cast<uInt>(input.size());
  zs.next_out = reinterpret_cast<Bytef*>(out->data());
  zs.avail_out = static_cast<uInt>(out->size());
  int rc = deflate(&zs, Z_FINISH);
  size_t n = zs.total_out;
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) return Status::Internal("gzip: deflate did not finish ({})", rc);
  out->resize(n);
  return Status::OK();
}

}  // namespace

ParquetPageCompressor::ParquetPageCompressor(ParquetCodec codec, int zstd_level)
    : codec_(codec), zstd_level_(zstd_level) {}

ParquetPageCompressor::~ParquetPageCompressor() = default;

Status ParquetPageCompressor::Compress(std::string_view input, std::string* out) {
  switch (codec_) {
    case ParquetCodec::kUncompressed:
      out->assign(input.data(), input.size());
      return Status::OK();
    case ParquetCodec::kSnappy: {
      out->resize(snappy::MaxCompressedLength(input.size()));
      size_t n = 0;
      snappy::RawCompress(input.data(), input.size(), out->data(), &n);
      out->resize(n);
      return Status::OK();
    }
    case ParquetCodec::kGzip:
      return Gzip(input, out);
    case ParquetCodec::kZstd: {
      ZSTD_CCtx* context = ThreadZstdCompressContext();
      if (context == nullptr) return Status::Internal("cannot create a zstd compression context");
      out->resize(ZSTD_compressBound(input.size()));
      size_t n = ZSTD_compressCCtx(context, out->data(), out->size(), input.data(), input.size(), zstd_level_);
      if (ZSTD_isError(n)) return Status::Internal("zstd compression of a Parquet page failed: {}", ZSTD_getErrorName(n));
      out->resize(n);
      return Status::OK();
    }
  }
  return Status::Internal("unknown Parquet codec {}", static_cast<int32_t>(codec_));
}

}  // namespace tide
