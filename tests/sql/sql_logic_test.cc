// Golden SQL tests in the style of DuckDB's sqllogictest: every `tests/sql/*.test` file is a script of
// statements a user types into `tide sql`, each with the exact result it must give, and of shell
// commands (the `tide` CLI) that build the tables first. One GoogleTest case per file.
//
// The format (docs/sql.md, "Golden tests"): records separated by blank lines.
//
//   # a comment
//   warehouse new | java-fixtures   the warehouse to query: a new empty folder (the default), or the
//                                   Java-written tables of tests/fixtures/paimon-java (read-only)
//   exec                            a shell script (sh -e) run in a scratch folder, with `tide` on the
//   tide write --warehouse ${WAREHOUSE} ...   PATH and ${WAREHOUSE} set; it must succeed (`exec error`:
//                                   it must fail). The SQL session is reopened afterwards, so new tables
//                                   and snapshots show.
//   statement ok | statement error  a statement that must succeed, or fail; after `----`, text the
//   SQL                             error message must contain
//   query <types> [nosort|rowsort]  a query whose result must be exactly the rows after `----`: one line
//   SQL                             per row, values separated by tabs as DuckDB renders them as VARCHAR
//   ----                            (NULL as `NULL`, '' as `(empty)`); `<REGEX>:re` matches a value by
//   1	a                            a regular expression (for file names and times that vary by run).
//                                   <types>: one letter per column, I integer, R float or decimal, T any.
//
// ${WAREHOUSE} and ${FIXTURES} are replaced in SQL and scripts. Times are shown in UTC (TZ=UTC).
// Thread-safety: each case runs alone.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "testing/temp_dir.h"
#include "tide/base/strings.h"
#include "tide/io/file_system.h"
#include "tide/sql/lake_connection.h"
#include "tide/sql/result_text.h"

