// Randomized model test of lookup compaction: tables with deletion vectors (deduplicate and
// partial-update), the first-row merge engine, and `changelog-producer` lookup (alone and with deletion
// vectors); and of `changelog-producer` full-compaction (a full compaction at every commit). Random schemas and workloads go through TableWrite and FileStoreCommit, with manual and full
// compactions at random points, writers replaced between commits and writers dropped in the middle of a
// compaction. After every commit:
//   - the table read back (Table::NewReader, which reads deletion-vector and first-row tables without
//     merging and skips level 0) equals the in-memory model, by rows and by DuckDB vectors;
//   - no live file stays at level 0 (lookup-wait, or the full compaction, moved them up);
//   - every deletion vector of the index manifest belongs to a live file above level 0, one DV index
//     file per bucket, its cardinality as recorded;
//   - with changelog-producer lookup, replaying every snapshot's changelog files (+I, -U/+U, -D, each
//     -U/-D equal to the row it retracts) gives the model.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <random>
#include <set>

#include "testing/temp_dir.h"
#include "tide/table/deletionvectors/deletion_vector.h"
#include "tide/table/io/file_store_path_factory.h"
#include "tide/table/io/key_value_file_reader.h"
#include "tide/table/schema/core_options.h"
#include "tide/table/sink/table_write.h"
#include "tide/table/table_test_util.h"

namespace tide {
namespace {

using testing::Field;

enum class Mode { kDvDeduplicate, kDvPartialUpdate, kFirstRow, kLookupChangelog, kDvLookupChangelog, kFullCompactionChangelog };

const char* ModeName(Mode m) {
  switch (m) {
    case Mode::kDvDeduplicate: return "dv-deduplicate";
    case Mode::kDvPartialUpdate: return "dv-partial-update";
    case Mode::kFirstRow: return "first-row";
    case Mode::kLookupChangelog: return "lookup-changelog";
    case Mode::kDvLookupChangelog: return "dv-lookup-changelog";
    case Mode::kFullCompactionChangelog: return "full-compaction-changelog";
  }
  return "?";
}

struct RowLess {
  bool operator()(const Row& a, const Row& b) const { return CompareRows(a, b) < 0; }
};

class Rng {
 public:
  explicit Rng(uint64_t seed) : rng_(seed) {}
  int64_t Uniform(int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(rng_() % static_cast<uint64_t>(hi - lo + 1)); }
  bool Chance(int percent) { return Uniform(0, 99) < percent; }

