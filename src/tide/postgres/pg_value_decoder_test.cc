#include "tide/postgres/pg_value_decoder.h"

#include <cmath>
#include <limits>
#include <random>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tide/base/bytes.h"
#include "tide/postgres/pg_epoch.h"

namespace tide {
namespace {

using ::testing::HasSubstr;

std::string BE16(int16_t v) { std::string s; AppendBE(&s, v); return s; }
std::string BE32(int32_t v) { std::string s; AppendBE(&s, v); return s; }
std::string BE64(int64_t v) { std::string s; AppendBE(&s, v); return s; }
std::string Bytes(std::initializer_list<int> bytes) {
  std::string s;
  for (int b : bytes) s.push_back(static_cast<char>(b));
  return s;
}

int32_t NumericTypmod(int precision, int scale) { return ((precision << 16) | (scale & 0x7FF)) + 4; }

// numeric_send of an exact decimal string, written independently of the decoder: base-10000 groups
// aligned on the decimal point, leading and trailing zero groups stripped, dscale = fraction digits.
std::string NumericSend(std::string_view text) {
  bool negative = false;
  if (!text.empty() && text[0] == '-') {
    negative = true;
    text.remove_prefix(1);
  }
  size_t dot = text.find('.');
  std::string ip(text.substr(0, dot));
  std::string fp = dot == std::string_view::npos ? "" : std::string(text.substr(dot + 1));
  const int16_t dscale = static_cast<int16_t>(fp.size());
  while (ip.size() % 4) ip.insert(ip.begin(), '0');
  while (fp.size() % 4) fp.push_back('0');
  std::vector<int16_t> groups;
  for (size_t i = 0; i < ip.size(); i += 4) groups.push_back(static_cast<int16_t>(std::stoi(ip.substr(i, 4))));
  for (size_t i = 0; i < fp.size(); i += 4) groups.push_back(static_cast<int16_t>(std::stoi(fp.substr(i, 4))));
  int weight = static_cast<int>(ip.size() / 4) - 1;
  size_t first = 0;
  while (first < groups.size() && groups[first] == 0) {
    ++first;
    --weight;
  }
  size_t last = groups.size();
  while (last > first && groups[last - 1] == 0) --last;
  if (first == last) weight = 0;
  std::string out = BE16(static_cast<int16_t>(last - first)) + BE16(static_cast<int16_t>(weight));
  out += BE16(static_cast<int16_t>(negative && first != last ? 0x4000 : 0)) + BE16(dscale);
  for (size_t i = first; i < last; ++i) out += BE16(groups[i]);
  return out;
}

std::string NumericSpecial(uint16_t sign) {
  return BE16(0) + BE16(0) + BE16(static_cast<int16_t>(sign)) + BE16(0);
}

class PgValueDecoderTest : public ::testing::Test {
 protected:
  std::shared_ptr<const PgValueDecoder> Dec(PgOid oid, int32_t typmod = -1) {
    auto d = PgValueDecoder::ForType(oid, typmod, types_, "public.t.c");
    EXPECT_TRUE(d.ok()) << d.status().ToString();
    return *d;
  }
  Datum Text(PgOid oid, std::string_view text, int32_t typmod = -1) {
    auto r = Dec(oid, typmod)->DecodeText(text);
    EXPECT_TRUE(r.ok()) << "text '" << text << "': " << r.status().ToString();
    return r.ok() ? *r : Datum();
  }
  Datum Bin(PgOid oid, std::string_view bytes, int32_t typmod = -1) {
    auto r = Dec(oid, typmod)->DecodeBinary(bytes);
    EXPECT_TRUE(r.ok()) << "binary " << HexEncode(bytes) << ": " << r.status().ToString();
    return r.ok() ? *r : Datum();
  }
  Status TextError(PgOid oid, std::string_view text, int32_t typmod = -1) {
    auto r = Dec(oid, typmod)->DecodeText(text);
    EXPECT_FALSE(r.ok()) << "text '" << text << "' decoded";
    return r.status();
  }
  Status BinError(PgOid oid, std::string_view bytes, int32_t typmod = -1) {
    auto r = Dec(oid, typmod)->DecodeBinary(bytes);
    EXPECT_FALSE(r.ok()) << "binary " << HexEncode(bytes) << " decoded";
    return r.status();
  }

