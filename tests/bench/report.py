#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""tests/bench/report.py DIR: the benchmark report from one guest boot.

Reads DIR/results.tsv and DIR/meta.txt (written by tests/bench/guest.sh),
writes DIR/report.md (tables, ratios, the goal check, the summary line) and
PNG plots DIR/runtime.png, DIR/diskio.png, DIR/cpu.png, DIR/pool.png with
gnuplot (Debian's gnuplot-nox).  Standard library only.

Ratios, never seconds alone: the guests run under emulation on shared
machines, so only ratios between configurations of the same boot mean
anything.  The summary line gives zcache/zswap and zcache/disk for runtime
and disk I/O (read + written on the scratch disk), each the geometric mean
over the workloads where both runs verified their data.
"""
import csv
import math
import os
import subprocess
import sys

CONFIG_ORDER = ["disk", "zswap", "zram", "zcache", "zcache-wb", "zcache-fs"]
WORKLOAD_DESC = {
    "ms1": "memstress, 1 process, mixed sequential/skewed-random access",
    "ms2": "memstress, one process per vCPU at once, mixed access",
    "pc": "pagecache: file set larger than RAM, re-read (clean page cache)",
}
# The project's goal (issue 6), as (metric, against, at most).
GOALS = [("disk_io", "disk", 0.3), ("runtime", "disk", 0.5),
         ("runtime", "zswap", 1.0), ("disk_io", "zswap", 1.0)]


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def load(d):
    with open(os.path.join(d, "results.tsv"), newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    meta = {}
    try:
        with open(os.path.join(d, "meta.txt")) as f:
            for line in f:
                k, _, v = line.partition(":")
                if v:
                    meta.setdefault(k.strip(), v.strip())
    except OSError:
        pass
    for r in rows:
        r["runtime"] = num(r["wall_s"])
        rd, wr = num(r["disk_read_mib"]), num(r["disk_write_mib"])
        r["disk_io"] = (rd or 0) + (wr or 0) if rd is not None else None
        r["cpu"] = num(r["cpu_busy_s"])
    return rows, meta


def ratio(a, b):
    if a is None or b is None:
        return None
    if b == 0:
        return 0.0 if a == 0 else math.inf
    return a / b


def fmt_ratio(x):
    if x is None:
        return "-"
    if math.isinf(x):
        return "inf"
    return "%.2f" % x


def geomean(xs):
    xs = [x for x in xs if x is not None and not math.isinf(x)]
    if not xs:
        return None
    if any(x == 0 for x in xs):
        return 0.0
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def by_key(rows):
    return {(r["workload"], r["config"]): r for r in rows}


def ok(r):
    return r is not None and r["status"] == "ok"


def mean_ratio(idx, workloads, cfg, base, metric):
    vals = []
    for w in workloads:
        a, b = idx.get((w, cfg)), idx.get((w, base))
        if ok(a) and ok(b):
            vals.append(ratio(a[metric], b[metric]))
    return geomean(vals), len(vals)


def gnuplot_bars(d, rows, configs, workloads, metric, ylabel, title, png):
    idx = by_key(rows)
    dat = os.path.join(d, png.replace(".png", ".dat"))
    with open(dat, "w") as f:
        f.write("# config " + " ".join(workloads) + "\n")
        for c in configs:
            vals = []
            for w in workloads:
                r, b = idx.get((w, c)), idx.get((w, "disk"))
                v = ratio(r[metric], b[metric]) if ok(r) and ok(b) else None
                if v is None or math.isinf(v):
                    vals.append("NaN")
                else:
                    vals.append("%.3f" % v)
            f.write(c + " " + " ".join(vals) + "\n")
    plots = ", ".join(
        "'%s' using %d:xtic(1) title '%s'" % (dat, i + 2, w)
        for i, w in enumerate(workloads))
    script = f"""set terminal pngcairo size 900,480 noenhanced
set output '{os.path.join(d, png)}'
set title '{title}'
set ylabel '{ylabel}'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set key top right
set grid ytics
set yrange [0:*]
set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2
plot {plots}
"""
    return script


def gnuplot_pool(d, rows, configs):
    """Pool size over time during the first memstress workload."""
    wl = next((w for w in ("ms1", "ms2") if any(r["workload"] == w for r in rows)), None)
    if wl is None:
        return None
    plots = []
    for c in configs:
        p = os.path.join(d, "runs", "%s-%s" % (c, wl), "pool.txt")
        if c == "disk" or not os.path.exists(p):
            continue
        with open(p) as f:
            samples = [ln.split() for ln in f if len(ln.split()) == 3]
        if not samples:
            continue
        t0 = int(samples[0][0])
        dat = os.path.join(d, "pool-%s.dat" % c)
        with open(dat, "w") as f:
            for t, pool, stored in samples:
                f.write("%d %.2f %.2f\n" % (int(t) - t0, int(pool) / 1048576,
                                            int(stored) / 1048576))
        plots.append("'%s' using 1:2 with lines lw 2 title '%s pool'" % (dat, c))
        plots.append("'%s' using 1:3 with lines dt 2 title '%s stored (uncompressed)'"
                     % (dat, c))
    if not plots:
        return None
    return f"""set terminal pngcairo size 900,480 noenhanced
set output '{os.path.join(d, "pool.png")}'
set title 'Compressed pool during {wl}'
set xlabel 'seconds since the workload started'
set ylabel 'MiB'
set key top left
set grid
plot {", ".join(plots)}
"""


def main():
    if len(sys.argv) != 2:
        print("usage: report.py RESULTS_DIR", file=sys.stderr)
        return 2
    d = sys.argv[1]
    rows, meta = load(d)
    if not rows:
        print("report.py: no rows in results.tsv", file=sys.stderr)
        return 1
    idx = by_key(rows)
    configs = [c for c in CONFIG_ORDER if any(r["config"] == c for r in rows)]
    configs += sorted({r["config"] for r in rows} - set(configs))
    workloads = []
    for r in rows:
        if r["workload"] not in workloads:
            workloads.append(r["workload"])
    r0 = rows[0]
    suite, kernel, profile = r0["suite"], r0["kernel"], r0["profile"]
    zc = "zcache" if "zcache" in configs else (
        "zcache-fs" if "zcache-fs" in configs else None)

    out = []
    out.append("# Benchmark: zcache against zswap, zram and disk swap (%s)\n" % suite)
    out.append("One boot of a QEMU guest; every configuration and workload below ran in it,")
    out.append("one after the other. Only the ratios between rows mean anything: the guest")
    out.append("runs under TCG emulation on a shared 2-core machine. Disk I/O (MiB moved on")
    out.append("the throttled disk) depends on the kernel's decisions only and repeats well;")
    out.append("runtime and CPU time depend on how busy the host was during each run and")
    out.append("can swing several-fold between neighbouring rows: read them with care.\n")
    out.append("| | |\n|---|---|")
    for k, label in [("suite", "Debian suite"), ("kernel", "kernel"),
                     ("date", "date (UTC)"), ("cpu", "machine (guest CPU)"),
                     ("ram_mib", "guest RAM (MiB)"),
                     ("profile", "swap disk profile"),
                     ("scratch", "scratch disk"),
                     ("working_set_mib", "anonymous working set (MiB)"),
                     ("pagecache_set_mib", "page-cache file set (MiB)"),
                     ("pool_pct", "pool limit (% of RAM)"),
                     ("compressor", "compressor"), ("passes", "passes"),
                     ("package", "package")]:
        if k in meta:
            out.append("| %s | %s |" % (label, meta[k].replace("|", "/")))
    out.append("| profiles | ssd: 10k IOPS, 200 MB/s; hdd: 200 IOPS, 100 MB/s (QEMU throttling) |")
    out.append("")

    # Summary line.
    parts = []
    for base in ("zswap", "disk"):
        if zc is None:
            break
        rt, n1 = mean_ratio(idx, workloads, zc, base, "runtime")
        io, n2 = mean_ratio(idx, workloads, zc, base, "disk_io")
        parts.append("%s/%s runtime %s, disk I/O %s" % (zc, base, fmt_ratio(rt), fmt_ratio(io)))
    if parts:
        summary = ("**Summary** (%s, %s, profile %s, geometric mean over %s): %s"
                   % (suite, kernel, profile, ", ".join(workloads), "; ".join(parts)))
    else:
        summary = ("**Summary** (%s, %s, profile %s): no zcache result in this run"
                   % (suite, kernel, profile))
    others = []
    for c in ("zswap", "zram"):
        if c in configs:
            rt, _ = mean_ratio(idx, workloads, c, "disk", "runtime")
            io, _ = mean_ratio(idx, workloads, c, "disk", "disk_io")
            others.append("%s/disk runtime %s, disk I/O %s" % (c, fmt_ratio(rt), fmt_ratio(io)))
    out.append(summary + "\n")
    if others:
        out.append("For comparison: " + "; ".join(others) + ".\n")

    # Goal check.
    if zc is not None:
        out.append("## Against the goal\n")
        out.append("| measure | goal | measured | met |\n|---|---|---|---|")
        for metric, base, limit in GOALS:
            v, n = mean_ratio(idx, workloads, zc, base, metric)
            name = "runtime" if metric == "runtime" else "disk I/O"
            out.append("| %s %s/%s | <= %.1f | %s | %s |" % (
                name, zc, base, limit, fmt_ratio(v),
                "-" if v is None else ("yes" if v <= limit else "**no**")))
        out.append("")

    # Tables.
    out.append("## Results per workload\n")
    out.append("Runtime: wall time of the workload. Disk: MiB read + written on the scratch")
    out.append("disk (swap partition, and the files for pc). CPU: busy time of all guest CPUs")
    out.append("(user + system + irq, includes compression in kswapd). Pool: largest compressed")
    out.append("pool seen (2 s samples) and stored/pool at that moment. x disk = ratio to the")
    out.append("disk-only row of the same workload.\n")
    for w in workloads:
        out.append("### %s: %s\n" % (w, WORKLOAD_DESC.get(w, w)))
        out.append("| config | status | runtime s | x disk | disk read MiB | disk write MiB "
                   "| disk I/O x disk | CPU s | CPU x disk | pool max MiB | ratio "
                   "| swap in/out pages | major faults | OOM kills | MiB verified |")
        out.append("|" + "---|" * 15)
        base = idx.get((w, "disk"))
        for c in configs:
            r = idx.get((w, c))
            if r is None:
                continue
            def x(metric):
                return fmt_ratio(ratio(r[metric], base[metric])) if ok(base) and ok(r) else "-"
            out.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s/%s | %s | %s | %s |" % (
                c, r["status"], r["wall_s"], x("runtime"), r["disk_read_mib"],
                r["disk_write_mib"], x("disk_io"), r["cpu_busy_s"], x("cpu"),
                r["pool_max_mib"],
                r["ratio_at_max"] if (num(r["pool_max_mib"]) or 0) >= 1 else "-",
                r["pswpin"], r["pswpout"],
                r["majflt"], r["oom_kills"], r["mib_verified"]))
        out.append("")
    skipped = os.path.join(d, "skipped.txt")
    skipped_cfgs = set()
    if os.path.exists(skipped):
        with open(skipped) as f:
            lines = [ln.strip() for ln in f if ln.strip()]
        skipped_cfgs = {ln.split(":")[0] for ln in lines}
        out.append("Skipped: " + "; ".join(lines) + "\n")
    # Configurations asked for that left no row: the guest stopped there.
    asked = meta.get("configs", "").split()
    missing = [c for c in asked if c not in configs and c not in skipped_cfgs]
    for c in missing:
        out.append("**%s: no result.** The guest stopped before this configuration finished "
                   "(a kernel panic or a timeout: see the run's console.log and dmesg).\n" % c)
    done = [w for w in meta.get("workloads", "").split()]
    for c in configs:
        lost = [w for w in done if (w, c) not in idx]
        if lost and c not in missing:
            out.append("**%s: no result for %s.** The guest stopped during this configuration.\n"
                       % (c, ", ".join(lost)))

    # Plots.
    scripts = [
        gnuplot_bars(d, rows, configs, workloads, "runtime", "wall time / disk-only wall time",
                     "Runtime relative to disk swap, %s %s, %s disk" % (suite, kernel, profile),
                     "runtime.png"),
        gnuplot_bars(d, rows, configs, workloads, "disk_io",
                     "MiB read+written / disk-only MiB",
                     "Scratch-disk I/O relative to disk swap, %s %s, %s disk"
                     % (suite, kernel, profile), "diskio.png"),
        gnuplot_bars(d, rows, configs, workloads, "cpu", "CPU time / disk-only CPU time",
                     "CPU time (all vCPUs) relative to disk swap, %s %s" % (suite, kernel),
                     "cpu.png"),
    ]
    pool = gnuplot_pool(d, rows, configs)
    if pool:
        scripts.append(pool)
    gp = os.path.join(d, "plots.gp")
    with open(gp, "w") as f:
        f.write("\n".join(scripts))
    try:
        subprocess.run(["gnuplot", gp], check=True)
        out.append("## Plots\n")
        for p in ("runtime.png", "diskio.png", "cpu.png", "pool.png"):
            if os.path.exists(os.path.join(d, p)):
                out.append("![%s](%s)\n" % (p[:-4], p))
    except (OSError, subprocess.CalledProcessError) as e:
        out.append("(no plots: gnuplot failed: %s)\n" % e)

    with open(os.path.join(d, "report.md"), "w") as f:
        f.write("\n".join(out))
    print(summary.replace("**", ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
