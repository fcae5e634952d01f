#include "tide/postgres/pg_type.h"

#include <fmt/format.h>

#include "tide/base/strings.h"
#include "tide/postgres/pg_connection.h"

namespace tide {
namespace {

struct BuiltinType {
  PgOid oid;
  const char* name;
  PgOid array_oid;
  PgTypeKind kind;
};

// Built-in types (pg_type.dat): scalar OID, typname, array OID. Ranges and multiranges are listed so that
// a domain over one resolves to a known name; they map to the STRING fallback.
constexpr BuiltinType kBuiltins[] = {
    {16, "bool", 1000, PgTypeKind::kBase},
    {17, "bytea", 1001, PgTypeKind::kBase},
    {18, "char", 1002, PgTypeKind::kBase},
    {19, "name", 1003, PgTypeKind::kBase},
    {20, "int8", 1016, PgTypeKind::kBase},
    {21, "int2", 1005, PgTypeKind::kBase},
    {22, "int2vector", 1006, PgTypeKind::kBase},
    {23, "int4", 1007, PgTypeKind::kBase},
    {24, "regproc", 1008, PgTypeKind::kBase},
    {25, "text", 1009, PgTypeKind::kBase},
    {26, "oid", 1028, PgTypeKind::kBase},
    {27, "tid", 1010, PgTypeKind::kBase},
    {28, "xid", 1011, PgTypeKind::kBase},
    {29, "cid", 1012, PgTypeKind::kBase},
    {30, "oidvector", 1013, PgTypeKind::kBase},
    {114, "json", 199, PgTypeKind::kBase},
    {142, "xml", 143, PgTypeKind::kBase},
    {600, "point", 1017, PgTypeKind::kBase},
    {601, "lseg", 1018, PgTypeKind::kBase},
    {602, "path", 1019, PgTypeKind::kBase},
    {603, "box", 1020, PgTypeKind::kBase},
    {604, "polygon", 1027, PgTypeKind::kBase},
    {628, "line", 629, PgTypeKind::kBase},
    {650, "cidr", 651, PgTypeKind::kBase},
    {700, "float4", 1021, PgTypeKind::kBase},
    {701, "float8", 1022, PgTypeKind::kBase},
    {718, "circle", 719, PgTypeKind::kBase},
    {774, "macaddr8", 775, PgTypeKind::kBase},
    {790, "money", 791, PgTypeKind::kBase},
    {829, "macaddr", 1040, PgTypeKind::kBase},
    {869, "inet", 1041, PgTypeKind::kBase},
    {1033, "aclitem", 1034, PgTypeKind::kBase},
    {1042, "bpchar", 1014, PgTypeKind::kBase},
    {1043, "varchar", 1015, PgTypeKind::kBase},
    {1082, "date", 1182, PgTypeKind::kBase},
    {1083, "time", 1183, PgTypeKind::kBase},
    {1114, "timestamp", 1115, PgTypeKind::kBase},
    {1184, "timestamptz", 1185, PgTypeKind::kBase},
    {1186, "interval", 1187, PgTypeKind::kBase},
    {1266, "timetz", 1270, PgTypeKind::kBase},
    {1560, "bit", 1561, PgTypeKind::kBase},
    {1562, "varbit", 1563, PgTypeKind::kBase},
    {1700, "numeric", 1231, PgTypeKind::kBase},
    {1790, "refcursor", 2201, PgTypeKind::kBase},
    {2202, "regprocedure", 2207, PgTypeKind::kBase},
    {2203, "regoper", 2208, PgTypeKind::kBase},
    {2204, "regoperator", 2209, PgTypeKind::kBase},
    {2205, "regclass", 2210, PgTypeKind::kBase},
    {2206, "regtype", 2211, PgTypeKind::kBase},
    {2950, "uuid", 2951, PgTypeKind::kBase},
    {3220, "pg_lsn", 3221, PgTypeKind::kBase},
    {3614, "tsvector", 3643, PgTypeKind::kBase},
    {3615, "tsquery", 3645, PgTypeKind::kBase},
    {3734, "regconfig", 3735, PgTypeKind::kBase},
    {3769, "regdictionary", 3770, PgTypeKind::kBase},
    {3802, "jsonb", 3807, PgTypeKind::kBase},
    {4072, "jsonpath", 4073, PgTypeKind::kBase},
    {4089, "regnamespace", 4090, PgTypeKind::kBase},
    {4096, "regrole", 4097, PgTypeKind::kBase},
    {5069, "xid8", 271, PgTypeKind::kBase},
    {3904, "int4range", 3905, PgTypeKind::kRange},
    {3906, "numrange", 3907, PgTypeKind::kRange},
    {3908, "tsrange", 3909, PgTypeKind::kRange},
    {3910, "tstzrange", 3911, PgTypeKind::kRange},
    {3912, "daterange", 3913, PgTypeKind::kRange},
    {3926, "int8range", 3927, PgTypeKind::kRange},
    {4451, "int4multirange", 6150, PgTypeKind::kMultirange},
    {4532, "nummultirange", 6151, PgTypeKind::kMultirange},
    {4533, "tsmultirange", 6152, PgTypeKind::kMultirange},
    {4534, "tstzmultirange", 6153, PgTypeKind::kMultirange},
    {4535, "datemultirange", 6155, PgTypeKind::kMultirange},
    {4536, "int8multirange", 6157, PgTypeKind::kMultirange},
};

// Domains can nest; PostgreSQL forbids cycles, but corrupt catalog input must not loop forever.
constexpr int kMaxDomainDepth = 32;

}  // namespace

PgTypeRegistry::PgTypeRegistry() {
  for (const BuiltinType& b : kBuiltins) {
    PgTypeInfo scalar;
    scalar.oid = b.oid;
    scalar.name = b.name;
    scalar.kind = b.kind;
    scalar.builtin = true;
    scalar.complete = true;
    types_.emplace(b.oid, scalar);
    builtin_by_name_.emplace(b.name, b.oid);

    PgTypeInfo array;
    array.oid = b.array_oid;
    array.name = std::string("_") + b.name;
    array.kind = PgTypeKind::kBase;
    array.element_oid = b.oid;
    array.builtin = true;
    array.complete = true;
    builtin_by_name_.emplace(array.name, array.oid);
    types_.emplace(b.array_oid, std::move(array));
  }
}

const PgTypeInfo* PgTypeRegistry::Find(PgOid oid) const {
  auto it = types_.find(oid);
  return it == types_.end() ? nullptr : &it->second;
}

const PgTypeInfo* PgTypeRegistry::FindBuiltinByName(std::string_view name) const {
  auto it = builtin_by_name_.find(std::string(name));
  return it == builtin_by_name_.end() ? nullptr : Find(it->second);
}

PgResolvedType PgTypeRegistry::Resolve(PgOid oid, int32_t type_modifier) const {
  PgResolvedType out;
  out.oid = oid;
  out.type_modifier = type_modifier;
  for (int depth = 0; depth < kMaxDomainDepth; ++depth) {
    const PgTypeInfo* info = Find(out.oid);
    if (info == nullptr) return out;
    if (info->kind != PgTypeKind::kDomain || info->base_oid == 0) {
      out.info = info;
      return out;
    }
    if (out.type_modifier < 0) out.type_modifier = info->base_type_modifier;
    out.oid = info->base_oid;
  }
  out.info = nullptr;  // a domain chain too deep to be real: treat as unknown
  return out;
}

void PgTypeRegistry::AddFromTypeMessage(const PgTypeMessage& message) {
  auto it = types_.find(message.oid);
  if (it != types_.end() && it->second.complete) {
    return;  // already known in more detail (built in, or from the catalog)
  }
  PgTypeInfo info;
  info.oid = message.oid;
  info.namespace_name = message.namespace_name;
  info.name = message.name;
  info.kind = PgTypeKind::kUnknown;
  if (message.namespace_name.empty() || message.namespace_name == "pg_catalog") {
    // pgoutput names a domain by its base type; a built-in name under another OID is such a domain.
    if (const PgTypeInfo* base = FindBuiltinByName(message.name); base != nullptr && base->oid != message.oid) {
      info.kind = PgTypeKind::kDomain;
      info.base_oid = base->oid;
    }
  }
  types_[message.oid] = std::move(info);
}

void PgTypeRegistry::Add(PgTypeInfo info) { types_[info.oid] = std::move(info); }

Status PgTypeRegistry::AddFromCatalogRow(std::span<const std::string> fields) {
  if (fields.size() != 8) {
    return Status::InvalidArgument("pg_type catalog row: expected 8 fields (oid, namespace, typname, typtype, "
                                   "typcategory, typelem, typbasetype, typtypmod), got {}",
                                   fields.size());
  }
  auto parse_oid = [&](size_t i, std::string_view what) -> Result<PgOid> {
    TIDE_ASSIGN_OR_RETURN(int64_t v, ParseInt64(fields[i], fmt::format("pg_type catalog row field {}", what)));
    if (v < 0 || v > 0xFFFFFFFFLL) {
      return Status::InvalidArgument("pg_type catalog row field {}: '{}' is not an OID", what, fields[i]);
    }
    return static_cast<PgOid>(v);
  };
  PgTypeInfo info;
  TIDE_ASSIGN_OR_RETURN(info.oid, parse_oid(0, "oid"));
  info.namespace_name = fields[1] == "pg_catalog" ? "" : fields[1];
  info.name = fields[2];
  if (fields[3].size() != 1 || std::string_view("bcdeprm").find(fields[3][0]) == std::string_view::npos) {
    return Status::InvalidArgument("pg_type catalog row field typtype: '{}' is not one of b c d e p r m",
                                   fields[3]);
  }
  info.kind = static_cast<PgTypeKind>(fields[3][0]);
  const bool is_array_category = fields[4] == "A";
  TIDE_ASSIGN_OR_RETURN(PgOid elem, parse_oid(5, "typelem"));
  info.element_oid = is_array_category ? elem : 0;
  TIDE_ASSIGN_OR_RETURN(info.base_oid, parse_oid(6, "typbasetype"));
  TIDE_ASSIGN_OR_RETURN(int64_t typmod, ParseInt64(fields[7], "pg_type catalog row field typtypmod"));
  info.base_type_modifier = static_cast<int32_t>(typmod);
  info.complete = true;
  const PgTypeInfo* existing = Find(info.oid);
  if (existing != nullptr && existing->builtin) return Status::OK();  // built-ins are fixed
  Add(std::move(info));
  return Status::OK();
}

std::vector<PgOid> PgTypeRegistry::UnresolvedTypeOids(const PgRelation& relation) const {
  std::vector<PgOid> out;
  auto add = [&](PgOid oid) {
    for (PgOid o : out) {
      if (o == oid) return;
    }
    out.push_back(oid);
  };
  for (const PgRelationColumn& col : relation.columns) {
    PgOid oid = col.type_oid;
    for (int depth = 0; depth < kMaxDomainDepth && oid != 0; ++depth) {
      const PgTypeInfo* info = Find(oid);
      if (info == nullptr || !info->complete) {
        add(oid);
        if (info == nullptr || info->kind != PgTypeKind::kDomain) break;
      }
      if (info->kind == PgTypeKind::kDomain && info->base_oid != 0) {
        oid = info->base_oid;
      } else if (info->element_oid != 0) {
        oid = info->element_oid;
      } else {
        break;
      }
    }
  }
  return out;
}

std::string PgTypeCatalogQuery(std::span<const PgOid> oids) {
  std::vector<std::string> list;
  list.reserve(oids.size());
  for (PgOid oid : oids) list.push_back(std::to_string(oid));
  if (list.empty()) list.push_back("0");
  return fmt::format(
      "SELECT t.oid, CASE WHEN n.nspname = 'pg_catalog' THEN '' ELSE n.nspname END, t.typname, t.typtype, "
      // Only types read and written by array_in/array_out are arrays in the {a,b} format; int2vector and
      // oidvector are in category A too but print as "1 2 3".
      "CASE WHEN t.typinput = 'pg_catalog.array_in'::pg_catalog.regproc THEN 'A' "
      "WHEN t.typcategory = 'A' THEN 'U' ELSE t.typcategory::text END, "
      "t.typelem, t.typbasetype, t.typtypmod FROM pg_catalog.pg_type t JOIN "
      "pg_catalog.pg_namespace n ON n.oid = t.typnamespace WHERE t.oid IN ({})",
      Join(list, ", "));
}

std::optional<PgNumericTypmod> DecodeNumericTypmod(int32_t type_modifier) {
  // VARHDRSZ (4) + (precision << 16 | scale as 11-bit two's complement); see numeric.c.
  if (type_modifier < 4) return std::nullopt;
  const int32_t t = type_modifier - 4;
  PgNumericTypmod out;
  out.precision = (t >> 16) & 0xFFFF;
  out.scale = ((t & 0x7FF) ^ 1024) - 1024;
  return out;
}

std::optional<int32_t> DecodeCharLengthTypmod(int32_t type_modifier) {
  if (type_modifier < 4) return std::nullopt;
  return type_modifier - 4;
}

std::optional<int> DecodeTimePrecisionTypmod(PgOid base_oid, int32_t type_modifier) {
  if (type_modifier < 0) return std::nullopt;
  if (base_oid == pg_oid::kInterval) {
    // interval typmod = range mask << 16 | precision; 0xFFFF precision means "not given".
    const int precision = type_modifier & 0xFFFF;
    if (precision == 0xFFFF) return std::nullopt;
    return precision;
  }
  return type_modifier;
}

Status ResolveRelationTypes(PgConnection& conn, const PgRelation& relation, PgTypeRegistry* types) {
  std::vector<PgOid> unknown = types->UnresolvedTypeOids(relation);
  if (unknown.empty()) return Status::OK();
  TIDE_ASSIGN_OR_RETURN(PgResult rows, conn.Query(PgTypeCatalogQuery(unknown)));
  for (int r = 0; r < rows.rows(); ++r) {
    std::vector<std::string> fields;
    for (int c = 0; c < rows.columns(); ++c) fields.emplace_back(rows.Value(r, c));
    TIDE_RETURN_IF_ERROR(types->AddFromCatalogRow(fields));
  }
  return Status::OK();
}

}  // namespace tide