  PgTypeRegistry types_;
};

TEST_F(PgValueDecoderTest, Bool) {
  EXPECT_EQ(Text(pg_oid::kBool, "t"), Datum(true));
  EXPECT_EQ(Text(pg_oid::kBool, "f"), Datum(false));
  EXPECT_EQ(Bin(pg_oid::kBool, Bytes({1})), Datum(true));
  EXPECT_EQ(Bin(pg_oid::kBool, Bytes({0})), Datum(false));
  EXPECT_TRUE(TextError(pg_oid::kBool, "yes").IsCorruption());
  EXPECT_TRUE(BinError(pg_oid::kBool, "").IsCorruption());
}

TEST_F(PgValueDecoderTest, IntegersAtTheirLimits) {
  EXPECT_EQ(Text(pg_oid::kInt2, "-32768"), Datum(int64_t{-32768}));
  EXPECT_EQ(Text(pg_oid::kInt2, "32767"), Datum(int64_t{32767}));
  EXPECT_TRUE(TextError(pg_oid::kInt2, "32768").IsCorruption());
  EXPECT_EQ(Bin(pg_oid::kInt2, BE16(-32768)), Datum(int64_t{-32768}));
  EXPECT_EQ(Text(pg_oid::kInt4, "-2147483648"), Datum(int64_t{-2147483648LL}));
  EXPECT_EQ(Bin(pg_oid::kInt4, BE32(2147483647)), Datum(int64_t{2147483647}));
  EXPECT_TRUE(TextError(pg_oid::kInt4, "2147483648").IsCorruption());
  EXPECT_EQ(Text(pg_oid::kInt8, "-9223372036854775808"), Datum(std::numeric_limits<int64_t>::min()));
  EXPECT_EQ(Bin(pg_oid::kInt8, BE64(std::numeric_limits<int64_t>::max())), Datum(std::numeric_limits<int64_t>::max()));
  EXPECT_TRUE(TextError(pg_oid::kInt8, "9223372036854775808").IsCorruption());
  EXPECT_TRUE(TextError(pg_oid::kInt8, "12a").IsCorruption());
  EXPECT_TRUE(TextError(pg_oid::kInt8, "").IsCorruption());
  EXPECT_TRUE(BinError(pg_oid::kInt4, BE16(1)).IsCorruption());
  EXPECT_TRUE(BinError(pg_oid::kInt8, BE32(1)).IsCorruption());
  EXPECT_EQ(Dec(pg_oid::kInt2)->type(), DataType::SmallInt());
  EXPECT_EQ(Dec(pg_oid::kInt8)->type(), DataType::BigInt());
  // oid is unsigned 32-bit.
  EXPECT_EQ(Text(pg_oid::kOid, "4294967295"), Datum(int64_t{4294967295LL}));
  EXPECT_EQ(Bin(pg_oid::kOid, Bytes({0xFF, 0xFF, 0xFF, 0xFF})), Datum(int64_t{4294967295LL}));
}

TEST_F(PgValueDecoderTest, FloatsIncludingNaNAndInfinities) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(std::isnan(Text(pg_oid::kFloat8, "NaN").as_double()));
  EXPECT_EQ(Text(pg_oid::kFloat8, "Infinity"), Datum(inf));
  EXPECT_EQ(Text(pg_oid::kFloat8, "-Infinity"), Datum(-inf));
  EXPECT_EQ(Text(pg_oid::kFloat8, "1.7976931348623157e+308"), Datum(1.7976931348623157e308));
  EXPECT_EQ(Text(pg_oid::kFloat8, "5e-324"), Datum(5e-324));
  EXPECT_EQ(Text(pg_oid::kFloat8, "-0"), Datum(-0.0));
  EXPECT_EQ(Text(pg_oid::kFloat8, "0.1"), Datum(0.1));
  EXPECT_EQ(Text(pg_oid::kFloat4, "3.4028235e+38"), Datum(3.4028235e38f));
  EXPECT_EQ(Text(pg_oid::kFloat4, "1e-45"), Datum(1e-45f));
  EXPECT_EQ(Text(pg_oid::kFloat4, "0.1"), Datum(0.1f));
  EXPECT_EQ(Text(pg_oid::kFloat4, "-Infinity"), Datum(-std::numeric_limits<float>::infinity()));
  EXPECT_TRUE(std::isnan(Text(pg_oid::kFloat4, "NaN").as_float()));
  // Binary: IEEE bits, big-endian.
  EXPECT_EQ(Bin(pg_oid::kFloat8, Bytes({0x3F, 0xB9, 0x99, 0x99, 0x99, 0x99, 0x99, 0x9A})), Datum(0.1));
  EXPECT_EQ(Bin(pg_oid::kFloat8, Bytes({0xFF, 0xF0, 0, 0, 0, 0, 0, 0})), Datum(-inf));
  EXPECT_TRUE(std::isnan(Bin(pg_oid::kFloat8, Bytes({0x7F, 0xF8, 0, 0, 0, 0, 0, 0})).as_double()));
  EXPECT_EQ(Bin(pg_oid::kFloat4, Bytes({0x3D, 0xCC, 0xCC, 0xCD})), Datum(0.1f));
  EXPECT_EQ(Bin(pg_oid::kFloat4, Bytes({0x7F, 0x80, 0, 0})), Datum(std::numeric_limits<float>::infinity()));
  EXPECT_TRUE(TextError(pg_oid::kFloat8, "1.5x").IsCorruption());
  EXPECT_EQ(Dec(pg_oid::kFloat4)->type(), DataType::Float());
  EXPECT_EQ(Dec(pg_oid::kFloat8)->type(), DataType::Double());
}

TEST_F(PgValueDecoderTest, NumericWithTypmodIsAnExactDecimal) {
  const int32_t tm = NumericTypmod(12, 2);
  EXPECT_EQ(Dec(pg_oid::kNumeric, tm)->type(), DataType::Decimal(12, 2));
  EXPECT_EQ(Text(pg_oid::kNumeric, "1234567890.12", tm), Datum(DecimalValue{123456789012}));
  EXPECT_EQ(Text(pg_oid::kNumeric, "-0.01", tm), Datum(DecimalValue{-1}));
  EXPECT_EQ(Text(pg_oid::kNumeric, "0.00", tm), Datum(DecimalValue{0}));
  EXPECT_EQ(Bin(pg_oid::kNumeric, NumericSend("1234567890.12"), tm), Datum(DecimalValue{123456789012}));
  EXPECT_EQ(Bin(pg_oid::kNumeric, NumericSend("-9999999999.99"), tm), Datum(DecimalValue{-999999999999}));
  EXPECT_EQ(Bin(pg_oid::kNumeric, NumericSend("0.00"), tm), Datum(DecimalValue{0}));
  // Never rounds: a value with more fraction digits than the scale is an error.
  EXPECT_TRUE(TextError(pg_oid::kNumeric, "1.234", tm).IsCorruption());
  EXPECT_TRUE(TextError(pg_oid::kNumeric, "12345678901.00", tm).IsCorruption());

  // 38 digits: the widest DECIMAL.
  const int32_t tm38 = NumericTypmod(38, 10);
  const std::string max38 = "9999999999999999999999999999.9999999999";
  int128_t expected = 0;
  for (int i = 0; i < 38; ++i) expected = expected * 10 + 9;
  EXPECT_EQ(Text(pg_oid::kNumeric, max38, tm38), Datum(DecimalValue{expected}));
  EXPECT_EQ(Bin(pg_oid::kNumeric, NumericSend("-" + max38), tm38), Datum(DecimalValue{-expected}));
  EXPECT_EQ(Dec(pg_oid::kNumeric, NumericTypmod(39, 0))->type(), DataType::String());
}

TEST_F(PgValueDecoderTest, NumericNegativeScaleAndScaleAbovePrecision) {
  // numeric(5,-2) holds integers rounded to hundreds with up to 7 digits.
  const int32_t neg = NumericTypmod(5, -2);
  EXPECT_EQ(Dec(pg_oid::kNumeric, neg)->type(), DataType::Decimal(7, 0));
  EXPECT_EQ(Text(pg_oid::kNumeric, "9999900", neg), Datum(DecimalValue{9999900}));
  EXPECT_EQ(Bin(pg_oid::kNumeric, NumericSend("12300"), neg), Datum(DecimalValue{12300}));
  // numeric(3,5): |v| < 0.001 with 5 fraction digits.
  const int32_t small = NumericTypmod(3, 5);
  EXPECT_EQ(Dec(pg_oid::kNumeric, small)->type(), DataType::Decimal(5, 5));
  EXPECT_EQ(Text(pg_oid::kNumeric, "0.00123", small), Datum(DecimalValue{123}));
  EXPECT_EQ(Bin(pg_oid::kNumeric, NumericSend("-0.00999"), small), Datum(DecimalValue{-999}));
}

TEST_F(PgValueDecoderTest, RandomBinaryNumericsReadAsTheirExactTextAndDecimal) {
  std::mt19937_64 rng(20261203);
  for (int i = 0; i < 3000; ++i) {
    // PostgreSQL's text form: no leading zeros, the fraction as long as its display scale.
    const int int_digits = static_cast<int>(rng() % 20), frac_digits = static_cast<int>(rng() % 12);
    std::string text;
    for (int d = 0; d < int_digits; ++d) text.push_back(static_cast<char>('0' + (d == 0 ? 1 + rng() % 9 : rng() % 10)));
    if (text.empty()) text = "0";
    if (frac_digits > 0) text += ".";
    for (int d = 0; d < frac_digits; ++d) text.push_back(static_cast<char>('0' + rng() % 10));
    const bool zero = text.find_first_not_of("0.") == std::string::npos;
    if (!zero && rng() % 2) text = "-" + text;
    EXPECT_EQ(Bin(pg_oid::kNumeric, NumericSend(text)), Datum(text)) << text;
    // The same value in a DECIMAL column wide enough for it: the unscaled integer.
    const int scale = frac_digits;
    const int32_t tm = NumericTypmod(std::max(1, std::max(int_digits, 1) + scale), scale);
    std::string digits;
    for (char c : text) {
      if (c >= '0' && c <= '9') digits.push_back(c);
    }
    int128_t unscaled = 0;
    for (char c : digits) unscaled = unscaled * 10 + (c - '0');
    if (text[0] == '-') unscaled = -unscaled;
    EXPECT_EQ(Bin(pg_oid::kNumeric, NumericSend(text), tm), Datum(DecimalValue{unscaled})) << text;
  }
}

// The copy's decoding (DecodeBinaryInto) reads a binary numeric into a DECIMAL without its text; it
// agrees with DecodeBinary (through the text) on every value: those that fit, those with fraction
// digits past the scale (refused, not rounded), those too wide, zero groups, NaN and the infinities.
TEST_F(PgValueDecoderTest, CopyDecodingOfNumericAgreesWithTheTextPath) {
  std::mt19937_64 rng(20261205);
  int fits = 0, refused = 0;
  for (int i = 0; i < 20000; ++i) {
    const int precision = 1 + static_cast<int>(rng() % 38);
    const int scale = static_cast<int>(rng() % (precision + 1));
    const int int_digits = static_cast<int>(rng() % (precision - scale + 3));
    const int frac_digits = static_cast<int>(rng() % (scale + 3));
    std::string text;
    for (int d = 0; d < int_digits; ++d) {
      // Runs of zeros make whole zero groups on both sides of the point.
      const bool zero = rng() % 3 == 0;
      text.push_back(static_cast<char>('0' + (d == 0 ? 1 + rng() % 9 : zero ? 0 : rng() % 10)));
    }
    if (text.empty()) text = "0";
    if (frac_digits > 0) text += ".";
    for (int d = 0; d < frac_digits; ++d) text.push_back(static_cast<char>('0' + (rng() % 3 == 0 ? 0 : rng() % 10)));
    if (text.find_first_not_of("0.") != std::string::npos && rng() % 2) text = "-" + text;
    const std::string bytes = NumericSend(text);
    auto decoder = Dec(pg_oid::kNumeric, NumericTypmod(precision, scale));
    auto reference = decoder->DecodeBinary(bytes);
    Datum copied(std::string("a slot's previous value"));
    Status status = decoder->DecodeBinaryInto(bytes, &copied);
    ASSERT_EQ(status.ok(), reference.ok()) << text << " as DECIMAL(" << precision << ", " << scale << "): "
                                           << status.ToString() << " / " << reference.status().ToString();
    if (reference.ok()) {
      EXPECT_EQ(copied, *reference) << text << " as DECIMAL(" << precision << ", " << scale << ")";
      ++fits;
    } else {
      EXPECT_EQ(status.ToString(), reference.status().ToString()) << text;
      ++refused;
    }
  }
  EXPECT_GT(fits, 5000);
  EXPECT_GT(refused, 1000);
  for (uint16_t special : {uint16_t{0xC000}, uint16_t{0xD000}, uint16_t{0xF000}}) {
    Datum copied(int64_t{7});
    ASSERT_TRUE(Dec(pg_oid::kNumeric, NumericTypmod(10, 2))->DecodeBinaryInto(NumericSpecial(special), &copied).ok());
    EXPECT_TRUE(copied.is_null());
  }
}

TEST_F(PgValueDecoderTest, NumericSpecialValuesInADecimalColumnBecomeNull) {
  const int32_t tm = NumericTypmod(10, 2);
  EXPECT_TRUE(Text(pg_oid::kNumeric, "NaN", tm).is_null());
  EXPECT_TRUE(Bin(pg_oid::kNumeric, NumericSpecial(0xC000), tm).is_null());
}

TEST_F(PgValueDecoderTest, UnconstrainedNumericKeepsTheExactText) {
  EXPECT_EQ(Dec(pg_oid::kNumeric)->type(), DataType::String());
  // 1,000 digits, with a 500-digit fraction.
  std::string big;
  for (int i = 0; i < 500; ++i) big.push_back(static_cast<char>('1' + i % 9));
  big += ".";
  for (int i = 0; i < 500; ++i) big.push_back(static_cast<char>('0' + (i * 7) % 10));
  EXPECT_EQ(Text(pg_oid::kNumeric, big), Datum(big));
  EXPECT_EQ(Bin(pg_oid::kNumeric, NumericSend(big)), Datum(big));
  EXPECT_EQ(Bin(pg_oid::kNumeric, NumericSend("-" + big)), Datum("-" + big));
  // Negative weight, leading zero groups, trailing zeros within dscale kept.
  EXPECT_EQ(Bin(pg_oid::kNumeric, NumericSend("0.00001234")), Datum("0.00001234"));
  EXPECT_EQ(Bin(pg_oid::kNumeric, NumericSend("0.000012340")), Datum("0.000012340"));
  EXPECT_EQ(Bin(pg_oid::kNumeric, NumericSend("100000000000000000000")), Datum("100000000000000000000"));
  EXPECT_EQ(Bin(pg_oid::kNumeric, NumericSend("10000.0001")), Datum("10000.0001"));
  EXPECT_EQ(Bin(pg_oid::kNumeric, NumericSend("0")), Datum("0"));
  EXPECT_EQ(Bin(pg_oid::kNumeric, NumericSend("-7")), Datum("-7"));
  // A value whose dscale is smaller than its stored digits (PostgreSQL truncates the display).
  std::string odd = BE16(1) + BE16(-1) + BE16(0) + BE16(2) + BE16(1234);  // 0.1234 shown with dscale 2
  EXPECT_EQ(Bin(pg_oid::kNumeric, odd), Datum("0.12"));
  EXPECT_EQ(Text(pg_oid::kNumeric, "NaN"), Datum("NaN"));
  EXPECT_EQ(Bin(pg_oid::kNumeric, NumericSpecial(0xC000)), Datum("NaN"));
  EXPECT_EQ(Bin(pg_oid::kNumeric, NumericSpecial(0xD000)), Datum("Infinity"));
  EXPECT_EQ(Bin(pg_oid::kNumeric, NumericSpecial(0xF000)), Datum("-Infinity"));
  EXPECT_TRUE(TextError(pg_oid::kNumeric, "1e5").IsCorruption());
}

TEST_F(PgValueDecoderTest, MalformedBinaryNumeric) {
  EXPECT_TRUE(BinError(pg_oid::kNumeric, BE16(1)).IsCorruption());
  EXPECT_TRUE(BinError(pg_oid::kNumeric, BE16(2) + BE16(0) + BE16(0) + BE16(0) + BE16(1)).IsCorruption());
  EXPECT_TRUE(BinError(pg_oid::kNumeric, BE16(1) + BE16(0) + BE16(0) + BE16(0) + BE16(10000)).IsCorruption());
  EXPECT_TRUE(BinError(pg_oid::kNumeric, BE16(-1) + BE16(0) + BE16(0) + BE16(0)).IsCorruption());
  EXPECT_TRUE(BinError(pg_oid::kNumeric, BE16(0) + BE16(0) + BE16(0x1234) + BE16(0)).IsCorruption());
}

TEST_F(PgValueDecoderTest, Money) {
  EXPECT_EQ(Dec(pg_oid::kMoney)->type(), DataType::Decimal(19, 2));
  EXPECT_EQ(Text(pg_oid::kMoney, "$1,234.56"), Datum(DecimalValue{123456}));
  EXPECT_EQ(Text(pg_oid::kMoney, "-$0.01"), Datum(DecimalValue{-1}));
  EXPECT_EQ(Text(pg_oid::kMoney, "-$92,233,720,368,547,758.08"),
            Datum(DecimalValue{std::numeric_limits<int64_t>::min()}));
  EXPECT_EQ(Bin(pg_oid::kMoney, BE64(std::numeric_limits<int64_t>::max())),
            Datum(DecimalValue{std::numeric_limits<int64_t>::max()}));
  EXPECT_TRUE(TextError(pg_oid::kMoney, "1.234,56 €").IsCorruption());
}

TEST_F(PgValueDecoderTest, TextTypes) {
  const std::string multibyte = "Zoë ☃ 東京 🚀";
  EXPECT_EQ(Dec(pg_oid::kText)->type(), DataType::String());
  EXPECT_EQ(Text(pg_oid::kText, multibyte), Datum(multibyte));
  EXPECT_EQ(Bin(pg_oid::kText, multibyte), Datum(multibyte));
  EXPECT_EQ(Text(pg_oid::kText, ""), Datum(""));
  EXPECT_EQ(Dec(pg_oid::kVarchar, 10 + 4)->type(), DataType::VarChar(10));
  EXPECT_EQ(Dec(pg_oid::kVarchar)->type(), DataType::String());
  EXPECT_EQ(Dec(pg_oid::kBpchar, 3 + 4)->type(), DataType::Char(3));
  EXPECT_EQ(Text(pg_oid::kBpchar, "ab ", 3 + 4), Datum("ab "));  // padding is part of the value
  EXPECT_EQ(Bin(pg_oid::kName, "pg_class"), Datum("pg_class"));
  // "char": one byte; high-bit bytes print as octal escapes, as PostgreSQL's charout does.
  EXPECT_EQ(Bin(pg_oid::kChar, "A"), Datum("A"));
  EXPECT_EQ(Bin(pg_oid::kChar, Bytes({0xE9})), Datum("\\351"));
  EXPECT_EQ(Bin(pg_oid::kChar, Bytes({0})), Datum(""));
  EXPECT_EQ(Text(pg_oid::kChar, "A"), Datum("A"));
}

TEST_F(PgValueDecoderTest, Bytea) {
  EXPECT_EQ(Dec(pg_oid::kBytea)->type(), DataType::Bytes());
  EXPECT_EQ(Text(pg_oid::kBytea, "\\x00ff41"), Datum(Bytes({0, 0xFF, 0x41})));
  EXPECT_EQ(Text(pg_oid::kBytea, "\\x"), Datum(""));
  EXPECT_EQ(Text(pg_oid::kBytea, "a\\\\b\\001\\377"), Datum(std::string("a\\b\x01\xff", 5)));
  EXPECT_EQ(Bin(pg_oid::kBytea, Bytes({0, 1, 2, 0xFF})), Datum(Bytes({0, 1, 2, 0xFF})));
  EXPECT_TRUE(TextError(pg_oid::kBytea, "\\x0").IsCorruption());
  EXPECT_TRUE(TextError(pg_oid::kBytea, "bad\\9").IsCorruption());
}

TEST_F(PgValueDecoderTest, UuidJsonJsonb) {
  const std::string uuid = "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11";
  EXPECT_EQ(Text(pg_oid::kUuid, uuid), Datum(uuid));
  EXPECT_EQ(Bin(pg_oid::kUuid, *HexDecode("a0eebc999c0b4ef8bb6d6bb9bd380a11")), Datum(uuid));
  EXPECT_TRUE(BinError(pg_oid::kUuid, "short").IsCorruption());
  const std::string json = "{\"a\": [1, 2.5, \"ü\"], \"b\": null}";
  EXPECT_EQ(Text(pg_oid::kJson, json), Datum(json));
  EXPECT_EQ(Bin(pg_oid::kJson, json), Datum(json));
  EXPECT_EQ(Text(pg_oid::kJsonb, json), Datum(json));
  EXPECT_EQ(Bin(pg_oid::kJsonb, "\x01" + json), Datum(json));
  Status v2 = BinError(pg_oid::kJsonb, "\x02{}");
  EXPECT_TRUE(v2.IsCorruption());
  EXPECT_THAT(v2.message(), HasSubstr("version byte 1"));
  EXPECT_THAT(v2.message(), HasSubstr("public.t.c"));
  EXPECT_TRUE(BinError(pg_oid::kJsonb, "").IsCorruption());
}

TEST_F(PgValueDecoderTest, DatesBefore1900AfterYear2100AndBC) {
  EXPECT_EQ(Dec(pg_oid::kDate)->type(), DataType::Date());
  EXPECT_EQ(Text(pg_oid::kDate, "2024-02-29"), Datum(int64_t{19782}));
  EXPECT_EQ(Text(pg_oid::kDate, "1899-12-31"), Datum(int64_t{-25568}));
  EXPECT_EQ(Text(pg_oid::kDate, "2100-01-01"), Datum(int64_t{47482}));
  EXPECT_EQ(Text(pg_oid::kDate, "0001-01-01"), Datum(int64_t{-719162}));
  EXPECT_EQ(Text(pg_oid::kDate, "0001-01-01 BC"), Datum(int64_t{-719528}));  // year 0
  EXPECT_EQ(Text(pg_oid::kDate, "4714-11-24 BC"), Datum(int64_t{-2440588}));  // Julian day 0
  EXPECT_EQ(Bin(pg_oid::kDate, BE32(-2451545)), Datum(int64_t{-2440588}));  // POSTGRES_EPOCH_JDATE
  EXPECT_EQ(Text(pg_oid::kDate, "5874897-12-31"), Datum(int64_t{2145042905}));
  EXPECT_EQ(Bin(pg_oid::kDate, BE32(0)), Datum(int64_t{10957}));
  EXPECT_EQ(Bin(pg_oid::kDate, BE32(19782 - 10957)), Datum(int64_t{19782}));
  EXPECT_EQ(Bin(pg_oid::kDate, BE32(-25568 - 10957)), Datum(int64_t{-25568}));
  EXPECT_EQ(Bin(pg_oid::kDate, BE32(2145042905 - 10957)), Datum(int64_t{2145042905}));
  EXPECT_TRUE(TextError(pg_oid::kDate, "2023-02-29").IsCorruption());
  EXPECT_TRUE(TextError(pg_oid::kDate, "02/29/2024").IsCorruption());
  EXPECT_TRUE(BinError(pg_oid::kDate, BE16(0)).IsCorruption());
}

TEST_F(PgValueDecoderTest, InfiniteDatesAndTimestampsUseDocumentedSentinels) {
  EXPECT_EQ(Text(pg_oid::kDate, "infinity"), Datum(kPgInfinityDateDays));
  EXPECT_EQ(Text(pg_oid::kDate, "-infinity"), Datum(kPgMinusInfinityDateDays));
  EXPECT_EQ(Bin(pg_oid::kDate, BE32(std::numeric_limits<int32_t>::max())), Datum(kPgInfinityDateDays));
  EXPECT_EQ(Bin(pg_oid::kDate, BE32(std::numeric_limits<int32_t>::min())), Datum(kPgMinusInfinityDateDays));
  EXPECT_EQ(FormatDate(kPgInfinityDateDays), "9999-12-31");
  EXPECT_EQ(FormatDate(kPgMinusInfinityDateDays), "0001-01-01");

  for (PgOid oid : {pg_oid::kTimestamp, pg_oid::kTimestamptz}) {
    const Datum inf = Text(oid, "infinity");
    const Datum minus = Text(oid, "-infinity");
    EXPECT_EQ(FormatTimestamp(inf.as_timestamp(), 6), "9999-12-31 23:59:59.999999");
    EXPECT_EQ(FormatTimestamp(minus.as_timestamp(), 6), "0001-01-01 00:00:00.000000");
    EXPECT_EQ(Bin(oid, BE64(std::numeric_limits<int64_t>::max())), inf);
    EXPECT_EQ(Bin(oid, BE64(std::numeric_limits<int64_t>::min())), minus);
  }
  // At a coarser precision the sentinel is the last value that precision holds.
  EXPECT_EQ(FormatTimestamp(Text(pg_oid::kTimestamp, "infinity", 3).as_timestamp(), 6), "9999-12-31 23:59:59.999000");
  EXPECT_EQ(FormatTimestamp(Text(pg_oid::kTimestamptz, "infinity", 0).as_timestamp(), 6), "9999-12-31 23:59:59.000000");
}

TEST_F(PgValueDecoderTest, Time) {
  EXPECT_EQ(Dec(pg_oid::kTime)->type(), DataType::Time(6));
  EXPECT_EQ(Dec(pg_oid::kTime, 3)->type(), DataType::Time(3));
  EXPECT_EQ(Text(pg_oid::kTime, "00:00:00"), Datum(int64_t{0}));
  EXPECT_EQ(Text(pg_oid::kTime, "13:14:15.5"), Datum(int64_t{47655500}));
  EXPECT_EQ(Text(pg_oid::kTime, "24:00:00"), Datum(int64_t{86400000}));
  // Paimon's TIME keeps milliseconds: the documented truncation.
  EXPECT_EQ(Text(pg_oid::kTime, "23:59:59.999999"), Datum(int64_t{86399999}));
  EXPECT_EQ(Bin(pg_oid::kTime, BE64(47655500000)), Datum(int64_t{47655500}));
  EXPECT_EQ(Bin(pg_oid::kTime, BE64(86400000000)), Datum(int64_t{86400000}));
  EXPECT_TRUE(BinError(pg_oid::kTime, BE64(86400000001)).IsCorruption());
  EXPECT_TRUE(BinError(pg_oid::kTime, BE64(-1)).IsCorruption());
  EXPECT_TRUE(TextError(pg_oid::kTime, "25:00:00").IsCorruption());
}

TEST_F(PgValueDecoderTest, TimeWithTimeZoneKeepsPostgresText) {
  EXPECT_EQ(Dec(pg_oid::kTimetz)->type(), DataType::String());
  EXPECT_EQ(Text(pg_oid::kTimetz, "12:34:56.5+05:30"), Datum("12:34:56.5+05:30"));
  // Binary: microseconds of the day and the zone in seconds *west* of UTC.
  EXPECT_EQ(Bin(pg_oid::kTimetz, BE64(45296500000) + BE32(-19800)), Datum("12:34:56.5+05:30"));
  EXPECT_EQ(Bin(pg_oid::kTimetz, BE64(0) + BE32(28800)), Datum("00:00:00-08"));
  EXPECT_EQ(Bin(pg_oid::kTimetz, BE64(1) + BE32(0)), Datum("00:00:00.000001+00"));
  EXPECT_EQ(Bin(pg_oid::kTimetz, BE64(86400000000) + BE32(-1172)), Datum("24:00:00+00:19:32"));
  EXPECT_TRUE(BinError(pg_oid::kTimetz, BE64(0)).IsCorruption());
}

TEST_F(PgValueDecoderTest, Timestamp) {
  EXPECT_EQ(Dec(pg_oid::kTimestamp)->type(), DataType::Timestamp(6));
  EXPECT_EQ(Dec(pg_oid::kTimestamp, 3)->type(), DataType::Timestamp(3));
  EXPECT_EQ(Dec(pg_oid::kTimestamp, 0)->type(), DataType::Timestamp(0));
  auto micros = [](int64_t us) { return Datum(TimestampValue::FromMicros(us)); };
  EXPECT_EQ(Text(pg_oid::kTimestamp, "2024-01-31 12:34:56.123456"), micros(1706704496123456));
  EXPECT_EQ(Text(pg_oid::kTimestamp, "1900-01-01 00:00:00"), micros(-2208988800000000));
  EXPECT_EQ(Text(pg_oid::kTimestamp, "2200-06-15 00:00:00.000001"), micros(7272374400000001));
  EXPECT_EQ(Text(pg_oid::kTimestamp, "0044-03-15 12:00:00 BC"), micros(-63517780800000000));
  EXPECT_EQ(Bin(pg_oid::kTimestamp, BE64(1706704496123456 - kPgEpochUnixMicros)), micros(1706704496123456));
  EXPECT_EQ(Bin(pg_oid::kTimestamp, BE64(-2208988800000000 - kPgEpochUnixMicros)), micros(-2208988800000000));
  EXPECT_EQ(Bin(pg_oid::kTimestamp, BE64(-63517780800000000 - kPgEpochUnixMicros)), micros(-63517780800000000));
  // PostgreSQL's last timestamp does not fit in Unix microseconds; it must still decode exactly.
  const Datum last = Text(pg_oid::kTimestamp, "294276-12-31 23:59:59.999999");
  EXPECT_EQ(last.as_timestamp().millis, 9224318015999999);
  EXPECT_EQ(last.as_timestamp().nanos_of_milli, 999000);
  EXPECT_EQ(Bin(pg_oid::kTimestamp, BE64(9223371331199999999LL)), last);
  EXPECT_TRUE(TextError(pg_oid::kTimestamp, "2024-01-31T12:34:56").IsCorruption());
  EXPECT_TRUE(TextError(pg_oid::kTimestamp, "2024-01-31 12:34").IsCorruption());
}

TEST_F(PgValueDecoderTest, TimestamptzIsAnInstantWhateverTheOffset) {
  EXPECT_EQ(Dec(pg_oid::kTimestamptz)->type(), DataType::TimestampLtz(6));
  const Datum utc = Text(pg_oid::kTimestamptz, "2024-03-10 09:59:59+00");
  EXPECT_EQ(utc, Datum(TimestampValue::FromMicros(1710064799000000)));
  EXPECT_EQ(Text(pg_oid::kTimestamptz, "2024-03-10 01:59:59-08"), utc);
  EXPECT_EQ(Text(pg_oid::kTimestamptz, "2024-03-10 15:29:59+05:30"), utc);
  EXPECT_EQ(Text(pg_oid::kTimestamptz, "2024-03-10 10:59:59+01:00"), utc);
  // Local mean time offsets carry seconds (Europe/Amsterdam before 1937).
  EXPECT_EQ(Text(pg_oid::kTimestamptz, "1900-01-01 00:00:00+00:19:32"),
            Datum(TimestampValue::FromMicros(-2208989972000000)));
  EXPECT_EQ(Text(pg_oid::kTimestamptz, "0044-03-15 12:00:00+00 BC"),
            Datum(TimestampValue::FromMicros(-63517780800000000)));
  EXPECT_EQ(Bin(pg_oid::kTimestamptz, BE64(1710064799000000 - kPgEpochUnixMicros)), utc);
  EXPECT_TRUE(TextError(pg_oid::kTimestamptz, "2024-03-10 09:59:59").IsCorruption());
}

TEST_F(PgValueDecoderTest, IntervalInPostgresStyle) {
  auto iv = [&](int64_t micros, int32_t days, int32_t months) {
    return Bin(pg_oid::kInterval, BE64(micros) + BE32(days) + BE32(months));
  };
  EXPECT_EQ(Dec(pg_oid::kInterval)->type(), DataType::String());
  EXPECT_EQ(iv(0, 0, 0), Datum("00:00:00"));
  EXPECT_EQ(iv(4 * 3600000000LL + 5 * 60000000LL + 6789000, 3, 14), Datum("1 year 2 mons 3 days 04:05:06.789"));
  EXPECT_EQ(iv(2 * 3600000000LL + 3 * 60000000LL, -1, 0), Datum("-1 days +02:03:00"));
  EXPECT_EQ(iv(0, 0, -1), Datum("-1 mons"));
  EXPECT_EQ(iv(0, 1, 0), Datum("1 day"));
  EXPECT_EQ(iv(0, 0, 12), Datum("1 year"));
  EXPECT_EQ(iv(0, 0, -25), Datum("-2 years -1 mons"));
  EXPECT_EQ(iv(-1000000, 0, 0), Datum("-00:00:01"));
  EXPECT_EQ(iv(-1500000, 2, 0), Datum("2 days -00:00:01.5"));
  EXPECT_EQ(iv(1, 0, 0), Datum("00:00:00.000001"));
  EXPECT_EQ(iv(100 * 3600000000LL, 0, 0), Datum("100:00:00"));
  EXPECT_EQ(iv(std::numeric_limits<int64_t>::max(), std::numeric_limits<int32_t>::max(),
               std::numeric_limits<int32_t>::max()),
            Datum("infinity"));
  EXPECT_EQ(iv(std::numeric_limits<int64_t>::min(), std::numeric_limits<int32_t>::min(),
               std::numeric_limits<int32_t>::min()),
            Datum("-infinity"));
  EXPECT_EQ(Text(pg_oid::kInterval, "1 year 2 mons"), Datum("1 year 2 mons"));
  EXPECT_TRUE(BinError(pg_oid::kInterval, BE64(0)).IsCorruption());
}

TEST_F(PgValueDecoderTest, NetworkTypes) {
  EXPECT_EQ(Bin(pg_oid::kInet, Bytes({2, 32, 0, 4, 192, 168, 1, 5})), Datum("192.168.1.5"));
  EXPECT_EQ(Bin(pg_oid::kInet, Bytes({2, 24, 0, 4, 192, 168, 1, 5})), Datum("192.168.1.5/24"));
  EXPECT_EQ(Bin(pg_oid::kCidr, Bytes({2, 8, 1, 4, 10, 0, 0, 0})), Datum("10.0.0.0/8"));
  EXPECT_EQ(Bin(pg_oid::kCidr, Bytes({2, 32, 1, 4, 10, 1, 2, 3})), Datum("10.1.2.3/32"));
  std::string v6 = Bytes({3, 128, 0, 16});
  v6 += *HexDecode("00000000000000000000000000000001");
  EXPECT_EQ(Bin(pg_oid::kInet, v6), Datum("::1"));
  std::string net6 = Bytes({3, 32, 1, 16});
  net6 += *HexDecode("20010db8000000000000000000000000");
  EXPECT_EQ(Bin(pg_oid::kCidr, net6), Datum("2001:db8::/32"));
  EXPECT_EQ(Text(pg_oid::kInet, "::ffff:1.2.3.4/120"), Datum("::ffff:1.2.3.4/120"));
  EXPECT_TRUE(BinError(pg_oid::kInet, Bytes({2, 32, 0, 16, 1, 2, 3, 4})).IsCorruption());
  EXPECT_TRUE(BinError(pg_oid::kInet, Bytes({9, 32, 0, 4, 1, 2, 3, 4})).IsCorruption());
  EXPECT_TRUE(BinError(pg_oid::kInet, Bytes({2, 33, 0, 4, 1, 2, 3, 4})).IsCorruption());
  EXPECT_TRUE(BinError(pg_oid::kInet, Bytes({2, 32})).IsCorruption());

  EXPECT_EQ(Bin(pg_oid::kMacaddr, Bytes({0x08, 0x00, 0x2b, 0x01, 0x02, 0x03})), Datum("08:00:2b:01:02:03"));
  EXPECT_EQ(Bin(pg_oid::kMacaddr8, Bytes({0x08, 0x00, 0x2b, 0x01, 0x02, 0x03, 0x04, 0xff})),
            Datum("08:00:2b:01:02:03:04:ff"));
  EXPECT_EQ(Text(pg_oid::kMacaddr, "08:00:2b:01:02:03"), Datum("08:00:2b:01:02:03"));
  EXPECT_TRUE(BinError(pg_oid::kMacaddr, Bytes({1, 2, 3})).IsCorruption());
}

TEST_F(PgValueDecoderTest, BitStringsAndLsn) {
  EXPECT_EQ(Bin(pg_oid::kVarbit, BE32(10) + Bytes({0xAA, 0xC0})), Datum("1010101011"));
  EXPECT_EQ(Bin(pg_oid::kBit, BE32(0)), Datum(""));
  EXPECT_TRUE(BinError(pg_oid::kBit, BE32(10) + Bytes({0xAA})).IsCorruption());
  EXPECT_TRUE(BinError(pg_oid::kBit, BE32(-1)).IsCorruption());
  EXPECT_EQ(Bin(pg_oid::kPgLsn, BE64(0x16B3748)), Datum("0/16B3748"));
  EXPECT_EQ(Bin(pg_oid::kPgLsn, BE64(0x1600000000LL + 0xB374D848)), Datum("16/B374D848"));
}

// ----- Arrays -----

std::string BinArray(int32_t elem_oid, int32_t lower, const std::vector<std::optional<std::string>>& elems) {
  bool has_null = false;
  for (const auto& e : elems) has_null |= !e.has_value();
  std::string out = BE32(1) + BE32(has_null ? 1 : 0) + BE32(elem_oid) + BE32(static_cast<int32_t>(elems.size())) +
                    BE32(lower);
  for (const auto& e : elems) {
    if (!e) {
      out += BE32(-1);
    } else {
      out += BE32(static_cast<int32_t>(e->size())) + *e;
    }
  }
  return out;
}

TEST_F(PgValueDecoderTest, ArraysInText) {
  EXPECT_EQ(Dec(pg_oid::kInt4Array)->type(), DataType::Array(DataType::Int()));
  EXPECT_EQ(Text(pg_oid::kInt4Array, "{1,2,NULL,-3}"),
            Datum::Nested({Datum(int64_t{1}), Datum(int64_t{2}), Datum(), Datum(int64_t{-3})}));
  EXPECT_EQ(Text(pg_oid::kInt4Array, "{}"), Datum::Nested({}));
  EXPECT_EQ(Text(pg_oid::kInt4Array, "[0:1]={5,6}"), Datum::Nested({Datum(int64_t{5}), Datum(int64_t{6})}));
  EXPECT_EQ(Text(pg_oid::kTextArray, R"({"a b","x\"y\\z",NULL,"NULL","",plain, Zoë })"),
            Datum::Nested({Datum("a b"), Datum("x\"y\\z"), Datum(), Datum("NULL"), Datum(""), Datum("plain"),
                           Datum("Zoë")}));
  EXPECT_EQ(Text(pg_oid::kNumericArray, "{1.50,NULL}", NumericTypmod(10, 2)),
            Datum::Nested({Datum(DecimalValue{150}), Datum()}));
  EXPECT_EQ(Dec(pg_oid::kNumericArray, NumericTypmod(10, 2))->type(), DataType::Array(DataType::Decimal(10, 2)));
  EXPECT_EQ(Text(pg_oid::kTimestamptzArray, R"({"2024-03-10 01:59:59-08","2024-03-10 09:59:59+00"})"),
            Datum::Nested({Datum(TimestampValue::FromMicros(1710064799000000)),
                           Datum(TimestampValue::FromMicros(1710064799000000))}));
  EXPECT_EQ(Text(pg_oid::kByteaArray, R"({"\\x01ff"})"), Datum::Nested({Datum(Bytes({1, 0xFF}))}));
  Status multi = TextError(pg_oid::kInt4Array, "{{1,2},{3,4}}");
  EXPECT_TRUE(multi.IsNotSupported());
  EXPECT_THAT(multi.message(), HasSubstr("one-dimensional"));
  EXPECT_TRUE(TextError(pg_oid::kInt4Array, "[1:2][1:2]={{1,2},{3,4}}").IsNotSupported());
  EXPECT_TRUE(TextError(pg_oid::kInt4Array, "{1,2").IsCorruption());
  EXPECT_TRUE(TextError(pg_oid::kInt4Array, "{1,,2}").IsCorruption());
  EXPECT_TRUE(TextError(pg_oid::kTextArray, R"({"abc})").IsCorruption());
  EXPECT_TRUE(TextError(pg_oid::kInt4Array, "{1,x}").IsCorruption());
}

