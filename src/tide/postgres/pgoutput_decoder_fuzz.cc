// libFuzzer target for everything that parses bytes from PostgreSQL: the replication CopyData envelope,
// pgoutput messages (with the decoder's stream-block and relation state carried across messages), and
// text and binary column values of every mapped type, including whole tuples through PgRowDecoder.
// Build and run: scripts/fuzz-pgoutput.sh [seconds]. Seeds: tests/fuzz/pgoutput_corpus/.
//
// Input layout (so that one input exercises a sequence, as a real stream does):
//   byte 0            decoder options: proto_version = 1 + (b & 3); streaming 'parallel' when b & 4
//   then records      Byte1 kind, UInt16 BE length, that many bytes; a short final record is cut off
//     kind % 4 == 0   one pgoutput message (XLogData payload) for the decoder
//     kind % 4 == 1   one replication CopyData message ('w' payloads go to the decoder too)
//     kind % 4 == 2   a text value: UInt16 BE type index into kTypes, then the value
//     kind % 4 == 3   a binary value: likewise
// Every decoded Relation gets a PgRowDecoder; every decoded Insert/Update/Delete tuple is run through it.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <unordered_map>

#include "tide/base/bytes.h"
#include "tide/base/logging.h"
#include "tide/postgres/pg_type.h"
#include "tide/postgres/pg_value_decoder.h"
#include "tide/postgres/pgoutput_decoder.h"
#include "tide/postgres/replication_envelope.h"

namespace {

using namespace tide;

struct TypeCase {
  PgOid oid;
  int32_t typmod;
};

constexpr TypeCase kTypes[] = {
    {pg_oid::kBool, -1},       {pg_oid::kInt2, -1},         {pg_oid::kInt4, -1},
    {pg_oid::kInt8, -1},       {pg_oid::kOid, -1},          {pg_oid::kFloat4, -1},
    {pg_oid::kFloat8, -1},     {pg_oid::kNumeric, -1},      {pg_oid::kNumeric, ((12 << 16) | 2) + 4},
    {pg_oid::kNumeric, ((38 << 16) | 10) + 4}, {pg_oid::kNumeric, ((5 << 16) | (-2 & 0x7FF)) + 4},
    {pg_oid::kMoney, -1},      {pg_oid::kText, -1},         {pg_oid::kVarchar, 14},
    {pg_oid::kBpchar, 7},      {pg_oid::kChar, -1},         {pg_oid::kJson, -1},
    {pg_oid::kJsonb, -1},      {pg_oid::kBytea, -1},        {pg_oid::kUuid, -1},
    {pg_oid::kDate, -1},       {pg_oid::kTime, -1},         {pg_oid::kTimetz, -1},
    {pg_oid::kTimestamp, -1},  {pg_oid::kTimestamptz, 3},   {pg_oid::kInterval, -1},
    {pg_oid::kInet, -1},       {pg_oid::kCidr, -1},         {pg_oid::kMacaddr, -1},
    {pg_oid::kMacaddr8, -1},   {pg_oid::kBit, -1},          {pg_oid::kVarbit, -1},
    {pg_oid::kPgLsn, -1},      {pg_oid::kInt4Array, -1},    {pg_oid::kTextArray, -1},
    {pg_oid::kNumericArray, ((10 << 16) | 2) + 4},          {pg_oid::kTimestamptzArray, -1},
    {pg_oid::kByteaArray, -1}, {pg_oid::kDateArray, -1},    {pg_oid::kUuidArray, -1},
    {600, -1},                 {424242, -1},
};
constexpr size_t kTypeCount = sizeof(kTypes) / sizeof(kTypes[0]);

struct Fixture {
  Fixture() {
    InitLogging(LogLevel::kOff);
    for (size_t i = 0; i < kTypeCount; ++i) {
      auto d = PgValueDecoder::ForType(kTypes[i].oid, kTypes[i].typmod, types, "fuzz.t.c");
      if (!d.ok()) __builtin_trap();  // mapping of a fixed type list never fails
      decoders[i] = *d;
    }
  }
  PgTypeRegistry types;
  std::shared_ptr<const PgValueDecoder> decoders[kTypeCount];
};

Fixture& GetFixture() {
  static Fixture* f = new Fixture();
  return *f;
}

void DecodeTuple(const std::unordered_map<PgOid, PgRowDecoder>& rows, PgOid oid, const PgTuple& tuple) {
  auto it = rows.find(oid);
  if (it == rows.end()) return;
  Row row;
  std::vector<bool> missing;
  it->second.Decode(tuple, &row, &missing).IgnoreError();
}

void FeedPgOutput(PgOutputDecoder& dec, PgTypeRegistry& types, std::unordered_map<PgOid, PgRowDecoder>& rows,
                  std::string_view payload) {
  auto m = dec.Decode(payload);
  if (!m.ok()) {
    if (!m.status().IsCorruption()) __builtin_trap();  // malformed input must be Corruption
    return;
  }
  if (auto* rel = std::get_if<PgRelation>(&*m)) {
    auto rd = PgRowDecoder::Create(*rel, types);
    if (rd.ok()) rows.insert_or_assign(rel->oid, std::move(*rd));
  } else if (auto* t = std::get_if<PgTypeMessage>(&*m)) {
    types.AddFromTypeMessage(*t);
  } else if (auto* ins = std::get_if<PgInsert>(&*m)) {
    DecodeTuple(rows, ins->relation_oid, ins->new_tuple);
  } else if (auto* upd = std::get_if<PgUpdate>(&*m)) {
    DecodeTuple(rows, upd->relation_oid, upd->old_tuple);
    DecodeTuple(rows, upd->relation_oid, upd->new_tuple);
  } else if (auto* del = std::get_if<PgDelete>(&*m)) {
    DecodeTuple(rows, del->relation_oid, del->old_tuple);
  }
  (void)PgOutputMessageName(*m);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Fixture& fx = GetFixture();
  if (size == 0) return 0;
  std::string_view in(reinterpret_cast<const char*>(data), size);
  PgOutputDecoderOptions options;
  options.proto_version = 1 + (data[0] & 3);
  options.streaming_parallel = (data[0] & 4) != 0;
  PgOutputDecoder dec(options);
  PgTypeRegistry types;
  std::unordered_map<PgOid, PgRowDecoder> rows;

  size_t pos = 1;
  while (pos + 3 <= in.size()) {
    const uint8_t kind = static_cast<uint8_t>(in[pos]);
    size_t len = LoadBE<uint16_t>(in.data() + pos + 1);
    pos += 3;
    if (len > in.size() - pos) len = in.size() - pos;
    std::string_view body = in.substr(pos, len);
    pos += len;
    switch (kind % 4) {
      case 0:
        FeedPgOutput(dec, types, rows, body);
        break;
      case 1: {
        auto env = DecodeReplicationCopyData(body);
        if (env.ok()) {
          if (auto* x = std::get_if<PgXLogData>(&*env)) FeedPgOutput(dec, types, rows, x->payload);
        }
        break;
      }
      case 2:
      case 3: {
        if (body.size() < 2) break;
        const size_t idx = LoadBE<uint16_t>(body.data()) % kTypeCount;
        std::string_view value = body.substr(2);
        auto r = (kind % 4 == 2) ? fx.decoders[idx]->DecodeText(value) : fx.decoders[idx]->DecodeBinary(value);
        if (r.ok()) {
          (void)DatumToString(*r, fx.decoders[idx]->type());
        }
        break;
      }
    }
  }
  return 0;
}
