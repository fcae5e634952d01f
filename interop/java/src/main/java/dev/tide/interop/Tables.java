// Opens a warehouse's filesystem catalog (caching off, so every load sees the newest snapshot) and the
// tables in it. Thread-safety: one command at a time.
package dev.tide.interop;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.options.Options;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.FileStoreTableFactory;

final class Tables {
  private Tables() {}

  static Catalog catalog(String warehouse) {
    Options options = new Options();
    options.set("warehouse", warehouse);
    options.set("cache-enabled", "false");
    return CatalogFactory.createCatalog(CatalogContext.create(options));
  }

  static FileStoreTable load(String warehouse, String table) throws Exception {
    try (Catalog catalog = catalog(warehouse)) {
      return (FileStoreTable) catalog.getTable(Identifier.fromString(table));
    }
  }

  // The table on a file system whose snapshot renames wait `millis` between their check that the new
  // snapshot is absent and their move (SlowSnapshotCheckFileIO); 0: load(warehouse, table).
  static FileStoreTable load(String warehouse, String table, long slowSnapshotCheckMillis) throws Exception {
    FileStoreTable loaded = load(warehouse, table);
    if (slowSnapshotCheckMillis <= 0) return loaded;
    return FileStoreTableFactory.create(new SlowSnapshotCheckFileIO(slowSnapshotCheckMillis), loaded.location());
  }
}
