// ParquetChunkReader against DuckDB's own reading of the same files: files written by ParquetFileWriter
// (every supported type, edge values, NULLs, several row groups and pages, dictionaries with fallback,
// each codec), every flat column of the Java fixtures, the scope limits (NotSupported) and damaged files.
#include "tide/format/parquet_chunk_reader.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <random>

#include "testing/temp_dir.h"
#include "tide/format/parquet_reader.h"
#include "tide/format/parquet_writer.h"
#include "tide/io/file_system.h"

namespace tide {
namespace {

using Table = std::vector<std::vector<std::string>>;  // rows of cells, as text

DuckDB& Db() {
  static DuckDB* db = [] {
    auto opened = DuckDB::Open(":memory:", {{"threads", "1"}});
    EXPECT_TRUE(opened.ok()) << opened.status().ToString();
    return new DuckDB(std::move(opened).value());
  }();
  return *db;
}

DuckConnection Connect() {
  auto conn = Db().Connect();
  EXPECT_TRUE(conn.ok());
  EXPECT_TRUE(conn->Execute("SET TimeZone = 'UTC'").ok());
  return std::move(conn).value();
}

// The DuckDB logical type spelled `sql` in SQL.
DuckLogicalType TypeOf(const std::string& sql) {
  DuckConnection conn = Connect();
  auto result = conn.Query("SELECT CAST(NULL AS " + sql + ")");
  EXPECT_TRUE(result.ok()) << sql;
  return result->column_logical_type(0);
}

// One value of a vector as text that tells every bit of it apart (floats by their bits).
std::string Cell(duckdb_vector vector, duckdb_logical_type type, idx_t row) {
  uint64_t* validity = duckdb_vector_get_validity(vector);
  if (validity != nullptr && !duckdb_validity_row_is_valid(validity, row)) return "NULL";
  const void* data = duckdb_vector_get_data(vector);
  auto raw = [&](size_t width) {
    uint64_t lo = 0, hi = 0;
    const char* p = static_cast<const char*>(data) + row * width;
    std::memcpy(&lo, p, std::min<size_t>(width, 8));
    if (width == 16) std::memcpy(&hi, p + 8, 8);
    if (width < 8) {  // sign-extend narrow integers
      int shift = 64 - 8 * static_cast<int>(width);
      lo = static_cast<uint64_t>(static_cast<int64_t>(lo << shift) >> shift);
    }
    return width == 16 ? std::to_string(hi) + ":" + std::to_string(lo) : std::to_string(static_cast<int64_t>(lo));
  };
  switch (duckdb_get_type_id(type)) {
    case DUCKDB_TYPE_BOOLEAN: return static_cast<const bool*>(data)[row] ? "true" : "false";
    case DUCKDB_TYPE_TINYINT: return raw(1);
    case DUCKDB_TYPE_SMALLINT: return raw(2);
    case DUCKDB_TYPE_INTEGER:
    case DUCKDB_TYPE_DATE: return raw(4);
    case DUCKDB_TYPE_FLOAT: {
      uint32_t bits;
      std::memcpy(&bits, static_cast<const char*>(data) + row * 4, 4);
      return "f" + std::to_string(bits);
    }
    case DUCKDB_TYPE_DOUBLE:
    case DUCKDB_TYPE_BIGINT:
    case DUCKDB_TYPE_TIMESTAMP:
    case DUCKDB_TYPE_TIMESTAMP_TZ: return raw(8);
    case DUCKDB_TYPE_DECIMAL:
      switch (duckdb_decimal_internal_type(type)) {
        case DUCKDB_TYPE_SMALLINT: return raw(2);
        case DUCKDB_TYPE_INTEGER: return raw(4);
        case DUCKDB_TYPE_BIGINT: return raw(8);
        default: return raw(16);
      }
    case DUCKDB_TYPE_VARCHAR:
    case DUCKDB_TYPE_BLOB: {
      duckdb_string_t s = static_cast<const duckdb_string_t*>(data)[row];
      return "'" + std::string(duckdb_string_t_data(&s), duckdb_string_t_length(s)) + "'";
    }
    default: return "?type " + std::to_string(duckdb_get_type_id(type));
  }
}

void AppendRows(const DuckDataChunk& chunk, const std::vector<duckdb_logical_type>& types, Table* out) {
  for (idx_t r = 0; r < chunk.size(); ++r) {
    std::vector<std::string> row;
    for (idx_t c = 0; c < types.size(); ++c) row.push_back(Cell(chunk.column(c), types[c], r));
    out->push_back(std::move(row));
  }
}

struct Want {
  std::string name;
  std::string type;  // DuckDB SQL type of the output
};

// Reads `columns` and the row number with the reader.
Result<Table> ReadWithReader(const std::string& path, const std::vector<Want>& columns) {
  std::vector<ParquetChunkColumn> specs;
  std::vector<DuckLogicalType> types;
  std::vector<duckdb_logical_type> raw;
  for (const Want& w : columns) {
    specs.push_back(ParquetChunkColumn{w.name, std::nullopt, TypeOf(w.type)});
    types.push_back(TypeOf(w.type));
  }
  specs.push_back(ParquetChunkColumn{"", std::nullopt, TypeOf("BIGINT"), /*row_number=*/true});
  types.push_back(TypeOf("BIGINT"));
  for (const auto& t : types) raw.push_back(t.raw());
  TIDE_ASSIGN_OR_RETURN(auto reader, ParquetChunkReader::Open(path, std::move(specs)));
  Table table;
  while (true) {
    TIDE_ASSIGN_OR_RETURN(DuckDataChunk chunk, reader->Next());
    if (!chunk) break;
    EXPECT_LE(chunk.size(), duckdb_vector_size());
    AppendRows(chunk, raw, &table);
  }
  EXPECT_EQ(static_cast<int64_t>(table.size()), reader->row_count());
  return table;
}

// Reads the same with DuckDB.
Table ReadWithDuckDB(const std::string& path, const std::vector<Want>& columns) {
  std::string sql = "SELECT ";
  for (const Want& w : columns) sql += "CAST(" + QuoteSqlIdentifier(w.name) + " AS " + w.type + "), ";
  sql += "file_row_number FROM read_parquet(" + QuoteSqlString(path) +
         ", hive_partitioning = false, binary_as_string = false, file_row_number = true)";
  DuckConnection conn = Connect();
  auto result = conn.QueryStreaming(sql);
  EXPECT_TRUE(result.ok()) << sql << ": " << result.status().ToString();
  Table table;
  if (!result.ok()) return table;
  std::vector<DuckLogicalType> types;
  std::vector<duckdb_logical_type> raw;
  for (idx_t i = 0; i < result->column_count(); ++i) types.push_back(result->column_logical_type(i));
  for (const auto& t : types) raw.push_back(t.raw());
  while (DuckDataChunk chunk = result->FetchChunk()) AppendRows(chunk, raw, &table);
  EXPECT_TRUE(result->error().ok()) << result->error().ToString();
  return table;
}

void ExpectSameAsDuckDB(const std::string& path, const std::vector<Want>& columns) {
  auto ours = ReadWithReader(path, columns);
  ASSERT_TRUE(ours.ok()) << path << ": " << ours.status().ToString();
  Table theirs = ReadWithDuckDB(path, columns);
  ASSERT_EQ(ours->size(), theirs.size()) << path;
  for (size_t r = 0; r < theirs.size(); ++r) {
    ASSERT_EQ((*ours)[r], theirs[r]) << path << " row " << r;
  }
}

// ---- Files written by Tide ----

struct Sample {
  std::vector<ParquetColumnSpec> specs;
  std::vector<Want> reads;
};

Sample AllTypes() {
  Sample s;
  s.specs = {{"b", 1, DataType::Boolean()},
             {"i8", 2, DataType::TinyInt()},
             {"i16", 3, DataType::SmallInt()},
             {"i32", 4, DataType::Int()},
             {"i64", 5, DataType::BigInt(false)},
             {"f32", 6, DataType::Float()},
             {"f64", 7, DataType::Double()},
             {"d5", 8, DataType::Decimal(4, 2)},
             {"d9", 9, DataType::Decimal(9, 3)},
             {"d18", 10, DataType::Decimal(18, 4)},
             {"d38", 11, DataType::Decimal(38, 10)},
             {"s", 12, DataType::String()},
             {"bin", 13, DataType::Bytes()},
             {"day", 14, DataType::Date()},
             {"ts3", 15, DataType::Timestamp(3)},
             {"ts6", 16, DataType::Timestamp(6)},
             {"req", 17, DataType::Int(false)}};
  s.reads = {{"b", "BOOLEAN"},        {"i8", "TINYINT"},         {"i16", "SMALLINT"},
             {"i32", "INTEGER"},      {"i64", "BIGINT"},         {"f32", "FLOAT"},
             {"f64", "DOUBLE"},       {"d5", "DECIMAL(4,2)"},    {"d9", "DECIMAL(9,3)"},
             {"d18", "DECIMAL(18,4)"}, {"d38", "DECIMAL(38,10)"}, {"s", "VARCHAR"},
             {"bin", "BLOB"},         {"day", "DATE"},           {"ts3", "TIMESTAMP"},
             {"ts6", "TIMESTAMP"},    {"req", "INTEGER"},
             // Widening reads: integer keys as BIGINT, floats as DOUBLE, decimals wider.
             {"i32", "BIGINT"},       {"req", "BIGINT"},         {"f32", "DOUBLE"},
             {"d5", "DECIMAL(9,2)"},  {"d9", "DECIMAL(38,3)"},   {"d18", "DECIMAL(20,4)"}};
  return s;
}

Row SampleRow(std::mt19937_64& rng, int64_t i) {
  auto pick = [&](int64_t n) { return static_cast<int64_t>(rng() % static_cast<uint64_t>(n)); };
  auto maybe_null = [&](Datum d) { return pick(10) == 0 ? Datum() : d; };
  static const int32_t kInts[] = {INT32_MIN, INT32_MAX, 0, -1, 1};
  static const int64_t kLongs[] = {INT64_MIN, INT64_MAX, 0, -1};
  static const double kDoubles[] = {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
                                    -std::numeric_limits<double>::infinity(), -0.0, 1e308, -5e-324};
  const bool edge = pick(8) == 0;
  int128_t big = (static_cast<int128_t>(pick(INT64_MAX)) << 60) + pick(1000000);
  if (pick(2) == 0) big = -big;
  if (edge) big = pick(2) ? -(static_cast<int128_t>(99999999999) * 1000000000 * 1000000000 * 1000000000 + 999999999)
                          : static_cast<int128_t>(0);
  std::string str;
  const int64_t kind = pick(10);
  if (kind == 0) {
    str = "";
  } else if (kind == 1) {
    str = std::string(static_cast<size_t>(100 + pick(400)), static_cast<char>('a' + pick(26)));
  } else {
    str = "v" + std::to_string(pick(50));  // repeats: dictionary pages
  }
  std::string bin(static_cast<size_t>(pick(20)), '\0');
  for (char& c : bin) c = static_cast<char>(pick(256));
  return Row{maybe_null(Datum(pick(2) == 0)),
             maybe_null(Datum(static_cast<int64_t>(edge ? (pick(2) ? -128 : 127) : pick(256) - 128))),
             maybe_null(Datum(static_cast<int64_t>(edge ? (pick(2) ? -32768 : 32767) : pick(65536) - 32768))),
             maybe_null(Datum(edge ? kInts[pick(5)] : static_cast<int32_t>(rng()))),
             Datum(edge ? kLongs[pick(4)] : static_cast<int64_t>(rng())),
             maybe_null(Datum(edge ? static_cast<float>(kDoubles[pick(6)]) : static_cast<float>(pick(100000)) / 7.0f)),
             maybe_null(Datum(edge ? kDoubles[pick(6)] : static_cast<double>(static_cast<int64_t>(rng())) / 3.0)),
             maybe_null(Datum(DecimalValue{edge ? (pick(2) ? -9999 : 9999) : pick(19999) - 9999})),
             maybe_null(Datum(DecimalValue{pick(1999999999) - 999999999})),
             maybe_null(Datum(DecimalValue{edge ? -999999999999999999 : pick(INT64_MAX / 10) - INT64_MAX / 20})),
             maybe_null(Datum(DecimalValue{big})),
             maybe_null(Datum(str)),
             maybe_null(Datum(bin)),
             maybe_null(Datum(static_cast<int64_t>(pick(200000) - 100000))),  // days around 1970
             maybe_null(Datum(TimestampValue{edge ? -62135596800000 : pick(8000000000000) - 4000000000000, 0})),
             maybe_null(Datum(TimestampValue::FromMicros(pick(int64_t{8} << 40) - (int64_t{4} << 40)))),
             Datum(static_cast<int32_t>(i))};
}

std::string WriteSample(const std::string& dir, const std::string& name, const Sample& sample, int64_t rows,
                        ParquetWriteOptions options, uint64_t seed = 42) {
  std::string path = JoinPath(dir, name);
  auto writer = ParquetFileWriter::Create(Db(), path, sample.specs, options);
  EXPECT_TRUE(writer.ok()) << writer.status().ToString();
  std::mt19937_64 rng(seed);
  for (int64_t i = 0; i < rows; ++i) EXPECT_TRUE((*writer)->Append(SampleRow(rng, i)).ok());
  auto done = (*writer)->Finish();
  EXPECT_TRUE(done.ok()) << done.status().ToString();
  return path;
}

TEST(ParquetChunkReaderTest, EveryTypeAndCodecMatchesDuckDB) {
  testing::TempDir dir;
  const Sample sample = AllTypes();
  for (const char* codec : {"zstd", "snappy", "gzip", "uncompressed"}) {
    ParquetWriteOptions options;
    options.compression = codec;
    options.row_group_rows = 1500;  // row groups end inside output chunks
    std::string path = WriteSample(dir.path(), std::string(codec) + ".parquet", sample, 7000, options);
    SCOPED_TRACE(codec);
    ExpectSameAsDuckDB(path, sample.reads);
  }
}

TEST(ParquetChunkReaderTest, SeveralPagesAndDictionaryFallback) {
  testing::TempDir dir;
  // Long distinct strings fill the 1 MiB dictionary (the rest of the chunk is PLAIN) and span pages.
  std::vector<ParquetColumnSpec> specs = {{"id", 1, DataType::BigInt(false)}, {"s", 2, DataType::String()},
                                          {"n", 3, DataType::Int()}};
  ParquetWriteOptions options;
  options.row_group_rows = 20000;
  std::string path = JoinPath(dir.path(), "pages.parquet");
  auto writer = ParquetFileWriter::Create(Db(), path, specs, options);
  ASSERT_TRUE(writer.ok());
  std::mt19937_64 rng(7);
  for (int64_t i = 0; i < 30000; ++i) {
    std::string s = std::to_string(rng()) + std::string(static_cast<size_t>(rng() % 200), 'x');
    Datum sd = i % 13 == 0 ? Datum() : Datum(s);
    Datum nd = i % 7 == 0 ? Datum() : Datum(static_cast<int32_t>(rng()));
    ASSERT_TRUE((*writer)->Append(Row{Datum(i), sd, nd}).ok());
  }
  ASSERT_TRUE((*writer)->Finish().ok());
  auto footer = ReadParquetFooter(path);
  ASSERT_TRUE(footer.ok());
  ASSERT_EQ(footer->row_groups.size(), 2u);
  ExpectSameAsDuckDB(path, {{"id", "BIGINT"}, {"s", "VARCHAR"}, {"n", "INTEGER"}, {"n", "BIGINT"}});
}

TEST(ParquetChunkReaderTest, ChunksOutliveTheReaderAndRowNumbersCount) {
  testing::TempDir dir;
  const Sample sample = AllTypes();
  ParquetWriteOptions options;
  options.row_group_rows = 1000;
  std::string path = WriteSample(dir.path(), "a.parquet", sample, 5000, options);
  std::vector<ParquetChunkColumn> cols;
  cols.push_back({"s", std::nullopt, TypeOf("VARCHAR")});
  cols.push_back({"", std::nullopt, TypeOf("BIGINT"), true});
  cols.push_back({"gone", std::nullopt, TypeOf("VARCHAR"), false, /*absent_is_null=*/true});
  cols.push_back({"renamed", 17, TypeOf("INTEGER")});  // field id of `req`, which holds the row index
  std::vector<DuckDataChunk> chunks;
  {
    auto reader = ParquetChunkReader::Open(path, std::move(cols));
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    EXPECT_EQ((*reader)->row_count(), 5000);
    while (true) {
      auto chunk = (*reader)->Next();
      ASSERT_TRUE(chunk.ok()) << chunk.status().ToString();
      if (!*chunk) break;
      chunks.push_back(std::move(chunk).value());
    }
  }
  Table strings = ReadWithDuckDB(path, {{"s", "VARCHAR"}});
  DuckLogicalType varchar = TypeOf("VARCHAR");
  int64_t row = 0;
  for (const DuckDataChunk& c : chunks) {
    const auto* numbers = static_cast<const int64_t*>(duckdb_vector_get_data(c.column(1)));
    const auto* req = static_cast<const int32_t*>(duckdb_vector_get_data(c.column(3)));
    for (idx_t r = 0; r < c.size(); ++r, ++row) {
      ASSERT_EQ(Cell(c.column(0), varchar.raw(), r), strings[row][0]) << row;
      ASSERT_EQ(numbers[r], row);
      ASSERT_EQ(req[r], row);
      ASSERT_EQ(Cell(c.column(2), varchar.raw(), r), "NULL");
    }
  }
  EXPECT_EQ(row, 5000);
}

TEST(ParquetChunkReaderTest, SelectedRowGroupsKeepTheirRowNumbers) {
  testing::TempDir dir;
  ParquetWriteOptions options;
  options.row_group_rows = 1000;
  std::string path = WriteSample(dir.path(), "a.parquet", AllTypes(), 5000, options);
  std::vector<ParquetChunkColumn> cols;
  cols.push_back({"", std::nullopt, TypeOf("BIGINT"), true});
  cols.push_back({"req", 17, TypeOf("INTEGER")});  // holds the row index
  auto reader = ParquetChunkReader::Open(path, std::move(cols));
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  ASSERT_EQ((*reader)->footer().row_groups.size(), 5u);
  EXPECT_FALSE((*reader)->SelectRowGroups({true, false}).ok());  // one entry per row group
  ASSERT_TRUE((*reader)->SelectRowGroups({false, true, false, true, true}).ok());
  EXPECT_EQ((*reader)->row_count(), 3000);
  EXPECT_EQ((*reader)->row_groups_read(), 3);
  EXPECT_EQ((*reader)->next_position(), 1000);
  std::vector<int64_t> positions;
  while (true) {
    auto chunk = (*reader)->Next();
    ASSERT_TRUE(chunk.ok()) << chunk.status().ToString();
    if (!*chunk) break;
    const auto* numbers = static_cast<const int64_t*>(duckdb_vector_get_data(chunk->column(0)));
    const auto* req = static_cast<const int32_t*>(duckdb_vector_get_data(chunk->column(1)));
    for (idx_t r = 0; r < chunk->size(); ++r) {
      ASSERT_EQ(numbers[r], req[r]) << "a row number is the row's position in the file";
      positions.push_back(numbers[r]);
    }
  }
  ASSERT_EQ(positions.size(), 3000u);
  for (size_t i = 0; i < positions.size(); ++i) {
    ASSERT_EQ(positions[i], i < 1000 ? 1000 + static_cast<int64_t>(i) : 2000 + static_cast<int64_t>(i)) << i;
  }
  EXPECT_EQ((*reader)->next_position(), 5000);
  // The footer keeps each column chunk's statistics (Tide's writer writes min, max and null count).
  for (const ParquetRowGroup& rg : (*reader)->footer().row_groups) {
    for (const ParquetColumnChunk& chunk : rg.columns) EXPECT_TRUE(chunk.statistics.null_count.has_value());
  }
}

// Files DuckDB writes: dictionaries for numbers too, every column OPTIONAL, pages v1 or v2 (v2 also
// brings DELTA encodings, which the reader refuses when it meets them: NotSupported, never wrong values).
TEST(ParquetChunkReaderTest, DuckDBWrittenFilesMatchOrAreNotSupported) {
  testing::TempDir dir;
  const std::vector<Want> columns = {
      {"b", "BOOLEAN"},  {"i8", "TINYINT"},  {"i16", "SMALLINT"},        {"i32", "INTEGER"},
      {"i64", "BIGINT"}, {"f", "FLOAT"},     {"d", "DOUBLE"},            {"dec", "DECIMAL(18,3)"},
      {"s", "VARCHAR"},  {"day", "DATE"},    {"ts", "TIMESTAMP"},        {"dec38", "DECIMAL(38,5)"}};
  const std::string select =
      "SELECT CASE WHEN g % 11 = 0 THEN NULL ELSE g % 3 = 0 END AS b, (g % 200 - 100)::TINYINT AS i8, "
      "(g * 37 % 60000 - 30000)::SMALLINT AS i16, CASE WHEN g % 5 = 0 THEN NULL ELSE (g * 7919) % 1000 END::INTEGER AS i32, "
      "g * 1000003 - 5000000000 AS i64, (g / 7)::FLOAT AS f, CASE WHEN g % 13 = 0 THEN NULL ELSE g / 3.0 END::DOUBLE AS d, "
      "((g * 12345 % 99999999 - 50000000) / 7)::DECIMAL(18,3) AS dec, "
      "CASE WHEN g % 17 = 0 THEN NULL WHEN g % 4 = 0 THEN repeat('x', (g % 300)::INTEGER) ELSE 'k' || (g % 40)::VARCHAR END AS s, "
      "DATE '1960-01-01' + (g % 30000)::INTEGER AS day, TIMESTAMP '1950-06-01 00:00:00' + g * INTERVAL 1234567 MICROSECOND AS ts, "
      "(g * 1000000007 - 12345678901)::DECIMAL(38,5) * 1000000000000 AS dec38 "
      "FROM range(20000) t(g)";
  DuckConnection conn = Connect();
  int supported = 0, refused = 0;
  for (const char* version : {"V1", "V2"}) {
    for (const char* codec : {"zstd", "snappy", "gzip", "uncompressed"}) {
      const std::string path = JoinPath(dir.path(), std::string(version) + "-" + codec + ".parquet");
      Status st = conn.Execute("COPY (" + select + ") TO " + QuoteSqlString(path) + " (FORMAT parquet, COMPRESSION " +
                               codec + ", PARQUET_VERSION " + version + ", ROW_GROUP_SIZE 3000)");
      ASSERT_TRUE(st.ok()) << st.ToString();
      for (const Want& w : columns) {
        SCOPED_TRACE(path + " " + w.name);
        auto ours = ReadWithReader(path, {w});
        if (!ours.ok()) {
          EXPECT_TRUE(ours.status().IsNotSupported()) << ours.status().ToString();
          EXPECT_STREQ(version, "V2") << ours.status().ToString();
          ++refused;
          continue;
        }
        Table theirs = ReadWithDuckDB(path, {w});
        ASSERT_EQ(*ours, theirs);
        ++supported;
      }
    }
  }
  EXPECT_GE(supported, 4 * static_cast<int>(columns.size()));  // every V1 column at least
  std::printf("DuckDB-written columns: %d read, %d refused\n", supported, refused);
}

// ---- Java's files ----

bool InScope(const ParquetSchemaElement& e) {
  if (e.num_children > 0 || !e.type || e.repetition.value_or(0) == 2) return false;
  const std::string& lt = e.logical_type;
  const int32_t ct = e.converted_type.value_or(-1);
  if (lt.find("NANOS") != std::string::npos || lt.rfind("TIME(", 0) == 0 || ct == 7 || ct == 8) return false;
  if (lt.find("unsigned") != std::string::npos || (ct >= 11 && ct <= 14)) return false;
  switch (static_cast<ParquetPhysicalType>(*e.type)) {
    case ParquetPhysicalType::kInt96: return false;
    case ParquetPhysicalType::kFixedLenByteArray: return ct == 5 || lt.rfind("DECIMAL", 0) == 0;
    default: return true;
  }
}

TEST(ParquetChunkReaderTest, JavaFixturesMatchDuckDB) {
  int files = 0, columns = 0, refused = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(testing::JavaFixtureWarehouse())) {
    if (entry.path().extension() != ".parquet") continue;
    const std::string path = entry.path().string();
    SCOPED_TRACE(path);
    auto footer = ReadParquetFooter(path);
    ASSERT_TRUE(footer.ok()) << footer.status().ToString();
    DuckConnection conn = Connect();
    auto described = conn.Query("DESCRIBE SELECT * FROM read_parquet(" + QuoteSqlString(path) +
                                ", hive_partitioning = false, binary_as_string = false)");
    ASSERT_TRUE(described.ok()) << described.status().ToString();
    std::map<std::string, std::string> duck_types;
    while (DuckDataChunk chunk = described->FetchChunk()) {
      DuckLogicalType vt = TypeOf("VARCHAR");
      for (idx_t r = 0; r < chunk.size(); ++r) {
        std::string name = Cell(chunk.column(0), vt.raw(), r), type = Cell(chunk.column(1), vt.raw(), r);
        duck_types[name.substr(1, name.size() - 2)] = type.substr(1, type.size() - 2);
      }
    }
    std::vector<Want> wants;
    const ParquetSchemaElement& root = footer->schema[0];
    size_t element = 1;
    for (int32_t child = 0; child < root.num_children; ++child) {
      const ParquetSchemaElement& e = footer->schema[element];
      int64_t pending = 1;
      while (pending > 0) pending += footer->schema[element++].num_children - 1;
      const std::string& type = duck_types[e.name];
      if (InScope(e)) {
        wants.push_back({e.name, type});
        continue;
      }
      std::vector<ParquetChunkColumn> one;
      one.push_back({e.name, std::nullopt, TypeOf(e.num_children > 0 ? "VARCHAR" : type)});
      auto reader = ParquetChunkReader::Open(path, std::move(one));
      EXPECT_TRUE(reader.status().IsNotSupported()) << e.name << " " << type << ": " << reader.status().ToString();
      ++refused;
    }
    if (!wants.empty()) ExpectSameAsDuckDB(path, wants);
    ++files;
    columns += static_cast<int>(wants.size());
  }
  EXPECT_GT(files, 100);
  EXPECT_GT(columns, 300);
  EXPECT_GT(refused, 0);
}

// ---- Scope limits and damage ----

TEST(ParquetChunkReaderTest, OutOfScopeIsNotSupportedAndMissingIsNotFound) {
  testing::TempDir dir;
  std::vector<ParquetColumnSpec> specs = {{"id", 1, DataType::BigInt()},
                                          {"list", 2, DataType::Array(DataType::Int())},
                                          {"ts9", 3, DataType::Timestamp(9)}};
  std::string path = JoinPath(dir.path(), "nested.parquet");
  auto writer = ParquetFileWriter::Create(Db(), path, specs);
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->Append(Row{Datum(int64_t{1}), Datum::Nested({Datum(1)}), Datum(TimestampValue{1, 2})}).ok());
  ASSERT_TRUE((*writer)->Finish().ok());
  auto open_one = [&](const std::string& name, const std::string& type) {
    std::vector<ParquetChunkColumn> cols;
    cols.push_back({name, std::nullopt, TypeOf(type)});
    return ParquetChunkReader::Open(path, std::move(cols)).status();
  };
  EXPECT_TRUE(open_one("list", "INTEGER[]").IsNotSupported());
  EXPECT_TRUE(open_one("ts9", "TIMESTAMP").IsNotSupported());       // INT96
  EXPECT_TRUE(open_one("id", "VARCHAR").IsNotSupported());          // an unsupported conversion
  EXPECT_TRUE(open_one("id", "TIMESTAMP").IsNotSupported());        // no timestamp annotation
  Status missing = open_one("nope", "BIGINT");
  EXPECT_TRUE(missing.IsCorruption()) << missing.ToString();
  EXPECT_NE(missing.message().find("nope"), std::string::npos);
  EXPECT_TRUE(open_one("id", "BIGINT").ok());
  std::vector<ParquetChunkColumn> cols;
  cols.push_back({"id", std::nullopt, TypeOf("BIGINT")});
  EXPECT_TRUE(ParquetChunkReader::Open(JoinPath(dir.path(), "absent.parquet"), std::move(cols)).status().IsNotFound());
}

