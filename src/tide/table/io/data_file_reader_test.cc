// OpenDataFile's two Parquet paths agree: Tide's own reader (DataFileReadOptions::native, for point
// lookups) returns the rows and positions a DuckDB query returns; a file it cannot decode (DuckDB's V2
// pages bring DELTA encodings) is read on by DuckDB from the first row not returned; a row-group
// selection leaves the other groups' rows out; a row filter builds only the rows it matches.
#include "tide/table/io/data_file_reader.h"

#include <gtest/gtest.h>

#include <map>

#include "testing/temp_dir.h"
#include "tide/base/strings.h"
#include "tide/io/file_system.h"

namespace tide {
namespace {

struct ReadRows {
  std::vector<Row> rows;
  std::vector<int64_t> positions;
};

Result<ReadRows> ReadAll(const std::string& path, const std::vector<ParquetColumnSpec>& columns,
                         const DataFileReadOptions& options) {
  TIDE_ASSIGN_OR_RETURN(auto reader, OpenDataFile(path, columns, "db.t", options));
  ReadRows out;
  std::vector<Row> rows;
  std::vector<int64_t> positions;
  while (true) {
    rows.clear();
    positions.clear();
    TIDE_ASSIGN_OR_RETURN(bool more, reader->NextBatch(1024, &rows, &positions));
    if (!more) break;
    for (size_t i = 0; i < rows.size(); ++i) {
      out.rows.push_back(std::move(rows[i]));
      out.positions.push_back(positions[i]);
    }
  }
  return out;
}

TEST(DataFileReaderTest, TidesParquetReaderMatchesDuckDBAndHandsOverWhatItCannotDecode) {
  testing::TempDir dir;
  auto db = DataFileDatabase();
  ASSERT_TRUE(db.ok());
  auto conn = (*db)->Connect();
  ASSERT_TRUE(conn.ok());
  const std::vector<ParquetColumnSpec> columns = {{"id", std::nullopt, DataType::BigInt()},
                                                  {"s", std::nullopt, DataType::String()},
                                                  {"d", std::nullopt, DataType::Double()},
                                                  {"day", std::nullopt, DataType::Date()}};
  for (const char* version : {"V1", "V2"}) {
    SCOPED_TRACE(version);
    const std::string path = JoinPath(dir.path(), std::string("data-") + version + ".parquet");
    Status written = conn->Execute(
        "COPY (SELECT g AS id, CASE WHEN g % 7 = 0 THEN NULL ELSE 'v' || g END AS s, g / 4.0 AS d, "
        "DATE '2020-01-01' + (g % 1000)::INTEGER AS day FROM range(20000) t(g)) TO " + QuoteSqlString(path) +
        " (FORMAT parquet, PARQUET_VERSION " + version + ", ROW_GROUP_SIZE 3000)");
    ASSERT_TRUE(written.ok()) << written.ToString();
    DataFileReadOptions duck;
    DataFileReadOptions native;
    native.native = true;
    auto expected = ReadAll(path, columns, duck);
    ASSERT_TRUE(expected.ok()) << expected.status().ToString();
    ASSERT_EQ(expected->rows.size(), 20000u);
    auto got = ReadAll(path, columns, native);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(got->positions, expected->positions);
    EXPECT_EQ(got->rows, expected->rows);

    // Only the third row group: exactly its rows, or (when DuckDB took over) at least them, each at its
    // position.
    int64_t first = 0, count = 0;
    native.select_row_groups = [&](const ParquetFooter& footer) {
      std::vector<bool> keep(footer.row_groups.size(), false);
      keep[2] = true;
      for (size_t g = 0; g < 2; ++g) first += footer.row_groups[g].num_rows;
      count = footer.row_groups[2].num_rows;
      return keep;
    };
    auto group = ReadAll(path, columns, native);
    ASSERT_TRUE(group.ok()) << group.status().ToString();
    std::map<int64_t, Row> by_position;
    for (size_t i = 0; i < group->rows.size(); ++i) by_position[group->positions[i]] = group->rows[i];
    ASSERT_GT(count, 0);
    for (int64_t p = first; p < first + count; ++p) {
      ASSERT_TRUE(by_position.count(p)) << p;
      EXPECT_EQ(by_position[p], expected->rows[static_cast<size_t>(p)]) << p;
    }
    if (std::string(version) == "V1") {
      EXPECT_EQ(static_cast<int64_t>(group->rows.size()), count);
    }
  }
}

TEST(DataFileReaderTest, TidesParquetReaderBuildsOnlyTheRowsOfARowFilter) {
  // A point read's key: only rows whose columns equal the values come back (at their positions); a
  // column index outside the columns read is refused.
  testing::TempDir dir;
  auto db = DataFileDatabase();
  ASSERT_TRUE(db.ok());
  auto conn = (*db)->Connect();
  ASSERT_TRUE(conn.ok());
  const std::string path = JoinPath(dir.path(), "data.parquet");
  Status written = conn->Execute("COPY (SELECT g AS id, 'k' || (g % 3) AS s FROM range(10000) t(g)) TO " +
                                 QuoteSqlString(path) + " (FORMAT parquet, ROW_GROUP_SIZE 3000)");
  ASSERT_TRUE(written.ok()) << written.ToString();
  const std::vector<ParquetColumnSpec> columns = {{"id", std::nullopt, DataType::BigInt()},
                                                  {"s", std::nullopt, DataType::String()}};
  DataFileReadOptions options;
  options.native = true;
  options.native_row_equals = {{0, Datum(int64_t{4321})}};
  auto one = ReadAll(path, columns, options);
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  EXPECT_EQ(one->rows, (std::vector<Row>{{Datum(int64_t{4321}), Datum(std::string("k1"))}}));
  EXPECT_EQ(one->positions, (std::vector<int64_t>{4321}));

  options.native_row_equals = {{1, Datum(std::string("k2"))}, {0, Datum(int64_t{8})}};
  auto both = ReadAll(path, columns, options);
  ASSERT_TRUE(both.ok()) << both.status().ToString();
  EXPECT_EQ(both->positions, (std::vector<int64_t>{8}));
  options.native_row_equals = {{1, Datum(std::string("k1"))}, {0, Datum(int64_t{8})}};
  auto none = ReadAll(path, columns, options);
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_TRUE(none->rows.empty());

  options.native_row_equals = {{2, Datum(int64_t{1})}};
  EXPECT_TRUE(OpenDataFile(path, columns, "db.t", options).status().IsInvalidArgument());
}

TEST(DataFileReaderTest, MissingColumnIsCorruptionOnBothPaths) {
  testing::TempDir dir;
  auto conn = (*DataFileDatabase())->Connect();
  ASSERT_TRUE(conn.ok());
  const std::string path = JoinPath(dir.path(), "data-1.parquet");
  ASSERT_TRUE(conn->Execute("COPY (SELECT 1::BIGINT AS id) TO " + QuoteSqlString(path) + " (FORMAT parquet)").ok());
  for (bool native : {false, true}) {
    DataFileReadOptions options;
    options.native = native;
    auto read = ReadAll(path, {{"id", std::nullopt, DataType::BigInt()}, {"gone", std::nullopt, DataType::Int()}},
                        options);
    ASSERT_TRUE(read.status().IsCorruption()) << read.status().ToString();
    EXPECT_NE(read.status().message().find("gone"), std::string::npos) << read.status().ToString();
    EXPECT_NE(read.status().message().find(path), std::string::npos) << read.status().ToString();
  }
}

}  // namespace
}  // namespace tide
