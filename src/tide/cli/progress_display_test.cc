#include "tide/cli/progress_display.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace tide::cli {
namespace {

TableProgress Table(const std::string& source, TablePhase phase, int64_t copied, int64_t estimate) {
  TableProgress t;
  t.source = source;
  t.target = "shop." + source.substr(source.find('.') + 1);
  t.phase = phase;
  t.rows_copied = copied;
  t.rows_estimate = estimate;
  return t;
}

bool Contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(ProgressDisplayTest, Formats) {
  EXPECT_EQ(FormatCount(0), "0");
  EXPECT_EQ(FormatCount(999), "999");
  EXPECT_EQ(FormatCount(1234567), "1,234,567");
  EXPECT_EQ(FormatCount(-1000), "-1,000");
  EXPECT_EQ(FormatBytes(950), "950 B");
  EXPECT_EQ(FormatBytes(12345), "12.3 kB");
  EXPECT_EQ(FormatBytes(4.5e6), "4.5 MB");
  EXPECT_EQ(FormatSeconds(3.25), "3.2s");
  EXPECT_EQ(FormatSeconds(45), "45s");
  EXPECT_EQ(FormatSeconds(185), "3m05s");
  EXPECT_EQ(FormatSeconds(7440), "2h04m");
}

TEST(ProgressDisplayTest, CopyBarsShowRowsPercentRateAndEta) {
  SyncProgressSnapshot before, now;
  before.tables = {Table("public.orders", TablePhase::kCopying, 100'000, 400'000),
                   Table("public.users", TablePhase::kWaiting, 0, 1000)};
  now.tables = {Table("public.orders", TablePhase::kCopying, 200'000, 400'000),
                Table("public.users", TablePhase::kWaiting, 0, 1000)};
  auto lines = RenderProgressBars(now, &before, 2.0, 0, 200);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_TRUE(Contains(lines[0], "public.orders")) << lines[0];
  EXPECT_TRUE(Contains(lines[0], " 50%")) << lines[0];
  EXPECT_TRUE(Contains(lines[0], "200,000 / ~400,000 rows")) << lines[0];
  EXPECT_TRUE(Contains(lines[0], "50k rows/s")) << lines[0];
  EXPECT_TRUE(Contains(lines[0], "ETA 4.0s")) << lines[0];
  EXPECT_TRUE(Contains(lines[0], "[============>           ]")) << lines[0];
  EXPECT_TRUE(Contains(lines[1], "public.users")) << lines[1];
  EXPECT_TRUE(Contains(lines[1], "waiting")) << lines[1];
  EXPECT_EQ(OverallPhase(now), "copying");
}

TEST(ProgressDisplayTest, LowEstimateStopsAt99AndNoneShowsQuestionMark) {
  SyncProgressSnapshot now;
  now.tables = {Table("public.a", TablePhase::kCopying, 500, 100), Table("public.b", TablePhase::kCopying, 5, -1)};
  auto lines = RenderProgressBars(now, nullptr, 0, 0, 200);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_TRUE(Contains(lines[0], " 99%")) << lines[0];
  EXPECT_TRUE(Contains(lines[1], "  ?%")) << lines[1];
  EXPECT_FALSE(Contains(lines[1], "ETA")) << lines[1];
}

TEST(ProgressDisplayTest, StreamingShowsCopiedTablesAndTheStatusLine) {
  SyncProgressSnapshot before, now;
  before.tables = {Table("public.orders", TablePhase::kStreaming, 400'000, 390'000),
                   Table("public.users", TablePhase::kStreaming, 0, 1000)};
  now.tables = before.tables;
  before.streamed_changes = 1000;
  now.streamed_changes = 3000;
  now.transactions = 42;
  now.received_lsn = 0x2000;
  now.acknowledged_lsn = 0x1000;
  now.last_commit_unix_ms = 10'000;
  auto lines = RenderProgressBars(now, &before, 2.0, 10'500, 200);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_TRUE(Contains(lines[0], "100%  400,000 rows copied")) << lines[0];
  EXPECT_TRUE(Contains(lines[1], "copied earlier, streaming")) << lines[1];
  EXPECT_TRUE(Contains(lines[2], "streaming  1.0k changes/s")) << lines[2];
  EXPECT_TRUE(Contains(lines[2], "3,000 changes in 42 transactions")) << lines[2];
  EXPECT_TRUE(Contains(lines[2], "lag 4.1 kB")) << lines[2];
  EXPECT_TRUE(Contains(lines[2], "last commit 0.5s ago (acknowledged 0/1000)")) << lines[2];
  EXPECT_EQ(RenderProgressLog(now, &before, 2.0, 10'500), lines[2]);
}

TEST(ProgressDisplayTest, LinesFitTheWidthAndManyTablesAreSummed) {
  SyncProgressSnapshot now;
  for (int i = 0; i < 30; ++i) {
    now.tables.push_back(Table("public.t" + std::to_string(i), i < 2 ? TablePhase::kCopying : TablePhase::kWaiting,
                               10, 100));
  }
  auto lines = RenderProgressBars(now, nullptr, 0, 0, 40, 10);
  ASSERT_EQ(lines.size(), 3u);  // the two copying, then the summary
  for (const std::string& line : lines) EXPECT_LT(line.size(), 40u) << line;
  EXPECT_TRUE(Contains(lines[2], "28 more tables")) << lines[2];
}

TEST(ProgressDisplayTest, LogLineDuringTheCopy) {
  SyncProgressSnapshot now;
  now.tables = {Table("public.orders", TablePhase::kCopying, 1000, 4000),
                Table("public.users", TablePhase::kStreaming, 10, 10)};
  std::string line = RenderProgressLog(now, nullptr, 0, 0);
  EXPECT_EQ(line, "copying: 2 tables (1 copied, 0 waiting); public.orders 1,000 of ~4,000 rows (25%)");
}

TEST(ProgressDisplayTest, JsonCarriesTheSameFacts) {
  SyncProgressSnapshot before, now;
  before.tables = {Table("public.orders", TablePhase::kCopying, 0, 100)};
  now.tables = {Table("public.orders", TablePhase::kCopying, 50, 100)};
  now.slot = "tide_shop";
  auto j = nlohmann::json::parse(RenderProgressJson(now, &before, 1.0, 1'700'000'000'123));
  EXPECT_EQ(j["event"], "progress");
  EXPECT_EQ(j["phase"], "copying");
  EXPECT_EQ(j["time"], "2023-11-14T22:13:20.123Z");
  EXPECT_EQ(j["tables"][0]["source"], "public.orders");
  EXPECT_EQ(j["tables"][0]["percent"], 50);
  EXPECT_EQ(j["tables"][0]["rows_per_second"], 50);
  EXPECT_EQ(j["tables"][0]["eta_seconds"], 1);
  auto log = nlohmann::json::parse(RenderLogJson("warning", "a \"quoted\" word", 0));
  EXPECT_EQ(log["level"], "warning");
  EXPECT_EQ(log["message"], "a \"quoted\" word");
}

TEST(ProgressDisplayTest, RedrawMovesUpClearsAndPrintsAbove) {
  EXPECT_EQ(RedrawSequence(0, "", {"a", "b"}), "\r\x1b[Ja\nb\n");
  EXPECT_EQ(RedrawSequence(2, "warn\n", {"a"}), "\x1b[2A\r\x1b[Jwarn\na\n");
}

}  // namespace
}  // namespace tide::cli
