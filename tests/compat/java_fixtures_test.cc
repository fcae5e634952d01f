// Compatibility suite: Tide must read every Java-written Paimon table under
// tests/fixtures/paimon-java/parquet/ exactly as Java Paimon does.
//
// The expectations live in tests/compat/expected/<table>.json, one file per table folder, derived by
// hand from each table's README (or from the alibaba/paimon-cpp tests where a table has none). A file
// holds, per snapshot id, the rows a batch read of that snapshot returns (in the schema the snapshot was
// committed with), optionally the rows of a read of the latest snapshot (in the table's latest schema),
// or the error a read must fail with:
//
//   "snapshots": { "<id>": [[cell, ...], ...] | {"error": {"message_contains": [...]}} }
//   "latest":    [[cell, ...], ...] | {"error": {...}}
//   "unsupported": {"feature": "...", "message_contains": [...], "snapshots": [ids]}
//       opening the table, or else the latest read and a read of every listed snapshot, fail with
//       NotSupported
//   "read_options": {"key": "value"}   table options overridden for every read of the file
//
// Cells: null; true/false for BOOLEAN; integers for TINYINT..BIGINT; numbers for FLOAT/DOUBLE (compared
// to 6 / 12 significant digits); every other type as a string in Tide's text form (DatumToString).
// Rows are compared as multisets. Reads run with TZ=UTC: casts between TIMESTAMP and TIMESTAMP WITH
// LOCAL TIME ZONE follow the session time zone in Java, and the expectations are Java's in UTC.
#include <stdlib.h>
#include <time.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "testing/read_by_vectors.h"
#include "testing/temp_dir.h"
#include "tide/catalog/catalog.h"
#include "tide/io/file_system.h"
#include "tide/table/table.h"
#include "tide/table/source/table_reader.h"
#include "tide/types/datum.h"

