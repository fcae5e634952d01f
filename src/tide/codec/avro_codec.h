// Block compression codecs of Avro object container files: null, deflate, snappy and zstandard.
//
// The byte layouts are those of Java Avro's codecs, which Paimon uses: "deflate" is raw deflate (no
// zlib header or checksum); "snappy" is a snappy-compressed block followed by the 4-byte big-endian
// CRC32 of the uncompressed data; "zstandard" is one or more zstd frames. A block decompresses into at
// most `max_output` bytes, so a small corrupt file cannot demand unbounded memory.
//
// Thread-safety: stateless functions, safe from any thread.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "tide/base/result.h"

namespace tide {

enum class AvroCodec {
  kNull,
  kDeflate,
  kSnappy,
  kZstandard,
};

// The name used in the `avro.codec` header entry: "null", "deflate", "snappy", "zstandard".
std::string_view AvroCodecName(AvroCodec codec);

// Parses an `avro.codec` value; an empty name means "null" (the spec's default). NotSupported for
// codecs Tide does not implement (bzip2, xz).
Result<AvroCodec> ParseAvroCodec(std::string_view name);

// Java Avro's default levels: deflate 6 (Deflater.DEFAULT), zstandard 3. Paimon writes zstandard 1.
int DefaultAvroCodecLevel(AvroCodec codec);

// Compresses one block, appending to `out` (cleared first). `level` is the deflate (0-9) or zstd
// (1-22, negative for fast modes) level; ignored by null and snappy. InvalidArgument for a bad level.
Status CompressAvroBlock(AvroCodec codec, int level, std::string_view input, std::string* out);

// Decompresses one block into `out` (cleared first). Corruption, saying what was wrong, if the input is
// not a valid block of that codec, fails its checksum, or expands past `max_output` bytes. The caller
// adds the file name.
Status DecompressAvroBlock(AvroCodec codec, std::string_view input, size_t max_output, std::string* out);

}  // namespace tide
