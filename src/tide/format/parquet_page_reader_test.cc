// The shared page pieces: the RLE / bit-packed decoder against Tide's encoder at every bit width and
// batch split, damaged runs, page headers and decompression failures.
#include "tide/format/parquet_page_reader.h"

#include <gtest/gtest.h>
#include <zstd.h>

#include <random>
#include <vector>

#include "tide/format/parquet_level_encoder.h"

namespace tide {
namespace {

std::vector<uint32_t> Sample(int width, size_t n, std::mt19937_64& rng) {
  const uint64_t limit = width == 0 ? 1 : (uint64_t{1} << width);
  std::vector<uint32_t> values;
  while (values.size() < n) {
    const uint32_t v = static_cast<uint32_t>(rng() % limit);
    // Long repeats become RLE runs, the rest bit-packed groups.
    const size_t repeat = rng() % 4 == 0 ? 1 + rng() % 100 : 1;
    for (size_t i = 0; i < repeat && values.size() < n; ++i) values.push_back(v);
  }
  return values;
}

TEST(RleBitPackedDecoderTest, DecodesWhatTheEncoderWritesAtEveryWidth) {
  std::mt19937_64 rng(1);
  for (int width = 0; width <= 32; ++width) {
    for (size_t n : {size_t{1}, size_t{7}, size_t{8}, size_t{9}, size_t{1000}, size_t{5003}}) {
      std::vector<uint32_t> values = Sample(width, n, rng);
      std::string encoded;
      AppendRleBitPackedHybrid(values, width, &encoded);
      RleBitPackedDecoder decoder(encoded, width);
      std::vector<uint32_t> decoded(n);
      // Uneven batches cross run boundaries.
      size_t done = 0, batch = 1;
      while (done < n) {
        const size_t take = std::min(batch, n - done);
        Status st = decoder.GetBatch(decoded.data() + done, take, "test");
        ASSERT_TRUE(st.ok()) << "width " << width << ": " << st.ToString();
        done += take;
        batch = batch * 3 % 257 + 1;
      }
      ASSERT_EQ(decoded, values) << "width " << width << ", " << n << " values";
    }
  }
}

TEST(RleBitPackedDecoderTest, LevelsDecodeIntoBytes) {
  std::vector<uint16_t> levels;
  for (int i = 0; i < 3000; ++i) levels.push_back(static_cast<uint16_t>(i % 7 == 0 ? 0 : 1));
  std::string encoded;
  AppendRleBitPackedHybrid(levels, 1, &encoded);
  RleBitPackedDecoder decoder(encoded, 1);
  std::vector<uint8_t> decoded(levels.size());
  ASSERT_TRUE(decoder.GetBatch(decoded.data(), decoded.size(), "test").ok());
  for (size_t i = 0; i < levels.size(); ++i) ASSERT_EQ(decoded[i], levels[i]) << i;
}

TEST(RleBitPackedDecoderTest, ReadingPastTheDataIsCorruption) {
  std::mt19937_64 rng(2);
  for (int width : {1, 5, 17, 32}) {
    std::vector<uint32_t> values = Sample(width, 800, rng);
    std::string encoded;
    AppendRleBitPackedHybrid(values, width, &encoded);
    // Asking for more values than were written, and every truncation of the data, end in Corruption.
    std::vector<uint32_t> out(values.size() + 64);
    RleBitPackedDecoder full(encoded, width);
    Status more = full.GetBatch(out.data(), out.size(), "levels of column c");
    EXPECT_TRUE(more.IsCorruption()) << more.ToString();
    EXPECT_NE(more.message().find("column c"), std::string::npos);
    for (size_t len = 0; len < encoded.size(); len += 3) {
      RleBitPackedDecoder cut(std::string_view(encoded).substr(0, len), width);
      Status st = cut.GetBatch(out.data(), values.size(), "test");
      EXPECT_TRUE(st.IsCorruption()) << "width " << width << ", " << len << " bytes: " << st.ToString();
    }
  }
  // An empty RLE run and an overlong run header.
  std::vector<uint32_t> out(4);
  RleBitPackedDecoder empty(std::string_view("\x00\x01", 2), 8);
  EXPECT_TRUE(empty.GetBatch(out.data(), 1, "test").IsCorruption());
  RleBitPackedDecoder overlong(std::string_view("\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff", 11), 8);
  EXPECT_TRUE(overlong.GetBatch(out.data(), 1, "test").IsCorruption());
}

TEST(ParquetPageReaderTest, DamagedHeadersAndBodiesAreCorruption) {
  // A header cut short, and one declaring a negative size.
  std::string_view cut("\x15\x00\x15", 3);
  ParquetPageHeader h;
  EXPECT_TRUE(ReadParquetPageHeader(&cut, &h, "file f").IsCorruption());
  std::string negative = "\x15\x00\x15\x01\x15\x01\x00";  // type 0, uncompressed -1, compressed -1
  std::string_view view(negative);
  Status st = ReadParquetPageHeader(&view, &h, "file f");
  EXPECT_TRUE(st.IsCorruption()) << st.ToString();

  ParquetPageDecompressor decompressor;
  std::string buffer;
  const std::string text(1000, 'a');
  std::string zstd(ZSTD_compressBound(text.size()), '\0');
  zstd.resize(ZSTD_compress(zstd.data(), zstd.size(), text.data(), text.size(), 1));
  auto ok = decompressor.Decompress(6, zstd, 1000, &buffer, "file f");
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(*ok, text);
  EXPECT_TRUE(decompressor.Decompress(6, zstd, 999, &buffer, "file f").status().IsCorruption());
  EXPECT_TRUE(decompressor.Decompress(1, zstd, 1000, &buffer, "file f").status().IsCorruption());  // not snappy
  EXPECT_TRUE(decompressor.Decompress(2, zstd, 1000, &buffer, "file f").status().IsCorruption());  // not gzip
  EXPECT_TRUE(decompressor.Decompress(0, text, 999, &buffer, "file f").status().IsCorruption());
  EXPECT_TRUE(decompressor.Decompress(7, zstd, 1000, &buffer, "file f").status().IsNotSupported());  // LZ4_RAW
  EXPECT_TRUE(decompressor.Decompress(6, zstd, kMaxParquetPageBytes + 1, &buffer, "file f").status().IsCorruption());
}

}  // namespace
}  // namespace tide
