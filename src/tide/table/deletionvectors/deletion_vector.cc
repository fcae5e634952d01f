#include "tide/table/deletionvectors/deletion_vector.h"

#include <roaring/roaring.h>
#include <zlib.h>

#include <algorithm>
#include <bit>
#include <limits>

#include "tide/base/bytes.h"

namespace tide {
namespace {

struct BitmapDeleter {
  void operator()(roaring_bitmap_t* bitmap) const { roaring_bitmap_free(bitmap); }
};
using BitmapPtr = std::unique_ptr<roaring_bitmap_t, BitmapDeleter>;

BitmapPtr NewBitmap() { return BitmapPtr(roaring_bitmap_create()); }

uint32_t Crc32(std::string_view bytes) {
  uLong crc = crc32(0L, Z_NULL, 0);
  // zlib takes uInt lengths; entries are far below 4 GiB (their size is an int32).
  return static_cast<uint32_t>(crc32(crc, reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uInt>(bytes.size())));
}

// ------------------------------------------------------------------------------------------------
// The portable RoaringBitmap format (github.com/RoaringBitmap/RoaringFormatSpec), validated in full
// before CRoaring sees it: CRoaring's "safe" deserializer stays within the buffer but trusts the
// containers (a bitset whose stated cardinality differs from its bits, unsorted arrays, overlapping
// runs), and later operations on such a bitmap can write out of bounds.

constexpr uint32_t kSerialCookieNoRunContainer = 12346;
constexpr uint32_t kSerialCookie = 12347;
constexpr uint32_t kNoOffsetThreshold = 4;
constexpr uint32_t kMaxArrayCardinality = 4096;
constexpr size_t kBitsetBytes = 8192;

// Returns the number of bytes the bitmap at the start of `data` occupies, or a description of what is
// wrong with it.
Result<size_t> ValidatePortableBitmap(std::string_view data) {
  ByteReader in(data, "roaring bitmap");
  TIDE_ASSIGN_OR_RETURN(const uint32_t cookie, in.ReadLE<uint32_t>());
  uint32_t size = 0;
  bool has_runs = false;
  std::string_view run_flags;
  if ((cookie & 0xffff) == kSerialCookie) {
    has_runs = true;
    size = (cookie >> 16) + 1;
    TIDE_ASSIGN_OR_RETURN(run_flags, in.ReadBytes((size + 7) / 8));
  } else if (cookie == kSerialCookieNoRunContainer) {
    TIDE_ASSIGN_OR_RETURN(size, in.ReadLE<uint32_t>());
    if (size > 65536) return Status::Corruption("roaring bitmap claims {} containers, at most 65536 exist", size);
  } else {
    return Status::Corruption("roaring bitmap has unknown cookie {:#x}", cookie);
  }
  TIDE_ASSIGN_OR_RETURN(std::string_view descriptive, in.ReadBytes(size_t{size} * 4));
  if (!has_runs || size >= kNoOffsetThreshold) TIDE_RETURN_IF_ERROR(in.Skip(size_t{size} * 4));

  int32_t previous_key = -1;
  for (uint32_t i = 0; i < size; ++i) {
    const uint16_t key = LoadLE<uint16_t>(descriptive.data() + 4 * i);
    const uint32_t cardinality = uint32_t{LoadLE<uint16_t>(descriptive.data() + 4 * i + 2)} + 1;
    if (static_cast<int32_t>(key) <= previous_key) {
      return Status::Corruption("roaring bitmap container keys are not increasing ({} after {})", key, previous_key);
    }
    previous_key = key;
    const bool is_run = has_runs && ((static_cast<uint8_t>(run_flags[i / 8]) >> (i % 8)) & 1);
    if (is_run) {
      TIDE_ASSIGN_OR_RETURN(const uint16_t num_runs, in.ReadLE<uint16_t>());
      TIDE_ASSIGN_OR_RETURN(std::string_view runs, in.ReadBytes(size_t{num_runs} * 4));
      uint32_t total = 0;
      int32_t previous_end = -1;
      for (uint32_t r = 0; r < num_runs; ++r) {
        const uint32_t start = LoadLE<uint16_t>(runs.data() + 4 * r);
        const uint32_t length = LoadLE<uint16_t>(runs.data() + 4 * r + 2);
        if (static_cast<int32_t>(start) <= previous_end || start + length > 0xffff) {
          return Status::Corruption("roaring run container {} has overlapping or out-of-range runs", key);
        }
        previous_end = static_cast<int32_t>(start + length);
        total += length + 1;
      }
      if (total != cardinality) {
        return Status::Corruption("roaring run container {} holds {} values but its header says {}", key, total,
                                  cardinality);
      }
    } else if (cardinality <= kMaxArrayCardinality) {
      TIDE_ASSIGN_OR_RETURN(std::string_view values, in.ReadBytes(size_t{cardinality} * 2));
      int32_t previous = -1;
      for (uint32_t v = 0; v < cardinality; ++v) {
        const uint16_t value = LoadLE<uint16_t>(values.data() + 2 * v);
        if (static_cast<int32_t>(value) <= previous) {
          return Status::Corruption("roaring array container {} is not strictly increasing", key);
        }
        previous = value;
      }
    } else {
      TIDE_ASSIGN_OR_RETURN(std::string_view words, in.ReadBytes(kBitsetBytes));
      uint32_t bits = 0;
      for (size_t w = 0; w < kBitsetBytes; w += 8) bits += std::popcount(LoadLE<uint64_t>(words.data() + w));
      if (bits != cardinality) {
        return Status::Corruption("roaring bitset container {} has {} bits set but its header says {}", key, bits,
                                  cardinality);
      }
    }
  }
  return in.position();
}

// Deserializes exactly `data` (validated first) into a CRoaring bitmap.
Result<BitmapPtr> DeserializeBitmap(std::string_view data, bool allow_trailing_bytes, size_t* consumed) {
  TIDE_ASSIGN_OR_RETURN(const size_t size, ValidatePortableBitmap(data));
  if (!allow_trailing_bytes && size != data.size()) {
    return Status::Corruption("roaring bitmap takes {} bytes of the {} its entry holds", size, data.size());
  }
  BitmapPtr bitmap(roaring_bitmap_portable_deserialize_safe(data.data(), size));
  if (!bitmap) return Status::Corruption("roaring bitmap of {} bytes does not deserialize", size);
  if (consumed) *consumed = size;
  return bitmap;
}

// The portable form of an empty bitmap: the no-run cookie and zero containers.
constexpr char kEmptyPortableBitmap[8] = {0x3a, 0x30, 0, 0, 0, 0, 0, 0};

// A copy of `bitmap` run-optimized as Java's runOptimize() does before serializing.
BitmapPtr RunOptimizedCopy(const roaring_bitmap_t* bitmap) {
  BitmapPtr optimized(roaring_bitmap_copy(bitmap));
  roaring_bitmap_run_optimize(optimized.get());
  return optimized;
}

void AppendPortableBitmap(const roaring_bitmap_t* bitmap, std::string* out) {
  const size_t size = roaring_bitmap_portable_size_in_bytes(bitmap);
  const size_t start = out->size();
  out->resize(start + size);
  roaring_bitmap_portable_serialize(bitmap, out->data() + start);
}

constexpr uint64_t kMaxEntryBytes = static_cast<uint64_t>(std::numeric_limits<int32_t>::max()) - 8;

}  // namespace

struct DeletionVector::Container {
  uint32_t key = 0;
  BitmapPtr bitmap;
};

DeletionVector::DeletionVector() = default;
DeletionVector::~DeletionVector() = default;
DeletionVector::DeletionVector(DeletionVector&& other) noexcept = default;
DeletionVector& DeletionVector::operator=(DeletionVector&& other) noexcept = default;

DeletionVector DeletionVector::Clone() const {
  DeletionVector copy;
  copy.containers_.reserve(containers_.size());
  for (const Container& c : containers_) copy.containers_.push_back(Container{c.key, BitmapPtr(roaring_bitmap_copy(c.bitmap.get()))});
  return copy;
}

roaring_bitmap_t* DeletionVector::FindBitmap(uint32_t key) const {
  if (containers_.size() == 1) return containers_[0].key == key ? containers_[0].bitmap.get() : nullptr;
  auto it = std::lower_bound(containers_.begin(), containers_.end(), key,
                             [](const Container& c, uint32_t k) { return c.key < k; });
  return it != containers_.end() && it->key == key ? it->bitmap.get() : nullptr;
}

roaring_bitmap_t* DeletionVector::BitmapFor(uint32_t key) {
  auto it = std::lower_bound(containers_.begin(), containers_.end(), key,
                             [](const Container& c, uint32_t k) { return c.key < k; });
  if (it != containers_.end() && it->key == key) return it->bitmap.get();
  return containers_.insert(it, Container{key, NewBitmap()})->bitmap.get();
}

void DeletionVector::Delete(int64_t position) { (void)CheckedDelete(position); }

bool DeletionVector::CheckedDelete(int64_t position) {
  if (position < 0) return false;  // REQUIRES position >= 0; never stored
  roaring_bitmap_t* bitmap = BitmapFor(static_cast<uint32_t>(static_cast<uint64_t>(position) >> 32));
  return roaring_bitmap_add_checked(bitmap, static_cast<uint32_t>(position));
}

void DeletionVector::Merge(const DeletionVector& other) {
  for (const Container& c : other.containers_) roaring_bitmap_or_inplace(BitmapFor(c.key), c.bitmap.get());
}

bool DeletionVector::IsDeleted(int64_t position) const {
  if (position < 0) return false;
  const roaring_bitmap_t* bitmap = FindBitmap(static_cast<uint32_t>(static_cast<uint64_t>(position) >> 32));
  return bitmap != nullptr && roaring_bitmap_contains(bitmap, static_cast<uint32_t>(position));
}

int64_t DeletionVector::Cardinality() const {
  uint64_t total = 0;
  for (const Container& c : containers_) total += roaring_bitmap_get_cardinality(c.bitmap.get());
  return static_cast<int64_t>(total);
}

std::vector<int64_t> DeletionVector::DeletedPositions() const {
  std::vector<int64_t> positions;
  positions.reserve(static_cast<size_t>(Cardinality()));
  std::vector<uint32_t> values;
  for (const Container& c : containers_) {
    values.resize(roaring_bitmap_get_cardinality(c.bitmap.get()));
    roaring_bitmap_to_uint32_array(c.bitmap.get(), values.data());
    for (uint32_t v : values) positions.push_back(static_cast<int64_t>((uint64_t{c.key} << 32) | v));
  }
  return positions;
}

bool DeletionVector::operator==(const DeletionVector& other) const {
  auto non_empty = [](const DeletionVector& dv) {
    std::vector<const Container*> out;
    for (const Container& c : dv.containers_) {
      if (!roaring_bitmap_is_empty(c.bitmap.get())) out.push_back(&c);
    }
    return out;
  };
  const std::vector<const Container*> a = non_empty(*this), b = non_empty(other);
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i]->key != b[i]->key || !roaring_bitmap_equals(a[i]->bitmap.get(), b[i]->bitmap.get())) return false;
  }
  return true;
}

