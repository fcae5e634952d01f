// Shared by the lake-table benchmarks (table_write_bench, table_scan_bench): the field report's
// `orders` table schema, loading orders rows into a DuckDB table (the references' input), wall-clock
// timing, and exiting on a failed Status. Thread-safety: none needed
// (plain functions).
#pragma once

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "tide/base/status.h"
#include "tide/format/duckdb_handle.h"
#include "tide/format/duckdb_vector_encoder.h"
#include "tide/types/table_schema.h"

namespace tide::bench {

inline double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

inline void Check(const Status& st, const char* what) {
  if (!st.ok()) {
    std::fprintf(stderr, "%s: %s\n", what, st.ToString().c_str());
    std::exit(1);
  }
}

// order_id BIGINT primary key, user_id BIGINT, amount DECIMAL(10,2), status STRING, create_time and
// update_time TIMESTAMP(3); `bucket` fixed buckets.
inline TableSchema OrdersSchema(int bucket) {
  TableSchema s;
  s.id = 0;
  s.fields = {{0, "order_id", DataType::BigInt(false), {}, {}},  {1, "user_id", DataType::BigInt(), {}, {}},
              {2, "amount", DataType::Decimal(10, 2), {}, {}},   {3, "status", DataType::String(), {}, {}},
              {4, "create_time", DataType::Timestamp(3), {}, {}}, {5, "update_time", DataType::Timestamp(3), {}, {}}};
  s.highest_field_id = 5;
  s.primary_keys = {"order_id"};
  s.SetOption("bucket", std::to_string(bucket));
  s.time_millis = 1700000000000;
  return s;
}

// Creates the DuckDB table `orders` (TIMESTAMP_MS timestamps, as Tide stores TIMESTAMP(3)) and appends
// the rows `next` yields, in order, until it returns false.
inline void LoadOrdersTable(DuckConnection& conn, const TableSchema& schema, const std::function<bool(Row*)>& next) {
  Check(conn.Execute("CREATE TABLE orders (order_id BIGINT, user_id BIGINT, amount DECIMAL(10,2), status VARCHAR, "
                     "create_time TIMESTAMP_MS, update_time TIMESTAMP_MS)"),
        "create DuckDB table");
  auto appender = conn.CreateAppender("orders");
  Check(appender.status(), "appender");
  std::vector<DuckLogicalType> types;
  std::vector<duckdb_logical_type> raw;
  for (const auto& f : schema.fields) {
    auto t = ParquetStorageType(f.type, f.name);
    Check(t.status(), "type");
    types.push_back(std::move(t).value());
    raw.push_back(types.back().raw());
  }
  const idx_t vector_size = duckdb_vector_size();
  Row row;
  bool more = next(&row);
  while (more) {
    DuckDataChunk chunk(duckdb_create_data_chunk(raw.data(), raw.size()));
    idx_t r = 0;
    for (; r < vector_size && more; ++r, more = next(&row)) {
      for (size_t c = 0; c < schema.fields.size(); ++c) {
        Check(EncodeDatum(chunk.column(c), r, row[c], schema.fields[c].type, schema.fields[c].name), "encode");
      }
    }
    duckdb_data_chunk_set_size(chunk.raw(), r);
    Check(appender->AppendChunk(chunk), "append");
  }
  Check(appender->Close(), "appender close");
}

}  // namespace tide::bench
