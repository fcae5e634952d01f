#include "tide/base/pod_buffer.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace tide {
namespace {

// Values pushed one at a time, past the size where the array moves into a mapping of its own and on as
// the mapping grows, read back as pushed; the capacity then holds whole pages.
TEST(PodBufferTest, ValuesSurviveGrowthIntoAndWithinAMapping) {
  PodBuffer<int64_t> buffer;
  std::vector<int64_t> expected;
  const size_t n = 3 * PodBuffer<int64_t>::kMappedBytes / sizeof(int64_t) + 123;
  for (size_t i = 0; i < n; ++i) {
    const int64_t v = static_cast<int64_t>(i * 2654435761u) - 7;
    buffer.push_back(v);
    expected.push_back(v);
    ASSERT_GE(buffer.capacity(), buffer.size());
  }
  ASSERT_EQ(buffer.size(), n);
  EXPECT_EQ(std::vector<int64_t>(buffer.data(), buffer.data() + n), expected);
  EXPECT_EQ(buffer.capacity() * sizeof(int64_t) % 4096, 0u);
  EXPECT_EQ(buffer.back(), expected.back());
}

// Appending a buffer's own values (doubling it) at each size, across the move into a mapping and the
// mapping's growth: the values read are those before the growth, though growing moved or freed them.
TEST(PodBufferTest, AppendsItsOwnValuesAcrossGrowth) {
  PodBuffer<int32_t> buffer;
  std::vector<int32_t> expected{1, 2, 3};
  buffer.Append(expected.data(), expected.size());
  while (buffer.size() * sizeof(int32_t) < 4 * PodBuffer<int32_t>::kMappedBytes) {
    buffer.Append(buffer.data() + 1, buffer.size() - 1);  // an interior start: the offset is kept
    const std::vector<int32_t> tail(expected.begin() + 1, expected.end());
    expected.insert(expected.end(), tail.begin(), tail.end());
    ASSERT_EQ(std::vector<int32_t>(buffer.data(), buffer.data() + buffer.size()), expected);
  }
}

TEST(PodBufferTest, ResizeZeroesAssignFillsAppendAdds) {
  PodBuffer<char> bytes;
  bytes.Append("abc", 3);
  bytes.resize(6);
  EXPECT_EQ(std::string(bytes.data(), bytes.size()), std::string("abc\0\0\0", 6));
  bytes.resize(2);
  EXPECT_EQ(std::string(bytes.data(), bytes.size()), "ab");
  // Shrunk and grown again: the values past the old size are zeros, not the ones shrunk away.
  bytes.resize(4);
  EXPECT_EQ(std::string(bytes.data(), bytes.size()), std::string("ab\0\0", 4));
  std::string big(PodBuffer<char>::kMappedBytes + 5, 'x');
  bytes.Append(big.data(), big.size());
  EXPECT_EQ(bytes.size(), 4 + big.size());
  EXPECT_EQ(std::string(bytes.data() + 4, big.size()), big);
  bytes.Append(nullptr, 0);
  EXPECT_EQ(bytes.size(), 4 + big.size());

  PodBuffer<uint8_t> flags;
  flags.assign(PodBuffer<uint8_t>::kMappedBytes * 2, 1);
  size_t ones = 0;
  for (size_t i = 0; i < flags.size(); ++i) ones += flags[i];
  EXPECT_EQ(ones, flags.size());
  flags.assign(3, 0);
  EXPECT_EQ(flags.size(), 3u);
  EXPECT_EQ(flags[0] + flags[1] + flags[2], 0);
  flags.clear();
  EXPECT_TRUE(flags.empty());
}

// Copies are deep and independent, for small and mapped arrays alike; moves and swaps take the storage.
TEST(PodBufferTest, CopiesAreIndependentMovesAndSwapsTakeTheStorage) {
  for (size_t n : {size_t{10}, PodBuffer<int64_t>::kMappedBytes / sizeof(int64_t) * 2}) {
    SCOPED_TRACE("values " + std::to_string(n));
    PodBuffer<int64_t> a;
    for (size_t i = 0; i < n; ++i) a.push_back(static_cast<int64_t>(i));
    PodBuffer<int64_t> b(a);
    b[0] = -1;
    EXPECT_EQ(a[0], 0);
    ASSERT_EQ(b.size(), n);
    EXPECT_EQ(b[n - 1], static_cast<int64_t>(n - 1));
    PodBuffer<int64_t> c;
    c.push_back(42);
    c = a;
    EXPECT_EQ(c.size(), n);
    EXPECT_EQ(c[n - 1], static_cast<int64_t>(n - 1));
    const PodBuffer<int64_t>& same = c;
    c = same;  // assigned itself, it keeps its values
    EXPECT_EQ(c.size(), n);
    EXPECT_EQ(c[n - 1], static_cast<int64_t>(n - 1));

    const int64_t* storage = a.data();
    PodBuffer<int64_t> moved(std::move(a));
    EXPECT_EQ(moved.data(), storage);
    EXPECT_EQ(moved.size(), n);
    EXPECT_EQ(a.size(), 0u);  // NOLINT(bugprone-use-after-move): a moved-from buffer is empty
    EXPECT_EQ(a.data(), nullptr);
    a.push_back(7);  // and usable
    EXPECT_EQ(a[0], 7);

    moved.swap(a);
    EXPECT_EQ(a.data(), storage);
    EXPECT_EQ(moved.size(), 1u);
    PodBuffer<int64_t> assigned;
    assigned = std::move(a);
    EXPECT_EQ(assigned.data(), storage);
  }
}

}  // namespace
}  // namespace tide
