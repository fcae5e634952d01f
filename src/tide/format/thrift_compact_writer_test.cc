// ThriftCompactWriter: everything it writes reads back through ThriftCompactReader with the same ids,
// types and values (field-id deltas short and long, negative and extreme integers, long lists, nested
// structs, booleans as fields and list elements), and its bytes match the compact protocol's examples.
#include "tide/format/thrift_compact_writer.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "tide/format/thrift_compact.h"

namespace tide {
namespace {

TEST(ThriftCompactWriterTest, BytesOfShortAndLongFieldHeaders) {
  std::string out;
  ThriftCompactWriter w(&out);
  w.BeginStruct();
  w.I32Field(1, 1);     // delta 1: one byte 0x15, then zigzag(1) = 2
  w.I32Field(17, -1);   // delta 16 does not fit: 0x05, zigzag(17) = 34, zigzag(-1) = 1
  w.BoolField(18, true);
  w.EndStruct();
  EXPECT_EQ(out, std::string("\x15\x02\x05\x22\x01\x11\x00", 7));
}

TEST(ThriftCompactWriterTest, RoundTripsThroughTheReader) {
  const std::vector<int64_t> ints = {0, 1, -1, 63, -64, 64, std::numeric_limits<int32_t>::max(),
                                     std::numeric_limits<int32_t>::min(), std::numeric_limits<int64_t>::max(),
                                     std::numeric_limits<int64_t>::min()};
  std::string out;
  ThriftCompactWriter w(&out);
  w.BeginStruct();
  w.I32Field(1, 7);
  w.ListField(2, kThriftI64, static_cast<int64_t>(ints.size()));
  for (int64_t v : ints) w.ZigZag(v);
  w.BinaryField(3, std::string(300, 'x'));  // a length that needs a two-byte varint
  w.BeginStructField(5);                    // nested struct: its ids restart
  w.I16Field(1, -300);
  w.BoolField(2, false);
  w.ByteField(3, -5);
  w.EndStruct();
  w.BoolField(6, true);  // after the nested struct the outer ids continue from 5
  w.ListField(7, kThriftTrue, 3);
  w.BoolElement(true);
  w.BoolElement(false);
  w.BoolElement(true);
  w.DoubleField(8, -2.5);
  w.I64Field(100, int64_t{1} << 40);  // a jump in ids that needs the long header
  w.I64Field(-3, 9);                  // a negative id (long header)
  w.EndStruct();

  ThriftCompactReader r(out, "test");
  std::vector<int16_t> ids;
  Status st = r.ReadStruct([&](uint8_t type, int16_t id) -> Status {
    ids.push_back(id);
    switch (id) {
      case 1: {
        EXPECT_EQ(type, kThriftI32);
        TIDE_ASSIGN_OR_RETURN(int64_t v, r.Int(type));
        EXPECT_EQ(v, 7);
        return Status::OK();
      }
      case 2: {
        size_t i = 0;
        return r.ReadList(type, kThriftI64, [&]() -> Status {
          TIDE_ASSIGN_OR_RETURN(int64_t v, r.ZigZag());
          EXPECT_EQ(v, ints.at(i++));
          return Status::OK();
        });
      }
      case 3: {
        TIDE_ASSIGN_OR_RETURN(std::string_view v, r.Binary());
        EXPECT_EQ(v, std::string(300, 'x'));
        return Status::OK();
      }
      case 5:
        EXPECT_EQ(type, kThriftStruct);
        return r.ReadStruct([&](uint8_t t, int16_t fid) -> Status {
          if (fid == 1) {
            TIDE_ASSIGN_OR_RETURN(int64_t v, r.Int(t));
            EXPECT_EQ(v, -300);
          } else if (fid == 2) {
            TIDE_ASSIGN_OR_RETURN(bool v, r.Bool(t));
            EXPECT_FALSE(v);
          } else if (fid == 3) {
            TIDE_ASSIGN_OR_RETURN(int64_t v, r.Int(t));
            EXPECT_EQ(v, -5);
          } else {
            ADD_FAILURE() << "unexpected nested field " << fid;
            return r.Skip(t);
          }
          return Status::OK();
        });
      case 6: {
        TIDE_ASSIGN_OR_RETURN(bool v, r.Bool(type));
        EXPECT_TRUE(v);
        return Status::OK();
      }
      case 7: {
        std::vector<bool> got;
        TIDE_RETURN_IF_ERROR(r.ReadList(type, kThriftTrue, [&]() -> Status {
          TIDE_ASSIGN_OR_RETURN(uint8_t b, r.Byte());
          got.push_back(b == kThriftTrue);
          return Status::OK();
        }));
        EXPECT_EQ(got, (std::vector<bool>{true, false, true}));
        return Status::OK();
      }
      case 8:
        EXPECT_EQ(type, kThriftDouble);
        return r.Skip(type);
      case 100: {
        TIDE_ASSIGN_OR_RETURN(int64_t v, r.Int(type));
        EXPECT_EQ(v, int64_t{1} << 40);
        return Status::OK();
      }
      case -3: {
        TIDE_ASSIGN_OR_RETURN(int64_t v, r.Int(type));
        EXPECT_EQ(v, 9);
        return Status::OK();
      }
      default:
        ADD_FAILURE() << "unexpected field " << id;
        return r.Skip(type);
    }
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(ids, (std::vector<int16_t>{1, 2, 3, 5, 6, 7, 8, 100, -3}));
  EXPECT_EQ(r.position(), out.size());
}

TEST(ThriftCompactWriterTest, LongListHeader) {
  std::string out;
  ThriftCompactWriter w(&out);
  w.ListHeader(kThriftI32, 1000);
  for (int i = 0; i < 1000; ++i) w.ZigZag(i - 500);
  ThriftCompactReader r(out, "test");
  uint8_t elem = 0;
  int64_t n = 0;
  ASSERT_TRUE(r.ListHeader(&elem, &n).ok());
  EXPECT_EQ(elem, kThriftI32);
  ASSERT_EQ(n, 1000);
  for (int i = 0; i < 1000; ++i) {
    auto v = r.ZigZag();
    ASSERT_TRUE(v.ok());
    EXPECT_EQ(*v, i - 500);
  }
}

}  // namespace
}  // namespace tide
