#include "tide/postgres/lsn.h"

#include <fmt/format.h>

namespace tide {

std::string FormatLsn(Lsn lsn) {
  return fmt::format("{:X}/{:X}", static_cast<uint32_t>(lsn >> 32), static_cast<uint32_t>(lsn));
}

Result<Lsn> ParseLsn(std::string_view text) {
  size_t slash = text.find('/');
  auto bad = [&] {
    return Status::InvalidArgument("'{}' is not a PostgreSQL LSN: expected two hex numbers as X/Y", text);
  };
  if (slash == std::string_view::npos || slash == 0 || slash + 1 >= text.size()) return bad();
  auto parse_half = [](std::string_view half, uint64_t* out) {
    if (half.empty() || half.size() > 8) return false;
    uint64_t v = 0;
    for (char c : half) {
      int d;
      if (c >= '0' && c <= '9') d = c - '0';
      else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
      else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
      else return false;
      v = v * 16 + static_cast<uint64_t>(d);
    }
    *out = v;
    return true;
  };
  uint64_t hi = 0, lo = 0;
  if (!parse_half(text.substr(0, slash), &hi) || !parse_half(text.substr(slash + 1), &lo)) return bad();
  return static_cast<Lsn>((hi << 32) | lo);
}

}  // namespace tide
