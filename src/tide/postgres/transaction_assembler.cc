#include "tide/postgres/transaction_assembler.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "tide/base/bytes.h"
#include "tide/base/logging.h"

namespace tide {
namespace {

constexpr size_t kSpillWriteBuffer = 1u << 20;
constexpr size_t kSpillReadChunk = 1u << 20;

size_t StringHeap(const std::string& s) { return s.capacity() > 15 ? s.capacity() + 1 : 0; }

size_t TupleMemory(const PgTuple& t) {
  size_t n = t.values.capacity() * sizeof(PgTupleValue);
  for (const auto& v : t.values) n += StringHeap(v.bytes);
  return n;
}

void EncodeTuple(const PgTuple& t, std::string* out) {
  AppendBE<uint16_t>(out, static_cast<uint16_t>(t.values.size()));
  for (const auto& v : t.values) {
    out->push_back(static_cast<char>(v.kind));
    if (v.kind == PgTupleValueKind::kText || v.kind == PgTupleValueKind::kBinary) {
      AppendBE<uint32_t>(out, static_cast<uint32_t>(v.bytes.size()));
      out->append(v.bytes);
    }
  }
}

Status DecodeTuple(ByteReader* r, PgTuple* t) {
  TIDE_ASSIGN_OR_RETURN(uint16_t n, r->ReadBE<uint16_t>());
  t->values.resize(n);
  for (auto& v : t->values) {
    TIDE_ASSIGN_OR_RETURN(uint8_t kind, r->ReadBE<uint8_t>());
    if (kind > static_cast<uint8_t>(PgTupleValueKind::kAbsent)) {
      return Status::Corruption("{}: bad tuple value kind {}", r->what(), kind);
    }
    v.kind = static_cast<PgTupleValueKind>(kind);
    if (v.kind == PgTupleValueKind::kText || v.kind == PgTupleValueKind::kBinary) {
      TIDE_ASSIGN_OR_RETURN(uint32_t len, r->ReadBE<uint32_t>());
      TIDE_ASSIGN_OR_RETURN(std::string_view bytes, r->ReadBytes(len));
      v.bytes.assign(bytes);
    }
  }
  return Status::OK();
}

void AppendString(std::string* out, const std::string& s) {
  AppendBE<uint32_t>(out, static_cast<uint32_t>(s.size()));
  out->append(s);
}

Result<std::string> ReadString(ByteReader* r) {
  TIDE_ASSIGN_OR_RETURN(uint32_t len, r->ReadBE<uint32_t>());
  TIDE_ASSIGN_OR_RETURN(std::string_view bytes, r->ReadBytes(len));
  return std::string(bytes);
}

}  // namespace

size_t TxnItemMemory(const TxnItem& item) {
  size_t n = sizeof(TxnItem) + item.relation_versions.capacity() * sizeof(uint32_t) + 32;  // deque slot overhead
  std::visit(
      [&](const auto& body) {
        using T = std::decay_t<decltype(body)>;
        if constexpr (std::is_same_v<T, PgInsert>) {
          n += TupleMemory(body.new_tuple);
        } else if constexpr (std::is_same_v<T, PgUpdate>) {
          n += TupleMemory(body.old_tuple) + TupleMemory(body.new_tuple);
        } else if constexpr (std::is_same_v<T, PgDelete>) {
          n += TupleMemory(body.old_tuple);
        } else if constexpr (std::is_same_v<T, PgTruncate>) {
          n += body.relation_oids.capacity() * sizeof(PgOid);
        } else if constexpr (std::is_same_v<T, PgLogicalMessage>) {
          n += StringHeap(body.prefix) + StringHeap(body.content);
        }
      },
      item.body);
  return n;
}

void EncodeTxnItem(const TxnItem& item, std::string* out) {
  char tag = std::visit(
      [](const auto& body) -> char {
        using T = std::decay_t<decltype(body)>;
        if constexpr (std::is_same_v<T, TxnItem::RelationMarker>) return 'R';
        if constexpr (std::is_same_v<T, PgInsert>) return 'I';
        if constexpr (std::is_same_v<T, PgUpdate>) return 'U';
        if constexpr (std::is_same_v<T, PgDelete>) return 'D';
        if constexpr (std::is_same_v<T, PgTruncate>) return 'T';
        if constexpr (std::is_same_v<T, PgLogicalMessage>) return 'M';
      },
      item.body);
  out->push_back(tag);
  AppendBE<uint32_t>(out, item.subxid);
  AppendBE<uint32_t>(out, static_cast<uint32_t>(item.relation_versions.size()));
  for (uint32_t v : item.relation_versions) AppendBE<uint32_t>(out, v);
  std::visit(
      [&](const auto& body) {
        using T = std::decay_t<decltype(body)>;
        if constexpr (std::is_same_v<T, PgInsert>) {
          AppendBE<uint32_t>(out, body.relation_oid);
          EncodeTuple(body.new_tuple, out);
        } else if constexpr (std::is_same_v<T, PgUpdate>) {
          AppendBE<uint32_t>(out, body.relation_oid);
          out->push_back(static_cast<char>(body.old_kind));
          if (body.old_kind != PgOldTupleKind::kNone) EncodeTuple(body.old_tuple, out);
          EncodeTuple(body.new_tuple, out);
        } else if constexpr (std::is_same_v<T, PgDelete>) {
          AppendBE<uint32_t>(out, body.relation_oid);
          out->push_back(static_cast<char>(body.old_kind));
          EncodeTuple(body.old_tuple, out);
        } else if constexpr (std::is_same_v<T, PgTruncate>) {
          out->push_back(static_cast<char>((body.cascade ? 1 : 0) | (body.restart_identity ? 2 : 0)));
          AppendBE<uint32_t>(out, static_cast<uint32_t>(body.relation_oids.size()));
          for (PgOid oid : body.relation_oids) AppendBE<uint32_t>(out, oid);
        } else if constexpr (std::is_same_v<T, PgLogicalMessage>) {
          out->push_back(body.transactional ? 1 : 0);
          AppendBE<uint64_t>(out, body.lsn);
          AppendString(out, body.prefix);
          AppendString(out, body.content);
        }
      },
      item.body);
}

Result<TxnItem> DecodeTxnItem(std::string_view bytes) {
  ByteReader r(bytes, "spilled transaction item");
  TxnItem item;
  TIDE_ASSIGN_OR_RETURN(uint8_t tag, r.ReadBE<uint8_t>());
  TIDE_ASSIGN_OR_RETURN(item.subxid, r.ReadBE<uint32_t>());
  TIDE_ASSIGN_OR_RETURN(uint32_t nversions, r.ReadBE<uint32_t>());
  TIDE_RETURN_IF_ERROR(r.Need(static_cast<size_t>(nversions) * 4));
  item.relation_versions.resize(nversions);
  for (auto& v : item.relation_versions) {
    TIDE_ASSIGN_OR_RETURN(v, r.ReadBE<uint32_t>());
  }
  auto read_old_kind = [&](PgOldTupleKind* kind) -> Status {
    TIDE_ASSIGN_OR_RETURN(uint8_t k, r.ReadBE<uint8_t>());
    if (k > static_cast<uint8_t>(PgOldTupleKind::kFull)) return Status::Corruption("{}: bad old tuple kind {}", r.what(), k);
    *kind = static_cast<PgOldTupleKind>(k);
    return Status::OK();
  };
  switch (tag) {
    case 'R':
      item.body = TxnItem::RelationMarker{};
      break;
    case 'I': {
      PgInsert m;
      TIDE_ASSIGN_OR_RETURN(m.relation_oid, r.ReadBE<uint32_t>());
      TIDE_RETURN_IF_ERROR(DecodeTuple(&r, &m.new_tuple));
      item.body = std::move(m);
      break;
    }
    case 'U': {
      PgUpdate m;
      TIDE_ASSIGN_OR_RETURN(m.relation_oid, r.ReadBE<uint32_t>());
      TIDE_RETURN_IF_ERROR(read_old_kind(&m.old_kind));
      if (m.old_kind != PgOldTupleKind::kNone) TIDE_RETURN_IF_ERROR(DecodeTuple(&r, &m.old_tuple));
      TIDE_RETURN_IF_ERROR(DecodeTuple(&r, &m.new_tuple));
      item.body = std::move(m);
      break;
    }
    case 'D': {
      PgDelete m;
      TIDE_ASSIGN_OR_RETURN(m.relation_oid, r.ReadBE<uint32_t>());
      TIDE_RETURN_IF_ERROR(read_old_kind(&m.old_kind));
      TIDE_RETURN_IF_ERROR(DecodeTuple(&r, &m.old_tuple));
      item.body = std::move(m);
      break;
    }
    case 'T': {
      PgTruncate m;
      TIDE_ASSIGN_OR_RETURN(uint8_t flags, r.ReadBE<uint8_t>());
      m.cascade = flags & 1;
      m.restart_identity = flags & 2;
      TIDE_ASSIGN_OR_RETURN(uint32_t n, r.ReadBE<uint32_t>());
      TIDE_RETURN_IF_ERROR(r.Need(static_cast<size_t>(n) * 4));
      m.relation_oids.resize(n);
      for (auto& oid : m.relation_oids) {
        TIDE_ASSIGN_OR_RETURN(oid, r.ReadBE<uint32_t>());
      }
      item.body = std::move(m);
      break;
    }
    case 'M': {
      PgLogicalMessage m;
      TIDE_ASSIGN_OR_RETURN(uint8_t transactional, r.ReadBE<uint8_t>());
      m.transactional = transactional != 0;
      TIDE_ASSIGN_OR_RETURN(m.lsn, r.ReadBE<uint64_t>());
      TIDE_ASSIGN_OR_RETURN(m.prefix, ReadString(&r));
      TIDE_ASSIGN_OR_RETURN(m.content, ReadString(&r));
      item.body = std::move(m);
      break;
    }
    default:
      return Status::Corruption("spilled transaction item: unknown tag {}", static_cast<int>(tag));
  }
  if (!r.AtEnd()) return Status::Corruption("spilled transaction item: {} trailing bytes", r.remaining());
  return item;
}

// ---- SpillFile ------------------------------------------------------------------------------------

Result<std::unique_ptr<SpillFile>> SpillFile::Create(const std::string& dir) {
  std::string tmpl = (dir.empty() ? std::string("/tmp") : dir) + "/tide-spill-XXXXXX";
  int fd = ::mkostemp(tmpl.data(), O_CLOEXEC);
  if (fd < 0) {
    return Status::IOError("cannot create a spill file in {}: {}; set a writable spill folder with free space",
                           dir, std::strerror(errno));
  }
  // Unlinked at once: the data lives as long as the descriptor, and nothing is left behind on a crash.
  ::unlink(tmpl.c_str());
  return std::unique_ptr<SpillFile>(new SpillFile(fd, tmpl));
}

SpillFile::~SpillFile() {
  if (fd_ >= 0) ::close(fd_);
}

Status SpillFile::Append(std::string_view record) {
  pending_.append(record);
  size_ += record.size();
  if (pending_.size() >= kSpillWriteBuffer) return Flush();
  return Status::OK();
}

Status SpillFile::Flush() {
  size_t done = 0;
  while (done < pending_.size()) {
    ssize_t n = ::write(fd_, pending_.data() + done, pending_.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::IOError("writing spill file {}: {}", path_, std::strerror(errno));
    }
    done += static_cast<size_t>(n);
  }
  pending_.clear();
  return Status::OK();
}

Result<size_t> SpillFile::ReadAt(uint64_t offset, char* buf, size_t n) const {
  while (true) {
    ssize_t got = ::pread(fd_, buf, n, static_cast<off_t>(offset));
    if (got >= 0) return static_cast<size_t>(got);
    if (errno != EINTR) return Status::IOError("reading spill file {}: {}", path_, std::strerror(errno));
  }
}

// ---- AssembledTransaction ---------------------------------------------------------------------------

Result<std::optional<TxnItem>> AssembledTransaction::Next() {
  while (spill_read_count_ < spilled_count_) {
    // Make sure the read buffer holds one whole record: 4-byte length + body.
    auto ensure = [&](size_t need) -> Status {
      while (read_buffer_.size() - read_pos_ < need) {
        read_buffer_.erase(0, read_pos_);
        read_pos_ = 0;
        size_t old = read_buffer_.size();
        size_t chunk = std::max(kSpillReadChunk, need);
        read_buffer_.resize(old + chunk);
        TIDE_ASSIGN_OR_RETURN(size_t got, spill_->ReadAt(spill_offset_, read_buffer_.data() + old, chunk));
        read_buffer_.resize(old + got);
        spill_offset_ += got;
        if (got == 0) return Status::Corruption("spill file ends inside a record");
      }
      return Status::OK();
    };
    TIDE_RETURN_IF_ERROR(ensure(4));
    uint32_t len = LoadBE<uint32_t>(read_buffer_.data() + read_pos_);
    TIDE_RETURN_IF_ERROR(ensure(4 + static_cast<size_t>(len)));
    auto item = DecodeTxnItem(std::string_view(read_buffer_.data() + read_pos_ + 4, len));
    read_pos_ += 4 + len;
    ++spill_read_count_;
    if (spill_read_count_ == spilled_count_) {
      spill_.reset();  // done with the file: close (and so delete) it now
      std::string().swap(read_buffer_);
    }
    if (!item.ok()) return item.status();
    if (item->subxid != 0 && aborted_subxids_.count(item->subxid)) continue;
    return std::optional<TxnItem>(std::move(item).value());
  }
  while (!memory_.empty()) {
    TxnItem item = std::move(memory_.front());
    memory_.pop_front();
    if (item.subxid != 0 && aborted_subxids_.count(item.subxid)) continue;
    return std::optional<TxnItem>(std::move(item));
  }
  return std::optional<TxnItem>();
}

// ---- TransactionAssembler ------------------------------------------------------------------------------

TransactionAssembler::TransactionAssembler(TransactionAssemblerOptions options) : options_(std::move(options)) {}

Status TransactionAssembler::Begin(const PgBegin& begin) {
  if (open_) {
    return Status::Corruption("pgoutput: Begin of transaction {} while transaction {} is still open", begin.xid,
                              open_->info.xid);
  }
  open_.emplace();
  open_->info.xid = begin.xid;
  open_->info.commit_lsn = begin.final_lsn;
  open_->info.commit_time_micros = PgTimestampToUnixMicros(begin.commit_time);
  return Status::OK();
}

void TransactionAssembler::SetOrigin(const PgOrigin& origin, std::optional<PgXid> stream_xid) {
  if (stream_xid) {
    streamed_[*stream_xid].info.origin = origin.name;
  } else if (open_) {
    open_->info.origin = origin.name;
  }
}

Status TransactionAssembler::Append(Buffer* buffer, TxnItem item) {
  size_t bytes = TxnItemMemory(item);
  buffer->memory.push_back(std::move(item));
  buffer->memory_bytes += bytes;
  memory_ += bytes;
  peak_memory_ = std::max(peak_memory_, memory_);
  while (memory_ > options_.memory_budget) {
    size_t before = memory_;
    TIDE_RETURN_IF_ERROR(SpillLargest());
    if (memory_ >= before) break;  // nothing left to spill
  }
  return Status::OK();
}

Status TransactionAssembler::Add(TxnItem item, std::optional<PgXid> stream_xid) {
  if (stream_xid) {
    Buffer& buffer = streamed_[*stream_xid];
    buffer.info.xid = *stream_xid;
    buffer.info.streamed = true;
    return Append(&buffer, std::move(item));
  }
  if (!open_) return Status::Corruption("pgoutput: a change arrived outside any transaction");
  return Append(&*open_, std::move(item));
}

Status TransactionAssembler::SpillLargest() {
  Buffer* largest = nullptr;
  if (open_ && !open_->memory.empty()) largest = &*open_;
  for (auto& [xid, buffer] : streamed_) {
    if (!buffer.memory.empty() && (!largest || buffer.memory_bytes > largest->memory_bytes)) largest = &buffer;
  }
  if (!largest) return Status::OK();
  if (!largest->spill) {
    TIDE_ASSIGN_OR_RETURN(largest->spill, SpillFile::Create(options_.spill_dir));
  }
  std::string record;
  for (auto& item : largest->memory) {
    record.assign(4, '\0');
    EncodeTxnItem(item, &record);
    StoreBE<uint32_t>(record.data(), static_cast<uint32_t>(record.size() - 4));
    TIDE_RETURN_IF_ERROR(largest->spill->Append(record));
    spilled_bytes_ += record.size();
    ++largest->spilled_count;
  }
  TIDE_LOG_DEBUG("spilled {} buffered changes ({} bytes in memory) of transaction {}", largest->memory.size(),
                 largest->memory_bytes, largest->info.xid);
  largest->memory.clear();
  largest->memory.shrink_to_fit();
  memory_ -= largest->memory_bytes;
  largest->memory_bytes = 0;
  return Status::OK();
}

Result<std::unique_ptr<AssembledTransaction>> TransactionAssembler::Finish(Buffer buffer) {
  memory_ -= buffer.memory_bytes;
  auto txn = std::make_unique<AssembledTransaction>();
  txn->info_ = buffer.info;
  if (buffer.spill) TIDE_RETURN_IF_ERROR(buffer.spill->Flush());
  txn->spill_ = std::move(buffer.spill);
  txn->spilled_count_ = buffer.spilled_count;
  txn->memory_ = std::move(buffer.memory);
  txn->aborted_subxids_ = std::move(buffer.aborted_subxids);
  return txn;
}

Result<std::unique_ptr<AssembledTransaction>> TransactionAssembler::Commit(const PgCommit& commit) {
  if (!open_) return Status::Corruption("pgoutput: Commit at {} without a Begin", FormatLsn(commit.commit_lsn));
  Buffer buffer = std::move(*open_);
  open_.reset();
  buffer.info.commit_lsn = commit.commit_lsn;
  buffer.info.end_lsn = commit.end_lsn;
  buffer.info.commit_time_micros = PgTimestampToUnixMicros(commit.commit_time);
  return Finish(std::move(buffer));
}

Result<std::unique_ptr<AssembledTransaction>> TransactionAssembler::StreamCommit(const PgStreamCommit& commit) {
  Buffer buffer;
  auto it = streamed_.find(commit.xid);
  if (it != streamed_.end()) {
    buffer = std::move(it->second);
    streamed_.erase(it);
  }
  buffer.info.xid = commit.xid;
  buffer.info.streamed = true;
  buffer.info.commit_lsn = commit.commit_lsn;
  buffer.info.end_lsn = commit.end_lsn;
  buffer.info.commit_time_micros = PgTimestampToUnixMicros(commit.commit_time);
  return Finish(std::move(buffer));
}

void TransactionAssembler::StreamAbort(const PgStreamAbort& abort) {
  auto it = streamed_.find(abort.xid);
  if (it == streamed_.end()) return;
  Buffer& buffer = it->second;
  if (abort.subtransaction_xid == abort.xid || abort.subtransaction_xid == 0) {
    memory_ -= buffer.memory_bytes;
    streamed_.erase(it);  // closes (and so deletes) its spill file
    return;
  }
  // Drop the subtransaction's items still in memory now; spilled ones are skipped on replay.
  std::deque<TxnItem> kept;
  size_t kept_bytes = 0;
  for (auto& item : buffer.memory) {
    if (item.subxid == abort.subtransaction_xid) continue;
    kept_bytes += TxnItemMemory(item);
    kept.push_back(std::move(item));
  }
  memory_ -= buffer.memory_bytes - kept_bytes;
  buffer.memory = std::move(kept);
  buffer.memory_bytes = kept_bytes;
  if (buffer.spilled_count > 0) buffer.aborted_subxids.insert(abort.subtransaction_xid);
}

void TransactionAssembler::Reset() {
  open_.reset();
  streamed_.clear();
  memory_ = 0;
}

}  // namespace tide
