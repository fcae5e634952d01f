// Damaged Parquet files: truncation and flipped bytes must give a Status naming the file (Corruption for
// damage), never a crash, a hang or a silent partial read of a truncated file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "testing/temp_dir.h"
#include "tide/format/parquet_reader.h"
#include "tide/io/file_system.h"

namespace tide {
namespace {

std::string ReadBytes(const std::string& path) {
  auto data = FileSystem::Local()->ReadFile(path);
  EXPECT_TRUE(data.ok()) << path;
  return data.ValueOr("");
}

std::string WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  EXPECT_TRUE(out.good());
  return path;
}

// A Java-written file with INT96, FLBA decimal, date and binary columns (append_complex_data).
std::string Original() {
  return JoinPath(testing::JavaFixtureWarehouse(),
                  "append_complex_data.db/append_complex_data/f1=10/bucket-0/"
                  "data-f8754699-0c43-4e53-be00-7e8af1754913-0.parquet");
}

std::vector<ParquetColumnSpec> Columns() {
  return {{"f1", 0, DataType::Int()},          {"f2", 1, DataType::Int()},
          {"f3", 2, DataType::Date()},         {"f4", 3, DataType::Timestamp(9)},
          {"f5", 4, DataType::Decimal(23, 5)}, {"f6", 5, DataType::Bytes()}};
}

Result<std::vector<Row>> ReadEverything(const DuckDB& db, const std::string& path) {
  TIDE_ASSIGN_OR_RETURN(auto reader, ParquetFileReader::Open(db, path, Columns()));
  return reader->ReadAll();
}

TEST(ParquetCorruptionTest, TruncatedFileIsCorruptionNamingIt) {
  testing::TempDir dir;
  auto db = DuckDB::Open();
  ASSERT_TRUE(db.ok());
  const std::string good = ReadBytes(Original());
  ASSERT_GT(good.size(), 100u);
  for (size_t len : {size_t{0}, size_t{4}, size_t{11}, good.size() / 3, good.size() / 2, good.size() - 9,
                     good.size() - 4, good.size() - 1}) {
    std::string path = WriteBytes(JoinPath(dir.path(), "trunc-" + std::to_string(len) + ".parquet"), good.substr(0, len));
    auto rows = ReadEverything(*db, path);
    ASSERT_FALSE(rows.ok()) << "truncated to " << len;
    EXPECT_TRUE(rows.status().IsCorruption()) << rows.status().ToString();
    EXPECT_NE(rows.status().message().find(path), std::string::npos) << rows.status().ToString();
    auto info = ReadParquetFileInfo(path);
    ASSERT_FALSE(info.ok());
    EXPECT_TRUE(info.status().IsCorruption()) << info.status().ToString();
    auto count = ReadParquetRowCount(path);
    EXPECT_TRUE(count.status().IsCorruption()) << count.status().ToString();
  }
}

TEST(ParquetCorruptionTest, DamagedPagesAndFooterAreCorruptionNamingIt) {
  testing::TempDir dir;
  auto db = DuckDB::Open();
  ASSERT_TRUE(db.ok());
  const std::string good = ReadBytes(Original());
  // Inside the first column's compressed page (zstd fails), in the footer length, and in the end magic.
  for (size_t pos : {size_t{100}, good.size() - 6, good.size() - 2}) {
    std::string bad = good;
    bad[pos] = static_cast<char>(bad[pos] ^ 0xff);
    std::string path = WriteBytes(JoinPath(dir.path(), "flip-" + std::to_string(pos) + ".parquet"), bad);
    auto rows = ReadEverything(*db, path);
    ASSERT_FALSE(rows.ok()) << "byte " << pos;
    EXPECT_TRUE(rows.status().IsCorruption()) << rows.status().ToString();
    EXPECT_NE(rows.status().message().find(path), std::string::npos) << rows.status().ToString();
  }
}

// Every byte flipped in turn: each read ends with rows or a Status; damage that is detected is reported
// as Corruption (or NotSupported/InvalidArgument when the damage turns a type into one Tide does not read).
TEST(ParquetCorruptionTest, EveryFlippedByteEndsInRowsOrAStatus) {
  testing::TempDir dir;
  auto db = DuckDB::Open(":memory:", {{"threads", "1"}});
  ASSERT_TRUE(db.ok());
  const std::string good = ReadBytes(Original());
  auto expected = ReadEverything(*db, Original());
  ASSERT_TRUE(expected.ok()) << expected.status().ToString();
  int corrupt = 0, same = 0, different = 0, tried = 0;
  // Every third byte keeps the test quick; the pattern still lands in every page and the footer.
  for (size_t pos = 0; pos < good.size(); pos += 3, ++tried) {
    std::string bad = good;
    bad[pos] = static_cast<char>(bad[pos] ^ 0x5a);
    // A fresh name for each variant: no cache of an earlier file with the same name may answer.
    std::string path = WriteBytes(JoinPath(dir.path(), "v" + std::to_string(pos) + ".parquet"), bad);
    auto rows = ReadEverything(*db, path);
    if (rows.ok()) {
      (*rows == *expected ? same : different)++;
    } else {
      const Status& st = rows.status();
      EXPECT_TRUE(st.IsCorruption() || st.IsNotSupported() || st.IsInvalidArgument()) << "byte " << pos << ": "
                                                                                       << st.ToString();
      ++corrupt;
    }
    std::filesystem::remove(path);
  }
  // Parquet has no checksum Tide can rely on (DuckDB does not verify page CRCs): some flips in values or
  // statistics go unnoticed. Most damage is caught.
  EXPECT_GT(corrupt, tried / 3) << "same " << same << ", different " << different;
}

}  // namespace
}  // namespace tide
