#include "tide/codec/avro_codec.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include <zlib.h>

#include "tide/base/bytes.h"

namespace tide {
namespace {

using ::testing::HasSubstr;

constexpr AvroCodec kAllCodecs[] = {AvroCodec::kNull, AvroCodec::kDeflate, AvroCodec::kSnappy, AvroCodec::kZstandard};

std::string Sample(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  // Compressible: runs of a few symbols with some noise.
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>("abcabcabd\0\x01"[rng() % 11]);
  return s;
}

TEST(AvroCodecTest, NamesRoundTrip) {
  for (AvroCodec codec : kAllCodecs) {
    auto parsed = ParseAvroCodec(AvroCodecName(codec));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, codec);
  }
  EXPECT_EQ(*ParseAvroCodec(""), AvroCodec::kNull) << "a header without avro.codec means null";
  EXPECT_EQ(AvroCodecName(AvroCodec::kZstandard), "zstandard");
  auto bzip2 = ParseAvroCodec("bzip2");
  ASSERT_FALSE(bzip2.ok());
  EXPECT_TRUE(bzip2.status().IsNotSupported());
  EXPECT_THAT(bzip2.status().message(), HasSubstr("\"bzip2\""));
  EXPECT_FALSE(ParseAvroCodec("zstd").ok()) << "Avro spells it zstandard";
}

TEST(AvroCodecTest, RoundTripsEveryCodecAndSize) {
  for (AvroCodec codec : kAllCodecs) {
    for (size_t n : {size_t{0}, size_t{1}, size_t{100}, size_t{65536}, size_t{1} << 20}) {
      std::string input = Sample(n, static_cast<uint32_t>(n));
      std::string compressed;
      ASSERT_TRUE(CompressAvroBlock(codec, DefaultAvroCodecLevel(codec), input, &compressed).ok());
      std::string output = "stale";
      Status s = DecompressAvroBlock(codec, compressed, size_t{1} << 30, &output);
      ASSERT_TRUE(s.ok()) << AvroCodecName(codec) << " n=" << n << ": " << s.ToString();
      EXPECT_EQ(output, input) << AvroCodecName(codec) << " n=" << n;
      if (codec != AvroCodec::kNull && n >= 65536) {
        EXPECT_LT(compressed.size(), input.size());
      }
    }
  }
}

TEST(AvroCodecTest, DeflateIsRawDeflate) {
  std::string input = Sample(5000, 1);
  std::string compressed;
  ASSERT_TRUE(CompressAvroBlock(AvroCodec::kDeflate, 6, input, &compressed).ok());
  // Decode independently with zlib in raw mode (negative window bits), as Java's Inflater(nowrap) does.
  z_stream z{};
  ASSERT_EQ(inflateInit2(&z, -15), Z_OK);
  std::string out(input.size(), '\0');
  z.next_in = reinterpret_cast<Bytef*>(compressed.data());
  z.avail_in = static_cast<uInt>(compressed.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(inflate(&z, Z_FINISH), Z_STREAM_END);
  inflateEnd(&z);
  EXPECT_EQ(out, input);
}

TEST(AvroCodecTest, SnappyBlockEndsWithBigEndianCrc32OfTheData) {
  std::string input = "hello snappy hello snappy hello snappy";
  std::string compressed;
  ASSERT_TRUE(CompressAvroBlock(AvroCodec::kSnappy, 0, input, &compressed).ok());
  ASSERT_GE(compressed.size(), 4u);
  uint32_t crc = static_cast<uint32_t>(crc32(0L, reinterpret_cast<const Bytef*>(input.data()), input.size()));
  EXPECT_EQ(LoadBE<uint32_t>(compressed.data() + compressed.size() - 4), crc);

  std::string bad = compressed;
  bad[bad.size() - 1] ^= 0x01;
  std::string out;
  Status s = DecompressAvroBlock(AvroCodec::kSnappy, bad, 1 << 20, &out);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_THAT(s.message(), HasSubstr("CRC32 mismatch"));
  EXPECT_FALSE(DecompressAvroBlock(AvroCodec::kSnappy, "abc", 1 << 20, &out).ok()) << "shorter than the CRC";
}

TEST(AvroCodecTest, RejectsTruncatedAndGarbageInput) {
  std::string input = Sample(200000, 7);
  for (AvroCodec codec : {AvroCodec::kDeflate, AvroCodec::kSnappy, AvroCodec::kZstandard}) {
    std::string compressed;
    ASSERT_TRUE(CompressAvroBlock(codec, DefaultAvroCodecLevel(codec), input, &compressed).ok());
    for (size_t cut : {size_t{1}, compressed.size() / 2, compressed.size() - 1}) {
      std::string out;
      Status s = DecompressAvroBlock(codec, std::string_view(compressed).substr(0, cut), 1 << 30, &out);
      EXPECT_TRUE(s.IsCorruption()) << AvroCodecName(codec) << " cut at " << cut << ": " << s.ToString();
    }
    std::string garbage(1000, '\xA5');
    std::string out;
    EXPECT_TRUE(DecompressAvroBlock(codec, garbage, 1 << 30, &out).IsCorruption()) << AvroCodecName(codec);
  }
}

TEST(AvroCodecTest, DeflateIgnoresBytesAfterTheStream) {
  // Python's avro package stores zlib.compress(data)[2:-1]: raw deflate plus 3 bytes of the Adler-32
  // trailer. Java's Inflater stops at the end of the stream, and so does Tide.
  std::string input = "some data some data some data";
  std::string compressed;
  ASSERT_TRUE(CompressAvroBlock(AvroCodec::kDeflate, 6, input, &compressed).ok());
  compressed += "\x12\x34\x56";
  std::string out;
  Status s = DecompressAvroBlock(AvroCodec::kDeflate, compressed, 1 << 20, &out);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(out, input);
}

TEST(AvroCodecTest, OutputIsBounded) {
  std::string zeros(10 << 20, '\0');  // 10 MiB compresses to almost nothing
  for (AvroCodec codec : kAllCodecs) {
    std::string compressed;
    ASSERT_TRUE(CompressAvroBlock(codec, DefaultAvroCodecLevel(codec), zeros, &compressed).ok());
    std::string out;
    Status s = DecompressAvroBlock(codec, compressed, 1 << 20, &out);
    ASSERT_FALSE(s.ok()) << AvroCodecName(codec);
    EXPECT_TRUE(s.IsCorruption()) << AvroCodecName(codec);
    EXPECT_LE(out.capacity(), size_t{4} << 20) << AvroCodecName(codec) << " allocated past the limit";
  }
}

TEST(AvroCodecTest, ZstandardAcceptsConcatenatedFrames) {
  std::string a;
  std::string b;
  ASSERT_TRUE(CompressAvroBlock(AvroCodec::kZstandard, 1, "first ", &a).ok());
  ASSERT_TRUE(CompressAvroBlock(AvroCodec::kZstandard, 1, "second", &b).ok());
  std::string out;
  ASSERT_TRUE(DecompressAvroBlock(AvroCodec::kZstandard, a + b, 1 << 20, &out).ok());
  EXPECT_EQ(out, "first second");
}

TEST(AvroCodecTest, RejectsBadLevels) {
  std::string out;
  EXPECT_TRUE(CompressAvroBlock(AvroCodec::kDeflate, 10, "x", &out).IsInvalidArgument());
  EXPECT_TRUE(CompressAvroBlock(AvroCodec::kZstandard, 100, "x", &out).IsInvalidArgument());
  EXPECT_TRUE(CompressAvroBlock(AvroCodec::kZstandard, -5, "x", &out).ok()) << "zstd fast levels are valid";
  EXPECT_EQ(DefaultAvroCodecLevel(AvroCodec::kZstandard), 3);
  EXPECT_EQ(DefaultAvroCodecLevel(AvroCodec::kDeflate), 6);
}

}  // namespace
}  // namespace tide
