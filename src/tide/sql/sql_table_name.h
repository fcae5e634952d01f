// The table names that paimon_scan and the system table functions take: `database.table`.
//
// Either part may be written as a double-quoted SQL identifier, with "" for a quote inside, when it holds
// a dot, a double quote or spaces at its ends: 'shop.orders', '"my.db"."t"', 'db."say ""hi"""'. Names are
// case-sensitive (they are folder names in the warehouse). Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "tide/base/result.h"
#include "tide/catalog/catalog.h"

namespace tide {

// Parses `text`; InvalidArgument with the expected form for anything else.
Result<TableIdentifier> ParseSqlTableName(std::string_view text);

// The text ParseSqlTableName reads back as `id`: plain `db.t` when that is unambiguous, otherwise with
// the part(s) that need it quoted.
std::string FormatSqlTableName(const TableIdentifier& id);

}  // namespace tide
