#include "tide/sync/key_range_bisection.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <random>

namespace tide {
namespace {

// A side made of rows key hash -> row hash, answering checksums the way a SQL GROUP BY would.
struct FakeSide {
  std::map<std::string, int64_t> rows;
  int calls = 0;

  ChildChecksums Checksums() {
    return [this](const std::vector<std::string>& parents) -> Result<std::map<std::string, RangeChecksum>> {
      ++calls;
      std::map<std::string, std::pair<int64_t, __int128>> sums;
      for (const auto& [key, hash] : rows) {
        for (const std::string& p : parents) {
          if (key.compare(0, p.size(), p) == 0) {
            auto& s = sums[key.substr(0, p.size() + 1)];
            ++s.first;
            s.second += hash;
          }
        }
      }
      std::map<std::string, RangeChecksum> out;
      for (const auto& [prefix, s] : sums) out[prefix] = RangeChecksum{s.first, std::to_string(static_cast<int64_t>(s.second))};
      return out;
    };
  }
};

std::string Hex(uint64_t hi, uint64_t lo) { return fmt::format("{:016x}{:016x}", hi, lo); }

FakeSide RandomSide(int n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  FakeSide side;
  for (int i = 0; i < n; ++i) side.rows[Hex(rng(), rng())] = static_cast<int64_t>(rng() >> 4);
  return side;
}

bool Covered(const std::vector<std::string>& leaves, const std::string& key) {
  for (const auto& l : leaves) {
    if (key.compare(0, l.size(), l) == 0) return true;
  }
  return false;
}

TEST(KeyRangeBisection, FindsChangedMissingAndExtraKeys) {
  FakeSide pg = RandomSide(5000, 1);
  FakeSide lake = pg;
  auto it = lake.rows.begin();
  std::advance(it, 17);
  const std::string changed = it->first;
  it->second += 1;
  std::advance(it, 1000);
  const std::string missing = it->first;
  lake.rows.erase(it);
  const std::string extra = Hex(0x123456789abcdef0ULL, 42);
  lake.rows[extra] = 7;

  BisectionSides sides{pg.Checksums(), lake.Checksums(), {}};
  auto leaves = FindDifferingRanges(sides, BisectionLimits{});
  ASSERT_TRUE(leaves.ok()) << leaves.status().ToString();
  EXPECT_LE(leaves->size(), 3u);
  EXPECT_TRUE(Covered(*leaves, changed));
  EXPECT_TRUE(Covered(*leaves, missing));
  EXPECT_TRUE(Covered(*leaves, extra));
  EXPECT_LE(pg.calls, 4);  // one query per level: 5000 rows fit a leaf of 64 after two or three splits
}

TEST(KeyRangeBisection, EqualSidesGiveNoLeaves) {
  FakeSide pg = RandomSide(300, 2);
  FakeSide lake = pg;
  auto leaves = FindDifferingRanges(BisectionSides{pg.Checksums(), lake.Checksums(), {}}, BisectionLimits{});
  ASSERT_TRUE(leaves.ok());
  EXPECT_TRUE(leaves->empty());
}

TEST(KeyRangeBisection, RangeMatchingTheLakeAfterIsSettled) {
  // PostgreSQL's snapshot lies between two lake commits: each range matches one or the other.
  FakeSide before = RandomSide(2000, 3);
  FakeSide pg = before;
  FakeSide after = before;
  auto it = after.rows.begin();
  std::advance(it, 5);
  it->second += 1;     // changed by the straddling commit, already in PostgreSQL's snapshot
  pg.rows[it->first] = it->second;
  std::advance(it, 700);
  it->second += 1;     // changed by the straddling commit, after PostgreSQL's snapshot
  auto leaves = FindDifferingRanges(BisectionSides{pg.Checksums(), before.Checksums(), after.Checksums()},
                                    BisectionLimits{});
  ASSERT_TRUE(leaves.ok());
  EXPECT_TRUE(leaves->empty());
}

TEST(KeyRangeBisection, StopsAtMaxLeaves) {
  FakeSide pg = RandomSide(4000, 4);
  FakeSide lake = pg;
  for (auto& [k, v] : lake.rows) v += 1;  // everything differs
  BisectionLimits limits;
  limits.max_leaves = 5;
  auto leaves = FindDifferingRanges(BisectionSides{pg.Checksums(), lake.Checksums(), {}}, limits);
  ASSERT_TRUE(leaves.ok());
  EXPECT_EQ(leaves->size(), 5u);
}

TEST(KeyRangeBisection, ClassifiesKeys) {
  std::vector<std::string> columns = {"id", "name", "amount"};
  KeyRows row{1, "id=1", {"a", "b", "c"}};
  KeyRows changed{1, "id=1", {"a", "x", "c"}};
  using After = std::optional<std::optional<KeyRows>>;

  EXPECT_EQ(ClassifyKey("k", row, row, std::nullopt, columns).difference, KeyDifference::kEqual);
  EXPECT_EQ(ClassifyKey("k", row, std::nullopt, std::nullopt, columns).difference, KeyDifference::kMissingInLake);
  EXPECT_EQ(ClassifyKey("k", std::nullopt, row, std::nullopt, columns).difference, KeyDifference::kExtraInLake);
  KeyVerdict v = ClassifyKey("k", row, changed, std::nullopt, columns);
  EXPECT_EQ(v.difference, KeyDifference::kDiffers);
  EXPECT_EQ(v.columns, std::vector<std::string>{"name"});
  EXPECT_EQ(v.display, "id=1");
  // With a lake version after PostgreSQL's position: matching it is equal; a key the straddling commit
  // changed is in flight; a key both lake versions agree on and PostgreSQL does not is a difference.
  EXPECT_EQ(ClassifyKey("k", row, changed, After(row), columns).difference, KeyDifference::kEqual);
  EXPECT_EQ(ClassifyKey("k", changed, row, After(std::in_place), columns).difference, KeyDifference::kInFlight);
  EXPECT_EQ(ClassifyKey("k", changed, row, After(row), columns).difference, KeyDifference::kDiffers);
  EXPECT_EQ(ClassifyKey("k", std::nullopt, row, After(row), columns).difference, KeyDifference::kExtraInLake);
  // Tables without a key: counts of the same row.
  KeyRows twice{2, "row", {"h"}};
  KeyRows once{1, "row", {"h"}};
  EXPECT_EQ(ClassifyKey("k", twice, once, std::nullopt, {"*"}).difference, KeyDifference::kMissingInLake);
  EXPECT_EQ(ClassifyKey("k", once, twice, std::nullopt, {"*"}).difference, KeyDifference::kExtraInLake);
}

}  // namespace
}  // namespace tide