Result<DeletionVector> DeletionVector::Deserialize(std::string_view entry, int64_t meta_length, std::string_view file) {
  auto corrupt = [&](const Status& st) {
    return Status::Corruption("deletion vector in index file {}: {}", file, st.message());
  };
  if (entry.size() < 8) {
    return corrupt(Status::Corruption("truncated: {} bytes, the size and magic alone take 8", entry.size()));
  }
  const int32_t size = LoadBE<int32_t>(entry.data());
  const int32_t magic = LoadBE<int32_t>(entry.data() + 4);
  const bool is32 = magic == kBitmapDeletionVectorMagic;
  const bool is64 = ByteSwap(magic) == kBitmap64DeletionVectorMagic;
  if (!is32 && !is64) {
    return corrupt(Status::Corruption("bad magic {} (a 32-bit vector has {}, a 64-bit one {} read as little-endian)",
                                      magic, kBitmapDeletionVectorMagic, kBitmap64DeletionVectorMagic));
  }
  // The size int counts the magic and the bitmap. Meta length: that size (32-bit) or the whole entry.
  const int64_t expected_size = meta_length < 0 ? size : (is32 ? meta_length : meta_length - 8);
  if (size != expected_size) {
    return corrupt(Status::Corruption("entry size {} does not match the index manifest's length {}", size, meta_length));
  }
  if (size < 4) return corrupt(Status::Corruption("entry size {} is smaller than its magic", size));
  if (static_cast<uint64_t>(size) + 8 > entry.size()) {
    return corrupt(Status::Corruption("truncated: entry needs {} bytes, {} are left", int64_t{size} + 8, entry.size()));
  }
  const std::string_view data = entry.substr(4, static_cast<size_t>(size));  // magic + bitmap
  const uint32_t stored_crc = LoadBE<uint32_t>(entry.data() + 4 + size);
  const uint32_t actual_crc = Crc32(data);
  if (stored_crc != actual_crc) {
    return corrupt(Status::Corruption("CRC32 mismatch: stored {:#010x}, computed {:#010x}", stored_crc, actual_crc));
  }

  DeletionVector dv;
  const std::string_view bitmap_bytes = data.substr(4);
  if (is32) {
    Result<BitmapPtr> bitmap = DeserializeBitmap(bitmap_bytes, /*allow_trailing_bytes=*/false, nullptr);
    if (!bitmap.ok()) return corrupt(bitmap.status());
    dv.containers_.push_back(Container{0, std::move(bitmap).value()});
    return dv;
  }
  // 64-bit: LE int64 count, then (LE int32 key, bitmap) with increasing keys.
  ByteReader in(bitmap_bytes, "64-bit roaring bitmap");
  Result<int64_t> count = in.ReadLE<int64_t>();
  if (!count.ok()) return corrupt(count.status());
  if (*count < 0 || *count > std::numeric_limits<int32_t>::max()) {
    return corrupt(Status::Corruption("invalid bitmap count {}", *count));
  }
  int64_t previous_key = -1;
  for (int64_t i = 0; i < *count; ++i) {
    Result<int32_t> key = in.ReadLE<int32_t>();
    if (!key.ok()) return corrupt(key.status());
    if (*key < 0 || *key > std::numeric_limits<int32_t>::max() - 1 || *key <= previous_key) {
      return corrupt(Status::Corruption("invalid or unordered bitmap key {} after {}", *key, previous_key));
    }
    previous_key = *key;
    size_t consumed = 0;
    Result<BitmapPtr> bitmap =
        DeserializeBitmap(bitmap_bytes.substr(in.position()), /*allow_trailing_bytes=*/true, &consumed);
    if (!bitmap.ok()) return corrupt(bitmap.status().WithContext(fmt::format("bitmap of key {}", *key)));
    (void)in.Skip(consumed);
    dv.containers_.push_back(Container{static_cast<uint32_t>(*key), std::move(bitmap).value()});
  }
  if (!in.AtEnd()) {
    return corrupt(Status::Corruption("{} bytes follow the last of {} bitmaps", in.remaining(), *count));
  }
  return dv;
}

