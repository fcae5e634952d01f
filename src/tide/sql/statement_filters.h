// StatementFilters: the filters a statement lets paimon_scan use, handed from LakeConnection::Query
// (which derives them, filter_pushdown.h) to paimon_scan's bind. DuckDB's C API passes table functions
// no filters, so the statement being run is announced on the querying thread (DuckDB parses, binds and
// plans a statement on the thread that runs it) and each paimon_scan bind claims the filter of its
// table.
//
// A filter is used only when exactly one paimon_scan of its table was bound in the statement, with the
// snapshot and `read_optimized` the statement's one reference to the table asked for: a second bind (a
// view of the session that reads the table again, a table function that runs SQL) means the reference
// the filter came from cannot be told apart, and then no scan of that table is pruned. Binds all happen
// before any scan starts (init), so the count is final when a scan reads it.
//
// Thread-safety: a StatementFilters is read by the binds of its statement's thread and by scans on
// DuckDB's threads; the bind counter is atomic, everything else is immutable once announced.
#pragma once

#include <atomic>
#include <memory>
#include <vector>

#include "tide/catalog/catalog.h"
#include "tide/table/snapshot/snapshot_selector.h"
#include "tide/table/source/scan_predicate.h"

namespace tide {

// The filter of one table in one statement.
struct PushedFilter {
  TableIdentifier id;
  SnapshotSelector selector;  // as the statement's reference to the table reads it
  bool read_optimized = false;
  std::shared_ptr<const ScanPredicate> predicate;
  std::atomic<int> binds{0};  // paimon_scan binds of the table in this statement

  // The predicate, if a scan bound with `selector` and `read_optimized` may use it (see above).
  std::shared_ptr<const ScanPredicate> UsableBy(const SnapshotSelector& scan_selector, bool scan_read_optimized) const;
};

struct StatementFilters {
  std::vector<std::shared_ptr<PushedFilter>> filters;
};

// Announces `filters` as the statement running on this thread while it lives.
class ScopedStatementFilters {
 public:
  explicit ScopedStatementFilters(std::shared_ptr<const StatementFilters> filters);
  ~ScopedStatementFilters();
  ScopedStatementFilters(const ScopedStatementFilters&) = delete;
  ScopedStatementFilters& operator=(const ScopedStatementFilters&) = delete;

 private:
  std::shared_ptr<const StatementFilters> previous_;
};

// Called by paimon_scan's bind: counts the bind against the running statement's filter of `id` and
// returns it (nullptr when the statement has none for the table).
std::shared_ptr<PushedFilter> ClaimStatementFilter(const TableIdentifier& id);

}  // namespace tide
