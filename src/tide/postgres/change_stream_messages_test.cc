// ChangeStream fed crafted pgoutput messages (no server): how relation descriptions follow the
// transactions that carry them across a reconnect in the middle of a transaction, and across a
// rolled-back savepoint of a streamed transaction.
#include <gtest/gtest.h>

#include <variant>

#include "tide/base/bytes.h"
#include "tide/postgres/change_stream.h"

namespace tide {
namespace {

// Builds wire bytes: big-endian integers, NUL-terminated strings.
class Wire {
 public:
  explicit Wire(char tag) { b_.push_back(tag); }
  Wire& U8(uint8_t v) { b_.push_back(static_cast<char>(v)); return *this; }
  Wire& U16(uint16_t v) { AppendBE(&b_, v); return *this; }
  Wire& U32(uint32_t v) { AppendBE(&b_, v); return *this; }
  Wire& I32(int32_t v) { AppendBE(&b_, v); return *this; }
  Wire& U64(uint64_t v) { AppendBE(&b_, v); return *this; }
  Wire& I64(int64_t v) { AppendBE(&b_, v); return *this; }
  Wire& Str(std::string_view s) { b_.append(s); b_.push_back('\0'); return *this; }
  Wire& Text(std::string_view s) {
    U8('t');
    I32(static_cast<int32_t>(s.size()));
    b_.append(s);
    return *this;
  }
  const std::string& bytes() const { return b_; }

