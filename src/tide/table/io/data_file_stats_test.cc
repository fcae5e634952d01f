#include "tide/table/io/data_file_stats.h"

#include <gtest/gtest.h>

#include <cmath>

#include "tide/codec/binary_row.h"

namespace tide {
namespace {

ColumnStats Collect(const DataType& type, StatsMode mode, const std::vector<Datum>& values) {
  ColumnStatsCollector c(type, mode);
  for (const Datum& v : values) c.Add(v);
  return c.Finish();
}

TEST(DataFileStatsTest, ParsesStatsModes) {
  EXPECT_EQ(ParseStatsMode("none").value(), StatsMode::None());
  EXPECT_EQ(ParseStatsMode("Counts").value(), StatsMode::Counts());
  EXPECT_EQ(ParseStatsMode("FULL").value(), StatsMode::Full());
  EXPECT_EQ(ParseStatsMode("truncate(16)").value(), StatsMode::Truncate(16));
  EXPECT_EQ(ParseStatsMode(" TRUNCATE(3) ").value(), StatsMode::Truncate(3));
  EXPECT_FALSE(ParseStatsMode("truncate(0)").ok());
  EXPECT_FALSE(ParseStatsMode("truncate()").ok());
  EXPECT_FALSE(ParseStatsMode("some").ok());
}

TEST(DataFileStatsTest, TruncatesStringsAsJava) {
  // The real Java example (PAIMON_FORMAT.md §4.3).
  EXPECT_EQ(TruncateStringMin("Two roads diverged in a wood...", 16), "Two roads diverg");
  EXPECT_EQ(TruncateStringMax("Two roads diverged in a wood...", 16).value(), "Two roads diverh");
  // At most n characters: unchanged.
  EXPECT_EQ(TruncateStringMax("exactly sixteen!", 16).value(), "exactly sixteen!");
  EXPECT_EQ(TruncateStringMin("short", 16), "short");
  // Characters, not bytes: "é" is 2 bytes, "€" 3, "😀" 4.
  EXPECT_EQ(TruncateStringMin("éé€😀x", 4), "éé€😀");
  EXPECT_EQ(TruncateStringMax("éé€😀x", 3).value(), "éé\xe2\x82\xad");  // € U+20AC -> U+20AD
  EXPECT_EQ(TruncateStringMax("ab\xf4\x8f\xbf\xbfzz", 3).value(), "ac");  // U+10FFFF cannot grow: bump 'b'
  EXPECT_FALSE(TruncateStringMax("\xf4\x8f\xbf\xbf\xf4\x8f\xbf\xbfz", 2).has_value());
  // A bump into the surrogate range skips to U+E000.
  EXPECT_EQ(TruncateStringMax("\xed\x9f\xbfzz", 1).value(), "\xee\x80\x80");
}

TEST(DataFileStatsTest, StringColumnTruncate16) {
  ColumnStats s = Collect(DataType::String(), StatsMode::Truncate(16),
                          {Datum("Two roads diverged in a wood..."), Datum(), Datum("And sorry I could not travel both"),
                           Datum("b")});
  EXPECT_EQ(s.min, Datum("And sorry I coul"));
  EXPECT_EQ(s.max, Datum("b"));
  EXPECT_EQ(s.null_count, 1);
  s = Collect(DataType::String(), StatsMode::Truncate(16), {Datum("Two roads diverged in a wood...")});
  EXPECT_EQ(s.min, Datum("Two roads diverg"));
  EXPECT_EQ(s.max, Datum("Two roads diverh"));
  // Full keeps whole values.
  s = Collect(DataType::String(), StatsMode::Full(), {Datum("Two roads diverged in a wood...")});
  EXPECT_EQ(s.max, Datum("Two roads diverged in a wood..."));
  // A max that cannot be bounded loses min and max, keeps the null count.
  s = Collect(DataType::String(), StatsMode::Truncate(1), {Datum("\xf4\x8f\xbf\xbfz"), Datum()});
  EXPECT_TRUE(s.min.is_null());
  EXPECT_TRUE(s.max.is_null());
  EXPECT_EQ(s.null_count, 1);
}

TEST(DataFileStatsTest, ModesAndTypes) {
  ColumnStats s = Collect(DataType::Int(), StatsMode::Truncate(16), {Datum(int64_t{5}), Datum(int64_t{-3}), Datum()});
  EXPECT_EQ(s.min, Datum(int64_t{-3}));
  EXPECT_EQ(s.max, Datum(int64_t{5}));
  EXPECT_EQ(s.null_count, 1);
  s = Collect(DataType::Int(), StatsMode::Counts(), {Datum(int64_t{5}), Datum()});
  EXPECT_TRUE(s.min.is_null());
  EXPECT_EQ(s.null_count, 1);
  s = Collect(DataType::Int(), StatsMode::None(), {Datum(int64_t{5}), Datum()});
  EXPECT_TRUE(s.IsNone());
  // Binary: not comparable in Java, null count only.
  s = Collect(DataType::Bytes(), StatsMode::Full(), {Datum("\x01"), Datum()});
  EXPECT_TRUE(s.min.is_null());
  EXPECT_EQ(s.null_count, 1);
  // Nested: nothing at all.
  s = Collect(DataType::Array(DataType::Int()), StatsMode::Full(), {Datum::Nested({Datum(int64_t{1})}), Datum()});
  EXPECT_TRUE(s.IsNone());
  // TIMESTAMP(9): INT96 in Java's files, no bounds; TIMESTAMP(6): micros; TIMESTAMP(3): millis.
  TimestampValue ts{1700000000123, 456789};
  s = Collect(DataType::Timestamp(9), StatsMode::Full(), {Datum(ts)});
  EXPECT_TRUE(s.min.is_null());
  EXPECT_EQ(s.null_count, 0);
  s = Collect(DataType::Timestamp(6), StatsMode::Full(), {Datum(ts)});
  EXPECT_EQ(s.min, Datum(TimestampValue{1700000000123, 456000}));
  s = Collect(DataType::Timestamp(3), StatsMode::Full(), {Datum(ts)});
  EXPECT_EQ(s.max, Datum(TimestampValue{1700000000123, 0}));
  // Floating point with NaN: no bounds.
  s = Collect(DataType::Double(), StatsMode::Full(), {Datum(1.5), Datum(std::nan(""))});
  EXPECT_TRUE(s.max.is_null());
  EXPECT_EQ(s.null_count, 0);
  s = Collect(DataType::Double(), StatsMode::Full(), {Datum(1.5), Datum(-2.5)});
  EXPECT_EQ(s.min, Datum(-2.5));
  // Decimals by value; no non-null value: no bounds.
  s = Collect(DataType::Decimal(10, 2), StatsMode::Full(), {Datum(DecimalValue{-100}), Datum(DecimalValue{7})});
  EXPECT_EQ(s.min, Datum(DecimalValue{-100}));
  s = Collect(DataType::Int(), StatsMode::Full(), {Datum(), Datum()});
  EXPECT_TRUE(s.min.is_null());
  EXPECT_EQ(s.null_count, 2);
}

TEST(DataFileStatsTest, StatsModesFollowJavaFactories) {
  TableSchema schema;
  schema.SetOption("metadata.stats-mode", "full");
  schema.SetOption("fields.b.stats-mode", "none");
  auto modes = StatsModesFor(schema, {"_KEY_a", "_SEQUENCE_NUMBER", "_VALUE_KIND", "a", "b", "c"}, "t").value();
  EXPECT_EQ(modes, (std::vector<StatsMode>{StatsMode::Truncate(128), StatsMode::Truncate(128), StatsMode::Truncate(128),
                                           StatsMode::Full(), StatsMode::None(), StatsMode::Full()}));
  TableSchema defaults;
  defaults.SetOption("metadata.stats-keep-first-n-columns", "1");
  modes = StatsModesFor(defaults, {"_KEY_a", "a", "b"}, "t").value();
  EXPECT_EQ(modes, (std::vector<StatsMode>{StatsMode::Truncate(128), StatsMode::Truncate(16), StatsMode::None()}));
  TableSchema bad;
  bad.SetOption("metadata.stats-mode", "everything");
  EXPECT_TRUE(StatsModesFor(bad, {"a"}, "t").status().IsInvalidArgument());
}

TEST(DataFileStatsTest, EncodesAllModeAndDenseStats) {
  std::vector<DataField> fields = {{0, "a", DataType::Int(false), {}, {}},
                                   {1, "b", DataType::String(), {}, {}},
                                   {2, "c", DataType::Array(DataType::Int()), {}, {}}};
  std::vector<ColumnStats> stats(3);
  stats[0] = {Datum(int64_t{1}), Datum(int64_t{9}), 0};
  stats[1] = {Datum("x"), Datum("y"), 2};
  // c: nested, no statistics.
  auto encoded = EncodeValueStats(stats, fields, true).value();
  EXPECT_FALSE(encoded.columns.has_value());  // nested columns alone keep the full layout
  std::vector<DataType> nullable = {DataType::Int(), DataType::String(), DataType::Array(DataType::Int())};
  EXPECT_EQ(encoded.stats.min_values,
            EncodeSerializedBinaryRow(std::vector<Datum>{Datum(int64_t{1}), Datum("x"), Datum()}, nullable).value());
  EXPECT_EQ(encoded.stats.max_values,
            EncodeSerializedBinaryRow(std::vector<Datum>{Datum(int64_t{9}), Datum("y"), Datum()}, nullable).value());
  EXPECT_EQ(encoded.stats.null_counts, (std::vector<std::optional<int64_t>>{0, 2, std::nullopt}));
  EXPECT_TRUE(encoded.stats.null_counts_present);

  stats[1] = ColumnStats{};  // b: mode none
  encoded = EncodeValueStats(stats, fields, true).value();
  ASSERT_TRUE(encoded.columns.has_value());
  EXPECT_EQ(*encoded.columns, (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(encoded.stats.null_counts, (std::vector<std::optional<int64_t>>{0, std::nullopt}));
  encoded = EncodeValueStats(stats, fields, false).value();
  EXPECT_FALSE(encoded.columns.has_value());
  EXPECT_EQ(encoded.stats.null_counts.size(), 3u);
}

}  // namespace
}  // namespace tide
