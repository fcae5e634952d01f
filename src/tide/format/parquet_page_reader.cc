#include "tide/format/parquet_page_reader.h"

#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>

#include "tide/base/bytes.h"
#include "tide/codec/zstd_context.h"
#include "tide/format/thrift_compact.h"

namespace tide {

namespace {

Status ReadInt(ThriftCompactReader& in, uint8_t type, int64_t* out) {
  TIDE_ASSIGN_OR_RETURN(*out, in.Int(type));
  return Status::OK();
}

Status ReadInt(ThriftCompactReader& in, uint8_t type, int32_t* out) {
  TIDE_ASSIGN_OR_RETURN(int64_t v, in.Int(type));
  if (v < INT32_MIN || v > INT32_MAX) return in.Error("32-bit field out of range");
  *out = static_cast<int32_t>(v);
  return Status::OK();
}

}  // namespace

Status ReadParquetPageHeader(std::string_view* data, ParquetPageHeader* h, const std::string& what) {
  ThriftCompactReader in(*data, what + " page header");
  *h = ParquetPageHeader{};
  TIDE_RETURN_IF_ERROR(in.ReadStruct([&](uint8_t t, int16_t id) -> Status {
    switch (id) {
      case 1: return ReadInt(in, t, &h->type);
      case 2: return ReadInt(in, t, &h->uncompressed_size);
      case 3: return ReadInt(in, t, &h->compressed_size);
      case 5:  // DataPageHeader
        if (t != kThriftStruct) return in.Skip(t);
        return in.ReadStruct([&](uint8_t ft, int16_t fid) -> Status {
          switch (fid) {
            case 1: return ReadInt(in, ft, &h->num_values);
            case 2: return ReadInt(in, ft, &h->encoding);
            case 3: return ReadInt(in, ft, &h->def_level_encoding);
            default: return in.Skip(ft);
          }
        });
      case 7:  // DictionaryPageHeader
        if (t != kThriftStruct) return in.Skip(t);
        return in.ReadStruct([&](uint8_t ft, int16_t fid) -> Status {
          switch (fid) {
            case 1: return ReadInt(in, ft, &h->num_values);
            case 2: return ReadInt(in, ft, &h->encoding);
            default: return in.Skip(ft);
          }
        });
      case 8:  // DataPageHeaderV2
        if (t != kThriftStruct) return in.Skip(t);
        return in.ReadStruct([&](uint8_t ft, int16_t fid) -> Status {
          switch (fid) {
            case 1: return ReadInt(in, ft, &h->num_values);
            case 2: return ReadInt(in, ft, &h->num_nulls);
            case 4: return ReadInt(in, ft, &h->encoding);
            case 5: return ReadInt(in, ft, &h->def_levels_length);
            case 6: return ReadInt(in, ft, &h->rep_levels_length);
            case 7: {
              TIDE_ASSIGN_OR_RETURN(h->v2_compressed, in.Bool(ft));
              return Status::OK();
            }
            default: return in.Skip(ft);
          }
        });
      default: return in.Skip(t);
    }
  }));
  data->remove_prefix(in.position());
  if (h->compressed_size < 0 || h->compressed_size > kMaxParquetPageBytes || h->uncompressed_size < 0 ||
      h->uncompressed_size > kMaxParquetPageBytes) {
    return Status::Corruption("{}: page header declares {} compressed and {} uncompressed bytes", what,
                              h->compressed_size, h->uncompressed_size);
  }
  if (h->num_values < 0 || h->num_values > kMaxThriftElements) {
    return Status::Corruption("{}: page header declares {} values", what, h->num_values);
  }
  return Status::OK();
}

bool ParquetPageDecompressor::Supports(int32_t codec) { return codec == 0 || codec == 1 || codec == 2 || codec == 6; }

Result<std::string_view> ParquetPageDecompressor::Decompress(int32_t codec, std::string_view in,
                                                             int64_t uncompressed_size, std::string* buffer,
                                                             const std::string& what) {
  if (uncompressed_size < 0 || uncompressed_size > kMaxParquetPageBytes) {
    return Status::Corruption("{}: page declares {} uncompressed bytes", what, uncompressed_size);
  }
  const size_t size = static_cast<size_t>(uncompressed_size);
  if (codec == 0) {
    if (in.size() != size) {
      return Status::Corruption("{}: uncompressed page of {} bytes declares {}", what, in.size(), size);
    }
    return in;
  }
  if (!Supports(codec)) {
    return Status::NotSupported("{}: Parquet compression codec {} is not supported by Tide's reader", what, codec);
  }
  // resize() keeps the capacity of earlier pages: no allocation per page once the largest was seen.
  buffer->resize(size);
  char* out = buffer->data();
  switch (codec) {
    case 1: {  // SNAPPY
      size_t n = size;
      if (snappy_uncompress(in.data(), in.size(), out, &n) != SNAPPY_OK || n != size) {
        return Status::Corruption("{}: Snappy data does not decompress to the declared {} bytes", what, size);
      }
      break;
    }
    case 2: {  // GZIP
      z_stream zs{};
      if (inflateInit2(&zs, 15 + 32) != Z_OK) return Status::Internal("zlib inflateInit2 failed");
      zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
      zs.avail_in = static_cast<uInt>(in.size());
      zs.next_out = reinterpret_cast<Bytef*>(out);
      zs.avail_out = static_cast<uInt>(size);
      int rc = inflate(&zs, Z_FINISH);
      size_t produced = size - zs.avail_out;
      inflateEnd(&zs);
      if (rc != Z_STREAM_END || produced != size) {
        return Status::Corruption("{}: gzip data does not decompress to the declared {} bytes", what, size);
      }
      break;
    }
    case 6: {  // ZSTD
      ZSTD_DCtx* context = ThreadZstdDecompressContext();
      if (context == nullptr) return Status::Internal("cannot create a zstd decompression context");
      size_t n = ZSTD_decompressDCtx(context, out, size, in.data(), in.size());
      if (ZSTD_isError(n) || n != size) {
        return Status::Corruption("{}: zstd data does not decompress to the declared {} bytes", what, size);
      }
      break;
    }
  }
  return std::string_view(*buffer);
}

void RleBitPackedDecoder::Reset(std::string_view data, int bit_width) {
  data_ = reinterpret_cast<const uint8_t*>(data.data());
  size_ = data.size();
  pos_ = 0;
  bit_width_ = bit_width;
  packed_ = false;
  run_left_ = 0;
}

Status RleBitPackedDecoder::NextRun(const std::string& what) {
  uint64_t header = 0;
  for (int shift = 0;; shift += 7) {
    if (shift > 63) return Status::Corruption("{}: overlong RLE run header", what);
    if (pos_ >= size_) return Status::Corruption("{}: RLE/bit-packed data ends before its values", what);
    uint8_t b = data_[pos_++];
    header |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) break;
  }
  if (header & 1) {
    const uint64_t groups = header >> 1;
    if (groups == 0 || groups > (uint64_t{1} << 28)) return Status::Corruption("{}: bad bit-packed run length", what);
    // A run's bytes are groups * bit_width; the last run may be cut short by writers that do not pad it,
    // so only the bytes actually there are taken, and GetBatch checks each value against them.
    const uint64_t want = groups * static_cast<uint64_t>(bit_width_);
    packed_ = true;
    packed_data_ = data_ + pos_;
    packed_bytes_ = static_cast<size_t>(std::min<uint64_t>(want, size_ - pos_));
    packed_index_ = 0;
    pos_ += packed_bytes_;
    run_left_ = groups * 8;
  } else {
    packed_ = false;
    run_left_ = header >> 1;
    if (run_left_ == 0) return Status::Corruption("{}: empty RLE run", what);
    const int bytes = (bit_width_ + 7) / 8;
    if (pos_ + bytes > size_) return Status::Corruption("{}: RLE value past the end of its data", what);
    uint32_t v = 0;
    for (int i = 0; i < bytes; ++i) v |= static_cast<uint32_t>(data_[pos_ + i]) << (8 * i);
    pos_ += bytes;
    run_value_ = v;
  }
  return Status::OK();
}

