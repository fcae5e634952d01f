// Round trip of every mapped PostgreSQL type through a real server: a table of edge values is streamed
// over logical replication in text mode and in binary mode, and each decoded value must equal what
// PostgreSQL itself says the value is (a canonical SQL rendering per type: exact bits for floats, epoch
// microseconds for timestamps, `col::text` where Tide keeps PostgreSQL's text). Also: timestamptz across
// DST boundaries, decoded from text streamed by walsenders running in two different time zones.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <map>

#include "pg_test_util.h"
#include "tide/base/bytes.h"
#include "tide/base/strings.h"
#include "tide/postgres/change_stream.h"
#include "tide/postgres/pg_value_decoder.h"
#include "tide/types/datum.h"

namespace tide {
namespace {

using namespace pgtest;

// ----- Canonical renderings: the same text from PostgreSQL (SQL) and from a decoded Datum (C++) -----

enum class Canon {
  kBool,       // 1 / 0
  kInt,        // col::text
  kFloat4,     // float4send bits
  kFloat8,     // float8send bits
  kDecimal,    // col::text (numeric with typmod: exactly `scale` fraction digits)
  kMoney,      // col::numeric::text
  kText,       // col::text
  kBytes,      // encode(col, 'hex')
  kDate,       // days since 1970 (infinities by name)
  kTime,       // microseconds of the day (Tide keeps milliseconds)
  kTimestamp,    // timestamp_send: PostgreSQL's own exact microseconds (±infinity as INT64_MAX/MIN)
  kTimestampTz,  // timestamptz_send
};

std::string ElementSql(Canon c, const std::string& x) {
  switch (c) {
    case Canon::kBool: return x + "::int::text";
    case Canon::kInt: return x + "::text";
    case Canon::kFloat4: return "encode(float4send(" + x + "), 'hex')";
    case Canon::kFloat8: return "encode(float8send(" + x + "), 'hex')";
    case Canon::kDecimal: return x + "::text";
    case Canon::kMoney: return x + "::numeric::text";
    // The type's output function (x::text would drop char(n) padding and add inet's /32).
    case Canon::kText: return "CASE WHEN " + x + " IS NULL THEN NULL ELSE format('%s', " + x + ") END";
    case Canon::kBytes: return "encode(" + x + ", 'hex')";
    case Canon::kDate:
      return "CASE WHEN isfinite(" + x + ") THEN (" + x + " - date '1970-01-01')::text ELSE " + x + "::text END";
    case Canon::kTime: return "(extract(epoch from " + x + ") * 1000000)::bigint::text";
    // extract(epoch ...) loses precision near PostgreSQL's last timestamp; the send format does not.
    case Canon::kTimestamp: return "encode(timestamp_send(" + x + "), 'hex')";
    case Canon::kTimestampTz: return "encode(timestamptz_send(" + x + "), 'hex')";
  }
  return "";
}

std::string ColumnSql(Canon c, bool array, const std::string& col) {
  if (!array) return "coalesce(" + ElementSql(c, col) + ", '\\N')";
  return "CASE WHEN " + col + " IS NULL THEN '\\N' ELSE array_to_string(array(SELECT coalesce(" + ElementSql(c, "x") +
         ", '\\N') FROM unnest(" + col + ") WITH ORDINALITY AS u(x, n) ORDER BY n), '|') END";
}

std::string RenderElement(Canon c, const Datum& d, const DataType& type) {
  if (d.is_null()) return "\\N";
  switch (c) {
    case Canon::kBool: return d.as_bool() ? "1" : "0";
    case Canon::kInt: return std::to_string(d.as_int());
    case Canon::kFloat4: {
      uint32_t bits;
      float f = d.as_float();
      std::memcpy(&bits, &f, 4);
      std::string be;
      AppendBE(&be, bits);
      return HexEncode(be);
    }
    case Canon::kFloat8: {
      uint64_t bits;
      double f = d.as_double();
      std::memcpy(&bits, &f, 8);
      std::string be;
      AppendBE(&be, bits);
      return HexEncode(be);
    }
    case Canon::kDecimal:
    case Canon::kMoney:
      if (type.root() != TypeRoot::kDecimal) return d.as_string();
      return DecimalToString(d.as_decimal().unscaled, type.scale());
    case Canon::kText: return d.as_string();
    case Canon::kBytes: return HexEncode(d.as_string());
    case Canon::kDate:
      if (d.as_int() == kPgInfinityDateDays) return "infinity";
      if (d.as_int() == kPgMinusInfinityDateDays) return "-infinity";
      return std::to_string(d.as_int());
    case Canon::kTime: return std::to_string(d.as_int());  // compared after truncating PostgreSQL's micros
    case Canon::kTimestamp:
    case Canon::kTimestampTz: {
      const TimestampValue& t = d.as_timestamp();
      const int128_t micros = static_cast<int128_t>(t.millis) * 1000 + t.nanos_of_milli / 1000;
      int64_t pg = static_cast<int64_t>(micros - kPgEpochUnixMicros);
      int64_t unit = 1;  // the infinity sentinel is truncated to the column's precision
      for (int i = type.precision(); i < 6; ++i) unit *= 10;
      if (micros == kPgInfinityTimestampMicros - 999999 % unit) pg = std::numeric_limits<int64_t>::max();
      if (micros == kPgMinusInfinityTimestampMicros) pg = std::numeric_limits<int64_t>::min();
      std::string be;
      AppendBE(&be, pg);
      return HexEncode(be);
    }
  }
  return "?";
}

std::string Render(Canon c, bool array, const Datum& d, const DataType& type) {
  if (!array) return RenderElement(c, d, type);
  if (d.is_null()) return "\\N";
  std::string out;
  bool first = true;
  for (const Datum& e : d.as_nested()) {
    if (!first) out += "|";
    first = false;
    out += RenderElement(c, e, type.element());
  }
  return out;
}

// The documented deviations (docs/postgres-types.md): time is truncated to Tide's milliseconds; NaN in a
// numeric(p,s) column (a DECIMAL) becomes NULL.
std::string Expected(Canon c, bool array, const std::string& pg, const DataType& type) {
  if (c == Canon::kDecimal && !array && type.root() == TypeRoot::kDecimal && pg == "NaN") return "\\N";
  if (c != Canon::kTime || pg == "\\N") return pg;
  std::vector<std::string> parts = Split(pg, '|');
  std::vector<std::string> out;
  for (const auto& p : parts) out.push_back(p == "\\N" ? p : std::to_string(std::stoll(p) / 1000));
  return Join(out, "|");
}

struct Column {
  std::string name;
  std::string sql_type;
  Canon canon;
  bool array = false;
  std::string paimon_type;  // expected DataType::ToString()
};

const std::vector<Column>& EdgeColumns() {
  static const std::vector<Column> cols = {
      {"b", "bool", Canon::kBool, false, "BOOLEAN"},
      {"i2", "int2", Canon::kInt, false, "SMALLINT"},
      {"i4", "int4", Canon::kInt, false, "INT"},
      {"i8", "int8", Canon::kInt, false, "BIGINT"},
      {"f4", "float4", Canon::kFloat4, false, "FLOAT"},
      {"f8", "float8", Canon::kFloat8, false, "DOUBLE"},
      {"n", "numeric(12,2)", Canon::kDecimal, false, "DECIMAL(12, 2)"},
      {"nbig", "numeric(38,10)", Canon::kDecimal, false, "DECIMAL(38, 10)"},
      {"nneg", "numeric(5,-2)", Canon::kDecimal, false, "DECIMAL(7, 0)"},
      {"nfree", "numeric", Canon::kDecimal, false, "STRING"},
      {"m", "money", Canon::kMoney, false, "DECIMAL(19, 2)"},
      {"t", "text", Canon::kText, false, "STRING"},
      {"vc", "varchar(10)", Canon::kText, false, "VARCHAR(10)"},
      {"c", "char(5)", Canon::kText, false, "CHAR(5)"},
      {"nm", "name", Canon::kText, false, "STRING"},
      {"ch", "\"char\"", Canon::kText, false, "STRING"},
      {"bt", "bytea", Canon::kBytes, false, "BYTES"},
      {"d", "date", Canon::kDate, false, "DATE"},
      {"tm", "time", Canon::kTime, false, "TIME(6)"},
      {"ttz", "timetz", Canon::kText, false, "STRING"},
      {"ts", "timestamp", Canon::kTimestamp, false, "TIMESTAMP(6)"},
      {"ts3", "timestamp(3)", Canon::kTimestamp, false, "TIMESTAMP(3)"},
      {"tstz", "timestamptz", Canon::kTimestampTz, false, "TIMESTAMP(6) WITH LOCAL TIME ZONE"},
      {"iv", "interval", Canon::kText, false, "STRING"},
      {"u", "uuid", Canon::kText, false, "STRING"},
      {"j", "json", Canon::kText, false, "STRING"},
      {"jb", "jsonb", Canon::kText, false, "STRING"},
      {"ip", "inet", Canon::kText, false, "STRING"},
      {"cid", "cidr", Canon::kText, false, "STRING"},
      {"mac", "macaddr", Canon::kText, false, "STRING"},
      {"mac8", "macaddr8", Canon::kText, false, "STRING"},
      {"bits", "varbit", Canon::kText, false, "STRING"},
      {"lsn", "pg_lsn", Canon::kText, false, "STRING"},
      {"e", "rt_mood", Canon::kText, false, "STRING"},
      {"dom", "rt_posint", Canon::kInt, false, "INT"},
      {"dnum", "rt_price", Canon::kDecimal, false, "DECIMAL(10, 2)"},
      {"ai", "int4[]", Canon::kInt, true, "ARRAY<INT>"},
      {"at", "text[]", Canon::kText, true, "ARRAY<STRING>"},
      {"an", "numeric(10,2)[]", Canon::kDecimal, true, "ARRAY<DECIMAL(10, 2)>"},
      {"ats", "timestamptz[]", Canon::kTimestampTz, true, "ARRAY<TIMESTAMP(6) WITH LOCAL TIME ZONE>"},
      {"ad", "date[]", Canon::kDate, true, "ARRAY<DATE>"},
      {"ab", "bytea[]", Canon::kBytes, true, "ARRAY<BYTES>"},
      {"ae", "rt_mood[]", Canon::kText, true, "ARRAY<STRING>"},
  };
  return cols;
}

// The edge rows: column name → SQL literal (absent columns are NULL).
std::vector<std::pair<int, std::map<std::string, std::string>>> EdgeRows() {
  const std::string digits1000 = "(repeat('9', 500) || '.' || repeat('1', 500))::numeric";
  return {
      {1, {}},  // every column NULL
      {2,
       {{"b", "false"}, {"i2", "-32768"}, {"i4", "-2147483648"}, {"i8", "-9223372036854775808"},
        {"f4", "'-3.4028235e38'"}, {"f8", "'-1.7976931348623157e308'"}, {"n", "-9999999999.99"},
        {"nbig", "'-9999999999999999999999999999.9999999999'"}, {"nneg", "-9999900"},
        {"nfree", "'-0.000000000000000000000000000000000000000000001'"}, {"m", "'-92233720368547758.08'"},
        {"t", "''"}, {"vc", "''"}, {"c", "''"}, {"nm", "''"}, {"ch", "'a'"}, {"bt", "'\\x'"},
        {"d", "'4713-01-01 BC'"}, {"tm", "'00:00:00'"}, {"ttz", "'00:00:00+15:59'"},
        {"ts", "'4713-01-01 00:00:00 BC'"}, {"ts3", "'0001-01-01 00:00:00.001'"}, {"tstz", "'4713-01-01 00:00:00+00 BC'"},
        {"iv", "'-178000000 years'"}, {"u", "'00000000-0000-0000-0000-000000000000'"}, {"j", "'[]'"},
        {"jb", "'{}'"}, {"ip", "'0.0.0.0/0'"}, {"cid", "'0.0.0.0/0'"}, {"mac", "'00:00:00:00:00:00'"},
        {"mac8", "'00:00:00:00:00:00:00:00'"}, {"bits", "B''"}, {"lsn", "'0/0'"}, {"e", "'sad'"}, {"dom", "1"},
        {"dnum", "-99999999.99"}, {"ai", "'{}'"}, {"at", "'{}'"}, {"an", "'{}'"}, {"ats", "'{}'"}, {"ad", "'{}'"},
        {"ab", "'{}'"}, {"ae", "'{}'"}}},
      {3,
       {{"b", "true"}, {"i2", "32767"}, {"i4", "2147483647"}, {"i8", "9223372036854775807"},
        {"f4", "'3.4028235e38'"}, {"f8", "'1.7976931348623157e308'"}, {"n", "9999999999.99"},
        {"nbig", "'9999999999999999999999999999.9999999999'"}, {"nneg", "12300"}, {"nfree", digits1000},
        {"m", "'92233720368547758.07'"}, {"t", "repeat('long text ', 1000)"}, {"vc", "'ñandú ☃ 東'"},
        {"c", "'ab'"}, {"nm", "repeat('n', 63)::name"}, {"ch", "'z'"}, {"bt", "'\\x00ff7f80'"},
        {"d", "'5874897-12-31'"}, {"tm", "'24:00:00'"}, {"ttz", "'24:00:00-15:59'"},
        {"ts", "'294276-12-31 23:59:59.999999'"}, {"ts3", "'9999-12-31 23:59:59.998'"},
        {"tstz", "'294276-12-31 23:59:59.999999+00'"}, {"iv", "'178000000 years'"},
        {"u", "'ffffffff-ffff-ffff-ffff-ffffffffffff'"}, {"j", "'{\"a\": [1, 2.5, \"ü\"], \"b\": null}'"},
        {"jb", "'{\"b\": null, \"a\": [1, 2.5, \"ü\"], \"c\": {\"d\": 1e3}}'"},
        {"ip", "'255.255.255.255'"}, {"cid", "'2001:db8::/32'"}, {"mac", "'ff:ff:ff:ff:ff:ff'"},
        {"mac8", "'ff:ff:ff:ff:ff:ff:ff:ff'"}, {"bits", "B'1010101011'"}, {"lsn", "'FFFFFFFF/FFFFFFFF'"},
        {"e", "'happy'"}, {"dom", "2147483647"}, {"dnum", "99999999.99"},
        {"ai", "'{1,NULL,-3}'"}, {"at", "ARRAY['a b', 'x\"y\\z', NULL, 'NULL', '', 'Zoë ☃']"},
        {"an", "'{1.50,NULL,-0.01}'"}, {"ats", "ARRAY['2024-03-10 01:59:59-08'::timestamptz, NULL, 'infinity']"},
        {"ad", "ARRAY['1850-06-01'::date, NULL, '2150-01-01', 'infinity']"}, {"ab", "ARRAY['\\x00'::bytea, NULL]"},
        {"ae", "ARRAY['ok'::rt_mood, NULL]"}}},
      {4,
       {{"n", "'NaN'"}, {"dnum", "'NaN'"}, {"f4", "'NaN'"}, {"f8", "'-Infinity'"}, {"nfree", "'NaN'"}, {"d", "'infinity'"}, {"ts", "'-infinity'"},
        {"ts3", "'infinity'"}, {"tstz", "'infinity'"}, {"tm", "'23:59:59.999999'"},
        {"ttz", "'12:34:56.789+05:30'"}, {"iv", "'1 year 2 mons 3 days 04:05:06.789'"}, {"ip", "'::1'"},
        {"cid", "'10.0.0.0/8'"}, {"ad", "ARRAY['-infinity'::date]"}}},
      {5,
       {{"f4", "'-Infinity'"}, {"f8", "'NaN'"}, {"nfree", "'-123456789012345678901234567890.000000000000000000000001'"},
        {"n", "0"}, {"d", "'1899-12-31'"}, {"ts", "'1899-12-31 23:59:59.5'"}, {"tstz", "'2150-01-01 12:00:00+00'"},
        {"ts3", "'2024-01-01 12:00:00.123'"}, {"iv", "'-1 days +02:03:00'"}, {"ip", "'2001:db8::1/64'"},
        {"t", "'Zoë ☃ 東京 🚀'"}, {"tm", "'13:14:15.5'"}, {"ai", "'[0:1]={5,6}'"}, {"ttz", "'00:00:00-08'"}}},
      {6,
       {{"f8", "'5e-324'"}, {"f4", "'0.1'"}, {"nfree", "'Infinity'"}, {"iv", "'-00:00:01.5'"},
        {"nneg", "0"}, {"tstz", "'1900-01-01 00:00:00 Europe/Amsterdam'"}, {"ts", "'1900-01-01 00:00:00'"},
        {"d", "'-infinity'"}, {"m", "0"}}},
      {7, {{"f4", "'1e-45'"}, {"d", "'0044-03-15 BC'"}, {"ts", "'0044-03-15 12:00:00 BC'"}, {"m", "'-0.01'"}}},
  };
}

struct Streamed {
  std::map<int, Row> rows;  // by id
  SourceRelationPtr relation;
};

// Reads the slot until `count` inserts into `table` have arrived.
Streamed StreamRows(ChangeStreamOptions options, const std::string& table, size_t count) {
  Streamed out;
  const bool binary = options.replication.binary;
  auto stream = ChangeStream::Start(std::move(options));
  EXPECT_TRUE(stream.ok()) << stream.status().ToString();
  if (!stream.ok()) return out;
  EXPECT_EQ((*stream)->replication().binary(), binary) << "the stream runs in the mode under test";
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(90);
  while (out.rows.size() < count && std::chrono::steady_clock::now() < deadline) {
    auto next = (*stream)->Next(std::chrono::milliseconds(200));
    EXPECT_TRUE(next.ok()) << next.status().ToString();
    if (!next.ok()) break;
    if (!next->has_value()) continue;
    if (auto* c = std::get_if<RowChange>(&**next)) {
      if (c->relation->table.name != table || c->kind != ChangeKind::kInsert) continue;
      out.relation = c->relation;
      out.rows[static_cast<int>(c->new_row[0].as_int())] = c->new_row;
    } else if (auto* commit = std::get_if<CommitTransaction>(&**next)) {
      (*stream)->Acknowledge(commit->txn.end_lsn);
    }
  }
  (*stream)->Close().IgnoreError();
  EXPECT_EQ(out.rows.size(), count) << "rows of " << table << " that arrived";
  return out;
}

// What PostgreSQL says each value is: id → canonical text per column.
std::map<int, std::vector<std::string>> Canonical(const std::string& table, const std::vector<Column>& cols) {
  std::string sql = "SELECT id";
  for (const Column& c : cols) sql += ", " + ColumnSql(c.canon, c.array, c.name);
  sql += " FROM " + table + " ORDER BY id";
  auto rows = Server().Query(sql);
  EXPECT_TRUE(rows.ok()) << rows.status().ToString();
  std::map<int, std::vector<std::string>> out;
  if (!rows.ok()) return out;
  for (const auto& r : *rows) {
    std::vector<std::string> v;
    for (size_t i = 1; i < r.size(); ++i) v.push_back(r[i].value_or("<sql null>"));
    out[std::stoi(*r[0])] = std::move(v);
  }
  return out;
}

void CheckRows(const std::string& mode, const Streamed& got, const std::vector<Column>& cols,
               const std::map<int, std::vector<std::string>>& want) {
  ASSERT_NE(got.relation, nullptr) << mode;
  ASSERT_EQ(got.relation->fields.size(), cols.size() + 1) << mode;
  for (size_t i = 0; i < cols.size(); ++i) {
    EXPECT_EQ(got.relation->fields[i + 1].type.ToString(), cols[i].paimon_type) << mode << " column " << cols[i].name;
  }
  for (const auto& [id, expected] : want) {
    auto it = got.rows.find(id);
    ASSERT_NE(it, got.rows.end()) << mode << " row " << id;
    for (size_t i = 0; i < cols.size(); ++i) {
      const std::string actual = Render(cols[i].canon, cols[i].array, it->second[i + 1], got.relation->fields[i + 1].type);
      EXPECT_EQ(actual, Expected(cols[i].canon, cols[i].array, expected[i], got.relation->fields[i + 1].type))
          << mode << ": row " << id << " column " << cols[i].name << " (" << cols[i].sql_type << ")";
    }
  }
}

class PgTypesRoundTripTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    Sql("DROP TABLE IF EXISTS rt_edge; DROP TABLE IF EXISTS rt_dst; DROP TYPE IF EXISTS rt_mood; "
        "DROP DOMAIN IF EXISTS rt_posint; DROP DOMAIN IF EXISTS rt_price; "
        "CREATE TYPE rt_mood AS ENUM ('sad', 'ok', 'happy'); "
        "CREATE DOMAIN rt_posint AS int4 CHECK (VALUE > 0); "
        "CREATE DOMAIN rt_price AS numeric(10,2); "
        "DROP PUBLICATION IF EXISTS rt_pub");
    std::string create = "CREATE TABLE rt_edge(id int PRIMARY KEY";
    for (const Column& c : EdgeColumns()) create += ", " + c.name + " " + c.sql_type;
    create += ")";
    Sql(create);
    Sql("CREATE TABLE rt_dst(id int PRIMARY KEY, tstz timestamptz, ts timestamp)");
    Sql("CREATE PUBLICATION rt_pub FOR TABLE rt_edge, rt_dst");
    // Types without a dedicated mapping: STRING of their text form (text mode only: Tide cannot read
    // their binary format).
    Sql("DROP TABLE IF EXISTS rt_fallback; DROP PUBLICATION IF EXISTS rt_pub_fallback; "
        "CREATE TABLE rt_fallback(id int PRIMARY KEY, pt point, rng int4range, boxes box[], tsv tsvector); "
        "CREATE PUBLICATION rt_pub_fallback FOR TABLE rt_fallback");
    for (const char* slot : {"rt_text", "rt_binary", "rt_text_ny", "rt_text_ams", "rt_binary_dst", "rt_fallback"}) {
      Sql(std::string("SELECT pg_drop_replication_slot('") + slot + "') FROM pg_replication_slots WHERE slot_name = '" +
          slot + "'");
      CreateSlot(slot);
    }
    for (const auto& [id, values] : EdgeRows()) {
      std::string names = "id", literals = std::to_string(id);
      for (const auto& [col, lit] : values) {
        names += ", " + col;
        literals += ", " + lit;
      }
      Sql("INSERT INTO rt_edge(" + names + ") VALUES (" + literals + ")");
    }
    // DST boundaries in New York (2024-03-10, 2024-11-03) and Amsterdam (2024-03-31, 2024-10-27), and
    // Amsterdam's local mean time before 1937 (offset +00:19:32).
    Sql("INSERT INTO rt_dst VALUES "
        "(1, '2024-03-10 01:59:59.999999 America/New_York', '2024-03-10 01:59:59.999999'),"
        "(2, '2024-03-10 03:00:00 America/New_York', '2024-03-10 03:00:00'),"
        "(3, '2024-11-03 01:30:00-04', '2024-11-03 01:30:00'),"
        "(4, '2024-11-03 01:30:00-05', '2024-11-03 01:30:00'),"
        "(5, '2024-03-31 01:59:59+00', '2024-03-31 02:30:00'),"
        "(6, '2024-03-31 02:00:00+00', '2024-03-31 02:00:00'),"
        "(7, '2024-10-27 00:30:00+00', '2024-10-27 02:30:00'),"
        "(8, '2024-10-27 01:30:00+00', '2024-10-27 02:30:00'),"
        "(9, '1900-01-01 00:00:00 Europe/Amsterdam', '1900-01-01 00:00:00'),"
        "(10, '1883-11-18 12:00:00 America/New_York', '1883-11-18 12:00:00')");
    Sql("INSERT INTO rt_fallback VALUES (1, '(1.5,-2)', '[1,10)', '{(1,1),(0,0);(3,3),(2,2)}', 'a fat cat'), "
        "(2, NULL, 'empty', '{}', ''), (3, '(0,0)', '(,5]', NULL, 'x:1A')");
  }

