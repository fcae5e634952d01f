#include "tide/postgres/lsn.h"

#include <gtest/gtest.h>

namespace tide {
namespace {

TEST(LsnTest, FormatsLikePostgres) {
  EXPECT_EQ(FormatLsn(0), "0/0");
  EXPECT_EQ(FormatLsn((uint64_t{0x16} << 32) | 0xB374D848), "16/B374D848");
}

TEST(LsnTest, ParsesRoundTrip) {
  auto lsn = ParseLsn("16/b374d848");
  ASSERT_TRUE(lsn.ok());
  EXPECT_EQ(*lsn, (uint64_t{0x16} << 32) | 0xB374D848);
  EXPECT_EQ(FormatLsn(*ParseLsn("FFFFFFFF/FFFFFFFF")), "FFFFFFFF/FFFFFFFF");
}

TEST(LsnTest, RejectsMalformed) {
  for (const char* bad : {"", "/", "1/", "/1", "12", "1/2/3", "g/0", "123456789/0", "1 /2"}) {
    EXPECT_FALSE(ParseLsn(bad).ok()) << bad;
  }
}

}  // namespace
}  // namespace tide