TEST_F(PgValueDecoderTest, ArraysInBinary) {
  EXPECT_EQ(Bin(pg_oid::kInt4Array, BinArray(23, 1, {BE32(1), std::nullopt, BE32(3)})),
            Datum::Nested({Datum(int64_t{1}), Datum(), Datum(int64_t{3})}));
  EXPECT_EQ(Bin(pg_oid::kInt4Array, BE32(0) + BE32(0) + BE32(23)), Datum::Nested({}));
  EXPECT_EQ(Bin(pg_oid::kInt4Array, BinArray(23, 0, {BE32(7)})), Datum::Nested({Datum(int64_t{7})}));
  EXPECT_EQ(Bin(pg_oid::kTextArray, BinArray(25, 1, {std::string("Zoë"), std::string("")})),
            Datum::Nested({Datum("Zoë"), Datum("")}));
  EXPECT_EQ(Bin(pg_oid::kNumericArray, BinArray(1700, 1, {NumericSend("-1.25")}), NumericTypmod(5, 2)),
            Datum::Nested({Datum(DecimalValue{-125})}));
  EXPECT_EQ(Bin(pg_oid::kUuidArray, BinArray(2950, 1, {*HexDecode("a0eebc999c0b4ef8bb6d6bb9bd380a11")})),
            Datum::Nested({Datum("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")}));
  // Two dimensions are refused clearly; broken arrays are corruption.
  std::string two = BE32(2) + BE32(0) + BE32(23) + BE32(1) + BE32(1) + BE32(1) + BE32(1) + BE32(4) + BE32(1);
  EXPECT_TRUE(BinError(pg_oid::kInt4Array, two).IsNotSupported());
  EXPECT_TRUE(BinError(pg_oid::kInt4Array, BE32(1) + BE32(0)).IsCorruption());
  EXPECT_TRUE(BinError(pg_oid::kInt4Array, BE32(1) + BE32(0) + BE32(23) + BE32(1000000) + BE32(1)).IsCorruption());
  EXPECT_TRUE(BinError(pg_oid::kInt4Array, BE32(1) + BE32(0) + BE32(23) + BE32(-1) + BE32(1)).IsCorruption());
  EXPECT_TRUE(BinError(pg_oid::kInt4Array, BinArray(23, 1, {BE16(1)})).IsCorruption());
  EXPECT_TRUE(BinError(pg_oid::kInt4Array, BinArray(23, 1, {BE32(1)}) + "x").IsCorruption());
  EXPECT_TRUE(BinError(pg_oid::kInt4Array, BE32(-3) + BE32(0) + BE32(23)).IsCorruption());
}

