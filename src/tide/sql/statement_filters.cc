#include "tide/sql/statement_filters.h"

#include "tide/base/strings.h"

namespace tide {

namespace {

thread_local std::shared_ptr<const StatementFilters> t_current;

bool SameTable(const TableIdentifier& a, const TableIdentifier& b) {
  // DuckDB matches names without regard to case; so does the reference the filter came from.
  return ToLower(a.database) == ToLower(b.database) && ToLower(a.table) == ToLower(b.table);
}

}  // namespace

std::shared_ptr<const ScanPredicate> PushedFilter::UsableBy(const SnapshotSelector& scan_selector,
                                                            bool scan_read_optimized) const {
  if (binds.load() != 1) return nullptr;
  if (scan_read_optimized != read_optimized) return nullptr;
  if (scan_selector.snapshot_id != selector.snapshot_id || scan_selector.timestamp_ms != selector.timestamp_ms ||
      scan_selector.tag != selector.tag) {
    return nullptr;
  }
  return predicate;
}

ScopedStatementFilters::ScopedStatementFilters(std::shared_ptr<const StatementFilters> filters)
    : previous_(std::move(t_current)) {
  t_current = std::move(filters);
}

ScopedStatementFilters::~ScopedStatementFilters() { t_current = std::move(previous_); }

std::shared_ptr<PushedFilter> ClaimStatementFilter(const TableIdentifier& id) {
  if (!t_current) return nullptr;
  for (const auto& filter : t_current->filters) {
    if (SameTable(filter->id, id)) {
      filter->binds.fetch_add(1);
      return filter;
    }
  }
  return nullptr;
}

}  // namespace tide
