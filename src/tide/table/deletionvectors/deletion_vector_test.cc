#include "tide/table/deletionvectors/deletion_vector.h"

#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "testing/temp_dir.h"
#include "tide/base/bytes.h"
#include "tide/io/file_system.h"
#include "tide/table/manifest/manifest.h"

namespace tide {
namespace {

namespace fs = std::filesystem;

std::string Hex(std::string_view hex) {
  Result<std::string> bytes = HexDecode(hex);
  EXPECT_TRUE(bytes.ok()) << hex;
  return bytes.ok() ? *bytes : std::string();
}

DeletionVector Of(std::initializer_list<int64_t> positions) {
  DeletionVector dv;
  for (int64_t p : positions) dv.Delete(p);
  return dv;
}

DeletionVectorMeta Meta(std::string name, int32_t offset, int32_t length, std::optional<int64_t> cardinality = {}) {
  DeletionVectorMeta m;
  m.data_file_name = std::move(name);
  m.offset = offset;
  m.length = length;
  m.cardinality = cardinality;
  return m;
}

std::string Pk09Dir() { return testing::JavaFixtureWarehouse() + "/pk_09.db/pk_09"; }

// PAIMON_FORMAT.md §7.2: the real 32-bit entry of pk_09 that deletes row 0, in its one-vector index file
// (version byte, size 22, magic, a roaring array container holding 0, CRC).
constexpr std::string_view kPk09EntryFileHex =
    "01 00000016 5e43f2d0 3a300000 01000000 0000 0000 10000000 0000 e33060d3";

TEST(DeletionVectorTest, Pk09EntryDeletesRowZero) {
  const std::string file = Hex(kPk09EntryFileHex);
  Result<DeletionVector> dv = ReadDeletionVector(file, 1, 22, "index-pk09");
  ASSERT_TRUE(dv.ok()) << dv.status().ToString();
  EXPECT_EQ(dv->Cardinality(), 1);
  EXPECT_TRUE(dv->IsDeleted(0));
  EXPECT_FALSE(dv->IsDeleted(1));
  EXPECT_FALSE(dv->IsDeleted(int64_t{1} << 32));
  EXPECT_EQ(dv->DeletedPositions(), std::vector<int64_t>{0});
  // Tide writes the same bytes and the same meta length.
  int32_t length = 0;
  EXPECT_EQ(HexEncode(Of({0}).Serialize(DeletionVectorFormat::kBitmap32, &length).value()),
            HexEncode(file.substr(1)));
  EXPECT_EQ(length, 22);
}

// The DV index files of pk_09 (tests/fixtures/paimon-java), with the ranges its index manifests
// index-manifest-03e2700b-...-0 and -1 give. Bitmaps hand-decoded from the roaring bytes: an array
// container with one value (0, 0 and 4).
TEST(DeletionVectorTest, Pk09IndexFiles) {
  FileSystem* local = FileSystem::Local();
  const std::string dir = Pk09Dir() + "/index/";
  const std::string name0 = "index-ff7801ad-df90-49b2-9619-586eab9c68e3-0";
  const std::string bytes0 = local->ReadFile(dir + name0).value();
  ASSERT_EQ(bytes0.size(), 61u);
  const std::vector<DeletionVectorMeta> metas0 = {
      Meta("data-0f3a001e-ce2f-4f01-bb47-08d9901cb76c-1.parquet", 1, 22),
      Meta("data-0f3a001e-ce2f-4f01-bb47-08d9901cb76c-0.parquet", 31, 22)};
  auto vectors = ReadDeletionVectorIndexFile(bytes0, metas0, name0);
  ASSERT_TRUE(vectors.ok()) << vectors.status().ToString();
  ASSERT_EQ(vectors->size(), 2u);
  for (const auto& [file, dv] : *vectors) EXPECT_EQ(dv.DeletedPositions(), std::vector<int64_t>{0}) << file;

  // The same through ranged reads of the file.
  Result<DeletionVector> second = ReadDeletionVector(local, dir + name0, 31, 22);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(second->DeletedPositions(), std::vector<int64_t>{0});

  const std::string name1 = "index-ff7801ad-df90-49b2-9619-586eab9c68e3-1";
  Result<DeletionVector> dv1 = ReadDeletionVector(local, dir + name1, 1, 22);
  ASSERT_TRUE(dv1.ok()) << dv1.status().ToString();
  EXPECT_EQ(dv1->DeletedPositions(), std::vector<int64_t>{4});
  EXPECT_TRUE(dv1->IsDeleted(4));
  EXPECT_FALSE(dv1->IsDeleted(0));

  // Writing the same vectors in the same order gives Java's file and ranges.
  DeletionVectorIndexFileWriter writer;
  ASSERT_TRUE(writer.Add(metas0[0].data_file_name, Of({0})).ok());
  ASSERT_TRUE(writer.Add(metas0[1].data_file_name, Of({0})).ok());
  EXPECT_EQ(HexEncode(writer.bytes()), HexEncode(bytes0));
  ASSERT_EQ(writer.metas().size(), 2u);
  EXPECT_EQ(writer.metas()[0].offset, 1);
  EXPECT_EQ(writer.metas()[0].length, 22);
  EXPECT_EQ(writer.metas()[1].offset, 31);
  EXPECT_EQ(writer.metas()[1].length, 22);
  EXPECT_EQ(writer.metas()[1].cardinality, 1);
  EXPECT_EQ(writer.size(), 61);

  // An index file without vectors is the version byte alone (index-...-2, _ROW_COUNT 0).
  const std::string bytes2 = local->ReadFile(dir + "index-ff7801ad-df90-49b2-9619-586eab9c68e3-2").value();
  EXPECT_EQ(bytes2, DeletionVectorIndexFileWriter().bytes());
  EXPECT_TRUE(ReadDeletionVectorIndexFile(bytes2, {}, "index-2").value().empty());
}

// Every DV index file of every fixture table, as its index manifests describe it (read with the
// project's manifest reader): each vector decodes, has the manifest's cardinality where one is
// recorded, and Tide's writer reproduces the file byte for byte.
TEST(DeletionVectorTest, AllFixtureIndexFilesDecodeAndReencodeIdentically) {
  FileSystem* local = FileSystem::Local();
  int files_checked = 0;
  int vectors_checked = 0;
  for (const fs::directory_entry& db : fs::directory_iterator(testing::JavaFixtureWarehouse())) {
    for (const fs::directory_entry& table : fs::directory_iterator(db.path())) {
      const fs::path manifest_dir = table.path() / "manifest";
      if (!fs::is_directory(manifest_dir)) continue;
      for (const fs::directory_entry& m : fs::directory_iterator(manifest_dir)) {
        if (m.path().filename().string().rfind("index-manifest-", 0) != 0) continue;
        Result<std::vector<IndexManifestEntry>> entries = ReadIndexManifest(local, m.path().string());
        if (entries.status().IsNotSupported()) continue;  // an ORC manifest
        ASSERT_TRUE(entries.ok()) << m.path() << ": " << entries.status().ToString();
        for (const IndexManifestEntry& e : *entries) {
          if (e.index_type != kDeletionVectorsIndexType) continue;
          // The file is in index/ or (index-file-in-data-file-dir) in a bucket folder; external ones are
          // not part of the fixtures.
          fs::path path = table.path() / "index" / e.file_name;
          if (!fs::exists(path)) {
            for (const fs::directory_entry& f : fs::recursive_directory_iterator(table.path())) {
              if (f.path().filename() == e.file_name) path = f.path();
            }
          }
          if (!fs::exists(path)) continue;
          const std::string bytes = local->ReadFile(path.string()).value();
          EXPECT_EQ(static_cast<int64_t>(bytes.size()), e.file_size) << path;
          const std::vector<DeletionVectorMeta> metas = e.deletion_vectors.value_or(std::vector<DeletionVectorMeta>{});
          EXPECT_EQ(static_cast<int64_t>(metas.size()), e.row_count) << path;
          auto vectors = ReadDeletionVectorIndexFile(bytes, metas, path.string());
          ASSERT_TRUE(vectors.ok()) << vectors.status().ToString();
          DeletionVectorIndexFileWriter writer;
          for (const auto& [name, dv] : *vectors) {
            EXPECT_GT(dv.Cardinality(), 0) << name;
            ASSERT_TRUE(writer.Add(name, dv).ok());
            ++vectors_checked;
          }
          EXPECT_EQ(HexEncode(writer.bytes()), HexEncode(bytes)) << path;
          for (size_t i = 0; i < metas.size(); ++i) {
            EXPECT_EQ(writer.metas()[i].offset, metas[i].offset) << path;
            EXPECT_EQ(writer.metas()[i].length, metas[i].length) << path;
          }
          ++files_checked;
        }
      }
    }
  }
  EXPECT_GE(files_checked, 10);
  EXPECT_GE(vectors_checked, 15);
}

// apache/paimon paimon-core/src/test/resources/compatibility/dvindex-32 and dvindex-64 (Apache-2.0):
// Java-written index files with two vectors, {2, 3} then {1}; DeletionVectorsIndexFileTest reads them
// with lengths 24, 22 (32-bit) and 44, 42 (64-bit).
constexpr std::string_view kJavaDvIndex32Hex =
    "01"
    "00000018 5e43f2d0 3a300000 01000000 0000 0100 10000000 0200 0300 c898f63d"
    "00000016 5e43f2d0 3a300000 01000000 0000 0000 10000000 0100 fa2b5192";
constexpr std::string_view kJavaDvIndex64Hex =
    "01"
    "00000024 d1d33964 0100000000000000 00000000 3a300000 01000000 0000 0100 10000000 0200 0300 7a813847"
    "00000022 d1d33964 0100000000000000 00000000 3a300000 01000000 0000 0000 10000000 0100 eebd85f4";

TEST(DeletionVectorTest, JavaGoldenIndexFiles) {
  for (DeletionVectorFormat format : {DeletionVectorFormat::kBitmap32, DeletionVectorFormat::kBitmap64}) {
    const bool is64 = format == DeletionVectorFormat::kBitmap64;
    const std::string golden = Hex(is64 ? kJavaDvIndex64Hex : kJavaDvIndex32Hex);
    const std::vector<DeletionVectorMeta> metas = {
        Meta("dv1", 1, is64 ? 44 : 24, 2), Meta("dv2", is64 ? 45 : 33, is64 ? 42 : 22, 1)};
    auto vectors = ReadDeletionVectorIndexFile(golden, metas, "dvindex");
    ASSERT_TRUE(vectors.ok()) << vectors.status().ToString();
    EXPECT_EQ((*vectors)[0].second.DeletedPositions(), (std::vector<int64_t>{2, 3}));
    EXPECT_EQ((*vectors)[1].second.DeletedPositions(), (std::vector<int64_t>{1}));

    DeletionVectorIndexFileWriter writer(format);
    ASSERT_TRUE(writer.Add("dv1", Of({2, 3})).ok());
    ASSERT_TRUE(writer.Add("dv2", Of({1})).ok());
    EXPECT_EQ(HexEncode(writer.bytes()), HexEncode(golden));
    for (size_t i = 0; i < 2; ++i) {
      EXPECT_EQ(writer.metas()[i].offset, metas[i].offset);
      EXPECT_EQ(writer.metas()[i].length, metas[i].length);
      EXPECT_EQ(writer.metas()[i].cardinality, metas[i].cardinality);
    }
  }
}

// A 64-bit vector built by hand per Bitmap64DeletionVector's layout: positions in keys 0, 1 and 3 (key 2
// empty but still written, as Java's dense bitmap array is).
TEST(DeletionVectorTest, Bitmap64LayoutAcrossKeys) {
  const int64_t k1 = int64_t{1} << 32;
  DeletionVector dv = Of({5, 0, k1 + 7, 3 * k1});
  std::string expected_data = Hex(
      "d1d33964 0400000000000000"
      "00000000 3a300000 01000000 0000 0100 10000000 0000 0500"  // key 0: {0, 5}
      "01000000 3a300000 01000000 0000 0000 10000000 0700"       // key 1: {7}
      "02000000 3a300000 00000000"                                // key 2: empty
      "03000000 3a300000 01000000 0000 0000 10000000 0000");     // key 3: {0}
  int32_t length = 0;
  const std::string entry = dv.Serialize(DeletionVectorFormat::kBitmap64, &length).value();
  ASSERT_EQ(entry.size(), 4 + expected_data.size() + 4);
  EXPECT_EQ(LoadBE<int32_t>(entry.data()), static_cast<int32_t>(expected_data.size()));
  EXPECT_EQ(HexEncode(entry.substr(4, expected_data.size())), HexEncode(expected_data));
  EXPECT_EQ(length, static_cast<int32_t>(entry.size()));  // 64-bit meta length counts the whole entry

  Result<DeletionVector> back = DeletionVector::Deserialize(entry, length, "built");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->DeletedPositions(), (std::vector<int64_t>{0, 5, k1 + 7, 3 * k1}));
  EXPECT_TRUE(back->IsDeleted(k1 + 7));
  EXPECT_FALSE(back->IsDeleted(7));
  EXPECT_FALSE(back->IsDeleted(2 * k1 + 7));
  EXPECT_EQ(back->Cardinality(), 4);
  EXPECT_TRUE(*back == dv);
  // Such a vector cannot be written in the 32-bit format.
  EXPECT_TRUE(dv.Serialize(DeletionVectorFormat::kBitmap32).status().IsInvalidArgument());
  EXPECT_TRUE(Of({int64_t{1} << 31}).Serialize(DeletionVectorFormat::kBitmap32).status().IsInvalidArgument());
  EXPECT_TRUE(Of({(int64_t{1} << 31) - 1}).Serialize(DeletionVectorFormat::kBitmap32).ok());
}

TEST(DeletionVectorTest, RunsAreRunLengthEncodedAsJavaDoes) {
  DeletionVector dv;
  for (int64_t p = 0; p < 10000; ++p) dv.Delete(p);
  const std::string entry = dv.Serialize(DeletionVectorFormat::kBitmap32).value();
  // Cookie 12347 with one container, run flags, key 0 with cardinality-1 9999, one run [0, +9999].
  EXPECT_EQ(HexEncode(entry.substr(4, entry.size() - 8)), "5e43f2d0" "3b300000" "01" "00000f27" "0100" "00000f27");
  Result<DeletionVector> back = DeletionVector::Deserialize(entry, static_cast<int64_t>(entry.size()) - 8, "runs");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->Cardinality(), 10000);
  EXPECT_TRUE(back->IsDeleted(9999));
  EXPECT_FALSE(back->IsDeleted(10000));
}

