#include "tide/format/thrift_compact.h"

namespace tide {

Status ThriftCompactReader::Error(std::string_view detail) const {
  return Status::Corruption("{}: malformed Thrift data at offset {}: {}", what_, pos_, detail);
}

Result<uint64_t> ThriftCompactReader::Varint() {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (pos_ >= data_.size()) return Error("truncated varint");
    uint8_t b = static_cast<uint8_t>(data_[pos_++]);
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) return v;
  }
  return Error("varint longer than 10 bytes");
}

Result<int64_t> ThriftCompactReader::ZigZag() {
  TIDE_ASSIGN_OR_RETURN(uint64_t v, Varint());
  return static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1));
}

Result<uint8_t> ThriftCompactReader::Byte() {
  if (pos_ >= data_.size()) return Error("truncated");
  return static_cast<uint8_t>(data_[pos_++]);
}

Result<std::string_view> ThriftCompactReader::Binary() {
  TIDE_ASSIGN_OR_RETURN(uint64_t n, Varint());
  if (n > data_.size() - pos_) return Error("binary field longer than the data");
  std::string_view v = data_.substr(pos_, n);
  pos_ += n;
  return v;
}

Result<int64_t> ThriftCompactReader::Int(uint8_t type) {
  switch (type) {
    case kThriftByte: {
      TIDE_ASSIGN_OR_RETURN(uint8_t b, Byte());
      return static_cast<int8_t>(b);
    }
    case kThriftI16:
    case kThriftI32:
    case kThriftI64:
      return ZigZag();
    default:
      return Error("expected an integer field");
  }
}

Result<bool> ThriftCompactReader::Bool(uint8_t type) {
  if (type == kThriftTrue) return true;
  if (type == kThriftFalse) return false;
  return Error("expected a boolean field");
}

Status ThriftCompactReader::FieldHeader(int16_t* last_id, uint8_t* type, int16_t* id) {
  TIDE_ASSIGN_OR_RETURN(uint8_t b, Byte());
  *type = b & 0x0f;
  if (*type == kThriftStop) return Status::OK();
  uint8_t delta = b >> 4;
  if (delta != 0) {
    *id = static_cast<int16_t>(*last_id + delta);
  } else {
    TIDE_ASSIGN_OR_RETURN(int64_t v, ZigZag());
    *id = static_cast<int16_t>(v);
  }
  *last_id = *id;
  return Status::OK();
}

Status ThriftCompactReader::ListHeader(uint8_t* element_type, int64_t* count) {
  TIDE_ASSIGN_OR_RETURN(uint8_t b, Byte());
  *element_type = b & 0x0f;
  int64_t n = b >> 4;
  if (n == 15) {
    TIDE_ASSIGN_OR_RETURN(uint64_t v, Varint());
    if (v > static_cast<uint64_t>(kMaxThriftElements)) return Error("list too long");
    n = static_cast<int64_t>(v);
  }
  // Every element takes at least one byte: a longer list cannot fit in what is left.
  if (static_cast<uint64_t>(n) > data_.size() - pos_) return Error("list longer than the data");
  *count = n;
  return Status::OK();
}

Status ThriftCompactReader::Skip(uint8_t type, int depth) {
  if (depth > kMaxDepth) return Error("nesting too deep");
  switch (type) {
    case kThriftTrue:
    case kThriftFalse:
      return Status::OK();
    case kThriftByte:
      return Byte().status();
    case kThriftI16:
    case kThriftI32:
    case kThriftI64:
      return Varint().status();
    case kThriftDouble:
      if (data_.size() - pos_ < 8) return Error("truncated double");
      pos_ += 8;
      return Status::OK();
    case kThriftBinary:
      return Binary().status();
    case kThriftList:
    case kThriftSet: {
      uint8_t elem;
      int64_t n;
      TIDE_RETURN_IF_ERROR(ListHeader(&elem, &n));
      for (int64_t i = 0; i < n; ++i) {
        if (elem == kThriftTrue || elem == kThriftFalse) {
          TIDE_RETURN_IF_ERROR(Byte().status());  // booleans in lists take one byte each
        } else {
          TIDE_RETURN_IF_ERROR(Skip(elem, depth + 1));
        }
      }
      return Status::OK();
    }
    case kThriftMap: {
      TIDE_ASSIGN_OR_RETURN(uint64_t n, Varint());
      if (n == 0) return Status::OK();
      if (n > data_.size() - pos_) return Error("map larger than the data");
      TIDE_ASSIGN_OR_RETURN(uint8_t kv, Byte());
      for (uint64_t i = 0; i < n; ++i) {
        TIDE_RETURN_IF_ERROR(Skip(kv >> 4, depth + 1));
        TIDE_RETURN_IF_ERROR(Skip(kv & 0x0f, depth + 1));
      }
      return Status::OK();
    }
    case kThriftStruct:
      return ReadStruct([&](uint8_t t, int16_t) { return Skip(t, depth + 1); }, depth + 1);
    default:
      return Error("unknown field type " + std::to_string(type));
  }
}

}  // namespace tide
