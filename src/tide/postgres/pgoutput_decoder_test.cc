#include "tide/postgres/pgoutput_decoder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/value_or_fail.h"
#include "tide/base/bytes.h"
#include "tide/postgres/replication_envelope.h"

namespace tide {
namespace {

using ::testing::HasSubstr;

// Builds wire bytes: big-endian integers, NUL-terminated strings.
class Wire {
 public:
  explicit Wire(char tag) { b_.push_back(tag); }
  Wire() = default;
  Wire& U8(uint8_t v) { b_.push_back(static_cast<char>(v)); return *this; }
  Wire& U16(uint16_t v) { AppendBE(&b_, v); return *this; }
  Wire& U32(uint32_t v) { AppendBE(&b_, v); return *this; }
  Wire& I32(int32_t v) { AppendBE(&b_, v); return *this; }
  Wire& U64(uint64_t v) { AppendBE(&b_, v); return *this; }
  Wire& I64(int64_t v) { AppendBE(&b_, v); return *this; }
  Wire& Str(std::string_view s) { b_.append(s); b_.push_back('\0'); return *this; }
  Wire& Raw(std::string_view s) { b_.append(s); return *this; }
  Wire& Text(std::string_view s) { U8('t'); I32(static_cast<int32_t>(s.size())); return Raw(s); }
  Wire& Bin(std::string_view s) { U8('b'); I32(static_cast<int32_t>(s.size())); return Raw(s); }
  Wire& Null() { return U8('n'); }
  Wire& Unchanged() { return U8('u'); }
  const std::string& bytes() const { return b_; }

