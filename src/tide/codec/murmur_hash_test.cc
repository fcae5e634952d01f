#include "tide/codec/murmur_hash.h"

#include <string>

#include <gtest/gtest.h>

#include "tide/base/bytes.h"
#include "tide/codec/binary_row.h"

namespace tide {
namespace {

std::string Hex(std::string_view hex) { return HexDecode(hex).value(); }

// PAIMON_FORMAT.md §5.6: BinaryRow hash codes. row(INT 0) and row(INT 1) agree with where Java placed
// the rows of the pk_09 and append_complex_data fixtures (bucket_test.cc checks the buckets).
TEST(MurmurHashTest, BinaryRowHashesOfPaimonFormatSection56) {
  EXPECT_EQ(BinaryRowHashCode(Hex("0000000000000000 0000000000000000")), -300363099);
  EXPECT_EQ(BinaryRowHashCode(Hex("0000000000000000 0100000000000000")), 1465514398);
  EXPECT_EQ(BinaryRowHashCode(Hex("0000000000000000 0200000000000000")), 1340390384);
  EXPECT_EQ(BinaryRowHashCode(Hex("0000000000000000 0300000000000000")), -771300025);
  EXPECT_EQ(BinaryRowHashCode(Hex("0000000000000000 416c696365000085")), 1285337400);  // 'Alice'
  EXPECT_EQ(BinaryRowHashCode(Hex("0000000000000000 2a00000000000000")), 907821237);   // BIGINT 42
}

TEST(MurmurHashTest, EncodedRowsHashAsTheirBytes) {
  for (int32_t v = 0; v < 4; ++v) {
    const std::string row = EncodeBinaryRow({{Datum(v)}}, {{DataType::Int()}}).value();
    EXPECT_EQ(BinaryRowHashCode(row), MurmurHashBytes(row));
  }
  const std::string alice = EncodeBinaryRow({{Datum("Alice")}}, {{DataType::String()}}).value();
  EXPECT_EQ(BinaryRowHashCode(alice), 1285337400);
  const std::string big = EncodeBinaryRow({{Datum(int64_t{42})}}, {{DataType::BigInt()}}).value();
  EXPECT_EQ(BinaryRowHashCode(big), 907821237);
}

// Tails of 1-3 bytes are mixed one signed byte at a time (Java's `byte`), unlike reference Murmur3.
// Expected values come from a separate model of MurmurHashUtils.hashBytes written from the Java source
// (Python, Java int arithmetic), not from this implementation.
TEST(MurmurHashTest, TailBytesAreMixedOneSignedByteAtATime) {
  EXPECT_EQ(MurmurHashBytes(""), 142593372);
  EXPECT_EQ(MurmurHashBytes(Hex("01")), -386724586);
  EXPECT_EQ(MurmurHashBytes(Hex("ff")), 1398487324);  // sign-extended: differs from 0x000000ff
  EXPECT_EQ(MurmurHashBytes(Hex("010203")), -246362483);
  EXPECT_EQ(MurmurHashBytes(Hex("8081828384")), 1000199251);
  EXPECT_EQ(MurmurHashBytes("hello world"), -1528836094);
}

TEST(MurmurHashTest, ByWordsEqualsBytesForAlignedInput) {
  const std::string data = Hex("00112233445566778899aabbccddeeff");
  for (size_t n = 0; n <= data.size(); n += 4) {
    EXPECT_EQ(MurmurHashBytesByWords(std::string_view(data).substr(0, n)),
              MurmurHashBytes(std::string_view(data).substr(0, n)))
        << n;
  }
  // A different seed gives a different hash.
  EXPECT_NE(MurmurHashBytes(data, 0), MurmurHashBytes(data, 42));
}

TEST(MurmurHashTest, Fmix32IsMurmur3Finalizer) {
  EXPECT_EQ(MurmurFmix32(0), 0);
  // fmix32 is a bijection: distinct inputs stay distinct.
  EXPECT_NE(MurmurFmix32(1), MurmurFmix32(2));
  // The finalizer applied after `h ^= length` is what MurmurHashBytes("") returns for seed 42.
  EXPECT_EQ(MurmurFmix32(42), MurmurHashBytes(""));
}

}  // namespace
}  // namespace tide
