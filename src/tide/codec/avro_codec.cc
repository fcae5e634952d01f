#include "tide/codec/avro_codec.h"

#include <algorithm>

#include <snappy.h>
#include <zlib.h>
#include <zstd.h>

#include "tide/base/bytes.h"
#include "tide/codec/zstd_context.h"

namespace tide {

namespace {

// Grows `out` for the next chunk of decompressed output, never beyond `max_output`.
// Returns false when `out` is already at the limit.
bool Grow(std::string* out, size_t used, size_t max_output) {
  if (used >= max_output) return false;
  size_t next = std::max<size_t>(used * 2, 64 * 1024);
  out->resize(std::min(next, max_output));
  return true;
}

Status DeflateCompress(int level, std::string_view input, std::string* out) {
  if (level < -1 || level > 9) return Status::InvalidArgument("deflate level {} is not in -1..9", level);
  z_stream z{};
  if (deflateInit2(&z, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    return Status::Internal("deflateInit2 failed");
  }
  out->resize(deflateBound(&z, input.size()));
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
  z.avail_in = static_cast<uInt>(input.size());
  z.next_out = reinterpret_cast<Bytef*>(out->data());
  z.avail_out = static_cast<uInt>(out->size());
  int rc = deflate(&z, Z_FINISH);
  size_t produced = z.total_out;
  deflateEnd(&z);
  if (rc != Z_STREAM_END) return Status::Internal("deflate did not finish a block of {} bytes (rc {})", input.size(), rc);
  out->resize(produced);
  return Status::OK();
}

Status DeflateDecompress(std::string_view input, size_t max_output, std::string* out) {
  z_stream z{};
  if (inflateInit2(&z, -15) != Z_OK) return Status::Internal("inflateInit2 failed");
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
  z.avail_in = static_cast<uInt>(input.size());
  size_t used = 0;
  Status status;
  while (true) {
    if (used == out->size() && !Grow(out, used, max_output)) {
      status = Status::Corruption("deflate block expands past {} bytes", max_output);
      break;
    }
    z.next_out = reinterpret_cast<Bytef*>(out->data() + used);
    z.avail_out = static_cast<uInt>(out->size() - used);
    int rc = inflate(&z, Z_NO_FLUSH);
    used = out->size() - z.avail_out;
    // Bytes after the end of the stream are ignored, as Java's Inflater does: Python's avro writes
    // zlib output minus its header and last byte, which leaves 3 bytes of the Adler-32 behind.
    if (rc == Z_STREAM_END) break;
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      status = Status::Corruption("deflate block does not decompress: {}", z.msg ? z.msg : "invalid data");
      break;
    }
    if (z.avail_in == 0 && z.avail_out > 0) {
      status = Status::Corruption("deflate block is truncated (its stream does not end)");
      break;
    }
  }
  inflateEnd(&z);
  if (status.ok()) out->resize(used);
  return status;
}

Status SnappyCompress(std::string_view input, std::string* out) {
  size_t n = snappy::Compress(input.data(), input.size(), out);
  out->resize(n);
  uint32_t crc = static_cast<uint32_t>(crc32(0L, reinterpret_cast<const Bytef*>(input.data()), input.size()));
  AppendBE<uint32_t>(out, crc);
  return Status::OK();
}

Status SnappyDecompress(std::string_view input, size_t max_output, std::string* out) {
  if (input.size() < 4) return Status::Corruption("snappy block of {} bytes is too short for its CRC32", input.size());
  std::string_view compressed = input.substr(0, input.size() - 4);
  uint32_t expected_crc = LoadBE<uint32_t>(input.data() + input.size() - 4);
  size_t length = 0;
  if (!snappy::GetUncompressedLength(compressed.data(), compressed.size(), &length)) {
    return Status::Corruption("snappy block has an invalid length header");
  }
  if (length > max_output) return Status::Corruption("snappy block claims {} bytes, more than the limit {}", length, max_output);
  out->resize(length);
  if (!snappy::RawUncompress(compressed.data(), compressed.size(), out->data())) {
    return Status::Corruption("snappy block does not decompress");
  }
  uint32_t crc = static_cast<uint32_t>(crc32(0L, reinterpret_cast<const Bytef*>(out->data()), out->size()));
  if (crc != expected_crc) {
    return Status::Corruption("snappy block CRC32 mismatch: stored {:08x}, computed {:08x}", expected_crc, crc);
  }
  return Status::OK();
}

Status ZstdCompress(int level, std::string_view input, std::string* out) {
  if (level < ZSTD_minCLevel() || level > ZSTD_maxCLevel()) {
    return Status::InvalidArgument("zstandard level {} is not in {}..{}", level, ZSTD_minCLevel(), ZSTD_maxCLevel());
  }
  out->resize(ZSTD_compressBound(input.size()));
  ZSTD_CCtx* context = ThreadZstdCompressContext();
  if (context == nullptr) return Status::Internal("cannot create a zstd compression context");
  size_t n = ZSTD_compressCCtx(context, out->data(), out->size(), input.data(), input.size(), level);
  if (ZSTD_isError(n)) return Status::Internal("zstd compression failed: {}", ZSTD_getErrorName(n));
  out->resize(n);
  return Status::OK();
}

Status ZstdDecompress(std::string_view input, size_t max_output, std::string* out) {
  if (input.empty()) return Status::OK();
  ZSTD_DCtx* ctx = ThreadZstdDecompressContext();
  if (ctx == nullptr) return Status::Internal("cannot create a zstd decompression context");
  // Bound the window so a corrupt header cannot ask for a huge allocation.
  ZSTD_DCtx_setParameter(ctx, ZSTD_d_windowLogMax, 27);
  unsigned long long hint = ZSTD_getFrameContentSize(input.data(), input.size());
  if (hint != ZSTD_CONTENTSIZE_UNKNOWN && hint != ZSTD_CONTENTSIZE_ERROR && hint <= max_output) {
    out->resize(static_cast<size_t>(hint));
  }
  ZSTD_inBuffer in{input.data(), input.size(), 0};
  size_t used = 0;
  while (true) {
    if (used == out->size() && !Grow(out, used, max_output)) {
      return Status::Corruption("zstandard block expands past {} bytes", max_output);
    }
    ZSTD_outBuffer o{out->data(), out->size(), used};
    size_t ret = ZSTD_decompressStream(ctx, &o, &in);
    if (ZSTD_isError(ret)) return Status::Corruption("zstandard block does not decompress: {}", ZSTD_getErrorName(ret));
    used = o.pos;
    if (ret == 0 && in.pos == in.size) break;  // every frame complete, all input used
    // All input taken and room left in the output, yet the frame is not complete: input is missing.
    if (in.pos == in.size && o.pos < o.size) return Status::Corruption("zstandard block is truncated (its frame does not end)");
  }
  out->resize(used);
  return Status::OK();
}

}  // namespace

std::string_view AvroCodecName(AvroCodec codec) {
  switch (codec) {
    case AvroCodec::kNull: return "null";
    case AvroCodec::kDeflate: return "deflate";
    case AvroCodec::kSnappy: return "snappy";
    case AvroCodec::kZstandard: return "zstandard";
  }
  return "unknown";
}

Result<AvroCodec> ParseAvroCodec(std::string_view name) {
  if (name.empty() || name == "null") return AvroCodec::kNull;
  if (name == "deflate") return AvroCodec::kDeflate;
  if (name == "snappy") return AvroCodec::kSnappy;
  if (name == "zstandard") return AvroCodec::kZstandard;
  return Status::NotSupported("Avro codec \"{}\" is not supported (supported: null, deflate, snappy, zstandard)", name);
}

int DefaultAvroCodecLevel(AvroCodec codec) {
  switch (codec) {
    case AvroCodec::kDeflate: return 6;
    case AvroCodec::kZstandard: return 3;
    default: return 0;
  }
}

Status CompressAvroBlock(AvroCodec codec, int level, std::string_view input, std::string* out) {
  out->clear();
  switch (codec) {
    case AvroCodec::kNull: out->assign(input); return Status::OK();
    case AvroCodec::kDeflate: return DeflateCompress(level, input, out);
    case AvroCodec::kSnappy: return SnappyCompress(input, out);
    case AvroCodec::kZstandard: return ZstdCompress(level, input, out);
  }
  return Status::Internal("unknown Avro codec");
}

Status DecompressAvroBlock(AvroCodec codec, std::string_view input, size_t max_output, std::string* out) {
  out->clear();
  switch (codec) {
    case AvroCodec::kNull:
      if (input.size() > max_output) return Status::Corruption("block of {} bytes is over the limit {}", input.size(), max_output);
      out->assign(input);
      return Status::OK();
    case AvroCodec::kDeflate: return DeflateDecompress(input, max_output, out);
    case AvroCodec::kSnappy: return SnappyDecompress(input, max_output, out);
    case AvroCodec::kZstandard: return ZstdDecompress(input, max_output, out);
  }
  return Status::Internal("unknown Avro codec");
}

}  // namespace tide
