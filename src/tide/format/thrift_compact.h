// ThriftCompactReader: a bounds-checked reader of the Thrift compact protocol, the encoding of Parquet's
// footer (FileMetaData) and page headers.
//
// It reads field headers, integers (zigzag varints), binaries, list headers, and skips any value it is not
// asked about, so callers decode only the fields they need. Every read checks the remaining input; lists
// and maps are capped (kMaxThriftElements) and nesting is limited, so damaged input yields Corruption
// naming `what`, never an out-of-bounds read, a huge allocation or deep recursion.
// Thread-safety: a reader belongs to one thread; it does not own the bytes it reads.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "tide/base/result.h"

namespace tide {

enum ThriftType : uint8_t {
  kThriftStop = 0,
  kThriftTrue = 1,
  kThriftFalse = 2,
  kThriftByte = 3,
  kThriftI16 = 4,
  kThriftI32 = 5,
  kThriftI64 = 6,
  kThriftDouble = 7,
  kThriftBinary = 8,
  kThriftList = 9,
  kThriftSet = 10,
  kThriftMap = 11,
  kThriftStruct = 12,
};

inline constexpr int64_t kMaxThriftElements = int64_t{1} << 24;

class ThriftCompactReader {
 public:
  ThriftCompactReader(std::string_view data, std::string what) : data_(data), what_(std::move(what)) {}

  size_t position() const { return pos_; }
  const std::string& what() const { return what_; }
  Status Error(std::string_view detail) const;

  Result<uint64_t> Varint();
  Result<int64_t> ZigZag();
  Result<uint8_t> Byte();
  Result<std::string_view> Binary();
  // An integer field of type byte, i16, i32 or i64.
  Result<int64_t> Int(uint8_t type);
  // A boolean field: its value is in the field header's type.
  Result<bool> Bool(uint8_t type);

  // Reads a field header; *type is kThriftStop at the end of a struct. `last_id` carries the previous
  // field id of the same struct (ids are delta-encoded).
  Status FieldHeader(int16_t* last_id, uint8_t* type, int16_t* id);
  Status ListHeader(uint8_t* element_type, int64_t* count);
  // Skips one value of `type`.
  Status Skip(uint8_t type, int depth = 0);

  // Calls on_field(type, id) for each field of the struct at the current position; the callback consumes
  // the value (or calls Skip).
  template <typename F>
  Status ReadStruct(F&& on_field, int depth = 0) {
    if (depth > kMaxDepth) return Error("nesting too deep");
    int16_t last = 0;
    while (true) {
      uint8_t type;
      int16_t id = 0;
      TIDE_RETURN_IF_ERROR(FieldHeader(&last, &type, &id));
      if (type == kThriftStop) return Status::OK();
      TIDE_RETURN_IF_ERROR(on_field(type, id));
    }
  }
  // Reads a list field of `type` whose elements must be `element_type`, calling on_element() for each.
  template <typename F>
  Status ReadList(uint8_t type, uint8_t element_type, F&& on_element) {
    if (type != kThriftList) return Error("expected a list");
    uint8_t elem;
    int64_t n;
    TIDE_RETURN_IF_ERROR(ListHeader(&elem, &n));
    if (n > 0 && elem != element_type) return Error("list of an unexpected element type");
    for (int64_t i = 0; i < n; ++i) TIDE_RETURN_IF_ERROR(on_element());
    return Status::OK();
  }

 private:
  static constexpr int kMaxDepth = 32;
  std::string_view data_;
  std::string what_;
  size_t pos_ = 0;
};

}  // namespace tide
