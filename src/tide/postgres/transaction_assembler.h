// TransactionAssembler: buffers the pgoutput changes of each open transaction until PostgreSQL commits
// it, then hands it over whole (AssembledTransaction), in commit order.
//
// Two kinds of open transaction exist. An ordinary one (Begin ... Commit) arrives in one piece, but is
// still buffered so that a connection lost before its Commit leaves nothing half-delivered. A streamed
// in-progress one (protocol >= 2, streaming 'on') arrives in blocks (Stream Start xid ... Stream Stop)
// interleaved with other transactions; its blocks are gathered per top-level xid until Stream Commit,
// or discarded on Stream Abort: the whole transaction when the abort names the top-level xid, else only
// the changes made by the named subtransaction (each buffered change keeps the xid PostgreSQL sent with
// it, which is the subtransaction's own).
//
// Memory: all buffered items together stay under `memory_budget` bytes (an estimate of their heap
// use); past it, the largest buffer's items are appended to its spill file and freed. A spill file is a
// temporary file that is unlinked as soon as it is created, so it vanishes when its transaction is
// delivered or discarded, or when the process dies. An AssembledTransaction replays its items in their
// original order: first the spilled prefix (read back in chunks), then the in-memory rest.
//
// Thread-safety: not thread-safe; one assembler per replication stream. An AssembledTransaction may be
// moved to and read by another thread.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "tide/base/result.h"
#include "tide/postgres/change.h"
#include "tide/postgres/pgoutput_message.h"

namespace tide {

// One buffered message of an open transaction.
struct TxnItem {
  // The Relation marker: the relation description changed (or was first seen) at this point of the
  // transaction. relation_versions = {previous version or kNoRelationVersion, new version}.
  struct RelationMarker {};
  static constexpr uint32_t kNoRelationVersion = 0xFFFFFFFFu;

  PgXid subxid = 0;  // the xid the message carried inside a stream block (a subtransaction's own); 0 outside
  std::vector<uint32_t> relation_versions;  // I/U/D: the relation's version; T: one per relation
  std::variant<RelationMarker, PgInsert, PgUpdate, PgDelete, PgTruncate, PgLogicalMessage> body;
};

// The estimated heap bytes an item holds (what the memory budget counts).
size_t TxnItemMemory(const TxnItem& item);
// The spill encoding of one item (length not included), and back. DecodeTxnItem fails with Corruption
// on malformed bytes.
void EncodeTxnItem(const TxnItem& item, std::string* out);
Result<TxnItem> DecodeTxnItem(std::string_view bytes);

// A temporary file for spilled items: created in `dir`, unlinked at once, closed by the destructor.
class SpillFile {
 public:
  static Result<std::unique_ptr<SpillFile>> Create(const std::string& dir);
  ~SpillFile();
  SpillFile(const SpillFile&) = delete;
  SpillFile& operator=(const SpillFile&) = delete;

  // Appends length-prefixed records (buffered; Flush() before reading).
  Status Append(std::string_view record);
  Status Flush();
  uint64_t size() const { return size_; }
  // Reads up to `n` bytes at `offset`.
  Result<size_t> ReadAt(uint64_t offset, char* buf, size_t n) const;

 private:
  SpillFile(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  int fd_;
  std::string path_;  // for messages only: the name is unlinked
  std::string pending_;
  uint64_t size_ = 0;  // bytes written, including pending_
};

// A committed transaction, ready to be read item by item.
class AssembledTransaction {
 public:
  const TransactionInfo& info() const { return info_; }
  uint64_t spilled_items() const { return spilled_count_; }
  // The next item in commit order, nullopt after the last.
  Result<std::optional<TxnItem>> Next();

 private:
  friend class TransactionAssembler;
  TransactionInfo info_;
  std::unique_ptr<SpillFile> spill_;
  uint64_t spilled_count_ = 0;
  uint64_t spill_read_count_ = 0;
  uint64_t spill_offset_ = 0;
  std::string read_buffer_;
  size_t read_pos_ = 0;
  std::deque<TxnItem> memory_;
  std::set<PgXid> aborted_subxids_;  // items of these subtransactions are skipped on replay
};

struct TransactionAssemblerOptions {
  size_t memory_budget = 64u << 20;  // bytes of buffered items across all open transactions
  std::string spill_dir = "/tmp";
};

class TransactionAssembler {
 public:
  explicit TransactionAssembler(TransactionAssemblerOptions options = {});

  // An ordinary transaction starts. Corruption if one is already open.
  Status Begin(const PgBegin& begin);
  // Records the origin of the open ordinary transaction (or of the streamed one `stream_xid`).
  void SetOrigin(const PgOrigin& origin, std::optional<PgXid> stream_xid);
  // Adds an item to the open ordinary transaction, or, when `stream_xid` is set (the xid of the
  // current stream block), to that streamed transaction.
  Status Add(TxnItem item, std::optional<PgXid> stream_xid);
  // The open ordinary transaction committed.
  Result<std::unique_ptr<AssembledTransaction>> Commit(const PgCommit& commit);
  // The streamed transaction `commit.xid` committed (NotFound-free: a commit for a transaction with no
  // buffered change yields an empty transaction).
  Result<std::unique_ptr<AssembledTransaction>> StreamCommit(const PgStreamCommit& commit);
  // Discards the aborted (sub)transaction's changes.
  void StreamAbort(const PgStreamAbort& abort);
  // Forgets every open transaction (after a reconnect the server sends them again from the start).
  void Reset();

  // True when some transaction is open (partly received).
  bool has_open_transactions() const { return open_.has_value() || !streamed_.empty(); }
  // True between an ordinary transaction's Begin and its Commit.
  bool has_open_ordinary_transaction() const { return open_.has_value(); }
  size_t memory_bytes() const { return memory_; }
  size_t peak_memory_bytes() const { return peak_memory_; }
  uint64_t spilled_bytes() const { return spilled_bytes_; }

 private:
  struct Buffer {
    TransactionInfo info;
    std::unique_ptr<SpillFile> spill;
    uint64_t spilled_count = 0;
    std::deque<TxnItem> memory;
    size_t memory_bytes = 0;
    std::set<PgXid> aborted_subxids;
  };
  Status Append(Buffer* buffer, TxnItem item);
  Status SpillLargest();
  Result<std::unique_ptr<AssembledTransaction>> Finish(Buffer buffer);

  TransactionAssemblerOptions options_;
  std::optional<Buffer> open_;
  std::map<PgXid, Buffer> streamed_;
  size_t memory_ = 0;
  size_t peak_memory_ = 0;
  uint64_t spilled_bytes_ = 0;
};

}  // namespace tide
