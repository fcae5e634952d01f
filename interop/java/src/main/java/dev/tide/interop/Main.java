// The interop CLI: Apache Paimon's Java library reading, writing and maintaining tables of a local
// warehouse, for Tide's interoperability tests. docs/interop.md states the commands and the row text.
//
//   read    --warehouse W --table db.t [--snapshot N | --tag NAME | --incremental S1,S2]
//           [--print-snapshot] [--row-kinds] [--stream-changelog [--from-snapshot N] [--max-rows N]]
//   write   --warehouse W --spec FILE.json
//   compact --warehouse W --table db.t [--full] [--slow-snapshot-check-millis N]
//           (N: its snapshot rename waits N ms between checking that the new snapshot is absent and
//           moving onto it, widening the window in which another process's snapshot is replaced)
//   expire-snapshots --warehouse W --table db.t --retain-max N [--retain-min N]
//   expire-by-options --warehouse W --table db.t   (snapshot then changelog expiry with the table's options)
//   create-tag --warehouse W --table db.t --tag NAME [--snapshot N]
//   delete-tag --warehouse W --table db.t --tag NAME
//   rollback --warehouse W --table db.t (--snapshot N | --tag NAME)
//   sleep   --millis N        (between the commands of a batch)
//   batch   --file COMMANDS   (one command a line, its arguments separated by TAB; each command's
//           output is framed by "#### BEGIN i" and "#### END i OK" or "#### END i ERROR <message>")
//
// A single command prints "error: <message>" on stderr and exits 1 when it fails.
package dev.tide.interop;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

public final class Main {
  private Main() {}

  public static void main(String[] args) {
    // Paimon logs through SLF4J; without a binding it prints one warning. Keep stdout for rows only.
    PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false,
        StandardCharsets.UTF_8);
    int code = 0;
    try {
      if (args.length == 0) throw new IllegalArgumentException("usage: read|write|compact|expire-snapshots|expire-by-options|"
          + "create-tag|delete-tag|rollback|batch ...");
      if (args[0].equals("batch")) {
        runBatch(parse(args), out);
      } else {
        run(args, out);
      }
    } catch (Throwable e) {
      out.flush();
      System.err.println("error: " + message(e));
      code = 1;
    }
    out.flush();
    System.exit(code);
  }

  static String message(Throwable e) {
    StringBuilder b = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (b.length() > 0) b.append(": caused by ");
      b.append(t.getClass().getSimpleName()).append(": ").append(String.valueOf(t.getMessage()).replace('\n', ' '));
    }
    return b.toString();
  }

  static void runBatch(Map<String, String> opts, PrintStream out) throws Exception {
    List<String> lines = Files.readAllLines(Paths.get(require(opts, "file")), StandardCharsets.UTF_8);
    int i = 0;
    for (String line : lines) {
      if (line.isEmpty()) continue;
      out.println("#### BEGIN " + i);
      ByteArrayOutputStream buffer = new ByteArrayOutputStream();
      PrintStream captured = new PrintStream(buffer, false, StandardCharsets.UTF_8);
      String status;
      try {
        run(line.split("\t"), captured);
        status = "OK";
      } catch (Throwable e) {
        status = "ERROR " + message(e);
      }
      captured.flush();
      out.write(buffer.toByteArray());
      out.println("#### END " + i + " " + status);
      out.flush();
      i++;
    }
  }

  static void run(String[] args, PrintStream out) throws Exception {
    Map<String, String> opts = parse(args);
    switch (args[0]) {
      case "read":
        Reads.read(opts, out);
        break;
      case "write":
        Writes.writeSpec(require(opts, "warehouse"), require(opts, "spec"), out);
        break;
      case "compact":
        Writes.compact(Tables.load(require(opts, "warehouse"), require(opts, "table"),
            Long.parseLong(opts.getOrDefault("slow-snapshot-check-millis", "0"))), opts.containsKey("full"), out);
        break;
      case "expire-snapshots":
        Writes.expire(Tables.load(require(opts, "warehouse"), require(opts, "table")),
            Integer.parseInt(require(opts, "retain-max")), Integer.parseInt(opts.getOrDefault("retain-min", "1")),
            out);
        break;
      case "expire-by-options":
        Writes.expireByOptions(Tables.load(require(opts, "warehouse"), require(opts, "table")), out);
        break;
      case "create-tag": {
        var table = Tables.load(require(opts, "warehouse"), require(opts, "table"));
        if (opts.containsKey("snapshot")) {
          table.createTag(require(opts, "tag"), Long.parseLong(opts.get("snapshot")));
        } else {
          table.createTag(require(opts, "tag"));
        }
        break;
      }
      case "delete-tag":
        Tables.load(require(opts, "warehouse"), require(opts, "table")).deleteTag(require(opts, "tag"));
        break;
      case "sleep":
        Thread.sleep(Long.parseLong(require(opts, "millis")));
        break;
      case "rollback": {
        var table = Tables.load(require(opts, "warehouse"), require(opts, "table"));
        if (opts.containsKey("snapshot")) {
          table.rollbackTo(Long.parseLong(opts.get("snapshot")));
        } else {
          table.rollbackTo(require(opts, "tag"));
        }
        break;
      }
      default:
        throw new IllegalArgumentException("unknown command " + args[0]);
    }
  }

  // --name value pairs; a flag without a value (the next argument starts with --, or none) maps to "".
  static Map<String, String> parse(String[] args) {
    Map<String, String> opts = new HashMap<>();
    List<String> rest = new ArrayList<>(Arrays.asList(args).subList(1, args.length));
    for (int i = 0; i < rest.size(); i++) {
      String a = rest.get(i);
      if (!a.startsWith("--")) throw new IllegalArgumentException("unexpected argument " + a);
      String name = a.substring(2);
      if (i + 1 < rest.size() && !rest.get(i + 1).startsWith("--")) {
        opts.put(name, rest.get(++i));
      } else {
        opts.put(name, "");
      }
    }
    return opts;
  }

  static String require(Map<String, String> opts, String name) {
    String v = opts.get(name);
    if (v == null || v.isEmpty()) throw new IllegalArgumentException("--" + name + " is required");
    return v;
  }
}