namespace tide {
namespace {

std::string GoldenDir() { return tide::testing::SourceDir() + "/tests/sql"; }

std::vector<std::string> GoldenFiles() {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(GoldenDir(), ec)) {
    if (entry.path().extension() == ".test") files.push_back(entry.path().stem().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::string line;
  std::istringstream in(text);
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
  }
  return lines;
}

std::vector<std::string> SplitTabs(const std::string& line) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t tab = line.find('\t', start);
    out.push_back(line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
    if (tab == std::string::npos) break;
    start = tab + 1;
  }
  return out;
}

bool IntegerType(const std::string& t) {
  static const char* kTypes[] = {"TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT",
                                 "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT", "UHUGEINT"};
  return std::find(std::begin(kTypes), std::end(kTypes), t) != std::end(kTypes);
}
bool RealType(const std::string& t) { return t == "FLOAT" || t == "DOUBLE" || t.starts_with("DECIMAL"); }

// One record of a script: its kind line, its body (SQL or script) and its expected lines.
struct Record {
  int line = 0;  // 1-based line of the kind line
  std::vector<std::string> words;
  std::string body;
  bool has_expected = false;
  std::vector<std::string> expected;
};

std::vector<Record> ParseRecords(const std::string& text) {
  std::vector<Record> records;
  std::vector<std::string> lines = SplitLines(text);
  size_t i = 0;
  while (i < lines.size()) {
    std::string_view trimmed = Trim(lines[i]);
    if (trimmed.empty() || trimmed.starts_with("#")) {
      ++i;
      continue;
    }
    Record r;
    r.line = static_cast<int>(i) + 1;
    for (const std::string& w : Split(std::string(trimmed), ' ')) {
      if (!w.empty()) r.words.push_back(w);
    }
    ++i;
    std::vector<std::string> body;
    while (i < lines.size() && !Trim(lines[i]).empty() && lines[i] != "----") body.push_back(lines[i++]);
    r.body = Join(body, "\n");
    if (i < lines.size() && lines[i] == "----") {
      r.has_expected = true;
      ++i;
      while (i < lines.size() && !lines[i].empty()) r.expected.push_back(lines[i++]);
    }
    records.push_back(std::move(r));
  }
  return records;
}

std::string ReplaceAll(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

// Runs one script; returns every mismatch, each naming the file and line.
class GoldenRunner {
 public:
  explicit GoldenRunner(std::string name) : name_(std::move(name)) {
    // Paimon shows commit times in the local time zone; the expected results are written in UTC.
    setenv("TZ", "UTC", 1);
    tzset();
  }

  std::vector<std::string> Run(const std::string& text) {
    warehouse_ = scratch_.path() + "/warehouse";
    std::filesystem::create_directories(warehouse_);
    Status opened = Reopen();
    if (!opened.ok()) return {Where(0) + "cannot open the warehouse: " + opened.ToString()};
    for (const Record& r : ParseRecords(text)) {
      RunRecord(r);
      if (fatal_) break;
    }
    return failures_;
  }

 private:
  std::string Where(int line) const { return fmt::format("{}.test:{}: ", name_, line); }
  void Fail(const Record& r, const std::string& message) { failures_.push_back(Where(r.line) + message); }

  std::string Substitute(const std::string& text) const {
    return ReplaceAll(ReplaceAll(text, "${WAREHOUSE}", warehouse_), "${FIXTURES}",
                      tide::testing::JavaFixtureWarehouse());
  }

  Status Reopen() {
    renderer_.reset();
    lake_.reset();
    TIDE_ASSIGN_OR_RETURN(lake_, LakeConnection::OpenWarehouse(FileSystem::Local(), warehouse_));
    TIDE_ASSIGN_OR_RETURN(renderer_, ResultRenderer::Create(&lake_->connection()));
    return Status::OK();
  }

  void RunRecord(const Record& r) {
    const std::string& kind = r.words[0];
    if (kind == "warehouse") {
      if (r.words.size() != 2 || (r.words[1] != "new" && r.words[1] != "java-fixtures")) {
        return Fatal(r, "expected `warehouse new` or `warehouse java-fixtures`");
      }
      fixtures_ = r.words[1] == "java-fixtures";
      if (fixtures_) {
        warehouse_ = tide::testing::JavaFixtureWarehouse();
      } else {
        warehouse_ = scratch_.path() + "/warehouse-" + std::to_string(r.line);
        std::filesystem::create_directories(warehouse_);
      }
      Status st = Reopen();
      if (!st.ok()) Fatal(r, "cannot open the warehouse: " + st.ToString());
    } else if (kind == "pushdown") {
      if (r.words.size() != 2 || (r.words[1] != "compare" && r.words[1] != "on")) {
        return Fatal(r, "expected `pushdown compare` or `pushdown on`");
      }
      compare_unpruned_ = r.words[1] == "compare";
    } else if (kind == "exec") {
      RunExec(r);
    } else if (kind == "statement") {
      RunStatement(r);
    } else if (kind == "query") {
      RunQuery(r);
    } else {
      Fatal(r, "unknown record `" + kind + "` (expected warehouse, exec, statement or query)");
    }
  }

  void Fatal(const Record& r, const std::string& message) {
    Fail(r, message);
    fatal_ = true;
  }

  void RunExec(const Record& r) {
    bool expect_error = r.words.size() > 1 && r.words[1] == "error";
    if (fixtures_) return Fatal(r, "exec on the java-fixtures warehouse is refused: it is read-only");
    std::string script_path = scratch_.path() + "/script.sh";
    std::string output_path = scratch_.path() + "/script.out";
    {
      std::ofstream script(script_path);
      script << "set -e\ncd " << scratch_.path() << "\n" << Substitute(r.body) << "\n";
    }
    std::string command =
        fmt::format("env PATH='{}':\"$PATH\" WAREHOUSE='{}' TZ=UTC sh '{}' > '{}' 2>&1", tide::testing::BuildDir(),
                    warehouse_, script_path, output_path);
    int status = std::system(command.c_str());
    bool ok = status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    std::ifstream output(output_path);
    std::string printed((std::istreambuf_iterator<char>(output)), std::istreambuf_iterator<char>());
    if (ok == expect_error) {
      Fatal(r, fmt::format("the script {}:\n{}\nprinted:\n{}", expect_error ? "succeeded but must fail" : "failed",
                           r.body, printed));
      return;
    }
    if (r.has_expected) {
      std::string want = Join(r.expected, "\n");
      if (printed.find(want) == std::string::npos) {
        Fail(r, fmt::format("the script's output does not contain:\n{}\nit printed:\n{}", want, printed));
      }
    }
    Status st = Reopen();
    if (!st.ok()) Fatal(r, "cannot reopen the warehouse: " + st.ToString());
  }

  void RunStatement(const Record& r) {
    if (r.words.size() != 2 || (r.words[1] != "ok" && r.words[1] != "error")) {
      return Fatal(r, "expected `statement ok` or `statement error`");
    }
    bool expect_error = r.words[1] == "error";
    Result<DuckResult> result = lake_->Query(Substitute(r.body));
    if (result.ok() && expect_error) return Fail(r, "the statement succeeded but must fail:\n" + r.body);
    if (!result.ok() && !expect_error) {
      return Fail(r, fmt::format("the statement failed:\n{}\n{}", r.body, result.status().message()));
    }
    if (expect_error && r.has_expected) {
      std::string want = Substitute(Join(r.expected, "\n"));
      if (result.status().message().find(want) == std::string::npos) {
        Fail(r, fmt::format("the error of\n{}\nis\n{}\nwhich does not contain\n{}", r.body, result.status().message(),
                            want));
      }
    }
  }

  void RunQuery(const Record& r) {
    if (r.words.size() < 2 || r.words.size() > 3) return Fatal(r, "expected `query <types> [nosort|rowsort]`");
    const std::string& types = r.words[1];
    std::string sort = r.words.size() == 3 ? r.words[2] : "nosort";
    if (sort != "nosort" && sort != "rowsort") return Fatal(r, "unknown sort mode " + sort);
    if (!r.has_expected) return Fatal(r, "a query needs `----` and its expected rows");
    Result<DuckResult> result = lake_->Query(Substitute(r.body));
    if (!result.ok()) return Fail(r, fmt::format("the query failed:\n{}\n{}", r.body, result.status().message()));
    Result<TextResult> text = renderer_->Render(*result, CellStyle::kText);
    if (!text.ok()) return Fail(r, "cannot render the result: " + text.status().message());
    if (compare_unpruned_) {
      // The same query with filter pushdown off must give the same rows (in the same order for nosort).
      lake_->pushdown().set_enabled(false);
      Result<DuckResult> unpruned = lake_->Query(Substitute(r.body));
      lake_->pushdown().set_enabled(true);
      if (!unpruned.ok()) return Fail(r, "the query failed without pushdown: " + unpruned.status().message());
      Result<TextResult> unpruned_text = renderer_->Render(*unpruned, CellStyle::kText);
      if (!unpruned_text.ok()) return Fail(r, "cannot render the result: " + unpruned_text.status().message());
      std::vector<std::vector<std::optional<std::string>>> a = text->rows, b = unpruned_text->rows;
      if (sort == "rowsort") {
        std::sort(a.begin(), a.end());
        std::sort(b.begin(), b.end());
      }
      if (a != b) return Fail(r, "the query returns other rows without filter pushdown:\n" + r.body);
    }
    if (text->columns.size() != types.size()) {
      return Fail(r, fmt::format("the query returns {} columns, but `{}` names {}:\n{}", text->columns.size(), types,
                                 types.size(), r.body));
    }
    for (size_t c = 0; c < types.size(); ++c) {
      const std::string& type = text->columns[c].type;
      bool fits = types[c] == 'I' ? IntegerType(type) : types[c] == 'R' ? RealType(type) : types[c] == 'T';
      if (!fits) {
        return Fail(r, fmt::format("column {} ({}) is {}, which is not `{}`", c + 1, text->columns[c].name, type,
                                   types[c]));
      }
    }
    std::vector<std::string> actual;
    for (const auto& row : text->rows) {
      std::vector<std::string> cells;
      for (const auto& cell : row) cells.push_back(!cell ? "NULL" : cell->empty() ? "(empty)" : *cell);
      actual.push_back(Join(cells, "\t"));
    }
    std::vector<std::string> expected;
    for (const std::string& line : r.expected) expected.push_back(Substitute(line));
    if (sort == "rowsort") {
      std::sort(actual.begin(), actual.end());
      std::sort(expected.begin(), expected.end());
    }
    bool same = actual.size() == expected.size();
    for (size_t i = 0; same && i < actual.size(); ++i) same = RowMatches(expected[i], actual[i]);
    if (!same) {
      Fail(r, fmt::format("wrong result of\n{}\nexpected ({} rows):\n{}\nactual ({} rows):\n{}", r.body,
                          expected.size(), Join(expected, "\n"), actual.size(), Join(actual, "\n")));
    }
  }

  static bool RowMatches(const std::string& expected, const std::string& actual) {
    if (expected == actual) return true;
    std::vector<std::string> want = SplitTabs(expected);
    std::vector<std::string> got = SplitTabs(actual);
    if (want.size() != got.size()) return false;
    for (size_t i = 0; i < want.size(); ++i) {
      if (want[i] == got[i]) continue;
      constexpr std::string_view kRegex = "<REGEX>:";
      if (!want[i].starts_with(kRegex)) return false;
      if (!std::regex_match(got[i], std::regex(want[i].substr(kRegex.size())))) return false;
    }
    return true;
  }

  std::string name_;
  tide::testing::TempDir scratch_;
  std::string warehouse_;
  bool fixtures_ = false;
  bool compare_unpruned_ = false;  // `pushdown compare`: every query also runs without filter pushdown
  bool fatal_ = false;
  std::unique_ptr<LakeConnection> lake_;
  std::unique_ptr<ResultRenderer> renderer_;
  std::vector<std::string> failures_;
};

class SqlLogicTest : public ::testing::TestWithParam<std::string> {};

TEST_P(SqlLogicTest, MatchesExpectedResults) {
  std::ifstream in(GoldenDir() + "/" + GetParam() + ".test");
  ASSERT_TRUE(in) << "cannot read " << GetParam() << ".test";
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  GoldenRunner runner(GetParam());
  for (const std::string& failure : runner.Run(text)) ADD_FAILURE() << failure;
}

INSTANTIATE_TEST_SUITE_P(Golden, SqlLogicTest, ::testing::ValuesIn(GoldenFiles()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

// The runner itself: a wrong expectation, an unexpected error and a failing script are reported.
TEST(SqlLogicRunnerTest, ReportsEveryKindOfMismatch) {
  GoldenRunner runner("self");
  std::vector<std::string> failures = runner.Run(
      "query I\nSELECT 1\n----\n2\n\n"
      "query IT\nSELECT 1, 'a'\n----\n1\t<REGEX>:[a-z]\n\n"
      "query T\nSELECT 'x'\n----\n<REGEX>:y+\n\n"
      "statement ok\nSELECT * FROM no_such_table\n\n"
      "statement error\nSELECT 1\n\n"
      "statement error\nSELECT * FROM no_such_table\n----\nsomething else\n\n"
      "query II\nSELECT 1\n----\n1\n\n"
      "exec\nfalse\n");
  ASSERT_EQ(failures.size(), 7u) << Join(failures, "\n---\n");
  EXPECT_NE(failures[0].find("self.test:1: wrong result"), std::string::npos) << failures[0];
  EXPECT_NE(failures[1].find("self.test:11: wrong result"), std::string::npos) << failures[1];
  EXPECT_NE(failures[2].find("self.test:16: the statement failed"), std::string::npos) << failures[2];
  EXPECT_NE(failures[3].find("succeeded but must fail"), std::string::npos) << failures[3];
  EXPECT_NE(failures[4].find("does not contain"), std::string::npos) << failures[4];
  EXPECT_NE(failures[5].find("returns 1 columns"), std::string::npos) << failures[5];
  EXPECT_NE(failures[6].find("the script failed"), std::string::npos) << failures[6];
}

}  // namespace
}  // namespace tide
