// Corrupt and truncated container files: every failure is a Corruption status that names the file,
// never a crash or a read out of bounds (run this binary under valgrind or ASan to check the latter).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/temp_dir.h"
#include "tide/base/bytes.h"
#include "tide/codec/avro_reader.h"
#include "tide/codec/avro_writer.h"
#include "tide/io/file_system.h"

namespace tide {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

const std::string kName = "/warehouse/t/manifest/manifest-corrupt-0";

std::string Fixture(const std::string& relative) {
  auto data = FileSystem::Local()->ReadFile(testing::JavaFixtureWarehouse() + "/" + relative);
  EXPECT_TRUE(data.ok()) << data.status().ToString();
  return data.ok() ? *data : std::string();
}

// Opens and reads everything; returns the first error, or OK with the number of values.
Status ReadEverything(std::string data, size_t* count = nullptr) {
  auto reader = AvroReader::Open(std::move(data), kName);
  if (!reader.ok()) return reader.status();
  auto all = (*reader)->ReadAll();
  if (!all.ok()) return all.status();
  if (count) *count = all->size();
  return Status::OK();
}

// A container file with the null codec and hand-made block bytes.
std::string HandMadeFile(std::string_view schema, int64_t count, std::string_view block) {
  AvroWriterOptions options;
  options.codec = AvroCodec::kNull;
  options.sync_marker = std::string(16, '\x5a');
  auto writer = AvroWriter::Create(schema, options);
  EXPECT_TRUE(writer.ok()) << writer.status().ToString();
  std::string file = *(*writer)->Finish();
  // Block header varints, written by a long-encoding datum of the writer.
  auto long_schema = AvroSchema::Parse(R"("long")");
  std::string header;
  EXPECT_TRUE(EncodeAvroDatum(long_schema->root(), AvroValue::Long(count), &header).ok());
  EXPECT_TRUE(EncodeAvroDatum(long_schema->root(), AvroValue::Long(static_cast<int64_t>(block.size())), &header).ok());
  return file + header + std::string(block) + std::string(16, '\x5a');
}

void ExpectCorruption(const Status& s, std::string_view what) {
  ASSERT_FALSE(s.ok()) << "expected a Corruption mentioning: " << what;
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_THAT(s.message(), StartsWith(kName + ":"));
  EXPECT_THAT(s.message(), HasSubstr(what));
}

size_t HeaderEnd(const std::string& data) {
  auto reader = AvroReader::Open(data, kName);
  EXPECT_TRUE(reader.ok());
  std::string_view sync((*reader)->sync_marker().data(), 16);
  return data.find(sync) + 16;
}

TEST(AvroCorruptionTest, TruncatedRealManifestsAtEveryLength) {
  const std::string files[] = {
      "pk_09.db/pk_09/manifest/manifest-8cf79434-32e4-4029-bf8e-befe856d268f-1",
      "pk_09.db/pk_09/manifest/manifest-list-c63559b0-8ebb-4bf9-8e0c-91062d5e7391-14",
      "pk_09.db/pk_09/manifest/index-manifest-03e2700b-8409-499b-8c27-a09ccee9348c-0",
      "pk_table_scan_and_read_mor.db/pk_table_scan_and_read_mor/manifest/manifest-daefb1fa-3081-4c75-aabf-66cd37e05e33-2",
  };
  for (const auto& relative : files) {
    const std::string data = Fixture(relative);
    ASSERT_GT(data.size(), 100u);
    size_t full = 0;
    ASSERT_TRUE(ReadEverything(data, &full).ok());
    ASSERT_GT(full, 0u);
    {
      // Java wrote these small files as one block, so the only valid cut is right after the header.
      auto reader = AvroReader::Open(data, kName);
      ASSERT_TRUE(reader.ok());
      ASSERT_TRUE((*reader)->ReadAll().ok());
      ASSERT_EQ((*reader)->blocks_read(), 1);
    }
    const size_t header_end = HeaderEnd(data);
    for (size_t len = 0; len < data.size(); ++len) {
      size_t count = 0;
      Status s = ReadEverything(data.substr(0, len), &count);
      if (len == header_end) {
        // Cut right after the header: a valid file with no blocks.
        EXPECT_TRUE(s.ok()) << s.ToString();
        EXPECT_EQ(count, 0u);
        continue;
      }
      ASSERT_FALSE(s.ok()) << relative << " cut at " << len << " read " << count << " values";
      EXPECT_TRUE(s.IsCorruption()) << s.ToString();
      EXPECT_THAT(s.message(), StartsWith(kName + ": ")) << len;
    }
  }
}

TEST(AvroCorruptionTest, FlippedBytesNeverCrash) {
  const std::string data = Fixture("pk_09.db/pk_09/manifest/manifest-8cf79434-32e4-4029-bf8e-befe856d268f-7");
  int corruptions = 0;
  for (size_t i = 0; i < data.size(); ++i) {
    for (uint8_t mask : {0x01, 0x80, 0xff}) {
      std::string bad = data;
      bad[i] = static_cast<char>(bad[i] ^ mask);
      Status s = ReadEverything(bad);
      if (s.ok()) continue;  // e.g. a changed character inside a string or the compressed payload
      // A flipped codec name is a codec Tide does not know; everything else is corruption.
      EXPECT_TRUE(s.IsCorruption() || s.IsNotSupported()) << i << ": " << s.ToString();
      EXPECT_THAT(s.message(), StartsWith(kName + ": ")) << i;
      ++corruptions;
    }
  }
  EXPECT_GT(corruptions, static_cast<int>(data.size()));
}

TEST(AvroCorruptionTest, HeaderDamage) {
  const std::string data = Fixture("pk_09.db/pk_09/manifest/manifest-8cf79434-32e4-4029-bf8e-befe856d268f-0");
  std::string bad = data;
  bad[0] = 'X';
  ExpectCorruption(ReadEverything(bad), "not an Avro container file");
  ExpectCorruption(ReadEverything(""), "not an Avro container file");
  ExpectCorruption(ReadEverything("Obj"), "not an Avro container file");

  // The header's sync marker no longer matches the block's.
  bad = data;
  size_t header_end = HeaderEnd(data);
  bad[header_end - 3] ^= 0x10;
  ExpectCorruption(ReadEverything(bad), "sync marker after the block does not match");

  // The block's sync marker damaged.
  bad = data;
  bad[bad.size() - 1] ^= 0x10;
  ExpectCorruption(ReadEverything(bad), "sync marker after the block does not match");

  // Bytes after the last block that are not a block.
  ExpectCorruption(ReadEverything(data + "\x02"), "block 2");

  // No avro.schema.
  std::string no_schema = std::string("Obj\x01", 4) + "\x02" "\x08" "user" "\x02" "x" + std::string(1, '\0') +
                          std::string(16, 's');
  ExpectCorruption(ReadEverything(no_schema), "no avro.schema");

  // A schema that is not Avro.
  std::string bad_schema = std::string("Obj\x01", 4) + "\x02" "\x16" "avro.schema" "\x06" "{x}" + std::string(1, '\0') +
                           std::string(16, 's');
  ExpectCorruption(ReadEverything(bad_schema), "avro.schema is not a valid schema");

  // Metadata count far beyond the bytes.
  std::string huge_count = std::string("Obj\x01", 4) + "\xfe\xff\xff\xff\x0f" + std::string(20, 'a');
  ExpectCorruption(ReadEverything(huge_count), "metadata entries");

  // A metadata value length past the end.
  std::string long_value = std::string("Obj\x01", 4) + "\x02" "\x16" "avro.schema" "\xfe\x01" "\"long\"";
  ExpectCorruption(ReadEverything(long_value), "truncated");
}

TEST(AvroCorruptionTest, BlockFramingDamage) {
  const std::string schema = R"({"type":"record","name":"r","fields":[{"name":"s","type":"string"}]})";
  ExpectCorruption(ReadEverything(HandMadeFile(schema, -1, "\x02" "a")), "object count -1 is negative");
  // A block size varint that overflows: eleven continuation bytes.
  std::string file = HandMadeFile(R"("long")", 0, "");
  std::string header_only = file.substr(0, file.size() - 2 - 16);
  ExpectCorruption(ReadEverything(header_only + "\x02" + std::string(11, '\xff')), "overflows 64 bits");
  ExpectCorruption(ReadEverything(header_only + "\x02" + std::string(9, '\xff') + "\x02"), "overflows 64 bits");
  ExpectCorruption(ReadEverything(header_only + "\x02" "\x03"), "block byte size -2 is negative");
  ExpectCorruption(ReadEverything(header_only + "\x02" "\xc8\x01" "abc"), "the block data");
  // More objects than the block's bytes could hold (each string takes at least one byte).
  ExpectCorruption(ReadEverything(HandMadeFile(schema, 5, "\x02" "a")), "claims 5 objects but holds only 2 bytes");
  // Bytes left over after the block's objects.
  ExpectCorruption(ReadEverything(HandMadeFile(schema, 1, "\x02" "a" "zz")), "has 2 bytes left after its 1 objects");
  // Zero-byte objects cannot be bounded by bytes: an absurd count is refused.
  ExpectCorruption(ReadEverything(HandMadeFile(R"("null")", int64_t{1} << 40, "")), "claims 1099511627776 objects");
  // A block that does not decompress.
  AvroWriterOptions zstd;
  zstd.sync_marker = std::string(16, '\x5a');
  auto writer = AvroWriter::Create(R"("long")", zstd);
  ASSERT_TRUE(writer.ok());
  std::string zfile = *(*writer)->Finish() + "\x02" "\x08" "junk" + std::string(16, '\x5a');
  ExpectCorruption(ReadEverything(zfile), "zstandard block does not decompress");
  Status s = ReadEverything(zfile);
  EXPECT_THAT(s.message(), HasSubstr("block 1 at offset"));
}

TEST(AvroCorruptionTest, DatumDamageNamesTheField) {
  const std::string schema = R"({"type":"record","name":"r","fields":[
    {"name":"id","type":"long"},
    {"name":"name","type":"string"},
    {"name":"kind","type":{"type":"enum","name":"K","symbols":["A","B"]}},
    {"name":"opt","type":["null","int"]},
    {"name":"flag","type":"boolean"},
    {"name":"tags","type":{"type":"array","items":"string"}},
    {"name":"d","type":"double"}]})";
  // A valid datum: id 1, name "ab", kind B, opt 5, flag true, tags ["x"], d 0.0.
  const std::string good = std::string("\x02" "\x04" "ab" "\x02" "\x02\x0a" "\x01" "\x02\x02" "x" "\x00", 12) + std::string(8, '\0');
  size_t count = 0;
  ASSERT_TRUE(ReadEverything(HandMadeFile(schema, 1, good), &count).ok());
  EXPECT_EQ(count, 1u);

  auto with = [&](size_t offset, std::string_view replacement, size_t replaced) {
    std::string block = good;
    block.replace(offset, replaced, replacement);
    return ReadEverything(HandMadeFile(schema, 1, block));
  };
  ExpectCorruption(with(1, "\x03", 1), "field name: string length -2 is negative");
  ExpectCorruption(with(1, "\x7e", 1), "field name: string length 63 runs past the end of the block");
  ExpectCorruption(with(4, "\x04", 1), "field kind: enum index 2 is out of range");
  ExpectCorruption(with(5, "\x04", 1), "field opt: union branch index 2 is out of range");
  ExpectCorruption(with(5, "\x01", 1), "field opt: union branch index -1 is out of range");
  ExpectCorruption(with(7, "\x02", 1), "field flag: boolean byte 0x02 is neither 0 nor 1");
  ExpectCorruption(with(6, "\xff\xff\xff\xff\x1f", 1), "field opt: varint for an int overflows 32 bits");
  ExpectCorruption(with(0, std::string(11, '\xff'), 1), "field id: varint for a long overflows 64 bits");
  ExpectCorruption(with(9, "\x7e", 1), "field tags[0]: string length 63 runs past");
  ExpectCorruption(with(8, "\x7e", 1), "field tags: array block claims 63 items");
  ExpectCorruption(with(8, "\x01\x7f", 1), "field tags: array or map block size -64 is negative");
  // Cut inside the double: the block still claims one object.
  std::string cut = good.substr(0, good.size() - 3);
  ExpectCorruption(ReadEverything(HandMadeFile(schema, 1, cut)), "field d: truncated: a double needs 8 bytes");
  // The message says where: file, block, object.
  Status s = with(4, "\x04", 1);
  EXPECT_THAT(s.message(), HasSubstr("block 1 at offset"));
  EXPECT_THAT(s.message(), HasSubstr("object 1 of 1"));
}

