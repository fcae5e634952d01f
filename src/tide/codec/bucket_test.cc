#include "tide/codec/bucket.h"

#include <limits>
#include <string>

#include <gtest/gtest.h>

#include "tide/base/bytes.h"
#include "tide/codec/binary_row.h"
#include "tide/codec/murmur_hash.h"

namespace tide {
namespace {

TEST(BucketTest, DefaultBucketIsAbsOfTruncatingRemainder) {
  EXPECT_EQ(DefaultBucket(-300363099, 2), 1);
  EXPECT_EQ(DefaultBucket(1465514398, 2), 0);
  EXPECT_EQ(DefaultBucket(907821237, 10), 7);
  EXPECT_EQ(DefaultBucket(-7, 4), 3);  // Java: Math.abs(-7 % 4) = 3 (floorMod would give 1)
  EXPECT_EQ(DefaultBucket(std::numeric_limits<int32_t>::min(), 3), 2);
  EXPECT_EQ(DefaultBucket(std::numeric_limits<int32_t>::min(), 1), 0);
  EXPECT_EQ(DefaultBucket(std::numeric_limits<int32_t>::max(), 7), std::numeric_limits<int32_t>::max() % 7);
}

TEST(BucketTest, ModBucketIsFloorMod) {
  // ModBucketFunction's own examples (numBuckets = 5).
  EXPECT_EQ(ModBucket(17, 5), 2);
  EXPECT_EQ(ModBucket(-3, 5), 2);
  EXPECT_EQ(ModBucket(5, 5), 0);
  EXPECT_EQ(ModBucket(std::numeric_limits<int64_t>::min(), 7), 6);  // -2^63 = 7 * k + 6
  EXPECT_EQ(ModBucket(std::numeric_limits<int64_t>::max(), 7), 0);  // 2^63 - 1 = 7 * 1317624576693539401
}

// Java placed these rows (bucket = 2, bucket-key f2 INT): in pk_09 and append_complex_data the files
// whose rows have f2 = 1 are in bucket-0 and those with f2 = 0 in bucket-1 (their manifests say so).
TEST(BucketTest, DefaultFunctionMatchesJavaPlacementInFixtures) {
  BucketFunction fn = BucketFunction::Create(BucketFunctionType::kDefault, {DataType::Int(false)}, 2).value();
  std::string scratch;
  EXPECT_EQ(fn.Bucket({{Datum(1)}}, &scratch).value(), 0);
  EXPECT_EQ(fn.Bucket({{Datum(0)}}, &scratch).value(), 1);
  EXPECT_EQ(scratch, HexDecode("0000000000000000 0000000000000000").value());  // the key row itself
  EXPECT_EQ(fn.BucketOfBinaryRow(HexDecode("0000000000000000 0100000000000000").value()).value(), 0);
}

TEST(BucketTest, PaimonFormatSection56Vectors) {
  std::string scratch;
  BucketFunction big = BucketFunction::Create(BucketFunctionType::kDefault, {DataType::BigInt()}, 10).value();
  EXPECT_EQ(big.Bucket({{Datum(int64_t{42})}}, &scratch).value(), 7);
  BucketFunction str = BucketFunction::Create(BucketFunctionType::kDefault, {DataType::String()}, 1000).value();
  EXPECT_EQ(str.Bucket({{Datum("Alice")}}, &scratch).value(), 1285337400 % 1000);
}

TEST(BucketTest, ProjectionEncodesTheBucketKeyOnly) {
  // Record (f0 STRING, f1 INT, f2 INT, f3 DOUBLE) with bucket key f2, as in pk_09.
  const Row record = {Datum("Alice"), Datum(10), Datum(1), Datum(11.0)};
  const int key[] = {2};
  BucketFunction fn = BucketFunction::Create(BucketFunctionType::kDefault, {DataType::Int(false)}, 2).value();
  std::string scratch;
  EXPECT_EQ(fn.BucketOfProjection(record, key, &scratch).value(), 0);
  EXPECT_EQ(scratch, HexDecode("0000000000000000 0100000000000000").value());
  const int bad[] = {7};
  EXPECT_TRUE(fn.BucketOfProjection(record, bad, &scratch).status().IsInvalidArgument());
}

TEST(BucketTest, ModFunctionOnIntAndBigIntKeys) {
  std::string scratch;
  BucketFunction on_int = BucketFunction::Create(BucketFunctionType::kMod, {DataType::Int()}, 5).value();
  EXPECT_EQ(on_int.Bucket({{Datum(17)}}, &scratch).value(), 2);
  EXPECT_EQ(on_int.Bucket({{Datum(-3)}}, &scratch).value(), 2);
  EXPECT_EQ(on_int.Bucket({{Datum()}}, &scratch).value(), 0);  // NULL reads as the zeroed slot
  BucketFunction on_big = BucketFunction::Create(BucketFunctionType::kMod, {DataType::BigInt()}, 4).value();
  EXPECT_EQ(on_big.Bucket({{Datum(int64_t{-1})}}, &scratch).value(), 3);
  EXPECT_EQ(on_big.Bucket({{Datum(int64_t{1} << 40)}}, &scratch).value(), 0);
  EXPECT_EQ(on_big.Bucket({{Datum((int64_t{1} << 40) + 3)}}, &scratch).value(), 3);
}

TEST(BucketTest, CreateRejectsInvalidConfigurations) {
  EXPECT_TRUE(BucketFunction::Create(BucketFunctionType::kDefault, {DataType::Int()}, 0).status().IsInvalidArgument());
  EXPECT_TRUE(BucketFunction::Create(BucketFunctionType::kDefault, {}, 4).status().IsInvalidArgument());
  EXPECT_TRUE(BucketFunction::Create(BucketFunctionType::kMod, {DataType::String()}, 4).status().IsInvalidArgument());
  EXPECT_TRUE(BucketFunction::Create(BucketFunctionType::kMod, {DataType::Int(), DataType::Int()}, 4)
                  .status()
                  .IsInvalidArgument());
  EXPECT_TRUE(BucketFunction::Create(BucketFunctionType::kMod, {DataType::SmallInt()}, 4).status().IsInvalidArgument());
}

TEST(BucketTest, ShortBinaryRowIsCorruption) {
  BucketFunction fn = BucketFunction::Create(BucketFunctionType::kDefault, {DataType::Int()}, 2).value();
  EXPECT_TRUE(fn.BucketOfBinaryRow(std::string(15, '\0')).status().IsCorruption());
  BucketFunction mod = BucketFunction::Create(BucketFunctionType::kMod, {DataType::BigInt()}, 2).value();
  EXPECT_TRUE(mod.BucketOfBinaryRow(std::string(8, '\0')).status().IsCorruption());
}

TEST(BucketTest, ParseBucketFunctionType) {
  EXPECT_EQ(ParseBucketFunctionType("default").value(), BucketFunctionType::kDefault);
  EXPECT_EQ(ParseBucketFunctionType("MOD").value(), BucketFunctionType::kMod);
  EXPECT_TRUE(ParseBucketFunctionType("hive").status().IsNotSupported());
  EXPECT_TRUE(ParseBucketFunctionType("murmur").status().IsInvalidArgument());
}

}  // namespace
}  // namespace tide
