#include <gtest/gtest.h>

#include <algorithm>

#include "testing/temp_dir.h"
#include "tide/table/table.h"

namespace tide {
namespace {

// Reads a whole snapshot of a fixture table and renders each row as text, sorted.
Result<std::vector<std::string>> ReadRows(const std::string& id, SnapshotSelector selector,
                                          std::map<std::string, std::string> dynamic = {}) {
  std::string db = id.substr(0, id.find('.')), name = id.substr(id.find('.') + 1);
  TIDE_ASSIGN_OR_RETURN(auto table, Table::Open(FileSystem::Local(),
                                                testing::JavaFixtureWarehouse() + "/" + db + ".db/" + name, id));
  ReadOptions options;
  options.snapshot = selector;
  options.dynamic_options = std::move(dynamic);
  TIDE_ASSIGN_OR_RETURN(auto reader, table->NewReader(options));
  std::vector<std::string> out;
  std::vector<Row> rows;
  while (true) {
    rows.clear();
    TIDE_ASSIGN_OR_RETURN(bool more, reader->NextBatch(1000, &rows));
    if (!more) break;
    for (const auto& r : rows) out.push_back(RowToString(r, reader->fields()));
  }
  std::sort(out.begin(), out.end());
  return out;
}

SnapshotSelector At(int64_t id) {
  SnapshotSelector s;
  s.snapshot_id = id;
  return s;
}

// pk_table_scan_and_read_mor/README: deduplicate without deletion vectors, merge across levels.
TEST(TableReadTest, MergeOnReadFollowsTheWrites) {
  auto s1 = ReadRows("pk_table_scan_and_read_mor.pk_table_scan_and_read_mor", At(1));
  ASSERT_TRUE(s1.ok()) << s1.status().ToString();
  EXPECT_EQ(s1->size(), 9u);
  auto latest = ReadRows("pk_table_scan_and_read_mor.pk_table_scan_and_read_mor", {});
  ASSERT_TRUE(latest.ok()) << latest.status().ToString();
  std::vector<std::string> expected = {
      "(Alice, 10, 1, 19.1)",  "(Bob, 10, 0, 12.1)",    "(David, 10, 0, 17.1)", "(Emily, 10, 0, 13.1)",
      "(Lucy, 20, 1, 14.1)",   "(Marco, 10, 0, 21.1)",  "(Marco2, 10, 0, 31.1)", "(Paul, 20, 1, 18.1)",
      "(Skye, 10, 0, 21)",     "(Skye2, 10, 0, 31)",
      "(Two roads diverged in a wood, and I took the one less traveled by, And that has made all the difference., 10, 1, 11)"};
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(*latest, expected);
}

TEST(TableReadTest, PartialUpdateWithReadTimeIgnoreDelete) {
  // The table sets ignore-delete=true (its README: "read with ignore-delete: true").
  auto rows = ReadRows("pk_table_partial_update.pk_table_partial_update", {});
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, (std::vector<std::string>{"(0, 1, 100, true, new_apple)", "(1, 0, 2, false, NULL)",
                                             "(1, 1, 133.3, false, banana)", "(2, 1, 144.4, true, orange)"}));
  // Overridden for one read, the engine refuses the deletes, as Java does.
  auto refused = ReadRows("pk_table_partial_update.pk_table_partial_update", {}, {{"ignore-delete", "false"}});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("ignore-delete"), std::string::npos);
}

TEST(TableReadTest, UnknownSnapshotAndTableAreClearErrors) {
  auto missing = ReadRows("pk_table_scan_and_read_mor.pk_table_scan_and_read_mor", At(42));
  ASSERT_TRUE(missing.status().IsNotFound());
  EXPECT_NE(missing.status().message().find("snapshot 42"), std::string::npos);
  auto no_table = ReadRows("nope.nope", {});
  ASSERT_TRUE(no_table.status().IsNotFound()) << no_table.status().ToString();
  EXPECT_NE(no_table.status().message().find("nope.nope"), std::string::npos);
}

}  // namespace
}  // namespace tide