 private:
  std::mt19937_64 rng_;
};

struct ModelTable {
  TableSchema schema;
  std::vector<int> key_columns;  // partition and primary-key columns
  std::vector<int> value_columns;
  std::vector<int> partition_columns;
};

std::vector<DataType> ValueTypes() {
  return {DataType::Int(),        DataType::BigInt(),  DataType::Double(),       DataType::Decimal(10, 2),
          DataType::VarChar(20), DataType::String(),  DataType::Date(),         DataType::Timestamp(6),
          DataType::Boolean(),   DataType::Bytes(),   DataType::TimestampLtz(3)};
}

ModelTable MakeTable(Rng* g, Mode mode) {
  ModelTable t;
  std::vector<DataField> fields;
  std::vector<std::string> pk, partitions;
  int32_t id = 0;
  if (g->Chance(40)) {
    fields.push_back(Field(id++, "p", DataType::Int(false)));
    pk.push_back("p");
    partitions.push_back("p");
  }
  const int keys = static_cast<int>(g->Uniform(1, 2));
  for (int i = 0; i < keys; ++i) {
    std::string name = "k" + std::to_string(i);
    fields.push_back(Field(id++, name, i == 0 ? DataType::BigInt(false) : DataType::String(false)));
    pk.push_back(name);
  }
  std::vector<DataType> types = ValueTypes();
  const int values = static_cast<int>(g->Uniform(1, 4));
  for (int i = 0; i < values; ++i) {
    fields.push_back(Field(id++, "v" + std::to_string(i), types[static_cast<size_t>(g->Uniform(0, static_cast<int64_t>(types.size()) - 1))]));
  }
  std::vector<std::pair<std::string, std::string>> options = {{"bucket", std::to_string(g->Uniform(1, 3))}};
  switch (mode) {
    case Mode::kDvDeduplicate: options.emplace_back("deletion-vectors.enabled", "true"); break;
    case Mode::kDvPartialUpdate:
      options.emplace_back("deletion-vectors.enabled", "true");
      options.emplace_back("merge-engine", "partial-update");
      break;
    case Mode::kFirstRow: options.emplace_back("merge-engine", "first-row"); break;
    case Mode::kLookupChangelog:
      options.emplace_back("changelog-producer", "lookup");
      if (g->Chance(30)) options.emplace_back("merge-engine", "partial-update");
      break;
    case Mode::kDvLookupChangelog:
      options.emplace_back("changelog-producer", "lookup");
      options.emplace_back("deletion-vectors.enabled", "true");
      break;
    case Mode::kFullCompactionChangelog:
      // Every commit fully compacts, so the changelog is complete after each.
      options.emplace_back("changelog-producer", "full-compaction");
      options.emplace_back("full-compaction.delta-commits", "1");
      if (g->Chance(30)) options.emplace_back("merge-engine", "partial-update");
      break;
  }
  if (g->Chance(30)) options.emplace_back("deletion-vectors.bitmap64", "true");
  const int trigger = static_cast<int>(g->Uniform(1, 4));
  options.emplace_back("num-sorted-run.compaction-trigger", std::to_string(trigger));
  if (g->Chance(30)) options.emplace_back("num-levels", std::to_string(g->Uniform(2, 4)));
  if (g->Chance(30)) options.emplace_back("target-file-size", "4 kb");
  if (g->Chance(30)) options.emplace_back("compaction.size-ratio", std::to_string(g->Uniform(0, 20)));
  if (g->Chance(20) && mode != Mode::kFullCompactionChangelog) {
    options.emplace_back("full-compaction.delta-commits", std::to_string(g->Uniform(1, 4)));
  }
  t.schema = testing::WriterTestSchema(std::move(fields), pk, partitions, options);
  for (size_t i = 0; i < t.schema.fields.size(); ++i) {
    const std::string& name = t.schema.fields[i].name;
    bool is_key = std::find(pk.begin(), pk.end(), name) != pk.end();
    (is_key ? t.key_columns : t.value_columns).push_back(static_cast<int>(i));
    if (name == "p") t.partition_columns.push_back(static_cast<int>(i));
  }
  return t;
}

Datum RandomValue(Rng* g, const DataType& type) {
  int64_t n = g->Uniform(-100000, 100000);
  switch (type.root()) {
    case TypeRoot::kInt: return Datum(n);
    case TypeRoot::kBigInt: return Datum(n * 1000003);
    case TypeRoot::kDouble: return Datum(static_cast<double>(n) / 8.0);
    case TypeRoot::kDecimal: return Datum(DecimalValue{static_cast<int128_t>(n)});
    case TypeRoot::kVarChar: return Datum("s" + std::to_string(n));
    case TypeRoot::kDate: return Datum(static_cast<int64_t>(19000 + n % 1000));
    case TypeRoot::kTimestamp:
      return Datum(TimestampValue{1700000000000LL + n * 1000, static_cast<int32_t>((n & 0x3FF) % 1000 * 1000)});
    case TypeRoot::kTimestampLtz: return Datum(TimestampValue{1700000000000LL + n, 0});
    case TypeRoot::kBoolean: return Datum(n % 2 == 0);
    case TypeRoot::kVarBinary: return Datum(std::string("\x01\xff", 2) + std::to_string(n));
    default: return Datum();
  }
}

Row RandomKey(Rng* g, const ModelTable& t) {
  Row key;
  for (int c : t.key_columns) {
    const std::string& name = t.schema.fields[static_cast<size_t>(c)].name;
    if (name == "p") {
      key.push_back(Datum(g->Uniform(0, 1)));
    } else if (name == "k0") {
      key.push_back(Datum(g->Uniform(0, 60)));
    } else {
      key.push_back(Datum("key" + std::to_string(g->Uniform(0, 2))));
    }
  }
  return key;
}

Row RandomRow(Rng* g, const ModelTable& t, const Row& key, bool allow_null) {
  Row row(t.schema.fields.size());
  for (size_t k = 0; k < t.key_columns.size(); ++k) row[static_cast<size_t>(t.key_columns[k])] = key[k];
  for (int c : t.value_columns) {
    row[static_cast<size_t>(c)] = allow_null && g->Chance(25) ? Datum() : RandomValue(g, t.schema.fields[static_cast<size_t>(c)].type);
  }
  return row;
}

Row KeyOf(const ModelTable& t, const Row& row) {
  Row key;
  for (int c : t.key_columns) key.push_back(row[static_cast<size_t>(c)]);
  return key;
}

// The changelog of snapshots (from, to], replayed onto `replay`; fails on a retraction that does not
// match the replayed row or an insert of a key already there.
void ReplayChangelog(const std::string& path, const ModelTable& t, int64_t from, int64_t to,
                     std::map<Row, Row, RowLess>* replay, int64_t* changelog_files) {
  FileSystem* fs = FileSystem::Local();
  SnapshotManager snapshots(fs, path);
  FileStoreScan scan(fs, path, "test.t", t.schema);
  auto options = CoreOptions::Create(t.schema, "test.t");
  ASSERT_TRUE(options.ok());
  FileStorePathFactory paths(path, t.schema, *options);
  std::vector<DataType> partition_types;
  for (int c : t.partition_columns) partition_types.push_back(t.schema.fields[static_cast<size_t>(c)].type);
  for (int64_t id = from + 1; id <= to; ++id) {
    auto snapshot = snapshots.Get(id);
    ASSERT_TRUE(snapshot.ok()) << snapshot.status().ToString();
    if (!snapshot->changelog_manifest_list) continue;
    // Java commits lookup changelog with the compaction that produced it.
    EXPECT_EQ(snapshot->commit_kind, CommitKind::kCompact) << "snapshot " << id;
    auto lists = ReadManifestList(fs, scan.ManifestPath(*snapshot->changelog_manifest_list));
    ASSERT_TRUE(lists.ok()) << lists.status().ToString();
    for (const auto& list : *lists) {
      auto entries = ReadManifest(fs, scan.ManifestPath(list.file_name));
      ASSERT_TRUE(entries.ok()) << entries.status().ToString();
      for (const auto& e : *entries) {
        ++*changelog_files;
        ASSERT_EQ(e.file.file_source, static_cast<int32_t>(FileSource::kAppend));
        auto values = DeserializeBinaryRow(e.partition, partition_types);
        ASSERT_TRUE(values.ok());
        auto partition_path = paths.PartitionPath(*values);
        ASSERT_TRUE(partition_path.ok());
        KeyValueFileReadSpec spec;
        spec.path = JoinPath(FileStorePathFactory::BucketPath(*partition_path, e.bucket), e.file.file_name);
        spec.file_schema = &t.schema;
        spec.needed = &t.schema.fields;
        spec.primary_key = true;
        spec.table_name = "test.t";
        auto reader = KeyValueFileReader::Open(std::move(spec));
        ASSERT_TRUE(reader.ok()) << reader.status().ToString();
        while (true) {
          auto more = (*reader)->Advance();
          ASSERT_TRUE(more.ok()) << more.status().ToString();
          if (!*more) break;
          const KeyValue& kv = (*reader)->current();
          Row key = KeyOf(t, kv.row);
          auto it = replay->find(key);
          switch (kv.kind) {
            case ValueKind::kInsert:
              ASSERT_TRUE(it == replay->end()) << "snapshot " << id << ": +I of a key already there: "
                                               << RowToString(kv.row, t.schema.fields);
              replay->emplace(key, kv.row);
              break;
            case ValueKind::kUpdateAfter:
              ASSERT_TRUE(it != replay->end()) << "snapshot " << id << ": +U without -U";
              it->second = kv.row;
              break;
            case ValueKind::kUpdateBefore:
            case ValueKind::kDelete:
              ASSERT_TRUE(it != replay->end()) << "snapshot " << id << ": retraction of an absent key "
                                               << RowToString(kv.row, t.schema.fields);
              ASSERT_EQ(it->second, kv.row) << "snapshot " << id << ": a retraction differs from the row it retracts";
              if (kv.kind == ValueKind::kDelete) replay->erase(it);
              break;
          }
        }
      }
    }
  }
}

// Deletion vectors of the latest snapshot: one DV index file per bucket, each vector of a live file
// above level 0, with the recorded cardinality, within the file's rows.
void CheckDeletionVectors(const std::string& path, const ModelTable& t, int64_t* vectors_seen) {
  FileSystem* fs = FileSystem::Local();
  SnapshotManager snapshots(fs, path);
  auto latest = snapshots.LatestId();
  ASSERT_TRUE(latest.ok() && *latest);
  auto snapshot = snapshots.Get(**latest);
  ASSERT_TRUE(snapshot.ok());
  if (!snapshot->index_manifest) return;
  auto live = testing::LiveEntries(path);
  ASSERT_TRUE(live.ok());
  std::map<std::string, const ManifestEntry*> by_name;
  for (const auto& e : *live) by_name[e.file.file_name] = &e;
  FileStoreScan scan(fs, path, "test.t", t.schema);
  auto index = ReadIndexManifest(fs, scan.ManifestPath(*snapshot->index_manifest));
  ASSERT_TRUE(index.ok()) << index.status().ToString();
  std::set<std::pair<std::string, int32_t>> buckets;
  for (const auto& ie : *index) {
    ASSERT_EQ(ie.kind, FileKind::kAdd);
    ASSERT_EQ(ie.index_type, "DELETION_VECTORS");
    ASSERT_TRUE(buckets.emplace(ie.partition, ie.bucket).second) << "two DV index files in one bucket";
    ASSERT_TRUE(ie.deletion_vectors.has_value());
    ASSERT_EQ(ie.row_count, static_cast<int64_t>(ie.deletion_vectors->size()));
    auto bytes = fs->ReadFile(JoinPath(path + "/index", ie.file_name));
    ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
    ASSERT_EQ(static_cast<int64_t>(bytes->size()), ie.file_size);
    for (const auto& dv : *ie.deletion_vectors) {
      auto it = by_name.find(dv.data_file_name);
      ASSERT_TRUE(it != by_name.end()) << "a deletion vector of " << dv.data_file_name << ", which is not live";
      ASSERT_EQ(it->second->partition, ie.partition);
      ASSERT_EQ(it->second->bucket, ie.bucket);
      ASSERT_GT(it->second->file.level, 0);
      auto vector = ReadDeletionVector(*bytes, dv.offset, dv.length, ie.file_name);
      ASSERT_TRUE(vector.ok()) << vector.status().ToString();
      ASSERT_EQ(dv.cardinality, vector->Cardinality());
      ASSERT_GT(vector->Cardinality(), 0);
      for (int64_t p : vector->DeletedPositions()) ASSERT_LT(p, it->second->file.row_count);
      ++*vectors_seen;
    }
  }
}

void RunLookupModel(Mode mode, uint64_t seed, int commits) {
  SCOPED_TRACE(std::string(ModeName(mode)) + " seed " + std::to_string(seed));
  Rng g(seed);
  ModelTable t = MakeTable(&g, mode);
  SCOPED_TRACE("schema " + t.schema.ToJson());
  testing::TempDir dir;
  const std::string path = dir.path() + "/db.db/model";
  ASSERT_TRUE(testing::CreateWriterTestTable(path, t.schema).ok());
  const bool partial_update = t.schema.options.count("merge-engine") && t.schema.options.at("merge-engine") == "partial-update";
  const bool first_row = mode == Mode::kFirstRow;
  const bool changelog =
      mode == Mode::kLookupChangelog || mode == Mode::kDvLookupChangelog || mode == Mode::kFullCompactionChangelog;
  const bool dv = mode == Mode::kDvDeduplicate || mode == Mode::kDvPartialUpdate || mode == Mode::kDvLookupChangelog;

  auto new_writer = [&](int session) {
    TableWriteConfig config;
    if (g.Chance(40)) config.write_buffer_size = g.Uniform(8, 64) * 1024;
    config.flush_ahead = session % 2 == 1;  // memory flushes on the flush thread in every other session
    auto w = TableWrite::Create(FileSystem::Local(), path, t.schema, "session-" + std::to_string(session), config);
    EXPECT_TRUE(w.ok()) << w.status().ToString();
    return std::move(w).value();
  };
  int session = 0;
  auto writer = new_writer(session);
  std::map<Row, Row, RowLess> model, replay;
  int64_t identifier = 0, replayed_through = 0, changelog_files = 0, vectors_seen = 0;

  for (int c = 0; c < commits; ++c) {
    const int ops = static_cast<int>(g.Uniform(10, 150));
    for (int i = 0; i < ops; ++i) {
      Row key = RandomKey(&g, t);
      auto it = model.find(key);
      if (first_row) {
        Row row = RandomRow(&g, t, key, true);
        ASSERT_TRUE(writer->Write(RowKind::kInsert, row).ok());
        model.emplace(key, row);  // the first row of a key stays
        continue;
      }
      if (partial_update) {
        Row row = RandomRow(&g, t, key, true);
        ASSERT_TRUE(writer->Write(g.Chance(50) ? RowKind::kInsert : RowKind::kUpdateAfter, row).ok());
        if (it == model.end()) {
          model.emplace(key, row);
        } else {
          for (size_t f = 0; f < row.size(); ++f) {
            if (!row[f].is_null()) it->second[f] = row[f];
          }
        }
        continue;
      }
      const int action = static_cast<int>(g.Uniform(0, 99));
      if (it != model.end() && action < 25) {
        ASSERT_TRUE(writer->Write(RowKind::kDelete, it->second).ok());
        model.erase(it);
      } else if (it != model.end() && action < 60) {
        Row row = RandomRow(&g, t, key, true);
        ASSERT_TRUE(writer->Write(RowKind::kUpdateBefore, it->second).ok());
        ASSERT_TRUE(writer->Write(RowKind::kUpdateAfter, row).ok());
        it->second = row;
      } else {
        Row row = RandomRow(&g, t, key, true);
        ASSERT_TRUE(writer->Write(RowKind::kInsert, row).ok());
        model[key] = row;
      }
    }
    if (g.Chance(20)) {
      Status compacted = writer->Compact(/*full=*/g.Chance(50));
      ASSERT_TRUE(compacted.ok()) << compacted.ToString();
    }
    auto messages = writer->PrepareCommit();
    ASSERT_TRUE(messages.ok()) << messages.status().ToString();
    auto committed = testing::CommitMessages(path, *messages, "session-" + std::to_string(session), ++identifier);
    ASSERT_TRUE(committed.ok()) << committed.status().ToString();

    // lookup-wait: the commit moved every level-0 file up.
    auto live = testing::LiveEntries(path);
    ASSERT_TRUE(live.ok()) << live.status().ToString();
    for (const auto& e : *live) ASSERT_GT(e.file.level, 0) << "after commit " << c << ": " << e.file.file_name;

    std::vector<Row> expected;
    for (const auto& [key, row] : model) expected.push_back(row);
    expected = testing::SortedRows(std::move(expected));
    auto rows = testing::ReadTable(path);
    ASSERT_TRUE(rows.ok()) << rows.status().ToString();
    std::vector<Row> actual = testing::SortedRows(std::move(rows).value());
    ASSERT_EQ(actual.size(), expected.size()) << "after commit " << c;
    for (size_t r = 0; r < actual.size(); ++r) {
      ASSERT_EQ(actual[r], expected[r]) << "after commit " << c << ", row " << r << ":\n  read  "
                                        << RowToString(actual[r], t.schema.fields) << "\n  model "
                                        << RowToString(expected[r], t.schema.fields);
    }
    auto by_vectors = testing::ReadTableByVectors(path, 1 + c % 2);
    ASSERT_TRUE(by_vectors.ok()) << by_vectors.status().ToString();
    ASSERT_EQ(testing::SortedRows(std::move(by_vectors).value()), expected) << "read by vectors, after commit " << c;

    if (dv) CheckDeletionVectors(path, t, &vectors_seen);
    if (changelog) {
      auto latest = SnapshotManager(FileSystem::Local(), path).LatestId();
      ASSERT_TRUE(latest.ok() && *latest);
      ReplayChangelog(path, t, replayed_through, **latest, &replay, &changelog_files);
      replayed_through = **latest;
      ASSERT_EQ(replay, model) << "the changelog replayed differs from the model after commit " << c;
    }
    if (::testing::Test::HasFatalFailure()) return;

    if (g.Chance(15)) {
      // A writer dropped in the middle of a compaction it started: the table stays at its last snapshot.
      ASSERT_TRUE(writer->Compact(/*full=*/true).ok());
      writer->Abort();
      auto after = testing::ReadTable(path);
      ASSERT_TRUE(after.ok()) << after.status().ToString();
      ASSERT_EQ(testing::SortedRows(std::move(after).value()), expected);
      writer = new_writer(++session);
      identifier = 0;
    } else if (g.Chance(25)) {
      writer = new_writer(++session);
      identifier = 0;
    }
  }
  // The modes really did their work.
  if (changelog) {
    EXPECT_GT(changelog_files, 0);
  }
  // With more than two levels and a compaction trigger above 1 (a trigger of 1 sends every compaction
  // to the top level), level 0 goes to a level below older data, which then gets vectors.
  auto options = CoreOptions::Create(t.schema, "test.t");
  ASSERT_TRUE(options.ok());
  if (dv && options->num_levels() > 2 && options->num_sorted_run_compaction_trigger() > 1) {
    EXPECT_GT(vectors_seen, 0);
  }
}

class LookupModelTest : public ::testing::TestWithParam<std::tuple<Mode, uint64_t>> {};

TEST_P(LookupModelTest, RandomWorkloadMatchesTheModel) {
  RunLookupModel(std::get<0>(GetParam()), std::get<1>(GetParam()), 10);
}

INSTANTIATE_TEST_SUITE_P(Seeds, LookupModelTest,
                         ::testing::Combine(::testing::Values(Mode::kDvDeduplicate, Mode::kDvPartialUpdate,
                                                              Mode::kFirstRow, Mode::kLookupChangelog,
                                                              Mode::kDvLookupChangelog, Mode::kFullCompactionChangelog),
                                            ::testing::Range<uint64_t>(1, 9)),
                         [](const auto& info) {
                           std::string name = ModeName(std::get<0>(info.param));
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name + "_" + std::to_string(std::get<1>(info.param));
                         });

TEST(LookupModelSoak, Extra) {
  const char* n = std::getenv("TIDE_MODEL_SEED");
  if (n == nullptr) GTEST_SKIP() << "set TIDE_MODEL_SEED to run one more seed per mode";
  for (Mode m : {Mode::kDvDeduplicate, Mode::kDvPartialUpdate, Mode::kFirstRow, Mode::kLookupChangelog,
                 Mode::kDvLookupChangelog, Mode::kFullCompactionChangelog}) {
    RunLookupModel(m, std::strtoull(n, nullptr, 10), 16);
  }
}

}  // namespace
}  // namespace tide
