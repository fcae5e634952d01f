// Writing with Paimon's Java table API: a table made from a JSON spec (schema, keys, options, then
// steps: batches of rows with kinds, each one commit; compactions; ALTERs; tags; expiry), and the
// compaction and expiry procedures on an existing table. Prints "snapshot <id>" after every step that
// commits. Thread-safety: one command at a time.
//
// Spec:
//   {"table": "db.t", "create": true,     (false: the table exists; only the steps run)
//    "fields": [{"name": "k", "type": "INT NOT NULL"}, {"name": "a", "type": {"type": "ARRAY", ...}}],
//    "partition_keys": [...], "primary_keys": [...], "options": {"bucket": "2", ...},
//    "steps": [{"rows": [["+I", "1", "x"], ...]},            (canonical text per field)
//              {"compact": {"full": true}},
//              {"alter": [{"add_column": "c", "type": "BIGINT"}, {"drop_column": "c"},
//                         {"rename_column": "a", "to": "b"}, {"update_column_type": "v", "type": "BIGINT"},
//                         {"set_option": "k", "value": "v"}]},
//              {"create_tag": "t1"}, {"expire_snapshots": {"retain_max": 2}}]}
package dev.tide.interop;

import org.apache.paimon.append.AppendCompactCoordinator;
import org.apache.paimon.append.AppendCompactTask;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.index.HashBucketAssigner;
import org.apache.paimon.operation.BaseAppendFileStoreWrite;
import org.apache.paimon.options.ExpireConfig;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.schema.SchemaChange;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.paimon.table.BucketMode;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.RowKeyExtractor;
import org.apache.paimon.table.sink.TableWriteImpl;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypeJsonParser;
import org.apache.paimon.types.RowKind;

import java.io.File;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

final class Writes {
  private Writes() {}

  static void writeSpec(String warehouse, String specPath, PrintStream out) throws Exception {
    JsonNode spec = new ObjectMapper().readTree(new File(specPath));
    String name = spec.get("table").asText();
    Identifier id = Identifier.fromString(name);
    try (Catalog catalog = Tables.catalog(warehouse)) {
      // "create": false applies the steps to the existing table.
      if (spec.path("create").asBoolean(true)) {
        catalog.createDatabase(id.getDatabaseName(), true);
        Schema.Builder schema = Schema.newBuilder();
        for (JsonNode f : spec.get("fields")) {
          schema.column(f.get("name").asText(), DataTypeJsonParser.parseDataType(f.get("type")));
        }
        schema.partitionKeys(strings(spec.get("partition_keys")));
        schema.primaryKey(strings(spec.get("primary_keys")));
        if (spec.has("options")) spec.get("options").fields().forEachRemaining(e -> schema.option(e.getKey(),
            e.getValue().asText()));
        catalog.createTable(id, schema.build(), false);
      }
      if (!spec.has("steps")) return;
      for (JsonNode step : spec.get("steps")) {
        FileStoreTable table = (FileStoreTable) catalog.getTable(id);
        if (step.has("rows")) {
          writeRows(table, step.get("rows"));
        } else if (step.has("compact")) {
          compact(table, step.get("compact").path("full").asBoolean(true), null);
        } else if (step.has("alter")) {
          List<SchemaChange> changes = new ArrayList<>();
          for (JsonNode c : step.get("alter")) changes.add(change(c));
          catalog.alterTable(id, changes, false);
          continue;
        } else if (step.has("create_tag")) {
          table.createTag(step.get("create_tag").asText());
          continue;
        } else if (step.has("expire_snapshots")) {
          expire(table, step.get("expire_snapshots").get("retain_max").asInt(),
              step.get("expire_snapshots").path("retain_min").asInt(1), null);
          continue;
        } else {
          throw new IllegalArgumentException("unknown step " + step);
        }
        out.println("snapshot " + table.snapshotManager().latestSnapshotId());
      }
    }
  }

  static List<String> strings(JsonNode array) {
    List<String> out = new ArrayList<>();
    if (array != null) array.forEach(n -> out.add(n.asText()));
    return out;
  }

  static SchemaChange change(JsonNode c) {
    if (c.has("add_column")) {
      return SchemaChange.addColumn(c.get("add_column").asText(), DataTypeJsonParser.parseDataType(c.get("type")));
    }
    if (c.has("drop_column")) return SchemaChange.dropColumn(c.get("drop_column").asText());
    if (c.has("rename_column")) return SchemaChange.renameColumn(c.get("rename_column").asText(), c.get("to").asText());
    if (c.has("update_column_type")) {
      return SchemaChange.updateColumnType(c.get("update_column_type").asText(),
          DataTypeJsonParser.parseDataType(c.get("type")));
    }
    if (c.has("set_option")) return SchemaChange.setOption(c.get("set_option").asText(), c.get("value").asText());
    throw new IllegalArgumentException("unknown alter " + c);
  }

  static IOManager ioManager() {
    return IOManager.create(System.getProperty("java.io.tmpdir"));
  }

