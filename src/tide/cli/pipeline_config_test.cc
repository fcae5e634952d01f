#include "tide/cli/pipeline_config.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>

#include "tide/io/file_system.h"

namespace tide::cli {
namespace {

EnvLookup FakeEnv(std::map<std::string, std::string> vars) {
  return [vars](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

Result<PipelineConfig> ParseText(const std::string& text, std::map<std::string, std::string> env = {}) {
  return ParsePipelineConfig(text, "pipeline.yaml", FakeEnv(std::move(env)));
}

// The error message of parsing `text` ("" when it parses).
std::string ErrorOf(const std::string& text, std::map<std::string, std::string> env = {}) {
  auto parsed = ParseText(text, std::move(env));
  return parsed.ok() ? "" : parsed.status().message();
}

TEST(PipelineConfigTest, ReadsEverySection) {
  auto c = ParseText(R"yaml(
source:
  type: postgres
  conninfo: "host=db user=tide password=${PW}"
  tables: [public.a, 'public\.b_\d+']
  excluding-tables: public.b_0
  slot: s1
  publication: p1
sink:
  warehouse: /lake
  database: shop
  into: shop.all_b
  table-prefix: ods_
  table-suffix: _v1
  primary-keys: "public.a:id"
  partition-keys: [dt]
  computed-columns:
    - "dt=date_format(ts, yyyy-MM-dd)"
  metadata-columns: [op_ts, table_name]
  table-conf:
    bucket: 4
    changelog-producer: input
pipeline:
  commit-interval: 2s
  copy-workers: 8
  log-format: json
metrics:
  port: 9187
  bind: 0.0.0.0
)yaml",
                     {{"PW", "s3cr$t"}});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(*c->postgres, "host=db user=tide password=s3cr$t");
  EXPECT_EQ(*c->tables, "public.a,public\\.b_\\d+");
  EXPECT_EQ(*c->excluding_tables, "public.b_0");
  EXPECT_EQ(*c->slot, "s1");
  EXPECT_EQ(*c->publication, "p1");
  EXPECT_EQ(*c->warehouse, "/lake");
  EXPECT_EQ(*c->database, "shop");
  EXPECT_EQ(*c->into, "shop.all_b");
  EXPECT_EQ(*c->table_prefix, "ods_");
  EXPECT_EQ(*c->table_suffix, "_v1");
  EXPECT_EQ(*c->primary_keys, std::vector<std::string>{"public.a:id"});
  EXPECT_EQ(*c->partition_keys, std::vector<std::string>{"dt"});
  EXPECT_EQ(*c->computed_columns, std::vector<std::string>{"dt=date_format(ts, yyyy-MM-dd)"});
  EXPECT_EQ(*c->metadata_columns, (std::vector<std::string>{"op_ts", "table_name"}));
  EXPECT_EQ(*c->table_conf, (std::vector<std::string>{"bucket=4", "changelog-producer=input"}));
  EXPECT_EQ(*c->commit_interval, "2s");
  EXPECT_EQ(*c->copy_workers, 8);
  EXPECT_EQ(*c->log_format, "json");
  EXPECT_EQ(*c->metrics_port, 9187);
  EXPECT_EQ(*c->metrics_bind, "0.0.0.0");
}

TEST(PipelineConfigTest, KeysNotInTheFileStayUnset) {
  auto c = ParseText("sink:\n  database: shop\n");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(*c->database, "shop");
  EXPECT_FALSE(c->postgres);
  EXPECT_FALSE(c->partition_keys);
  EXPECT_FALSE(c->copy_workers);
  EXPECT_TRUE(ParseText("").ok());
}

TEST(PipelineConfigTest, UnknownKeyNamesKeyAndLine) {
  std::string e = ErrorOf("source:\n  slot: s\nsink:\n  warehouse: w\n  tabel-prefix: x\n");
  EXPECT_NE(e.find("pipeline.yaml:5"), std::string::npos) << e;
  EXPECT_NE(e.find("unknown key 'sink.tabel-prefix'"), std::string::npos) << e;
  EXPECT_NE(e.find("table-prefix"), std::string::npos) << e;  // the keys it could have meant
  e = ErrorOf("sorce:\n  slot: s\n");
  EXPECT_NE(e.find("pipeline.yaml:1: unknown key 'sorce'"), std::string::npos) << e;
}

TEST(PipelineConfigTest, WrongTypeNamesKeyAndLine) {
  std::string e = ErrorOf("pipeline:\n  copy-workers: many\n");
  EXPECT_NE(e.find("pipeline.yaml:2"), std::string::npos) << e;
  EXPECT_NE(e.find("pipeline.copy-workers must be an integer"), std::string::npos) << e;
  e = ErrorOf("source:\n  slot:\n    name: s\n");
  EXPECT_NE(e.find("pipeline.yaml:3"), std::string::npos) << e;
  EXPECT_NE(e.find("source.slot must be a string, not a map"), std::string::npos) << e;
  e = ErrorOf("sink:\n  table-conf: [bucket=4]\n");
  EXPECT_NE(e.find("sink.table-conf must be a map"), std::string::npos) << e;
  e = ErrorOf("sink: shop\n");
  EXPECT_NE(e.find("sink must be a map"), std::string::npos) << e;
  e = ErrorOf("metrics:\n  port: 70000\n");
  EXPECT_NE(e.find("metrics.port must be between 0 and 65535"), std::string::npos) << e;
  e = ErrorOf("source:\n  slot:\n");
  EXPECT_NE(e.find("'source.slot' has no value"), std::string::npos) << e;
  e = ErrorOf("source:\n  slot: a\n  slot: b\n");
  EXPECT_NE(e.find("pipeline.yaml:3: key 'source.slot' appears twice"), std::string::npos) << e;
}

TEST(PipelineConfigTest, BadDurationNamesKeyAndLine) {
  std::string e = ErrorOf("pipeline:\n  copy-workers: 2\n  commit-interval: 5 fortnights\n");
  EXPECT_NE(e.find("pipeline.yaml:3"), std::string::npos) << e;
  EXPECT_NE(e.find("pipeline.commit-interval"), std::string::npos) << e;
  EXPECT_NE(e.find("unknown time unit"), std::string::npos) << e;
}

TEST(PipelineConfigTest, UnsetVariableIsAnErrorNamingIt) {
  std::string e = ErrorOf("source:\n  conninfo: \"host=db password=${TIDE_TEST_UNSET}\"\n");
  EXPECT_NE(e.find("pipeline.yaml:2"), std::string::npos) << e;
  EXPECT_NE(e.find("environment variable TIDE_TEST_UNSET is not set"), std::string::npos) << e;
  e = ErrorOf("source:\n  conninfo: \"password=${OPEN\"\n");
  EXPECT_NE(e.find("without a closing"), std::string::npos) << e;
  // A value never appears in an error: it may be a password.
  e = ErrorOf("source:\n  slot: [hunter2]\n");
  EXPECT_EQ(e.find("hunter2"), std::string::npos) << e;
}

// Table options end up in the lake's schema files: no environment variable (a secret, often) goes there.
TEST(PipelineConfigTest, TableOptionsTakeNoEnvironmentVariables) {
  std::string e = ErrorOf("sink:\n  table-conf:\n    fs.s3.secret-key: \"${HOME}\"\n");
  EXPECT_NE(e.find("pipeline.yaml:3"), std::string::npos) << e;
  EXPECT_NE(e.find("table-conf.fs.s3.secret-key"), std::string::npos) << e;
  EXPECT_NE(e.find("not read from the environment in table options"), std::string::npos) << e;
}

TEST(PipelineConfigTest, BadYamlNamesTheLine) {
  std::string e = ErrorOf("source:\n  slot: [a, b\n");
  EXPECT_NE(e.find("not valid YAML"), std::string::npos) << e;
  EXPECT_NE(e.find("pipeline.yaml:"), std::string::npos) << e;
}

TEST(PipelineConfigTest, UnsupportedSourceType) {
  std::string e = ErrorOf("source:\n  type: mysql\n");
  EXPECT_NE(e.find("source.type 'mysql' is not supported (use postgres)"), std::string::npos) << e;
}

// The example shipped in docs/examples parses (with the variable it reads set).
TEST(PipelineConfigTest, ShippedExampleParses) {
  const char* source_dir = std::getenv("TIDE_SOURCE_DIR");
  ASSERT_NE(source_dir, nullptr) << "TIDE_SOURCE_DIR is not set";
  const std::string path = std::string(source_dir) + "/docs/examples/pipeline.yaml";
  auto text = FileSystem::Local()->ReadFile(path);
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  auto c = ParsePipelineConfig(*text, path, FakeEnv({{"PGHOST", "db.internal"}}));
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(*c->postgres, "host=db.internal port=5432 dbname=app user=tide");
  EXPECT_EQ(*c->warehouse, "./warehouse");
  EXPECT_EQ(*c->database, "shop");
  EXPECT_EQ(*c->copy_workers, 4);
  EXPECT_EQ(*c->metrics_port, 9187);
  EXPECT_FALSE(ParsePipelineConfig(*text, path, FakeEnv({})).ok());  // PGHOST unset
}

}  // namespace
}  // namespace tide::cli