// ----- Enums, domains, unknown types -----

TEST_F(PgValueDecoderTest, EnumFromCatalogIsAString) {
  std::vector<std::string> row = {"90001", "public", "mood", "e", "E", "0", "0", "-1"};
  ASSERT_TRUE(types_.AddFromCatalogRow(row).ok());
  auto dec = Dec(90001);
  EXPECT_EQ(dec->type(), DataType::String());
  EXPECT_FALSE(dec->mapping().warning.has_value());
  EXPECT_EQ(*dec->DecodeText("happy"), Datum("happy"));
  EXPECT_EQ(*dec->DecodeBinary("sad"), Datum("sad"));  // enum_send sends the label
}

TEST_F(PgValueDecoderTest, DomainDecodesAsItsBaseType) {
  // pgoutput's Type message for a domain names the base type.
  types_.AddFromTypeMessage(PgTypeMessage{std::nullopt, 90002, "", "int4"});
  auto dec = Dec(90002);
  EXPECT_EQ(dec->type(), DataType::Int());
  EXPECT_EQ(*dec->DecodeBinary(BE32(-5)), Datum(int64_t{-5}));
  // A numeric(10,2) domain known from the catalog takes the domain's typmod.
  std::vector<std::string> row = {"90003", "public", "price", "d", "N", "0", "1700", std::to_string(NumericTypmod(10, 2))};
  ASSERT_TRUE(types_.AddFromCatalogRow(row).ok());
  EXPECT_EQ(Dec(90003)->type(), DataType::Decimal(10, 2));
  EXPECT_EQ(*Dec(90003)->DecodeText("12.50"), Datum(DecimalValue{1250}));
}

