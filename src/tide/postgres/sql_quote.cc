#include "tide/postgres/sql_quote.h"

namespace tide {
namespace {

std::string Quote(std::string_view text, char quote) {
  std::string out(1, quote);
  out.reserve(text.size() + 2);
  for (char c : text) {
    if (c == quote) out += quote;
    out += c;
  }
  out += quote;
  return out;
}

}  // namespace

std::string SqlQuoteLiteral(std::string_view text) { return Quote(text, '\''); }
std::string SqlQuoteIdentifier(std::string_view name) { return Quote(name, '"'); }

}  // namespace tide
