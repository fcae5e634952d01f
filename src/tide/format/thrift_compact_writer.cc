#include "tide/format/thrift_compact_writer.h"

#include <cstring>

namespace tide {

void ThriftCompactWriter::Varint(uint64_t v) {
  while (v >= 0x80) {
    out_->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out_->push_back(static_cast<char>(v));
}

void ThriftCompactWriter::ZigZag(int64_t v) {
  Varint((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63));
}

void ThriftCompactWriter::Binary(std::string_view v) {
  Varint(v.size());
  out_->append(v.data(), v.size());
}

void ThriftCompactWriter::Double(double v) {
  // The compact protocol stores doubles as 8 bytes little-endian.
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  for (int i = 0; i < 8; ++i) out_->push_back(static_cast<char>((bits >> (8 * i)) & 0xff));
}

void ThriftCompactWriter::FieldHeader(uint8_t type, int16_t id) {
  const int delta = static_cast<int>(id) - static_cast<int>(last_id_);
  if (delta > 0 && delta <= 15) {
    Byte(static_cast<uint8_t>((delta << 4) | type));
  } else {
    Byte(type);
    ZigZag(id);
  }
  last_id_ = id;
}

void ThriftCompactWriter::ListHeader(uint8_t element_type, int64_t count) {
  if (count < 15) {
    Byte(static_cast<uint8_t>((count << 4) | element_type));
  } else {
    Byte(static_cast<uint8_t>(0xf0 | element_type));
    Varint(static_cast<uint64_t>(count));
  }
}

void ThriftCompactWriter::BeginStruct() {
  outer_ids_.push_back(last_id_);
  last_id_ = 0;
}

void ThriftCompactWriter::EndStruct() {
  Byte(kThriftStop);
  if (!outer_ids_.empty()) {
    last_id_ = outer_ids_.back();
    outer_ids_.pop_back();
  }
}

void ThriftCompactWriter::ByteField(int16_t id, int8_t v) {
  FieldHeader(kThriftByte, id);
  Byte(static_cast<uint8_t>(v));
}

void ThriftCompactWriter::I16Field(int16_t id, int16_t v) {
  FieldHeader(kThriftI16, id);
  ZigZag(v);
}

void ThriftCompactWriter::I32Field(int16_t id, int32_t v) {
  FieldHeader(kThriftI32, id);
  ZigZag(v);
}

void ThriftCompactWriter::I64Field(int16_t id, int64_t v) {
  FieldHeader(kThriftI64, id);
  ZigZag(v);
}

void ThriftCompactWriter::DoubleField(int16_t id, double v) {
  FieldHeader(kThriftDouble, id);
  Double(v);
}

void ThriftCompactWriter::BinaryField(int16_t id, std::string_view v) {
  FieldHeader(kThriftBinary, id);
  Binary(v);
}

void ThriftCompactWriter::BeginStructField(int16_t id) {
  FieldHeader(kThriftStruct, id);
  BeginStruct();
}

void ThriftCompactWriter::ListField(int16_t id, uint8_t element_type, int64_t count) {
  FieldHeader(kThriftList, id);
  ListHeader(element_type, count);
}

}  // namespace tide
