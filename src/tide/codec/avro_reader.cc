#include "tide/codec/avro_reader.h"

#include <cstring>

#include <fmt/format.h>

#include "tide/base/bytes.h"

namespace tide {

namespace {

constexpr char kMagic[4] = {'O', 'b', 'j', '\x01'};
// The largest block Tide decompresses. Paimon's manifests are a few MiB; this only stops a corrupt
// size from demanding unbounded memory.
constexpr size_t kMaxBlockBytes = size_t{1} << 30;
// Items of a zero-byte type (null, empty record) cannot be bounded by the bytes that hold them; this
// caps how many one block or one array may claim.
constexpr int64_t kMaxZeroSizeItems = int64_t{1} << 20;
// Deeper nesting of datums than this only comes from recursive schemas fed corrupt data.
constexpr int kMaxDatumDepth = 256;

}  // namespace

// Decodes datums of one schema from a byte range, in place into AvroValues. On error it returns
// Corruption with the problem and leaves the dotted field path in path().
class AvroDatumDecoder {
 public:
  // Decodes from `start` up to `end`; offsets in messages are counted from `begin` (the block start).
  AvroDatumDecoder(const AvroSchema& schema, const char* begin, const char* start, const char* end)
      : schema_(schema), begin_(begin), p_(start), end_(end) {}

  Status Decode(const AvroNode& node, AvroValue* out, int depth) {
    out->branch_ = -1;
    switch (node.type()) {
      case AvroType::kNull:
        out->type_ = AvroType::kNull;
        return Status::OK();
      case AvroType::kBoolean: {
        if (p_ == end_) return Truncated("a boolean", 1);
        uint8_t b = static_cast<uint8_t>(*p_);
        if (b > 1) return Bad(fmt::format("boolean byte 0x{:02x} is neither 0 nor 1", b));
        ++p_;
        out->type_ = AvroType::kBoolean;
        out->scalar_.b = b == 1;
        return Status::OK();
      }
      case AvroType::kInt: {
        int32_t v;
        TIDE_RETURN_IF_ERROR(ReadInt(&v, "an int"));
        out->type_ = AvroType::kInt;
        out->scalar_.i = v;
        return Status::OK();
      }
      case AvroType::kLong: {
        int64_t v;
        TIDE_RETURN_IF_ERROR(ReadLong(&v, "a long"));
        out->type_ = AvroType::kLong;
        out->scalar_.l = v;
        return Status::OK();
      }
      case AvroType::kFloat: {
        if (end_ - p_ < 4) return Truncated("a float", 4);
        uint32_t bits = LoadLE<uint32_t>(p_);
        p_ += 4;
        out->type_ = AvroType::kFloat;
        std::memcpy(&out->scalar_.f, &bits, 4);
        return Status::OK();
      }
      case AvroType::kDouble: {
        if (end_ - p_ < 8) return Truncated("a double", 8);
        uint64_t bits = LoadLE<uint64_t>(p_);
        p_ += 8;
        out->type_ = AvroType::kDouble;
        std::memcpy(&out->scalar_.d, &bits, 8);
        return Status::OK();
      }
      case AvroType::kBytes:
      case AvroType::kString: {
        std::string_view s;
        if (node.type() == AvroType::kString) {
          TIDE_RETURN_IF_ERROR(ReadSized("string", "a string length", &s));
        } else {
          TIDE_RETURN_IF_ERROR(ReadSized("bytes", "a bytes length", &s));
        }
        out->type_ = node.type();
        out->bytes_.assign(s.data(), s.size());
        return Status::OK();
      }
      case AvroType::kFixed: {
        int64_t n = node.fixed_size();
        if (end_ - p_ < n) return Truncated(fmt::format("fixed \"{}\"", node.full_name()), n);
        out->type_ = AvroType::kFixed;
        out->bytes_.assign(p_, static_cast<size_t>(n));
        p_ += n;
        return Status::OK();
      }
      case AvroType::kEnum: {
        int32_t index;
        TIDE_RETURN_IF_ERROR(ReadInt(&index, "an enum index"));
        if (index < 0 || static_cast<size_t>(index) >= node.symbols().size()) {
          return Bad(fmt::format("enum index {} is out of range (enum \"{}\" has {} symbols)", index, node.full_name(),
                                 node.symbols().size()));
        }
        out->type_ = AvroType::kEnum;
        out->scalar_.i = index;
        return Status::OK();
      }
      case AvroType::kUnion: {
        int64_t index;
        TIDE_RETURN_IF_ERROR(ReadLong(&index, "a union branch index"));
        if (index < 0 || static_cast<uint64_t>(index) >= node.branches().size()) {
          return Bad(fmt::format("union branch index {} is out of range (the union has {} branches)", index,
                                 node.branches().size()));
        }
        TIDE_RETURN_IF_ERROR(Decode(*node.branches()[index], out, depth + 1));
        out->branch_ = static_cast<int32_t>(index);
        return Status::OK();
      }
      case AvroType::kRecord: {
        if (depth > kMaxDatumDepth) return Bad(fmt::format("datum nests deeper than {} levels", kMaxDatumDepth));
        out->type_ = AvroType::kRecord;
        if (out->record_schema_.get() != &node) out->record_schema_ = schema_.Share(node);
        const auto& fields = node.fields();
        out->items_.resize(fields.size());
        for (size_t i = 0; i < fields.size(); ++i) {
          Status s = Decode(*fields[i].type, &out->items_[i], depth + 1);
          if (!s.ok()) {
            PrependPath(fields[i].name);
            return s;
          }
        }
        return Status::OK();
      }
      case AvroType::kArray:
      case AvroType::kMap:
        return DecodeContainer(node, out, depth);
    }
    return Bad("unknown schema node");
  }