  static ChangeStreamOptions Options(const std::string& slot, bool binary, const std::string& time_zone = "") {
    ChangeStreamOptions o = StreamOptions(slot, "rt_pub");
    o.replication.binary = binary;
    if (!time_zone.empty()) o.replication.conninfo += " options='-c TimeZone=" + time_zone + "'";
    return o;
  }
};

TEST_F(PgTypesRoundTripTest, EdgeValuesInTextMode) {
  const auto& cols = EdgeColumns();
  Streamed got = StreamRows(Options("rt_text", false), "rt_edge", EdgeRows().size());
  CheckRows("text", got, cols, Canonical("rt_edge", cols));
}

TEST_F(PgTypesRoundTripTest, EdgeValuesInBinaryMode) {
  const auto& cols = EdgeColumns();
  Streamed got = StreamRows(Options("rt_binary", true), "rt_edge", EdgeRows().size());
  CheckRows("binary", got, cols, Canonical("rt_edge", cols));
}

TEST_F(PgTypesRoundTripTest, TypesWithoutMappingKeepTheirTextInTextMode) {
  const std::vector<Column> cols = {{"pt", "point", Canon::kText, false, "STRING"},
                                    {"rng", "int4range", Canon::kText, false, "STRING"},
                                    {"boxes", "box[]", Canon::kText, false, "STRING"},
                                    {"tsv", "tsvector", Canon::kText, false, "STRING"}};
  ChangeStreamOptions o = StreamOptions("rt_fallback", "rt_pub_fallback");
  o.replication.binary = false;
  CheckRows("text", StreamRows(o, "rt_fallback", 3), cols, Canonical("rt_fallback", cols));
}

