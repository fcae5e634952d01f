// SqlQuote: PostgreSQL string literals and identifiers for statements Tide builds (replication
// commands, catalog queries, the fixes tide doctor prints), quoted without a connection at hand: a
// literal doubles its single quotes, an identifier its double quotes (standard_conforming_strings, on
// in every supported server, so a backslash is an ordinary character). PgConnection::QuoteLiteral and
// QuoteIdentifier use libpq's escaping where a connection exists. Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace tide {

std::string SqlQuoteLiteral(std::string_view text);     // it's -> 'it''s'
std::string SqlQuoteIdentifier(std::string_view name);  // a"b -> "a""b"

}  // namespace tide