TEST(DeletionVectorTest, BitsetContainersRoundTrip) {
  DeletionVector dv;
  for (int64_t p = 0; p < 20000; p += 3) dv.Delete(p);  // 6667 values in one container: a bitset
  for (DeletionVectorFormat format : {DeletionVectorFormat::kBitmap32, DeletionVectorFormat::kBitmap64}) {
    int32_t length = 0;
    const std::string entry = dv.Serialize(format, &length).value();
    Result<DeletionVector> back = DeletionVector::Deserialize(entry, length, "bitset");
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_TRUE(*back == dv);
    EXPECT_EQ(back->Cardinality(), 6667);
    EXPECT_TRUE(back->IsDeleted(19998));
    EXPECT_FALSE(back->IsDeleted(19999));
  }
}

TEST(DeletionVectorTest, SetOperations) {
  DeletionVector dv;
  EXPECT_TRUE(dv.IsEmpty());
  EXPECT_FALSE(dv.IsDeleted(0));
  EXPECT_TRUE(dv.CheckedDelete(7));
  EXPECT_FALSE(dv.CheckedDelete(7));
  EXPECT_FALSE(dv.IsDeleted(-1));
  DeletionVector other = Of({1, int64_t{5} << 32});
  dv.Merge(other);
  EXPECT_EQ(dv.DeletedPositions(), (std::vector<int64_t>{1, 7, int64_t{5} << 32}));
  DeletionVector copy = dv.Clone();
  copy.Delete(2);
  EXPECT_EQ(dv.Cardinality(), 3);
  EXPECT_EQ(copy.Cardinality(), 4);
  EXPECT_FALSE(copy == dv);
  DeletionVector moved = std::move(copy);
  EXPECT_TRUE(moved.IsDeleted(2));
  // An empty vector serializes as an empty bitmap in either format and reads back empty.
  for (DeletionVectorFormat format : {DeletionVectorFormat::kBitmap32, DeletionVectorFormat::kBitmap64}) {
    int32_t length = 0;
    const std::string entry = DeletionVector().Serialize(format, &length).value();
    EXPECT_TRUE(DeletionVector::Deserialize(entry, length, "empty").value().IsEmpty());
  }
}

