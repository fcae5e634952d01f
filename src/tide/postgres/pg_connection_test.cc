#include "tide/postgres/pg_connection.h"

#include <gtest/gtest.h>

namespace tide {
namespace {

TEST(ConnInfoTest, ParsesKeyValueAndUri) {
  auto kv = ParseConnInfo("host=db.example port=6543 dbname=app user=tide sslmode=verify-full");
  ASSERT_TRUE(kv.ok()) << kv.status().ToString();
  EXPECT_EQ(ConnInfoValue("host=db.example port=6543 dbname=app", "port"), "6543");
  EXPECT_EQ(ConnInfoValue("postgresql://tide@db.example:6543/app?sslmode=require", "sslmode"), "require");
  EXPECT_EQ(ConnInfoValue("postgresql://tide@db.example:6543/app", "dbname"), "app");
  EXPECT_EQ(ConnInfoValue("host=x", "port"), std::nullopt);
}

TEST(ConnInfoTest, RejectsMalformedWithoutEchoingIt) {
  auto bad = ParseConnInfo("host=x password='secret");
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(bad.status().IsInvalidArgument());
  EXPECT_EQ(bad.status().message().find("secret"), std::string::npos);
  EXPECT_EQ(RedactConnInfo("host=x password='secret"), "<conninfo that does not parse>");
}

TEST(ConnInfoTest, RedactsPasswordsInBothForms) {
  std::string kv = RedactConnInfo("host=db port=5432 user=tide password=hunter2 dbname=app");
  EXPECT_EQ(kv.find("hunter2"), std::string::npos) << kv;
  EXPECT_NE(kv.find("password=********"), std::string::npos) << kv;
  EXPECT_NE(kv.find("host=db"), std::string::npos) << kv;

  std::string uri = RedactConnInfo("postgresql://tide:hunter2@db:5432/app?sslmode=require");
  EXPECT_EQ(uri.find("hunter2"), std::string::npos) << uri;
  EXPECT_NE(uri.find("sslmode=require"), std::string::npos) << uri;

  std::string ssl = RedactConnInfo("host=db sslpassword=topsecret");
  EXPECT_EQ(ssl.find("topsecret"), std::string::npos) << ssl;
}

TEST(ConnInfoTest, RedactionQuotesValuesWithSpaces) {
  EXPECT_EQ(RedactConnInfo("host=db application_name='my app'"), "host=db application_name='my app'");
}

TEST(PgConnectionTest, UnreachableServerIsUnavailableAndHidesPassword) {
  // Port 1 on loopback: nothing listens there.
  auto conn = PgConnection::Connect("host=127.0.0.1 port=1 dbname=x user=u password=hunter2 connect_timeout=2");
  ASSERT_FALSE(conn.ok());
  EXPECT_TRUE(conn.status().IsUnavailable()) << conn.status().ToString();
  EXPECT_EQ(conn.status().message().find("hunter2"), std::string::npos) << conn.status().ToString();
  EXPECT_NE(conn.status().message().find("port=1"), std::string::npos) << conn.status().ToString();
}

}  // namespace
}  // namespace tide
