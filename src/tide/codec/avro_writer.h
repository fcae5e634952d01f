// AvroWriter: builds an Avro object container file in memory, the way Java Paimon writes manifest
// lists, manifests and index manifests (the caller stores the bytes with FileSystem).
//
// The header holds exactly two metadata entries, `avro.schema` (the schema text as given, unchanged)
// and `avro.codec`, then a random 16-byte sync marker (or the one in the options). Values are encoded
// by the schema into a block buffer; a block is compressed and written when it reaches
// `block_max_records` values or `block_max_bytes` uncompressed bytes, and at Finish().
//
// Invariant: the output only ever holds whole, valid blocks. A value that does not fit the schema is
// rejected by Append with InvalidArgument naming the field path ("_FILE._KEY_STATS._MIN_VALUES") and
// leaves the file as it was.
//
// Thread-safety: one writer is used by one thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "tide/base/result.h"
#include "tide/codec/avro_codec.h"
#include "tide/codec/avro_schema.h"
#include "tide/codec/avro_value.h"

namespace tide {

struct AvroWriterOptions {
  // Paimon's defaults: `manifest.compression=zstd`, written as Avro codec "zstandard" at level 1.
  AvroCodec codec = AvroCodec::kZstandard;
  int level = 1;  // deflate 0-9 (or -1), zstandard 1-22 (or negative); ignored by null and snappy
  // Java Avro's sync interval: close a block once its uncompressed datums reach this many bytes.
  size_t block_max_bytes = 64000;
  // Close a block after this many values; 0 means no limit.
  size_t block_max_records = 0;
  // The 16-byte sync marker; random when unset (tests set it for reproducible bytes).
  std::optional<std::string> sync_marker;
};

class AvroWriter {
 public:
  // InvalidArgument for a bad level or sync marker, or (for the JSON form) an invalid schema.
  static Result<std::unique_ptr<AvroWriter>> Create(AvroSchema schema, AvroWriterOptions options = {});
  static Result<std::unique_ptr<AvroWriter>> Create(std::string_view schema_json, AvroWriterOptions options = {});

  AvroWriter(const AvroWriter&) = delete;
  AvroWriter& operator=(const AvroWriter&) = delete;

  const AvroSchema& schema() const { return schema_; }

  // Encodes `value` as the next datum. InvalidArgument naming the field path if it does not fit the
  // schema (the value is then not written); InvalidArgument after Finish().
  Status Append(const AvroValue& value);

  int64_t records_appended() const { return records_; }
  // Bytes written so far, counting the open block uncompressed.
  size_t EstimatedSize() const { return out_.size() + block_.size(); }

  // Flushes the open block and returns the whole file. The writer is finished afterwards.
  Result<std::string> Finish();

 private:
  AvroWriter(AvroSchema schema, AvroWriterOptions options);
  Status FlushBlock();

  AvroSchema schema_;
  AvroWriterOptions options_;
  std::string sync_;
  std::string out_;         // header and finished blocks
  std::string block_;       // encoded datums of the open block
  std::string compressed_;  // scratch for the codec
  size_t block_records_ = 0;
  int64_t records_ = 0;
  bool finished_ = false;
};

// Appends the Avro binary encoding of `value` as a datum of `node` to `out`. InvalidArgument naming
// the field path if the value does not fit; `out` may then hold a partial datum.
Status EncodeAvroDatum(const AvroNode& node, const AvroValue& value, std::string* out);

}  // namespace tide
