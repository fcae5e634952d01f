#include "tide/postgres/pgoutput_decoder.h"

#include <fmt/format.h>

#include "tide/base/bytes.h"

namespace tide {
namespace {

// A bounds-checked cursor over one pgoutput message. Offsets in errors count from the message's type
// byte (offset 0), so they point into the XLogData payload as received.
class MessageReader {
 public:
  MessageReader(std::string_view payload, std::string_view name, char tag)
      : payload_(payload), name_(name), tag_(tag) {}

  Status SkipTag() { return Skip(1); }
  Result<uint8_t> U8() { return Read<uint8_t>(); }
  Result<uint16_t> U16() { return Read<uint16_t>(); }
  Result<uint32_t> U32() { return Read<uint32_t>(); }
  Result<int32_t> I32() { return Read<int32_t>(); }
  Result<uint64_t> U64() { return Read<uint64_t>(); }
  Result<int64_t> I64() { return Read<int64_t>(); }
  Result<std::string_view> Bytes(size_t n) {
    TIDE_RETURN_IF_ERROR(Need(n));
    std::string_view v = payload_.substr(pos_, n);
    pos_ += n;
    return v;
  }

  // A NUL-terminated String.
  Result<std::string> String() {
    const size_t start = pos_;
    size_t nul = payload_.find('\0', start);
    if (nul == std::string_view::npos) {
      return Corrupt("unterminated string at offset {}", start);
    }
    pos_ = nul + 1;
    return std::string(payload_.substr(start, nul - start));
  }

  // Requires at least n bytes left (also used before allocating per-item vectors).
  Status Need(size_t n) const {
    if (n > payload_.size() - pos_) {
      return Corrupt("truncated: needs {} more bytes at offset {}, only {} left", n, pos_, payload_.size() - pos_);
    }
    return Status::OK();
  }

  Status ExpectEnd() const {
    if (pos_ != payload_.size()) {
      return Corrupt("{} unexpected trailing bytes at offset {}", payload_.size() - pos_, pos_);
    }
    return Status::OK();
  }

  size_t position() const { return pos_; }

  template <typename... Args>
  Status Corrupt(fmt::format_string<Args...> f, Args&&... args) const {
    return Status::Corruption("pgoutput {} ('{}') message: {}", name_, tag_,
                              fmt::format(f, std::forward<Args>(args)...));
  }

 private:
  template <typename T>
  Result<T> Read() {
    TIDE_RETURN_IF_ERROR(Need(sizeof(T)));
    T v = LoadBE<T>(payload_.data() + pos_);
    pos_ += sizeof(T);
    return v;
  }
  Status Skip(size_t n) {
    TIDE_RETURN_IF_ERROR(Need(n));
    pos_ += n;
    return Status::OK();
  }

