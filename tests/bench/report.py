#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""tests/bench/report.py DIR: the benchmark report from one guest boot.

Reads DIR/results.tsv and DIR/meta.txt (written by tests/bench/guest.sh),
writes DIR/report.md (tables, ratios, the goal check, the summary line) and
PNG plots DIR/runtime.png, DIR/diskio.png, DIR/cpu.png, DIR/pool.png with
gnuplot (Debian's gnuplot-nox).  Standard library only.

Ratios, never seconds alone: the guests run under emulation on shared
machines, so only ratios between configurations of the same boot mean
anything.  Each (configuration, workload) may have run several times in the
boot (--repeat): the tables give the median and the min-max spread, ratios
are between medians.  The summary line and the goal check are per
workload, never a mean over workloads: pc (the page cache) cannot change on
a kernel without cleancache and is reported there as a control row only.
The goal set follows the working set: issue 17's "must show" at 150% of RAM
(or more), its 120% line below that.  DIR/floor.json (tests/bench/floor.py)
adds the trace model's floor and calibration.
"""
import json
import math
import os
import re
import statistics
import subprocess
import sys

from floor import load_rows, meta_of, noswap

CONFIG_ORDER = ["disk", "zswap", "zram", "zram-wb", "zcache", "zcache-keep", "zcache-wb",
                "zcache-fs"]
WORKLOAD_DESC = {
    "ms1": "memstress, 1 process, mixed sequential/skewed-random access",
    "ms2": "memstress, one process per vCPU at once, mixed access",
    "pc": "pagecache: file set larger than RAM, re-read (clean page cache)",
    "build": "a parallel build of Lua (Debian's source) in a memory cgroup, objects verified",
}
# The goals of issue 17 for the swap workloads, as (metric, against, at
# most), by working set: at 150% of RAM (and above) and at 120% (below 135%).
GOALS_150 = [("disk_io", "disk", 0.50), ("disk_io", "zswap", 0.75),
             ("disk_io", "zram", 0.90), ("runtime", "zswap", 1.0),
             ("runtime", "zram", 1.0)]
GOALS_120 = [("disk_io", "disk", 0.15)]
SWAP_WORKLOADS = ("ms1", "ms2", "build")   # in the summary line
GOAL_WORKLOADS = ("ms1", "ms2")            # checked against the goals


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def run_dir(d, r):
    """The folder of one run of results.tsv: runs/CFG-WL, with -rN from
    the second run on (guest.sh's naming)."""
    run = os.path.join(d, "runs", "%s-%s" % (r["config"], r["workload"]))
    if str(r.get("rep", "1")) not in ("", "1"):
        run += "-r%s" % r["rep"]
    return run


def vmstat_delta(d, r, keys):
    """The /proc/vmstat deltas of one run from its stats-before/after.txt:
    for results.tsv files from before the zswpin/zswpout columns."""
    run = run_dir(d, r)

    def read(name):
        vals, on = {}, False
        try:
            with open(os.path.join(run, name)) as f:
                for line in f:
                    if line.startswith("== "):
                        on = line.strip() == "== vmstat"
                    elif on:
                        k, _, v = line.partition(" ")
                        if k in keys:
                            vals[k] = int(v)
        except (OSError, ValueError):
            return None
        return vals
    a, b = read("stats-before.txt"), read("stats-after.txt")
    if a is None or b is None:
        return {}
    return {k: b.get(k, 0) - a.get(k, 0) for k in keys}


def swap_counts(d, r):
    """Pages swapped in and out, wherever they went.  pswpin/pswpout count
    the I/O of swap devices: for zram and zcache (block devices) every
    swapped page, pool or not, but for zswap only what reached the disk
    (6.1 and 6.12: a zswap hit or store returns before the counting; they
    are zswpin/zswpout).  swpin_all/swpout_all = pswp + zswp compare across
    rows.  zswap's write-backs (zswpwb) count once more in pswpout."""
    z = {k: num(r.get(k)) for k in ("zswpin", "zswpout")}
    if None in z.values():      # a results.tsv without the columns
        z = vmstat_delta(d, r, ("zswpin", "zswpout"))
    for k in ("zswpin", "zswpout"):
        r[k] = ("%d" % z[k]) if k in z else None
    pin, pout = num(r.get("pswpin")), num(r.get("pswpout"))
    r["swpin_all"] = ("%d" % (pin + z["zswpin"])) if pin is not None and "zswpin" in z else None
    r["swpout_all"] = (("%d" % (pout + z["zswpout"])) if pout is not None and "zswpout" in z
                       else None)


# Host cores busy outside QEMU above which a row's times are marked.
HOST_BUSY = 0.3

# The scratch disk's limits per profile, (IOPS, MB/s) (vm/run.sh's QEMU
# throttling.iops-total and bps-total): a row's requests over the IOPS
# is the time the throttle alone imposes.
PROFILE_LIMITS = {"ssd": (10000, 200), "hdd": (200, 100)}


def host_busy(d, r, samples):
    """Mean host CPU (cores) taken by other processes than QEMU while the
    row's workload ran (host-load.txt of run.sh; the row's window is the
    first and last sample of its pool.txt, in the guest's clock, which is
    the host's).  None without the files."""
    try:
        with open(os.path.join(run_dir(d, r), "pool.txt")) as f:
            ts = [int(ln.split()[0]) for ln in f if ln.split()]
    except (OSError, ValueError):
        return None
    if not ts or not samples:
        return None
    t0, t1 = min(ts), max(ts)
    # A sample covers the 5 s before its time stamp.
    inside = [v for t, v in samples if t0 < t <= t1 + 5]
    return sum(inside) / len(inside) if inside else None


def host_samples(d, cpus):
    """run.sh's samples, less the impossible ones: above the host's cpus
    (meta's host_cpus; this machine's count for older runs).  Before
    2026-12-07 the sampler counted the whole CPU time of a QEMU it lost
    sight of (at its exit, or a PID lookup that missed it) as the host's
    for one sample (100 cores and more), and the sample after it read 0;
    both are dropped."""
    out = []
    try:
        with open(os.path.join(d, "host-load.txt")) as f:
            for ln in f:
                p = ln.split()
                if len(p) == 2:
                    out.append((int(p[0]), float(p[1])))
    except (OSError, ValueError):
        pass
    bad = {i for i, (_, v) in enumerate(out) if v > cpus}
    bad |= {i + 1 for i in bad}
    return [s for i, s in enumerate(out) if i not in bad]


def load(d):
    rows = load_rows(d)
    meta = meta_of(d)
    try:
        cpus = int(meta.get("host_cpus", ""))
    except ValueError:
        cpus = os.cpu_count() or 1
    samples = host_samples(d, cpus)
    for r in rows:
        r["host_busy"] = host_busy(d, r, samples)
        swap_counts(d, r)
        if r["status"] == "ok" and noswap(r):
            r["status"] = "NOSWAP"
        r["runtime"] = num(r["wall_s"])
        rd, wr = num(r["disk_read_mib"]), num(r["disk_write_mib"])
        r["disk_io"] = (rd or 0) + (wr or 0) if rd is not None else None
        r["cpu"] = num(r["cpu_busy_s"])
    return rows, meta


def aggregate(rows):
    """One row per (workload, config): the median of its runs, with the
    spread of runtime, disk I/O and CPU (min, max) and the run count."""
    groups = {}
    for r in rows:
        groups.setdefault((r["workload"], r["config"]), []).append(r)
    out = []
    for (w, c), rs in groups.items():
        good = [r for r in rs if r["status"] == "ok"]
        base = dict(rs[0])
        base["runs"] = len(rs)
        base["runs_ok"] = len(good)
        if len(good) == len(rs):
            base["status"] = "ok"
        else:
            base["status"] = "%s (%d/%d ok)" % (
                next(r["status"] for r in rs if r["status"] != "ok"), len(good), len(rs))
        use = good or rs
        for col in ("wall_s", "user_s", "sys_s", "cpu_busy_s", "iowait_s", "majflt",
                    "disk_read_mib", "disk_write_mib", "disk_reads", "disk_writes",
                    "pswpin", "pswpout", "zswpin", "zswpout", "swpin_all",
                    "swpout_all", "oom_kills", "pool_max_mib",
                    "stored_at_max_mib", "ratio_at_max", "mib_verified"):
            vals = [num(r.get(col)) for r in use]
            vals = [v for v in vals if v is not None]
            if vals:
                m = statistics.median(vals)
                base[col] = ("%d" % m) if m == int(m) and col not in (
                    "wall_s", "ratio_at_max") else ("%.1f" % m if col != "ratio_at_max"
                                                    else "%.2f" % m)
        for metric in ("runtime", "disk_io", "cpu", "host_busy"):
            vals = [r[metric] for r in use if r[metric] is not None]
            base[metric] = statistics.median(vals) if vals else None
            base[metric + "_min"] = min(vals) if vals else None
            base[metric + "_max"] = max(vals) if vals else None
        if not good:
            base["status"] = base["status"] if base["status"] != "ok" else "FAIL"
        out.append(base)
    order = {c: i for i, c in enumerate(CONFIG_ORDER)}
    out.sort(key=lambda r: order.get(r["config"], 99))
    return out


def spread(r, metric, fmt="%.1f"):
    """'median' or 'median (min-max)' when the row ran more than once."""
    v = r.get(metric)
    if v is None:
        return "-"
    if r.get("runs_ok", 1) > 1 and r.get(metric + "_min") is not None:
        return (fmt + " (" + fmt + "-" + fmt + ")") % (v, r[metric + "_min"], r[metric + "_max"])
    return fmt % v


def ws_pct_of(meta, rows):
    m = re.search(r"\((\d+)% of RAM\)", meta.get("working_set_mib", ""))
    if m:
        return int(m.group(1))
    try:
        r = rows[0]
        return round(100 * float(r["ws_mib"]) / float(r["ram_mib"]))
    except (KeyError, ValueError, ZeroDivisionError, IndexError):
        return 150


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


def by_key(rows):
    return {(r["workload"], r["config"]): r for r in rows}


def ok(r):
    return r is not None and r["status"] == "ok"


def wl_ratio(idx, w, cfg, base, metric):
    a, b = idx.get((w, cfg)), idx.get((w, base))
    if ok(a) and ok(b):
        return ratio(a[metric], b[metric])
    return None


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


def goal_lines(idx, w, zc, goals):
    out = []
    for metric, base, limit in goals:
        v = wl_ratio(idx, w, zc, base, metric)
        name = "runtime" if metric == "runtime" else "disk I/O"
        out.append("| %s | %s %s/%s | <= %.2f | %s | %s |" % (
            w, name, zc, base, limit, fmt_ratio(v),
            "-" if v is None else ("yes" if v <= limit else "**no**")))
    return out


POLICY_DESC = {
    "disk": "no pool (fits M)",
    "wt-keep": "write-through when full, loads keep the copy",
    "wt-keep-h90": "wt-keep, refusing after full until below 90%: zswap 5.10/6.1",
    "wt-excl": "write-through when full, exclusive loads: zcache (writeback=0)",
    "wt-excl-h90": "wt-excl, refusing after full until below 90%: zswap 6.12+ (zcache before 4afcedf)",
    "hybrid75": "loads keep the copy below 75% of the limit, exclusive above",
    "hybrid75-h90": "hybrid75 with the 90% hysteresis",
    "lru-excl": "exclusive loads, oldest written back when full: zram-wb at best",
    "lru-excl-h90": "refuse when full, write back oldest to 90%: zswap's shrink worker",
    "belady": "clairvoyant: the page needed last goes to the disk",
    "zram-huge": "wt-excl, incompressible pages stored whole: zram",
}


def requests_section(idx, configs, workloads, profile):
    """Disk requests per row: how large the reads and writes were and, on
    a profile with a request limit, the time the limit alone imposes next
    to the runtime (on hdd a row's runtime is close to it)."""
    iops = PROFILE_LIMITS.get(profile, (None, None))[0]
    out = ["## Disk requests\n",
           "Requests the scratch disk completed (reads and writes of /sys/block/vdX/stat,",
           "medians), the mean request size, and, at the profile's limit of %s requests"
           % (iops if iops else "(unknown)"),
           "a second, the time those requests take at that limit alone (a disk bound on",
           "the runtime; the runtime beside it). Fewer, larger requests take less time",
           "at the same MiB: swap readahead reads the slots around a fault under one plug",
           "(mm/swap_state.c: an aligned cluster of 8 slots while a rotational swap",
           "device is on, the neighbours in the VMA otherwise), and a slot it does not",
           "read from the disk (its page already in memory, a free slot, a page a pool",
           "serves) ends a request.\n",
           "| workload | config | read requests | write requests | KiB per read | "
           "KiB per write | requests / IOPS s | runtime s |",
           "|" + "---|" * 8]
    any_row = False
    for w in workloads:
        if w not in SWAP_WORKLOADS:
            continue
        for c in configs:
            r = idx.get((w, c))
            if r is None or not ok(r):
                continue
            rd, wr = num(r.get("disk_reads")), num(r.get("disk_writes"))
            rm, wm = num(r.get("disk_read_mib")), num(r.get("disk_write_mib"))
            if rd is None or wr is None or rm is None or wm is None or rd + wr < 1000:
                continue
            any_row = True
            out.append("| %s | %s | %d | %d | %s | %s | %s | %s |" % (
                w, c, rd, wr,
                "%.1f" % (rm * 1024 / rd) if rd else "-",
                "%.1f" % (wm * 1024 / wr) if wr else "-",
                "%.0f" % ((rd + wr) / iops) if iops else "-",
                spread(r, "runtime")))
    out.append("")
    return out if any_row else []


def floor_section(d, idx, configs, workloads):
    """The trace model's floor (floor.json from tests/bench/floor.py)."""
    p = os.path.join(d, "floor.json")
    if not os.path.exists(p):
        return ["## The floor\n", "(no floor.json: tests/bench/floor.py did not run)\n"], {}
    with open(p) as f:
        fl = json.load(f).get("workloads", {})
    out = ["## The floor: what the best pool of this size could do\n",
           "tests/bench/floor.py replays the exact page accesses of each memstress run",
           "(memstress --trace) against LRU RAM, a pool of the run's limit and the disk.",
           "Compressible pages take the pool at the measured ratio of compressible pages;",
           "memstress's incompressible pages (the same hash as the workload) are refused",
           "by the pool (zswap, zcache) or stored whole (zram).  RAM's size M is fitted on",
           "the disk, zswap and zram rows together (the M whose largest error is smallest;",
           "the disk row alone fixes M poorly): their errors are the calibration error.",
           "floor = the best",
           "pool policy without foresight (clean pages read from the disk keep their copy);",
           "belady = a clairvoyant pool.  Distance = the configuration's measured disk I/O /",
           "the floor's (1.00 = at the floor).\n"]
    dist = {}
    for w in workloads:
        res = fl.get(w)
        if not res:
            continue
        applies = res.get("applies", True)
        out.append("### %s\n" % w)
        inc = ""
        if res.get("incompressible_pages") is not None:
            inc = ", %d of them incompressible (%d%%)" % (res["incompressible_pages"],
                                                        res.get("incompressible_pct", 0))
        out.append("Model: %d accesses over %d pages%s, M = %d pages (%.0f MiB%s), pool %s"
                   "%d compressible pages at %.2fx.\n"
                   % (res["accesses"], res["pages"], inc, res["m_pages"],
                      res["m_pages"] * 4096 / 1048576,
                      (", fitted on the %s rows" % "+".join(res["m_fit_rows"])
                       if res.get("m_fit_rows") else
                       ", fitted on the disk row" if res["m_fitted"] else ""),
                      "%.1f MiB: " % (res["pool_bytes"] / 1048576) if res.get("pool_bytes")
                      else "", res["pool_pages"], res["ratio"]))
        if res.get("disk_mib_at_memavailable") is not None and res.get("m_avail_pages"):
            out.append("(M from MemAvailable before the disk run would be %.0f MiB; the disk "
                       "policy then moves %.1f MiB.)\n"
                       % (res["m_avail_pages"] * 4096 / 1048576, res["disk_mib_at_memavailable"]))
        if res.get("m_disk_pages") and res.get("m_fit_rows", ["disk"]) != ["disk"]:
            out.append("(The disk row alone would give M = %.0f MiB.)\n"
                       % (res["m_disk_pages"] * 4096 / 1048576))
        if not applies:
            out.append("**The model does not apply to this kernel: no floor is claimed.** "
                       "It reclaimed with the multi-gen LRU (lru_gen: %s), and the model is "
                       "one LRU list: its figures below are printed for reference only, and "
                       "no configuration's distance to them means anything.  A run with "
                       "`--lru-gen 0` (run.sh) reclaims with the classic two-list LRU the "
                       "model approximates.\n" % res.get("lru_gen_text", "on"))
        out.append("| model policy | what it stands for | disk read MiB | disk write MiB "
                   "| disk I/O MiB | x disk | x wt-excl |")
        out.append("|---|---|---|---|---|---|---|")
        dm = res["policies"]["disk"]["mib"]
        we = res["policies"].get("wt-excl", {}).get("mib")
        for pol, v in res["policies"].items():
            out.append("| %s | %s | %.1f | %.1f | %.1f | %s | %s |" % (
                pol, POLICY_DESC.get(pol, ""), v["reads"] * 4096 / 1048576,
                v["writes"] * 4096 / 1048576, v["mib"],
                fmt_ratio(ratio(v["mib"], dm)), fmt_ratio(ratio(v["mib"], we))))
        out.append("")
        if applies:
            out.append("**Floor %.1f MiB (%sx disk%s); clairvoyant %.1f MiB (%sx disk).**\n" % (
                res["floor_mib"], fmt_ratio(res["floor_x_disk"]),
                ", %s" % res["floor_policy"] if res.get("floor_policy") else "",
                res["belady_mib"], fmt_ratio(res["belady_x_disk"])))
        if res.get("calibration"):
            out.append("| row | model policy | measured MiB | model MiB | error |")
            out.append("|---|---|---|---|---|")
            for cfg, c in res["calibration"].items():
                note = ""
                if c.get("fitted"):
                    note = " (M fitted here)"
                elif c.get("calibrates") is False:
                    note = " (its policy's prediction, not a calibration row)"
                out.append("| %s | %s | %.1f | %.1f | %+.1f%%%s |" % (
                    cfg, c["policy"], c["measured_mib"], c["model_mib"], c["error_pct"], note))
            out.append("")
        if not applies:
            continue
        out.append("| config | disk I/O MiB | distance to the floor | to the clairvoyant |")
        out.append("|---|---|---|---|")
        for c in configs:
            r = idx.get((w, c))
            if not ok(r):
                continue
            dd = ratio(r["disk_io"], res["floor_mib"])
            dist[(w, c)] = dd
            out.append("| %s | %.1f | %s | %s |" % (c, r["disk_io"], fmt_ratio(dd),
                                                  fmt_ratio(ratio(r["disk_io"], res["belady_mib"]))))
        out.append("")
    return out, dist


def main():
    if len(sys.argv) != 2:
        print("usage: report.py RESULTS_DIR", file=sys.stderr)
        return 2
    d = sys.argv[1]
    raw, meta = load(d)
    if not raw:
        print("report.py: no rows in results.tsv", file=sys.stderr)
        return 1
    rows = aggregate(raw)
    idx = by_key(rows)
    configs = [c for c in CONFIG_ORDER if any(r["config"] == c for r in rows)]
    configs += sorted({r["config"] for r in rows} - set(configs))
    workloads = []
    for r in raw:
        if r["workload"] not in workloads:
            workloads.append(r["workload"])
    r0 = raw[0]
    suite, kernel, profile = r0["suite"], r0["kernel"], r0["profile"]
    zc = "zcache" if "zcache" in configs else (
        "zcache-fs" if "zcache-fs" in configs else None)
    ws_pct = ws_pct_of(meta, raw)
    goals = GOALS_150 if ws_pct >= 135 else GOALS_120
    goal_set = ("issue 17 at 150%% of RAM (working set here %d%%)" % ws_pct if ws_pct >= 135
                else "issue 17 at 120%% of RAM (working set here %d%%)" % ws_pct)
    cleancache = meta.get("cleancache", "no") == "yes"
    nrep = max(r["runs"] for r in rows)

    out = []
    out.append("# Benchmark: zcache against zswap, zram and disk swap (%s)\n" % suite)
    out.append("One boot of a QEMU guest; every configuration and workload below ran in it,")
    out.append("one after the other%s. Only the ratios between rows mean anything: the guest"
               % (", %d times, interleaved" % nrep if nrep > 1 else ""))
    out.append("runs under TCG emulation on a shared 2-core machine. Disk I/O (MiB moved on")
    out.append("the throttled disk) depends on the kernel's decisions only and repeats well;")
    out.append("runtime and CPU time depend on how busy the host was during each run and")
    out.append("can swing several-fold between neighbouring rows: read them with the spread")
    out.append("(median, min-max over the runs) in mind.\n")
    out.append("| | |\n|---|---|")
    for k, label in [("suite", "Debian suite"), ("kernel", "kernel"),
                     ("date", "date (UTC)"), ("cpu", "machine (guest CPU)"),
                     ("ram_mib", "guest RAM (MiB)"),
                     ("profile", "swap disk profile"),
                     ("scratch", "scratch disk"),
                     ("scratch_rotational", "scratch disk rotational (guest)"),
                     ("scratch_rotational_kernel", "... as the kernel set it"),
                     ("working_set_mib", "anonymous working set (MiB)"),
                     ("pagecache_set_mib", "page-cache file set (MiB)"),
                     ("pool_pct", "pool limit (% of RAM)"),
                     ("compressor", "compressor"), ("passes", "passes"),
                     ("repeat", "runs per configuration"),
                     ("cleancache", "cleancache in the kernel"),
                     ("lru_gen", "multi-gen LRU (/sys/kernel/mm/lru_gen/enabled)"),
                     ("clocksource", "guest clocksource"),
                     ("kargs", "extra kernel words (--kargs)"),
                     ("host_load", "host load before the boot"),
                     ("qemu", "QEMU"), ("source", "zcache source (commit)"),
                     ("package", "package")]:
        if k in meta:
            out.append("| %s | %s |" % (label, meta[k].replace("|", "/")))
    out.append("| profiles | %s (QEMU throttling) |" % "; ".join(
        "%s: %s IOPS, %d MB/s" % (p, "%dk" % (i // 1000) if i >= 1000 else i, mb)
        for p, (i, mb) in PROFILE_LIMITS.items()))
    out.append("| goal set | %s |" % goal_set)
    out.append("")

    # Summary line: per swap workload, never a mean across workloads.
    swap_wls = [w for w in workloads if w in SWAP_WORKLOADS]
    parts = []
    if zc is not None:
        for w in swap_wls:
            ps = []
            for base in ("disk", "zswap", "zram", "zram-wb"):
                if (w, base) in idx and not ok(idx[(w, base)]) and ok(idx.get((w, zc))):
                    # the rival gave no measurement: say why, not "-"
                    ps.append("/%s %s" % (base, idx[(w, base)]["status"].split(" (")[0]))
                elif (w, base) in idx:
                    ps.append("/%s I/O %s runtime %s" % (
                        base, fmt_ratio(wl_ratio(idx, w, zc, base, "disk_io")),
                        fmt_ratio(wl_ratio(idx, w, zc, base, "runtime"))))
            parts.append("%s: %s%s" % (w, zc, ", ".join(ps)))
    if parts:
        summary = ("**Summary** (%s, %s, profile %s, working set %d%% of RAM): %s"
                   % (suite, kernel, profile, ws_pct, "; ".join(parts)))
    else:
        summary = ("**Summary** (%s, %s, profile %s): no zcache result on a swap workload"
                   % (suite, kernel, profile))
    out.append(summary + "\n")
    others = []
    for w in swap_wls:
        for c in ("zswap", "zram", "zram-wb"):
            if (w, c) in idx and not ok(idx[(w, c)]):
                others.append("%s %s %s" % (w, c, idx[(w, c)]["status"].split(" (")[0]))
            elif (w, c) in idx:
                others.append("%s %s/disk I/O %s runtime %s" % (
                    w, c, fmt_ratio(wl_ratio(idx, w, c, "disk", "disk_io")),
                    fmt_ratio(wl_ratio(idx, w, c, "disk", "runtime"))))
    if others:
        out.append("For comparison: " + "; ".join(others) + ".\n")
    if "pc" in workloads and not cleancache:
        out.append("pc is a control row on this kernel (no cleancache): nothing a swap "
                   "configuration does can change its disk I/O; its runtime ratio shows the "
                   "noise of the machine and what the pool's RAM costs the page cache.\n")

    floor_out, dist = floor_section(d, idx, configs, workloads)
    noswap = sorted({"%s/%s" % (r["config"], r["workload"]) for r in raw
                     if r["status"] == "NOSWAP"})
    if noswap:
        out.append("**Not comparable: %s.** The working set exceeds RAM but the run had major "
                   "faults on fewer than 1%% of its pages, so it hardly swapped in: the memory went somewhere the "
                   "benchmark does not see (check the row's stats-after.txt). These rows are "
                   "left out of every ratio and goal.\n" % ", ".join(noswap))

    # Goal check, per swap workload.
    goal_wls = [w for w in swap_wls if w in GOAL_WORKLOADS]
    if zc is not None and goal_wls:
        out.append("## Against the goal (%s)\n" % goal_set)
        out.append("| workload | measure | goal | measured | met |\n|---|---|---|---|---|")
        for w in goal_wls:
            out.extend(goal_lines(idx, w, zc, goals))
        out.append("")
        if any(dist.get((w, zc)) is not None for w in goal_wls):
            out.append("Distance of %s to the floor: %s.\n" % (zc, ", ".join(
                "%s %s" % (w, fmt_ratio(dist.get((w, zc)))) for w in goal_wls)))

    # Tables.
    out.append("## Results per workload\n")
    out.append("Runtime: wall time of the workload. Disk: MiB read + written on the scratch")
    out.append("disk (swap partition, and the files for pc). CPU: busy time of all guest CPUs")
    out.append("(user + system + irq, includes compression in kswapd). Pool: largest compressed")
    out.append("pool seen (2 s samples) and stored/pool at that moment. x disk = ratio to the")
    out.append("disk-only row of the same workload (medians). With several runs: median")
    out.append("(min-max). Swapped in/out: pages the kernel swapped in and out wherever they")
    out.append("went, pswpin + zswpin / pswpout + zswpout of /proc/vmstat: pswp alone counts a")
    out.append("zram or zcache pool hit or store but not a zswap one (zswap's share, zswp, in")
    out.append("brackets); zswap's write-backs count once more. Host busy: CPU cores the")
    out.append("host gave to other processes than this guest's QEMU while the row ran")
    out.append("(run.sh's 5 s samples, host-load.txt); the guest's runtime and CPU time")
    out.append("of a row with host busy above %.1f are slowed by the host, not by the" % HOST_BUSY)
    out.append("configuration, and are marked *.\n")
    for w in workloads:
        ctl = " (control row: no cleancache on this kernel)" if w == "pc" and not cleancache else ""
        out.append("### %s: %s%s\n" % (w, WORKLOAD_DESC.get(w, w), ctl))
        out.append("| config | status | runs | runtime s | x disk | disk read MiB | disk write MiB "
                   "| disk I/O MiB | disk I/O x disk | to floor | CPU s | CPU x disk "
                   "| pool max MiB | ratio | swapped in/out pages | major faults | OOM kills "
                   "| MiB verified | host busy |")
        out.append("|" + "---|" * 19)
        base = idx.get((w, "disk"))
        for c in configs:
            r = idx.get((w, c))
            if r is None:
                continue

            def x(metric):
                return fmt_ratio(ratio(r[metric], base[metric])) if ok(base) and ok(r) else "-"
            if r.get("swpin_all") is not None and r.get("swpout_all") is not None:
                swp = "%s/%s" % (r["swpin_all"], r["swpout_all"])
                if (num(r.get("zswpin")) or 0) + (num(r.get("zswpout")) or 0) > 0:
                    swp += " (zswap %s/%s)" % (r["zswpin"], r["zswpout"])
            else:
                swp = "%s/%s (pswp only)" % (r["pswpin"], r["pswpout"])
            busy = r.get("host_busy_max")
            star = "*" if busy is not None and busy > HOST_BUSY else ""
            out.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s "
                       "| %s | %s | %s | %s | %s | %s |" % (
                           c, r["status"], r["runs"], spread(r, "runtime") + star, x("runtime"),
                           r["disk_read_mib"], r["disk_write_mib"], spread(r, "disk_io"),
                           x("disk_io"), fmt_ratio(dist.get((w, c))),
                           spread(r, "cpu"), x("cpu"), r["pool_max_mib"],
                           r["ratio_at_max"] if (num(r["pool_max_mib"]) or 0) >= 1 else "-",
                           swp, r["majflt"], r["oom_kills"], r["mib_verified"],
                           spread(r, "host_busy", "%.2f")))
        out.append("")
    out.extend(requests_section(idx, configs, workloads, profile))
    out.extend(floor_out)
    flags = [ln for ln in open(os.path.join(d, "meta.txt")).read().splitlines()
             if ln.startswith(("swapon ", "rotational "))] if os.path.exists(
                 os.path.join(d, "meta.txt")) else []
    if flags:
        out.append("## Swap devices as the kernel saw them\n")
        out.append("The kernel's line at each swapon (SS: solid state, the SSD allocator and")
        out.append("VMA readahead; D: discard) and each swap device's queue/rotational.\n")
        out.append("```")
        out.extend(flags)
        out.append("```\n")
    skipped = os.path.join(d, "skipped.txt")
    skipped_cfgs = set()
    if os.path.exists(skipped):
        with open(skipped) as f:
            lines = [ln.strip() for ln in f if ln.strip()]
        skipped_cfgs = {ln.split(":")[0] for ln in lines}
        out.append("Skipped: " + "; ".join(lines) + "\n")
    # Allocation-failure reports of the kernel in rivals' rows (guest.sh
    # row_window): their result, not a failure of the run.
    reps = []
    for r in raw:
        f = os.path.join(run_dir(d, r), "kernel-reports.txt")
        if os.path.exists(f):
            with open(f) as fh:
                lines = [ln.strip() for ln in fh if ln.strip()]
            reps.append("%s/%s#%s: %d (first: `%s`)" % (r["config"], r["workload"], r.get("rep", "1"),
                                                     len(lines), lines[0][:160]))
    if reps:
        out.append("Kernel allocation-failure reports in rivals' rows (the kernel's own, "
                   "not failures of the run; the row's kernel-reports.txt): " + "; ".join(reps) + "\n")
    # Configurations asked for that left no row: the guest stopped there.
    asked = meta.get("configs", "").split()
    missing = [c for c in asked if c not in configs and c not in skipped_cfgs]
    for c in missing:
        out.append("**%s: no result.** The guest stopped before this configuration finished "
                   "(a kernel panic, a timeout or a failed setup: see failures.txt, the run's "
                   "console.log and dmesg).\n" % c)
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
