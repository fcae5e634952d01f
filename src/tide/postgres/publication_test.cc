#include "tide/postgres/publication.h"

#include <gtest/gtest.h>

#include "tide/postgres/replication_slot.h"

namespace tide {
namespace {

TEST(PgTableNameTest, ParsesAndFoldsLikePostgres) {
  EXPECT_EQ(*ParsePgTableName("Orders"), (PgTableName{"public", "orders"}));
  EXPECT_EQ(*ParsePgTableName("Shop.Orders"), (PgTableName{"shop", "orders"}));
  EXPECT_EQ(*ParsePgTableName("\"Shop\".\"My \"\"T\"\"\""), (PgTableName{"Shop", "My \"T\""}));
  EXPECT_EQ(ParsePgTableName("\"a.b\"")->name, "a.b");
  EXPECT_EQ((PgTableName{"Shop", "t"}).ToString(), "\"Shop\".t");
  EXPECT_EQ((PgTableName{"public", "t"}).Quoted(), "\"public\".\"t\"");
  for (const char* bad : {"", "a.b.c", "\"open", "a.", ".a"}) EXPECT_FALSE(ParsePgTableName(bad).ok()) << bad;
}

TEST(PgTableNameTest, ParsesLists) {
  auto list = ParsePgTableList("public.a, b ,\"x,y\".c,b");
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  ASSERT_EQ(list->size(), 3u);  // duplicates dropped
  EXPECT_EQ((*list)[2], (PgTableName{"x,y", "c"}));
  EXPECT_FALSE(ParsePgTableList(" , ").ok());
}

TEST(ReplicationSlotTest, ValidatesNames) {
  EXPECT_TRUE(ValidateSlotName("tide_slot_1").ok());
  EXPECT_FALSE(ValidateSlotName("Tide").ok());
  EXPECT_FALSE(ValidateSlotName("a-b").ok());
  EXPECT_FALSE(ValidateSlotName(std::string(64, 'a')).ok());
  EXPECT_FALSE(ValidateSlotName("").ok());
}

TEST(ReplicationSlotTest, UsabilityChecksSayWhatToDo) {
  ReplicationSlotInfo slot;
  slot.name = "s";
  slot.slot_type = "logical";
  slot.plugin = "pgoutput";
  slot.database = "app";
  EXPECT_TRUE(CheckSlotUsable(slot, "app").ok());
  EXPECT_NE(CheckSlotUsable(slot, "other").message().find("belongs to database app"), std::string::npos);
  slot.active = true;
  slot.active_pid = 4242;
  Status active = CheckSlotUsable(slot, "app");
  EXPECT_TRUE(active.IsConflict());
  EXPECT_NE(active.message().find("active for PID 4242"), std::string::npos);
  EXPECT_NE(active.message().find("pg_terminate_backend(4242)"), std::string::npos);
  slot.active = false;
  slot.plugin = "wal2json";
  EXPECT_NE(CheckSlotUsable(slot, "app").message().find("wal2json"), std::string::npos);
}

}  // namespace
}  // namespace tide