Result<std::string> DeletionVector::Serialize(DeletionVectorFormat format, int32_t* meta_length) const {
  std::string entry;
  AppendBE<int32_t>(&entry, 0);  // size, set below
  if (format == DeletionVectorFormat::kBitmap32) {
    const roaring_bitmap_t* bitmap = nullptr;
    for (const Container& c : containers_) {
      if (c.key == 0) {
        bitmap = c.bitmap.get();
      } else if (!roaring_bitmap_is_empty(c.bitmap.get())) {
        return Status::InvalidArgument("deletion vector has positions above 2^32; it needs the 64-bit format "
                                       "(deletion-vectors.bitmap64)");
      }
    }
    if (bitmap && !roaring_bitmap_is_empty(bitmap) && roaring_bitmap_maximum(bitmap) > 0x7fffffffu) {
      return Status::InvalidArgument("deletion vector position {} exceeds 2147483647, the 32-bit format's limit",
                                     roaring_bitmap_maximum(bitmap));
    }
    AppendBE<int32_t>(&entry, kBitmapDeletionVectorMagic);
    if (bitmap) {
      BitmapPtr optimized = RunOptimizedCopy(bitmap);
      if (roaring_bitmap_portable_size_in_bytes(optimized.get()) + 8 > kMaxEntryBytes) {
        return Status::InvalidArgument("deletion vector serializes to more than 2 GiB");
      }
      AppendPortableBitmap(optimized.get(), &entry);
    } else {
      entry.append(kEmptyPortableBitmap, sizeof(kEmptyPortableBitmap));
    }
  } else {
    // Java keeps a dense array of bitmaps for keys 0..max and writes every one, empty ones included.
    const uint64_t count = containers_.empty() ? 0 : uint64_t{containers_.back().key} + 1;
    std::vector<BitmapPtr> optimized;
    optimized.reserve(containers_.size());
    uint64_t total = 4 + 8 + count * (4 + sizeof(kEmptyPortableBitmap));  // as if all were empty
    for (const Container& c : containers_) {
      optimized.push_back(RunOptimizedCopy(c.bitmap.get()));
      total += roaring_bitmap_portable_size_in_bytes(optimized.back().get()) - sizeof(kEmptyPortableBitmap);
    }
    if (count > static_cast<uint64_t>(std::numeric_limits<int32_t>::max()) || total > kMaxEntryBytes) {
      return Status::InvalidArgument("deletion vector with positions up to key {} serializes to more than 2 GiB",
                                     count);
    }
    entry.reserve(4 + total + 4);
    AppendLE<int32_t>(&entry, kBitmap64DeletionVectorMagic);
    AppendLE<int64_t>(&entry, static_cast<int64_t>(count));
    size_t next = 0;
    for (uint64_t key = 0; key < count; ++key) {
      AppendLE<int32_t>(&entry, static_cast<int32_t>(key));
      if (next < containers_.size() && containers_[next].key == key) {
        AppendPortableBitmap(optimized[next++].get(), &entry);
      } else {
        entry.append(kEmptyPortableBitmap, sizeof(kEmptyPortableBitmap));
      }
    }
  }
  const int32_t size = static_cast<int32_t>(entry.size() - 4);  // magic + bitmap
  StoreBE<int32_t>(entry.data(), size);
  AppendBE<uint32_t>(&entry, Crc32(std::string_view(entry).substr(4)));
  if (meta_length) *meta_length = format == DeletionVectorFormat::kBitmap32 ? size : size + 8;
  return entry;
}