TEST(ParquetChunkReaderTest, TextIsCheckedAndBytesStayBytes) {
  testing::TempDir dir;
  std::vector<ParquetColumnSpec> specs = {{"s", 1, DataType::String()}, {"bin", 2, DataType::Bytes()}};
  const std::string bad_utf8 = "ok\xff\xfe";
  for (bool dictionary : {true, false}) {
    std::string path = JoinPath(dir.path(), dictionary ? "dict.parquet" : "plain.parquet");
    auto writer = ParquetFileWriter::Create(Db(), path, specs);
    ASSERT_TRUE(writer.ok());
    for (int i = 0; i < 3000; ++i) {
      // Distinct long strings past the dictionary's 1 MiB make the last pages PLAIN.
      std::string text = dictionary ? "a" : std::to_string(i) + std::string(1000, 'y');
      if (i == 2999) text += bad_utf8;
      ASSERT_TRUE((*writer)->Append(Row{Datum(text), Datum(bad_utf8)}).ok());
    }
    ASSERT_TRUE((*writer)->Finish().ok());
    auto text = ReadWithReader(path, {{"s", "VARCHAR"}});
    EXPECT_TRUE(text.status().IsCorruption()) << text.status().ToString();
    EXPECT_NE(text.status().message().find("UTF-8"), std::string::npos) << text.status().ToString();
    ExpectSameAsDuckDB(path, {{"bin", "BLOB"}});
    // DuckDB's casts between text and bytes rewrite bytes (escapes): the reader leaves those to DuckDB.
    std::vector<ParquetChunkColumn> cols;
    cols.push_back({"bin", std::nullopt, TypeOf("VARCHAR")});
    cols.push_back({"s", std::nullopt, TypeOf("BLOB")});
    EXPECT_TRUE(ParquetChunkReader::Open(path, std::move(cols)).status().IsNotSupported());
  }
}