TEST(DeletionVectorTest, WriterRejectsDuplicatesAndOversizedPositions) {
  DeletionVectorIndexFileWriter writer;
  ASSERT_TRUE(writer.Add("a.parquet", Of({1})).ok());
  EXPECT_TRUE(writer.Add("a.parquet", Of({2})).IsInvalidArgument());
  EXPECT_TRUE(writer.Add("b.parquet", Of({int64_t{1} << 33})).IsInvalidArgument());
  EXPECT_EQ(writer.metas().size(), 1u);
  EXPECT_EQ(writer.size(), 1 + 30);
}

// ------------------------------------------------------------------------------------------------
// Corrupt input

// Returns `entry` with its CRC recomputed over the (modified) magic + bitmap, so that only the content
// check can reject it.
std::string WithFixedCrc(std::string entry) {
  const int32_t size = LoadBE<int32_t>(entry.data());
  // java.util.zip.CRC32 (reflected polynomial 0xedb88320), computed bit by bit independently of zlib.
  uint32_t crc = 0xffffffffu;
  for (int32_t i = 0; i < size; ++i) {
    crc ^= static_cast<uint8_t>(entry[4 + i]);
    for (int b = 0; b < 8; ++b) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1)));
  }
  StoreBE<uint32_t>(entry.data() + 4 + size, ~crc);
  return entry;
}