namespace tide {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string ExpectedDir() { return testing::SourceDir() + "/tests/compat/expected"; }

// Names of the expectation files (without ".json"), sorted.
std::vector<std::string> ExpectedTables() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(ExpectedDir(), ec)) {
    if (entry.path().extension() == ".json") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// Every table folder of the fixture warehouse (a folder with a schema/ folder inside `<db>.db/`), as
// "db.table".
std::vector<std::string> FixtureTables() {
  std::vector<std::string> tables;
  std::error_code ec;
  for (const auto& db : fs::directory_iterator(testing::JavaFixtureWarehouse(), ec)) {
    std::string db_name = db.path().filename().string();
    if (!db.is_directory() || db_name.size() < 4 || db_name.substr(db_name.size() - 3) != ".db") continue;
    for (const auto& t : fs::directory_iterator(db.path())) {
      if (t.is_directory() && fs::is_directory(t.path() / "schema")) {
        tables.push_back(db_name.substr(0, db_name.size() - 3) + "." + t.path().filename().string());
      }
    }
  }
  std::sort(tables.begin(), tables.end());
  return tables;
}

json LoadExpectation(const std::string& name) {
  std::string path = ExpectedDir() + "/" + name + ".json";
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  return json::parse(in, nullptr, /*allow_exceptions=*/true, /*ignore_comments=*/true);
}

std::string Quote(const std::string& s) { return json(s).dump(-1, ' ', false, json::error_handler_t::replace); }

// The canonical text of one value read by Tide; JSON-like, so that NULL and the string "NULL" differ.
std::string RenderActual(const Datum& v, const DataType& type) {
  if (v.is_null()) return "null";
  switch (type.root()) {
    case TypeRoot::kBoolean: return v.as_bool() ? "true" : "false";
    case TypeRoot::kTinyInt:
    case TypeRoot::kSmallInt:
    case TypeRoot::kInt:
    case TypeRoot::kBigInt: return std::to_string(v.as_int());
    case TypeRoot::kFloat: return fmt::format("{:.6g}", v.as_float());
    case TypeRoot::kDouble: return fmt::format("{:.12g}", v.as_double());
    default: return Quote(DatumToString(v, type));
  }
}

// The canonical text of one expected cell for a column of `type`; an error names a malformed cell.
Result<std::string> RenderExpected(const json& cell, const DataType& type) {
  if (cell.is_null()) return std::string("null");
  switch (type.root()) {
    case TypeRoot::kBoolean:
      if (!cell.is_boolean()) break;
      return std::string(cell.get<bool>() ? "true" : "false");
    case TypeRoot::kTinyInt:
    case TypeRoot::kSmallInt:
    case TypeRoot::kInt:
    case TypeRoot::kBigInt:
      if (!cell.is_number_integer()) break;
      return std::to_string(cell.get<int64_t>());
    case TypeRoot::kFloat:
      if (!cell.is_number()) break;
      return fmt::format("{:.6g}", static_cast<float>(cell.get<double>()));
    case TypeRoot::kDouble:
      if (!cell.is_number()) break;
      return fmt::format("{:.12g}", cell.get<double>());
    default:
      if (!cell.is_string()) break;
      return Quote(cell.get<std::string>());
  }
  return Status::InvalidArgument("expected cell {} does not fit column type {}", cell.dump(), type.ToString());
}

std::string RenderRow(const std::vector<std::string>& cells) {
  std::string out = "[";
  for (size_t i = 0; i < cells.size(); ++i) out += (i ? ", " : "") + cells[i];
  return out + "]";
}

std::string DescribeFields(const std::vector<DataField>& fields) {
  std::string out;
  for (size_t i = 0; i < fields.size(); ++i) {
    out += (i ? ", " : "") + fields[i].name + " " + fields[i].type.ToString();
  }
  return out;
}

struct ReadOutcome {
  Status status;
  // Read through DuckDB vectors: TIMESTAMP_LTZ(7..9) values hold microseconds there (TIMESTAMP WITH
  // TIME ZONE, duckdb_type_mapping.h), so expected values lose their last three digits.
  bool microsecond_ltz = false;
  std::vector<DataField> fields;
  std::vector<Row> rows;
};

// Reads the snapshot through NextBatch (rows), or with `by_vectors` through NextVectors (the SQL path,
// columnar where the split allows it) by two readers sharing the splits.
ReadOutcome ReadAll(const Table& table, const SnapshotSelector& selector,
                    const std::map<std::string, std::string>& dynamic_options, bool by_vectors = false) {
  ReadOutcome out;
  ReadOptions options;
  options.snapshot = selector;
  options.dynamic_options = dynamic_options;
  auto reader = table.NewReader(options);
  if (!reader.ok()) {
    out.status = reader.status();
    return out;
  }
  out.fields = (*reader)->fields();
  if (by_vectors) {
    out.microsecond_ltz = true;
    auto rows = testing::ReadByVectors(std::move(reader).value(), 2);
    if (rows.ok()) out.rows = std::move(rows).value();
    out.status = rows.status();
    return out;
  }
  while (true) {
    auto more = (*reader)->NextBatch(1024, &out.rows);
    if (!more.ok()) {
      out.status = more.status();
      return out;
    }
    if (!*more) break;
  }
  return out;
}

// Compares the rows read with `expected` (a JSON array of rows) as multisets.
void ExpectRows(const std::string& what, const ReadOutcome& got, const json& expected) {
  ASSERT_TRUE(got.status.ok()) << what << ": the read failed: " << got.status.ToString();
  ASSERT_TRUE(expected.is_array()) << what << ": expected rows must be an array";
  const auto& fields = got.fields;
  std::vector<std::string> actual_rows;
  for (const Row& row : got.rows) {
    ASSERT_EQ(row.size(), fields.size()) << what << ": a row has " << row.size() << " values for "
                                         << fields.size() << " columns";
    std::vector<std::string> cells;
    for (size_t i = 0; i < row.size(); ++i) cells.push_back(RenderActual(row[i], fields[i].type));
    actual_rows.push_back(RenderRow(cells));
  }
  std::vector<std::string> expected_rows;
  for (const auto& row : expected) {
    ASSERT_TRUE(row.is_array()) << what << ": expected row " << row.dump() << " is not an array";
    ASSERT_EQ(row.size(), fields.size()) << what << ": expected row " << row.dump() << " has " << row.size()
                                         << " cells but the read returns " << fields.size() << " columns ("
                                         << DescribeFields(fields) << ")";
    std::vector<std::string> cells;
    for (size_t i = 0; i < row.size(); ++i) {
      json value = row[i];
      const DataType& type = fields[i].type;
      if (got.microsecond_ltz && type.root() == TypeRoot::kTimestampLtz && type.precision() > 6 &&
          value.is_string()) {
        std::string text = value.get<std::string>();
        size_t dot = text.rfind('.');
        if (dot != std::string::npos && text.size() > dot + 7) {
          for (size_t d = dot + 7; d < text.size(); ++d) text[d] = '0';
        }
        value = text;
      }
      auto cell = RenderExpected(value, type);
      ASSERT_TRUE(cell.ok()) << what << ": column " << fields[i].name << ": " << cell.status().message();
      cells.push_back(*cell);
    }
    expected_rows.push_back(RenderRow(cells));
  }
  std::multiset<std::string> want(expected_rows.begin(), expected_rows.end());
  std::multiset<std::string> have(actual_rows.begin(), actual_rows.end());
  if (want == have) return;
  std::ostringstream diff;
  diff << what << ": rows differ (columns: " << DescribeFields(fields) << "); expected " << want.size()
       << " rows, read " << have.size() << "\n";
  std::multiset<std::string> missing, unexpected;
  std::set_difference(want.begin(), want.end(), have.begin(), have.end(), std::inserter(missing, missing.end()));
  std::set_difference(have.begin(), have.end(), want.begin(), want.end(),
                      std::inserter(unexpected, unexpected.end()));
  for (const auto& r : missing) diff << "  - expected, not read: " << r << "\n";
  for (const auto& r : unexpected) diff << "  + read, not expected: " << r << "\n";
  ADD_FAILURE() << diff.str();
}

// Checks that the read failed as `error` says: every substring of "message_contains" in the message,
// and the status code NotSupported (`unsupported`) or NotFound/IOError (a missing file).
void ExpectError(const std::string& what, const ReadOutcome& got, const json& error, bool unsupported) {
  ASSERT_FALSE(got.status.ok()) << what << ": the read succeeded with " << got.rows.size()
                                << " rows but must fail (" << error.dump() << ")";
  if (unsupported) {
    EXPECT_TRUE(got.status.IsNotSupported()) << what << ": expected NotSupported, got " << got.status.ToString();
  } else {
    EXPECT_TRUE(got.status.IsNotFound() || got.status.IsIOError())
        << what << ": expected NotFound or IOError, got " << got.status.ToString();
  }
  for (const auto& part : error.at("message_contains")) {
    EXPECT_NE(got.status.message().find(part.get<std::string>()), std::string::npos)
        << what << ": the error does not mention '" << part.get<std::string>() << "': " << got.status.ToString();
  }
}

void ExpectOutcome(const std::string& what, const ReadOutcome& got, const json& expected) {
  if (expected.is_object() && expected.contains("error")) {
    ExpectError(what, got, expected.at("error"), /*unsupported=*/false);
  } else {
    ExpectRows(what, got, expected);
  }
}

class JavaFixturesTest : public ::testing::TestWithParam<std::string> {
 protected:
  static void SetUpTestSuite() {
    ::setenv("TZ", "UTC", 1);
    ::tzset();
  }
};

TEST_P(JavaFixturesTest, ReadsAsJavaPaimon) {
  const std::string name = GetParam();
  json spec;
  try {
    spec = LoadExpectation(name);
  } catch (const std::exception& e) {
    FAIL() << "tests/compat/expected/" << name << ".json: " << e.what();
  }
  ASSERT_TRUE(spec.contains("table")) << name << ".json has no \"table\"";
  auto id = TableIdentifier::Parse(spec.at("table").get<std::string>());
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  auto catalog = Catalog::Open(FileSystem::Local(), testing::JavaFixtureWarehouse());
  ASSERT_TRUE(catalog.ok()) << catalog.status().ToString();
  auto table = (*catalog)->GetTable(*id);
  if (!table.ok() && spec.contains("unsupported")) {
    // A table may be refused as soon as it is opened (e.g. a column type Tide cannot represent).
    ReadOutcome refused;
    refused.status = table.status();
    ExpectError(id->ToString() + ", opening the table", refused, spec.at("unsupported"), /*unsupported=*/true);
    return;
  }
  ASSERT_TRUE(table.ok()) << table.status().ToString();

  std::map<std::string, std::string> options;
  if (spec.contains("read_options")) {
    for (const auto& [key, value] : spec.at("read_options").items()) options[key] = value.get<std::string>();
  }
  ASSERT_TRUE(spec.contains("snapshots") || spec.contains("latest") || spec.contains("unsupported"))
      << name << ".json states no expectation";

  if (spec.contains("unsupported")) {
    const json& unsupported = spec.at("unsupported");
    ExpectError(id->ToString() + ", latest snapshot", ReadAll(**table, SnapshotSelector{}, options), unsupported,
                /*unsupported=*/true);
    for (const auto& snapshot : unsupported.value("snapshots", json::array())) {
      SnapshotSelector selector;
      selector.snapshot_id = snapshot.get<int64_t>();
      ExpectError(fmt::format("{}, snapshot {}", id->ToString(), *selector.snapshot_id),
                  ReadAll(**table, selector, options), unsupported, /*unsupported=*/true);
    }
  }
  for (bool by_vectors : {false, true}) {
    const std::string path = by_vectors ? " (read by vectors, as SQL reads)" : "";
    if (spec.contains("snapshots")) {
      for (const auto& [snapshot, expected] : spec.at("snapshots").items()) {
        SnapshotSelector selector;
        selector.snapshot_id = std::stoll(snapshot);
        std::string what = fmt::format("{}, snapshot {}{}", id->ToString(), snapshot, path);
        ExpectOutcome(what, ReadAll(**table, selector, options, by_vectors), expected);
      }
    }
    if (spec.contains("latest")) {
      ExpectOutcome(id->ToString() + ", latest snapshot" + path,
                    ReadAll(**table, SnapshotSelector{}, options, by_vectors), spec.at("latest"));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Tables, JavaFixturesTest, ::testing::ValuesIn(ExpectedTables()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

// Every table folder has an expectation file, and every expectation file names a table folder.
TEST(JavaFixturesCoverageTest, EveryFixtureTableHasExpectations) {
  std::vector<std::string> tables = FixtureTables();
  ASSERT_FALSE(tables.empty()) << "no table folders under " << testing::JavaFixtureWarehouse();
  std::set<std::string> expected_names;
  for (const auto& name : ExpectedTables()) {
    json spec;
    try {
      spec = LoadExpectation(name);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "tests/compat/expected/" << name << ".json: " << e.what();
      continue;
    }
    expected_names.insert(spec.value("table", std::string()));
    EXPECT_EQ(spec.value("table", std::string()).substr(spec.value("table", std::string()).find('.') + 1), name)
        << name << ".json must be named after its table";
  }
  for (const auto& table : tables) {
    EXPECT_TRUE(expected_names.count(table)) << "table folder " << table
                                             << " has no expectation file in tests/compat/expected/";
  }
  for (const auto& name : expected_names) {
    EXPECT_TRUE(std::find(tables.begin(), tables.end(), name) != tables.end())
        << "tests/compat/expected names " << name << ", which is not a table folder of the fixture warehouse";
  }
}

}  // namespace
}  // namespace tide
