// Tide reads what today's Java Paimon (1.4, interop/java) writes: the interop matrix written by Java's
// table API (tests/interop/interop_matrix.h; all but the cross-partition table, which Java writes only
// through Flink), plus what only Java writes: deletion vectors with 32- and 64-bit bitmaps
// (`deletion-vectors.bitmap64`), the first-row merge engine, row tracking, and data files in Avro (the
// matrix again with `file.format = avro`) and ORC. At every snapshot Tide's
// read equals Java's own read of it, row for row in the canonical text, or Tide refuses the table with
// an error naming the feature.

#include <gtest/gtest.h>

#include <iostream>

#include "interop/interop_matrix.h"
#include "interop/interop_util.h"

namespace tide::interop {
namespace {

struct JavaTable {
  nlohmann::json spec;
  // Empty: Tide must read every snapshot exactly. Otherwise Tide may instead refuse the table with an
  // error containing this text (the feature's name).
  std::string refusal;
};

std::vector<JavaTable> JavaOnlyTables() {
  std::vector<JavaTable> t;
  auto pk_steps = R"json([
      {"rows": [["+I","1","a","10"],["+I","2","b","20"],["+I","3","c","30"],["+I","4","d","40"]]},
      {"rows": [["+U","1","A","11"],["-D","2","b","20"],["+I","5","e","\\N"]]},
      {"rows": [["-D","4","d","40"],["+U","3","C","33"],["+I","2","b2","22"]]},
      {"compact": {"full": true}},
      {"rows": [["-D","5","e","\\N"],["+I","6","f","60"]]}])json";
  auto fields = R"json([{"name": "k", "type": "INT NOT NULL"}, {"name": "v", "type": "STRING"}, {"name": "n", "type": "BIGINT"}])json";
  auto pk = [&](const char* name, nlohmann::json options, const char* expect, std::string refusal) {
    nlohmann::json spec = {{"table", name},
                           {"fields", nlohmann::json::parse(fields)},
                           {"primary_keys", {"k"}},
                           {"options", std::move(options)},
                           {"steps", nlohmann::json::parse(pk_steps)},
                           {"expect", nlohmann::json::parse(expect)}};
    t.push_back({spec, std::move(refusal)});
  };
  const char* dedup = R"json(["1\tA\t11","2\tb2\t22","3\tC\t33","6\tf\t60"])json";
  pk("j.dv32", {{"bucket", "2"}, {"deletion-vectors.enabled", "true"}}, dedup, "deletion");
  pk("j.dv64", {{"bucket", "2"}, {"deletion-vectors.enabled", "true"}, {"deletion-vectors.bitmap64", "true"}}, dedup,
     "bitmap64");
  // Java's first-row engine refuses -U/-D rows unless `ignore-delete` drops them: each key keeps its
  // first row.
  pk("j.first_row", {{"bucket", "1"}, {"merge-engine", "first-row"}, {"ignore-delete", "true"}},
     R"json(["1\ta\t10","2\tb\t20","3\tc\t30","4\td\t40","5\te\t\\N","6\tf\t60"])json", "first-row");
  t.push_back({nlohmann::json::parse(R"json({"table": "j.row_tracking",
    "fields": [{"name": "id", "type": "INT"}, {"name": "s", "type": "STRING"}],
    "options": {"bucket": "-1", "row-tracking.enabled": "true"},
    "steps": [{"rows": [["+I","1","a"],["+I","2","b"]]}, {"rows": [["+I","3","c"]]}],
    "expect": ["1\ta","2\tb","3\tc"]})json"),
               "row-tracking"});
  // TIMESTAMP(9) beyond 1677..2262: Java writes it (Parquet INT96), Tide reads nanosecond timestamps as
  // DuckDB's TIMESTAMP_NS (int64 nanoseconds) and refuses the value (docs/format.md).
  t.push_back({nlohmann::json::parse(R"json({"table": "j.ts9_far",
    "fields": [{"name": "id", "type": "INT"}, {"name": "ts9", "type": "TIMESTAMP(9)"}],
    "options": {"bucket": "-1"},
    "steps": [{"rows": [["+I","1","9999-12-31 23:59:59.999999999"],["+I","2","0001-01-01 00:00:00.000000001"]]}],
    "expect": ["1\t9999-12-31 23:59:59.999999999","2\t0001-01-01 00:00:00.000000001"]})json"),
               "does not fit TIMESTAMP(9)"});
  // Data files in ORC: Tide has no ORC reader among its dependencies and refuses the table by name.
  pk("j.orc", {{"bucket", "2"}, {"file.format", "orc"}}, dedup, "ORC format");
  return t;
}