TEST(DeletionVectorCorruptionTest, CrcHelperMatchesWriter) {
  const std::string entry = Of({2, 3}).Serialize(DeletionVectorFormat::kBitmap32).value();
  std::string zeroed = entry;
  StoreBE<uint32_t>(zeroed.data() + zeroed.size() - 4, 0);
  EXPECT_EQ(WithFixedCrc(zeroed), entry);
}

TEST(DeletionVectorCorruptionTest, BadMagicCrcAndSizesNameTheFile) {
  const std::string file = Hex(kPk09EntryFileHex);
  std::string bad_magic = file;
  bad_magic[5] ^= 0x01;
  Status st = ReadDeletionVector(bad_magic, 1, 22, "index-abc-0").status();
  ASSERT_TRUE(st.IsCorruption());
  EXPECT_NE(st.message().find("index-abc-0"), std::string::npos) << st.ToString();
  EXPECT_NE(st.message().find("magic"), std::string::npos) << st.ToString();

  for (size_t i = 9; i < file.size(); ++i) {  // every bitmap and CRC byte
    std::string flipped = file;
    flipped[i] ^= 0x20;
    Status s = ReadDeletionVector(flipped, 1, 22, "index-abc-0").status();
    ASSERT_TRUE(s.IsCorruption()) << i;
    EXPECT_NE(s.message().find("CRC32"), std::string::npos) << i << ": " << s.ToString();
  }
  // The index manifest's length must match the entry's size.
  EXPECT_TRUE(ReadDeletionVector(file, 1, 23, "f").status().IsCorruption());
  // Version byte, offsets outside the file.
  std::string version2 = file;
  version2[0] = 2;
  EXPECT_TRUE(ReadDeletionVector(version2, 1, 22, "f").status().IsCorruption());
  EXPECT_TRUE(ReadDeletionVector(file, 0, 22, "f").status().IsCorruption());
  EXPECT_TRUE(ReadDeletionVector(file, 31, 22, "f").status().IsCorruption());
  EXPECT_TRUE(ReadDeletionVector(file, -5, 22, "f").status().IsCorruption());
  EXPECT_TRUE(ReadDeletionVector("", 1, 22, "f").status().IsCorruption());
  // A size int that does not even cover the magic.
  EXPECT_TRUE(DeletionVector::Deserialize(Hex("00000002 5e43f2d0 00000000"), -1, "f").status().IsCorruption());
}

