#include "tide/table/source/table_reader.h"

#include "tide/format/duckdb_vector_writer.h"

namespace tide {

Result<size_t> TableReader::NextVectors(std::span<const duckdb_vector> vectors, size_t capacity) {
  if (vectors.size() != fields().size()) {
    return Status::InvalidArgument("NextVectors: {} vectors for {} columns", vectors.size(), fields().size());
  }
  rows_.clear();
  while (rows_.empty()) {
    TIDE_ASSIGN_OR_RETURN(bool more, NextBatch(capacity, &rows_));
    if (!more) return size_t{0};
  }
  if (rows_.size() > capacity) {
    return Status::Internal("the reader returned {} rows where at most {} were asked for", rows_.size(), capacity);
  }
  TIDE_RETURN_IF_ERROR(WriteRows(vectors, fields(), rows_));
  return rows_.size();
}

}  // namespace tide