 private:
  std::string b_;
};

constexpr uint32_t kOid = 16384;

// public.items: id int4 (key), name text, and, when `with_price`, price int8.
std::string Relation(bool with_price, std::optional<uint32_t> xid = std::nullopt) {
  Wire w('R');
  if (xid) w.U32(*xid);
  w.U32(kOid).Str("public").Str("items").U8('d').U16(with_price ? 3 : 2);
  w.U8(1).Str("id").U32(23).I32(-1);
  w.U8(0).Str("name").U32(25).I32(-1);
  if (with_price) w.U8(0).Str("price").U32(20).I32(-1);
  return w.bytes();
}

std::string Insert(int id, bool with_price, std::optional<uint32_t> xid = std::nullopt) {
  Wire w('I');
  if (xid) w.U32(*xid);
  w.U32(kOid).U8('N').U16(with_price ? 3 : 2).Text(std::to_string(id)).Text("n" + std::to_string(id));
  if (with_price) w.Text(std::to_string(id * 10));
  return w.bytes();
}

std::string Begin(Lsn final_lsn, uint32_t xid) { return Wire('B').U64(final_lsn).I64(0).U32(xid).bytes(); }
std::string Commit(Lsn lsn) { return Wire('C').U8(0).U64(lsn).U64(lsn + 8).I64(0).bytes(); }

// Every event the fed messages completed, as a string per event: B, C, S<previous cols>-><current cols>,
// I<id>/<cols>.
std::vector<std::string> Drain(ChangeStream& stream) {
  std::vector<std::string> out;
  while (true) {
    auto next = stream.Next(std::chrono::milliseconds(0));
    EXPECT_TRUE(next.ok()) << next.status().ToString();
    if (!next.ok() || !*next) return out;
    const ChangeEvent& e = **next;
    if (std::holds_alternative<BeginTransaction>(e)) {
      out.push_back("B");
    } else if (std::holds_alternative<CommitTransaction>(e)) {
      out.push_back("C");
    } else if (const auto* s = std::get_if<SourceSchemaChange>(&e)) {
      out.push_back("S" + (s->previous ? std::to_string(s->previous->columns.size()) : std::string("-")) + "->" +
                    std::to_string(s->current->columns.size()));
    } else if (const auto* r = std::get_if<RowChange>(&e)) {
      out.push_back("I" + std::to_string(r->new_row[0].as_int()) + "/" + std::to_string(r->relation->columns.size()));
    }
  }
}

void FeedAll(ChangeStream& stream, const std::vector<std::string>& messages) {
  for (const std::string& m : messages) {
    Status s = stream.Feed(m);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
}

using Events = std::vector<std::string>;

TEST(ChangeStreamMessagesTest, ReconnectBeforeCommitRaisesTheSchemaChangeAgain) {
  auto stream = ChangeStream::ForMessages({}, 1);
  FeedAll(*stream, {Begin(0x100, 700), Relation(false), Insert(1, false), Commit(0x100)});
  EXPECT_EQ(Drain(*stream), (Events{"B", "S-->2", "I1/2", "C"}));
  stream->Acknowledge(0x108);  // the first transaction is durable downstream

  // ALTER TABLE items ADD COLUMN price; INSERT ...: the connection drops before the Commit arrives.
  FeedAll(*stream, {Begin(0x200, 701), Relation(true), Insert(2, true)});
  EXPECT_TRUE(Drain(*stream).empty());
  stream->OnReconnected();

  // A new walsender starts after the acknowledged transaction and sends the second again, with the
  // description (its relation cache is new): the new column must still be announced before its row.
  FeedAll(*stream, {Begin(0x200, 701), Relation(true), Insert(2, true), Commit(0x200)});
  EXPECT_EQ(Drain(*stream), (Events{"B", "S2->3", "I2/3", "C"}));
  ASSERT_NE(stream->FindRelation(kOid), nullptr);
  EXPECT_EQ(stream->FindRelation(kOid)->columns.size(), 3u);
}

TEST(ChangeStreamMessagesTest, ResentDeliveredTransactionsAreDroppedButTheirDescriptionsCount) {
  auto stream = ChangeStream::ForMessages({}, 1);
  FeedAll(*stream, {Begin(0x100, 700), Relation(false), Insert(1, false), Commit(0x100)});
  EXPECT_EQ(Drain(*stream), (Events{"B", "S-->2", "I1/2", "C"}));
  FeedAll(*stream, {Begin(0x200, 701), Relation(true), Insert(2, true), Commit(0x200)});
  EXPECT_EQ(Drain(*stream), (Events{"B", "S2->3", "I2/3", "C"}));
  // Nothing was acknowledged: after a reconnect both come again (and are dropped, delivered already);
  // the third transaction uses the description the second one carried, without a new marker.
  stream->OnReconnected();
  FeedAll(*stream, {Begin(0x100, 700), Relation(false), Insert(1, false), Commit(0x100)});
  EXPECT_TRUE(Drain(*stream).empty());
  FeedAll(*stream, {Begin(0x200, 701), Relation(true), Insert(2, true), Commit(0x200)});
  EXPECT_TRUE(Drain(*stream).empty());
  FeedAll(*stream, {Begin(0x300, 702), Insert(3, true), Commit(0x300)});
  EXPECT_EQ(Drain(*stream), (Events{"B", "I3/3", "C"}));
  EXPECT_EQ(stream->stats().skipped_transactions, 2u);
}

TEST(ChangeStreamMessagesTest, ADescriptionBecomesCurrentOnlyAtItsCommit) {
  auto stream = ChangeStream::ForMessages({}, 1);
  FeedAll(*stream, {Begin(0x100, 700), Relation(false), Insert(1, false), Commit(0x100)});
  Drain(*stream);
  FeedAll(*stream, {Begin(0x200, 701), Relation(true), Insert(2, true)});
  // Not committed yet: the current description is still the old one.
  EXPECT_EQ(stream->FindRelation(kOid)->columns.size(), 2u);
  FeedAll(*stream, {Commit(0x200)});
  EXPECT_EQ(stream->FindRelation(kOid)->columns.size(), 3u);
  EXPECT_EQ(Drain(*stream), (Events{"B", "S2->3", "I2/3", "C"}));
  // A later transaction with the same description gets no new marker.
  FeedAll(*stream, {Begin(0x300, 702), Insert(3, true), Commit(0x300)});
  EXPECT_EQ(Drain(*stream), (Events{"B", "I3/3", "C"}));
}

std::string StreamStart(uint32_t xid, bool first) { return Wire('S').U32(xid).U8(first ? 1 : 0).bytes(); }
std::string StreamStop() { return Wire('E').bytes(); }
std::string StreamAbort(uint32_t xid, uint32_t subxid) { return Wire('A').U32(xid).U32(subxid).bytes(); }
std::string StreamCommit(uint32_t xid, Lsn lsn) {
  return Wire('c').U32(xid).U8(0).U64(lsn).U64(lsn + 8).I64(0).bytes();
}

TEST(ChangeStreamMessagesTest, RolledBackSavepointKeepsTheTopTransactionsSchemaChange) {
  auto stream = ChangeStream::ForMessages({}, 2);
  FeedAll(*stream, {Begin(0x100, 700), Relation(false), Insert(1, false), Commit(0x100)});
  Drain(*stream);
  // BEGIN; ALTER TABLE items ADD COLUMN price; SAVEPOINT s; INSERT (2); ROLLBACK TO s; INSERT (3); COMMIT
  // streamed: pgoutput sends the description with the subtransaction's xid (801) before its insert,
  // records it as sent for the top transaction (800), and does not send it again after the abort.
  FeedAll(*stream, {StreamStart(800, true), Relation(true, 801), Insert(2, true, 801), StreamStop(),
                    StreamAbort(800, 801), StreamStart(800, false), Insert(3, true, 800), StreamStop(),
                    StreamCommit(800, 0x300)});
  EXPECT_EQ(Drain(*stream), (Events{"B", "S2->3", "I3/3", "C"}));
  EXPECT_EQ(stream->FindRelation(kOid)->columns.size(), 3u);
}

TEST(ChangeStreamMessagesTest, AbortedStreamedTransactionLeavesTheDescription) {
  auto stream = ChangeStream::ForMessages({}, 2);
  FeedAll(*stream, {Begin(0x100, 700), Relation(false), Insert(1, false), Commit(0x100)});
  Drain(*stream);
  FeedAll(*stream, {StreamStart(800, true), Relation(true, 800), Insert(2, true, 800), StreamStop(),
                    StreamAbort(800, 800)});
  EXPECT_TRUE(Drain(*stream).empty());
  EXPECT_EQ(stream->FindRelation(kOid)->columns.size(), 2u);
}

}  // namespace
}  // namespace tide