TEST_F(PgValueDecoderTest, UnknownTypeFallsBackToTextWithAWarning) {
  auto dec = Dec(123456);
  EXPECT_EQ(dec->type(), DataType::String());
  ASSERT_TRUE(dec->mapping().warning.has_value());
  EXPECT_THAT(*dec->mapping().warning, HasSubstr("123456"));
  EXPECT_EQ(*dec->DecodeText("(1,2)"), Datum("(1,2)"));
  EXPECT_FALSE(dec->SupportsBinary());
  EXPECT_TRUE(dec->DecodeBinary("xx").status().IsNotSupported());
  // A built-in type without a dedicated mapping (point) falls back the same way, and so does its array.
  auto point = Dec(600);
  EXPECT_EQ(point->type(), DataType::String());
  EXPECT_TRUE(point->mapping().warning.has_value());
  auto boxes = Dec(1020);  // box[] uses ';' between elements: kept whole
  EXPECT_EQ(boxes->type(), DataType::String());
  EXPECT_EQ(*boxes->DecodeText("{(1,1),(0,0);(2,2),(1,1)}"), Datum("{(1,1),(0,0);(2,2),(1,1)}"));
}

// ----- Tuple values and rows -----

TEST_F(PgValueDecoderTest, TupleValueKinds) {
  auto dec = Dec(pg_oid::kInt4);
  EXPECT_TRUE(dec->Decode(PgTupleValue{PgTupleValueKind::kNull, ""})->is_null());
  EXPECT_EQ(*dec->Decode(PgTupleValue{PgTupleValueKind::kText, "7"}), Datum(int64_t{7}));
  EXPECT_EQ(*dec->Decode(PgTupleValue{PgTupleValueKind::kBinary, BE32(7)}), Datum(int64_t{7}));
  EXPECT_TRUE(dec->Decode(PgTupleValue{PgTupleValueKind::kUnchangedToast, ""}).status().IsInvalidArgument());
  EXPECT_TRUE(dec->Decode(PgTupleValue{PgTupleValueKind::kAbsent, ""}).status().IsInvalidArgument());
}

