// Writes Tide values (Datum) into DuckDB vectors: the inner loop of paimon_scan.
//
// The vector's DuckDB type must be DuckTypeFor(type) (duckdb_type_mapping.h). Each type has its own loop
// over the rows; NULLs go to the validity mask; LIST and MAP fill their child vector, STRUCT its field
// vectors, recursively. A value whose representation does not match the column type (a reader bug or a
// corrupt file) or does not fit the DuckDB type (a DATE beyond int32 days, a TIMESTAMP_NS outside
// 1677..2262) gives Corruption naming the column; nothing is ever read or written out of bounds.
// Thread-safety: the vector belongs to the calling thread.
#pragma once

#include <duckdb.h>

#include <span>
#include <string_view>
#include <vector>

#include "tide/base/status.h"
#include "tide/types/data_type.h"
#include "tide/types/datum.h"

namespace tide {

// Writes rows[r][column_index] for r in [0, rows.size()) into positions offset.. of `vector`.
Status WriteRowsColumn(duckdb_vector vector, const DataType& type, std::span<const Row> rows, size_t column_index,
                       idx_t offset, std::string_view column);

// Writes rows[r][c] into position r of vectors[c] for every column c of `fields` (rows may hold more
// values than there are fields). InvalidArgument if the counts of vectors and fields differ.
Status WriteRows(std::span<const duckdb_vector> vectors, const std::vector<DataField>& fields,
                 std::span<const Row> rows);

// Writes *values[i] (NULL for a null pointer) into position offset + i of `vector`.
Status WriteValues(duckdb_vector vector, const DataType& type, std::span<const Datum* const> values, idx_t offset,
                   std::string_view column);

}  // namespace tide
