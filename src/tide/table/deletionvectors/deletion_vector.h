// DeletionVector: the set of deleted row positions (0-based) of one data file, and the DV index files
// that store them (PAIMON_FORMAT.md §7).
//
// A DV index file is a version byte 0x01 followed by one entry per data file. The index manifest gives
// each entry's (offset, length). Two entry formats exist, told apart by the magic after the size:
//   32-bit (BitmapDeletionVector, the default):
//     [BE int32 size = 4 + bitmap bytes][BE int32 magic 1581511376][portable RoaringBitmap][BE CRC32]
//     meta length = size (magic + bitmap; the size and CRC ints are not counted).
//   64-bit (Bitmap64DeletionVector, `deletion-vectors.bitmap64=true`, Iceberg's deletion-vector-v1):
//     [BE int32 size][LE int32 magic 1681511377][LE int64 count, then per 32-bit bucket of positions an
//     LE int32 key (high 32 bits) and a portable RoaringBitmap][BE CRC32]
//     meta length = the whole entry (size + 8).
// The CRC32 (java.util.zip.CRC32) covers the magic and bitmap bytes. Tide reads both formats, checks
// sizes, magic and CRC, and validates every roaring container before use, so corrupt or truncated input
// gives Status::Corruption naming the index file, never a crash. Tide writes entries byte-identical to
// Java's (bitmaps run-optimized before serialization, as Java's runOptimize does).
//
// Invariant: a DeletionVector holds its positions in 32-bit roaring bitmaps keyed by the high 32 bits,
// sorted by key, none of them invalid. Thread-safety: const methods may be called from many threads;
// mutation needs external synchronization. Move-only (it owns CRoaring bitmaps); Clone() copies.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tide/base/result.h"
#include "tide/io/file_system.h"
#include "tide/table/manifest/manifest.h"

struct roaring_bitmap_s;  // CRoaring's roaring_bitmap_t

namespace tide {

enum class DeletionVectorFormat {
  kBitmap32,  // BitmapDeletionVector: positions up to 2^31 - 1
  kBitmap64,  // Bitmap64DeletionVector
};

inline constexpr int32_t kBitmapDeletionVectorMagic = 1581511376;    // BE on disk: 5e 43 f2 d0
inline constexpr int32_t kBitmap64DeletionVectorMagic = 1681511377;  // LE on disk: d1 d3 39 64
inline constexpr uint8_t kDeletionVectorIndexFileVersion = 1;
inline constexpr std::string_view kDeletionVectorsIndexType = "DELETION_VECTORS";

class DeletionVector {
 public:
  DeletionVector();
  ~DeletionVector();
  DeletionVector(DeletionVector&& other) noexcept;
  DeletionVector& operator=(DeletionVector&& other) noexcept;
  DeletionVector(const DeletionVector&) = delete;
  DeletionVector& operator=(const DeletionVector&) = delete;
  DeletionVector Clone() const;

  // Marks `position` deleted. REQUIRES: position >= 0.
  void Delete(int64_t position);
  // Marks `position` deleted; true if it was not already. REQUIRES: position >= 0.
  bool CheckedDelete(int64_t position);
  // Adds every position of `other`.
  void Merge(const DeletionVector& other);

  bool IsDeleted(int64_t position) const;
  int64_t Cardinality() const;
  bool IsEmpty() const { return Cardinality() == 0; }
  // The deleted positions in ascending order. Materializes all of them: check Cardinality() against
  // the data file's row count first when the vector comes from an untrusted file.
  std::vector<int64_t> DeletedPositions() const;
  bool operator==(const DeletionVector& other) const;

  // Decodes one entry in either format. `entry` starts at the entry's size int and may extend past the
  // entry; `meta_length` is the length the index manifest records (f2). `file` names the index file in
  // errors.
  static Result<DeletionVector> Deserialize(std::string_view entry, int64_t meta_length, std::string_view file);

  // One entry as Java's serializeTo writes it. `meta_length`, if given, receives the length Java records
  // in the index manifest for it. InvalidArgument if a position does not fit the format (32-bit: above
  // 2^31 - 1) or the entry would pass 2 GiB (64-bit writes one bitmap per 2^32 positions up to the
  // highest, as Java does).
  Result<std::string> Serialize(DeletionVectorFormat format, int32_t* meta_length = nullptr) const;

 private:
  struct Container;  // one 32-bit roaring bitmap and its key (the high 32 bits of its positions)
  roaring_bitmap_s* FindBitmap(uint32_t key) const;
  roaring_bitmap_s* BitmapFor(uint32_t key);

  std::vector<Container> containers_;  // sorted by key
};

// Decodes the entry at (offset, length) of an index file held in memory: checks the version byte and
// that the entry lies inside the file.
Result<DeletionVector> ReadDeletionVector(std::string_view index_file_bytes, int64_t offset, int64_t length,
                                          std::string_view file);
// Reads just the entry at (offset, length) of the index file at `index_path`.
Result<DeletionVector> ReadDeletionVector(FileSystem* fs, const std::string& index_path, int64_t offset,
                                          int64_t length);
// Decodes every entry that `metas` lists (as one index manifest entry gives them) from a whole index file,
// in the order of `metas`.
Result<std::vector<std::pair<std::string, DeletionVector>>> ReadDeletionVectorIndexFile(
    std::string_view index_file_bytes, const std::vector<DeletionVectorMeta>& metas, std::string_view file);

// Builds one DV index file in memory as Java's DeletionFileWriter writes it: the version byte, then the
// entries in the order added; records each entry's DeletionVectorMeta (offset = position of its size int,
// length as Java records it, cardinality). Thread-safety: one writer per thread.
class DeletionVectorIndexFileWriter {
 public:
  explicit DeletionVectorIndexFileWriter(DeletionVectorFormat format = DeletionVectorFormat::kBitmap32);

  // Appends the vector of data file `data_file_name`. InvalidArgument if the name was already added, the
  // vector does not fit the format, or the file would pass 2 GiB.
  Status Add(std::string data_file_name, const DeletionVector& vector);
  // Bytes written so far (Java's getPos(); a caller rolls to a new file past its target size).
  int64_t size() const { return static_cast<int64_t>(bytes_.size()); }
  const std::string& bytes() const { return bytes_; }
  // One meta per added vector, in order; their count is the index manifest's _ROW_COUNT.
  const std::vector<DeletionVectorMeta>& metas() const { return metas_; }

 private:
  DeletionVectorFormat format_;
  std::string bytes_;
  std::vector<DeletionVectorMeta> metas_;
};

}  // namespace tide
