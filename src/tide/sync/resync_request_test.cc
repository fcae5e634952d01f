#include "tide/sync/resync_request.h"

#include <gtest/gtest.h>

namespace tide {
namespace {

TEST(ResyncRequestTest, RoundTripsSlotAndTables) {
  ResyncRequest request{"tide_shop", {PgTableName{"public", "orders"}, PgTableName{"My Schema", "Items"}}};
  auto parsed = ParseResyncRequest(EncodeResyncRequest(request));
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->slot, "tide_shop");
  EXPECT_EQ(parsed->tables, request.tables);
}

TEST(ResyncRequestTest, RefusesOtherContent) {
  for (std::string_view content : {"", "tide_shop", "tide_shop\n", "\npublic.orders", "slot\n\"unclosed"}) {
    auto parsed = ParseResyncRequest(content);
    EXPECT_FALSE(parsed.ok()) << content;
    EXPECT_TRUE(parsed.status().IsInvalidArgument()) << parsed.status().ToString();
  }
}

}  // namespace
}  // namespace tide
