// Helpers for the SQL bridge's tests (not used by Tide itself): building schemas, opening a lake over a
// TestTableSource and running queries whose results come back as DuckDB's text.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "tide/sql/lake_connection.h"
#include "tide/sql/result_text.h"
#include "tide/sql/test_table_source.h"

namespace tide {

inline TableSchema MakeSchema(const std::vector<std::pair<std::string, DataType>>& columns) {
  TableSchema schema;
  int32_t id = 0;
  for (const auto& [name, type] : columns) {
    DataField field;
    field.id = id++;
    field.name = name;
    field.type = type;
    schema.fields.push_back(std::move(field));
  }
  schema.highest_field_id = id - 1;
  return schema;
}

// A lake over `source` and a renderer for its results.
struct TestLake {
  std::unique_ptr<LakeConnection> lake;
  std::unique_ptr<ResultRenderer> renderer;

  static TestLake Open(std::shared_ptr<const TableSource> source, LakeOpenOptions options = {}) {
    TestLake t;
    auto lake = LakeConnection::Open(std::move(source), std::move(options));
    EXPECT_TRUE(lake.ok()) << lake.status().ToString();
    if (!lake.ok()) return t;
    t.lake = std::move(lake).value();
    auto renderer = ResultRenderer::Create(&t.lake->connection());
    EXPECT_TRUE(renderer.ok()) << renderer.status().ToString();
    if (renderer.ok()) t.renderer = std::move(renderer).value();
    return t;
  }

  Result<TextResult> Query(const std::string& sql, CellStyle style = CellStyle::kText) {
    TIDE_ASSIGN_OR_RETURN(DuckResult result, lake->connection().Query(sql));
    return renderer->Render(result, style);
  }

  // The rows of `sql`, each as its cells joined by '|', NULL as "NULL"; or "ERROR: <message>".
  std::vector<std::string> Rows(const std::string& sql) {
    Result<TextResult> result = Query(sql);
    if (!result.ok()) return {"ERROR: " + result.status().message()};
    std::vector<std::string> rows;
    for (const auto& row : result->rows) {
      std::string line;
      for (size_t c = 0; c < row.size(); ++c) {
        if (c > 0) line += "|";
        line += row[c] ? *row[c] : "NULL";
      }
      rows.push_back(std::move(line));
    }
    return rows;
  }

  // The error of `sql`, or "" when it succeeds.
  std::string Error(const std::string& sql) {
    Result<TextResult> result = Query(sql);
    return result.ok() ? "" : result.status().message();
  }
};

}  // namespace tide
