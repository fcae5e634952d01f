// paimon_scan over hand-built readers: every Paimon type with edge values and NULLs, batching, projection
// pushdown (what the reader is asked for), time travel parameters and errors.
#include "tide/sql/paimon_scan.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "tide/sql/sql_test_util.h"

namespace tide {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TimestampValue Ts(const char* text) { return ParseTimestamp(text).value(); }
Datum List(std::vector<Datum> items) { return Datum::Nested(std::move(items)); }
DataField Field(int32_t id, const char* name, DataType type) {
  DataField f;
  f.id = id;
  f.name = name;
  f.type = std::move(type);
  return f;
}
int128_t Pow10(int n) {
  int128_t v = 1;
  for (int i = 0; i < n; ++i) v *= 10;
  return v;
}

// One column per Paimon type; row 0 holds low edges, row 1 high edges, row 2 NULLs.
TestTable AllTypesTable() {
  DataType row_type = DataType::Row({Field(0, "a", DataType::Int()), Field(1, "b", DataType::String())});
  DataType nested_type = DataType::Array(DataType::Row(
      {Field(2, "k", DataType::String()), Field(3, "v", DataType::Array(DataType::Double()))}));
  TestTable t;
  t.schema = MakeSchema({
      {"c_bool", DataType::Boolean()},
      {"c_tinyint", DataType::TinyInt()},
      {"c_smallint", DataType::SmallInt()},
      {"c_int", DataType::Int()},
      {"c_bigint", DataType::BigInt()},
      {"c_float", DataType::Float()},
      {"c_double", DataType::Double()},
      {"c_dec4", DataType::Decimal(4, 2)},
      {"c_dec9", DataType::Decimal(9, 3)},
      {"c_dec18", DataType::Decimal(18, 4)},
      {"c_dec38", DataType::Decimal(38, 10)},
      {"c_char", DataType::Char(3)},
      {"c_string", DataType::String()},
      {"c_bytes", DataType::Bytes()},
      {"c_binary", DataType::Binary(2)},
      {"c_date", DataType::Date()},
      {"c_time", DataType::Time(3)},
      {"c_ts3", DataType::Timestamp(3)},
      {"c_ts6", DataType::Timestamp(6)},
      {"c_ts9", DataType::Timestamp(9)},
      {"c_ltz", DataType::TimestampLtz(3)},
      {"c_array", DataType::Array(DataType::Int())},
      {"c_multiset", DataType::Multiset(DataType::String())},
      {"c_map", DataType::Map(DataType::String(false), DataType::BigInt())},
      {"c_row", row_type},
      {"c_nested", nested_type},
  });
  t.rows.push_back(Row{
      Datum(false), Datum(int64_t{-128}), Datum(int64_t{-32768}), Datum(int64_t{std::numeric_limits<int32_t>::min()}),
      Datum(std::numeric_limits<int64_t>::min()), Datum(-1.5f), Datum(std::numeric_limits<double>::quiet_NaN()),
      Datum(DecimalValue{-9999}), Datum(DecimalValue{-999999999}), Datum(DecimalValue{-(Pow10(18) - 1)}),
      Datum(DecimalValue{-(Pow10(38) - 1)}), Datum("ab "), Datum(""), Datum(std::string("\x00\xff", 2)),
      Datum(std::string("\x01\x02", 2)), Datum(DaysFromCivil(1, 1, 1)), Datum(int64_t{0}),
      Datum(TimestampValue{-1, 0}), Datum(TimestampValue{-1, 999000}), Datum(Ts("1900-01-01 00:00:00.000000001")),
      Datum(TimestampValue{0, 0}), List({}), List({Datum("x"), Datum("x"), Datum("y")}), List({}),
      List({Datum(), Datum("")}), List({})});
  t.rows.push_back(Row{
      Datum(true), Datum(int64_t{127}), Datum(int64_t{32767}), Datum(int64_t{std::numeric_limits<int32_t>::max()}),
      Datum(std::numeric_limits<int64_t>::max()), Datum(0.25f), Datum(std::numeric_limits<double>::max()),
      Datum(DecimalValue{9999}), Datum(DecimalValue{1}), Datum(DecimalValue{123000}),
      Datum(DecimalValue{Pow10(38) - 1}), Datum("xyz"), Datum("h\xc3\xa9llo \xe2\x98\x83, \"q\""), Datum("abc"),
      Datum(""), Datum(DaysFromCivil(9999, 12, 31)), Datum(int64_t{86399999}), Datum(Ts("2024-02-29 12:34:56.789")),
      Datum(Ts("2024-02-29 12:34:56.789456")), Datum(Ts("2024-02-29 12:34:56.123456789")),
      Datum(Ts("2024-02-29 12:34:56.789")), List({Datum(int64_t{1}), Datum(), Datum(int64_t{3})}), Datum(),
      List({Datum("a"), Datum(int64_t{1}), Datum("b"), Datum()}), List({Datum(int64_t{7}), Datum("x")}),
      List({List({Datum("k1"), List({Datum(1.5), Datum()})}), Datum(), List({Datum(), Datum()})})});
  t.rows.push_back(Row(t.schema.fields.size()));  // all NULL
  return t;
}

class PaimonScanTest : public ::testing::Test {
 protected:
  void SetUp() override { source_ = std::make_shared<TestTableSource>(); }
  TestLake Open() { return TestLake::Open(source_); }