  // One batch of rows, one commit.
  static void writeRows(FileStoreTable table, JsonNode rows) throws Exception {
    List<DataField> fields = table.rowType().getFields();
    BatchWriteBuilder builder = table.newBatchWriteBuilder();
    boolean dynamic = table.bucketMode() == BucketMode.HASH_DYNAMIC;
    if (table.bucketMode() == BucketMode.KEY_DYNAMIC) {
      throw new UnsupportedOperationException("table " + table.name() + " updates across partitions (bucket -1, "
          + "primary key without the partition keys); the Java table API writes it only through Flink's "
          + "global index assigner");
    }
    HashBucketAssigner assigner = dynamic
        ? new HashBucketAssigner(table.snapshotManager(), UUID.randomUUID().toString(),
            table.store().newIndexFileHandler(), 1, 1, 0, table.coreOptions().dynamicBucketTargetRowNum(),
            maxBuckets(table))
        : null;
    RowKeyExtractor extractor = dynamic ? table.createRowKeyExtractor() : null;
    try (IOManager io = ioManager();
         BatchTableWrite write = builder.newWrite().withIOManager(io);
         BatchTableCommit commit = builder.newCommit()) {
      for (JsonNode r : rows) {
        if (r.size() != fields.size() + 1) {
          throw new IllegalArgumentException("row " + r + " has " + (r.size() - 1) + " values; table " + table.name()
              + " has " + fields.size() + " fields");
        }
        GenericRow row = new GenericRow(RowKind.fromShortString(r.get(0).asText()), fields.size());
        for (int i = 0; i < fields.size(); i++) {
          DataType t = fields.get(i).type();
          row.setField(i, Canonical.parse(r.get(i + 1).asText(), t));
        }
        if (dynamic) {
          extractor.setRecord(row);
          BinaryRow partition = extractor.partition();
          int bucket = assigner.assign(partition, extractor.trimmedPrimaryKey().hashCode());
          write.write(row, bucket);
        } else {
          write.write(row);
        }
      }
      commit.commit(write.prepareCommit());
    }
  }

  static int maxBuckets(FileStoreTable table) {
    Integer max = table.coreOptions().dynamicBucketMaxBuckets();
    return max == null ? -1 : max;
  }

  // Compacts every bucket of the latest snapshot (a full compaction unless `full` is false): the
  // primary-key and fixed-bucket append writers' compaction, or the bucket-unaware append
  // coordinator's tasks. Commits one snapshot when there was anything to compact.
  static void compact(FileStoreTable table, boolean full, PrintStream out) throws Exception {
    // A dedicated compaction job compacts a write-only table too, as Paimon's CompactAction does.
    table = table.copy(java.util.Collections.singletonMap("write-only", "false"));
    BatchWriteBuilder builder = table.newBatchWriteBuilder();
    List<CommitMessage> messages = new ArrayList<>();
    try (IOManager io = ioManager()) {
      if (table.bucketMode() == BucketMode.BUCKET_UNAWARE) {
        String user = UUID.randomUUID().toString();
        List<AppendCompactTask> tasks = new AppendCompactCoordinator(table, false).run();
        BaseAppendFileStoreWrite write = (BaseAppendFileStoreWrite) table.store().newWrite(user);
        write.withIOManager(io);
        for (AppendCompactTask task : tasks) messages.add(task.doCompact(table, write));
        write.close();
        try (BatchTableCommit commit = builder.newCommit()) {
          commit.commit(messages);
        }
      } else {
        Set<List<Object>> seen = new LinkedHashSet<>();
        List<Split> splits = table.newReadBuilder().newScan().plan().splits();
        try (BatchTableWrite write = builder.newWrite().withIOManager(io);
             BatchTableCommit commit = builder.newCommit()) {
          for (Split s : splits) {
            DataSplit d = (DataSplit) s;
            if (!seen.add(List.of(d.partition(), d.bucket()))) continue;
            ((TableWriteImpl<?>) write).compact(d.partition(), d.bucket(), full);
          }
          commit.commit(write.prepareCommit());
        }
      }
    }
    if (out != null) out.println("snapshot " + table.snapshotManager().latestSnapshotId());
  }

  // Expiry as a commit runs it (AbstractFileStoreTable.newExpireRunnable): the table's snapshot.* and
  // changelog.* options, snapshots first, then the long-lived changelog when it is kept longer.
  static void expireByOptions(FileStoreTable table, PrintStream out) {
    var options = table.coreOptions();
    int snapshots = table.newExpireSnapshots().config(options.expireConfig()).expire();
    int changelogs = options.changelogLifecycleDecoupled()
        ? table.newExpireChangelog().config(options.expireConfig()).expire() : 0;
    if (out != null) out.println("expired " + snapshots + " " + changelogs);
  }

  static void expire(FileStoreTable table, int retainMax, int retainMin, PrintStream out) {
    int expired = table.newExpireSnapshots()
        .config(ExpireConfig.builder().snapshotRetainMax(retainMax).snapshotRetainMin(Math.min(retainMin, retainMax))
            .snapshotTimeRetain(Duration.ZERO).build())
        .expire();
    if (out != null) out.println("expired " + expired);
  }
}
