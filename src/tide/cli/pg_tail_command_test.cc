#include "tide/cli/pg_tail_command.h"

#include <gtest/gtest.h>

namespace tide::cli {
namespace {

TEST(PgTailJsonTest, NumbersJsonCannotHoldExactlyBecomeStrings) {
  EXPECT_EQ(DatumToJson(Datum(int64_t{42}), DataType::BigInt()).dump(), "42");
  EXPECT_EQ(DatumToJson(Datum(int64_t{1} << 53), DataType::BigInt()).dump(), "9007199254740992");
  EXPECT_EQ(DatumToJson(Datum((int64_t{1} << 53) + 1), DataType::BigInt()).dump(), "\"9007199254740993\"");
  EXPECT_EQ(DatumToJson(Datum(INT64_MIN), DataType::BigInt()).dump(), "\"-9223372036854775808\"");
  EXPECT_EQ(DatumToJson(Datum(DecimalValue{1230}), DataType::Decimal(12, 2)).dump(), "\"12.30\"");
  EXPECT_EQ(DatumToJson(Datum(DecimalValue{-5}), DataType::Decimal(5, 3)).dump(), "\"-0.005\"");
  EXPECT_EQ(DatumToJson(Datum(1.5), DataType::Double()).dump(), "1.5");
  EXPECT_EQ(DatumToJson(Datum(std::nan("")), DataType::Double()).dump(), "\"NaN\"");
  EXPECT_EQ(DatumToJson(Datum(), DataType::Int()).dump(), "null");
  EXPECT_EQ(DatumToJson(Datum(true), DataType::Boolean()).dump(), "true");
}

TEST(PgTailJsonTest, TimesAreIsoAndBytesBase64) {
  // 2024-01-31T10:00:00.123456Z
  TimestampValue ts = TimestampValue::FromMicros(1706695200123456LL);
  EXPECT_EQ(DatumToJson(Datum(ts), DataType::TimestampLtz(6)).dump(), "\"2024-01-31T10:00:00.123456Z\"");
  EXPECT_EQ(DatumToJson(Datum(ts), DataType::Timestamp(6)).dump(), "\"2024-01-31T10:00:00.123456\"");
  EXPECT_EQ(DatumToJson(Datum(int64_t{19753}), DataType::Date()).dump(), "\"2024-01-31\"");
  EXPECT_EQ(DatumToJson(Datum(std::string("\x00\xff\x10", 3)), DataType::Bytes()).dump(), "\"AP8Q\"");
  EXPECT_EQ(Base64Encode(""), "");
  EXPECT_EQ(Base64Encode("f"), "Zg==");
  EXPECT_EQ(Base64Encode("fo"), "Zm8=");
  EXPECT_EQ(Base64Encode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(FormatUtcMicros(0), "1970-01-01T00:00:00.000000Z");
  auto array = DatumToJson(Datum::Nested({Datum(int64_t{1}), Datum()}), DataType::Array(DataType::Int()));
  EXPECT_EQ(array.dump(), "[1,null]");
}

TEST(PgTailJsonTest, UpdateWithOldKeyPrintsBeforeAndAfterAndUnchangedColumns) {
  auto rel = std::make_shared<SourceRelation>();
  rel->table = {"public", "t"};
  rel->fields = {DataField{0, "id", DataType::Int(), std::nullopt, std::nullopt},
                 DataField{1, "big", DataType::String(), std::nullopt, std::nullopt},
                 DataField{2, "n", DataType::Int(), std::nullopt, std::nullopt}};
  RowChange change;
  change.relation = rel;
  change.kind = ChangeKind::kUpdate;
  change.old_kind = PgOldTupleKind::kKey;
  change.old_row = {Datum(int64_t{1}), Datum(), Datum()};
  change.old_absent = {1, 2};
  change.new_row = {Datum(int64_t{2}), Datum(), Datum(int64_t{7})};
  change.unchanged_columns = {1};
  TransactionInfo txn;
  txn.commit_lsn = 0x16B3748;
  txn.xid = 9;
  txn.commit_time_micros = 1706695200000000LL;
  auto lines = ChangeToJson(change, txn);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].dump(),
            R"({"lsn":"0/16B3748","commit_time":"2024-01-31T10:00:00.000000Z","xid":9,"table":"public.t",)"
            R"("kind":"-U","row":{"id":1},"unchanged":[]})");
  EXPECT_EQ(lines[1].dump(),
            R"({"lsn":"0/16B3748","commit_time":"2024-01-31T10:00:00.000000Z","xid":9,"table":"public.t",)"
            R"("kind":"+U","row":{"id":2,"n":7},"unchanged":["big"]})");
}

}  // namespace
}  // namespace tide::cli
