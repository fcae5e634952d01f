// The exact INT96 decoder: Java's value convention, files built here byte by byte (every page kind,
// encoding and codec the decoder claims), a cross-check against DuckDB on every Java fixture, and damaged
// input.
#include "tide/format/parquet_int96.h"

#include <gtest/gtest.h>
#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>

#include "testing/temp_dir.h"
#include "tide/base/bytes.h"
#include "tide/format/parquet_reader.h"
#include "tide/io/file_system.h"

namespace tide {
namespace {

// What Java Paimon writes for a timestamp: Julian day and nanos of the day with truncating division, so
// instants before 1970 get a negative nanos-of-day (PAIMON_FORMAT.md §6.2).
std::pair<int64_t, int32_t> JavaInt96(TimestampValue ts) {
  int64_t day = ts.millis / 86400000 + 2440588;
  int64_t nanos_of_day = (ts.millis % 86400000) * 1000000 + ts.nanos_of_milli;
  return {nanos_of_day, static_cast<int32_t>(day)};
}

TimestampValue Ts(const char* text) {
  auto ts = ParseTimestamp(text);
  EXPECT_TRUE(ts.ok()) << text;
  return ts.ValueOr(TimestampValue{});
}

TEST(Int96Test, DecodesWhatJavaEncodes) {
  const char* samples[] = {"1970-01-01 00:00:00",           "1970-01-01 00:00:00.000000001",
                           "1969-12-31 23:59:59.999999999", "1899-01-01 00:59:20.001001001",
                           "0001-01-01 00:00:00",           "9999-12-31 23:59:59.999999999",
                           "2033-05-18 03:33:20.000001001", "1500-06-15 12:00:00.5"};
  for (const char* text : samples) {
    TimestampValue ts = Ts(text);
    auto [nanos, day] = JavaInt96(ts);
    EXPECT_EQ(Int96ToTimestamp(nanos, day), ts) << text;
  }
  // A negative nanos-of-day borrows from the day, as Java's reader adds the parts without normalizing.
  EXPECT_EQ(Int96ToTimestamp(-1, 2440588), (TimestampValue{-1, 999999}));
  EXPECT_EQ(Int96ToTimestamp(86400000000000 - 1, 2440587), (TimestampValue{-1, 999999}));
}

// ---- A minimal Parquet writer for INT96 test files ----

class Compact {
 public:
  void FieldHeader(int16_t id, uint8_t type) {
    int16_t delta = id - last_.back();
    if (delta > 0 && delta <= 15) {
      out_.push_back(static_cast<char>((delta << 4) | type));
    } else {
      out_.push_back(static_cast<char>(type));
      Varint(ZigZag(id));
    }
    last_.back() = id;
  }
  void I32(int16_t id, int64_t v) { FieldHeader(id, 5); Varint(ZigZag(v)); }
  void I64(int16_t id, int64_t v) { FieldHeader(id, 6); Varint(ZigZag(v)); }
  void Bool(int16_t id, bool v) { FieldHeader(id, v ? 1 : 2); }
  void Binary(int16_t id, const std::string& s) { FieldHeader(id, 8); Varint(s.size()); out_ += s; }
  void BeginStruct(int16_t id) { FieldHeader(id, 12); last_.push_back(0); }
  void BeginListElementStruct() { last_.push_back(0); }
  void End() { out_.push_back(0); last_.pop_back(); }
  void List(int16_t id, uint8_t elem, size_t n) {
    FieldHeader(id, 9);
    if (n < 15) {
      out_.push_back(static_cast<char>((n << 4) | elem));
    } else {
      out_.push_back(static_cast<char>(0xf0 | elem));
      Varint(n);
    }
  }
  void RawI32(int64_t v) { Varint(ZigZag(v)); }
  void RawBinary(const std::string& s) { Varint(s.size()); out_ += s; }
  std::string Take() { return std::move(out_); }

