// `tide sync postgres --config FILE` as a user runs it, without a server: the file's mistakes are
// refused before anything starts, naming the file, line and key; a flag overrides the file's key; the
// four required settings may come from either. Connection errors (nothing listens on port 1 or 2) show
// which conninfo was used, its password redacted.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "testing/temp_dir.h"
#include "testing/tide_process.h"

namespace tide {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using tide::testing::RunTide;
using tide::testing::TideRun;

class PipelineFileCliTest : public ::testing::Test {
 protected:
  std::string Write(const std::string& text) {
    const std::string path = dir_.path() + "/pipeline.yaml";
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  testing::TempDir dir_;
};

TEST_F(PipelineFileCliTest, UnknownKeyIsRefusedWithItsLine) {
  const std::string file = Write("source:\n  conninfo: host=127.0.0.1\nsink:\n  warehouse: w\n  databse: shop\n");
  TideRun run = RunTide({"sync", "postgres", "--config", file});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_THAT(run.err, HasSubstr(file + ":5: unknown key 'sink.databse'"));
}

TEST_F(PipelineFileCliTest, MissingSettingNamesFlagAndKey) {
  const std::string file = Write("sink:\n  warehouse: " + dir_.path() + "/wh\n  database: shop\n");
  TideRun run = RunTide({"sync", "postgres", "--config", file, "--tables", "public.t"});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_THAT(run.err, HasSubstr("--postgres (source.conninfo) is required"));
}

TEST_F(PipelineFileCliTest, FlagsOverrideTheFile) {
  const std::string file = Write("source:\n  conninfo: \"host=127.0.0.1 port=1 user=from_file password=${TIDE_PF_PW}\"\n"
                                 "  tables: public.t\nsink:\n  warehouse: " + dir_.path() + "/wh\n  database: shop\n");
  ::setenv("TIDE_PF_PW", "pf-secret-1", 1);
  TideRun from_file = RunTide({"sync", "postgres", "--config", file});
  EXPECT_EQ(from_file.exit_code, 1);
  EXPECT_THAT(from_file.err, HasSubstr("user=from_file"));
  EXPECT_THAT(from_file.err, HasSubstr("password=********"));
  EXPECT_THAT(from_file.err, Not(HasSubstr("pf-secret-1")));
  TideRun from_flag = RunTide({"sync", "postgres", "--config", file, "--postgres", "host=127.0.0.1 port=2 user=from_flag"});
  EXPECT_EQ(from_flag.exit_code, 1);
  EXPECT_THAT(from_flag.err, HasSubstr("user=from_flag"));
  EXPECT_THAT(from_flag.err, Not(HasSubstr("from_file")));
  ::unsetenv("TIDE_PF_PW");
  TideRun unset = RunTide({"sync", "postgres", "--config", file});
  EXPECT_EQ(unset.exit_code, 1);
  EXPECT_THAT(unset.err, HasSubstr("environment variable TIDE_PF_PW is not set"));
}

TEST_F(PipelineFileCliTest, JsonLogFormatPrintsOneObjectPerLine) {
  TideRun run = RunTide({"sync", "postgres", "--warehouse", dir_.path() + "/wh", "--database", "shop", "--postgres",
                         "host=127.0.0.1 port=1", "--tables", "public.t", "--log-format", "json"});
  EXPECT_EQ(run.exit_code, 1);
  ASSERT_FALSE(run.err.empty());
  size_t start = 0;
  while (start < run.err.size()) {
    size_t end = run.err.find('\n', start);
    if (end == std::string::npos) end = run.err.size();
    const std::string line = run.err.substr(start, end - start);
    EXPECT_TRUE(line.size() > 2 && line.front() == '{' && line.back() == '}') << line;
    start = end + 1;
  }
  EXPECT_THAT(run.err, HasSubstr("\"level\":\"error\""));
}

}  // namespace
}  // namespace tide
