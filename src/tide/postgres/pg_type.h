// PostgreSQL type identity: the OIDs of the built-in types, and PgTypeRegistry, which knows for each
// type OID its name, kind (base, enum, domain, ...), array element and domain base type.
//
// Built-in types (OID < 10000, fixed across PostgreSQL versions) are known from the start. Other types
// (enums, domains, extension types, their arrays) are learnt from pgoutput Type messages (which give only
// namespace and name; for a domain, the *base type's* name) and, more completely, from rows of
// PgTypeCatalogQuery() run against pg_type. Invariant: a registered OID never changes meaning within a
// session (PostgreSQL never reuses a live type's OID). Thread-safety: not thread-safe while being
// modified; concurrent const use is safe.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tide/base/result.h"
#include "tide/postgres/pgoutput_message.h"

namespace tide {

// OIDs of the built-in types Tide decodes (pg_type.dat). Arrays are "k<Name>Array".
namespace pg_oid {
inline constexpr PgOid kBool = 16;
inline constexpr PgOid kBytea = 17;
inline constexpr PgOid kChar = 18;  // "char": one byte
inline constexpr PgOid kName = 19;
inline constexpr PgOid kInt8 = 20;
inline constexpr PgOid kInt2 = 21;
inline constexpr PgOid kInt4 = 23;
inline constexpr PgOid kText = 25;
inline constexpr PgOid kOid = 26;
inline constexpr PgOid kXid = 28;
inline constexpr PgOid kJson = 114;
inline constexpr PgOid kXml = 142;
inline constexpr PgOid kCidr = 650;
inline constexpr PgOid kFloat4 = 700;
inline constexpr PgOid kFloat8 = 701;
inline constexpr PgOid kMacaddr8 = 774;
inline constexpr PgOid kMoney = 790;
inline constexpr PgOid kMacaddr = 829;
inline constexpr PgOid kInet = 869;
inline constexpr PgOid kBpchar = 1042;
inline constexpr PgOid kVarchar = 1043;
inline constexpr PgOid kDate = 1082;
inline constexpr PgOid kTime = 1083;
inline constexpr PgOid kTimestamp = 1114;
inline constexpr PgOid kTimestamptz = 1184;
inline constexpr PgOid kInterval = 1186;
inline constexpr PgOid kTimetz = 1266;
inline constexpr PgOid kBit = 1560;
inline constexpr PgOid kVarbit = 1562;
inline constexpr PgOid kNumeric = 1700;
inline constexpr PgOid kUuid = 2950;
inline constexpr PgOid kPgLsn = 3220;
inline constexpr PgOid kJsonb = 3802;

inline constexpr PgOid kBoolArray = 1000;
inline constexpr PgOid kByteaArray = 1001;
inline constexpr PgOid kCharArray = 1002;
inline constexpr PgOid kNameArray = 1003;
inline constexpr PgOid kInt2Array = 1005;
inline constexpr PgOid kInt4Array = 1007;
inline constexpr PgOid kTextArray = 1009;
inline constexpr PgOid kBpcharArray = 1014;
inline constexpr PgOid kVarcharArray = 1015;
inline constexpr PgOid kInt8Array = 1016;
inline constexpr PgOid kFloat4Array = 1021;
inline constexpr PgOid kFloat8Array = 1022;
inline constexpr PgOid kOidArray = 1028;
inline constexpr PgOid kMacaddrArray = 1040;
inline constexpr PgOid kInetArray = 1041;
inline constexpr PgOid kCidrArray = 651;
inline constexpr PgOid kTimestampArray = 1115;
inline constexpr PgOid kDateArray = 1182;
inline constexpr PgOid kTimeArray = 1183;
inline constexpr PgOid kTimestamptzArray = 1185;
inline constexpr PgOid kIntervalArray = 1187;
inline constexpr PgOid kNumericArray = 1231;
inline constexpr PgOid kTimetzArray = 1270;
inline constexpr PgOid kUuidArray = 2951;
inline constexpr PgOid kJsonArray = 199;
inline constexpr PgOid kJsonbArray = 3807;
inline constexpr PgOid kMoneyArray = 791;
inline constexpr PgOid kMacaddr8Array = 775;
inline constexpr PgOid kXmlArray = 143;
}  // namespace pg_oid

// pg_type.typtype
enum class PgTypeKind : char {
  kBase = 'b',
  kComposite = 'c',
  kDomain = 'd',
  kEnum = 'e',
  kPseudo = 'p',
  kRange = 'r',
  kMultirange = 'm',
  kUnknown = '?',  // learnt only from a Type message: name known, kind not
};

struct PgTypeInfo {
  PgOid oid = 0;
  std::string namespace_name;  // "" for pg_catalog, as pgoutput sends it
  std::string name;            // typname, e.g. "int4", "_int4", "mood"
  PgTypeKind kind = PgTypeKind::kUnknown;
  PgOid element_oid = 0;       // for an array type (typcategory 'A'): the element type, else 0
  PgOid base_oid = 0;          // for a domain: typbasetype, else 0
  int32_t base_type_modifier = -1;  // for a domain: typtypmod (e.g. numeric(10,2)), else -1
  bool builtin = false;
  // Kind, element, base and typmod come from the built-in table or pg_type; false when learnt only from a
  // Type message (then a domain's typmod and an enum's or array's nature are not known).
  bool complete = false;

