// AvroReader: reads an Avro object container file (Paimon's manifest lists, manifests and index
// manifests) from its bytes.
//
// Layout (Avro 1.11 spec, "Object Container Files"): the magic "Obj\x01"; a metadata map holding at
// least `avro.schema` (the writer schema as JSON) and optionally `avro.codec`; a 16-byte sync marker;
// then blocks, each an object count, a byte size, that many bytes of (compressed) datums, and the sync
// marker again. Every datum is decoded by the WRITER schema from the header.
//
// Invariant: the reader never reads outside the bytes it owns. Any structural problem (bad magic,
// truncated header or block, wrong sync marker, over-long varint, negative or oversized length, union
// branch or enum index out of range, a block that does not decompress or has bytes left over) makes
// Open/Next/ReadAll return Corruption with a message that starts with the file name and says which
// block, object and field was being read. After an error the reader stays failed.
//
// Thread-safety: one reader is used by one thread at a time. Values it returns are independent of it
// (records share the immutable schema, which stays alive with them).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tide/base/result.h"
#include "tide/codec/avro_codec.h"
#include "tide/codec/avro_schema.h"
#include "tide/codec/avro_value.h"

namespace tide {

class AvroReader {
 public:
  // Parses the header of the container file in `data`. `name` (normally the file path) starts every
  // error message. Corruption if the header is malformed or its schema is not valid Avro;
  // NotSupported for a codec other than null, deflate, snappy or zstandard.
  static Result<std::unique_ptr<AvroReader>> Open(std::string data, std::string name);

  AvroReader(const AvroReader&) = delete;
  AvroReader& operator=(const AvroReader&) = delete;

  // The writer schema from the header.
  const AvroSchema& schema() const { return schema_; }
  AvroCodec codec() const { return codec_; }
  const std::string& name() const { return name_; }
  // Every header metadata entry (avro.schema, avro.codec, any others) in file order.
  const std::vector<std::pair<std::string, std::string>>& metadata() const { return metadata_; }
  // The value of a metadata entry, or nullptr if the header has none.
  const std::string* FindMetadata(std::string_view key) const;
  const std::array<char, 16>& sync_marker() const { return sync_; }

  // Decodes the next datum into `*out`, reusing its storage where the shape repeats. Returns false at
  // the end of the file (and leaves `*out` unchanged).
  Result<bool> Next(AvroValue* out);

  // Reads every remaining datum.
  Result<std::vector<AvroValue>> ReadAll();

  // Datums returned so far, and blocks started so far.
  int64_t objects_read() const { return objects_read_; }
  int64_t blocks_read() const { return block_index_; }

 private:
  AvroReader(std::string data, std::string name) : data_(std::move(data)), name_(std::move(name)) {}

  Status ReadHeader();
  Status StartBlock();  // reads the next block header, data and sync marker
  Status Fail(Status status);

  std::string data_;
  std::string name_;
  AvroSchema schema_;
  AvroCodec codec_ = AvroCodec::kNull;
  std::vector<std::pair<std::string, std::string>> metadata_;
  std::array<char, 16> sync_{};

  size_t pos_ = 0;              // file offset of the next block
  std::string block_buffer_;    // decompressed block (unused for the null codec)
  const char* block_begin_ = nullptr;
  const char* cursor_ = nullptr;  // next datum in the current block
  const char* block_end_ = nullptr;
  size_t block_offset_ = 0;     // file offset of the current block, for messages
  int64_t block_count_ = 0;     // objects in the current block
  int64_t block_remaining_ = 0;  // objects of the current block not yet decoded
  int64_t block_index_ = 0;
  int64_t objects_read_ = 0;
  Status failed_;
};

// Decodes one datum of `schema` from `data`, which must hold exactly that datum (Avro's binary
// encoding, no container). Corruption (without a file name) if it does not.
Result<AvroValue> DecodeAvroDatum(const AvroSchema& schema, std::string_view data);

}  // namespace tide