TEST_F(PgValueDecoderTest, RowDecoderMarksUnchangedAndAbsentAsMissingNotNull) {
  PgRelation rel;
  rel.oid = 1;
  rel.namespace_name = "public";
  rel.name = "docs";
  rel.columns = {{true, "id", pg_oid::kInt8, -1},
                 {false, "body", pg_oid::kText, -1},
                 {false, "price", pg_oid::kNumeric, NumericTypmod(8, 3)},
                 {false, "seen", pg_oid::kTimestamptz, -1}};
  auto rd = PgRowDecoder::Create(rel, types_);
  ASSERT_TRUE(rd.ok()) << rd.status().ToString();
  ASSERT_EQ(rd->fields().size(), 4u);
  EXPECT_EQ(rd->fields()[2].name, "price");
  EXPECT_EQ(rd->fields()[2].type, DataType::Decimal(8, 3));
  EXPECT_EQ(rd->fields()[3].type, DataType::TimestampLtz(6));
  EXPECT_EQ(rd->column(1).column(), "public.docs.body");

  PgTuple t;
  t.values = {{PgTupleValueKind::kBinary, BE64(42)},
              {PgTupleValueKind::kUnchangedToast, ""},
              {PgTupleValueKind::kNull, ""},
              {PgTupleValueKind::kText, "2024-03-10 09:59:59+00"}};
  Row row;
  std::vector<bool> missing;
  ASSERT_TRUE(rd->Decode(t, &row, &missing).ok());
  EXPECT_EQ(row[0], Datum(int64_t{42}));
  EXPECT_TRUE(missing[1]);
  EXPECT_TRUE(row[2].is_null());
  EXPECT_FALSE(missing[2]);
  EXPECT_EQ(row[3], Datum(TimestampValue::FromMicros(1710064799000000)));

  PgTuple key;
  key.values = {{PgTupleValueKind::kText, "42"}, {PgTupleValueKind::kAbsent, ""}, {PgTupleValueKind::kAbsent, ""},
                {PgTupleValueKind::kAbsent, ""}};
  ASSERT_TRUE(rd->Decode(key, &row, &missing).ok());
  EXPECT_EQ(missing, (std::vector<bool>{false, true, true, true}));

  PgTuple short_tuple;
  short_tuple.values = {{PgTupleValueKind::kNull, ""}};
  EXPECT_TRUE(rd->Decode(short_tuple, &row, &missing).IsCorruption());

  // A decode error names the column.
  PgTuple bad = t;
  bad.values[2] = {PgTupleValueKind::kText, "1.23456"};
  Status s = rd->Decode(bad, &row, &missing);
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_THAT(s.message(), HasSubstr("public.docs.price"));
}