  const char* position() const { return p_; }
  const std::string& path() const { return path_; }

 private:
  Status DecodeContainer(const AvroNode& node, AvroValue* out, int depth) {
    if (depth > kMaxDatumDepth) return Bad(fmt::format("datum nests deeper than {} levels", kMaxDatumDepth));
    const bool is_map = node.type() == AvroType::kMap;
    out->type_ = node.type();
    out->record_schema_.reset();
    const AvroNode& item = *node.items();
    size_t n = 0;  // values decoded into out->items_ so far
    const size_t per_item = is_map ? 2 : 1;
    while (true) {
      int64_t count;
      TIDE_RETURN_IF_ERROR(ReadLong(&count, is_map ? "a map block count" : "an array block count"));
      if (count == 0) break;
      if (count < 0) {
        if (count == INT64_MIN) return Bad("array or map block count overflows");
        count = -count;
        int64_t byte_size;
        TIDE_RETURN_IF_ERROR(ReadLong(&byte_size, "an array or map block size"));
        if (byte_size < 0 || byte_size > end_ - p_) {
          return Bad(fmt::format("array or map block size {} is negative or past the end ({} bytes left)", byte_size,
                                 end_ - p_));
        }
      }
      int64_t min_item = item.min_encoded_size() + (is_map ? 1 : 0);
      // Items of zero bytes are capped over all blocks of the value, since bytes cannot bound them.
      if (min_item > 0 ? count > (end_ - p_) / min_item
                       : count > kMaxZeroSizeItems - static_cast<int64_t>(n / per_item)) {
        return Bad(fmt::format("{} block claims {} items but only {} bytes are left", is_map ? "map" : "array", count,
                               end_ - p_));
      }
      size_t total = n + static_cast<size_t>(count) * per_item;
      if (out->items_.size() < total) {
        if (out->items_.capacity() < total) out->items_.reserve(std::max(total, out->items_.capacity() * 2));
        out->items_.resize(total);
      }
      for (int64_t i = 0; i < count; ++i) {
        if (is_map) {
          std::string_view key;
          Status s = ReadSized("map key", "a map key length", &key);
          if (!s.ok()) {
            PrependPath(fmt::format("[{}]", n / 2));
            return s;
          }
          AvroValue& k = out->items_[n++];
          k.type_ = AvroType::kString;
          k.branch_ = -1;
          k.bytes_.assign(key.data(), key.size());
          Status v = Decode(item, &out->items_[n++], depth + 1);
          if (!v.ok()) {
            PrependPath(fmt::format("[\"{}\"]", key));
            return v;
          }
        } else {
          Status s = Decode(item, &out->items_[n++], depth + 1);
          if (!s.ok()) {
            PrependPath(fmt::format("[{}]", n - 1));
            return s;
          }
        }
      }
    }
    out->items_.resize(n);
    return Status::OK();
  }