TEST_F(PgTypesRoundTripTest, TimestamptzAcrossDstInTwoTimeZones) {
  const std::vector<Column> cols = {{"tstz", "timestamptz", Canon::kTimestampTz, false, "TIMESTAMP(6) WITH LOCAL TIME ZONE"},
                                    {"ts", "timestamp", Canon::kTimestamp, false, "TIMESTAMP(6)"}};
  const auto want = Canonical("rt_dst", cols);
  ASSERT_EQ(want.size(), 10u);
  // The same instant printed in a zone where it is ambiguous wall-clock time must still decode to it.
  CheckRows("text, walsender in America/New_York",
            StreamRows(Options("rt_text_ny", false, "America/New_York"), "rt_dst", 10), cols, want);
  CheckRows("text, walsender in Europe/Amsterdam",
            StreamRows(Options("rt_text_ams", false, "Europe/Amsterdam"), "rt_dst", 10), cols, want);
  CheckRows("binary", StreamRows(Options("rt_binary_dst", true, "Asia/Kolkata"), "rt_dst", 10), cols, want);
  // The walsenders really ran in those zones: a session opened the same way reports it.
  for (const std::string zone : {"America/New_York", "Europe/Amsterdam"}) {
    auto conn = PgConnection::Connect(Options("rt_text_ny", false, zone).replication.conninfo,
                                      PgSessionKind::kReplication, kPgTextSessionOptions);
    ASSERT_TRUE(conn.ok()) << conn.status().ToString();
    auto tz = (*conn)->Query("SHOW TimeZone");
    ASSERT_TRUE(tz.ok()) << tz.status().ToString();
    EXPECT_EQ(tz->Value(0, 0), zone);
  }
  // And the two zones print different text for the same instants (the test is not vacuous).
  auto ny = Server().QueryValue("SET TimeZone = 'America/New_York'; SELECT tstz::text FROM rt_dst WHERE id = 3");
  auto ams = Server().QueryValue("SET TimeZone = 'Europe/Amsterdam'; SELECT tstz::text FROM rt_dst WHERE id = 3");
  ASSERT_TRUE(ny.ok() && ams.ok());
  EXPECT_EQ(*ny, "2024-11-03 01:30:00-04");
  EXPECT_EQ(*ams, "2024-11-03 06:30:00+01");
}