  std::shared_ptr<TestTableSource> source_;
};

TEST_F(PaimonScanTest, MapsEveryPaimonTypeToItsDuckDBType) {
  source_->Add("db", "types", AllTypesTable());
  TestLake lake = Open();
  auto result = lake.lake->connection().Query("SELECT * FROM paimon_scan('db.types')");
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  std::vector<std::string> types;
  for (idx_t c = 0; c < result->column_count(); ++c) {
    types.push_back(result->column_name(c) + " " + result->column_logical_type(c).ToString());
  }
  EXPECT_THAT(types, ElementsAre("c_bool BOOLEAN", "c_tinyint TINYINT", "c_smallint SMALLINT", "c_int INTEGER",
                                 "c_bigint BIGINT", "c_float FLOAT", "c_double DOUBLE", "c_dec4 DECIMAL(4,2)",
                                 "c_dec9 DECIMAL(9,3)", "c_dec18 DECIMAL(18,4)", "c_dec38 DECIMAL(38,10)",
                                 "c_char VARCHAR", "c_string VARCHAR", "c_bytes BLOB", "c_binary BLOB", "c_date DATE",
                                 "c_time TIME", "c_ts3 TIMESTAMP", "c_ts6 TIMESTAMP", "c_ts9 TIMESTAMP_NS",
                                 "c_ltz TIMESTAMP WITH TIME ZONE", "c_array INTEGER[]", "c_multiset VARCHAR[]",
                                 "c_map MAP(VARCHAR, BIGINT)", "c_row STRUCT(\"a\" INTEGER, \"b\" VARCHAR)",
                                 "c_nested STRUCT(\"k\" VARCHAR, \"v\" DOUBLE[])[]"));
}

TEST_F(PaimonScanTest, WritesEdgeValuesAndNullsOfEveryType) {
  source_->Add("db", "types", AllTypesTable());
  TestLake lake = Open();
  ASSERT_TRUE(lake.lake->connection().Execute("SET TimeZone = 'UTC'").ok());
  auto column = [&](const std::string& name) {
    return lake.Rows("SELECT " + name + " FROM paimon_scan('db.types')");
  };
  EXPECT_THAT(column("c_bool"), ElementsAre("false", "true", "NULL"));
  EXPECT_THAT(column("c_tinyint"), ElementsAre("-128", "127", "NULL"));
  EXPECT_THAT(column("c_smallint"), ElementsAre("-32768", "32767", "NULL"));
  EXPECT_THAT(column("c_int"), ElementsAre("-2147483648", "2147483647", "NULL"));
  EXPECT_THAT(column("c_bigint"), ElementsAre("-9223372036854775808", "9223372036854775807", "NULL"));
  EXPECT_THAT(column("c_float"), ElementsAre("-1.5", "0.25", "NULL"));
  EXPECT_THAT(column("c_double"), ElementsAre("nan", "1.7976931348623157e+308", "NULL"));
  EXPECT_THAT(column("c_dec4"), ElementsAre("-99.99", "99.99", "NULL"));
  EXPECT_THAT(column("c_dec9"), ElementsAre("-999999.999", "0.001", "NULL"));
  EXPECT_THAT(column("c_dec18"), ElementsAre("-99999999999999.9999", "12.3000", "NULL"));
  EXPECT_THAT(column("c_dec38"), ElementsAre("-9999999999999999999999999999.9999999999",
                                             "9999999999999999999999999999.9999999999", "NULL"));
  EXPECT_THAT(column("c_char"), ElementsAre("ab ", "xyz", "NULL"));
  EXPECT_THAT(column("c_string"), ElementsAre("", "h\xc3\xa9llo \xe2\x98\x83, \"q\"", "NULL"));
  EXPECT_THAT(column("c_bytes"), ElementsAre("\\x00\\xFF", "abc", "NULL"));
  EXPECT_THAT(column("octet_length(c_bytes)"), ElementsAre("2", "3", "NULL"));
  EXPECT_THAT(column("c_binary"), ElementsAre("\\x01\\x02", "", "NULL"));
  EXPECT_THAT(column("c_date"), ElementsAre("0001-01-01", "9999-12-31", "NULL"));
  EXPECT_THAT(column("c_time"), ElementsAre("00:00:00", "23:59:59.999", "NULL"));
  EXPECT_THAT(column("c_ts3"), ElementsAre("1969-12-31 23:59:59.999", "2024-02-29 12:34:56.789", "NULL"));
  EXPECT_THAT(column("c_ts6"), ElementsAre("1969-12-31 23:59:59.999999", "2024-02-29 12:34:56.789456", "NULL"));
  EXPECT_THAT(column("c_ts9"), ElementsAre("1900-01-01 00:00:00.000000001", "2024-02-29 12:34:56.123456789", "NULL"));
  EXPECT_THAT(column("c_ltz"), ElementsAre("1970-01-01 00:00:00+00", "2024-02-29 12:34:56.789+00", "NULL"));
  EXPECT_THAT(column("c_array"), ElementsAre("[]", "[1, NULL, 3]", "NULL"));
  EXPECT_THAT(column("c_multiset"), ElementsAre("[x, x, y]", "NULL", "NULL"));
  EXPECT_THAT(column("c_map"), ElementsAre("{}", "{a=1, b=NULL}", "NULL"));
  EXPECT_THAT(column("c_row"), ElementsAre("{'a': NULL, 'b': ''}", "{'a': 7, 'b': x}", "NULL"));
  EXPECT_THAT(column("c_nested"), ElementsAre("[]", "[{'k': k1, 'v': [1.5, NULL]}, NULL, {'k': NULL, 'v': NULL}]",
                                              "NULL"));
  // The values are the typed values, not only their text.
  EXPECT_THAT(lake.Rows("SELECT c_dec38 = 9999999999999999999999999999.9999999999::DECIMAL(38,10), "
                        "c_map['a'], c_row.a, c_nested[1].v[1], c_ts9 = TIMESTAMP_NS '2024-02-29 12:34:56.123456789' "
                        "FROM paimon_scan('db.types') WHERE c_bool"),
              ElementsAre("true|1|7|1.5|true"));
}

TEST_F(PaimonScanTest, FillsManyChunksFromSmallAndEmptyBatches) {
  TestTable t;
  t.schema = MakeSchema({{"id", DataType::BigInt()}, {"name", DataType::String()}});
  for (int64_t i = 0; i < 5000; ++i) {
    t.rows.push_back(Row{Datum(i), i % 7 == 0 ? Datum() : Datum("n" + std::to_string(i))});
  }
  t.batch_rows = 333;
  t.empty_batches = true;
  source_->Add("db", "big", std::move(t));
  TestLake lake = Open();
  EXPECT_THAT(lake.Rows("SELECT count(*), count(name), sum(id), min(id), max(id) FROM db.big"),
              ElementsAre("5000|4285|12497500|0|4999"));
  EXPECT_THAT(lake.Rows("SELECT name FROM db.big WHERE id IN (1, 4998, 4999) ORDER BY id"),
              ElementsAre("n1", "NULL", "n4999"));
}

TEST_F(PaimonScanTest, ReadsOnlyTheColumnsTheQueryUses) {
  TestTable t;
  t.schema = MakeSchema({{"a", DataType::Int()}, {"b", DataType::String()}, {"c", DataType::Double()},
                         {"d", DataType::Date()}});
  t.rows = {Row{Datum(int64_t{1}), Datum("x"), Datum(1.5), Datum(int64_t{0})},
            Row{Datum(int64_t{2}), Datum("y"), Datum(2.5), Datum(int64_t{1})}};
  source_->Add("db", "t", std::move(t));
  TestLake lake = Open();
  auto projection_of = [&](const std::string& sql) {
    size_t before = source_->reads().size();
    std::vector<std::string> rows = lake.Rows(sql);
    std::vector<ReadOptions> reads = source_->reads();
    EXPECT_EQ(reads.size(), before + 1) << sql;
    if (reads.size() != before + 1) return std::make_pair(rows, std::vector<int>{-1});
    EXPECT_FALSE(reads.back().all_columns);
    return std::make_pair(rows, reads.back().projection);
  };

  auto [rows1, projection1] = projection_of("SELECT c, a FROM paimon_scan('db.t') ORDER BY a");
  EXPECT_THAT(rows1, ElementsAre("1.5|1", "2.5|2"));
  std::sort(projection1.begin(), projection1.end());
  EXPECT_THAT(projection1, ElementsAre(0, 2));

  // A filter column is read too (DuckDB cannot push the filter down, so it filters the rows it gets).
  auto [rows2, projection2] = projection_of("SELECT b FROM db.t WHERE d > DATE '1970-01-01'");
  EXPECT_THAT(rows2, ElementsAre("y"));
  std::sort(projection2.begin(), projection2.end());
  EXPECT_THAT(projection2, ElementsAre(1, 3));

  // count(*) needs no column; DuckDB's C API still asks a table function for one (the first).
  auto [rows3, projection3] = projection_of("SELECT count(*) FROM db.t");
  EXPECT_THAT(rows3, ElementsAre("2"));
  EXPECT_LE(projection3.size(), 1u);

  auto [rows4, projection4] = projection_of("SELECT * FROM db.t ORDER BY a");
  EXPECT_THAT(rows4, ElementsAre("1|x|1.5|1970-01-01", "2|y|2.5|1970-01-02"));
  EXPECT_THAT(projection4, ElementsAre(0, 1, 2, 3));
}

TEST_F(PaimonScanTest, PassesTheSnapshotSelectorAndReadsThatSnapshotsSchema) {
  TestTable t;
  t.schema = MakeSchema({{"id", DataType::Int()}, {"name", DataType::String()}, {"added", DataType::Int()}});
  t.rows = {Row{Datum(int64_t{1}), Datum("now"), Datum(int64_t{9})}};
  TableSchema old_schema = MakeSchema({{"id", DataType::Int()}, {"name", DataType::String()}});
  t.snapshots[2] = {old_schema, {Row{Datum(int64_t{1}), Datum("then")}}};
  t.snapshots[3] = {t.schema, {Row{Datum(int64_t{1}), Datum("tagged"), Datum(int64_t{5})}}};
  t.tags["release"] = 3;
  source_->Add("db", "t", std::move(t));
  TestLake lake = Open();

  EXPECT_THAT(lake.Rows("SELECT * FROM paimon_scan('db.t', snapshot_id => 2)"), ElementsAre("1|then"));
  EXPECT_EQ(source_->reads().back().snapshot.snapshot_id, 2);
  EXPECT_THAT(lake.Rows("SELECT * FROM paimon_scan('db.t', tag => 'release')"), ElementsAre("1|tagged|5"));
  EXPECT_EQ(source_->reads().back().snapshot.tag, "release");
  EXPECT_THAT(lake.Rows("SELECT name FROM paimon_scan('db.t', timestamp_ms => 2500)"), ElementsAre("then"));
  EXPECT_EQ(source_->reads().back().snapshot.timestamp_ms, 2500);
  EXPECT_THAT(lake.Rows("SELECT name FROM paimon_scan('db.t')"), ElementsAre("now"));
  EXPECT_TRUE(source_->reads().back().snapshot.IsLatest());
  // A NULL selector means "not given".
  EXPECT_THAT(lake.Rows("SELECT name FROM paimon_scan('db.t', snapshot_id => NULL)"), ElementsAre("now"));
}

TEST_F(PaimonScanTest, ReportsTidesErrorsAsQueryErrors) {
  TestTable t;
  t.schema = MakeSchema({{"id", DataType::Int()}, {"s", DataType::String()}});
  for (int64_t i = 0; i < 10; ++i) t.rows.push_back(Row{Datum(i), Datum("v")});
  t.snapshots[1] = {t.schema, {}};
  source_->Add("db", "t", t);
  t.batch_rows = 2;
  t.fail_after_batches = 2;
  source_->Add("db", "failing", t);
  TestTable bad;
  bad.schema = MakeSchema({{"s", DataType::String()}});
  bad.rows = {Row{Datum(std::string("ok"))}, Row{Datum(std::string("\xff\xfe", 2))}};
  source_->Add("db", "bad_utf8", bad);
  TestTable mismatch;
  mismatch.schema = MakeSchema({{"n", DataType::Int()}});
  mismatch.rows = {Row{Datum("not a number")}};
  source_->Add("db", "mismatch", mismatch);
  TestTable wide;
  wide.schema = MakeSchema({{"n", DataType::SmallInt()}});
  wide.rows = {Row{Datum(int64_t{70000})}};
  source_->Add("db", "wide", wide);
  TestTable far;
  far.schema = MakeSchema({{"t", DataType::Timestamp(9)}});
  far.rows = {Row{Datum(Ts("2300-01-01 00:00:00"))}};
  source_->Add("db", "far", far);
  TestLake lake = Open();

  EXPECT_THAT(lake.Error("SELECT * FROM paimon_scan('db.nope')"),
              HasSubstr("table db.nope does not exist in the test warehouse"));
  EXPECT_THAT(lake.Error("SELECT * FROM paimon_scan('db.t', snapshot_id => 99)"),
              HasSubstr("table db.t has no snapshot 99"));
  EXPECT_THAT(lake.Error("SELECT * FROM paimon_scan('db.t', tag => 'gone')"), HasSubstr("table db.t has no tag 'gone'"));
  EXPECT_THAT(lake.Error("SELECT * FROM paimon_scan('db.t', snapshot_id => 1, tag => 'x')"),
              HasSubstr("give at most one of snapshot_id, timestamp_ms and tag"));
  EXPECT_THAT(lake.Error("SELECT * FROM paimon_scan('just_a_name')"), HasSubstr("<database>.<table>"));
  EXPECT_THAT(lake.Error("SELECT * FROM paimon_scan(NULL)"), HasSubstr("must not be NULL"));
  EXPECT_THAT(lake.Error("SELECT count(*) FROM db.failing"),
              HasSubstr("reading table db.failing: data file bucket-0/data-1.parquet: read failed (injected)"));
  EXPECT_THAT(lake.Error("SELECT * FROM db.bad_utf8"),
              HasSubstr("reading table db.bad_utf8: column s: a STRING value is not valid UTF-8"));
  EXPECT_THAT(lake.Error("SELECT * FROM db.mismatch"),
              HasSubstr("column n: the reader returned a string value for a column of type INT"));
  EXPECT_THAT(lake.Error("SELECT * FROM db.wide"), HasSubstr("column n: value 70000 does not fit SMALLINT"));
  EXPECT_THAT(lake.Error("SELECT * FROM db.far"), HasSubstr("TIMESTAMP_NS spans the years 1677..2262"));
  // The connection stays usable after errors.
  EXPECT_THAT(lake.Rows("SELECT count(*) FROM db.t"), ElementsAre("10"));
}

TEST_F(PaimonScanTest, TwoScansOfOneTableInAQueryHaveTheirOwnReaders) {
  TestTable t;
  t.schema = MakeSchema({{"id", DataType::Int()}});
  for (int64_t i = 0; i < 3000; ++i) t.rows.push_back(Row{Datum(i)});
  t.batch_rows = 100;
  source_->Add("db", "t", std::move(t));
  TestLake lake = Open();
  EXPECT_THAT(lake.Rows("SELECT count(*) FROM db.t a JOIN db.t b ON a.id = b.id + 1"), ElementsAre("2999"));
}

}  // namespace
}  // namespace tide
