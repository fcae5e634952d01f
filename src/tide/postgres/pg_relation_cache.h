// PgRelationCache: relation OID → the latest description PostgreSQL sent for it in a Relation message
// (namespace, name, replica identity, columns with key flag, name, type OID and typmod).
//
// Changes (Insert/Update/Delete) refer to relations only by OID; this map is how a consumer knows their
// columns. It is the only in-band schema signal: logical decoding does not decode DDL, so a schema change
// is seen when a Relation message for a known OID differs from the cached one; Upsert reports that
// difference. Invariant: each entry is exactly the last Relation message received for its OID in this
// session. Thread-safety: not thread-safe; owned by one decoder.
#pragma once

#include <optional>
#include <unordered_map>

#include "tide/postgres/pgoutput_message.h"

namespace tide {

class PgRelationCache {
 public:
  // Stores `relation` (its schema_change field is ignored and not stored) and returns how it differs
  // from the previous description of the same OID, or nullopt when the OID is new or nothing changed
  // (namespace, name, replica identity and every column's key flag, name, type OID, typmod compared).
  std::optional<PgSchemaChange> Upsert(const PgRelation& relation);

  // nullptr when no Relation message for `oid` has been seen.
  const PgRelation* Find(PgOid oid) const;

  size_t size() const { return relations_.size(); }
  void Clear() { relations_.clear(); }

 private:
  std::unordered_map<PgOid, PgRelation> relations_;
};

}  // namespace tide
