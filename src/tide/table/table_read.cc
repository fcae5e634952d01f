#include "tide/table/table_read.h"

#include "tide/format/duckdb_vector_writer.h"

namespace tide {

Result<size_t> TableReader::NextVectors(std::span<const duckdb_vector> vectors, size_t capacity) {
  const std::vector<DataField>& columns = fields();
  if (vectors.size() != columns.size()) {
    return Status::InvalidArgument("NextVectors: {} vectors for {} columns", vectors.size(), columns.size());
  }
  rows_.clear();
  while (rows_.empty()) {
    TIDE_ASSIGN_OR_RETURN(bool more, NextBatch(capacity, &rows_));
    if (!more) return size_t{0};
  }
  if (rows_.size() > capacity) {
    return Status::Internal("the reader returned {} rows where at most {} were asked for", rows_.size(), capacity);
  }
  for (size_t c = 0; c < columns.size(); ++c) {
    TIDE_RETURN_IF_ERROR(WriteRowsColumn(vectors[c], columns[c].type, rows_, c, 0, columns[c].name));
  }
  return rows_.size();
}

}  // namespace tide
