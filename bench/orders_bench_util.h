// Shared by the lake-table benchmarks (table_write_bench, table_scan_bench): the field report's
// `orders` table schema, wall-clock timing, and exiting on a failed Status. Thread-safety: none needed
// (plain functions).
#pragma once

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "tide/base/status.h"
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

}  // namespace tide::bench
