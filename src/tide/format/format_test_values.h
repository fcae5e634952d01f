// Test helpers of the format module's tests: a DuckDB database, fields, and Datums parsed from text
// (timestamps, decimals, dates) with a test failure naming the text when it does not parse.
// Header-only. Thread-safety: one test at a time.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tide/format/duckdb_handle.h"
#include "tide/types/data_type.h"
#include "tide/types/datum.h"

namespace tide::testing {

inline DuckDB OpenTestDb() {
  auto db = DuckDB::Open(":memory:", {{"threads", "2"}});
  EXPECT_TRUE(db.ok()) << db.status().ToString();
  return std::move(db).value();
}

inline DataField TestField(int32_t id, std::string name, DataType type) {
  DataField field;
  field.id = id;
  field.name = std::move(name);
  field.type = std::move(type);
  return field;
}

inline TimestampValue Ts(const char* text) {
  auto ts = ParseTimestamp(text);
  EXPECT_TRUE(ts.ok()) << text << ": " << ts.status().ToString();
  return ts.ValueOr(TimestampValue{});
}

inline Datum Dec(const char* text, int precision, int scale) {
  auto v = ParseDecimal(text, precision, scale);
  EXPECT_TRUE(v.ok()) << text;
  return Datum(DecimalValue{v.ValueOr(0)});
}

inline Datum Days(const char* text) {
  auto d = ParseDate(text);
  EXPECT_TRUE(d.ok()) << text;
  return Datum(d.ValueOr(0));
}

inline Datum N(std::vector<Datum> items) { return Datum::Nested(std::move(items)); }

}  // namespace tide::testing
