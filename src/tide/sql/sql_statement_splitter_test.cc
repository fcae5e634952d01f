#include "tide/sql/sql_statement_splitter.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace tide {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(SqlStatementSplitterTest, WaitsForTheSemicolonAcrossLines) {
  SqlStatementSplitter s;
  s.Append("SELECT 1,\n");
  EXPECT_THAT(s.TakeComplete(), IsEmpty());
  EXPECT_EQ(s.Pending(), "SELECT 1,");
  s.Append("  2; SELECT 3;\n");
  EXPECT_THAT(s.TakeComplete(), ElementsAre("SELECT 1,\n  2;", "SELECT 3;"));
  EXPECT_TRUE(s.Empty());
}

TEST(SqlStatementSplitterTest, IgnoresSemicolonsInLiteralsIdentifiersAndComments) {
  SqlStatementSplitter s;
  s.Append("SELECT 'a;b', 'it''s;', \"c;d\", E'x\\';y' -- no; end\n/* still ; /* nested ; */ no */ , $$p;q$$, $t$r;$t$;");
  EXPECT_THAT(s.TakeComplete(),
              ElementsAre("SELECT 'a;b', 'it''s;', \"c;d\", E'x\\';y' -- no; end\n/* still ; /* nested ; */ no */ , "
                          "$$p;q$$, $t$r;$t$;"));
}

TEST(SqlStatementSplitterTest, AnOpenLiteralKeepsTheStatementPending) {
  SqlStatementSplitter s;
  s.Append("SELECT 'open;\n");
  EXPECT_THAT(s.TakeComplete(), IsEmpty());
  s.Append("still open';\n");
  EXPECT_THAT(s.TakeComplete(), ElementsAre("SELECT 'open;\nstill open';"));
}

TEST(SqlStatementSplitterTest, DropsBlankStatementsAndKeepsParametersApart) {
  SqlStatementSplitter s;
  s.Append(";;  -- just a comment\n; SELECT $1;");
  EXPECT_THAT(s.TakeComplete(), ElementsAre("SELECT $1;"));
}

TEST(SqlStatementSplitterTest, SplitAllKeepsTheUnterminatedTail) {
  EXPECT_THAT(SqlStatementSplitter::SplitAll("SET x = 1; SELECT 2"), ElementsAre("SET x = 1;", "SELECT 2"));
  EXPECT_THAT(SqlStatementSplitter::SplitAll("SELECT 1;  -- trailing comment"), ElementsAre("SELECT 1;"));
  EXPECT_THAT(SqlStatementSplitter::SplitAll("  "), IsEmpty());
}

TEST(IsBlankSqlTest, SeesOnlyCommentsAndSpace) {
  EXPECT_TRUE(IsBlankSql(" ; -- x\n /* y */ "));
  EXPECT_FALSE(IsBlankSql("-- x\nSELECT 1"));
}

}  // namespace
}  // namespace tide
