#include "tide/cli/sql_shell.h"

#include <gtest/gtest.h>

namespace tide::cli {
namespace {

TEST(HistoryEntryForTest, JoinsTheLinesOfAStatement) {
  EXPECT_EQ(HistoryEntryFor({"SELECT 1"}), "SELECT 1");
  EXPECT_EQ(HistoryEntryFor({"SELECT a,", "    b", "FROM t;"}), "SELECT a, b FROM t;");
  EXPECT_EQ(HistoryEntryFor({".schema shop.orders"}), ".schema shop.orders");
}

TEST(HistoryEntryForTest, KeepsLineBreaksWhenALineHasAComment) {
  // Joined into one line, the comment would swallow `2 AS b;`.
  EXPECT_EQ(HistoryEntryFor({"SELECT 1 AS a, -- one", "  2 AS b;"}), "SELECT 1 AS a, -- one\n  2 AS b;");
}

TEST(HistoryEntryForTest, LeavesOutSecretsAndLinesStartingWithASpace) {
  EXPECT_EQ(HistoryEntryFor({"CREATE SECRET s3 (TYPE s3, KEY_ID 'AKIA', SECRET 'xyz');"}), std::nullopt);
  EXPECT_EQ(HistoryEntryFor({"ATTACH 'host=db user=u Password=hunter2' AS pg (TYPE postgres);"}), std::nullopt);
  EXPECT_EQ(HistoryEntryFor({"SELECT 1,", "'passwd';"}), std::nullopt);
  EXPECT_EQ(HistoryEntryFor({" SELECT 1;"}), std::nullopt);
  EXPECT_EQ(HistoryEntryFor({}), std::nullopt);
  EXPECT_EQ(HistoryEntryFor({"", "   "}), std::nullopt);
}

}  // namespace
}  // namespace tide::cli
