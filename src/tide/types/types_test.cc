#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "testing/temp_dir.h"
#include "tide/io/file_system.h"
#include "tide/types/data_type.h"
#include "tide/types/datum.h"
#include "tide/types/table_schema.h"

namespace tide {
namespace {

TEST(DataTypeTest, StringFormRoundTripsEveryType) {
  const char* forms[] = {
      "BOOLEAN", "TINYINT", "SMALLINT", "INT NOT NULL", "BIGINT", "FLOAT", "DOUBLE", "DECIMAL(10, 2)",
      "DECIMAL(38, 18) NOT NULL", "CHAR(5)", "VARCHAR(20)", "STRING", "BINARY(16)", "VARBINARY(8)", "BYTES",
      "DATE", "TIME(0)", "TIME(3)", "TIMESTAMP(3)", "TIMESTAMP(9) NOT NULL",
      "TIMESTAMP(6) WITH LOCAL TIME ZONE", "ARRAY<INT>", "MULTISET<STRING NOT NULL>", "MAP<STRING, BIGINT>",
      "ARRAY<MAP<INT, ARRAY<DOUBLE>>> NOT NULL", "VARIANT"};
  for (const char* form : forms) {
    auto t = DataType::Parse(form);
    ASSERT_TRUE(t.ok()) << form << ": " << t.status().ToString();
    EXPECT_EQ(t->ToString(), form);
    auto again = DataType::FromJson(t->ToJson());
    ASSERT_TRUE(again.ok()) << form;
    EXPECT_EQ(*again, *t) << form;
  }
}

TEST(DataTypeTest, AliasesAndDefaults) {
  EXPECT_EQ(DataType::Parse("integer")->ToString(), "INT");
  EXPECT_EQ(DataType::Parse("decimal")->ToString(), "DECIMAL(10, 0)");
  EXPECT_EQ(DataType::Parse("numeric(5)")->ToString(), "DECIMAL(5, 0)");
  EXPECT_EQ(DataType::Parse("timestamp")->ToString(), "TIMESTAMP(6)");
  EXPECT_EQ(DataType::Parse("TIMESTAMP_LTZ(3)")->ToString(), "TIMESTAMP(3) WITH LOCAL TIME ZONE");
  EXPECT_EQ(DataType::Parse("time")->ToString(), "TIME(0)");
  EXPECT_EQ(DataType::Parse("VARCHAR(2147483647)")->ToString(), "STRING");
  int32_t next_id = 10;
  auto row = DataType::Parse("ROW<a INT, `b c` STRING NOT NULL>", &next_id);
  ASSERT_TRUE(row.ok());
  ASSERT_EQ(row->fields().size(), 2u);
  EXPECT_EQ(row->fields()[0].id, 10);
  EXPECT_EQ(row->fields()[1].name, "b c");
  EXPECT_FALSE(row->fields()[1].type.nullable());
  EXPECT_EQ(next_id, 12);
}

TEST(DataTypeTest, BadTypesAreRefused) {
  for (const char* bad : {"", "INTEGR", "DECIMAL(40, 2)", "DECIMAL(5, 6)", "ARRAY<INT", "MAP<INT>",
                          "TIMESTAMP(10)", "INT NOT"}) {
    auto t = DataType::Parse(bad);
    EXPECT_FALSE(t.ok()) << bad;
  }
}

TEST(TableSchemaTest, JavaSchemaFilesRoundTripByteForByte) {
  std::string wh = testing::JavaFixtureWarehouse();
  for (const char* rel : {"pk_09.db/pk_09/schema/schema-0", "pk_table_nested_type.db/pk_table_nested_type/schema/schema-0",
                          "pk_table_with_alter_table.db/pk_table_with_alter_table/schema/schema-1",
                          "append_complex_data.db/append_complex_data/schema/schema-0"}) {
    std::string path = wh + "/" + rel;
    auto text = FileSystem::Local()->ReadFile(path);
    ASSERT_TRUE(text.ok()) << text.status().ToString();
    auto schema = TableSchema::FromJson(*text, path);
    ASSERT_TRUE(schema.ok()) << schema.status().ToString();
    EXPECT_EQ(schema->ToJson(), *text) << path;
  }
}

TEST(TableSchemaTest, DerivedKeys) {
  std::string path = testing::JavaFixtureWarehouse() + "/pk_09.db/pk_09/schema/schema-0";
  auto schema = TableSchema::FromJson(*FileSystem::Local()->ReadFile(path), path);
  ASSERT_TRUE(schema.ok());
  EXPECT_EQ(schema->TrimmedPrimaryKeys(), (std::vector<std::string>{"f0", "f2"}));
  EXPECT_EQ(schema->BucketKeys(), (std::vector<std::string>{"f2"}));
  EXPECT_EQ(schema->Option("bucket", "-1"), "2");
  EXPECT_EQ(schema->highest_field_id, 3);
}

TEST(TableSchemaTest, CorruptSchemaNamesTheFile) {
  auto s = TableSchema::FromJson("{\"id\": 0, \"fields\": [ {\"id\": 0} ]", "/x/schema-0");
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(s.status().IsCorruption());
  EXPECT_NE(s.status().message().find("/x/schema-0"), std::string::npos);
  auto missing_key = TableSchema::FromJson(
      R"({"id": 0, "fields": [{"id": 0, "name": "a", "type": "INT"}], "primaryKeys": ["b"]})", "/x/schema-0");
  ASSERT_FALSE(missing_key.ok());
  EXPECT_NE(missing_key.status().message().find("'b'"), std::string::npos);
}

TEST(DatumTest, DecimalTextAndRounding) {
  EXPECT_EQ(DecimalToString(1230, 2), "12.30");
  EXPECT_EQ(DecimalToString(-5, 3), "-0.005");
  EXPECT_EQ(DecimalToString(0, 0), "0");
  int128_t max38 = 0;
  for (int i = 0; i < 38; ++i) max38 = max38 * 10 + 9;
  EXPECT_EQ(DecimalToString(max38, 0), std::string(38, '9'));
  EXPECT_EQ(DecimalToString(-max38, 38), "-0." + std::string(38, '9'));
  EXPECT_EQ(*ParseDecimal("12.345", 10, 2), 1235);  // half-up
  EXPECT_EQ(*ParseDecimal("-12.344", 10, 2), -1234);
  EXPECT_EQ(*ParseDecimal("1e3", 10, 0), 1000);
  EXPECT_EQ(*ParseDecimal(std::string(38, '9'), 38, 0), max38);
  EXPECT_FALSE(ParseDecimal("123456", 5, 0).ok());
  EXPECT_FALSE(ParseDecimal("1.2.3", 5, 0).ok());
  EXPECT_FALSE(ParseDecimal("abc", 5, 0).ok());
}

TEST(DatumTest, CalendarAndTimestamps) {
  EXPECT_EQ(DaysFromCivil(1970, 1, 1), 0);
  EXPECT_EQ(FormatDate(-1), "1969-12-31");
  EXPECT_EQ(FormatDate(19000), "2022-01-08");
  EXPECT_EQ(*ParseDate("1899-12-31"), DaysFromCivil(1899, 12, 31));
  EXPECT_EQ(*ParseDate("2024-02-29"), 19782);
  auto ts = ParseTimestamp("1969-12-31 23:59:59.999999999");
  ASSERT_TRUE(ts.ok());
  EXPECT_EQ(ts->millis, -1);
  EXPECT_EQ(ts->nanos_of_milli, 999999);
  EXPECT_EQ(FormatTimestamp(*ts, 9), "1969-12-31 23:59:59.999999999");
  EXPECT_EQ(FormatTimestamp(*ts, 3), "1969-12-31 23:59:59.999");
  EXPECT_EQ(TimestampValue::FromMicros(-1).millis, -1);
  EXPECT_EQ(TimestampValue::FromMicros(-1).nanos_of_milli, 999000);
  EXPECT_EQ(TimestampValue::FromMicros(-1).ToMicros(), -1);
  EXPECT_EQ(FormatTime(*ParseTime("12:34:56.789"), 3), "12:34:56.789");
}

// Assign/AssignBytes/SetNull leave a slot equal to the Datum made from the value, whatever the slot
// held before (the same kind, written in place, or another, replaced); a text slot refilled with a
// shorter value holds exactly that value.
TEST(DatumTest, AssignInPlaceEqualsANewDatumWhateverTheSlotHeld) {
  const std::vector<Datum> values = {Datum(),
                                     Datum(true),
                                     Datum(int64_t{-7}),
                                     Datum(2.5),
                                     Datum(DecimalValue{int128_t{12345}}),
                                     Datum(TimestampValue{1700000000000, 123}),
                                     Datum(std::string(40, 'x')),
                                     Datum(std::string("ab")),
                                     Datum::Nested({Datum(int64_t{1})}),
                                     Datum(1.5f)};
  auto assign = [](Datum* slot, const Datum& value) {
    const Datum::Storage& v = value.storage();
    if (value.is_null()) {
      slot->SetNull();
    } else if (const bool* b = std::get_if<bool>(&v)) {
      slot->Assign(*b);
    } else if (const int64_t* i = std::get_if<int64_t>(&v)) {
      slot->Assign(*i);
    } else if (const double* d = std::get_if<double>(&v)) {
      slot->Assign(*d);
    } else if (const DecimalValue* dec = std::get_if<DecimalValue>(&v)) {
      slot->Assign(*dec);
    } else if (const TimestampValue* ts = std::get_if<TimestampValue>(&v)) {
      slot->Assign(*ts);
    } else if (const std::string* s = std::get_if<std::string>(&v)) {
      slot->AssignBytes(*s);
    } else {
      return false;  // nested values and floats have no in-place setter
    }
    return true;
  };
  int assigned = 0;
  for (const Datum& before : values) {
    for (const Datum& value : values) {
      Datum slot = before;
      if (!assign(&slot, value)) continue;
      ++assigned;
      EXPECT_EQ(slot, value) << "slot kind " << before.storage().index() << ", value kind " << value.storage().index();
      EXPECT_EQ(slot.storage().index(), value.storage().index());
    }
  }
  EXPECT_EQ(assigned, 8 * static_cast<int>(values.size()));
}

// Java's Double.toString and Float.toString, as Paimon names FLOAT and DOUBLE partition folders (the
// expected texts are Java's output).
TEST(DatumTest, JavaFloatingTextIsJavasToString) {
  const std::vector<std::pair<double, std::string>> doubles = {
      {0.0, "0.0"},        {-0.0, "-0.0"},           {1.5, "1.5"},          {100.0, "100.0"},
      {0.1, "0.1"},        {0.001, "0.001"},         {1e-4, "1.0E-4"},      {9999999.0, "9999999.0"},
      {1e7, "1.0E7"},      {12345678.9, "1.23456789E7"}, {1.5e300, "1.5E300"}, {-2.5e-10, "-2.5E-10"},
      {1234567.125, "1234567.125"}, {5e-324, "4.9E-324"}, {std::numeric_limits<double>::max(), "1.7976931348623157E308"},
      {std::nan(""), "NaN"}, {std::numeric_limits<double>::infinity(), "Infinity"},
      {-std::numeric_limits<double>::infinity(), "-Infinity"}};
  for (const auto& [v, text] : doubles) EXPECT_EQ(JavaFloatingText(v), text) << text;
  const std::vector<std::pair<float, std::string>> floats = {
      {0.0f, "0.0"}, {-0.0f, "-0.0"}, {1.5f, "1.5"}, {0.001f, "0.001"}, {1e-5f, "1.0E-5"},
      {123456.7f, "123456.7"}, {-3.75f, "-3.75"}, {1e7f, "1.0E7"}, {0.1f, "0.1"}, {3.4028235e38f, "3.4028235E38"}};
  for (const auto& [v, text] : floats) EXPECT_EQ(JavaFloatingText(v), text) << text;
}

TEST(DatumTest, OrderingMatchesPaimonKeys) {
  EXPECT_LT(CompareDatum(Datum(), Datum(int64_t{-5})), 0);
  EXPECT_LT(CompareDatum(Datum("a"), Datum("\xc3\xa9")), 0);  // unsigned bytes: 0x61 < 0xc3
  EXPECT_LT(CompareDatum(Datum(1.0), Datum(std::nan(""))), 0);
  EXPECT_EQ(CompareDatum(Datum(DecimalValue{5}), Datum(DecimalValue{5})), 0);
  EXPECT_LT(CompareRows({Datum("a"), Datum(int64_t{2})}, {Datum("a"), Datum(int64_t{3})}), 0);
  EXPECT_EQ(Datum(std::nan("")), Datum(std::nan("")));
}

}  // namespace
}  // namespace tide
