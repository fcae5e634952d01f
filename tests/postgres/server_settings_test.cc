// A PostgreSQL server that is not set up for logical replication (wal_level=replica): the readiness
// check and `tide pg tail` refuse it with an error that names the setting and says how to change it.
// This binary starts its own server with that setting (not the shared one the other tests use).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <sys/wait.h>

#include "testing/pg_server.h"
#include "testing/temp_dir.h"
#include "tide/postgres/pg_connection.h"
#include "tide/postgres/replication_slot.h"

namespace tide {
namespace {

testing::PgServer& ReplicaServer() {
  static std::unique_ptr<testing::PgServer> server = [] {
    testing::PgServer::Options options;
    options.config.push_back("wal_level = replica");  // later lines of postgresql.conf win
    auto started = testing::PgServer::Start(options);
    if (!started.ok()) {
      std::fprintf(stderr, "cannot start PostgreSQL: %s\n", started.status().ToString().c_str());
      std::exit(1);
    }
    return std::move(started).value();
  }();
  return *server;
}

TEST(ServerSettingsTest, WalLevelReplicaIsRefusedWithWhatToDo) {
  auto level = ReplicaServer().QueryValue("SHOW wal_level");
  ASSERT_TRUE(level.ok()) << level.status().ToString();
  ASSERT_EQ(*level, "replica");
  auto conn = PgConnection::Connect(ReplicaServer().conninfo());
  ASSERT_TRUE(conn.ok()) << conn.status().ToString();
  Status st = CheckLogicalReplicationReady(**conn);
  ASSERT_FALSE(st.ok());
  EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString();
  EXPECT_NE(st.message().find("wal_level=replica"), std::string::npos) << st.ToString();
  EXPECT_NE(st.message().find("ALTER SYSTEM SET wal_level = logical"), std::string::npos) << st.ToString();
  EXPECT_NE(st.message().find("restart"), std::string::npos) << st.ToString();
}

TEST(ServerSettingsTest, PgTailSaysToSetWalLevelLogical) {
  ASSERT_TRUE(ReplicaServer().Exec("CREATE TABLE IF NOT EXISTS settings_t (id int PRIMARY KEY)").ok());
  std::string command = testing::BuildDir() + "/tide pg tail --postgres '" + ReplicaServer().conninfo() +
                        "' --tables settings_t --temporary 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), pipe)) > 0) output.append(buf, n);
  int status = ::pclose(pipe);
  ASSERT_TRUE(WIFEXITED(status)) << output;
  EXPECT_EQ(WEXITSTATUS(status), 1) << output;
  EXPECT_NE(output.find("wal_level=logical"), std::string::npos) << output;
  EXPECT_EQ(output.find("{\"lsn\""), std::string::npos) << "no change may be printed: " << output;
}

}  // namespace
}  // namespace tide
