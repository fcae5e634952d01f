#include "tide/format/duckdb_handle.h"

#include <gtest/gtest.h>

#include <thread>

namespace tide {
namespace {

TEST(DuckDbHandleTest, QuotingKeepsNamesAndTextIntact) {
  EXPECT_EQ(QuoteSqlIdentifier("plain"), "\"plain\"");
  EXPECT_EQ(QuoteSqlIdentifier("we\"ird"), "\"we\"\"ird\"");
  EXPECT_EQ(QuoteSqlString("it's"), "'it''s'");
  EXPECT_EQ(QuoteSqlString(""), "''");

  auto db = DuckDB::Open();
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  auto conn = db->Connect();
  ASSERT_TRUE(conn.ok());
  // A quoted identifier and literal survive a trip through DuckDB unchanged, keywords and quotes included.
  const std::string name = "select \"from\" 'x'";
  const std::string text = "O'Brien said \"hi\" -- not a comment; DROP TABLE t";
  ASSERT_TRUE(conn->Execute("CREATE TABLE t (" + QuoteSqlIdentifier(name) + " VARCHAR)").ok());
  ASSERT_TRUE(conn->Execute("INSERT INTO t VALUES (" + QuoteSqlString(text) + ")").ok());
  auto result = conn->Query("SELECT " + QuoteSqlIdentifier(name) + " FROM t");
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->column_name(0), name);
  DuckDataChunk chunk = result->FetchChunk();
  ASSERT_TRUE(chunk);
  ASSERT_EQ(chunk.size(), 1u);
  auto* s = static_cast<duckdb_string_t*>(duckdb_vector_get_data(chunk.column(0)));
  EXPECT_EQ(std::string(duckdb_string_t_data(s), duckdb_string_t_length(*s)), text);
}

TEST(DuckDbHandleTest, ErrorsCarryDuckDbTextAndAFittingCode) {
  auto db = DuckDB::Open();
  ASSERT_TRUE(db.ok());
  auto conn = db->Connect();
  ASSERT_TRUE(conn.ok());
  auto missing = conn->Query("SELECT * FROM no_such_table");
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(missing.status().IsNotFound()) << missing.status().ToString();
  EXPECT_NE(missing.status().message().find("no_such_table"), std::string::npos);
  auto syntax = conn->Query("SELEC 1");
  ASSERT_FALSE(syntax.ok());
  EXPECT_TRUE(syntax.status().IsInvalidArgument()) << syntax.status().ToString();
  auto io = conn->Query("SELECT * FROM read_parquet('/nonexistent/x.parquet')");
  ASSERT_FALSE(io.ok());
  EXPECT_TRUE(io.status().IsIOError()) << io.status().ToString();
  auto prepared = conn->Prepare("SELECT * FROM no_such_table");
  ASSERT_FALSE(prepared.ok());
  EXPECT_TRUE(prepared.status().IsNotFound()) << prepared.status().ToString();

  auto bad_option = DuckDB::Open(":memory:", {{"no_such_option", "1"}});
  ASSERT_FALSE(bad_option.ok());
  EXPECT_NE(bad_option.status().message().find("no_such_option"), std::string::npos);
}

TEST(DuckDbHandleTest, StreamingPreparedAndAppender) {
  auto db = DuckDB::Open(":memory:", {{"threads", "2"}});
  ASSERT_TRUE(db.ok());
  auto conn = db->Connect();
  ASSERT_TRUE(conn.ok());
  auto stream = conn->QueryStreaming("SELECT range AS i FROM range(10000)");
  ASSERT_TRUE(stream.ok()) << stream.status().ToString();
  int64_t sum = 0, rows = 0;
  while (DuckDataChunk chunk = stream->FetchChunk()) {
    const auto* v = static_cast<const int64_t*>(duckdb_vector_get_data(chunk.column(0)));
    for (idx_t i = 0; i < chunk.size(); ++i) sum += v[i];
    rows += static_cast<int64_t>(chunk.size());
  }
  EXPECT_TRUE(stream->error().ok());
  EXPECT_EQ(rows, 10000);
  EXPECT_EQ(sum, 10000 * 9999 / 2);

  // A failure in the middle of a stream shows up as error() after the last chunk.
  auto failing = conn->QueryStreaming("SELECT CASE WHEN range < 5000 THEN range ELSE error('boom') END FROM range(10000)");
  if (failing.ok()) {
    while (DuckDataChunk chunk = failing->FetchChunk()) {
    }
    EXPECT_FALSE(failing->error().ok());
    EXPECT_NE(failing->error().message().find("boom"), std::string::npos);
  } else {
    EXPECT_NE(failing.status().message().find("boom"), std::string::npos);
  }

  ASSERT_TRUE(conn->Execute("CREATE TABLE t (a BIGINT, b VARCHAR)").ok());
  auto appender = conn->CreateAppender("t");
  ASSERT_TRUE(appender.ok()) << appender.status().ToString();
  DuckLogicalType types[] = {DuckLogicalType(duckdb_create_logical_type(DUCKDB_TYPE_BIGINT)),
                             DuckLogicalType(duckdb_create_logical_type(DUCKDB_TYPE_VARCHAR))};
  duckdb_logical_type raw[] = {types[0].raw(), types[1].raw()};
  DuckDataChunk chunk(duckdb_create_data_chunk(raw, 2));
  static_cast<int64_t*>(duckdb_vector_get_data(chunk.column(0)))[0] = 42;
  duckdb_vector_assign_string_element(chunk.column(1), 0, "answer");
  duckdb_data_chunk_set_size(chunk.raw(), 1);
  ASSERT_TRUE(appender->AppendChunk(chunk).ok());
  ASSERT_TRUE(appender->Close().ok());

  auto stmt = conn->Prepare("SELECT b FROM t WHERE a = $1");
  ASSERT_TRUE(stmt.ok()) << stmt.status().ToString();
  EXPECT_EQ(stmt->parameter_count(), 1u);
  ASSERT_TRUE(stmt->Bind(1, DuckValue(duckdb_create_int64(42))).ok());
  auto found = stmt->Execute();
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  DuckDataChunk out = found->FetchChunk();
  ASSERT_TRUE(out);
  EXPECT_EQ(out.size(), 1u);
  EXPECT_EQ(found->column_logical_type(0).ToString(), "VARCHAR");
}

TEST(DuckDbHandleTest, ConnectionsOutliveTheirDatabaseHandleAndRunInParallel) {
  DuckConnection conn;
  {
    auto db = DuckDB::Open();
    ASSERT_TRUE(db.ok());
    auto c = db->Connect();
    ASSERT_TRUE(c.ok());
    conn = std::move(c).value();
  }  // the DuckDB handle is gone; the connection keeps the database open
  ASSERT_TRUE(conn.Execute("CREATE TABLE t AS SELECT 1 AS x").ok());

  auto db = DuckDB::Open();
  ASSERT_TRUE(db.ok());
  std::vector<std::thread> threads;
  std::vector<int> ok(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      auto c = db->Connect();
      if (!c.ok()) return;
      auto r = c->Query("SELECT sum(range) FROM range(100000)");
      ok[t] = r.ok();
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(ok, std::vector<int>(4, 1));
}

// OpenLater opens on first use with its options; the first of several threads opens it once; a bad
// option fails every use, not the creation; ForgetFiles before any use opens nothing.
TEST(DuckDbHandleTest, OpenLaterOpensOnFirstUse) {
  DuckDB later = DuckDB::OpenLater(":memory:", {{"enable_external_file_cache", "false"}});
  EXPECT_TRUE(later.ForgetFiles().ok());
  std::vector<std::thread> threads;
  std::vector<int> ok(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      auto c = later.Connect();
      if (!c.ok()) return;
      auto r = c->Query("SELECT current_setting('enable_external_file_cache')::VARCHAR");
      if (!r.ok()) return;
      DuckDataChunk chunk = r->FetchChunk();
      if (!chunk || chunk.size() != 1) return;
      auto* s = static_cast<duckdb_string_t*>(duckdb_vector_get_data(chunk.column(0)));
      ok[t] = std::string(duckdb_string_t_data(s), duckdb_string_t_length(*s)) == "false";
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(ok, std::vector<int>(4, 1));
  EXPECT_NE(later.raw(), nullptr);
  EXPECT_TRUE(later.ForgetFiles().ok());

  DuckDB bad = DuckDB::OpenLater(":memory:", {{"no_such_option_at_all", "1"}});
  auto refused = bad.Connect();
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("no_such_option_at_all"), std::string::npos) << refused.status().ToString();
  EXPECT_FALSE(bad.Connect().ok());
  EXPECT_EQ(bad.raw(), nullptr);
}

TEST(DuckDbHandleTest, LogicalTypeNames) {
  DuckLogicalType dec(duckdb_create_decimal_type(23, 5));
  EXPECT_EQ(dec.ToString(), "DECIMAL(23,5)");
  DuckLogicalType i32(duckdb_create_logical_type(DUCKDB_TYPE_INTEGER));
  DuckLogicalType list(duckdb_create_list_type(i32.raw()));
  EXPECT_EQ(list.ToString(), "INTEGER[]");
  DuckLogicalType vc(duckdb_create_logical_type(DUCKDB_TYPE_VARCHAR));
  DuckLogicalType map(duckdb_create_map_type(vc.raw(), list.raw()));
  EXPECT_EQ(map.ToString(), "MAP(VARCHAR, INTEGER[])");
  duckdb_logical_type members[] = {i32.raw(), vc.raw()};
  const char* names[] = {"a", "b c"};
  DuckLogicalType st(duckdb_create_struct_type(members, names, 2));
  EXPECT_EQ(st.ToString(), "STRUCT(\"a\" INTEGER, \"b c\" VARCHAR)");
  DuckLogicalType moved = std::move(st);
  EXPECT_FALSE(st);  // NOLINT: moved-from is empty by contract
  EXPECT_TRUE(moved);
}

}  // namespace
}  // namespace tide
