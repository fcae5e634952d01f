// Shared by the lake-table benchmarks (table_write_bench, table_scan_bench, compaction_soak_bench): the
// field report's `orders` table schema, a compact model of one order and its row, an order-independent
// row checksum, loading orders rows into a DuckDB table (the references' input), wall-clock timing, and
// exiting on a failed Status. Thread-safety: none needed
// (plain functions).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <functional>
#include <random>
#include <string_view>
#include <string>
#include <vector>

#include "tide/base/status.h"
#include "tide/format/duckdb_handle.h"
#include "tide/format/duckdb_vector_encoder.h"
#include "tide/types/datum.h"
#include "tide/types/table_schema.h"

namespace tide::bench {

inline const char* const kStatus[] = {"created", "paid", "shipped", "delivered", "cancelled"};

// One order as a benchmark's expected table holds it (compact, so the model is cheap to keep).
struct Order {
  bool live = false;
  int64_t user_id = 0;
  int64_t amount_cents = 0;
  uint8_t status = 0;
  int64_t create_time = 0;
  int64_t update_time = 0;
};

// The table row of order `id` (OrdersSchema's columns).
inline Row OrderRow(int64_t id, const Order& o) {
  return Row{Datum(id), Datum(o.user_id), Datum(DecimalValue{static_cast<int128_t>(o.amount_cents)}),
             Datum(kStatus[o.status]), Datum(TimestampValue{o.create_time, 0}), Datum(TimestampValue{o.update_time, 0})};
}

// `n` orders rows with ids 1..n in random key order (fixed seed), as table_write_bench and
// columnar_write_bench write them.
inline std::vector<Row> RandomOrderRows(int64_t n) {
  std::vector<int64_t> ids(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) ids[static_cast<size_t>(i)] = i + 1;
  std::mt19937_64 rng(42);
  std::shuffle(ids.begin(), ids.end(), rng);
  std::vector<Row> rows;
  rows.reserve(static_cast<size_t>(n));
  for (int64_t id : ids) {
    Order o;
    o.create_time = 1700000000000 + static_cast<int64_t>(rng() % 31536000000ULL);
    o.user_id = static_cast<int64_t>(rng() % 100000);
    o.amount_cents = static_cast<int64_t>(rng() % 10000000);
    o.status = static_cast<uint8_t>(rng() % 5);
    o.update_time = o.create_time + static_cast<int64_t>(rng() % 86400000);
    rows.push_back(OrderRow(id, o));
  }
  return rows;
}

inline uint64_t MixHash(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h;
}

// A checksum over every value of a row; summed over rows it is independent of their order.
inline uint64_t RowChecksum(const Row& row) {
  uint64_t h = 0;
  for (const Datum& d : row) {
    const auto& s = d.storage();
    if (const auto* i = std::get_if<int64_t>(&s)) {
      h = MixHash(h, static_cast<uint64_t>(*i));
    } else if (const auto* dec = std::get_if<DecimalValue>(&s)) {
      h = MixHash(h, static_cast<uint64_t>(dec->unscaled));
    } else if (const auto* ts = std::get_if<TimestampValue>(&s)) {
      h = MixHash(h, static_cast<uint64_t>(ts->millis) * 1000003u + static_cast<uint64_t>(ts->nanos_of_milli));
    } else if (const auto* str = std::get_if<std::string>(&s)) {
      h = MixHash(h, std::hash<std::string_view>()(*str));
    } else {
      h = MixHash(h, 0x5bd1e995u);  // NULL (the orders rows have none)
    }
  }
  return h;
}

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
