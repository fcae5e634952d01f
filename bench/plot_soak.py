#!/usr/bin/env python3
"""Plots the CSV of build/bench/compaction_soak_bench (--csv=PATH) as docs/images/compaction_soak.png.

    python3 bench/plot_soak.py SAMPLES.csv [OUT.png]

Panels over simulated time: data files (live, and on disk), sorted runs per bucket (max), full-scan ms (with
DuckDB on one Parquet file, the reference), point-lookup median ms, metadata KB, RSS MB (and VmHWM), the
longest PrepareCommit + Commit since the previous sample, and the rows the live files store per live row. The compacting run is drawn
solid, the write-only reference dashed. matplotlib comes from PyPI into a virtual environment under
build/plot-venv, created by this script when matplotlib is missing.
"""
import csv
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV = os.path.join(ROOT, "build", "plot-venv")


def ensure_matplotlib():
    try:
        import matplotlib  # noqa: F401
        return
    except ImportError:
        pass
    python = os.path.join(VENV, "bin", "python3")
    if os.environ.get("TIDE_PLOT_VENV") != VENV:
        if not os.path.exists(python):
            subprocess.check_call([sys.executable, "-m", "venv", VENV])
        probe = subprocess.run([python, "-c", "import matplotlib"], capture_output=True)
        if probe.returncode != 0:
            subprocess.check_call([python, "-m", "pip", "install", "--quiet", "matplotlib"])
        env = dict(os.environ, TIDE_PLOT_VENV=VENV)
        os.execve(python, [python] + sys.argv, env)
    sys.exit("matplotlib is missing even in " + VENV)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    ensure_matplotlib()
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "docs", "images", "compaction_soak.png")
    runs = {}
    with open(sys.argv[1]) as f:
        for row in csv.DictReader(f):
            runs.setdefault(row["mode"], []).append(row)

    def series(rows, key):
        return [float(r["sim_min"]) for r in rows], [float(r[key]) for r in rows]

    for rows in runs.values():
        for r in rows:
            r["amplification"] = float(r["live_stored_rows"]) / max(1.0, float(r["live_rows"]))
    # (column, title, a second column drawn thin for the compacting run, its label)
    panels = [
        ("live_files", "data files (thin: on disk, incl. those retained snapshots keep)", "disk_data_files",
         "compacting: data files on disk"),
        ("max_runs", "sorted runs per bucket, max at the samples (thin: after any commit)", "max_runs_rounds",
         "compacting: max after any commit"),
        ("sql_scan_ms", "full scan, paimon_scan (ms)", "ref_scan_ms", "DuckDB, one Parquet file (reference)"),
        ("lookup_median_ms", "point lookup, median (ms)", None, None),
        ("metadata_kb", "metadata on disk (KB)", None, None),
        ("rss_mb", "RSS at the samples (MB; thin: peak VmHWM)", "hwm_mb", "compacting: VmHWM"),
        ("pc_max_ms", "PrepareCommit + Commit, max since the previous sample (ms)", "pc_p99_ms",
         "compacting: p99"),
        ("amplification", "rows stored in live files / live rows", None, None),
    ]
    fig, axes = plt.subplots(4, 2, figsize=(11, 13), sharex=True)
    styles = {"compact": ("-", "tab:blue", "compacting (defaults)"),
              "write-only": ("--", "tab:red", "write-only (no compaction)")}
    for ax, (key, title, ref, ref_label) in zip(axes.flat, panels):
        for mode, rows in runs.items():
            style, color, label = styles.get(mode, (":", "gray", mode))
            x, y = series(rows, key)
            ax.plot(x, y, style, color=color, label=label, linewidth=1.6)
            if ref and mode == "compact" and ref in rows[0]:
                xr, yr = series(rows, ref)
                ref_color = "tab:green" if key == "sql_scan_ms" else "tab:cyan"
                ax.plot(xr, yr, ":", color=ref_color, label=ref_label, linewidth=1.4)
        if key == "max_runs":
            ax.axhline(8, color="gray", linewidth=0.8)
            ax.text(0, 8, " stop trigger (8)", va="bottom", fontsize=8, color="gray")
        if key == "rss_mb":
            for mode, rows in runs.items():
                if mode == "compact" and "model_mb" in rows[0]:
                    # RSS less the bench's own model of the expected rows: Tide's share.
                    x, rss = series(rows, "rss_mb")
                    _, model = series(rows, "model_mb")
                    ax.plot(x, [r - m for r, m in zip(rss, model)], "-.", color="tab:purple",
                            label="compacting: RSS less the bench's model", linewidth=1.4)
            ax.axhline(512, color="gray", linewidth=0.8)
            ax.text(0, 512, " 512 MB", va="bottom", fontsize=8, color="gray")
        if key == "pc_max_ms":
            ax.axhline(500, color="gray", linewidth=0.8)
            ax.text(0, 500, " one interval (500 ms)", va="bottom", fontsize=8, color="gray")
        if key in ("live_files", "max_runs", "sql_scan_ms", "lookup_median_ms", "metadata_kb"):
            ax.set_yscale("log")
        ax.set_title(title, fontsize=10)
        ax.grid(True, alpha=0.3)
    for ax in axes[-1]:
        ax.set_xlabel("simulated minutes (a commit every 500 ms, 10,000 changed rows/s)")
    handles, labels = [], []
    for ax in axes.flat:
        for h, l in zip(*ax.get_legend_handles_labels()):
            if l not in labels:
                handles.append(h)
                labels.append(l)
    fig.legend(handles, labels, loc="lower center", ncol=3, frameon=False, fontsize=9)
    fig.suptitle("compaction_soak_bench: orders table, 4 buckets", fontsize=12)
    fig.tight_layout(rect=(0, 0.05, 1, 0.97))
    os.makedirs(os.path.dirname(out), exist_ok=True)
    fig.savefig(out, dpi=90)
    print("wrote", out)


if __name__ == "__main__":
    main()
