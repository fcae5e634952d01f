#include "tide/postgres/snapshot_copy.h"

#include <gtest/gtest.h>

#include "tide/base/bytes.h"

namespace tide {
namespace {

std::string Header() {
  std::string h(kPgCopySignature, 11);
  AppendBE<uint32_t>(&h, 0);
  AppendBE<uint32_t>(&h, 0);
  return h;
}

void AppendRow(std::string* out, const std::vector<std::optional<std::string>>& fields) {
  AppendBE<int16_t>(out, static_cast<int16_t>(fields.size()));
  for (const auto& f : fields) {
    if (!f) {
      AppendBE<int32_t>(out, -1);
    } else {
      AppendBE<int32_t>(out, static_cast<int32_t>(f->size()));
      out->append(*f);
    }
  }
}

std::string Trailer() {
  std::string t;
  AppendBE<int16_t>(&t, -1);
  return t;
}

std::vector<std::string> ParseAll(const std::string& data, size_t chunk, Status* status) {
  BinaryCopyParser parser(2, "test copy");
  std::vector<std::string> rows;
  auto on_row = [&](const std::vector<std::optional<std::string_view>>& fields) -> Status {
    std::string r;
    for (const auto& f : fields) r += (f ? std::string(*f) : "NULL") + ";";
    rows.push_back(r);
    return Status::OK();
  };
  for (size_t pos = 0; pos < data.size(); pos += chunk) {
    *status = parser.Feed(std::string_view(data).substr(pos, chunk), on_row);
    if (!status->ok()) return rows;
  }
  *status = parser.Finish();
  return rows;
}

TEST(BinaryCopyParserTest, ParsesRowsAcrossAnyChunking) {
  std::string data = Header();
  AppendRow(&data, {std::string("ab"), std::nullopt});
  AppendRow(&data, {std::string(""), std::string("xyz")});
  data += Trailer();
  for (size_t chunk : {size_t{1}, size_t{3}, size_t{7}, data.size()}) {
    Status st;
    auto rows = ParseAll(data, chunk, &st);
    ASSERT_TRUE(st.ok()) << st.ToString() << " chunk " << chunk;
    EXPECT_EQ(rows, (std::vector<std::string>{"ab;NULL;", ";xyz;"}));
  }
}

TEST(BinaryCopyParserTest, MalformedInputIsCorruption) {
  Status st;
  ParseAll("PGCOPY\nXXXXXXXXXXXXXXX", 100, &st);
  EXPECT_TRUE(st.IsCorruption()) << st.ToString();

  std::string wrong_count = Header();
  AppendRow(&wrong_count, {std::string("a")});
  ParseAll(wrong_count, 100, &st);
  EXPECT_TRUE(st.IsCorruption()) << st.ToString();

  std::string truncated = Header();
  AppendRow(&truncated, {std::string("abc"), std::string("d")});
  for (size_t n = 0; n < truncated.size(); ++n) {
    ParseAll(truncated.substr(0, n), 4, &st);
    EXPECT_FALSE(st.ok()) << n;
  }
  ParseAll(truncated, 4, &st);  // no trailer
  EXPECT_TRUE(st.IsCorruption());

  std::string after = Header() + Trailer() + "x";
  ParseAll(after, 100, &st);
  EXPECT_TRUE(st.IsCorruption());

  std::string oids = std::string(kPgCopySignature, 11);
  AppendBE<uint32_t>(&oids, 0x10000);
  AppendBE<uint32_t>(&oids, 0);
  ParseAll(oids + Trailer(), 100, &st);
  EXPECT_TRUE(st.IsCorruption());
}

}  // namespace
}  // namespace tide
