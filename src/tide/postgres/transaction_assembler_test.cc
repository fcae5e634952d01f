#include "tide/postgres/transaction_assembler.h"

#include <gtest/gtest.h>

namespace tide {
namespace {

PgInsert Insert(PgOid rel, const std::string& value, std::optional<PgXid> xid = std::nullopt) {
  PgInsert m;
  m.stream_xid = xid;
  m.relation_oid = rel;
  m.new_tuple.values = {{PgTupleValueKind::kText, value}, {PgTupleValueKind::kNull, ""}};
  return m;
}

TxnItem Item(PgInsert m, PgXid subxid = 0) {
  TxnItem item;
  item.subxid = subxid;
  item.relation_versions = {7};
  item.body = std::move(m);
  return item;
}

std::vector<std::string> Drain(AssembledTransaction& txn) {
  std::vector<std::string> out;
  while (true) {
    auto item = txn.Next();
    EXPECT_TRUE(item.ok()) << item.status().ToString();
    if (!item.ok() || !*item) break;
    out.push_back(std::get<PgInsert>((*item)->body).new_tuple.values[0].bytes);
  }
  return out;
}

TEST(TxnItemCodecTest, RoundTripsEveryKind) {
  std::vector<TxnItem> items;
  items.push_back(Item(Insert(1, "a"), 5));
  {
    PgUpdate u;
    u.relation_oid = 2;
    u.old_kind = PgOldTupleKind::kKey;
    u.old_tuple.values = {{PgTupleValueKind::kBinary, std::string("\x00\x01", 2)}, {PgTupleValueKind::kAbsent, ""}};
    u.new_tuple.values = {{PgTupleValueKind::kText, "x"}, {PgTupleValueKind::kUnchangedToast, ""}};
    TxnItem item;
    item.relation_versions = {3};
    item.body = u;
    items.push_back(item);
  }
  {
    PgDelete d;
    d.relation_oid = 4;
    d.old_kind = PgOldTupleKind::kFull;
    d.old_tuple.values = {{PgTupleValueKind::kText, "gone"}};
    TxnItem item;
    item.relation_versions = {4};
    item.body = d;
    items.push_back(item);
  }
  {
    PgTruncate t;
    t.cascade = true;
    t.relation_oids = {10, 11};
    TxnItem item;
    item.relation_versions = {1, 2};
    item.body = t;
    items.push_back(item);
  }
  {
    PgLogicalMessage m;
    m.transactional = true;
    m.lsn = 0x1234567890;
    m.prefix = "p";
    m.content = std::string("\0bin", 4);
    TxnItem item;
    item.body = m;
    items.push_back(item);
  }
  {
    TxnItem item;
    item.relation_versions = {TxnItem::kNoRelationVersion, 9};
    item.body = TxnItem::RelationMarker{};
    items.push_back(item);
  }
  for (const auto& item : items) {
    std::string bytes;
    EncodeTxnItem(item, &bytes);
    auto back = DecodeTxnItem(bytes);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(back->subxid, item.subxid);
    EXPECT_EQ(back->relation_versions, item.relation_versions);
    EXPECT_EQ(back->body.index(), item.body.index());
    std::string again;
    EncodeTxnItem(*back, &again);
    EXPECT_EQ(again, bytes);
    // Every truncation is Corruption, never a crash.
    for (size_t n = 0; n < bytes.size(); ++n) {
      auto cut = DecodeTxnItem(std::string_view(bytes).substr(0, n));
      EXPECT_FALSE(cut.ok());
      EXPECT_TRUE(cut.status().IsCorruption());
    }
  }
}

TEST(TransactionAssemblerTest, OrdinaryTransactionIsDeliveredWholeAtCommit) {
  TransactionAssembler assembler;
  ASSERT_TRUE(assembler.Begin({100, 5, 42}).ok());
  ASSERT_TRUE(assembler.Add(Item(Insert(1, "a")), std::nullopt).ok());
  ASSERT_TRUE(assembler.Add(Item(Insert(1, "b")), std::nullopt).ok());
  EXPECT_TRUE(assembler.has_open_transactions());
  auto txn = assembler.Commit({0, 100, 120, 6});
  ASSERT_TRUE(txn.ok());
  EXPECT_FALSE(assembler.has_open_transactions());
  EXPECT_EQ((*txn)->info().xid, 42u);
  EXPECT_EQ((*txn)->info().commit_lsn, 100u);
  EXPECT_EQ((*txn)->info().end_lsn, 120u);
  EXPECT_EQ(Drain(**txn), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(assembler.memory_bytes(), 0u);
}

TEST(TransactionAssemblerTest, ChangesOutsideATransactionAreCorruption) {
  TransactionAssembler assembler;
  EXPECT_TRUE(assembler.Add(Item(Insert(1, "a")), std::nullopt).IsCorruption());
  EXPECT_FALSE(assembler.Commit({0, 1, 2, 3}).ok());
  ASSERT_TRUE(assembler.Begin({1, 0, 1}).ok());
  EXPECT_TRUE(assembler.Begin({2, 0, 2}).IsCorruption());
}

TEST(TransactionAssemblerTest, InterleavedStreamedTransactionsStaySeparate) {
  TransactionAssembler assembler;
  ASSERT_TRUE(assembler.Add(Item(Insert(1, "x1"), 10), PgXid{10}).ok());
  ASSERT_TRUE(assembler.Add(Item(Insert(1, "y1"), 20), PgXid{20}).ok());
  ASSERT_TRUE(assembler.Add(Item(Insert(1, "x2"), 10), PgXid{10}).ok());
  // An ordinary transaction commits in between.
  ASSERT_TRUE(assembler.Begin({50, 0, 30}).ok());
  ASSERT_TRUE(assembler.Add(Item(Insert(1, "z")), std::nullopt).ok());
  auto z = assembler.Commit({0, 50, 60, 0});
  ASSERT_TRUE(z.ok());
  EXPECT_EQ(Drain(**z), std::vector<std::string>{"z"});
  assembler.StreamAbort({20, 20, std::nullopt, std::nullopt});
  auto x = assembler.StreamCommit({10, 0, 70, 80, 0});
  ASSERT_TRUE(x.ok());
  EXPECT_TRUE((*x)->info().streamed);
  EXPECT_EQ(Drain(**x), (std::vector<std::string>{"x1", "x2"}));
  EXPECT_FALSE(assembler.has_open_transactions());
  EXPECT_EQ(assembler.memory_bytes(), 0u);
}

TEST(TransactionAssemblerTest, SubtransactionAbortDropsOnlyItsChangesInMemoryAndSpilled) {
  for (size_t budget : {size_t{1} << 30, size_t{2000}}) {
    TransactionAssemblerOptions options;
    options.memory_budget = budget;
    TransactionAssembler assembler(options);
    std::vector<std::string> expected;
    for (int i = 0; i < 200; ++i) {
      PgXid sub = i % 3 == 0 ? 11 : (i % 3 == 1 ? 12 : 10);  // 10 = top level
      std::string v = std::to_string(i);
      ASSERT_TRUE(assembler.Add(Item(Insert(1, v), sub), PgXid{10}).ok());
      if (sub != 12) expected.push_back(v);
    }
    assembler.StreamAbort({10, 12, std::nullopt, std::nullopt});
    auto txn = assembler.StreamCommit({10, 0, 500, 510, 0});
    ASSERT_TRUE(txn.ok());
    EXPECT_EQ(Drain(**txn), expected) << "budget " << budget;
    if (budget < 100000) {
      EXPECT_GT(assembler.spilled_bytes(), 0u);
      EXPECT_GT((*txn)->spilled_items(), 0u);
      EXPECT_LE(assembler.peak_memory_bytes(), budget + 1000);
    } else {
      EXPECT_EQ(assembler.spilled_bytes(), 0u);
    }
  }
}

TEST(TransactionAssemblerTest, ResetForgetsOpenTransactions) {
  TransactionAssembler assembler;
  ASSERT_TRUE(assembler.Begin({1, 0, 1}).ok());
  ASSERT_TRUE(assembler.Add(Item(Insert(1, "a")), std::nullopt).ok());
  ASSERT_TRUE(assembler.Add(Item(Insert(1, "s"), 9), PgXid{9}).ok());
  assembler.Reset();
  EXPECT_FALSE(assembler.has_open_transactions());
  EXPECT_EQ(assembler.memory_bytes(), 0u);
  // The server starts the transaction again from its Begin.
  ASSERT_TRUE(assembler.Begin({1, 0, 1}).ok());
}

}  // namespace
}  // namespace tide
