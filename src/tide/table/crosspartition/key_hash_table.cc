#include "tide/table/crosspartition/key_hash_table.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <system_error>

#include "tide/base/thread_name.h"

namespace tide {
namespace {

constexpr size_t kInitialSlots = 1024;  // a power of two
// How many entries ahead a rehash loads the slots it is about to fill.
constexpr size_t kRehashPrefetchDistance = 16;

// The fewest slots (a power of two, at least kInitialSlots) that hold `keys` keys at most 3/4 full.
size_t SlotsFor(size_t keys) {
  size_t slots = kInitialSlots;
  while (keys * 4 > slots * 3) slots *= 2;
  return slots;
}

uint32_t LoadLength(const char* p) {
  uint32_t n;
  std::memcpy(&n, p, sizeof n);
  return n;
}

}  // namespace

KeyHashTable::SlotArray::SlotArray(size_t n, bool populate_ahead) : size_(n) {
  constexpr size_t kHugePage = size_t{2} << 20;
  const size_t bytes = n * sizeof(Slot);
  if (bytes >= kHugePage) {
    // Anonymous memory comes zeroed; one huge page more, to start at a huge-page boundary.
    void* mapping = ::mmap(nullptr, bytes + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapping != MAP_FAILED) {
      mapping_ = mapping;
      mapping_bytes_ = bytes + kHugePage;
      const uintptr_t aligned = (reinterpret_cast<uintptr_t>(mapping) + kHugePage - 1) & ~(kHugePage - 1);
      data_ = reinterpret_cast<Slot*>(aligned);
      ::madvise(data_, bytes, MADV_HUGEPAGE);  // a hint: without it (or THP), 4 kB pages
      if (populate_ahead) {
#ifndef MADV_POPULATE_WRITE
        constexpr int MADV_POPULATE_WRITE = 23;  // Linux 5.14; older kernels refuse it (EINVAL): no harm
#endif
        try {
          populating_ = std::thread([data = reinterpret_cast<char*>(data_), bytes, kHugePage] {
            SetCurrentThreadName("tide-keyindex");
            // A huge page at a time: the kernel holds the process's mapping lock through one call, and
            // every mmap or munmap of the owner (a large allocation, a freed buffer) waits for it; over
            // tens of MB in one call that stalled the copy's main thread for 100-150 ms.
            for (size_t done = 0; done < bytes; done += kHugePage) {
              if (::madvise(data + done, std::min(kHugePage, bytes - done), MADV_POPULATE_WRITE) != 0) break;
            }
          });
        } catch (const std::system_error&) {
          // No thread to spare: the pages are faulted in as keys land, as without populate_ahead.
        }
      }
      return;
    }
  }
  data_ = new Slot[n]();
}

KeyHashTable::SlotArray::~SlotArray() {
  if (populating_.joinable()) populating_.join();
  if (mapping_ != nullptr) {
    ::munmap(mapping_, mapping_bytes_);
  } else {
    delete[] data_;
  }
}

void KeyHashTable::SlotArray::swap(SlotArray& other) noexcept {
  std::swap(data_, other.data_);
  std::swap(size_, other.size_);
  std::swap(mapping_, other.mapping_);
  std::swap(populating_, other.populating_);
  std::swap(mapping_bytes_, other.mapping_bytes_);
}

KeyHashTable::KeyHashTable() : slots_(kInitialSlots) {}

uint32_t KeyHashTable::Hash(std::string_view key) {
  // Eight bytes a step (a BIGINT key's BinaryRow is two), each folded in with a multiply and a shift,
  // then a final mix (SplitMix64's): keys are short, and the slot index uses the low bits. The hash
  // never leaves the process (spilled keys are sorted by their bytes), so it may change freely.
  uint64_t h = 0x9e3779b97f4a7c15ULL ^ key.size();
  const char* p = key.data();
  size_t n = key.size();
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    h = (h ^ word) * 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 31;
  }
  if (n > 0) {
    uint64_t word = 0;
    std::memcpy(&word, p, n);
    h = (h ^ word ^ (uint64_t{n} << 59)) * 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 31;
  }
  h ^= h >> 30;
  h *= 0x94d049bb133111ebULL;
  h ^= h >> 31;
  return static_cast<uint32_t>(h);
}

const char* KeyHashTable::EntryAt(uint32_t ref) const {
  const uint64_t offset = (static_cast<uint64_t>(ref) - 1) * 4;
  return chunks_[offset / kChunkBytes].get() + offset % kChunkBytes;
}

std::string_view KeyHashTable::KeyAt(uint32_t ref) const {
  const char* p = EntryAt(ref);
  return std::string_view(p + kEntryHeader, LoadLength(p));
}

static_assert(sizeof(PartitionBucket) == 8, "an entry's value is 8 bytes (kEntryHeader)");