  bool is_array() const { return element_oid != 0; }
};

// After resolving domains: the type whose format the values use, and the typmod that applies.
struct PgResolvedType {
  const PgTypeInfo* info = nullptr;  // never a domain; nullptr when the OID is unknown
  PgOid oid = 0;
  int32_t type_modifier = -1;
};

class PgTypeRegistry {
 public:
  // A registry that knows every built-in type in pg_oid (and the other built-in names pgoutput may
  // send in a Type message for a domain's base type).
  PgTypeRegistry();

  // nullptr when the OID is unknown.
  const PgTypeInfo* Find(PgOid oid) const;
  // A built-in type by its typname ("int4", "_text", "timestamptz"); nullptr when not built in.
  const PgTypeInfo* FindBuiltinByName(std::string_view name) const;

  // Follows domains (of domains) to the base type. A domain's own typmod wins over `type_modifier` only
  // when the column has none (-1), as PostgreSQL stores it. Unknown OIDs give info == nullptr.
  PgResolvedType Resolve(PgOid oid, int32_t type_modifier) const;

  // Learns from a Type message. A name in pg_catalog ("" namespace) that is a built-in type registers
  // the OID as a domain over that built-in (that is what such a message means); anything else as
  // kUnknown unless the OID is already known in more detail (a catalog row is never downgraded).
  void AddFromTypeMessage(const PgTypeMessage& message);

  // Registers (or replaces) a type described by the catalog.
  void Add(PgTypeInfo info);

  // Parses one row of PgTypeCatalogQuery()'s result (text fields, in the query's column order) and
  // registers it. InvalidArgument names the bad field.
  Status AddFromCatalogRow(std::span<const std::string> fields);

  // The column OIDs of `relation` (and their array elements and domain bases) that the registry does
  // not know completely (unknown, or learnt only from a Type message): what to look up with
  // PgTypeCatalogQuery.
  std::vector<PgOid> UnresolvedTypeOids(const PgRelation& relation) const;

 private:
  std::unordered_map<PgOid, PgTypeInfo> types_;
  std::unordered_map<std::string, PgOid> builtin_by_name_;
};

// A simple-protocol SQL query (usable on a replication=database connection) returning, for each OID in
// `oids`, the columns: oid, namespace ("" for pg_catalog), typname, typtype, typcategory (forced to 'A'
// exactly for types in array_in's {a,b} format), typelem, typbasetype, typtypmod. Feed each row to
// PgTypeRegistry::AddFromCatalogRow.
std::string PgTypeCatalogQuery(std::span<const PgOid> oids);

class PgConnection;
// Looks up on `conn` the types of `relation` that `types` does not know completely
// (UnresolvedTypeOids, PgTypeCatalogQuery) and registers them.
Status ResolveRelationTypes(PgConnection& conn, const PgRelation& relation, PgTypeRegistry* types);

// Decodes a column typmod: numeric → precision and scale (scale may be negative or exceed precision
// since PostgreSQL 15); nullopt without a typmod.
struct PgNumericTypmod {
  int precision = 0;
  int scale = 0;
};
std::optional<PgNumericTypmod> DecodeNumericTypmod(int32_t type_modifier);
// varchar(n) / char(n) → n; nullopt without a typmod.
std::optional<int32_t> DecodeCharLengthTypmod(int32_t type_modifier);
// time(p) / timetz(p) / timestamp(p) / timestamptz(p) / interval(p) → p; nullopt without a typmod.
std::optional<int> DecodeTimePrecisionTypmod(PgOid base_oid, int32_t type_modifier);

}  // namespace tide
