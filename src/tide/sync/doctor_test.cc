// The pure parts of the doctor: PostgreSQL sizes and durations as SHOW and pg_settings give them, byte
// sizes for people, identifiers for the printed fixes, and the report's layout.
#include "tide/sync/doctor.h"

#include <gtest/gtest.h>

namespace tide {
namespace {

TEST(DoctorSettingsTest, ParsesSizesInPowersOf1024) {
  EXPECT_EQ(ParsePgSize("64MB").value(), int64_t{64} << 20);
  EXPECT_EQ(ParsePgSize("1GB").value(), int64_t{1} << 30);
  EXPECT_EQ(ParsePgSize("8kB").value(), 8192);
  EXPECT_EQ(ParsePgSize("2TB").value(), int64_t{2} << 40);
  EXPECT_EQ(ParsePgSize("512").value(), 512);
  EXPECT_EQ(ParsePgSize(" 16 MB ").value(), int64_t{16} << 20);
  EXPECT_EQ(ParsePgSize("-1").value(), -1);
  EXPECT_FALSE(ParsePgSize("64mb").ok());  // PostgreSQL's units are case-sensitive
  EXPECT_FALSE(ParsePgSize("MB").ok());
  EXPECT_FALSE(ParsePgSize("-5MB").ok());
  EXPECT_FALSE(ParsePgSize("99999999999TB").ok());
}

TEST(DoctorSettingsTest, ParsesDurations) {
  EXPECT_EQ(ParsePgDuration("0").value(), 0);
  EXPECT_EQ(ParsePgDuration("500ms").value(), 500);
  EXPECT_EQ(ParsePgDuration("60s").value(), 60000);
  EXPECT_EQ(ParsePgDuration("1min").value(), 60000);
  EXPECT_EQ(ParsePgDuration("2h").value(), 7200000);
  EXPECT_EQ(ParsePgDuration("1d").value(), 86400000);
  EXPECT_EQ(ParsePgDuration("1500us").value(), 1);
  EXPECT_FALSE(ParsePgDuration("1 week").ok());
  EXPECT_FALSE(ParsePgDuration("s").ok());
}

TEST(DoctorSettingsTest, SettingValuesMultiplyTheirUnit) {
  EXPECT_EQ(PgSettingValue("16384", "8kB").value(), int64_t{16384} * 8192);  // shared_buffers
  EXPECT_EQ(PgSettingValue("1024", "MB").value(), int64_t{1} << 30);        // max_slot_wal_keep_size
  EXPECT_EQ(PgSettingValue("-1", "MB").value(), -1);
  EXPECT_EQ(PgSettingValue("60000", "ms").value(), 60000);  // idle_in_transaction_session_timeout
  EXPECT_EQ(PgSettingValue("60", "s").value(), 60000);      // wal_sender_timeout style
  EXPECT_EQ(PgSettingValue("10", "").value(), 10);          // max_replication_slots
  EXPECT_FALSE(PgSettingValue("ten", "").ok());
  EXPECT_FALSE(PgSettingValue("1", "furlongs").ok());
}

TEST(DoctorSettingsTest, FormatsByteSizes) {
  EXPECT_EQ(FormatByteSize(0), "0 bytes");
  EXPECT_EQ(FormatByteSize(1023), "1023 bytes");
  EXPECT_EQ(FormatByteSize(1024), "1 kB");
  EXPECT_EQ(FormatByteSize(1536), "1.5 kB");
  EXPECT_EQ(FormatByteSize(int64_t{64} << 20), "64 MB");
  EXPECT_EQ(FormatByteSize(int64_t{3} << 29), "1.5 GB");
}

TEST(DoctorSettingsTest, QuotesIdentifiersOnlyWhenNeeded) {
  EXPECT_EQ(SqlIdentifier("tide_app"), "tide_app");
  EXPECT_EQ(SqlIdentifier("App"), "\"App\"");
  EXPECT_EQ(SqlIdentifier("1st"), "\"1st\"");
  EXPECT_EQ(SqlIdentifier("a\"b"), "\"a\"\"b\"");
  EXPECT_EQ(SqlIdentifier("my-role"), "\"my-role\"");
}

TEST(DoctorReportTest, OneLinePerCheckWithTheFixIndentedBelow) {
  DoctorReport report;
  report.checks.push_back({DoctorOutcome::kOk, "wal_level = logical", {}});
  report.checks.push_back({DoctorOutcome::kFail, "role r lacks REPLICATION", {"as a superuser:", "ALTER ROLE r WITH REPLICATION;"}});
  report.checks.push_back({DoctorOutcome::kWarn, "t has no primary key", {"add one"}});
  EXPECT_FALSE(report.ok());
  EXPECT_EQ(report.failures(), 1);
  EXPECT_EQ(report.Format(),
            "ok    wal_level = logical\n"
            "FAIL  role r lacks REPLICATION\n"
            "        as a superuser:\n"
            "        ALTER ROLE r WITH REPLICATION;\n"
            "warn  t has no primary key\n"
            "        add one\n");
  EXPECT_EQ(report.FormatFailures(),
            "FAIL  role r lacks REPLICATION\n"
            "        as a superuser:\n"
            "        ALTER ROLE r WITH REPLICATION;\n");
  report.checks.erase(report.checks.begin() + 1);
  EXPECT_TRUE(report.ok());
}

}  // namespace
}  // namespace tide