  void PrependPath(std::string_view segment) {
    if (path_.empty()) {
      path_ = std::string(segment);
    } else if (path_[0] == '[') {
      path_.insert(0, segment);
    } else {
      path_.insert(0, std::string(segment) + ".");
    }
  }

  Status ReadLong(int64_t* out, std::string_view what) {
    uint64_t result = 0;
    for (int i = 0; i < 10; ++i) {
      if (p_ == end_) return Truncated(what, 1);
      uint8_t b = static_cast<uint8_t>(*p_++);
      if (i == 9 && b > 1) return Bad(fmt::format("varint for {} overflows 64 bits", what));
      result |= static_cast<uint64_t>(b & 0x7f) << (7 * i);
      if ((b & 0x80) == 0) {
        *out = static_cast<int64_t>((result >> 1) ^ (~(result & 1) + 1));
        return Status::OK();
      }
    }
    return Bad(fmt::format("varint for {} is longer than 10 bytes", what));
  }

  Status ReadInt(int32_t* out, std::string_view what) {
    uint32_t result = 0;
    for (int i = 0; i < 5; ++i) {
      if (p_ == end_) return Truncated(what, 1);
      uint8_t b = static_cast<uint8_t>(*p_++);
      if (i == 4 && b > 0x0f) return Bad(fmt::format("varint for {} overflows 32 bits", what));
      result |= static_cast<uint32_t>(b & 0x7f) << (7 * i);
      if ((b & 0x80) == 0) {
        *out = static_cast<int32_t>((result >> 1) ^ (~(result & 1) + 1));
        return Status::OK();
      }
    }
    return Bad(fmt::format("varint for {} is longer than 5 bytes", what));
  }

  // `what` names the value ("string"); `length_what` its length ("a string length"). Both are
  // literals, so nothing is formatted unless there is an error.
  Status ReadSized(std::string_view what, std::string_view length_what, std::string_view* out) {
    int64_t n;
    TIDE_RETURN_IF_ERROR(ReadLong(&n, length_what));
    if (n < 0) return Bad(fmt::format("{} length {} is negative", what, n));
    if (n > end_ - p_) return Bad(fmt::format("{} length {} runs past the end of the block ({} bytes left)", what, n, end_ - p_));
    *out = std::string_view(p_, static_cast<size_t>(n));
    p_ += n;
    return Status::OK();
  }

  Status Truncated(std::string_view what, int64_t needed) {
    return Status::Corruption("truncated: {} needs {} bytes at block offset {}, {} left", what, needed, p_ - begin_,
                              end_ - p_);
  }
  Status Bad(std::string_view message) {
    return Status::Corruption("{} (at block offset {})", message, p_ - begin_);
  }

  const AvroSchema& schema_;
  const char* begin_;
  const char* p_;
  const char* end_;
  std::string path_;
};

namespace {

// A cursor over the container's framing (header and block headers), outside any block.
class FrameReader {
 public:
  FrameReader(std::string_view data, size_t pos) : data_(data), pos_(pos) {}

  Status ReadLong(int64_t* out, std::string_view what) {
    uint64_t result = 0;
    for (int i = 0; i < 10; ++i) {
      if (pos_ >= data_.size()) return Status::Corruption("truncated: file ends inside {} at offset {}", what, pos_);
      uint8_t b = static_cast<uint8_t>(data_[pos_++]);
      if (i == 9 && b > 1) return Status::Corruption("varint for {} at offset {} overflows 64 bits", what, pos_);
      result |= static_cast<uint64_t>(b & 0x7f) << (7 * i);
      if ((b & 0x80) == 0) {
        *out = static_cast<int64_t>((result >> 1) ^ (~(result & 1) + 1));
        return Status::OK();
      }
    }
    return Status::Corruption("varint for {} at offset {} is longer than 10 bytes", what, pos_);
  }