  std::string_view payload_;
  std::string_view name_;
  char tag_;
  size_t pos_ = 0;
};

std::string_view NameOfTag(char tag) {
  switch (tag) {
    case 'B': return "Begin";
    case 'C': return "Commit";
    case 'O': return "Origin";
    case 'R': return "Relation";
    case 'Y': return "Type";
    case 'I': return "Insert";
    case 'U': return "Update";
    case 'D': return "Delete";
    case 'T': return "Truncate";
    case 'M': return "Message";
    case 'S': return "Stream Start";
    case 'E': return "Stream Stop";
    case 'c': return "Stream Commit";
    case 'A': return "Stream Abort";
    case 'b': return "Begin Prepare";
    case 'P': return "Prepare";
    case 'K': return "Commit Prepared";
    case 'r': return "Rollback Prepared";
    case 'p': return "Stream Prepare";
    default: return "";
  }
}

bool IsDataMessage(char tag) {
  return tag == 'R' || tag == 'Y' || tag == 'I' || tag == 'U' || tag == 'D' || tag == 'T' || tag == 'M';
}

// Messages that open, close or resolve a transaction: never valid inside a stream block.
bool IsTransactionBoundary(char tag) {
  return tag == 'B' || tag == 'C' || tag == 'c' || tag == 'A' || tag == 'b' || tag == 'P' || tag == 'K' ||
         tag == 'r' || tag == 'p';
}

Result<PgTuple> ReadTuple(MessageReader& r, const PgRelation& relation, bool key_only) {
  const size_t at = r.position();
  TIDE_ASSIGN_OR_RETURN(uint16_t ncols, r.U16());
  if (ncols != relation.columns.size()) {
    return r.Corrupt("tuple at offset {} has {} columns but relation {} ({}.{}) has {}", at, ncols,
                     relation.oid, relation.namespace_name, relation.name, relation.columns.size());
  }
  TIDE_RETURN_IF_ERROR(r.Need(ncols));  // at least one kind byte per column
  PgTuple tuple;
  tuple.values.resize(ncols);
  for (uint16_t i = 0; i < ncols; ++i) {
    PgTupleValue& v = tuple.values[i];
    const size_t kind_at = r.position();
    TIDE_ASSIGN_OR_RETURN(uint8_t kind, r.U8());
    switch (kind) {
      case 'n':
        v.kind = (key_only && !relation.columns[i].is_key) ? PgTupleValueKind::kAbsent : PgTupleValueKind::kNull;
        break;
      case 'u':
        v.kind = PgTupleValueKind::kUnchangedToast;
        break;
      case 't':
      case 'b': {
        v.kind = kind == 't' ? PgTupleValueKind::kText : PgTupleValueKind::kBinary;
        const size_t len_at = r.position();
        TIDE_ASSIGN_OR_RETURN(int32_t len, r.I32());
        if (len < 0) {
          return r.Corrupt("negative value length {} at offset {} (column {} \"{}\")", len, len_at, i,
                           relation.columns[i].name);
        }
        TIDE_ASSIGN_OR_RETURN(std::string_view bytes, r.Bytes(static_cast<size_t>(len)));
        v.bytes.assign(bytes);
        break;
      }
      default:
        return r.Corrupt("unknown tuple value kind 0x{:02x} at offset {} (column {} \"{}\"; expected n, u, t or b)",
                         static_cast<unsigned>(kind), kind_at, i, relation.columns[i].name);
    }
  }
  return tuple;
}

}  // namespace

PgOutputDecoder::PgOutputDecoder(PgOutputDecoderOptions options) : options_(options) {}

void PgOutputDecoder::Reset() {
  in_stream_block_ = false;
  stream_xid_ = 0;
  relations_.Clear();
}

Result<PgOutputMessage> PgOutputDecoder::Decode(std::string_view payload) {
  if (payload.empty()) {
    return Status::Corruption("pgoutput message: empty payload at offset 0");
  }
  const char tag = payload[0];
  const std::string_view name = NameOfTag(tag);
  if (name.empty()) {
    return Status::Corruption("pgoutput message: unknown message type byte 0x{:02x} at offset 0",
                              static_cast<unsigned>(static_cast<unsigned char>(tag)));
  }
  MessageReader r(payload, name, tag);
  TIDE_RETURN_IF_ERROR(r.SkipTag());

  if (in_stream_block_ && IsTransactionBoundary(tag)) {
    return r.Corrupt("arrived inside the stream block of xid {} (before its Stream Stop)", stream_xid_);
  }
  std::optional<PgXid> xid;
  if (in_stream_block_ && IsDataMessage(tag)) {
    TIDE_ASSIGN_OR_RETURN(xid, r.U32());
  }

  auto find_relation = [&](PgOid oid, size_t at) -> Result<const PgRelation*> {
    const PgRelation* rel = relations_.Find(oid);
    if (rel == nullptr) {
      return r.Corrupt("relation OID {} at offset {} has had no Relation message in this session", oid, at);
    }
    return rel;
  };
  auto read_old_kind = [&](uint8_t byte) -> PgOldTupleKind {
    return byte == 'K' ? PgOldTupleKind::kKey : PgOldTupleKind::kFull;
  };

  PgOutputMessage out;
  switch (tag) {
    case 'B': {
      PgBegin m;
      TIDE_ASSIGN_OR_RETURN(m.final_lsn, r.U64());
      TIDE_ASSIGN_OR_RETURN(m.commit_time, r.I64());
      TIDE_ASSIGN_OR_RETURN(m.xid, r.U32());
      out = m;
      break;
    }
    case 'C': {
      PgCommit m;
      TIDE_ASSIGN_OR_RETURN(m.flags, r.U8());
      TIDE_ASSIGN_OR_RETURN(m.commit_lsn, r.U64());
      TIDE_ASSIGN_OR_RETURN(m.end_lsn, r.U64());
      TIDE_ASSIGN_OR_RETURN(m.commit_time, r.I64());
      out = m;
      break;
    }
    case 'O': {
      PgOrigin m;
      TIDE_ASSIGN_OR_RETURN(m.origin_commit_lsn, r.U64());
      TIDE_ASSIGN_OR_RETURN(m.name, r.String());
      out = std::move(m);
      break;
    }
    case 'R': {
      PgRelation m;
      m.stream_xid = xid;
      TIDE_ASSIGN_OR_RETURN(m.oid, r.U32());
      TIDE_ASSIGN_OR_RETURN(m.namespace_name, r.String());
      TIDE_ASSIGN_OR_RETURN(m.name, r.String());
      const size_t ident_at = r.position();
      TIDE_ASSIGN_OR_RETURN(uint8_t ident, r.U8());
      if (ident != 'd' && ident != 'n' && ident != 'f' && ident != 'i') {
        return r.Corrupt("unknown replica identity 0x{:02x} at offset {} (expected d, n, f or i)",
                         static_cast<unsigned>(ident), ident_at);
      }
      m.replica_identity = static_cast<PgReplicaIdentity>(ident);
      TIDE_ASSIGN_OR_RETURN(uint16_t ncols, r.U16());
      // Each column needs at least flags (1), an empty name (1), type OID (4) and typmod (4).
      TIDE_RETURN_IF_ERROR(r.Need(static_cast<size_t>(ncols) * 10));
      m.columns.resize(ncols);
      for (auto& col : m.columns) {
        TIDE_ASSIGN_OR_RETURN(uint8_t flags, r.U8());
        col.is_key = (flags & 1) != 0;
        TIDE_ASSIGN_OR_RETURN(col.name, r.String());
        TIDE_ASSIGN_OR_RETURN(col.type_oid, r.U32());
        TIDE_ASSIGN_OR_RETURN(col.type_modifier, r.I32());
      }
      TIDE_RETURN_IF_ERROR(r.ExpectEnd());
      m.schema_change = relations_.Upsert(m);
      return PgOutputMessage(std::move(m));
    }
    case 'Y': {
      PgTypeMessage m;
      m.stream_xid = xid;
      TIDE_ASSIGN_OR_RETURN(m.oid, r.U32());
      TIDE_ASSIGN_OR_RETURN(m.namespace_name, r.String());
      TIDE_ASSIGN_OR_RETURN(m.name, r.String());
      out = std::move(m);
      break;
    }
    case 'I': {
      PgInsert m;
      m.stream_xid = xid;
      const size_t oid_at = r.position();
      TIDE_ASSIGN_OR_RETURN(m.relation_oid, r.U32());
      TIDE_ASSIGN_OR_RETURN(const PgRelation* rel, find_relation(m.relation_oid, oid_at));
      const size_t n_at = r.position();
      TIDE_ASSIGN_OR_RETURN(uint8_t n, r.U8());
      if (n != 'N') return r.Corrupt("expected 'N' (new tuple) at offset {}, found 0x{:02x}", n_at, unsigned{n});
      TIDE_ASSIGN_OR_RETURN(m.new_tuple, ReadTuple(r, *rel, false));
      out = std::move(m);
      break;
    }
    case 'U': {
      PgUpdate m;
      m.stream_xid = xid;
      const size_t oid_at = r.position();
      TIDE_ASSIGN_OR_RETURN(m.relation_oid, r.U32());
      TIDE_ASSIGN_OR_RETURN(const PgRelation* rel, find_relation(m.relation_oid, oid_at));
      size_t sub_at = r.position();
      TIDE_ASSIGN_OR_RETURN(uint8_t sub, r.U8());
      if (sub == 'K' || sub == 'O') {
        m.old_kind = read_old_kind(sub);
        TIDE_ASSIGN_OR_RETURN(m.old_tuple, ReadTuple(r, *rel, sub == 'K'));
        sub_at = r.position();
        TIDE_ASSIGN_OR_RETURN(sub, r.U8());
      }
      if (sub != 'N') {
        return r.Corrupt("expected 'K', 'O' or 'N' at offset {}, found 0x{:02x}", sub_at, unsigned{sub});
      }
      TIDE_ASSIGN_OR_RETURN(m.new_tuple, ReadTuple(r, *rel, false));
      out = std::move(m);
      break;
    }
    case 'D': {
      PgDelete m;
      m.stream_xid = xid;
      const size_t oid_at = r.position();
      TIDE_ASSIGN_OR_RETURN(m.relation_oid, r.U32());
      TIDE_ASSIGN_OR_RETURN(const PgRelation* rel, find_relation(m.relation_oid, oid_at));
      const size_t sub_at = r.position();
      TIDE_ASSIGN_OR_RETURN(uint8_t sub, r.U8());
      if (sub != 'K' && sub != 'O') {
        return r.Corrupt("expected 'K' or 'O' at offset {}, found 0x{:02x}", sub_at, unsigned{sub});
      }
      m.old_kind = read_old_kind(sub);
      TIDE_ASSIGN_OR_RETURN(m.old_tuple, ReadTuple(r, *rel, sub == 'K'));
      out = std::move(m);
      break;
    }
    case 'T': {
      PgTruncate m;
      m.stream_xid = xid;
      TIDE_ASSIGN_OR_RETURN(uint32_t nrels, r.U32());
      TIDE_ASSIGN_OR_RETURN(uint8_t options, r.U8());
      m.cascade = (options & 1) != 0;
      m.restart_identity = (options & 2) != 0;
      TIDE_RETURN_IF_ERROR(r.Need(static_cast<size_t>(nrels) * 4));
      m.relation_oids.resize(nrels);
      for (auto& oid : m.relation_oids) {
        TIDE_ASSIGN_OR_RETURN(oid, r.U32());
      }
      out = std::move(m);
      break;
    }
    case 'M': {
      PgLogicalMessage m;
      m.stream_xid = xid;
      TIDE_ASSIGN_OR_RETURN(uint8_t flags, r.U8());
      m.transactional = (flags & 1) != 0;
      TIDE_ASSIGN_OR_RETURN(m.lsn, r.U64());
      TIDE_ASSIGN_OR_RETURN(m.prefix, r.String());
      const size_t len_at = r.position();
      TIDE_ASSIGN_OR_RETURN(int32_t len, r.I32());
      if (len < 0) return r.Corrupt("negative content length {} at offset {}", len, len_at);
      TIDE_ASSIGN_OR_RETURN(std::string_view content, r.Bytes(static_cast<size_t>(len)));
      m.content.assign(content);
      out = std::move(m);
      break;
    }
    case 'S': {
      if (in_stream_block_) {
        return r.Corrupt("Stream Start inside the stream block of xid {} (no Stream Stop before it)",
                         stream_xid_);
      }
      PgStreamStart m;
      TIDE_ASSIGN_OR_RETURN(m.xid, r.U32());
      TIDE_ASSIGN_OR_RETURN(uint8_t first, r.U8());
      m.first_segment = first == 1;
      TIDE_RETURN_IF_ERROR(r.ExpectEnd());
      in_stream_block_ = true;
      stream_xid_ = m.xid;
      return PgOutputMessage(m);
    }
    case 'E': {
      if (!in_stream_block_) return r.Corrupt("Stream Stop outside a stream block");
      TIDE_RETURN_IF_ERROR(r.ExpectEnd());
      in_stream_block_ = false;
      stream_xid_ = 0;
      return PgOutputMessage(PgStreamStop{});
    }
    case 'c': {
      PgStreamCommit m;
      TIDE_ASSIGN_OR_RETURN(m.xid, r.U32());
      TIDE_ASSIGN_OR_RETURN(m.flags, r.U8());
      TIDE_ASSIGN_OR_RETURN(m.commit_lsn, r.U64());
      TIDE_ASSIGN_OR_RETURN(m.end_lsn, r.U64());
      TIDE_ASSIGN_OR_RETURN(m.commit_time, r.I64());
      out = m;
      break;
    }
    case 'A': {
      PgStreamAbort m;
      TIDE_ASSIGN_OR_RETURN(m.xid, r.U32());
      TIDE_ASSIGN_OR_RETURN(m.subtransaction_xid, r.U32());
      if (options_.proto_version >= 4 && options_.streaming_parallel) {
        TIDE_ASSIGN_OR_RETURN(m.abort_lsn, r.U64());
        TIDE_ASSIGN_OR_RETURN(m.abort_time, r.I64());
      }
      out = m;
      break;
    }
    case 'b': {
      PgBeginPrepare m;
      TIDE_ASSIGN_OR_RETURN(m.prepare_lsn, r.U64());
      TIDE_ASSIGN_OR_RETURN(m.end_lsn, r.U64());
      TIDE_ASSIGN_OR_RETURN(m.prepare_time, r.I64());
      TIDE_ASSIGN_OR_RETURN(m.xid, r.U32());
      TIDE_ASSIGN_OR_RETURN(m.gid, r.String());
      out = std::move(m);
      break;
    }
    case 'P':
    case 'p': {
      uint8_t flags;
      Lsn prepare_lsn, end_lsn;
      PgTimestampMicros prepare_time;
      PgXid pxid;
      TIDE_ASSIGN_OR_RETURN(flags, r.U8());
      TIDE_ASSIGN_OR_RETURN(prepare_lsn, r.U64());
      TIDE_ASSIGN_OR_RETURN(end_lsn, r.U64());
      TIDE_ASSIGN_OR_RETURN(prepare_time, r.I64());
      TIDE_ASSIGN_OR_RETURN(pxid, r.U32());
      TIDE_ASSIGN_OR_RETURN(std::string gid, r.String());
      if (tag == 'P') {
        out = PgPrepare{flags, prepare_lsn, end_lsn, prepare_time, pxid, std::move(gid)};
      } else {
        out = PgStreamPrepare{flags, prepare_lsn, end_lsn, prepare_time, pxid, std::move(gid)};
      }
      break;
    }
    case 'K': {
      PgCommitPrepared m;
      TIDE_ASSIGN_OR_RETURN(m.flags, r.U8());
      TIDE_ASSIGN_OR_RETURN(m.commit_lsn, r.U64());
      TIDE_ASSIGN_OR_RETURN(m.end_lsn, r.U64());
      TIDE_ASSIGN_OR_RETURN(m.commit_time, r.I64());
      TIDE_ASSIGN_OR_RETURN(m.xid, r.U32());
      TIDE_ASSIGN_OR_RETURN(m.gid, r.String());
      out = std::move(m);
      break;
    }
    case 'r': {
      PgRollbackPrepared m;
      TIDE_ASSIGN_OR_RETURN(m.flags, r.U8());
      TIDE_ASSIGN_OR_RETURN(m.prepare_end_lsn, r.U64());
      TIDE_ASSIGN_OR_RETURN(m.rollback_end_lsn, r.U64());
      TIDE_ASSIGN_OR_RETURN(m.prepare_time, r.I64());
      TIDE_ASSIGN_OR_RETURN(m.rollback_time, r.I64());
      TIDE_ASSIGN_OR_RETURN(m.xid, r.U32());
      TIDE_ASSIGN_OR_RETURN(m.gid, r.String());
      out = std::move(m);
      break;
    }
    default:
      return Status::Internal("pgoutput decoder: message type '{}' has a name but no decoder", tag);
  }
  TIDE_RETURN_IF_ERROR(r.ExpectEnd());
  return out;
}

}  // namespace tide
