#include "tide/sync/table_selection.h"

#include <gtest/gtest.h>

#include "testing/value_or_fail.h"

namespace tide {
namespace {

using testing::ValueOrFail;

PgTableName T(const char* schema, const char* name) { return PgTableName{schema, name}; }

// The server's tables in these tests.
std::vector<PgTableName> Server() {
  return {T("public", "orders"),   T("public", "orders_1"), T("public", "orders_22"), T("public", "orders_x"),
          T("public", "users"),    T("public", "Mixed"),    T("shop", "orders"),      T("shop", "items"),
          T("archive", "orders_1")};
}

std::vector<PgTableName> SelectFrom(const char* tables, const char* excluding = "") {
  TableSelection s = ValueOrFail(TableSelection::Parse(tables, excluding, "", "", ""), tables);
  return ValueOrFail(s.Select(Server()), tables);
}

bool Contains(const Status& st, std::string_view text) { return st.message().find(text) != std::string::npos; }

TEST(TablePatternTest, NamesAndPatterns) {
  TablePattern p = ValueOrFail(TablePattern::Parse("public.orders"), "parse");
  ASSERT_TRUE(p.is_name());
  EXPECT_EQ(p.name(), T("public", "orders"));
  // Without a schema: public; unquoted parts fold to lower case, quoted parts are kept.
  EXPECT_EQ(ValueOrFail(TablePattern::Parse("Orders"), "parse").name(), T("public", "orders"));
  EXPECT_EQ(ValueOrFail(TablePattern::Parse("Shop.Orders"), "parse").name(), T("shop", "orders"));
  EXPECT_EQ(ValueOrFail(TablePattern::Parse("\"My T\""), "parse").name(), T("public", "My T"));
  for (const char* pattern : {"public\\..*", "orders_\\d+", ".*", "orders|users", "public.orders_\\d+", "t$"}) {
    EXPECT_FALSE(ValueOrFail(TablePattern::Parse(pattern), pattern).is_name()) << pattern;
  }
}

TEST(TablePatternTest, RefusesWhatCannotBeANameOrPattern) {
  for (const char* bad : {"", "\"open", "orders_(", "(?i)orders", "\"x\".*", "a*+", "a++b", "x{2}+", "(?<=a)b",
                          "(?>ab)", "\\p{L}+", "\\Qa.b\\E", "\\Aorders\\z"}) {
    auto r = TablePattern::Parse(bad);
    EXPECT_FALSE(r.ok()) << bad;
    EXPECT_TRUE(r.status().IsInvalidArgument()) << bad;
  }
  EXPECT_TRUE(Contains(TablePattern::Parse("orders_(").status(), "'orders_('"));
  EXPECT_TRUE(Contains(TablePattern::Parse("\"x\".*").status(), "quotes belong to table names"));
  EXPECT_TRUE(Contains(TablePattern::Parse("a*+").status(), "possessive quantifier '*+'"));
  EXPECT_TRUE(Contains(TablePattern::Parse("\\Qa\\E").status(), "the escape \\Q"));
  // A '+' inside a character class or escaped is no quantifier.
  EXPECT_TRUE(TablePattern::Parse("[*+]x").ok());
  EXPECT_TRUE(TablePattern::Parse("a\\++").ok());
  // The flag is named in list errors.
  EXPECT_TRUE(Contains(ParseTablePatterns("a,b_(", "--excluding-tables").status(), "--excluding-tables"));
}

TEST(TableSelectionTest, NamesSelectThoseTables) {
  EXPECT_EQ(SelectFrom("public.orders,public.users"), (std::vector<PgTableName>{T("public", "orders"), T("public", "users")}));
  EXPECT_EQ(SelectFrom(" orders , users "), (std::vector<PgTableName>{T("public", "orders"), T("public", "users")}));
  EXPECT_EQ(SelectFrom("shop.orders"), (std::vector<PgTableName>{T("shop", "orders")}));
  EXPECT_EQ(SelectFrom("\"Mixed\""), (std::vector<PgTableName>{T("public", "Mixed")}));
  // Listed twice is selected once.
  EXPECT_EQ(SelectFrom("orders,public.orders"), (std::vector<PgTableName>{T("public", "orders")}));
}

TEST(TableSelectionTest, PatternsMatchTheWholeName) {
  // With a schema: matched against schema.table.
  EXPECT_EQ(SelectFrom("public\\..*"),
            (std::vector<PgTableName>{T("public", "Mixed"), T("public", "orders"), T("public", "orders_1"),
                                      T("public", "orders_22"), T("public", "orders_x"), T("public", "users")}));
  EXPECT_EQ(SelectFrom("public.orders_\\d+"), (std::vector<PgTableName>{T("public", "orders_1"), T("public", "orders_22")}));
  TableSelection any_schema = ValueOrFail(TableSelection::Parse(".*\\.orders_1", "", "", "", ""), "parse");
  EXPECT_TRUE(any_schema.Selects(T("archive", "orders_1")));
  EXPECT_TRUE(any_schema.Selects(T("public", "orders_1")));
  EXPECT_FALSE(any_schema.Selects(T("public", "orders_12")));
  // Every table of every schema (into one lake table: several share a name).
  TableSelection every = ValueOrFail(TableSelection::Parse(".*\\..*", "", "", "", "all"), "parse");
  EXPECT_EQ(ValueOrFail(every.Select(Server()), "select").size(), Server().size());
  EXPECT_EQ(SelectFrom("(shop|archive)\\..*"),
            (std::vector<PgTableName>{T("archive", "orders_1"), T("shop", "items"), T("shop", "orders")}));
  // Without a schema: the tables of public.
  EXPECT_EQ(SelectFrom("orders_\\d+"), (std::vector<PgTableName>{T("public", "orders_1"), T("public", "orders_22")}));
  EXPECT_EQ(SelectFrom("orders|users"), (std::vector<PgTableName>{T("public", "orders"), T("public", "users")}));
  EXPECT_EQ(SelectFrom("order.*"), (std::vector<PgTableName>{T("public", "orders"), T("public", "orders_1"),
                                                             T("public", "orders_22"), T("public", "orders_x")}));
  EXPECT_EQ(SelectFrom(".*").size(), 6u);
  // Whole-name matching, as Java's Pattern.matches: `rders` is not found inside `orders`.
  EXPECT_FALSE(TableSelection::Parse("rders.*", "", "", "", "")->Selects(T("public", "orders")));
  // Patterns are case-sensitive: `M.*` finds "Mixed", `m.*` does not.
  EXPECT_EQ(SelectFrom("M.*"), (std::vector<PgTableName>{T("public", "Mixed")}));
  EXPECT_FALSE(TableSelection::Parse("m.*", "", "", "", "")->Selects(T("public", "Mixed")));
  // A comma inside {} does not split the list.
  EXPECT_EQ(SelectFrom("orders_\\d{1,2}"), (std::vector<PgTableName>{T("public", "orders_1"), T("public", "orders_22")}));
  EXPECT_EQ(SelectFrom("orders_\\d{2,},users"), (std::vector<PgTableName>{T("public", "orders_22"), T("public", "users")}));
}

TEST(TableSelectionTest, PublicDotStarIsATablePattern) {
  // `.` followed by `*` is a wildcard, not the separator: `public.*` names tables of public starting
  // with "public", of which there are none; the selection then fails.
  TableSelection s = ValueOrFail(TableSelection::Parse("public.*", "", "", "", ""), "parse");
  EXPECT_TRUE(s.Selects(T("public", "public_notes")));
  EXPECT_FALSE(s.Selects(T("public", "orders")));
  EXPECT_TRUE(s.Select(Server()).status().IsInvalidArgument());
}

TEST(TableSelectionTest, ExcludingRemovesTables) {
  EXPECT_EQ(SelectFrom("public\\..*", "orders_\\d+,public.users,\"Mixed\""),
            (std::vector<PgTableName>{T("public", "orders"), T("public", "orders_x")}));
  EXPECT_EQ(SelectFrom(".*\\..*", "shop\\..*,archive\\..*,public\\.orders.*"),
            (std::vector<PgTableName>{T("public", "Mixed"), T("public", "users")}));
  // Excluding a table that does not exist is not an error.
  EXPECT_EQ(SelectFrom("orders", "public.gone"), (std::vector<PgTableName>{T("public", "orders")}));
}

TEST(TableSelectionTest, TargetNames) {
  TableSelection s = ValueOrFail(TableSelection::Parse("public\\..*", "", "ods_", "_v1", ""), "parse");
  EXPECT_EQ(s.TargetName(T("public", "orders")), "ods_orders_v1");
  EXPECT_EQ(s.TargetName(T("public", "Mixed")), "ods_mixed_v1");  // lake names are lower case
  EXPECT_FALSE(s.has_into());
  TableSelection upper = ValueOrFail(TableSelection::Parse("orders", "", "ODS_", "", ""), "parse");
  EXPECT_EQ(upper.TargetName(T("public", "orders")), "ods_orders");
  TableSelection plain = ValueOrFail(TableSelection::Parse("orders", "", "", "", ""), "parse");
  EXPECT_EQ(plain.TargetName(T("shop", "orders")), "orders");  // the schema is not part of it
}

TEST(TableSelectionTest, IntoMapsEveryTableToOne) {
  TableSelection s = ValueOrFail(TableSelection::Parse("public.orders,shop.orders", "", "", "", "Lake.All_Orders"), "parse");
  EXPECT_TRUE(s.has_into());
  EXPECT_EQ(s.into_database(), std::optional<std::string>("lake"));
  EXPECT_EQ(s.TargetName(T("public", "orders")), "all_orders");
  EXPECT_EQ(s.TargetName(T("shop", "orders")), "all_orders");
  // Two tables of one name are fine with --into.
  EXPECT_EQ(ValueOrFail(s.Select(Server()), "select"), (std::vector<PgTableName>{T("public", "orders"), T("shop", "orders")}));
  TableSelection no_db = ValueOrFail(TableSelection::Parse("orders", "", "", "", "all"), "parse");
  EXPECT_EQ(no_db.into_database(), std::nullopt);
  EXPECT_EQ(no_db.TargetName(T("public", "orders")), "all");
  EXPECT_TRUE(Contains(TableSelection::Parse("orders", "", "p_", "", "db.t").status(), "drop them"));
  EXPECT_TRUE(TableSelection::Parse("orders", "", "", "", "a.b.c").status().IsInvalidArgument());
  EXPECT_TRUE(TableSelection::Parse("orders", "", "", "", ".t").status().IsInvalidArgument());
  EXPECT_TRUE(TableSelection::Parse("orders", "", "", "", "db.").status().IsInvalidArgument());
  EXPECT_TRUE(TableSelection::Parse("orders", "", "", "", "t$x").status().IsInvalidArgument());
}

TEST(TableSelectionTest, SelectFailsOnMissingNamesEmptySelectionsAndCollisions) {
  TableSelection missing = ValueOrFail(TableSelection::Parse("public.orders,ordrs,shop.itms,orders_\\d+", "", "", "", ""), "p");
  Status st = missing.Select(Server()).status();
  EXPECT_TRUE(st.IsNotFound()) << st.ToString();
  EXPECT_TRUE(Contains(st, "public.ordrs, shop.itms")) << st.ToString();
  // Folded names are reported as PostgreSQL spells them; a capitalised name needs quotes.
  TableSelection mixed = ValueOrFail(TableSelection::Parse("Mixed", "", "", "", ""), "p");
  EXPECT_TRUE(Contains(mixed.Select(Server()).status(), "public.mixed"));
  // A pattern that matches nothing is not an error while something is selected...
  EXPECT_EQ(SelectFrom("orders,nothing_\\d+"), (std::vector<PgTableName>{T("public", "orders")}));
  // ... but an empty selection is.
  TableSelection none = ValueOrFail(TableSelection::Parse("nothing_\\d+", "", "", "", ""), "p");
  EXPECT_TRUE(Contains(none.Select(Server()).status(), "nothing to sync"));
  TableSelection all_excluded = ValueOrFail(TableSelection::Parse("orders", "orders", "", "", ""), "p");
  EXPECT_TRUE(Contains(all_excluded.Select(Server()).status(), "but not --excluding-tables 'orders'"));
  // Two sources, one lake name.
  TableSelection clash = ValueOrFail(TableSelection::Parse("public.orders,shop.orders", "", "", "", ""), "p");
  st = clash.Select(Server()).status();
  EXPECT_TRUE(st.IsInvalidArgument());
  EXPECT_TRUE(Contains(st, "public.orders and shop.orders would both be the lake table 'orders'")) << st.ToString();
  EXPECT_TRUE(Contains(st, "--into")) << st.ToString();
  // Case folding can collide too: "Mixed" and mixed.
  std::vector<PgTableName> server = {T("public", "Mixed"), T("public", "mixed")};
  TableSelection fold = ValueOrFail(TableSelection::Parse(".*", "", "", "", ""), "p");
  EXPECT_TRUE(Contains(fold.Select(server).status(), "would both be the lake table 'mixed'"));
  // A lake name Paimon cannot hold.
  std::vector<PgTableName> dollar = {T("public", "a$b")};
  TableSelection d = ValueOrFail(TableSelection::Parse("\"a$b\"", "", "", "", ""), "p");
  EXPECT_TRUE(Contains(d.Select(dollar).status(), "'$'"));
}

TEST(TableSelectionTest, RequiresTables) {
  EXPECT_TRUE(Contains(TableSelection::Parse("", "", "", "", "").status(), "--tables lists no table"));
  EXPECT_TRUE(Contains(TableSelection::Parse(" , ", "", "", "", "").status(), "--tables lists no table"));
  EXPECT_TRUE(Contains(TableSelection::Parse("a_(", "", "", "", "").status(), "--tables"));
}

TEST(ScopedValueTest, ParsesTheTablePrefix) {
  ScopedValue v = ValueOrFail(ScopedValue::Parse("orders:dt"), "p");
  EXPECT_EQ(v.table, std::optional<std::string>("orders"));
  EXPECT_EQ(v.schema, std::nullopt);
  EXPECT_EQ(v.value, "dt");
  v = ValueOrFail(ScopedValue::Parse(" Shop.Orders : dt,hh "), "p");
  EXPECT_EQ(v.schema, std::optional<std::string>("shop"));
  EXPECT_EQ(v.table, std::optional<std::string>("orders"));
  EXPECT_EQ(v.value, "dt,hh");
  v = ValueOrFail(ScopedValue::Parse("\"My:T\":x"), "p");
  EXPECT_EQ(v.table, std::optional<std::string>("My:T"));
  EXPECT_EQ(v.value, "x");
  // A computed column with a colon in its pattern has no scope...
  v = ValueOrFail(ScopedValue::Parse("t=date_format(ts, HH:mm)"), "p");
  EXPECT_FALSE(v.scoped());
  EXPECT_EQ(v.value, "t=date_format(ts, HH:mm)");
  // ... unless it is given one.
  v = ValueOrFail(ScopedValue::Parse("orders:t=date_format(ts, HH:mm)"), "p");
  EXPECT_EQ(v.table, std::optional<std::string>("orders"));
  EXPECT_EQ(v.value, "t=date_format(ts, HH:mm)");
  v = ValueOrFail(ScopedValue::Parse("id"), "p");
  EXPECT_FALSE(v.scoped());
  EXPECT_EQ(v.value, "id");
  EXPECT_FALSE(ScopedValue::Parse("orders:").ok());
  EXPECT_FALSE(ScopedValue::Parse("  ").ok());
}

TEST(ScopedValueTest, AppliesToItsTable) {
  ScopedValue any_schema = ValueOrFail(ScopedValue::Parse("orders:dt"), "p");
  EXPECT_TRUE(any_schema.AppliesTo(T("public", "orders")));
  EXPECT_TRUE(any_schema.AppliesTo(T("shop", "orders")));
  EXPECT_FALSE(any_schema.AppliesTo(T("public", "users")));
  ScopedValue shop = ValueOrFail(ScopedValue::Parse("shop.orders:dt"), "p");
  EXPECT_FALSE(shop.AppliesTo(T("public", "orders")));
  EXPECT_TRUE(shop.AppliesTo(T("shop", "orders")));
  EXPECT_TRUE(ValueOrFail(ScopedValue::Parse("dt"), "p").AppliesTo(T("x", "y")));
}

TEST(ScopedValueTest, RepeatableAndSingleValuedFlags) {
  std::vector<ScopedValue> values = {*ScopedValue::Parse("a=year(ts)"), *ScopedValue::Parse("orders:b=month(ts)"),
                                     *ScopedValue::Parse("users:c=day(ts)")};
  EXPECT_EQ(ValuesFor(values, T("public", "orders")), (std::vector<std::string>{"a=year(ts)", "b=month(ts)"}));
  EXPECT_EQ(ValuesFor(values, T("public", "items")), (std::vector<std::string>{"a=year(ts)"}));

  // A table's own value wins over the general one, as Java's multiple_table_partition_keys does.
  std::vector<ScopedValue> keys = {*ScopedValue::Parse("dt"), *ScopedValue::Parse("orders:region,dt")};
  EXPECT_EQ(*ValueFor(keys, T("public", "orders"), "--partition-keys"), std::optional<std::string>("region,dt"));
  EXPECT_EQ(*ValueFor(keys, T("public", "users"), "--partition-keys"), std::optional<std::string>("dt"));
  EXPECT_EQ(*ValueFor({}, T("public", "users"), "--partition-keys"), std::nullopt);
  std::vector<ScopedValue> twice = {*ScopedValue::Parse("dt"), *ScopedValue::Parse("hh")};
  EXPECT_TRUE(Contains(ValueFor(twice, T("public", "users"), "--partition-keys").status(), "--partition-keys is given twice"));
  std::vector<ScopedValue> twice_scoped = {*ScopedValue::Parse("orders:a"), *ScopedValue::Parse("public.orders:b")};
  EXPECT_FALSE(ValueFor(twice_scoped, T("public", "orders"), "--primary-keys").ok());
}

TEST(ScopedValueTest, ScopesMustNameOneSelectedTable) {
  std::vector<PgTableName> selected = {T("public", "orders"), T("shop", "orders"), T("public", "users")};
  EXPECT_TRUE(CheckScopes({*ScopedValue::Parse("users:dt"), *ScopedValue::Parse("shop.orders:dt"),
                           *ScopedValue::Parse("dt")},
                          selected, "--partition-keys")
                  .ok());
  Status typo = CheckScopes({*ScopedValue::Parse("ordrs:dt")}, selected, "--partition-keys");
  EXPECT_TRUE(Contains(typo, "'ordrs' is not a selected table")) << typo.ToString();
  Status ambiguous = CheckScopes({*ScopedValue::Parse("orders:dt")}, selected, "--computed-column");
  EXPECT_TRUE(Contains(ambiguous, "matches public.orders and shop.orders")) << ambiguous.ToString();
  EXPECT_TRUE(Contains(ambiguous, "--computed-column")) << ambiguous.ToString();
}

}  // namespace
}  // namespace tide