TEST_F(PgValueDecoderTest, DecodePgBinaryValueForCopy) {
  auto v = DecodePgBinaryValue(pg_oid::kDate, -1, BE32(0), types_);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, Datum(int64_t{10957}));
  EXPECT_TRUE(DecodePgBinaryValue(pg_oid::kInt4, -1, "abc", types_).status().IsCorruption());
}

TEST_F(PgValueDecoderTest, FixedSizeBinaryTypesRejectEveryWrongLength) {
  for (PgOid oid : {pg_oid::kBool, pg_oid::kInt2, pg_oid::kInt4, pg_oid::kInt8, pg_oid::kOid, pg_oid::kFloat4,
                    pg_oid::kFloat8, pg_oid::kMoney, pg_oid::kChar, pg_oid::kUuid, pg_oid::kDate, pg_oid::kTime,
                    pg_oid::kTimetz, pg_oid::kTimestamp, pg_oid::kTimestamptz, pg_oid::kInterval, pg_oid::kPgLsn}) {
    auto dec = Dec(oid);
    int ok_lengths = 0;
    for (size_t len = 0; len <= 20; ++len) {
      auto r = dec->DecodeBinary(std::string(len, '\0'));
      if (r.ok()) {
        ++ok_lengths;
      } else {
        EXPECT_TRUE(r.status().IsCorruption()) << oid << " " << r.status().ToString();
      }
    }
    EXPECT_EQ(ok_lengths, 1) << "type OID " << oid;
  }
}