// The matrix's tables as Java writes them with Avro data files (`file.format = avro`), which Tide reads
// with its own Avro decoder. TIME(6) has no Avro form in Paimon (Java refuses it), so `m.types` loses
// that column here.
std::vector<JavaTable> AvroTables() {
  std::vector<JavaTable> t;
  for (const MatrixTable& m : InteropMatrix()) {
    if (!m.java_writes) continue;
    nlohmann::json spec = m.spec;
    std::string name = spec.at("table").get<std::string>();
    if (name == "m.types_precision") continue;  // TIMESTAMP(9), TIME(0) in nanoseconds: no Avro form
    spec["table"] = "avro." + name.substr(name.find('.') + 1);
    spec["options"]["file.format"] = "avro";
    auto& fields = spec.at("fields");
    for (size_t i = 0; i < fields.size(); ++i) {
      if (fields[i].at("type") != "TIME(6)") continue;
      fields.erase(i);
      for (auto& step : spec.at("steps")) {
        if (!step.contains("rows")) continue;
        for (auto& row : step.at("rows")) row.erase(i + 1);  // row[0] is the row kind
      }
      break;
    }
    t.push_back({std::move(spec), ""});
  }
  nlohmann::json dv = JavaOnlyTables().front().spec;  // j.dv32
  dv["table"] = "avro.dv32";
  dv["options"]["file.format"] = "avro";
  t.push_back({std::move(dv), ""});
  return t;
}

TEST(TideReadsJavaTest, EverySnapshotOfEveryJavaTableReadsAsJavaReadsIt) {
  tide::testing::TempDir dir;
  std::string w = dir.path() + "/lake";
  std::filesystem::create_directories(w);
  std::vector<JavaTable> tables;
  for (const MatrixTable& m : InteropMatrix()) {
    if (m.java_writes) tables.push_back({m.spec, ""});
  }
  for (JavaTable& t : JavaOnlyTables()) tables.push_back(std::move(t));
  for (JavaTable& t : AvroTables()) tables.push_back(std::move(t));
  std::vector<std::vector<std::string>> writes;
  for (const JavaTable& t : tables) writes.push_back({"write", "--warehouse", w, "--spec", WriteSpecFile(dir.path(), t.spec)});
  std::vector<JavaResult> written = RunJavaBatch(writes);
  for (size_t i = 0; i < tables.size(); ++i) {
    ASSERT_TRUE(written[i].ok) << tables[i].spec.at("table") << ": " << written[i].error;
  }
  struct Read {
    size_t table;
    std::optional<int64_t> snapshot;
  };
  std::vector<Read> reads;
  std::vector<std::vector<std::string>> commands;
  for (size_t i = 0; i < tables.size(); ++i) {
    std::string name = tables[i].spec.at("table").get<std::string>();
    auto ids = SnapshotIds(w, name);
    ASSERT_TRUE(ids.ok()) << ids.status().ToString();
    ASSERT_FALSE(ids->empty()) << name;
    for (int64_t id : *ids) {
      reads.push_back({i, id});
      commands.push_back({"read", "--warehouse", w, "--table", name, "--snapshot", std::to_string(id)});
    }
    reads.push_back({i, std::nullopt});
    commands.push_back({"read", "--warehouse", w, "--table", name});
  }
  std::vector<JavaResult> java = RunJavaBatch(commands);
  int exact = 0, refused = 0;
  for (size_t r = 0; r < reads.size(); ++r) {
    const JavaTable& t = tables[reads[r].table];
    std::string name = t.spec.at("table").get<std::string>();
    SCOPED_TRACE(name + (reads[r].snapshot ? " snapshot " + std::to_string(*reads[r].snapshot) : " latest"));
    ASSERT_TRUE(java[r].ok) << java[r].error;
    auto tide_rows = TideRead(w, name, reads[r].snapshot);
    if (!tide_rows.ok() && !t.refusal.empty()) {
      EXPECT_NE(tide_rows.status().ToString().find(t.refusal), std::string::npos) << tide_rows.status().ToString();
      ++refused;
      continue;
    }
    ASSERT_TRUE(tide_rows.ok()) << tide_rows.status().ToString();
    EXPECT_EQ(Join(*tide_rows), Join(java[r].lines));
    if (!reads[r].snapshot && t.spec.contains("expect")) {
      std::vector<std::string> expect;
      for (const auto& e : t.spec.at("expect")) expect.push_back(e.get<std::string>());
      std::sort(expect.begin(), expect.end());
      EXPECT_EQ(Join(java[r].lines), Join(expect)) << "Java's own read of its table";
    }
    ++exact;
  }
  std::cout << "compared " << exact << " snapshots exactly, " << refused << " refused by Tide\n";
  EXPECT_GE(exact, 40);
}

}  // namespace
}  // namespace tide::interop
