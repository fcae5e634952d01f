#include "tide/cli/prometheus_text.h"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

namespace tide::cli {
namespace {

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

bool HasLine(const std::string& text, const std::string& line) {
  for (const std::string& l : Lines(text)) {
    if (l == line) return true;
  }
  return false;
}

SyncProgressSnapshot OneTable() {
  SyncProgressSnapshot p;
  p.slot = "tide_shop";
  p.publication = "tide_shop";
  p.started_unix_ms = 1700000000000;
  TableProgress t;
  t.source = "public.orders";
  t.target = "shop.orders";
  t.phase = TablePhase::kCopying;
  t.rows_estimate = 1000;
  t.rows_copied = 250;
  t.changes_streamed = 7;
  t.commits = 2;
  t.committed_lsn = 0x16B374D848;
  p.tables.push_back(t);
  return p;
}

TEST(PrometheusTextTest, LabelValuesAreEscaped) {
  EXPECT_EQ(EscapeLabelValue("plain"), "plain");
  EXPECT_EQ(EscapeLabelValue("a\\b"), "a\\\\b");
  EXPECT_EQ(EscapeLabelValue("say \"hi\""), "say \\\"hi\\\"");
  EXPECT_EQ(EscapeLabelValue("two\nlines"), "two\\nlines");
  SyncProgressSnapshot p = OneTable();
  p.tables[0].source = "public.\"we\\ird\nname\"";
  const std::string text = RenderPrometheusText(p, p.started_unix_ms);
  EXPECT_TRUE(HasLine(text, "tide_sync_rows_copied_total{table=\"public.\\\"we\\\\ird\\nname\\\"\",target=\"shop.orders\"} 250"))
      << text;
}

TEST(PrometheusTextTest, SampleValues) {
  EXPECT_EQ(FormatSampleValue(0), "0");
  EXPECT_EQ(FormatSampleValue(3000), "3000");
  EXPECT_EQ(FormatSampleValue(97500599368.0), "97500599368");
  EXPECT_EQ(FormatSampleValue(0.25), "0.25");
  EXPECT_EQ(FormatSampleValue(-1), "-1");
  EXPECT_EQ(FormatSampleValue(INFINITY), "+Inf");
  EXPECT_EQ(FormatSampleValue(-INFINITY), "-Inf");
  EXPECT_EQ(FormatSampleValue(NAN), "NaN");
}

TEST(PrometheusTextTest, HistogramBucketsAreCumulativeAndEndWithInf) {
  SyncProgressSnapshot p = OneTable();
  for (double s : {0.001, 0.004, 0.02, 0.3, 0.3, 75.0}) p.commit_duration.Observe(s);
  const std::string text = RenderPrometheusText(p, p.started_unix_ms);
  EXPECT_TRUE(HasLine(text, "# TYPE tide_sync_commit_duration_seconds histogram")) << text;
  EXPECT_TRUE(HasLine(text, "tide_sync_commit_duration_seconds_bucket{le=\"0.005\"} 2")) << text;
  EXPECT_TRUE(HasLine(text, "tide_sync_commit_duration_seconds_bucket{le=\"0.01\"} 2")) << text;
  EXPECT_TRUE(HasLine(text, "tide_sync_commit_duration_seconds_bucket{le=\"0.025\"} 3")) << text;
  EXPECT_TRUE(HasLine(text, "tide_sync_commit_duration_seconds_bucket{le=\"0.25\"} 3")) << text;
  EXPECT_TRUE(HasLine(text, "tide_sync_commit_duration_seconds_bucket{le=\"0.5\"} 5")) << text;
  EXPECT_TRUE(HasLine(text, "tide_sync_commit_duration_seconds_bucket{le=\"60\"} 5")) << text;
  EXPECT_TRUE(HasLine(text, "tide_sync_commit_duration_seconds_bucket{le=\"+Inf\"} 6")) << text;
  EXPECT_TRUE(HasLine(text, "tide_sync_commit_duration_seconds_count 6")) << text;
  // Every bucket line counts at least what the one before it does.
  int64_t previous = -1;
  int buckets = 0;
  for (const std::string& line : Lines(text)) {
    if (line.rfind("tide_sync_commit_duration_seconds_bucket", 0) != 0) continue;
    const int64_t n = std::stoll(line.substr(line.rfind(' ') + 1));
    EXPECT_GE(n, previous) << line;
    previous = n;
    ++buckets;
  }
  EXPECT_EQ(buckets, static_cast<int>(DurationHistogram::kBoundsSeconds.size()) + 1);
}

TEST(PrometheusTextTest, EveryFamilyHasHelpAndTypeBeforeItsSamples) {
  SyncProgressSnapshot p = OneTable();
  p.last_error = "Unavailable: server closed the connection";
  p.last_error_kind = "Unavailable";
  p.reconnects = 2;
  const std::string text = RenderPrometheusText(p, p.started_unix_ms);
  std::string help, type;
  for (const std::string& line : Lines(text)) {
    if (line.rfind("# HELP ", 0) == 0) {
      help = line.substr(7, line.find(' ', 7) - 7);
    } else if (line.rfind("# TYPE ", 0) == 0) {
      type = line.substr(7, line.find(' ', 7) - 7);
      EXPECT_EQ(type, help) << "TYPE without its HELP: " << line;
    } else {
      const std::string name = line.substr(0, line.find_first_of("{ "));
      EXPECT_EQ(name.rfind(type, 0), 0u) << "sample " << name << " outside its family " << type;
    }
  }
  EXPECT_TRUE(HasLine(text, "tide_sync_up 0")) << text;
  EXPECT_TRUE(HasLine(text, "tide_sync_errors_total{kind=\"Unavailable\"} 1")) << text;
  EXPECT_TRUE(HasLine(text, "tide_sync_errors_total{kind=\"connection_lost\"} 2")) << text;
  EXPECT_TRUE(HasLine(text, "tide_sync_table_phase{table=\"public.orders\",target=\"shop.orders\",phase=\"copying\"} 1"));
  EXPECT_TRUE(HasLine(text, "tide_sync_table_phase{table=\"public.orders\",target=\"shop.orders\",phase=\"waiting\"} 0"));
  EXPECT_TRUE(HasLine(text, "tide_sync_rows_estimate{table=\"public.orders\",target=\"shop.orders\"} 1000"));
  EXPECT_TRUE(HasLine(text, "tide_sync_table_committed_lsn{table=\"public.orders\",target=\"shop.orders\"} 97500059720"));
}

TEST(PrometheusTextTest, LagInBytesAndSeconds) {
  SyncProgressSnapshot p = OneTable();
  EXPECT_EQ(ReplicationLagBytes(p), 0);
  EXPECT_EQ(LagSeconds(p, 1700000010000), 0);
  p.received_lsn = 5000;
  p.acknowledged_lsn = 3000;
  p.pending_since_unix_us = 1700000008000000;
  EXPECT_EQ(ReplicationLagBytes(p), 2000);
  EXPECT_DOUBLE_EQ(LagSeconds(p, 1700000010000), 2.0);
  const std::string text = RenderPrometheusText(p, 1700000010000);
  EXPECT_TRUE(HasLine(text, "tide_sync_replication_lag_bytes 2000")) << text;
  EXPECT_TRUE(HasLine(text, "tide_sync_lag_seconds 2")) << text;
}

}  // namespace
}  // namespace tide::cli