TEST(DeletionVectorCorruptionTest, EveryTruncationIsCorruption) {
  DeletionVector dv = Of({1, 2, 3, 100000, (int64_t{1} << 32) + 9});
  for (DeletionVectorFormat format : {DeletionVectorFormat::kBitmap32, DeletionVectorFormat::kBitmap64}) {
    DeletionVector source = format == DeletionVectorFormat::kBitmap32 ? Of({1, 2, 3, 100000}) : dv.Clone();
    int32_t length = 0;
    const std::string entry = source.Serialize(format, &length).value();
    for (size_t n = 0; n < entry.size(); ++n) {
      Status with_length = DeletionVector::Deserialize(std::string_view(entry).substr(0, n), length, "t").status();
      EXPECT_TRUE(with_length.IsCorruption()) << n << ": " << with_length.ToString();
      Status without = DeletionVector::Deserialize(std::string_view(entry).substr(0, n), -1, "t").status();
      EXPECT_TRUE(without.IsCorruption()) << n;
    }
    EXPECT_TRUE(DeletionVector::Deserialize(entry, length, "t").value() == source);
    // Through a file cut short at every length.
    std::string file = std::string(1, '\x01') + entry;
    for (size_t n = 0; n < file.size(); ++n) {
      EXPECT_TRUE(ReadDeletionVector(std::string_view(file).substr(0, n), 1, length, "t").status().IsCorruption()) << n;
    }
  }
}

