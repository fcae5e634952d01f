// KeyHashTable: the in-memory tier of the cross-partition key index: a map from a primary key's bytes
// to its (partition id, bucket), packed for millions of keys. Keys live back to back in an arena of
// fixed-size chunks (a 4-byte length, the 8-byte value, then the key's bytes); the table is open
// addressing with linear probing over 8-byte slots (arena reference, 32-bit hash), at most 3/4 full,
// doubled when fuller. The value lives beside its key: a lookup compares the key there anyway, so the
// slots stay small (fewer cache misses, half the memory to fault in). A key costs its length + 12
// bytes in the arena plus 11-22 bytes of slots, so 2 million 16-byte keys take about 90 MB, against
// several hundred for a node-based map of strings. Nothing is ever removed one by one (the index keeps
// deleted keys, as Java's does); Clear() empties it all.
//
// A lookup in a table of millions of keys misses the CPU's caches (a slot is a random 8 bytes of
// tens of MB): a caller that knows its next keys hashes them ahead (Hash) and asks for their slots
// early (Prefetch), so that the lookup finds the slot loaded; the overloads that take the hash do not
// compute it again. Reserve() sizes the table once for a known number of keys (the rows of an initial
// copy), sparing the doublings and their rehashing.
//
// Invariant: every key is stored once; memory_bytes() counts every byte the table holds.
// Thread-safety: one thread at a time; const methods may run concurrently with each other.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <thread>
#include <vector>

#include "tide/base/result.h"

namespace tide {

struct PartitionBucket {
  int32_t partition_id = 0;
  int32_t bucket = 0;
};

class KeyHashTable {
 public:
  // Keys longer than this are refused (a primary key of a megabyte is a mistake, not a key).
  static constexpr size_t kMaxKeyBytes = (1 << 20) - 12;

  KeyHashTable();

  // The hash the table files `key` under.
  static uint32_t Hash(std::string_view key);
  // A hint: loads the first slot a key of `hash` probes into the cache. Never changes the table.
  void Prefetch(uint32_t hash) const;

  std::optional<PartitionBucket> Find(std::string_view key) const { return Find(key, Hash(key)); }
  // REQUIRES: hash == Hash(key).
  std::optional<PartitionBucket> Find(std::string_view key, uint32_t hash) const;
  // Inserts `key` or overwrites its value. InvalidArgument for a key over kMaxKeyBytes.
  Status Put(std::string_view key, PartitionBucket value) { return Put(key, Hash(key), value); }
  // REQUIRES: hash == Hash(key).
  Status Put(std::string_view key, uint32_t hash, PartitionBucket value);
  // Grows the slots, if needed, to hold `keys` keys in all without growing again. The slots of n keys
  // take 8-16 bytes a key (a power of two of slots at most 3/4 full).
  void Reserve(size_t keys);
  // The bytes Reserve(keys) would give the slots.
  static size_t SlotBytesFor(size_t keys);

  size_t size() const { return size_; }
  size_t memory_bytes() const { return slot_bytes() + chunks_.size() * kChunkBytes; }
  size_t slot_bytes() const { return slots_.size() * sizeof(Slot); }

  // Calls `visit` for every entry in ascending byte order of the keys (memcmp, shorter first on a tie),
  // the order of RocksDB's default comparator.
  void ForEachSorted(const std::function<void(std::string_view key, PartitionBucket value)>& visit) const;

  // Empties the table and returns its memory.
  void Clear();

 private:
  struct Slot {
    uint32_t ref = 0;  // 1 + the entry's arena offset / 4; 0: empty
    uint32_t hash = 0;
  };
  static constexpr size_t kEntryHeader = 12;  // the key's length, then its value
  static constexpr size_t kChunkBytes = 1 << 20;

  // Zeroed slots. Arrays of 2 MiB or more are mapped on their own with transparent huge pages asked
  // for: a lookup at a random slot of tens of MB then rarely misses the TLB (with 4 kB pages nearly
  // every one does, and waits for a page walk before its cache miss). `populate_ahead`: a thread of its
  // own faults the mapping's pages in (MADV_POPULATE_WRITE) while the owner goes on, so the owner's
  // first touches of fresh memory (the kernel zeroing each page; in a virtual machine, often the host
  // backing it too) do not all land on the owner's thread. The pages keep their contents whatever the
  // order; the destructor waits for the thread.
  class SlotArray {
   public:
    explicit SlotArray(size_t n, bool populate_ahead = false);
    ~SlotArray();
    SlotArray(const SlotArray&) = delete;
    SlotArray& operator=(const SlotArray&) = delete;
    size_t size() const { return size_; }
    Slot& operator[](size_t i) { return data_[i]; }
    const Slot& operator[](size_t i) const { return data_[i]; }
    void swap(SlotArray& other) noexcept;

   private:
    Slot* data_ = nullptr;
    size_t size_ = 0;
    void* mapping_ = nullptr;  // the mapping data_ lies in, when mapped
    size_t mapping_bytes_ = 0;
    std::thread populating_;  // faults the mapping in (populate_ahead)
  };

  const char* EntryAt(uint32_t ref) const;
  std::string_view KeyAt(uint32_t ref) const;
  PartitionBucket ValueAt(uint32_t ref) const;
  void SetValueAt(uint32_t ref, PartitionBucket value);
  size_t Probe(std::string_view key, uint32_t hash) const;  // the key's slot, or the empty slot it would take
  uint32_t Store(std::string_view key, PartitionBucket value);
  // Moves every key into `slots` slots (a power of two); `populate_ahead` as SlotArray's.
  void Rehash(size_t slots, bool populate_ahead = false);

  SlotArray slots_;
  size_t size_ = 0;
  // Arena offsets are 4-byte aligned so that a 32-bit reference covers 16 GiB of keys.
  std::vector<std::unique_ptr<char[]>> chunks_;
  size_t chunk_used_ = kChunkBytes;  // bytes used in the last chunk
};

}  // namespace tide
