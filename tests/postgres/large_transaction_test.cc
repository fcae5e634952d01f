// A single 1M-row transaction streamed by PostgreSQL (streaming 'on') is delivered whole while the
// process's peak memory stays bounded: the buffered changes spill to disk past the memory budget and
// are replayed one by one. Its own test binary, so the peak RSS (VmHWM) reflects only this test.
#include <gtest/gtest.h>

#include <fstream>

#include "pg_test_util.h"
#include "tide/postgres/change_stream.h"

namespace tide {
namespace {

using namespace pgtest;

// VmHWM (peak resident set) of this process, in kB.
int64_t PeakRssKb() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stoll(line.substr(6));
  }
  return -1;
}

int64_t RssKb() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stoll(line.substr(6));
  }
  return -1;
}

TEST(LargeTransactionTest, MillionRowTransactionStreamsWithBoundedMemory) {
  constexpr int64_t kRows = 1000000;
  Sql("DROP TABLE IF EXISTS large_t; CREATE TABLE large_t(id bigint PRIMARY KEY, payload text); "
      "DROP PUBLICATION IF EXISTS large_pub; CREATE PUBLICATION large_pub FOR TABLE large_t");
  CreateSlot("large_slot");
  // ~200 bytes per row: some 200 MB of row data in one transaction.
  Sql("INSERT INTO large_t SELECT g, repeat(md5(g::text), 6) FROM generate_series(1, " + std::to_string(kRows) + ") g");

  auto options = StreamOptions("large_slot", "large_pub");
  // The walsender streams in logical_decoding_work_mem chunks: 64kB (the test server's) makes
  // thousands of tiny blocks; 4MB is still far below the transaction's size.
  options.replication.conninfo += " options='-c logical_decoding_work_mem=4MB'";
  options.assembler.memory_budget = 16u << 20;
  auto stream = ChangeStream::Start(options);
  ASSERT_TRUE(stream.ok()) << stream.status().ToString();
  // Reset the peak to the current RSS (Linux: writing 5 to clear_refs), then measure.
  { std::ofstream("/proc/self/clear_refs") << "5"; }
  int64_t baseline_kb = RssKb();

  int64_t rows = 0, id_sum = 0, next_expected = 1;
  bool in_order = true, committed = false, streamed = false;
  auto started = std::chrono::steady_clock::now();
  auto deadline = started + std::chrono::seconds(240);
  while (!committed && std::chrono::steady_clock::now() < deadline) {
    auto next = (*stream)->Next(std::chrono::milliseconds(500));
    ASSERT_TRUE(next.ok()) << next.status().ToString();
    if (!*next) continue;
    if (auto* c = std::get_if<RowChange>(&**next)) {
      int64_t id = c->new_row[0].as_int();
      in_order = in_order && id == next_expected;
      next_expected = id + 1;
      id_sum += id;
      ++rows;
      if (c->new_row[1].as_string().size() != 192) in_order = false;
    } else if (auto* b = std::get_if<BeginTransaction>(&**next)) {
      streamed = b->txn.streamed;
    } else if (auto* commit = std::get_if<CommitTransaction>(&**next)) {
      committed = true;
      EXPECT_EQ(commit->change_count, static_cast<uint64_t>(kRows));
      (*stream)->Acknowledge(commit->txn.end_lsn);
    }
  }
  int64_t peak_kb = PeakRssKb();
  ASSERT_TRUE(committed);
  EXPECT_TRUE(streamed) << "PostgreSQL should have streamed the transaction (logical_decoding_work_mem)";
  EXPECT_EQ(rows, kRows);
  EXPECT_EQ(id_sum, kRows * (kRows + 1) / 2);
  EXPECT_TRUE(in_order);
  EXPECT_GT((*stream)->assembler().spilled_bytes(), 100u << 20);
  EXPECT_LE((*stream)->assembler().peak_memory_bytes(), (16u << 20) + (1u << 20));
  // Holding the transaction in memory would take several hundred MB; bounded means well under that.
  int64_t growth_mb = (peak_kb - baseline_kb) / 1024;
  RecordProperty("peak_rss_growth_mb", std::to_string(growth_mb));
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::printf("streamed %lld rows in %.1f s; peak RSS growth %lld MB (budget 16 MB, spilled %llu MB)\n",
              static_cast<long long>(kRows), seconds, static_cast<long long>(growth_mb),
              static_cast<unsigned long long>((*stream)->assembler().spilled_bytes() >> 20));
  EXPECT_LT(growth_mb, 80);
  ASSERT_TRUE((*stream)->Close().ok());
  Sql("SELECT pg_drop_replication_slot('large_slot'); DROP TABLE large_t");
}

}  // namespace
}  // namespace tide
