// The read command: a batch read (latest, a snapshot, a tag, an incremental range) printed sorted, or
// a streaming read of the changes from a snapshot on, printed in the order read. Thread-safety: one
// read at a time.
package dev.tide.interop;

import org.apache.paimon.data.InternalRow;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.table.source.StreamTableScan;
import org.apache.paimon.table.source.TableScan;
import org.apache.paimon.types.RowType;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

final class Reads {
  private Reads() {}

  static void read(Map<String, String> opts, PrintStream out) throws Exception {
    FileStoreTable table = Tables.load(Main.require(opts, "warehouse"), Main.require(opts, "table"));
    boolean kinds = opts.containsKey("row-kinds");
    if (opts.containsKey("stream-changelog")) {
      long max = Long.parseLong(opts.getOrDefault("max-rows", String.valueOf(Long.MAX_VALUE)));
      streamChangelog(table, opts.get("from-snapshot"), kinds, max, out);
      return;
    }
    Map<String, String> dynamic = new HashMap<>();
    if (opts.containsKey("print-snapshot") && !opts.containsKey("snapshot")) {
      // The latest snapshot, named first, so that a caller can compare the read with another reader's
      // read of the same snapshot while writers go on committing.
      Long latest = table.snapshotManager().latestSnapshotId();
      out.println("#snapshot " + latest);
      if (latest == null) return;
      opts.put("snapshot", String.valueOf(latest));
    }
    if (opts.containsKey("snapshot")) dynamic.put("scan.snapshot-id", opts.get("snapshot"));
    if (opts.containsKey("tag")) dynamic.put("scan.tag-name", opts.get("tag"));
    if (opts.containsKey("incremental")) dynamic.put("incremental-between", opts.get("incremental"));
    FileStoreTable chosen = dynamic.isEmpty() ? table : table.copy(dynamic);
    RowType type = chosen.rowType();
    ReadBuilder builder = chosen.newReadBuilder();
    List<Split> splits = builder.newScan().plan().splits();
    List<String> lines = new ArrayList<>();
    try (RecordReader<InternalRow> reader = builder.newRead().createReader(splits)) {
      reader.forEachRemaining(row -> lines.add(Canonical.formatRow(row, type, kinds)));
    }
    lines.sort(Canonical::compareBytes);
    for (String line : lines) out.println(line);
  }

  // Reads the changes of every snapshot from `from` (the earliest by default) to the latest, in order,
  // as a streaming job would (the changelog files where the table has a changelog producer).
  static void streamChangelog(FileStoreTable table, String from, boolean kinds, long maxRows, PrintStream out)
      throws Exception {
    Long earliest = table.snapshotManager().earliestSnapshotId();
    if (earliest == null) return;
    Map<String, String> dynamic = new HashMap<>();
    dynamic.put("scan.mode", "from-snapshot");
    dynamic.put("scan.snapshot-id", from != null && !from.isEmpty() ? from : String.valueOf(earliest));
    FileStoreTable streaming = table.copy(dynamic);
    RowType type = streaming.rowType();
    ReadBuilder builder = streaming.newReadBuilder();
    StreamTableScan scan = builder.newStreamScan();
    long printed = 0;
    for (int round = 0; round < 100000; round++) {
      TableScan.Plan plan = scan.plan();
      if (plan.splits().isEmpty()) {
        Long next = scan.checkpoint();
        Long latest = table.snapshotManager().latestSnapshotId();
        if (next == null || latest == null || next > latest) return;
        continue;
      }
      try (RecordReader<InternalRow> reader = builder.newRead().createReader(plan.splits())) {
        RecordReader.RecordIterator<InternalRow> batch;
        while ((batch = reader.readBatch()) != null) {
          InternalRow row;
          while ((row = batch.next()) != null) {
            out.println(Canonical.formatRow(row, type, kinds));
            if (++printed >= maxRows) {
              batch.releaseBatch();
              return;
            }
          }
          batch.releaseBatch();
        }
      }
    }
  }
}
