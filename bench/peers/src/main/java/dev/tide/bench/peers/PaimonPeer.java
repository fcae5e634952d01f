// The peer of `tide sync postgres` in bench/peers: Apache Paimon's postgres_sync_table action
// (PostgresSyncTableAction, Flink CDC's Postgres source with pgoutput) run by Flink in local mode inside
// this one JVM, as Paimon's own CDC integration tests run it: the action is built on a local stream
// environment with checkpointing enabled in code, then the job runs until this process is stopped.
//
// Usage (every option is required unless a default is given):
//   java -jar paimon-peer.jar --warehouse DIR --database DB --table T
//       --pg-host H --pg-port P --pg-user U [--pg-password PW] --pg-database D --pg-schema S --pg-table T
//       --slot NAME [--checkpoint-interval-ms 10000] [--parallelism 1]
//       [--primary-keys a,b] [--partition-keys dt] [--computed-column dt=date_format(update_time,yyyy-MM-dd)]
//       [--table-conf KEY=VALUE ...] [--source-conf KEY=VALUE ...] [--flink-conf KEY=VALUE ...]
// It prints one line "peer: job running" to standard output once the job is submitted; errors of the job
// (a type it cannot map, a DDL it refuses) end the process with a non-zero exit code and the cause on
// standard error, which the bench reports as a finding.
//
// Thread-safety: a program, not a library; main runs once.
package dev.tide.bench.peers;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.flink.api.common.restartstrategy.RestartStrategies;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.CheckpointingMode;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.paimon.flink.action.cdc.postgres.PostgresSyncTableAction;

public final class PaimonPeer {
  private PaimonPeer() {}

  private static void usage(String why) {
    System.err.println("paimon-peer: " + why);
    System.err.println(
        "usage: paimon-peer --warehouse DIR --database DB --table T --pg-host H --pg-port P --pg-user U "
            + "[--pg-password PW] --pg-database D --pg-schema S --pg-table T --slot NAME "
            + "[--checkpoint-interval-ms MS] [--parallelism N] [--primary-keys K] [--partition-keys K] "
            + "[--computed-column C] [--table-conf K=V ...] [--source-conf K=V ...] [--flink-conf K=V ...]");
    System.exit(2);
  }

  private static void putKeyValue(Map<String, String> into, String kv) {
    int eq = kv.indexOf('=');
    if (eq <= 0) usage("expected KEY=VALUE, got '" + kv + "'");
    into.put(kv.substring(0, eq), kv.substring(eq + 1));
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> single = new LinkedHashMap<>();
    Map<String, String> tableConf = new LinkedHashMap<>();
    Map<String, String> sourceExtra = new LinkedHashMap<>();
    Map<String, String> flinkExtra = new LinkedHashMap<>();
    List<String> computed = new ArrayList<>();
    for (int i = 0; i < args.length; i += 2) {
      if (i + 1 >= args.length) usage("option " + args[i] + " has no value");
      String name = args[i];
      String value = args[i + 1];
      switch (name) {
        case "--table-conf" -> putKeyValue(tableConf, value);
        case "--source-conf" -> putKeyValue(sourceExtra, value);
        case "--flink-conf" -> putKeyValue(flinkExtra, value);
        case "--computed-column" -> computed.add(value);
        default -> {
          if (!name.startsWith("--")) usage("unexpected argument '" + name + "'");
          single.put(name.substring(2), value);
        }
      }
    }
    for (String required :
        new String[] {"warehouse", "database", "table", "pg-host", "pg-port", "pg-user", "pg-database",
          "pg-schema", "pg-table", "slot"}) {
      if (!single.containsKey(required)) usage("--" + required + " is required");
    }
    long checkpointMs = Long.parseLong(single.getOrDefault("checkpoint-interval-ms", "10000"));
    int parallelism = Integer.parseInt(single.getOrDefault("parallelism", "1"));

    // Local mode: one MiniCluster in this JVM, as Paimon's CDC tests run the action.
    Configuration flinkConf = Configuration.fromMap(flinkExtra);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(parallelism, flinkConf);
    env.enableCheckpointing(checkpointMs, CheckpointingMode.EXACTLY_ONCE);
    // A failure is a finding of the benchmark, not something to hide behind restarts.
    env.setRestartStrategy(RestartStrategies.noRestart());

    Map<String, String> catalog = new LinkedHashMap<>();
    catalog.put("warehouse", single.get("warehouse"));

    Map<String, String> source = new LinkedHashMap<>();
    source.put("hostname", single.get("pg-host"));
    source.put("port", single.get("pg-port"));
    source.put("username", single.get("pg-user"));
    source.put("password", single.getOrDefault("pg-password", ""));
    source.put("database-name", single.get("pg-database"));
    source.put("schema-name", single.get("pg-schema"));
    source.put("table-name", single.get("pg-table"));
    source.put("slot.name", single.get("slot"));
    source.put("decoding.plugin.name", "pgoutput");
    source.putAll(sourceExtra);

    PostgresSyncTableAction action =
        new PostgresSyncTableAction(single.get("database"), single.get("table"), catalog, source);
    if (single.containsKey("primary-keys")) action.withPrimaryKeys(single.get("primary-keys").split(","));
    if (single.containsKey("partition-keys")) action.withPartitionKeys(single.get("partition-keys").split(","));
    if (!computed.isEmpty()) action.withComputedColumnArgs(computed);
    action.withTableConfig(tableConf);
    action.withStreamExecutionEnvironment(env);
    action.build();

    JobClient job = env.executeAsync("postgres_sync_table " + single.get("database") + "." + single.get("table"));
    System.out.println("peer: job running " + job.getJobID());
    System.out.flush();
    // Blocks until the job ends: it only ends by failing (or when the bench stops this process).
    try {
      job.getJobExecutionResult().get();
    } catch (Exception e) {
      Throwable root = e;
      while (root.getCause() != null && root.getCause() != root) root = root.getCause();
      System.err.println("peer: job failed: " + root);
      e.printStackTrace(System.err);
      System.exit(1);
    }
    System.err.println("peer: job ended");
    System.exit(1);
  }
}