PartitionBucket KeyHashTable::ValueAt(uint32_t ref) const {
  PartitionBucket value;
  std::memcpy(&value, EntryAt(ref) + 4, sizeof value);
  return value;
}

void KeyHashTable::SetValueAt(uint32_t ref, PartitionBucket value) {
  // The chunks are this table's own memory: writing through the entry's address is sound.
  std::memcpy(const_cast<char*>(EntryAt(ref)) + 4, &value, sizeof value);
}

size_t KeyHashTable::Probe(std::string_view key, uint32_t hash) const {
  const size_t mask = slots_.size() - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    const Slot& s = slots_[i];
    if (s.ref == 0) return i;
    if (s.hash == hash && KeyAt(s.ref) == key) return i;
  }
}

void KeyHashTable::Prefetch(uint32_t hash) const {
  __builtin_prefetch(&slots_[hash & (slots_.size() - 1)], /*rw=*/1);
}

std::optional<PartitionBucket> KeyHashTable::Find(std::string_view key, uint32_t hash) const {
  const Slot& s = slots_[Probe(key, hash)];
  if (s.ref == 0) return std::nullopt;
  return ValueAt(s.ref);
}

uint32_t KeyHashTable::Store(std::string_view key, PartitionBucket value) {
  const size_t need = (kEntryHeader + key.size() + 3) & ~size_t{3};
  if (chunk_used_ + need > kChunkBytes) {
    chunks_.push_back(std::make_unique<char[]>(kChunkBytes));
    chunk_used_ = 0;
  }
  char* p = chunks_.back().get() + chunk_used_;
  const uint32_t n = static_cast<uint32_t>(key.size());
  std::memcpy(p, &n, sizeof n);
  std::memcpy(p + 4, &value, sizeof value);
  if (!key.empty()) std::memcpy(p + kEntryHeader, key.data(), key.size());
  const uint64_t offset = (chunks_.size() - 1) * kChunkBytes + chunk_used_;
  chunk_used_ += need;
  return static_cast<uint32_t>(offset / 4 + 1);
}

void KeyHashTable::Rehash(size_t slots, bool populate_ahead) {
  SlotArray old(slots, populate_ahead);
  old.swap(slots_);
  const size_t mask = slots_.size() - 1;
  // The old slots are read in order; the new ones are written at random: each is asked for a few
  // entries before it is filled.
  for (size_t j = 0; j < old.size(); ++j) {
    if (j + kRehashPrefetchDistance < old.size()) {
      __builtin_prefetch(&slots_[old[j + kRehashPrefetchDistance].hash & mask], /*rw=*/1);
    }
    const Slot& s = old[j];
    if (s.ref == 0) continue;
    size_t i = s.hash & mask;
    while (slots_[i].ref != 0) i = (i + 1) & mask;
    slots_[i] = s;
  }
}

size_t KeyHashTable::SlotBytesFor(size_t keys) { return SlotsFor(keys) * sizeof(Slot); }

void KeyHashTable::Reserve(size_t keys) {
  const size_t slots = SlotsFor(keys);
  // Sized once for keys still to come: the pages are faulted in beside the caller, which meanwhile
  // starts its copy.
  if (slots > slots_.size()) Rehash(slots, /*populate_ahead=*/true);
}

Status KeyHashTable::Put(std::string_view key, uint32_t hash, PartitionBucket value) {
  if (key.size() > kMaxKeyBytes) {
    return Status::InvalidArgument("a primary key of {} bytes is longer than the key index holds ({} bytes)",
                                   key.size(), kMaxKeyBytes);
  }
  size_t i = Probe(key, hash);
  if (slots_[i].ref != 0) {
    SetValueAt(slots_[i].ref, value);
    return Status::OK();
  }
  if ((size_ + 1) * 4 > slots_.size() * 3) {
    Rehash(slots_.size() * 2);
    i = Probe(key, hash);
  }
  slots_[i] = Slot{Store(key, value), hash};
  ++size_;
  return Status::OK();
}

void KeyHashTable::ForEachSorted(const std::function<void(std::string_view, PartitionBucket)>& visit) const {
  std::vector<uint32_t> order;
  order.reserve(size_);
  for (uint32_t i = 0; i < slots_.size(); ++i) {
    if (slots_[i].ref != 0) order.push_back(i);
  }
  std::sort(order.begin(), order.end(),
            [&](uint32_t a, uint32_t b) { return KeyAt(slots_[a].ref) < KeyAt(slots_[b].ref); });
  for (uint32_t i : order) visit(KeyAt(slots_[i].ref), ValueAt(slots_[i].ref));
}

void KeyHashTable::Clear() {
  SlotArray fresh(kInitialSlots);
  fresh.swap(slots_);
  chunks_.clear();
  chunks_.shrink_to_fit();
  chunk_used_ = kChunkBytes;
  size_ = 0;
}

}  // namespace tide