Result<DeletionVector> ReadDeletionVector(std::string_view index_file_bytes, int64_t offset, int64_t length,
                                          std::string_view file) {
  if (index_file_bytes.empty()) return Status::Corruption("deletion vector index file {} is empty", file);
  if (static_cast<uint8_t>(index_file_bytes[0]) != kDeletionVectorIndexFileVersion) {
    return Status::Corruption("deletion vector index file {} has version {}, expected {}", file,
                              static_cast<uint8_t>(index_file_bytes[0]), kDeletionVectorIndexFileVersion);
  }
  if (offset < 1 || length < 0 || static_cast<uint64_t>(offset) >= index_file_bytes.size()) {
    return Status::Corruption("deletion vector at offset {} (length {}) lies outside index file {} of {} bytes",
                              offset, length, file, index_file_bytes.size());
  }
  return DeletionVector::Deserialize(index_file_bytes.substr(static_cast<size_t>(offset)), length,
                                     fmt::format("{} at offset {}", file, offset));
}

Result<DeletionVector> ReadDeletionVector(FileSystem* fs, const std::string& index_path, int64_t offset,
                                          int64_t length) {
  if (offset < 1 || length < 8) {
    return Status::Corruption("deletion vector in index file {}: offset {} and length {} cannot hold an entry",
                              index_path, offset, length);
  }
  // Both formats' entries start within the first `length` bytes; a 32-bit entry has 8 more (its size
  // and CRC ints are not counted in the meta length).
  TIDE_ASSIGN_OR_RETURN(std::string entry, fs->ReadRange(index_path, static_cast<uint64_t>(offset),
                                                         static_cast<uint64_t>(length)));
  if (LoadBE<int32_t>(entry.data() + 4) == kBitmapDeletionVectorMagic) {
    TIDE_ASSIGN_OR_RETURN(std::string tail, fs->ReadRange(index_path, static_cast<uint64_t>(offset + length), 8));
    entry += tail;
  }
  return DeletionVector::Deserialize(entry, length, fmt::format("{} at offset {}", index_path, offset));
}

