#include "tide/postgres/pg_relation_cache.h"

namespace tide {

std::optional<PgSchemaChange> PgRelationCache::Upsert(const PgRelation& relation) {
  PgRelation stored = relation;
  stored.schema_change.reset();
  stored.stream_xid.reset();
  auto it = relations_.find(relation.oid);
  if (it == relations_.end()) {
    relations_.emplace(relation.oid, std::move(stored));
    return std::nullopt;
  }
  const PgRelation& old = it->second;
  std::optional<PgSchemaChange> change;
  if (old.namespace_name != stored.namespace_name || old.name != stored.name ||
      old.replica_identity != stored.replica_identity || old.columns != stored.columns) {
    change.emplace();
    change->old_namespace_name = old.namespace_name;
    change->old_name = old.name;
    change->old_replica_identity = old.replica_identity;
    change->old_columns = old.columns;
    change->new_columns = stored.columns;
  }
  it->second = std::move(stored);
  return change;
}

const PgRelation* PgRelationCache::Find(PgOid oid) const {
  auto it = relations_.find(oid);
  return it == relations_.end() ? nullptr : &it->second;
}

}  // namespace tide
