// ReadByVectors: reads a TableReader to the end through NextVectors, the path SQL reads tables by
// (columnar where a split allows it), and decodes the vectors back into Rows, so tests can compare it
// with the row path and with expected rows. Header-only. Thread-safety: one test at a time.
#pragma once

#include <duckdb.h>

#include <memory>
#include <vector>

#include "tide/base/result.h"
#include "tide/format/duckdb_handle.h"
#include "tide/format/duckdb_type_mapping.h"
#include "tide/format/duckdb_vector_decoder.h"
#include "tide/table/source/table_reader.h"

namespace tide::testing {

// Reads every row of `reader` by `workers` readers sharing its splits (TableReader::NewWorker; the
// reader itself when `workers` is 0 or it cannot share), taking turns. The vectors a reader fills may be
// slices of its data; they are copied flat, as DuckDB's operators read them, then decoded. `stats`, if
// given, receives the sum of the readers' stats.
inline Result<std::vector<Row>> ReadByVectors(std::unique_ptr<TableReader> reader, int workers = 1,
                                              TableReadStats* stats = nullptr) {
  std::vector<std::unique_ptr<TableReader>> readers;
  for (int w = 0; w < workers; ++w) {
    TIDE_ASSIGN_OR_RETURN(auto worker, reader->NewWorker());
    if (!worker) break;
    readers.push_back(std::move(worker));
  }
  if (readers.empty()) readers.push_back(std::move(reader));
  const std::vector<DataField> fields = readers[0]->fields();
  std::vector<DuckLogicalType> types;
  std::vector<duckdb_logical_type> raw;
  std::vector<std::unique_ptr<VectorDecoder>> decoders;
  for (const DataField& field : fields) {
    TIDE_ASSIGN_OR_RETURN(DuckLogicalType type, DuckTypeFor(field.type, field.name));
    TIDE_ASSIGN_OR_RETURN(auto decoder, VectorDecoder::Create(type.raw(), field.type, nullptr, field.name));
    raw.push_back(type.raw());
    types.push_back(std::move(type));
    decoders.push_back(std::move(decoder));
  }
  std::vector<Row> rows;
  std::vector<bool> done(readers.size(), false);
  size_t active = readers.size();
  const idx_t capacity = duckdb_vector_size();
  while (active > 0) {
    for (size_t w = 0; w < readers.size(); ++w) {
      if (done[w]) continue;
      DuckDataChunk out(duckdb_create_data_chunk(raw.data(), raw.size()));
      DuckDataChunk flat(duckdb_create_data_chunk(raw.data(), raw.size()));
      std::vector<duckdb_vector> vectors;
      for (size_t c = 0; c < fields.size(); ++c) vectors.push_back(out.column(c));
      TIDE_ASSIGN_OR_RETURN(size_t got, readers[w]->NextVectors(vectors, capacity));
      if (got == 0) {
        done[w] = true;
        --active;
        continue;
      }
      duckdb_selection_vector sel = duckdb_create_selection_vector(got);
      sel_t* ids = duckdb_selection_vector_get_data_ptr(sel);
      for (size_t r = 0; r < got; ++r) ids[r] = static_cast<sel_t>(r);
      for (size_t c = 0; c < fields.size(); ++c) {
        duckdb_vector_copy_sel(out.column(c), flat.column(c), sel, got, 0, 0);
        decoders[c]->Bind(flat.column(c));
      }
      duckdb_destroy_selection_vector(sel);
      for (size_t r = 0; r < got; ++r) {
        Row& row = rows.emplace_back();
        for (size_t c = 0; c < fields.size(); ++c) row.push_back(decoders[c]->Get(r));
      }
    }
  }
  if (stats != nullptr) {
    *stats = TableReadStats{};
    for (const auto& r : readers) {
      stats->columnar_splits += r->stats().columnar_splits;
      stats->row_splits += r->stats().row_splits;
    }
  }
  return rows;
}

}  // namespace tide::testing
