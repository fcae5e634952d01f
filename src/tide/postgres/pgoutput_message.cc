#include "tide/postgres/pgoutput_message.h"

namespace tide {

std::string_view PgTupleValueKindName(PgTupleValueKind kind) {
  switch (kind) {
    case PgTupleValueKind::kNull: return "null";
    case PgTupleValueKind::kUnchangedToast: return "unchanged-toast";
    case PgTupleValueKind::kText: return "text";
    case PgTupleValueKind::kBinary: return "binary";
    case PgTupleValueKind::kAbsent: return "absent";
  }
  return "?";
}

namespace {

struct NameAndTag {
  std::string_view name;
  char tag;
};

NameAndTag Describe(const PgOutputMessage& m) {
  struct Visitor {
    NameAndTag operator()(const PgBegin&) const { return {"Begin", 'B'}; }
    NameAndTag operator()(const PgCommit&) const { return {"Commit", 'C'}; }
    NameAndTag operator()(const PgOrigin&) const { return {"Origin", 'O'}; }
    NameAndTag operator()(const PgRelation&) const { return {"Relation", 'R'}; }
    NameAndTag operator()(const PgTypeMessage&) const { return {"Type", 'Y'}; }
    NameAndTag operator()(const PgInsert&) const { return {"Insert", 'I'}; }
    NameAndTag operator()(const PgUpdate&) const { return {"Update", 'U'}; }
    NameAndTag operator()(const PgDelete&) const { return {"Delete", 'D'}; }
    NameAndTag operator()(const PgTruncate&) const { return {"Truncate", 'T'}; }
    NameAndTag operator()(const PgLogicalMessage&) const { return {"Message", 'M'}; }
    NameAndTag operator()(const PgStreamStart&) const { return {"Stream Start", 'S'}; }
    NameAndTag operator()(const PgStreamStop&) const { return {"Stream Stop", 'E'}; }
    NameAndTag operator()(const PgStreamCommit&) const { return {"Stream Commit", 'c'}; }
    NameAndTag operator()(const PgStreamAbort&) const { return {"Stream Abort", 'A'}; }
    NameAndTag operator()(const PgBeginPrepare&) const { return {"Begin Prepare", 'b'}; }
    NameAndTag operator()(const PgPrepare&) const { return {"Prepare", 'P'}; }
    NameAndTag operator()(const PgCommitPrepared&) const { return {"Commit Prepared", 'K'}; }
    NameAndTag operator()(const PgRollbackPrepared&) const { return {"Rollback Prepared", 'r'}; }
    NameAndTag operator()(const PgStreamPrepare&) const { return {"Stream Prepare", 'p'}; }
  };
  return std::visit(Visitor{}, m);
}

}  // namespace

std::string_view PgOutputMessageName(const PgOutputMessage& message) { return Describe(message).name; }

char PgOutputMessageTag(const PgOutputMessage& message) { return Describe(message).tag; }

bool IsTwoPhaseMessage(const PgOutputMessage& message) {
  return std::holds_alternative<PgBeginPrepare>(message) || std::holds_alternative<PgPrepare>(message) ||
         std::holds_alternative<PgCommitPrepared>(message) ||
         std::holds_alternative<PgRollbackPrepared>(message) ||
         std::holds_alternative<PgStreamPrepare>(message);
}

}  // namespace tide