TEST(DeletionVectorCorruptionTest, TruncatedFileOnDisk) {
  testing::TempDir dir;
  FileSystem* local = FileSystem::Local();
  const std::string full = Hex(kPk09EntryFileHex);
  for (size_t n : {size_t{5}, size_t{20}, size_t{27}, full.size() - 1}) {
    const std::string path = dir.path() + "/index-" + std::to_string(n);
    ASSERT_TRUE(local->WriteFileAtomic(path, std::string_view(full).substr(0, n)).ok());
    Status st = ReadDeletionVector(local, path, 1, 22).status();
    EXPECT_FALSE(st.ok()) << n;
    EXPECT_TRUE(st.IsCorruption() || st.IsIOError()) << n << ": " << st.ToString();
  }
  const std::string path = dir.path() + "/index-full";
  ASSERT_TRUE(local->WriteFileAtomic(path, full).ok());
  EXPECT_TRUE(ReadDeletionVector(local, path, 1, 22).value().IsDeleted(0));
  EXPECT_TRUE(ReadDeletionVector(local, path, 1, 4).status().IsCorruption());
}

// Bitmaps whose CRC is right but whose roaring content is invalid are rejected before CRoaring uses them.
TEST(DeletionVectorCorruptionTest, InvalidRoaringContentWithValidCrc) {
  auto entry32 = [](std::string_view bitmap_hex) {
    const std::string bitmap = Hex(bitmap_hex);
    std::string entry;
    AppendBE<int32_t>(&entry, static_cast<int32_t>(4 + bitmap.size()));
    AppendBE<int32_t>(&entry, kBitmapDeletionVectorMagic);
    entry += bitmap;
    AppendBE<uint32_t>(&entry, 0);
    return WithFixedCrc(entry);
  };
  auto rejects = [&](std::string_view bitmap_hex) {
    Status st = DeletionVector::Deserialize(entry32(bitmap_hex), -1, "bad").status();
    return st.IsCorruption();
  };
  EXPECT_FALSE(rejects("3a300000 01000000 0000 0000 10000000 0500"));  // valid: {5}
  EXPECT_TRUE(rejects("39300000 01000000 0000 0000 10000000 0500"));   // unknown cookie
  EXPECT_TRUE(rejects("3a300000 01000200 0000 0000 10000000 0500"));   // 131073 containers
  EXPECT_TRUE(rejects("3a300000 01000000 0000 0100 10000000 0500 0500"));  // array not increasing
  EXPECT_TRUE(rejects("3a300000 01000000 0000 0100 10000000 0600 0500"));  // array decreasing
  EXPECT_TRUE(rejects("3a300000 02000000 0100 0000 0000 0000 18000000 1a000000 0500 0500"));  // keys decrease
  EXPECT_TRUE(rejects("3a300000 01000000 0000 0000 10000000 0500 0000"));  // trailing bytes
  // A bitset container (cardinality 4097) whose bits do not add up to its cardinality.
  EXPECT_TRUE(rejects("3a300000 01000000 0000 0010 10000000" + std::string(16384, 'f')));
  EXPECT_TRUE(rejects("3a300000 01000000 0000 0010 10000000" + std::string(16384, '0')));
  // Run containers: overlapping runs, a run past 65535, a header cardinality that disagrees.
  EXPECT_TRUE(rejects("3b300000 01 0000 0900 0200 0000 0400 0200 0400"));
  EXPECT_TRUE(rejects("3b300000 01 0000 0100 0100 ffff 0100"));
  EXPECT_TRUE(rejects("3b300000 01 0000 0500 0100 0000 0400"));
  EXPECT_FALSE(rejects("3b300000 01 0000 0400 0100 0000 0400"));  // valid: {0..4}

  // 64-bit: unordered keys, negative count, trailing bytes.
  auto entry64 = [](std::string_view data_hex) {
    const std::string data = Hex(data_hex);
    std::string entry;
    AppendBE<int32_t>(&entry, static_cast<int32_t>(4 + data.size()));
    AppendLE<int32_t>(&entry, kBitmap64DeletionVectorMagic);
    entry += data;
    AppendBE<uint32_t>(&entry, 0);
    return WithFixedCrc(entry);
  };
  EXPECT_TRUE(DeletionVector::Deserialize(entry64("0200000000000000 01000000 3a30000000000000 00000000 3a30000000000000"),
                                          -1, "bad").status().IsCorruption());
  EXPECT_TRUE(DeletionVector::Deserialize(entry64("ffffffffffffffff"), -1, "bad").status().IsCorruption());
  EXPECT_TRUE(DeletionVector::Deserialize(entry64("0100000000000000 ffffffff 3a30000000000000"), -1, "bad")
                  .status().IsCorruption());
  EXPECT_TRUE(DeletionVector::Deserialize(entry64("0000000000000000 00"), -1, "bad").status().IsCorruption());
  EXPECT_TRUE(DeletionVector::Deserialize(entry64("0000000000000000"), -1, "ok").value().IsEmpty());
}

