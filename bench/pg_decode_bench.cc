// Decode throughput of Tide's change stream against pg_recvlogical, on the same WAL.
//
// Two slots are created at the same position, then a workload of small transactions is written. The
// reference, pg_recvlogical, reads slot 1 with the same pgoutput options and writes the raw messages to
// /dev/null (no decoding at all); Tide reads slot 2 through ChangeStream, decoding every message and
// every column value into typed rows. Each side runs up to the same end LSN; best of 3 rounds (each
// round uses fresh slots so that the same WAL is decoded again).
//
//   build/bench/pg_decode_bench [rows (default 1000000)] [rows per transaction (default 5)]
#include <cstdio>

#include "bench_util.h"
#include "tide/postgres/change_stream.h"
#include "tide/postgres/replication_slot.h"

using namespace tide;

namespace {

Lsn CreateSlotAt(testing::PgServer& server, const std::string& name) {
  auto conn = PgConnection::Connect(server.conninfo(), PgSessionKind::kReplication);
  if (!conn.ok()) std::exit(1);
  auto slot = CreateReplicationSlot(**conn, name, {false, SlotSnapshotAction::kNothing});
  if (!slot.ok()) {
    std::fprintf(stderr, "%s\n", slot.status().ToString().c_str());
    std::exit(1);
  }
  return slot->consistent_point;
}

}  // namespace

int main(int argc, char** argv) {
  int64_t rows = argc > 1 ? std::atoll(argv[1]) : 1000000;
  int64_t per_txn = argc > 2 ? std::atoll(argv[2]) : 5;
  auto server = bench::StartServer();
  bench::MustExec(*server, bench::kBenchTableDdl);
  bench::MustExec(*server, "CREATE PUBLICATION bench_pub FOR TABLE t");

  constexpr int kRounds = 3;
  for (int r = 0; r < kRounds; ++r) {
    CreateSlotAt(*server, "ref_" + std::to_string(r));
    CreateSlotAt(*server, "tide_" + std::to_string(r));
  }
  auto start = std::chrono::steady_clock::now();
  bench::MustExec(*server, "DO $$ BEGIN FOR i IN 0.." + std::to_string(rows / per_txn - 1) +
                               " LOOP INSERT INTO t " +
                               bench::BenchRowsSelect("generate_series(i * " + std::to_string(per_txn) + " + 1, (i + 1) * " +
                                                      std::to_string(per_txn) + ")") +
                               "; COMMIT; END LOOP; END $$");
  std::string end_text = *server->QueryValue("SELECT pg_current_wal_insert_lsn()");
  Lsn end_lsn = *ParseLsn(end_text);
  std::printf("workload: %lld rows in %lld transactions written in %.1f s; WAL end %s\n", (long long)rows,
              (long long)(rows / per_txn), bench::Seconds(start), end_text.c_str());

  double best_ref = 1e30, best_tide = 1e30;
  uint64_t bytes = 0;
  for (int r = 0; r < kRounds; ++r) {
    std::string ref = fmt::format(
        "{}/pg_recvlogical -d '{}' --slot ref_{} --start --endpos {} -o proto_version=3 -o "
        "publication_names=bench_pub -o binary=true -o streaming=on -f /dev/null --no-loop",
        "/usr/lib/postgresql/15/bin", server->conninfo(), r, end_text);
    double ref_s = bench::TimeCommand(ref);
    if (ref_s < 0) return 1;
    best_ref = std::min(best_ref, ref_s);

    ChangeStreamOptions options;
    options.replication.conninfo = server->conninfo();
    options.replication.slot = "tide_" + std::to_string(r);
    options.replication.publications = {"bench_pub"};
    auto t0 = std::chrono::steady_clock::now();
    auto stream = ChangeStream::Start(options);
    if (!stream.ok()) {
      std::fprintf(stderr, "%s\n", stream.status().ToString().c_str());
      return 1;
    }
    int64_t seen = 0;
    uint64_t checksum = 0;
    bool done = false;
    while (!done) {
      auto next = (*stream)->Next(std::chrono::milliseconds(1000));
      if (!next.ok()) {
        std::fprintf(stderr, "%s\n", next.status().ToString().c_str());
        return 1;
      }
      if (!*next) continue;
      if (auto* c = std::get_if<RowChange>(&**next)) {
        ++seen;
        checksum += static_cast<uint64_t>(c->new_row[0].as_int()) + c->new_row[4].as_string().size();
      } else if (auto* commit = std::get_if<CommitTransaction>(&**next)) {
        (*stream)->Acknowledge(commit->txn.end_lsn);
        done = commit->txn.end_lsn >= end_lsn || seen >= rows;
      }
    }
    double tide_s = bench::Seconds(t0);
    bytes = (*stream)->stats().bytes;
    (void)(*stream)->Close();
    best_tide = std::min(best_tide, tide_s);
    std::printf("round %d: pg_recvlogical %.2f s, tide %.2f s (%lld rows, checksum %llu)\n", r + 1, ref_s, tide_s,
                (long long)seen, (unsigned long long)checksum);
    if (seen != rows) {
      std::fprintf(stderr, "tide saw %lld rows, expected %lld\n", (long long)seen, (long long)rows);
      return 1;
    }
  }
  double ref_rate = rows / best_ref, tide_rate = rows / best_tide;
  std::printf("pg_recvlogical (raw pgoutput to /dev/null): %.0f rows/s (best of %d)\n", ref_rate, kRounds);
  std::printf("tide ChangeStream (decoded, typed rows):    %.0f rows/s (best of %d), %.1f MB of pgoutput\n", tide_rate,
              kRounds, bytes / 1e6);
  std::printf("ratio decode tide/pg_recvlogical: %.2fx (goal >= 0.90x)\n", tide_rate / ref_rate);
  return 0;
}
