// A local file system whose snapshot renames wait between their check and their move: Paimon's
// LocalFileIO.rename checks that the target is absent, then moves onto it (its lock orders the
// committers of one JVM only), and a local move replaces. Another process that creates `snapshot-<N>`
// in between has its snapshot replaced. The wait widens that window from microseconds to a chosen
// time and ends as soon as another process created the snapshot, so the move lands right after the
// other snapshot (before the other committer's next step): the tests of how Tide repairs a replaced
// snapshot meet the race on most commits instead of once in many runs. The steps are LocalFileIO's
// own; only the wait is added.
// Thread-safety: as LocalFileIO.
package dev.tide.interop;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.locks.LockSupport;

import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.local.LocalFileIO;

final class SlowSnapshotCheckFileIO extends LocalFileIO {
  private static final long serialVersionUID = 1L;
  private final long millis;

  SlowSnapshotCheckFileIO(long millis) {
    this.millis = millis;
  }

  @Override
  public boolean rename(Path src, Path dst) throws IOException {
    if (!dst.getName().startsWith("snapshot-")) return super.rename(src, dst);
    File target = toFile(dst);
    target.getParentFile().mkdirs();
    if (target.exists()) return false;
    long deadline = System.nanoTime() + millis * 1_000_000L;
    while (!target.exists() && System.nanoTime() < deadline) LockSupport.parkNanos(20_000);
    Files.move(toFile(src).toPath(), target.toPath(), StandardCopyOption.ATOMIC_MOVE);
    return true;
  }
}