Result<std::vector<std::pair<std::string, DeletionVector>>> ReadDeletionVectorIndexFile(
    std::string_view index_file_bytes, const std::vector<DeletionVectorMeta>& metas, std::string_view file) {
  std::vector<std::pair<std::string, DeletionVector>> vectors;
  vectors.reserve(metas.size());
  for (const DeletionVectorMeta& meta : metas) {
    Result<DeletionVector> dv = ReadDeletionVector(index_file_bytes, meta.offset, meta.length, file);
    if (!dv.ok()) return dv.status().WithContext(fmt::format("data file {}", meta.data_file_name));
    if (meta.cardinality && *meta.cardinality != dv->Cardinality()) {
      return Status::Corruption("deletion vector of data file {} in index file {} holds {} positions, the index "
                                "manifest says {}",
                                meta.data_file_name, file, dv->Cardinality(), *meta.cardinality);
    }
    vectors.emplace_back(meta.data_file_name, std::move(dv).value());
  }
  return vectors;
}

DeletionVectorIndexFileWriter::DeletionVectorIndexFileWriter(DeletionVectorFormat format) : format_(format) {
  bytes_.push_back(static_cast<char>(kDeletionVectorIndexFileVersion));
}

Status DeletionVectorIndexFileWriter::Add(std::string data_file_name, const DeletionVector& vector) {
  for (const DeletionVectorMeta& meta : metas_) {
    if (meta.data_file_name == data_file_name) {
      return Status::InvalidArgument("deletion vector index file already holds a vector for data file {}",
                                     data_file_name);
    }
  }
  int32_t length = 0;
  TIDE_ASSIGN_OR_RETURN(std::string entry, vector.Serialize(format_, &length));
  if (bytes_.size() + entry.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
    return Status::InvalidArgument("deletion vector index file would pass 2 GiB; roll to a new file");
  }
  DeletionVectorMeta meta;
  meta.data_file_name = std::move(data_file_name);
  meta.offset = static_cast<int32_t>(bytes_.size());
  meta.length = length;
  meta.cardinality = vector.Cardinality();
  bytes_ += entry;
  metas_.push_back(std::move(meta));
  return Status::OK();
}

}  // namespace tide
