// Integration tests of columns whose type Tide can read only in its text form (types without a
// dedicated mapping, which fall back to STRING: point, int4range, tsvector, box[]): the initial copy
// selects them as text, and the change stream does not ask for binary values while a published table
// has one — neither at start nor when such a column appears while streaming in binary mode.
#include <gtest/gtest.h>

#include <set>

#include "pg_test_util.h"
#include "tide/postgres/snapshot_copy.h"

namespace tide {
namespace {

using namespace pgtest;

// The text-only columns under test, as PostgreSQL prints them: id -> values ("NULL" for NULL).
std::map<int64_t, std::vector<std::string>> Expected(const std::string& table, const std::vector<std::string>& cols) {
  std::string sql = "SELECT id";
  for (const auto& c : cols) sql += ", " + c + "::text";
  auto rows = Server().Query(sql + " FROM " + table + " ORDER BY id");
  EXPECT_TRUE(rows.ok()) << rows.status().ToString();
  std::map<int64_t, std::vector<std::string>> out;
  if (!rows.ok()) return out;
  for (const auto& r : *rows) {
    std::vector<std::string> v;
    for (size_t i = 1; i < r.size(); ++i) v.push_back(r[i].value_or("NULL"));
    out[std::stoll(*r[0])] = std::move(v);
  }
  return out;
}

// The same columns of a Tide row: each must be NULL or a STRING.
std::vector<std::string> Got(const SourceRelation& rel, const Row& row, const std::vector<std::string>& cols) {
  std::vector<std::string> out;
  for (const auto& c : cols) {
    int i = rel.ColumnIndex(c);
    EXPECT_GE(i, 0) << c;
    if (i < 0 || static_cast<size_t>(i) >= row.size()) {
      out.push_back("<missing>");
      continue;
    }
    EXPECT_EQ(rel.fields[static_cast<size_t>(i)].type.ToString(), "STRING") << c;
    const Datum& d = row[static_cast<size_t>(i)];
    out.push_back(d.is_null() ? "NULL" : d.as_string());
  }
  return out;
}

const std::vector<std::string> kColumns = {"pt", "rng", "tsv", "boxes"};

void CreateTextOnlyTable(const std::string& table) {
  Sql("DROP TABLE IF EXISTS " + table + " CASCADE; CREATE TABLE " + table +
      "(id bigint PRIMARY KEY, n int, pt point, rng int4range, tsv tsvector, boxes box[]); "
      "INSERT INTO " + table + " VALUES "
      "(1, 10, '(1.5,-2)', '[1,10)', 'a fat cat sat', '{(1,1),(0,0);(3,3),(2,2)}'), "
      "(2, 20, NULL, 'empty', '', '{}'), "
      "(3, NULL, '(0,0)', '(,5]', 'x:1A y:2,3B', NULL)");
}

TEST(TextOnlyTypesTest, SnapshotCopyReadsThemAsTheirText) {
  CreateTextOnlyTable("tot_copy");
  // Enough rows for a binary COPY of several batches.
  Sql("INSERT INTO tot_copy SELECT g, g, point(g, -g), int4range(g, g + 3), to_tsvector('simple', 'w' || g), "
      "ARRAY[box(point(g, g), point(0, 0))] FROM generate_series(4, 3000) g");
  auto conn = PgConnection::Connect(Server().conninfo(), PgSessionKind::kReplication);
  ASSERT_TRUE(conn.ok()) << conn.status().ToString();
  auto slot = CreateReplicationSlot(**conn, "tot_copy_slot", {true, SlotSnapshotAction::kExport});
  ASSERT_TRUE(slot.ok()) << slot.status().ToString();
  SnapshotCopyOptions options;
  options.conninfo = Server().conninfo();
  options.snapshot_name = slot->snapshot_name;
  options.snapshot_lsn = slot->consistent_point;
  options.workers = 2;
  options.batch_rows = 500;
  auto copy = SnapshotCopy::Start(options, {{"public", "tot_copy"}});
  ASSERT_TRUE(copy.ok()) << copy.status().ToString();
  (*conn).reset();

  auto want = Expected("tot_copy", kColumns);
  ASSERT_EQ(want.size(), 3000u);
  auto want_n = Expected("tot_copy", {"n"});
  std::set<int64_t> seen;
  while (true) {
    auto batch = (*copy)->Next();
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    if (!*batch) break;
    const SourceRelation& rel = *(*batch)->relation;
    for (const Row& row : (*batch)->rows) {
      int64_t id = row[0].as_int();
      ASSERT_TRUE(seen.insert(id).second) << "row " << id << " copied twice";
      ASSERT_EQ(Got(rel, row, kColumns), want[id]) << "row " << id;
      EXPECT_EQ(row[1].is_null() ? std::string("NULL") : std::to_string(row[1].as_int()), want_n[id][0])
          << "the binary column beside them, row " << id;
    }
    (*copy)->Recycle(std::move(**batch));
  }
  EXPECT_EQ(seen.size(), 3000u);
}

// Reads inserts of `table` until `ids` have all arrived; returns id -> row (and the relation).
struct Inserted {
  std::map<int64_t, Row> rows;
  SourceRelationPtr relation;
  std::vector<Lsn> commits;
};

void ReadInserts(ChangeStream& stream, const std::string& table, const std::set<int64_t>& ids, Inserted* out) {
  size_t seen = 0;
  auto events = ReadUntil(stream, [&](const std::vector<ChangeEvent>& ev) {
    for (; seen < ev.size(); ++seen) {
      const ChangeEvent& e = ev[seen];
      if (auto* c = std::get_if<RowChange>(&e)) {
        if (c->relation->table.name == table && c->kind == ChangeKind::kInsert) {
          out->relation = c->relation;
          int64_t id = c->new_row[0].as_int();
          EXPECT_EQ(out->rows.count(id), 0u) << "insert of row " << id << " delivered twice";
          out->rows[id] = c->new_row;
        }
      } else if (auto* commit = std::get_if<CommitTransaction>(&e)) {
        out->commits.push_back(commit->txn.commit_lsn);
      }
    }
    for (int64_t id : ids) {
      if (!out->rows.count(id)) return false;
    }
    return true;
  });
  (void)events;
}

TEST(TextOnlyTypesTest, StreamAsksForTextWhenAPublishedTableHasThem) {
  CreateTextOnlyTable("tot_stream");
  Sql("DROP TABLE IF EXISTS tot_other; CREATE TABLE tot_other(id int PRIMARY KEY, v bigint); "
      "DROP PUBLICATION IF EXISTS tot_pub; CREATE PUBLICATION tot_pub FOR TABLE tot_other, tot_stream; "
      "SELECT pg_drop_replication_slot('tot_slot') FROM pg_replication_slots WHERE slot_name = 'tot_slot'");
  CreateSlot("tot_slot");
  Sql("INSERT INTO tot_stream SELECT id + 100, n, pt, rng, tsv, boxes FROM tot_stream WHERE id <= 3");
  ChangeStreamOptions options = StreamOptions("tot_slot", "tot_pub");
  ASSERT_TRUE(options.replication.binary);
  auto stream = ChangeStream::Start(options);
  ASSERT_TRUE(stream.ok()) << stream.status().ToString();
  EXPECT_FALSE((*stream)->replication().binary()) << "binary values of point/int4range/tsvector cannot be decoded";

  Inserted got;
  ReadInserts(**stream, "tot_stream", {101, 102, 103}, &got);
  ASSERT_NE(got.relation, nullptr);
  auto want = Expected("tot_stream", kColumns);
  for (int64_t id : {101, 102, 103}) EXPECT_EQ(Got(*got.relation, got.rows[id], kColumns), want[id]) << "row " << id;
  ASSERT_TRUE((*stream)->Close().ok());
  Sql("SELECT pg_drop_replication_slot('tot_slot')");
}

TEST(TextOnlyTypesTest, PublicationWithoutThemStreamsBinary) {
  Sql("DROP TABLE IF EXISTS tot_bin; CREATE TABLE tot_bin(id int PRIMARY KEY, v numeric(10,2), t text[]); "
      "DROP PUBLICATION IF EXISTS tot_bin_pub; CREATE PUBLICATION tot_bin_pub FOR TABLE tot_bin; "
      "SELECT pg_drop_replication_slot('tot_bin_slot') FROM pg_replication_slots WHERE slot_name = 'tot_bin_slot'");
  CreateSlot("tot_bin_slot");
  auto stream = ChangeStream::Start(StreamOptions("tot_bin_slot", "tot_bin_pub"));
  ASSERT_TRUE(stream.ok()) << stream.status().ToString();
  EXPECT_TRUE((*stream)->replication().binary());
  ASSERT_TRUE((*stream)->Close().ok());
  Sql("SELECT pg_drop_replication_slot('tot_bin_slot')");
}

// A text-only column is added to a table while the stream runs in binary mode: the stream restarts in
// text mode before decoding its values, without losing or repeating a transaction.
TEST(TextOnlyTypesTest, StreamRestartsInTextModeWhenSuchAColumnIsAdded) {
  Sql("DROP TABLE IF EXISTS tot_add; CREATE TABLE tot_add(id bigint PRIMARY KEY, v int); "
      "DROP PUBLICATION IF EXISTS tot_add_pub; CREATE PUBLICATION tot_add_pub FOR TABLE tot_add; "
      "SELECT pg_drop_replication_slot('tot_add_slot') FROM pg_replication_slots WHERE slot_name = 'tot_add_slot'");
  CreateSlot("tot_add_slot");
  auto stream = ChangeStream::Start(StreamOptions("tot_add_slot", "tot_add_pub"));
  ASSERT_TRUE(stream.ok()) << stream.status().ToString();
  ASSERT_TRUE((*stream)->replication().binary());

  Sql("INSERT INTO tot_add VALUES (1, 10), (2, 20)");
  Inserted got;
  ReadInserts(**stream, "tot_add", {1, 2}, &got);
  ASSERT_TRUE((*stream)->replication().binary()) << "nothing text-only yet";

  Sql("ALTER TABLE tot_add ADD COLUMN rng int4range, ADD COLUMN tsv tsvector");
  Sql("BEGIN; INSERT INTO tot_add VALUES (3, 30, '[3,7)', 'three blind mice'); "
      "INSERT INTO tot_add VALUES (4, 40, NULL, 'b:2'); COMMIT");
  Sql("INSERT INTO tot_add VALUES (5, 50, 'empty', NULL)");
  ReadInserts(**stream, "tot_add", {1, 2, 3, 4, 5}, &got);
  EXPECT_FALSE((*stream)->replication().binary());
  EXPECT_EQ((*stream)->replication().reconnect_count(), 1u) << "one restart, in text mode";
  EXPECT_EQ((*stream)->stats().skipped_transactions, 0u) << "the restart resumed from the acknowledged position";
  ASSERT_EQ(got.commits.size(), 3u) << "each transaction exactly once";
  EXPECT_LT(got.commits[0], got.commits[1]);
  EXPECT_LT(got.commits[1], got.commits[2]);
  ASSERT_NE(got.relation, nullptr);
  ASSERT_EQ(got.relation->fields.size(), 4u);
  auto want = Expected("tot_add", {"v", "rng", "tsv"});
  for (int64_t id : {3, 4, 5}) {
    const Row& row = got.rows[id];
    EXPECT_EQ(std::to_string(row[1].as_int()), want[id][0]) << "row " << id;
    EXPECT_EQ(Got(*got.relation, row, {"rng", "tsv"}), std::vector<std::string>(want[id].begin() + 1, want[id].end()))
        << "row " << id;
  }
  // Still streaming afterwards.
  Sql("INSERT INTO tot_add VALUES (6, 60, '[1,2)', 'six')");
  ReadInserts(**stream, "tot_add", {6}, &got);
  EXPECT_EQ(Got(*got.relation, got.rows[6], {"tsv"}), std::vector<std::string>{"'six'"});
  ASSERT_TRUE((*stream)->Close().ok());
  Sql("SELECT pg_drop_replication_slot('tot_add_slot')");
}

// On a temporary slot the stream cannot reconnect (PostgreSQL does not take a second logical
// START_REPLICATION on one connection, and the slot ends with it): it must stop with an error that names
// the column and says what to do, never decode garbage or fail obscurely.
TEST(TextOnlyTypesTest, StreamOnATemporarySlotStopsWithAClearError) {
  Sql("DROP TABLE IF EXISTS tot_tmp; CREATE TABLE tot_tmp(id bigint PRIMARY KEY, v int); "
      "DROP PUBLICATION IF EXISTS tot_tmp_pub; CREATE PUBLICATION tot_tmp_pub FOR TABLE tot_tmp");
  auto conn = PgConnection::Connect(Server().conninfo(), PgSessionKind::kReplication, kPgTextSessionOptions);
  ASSERT_TRUE(conn.ok()) << conn.status().ToString();
  auto created = CreateReplicationSlot(**conn, "tot_tmp_slot", {true, SlotSnapshotAction::kNothing});
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  auto stream = ChangeStream::Adopt(std::move(*conn), StreamOptions("tot_tmp_slot", "tot_tmp_pub"));
  ASSERT_TRUE(stream.ok()) << stream.status().ToString();
  ASSERT_TRUE((*stream)->replication().binary());
  Sql("INSERT INTO tot_tmp VALUES (1, 10)");
  Inserted got;
  ReadInserts(**stream, "tot_tmp", {1}, &got);

  Sql("ALTER TABLE tot_tmp ADD COLUMN pt point; INSERT INTO tot_tmp VALUES (2, 20, '(1,2)')");
  Status error;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (error.ok() && std::chrono::steady_clock::now() < deadline) {
    auto next = (*stream)->Next(std::chrono::milliseconds(200));
    if (!next.ok()) {
      error = next.status();
      break;
    }
    if (*next) {
      auto* c = std::get_if<RowChange>(&**next);
      EXPECT_TRUE(c == nullptr || c->new_row[0].as_int() != 2) << "row 2 must not arrive in binary";
    }
  }
  ASSERT_FALSE(error.ok()) << "the stream went on";
  EXPECT_TRUE(error.IsNotSupported()) << error.ToString();
  EXPECT_NE(error.message().find("public.tot_tmp.pt"), std::string::npos) << error.ToString();
  EXPECT_NE(error.message().find("text mode"), std::string::npos) << error.ToString();
}

}  // namespace
}  // namespace tide