TEST(DeletionVectorCorruptionTest, CardinalityMismatchWithManifest) {
  const std::string file = Hex(kPk09EntryFileHex);
  Status st = ReadDeletionVectorIndexFile(file, {Meta("data-x.parquet", 1, 22, 2)}, "index-x").status();
  ASSERT_TRUE(st.IsCorruption());
  EXPECT_NE(st.message().find("data-x.parquet"), std::string::npos) << st.ToString();
}

TEST(DeletionVectorCorruptionTest, RandomBytesNeverCrash) {
  DeletionVector dv;
  for (int64_t p = 0; p < 300; p += 7) dv.Delete(p);
  for (int64_t p = 1000; p < 1200; ++p) dv.Delete(p);
  dv.Delete((int64_t{2} << 32) + 1);
  std::mt19937 rng(11);
  for (DeletionVectorFormat format : {DeletionVectorFormat::kBitmap32, DeletionVectorFormat::kBitmap64}) {
    DeletionVector source = dv.Clone();
    if (format == DeletionVectorFormat::kBitmap32) source = Of({0, 7, 14, 1000, 1001, 1002});
    const std::string entry = source.Serialize(format).value();
    for (int iter = 0; iter < 3000; ++iter) {
      std::string bytes = entry;
      bytes[4 + rng() % (bytes.size() - 8)] = static_cast<char>(rng());
      if (rng() % 2) bytes = WithFixedCrc(bytes);  // get past the CRC to the roaring parser
      Result<DeletionVector> r = DeletionVector::Deserialize(bytes, -1, "fuzz");
      if (r.ok()) {
        (void)r->DeletedPositions();  // a decoded vector must be safe to use
        (void)r->IsDeleted(1000);
      } else {
        EXPECT_TRUE(r.status().IsCorruption()) << r.status().ToString();
      }
    }
  }
}

}  // namespace
}  // namespace tide
