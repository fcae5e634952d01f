// Verify: `tide verify` compares each synced lake table with its PostgreSQL table at one consistent
// point, inside both engines (no row is exported): row count; the count, minimum and maximum of the
// keys; an order-independent checksum over every compared column (the sum of 60 bits of the md5 of each
// row's canonical text, canonical_value_sql.h); and on a mismatch the differing keys, found by
// bisecting key-hash ranges (key_range_bisection.h) and named with what differs.
//
// Columns. The compared columns are the PostgreSQL table's live, non-generated columns; the lake's
// computed and metadata columns (column comments `computed: ...`, `metadata: ...` written by the sync)
// are left out, and so are lake columns PostgreSQL no longer has (dropped there, kept NULL in the lake).
// A PostgreSQL column the lake lacks is a failed check ("columns"). The key is PostgreSQL's primary key;
// a table without one is compared as a multiset of whole rows.
//
// The consistent point. A lake table holds exactly the source transactions with commit LSN <= P, the
// `tide.source.commit-lsn` of a snapshot (sync/table_sink.h); snapshots by other writers hold the
// position of the sync snapshot below them. For one table, one attempt:
//   1. PostgreSQL: BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; the first statement takes the
//      snapshot S and reads L = pg_current_wal_insert_lsn(): every transaction visible in S committed
//      below L.
//   2. Lake: `before` = the newest snapshot whose position is below L; `after` = the oldest one at or
//      beyond L, if the sync has committed one. Both are read pinned to their snapshot ids.
//   3. S is compared with both. A key is equal when S's rows of it equal those of `before` or of
//      `after`; when `before` and `after` disagree on it, the lake commit that straddles L changed it,
//      S may hold any of its versions, and it is "in flight" (counted, not compared); otherwise it
//      differs. So a continuous writer never makes a verify fail, and no table lock is taken.
//   4. When keys differ and there is no `after`, the lake may simply be behind S: while the sync's slot
//      is active, verify waits (up to --timeout) for a lake snapshot at or beyond L, or for the slot's
//      confirmed_flush_lsn to reach L (the sync acknowledges only what every table committed, so the
//      lake then holds all of S's transactions), and compares again with S still open. If neither
//      comes, no consistent point was found: the report says so and the table fails. With the slot
//      inactive (the sync stopped) the lake is what it is, and `before` is compared as it stands.
//   5. Differing keys are confirmed by a new attempt (a new S and new lake versions) on those keys only:
//      S's position L is read just after S is taken, so a transaction committing in between lies below
//      L yet is invisible in S; a key it touched can look different once, never twice. Keys still
//      differing are reported; keys still in flight after kConfirmAttempts attempts are counted as not
//      compared.
// A table whose checksums match at step 3 needs nothing more: equality at any pair of points shows
// the lake held exactly a state PostgreSQL had.
//
// Thread-safety: Verify runs on the calling thread; one call opens its own connections.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tide/base/result.h"
#include "tide/sync/key_range_bisection.h"

namespace tide {

struct VerifyOptions {
  std::string warehouse;
  std::string database;  // the lake database the sync writes
  std::string conninfo;  // PostgreSQL; never printed unredacted
  // The sync's table selection (sync/table_selection.h), so that the lake names match the sync's.
  std::string tables;
  std::string excluding_tables;
  std::string table_prefix;
  std::string table_suffix;
  // The sync's --into [DB.]T: every selected table is one shard of that lake table, compared with the
  // lake rows whose `table_name` metadata column names it.
  std::string into;
  // The sync's slot; empty: the commit user of the lake table's sync snapshots (`tide-sync-<slot>`).
  std::string slot;
  std::chrono::milliseconds timeout{60000};  // how long to wait for the lake to reach PostgreSQL
  size_t max_keys = 10;                       // differing keys reported per table
  std::function<void(const std::string&)> on_progress;
};

// One check of one table: its name ("row count", "checksum", ...) and both sides' values.
struct VerifyCheck {
  std::string name;
  std::string postgres;
  std::string lake;
  bool ok() const { return postgres == lake; }
};

struct TableVerifyReport {
  std::string source;  // schema.table
  std::string lake;    // db.table
  bool match = false;
  bool consistent = false;  // compared at a consistent point (header comment)
  std::string point;        // where: PostgreSQL's LSN and the lake snapshots
  std::vector<VerifyCheck> checks;
  std::vector<KeyVerdict> keys;  // differing keys, at most max_keys
  bool more_keys = false;        // more keys differ than listed
  int64_t in_flight = 0;         // keys changed while verifying, not compared
  std::vector<std::string> notes;
};

struct VerifyReport {
  std::vector<TableVerifyReport> tables;
  bool all_match() const;
  // The text `tide verify` prints: one block per table.
  std::string ToString() const;
};

// Compares every selected table. Errors are for what prevents a comparison (no connection, a missing
// lake table, a selection that selects nothing); differences are in the report.
Result<VerifyReport> Verify(const VerifyOptions& options);

}  // namespace tide