template <typename T>
Status RleBitPackedDecoder::GetBatch(T* out, size_t n, const std::string& what) {
  while (n > 0) {
    if (run_left_ == 0) TIDE_RETURN_IF_ERROR(NextRun(what));
    const size_t take = static_cast<size_t>(std::min<uint64_t>(run_left_, n));
    if (!packed_) {
      std::fill(out, out + take, static_cast<T>(run_value_));
    } else {
      const int w = bit_width_;
      const uint64_t end_bits = (packed_index_ + take) * static_cast<uint64_t>(w);
      if ((end_bits + 7) / 8 > packed_bytes_) {
        return Status::Corruption("{}: bit-packed run past the end of its data", what);
      }
      if (w == 0) {
        std::fill(out, out + take, T{0});
      } else {
        const uint64_t mask = (uint64_t{1} << w) - 1;
        uint64_t bit = packed_index_ * static_cast<uint64_t>(w);
        size_t i = 0;
        // Values whose 8-byte window lies inside the run: one unaligned load each.
        for (; i < take && bit / 8 + 8 <= packed_bytes_; ++i, bit += w) {
          uint64_t word;
          std::memcpy(&word, packed_data_ + bit / 8, 8);
          word = LoadLE<uint64_t>(&word);
          out[i] = static_cast<T>((word >> (bit % 8)) & mask);
        }
        // The last few values near the end of the data: byte by byte.
        for (; i < take; ++i, bit += w) {
          uint64_t word = 0;
          const size_t first = bit / 8;
          const size_t last = std::min(packed_bytes_, (bit + w + 7) / 8);
          for (size_t b = first; b < last; ++b) word |= static_cast<uint64_t>(packed_data_[b]) << (8 * (b - first));
          out[i] = static_cast<T>((word >> (bit % 8)) & mask);
        }
      }
      packed_index_ += take;
    }
    run_left_ -= take;
    out += take;
    n -= take;
  }
  return Status::OK();
}

template Status RleBitPackedDecoder::GetBatch<uint8_t>(uint8_t*, size_t, const std::string&);
template Status RleBitPackedDecoder::GetBatch<uint32_t>(uint32_t*, size_t, const std::string&);

}  // namespace tide
