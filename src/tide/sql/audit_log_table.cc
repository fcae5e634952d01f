#include "tide/sql/audit_log_table.h"

#include "tide/sql/paimon_scan.h"
#include "tide/sql/sql_table_name.h"

namespace tide {

Status CreateAuditLogView(DuckConnection& connection, const TableIdentifier& id) {
  return connection.Execute(fmt::format("CREATE VIEW {}.{} AS SELECT * FROM {}({}, audit_log => true)",
                                        QuoteSqlIdentifier(id.database), QuoteSqlIdentifier(id.table + kAuditLogSuffix),
                                        kPaimonScanFunction, QuoteSqlString(FormatSqlTableName(id))));
}

}  // namespace tide