std::string WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return path;
}

Status ReadAll(const std::string& path, const std::vector<Want>& columns) {
  auto table = ReadWithReader(path, columns);
  return table.status();
}

TEST(ParquetChunkReaderTest, DamagedFilesAreCorruptionNeverACrash) {
  testing::TempDir dir;
  const Sample sample = AllTypes();
  ParquetWriteOptions options;
  options.row_group_rows = 300;
  std::string good_path = WriteSample(dir.path(), "good.parquet", sample, 600, options);
  auto good = FileSystem::Local()->ReadFile(good_path);
  ASSERT_TRUE(good.ok());
  std::vector<Want> reads(sample.reads.begin(), sample.reads.begin() + 17);
  ASSERT_TRUE(ReadAll(good_path, reads).ok());
  for (size_t len : {size_t{0}, size_t{11}, good->size() / 3, good->size() / 2, good->size() - 9, good->size() - 1}) {
    std::string path = WriteBytes(JoinPath(dir.path(), "t" + std::to_string(len) + ".parquet"), good->substr(0, len));
    Status st = ReadAll(path, reads);
    EXPECT_TRUE(st.IsCorruption()) << len << ": " << st.ToString();
    EXPECT_NE(st.message().find(path), std::string::npos) << st.ToString();
  }
  int corrupt = 0, tried = 0;
  // A stride that is prime to the value widths still lands in every page header, page and the footer.
  for (size_t pos = 0; pos < good->size(); pos += 23, ++tried) {
    std::string bad = *good;
    bad[pos] = static_cast<char>(bad[pos] ^ 0x5a);
    std::string path = WriteBytes(JoinPath(dir.path(), "f.parquet"), bad);
    Status st = ReadAll(path, reads);
    if (!st.ok()) {
      EXPECT_TRUE(st.IsCorruption() || st.IsNotSupported() || st.IsInvalidArgument()) << pos << ": " << st.ToString();
      ++corrupt;
    }
  }
  // The file's values are random and barely compress, so many flips land in values, which nothing
  // checks (page CRCs are not verified): those read back as other values. Damage to structure is caught.
  EXPECT_GT(corrupt, tried / 10) << "of " << tried;
}

}  // namespace
}  // namespace tide
