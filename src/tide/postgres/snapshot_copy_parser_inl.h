// Template bodies of BinaryCopyParser (snapshot_copy.h); included from there only.
// PostgreSQL's binary COPY format: "PGCOPY\n\377\r\n\0", Int32 flags, Int32 extension length + bytes;
// then per row Int16 field count (-1 = trailer) and per field Int32 length (-1 = NULL) + bytes.
#pragma once

#include <cstring>

#include "tide/base/bytes.h"

namespace tide {

inline constexpr char kPgCopySignature[11] = {'P', 'G', 'C', 'O', 'P', 'Y', '\n', '\377', '\r', '\n', '\0'};

template <typename OnRow>
Result<size_t> BinaryCopyParser::ParseOne(std::string_view data, OnRow&& on_row) {
  size_t pos = 0;
  if (!header_done_) {
    if (data.size() < 19) return size_t{0};
    if (std::memcmp(data.data(), kPgCopySignature, 11) != 0) {
      return Status::Corruption("{}: not binary COPY output (bad signature)", what_);
    }
    uint32_t flags = LoadBE<uint32_t>(data.data() + 11);
    // Bits 0-15 signal incompatible format changes; bit 16 means per-row OIDs (gone since PG 12).
    if ((flags & 0xFFFFu) != 0 || (flags & 0x10000u) != 0) {
      return Status::Corruption("{}: binary COPY header has flags {:#x} that Tide does not read", what_, flags);
    }
    uint32_t ext = LoadBE<uint32_t>(data.data() + 15);
    if (data.size() < 19 + static_cast<size_t>(ext)) return size_t{0};
    header_done_ = true;
    return 19 + static_cast<size_t>(ext);
  }
  if (data.size() < 2) return size_t{0};
  int16_t count = LoadBE<int16_t>(data.data());
  pos = 2;
  if (count == -1) {
    done_ = true;
    return pos;
  }
  if (static_cast<size_t>(count) != columns_) {
    return Status::Corruption("{}: binary COPY row has {} fields, expected {}", what_, count, columns_);
  }
  fields_.resize(columns_);
  for (size_t i = 0; i < columns_; ++i) {
    if (data.size() - pos < 4) return size_t{0};
    int32_t len = LoadBE<int32_t>(data.data() + pos);
    pos += 4;
    if (len == -1) {
      fields_[i].reset();
      continue;
    }
    if (len < 0) return Status::Corruption("{}: binary COPY field has negative length {}", what_, len);
    if (data.size() - pos < static_cast<size_t>(len)) return size_t{0};
    fields_[i] = data.substr(pos, static_cast<size_t>(len));
    pos += static_cast<size_t>(len);
  }
  TIDE_RETURN_IF_ERROR(on_row(fields_));
  return pos;
}

template <typename OnRow>
Status BinaryCopyParser::Feed(std::string_view chunk, OnRow&& on_row) {
  if (done_) {
    if (!chunk.empty()) return Status::Corruption("{}: data after the binary COPY trailer", what_);
    return Status::OK();
  }
  // Fast path: nothing pending, parse straight from the chunk (usually one whole row per CopyData).
  std::string_view data = chunk;
  if (!pending_.empty()) {
    pending_.append(chunk);
    data = pending_;
  }
  size_t consumed = 0;
  while (!done_ && consumed < data.size()) {
    TIDE_ASSIGN_OR_RETURN(size_t n, ParseOne(data.substr(consumed), on_row));
    if (n == 0) break;
    consumed += n;
  }
  if (done_ && consumed < data.size()) return Status::Corruption("{}: data after the binary COPY trailer", what_);
  if (!pending_.empty()) {
    pending_.erase(0, consumed);
  } else if (consumed < data.size()) {
    pending_.assign(data.substr(consumed));
  }
  return Status::OK();
}

inline Status BinaryCopyParser::Finish() const {
  if (!done_) return Status::Corruption("{}: binary COPY output ended without its trailer", what_);
  return Status::OK();
}

}  // namespace tide
