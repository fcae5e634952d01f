// Little- and big-endian loads and stores on raw byte buffers, and a bounds-checked reader.
//
// Stateless functions plus ByteReader, a cursor over a borrowed buffer that never reads past its end.
// Thread-safety: functions are pure; a ByteReader is used by one thread at a time.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>

#include "tide/base/result.h"

namespace tide {

// Reverses the bytes of an integer (std::byteswap is C++23).
template <typename T>
inline T ByteSwap(T v) {
  static_assert(std::is_integral_v<T>);
  if constexpr (sizeof(T) == 1) {
    return v;
  } else if constexpr (sizeof(T) == 2) {
    return static_cast<T>(__builtin_bswap16(static_cast<uint16_t>(v)));
  } else if constexpr (sizeof(T) == 4) {
    return static_cast<T>(__builtin_bswap32(static_cast<uint32_t>(v)));
  } else {
    static_assert(sizeof(T) == 8);
    return static_cast<T>(__builtin_bswap64(static_cast<uint64_t>(v)));
  }
}

template <typename T>
inline T LoadLE(const void* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  if constexpr (std::endian::native == std::endian::big) v = ByteSwap(v);
  return v;
}
template <typename T>
inline T LoadBE(const void* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  if constexpr (std::endian::native == std::endian::little) v = ByteSwap(v);
  return v;
}
template <typename T>
inline void StoreLE(void* p, T v) {
  if constexpr (std::endian::native == std::endian::big) v = ByteSwap(v);
  std::memcpy(p, &v, sizeof(T));
}
template <typename T>
inline void StoreBE(void* p, T v) {
  if constexpr (std::endian::native == std::endian::little) v = ByteSwap(v);
  std::memcpy(p, &v, sizeof(T));
}
template <typename T>
inline void AppendLE(std::string* out, T v) {
  char buf[sizeof(T)];
  StoreLE(buf, v);
  out->append(buf, sizeof(T));
}
template <typename T>
inline void AppendBE(std::string* out, T v) {
  char buf[sizeof(T)];
  StoreBE(buf, v);
  out->append(buf, sizeof(T));
}

// A forward cursor over bytes it does not own. Every read checks the remaining length and fails with
// Corruption naming `what` (a file or structure name given at construction) instead of reading past
// the end.
class ByteReader {
 public:
  ByteReader(std::string_view data, std::string what) : data_(data), what_(std::move(what)) {}

  size_t position() const { return pos_; }
  size_t remaining() const { return data_.size() - pos_; }
  bool AtEnd() const { return pos_ >= data_.size(); }
  const std::string& what() const { return what_; }

  template <typename T>
  Result<T> ReadBE() {
    TIDE_RETURN_IF_ERROR(Need(sizeof(T)));
    T v = LoadBE<T>(data_.data() + pos_);
    pos_ += sizeof(T);
    return v;
  }
  template <typename T>
  Result<T> ReadLE() {
    TIDE_RETURN_IF_ERROR(Need(sizeof(T)));
    T v = LoadLE<T>(data_.data() + pos_);
    pos_ += sizeof(T);
    return v;
  }
  Result<std::string_view> ReadBytes(size_t n) {
    TIDE_RETURN_IF_ERROR(Need(n));
    std::string_view v = data_.substr(pos_, n);
    pos_ += n;
    return v;
  }
  Status Skip(size_t n) {
    TIDE_RETURN_IF_ERROR(Need(n));
    pos_ += n;
    return Status::OK();
  }
  Status Need(size_t n) const {
    if (n > remaining()) {
      return Status::Corruption("{}: truncated: needs {} more bytes at offset {}, only {} left", what_, n,
                                pos_, remaining());
    }
    return Status::OK();
  }

 private:
  std::string_view data_;
  std::string what_;
  size_t pos_ = 0;
};

// Lower-case hex of `bytes`, for error messages and tests.
std::string HexEncode(std::string_view bytes);
// Parses hex (upper or lower case, optional spaces); fails on an odd count or a non-hex character.
Result<std::string> HexDecode(std::string_view hex);

}  // namespace tide
