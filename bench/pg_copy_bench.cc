// Initial-copy throughput of SnapshotCopy against `COPY t TO STDOUT (FORMAT binary)` into /dev/null
// (psql), on the same 2M-row table. Tide parses the binary COPY stream and decodes every value into
// typed rows, under an exported snapshot, with 1 worker (like for like) and with 2 workers (CTID
// ranges). Best of 5 runs each. Beside wall time it prints the client's CPU time (Tide: this process;
// reference: psql and its shell), which depends less on how loaded the machine is.
//
//   build/bench/pg_copy_bench [rows (default 2000000)]
#include <sys/resource.h>

#include <cstdio>

#include "bench_util.h"
#include "tide/postgres/replication_slot.h"
#include "tide/postgres/snapshot_copy.h"

using namespace tide;

namespace {

double CpuSeconds(int who) {
  rusage u{};
  getrusage(who, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

struct Timing {
  double wall = 0;
  double cpu = 0;  // client CPU seconds
};

Timing RunTide(testing::PgServer& server, int workers, int64_t expected_rows, int round) {
  auto conn = PgConnection::Connect(server.conninfo(), PgSessionKind::kReplication);
  if (!conn.ok()) std::exit(1);
  std::string slot_name = fmt::format("copy_{}_{}", workers, round);
  auto slot = CreateReplicationSlot(**conn, slot_name, {true, SlotSnapshotAction::kExport});
  if (!slot.ok()) {
    std::fprintf(stderr, "%s\n", slot.status().ToString().c_str());
    std::exit(1);
  }
  SnapshotCopyOptions options;
  options.conninfo = server.conninfo();
  options.snapshot_name = slot->snapshot_name;
  options.snapshot_lsn = slot->consistent_point;
  options.workers = workers;
  options.split_pages = 1024;
  options.ranges_per_worker = 4;
  auto start = std::chrono::steady_clock::now();
  double cpu_start = CpuSeconds(RUSAGE_SELF);
  auto copy = SnapshotCopy::Start(options, {{"public", "t"}});
  if (!copy.ok()) {
    std::fprintf(stderr, "%s\n", copy.status().ToString().c_str());
    std::exit(1);
  }
  int64_t rows = 0;
  uint64_t checksum = 0;
  while (true) {
    auto batch = (*copy)->Next();
    if (!batch.ok()) {
      std::fprintf(stderr, "%s\n", batch.status().ToString().c_str());
      std::exit(1);
    }
    if (!*batch) break;
    for (const auto& row : (*batch)->rows) checksum += static_cast<uint64_t>(row[0].as_int());
    rows += static_cast<int64_t>((*batch)->rows.size());
    (*copy)->Recycle(std::move(**batch));  // the rows are done with: their storage goes back to the workers
  }
  double s = bench::Seconds(start);
  double cpu = CpuSeconds(RUSAGE_SELF) - cpu_start;
  if (rows != expected_rows) {
    std::fprintf(stderr, "copied %lld rows, expected %lld\n", (long long)rows, (long long)expected_rows);
    std::exit(1);
  }
  std::printf("  tide %d worker(s): %.2f s, client CPU %.2f s (%.1f MB of COPY data, checksum %llu)\n", workers, s,
              cpu, (*copy)->stats().bytes / 1e6, (unsigned long long)checksum);
  return {s, cpu};
}

}  // namespace

int main(int argc, char** argv) {
  int64_t rows = argc > 1 ? std::atoll(argv[1]) : 2000000;
  auto server = bench::StartServer();
  bench::MustExec(*server, bench::kBenchTableDdl);
  auto start = std::chrono::steady_clock::now();
  bench::MustExec(*server, "INSERT INTO t " + bench::BenchRowsSelect("generate_series(1, " + std::to_string(rows) + ")"));
  bench::MustExec(*server, "VACUUM ANALYZE t");
  std::printf("table t: %lld rows, %s, loaded in %.1f s\n", (long long)rows,
              server->QueryValue("SELECT pg_size_pretty(pg_relation_size('t'))")->c_str(), bench::Seconds(start));

  constexpr int kRounds = 5;
  Timing best_ref{1e30, 1e30}, best_one{1e30, 1e30}, best_two{1e30, 1e30};
  auto keep_best = [](Timing* best, Timing t) {
    best->wall = std::min(best->wall, t.wall);
    best->cpu = std::min(best->cpu, t.cpu);
  };
  for (int r = 0; r < kRounds; ++r) {
    double cpu_start = CpuSeconds(RUSAGE_CHILDREN);
    double ref = bench::TimeCommand(fmt::format("/usr/lib/postgresql/15/bin/psql -X -q '{}' -c 'COPY t TO STDOUT (FORMAT binary)' > /dev/null",
                                                server->conninfo()));
    if (ref < 0) return 1;
    double ref_cpu = CpuSeconds(RUSAGE_CHILDREN) - cpu_start;
    std::printf("round %d:\n  COPY (FORMAT binary) > /dev/null: %.2f s, client CPU %.2f s\n", r + 1, ref, ref_cpu);
    keep_best(&best_ref, {ref, ref_cpu});
    keep_best(&best_one, RunTide(*server, 1, rows, r));
    keep_best(&best_two, RunTide(*server, 2, rows, r));
  }
  std::printf("COPY (FORMAT binary) > /dev/null: %.0f rows/s (best of %d), client CPU %.2f s\n", rows / best_ref.wall,
              kRounds, best_ref.cpu);
  std::printf("tide SnapshotCopy, 1 worker:      %.0f rows/s (typed rows), client CPU %.2f s\n", rows / best_one.wall,
              best_one.cpu);
  std::printf("tide SnapshotCopy, 2 workers:     %.0f rows/s (typed rows), client CPU %.2f s\n", rows / best_two.wall,
              best_two.cpu);
  std::printf("ratio copy tide(1 worker)/COPY: %.2fx (goal >= 0.80x)\n", best_ref.wall / best_one.wall);
  std::printf("ratio copy tide(2 workers)/COPY: %.2fx\n", best_ref.wall / best_two.wall);
  return 0;
}