  Status ReadBytes(int64_t n, std::string_view what, std::string_view* out) {
    if (n < 0) return Status::Corruption("{} at offset {} has negative length {}", what, pos_, n);
    if (static_cast<uint64_t>(n) > data_.size() - pos_) {
      return Status::Corruption("truncated: {} at offset {} needs {} bytes, only {} left", what, pos_, n,
                                data_.size() - pos_);
    }
    *out = data_.substr(pos_, static_cast<size_t>(n));
    pos_ += static_cast<size_t>(n);
    return Status::OK();
  }

  Status ReadSized(std::string_view what, std::string_view* out) {
    int64_t n;
    TIDE_RETURN_IF_ERROR(ReadLong(&n, what));
    return ReadBytes(n, what, out);
  }

  size_t pos() const { return pos_; }

 private:
  std::string_view data_;
  size_t pos_;
};

}  // namespace

Result<std::unique_ptr<AvroReader>> AvroReader::Open(std::string data, std::string name) {
  std::unique_ptr<AvroReader> reader(new AvroReader(std::move(data), std::move(name)));
  Status s = reader->ReadHeader();
  if (!s.ok()) {
    if (s.IsCorruption() || s.IsNotSupported()) return s.WithContext(reader->name_);
    return s;
  }
  return reader;
}

Status AvroReader::ReadHeader() {
  if (data_.size() < 4 || std::memcmp(data_.data(), kMagic, 4) != 0) {
    return Status::Corruption("not an Avro container file: the first bytes are {}, expected 4f626a01 (\"Obj\\x01\")",
                              HexEncode(std::string_view(data_).substr(0, 4)));
  }
  FrameReader frame(data_, 4);
  while (true) {
    int64_t count;
    TIDE_RETURN_IF_ERROR(frame.ReadLong(&count, "the header metadata count"));
    if (count == 0) break;
    if (count < 0) {
      if (count == INT64_MIN) return Status::Corruption("header metadata count overflows");
      count = -count;
      int64_t ignored_size;
      TIDE_RETURN_IF_ERROR(frame.ReadLong(&ignored_size, "the header metadata block size"));
    }
    // Each entry takes at least two bytes (two lengths), so a larger count is corrupt.
    if (static_cast<uint64_t>(count) > (data_.size() - frame.pos()) / 2) {
      return Status::Corruption("header claims {} metadata entries in {} bytes", count, data_.size() - frame.pos());
    }
    for (int64_t i = 0; i < count; ++i) {
      std::string_view key;
      std::string_view value;
      TIDE_RETURN_IF_ERROR(frame.ReadSized("a header metadata key", &key));
      TIDE_RETURN_IF_ERROR(frame.ReadSized(fmt::format("header metadata value \"{}\"", key), &value));
      metadata_.emplace_back(std::string(key), std::string(value));
    }
  }
  std::string_view sync;
  TIDE_RETURN_IF_ERROR(frame.ReadBytes(16, "the header sync marker", &sync));
  std::memcpy(sync_.data(), sync.data(), 16);
  pos_ = frame.pos();

  const std::string* schema_json = FindMetadata("avro.schema");
  if (schema_json == nullptr) return Status::Corruption("header has no avro.schema entry");
  auto schema = AvroSchema::ParseCached(*schema_json);
  if (!schema.ok()) return Status::Corruption("header avro.schema is not a valid schema: {}", schema.status().message());
  schema_ = std::move(schema).value();
  const std::string* codec_name = FindMetadata("avro.codec");
  TIDE_ASSIGN_OR_RETURN(codec_, ParseAvroCodec(codec_name ? *codec_name : std::string()));
  return Status::OK();
}

const std::string* AvroReader::FindMetadata(std::string_view key) const {
  for (const auto& [k, v] : metadata_) {
    if (k == key) return &v;
  }
  return nullptr;
}

Status AvroReader::Fail(Status status) {
  failed_ = status;
  return status;
}

Status AvroReader::StartBlock() {
  block_offset_ = pos_;
  FrameReader frame(data_, pos_);
  int64_t count;
  int64_t size;
  TIDE_RETURN_IF_ERROR(frame.ReadLong(&count, "a block object count"));
  TIDE_RETURN_IF_ERROR(frame.ReadLong(&size, "a block byte size"));
  if (count < 0) return Status::Corruption("block object count {} is negative", count);
  if (size < 0) return Status::Corruption("block byte size {} is negative", size);
  std::string_view compressed;
  TIDE_RETURN_IF_ERROR(frame.ReadBytes(size, "the block data", &compressed));
  std::string_view sync;
  TIDE_RETURN_IF_ERROR(frame.ReadBytes(16, "the block sync marker", &sync));
  if (std::memcmp(sync.data(), sync_.data(), 16) != 0) {
    return Status::Corruption("sync marker after the block does not match the header's (found {}, expected {})",
                              HexEncode(sync), HexEncode(std::string_view(sync_.data(), 16)));
  }
  if (codec_ == AvroCodec::kNull) {
    block_begin_ = compressed.data();
    block_end_ = compressed.data() + compressed.size();
  } else {
    Status s = DecompressAvroBlock(codec_, compressed, kMaxBlockBytes, &block_buffer_);
    if (!s.ok()) return s;
    block_begin_ = block_buffer_.data();
    block_end_ = block_buffer_.data() + block_buffer_.size();
  }
  const int64_t block_bytes = block_end_ - block_begin_;
  const int64_t min_size = schema_.root().min_encoded_size();
  if (min_size > 0 ? count > block_bytes / min_size : count > kMaxZeroSizeItems) {
    return Status::Corruption("block claims {} objects but holds only {} bytes", count, block_bytes);
  }
  cursor_ = block_begin_;
  block_count_ = count;
  block_remaining_ = count;
  pos_ = frame.pos();
  ++block_index_;
  return Status::OK();
}

Result<bool> AvroReader::Next(AvroValue* out) {
  if (!failed_.ok()) return failed_;
  while (block_remaining_ == 0) {
    if (cursor_ != block_end_) {
      return Fail(Status::Corruption("{}: block {} at offset {} has {} bytes left after its {} objects", name_,
                                     block_index_, block_offset_, block_end_ - cursor_, block_count_));
    }
    if (pos_ >= data_.size()) return false;
    Status s = StartBlock();
    if (!s.ok()) {
      return Fail(s.WithContext(fmt::format("{}: block {} at offset {}", name_, block_index_ + 1, block_offset_)));
    }
  }
  AvroDatumDecoder decoder(schema_, block_begin_, cursor_, block_end_);
  Status s = decoder.Decode(schema_.root(), out, 0);
  if (!s.ok()) {
    std::string where = fmt::format("{}: block {} at offset {}, object {} of {}", name_, block_index_, block_offset_,
                                    block_count_ - block_remaining_ + 1, block_count_);
    if (!decoder.path().empty()) where += fmt::format(", field {}", decoder.path());
    return Fail(s.WithContext(where));
  }
  cursor_ = decoder.position();
  --block_remaining_;
  ++objects_read_;
  return true;
}

Result<std::vector<AvroValue>> AvroReader::ReadAll() {
  std::vector<AvroValue> values;
  while (true) {
    AvroValue value;
    TIDE_ASSIGN_OR_RETURN(bool more, Next(&value));
    if (!more) break;
    if (values.capacity() == values.size()) {
      values.reserve(std::max(values.size() * 2, values.size() + static_cast<size_t>(block_remaining_) + 1));
    }
    values.push_back(std::move(value));
  }
  return values;
}

Result<AvroValue> DecodeAvroDatum(const AvroSchema& schema, std::string_view data) {
  AvroDatumDecoder decoder(schema, data.data(), data.data(), data.data() + data.size());
  AvroValue value;
  Status s = decoder.Decode(schema.root(), &value, 0);
  if (!s.ok()) {
    if (!decoder.path().empty()) return s.WithContext(fmt::format("Avro datum, field {}", decoder.path()));
    return s.WithContext("Avro datum");
  }
  if (decoder.position() != data.data() + data.size()) {
    return Status::Corruption("Avro datum has {} bytes left over after decoding",
                              data.data() + data.size() - decoder.position());
  }
  return value;
}

}  // namespace tide
