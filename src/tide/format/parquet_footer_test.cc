// Tide's own Parquet footer parser: the same schema DuckDB sees on every Java fixture and on files DuckDB
// wrote, and damaged footers ending in a Status.
#include "tide/format/parquet_footer.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "testing/temp_dir.h"
#include "tide/base/bytes.h"
#include "tide/format/parquet_metadata.h"
#include "tide/format/thrift_compact.h"
#include "tide/io/file_system.h"

namespace tide {
namespace {

void ExpectSameColumns(const std::vector<ParquetFileColumn>& tide, const std::vector<ParquetFileColumn>& duck,
                       const std::string& where) {
  ASSERT_EQ(tide.size(), duck.size()) << where;
  for (size_t i = 0; i < tide.size(); ++i) {
    const ParquetFileColumn& a = tide[i];
    const ParquetFileColumn& b = duck[i];
    std::string at = where + "/" + b.name;
    EXPECT_EQ(a.name, b.name) << at;
    EXPECT_EQ(a.field_id, b.field_id) << at;
    EXPECT_EQ(a.physical_type, b.physical_type) << at;
    EXPECT_EQ(a.type_length, b.type_length) << at;
    EXPECT_EQ(a.converted_type, b.converted_type) << at;
    EXPECT_EQ(a.precision, b.precision) << at;
    EXPECT_EQ(a.scale, b.scale) << at;
    // DuckDB prints no repetition for a group whose repetition is unset; Tide reads that as REQUIRED.
    if (!b.repetition.empty()) {
      EXPECT_EQ(a.repetition, b.repetition) << at;
    }
    EXPECT_EQ(a.logical_type.empty(), b.logical_type.empty()) << at << ": " << a.logical_type << " / " << b.logical_type;
    ExpectSameColumns(a.children, b.children, at);
  }
}

TEST(ParquetFooterTest, SameSchemaAsDuckDbOnEveryJavaFixture) {
  auto db = DuckDB::Open();
  ASSERT_TRUE(db.ok());
  auto conn = db->Connect();
  ASSERT_TRUE(conn.ok());
  int files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(testing::JavaFixtureWarehouse())) {
    if (entry.path().extension() != ".parquet") continue;
    const std::string path = entry.path().string();
    auto tide = ReadParquetFileInfo(path);
    ASSERT_TRUE(tide.ok()) << tide.status().ToString();
    auto duck = ReadParquetFileInfoWithDuckDB(*conn, path);
    ASSERT_TRUE(duck.ok()) << duck.status().ToString();
    EXPECT_EQ(tide->num_rows, duck->num_rows) << path;
    EXPECT_EQ(tide->num_row_groups, duck->num_row_groups) << path;
    EXPECT_EQ(tide->file_size, duck->file_size) << path;
    EXPECT_EQ(tide->created_by, duck->created_by) << path;
    EXPECT_EQ(tide->root_name, duck->root_name) << path;
    ExpectSameColumns(tide->columns, duck->columns, path);
    ++files;
  }
  EXPECT_GT(files, 100);
}

TEST(ParquetFooterTest, LogicalTypesAsText) {
  auto footer = ReadParquetFooter(JoinPath(
      testing::JavaFixtureWarehouse(),
      "append_with_multiple_ts_precision_and_timezone.db/append_with_multiple_ts_precision_and_timezone/bucket-0/"
      "data-9b8abdde-df4d-4655-bb4c-ffda164ef9d4-0.parquet"));
  ASSERT_TRUE(footer.ok()) << footer.status().ToString();
  ASSERT_EQ(footer->schema.size(), 9u);
  EXPECT_EQ(footer->schema[1].logical_type, "TIMESTAMP(MILLIS,UTC=false)");
  EXPECT_EQ(footer->schema[3].logical_type, "TIMESTAMP(MICROS,UTC=false)");
  EXPECT_EQ(footer->schema[4].logical_type, "");  // INT96 has no logical type
  EXPECT_EQ(footer->schema[4].type, static_cast<int32_t>(ParquetPhysicalType::kInt96));
  EXPECT_EQ(footer->schema[6].logical_type, "TIMESTAMP(MILLIS,UTC=true)");
  EXPECT_EQ(footer->schema[7].logical_type, "TIMESTAMP(MICROS,UTC=true)");
  EXPECT_EQ(footer->num_rows, 3);
  ASSERT_EQ(footer->row_groups.size(), 1u);
  ASSERT_EQ(footer->row_groups[0].columns.size(), 8u);
  EXPECT_EQ(footer->row_groups[0].columns[3].path, std::vector<std::string>{"ts_nano"});
  EXPECT_EQ(footer->row_groups[0].columns[3].codec, 6);  // ZSTD, Paimon's default
}

TEST(ParquetFooterTest, DamagedFootersEndInAStatus) {
  testing::TempDir dir;
  const std::string original = JoinPath(testing::JavaFixtureWarehouse(),
                                        "pk_table_nested_type.db/pk_table_nested_type/dt=2025-04-14/hr=10/bucket-0/"
                                        "data-f63238db-a23a-4f18-9211-0835909197cf-0.parquet");
  auto bytes = FileSystem::Local()->ReadFile(original);
  ASSERT_TRUE(bytes.ok());
  const std::string& good = *bytes;
  uint32_t footer_length = LoadLE<uint32_t>(reinterpret_cast<const uint8_t*>(good.data() + good.size() - 8));
  const std::string footer = good.substr(good.size() - 8 - footer_length, footer_length);
  ASSERT_TRUE(ParseParquetFooter(footer, "x").ok());
  // Every prefix of the footer and every single-byte change: parsed or refused, never a crash.
  for (size_t len = 0; len < footer.size(); ++len) {
    auto parsed = ParseParquetFooter(footer.substr(0, len), "x");
    EXPECT_FALSE(parsed.ok()) << len;
  }
  int refused = 0;
  for (size_t pos = 0; pos < footer.size(); ++pos) {
    for (uint8_t flip : {uint8_t{0xff}, uint8_t{0x0f}, uint8_t{0x80}}) {
      std::string bad = footer;
      bad[pos] = static_cast<char>(bad[pos] ^ flip);
      auto parsed = ParseParquetFooter(bad, "x");
      if (!parsed.ok()) {
        EXPECT_TRUE(parsed.status().IsCorruption()) << parsed.status().ToString();
        ++refused;
      }
    }
  }
  EXPECT_GT(refused, 0);
  // The whole-file checks: magic at both ends and a footer length that fits.
  auto write = [&](const std::string& name, const std::string& content) {
    std::string path = JoinPath(dir.path(), name);
    std::ofstream(path, std::ios::binary) << content;
    return path;
  };
  std::string no_head = good;
  no_head[0] = 'X';
  EXPECT_TRUE(ReadParquetFooter(write("a.parquet", no_head)).status().IsCorruption());
  std::string long_footer = good;
  StoreLE<uint32_t>(reinterpret_cast<uint8_t*>(long_footer.data() + long_footer.size() - 8), 1u << 30);
  EXPECT_TRUE(ReadParquetFooter(write("b.parquet", long_footer)).status().IsCorruption());
  EXPECT_TRUE(ReadParquetFooter(write("c.parquet", "PAR1PAR1")).status().IsCorruption());
  EXPECT_TRUE(ReadParquetFooter(JoinPath(dir.path(), "missing.parquet")).status().IsNotFound());
}

TEST(ThriftCompactTest, RefusesWhatCannotFit) {
  // A list header claiming 2^20 elements in 3 bytes.
  std::string data = "\xf9\x80\x80\x40";
  ThriftCompactReader in(data, "t");
  uint8_t elem;
  int64_t n;
  EXPECT_TRUE(in.ListHeader(&elem, &n).IsCorruption());
  // A binary longer than the data.
  std::string bin = "\x10" "abc";
  ThriftCompactReader in2(bin, "t");
  EXPECT_TRUE(in2.Binary().status().IsCorruption());
  // Structs nested past the depth limit.
  std::string deep(100, '\x1c');  // field 1, type struct, repeated
  ThriftCompactReader in3(deep, "t");
  EXPECT_TRUE(in3.Skip(kThriftStruct).IsCorruption());
  // Zigzag decoding.
  std::string nums = "\x01\x02\xfe\xff\xff\xff\x0f";
  ThriftCompactReader in4(nums, "t");
  EXPECT_EQ(*in4.ZigZag(), -1);
  EXPECT_EQ(*in4.ZigZag(), 1);
  EXPECT_EQ(*in4.ZigZag(), 2147483647);
}

}  // namespace
}  // namespace tide
