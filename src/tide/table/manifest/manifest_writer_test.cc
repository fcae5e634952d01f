#include "tide/table/manifest/manifest_writer.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <regex>

#include <nlohmann/json.hpp>

#include "testing/temp_dir.h"
#include "tide/codec/avro_codec.h"
#include "tide/codec/avro_reader.h"
#include "tide/codec/binary_row.h"
#include "tide/table/schema/schema_manager.h"

namespace tide {
namespace {

namespace fs = std::filesystem;

enum class ManifestKind { kManifest, kList, kIndex };

struct JavaManifestFile {
  std::string table;  // the table folder
  std::string path;
  ManifestKind kind;
  std::string schema;  // the writer schema text from the header
  std::string codec;
};

ManifestKind KindOf(const std::string& name) {
  if (name.rfind("manifest-list-", 0) == 0) return ManifestKind::kList;
  if (name.rfind("index-manifest-", 0) == 0) return ManifestKind::kIndex;
  return ManifestKind::kManifest;
}

std::string_view OurSchema(ManifestKind kind) {
  switch (kind) {
    case ManifestKind::kManifest: return kManifestEntryAvroSchema;
    case ManifestKind::kList: return kManifestFileMetaAvroSchema;
    case ManifestKind::kIndex: return kIndexManifestEntryAvroSchema;
  }
  return {};
}

// Every Avro manifest-like file of the Java-written fixture tables.
std::vector<JavaManifestFile> JavaManifestFiles() {
  std::vector<JavaManifestFile> out;
  for (const auto& db : fs::directory_iterator(testing::JavaFixtureWarehouse())) {
    if (!db.is_directory()) continue;
    for (const auto& table : fs::directory_iterator(db.path())) {
      fs::path dir = table.path() / "manifest";
      if (!fs::is_directory(dir)) continue;
      for (const auto& file : fs::directory_iterator(dir)) {
        auto data = FileSystem::Local()->ReadFile(file.path().string());
        if (!data.ok() || data->compare(0, 4, std::string("Obj\x01", 4)) != 0) continue;  // ORC manifests
        auto reader = AvroReader::Open(*data, file.path().string());
        if (!reader.ok()) continue;
        const std::string* codec = (*reader)->FindMetadata("avro.codec");
        out.push_back(JavaManifestFile{table.path().string(), file.path().string(),
                                       KindOf(file.path().filename().string()), (*reader)->schema().json(),
                                       codec ? *codec : ""});
      }
    }
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
  return out;
}

// The Java files written with the same schema as ours (Paimon 1.1 / 1.2 layout).
std::vector<JavaManifestFile> JavaFilesWithOurSchema(ManifestKind kind) {
  std::vector<JavaManifestFile> out;
  for (auto& f : JavaManifestFiles()) {
    if (f.kind == kind && nlohmann::json::parse(f.schema) == nlohmann::json::parse(OurSchema(kind))) out.push_back(f);
  }
  return out;
}

// The decompressed datum bytes of every block of an Avro container file.
std::string DatumBytes(const std::string& data) {
  size_t p = 4;
  auto varint = [&]() -> int64_t {
    uint64_t n = 0;
    int shift = 0;
    while (true) {
      uint8_t c = static_cast<uint8_t>(data.at(p++));
      n |= static_cast<uint64_t>(c & 0x7f) << shift;
      shift += 7;
      if (!(c & 0x80)) break;
    }
    return static_cast<int64_t>(n >> 1) ^ -static_cast<int64_t>(n & 1);
  };
  std::string codec_name = "null";
  while (true) {
    int64_t count = varint();
    if (count == 0) break;
    if (count < 0) {
      count = -count;
      varint();
    }
    for (int64_t i = 0; i < count; ++i) {
      int64_t kl = varint();
      std::string key = data.substr(p, kl);
      p += kl;
      int64_t vl = varint();
      if (key == "avro.codec") codec_name = data.substr(p, vl);
      p += vl;
    }
  }
  p += 16;
  AvroCodec codec = ParseAvroCodec(codec_name).value();
  std::string out;
  while (p < data.size()) {
    varint();  // object count
    int64_t size = varint();
    std::string block;
    EXPECT_TRUE(DecompressAvroBlock(codec, std::string_view(data).substr(p, size), 1 << 28, &block).ok());
    out += block;
    p += size + 16;
  }
  return out;
}

template <typename T, typename F>
std::string OurDatumBytes(ManifestKind kind, const std::vector<T>& records, F to_avro) {
  AvroSchema schema = AvroSchema::Parse(OurSchema(kind)).value();
  std::string out;
  for (const auto& r : records) {
    auto v = to_avro(r);
    EXPECT_TRUE(v.ok()) << v.status().ToString();
    EXPECT_TRUE(EncodeAvroDatum(schema.root(), *v, &out).ok());
  }
  return out;
}

// The partition types of a fixture table; nullopt for a schema Tide does not parse (e.g. BLOB columns).
std::optional<std::vector<DataType>> PartitionTypesOf(const std::string& table) {
  auto latest = SchemaManager(FileSystem::Local(), table).Latest();
  if (!latest.ok()) return std::nullopt;
  const TableSchema& schema = *latest;
  std::vector<DataType> types;
  for (const auto& k : schema.partition_keys) types.push_back(schema.fields[schema.FieldIndex(k)].type);
  return types;
}

TEST(ManifestWriterTest, SchemasAreJavasText) {
  // The text Java's Schema.toString() put in the headers of a 1.2 table, character for character.
  std::string dir = testing::JavaFixtureWarehouse() + "/pk_table_with_dv_cardinality.db/pk_table_with_dv_cardinality/manifest/";
  struct Case {
    std::string file;
    std::string_view ours;
  } cases[] = {
      {"manifest-526c8332-abbe-44b1-a4b4-8a63e5b53452-0", kManifestEntryAvroSchema},
      {"manifest-list-df9c6b50-0492-4bc4-adcf-9fed3a331b28-0", kManifestFileMetaAvroSchema},
      {"index-manifest-8ed1d9a0-f19d-498f-bfdc-41fc3f8ab506-0", kIndexManifestEntryAvroSchema},
  };
  for (const auto& c : cases) {
    auto reader = AvroReader::Open(FileSystem::Local()->ReadFile(dir + c.file).value(), c.file).value();
    EXPECT_EQ(reader->schema().json(), c.ours) << c.file;
    // The same as parsed JSON: names, types, order and defaults.
    EXPECT_EQ(nlohmann::json::parse(reader->schema().json()), nlohmann::json::parse(c.ours)) << c.file;
    // And as Java Avro prints the parsed schema.
    EXPECT_EQ(AvroSchema::Parse(c.ours).value().ToJson(), reader->schema().ToJson()) << c.file;
    EXPECT_EQ(*reader->FindMetadata("avro.codec"), "zstandard");
  }
}

TEST(ManifestWriterTest, JavaTablesOfTheSameLayoutShareOurSchemas) {
  // Many Java 1.x tables in the fixtures carry exactly these schemas; the tests below use them all.
  EXPECT_GE(JavaFilesWithOurSchema(ManifestKind::kManifest).size(), 20u);
  EXPECT_GE(JavaFilesWithOurSchema(ManifestKind::kList).size(), 100u);
  EXPECT_GE(JavaFilesWithOurSchema(ManifestKind::kIndex).size(), 4u);
}

TEST(ManifestWriterTest, OurFilesHaveJavasHeader) {
  ManifestEntry e;
  e.partition = EncodeSerializedBinaryRow({}, {}).value();
  e.file.file_name = "data-x-0.parquet";
  e.file.min_key = e.file.max_key = e.partition;
  auto bytes = EncodeManifestFile({e});
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  auto reader = AvroReader::Open(*bytes, "ours").value();
  ASSERT_EQ(reader->metadata().size(), 2u);
  EXPECT_EQ(reader->metadata()[0].first, "avro.schema");
  EXPECT_EQ(reader->metadata()[0].second, kManifestEntryAvroSchema);
  EXPECT_EQ(*reader->FindMetadata("avro.codec"), "zstandard");
}

TEST(ManifestWriterTest, JavaManifestsReencodeToTheSameDatumBytes) {
  // Every record of every Java-written file of our layout, decoded and encoded again, gives exactly
  // the datum bytes Java wrote (decompressed); the container differs only in compression and sync.
  FileSystem* local = FileSystem::Local();
  int files = 0, records = 0;
  for (const auto& f : JavaFilesWithOurSchema(ManifestKind::kManifest)) {
    auto entries = ReadManifest(local, f.path).value();
    EXPECT_EQ(OurDatumBytes(f.kind, entries, ManifestEntryToAvro), DatumBytes(local->ReadFile(f.path).value()))
        << f.path;
    ++files;
    records += static_cast<int>(entries.size());
  }
  for (const auto& f : JavaFilesWithOurSchema(ManifestKind::kList)) {
    auto metas = ReadManifestList(local, f.path).value();
    EXPECT_EQ(OurDatumBytes(f.kind, metas, ManifestFileMetaToAvro), DatumBytes(local->ReadFile(f.path).value()))
        << f.path;
    ++files;
    records += static_cast<int>(metas.size());
  }
  for (const auto& f : JavaFilesWithOurSchema(ManifestKind::kIndex)) {
    auto entries = ReadIndexManifest(local, f.path).value();
    EXPECT_EQ(OurDatumBytes(f.kind, entries, IndexManifestEntryToAvro), DatumBytes(local->ReadFile(f.path).value()))
        << f.path;
    ++files;
    records += static_cast<int>(entries.size());
  }
  EXPECT_GE(files, 120);
  EXPECT_GE(records, 150);
}

TEST(ManifestWriterTest, ManifestListRecordsMatchJavasForTheSameEntries) {
  // Writing the entries of a Java manifest gives Java's list record: counts, partition stats (min, max,
  // null counts), schema id, bucket and level ranges. Only the name and size differ.
  testing::TempDir dir;
  FileSystem* local = FileSystem::Local();
  ManifestFileNamer namer;
  int compared = 0, partitioned = 0;
  for (const auto& f : JavaFilesWithOurSchema(ManifestKind::kList)) {
    auto partition_types = PartitionTypesOf(f.table);
    if (!partition_types) continue;
    const std::vector<DataType>& types = *partition_types;
    ManifestFileWriter writer(local, dir.path(), types, &namer);
    auto java_list = ReadManifestList(local, f.path).value();
    for (const auto& java : java_list) {
      std::string manifest = f.table + "/manifest/" + java.file_name;
      auto entries = ReadManifest(local, manifest);
      if (!entries.ok()) continue;  // an ORC or later-layout manifest
      bool later_layout = false;
      for (const auto& e : *entries) later_layout |= e.file.first_row_id.has_value() || e.file.write_cols.has_value();
      if (later_layout) continue;
      auto ours = writer.WriteManifests(*entries);
      ASSERT_TRUE(ours.ok()) << manifest << ": " << ours.status().ToString();
      ASSERT_EQ(ours->size(), 1u);
      ManifestFileMeta m = (*ours)[0];
      EXPECT_EQ(m.num_added_files, java.num_added_files) << manifest;
      EXPECT_EQ(m.num_deleted_files, java.num_deleted_files) << manifest;
      EXPECT_EQ(m.partition_stats, java.partition_stats) << manifest;
      EXPECT_EQ(m.schema_id, java.schema_id) << manifest;
      EXPECT_EQ(m.min_bucket, java.min_bucket) << manifest;
      EXPECT_EQ(m.max_bucket, java.max_bucket) << manifest;
      EXPECT_EQ(m.min_level, java.min_level) << manifest;
      EXPECT_EQ(m.max_level, java.max_level) << manifest;
      // What we wrote reads back as what we described.
      EXPECT_EQ(writer.ReadManifest(m.file_name).value(), *entries);
      EXPECT_EQ(m.file_size, static_cast<int64_t>(local->Stat(writer.PathOf(m.file_name)).value().size));
      ++compared;
      if (!types.empty()) ++partitioned;
    }
  }
  EXPECT_GE(compared, 50);
  EXPECT_GE(partitioned, 10);
}

DataFileMeta FullFile() {
  DataFileMeta f;
  f.file_name = "data-9d1a-0.parquet";
  f.file_size = 12345;
  f.row_count = 77;
  std::vector<DataType> kt{DataType::BigInt(false)};
  f.min_key = EncodeSerializedBinaryRow(std::vector<Datum>{Datum(int64_t{1})}, kt).value();
  f.max_key = EncodeSerializedBinaryRow(std::vector<Datum>{Datum(int64_t{99})}, kt).value();
  f.key_stats = SimpleStats{f.min_key, f.max_key, {0}, true};
  f.value_stats = SimpleStats{"min", "max", {std::nullopt, 3, 0}, true};
  f.min_sequence_number = -5;
  f.max_sequence_number = 1LL << 40;
  f.schema_id = 3;
  f.level = 4;
  f.extra_files = {"data-9d1a-0.parquet.index", "x"};
  f.creation_time_ms = 1756116572921;
  f.delete_row_count = 2;
  f.embedded_file_index = std::string("\x01\x02\x00\xff", 4);
  f.file_source = 1;
  f.value_stats_cols = std::vector<std::string>{"a", "b"};
  f.external_path = "file:/tmp/ext/data-9d1a-0.parquet";
  return f;
}

TEST(ManifestWriterTest, ManifestEntriesRoundTrip) {
  testing::TempDir dir;
  std::vector<ManifestEntry> entries;
  ManifestEntry full{FileKind::kAdd, EncodeSerializedBinaryRow({}, {}).value(), 3, 8, FullFile()};
  entries.push_back(full);
  ManifestEntry sparse;  // every optional field absent, stats null counts null, no extra files
  sparse.kind = FileKind::kDelete;
  sparse.partition = full.partition;
  sparse.bucket = 0;
  sparse.total_buckets = -1;
  sparse.file.file_name = "data-2";
  entries.push_back(sparse);
  auto bytes = EncodeManifestFile(entries);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  std::string path = dir.path() + "/manifest-x-0";
  ASSERT_TRUE(FileSystem::Local()->WriteFileExclusive(path, *bytes).ok());
  auto back = ReadManifest(FileSystem::Local(), path);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, entries);
}

TEST(ManifestWriterTest, ManifestListRoundTrips) {
  testing::TempDir dir;
  ManifestFileMeta a;
  a.file_name = "manifest-a-0";
  a.file_size = 1900;
  a.num_added_files = 5;
  a.num_deleted_files = 2;
  a.partition_stats = SimpleStats{"min", "max", {0, std::nullopt}, true};
  a.schema_id = 7;
  a.min_bucket = 0;
  a.max_bucket = 3;
  a.min_level = 0;
  a.max_level = 5;
  ManifestFileMeta b;  // a 0.9-style record: no bucket/level ranges, null counts null
  b.file_name = "manifest-a-1";
  std::vector<ManifestFileMeta> metas{a, b};
  testing::TempDir d;
  ManifestFileNamer namer("00000000-0000-4000-8000-000000000000");
  ManifestFileWriter writer(FileSystem::Local(), d.path(), {}, &namer);
  auto list = writer.WriteManifestList(metas);
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  EXPECT_EQ(list->first, "manifest-list-00000000-0000-4000-8000-000000000000-0");
  EXPECT_EQ(list->second, static_cast<int64_t>(FileSystem::Local()->Stat(writer.PathOf(list->first))->size));
  EXPECT_EQ(writer.ReadManifestList(list->first).value(), metas);
}

TEST(ManifestWriterTest, IndexManifestRoundTrips) {
  testing::TempDir d;
  IndexManifestEntry dv;
  dv.partition = EncodeSerializedBinaryRow({}, {}).value();
  dv.bucket = 1;
  dv.index_type = "DELETION_VECTORS";
  dv.file_name = "index-u-0";
  dv.file_size = 63;
  dv.row_count = 2;
  dv.deletion_vectors = std::vector<DeletionVectorMeta>{{"data-1.parquet", 1, 22, 1}, {"data-2.parquet", 31, 24, {}}};
  IndexManifestEntry hash = dv;
  hash.index_type = "HASH";
  hash.file_name = "index-u-1";
  hash.deletion_vectors.reset();
  ManifestFileNamer namer;
  ManifestFileWriter writer(FileSystem::Local(), d.path(), {}, &namer);
  auto name = writer.WriteIndexManifest({dv, hash});
  ASSERT_TRUE(name.ok()) << name.status().ToString();
  EXPECT_EQ(writer.ReadIndexManifest(*name).value(), (std::vector<IndexManifestEntry>{dv, hash}));
}

TEST(ManifestWriterTest, RefusesWhatThe12LayoutCannotHold) {
  ManifestEntry e{FileKind::kAdd, EncodeSerializedBinaryRow({}, {}).value(), 0, 1, FullFile()};
  e.file.first_row_id = 0;
  EXPECT_TRUE(ManifestEntryToAvro(e).status().IsInvalidArgument());
  e.file.first_row_id.reset();
  e.file.write_cols = std::vector<std::string>{"a"};
  EXPECT_TRUE(ManifestEntryToAvro(e).status().IsInvalidArgument());
  e.file.write_cols.reset();
  e.kind = static_cast<FileKind>(7);
  EXPECT_TRUE(ManifestEntryToAvro(e).status().IsInvalidArgument());
  ManifestFileMeta m;
  m.min_row_id = 0;
  EXPECT_TRUE(ManifestFileMetaToAvro(m).status().IsInvalidArgument());
  IndexManifestEntry i;
  i.external_path = "/x";
  EXPECT_TRUE(IndexManifestEntryToAvro(i).status().IsInvalidArgument());
  i.external_path.reset();
  i.has_global_index = true;
  EXPECT_TRUE(IndexManifestEntryToAvro(i).status().IsInvalidArgument());
}

TEST(ManifestWriterTest, RollsOverAtTheTargetSizeEvery1000Records) {
  testing::TempDir d;
  ManifestFileNamer namer;
  ManifestWriterOptions options;
  options.target_file_size = 1;  // roll at every check
  ManifestFileWriter writer(FileSystem::Local(), d.path(), {}, &namer, options);
  std::vector<ManifestEntry> entries;
  for (int i = 0; i < 2500; ++i) {
    ManifestEntry e;
    e.kind = i % 7 == 0 ? FileKind::kDelete : FileKind::kAdd;
    e.partition = EncodeSerializedBinaryRow({}, {}).value();
    e.bucket = i % 4;
    e.total_buckets = 4;
    e.file.file_name = "data-" + std::to_string(i);
    e.file.level = i % 3;
    e.file.schema_id = i % 2;
    entries.push_back(e);
  }
  auto metas = writer.WriteManifests(entries);
  ASSERT_TRUE(metas.ok()) << metas.status().ToString();
  ASSERT_EQ(metas->size(), 3u);  // 1000 + 1000 + 500
  std::vector<ManifestEntry> back;
  int64_t added = 0, deleted = 0;
  for (const auto& m : *metas) {
    auto part = writer.ReadManifest(m.file_name).value();
    back.insert(back.end(), part.begin(), part.end());
    added += m.num_added_files;
    deleted += m.num_deleted_files;
    EXPECT_EQ(m.min_bucket, 0);
    EXPECT_EQ(m.max_bucket, 3);
    EXPECT_EQ(m.schema_id, 1);
    EXPECT_EQ(m.partition_stats.null_counts_present, true);
    EXPECT_TRUE(m.partition_stats.null_counts.empty());
  }
  EXPECT_EQ(back, entries);
  EXPECT_EQ(added + deleted, 2500);
  EXPECT_EQ(deleted, 358);
  // With the default 8 MiB target everything fits one file; no entries, no file.
  ManifestFileWriter big(FileSystem::Local(), d.path(), {}, &namer);
  EXPECT_EQ(big.WriteManifests(entries).value().size(), 1u);
  EXPECT_TRUE(big.WriteManifests({}).value().empty());
}

TEST(ManifestWriterTest, ACachedWriterKeepsEachFileItWritesAndReadsTheSameEntriesWithoutTheFile) {
  testing::TempDir d;
  ManifestFileNamer namer;
  ManifestWriterOptions options;
  options.target_file_size = 1;  // roll at every check: 1000 + 500 entries in two files
  ManifestEntryCache cache;
  ManifestFileWriter writer(FileSystem::Local(), d.path(), {}, &namer, options);
  writer.set_cache(&cache);
  std::vector<ManifestEntry> entries;
  for (int i = 0; i < 1500; ++i) {
    ManifestEntry e;
    e.kind = FileKind::kAdd;
    e.partition = EncodeSerializedBinaryRow({}, {}).value();
    e.total_buckets = 1;
    e.file.file_name = "data-" + std::to_string(i);
    entries.push_back(e);
  }
  auto metas = writer.WriteManifests(entries);
  ASSERT_TRUE(metas.ok()) << metas.status().ToString();
  ASSERT_EQ(metas->size(), 2u);
  EXPECT_EQ(cache.files(), 2u);
  EXPECT_EQ(cache.entries(), 1500u);
  // Each file's entries, as a reader without the cache decodes them from the file.
  ManifestFileWriter plain(FileSystem::Local(), d.path(), {}, &namer);
  std::vector<ManifestEntry> from_files;
  for (const auto& m : *metas) {
    auto held = cache.Find(m.file_name);
    ASSERT_NE(held, nullptr);
    EXPECT_EQ(*held, plain.ReadManifest(m.file_name).value());
    from_files.insert(from_files.end(), held->begin(), held->end());
  }
  EXPECT_EQ(from_files, entries);
  // Reads come from the cache: they still answer once the files are gone.
  for (const auto& m : *metas) std::filesystem::remove(d.path() + "/" + m.file_name);
  EXPECT_EQ(writer.ReadManifest((*metas)[1].file_name).value().size(), 500u);
  EXPECT_FALSE(plain.ReadManifest((*metas)[1].file_name).ok());
}

TEST(ManifestEntryCacheTest, KeepsAtMostItsEntriesDroppingTheFilesPutFirst) {
  auto file = [](int n) {
    std::vector<ManifestEntry> entries(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) entries[static_cast<size_t>(i)].file.file_name = "data-" + std::to_string(i);
    return std::make_shared<const std::vector<ManifestEntry>>(std::move(entries));
  };
  ManifestEntryCache cache(10);
  cache.Put("a", file(4));
  cache.Put("b", file(4));
  EXPECT_EQ(cache.entries(), 8u);
  cache.Put("c", file(4));  // 12 > 10: "a" leaves
  EXPECT_EQ(cache.Find("a"), nullptr);
  ASSERT_NE(cache.Find("b"), nullptr);
  ASSERT_NE(cache.Find("c"), nullptr);
  EXPECT_EQ(cache.entries(), 8u);
  cache.Put("huge", file(11));  // larger than the whole budget: not kept, nothing dropped
  EXPECT_EQ(cache.Find("huge"), nullptr);
  EXPECT_EQ(cache.files(), 2u);
  EXPECT_EQ(cache.Find("c")->size(), 4u);
  // Only the named files stay, with their entries counted.
  cache.Put("d", file(2));
  cache.RetainOnly({"c", "d", "never-put"});
  EXPECT_EQ(cache.Find("b"), nullptr);
  ASSERT_NE(cache.Find("c"), nullptr);
  ASSERT_NE(cache.Find("d"), nullptr);
  EXPECT_EQ(cache.files(), 2u);
  EXPECT_EQ(cache.entries(), 6u);
}

TEST(ManifestWriterTest, NamesFollowFileStorePathFactory) {
  ManifestFileNamer namer;
  std::regex uuid("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
  EXPECT_TRUE(std::regex_match(namer.uuid(), uuid)) << namer.uuid();
  EXPECT_EQ(namer.NewManifestName(), "manifest-" + namer.uuid() + "-0");
  EXPECT_EQ(namer.NewManifestName(), "manifest-" + namer.uuid() + "-1");
  EXPECT_EQ(namer.NewManifestListName(), "manifest-list-" + namer.uuid() + "-0");
  EXPECT_EQ(namer.NewIndexManifestName(), "index-manifest-" + namer.uuid() + "-0");
  EXPECT_NE(ManifestFileNamer().uuid(), namer.uuid());
}

TEST(PartitionStatsCollectorTest, KeepsJavasOrderAndNullCounts) {
  std::vector<DataType> types{DataType::Int(), DataType::String(), DataType::Double(), DataType::Bytes()};
  PartitionStatsCollector c(types);
  auto row = [&](Datum a, Datum b, Datum c2, Datum d) {
    return EncodeSerializedBinaryRow(std::vector<Datum>{a, b, c2, d}, types).value();
  };
  ASSERT_TRUE(c.Collect(row(Datum(int64_t{5}), Datum("b"), Datum(0.0), Datum("x"))).ok());
  ASSERT_TRUE(c.Collect(row(Datum(), Datum("\xc3\xa9"), Datum(-0.0), Datum("y"))).ok());
  ASSERT_TRUE(c.Collect(row(Datum(int64_t{-3}), Datum("a"), Datum(), Datum())).ok());
  SimpleStats s = c.Stats().value();
  Row min = DeserializeBinaryRow(s.min_values, types).value();
  Row max = DeserializeBinaryRow(s.max_values, types).value();
  EXPECT_EQ(min[0], Datum(int64_t{-3}));
  EXPECT_EQ(max[0], Datum(int64_t{5}));
  EXPECT_EQ(min[1], Datum("a"));
  EXPECT_EQ(max[1], Datum("\xc3\xa9"));  // unsigned bytes: 0xc3 > 'b'
  EXPECT_TRUE(std::signbit(min[2].as_double()));  // Double.compare: -0.0 < 0.0
  EXPECT_FALSE(std::signbit(max[2].as_double()));
  EXPECT_TRUE(min[3].is_null());  // byte[] is not Comparable in Java: no min/max
  EXPECT_TRUE(max[3].is_null());
  EXPECT_EQ(s.null_counts, (std::vector<std::optional<int64_t>>{1, 0, 1, 1}));
  EXPECT_TRUE(c.Collect("\x00\x00").IsCorruption());
}

}  // namespace
}  // namespace tide
