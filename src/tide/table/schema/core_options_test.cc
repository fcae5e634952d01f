#include "tide/table/schema/core_options.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace tide {
namespace {

using ::testing::HasSubstr;

TableSchema Schema(std::vector<std::pair<std::string, std::string>> options, bool primary_key = true,
                   int32_t version = 3) {
  TableSchema s;
  s.version = version;
  s.fields = {DataField{0, "k", DataType::BigInt(false), std::nullopt, std::nullopt},
              DataField{1, "v", DataType::String(), std::nullopt, std::nullopt}};
  if (primary_key) s.primary_keys = {"k"};
  for (const auto& [k, v] : options) s.SetOption(k, v);
  return s;
}

Result<CoreOptions> Parse(std::vector<std::pair<std::string, std::string>> options, bool primary_key = true) {
  return CoreOptions::Create(Schema(std::move(options), primary_key), "db.t");
}

TEST(CoreOptionsTest, DefaultsFollowJava) {
  auto pk = Parse({});
  ASSERT_TRUE(pk.ok()) << pk.status().ToString();
  EXPECT_EQ(pk->bucket(), -1);
  EXPECT_EQ(pk->file_format(), "parquet");
  EXPECT_EQ(pk->manifest_format(), "avro");
  EXPECT_EQ(pk->merge_engine(), MergeEngine::kDeduplicate);
  EXPECT_EQ(pk->changelog_producer(), ChangelogProducer::kNone);
  EXPECT_EQ(pk->target_file_size(), 128LL << 20);
  EXPECT_EQ(pk->write_buffer_size(), kTideDefaultWriteBufferSize);
  EXPECT_EQ(pk->file_compression(), "zstd");
  EXPECT_EQ(pk->file_compression_zstd_level(), 1);
  EXPECT_EQ(pk->manifest_target_file_size(), 8LL << 20);
  EXPECT_EQ(pk->manifest_full_compaction_threshold_size(), 16LL << 20);
  EXPECT_EQ(pk->manifest_merge_min_count(), 30);
  EXPECT_EQ(pk->commit_max_retries(), 10);
  EXPECT_EQ(pk->dynamic_bucket_target_row_num(), 2000000);
  EXPECT_EQ(pk->dynamic_bucket_max_buckets(), -1);
  EXPECT_EQ(pk->partition_default_name(), "__DEFAULT_PARTITION__");
  EXPECT_TRUE(pk->partition_legacy_name());
  EXPECT_TRUE(pk->metadata_stats_dense_store());
  EXPECT_FALSE(pk->scan_fallback_branch());
  auto append = Parse({}, /*primary_key=*/false);
  ASSERT_TRUE(append.ok());
  EXPECT_EQ(append->target_file_size(), 256LL << 20);
}

TEST(CoreOptionsTest, OldSchemaVersionsKeepTheirDefaults) {
  // Java's TableSchema: version 1 (Paimon 0.7) defaults bucket to 1, versions 1-2 file.format to orc.
  auto v1 = CoreOptions::Create(Schema({}, true, 1), "db.t");
  ASSERT_TRUE(v1.ok());
  EXPECT_EQ(v1->bucket(), 1);
  EXPECT_EQ(v1->file_format(), "orc");
  auto v2 = CoreOptions::Create(Schema({}, true, 2), "db.t");
  ASSERT_TRUE(v2.ok());
  EXPECT_EQ(v2->bucket(), -1);
  EXPECT_EQ(v2->file_format(), "orc");
}

TEST(CoreOptionsTest, ParsesJavaValueSyntax) {
  auto o = Parse({{"bucket", " +4 "},
                  {"ignore-delete", "false"},
                  {"write-buffer-size", "256 mb"},
                  {"target-file-size", "1 GiBiBytes"},
                  {"manifest.target-file-size", "512kb"},
                  {"manifest.full-compaction-threshold-size", "1048576"},
                  {"merge-engine", "Partial-Update"},
                  {"changelog-producer", "LOOKUP"},
                  {"deletion-vectors.enabled", "TRUE"},
                  {"sequence.field", " a , b,,"},
                  {"sequence.field.sort-order", "descending"},
                  {"first-row.ignore-delete", "true"},
                  {"fields.v.ignore-retract", "true"},
                  {"fields.v.aggregate-function", " SUM "},
                  {"fields.default-aggregate-function", "max"},
                  {"file.compression", "none"},
                  {"commit.max-retries", "2147483647"},
                  {"scan.fallback-branch", " test "}});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->bucket(), 4);
  EXPECT_EQ(o->write_buffer_size(), 256LL << 20);
  EXPECT_EQ(o->target_file_size(), 1LL << 30);
  EXPECT_EQ(o->manifest_target_file_size(), 512LL << 10);
  EXPECT_EQ(o->manifest_full_compaction_threshold_size(), 1048576);
  EXPECT_EQ(o->merge_engine(), MergeEngine::kPartialUpdate);
  EXPECT_EQ(o->changelog_producer(), ChangelogProducer::kLookup);
  EXPECT_TRUE(o->deletion_vectors_enabled());
  EXPECT_EQ(o->sequence_fields(), (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(o->sequence_field_descending());
  EXPECT_FALSE(o->ignore_delete());  // ignore-delete is set: its older names do not count
  auto old_name = Parse({{"first-row.ignore-delete", "true"}});
  ASSERT_TRUE(old_name.ok());
  EXPECT_TRUE(old_name->ignore_delete());  // an older name counts when ignore-delete is not set
  EXPECT_TRUE(o->ignore_retract("v"));
  EXPECT_FALSE(o->ignore_retract("k"));
  EXPECT_EQ(o->aggregate_function("v"), "sum");
  EXPECT_EQ(o->aggregate_function("k"), "max");
  EXPECT_EQ(o->file_compression(), "uncompressed");
  EXPECT_EQ(o->commit_max_retries(), 2147483647);
  EXPECT_EQ(o->scan_fallback_branch(), std::optional<std::string>("test"));
}

TEST(CoreOptionsTest, ABadValueIsAnErrorNamingTheTableTheOptionAndWhatItTakes) {
  struct Case {
    std::string key, value, expect;
  };
  for (const Case& c : std::vector<Case>{
           {"bucket", "four", "option 'bucket' = 'four' is not a number (it takes a 32-bit integer)"},
           {"bucket", "", "option 'bucket' = '' is not a number"},
           // Integer options of Java are 32-bit: a larger value is refused, never cut.
           {"commit.max-retries", "4294967297", "option 'commit.max-retries' = '4294967297' is out of range"},
           {"manifest.merge-min-count", "-2147483649", "is out of range (it takes a 32-bit integer)"},
           {"dynamic-bucket.target-row-num", "1e6", "is not a number (it takes a 64-bit integer)"},
           {"dynamic-bucket.target-row-num", "0", "is not positive"},
           {"dynamic-bucket.max-buckets", "0", "-1 (unlimited) or a positive number"},
           {"deletion-vectors.enabled", "yes", "option 'deletion-vectors.enabled' = 'yes' is not a boolean"},
           {"partition.legacy-name", "1", "is not a boolean (it takes true or false)"},
           {"write-buffer-size", "lots", "option 'write-buffer-size' = 'lots' is not a memory size"},
           {"target-file-size", "12 parsecs", "unknown memory unit 'parsecs'"},
           {"target-file-size", "0", "is not positive"},
           {"manifest.target-file-size", "99999999999999999999 mb", "is too large"},
           {"merge-engine", "newest", "unknown merge-engine 'newest'; use deduplicate, partial-update, "
                                      "aggregation, first-row"},
           {"changelog-producer", "sometimes", "unknown changelog-producer 'sometimes'"},
           {"sequence.field.sort-order", "up", "unknown sequence.field.sort-order 'up'"},
           {"fields.v.ignore-retract", "maybe", "option 'fields.v.ignore-retract' = 'maybe' is not a boolean"},
       }) {
    SCOPED_TRACE(c.key + " = " + c.value);
    auto o = Parse({{c.key, c.value}});
    ASSERT_FALSE(o.ok());
    EXPECT_TRUE(o.status().IsInvalidArgument()) << o.status().ToString();
    EXPECT_THAT(o.status().message(), HasSubstr("table db.t"));
    EXPECT_THAT(o.status().message(), HasSubstr(c.expect));
  }
}

TEST(CoreOptionsTest, OneMemorySizeParser) {
  EXPECT_EQ(*ParseMemorySize("0", "x"), 0);
  EXPECT_EQ(*ParseMemorySize("7 b", "x"), 7);
  EXPECT_EQ(*ParseMemorySize("7bytes", "x"), 7);
  EXPECT_EQ(*ParseMemorySize("3k", "x"), 3 << 10);
  EXPECT_EQ(*ParseMemorySize("3 KB", "x"), 3 << 10);
  EXPECT_EQ(*ParseMemorySize("3 kibibytes", "x"), 3 << 10);
  EXPECT_EQ(*ParseMemorySize("5m", "x"), 5 << 20);
  EXPECT_EQ(*ParseMemorySize("5 mebibytes", "x"), 5 << 20);
  EXPECT_EQ(*ParseMemorySize("2g", "x"), 2LL << 30);
  EXPECT_EQ(*ParseMemorySize("2 tb", "x"), 2LL << 40);
  EXPECT_EQ(*ParseMemorySize("8388607 tb", "x"), 8388607LL << 40);
  EXPECT_FALSE(ParseMemorySize("8388608 tb", "x").ok());  // past 2^63
  EXPECT_FALSE(ParseMemorySize("-1 mb", "x").ok());
  EXPECT_FALSE(ParseMemorySize("1.5 mb", "x").ok());
}

}  // namespace
}  // namespace tide
