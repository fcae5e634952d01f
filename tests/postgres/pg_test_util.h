// Helpers shared by the PostgreSQL integration tests (header-only: each test binary includes it).
// Thread-safety: as the functions they call; a test uses them from its own thread.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "testing/pg_server.h"
#include "tide/postgres/change_stream.h"
#include "tide/postgres/pg_connection.h"
#include "tide/postgres/replication_slot.h"
#include "tide/types/datum.h"

namespace tide::pgtest {

inline testing::PgServer& Server() { return testing::PgServer::Shared(); }

// Runs SQL on the shared server, failing the test on error.
inline void Sql(const std::string& sql) {
  Status st = Server().Exec(sql);
  ASSERT_TRUE(st.ok()) << st.ToString();
}

inline std::string SqlValue(const std::string& sql) {
  auto v = Server().QueryValue(sql);
  EXPECT_TRUE(v.ok()) << v.status().ToString();
  return v.ok() ? *v : "";
}

// Creates a permanent logical slot (no snapshot) and returns its consistent point.
inline Lsn CreateSlot(const std::string& slot) {
  auto conn = PgConnection::Connect(Server().conninfo(), PgSessionKind::kReplication);
  EXPECT_TRUE(conn.ok()) << conn.status().ToString();
  if (!conn.ok()) return 0;
  auto created = CreateReplicationSlot(**conn, slot, {false, SlotSnapshotAction::kNothing});
  EXPECT_TRUE(created.ok()) << created.status().ToString();
  return created.ok() ? created->consistent_point : 0;
}

inline ChangeStreamOptions StreamOptions(const std::string& slot, const std::string& publication) {
  ChangeStreamOptions o;
  o.replication.conninfo = Server().conninfo();
  o.replication.slot = slot;
  o.replication.publications = {publication};
  o.replication.messages = true;
  o.replication.status_interval = std::chrono::milliseconds(500);
  o.replication.reconnect.initial_delay = std::chrono::milliseconds(100);
  o.replication.reconnect.max_delay = std::chrono::milliseconds(1000);
  o.replication.reconnect.max_attempts = 60;
  return o;
}

// A row rendered as text: "col=value,col=value" (NULL for nulls, ? for values that were not sent).
inline std::string RowText(const SourceRelation& rel, const Row& row, const std::vector<int>& unknown = {}) {
  std::string out;
  for (size_t i = 0; i < row.size() && i < rel.fields.size(); ++i) {
    if (!out.empty()) out += ',';
    out += rel.fields[i].name + "=";
    if (std::find(unknown.begin(), unknown.end(), static_cast<int>(i)) != unknown.end()) {
      out += "?";
    } else {
      out += row[i].is_null() ? "NULL" : DatumToString(row[i], rel.fields[i].type);
    }
  }
  return out;
}

// Reads events until `done` says stop (after each CommitTransaction) or `timeout` passes; returns the
// events seen. Acknowledges each commit when `ack` is set.
template <typename Done>
std::vector<ChangeEvent> ReadUntil(ChangeStream& stream, Done done, std::chrono::seconds timeout = std::chrono::seconds(60),
                                   bool ack = true) {
  std::vector<ChangeEvent> events;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    auto next = stream.Next(std::chrono::milliseconds(200));
    EXPECT_TRUE(next.ok()) << next.status().ToString();
    if (!next.ok()) break;
    if (!*next) continue;
    events.push_back(std::move(**next));
    if (auto* commit = std::get_if<CommitTransaction>(&events.back())) {
      if (ack) stream.Acknowledge(commit->txn.end_lsn);
      if (done(events)) return events;
    }
  }
  ADD_FAILURE() << "timed out after " << events.size() << " events";
  return events;
}

inline size_t CountCommits(const std::vector<ChangeEvent>& events) {
  size_t n = 0;
  for (const auto& e : events) n += std::holds_alternative<CommitTransaction>(e);
  return n;
}

}  // namespace tide::pgtest