// The in-place decoder used by the initial copy must agree with DecodeBinary on every value and every
// error, whatever the reused slot held before (another type's value, a longer or shorter string).
TEST_F(PgValueDecoderTest, DecodeBinaryIntoAgreesWithDecodeBinaryWhateverTheSlotHeld) {
  const std::string long_text(40, 'x');
  const std::vector<std::pair<PgOid, std::string>> cases = {
      {pg_oid::kInt8, BE64(-42)}, {pg_oid::kInt8, BE32(1)}, {pg_oid::kInt4, BE32(-7)}, {pg_oid::kInt4, ""},
      {pg_oid::kInt2, BE16(300)}, {pg_oid::kInt2, BE32(1)}, {pg_oid::kFloat8, BE64(0x400921FB54442D18LL)},
      {pg_oid::kFloat8, BE16(1)}, {pg_oid::kFloat4, BE32(0x3F800000)}, {pg_oid::kBool, Bytes({1})},
      {pg_oid::kBool, Bytes({0})}, {pg_oid::kBool, Bytes({1, 0})}, {pg_oid::kText, ""}, {pg_oid::kText, "ab"},
      {pg_oid::kText, long_text}, {pg_oid::kText, long_text + long_text}, {pg_oid::kBytea, Bytes({0, 255, 7})},
      {pg_oid::kJson, "{\"a\": 1}"}, {pg_oid::kJsonb, "\x01{}"}, {pg_oid::kJsonb, "\x02{}"},
      {pg_oid::kTimestamptz, BE64(0)}, {pg_oid::kTimestamptz, BE64(-1234567)},
      {pg_oid::kTimestamptz, BE64(std::numeric_limits<int64_t>::max())},
      {pg_oid::kTimestamp, BE64(std::numeric_limits<int64_t>::min())}, {pg_oid::kTimestamp, BE32(0)},
      {pg_oid::kDate, BE32(1)}, {pg_oid::kNumeric, NumericSend("-12.5")}, {pg_oid::kUuid, std::string(16, '\x11')},
      {pg_oid::kInterval, std::string(16, '\0')}};
  const std::vector<Datum> previous = {Datum(), Datum(int64_t{5}), Datum(std::string("ab")), Datum(long_text + "yz"),
                                       Datum(2.5), Datum::Nested({Datum(int64_t{1})})};
  for (const auto& [oid, bytes] : cases) {
    auto dec = Dec(oid);
    auto want = dec->DecodeBinary(bytes);
    for (const Datum& before : previous) {
      Datum slot = before;
      Status st = dec->DecodeBinaryInto(bytes, &slot);
      ASSERT_EQ(st.ok(), want.ok()) << "type OID " << oid << " bytes " << HexEncode(bytes) << ": " << st.ToString();
      if (want.ok()) {
        EXPECT_EQ(slot, *want) << "type OID " << oid << " bytes " << HexEncode(bytes);
      } else {
        EXPECT_EQ(st.ToString(), want.status().ToString());
      }
    }
  }
}

}  // namespace
}  // namespace tide