 private:
  static uint64_t ZigZag(int64_t v) { return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63); }
  void Varint(uint64_t v) {
    while (v >= 0x80) {
      out_.push_back(static_cast<char>((v & 0x7f) | 0x80));
      v >>= 7;
    }
    out_.push_back(static_cast<char>(v));
  }
  std::string out_;
  std::vector<int16_t> last_{0};
};

std::string Compress(int codec, const std::string& raw) {
  switch (codec) {
    case 1: {
      size_t n = snappy_max_compressed_length(raw.size());
      std::string out(n, '\0');
      EXPECT_EQ(snappy_compress(raw.data(), raw.size(), out.data(), &n), SNAPPY_OK);
      out.resize(n);
      return out;
    }
    case 2: {
      z_stream zs{};
      EXPECT_EQ(deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
      std::string out(deflateBound(&zs, raw.size()) + 32, '\0');
      zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(raw.data()));
      zs.avail_in = static_cast<uInt>(raw.size());
      zs.next_out = reinterpret_cast<Bytef*>(out.data());
      zs.avail_out = static_cast<uInt>(out.size());
      EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
      out.resize(out.size() - zs.avail_out);
      deflateEnd(&zs);
      return out;
    }
    case 6: {
      std::string out(ZSTD_compressBound(raw.size()), '\0');
      size_t n = ZSTD_compress(out.data(), out.size(), raw.data(), raw.size(), 1);
      EXPECT_FALSE(ZSTD_isError(n));
      out.resize(n);
      return out;
    }
    default:
      return raw;
  }
}

// RLE/bit-packed hybrid, one RLE run per value (valid, if not compact).
std::string RleRuns(const std::vector<uint32_t>& values, int bit_width) {
  std::string out;
  int bytes = (bit_width + 7) / 8;
  for (uint32_t v : values) {
    out.push_back(2);  // header: run of 1, RLE
    for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
  }
  return out;
}

std::string Int96Bytes(TimestampValue ts) {
  auto [nanos, day] = JavaInt96(ts);
  std::string out(12, '\0');
  StoreLE<uint64_t>(reinterpret_cast<uint8_t*>(out.data()), static_cast<uint64_t>(nanos));
  StoreLE<uint32_t>(reinterpret_cast<uint8_t*>(out.data()) + 8, static_cast<uint32_t>(day));
  return out;
}

struct FileSpec {
  int codec = 0;
  bool required = false;
  bool v2 = false;
  bool dictionary = false;
  std::vector<std::vector<std::optional<TimestampValue>>> row_groups;
};

std::string PageHeader(int type, size_t uncompressed, size_t compressed, const std::function<void(Compact&)>& body) {
  Compact c;
  c.I32(1, type);
  c.I32(2, static_cast<int64_t>(uncompressed));
  c.I32(3, static_cast<int64_t>(compressed));
  body(c);
  c.End();
  return c.Take();
}

// A file with columns `id` (INT32, REQUIRED, the row number) and `ts` (INT96).
std::string BuildFile(const FileSpec& spec) {
  std::string file = "PAR1";
  struct Chunk {
    int64_t offset, dictionary_offset, size, values;
    int type;
  };
  std::vector<std::vector<Chunk>> chunks;
  int64_t total_rows = 0;
  int32_t next_id = 0;
  for (const auto& group : spec.row_groups) {
    std::vector<Chunk> group_chunks;
    // Column id: one PLAIN, uncompressed v1 page.
    {
      std::string values;
      for (size_t i = 0; i < group.size(); ++i) {
        char b[4];
        StoreLE<uint32_t>(reinterpret_cast<uint8_t*>(b), static_cast<uint32_t>(next_id++));
        values.append(b, 4);
      }
      int64_t offset = static_cast<int64_t>(file.size());
      file += PageHeader(0, values.size(), values.size(), [&](Compact& c) {
        c.BeginStruct(5);
        c.I32(1, static_cast<int64_t>(group.size()));
        c.I32(2, 0);
        c.I32(3, 3);
        c.I32(4, 3);
        c.End();
      });
      file += values;
      group_chunks.push_back({offset, -1, static_cast<int64_t>(file.size()) - offset,
                              static_cast<int64_t>(group.size()), 1});
    }
    // Column ts.
    int64_t chunk_start = static_cast<int64_t>(file.size());
    int64_t dictionary_offset = -1;
    std::vector<uint32_t> defs;
    std::vector<TimestampValue> present;
    for (const auto& v : group) {
      defs.push_back(v ? 1 : 0);
      if (v) present.push_back(*v);
    }
    std::string values;
    if (spec.dictionary) {
      std::vector<TimestampValue> dict;
      std::vector<uint32_t> indices;
      for (const TimestampValue& ts : present) {
        auto it = std::find(dict.begin(), dict.end(), ts);
        indices.push_back(static_cast<uint32_t>(it - dict.begin()));
        if (it == dict.end()) dict.push_back(ts);
      }
      std::string dict_page;
      for (const TimestampValue& ts : dict) dict_page += Int96Bytes(ts);
      std::string compressed = Compress(spec.codec, dict_page);
      dictionary_offset = static_cast<int64_t>(file.size());
      file += PageHeader(2, dict_page.size(), compressed.size(), [&](Compact& c) {
        c.BeginStruct(7);
        c.I32(1, static_cast<int64_t>(dict.size()));
        c.I32(2, 0);
        c.End();
      });
      file += compressed;
      int width = 0;
      while ((size_t{1} << width) < dict.size()) ++width;
      values.push_back(static_cast<char>(width));
      values += RleRuns(indices, width);
    } else {
      for (const TimestampValue& ts : present) values += Int96Bytes(ts);
    }
    int64_t data_offset = static_cast<int64_t>(file.size());
    std::string levels = spec.required ? std::string() : RleRuns(defs, 1);
    const int encoding = spec.dictionary ? 8 : 0;
    if (!spec.v2) {
      std::string page;
      if (!spec.required) {
        char len[4];
        StoreLE<uint32_t>(reinterpret_cast<uint8_t*>(len), static_cast<uint32_t>(levels.size()));
        page.append(len, 4);
        page += levels;
      }
      page += values;
      std::string compressed = Compress(spec.codec, page);
      file += PageHeader(0, page.size(), compressed.size(), [&](Compact& c) {
        c.BeginStruct(5);
        c.I32(1, static_cast<int64_t>(group.size()));
        c.I32(2, encoding);
        c.I32(3, 3);
        c.I32(4, 3);
        c.End();
      });
      file += compressed;
    } else {
      std::string compressed = Compress(spec.codec, values);
      file += PageHeader(3, levels.size() + values.size(), levels.size() + compressed.size(), [&](Compact& c) {
        c.BeginStruct(8);
        c.I32(1, static_cast<int64_t>(group.size()));
        c.I32(2, static_cast<int64_t>(group.size() - present.size()));
        c.I32(3, static_cast<int64_t>(group.size()));
        c.I32(4, encoding);
        c.I32(5, static_cast<int64_t>(levels.size()));
        c.I32(6, 0);
        c.Bool(7, true);
        c.End();
      });
      file += levels;
      file += compressed;
    }
    group_chunks.push_back({data_offset, dictionary_offset, static_cast<int64_t>(file.size()) - chunk_start,
                            static_cast<int64_t>(group.size()), 3});
    chunks.push_back(group_chunks);
    total_rows += static_cast<int64_t>(group.size());
  }
  Compact meta;
  meta.I32(1, 1);
  meta.List(2, 12, 3);
  meta.BeginListElementStruct();
  meta.Binary(4, "schema");
  meta.I32(5, 2);
  meta.End();
  meta.BeginListElementStruct();
  meta.I32(1, 1);  // INT32
  meta.I32(3, 0);  // REQUIRED
  meta.Binary(4, "id");
  meta.End();
  meta.BeginListElementStruct();
  meta.I32(1, 3);  // INT96
  meta.I32(3, spec.required ? 0 : 1);
  meta.Binary(4, "ts");
  meta.End();
  meta.I64(3, total_rows);
  meta.List(4, 12, chunks.size());
  for (size_t g = 0; g < chunks.size(); ++g) {
    meta.BeginListElementStruct();
    meta.List(1, 12, chunks[g].size());
    int64_t bytes = 0;
    for (const Chunk& chunk : chunks[g]) {
      meta.BeginListElementStruct();
      meta.I64(2, chunk.offset);
      meta.BeginStruct(3);
      meta.I32(1, chunk.type);
      meta.List(2, 5, 2);
      meta.RawI32(0);
      meta.RawI32(3);
      meta.List(3, 8, 1);
      meta.RawBinary(chunk.type == 1 ? "id" : "ts");
      meta.I32(4, chunk.type == 1 ? 0 : spec.codec);
      meta.I64(5, chunk.values);
      meta.I64(6, chunk.size);
      meta.I64(7, chunk.size);
      meta.I64(9, chunk.offset);
      if (chunk.dictionary_offset >= 0) meta.I64(11, chunk.dictionary_offset);
      meta.End();
      meta.End();
      bytes += chunk.size;
    }
    meta.I64(2, bytes);
    meta.I64(3, chunks[g][0].values);
    meta.End();
  }
  meta.End();
  std::string footer = meta.Take();
  file += footer;
  char len[4];
  StoreLE<uint32_t>(reinterpret_cast<uint8_t*>(len), static_cast<uint32_t>(footer.size()));
  file.append(len, 4);
  file += "PAR1";
  return file;
}

// Plain ofstream: thousands of damaged variants are written, and durability does not matter here.
std::string WriteFile(const std::string& dir, const std::string& name, const std::string& bytes) {
  std::string path = JoinPath(dir, name);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  EXPECT_TRUE(out.good()) << path;
  return path;
}

std::vector<std::vector<std::optional<TimestampValue>>> SampleGroups() {
  return {
      {Ts("2033-05-18 03:33:20.000001001"), std::nullopt, Ts("1899-01-01 00:59:20.001001001"),
       Ts("2033-05-18 03:33:20.000001001")},
      {std::nullopt, std::nullopt},
      {Ts("1969-12-31 23:59:59.999999999"), Ts("2008-12-28 00:00:00.000123456"), Ts("0001-01-01 00:00:00"),
       std::nullopt, Ts("9999-12-31 23:59:59.999999999")},
  };
}

TEST(Int96Test, ReadsEveryPageKindEncodingAndCodec) {
  testing::TempDir dir;
  auto db = DuckDB::Open();
  ASSERT_TRUE(db.ok());
  int n = 0;
  for (int codec : {0, 1, 2, 6}) {
    for (bool v2 : {false, true}) {
      for (bool dictionary : {false, true}) {
        for (bool required : {false, true}) {
          FileSpec spec;
          spec.codec = codec;
          spec.v2 = v2;
          spec.dictionary = dictionary;
          spec.required = required;
          spec.row_groups = SampleGroups();
          if (required) {
            for (auto& group : spec.row_groups) {
              for (auto& v : group) {
                if (!v) v = Ts("2000-01-01 00:00:00.000000007");
              }
            }
          }
          std::string label = fmt::format("codec {} v2 {} dictionary {} required {}", codec, v2, dictionary, required);
          std::string path = WriteFile(dir.path(), "f" + std::to_string(n++) + ".parquet", BuildFile(spec));
          auto column = ReadInt96Column(path, "ts");
          ASSERT_TRUE(column.ok()) << label << ": " << column.status().ToString();
          std::vector<std::optional<TimestampValue>> expected;
          for (const auto& group : spec.row_groups) expected.insert(expected.end(), group.begin(), group.end());
          ASSERT_EQ(column->size(), expected.size()) << label;
          for (size_t i = 0; i < expected.size(); ++i) {
            ASSERT_EQ(column->valid[i] != 0, expected[i].has_value()) << label << " row " << i;
            if (expected[i]) {
              EXPECT_EQ(column->values[i], *expected[i]) << label << " row " << i;
            }
          }
          // The hand-built file is a valid Parquet file: DuckDB reads it too, and the reader gives the
          // exact values through its normal path.
          auto reader = ParquetFileReader::Open(*db, path, {{"id", std::nullopt, DataType::Int()},
                                                            {"ts", std::nullopt, DataType::Timestamp(9)}});
          ASSERT_TRUE(reader.ok()) << label << ": " << reader.status().ToString();
          auto rows = (*reader)->ReadAll();
          ASSERT_TRUE(rows.ok()) << label << ": " << rows.status().ToString();
          ASSERT_EQ(rows->size(), expected.size());
          for (size_t i = 0; i < expected.size(); ++i) {
            EXPECT_EQ((*rows)[i][0], Datum(static_cast<int64_t>(i))) << label;
            EXPECT_EQ((*rows)[i][1], expected[i] ? Datum(*expected[i]) : Datum()) << label << " row " << i;
          }
        }
      }
    }
  }
}

TEST(Int96Test, ColumnLookupErrors) {
  testing::TempDir dir;
  FileSpec spec;
  spec.row_groups = SampleGroups();
  std::string path = WriteFile(dir.path(), "f.parquet", BuildFile(spec));
  EXPECT_TRUE(ReadInt96Column(path, "nope").status().IsNotFound());
  EXPECT_TRUE(ReadInt96Column(path, "id").status().IsInvalidArgument());
  EXPECT_TRUE(ReadInt96Column(JoinPath(dir.path(), "missing.parquet"), "ts").status().IsNotFound());
}

TEST(Int96Test, DamagedFilesGiveErrorsNotCrashes) {
  testing::TempDir dir;
  for (bool dictionary : {false, true}) {
    FileSpec spec;
    spec.codec = dictionary ? 6 : 0;
    spec.dictionary = dictionary;
    spec.row_groups = SampleGroups();
    const std::string good = BuildFile(spec);
    // Every truncation, and every single-byte change, either decodes or fails with a Status.
    // Each variant gets a fresh name: rewriting one file in place makes ext4 flush it to disk every time.
    int variant = 0;
    auto write_variant = [&](const std::string& bytes) {
      return WriteFile(dir.path(), "v" + std::to_string(variant++) + ".parquet", bytes);
    };
    for (size_t len = 0; len < good.size(); ++len) {
      std::string path = write_variant(good.substr(0, len));
      auto column = ReadInt96Column(path, "ts");
      EXPECT_FALSE(column.ok()) << "truncated to " << len;
      std::filesystem::remove(path);
    }
    int failures = 0;
    for (size_t pos = 0; pos < good.size(); ++pos) {
      for (uint8_t flip : {uint8_t{0xff}, uint8_t{0x01}, uint8_t{0x80}}) {
        std::string bad = good;
        bad[pos] = static_cast<char>(bad[pos] ^ flip);
        std::string path = write_variant(bad);
        auto column = ReadInt96Column(path, "ts");
        std::filesystem::remove(path);
        if (!column.ok()) {
          ++failures;
          EXPECT_FALSE(column.status().message().empty());
        }
      }
    }
    EXPECT_GT(failures, 0);
  }
}

// Every INT96 column of every Java-written fixture file: the exact decoder agrees with DuckDB's
// microsecond reading up to DuckDB's rounding (one microsecond, only before 1970) and on every NULL.
TEST(Int96Test, AgreesWithDuckDbOnEveryJavaFixture) {
  auto db = DuckDB::Open();
  ASSERT_TRUE(db.ok());
  int columns_checked = 0;
  int64_t values_checked = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(testing::JavaFixtureWarehouse())) {
    if (entry.path().extension() != ".parquet") continue;
    const std::string path = entry.path().string();
    auto info = ReadParquetFileInfo(path);
    ASSERT_TRUE(info.ok()) << info.status().ToString();
    for (const ParquetFileColumn& column : info->columns) {
      if (column.physical_type != "INT96") continue;
      auto exact = ReadInt96Column(path, column.name);
      ASSERT_TRUE(exact.ok()) << path << ": " << exact.status().ToString();
      ParquetReadOptions options;
      options.exact_int96 = false;
      auto reader = ParquetFileReader::Open(*db, path, {{column.name, std::nullopt, DataType::Timestamp(9)}}, options);
      ASSERT_TRUE(reader.ok()) << reader.status().ToString();
      std::vector<int64_t> positions;
      auto rows = (*reader)->ReadAll(&positions);
      ASSERT_TRUE(rows.ok());
      ASSERT_EQ(rows->size(), exact->size()) << path;
      for (size_t i = 0; i < rows->size(); ++i) {
        const Datum& duck = (*rows)[i][0];
        size_t pos = static_cast<size_t>(positions[i]);
        ASSERT_EQ(duck.is_null(), exact->valid[pos] == 0) << path << " row " << pos;
        if (duck.is_null()) continue;
        int64_t exact_micros = exact->values[pos].ToMicros();
        int64_t duck_micros = duck.as_timestamp().ToMicros();
        if (exact->values[pos].millis >= 0) {
          EXPECT_EQ(duck_micros, exact_micros) << path << " row " << pos;
        } else {
          EXPECT_LE(std::abs(duck_micros - exact_micros), 1) << path << " row " << pos;
        }
        ++values_checked;
      }
      ++columns_checked;
    }
  }
  EXPECT_GE(columns_checked, 10);
  EXPECT_GT(values_checked, 30);
}

}  // namespace
}  // namespace tide
