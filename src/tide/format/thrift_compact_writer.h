// ThriftCompactWriter: an encoder of the Thrift compact protocol, the encoding of Parquet's footer
// (FileMetaData) and page headers; the counterpart of ThriftCompactReader (thrift_compact.h).
//
// It appends to a caller's string: field headers with delta-encoded ids (a full zigzag id when the delta
// does not fit in four bits or is not positive), zigzag varints for i16/i32/i64, length-prefixed binaries,
// list headers, nested structs (each BeginStruct pushes the last field id of the enclosing struct, each
// EndStruct writes the stop byte and restores it) and booleans (in a field header's type, or one byte in
// a list). Writing cannot fail; the caller is responsible for giving fields in increasing id order, as
// Thrift's own writers do.
// Thread-safety: a writer belongs to one thread; it does not own the string it appends to.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tide/format/thrift_compact.h"

namespace tide {

class ThriftCompactWriter {
 public:
  explicit ThriftCompactWriter(std::string* out) : out_(out) {}

  // Raw values (list elements, or the payload after FieldHeader).
  void Varint(uint64_t v);
  void ZigZag(int64_t v);
  void Byte(uint8_t v) { out_->push_back(static_cast<char>(v)); }
  void Binary(std::string_view v);
  void Double(double v);
  // A boolean list element: one byte, 1 for true and 2 for false (Thrift's compact encoding).
  void BoolElement(bool v) { Byte(v ? kThriftTrue : kThriftFalse); }

  // The header of field `id` of `type` in the current struct.
  void FieldHeader(uint8_t type, int16_t id);
  void ListHeader(uint8_t element_type, int64_t count);

  // Structs: the top level is a struct too (BeginStruct/EndStruct around a whole message).
  void BeginStruct();
  void EndStruct();

  // Whole fields.
  void BoolField(int16_t id, bool v) { FieldHeader(v ? kThriftTrue : kThriftFalse, id); }
  void ByteField(int16_t id, int8_t v);
  void I16Field(int16_t id, int16_t v);
  void I32Field(int16_t id, int32_t v);
  void I64Field(int16_t id, int64_t v);
  void DoubleField(int16_t id, double v);
  void BinaryField(int16_t id, std::string_view v);
  // Opens a struct-typed field; close it with EndStruct().
  void BeginStructField(int16_t id);
  // The header of a list-typed field; the caller then writes `count` elements.
  void ListField(int16_t id, uint8_t element_type, int64_t count);

 private:
  std::string* out_;
  int16_t last_id_ = 0;
  std::vector<int16_t> outer_ids_;
};

}  // namespace tide
