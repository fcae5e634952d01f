// Randomized model test of the write path (and, in TableWriteCompactionModelTest, of compaction): random schemas (partitioned or not, 1..4 buckets or dynamic
// buckets, composite primary keys, every scalar type), random batches of inserts, updates and deletes,
// many commits through FileStoreCommit; after every commit the table read back through
// Table::NewReader equals an in-memory model row for row. Writers are sometimes replaced between
// commits (sequence numbers, and dynamic buckets' key index, restore from the table), and budgets and
// target file sizes are sometimes tiny (flushes under memory pressure, rolling).
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <map>
#include <random>
#include <set>

#include "testing/temp_dir.h"
#include "tide/base/strings.h"
#include "tide/table/sink/table_write.h"
#include "tide/table/table_test_util.h"

namespace tide {
namespace {

using testing::Field;

// The scalar types the test draws from.
std::vector<DataType> ScalarTypes() {
  return {DataType::Boolean(),         DataType::TinyInt(),        DataType::SmallInt(),
          DataType::Int(),             DataType::BigInt(),         DataType::Float(),
          DataType::Double(),          DataType::Decimal(10, 2),   DataType::Decimal(38, 6),
          DataType::Decimal(5, 0),     DataType::Char(3),          DataType::VarChar(20),
          DataType::String(),          DataType::Binary(4),        DataType::VarBinary(10),
          DataType::Bytes(),           DataType::Date(),           DataType::Time(3),
          DataType::Timestamp(3),      DataType::Timestamp(6),     DataType::Timestamp(9),
          DataType::TimestampLtz(3),   DataType::TimestampLtz(6)};
}

class Generator {
 public:
  explicit Generator(uint64_t seed) : rng_(seed) {}
  uint64_t Next() { return rng_(); }
  int64_t Uniform(int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(rng_() % static_cast<uint64_t>(hi - lo + 1)); }
  bool Chance(int percent) { return Uniform(0, 99) < percent; }

  std::string Text(size_t min_len, size_t max_len) {
    static const char* kPieces[] = {"a", "b", "Z", "0", " ", "é", "€", "😀", "road", "x"};
    std::string s;
    size_t len = static_cast<size_t>(Uniform(static_cast<int64_t>(min_len), static_cast<int64_t>(max_len)));
    for (size_t i = 0; i < len; ++i) s += kPieces[Uniform(0, 9)];
    return s;
  }
  std::string Bytes(size_t len) {
    std::string s;
    for (size_t i = 0; i < len; ++i) s.push_back(static_cast<char>(Uniform(0, 255)));
    return s;
  }

  // A non-null value of `type`; `domain` bounds integral values so that keys collide.
  Datum Value(const DataType& type, int64_t domain) {
    int64_t n = Uniform(-domain, domain);
    switch (type.root()) {
      case TypeRoot::kBoolean: return Datum(Chance(50));
      case TypeRoot::kTinyInt: return Datum(std::clamp<int64_t>(n, -128, 127));
      case TypeRoot::kSmallInt: return Datum(std::clamp<int64_t>(n * 7, -32768, 32767));
      case TypeRoot::kInt: return Datum(static_cast<int64_t>(static_cast<int32_t>(n * 1000003 % 2147483647)));
      case TypeRoot::kBigInt: return Datum(static_cast<int64_t>(n * 1000000000039LL));
      case TypeRoot::kFloat: return Datum(static_cast<float>(n) / 4.0f);
      case TypeRoot::kDouble: return Datum(static_cast<double>(n) / 8.0);
      case TypeRoot::kDecimal: {
        int128_t v = n;
        int digits = std::min(type.precision(), 30);
        int128_t limit = 1;
        for (int i = 0; i < digits; ++i) limit *= 10;
        if (domain > 1000) v = (static_cast<int128_t>(Next() >> 1) * static_cast<int128_t>(Next() >> 2)) % limit;
        if (Chance(50)) v = -v;
        return Datum(DecimalValue{v});
      }
      case TypeRoot::kChar: return Datum(Text(static_cast<size_t>(type.length()), static_cast<size_t>(type.length())));
      case TypeRoot::kVarChar:
        return domain > 1000 ? Datum(Text(0, type.length() > 100 ? 30 : static_cast<size_t>(type.length())))
                             : Datum("k" + std::to_string(n));
      case TypeRoot::kBinary: return Datum(Bytes(static_cast<size_t>(type.length())));
      case TypeRoot::kVarBinary:
        return domain > 1000 ? Datum(Bytes(static_cast<size_t>(Uniform(0, std::min(12, type.length())))))
                             : Datum(std::string(1, static_cast<char>(n & 0xFF)) + "\x00\xff");
      case TypeRoot::kDate: return Datum(static_cast<int64_t>(19000 + n));
      case TypeRoot::kTime: return Datum(static_cast<int64_t>(std::clamp<int64_t>(43200000 + n * 1001, 0, 86399999)));
      case TypeRoot::kTimestamp:
      case TypeRoot::kTimestampLtz: {
        int64_t millis = 1700000000000LL + (n % 20000) * 86400013LL;
        int32_t nanos = 0;
        if (type.precision() > 3) {
          int32_t unit = type.precision() <= 6 ? 1000 : 1;
          nanos = static_cast<int32_t>(Uniform(0, 999999) / unit * unit);
        }
        return Datum(TimestampValue{millis, nanos});
      }
      default: return Datum();
    }
  }