TEST(AvroCorruptionTest, DeepRecursionIsRefused) {
  // A linked list whose data claims a hundred thousand nested nodes.
  const std::string schema = R"({"type":"record","name":"Node","fields":[{"name":"next","type":["null","Node"]}]})";
  std::string block(100000, '\x02');
  block += '\0';
  ExpectCorruption(ReadEverything(HandMadeFile(schema, 1, block)), "nests deeper than");
  // Nesting within the limit is fine.
  std::string shallow(50, '\x02');
  shallow += '\0';
  size_t count = 0;
  EXPECT_TRUE(ReadEverything(HandMadeFile(schema, 1, shallow), &count).ok());
  EXPECT_EQ(count, 1u);
}

TEST(AvroCorruptionTest, ArrayOfNullsWithAnAbsurdCountIsRefused) {
  const std::string schema = R"({"type":"array","items":"null"})";
  std::string block = "\x80\x80\x80\x80\x80\x80\x01";  // 2^41 items of zero bytes
  block += '\0';
  ExpectCorruption(ReadEverything(HandMadeFile(schema, 1, block)), "array block claims");
  // Nor can many blocks of a large count add up past the cap.
  std::string many_blocks;
  for (int i = 0; i < 5; ++i) many_blocks += "\x80\x80\x60";  // 2^19 + 2^18 items each
  many_blocks += '\0';
  ExpectCorruption(ReadEverything(HandMadeFile(schema, 1, many_blocks)), "array block claims");
  // A modest count of nulls is legitimate.
  size_t count = 0;
  EXPECT_TRUE(ReadEverything(HandMadeFile(schema, 1, std::string("\x14\x00", 2)), &count).ok());
}

TEST(AvroCorruptionTest, AfterAnErrorTheReaderStaysFailed) {
  const std::string schema = R"("string")";
  auto reader = AvroReader::Open(HandMadeFile(schema, 2, "\x02" "a" "\x7e"), kName);
  ASSERT_TRUE(reader.ok());
  AvroValue v;
  auto first = (*reader)->Next(&v);
  ASSERT_TRUE(first.ok());
  EXPECT_TRUE(*first);
  EXPECT_EQ(v.string_value(), "a");
  auto second = (*reader)->Next(&v);
  ASSERT_FALSE(second.ok());
  auto third = (*reader)->Next(&v);
  ASSERT_FALSE(third.ok());
  EXPECT_EQ(third.status().message(), second.status().message());
}

}  // namespace
}  // namespace tide
