// Integration tests of PgConnection and the test server harness against a real PostgreSQL.
#include "tide/postgres/pg_connection.h"

#include <gtest/gtest.h>

#include "testing/pg_server.h"

namespace tide {
namespace {

using testing::PgServer;

TEST(PgConnectionIntegrationTest, RegularSessionRunsSql) {
  auto conn = PgConnection::Connect(PgServer::Shared().conninfo());
  ASSERT_TRUE(conn.ok()) << conn.status().ToString();
  auto rows = (*conn)->Query("SELECT 41 + 1 AS answer, NULL::text AS nothing");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(rows->Get(0, "answer"), "42");
  EXPECT_EQ(rows->Get(0, "nothing"), std::nullopt);
  EXPECT_GE((*conn)->server_version(), 140000);
}

TEST(PgConnectionIntegrationTest, ReplicationSessionAcceptsReplicationCommands) {
  auto conn = PgConnection::Connect(PgServer::Shared().conninfo(), PgSessionKind::kReplication);
  ASSERT_TRUE(conn.ok()) << conn.status().ToString();
  auto rows = (*conn)->Query("IDENTIFY_SYSTEM");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(rows->Get(0, "dbname"), "postgres");
  // SQL works too over the simple query protocol.
  auto sql = (*conn)->Query("SELECT current_setting('wal_level')");
  ASSERT_TRUE(sql.ok()) << sql.status().ToString();
  EXPECT_EQ(sql->Value(0, 0), "logical");
}

TEST(PgConnectionIntegrationTest, UriConnects) {
  auto conn = PgConnection::Connect(
      "postgresql://postgres@127.0.0.1:" + std::to_string(PgServer::Shared().port()) + "/postgres");
  ASSERT_TRUE(conn.ok()) << conn.status().ToString();
}

TEST(PgConnectionIntegrationTest, SslModeRequireIsHonoured) {
  // The test server has no SSL: libpq must refuse rather than fall back to a plain connection.
  auto conn = PgConnection::Connect(PgServer::Shared().conninfo() + " sslmode=require password=hunter2");
  ASSERT_FALSE(conn.ok());
  EXPECT_TRUE(conn.status().IsUnavailable());
  EXPECT_NE(conn.status().message().find("SSL"), std::string::npos) << conn.status().ToString();
  EXPECT_EQ(conn.status().message().find("hunter2"), std::string::npos) << conn.status().ToString();
}

TEST(PgConnectionIntegrationTest, ServerErrorsCarrySqlState) {
  auto conn = PgConnection::Connect(PgServer::Shared().conninfo());
  ASSERT_TRUE(conn.ok());
  auto missing = (*conn)->Query("SELECT * FROM no_such_table_anywhere");
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(missing.status().IsNotFound()) << missing.status().ToString();
  EXPECT_EQ((*conn)->last_sqlstate(), "42P01");
  EXPECT_NE(missing.status().message().find("no_such_table_anywhere"), std::string::npos);
}

TEST(PgConnectionIntegrationTest, RoleWithoutReplicationGetsAHint) {
  auto& server = PgServer::Shared();
  ASSERT_TRUE(server.Exec("DROP ROLE IF EXISTS tide_norepl; CREATE ROLE tide_norepl LOGIN").ok());
  auto conn = PgConnection::Connect(server.conninfo("postgres", "tide_norepl"), PgSessionKind::kReplication);
  ASSERT_FALSE(conn.ok());
  EXPECT_NE(conn.status().message().find("WITH REPLICATION"), std::string::npos) << conn.status().ToString();
}

TEST(PgServerHarnessTest, RestartKeepsData) {
  auto& server = PgServer::Shared();
  ASSERT_TRUE(server.Exec("DROP TABLE IF EXISTS harness_t; CREATE TABLE harness_t(x int); "
                          "INSERT INTO harness_t VALUES (7)").ok());
  ASSERT_TRUE(server.Restart().ok());
  auto v = server.QueryValue("SELECT x FROM harness_t");
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(*v, "7");
}

}  // namespace
}  // namespace tide