 private:
  std::mt19937_64 rng_;
};

struct RandomTable {
  TableSchema schema;
  std::vector<int> key_columns;    // primary key (partition columns included), indices into fields
  std::vector<int> value_columns;  // the rest
  std::vector<int> partition_columns;
  bool partial_update = false;
  // Partial-update sequence group `fields.g0.sequence-group`: its sequence column (-1 without), the
  // columns it protects, and the one of them that sums (-1 without).
  int group_sequence = -1;
  std::vector<int> group_protected;
  int group_sum = -1;
};

RandomTable MakeRandomTable(Generator* g, bool dynamic_bucket) {
  RandomTable t;
  std::vector<DataType> types = ScalarTypes();
  std::vector<DataField> fields;
  int32_t id = 0;
  std::vector<std::string> pk, partitions;
  // Partition columns (0..2), drawn from types with readable folder names.
  int num_partitions = static_cast<int>(g->Uniform(0, 2));
  static const DataType kPartitionTypes[] = {DataType::Int(false), DataType::String(false), DataType::Date(false),
                                             DataType::Boolean(false)};
  for (int i = 0; i < num_partitions; ++i) {
    std::string name = "p" + std::to_string(i);
    fields.push_back(Field(id++, name, kPartitionTypes[g->Uniform(0, 3)]));
    pk.push_back(name);
    partitions.push_back(name);
  }
  // Trimmed primary key (1..3 columns), any scalar type, NOT NULL.
  int num_keys = static_cast<int>(g->Uniform(1, 3));
  for (int i = 0; i < num_keys; ++i) {
    std::string name = "k" + std::to_string(i);
    fields.push_back(Field(id++, name, types[static_cast<size_t>(g->Uniform(0, static_cast<int64_t>(types.size()) - 1))]
                                           .WithNullable(false)));
    pk.push_back(name);
  }
  int num_values = static_cast<int>(g->Uniform(1, 6));
  for (int i = 0; i < num_values; ++i) {
    DataType type = types[static_cast<size_t>(g->Uniform(0, static_cast<int64_t>(types.size()) - 1))];
    fields.push_back(Field(id++, "v" + std::to_string(i), g->Chance(80) ? type : type.WithNullable(false)));
  }
  // Shuffle the column order so keys are not always first.
  for (size_t i = fields.size(); i > 1; --i) std::swap(fields[i - 1], fields[static_cast<size_t>(g->Uniform(0, static_cast<int64_t>(i) - 1))]);
  std::vector<std::pair<std::string, std::string>> options = {{"bucket", std::to_string(g->Uniform(1, 4))}};
  t.partial_update = g->Chance(20);
  if (t.partial_update) options.emplace_back("merge-engine", "partial-update");
  if (g->Chance(30)) options.emplace_back("target-file-size", "4 kb");
  if (g->Chance(30)) options.emplace_back("changelog-producer", "input");
  if (g->Chance(20)) options.emplace_back("metadata.stats-mode", g->Chance(50) ? "full" : "none");
  if (dynamic_bucket) {
    // Drawn last, so the fixed-bucket seeds keep their schemas and workloads.
    options[0].second = "-1";
    options.emplace_back("dynamic-bucket.target-row-num", std::to_string(g->Uniform(3, 40)));
  }
  if (t.partial_update && g->Chance(50)) {
    // A sequence group over some value columns, a BIGINT one of them summed (drawn last, so other
    // seeds keep their schemas and workloads).
    fields.push_back(Field(id++, "g0", DataType::BigInt()));
    std::vector<std::string> protected_names;
    std::string sum;
    for (const DataField& f : fields) {
      if (f.name[0] != 'v' || !g->Chance(50)) continue;
      protected_names.push_back(f.name);
      if (sum.empty() && f.type.root() == TypeRoot::kBigInt) sum = f.name;
    }
    if (sum.empty()) {
      // A BIGINT column of the group summed (with the random columns it may hold none).
      fields.push_back(Field(id++, "gs", DataType::BigInt()));
      protected_names.push_back("gs");
      sum = "gs";
    }
    std::string list;
    for (const auto& n : protected_names) list += (list.empty() ? "" : ",") + n;
    options.emplace_back("fields.g0.sequence-group", list);
    if (!sum.empty()) options.emplace_back("fields." + sum + ".aggregate-function", "sum");
  }
  t.schema = testing::WriterTestSchema(std::move(fields), pk, partitions, options);
  for (size_t i = 0; i < t.schema.fields.size(); ++i) {
    const std::string& name = t.schema.fields[i].name;
    bool is_key = std::find(pk.begin(), pk.end(), name) != pk.end();
    (is_key ? t.key_columns : t.value_columns).push_back(static_cast<int>(i));
    if (std::find(partitions.begin(), partitions.end(), name) != partitions.end()) {
      t.partition_columns.push_back(static_cast<int>(i));
    }
  }
  if (auto it = t.schema.options.find("fields.g0.sequence-group"); it != t.schema.options.end()) {
    t.group_sequence = t.schema.FieldIndex("g0");
    for (const std::string& name : SplitTrimmed(it->second, ',')) {
      t.group_protected.push_back(t.schema.FieldIndex(name));
      if (t.schema.options.count("fields." + name + ".aggregate-function")) t.group_sum = t.schema.FieldIndex(name);
    }
  }
  return t;
}

// A row with the key `key` (values of the key columns) and random values elsewhere.
Row RandomRow(Generator* g, const RandomTable& t, const Row& key, bool allow_null) {
  Row row(t.schema.fields.size());
  for (size_t k = 0; k < t.key_columns.size(); ++k) row[static_cast<size_t>(t.key_columns[k])] = key[k];
  for (int c : t.value_columns) {
    const DataType& type = t.schema.fields[static_cast<size_t>(c)].type;
    row[static_cast<size_t>(c)] = allow_null && type.nullable() && g->Chance(25) ? Datum() : g->Value(type, 1000000);
  }
  return row;
}

Row RandomKey(Generator* g, const RandomTable& t) {
  Row key;
  for (int c : t.key_columns) {
    bool partition = std::find(t.partition_columns.begin(), t.partition_columns.end(), c) != t.partition_columns.end();
    key.push_back(g->Value(t.schema.fields[static_cast<size_t>(c)].type, partition ? 1 : 40));
  }
  return key;
}

#define ASSERT_OK_WRITE(expr)                 \
  do {                                        \
    Status _st = (expr);                      \
    ASSERT_TRUE(_st.ok()) << _st.ToString(); \
  } while (false)

struct RowLess {
  bool operator()(const Row& a, const Row& b) const { return CompareRows(a, b) < 0; }
};

// Live files per (partition, bucket) of the latest snapshot: the number of sorted runs (each level-0
// file, plus each non-empty higher level).
std::map<std::pair<std::string, int32_t>, int> SortedRunsPerBucket(const std::string& path) {
  std::map<std::pair<std::string, int32_t>, std::set<int32_t>> levels;
  std::map<std::pair<std::string, int32_t>, int> runs;
  auto entries = testing::LiveEntries(path);
  EXPECT_TRUE(entries.ok()) << entries.status().ToString();
  if (!entries.ok()) return runs;
  for (const auto& e : *entries) {
    auto key = std::make_pair(e.partition, e.bucket);
    if (e.file.level == 0) {
      ++runs[key];
    } else if (levels[key].insert(e.file.level).second) {
      ++runs[key];
    }
  }
  return runs;
}

void RunModel(uint64_t seed, int commits, bool dynamic_bucket = false, bool compaction = false) {
  SCOPED_TRACE("seed " + std::to_string(seed) + (dynamic_bucket ? " (dynamic bucket)" : "") +
               (compaction ? " (compaction)" : ""));
  Generator g(seed);
  RandomTable t = MakeRandomTable(&g, dynamic_bucket);
  int stop_trigger = 0;
  if (compaction) {
    // Small triggers, so that every commit or two compacts; sometimes full compactions every few
    // commits, tiny size ratios or amplification limits, and few levels.
    int trigger = static_cast<int>(g.Uniform(1, 4));
    t.schema.options["num-sorted-run.compaction-trigger"] = std::to_string(trigger);
    stop_trigger = trigger + 3;
    if (g.Chance(30)) {
      stop_trigger = trigger + static_cast<int>(g.Uniform(0, 2));
      t.schema.options["num-sorted-run.stop-trigger"] = std::to_string(stop_trigger);
    }
    if (g.Chance(30)) t.schema.options["num-levels"] = std::to_string(g.Uniform(2, 4));
    if (g.Chance(30)) t.schema.options["compaction.max-size-amplification-percent"] = std::to_string(g.Uniform(10, 300));
    if (g.Chance(30)) t.schema.options["compaction.size-ratio"] = std::to_string(g.Uniform(0, 20));
    if (g.Chance(25)) t.schema.options["full-compaction.delta-commits"] = std::to_string(g.Uniform(1, 4));
    if (g.Chance(30)) t.schema.options["target-file-size"] = "4 kb";
  }
  SCOPED_TRACE("schema " + t.schema.ToJson());
  if (std::getenv("TIDE_MODEL_VERBOSE")) std::cerr << "seed " << seed << ": partitions " << t.partition_columns.size() << " keys " << t.key_columns.size() << " values " << t.value_columns.size() << " options " << nlohmann::json(t.schema.options).dump() << "\n";
  testing::TempDir dir;
  std::string path = dir.path() + "/db.db/model";
  ASSERT_TRUE(testing::CreateWriterTestTable(path, t.schema).ok());

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
  std::map<Row, Row, RowLess> model;  // key -> row
  int64_t identifier = 0;

  for (int c = 0; c < commits; ++c) {
    int ops = static_cast<int>(g.Uniform(20, 250));
    for (int i = 0; i < ops; ++i) {
      Row key = RandomKey(&g, t);
      auto it = model.find(key);
      int action = static_cast<int>(g.Uniform(0, 99));
      if (t.partial_update) {
        // Partial updates: only inserts; non-null fields overwrite.
        Row row = RandomRow(&g, t, key, /*allow_null=*/true);
        if (t.group_sequence >= 0) {
          // Few sequence values: records older than the row's group and ties both occur.
          row[static_cast<size_t>(t.group_sequence)] = Datum(g.Uniform(0, 6));
        }
        ASSERT_OK_WRITE(writer->Write(g.Chance(50) ? RowKind::kInsert : RowKind::kUpdateAfter, row));
        if (it == model.end()) {
          Row empty(row.size());
          for (size_t k = 0; k < t.key_columns.size(); ++k) empty[static_cast<size_t>(t.key_columns[k])] = key[k];
          it = model.emplace(key, std::move(empty)).first;
        }
        Row& m = it->second;
        auto in_group = [&](size_t f) {
          return static_cast<int>(f) == t.group_sequence ||
                 std::find(t.group_protected.begin(), t.group_protected.end(), static_cast<int>(f)) !=
                     t.group_protected.end();
        };
        for (size_t f = 0; f < row.size(); ++f) {
          if (!in_group(f) && !row[f].is_null()) m[f] = row[f];
        }
        if (t.group_sequence >= 0) {
          // The group changes with a record not older than its sequence (NULL smallest); its summed
          // column adds every record's value.
          const auto seq = static_cast<size_t>(t.group_sequence);
          const bool newer = CompareDatum(row[seq], m[seq]) >= 0;
          for (int c : t.group_protected) {
            const auto f = static_cast<size_t>(c);
            if (c == t.group_sum) {
              if (!row[f].is_null()) m[f] = m[f].is_null() ? row[f] : Datum(m[f].as_int() + row[f].as_int());
            } else if (newer) {
              m[f] = row[f];
            }
          }
          if (newer) m[seq] = row[seq];
        }
        continue;
      }
      if (it != model.end() && action < 25) {
        Row old = it->second;
        ASSERT_OK_WRITE(writer->Write(RowKind::kDelete, g.Chance(50) ? old : RandomRow(&g, t, key, true)));
        model.erase(it);
      } else if (it != model.end() && action < 60) {
        Row row = RandomRow(&g, t, key, true);
        ASSERT_OK_WRITE(writer->Write(RowKind::kUpdateBefore, it->second));
        ASSERT_OK_WRITE(writer->Write(RowKind::kUpdateAfter, row));
        it->second = row;
      } else {
        Row row = RandomRow(&g, t, key, true);
        ASSERT_OK_WRITE(writer->Write(RowKind::kInsert, row));
        model[key] = row;
      }
    }
    if (compaction && g.Chance(20)) {
      ASSERT_OK_WRITE(writer->Compact(/*full=*/g.Chance(50)));
    }
    auto messages = writer->PrepareCommit();
    ASSERT_TRUE(messages.ok()) << messages.status().ToString();
    auto committed = testing::CommitMessages(path, *messages, "session-" + std::to_string(session), ++identifier);
    ASSERT_TRUE(committed.ok()) << committed.status().ToString();
    if (compaction) {
      // The write stall keeps every bucket at most one run past the stop trigger at a commit.
      for (const auto& [bucket, runs] : SortedRunsPerBucket(path)) {
        ASSERT_LE(runs, stop_trigger + 1) << "after commit " << c << ", bucket " << bucket.second;
      }
    }

    auto rows = testing::ReadTable(path);
    ASSERT_TRUE(rows.ok()) << rows.status().ToString();
    std::vector<Row> expected;
    for (const auto& [key, row] : model) expected.push_back(row);
    std::vector<Row> actual = testing::SortedRows(std::move(rows).value());
    expected = testing::SortedRows(std::move(expected));
    ASSERT_EQ(actual.size(), expected.size()) << "after commit " << c;
    for (size_t r = 0; r < actual.size(); ++r) {
      ASSERT_EQ(actual[r], expected[r]) << "after commit " << c << ", row " << r << ":\n  read  "
                                        << RowToString(actual[r], t.schema.fields) << "\n  model "
                                        << RowToString(expected[r], t.schema.fields);
    }
    // The SQL path (columnar where the split allows it), with one or two readers sharing the splits.
    auto by_vectors = testing::ReadTableByVectors(path, 1 + static_cast<int>(c % 2));
    ASSERT_TRUE(by_vectors.ok()) << by_vectors.status().ToString();
    std::vector<Row> columnar = testing::SortedRows(std::move(by_vectors).value());
    ASSERT_EQ(columnar.size(), expected.size()) << "read by vectors, after commit " << c;
    for (size_t r = 0; r < columnar.size(); ++r) {
      ASSERT_EQ(columnar[r], expected[r]) << "read by vectors, after commit " << c << ", row " << r << ":\n  read  "
                                          << RowToString(columnar[r], t.schema.fields) << "\n  model "
                                          << RowToString(expected[r], t.schema.fields);
    }
    if (compaction && g.Chance(20)) {
      // A writer dropped in the middle of a compaction it started (a crash, as far as the table can
      // tell): nothing it did reaches the table, which stays at its last snapshot.
      ASSERT_OK_WRITE(writer->Compact(/*full=*/true));
      writer->Abort();
      auto after = testing::ReadTable(path);
      ASSERT_TRUE(after.ok()) << after.status().ToString();
      std::vector<Row> expected;
      for (const auto& [key, row] : model) expected.push_back(row);
      ASSERT_EQ(testing::SortedRows(std::move(after).value()), testing::SortedRows(std::move(expected)));
      writer = new_writer(++session);
      identifier = 0;
    } else if (g.Chance(25)) {
      writer = new_writer(++session);
      identifier = 0;
    }
  }
  if (compaction) {
    // Compaction really ran: some snapshot is a COMPACT one, and some live file sits above level 0.
    SnapshotManager snapshots(FileSystem::Local(), path);
    auto latest = snapshots.LatestId();
    ASSERT_TRUE(latest.ok() && *latest);
    int compact_snapshots = 0;
    for (int64_t id = 1; id <= **latest; ++id) {
      auto s = snapshots.Get(id);
      ASSERT_TRUE(s.ok()) << s.status().ToString();
      if (s->commit_kind == CommitKind::kCompact) ++compact_snapshots;
    }
    EXPECT_GT(compact_snapshots, 0);
  }
}

// Each seed draws its own schema (partitions, buckets, key and value types, merge engine, file size,
// stats mode, changelog producer, a partial-update sequence group with a summed column) and workload; every seed is its own test so CTest runs them in
// parallel. Seeds known to cover specific corners: two partition columns and four buckets (1),
// changelog-producer=input (2), full stats and rolling files (8), partial-update with rolling (17), stats
// mode none with one bucket (20), partial-update with four buckets (33). TIDE_MODEL_SEED=N runs one
// more seed under the name `Extra` (a soak: loop over N from a shell).
class TableWriteModelTest : public ::testing::TestWithParam<uint64_t> {};

TEST_P(TableWriteModelTest, RandomWorkloadMatchesTheModel) { RunModel(GetParam(), 6); }

INSTANTIATE_TEST_SUITE_P(Seeds, TableWriteModelTest, ::testing::Range<uint64_t>(1, 41));

// The same workloads on dynamic-bucket tables (`bucket` = -1, a small `dynamic-bucket.target-row-num`
// so that partitions spread over several buckets and writer sessions reload the HASH index).
class TableWriteDynamicBucketModelTest : public ::testing::TestWithParam<uint64_t> {};

// The workloads with compaction running beside the writes: small triggers, random strategy options,
// manual compactions at random points, writers dropped in the middle of a compaction; after every
// commit the table equals the model and no bucket has more sorted runs than the stall allows.
class TableWriteCompactionModelTest : public ::testing::TestWithParam<uint64_t> {};

TEST_P(TableWriteCompactionModelTest, RandomWorkloadMatchesTheModel) {
  RunModel(GetParam(), 12, /*dynamic_bucket=*/GetParam() % 4 == 0, /*compaction=*/true);
}

INSTANTIATE_TEST_SUITE_P(Seeds, TableWriteCompactionModelTest, ::testing::Range<uint64_t>(201, 233));

TEST_P(TableWriteDynamicBucketModelTest, RandomWorkloadMatchesTheModel) { RunModel(GetParam(), 6, true); }

INSTANTIATE_TEST_SUITE_P(Seeds, TableWriteDynamicBucketModelTest, ::testing::Range<uint64_t>(101, 113));

TEST(TableWriteModelSoak, Extra) {
  const char* n = std::getenv("TIDE_MODEL_SEED");
  if (n == nullptr) GTEST_SKIP() << "set TIDE_MODEL_SEED to run one more seed";
  RunModel(std::strtoull(n, nullptr, 10), 12);
}

}  // namespace
}  // namespace tide