 private:
  std::string b_;
};

// Relation 16384 public.accounts: id int4 (key), name text, note text, balance numeric(12,2).
Wire AccountsRelation(std::optional<uint32_t> xid = std::nullopt) {
  Wire w('R');
  if (xid) w.U32(*xid);
  w.U32(16384).Str("public").Str("accounts").U8('d').U16(4);
  w.U8(1).Str("id").U32(23).I32(-1);
  w.U8(0).Str("name").U32(25).I32(-1);
  w.U8(0).Str("note").U32(25).I32(-1);
  w.U8(0).Str("balance").U32(1700).I32((12 << 16 | 2) + 4);
  return w;
}

template <typename T>
const T& As(const Result<PgOutputMessage>& r) {
  testing::CheckOrFail(r.ok(), "decoding failed: " + (r.ok() ? std::string() : r.status().ToString()));
  testing::CheckOrFail(std::holds_alternative<T>(*r), "the decoded message is of another kind");
  return std::get<T>(*r);
}

TEST(PgOutputDecoderTest, BeginAndCommit) {
  PgOutputDecoder dec;
  auto begin = dec.Decode(Wire('B').U64(0x16B3748).I64(725000000123456).U32(777).bytes());
  const auto& b = As<PgBegin>(begin);
  EXPECT_EQ(b.final_lsn, 0x16B3748u);
  EXPECT_EQ(b.commit_time, 725000000123456);
  EXPECT_EQ(b.xid, 777u);
  EXPECT_EQ(PgOutputMessageName(*begin), "Begin");
  EXPECT_EQ(PgOutputMessageTag(*begin), 'B');

  auto commit = dec.Decode(Wire('C').U8(0).U64(0x100).U64(0x180).I64(-5).bytes());
  const auto& c = As<PgCommit>(commit);
  EXPECT_EQ(c.flags, 0);
  EXPECT_EQ(c.commit_lsn, 0x100u);
  EXPECT_EQ(c.end_lsn, 0x180u);
  EXPECT_EQ(c.commit_time, -5);
}

TEST(PgOutputDecoderTest, Origin) {
  PgOutputDecoder dec;
  auto m = dec.Decode(Wire('O').U64(0xFFFFFFFF00000001ULL).Str("node_a").bytes());
  const auto& o = As<PgOrigin>(m);
  EXPECT_EQ(o.origin_commit_lsn, 0xFFFFFFFF00000001ULL);
  EXPECT_EQ(o.name, "node_a");
}

TEST(PgOutputDecoderTest, RelationAndCache) {
  PgOutputDecoder dec;
  auto m = dec.Decode(AccountsRelation().bytes());
  const auto& r = As<PgRelation>(m);
  EXPECT_EQ(r.oid, 16384u);
  EXPECT_EQ(r.namespace_name, "public");
  EXPECT_EQ(r.name, "accounts");
  EXPECT_EQ(r.replica_identity, PgReplicaIdentity::kDefault);
  ASSERT_EQ(r.columns.size(), 4u);
  EXPECT_TRUE(r.columns[0].is_key);
  EXPECT_EQ(r.columns[0].name, "id");
  EXPECT_EQ(r.columns[0].type_oid, 23u);
  EXPECT_EQ(r.columns[0].type_modifier, -1);
  EXPECT_FALSE(r.columns[1].is_key);
  EXPECT_EQ(r.columns[3].type_modifier, (12 << 16 | 2) + 4);
  EXPECT_FALSE(r.schema_change.has_value());
  EXPECT_FALSE(r.stream_xid.has_value());
  ASSERT_NE(dec.relations().Find(16384), nullptr);
  EXPECT_EQ(dec.relations().Find(16384)->name, "accounts");

  // The same description again (sent after any cache invalidation) is not a schema change.
  auto again = dec.Decode(AccountsRelation().bytes());
  EXPECT_FALSE(As<PgRelation>(again).schema_change.has_value());
}

TEST(PgOutputDecoderTest, RelationWithChangedColumnsIsASchemaChange) {
  PgOutputDecoder dec;
  ASSERT_TRUE(dec.Decode(AccountsRelation().bytes()).ok());
  // ALTER TABLE: note dropped, balance widened to numeric(14,2), a column "email" added, identity full.
  Wire w('R');
  w.U32(16384).Str("public").Str("accounts").U8('f').U16(4);
  w.U8(1).Str("id").U32(23).I32(-1);
  w.U8(1).Str("name").U32(25).I32(-1);
  w.U8(1).Str("balance").U32(1700).I32((14 << 16 | 2) + 4);
  w.U8(1).Str("email").U32(1043).I32(104);
  auto m = dec.Decode(w.bytes());
  const auto& r = As<PgRelation>(m);
  ASSERT_TRUE(r.schema_change.has_value());
  EXPECT_EQ(r.schema_change->old_replica_identity, PgReplicaIdentity::kDefault);
  EXPECT_EQ(r.schema_change->old_name, "accounts");
  ASSERT_EQ(r.schema_change->old_columns.size(), 4u);
  EXPECT_EQ(r.schema_change->old_columns[2].name, "note");
  EXPECT_EQ(r.schema_change->old_columns[3].type_modifier, (12 << 16 | 2) + 4);
  ASSERT_EQ(r.schema_change->new_columns.size(), 4u);
  EXPECT_EQ(r.schema_change->new_columns[3].name, "email");
  EXPECT_EQ(r.replica_identity, PgReplicaIdentity::kFull);
  EXPECT_EQ(dec.relations().Find(16384)->columns[3].name, "email");
}

TEST(PgOutputDecoderTest, RenamedTableIsASchemaChange) {
  PgOutputDecoder dec;
  ASSERT_TRUE(dec.Decode(AccountsRelation().bytes()).ok());
  Wire w('R');
  w.U32(16384).Str("ledger").Str("accounts2").U8('d').U16(4);
  w.U8(1).Str("id").U32(23).I32(-1);
  w.U8(0).Str("name").U32(25).I32(-1);
  w.U8(0).Str("note").U32(25).I32(-1);
  w.U8(0).Str("balance").U32(1700).I32((12 << 16 | 2) + 4);
  auto m = dec.Decode(w.bytes());
  const auto& r = As<PgRelation>(m);
  ASSERT_TRUE(r.schema_change.has_value());
  EXPECT_EQ(r.schema_change->old_namespace_name, "public");
  EXPECT_EQ(r.schema_change->old_name, "accounts");
  EXPECT_EQ(r.schema_change->old_columns, r.schema_change->new_columns);
}

TEST(PgOutputDecoderTest, TypeMessage) {
  PgOutputDecoder dec;
  auto m = dec.Decode(Wire('Y').U32(90001).Str("public").Str("mood").bytes());
  const auto& t = As<PgTypeMessage>(m);
  EXPECT_EQ(t.oid, 90001u);
  EXPECT_EQ(t.namespace_name, "public");
  EXPECT_EQ(t.name, "mood");
}

TEST(PgOutputDecoderTest, InsertWithEveryValueKind) {
  PgOutputDecoder dec;
  ASSERT_TRUE(dec.Decode(AccountsRelation().bytes()).ok());
  const std::string multibyte = "Zoë ☃ 東京 🚀";
  Wire w('I');
  w.U32(16384).U8('N').U16(4).Text("42").Text(multibyte).Null().Bin(std::string("\x00\x01\x00\x00", 4));
  auto m = dec.Decode(w.bytes());
  const auto& ins = As<PgInsert>(m);
  EXPECT_EQ(ins.relation_oid, 16384u);
  ASSERT_EQ(ins.new_tuple.values.size(), 4u);
  EXPECT_EQ(ins.new_tuple.values[0].kind, PgTupleValueKind::kText);
  EXPECT_EQ(ins.new_tuple.values[0].bytes, "42");
  EXPECT_EQ(ins.new_tuple.values[1].bytes, multibyte);
  EXPECT_EQ(ins.new_tuple.values[2].kind, PgTupleValueKind::kNull);
  EXPECT_EQ(ins.new_tuple.values[3].kind, PgTupleValueKind::kBinary);
  EXPECT_EQ(ins.new_tuple.values[3].bytes, std::string("\x00\x01\x00\x00", 4));
}

TEST(PgOutputDecoderTest, EmptyTextValueIsNotNull) {
  PgOutputDecoder dec;
  ASSERT_TRUE(dec.Decode(AccountsRelation().bytes()).ok());
  auto m = dec.Decode(Wire('I').U32(16384).U8('N').U16(4).Text("1").Text("").Null().Null().bytes());
  const auto& ins = As<PgInsert>(m);
  EXPECT_EQ(ins.new_tuple.values[1].kind, PgTupleValueKind::kText);
  EXPECT_EQ(ins.new_tuple.values[1].bytes, "");
}

TEST(PgOutputDecoderTest, UpdateWithoutOldTupleKeepsUnchangedToast) {
  PgOutputDecoder dec;
  ASSERT_TRUE(dec.Decode(AccountsRelation().bytes()).ok());
  auto m = dec.Decode(Wire('U').U32(16384).U8('N').U16(4).Text("1").Text("bob").Unchanged().Null().bytes());
  const auto& u = As<PgUpdate>(m);
  EXPECT_EQ(u.old_kind, PgOldTupleKind::kNone);
  EXPECT_TRUE(u.old_tuple.values.empty());
  EXPECT_EQ(u.new_tuple.values[2].kind, PgTupleValueKind::kUnchangedToast);
  EXPECT_NE(u.new_tuple.values[2].kind, PgTupleValueKind::kNull);
  EXPECT_EQ(u.new_tuple.values[3].kind, PgTupleValueKind::kNull);
}

TEST(PgOutputDecoderTest, UpdateWithKeyOldTupleMarksNonKeyColumnsAbsent) {
  PgOutputDecoder dec;
  ASSERT_TRUE(dec.Decode(AccountsRelation().bytes()).ok());
  Wire w('U');
  w.U32(16384).U8('K').U16(4).Text("1").Null().Null().Null();
  w.U8('N').U16(4).Text("2").Text("bob").Unchanged().Text("10.00");
  auto m = dec.Decode(w.bytes());
  const auto& u = As<PgUpdate>(m);
  EXPECT_EQ(u.old_kind, PgOldTupleKind::kKey);
  ASSERT_EQ(u.old_tuple.values.size(), 4u);
  EXPECT_EQ(u.old_tuple.values[0].kind, PgTupleValueKind::kText);
  EXPECT_EQ(u.old_tuple.values[0].bytes, "1");
  for (int i = 1; i < 4; ++i) EXPECT_EQ(u.old_tuple.values[i].kind, PgTupleValueKind::kAbsent) << i;
  EXPECT_EQ(u.new_tuple.values[0].bytes, "2");
  EXPECT_EQ(u.new_tuple.values[3].bytes, "10.00");
}

TEST(PgOutputDecoderTest, UpdateWithFullOldTupleKeepsRealNulls) {
  PgOutputDecoder dec;
  ASSERT_TRUE(dec.Decode(AccountsRelation().bytes()).ok());
  Wire w('U');
  w.U32(16384).U8('O').U16(4).Text("1").Text("al").Null().Text("1.00");
  w.U8('N').U16(4).Text("1").Text("bob").Null().Text("1.00");
  auto m = dec.Decode(w.bytes());
  const auto& u = As<PgUpdate>(m);
  EXPECT_EQ(u.old_kind, PgOldTupleKind::kFull);
  EXPECT_EQ(u.old_tuple.values[1].bytes, "al");
  EXPECT_EQ(u.old_tuple.values[2].kind, PgTupleValueKind::kNull);
  EXPECT_EQ(u.new_tuple.values[1].bytes, "bob");
}

TEST(PgOutputDecoderTest, DeleteWithKeyAndWithFullOldTuple) {
  PgOutputDecoder dec;
  ASSERT_TRUE(dec.Decode(AccountsRelation().bytes()).ok());
  auto k = dec.Decode(Wire('D').U32(16384).U8('K').U16(4).Text("9").Null().Null().Null().bytes());
  const auto& dk = As<PgDelete>(k);
  EXPECT_EQ(dk.old_kind, PgOldTupleKind::kKey);
  EXPECT_EQ(dk.old_tuple.values[0].bytes, "9");
  EXPECT_EQ(dk.old_tuple.values[1].kind, PgTupleValueKind::kAbsent);

  auto o = dec.Decode(Wire('D').U32(16384).U8('O').U16(4).Text("9").Text("x").Null().Text("0.00").bytes());
  const auto& d = As<PgDelete>(o);
  EXPECT_EQ(d.old_kind, PgOldTupleKind::kFull);
  EXPECT_EQ(d.old_tuple.values[2].kind, PgTupleValueKind::kNull);
  EXPECT_EQ(d.old_tuple.values[3].bytes, "0.00");
}

TEST(PgOutputDecoderTest, Truncate) {
  PgOutputDecoder dec;
  auto m = dec.Decode(Wire('T').U32(3).U8(3).U32(16384).U32(16390).U32(16400).bytes());
  const auto& t = As<PgTruncate>(m);
  EXPECT_TRUE(t.cascade);
  EXPECT_TRUE(t.restart_identity);
  EXPECT_EQ(t.relation_oids, (std::vector<PgOid>{16384, 16390, 16400}));

  auto plain = dec.Decode(Wire('T').U32(1).U8(0).U32(7).bytes());
  EXPECT_FALSE(As<PgTruncate>(plain).cascade);
  EXPECT_FALSE(As<PgTruncate>(plain).restart_identity);
  auto restart = dec.Decode(Wire('T').U32(1).U8(2).U32(7).bytes());
  EXPECT_FALSE(As<PgTruncate>(restart).cascade);
  EXPECT_TRUE(As<PgTruncate>(restart).restart_identity);
}

TEST(PgOutputDecoderTest, LogicalMessage) {
  PgOutputDecoder dec;
  const std::string content("wm\x00\xff", 4);
  auto m = dec.Decode(Wire('M').U8(1).U64(0x2000).Str("tide.watermark").I32(4).Raw(content).bytes());
  const auto& lm = As<PgLogicalMessage>(m);
  EXPECT_TRUE(lm.transactional);
  EXPECT_EQ(lm.lsn, 0x2000u);
  EXPECT_EQ(lm.prefix, "tide.watermark");
  EXPECT_EQ(lm.content, content);
  auto nt = dec.Decode(Wire('M').U8(0).U64(1).Str("").I32(0).bytes());
  EXPECT_FALSE(As<PgLogicalMessage>(nt).transactional);
  EXPECT_EQ(As<PgLogicalMessage>(nt).content, "");
}

TEST(PgOutputDecoderTest, StreamBlockCarriesXidPrefixOnDataMessages) {
  PgOutputDecoder dec(PgOutputDecoderOptions{.proto_version = 2});
  auto start = dec.Decode(Wire('S').U32(900).U8(1).bytes());
  EXPECT_EQ(As<PgStreamStart>(start).xid, 900u);
  EXPECT_TRUE(As<PgStreamStart>(start).first_segment);
  EXPECT_TRUE(dec.in_stream_block());
  EXPECT_EQ(dec.stream_xid(), 900u);

  auto rel = dec.Decode(AccountsRelation(900).bytes());
  EXPECT_EQ(As<PgRelation>(rel).stream_xid, std::optional<PgXid>(900));
  auto type = dec.Decode(Wire('Y').U32(900).U32(90001).Str("public").Str("mood").bytes());
  EXPECT_EQ(As<PgTypeMessage>(type).stream_xid, std::optional<PgXid>(900));
  // A subtransaction's change carries the subtransaction's xid.
  auto ins = dec.Decode(Wire('I').U32(901).U32(16384).U8('N').U16(4).Text("1").Null().Null().Null().bytes());
  EXPECT_EQ(As<PgInsert>(ins).stream_xid, std::optional<PgXid>(901));
  auto upd = dec.Decode(Wire('U').U32(900).U32(16384).U8('N').U16(4).Text("1").Null().Null().Null().bytes());
  EXPECT_EQ(As<PgUpdate>(upd).stream_xid, std::optional<PgXid>(900));
  auto del = dec.Decode(Wire('D').U32(900).U32(16384).U8('K').U16(4).Text("1").Null().Null().Null().bytes());
  EXPECT_EQ(As<PgDelete>(del).stream_xid, std::optional<PgXid>(900));
  auto trunc = dec.Decode(Wire('T').U32(900).U32(1).U8(0).U32(16384).bytes());
  EXPECT_EQ(As<PgTruncate>(trunc).stream_xid, std::optional<PgXid>(900));
  auto msg = dec.Decode(Wire('M').U32(900).U8(1).U64(5).Str("p").I32(1).Raw("x").bytes());
  EXPECT_EQ(As<PgLogicalMessage>(msg).stream_xid, std::optional<PgXid>(900));
  // Origin has no xid prefix even inside a block.
  auto origin = dec.Decode(Wire('O').U64(0).Str("n").bytes());
  EXPECT_EQ(As<PgOrigin>(origin).name, "n");

  auto stop = dec.Decode(Wire('E').bytes());
  As<PgStreamStop>(stop);
  EXPECT_FALSE(dec.in_stream_block());

  // Outside the block the same messages have no xid prefix.
  auto ins2 = dec.Decode(Wire('I').U32(16384).U8('N').U16(4).Text("1").Null().Null().Null().bytes());
  EXPECT_FALSE(As<PgInsert>(ins2).stream_xid.has_value());

  auto second = dec.Decode(Wire('S').U32(900).U8(0).bytes());
  EXPECT_FALSE(As<PgStreamStart>(second).first_segment);
  ASSERT_TRUE(dec.Decode(Wire('E').bytes()).ok());

  auto commit = dec.Decode(Wire('c').U32(900).U8(0).U64(0x300).U64(0x380).I64(99).bytes());
  const auto& sc = As<PgStreamCommit>(commit);
  EXPECT_EQ(sc.xid, 900u);
  EXPECT_EQ(sc.commit_lsn, 0x300u);
  EXPECT_EQ(sc.end_lsn, 0x380u);
  EXPECT_EQ(sc.commit_time, 99);
}

TEST(PgOutputDecoderTest, StreamAbortVersion2And4) {
  PgOutputDecoder v2(PgOutputDecoderOptions{.proto_version = 2});
  auto a = v2.Decode(Wire('A').U32(900).U32(901).bytes());
  const auto& ab = As<PgStreamAbort>(a);
  EXPECT_EQ(ab.xid, 900u);
  EXPECT_EQ(ab.subtransaction_xid, 901u);
  EXPECT_FALSE(ab.abort_lsn.has_value());
  EXPECT_FALSE(ab.abort_time.has_value());

  // Protocol 4 without parallel streaming: no abort LSN; with it: LSN and time.
  PgOutputDecoder v4(PgOutputDecoderOptions{.proto_version = 4});
  EXPECT_FALSE(As<PgStreamAbort>(v4.Decode(Wire('A').U32(1).U32(1).bytes())).abort_lsn.has_value());
  PgOutputDecoder par(PgOutputDecoderOptions{.proto_version = 4, .streaming_parallel = true});
  auto p = par.Decode(Wire('A').U32(900).U32(900).U64(0x4000).I64(1234).bytes());
  EXPECT_EQ(As<PgStreamAbort>(p).abort_lsn, std::optional<Lsn>(0x4000));
  EXPECT_EQ(As<PgStreamAbort>(p).abort_time, std::optional<PgTimestampMicros>(1234));
  // Missing fields under parallel are corruption, not zeros.
  auto short_abort = par.Decode(Wire('A').U32(900).U32(900).bytes());
  EXPECT_TRUE(short_abort.status().IsCorruption());
}

TEST(PgOutputDecoderTest, TwoPhaseMessages) {
  PgOutputDecoder dec(PgOutputDecoderOptions{.proto_version = 3});
  auto bp = dec.Decode(Wire('b').U64(10).U64(20).I64(30).U32(40).Str("gid-1").bytes());
  const auto& b = As<PgBeginPrepare>(bp);
  EXPECT_EQ(b.prepare_lsn, 10u);
  EXPECT_EQ(b.end_lsn, 20u);
  EXPECT_EQ(b.prepare_time, 30);
  EXPECT_EQ(b.xid, 40u);
  EXPECT_EQ(b.gid, "gid-1");
  EXPECT_TRUE(IsTwoPhaseMessage(*bp));

  auto pr = dec.Decode(Wire('P').U8(0).U64(11).U64(21).I64(31).U32(41).Str("gid-2").bytes());
  EXPECT_EQ(As<PgPrepare>(pr).gid, "gid-2");
  EXPECT_EQ(As<PgPrepare>(pr).end_lsn, 21u);
  EXPECT_EQ(PgOutputMessageName(*pr), "Prepare");

  auto cp = dec.Decode(Wire('K').U8(0).U64(12).U64(22).I64(32).U32(42).Str("gid-3").bytes());
  EXPECT_EQ(As<PgCommitPrepared>(cp).commit_lsn, 12u);
  EXPECT_EQ(As<PgCommitPrepared>(cp).xid, 42u);

  auto rp = dec.Decode(Wire('r').U8(0).U64(13).U64(23).I64(33).I64(34).U32(43).Str("gid-4").bytes());
  const auto& r = As<PgRollbackPrepared>(rp);
  EXPECT_EQ(r.prepare_end_lsn, 13u);
  EXPECT_EQ(r.rollback_end_lsn, 23u);
  EXPECT_EQ(r.prepare_time, 33);
  EXPECT_EQ(r.rollback_time, 34);
  EXPECT_EQ(r.gid, "gid-4");

  auto sp = dec.Decode(Wire('p').U8(0).U64(14).U64(24).I64(35).U32(44).Str("gid-5").bytes());
  EXPECT_EQ(As<PgStreamPrepare>(sp).prepare_lsn, 14u);
  EXPECT_EQ(PgOutputMessageTag(*sp), 'p');
  EXPECT_FALSE(IsTwoPhaseMessage(PgOutputMessage(PgBegin{})));
}

// ----- Malformed input -----

TEST(PgOutputDecoderTest, EveryTruncationOfEveryMessageIsCorruption) {
  PgOutputDecoder seed;
  ASSERT_TRUE(seed.Decode(AccountsRelation().bytes()).ok());
  const std::vector<std::string> messages = {
      Wire('B').U64(1).I64(2).U32(3).bytes(),
      Wire('C').U8(0).U64(1).U64(2).I64(3).bytes(),
      Wire('O').U64(1).Str("o").bytes(),
      AccountsRelation().bytes(),
      Wire('Y').U32(1).Str("public").Str("t").bytes(),
      Wire('I').U32(16384).U8('N').U16(4).Text("1").Text("n").Null().Bin("xy").bytes(),
      Wire('U').U32(16384).U8('K').U16(4).Text("1").Null().Null().Null().U8('N').U16(4).Text("1").Null().Unchanged().Null().bytes(),
      Wire('D').U32(16384).U8('O').U16(4).Text("1").Null().Null().Null().bytes(),
      Wire('T').U32(2).U8(1).U32(5).U32(6).bytes(),
      Wire('M').U8(1).U64(1).Str("p").I32(3).Raw("abc").bytes(),
      Wire('S').U32(1).U8(1).bytes(),
      Wire('c').U32(1).U8(0).U64(1).U64(2).I64(3).bytes(),
      Wire('A').U32(1).U32(2).bytes(),
      Wire('b').U64(1).U64(2).I64(3).U32(4).Str("g").bytes(),
      Wire('P').U8(0).U64(1).U64(2).I64(3).U32(4).Str("g").bytes(),
      Wire('K').U8(0).U64(1).U64(2).I64(3).U32(4).Str("g").bytes(),
      Wire('r').U8(0).U64(1).U64(2).I64(3).I64(4).U32(5).Str("g").bytes(),
      Wire('p').U8(0).U64(1).U64(2).I64(3).U32(4).Str("g").bytes(),
  };
  for (const std::string& full : messages) {
    {
      PgOutputDecoder dec = seed;
      ASSERT_TRUE(dec.Decode(full).ok()) << full[0] << ": " << dec.Decode(full).status().ToString();
    }
    for (size_t len = 0; len < full.size(); ++len) {
      PgOutputDecoder dec = seed;
      auto r = dec.Decode(std::string_view(full).substr(0, len));
      ASSERT_FALSE(r.ok()) << "message '" << full[0] << "' truncated to " << len << " bytes decoded";
      EXPECT_TRUE(r.status().IsCorruption()) << r.status().ToString();
      if (len > 0) {
        EXPECT_THAT(r.status().message(), HasSubstr(std::string("('") + full[0] + "')"));
      }
    }
    // And one extra byte is trailing garbage.
    PgOutputDecoder dec = seed;
    auto r = dec.Decode(full + "Z");
    EXPECT_TRUE(r.status().IsCorruption()) << "message '" << full[0] << "' with a trailing byte";
    EXPECT_THAT(r.status().message(), HasSubstr("trailing"));
  }
}

TEST(PgOutputDecoderTest, ErrorsNameMessageAndOffset) {
  PgOutputDecoder dec;
  auto r = dec.Decode(Wire('B').U64(1).bytes());
  ASSERT_TRUE(r.status().IsCorruption());
  EXPECT_THAT(r.status().message(), HasSubstr("Begin ('B')"));
  EXPECT_THAT(r.status().message(), HasSubstr("offset 9"));

  auto unknown = dec.Decode("Q123");
  EXPECT_TRUE(unknown.status().IsCorruption());
  EXPECT_THAT(unknown.status().message(), HasSubstr("0x51"));
  EXPECT_TRUE(dec.Decode("").status().IsCorruption());
}

TEST(PgOutputDecoderTest, RejectsBadTupleKindsAndLengths) {
  PgOutputDecoder dec;
  ASSERT_TRUE(dec.Decode(AccountsRelation().bytes()).ok());
  auto kind = dec.Decode(Wire('I').U32(16384).U8('N').U16(4).Text("1").U8('x').Null().Null().bytes());
  EXPECT_TRUE(kind.status().IsCorruption());
  EXPECT_THAT(kind.status().message(), HasSubstr("kind 0x78"));
  EXPECT_THAT(kind.status().message(), HasSubstr("\"name\""));

  auto neg = dec.Decode(Wire('I').U32(16384).U8('N').U16(4).U8('t').I32(-1).Null().Null().Null().bytes());
  EXPECT_TRUE(neg.status().IsCorruption());
  EXPECT_THAT(neg.status().message(), HasSubstr("negative"));

  auto huge = dec.Decode(Wire('I').U32(16384).U8('N').U16(4).U8('t').I32(0x7FFFFFFF).Raw("abc").bytes());
  EXPECT_TRUE(huge.status().IsCorruption());

  auto count = dec.Decode(Wire('I').U32(16384).U8('N').U16(3).Text("1").Null().Null().bytes());
  EXPECT_TRUE(count.status().IsCorruption());
  EXPECT_THAT(count.status().message(), HasSubstr("has 3 columns"));

  auto marker = dec.Decode(Wire('I').U32(16384).U8('X').U16(4).bytes());
  EXPECT_TRUE(marker.status().IsCorruption());
  auto del = dec.Decode(Wire('D').U32(16384).U8('N').U16(4).Text("1").Null().Null().Null().bytes());
  EXPECT_TRUE(del.status().IsCorruption());
}

TEST(PgOutputDecoderTest, ChangeForUnknownRelationIsCorruption) {
  PgOutputDecoder dec;
  auto r = dec.Decode(Wire('I').U32(5555).U8('N').U16(1).Text("1").bytes());
  EXPECT_TRUE(r.status().IsCorruption());
  EXPECT_THAT(r.status().message(), HasSubstr("5555"));
}

TEST(PgOutputDecoderTest, HugeCountsFailWithoutAllocating) {
  PgOutputDecoder dec;
  EXPECT_TRUE(dec.Decode(Wire('T').U32(0xFFFFFFFF).U8(0).U32(1).bytes()).status().IsCorruption());
  EXPECT_TRUE(dec.Decode(Wire('R').U32(1).Str("a").Str("b").U8('d').U16(0xFFFF).bytes()).status().IsCorruption());
  EXPECT_TRUE(dec.Decode(Wire('M').U8(0).U64(0).Str("p").I32(-5).bytes()).status().IsCorruption());
  EXPECT_TRUE(dec.Decode(Wire('O').U64(0).Raw("no terminator").bytes()).status().IsCorruption());
  EXPECT_TRUE(dec.Decode(Wire('R').U32(1).Str("a").Str("b").U8('z').U16(0).bytes()).status().IsCorruption());
}

TEST(PgOutputDecoderTest, StreamStateViolationsAreCorruption) {
  PgOutputDecoder dec(PgOutputDecoderOptions{.proto_version = 2});
  EXPECT_TRUE(dec.Decode(Wire('E').bytes()).status().IsCorruption());  // Stop without Start
  ASSERT_TRUE(dec.Decode(Wire('S').U32(7).U8(1).bytes()).ok());
  EXPECT_TRUE(dec.Decode(Wire('S').U32(8).U8(1).bytes()).status().IsCorruption());
  EXPECT_TRUE(dec.Decode(Wire('B').U64(1).I64(2).U32(3).bytes()).status().IsCorruption());
  EXPECT_TRUE(dec.Decode(Wire('C').U8(0).U64(1).U64(2).I64(3).bytes()).status().IsCorruption());
  EXPECT_TRUE(dec.Decode(Wire('c').U32(7).U8(0).U64(1).U64(2).I64(3).bytes()).status().IsCorruption());
  EXPECT_TRUE(dec.Decode(Wire('A').U32(7).U32(7).bytes()).status().IsCorruption());
  dec.Reset();
  EXPECT_FALSE(dec.in_stream_block());
  EXPECT_EQ(dec.relations().size(), 0u);
  EXPECT_TRUE(dec.Decode(Wire('B').U64(1).I64(2).U32(3).bytes()).ok());
}

// ----- Replication envelope -----

TEST(ReplicationEnvelopeTest, XLogData) {
  std::string inner = Wire('B').U64(1).I64(2).U32(3).bytes();
  std::string bytes = Wire('w').U64(0x1000).U64(0x2000).I64(777).Raw(inner).bytes();
  auto r = DecodeReplicationCopyData(bytes);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const auto& x = std::get<PgXLogData>(*r);
  EXPECT_EQ(x.wal_start, 0x1000u);
  EXPECT_EQ(x.wal_end, 0x2000u);
  EXPECT_EQ(x.send_time, 777);
  EXPECT_EQ(x.payload, inner);
}

TEST(ReplicationEnvelopeTest, Keepalive) {
  auto r = DecodeReplicationCopyData(Wire('k').U64(0xABCDEF).I64(-1).U8(1).bytes());
  ASSERT_TRUE(r.ok());
  const auto& k = std::get<PgPrimaryKeepalive>(*r);
  EXPECT_EQ(k.wal_end, 0xABCDEFu);
  EXPECT_EQ(k.send_time, -1);
  EXPECT_TRUE(k.reply_requested);
  auto no = DecodeReplicationCopyData(Wire('k').U64(1).I64(1).U8(0).bytes());
  EXPECT_FALSE(std::get<PgPrimaryKeepalive>(*no).reply_requested);
}

TEST(ReplicationEnvelopeTest, MalformedEnvelopes) {
  const std::string w = Wire('w').U64(1).U64(2).I64(3).bytes();
  for (size_t len = 0; len < w.size(); ++len) {
    EXPECT_TRUE(DecodeReplicationCopyData(w.substr(0, len)).status().IsCorruption()) << len;
  }
  const std::string k = Wire('k').U64(1).I64(2).U8(0).bytes();
  for (size_t len = 0; len < k.size(); ++len) {
    EXPECT_TRUE(DecodeReplicationCopyData(k.substr(0, len)).status().IsCorruption()) << len;
  }
  EXPECT_TRUE(DecodeReplicationCopyData(k + "x").status().IsCorruption());
  auto unknown = DecodeReplicationCopyData("zzzz");
  EXPECT_TRUE(unknown.status().IsCorruption());
  EXPECT_THAT(unknown.status().message(), HasSubstr("0x7a"));
}

TEST(ReplicationEnvelopeTest, StandbyStatusUpdateLayout) {
  PgStandbyStatusUpdate u;
  u.write_lsn = 0x0102030405060708ULL;
  u.flush_lsn = 0x10;
  u.apply_lsn = 0x20;
  u.client_time = 0x7FFFFFFFFFFFFFFFLL;
  u.reply_requested = true;
  const std::string bytes = EncodeStandbyStatusUpdate(u);
  ASSERT_EQ(bytes.size(), 34u);
  EXPECT_EQ(bytes, Wire('r').U64(0x0102030405060708ULL).U64(0x10).U64(0x20).I64(0x7FFFFFFFFFFFFFFFLL).U8(1).bytes());
  u.reply_requested = false;
  EXPECT_EQ(EncodeStandbyStatusUpdate(u).back(), '\0');
}

}  // namespace
}  // namespace tide
