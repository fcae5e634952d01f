// Idle bucket writers are closed (Java's AbstractFileStoreWrite.prepareCommit) and reopened from the
// table: a writer that met many partitions and buckets once, then writes to a few of them commit after
// commit, keeps only those few open, and the rows read back equal a model after every commit, also
// when a closed bucket is written again (its sequence numbers, levels, deletion vectors and key hashes
// come back from the latest snapshot).
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "testing/temp_dir.h"
#include "tide/table/sink/table_write.h"
#include "tide/table/table_test_util.h"

namespace tide {
namespace {

using testing::Field;

constexpr int64_t kPartitions = 12;
constexpr int64_t kKeysPerPartition = 60;

struct Variant {
  const char* name;
  std::vector<std::pair<std::string, std::string>> options;
  int64_t buckets_per_partition;  // the most a partition can use
  // `commit.force-compact`: no compaction outlives its commit, so the bound holds at every commit;
  // without it a bucket's compaction may hand out results (and keep its writer open) commits later.
  bool force_compact;
};

class TableWriteIdleWriterTest : public ::testing::TestWithParam<Variant> {};

TEST_P(TableWriteIdleWriterTest, WritersOfBucketsNotWrittenAreClosedAndReopenedFromTheTable) {
  const Variant& variant = GetParam();
  std::vector<std::pair<std::string, std::string>> options = variant.options;
  // Compaction every other flush, so closed writers held levels and compactions ran before.
  options.emplace_back("num-sorted-run.compaction-trigger", "2");
  if (variant.force_compact) options.emplace_back("commit.force-compact", "true");
  TableSchema schema = testing::WriterTestSchema(
      {Field(0, "p", DataType::Int(false)), Field(1, "id", DataType::BigInt(false)), Field(2, "v", DataType::BigInt())},
      {"p", "id"}, {"p"}, options);
  ::tide::testing::TempDir dir;
  const std::string path = dir.path() + "/db.db/t";
  ASSERT_TRUE(testing::CreateWriterTestTable(path, schema).ok());
  auto created = TableWrite::Create(FileSystem::Local(), path, schema, "user");
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  std::unique_ptr<TableWrite> writer = std::move(created).value();

  std::map<std::pair<int64_t, int64_t>, int64_t> model;  // (p, id) -> v
  std::mt19937_64 rng(7);
  int64_t version = 0;
  auto write = [&](int64_t p, int64_t id) {
    auto key = std::make_pair(p, id);
    auto it = model.find(key);
    if (it != model.end() && rng() % 5 == 0) {
      ASSERT_TRUE(writer->Write(RowKind::kDelete, Row{Datum(p), Datum(id), Datum(it->second)}).ok());
      model.erase(it);
      return;
    }
    ++version;
    ASSERT_TRUE(writer->Write(it == model.end() ? RowKind::kInsert : RowKind::kUpdateAfter,
                              Row{Datum(p), Datum(id), Datum(version)})
                    .ok());
    model[key] = version;
  };
  int64_t identifier = 0;
  auto commit_and_check = [&](const std::string& when) {
    auto messages = writer->PrepareCommit();
    ASSERT_TRUE(messages.ok()) << when << ": " << messages.status().ToString();
    auto committed = testing::CommitMessages(path, *messages, "user", ++identifier);
    ASSERT_TRUE(committed.ok()) << when << ": " << committed.status().ToString();
    auto rows = testing::ReadTable(path);
    ASSERT_TRUE(rows.ok()) << when << ": " << rows.status().ToString();
    std::vector<Row> expected;
    for (const auto& [key, v] : model) expected.push_back(Row{Datum(key.first), Datum(key.second), Datum(v)});
    ASSERT_EQ(testing::SortedRows(std::move(rows).value()), testing::SortedRows(std::move(expected))) << when;
  };

  // Every partition and bucket, twice (so the second commit's writers have been modified before).
  for (int round = 0; round < 2; ++round) {
    for (int64_t p = 0; p < kPartitions; ++p) {
      for (int64_t id = 0; id < kKeysPerPartition; ++id) ASSERT_NO_FATAL_FAILURE(write(p, id));
    }
    ASSERT_NO_FATAL_FAILURE(commit_and_check("load " + std::to_string(round)));
  }
  const size_t all_writers = writer->open_bucket_writers();
  ASSERT_GE(all_writers, static_cast<size_t>(kPartitions)) << "every partition has a writer after the load";

  // Then two hot partitions commit after commit, and now and then one cold partition.
  const int64_t hot[] = {3, 8};
  const size_t bound = static_cast<size_t>(2 * variant.buckets_per_partition);
  std::set<int64_t> cold_written;
  int last_cold = -100;
  for (int c = 0; c < 24; ++c) {
    const std::string when = "commit " + std::to_string(c);
    for (int i = 0; i < 40; ++i) {
      ASSERT_NO_FATAL_FAILURE(write(hot[rng() % 2], static_cast<int64_t>(rng() % (kKeysPerPartition + 10))));
    }
    std::optional<int64_t> cold;
    if (c % 6 == 5) {
      // A closed partition written again: its writers reopen from the table.
      cold = static_cast<int64_t>(c % kPartitions == 3 || c % kPartitions == 8 ? 0 : c % kPartitions);
      for (int64_t id = 0; id < kKeysPerPartition + 5; id += 3) ASSERT_NO_FATAL_FAILURE(write(*cold, id));
      cold_written.insert(*cold);
      last_cold = c;
    }
    ASSERT_NO_FATAL_FAILURE(commit_and_check(when));
    if (variant.force_compact && c >= 2) {
      // Open: the writers that handed out something at this commit or the one before (Java keeps a
      // writer until a commit after its last change's has been made), so the hot partitions' buckets,
      // plus those of a cold partition written in the last commits (its compaction's result may go out
      // one commit after its rows).
      const size_t cold_allowance = c - last_cold <= 2 ? static_cast<size_t>(variant.buckets_per_partition) : 0;
      EXPECT_LE(writer->open_bucket_writers(), bound + cold_allowance) << when;
    }
  }
  // Commits of the hot partitions alone: the cold writers go (at once with force-compact; else once
  // their compactions have handed out their last results).
  const int hot_commits = variant.force_compact ? 3 : 40;
  for (int c = 0; c < hot_commits; ++c) {
    for (int i = 0; i < 40; ++i) {
      ASSERT_NO_FATAL_FAILURE(write(hot[rng() % 2], static_cast<int64_t>(rng() % (kKeysPerPartition + 10))));
    }
    ASSERT_NO_FATAL_FAILURE(commit_and_check("hot commit " + std::to_string(c)));
    if (!variant.force_compact && c >= 2 && writer->open_bucket_writers() <= bound) break;
  }
  EXPECT_LE(writer->open_bucket_writers(), bound);
  EXPECT_LT(writer->open_bucket_writers(), all_writers);
  EXPECT_FALSE(cold_written.empty());

  // A new writer (a restart) agrees: the table's state is whole.
  writer.reset();
  created = TableWrite::Create(FileSystem::Local(), path, schema, "user");
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  writer = std::move(created).value();
  for (int64_t p = 0; p < kPartitions; ++p) ASSERT_NO_FATAL_FAILURE(write(p, 1));
  ASSERT_NO_FATAL_FAILURE(commit_and_check("after a restart"));
}

INSTANTIATE_TEST_SUITE_P(
    Variants, TableWriteIdleWriterTest,
    ::testing::Values(Variant{"FixedBuckets", {{"bucket", "4"}}, 4, true},
                      Variant{"FixedBucketsCompactionAcrossCommits", {{"bucket", "4"}}, 4, false},
                      Variant{"DynamicBuckets", {{"bucket", "-1"}, {"dynamic-bucket.target-row-num", "20"}}, 4, true},
                      Variant{"DeletionVectors", {{"bucket", "3"}, {"deletion-vectors.enabled", "true"}}, 3, true},
                      Variant{"LookupChangelog", {{"bucket", "2"}, {"changelog-producer", "lookup"}}, 2, true}),
    [](const ::testing::TestParamInfo<Variant>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace tide
