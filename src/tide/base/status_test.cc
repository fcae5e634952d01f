#include "tide/base/result.h"

#include <gtest/gtest.h>

#include <memory>

#include "tide/base/bytes.h"
#include "tide/base/strings.h"

namespace tide {
namespace {

Result<int> Half(int x) {
  if (x % 2 != 0) return Status::InvalidArgument("{} is odd", x);
  return x / 2;
}

Result<int> Quarter(int x) {
  TIDE_ASSIGN_OR_RETURN(int h, Half(x));
  TIDE_ASSIGN_OR_RETURN(int q, Half(h));
  return q;
}

TEST(StatusTest, CarriesCodeAndMessage) {
  Status s = Status::Corruption("file {} is short", "x");
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_EQ(s.ToString(), "Corruption: file x is short");
  EXPECT_EQ(s.WithContext("reading y").message(), "reading y: file x is short");
  EXPECT_TRUE(Status::OK().ok());
}

TEST(ResultTest, PropagatesErrors) {
  EXPECT_EQ(*Quarter(8), 2);
  Result<int> r = Quarter(6);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "3 is odd");
}

// TIDE_ASSIGN_OR_RETURN is one statement: as the body of an unbraced if/else it assigns or returns
// exactly as the braced form does.
Result<int> HalfIfEven(int x, bool halve) {
  int out = -1;
  if (halve)
    TIDE_ASSIGN_OR_RETURN(out, Half(x));
  else
    TIDE_ASSIGN_OR_RETURN(out, Half(x * 2));
  for (int i = 0; i < 1; ++i) TIDE_ASSIGN_OR_RETURN(out, Half(out * 2));
  return out;
}

TEST(ResultTest, AssignOrReturnIsOneStatement) {
  EXPECT_EQ(*HalfIfEven(8, true), 4);
  EXPECT_EQ(*HalfIfEven(3, false), 3);
  Result<int> odd = HalfIfEven(3, true);
  ASSERT_FALSE(odd.ok());
  EXPECT_EQ(odd.status().message(), "3 is odd");
  // Move-only values pass through.
  auto make = []() -> Result<std::unique_ptr<int>> { return std::make_unique<int>(7); };
  auto use = [&]() -> Result<int> {
    TIDE_ASSIGN_OR_RETURN(std::unique_ptr<int> p, make());
    return *p;
  };
  EXPECT_EQ(*use(), 7);
}

TEST(BytesTest, EndianAndBounds) {
  std::string buf;
  AppendBE<int32_t>(&buf, 0x01020304);
  AppendLE<int32_t>(&buf, 0x01020304);
  EXPECT_EQ(HexEncode(buf), "0102030404030201");
  ByteReader r(buf, "buf");
  EXPECT_EQ(*r.ReadBE<int32_t>(), 0x01020304);
  EXPECT_EQ(*r.ReadLE<int32_t>(), 0x01020304);
  Result<int8_t> past = r.ReadBE<int8_t>();
  ASSERT_FALSE(past.ok());
  EXPECT_TRUE(past.status().IsCorruption());
  EXPECT_NE(past.status().message().find("buf: truncated"), std::string::npos);
  EXPECT_EQ(*HexDecode("0A ff"), std::string("\x0a\xff", 2));
  EXPECT_FALSE(HexDecode("abc").ok());
}

TEST(StringsTest, SplitTrimParse) {
  EXPECT_EQ(Split("a,b,,c", ','), (std::vector<std::string>{"a", "b", "", "c"}));
  EXPECT_EQ(Trim("  x y \n"), "x y");
  EXPECT_EQ(*ParseInt64(" 42 ", "n"), 42);
  EXPECT_FALSE(ParseInt64("4x", "n").ok());
  EXPECT_FALSE(ParseInt64("99999999999999999999", "n").ok());
  EXPECT_TRUE(EqualsIgnoreCase("Parquet", "PARQUET"));
}

}  // namespace
}  // namespace tide