// Tide's table of built-in type OIDs (pg_type.h) agrees with the server's catalog.
TEST(PgBuiltinTypesTest, OidsNamesAndArraysMatchTheServer) {
  // int2vector and oidvector are in category A but not in the {a,b} array format: not arrays for Tide.
  auto rows = Server().Query(
      "SELECT oid, typname, typarray, CASE WHEN typinput = 'array_in'::regproc THEN 'A' ELSE 'x' END, typelem "
      "FROM pg_type WHERE oid < 10000");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  PgTypeRegistry types;
  size_t known = 0;
  for (const auto& r : *rows) {
    const PgOid oid = static_cast<PgOid>(std::stoul(*r[0]));
    const PgTypeInfo* info = types.Find(oid);
    if (info == nullptr) continue;
    ++known;
    EXPECT_EQ(info->name, *r[1]) << "OID " << oid;
    if (*r[3] == "A") {
      EXPECT_EQ(info->element_oid, static_cast<PgOid>(std::stoul(*r[4]))) << info->name;
    } else {
      EXPECT_FALSE(info->is_array()) << info->name;
      const PgOid array = static_cast<PgOid>(std::stoul(*r[2]));
      if (array != 0 && types.Find(array) != nullptr) {
        EXPECT_EQ(types.Find(array)->element_oid, oid) << info->name;
      }
    }
  }
  EXPECT_GT(known, 100u);
  // The catalog query Tide runs for non-built-in types agrees: int2vector is no array, _int4 is.
  auto catalog = Server().Query(PgTypeCatalogQuery(std::vector<PgOid>{22, pg_oid::kInt4Array}));
  ASSERT_TRUE(catalog.ok()) << catalog.status().ToString();
  ASSERT_EQ(catalog->size(), 2u);
  for (const auto& r : *catalog) {
    std::vector<std::string> fields;
    for (const auto& f : r) fields.push_back(f.value_or(""));
    PgTypeRegistry fresh;
    ASSERT_TRUE(fresh.AddFromCatalogRow(fields).ok());
    EXPECT_EQ(fields[4] == "A", fields[0] == std::to_string(pg_oid::kInt4Array)) << fields[2];
  }
  for (PgOid oid : {pg_oid::kBool, pg_oid::kBytea, pg_oid::kChar, pg_oid::kName, pg_oid::kInt8, pg_oid::kInt2,
                    pg_oid::kInt4, pg_oid::kText, pg_oid::kOid, pg_oid::kXid, pg_oid::kJson, pg_oid::kXml,
                    pg_oid::kCidr, pg_oid::kFloat4, pg_oid::kFloat8, pg_oid::kMacaddr8, pg_oid::kMoney,
                    pg_oid::kMacaddr, pg_oid::kInet, pg_oid::kBpchar, pg_oid::kVarchar, pg_oid::kDate, pg_oid::kTime,
                    pg_oid::kTimestamp, pg_oid::kTimestamptz, pg_oid::kInterval, pg_oid::kTimetz, pg_oid::kBit,
                    pg_oid::kVarbit, pg_oid::kNumeric, pg_oid::kUuid, pg_oid::kPgLsn, pg_oid::kJsonb,
                    pg_oid::kBoolArray, pg_oid::kInt4Array, pg_oid::kTextArray, pg_oid::kCidrArray, pg_oid::kJsonArray,
                    pg_oid::kJsonbArray, pg_oid::kMoneyArray, pg_oid::kMacaddr8Array, pg_oid::kXmlArray,
                    pg_oid::kTimetzArray, pg_oid::kNumericArray, pg_oid::kUuidArray}) {
    auto name = Server().QueryValue("SELECT typname FROM pg_type WHERE oid = " + std::to_string(oid));
    ASSERT_TRUE(name.ok());
    EXPECT_EQ(*name, types.Find(oid)->name) << "OID " << oid;
  }
}

}  // namespace
}  // namespace tide
