// Rendering results as DuckDB's text and JSON values, and the table, CSV and JSON Lines formats.
#include "tide/sql/result_format.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "tide/sql/sql_test_util.h"

namespace tide {
namespace {

using ::testing::ElementsAre;

std::string Format(const TextResult& result, OutputFormat format) {
  std::ostringstream out;
  WriteResult(result, format, out);
  return out.str();
}

class ResultFormatTest : public ::testing::Test {
 protected:
  void SetUp() override {
    lake_ = TestLake::Open(std::make_shared<TestTableSource>());
    ASSERT_TRUE(lake_.lake->connection().Execute("SET TimeZone = 'UTC'").ok());
  }
  TextResult Query(const std::string& sql, OutputFormat format) {
    auto result = lake_.Query(sql, CellStyleFor(format));
    EXPECT_TRUE(result.ok()) << result.status().ToString();
    return result.ok() ? std::move(result).value() : TextResult{};
  }
  TestLake lake_;
};

TEST_F(ResultFormatTest, CsvQuotesWhatNeedsItAndTellsNullFromEmpty) {
  TextResult r = Query("SELECT * FROM (VALUES (1, 'plain', 12.30::DECIMAL(10,2)), (2, 'a,b', NULL), "
                       "(3, 'say \"hi\"', -0.5), (4, '', 1), (5, 'two' || chr(10) || 'lines', 0), (6, ' pad', 2)) "
                       "AS t(\"id\", \"the,name\", amount) ORDER BY id",
                       OutputFormat::kCsv);
  EXPECT_EQ(Format(r, OutputFormat::kCsv),
            "id,\"the,name\",amount\n"
            "1,plain,12.30\n"
            "2,\"a,b\",\n"
            "3,\"say \"\"hi\"\"\",-0.50\n"
            "4,\"\",1.00\n"
            "5,\"two\nlines\",0.00\n"
            "6,\" pad\",2.00\n");
}

TEST_F(ResultFormatTest, CsvRendersValuesAsDuckDBDoes) {
  TextResult r = Query("SELECT DATE '2024-02-29' AS d, TIMESTAMP '2024-02-29 01:02:03.456' AS ts, "
                       "TIMESTAMPTZ '2024-02-29 01:02:03+00' AS tz, [1, NULL] AS l, {'a': 'x'} AS s, "
                       "MAP {'k': 1.5} AS m, '\\x00\\xff'::BLOB AS b, true AS flag, 11.0::DOUBLE AS dbl",
                       OutputFormat::kCsv);
  EXPECT_EQ(Format(r, OutputFormat::kCsv),
            "d,ts,tz,l,s,m,b,flag,dbl\n"
            "2024-02-29,2024-02-29 01:02:03.456,2024-02-29 01:02:03+00,\"[1, NULL]\",{'a': x},{k=1.5},\\x00\\xFF,"
            "true,11.0\n");
}

TEST_F(ResultFormatTest, JsonLinesKeepsNumbersExactAndDecimalsAsStrings) {
  TextResult r = Query("SELECT 9007199254740993::BIGINT AS big, 170141183460469231731687303715884105727::HUGEINT AS huge, "
                       "12.30::DECIMAL(10,2) AS dec, 1.5::DOUBLE AS dbl, 'nan'::DOUBLE AS nan, true AS flag, "
                       "NULL::INTEGER AS nothing, 'tab\there \"q\" \\' AS text, DATE '2024-01-02' AS day, "
                       "[1, 2] AS list, {'a': 'x', 'b': [true]} AS obj, MAP {'k': 1} AS map, "
                       "'{\"raw\": 1}'::JSON AS js",
                       OutputFormat::kJson);
  EXPECT_EQ(Format(r, OutputFormat::kJson),
            "{\"big\":9007199254740993,\"huge\":170141183460469231731687303715884105727,\"dec\":\"12.30\","
            "\"dbl\":1.5,\"nan\":\"nan\",\"flag\":true,\"nothing\":null,\"text\":\"tab\\there \\\"q\\\" \\\\\","
            "\"day\":\"2024-01-02\",\"list\":[1,2],\"obj\":{\"a\":\"x\",\"b\":[true]},\"map\":{\"k\":1},"
            "\"js\":{\"raw\": 1}}\n");
}

TEST_F(ResultFormatTest, TableAlignsColumnsAndShowsTypes) {
  TextResult r = Query("SELECT * FROM (VALUES (1, 'Alice', 12.5::DOUBLE), (20, NULL, 3.25), (3, 'h\u00e9', NULL)) "
                       "AS t(id, name, score)",
                       OutputFormat::kTable);
  EXPECT_EQ(Format(r, OutputFormat::kTable),
            "┌─────────┬─────────┬────────┐\n"
            "│   id    │  name   │ score  │\n"
            "│ integer │ varchar │ double │\n"
            "├─────────┼─────────┼────────┤\n"
            "│       1 │ Alice   │   12.5 │\n"
            "│      20 │ NULL    │   3.25 │\n"
            "│       3 │ hé      │   NULL │\n"
            "└─────────┴─────────┴────────┘\n");
}

TEST_F(ResultFormatTest, EmptyResultsKeepTheirHeader) {
  TextResult r = Query("SELECT 1 AS a WHERE false", OutputFormat::kCsv);
  EXPECT_EQ(Format(r, OutputFormat::kCsv), "a\n");
  EXPECT_EQ(Format(r, OutputFormat::kJson), "");
}

TEST_F(ResultFormatTest, RendersLargeResultsInBatches) {
  auto result = lake_.lake->connection().Query("SELECT range AS n, 'v' || range AS s FROM range(5000)");
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  std::vector<size_t> sizes;
  std::string csv;
  std::ostringstream out;
  Status st = lake_.renderer->RenderBatches(*result, CellStyle::kText, [&](const TextResult& batch) {
    EXPECT_EQ(batch.columns.size(), 2u);
    sizes.push_back(batch.rows.size());
    WriteCsv(batch, out, /*header=*/sizes.size() == 1);
    return Status::OK();
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_GT(sizes.size(), 1u);
  size_t total = 0;
  for (size_t n : sizes) {
    EXPECT_LE(n, 2048u);
    total += n;
  }
  EXPECT_EQ(total, 5000u);
  std::string text = out.str();
  EXPECT_EQ(text.substr(0, 13), "n,s\n0,v0\n1,v1");
  EXPECT_EQ(text.substr(text.size() - 11), "4999,v4999\n");

  // An empty result still gives its columns once; a statement without columns gives nothing.
  auto empty = lake_.lake->connection().Query("SELECT 1 AS a WHERE false");
  ASSERT_TRUE(empty.ok());
  int calls = 0;
  ASSERT_TRUE(lake_.renderer->RenderBatches(*empty, CellStyle::kText, [&](const TextResult& batch) {
    ++calls;
    EXPECT_EQ(batch.columns.size(), 1u);
    EXPECT_TRUE(batch.rows.empty());
    return Status::OK();
  }).ok());
  EXPECT_EQ(calls, 1);
  auto created = lake_.lake->connection().Query("CREATE TABLE t (a INTEGER)");
  ASSERT_TRUE(created.ok());
  calls = 0;
  ASSERT_TRUE(lake_.renderer->RenderBatches(*created, CellStyle::kText, [&](const TextResult&) {
    ++calls;
    return Status::OK();
  }).ok());
  EXPECT_EQ(calls, 0);
}

TEST(OutputFormatTest, ParsesTheThreeNames) {
  EXPECT_EQ(ParseOutputFormat("table").value(), OutputFormat::kTable);
  EXPECT_EQ(ParseOutputFormat("CSV").value(), OutputFormat::kCsv);
  EXPECT_EQ(ParseOutputFormat("json").value(), OutputFormat::kJson);
  EXPECT_FALSE(ParseOutputFormat("xml").ok());
}

TEST(DisplayWidthTest, CountsCharactersNotBytes) {
  EXPECT_EQ(DisplayWidth("abc"), 3u);
  EXPECT_EQ(DisplayWidth("h\xc3\xa9"), 2u);          // é
  EXPECT_EQ(DisplayWidth("\xe6\x97\xa5\xe6\x9c\xac"), 4u);  // 日本: wide
  EXPECT_EQ(DisplayWidth("e\xcc\x81"), 1u);           // e + combining acute
  EXPECT_EQ(DisplayWidth("\xff"), 1u);                // malformed byte
}

}  // namespace
}  // namespace tide
