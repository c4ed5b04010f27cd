#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""tests/bench/floor.py DIR [--json OUT]: the floor of a benchmark run.

A trace-driven model of each memstress workload of the run in DIR (the
results folder tests/bench/guest.sh wrote): the exact page accesses
memstress makes (memstress --trace, built here on the host from
tests/workloads/memstress.c, with the command line the guest ran, in
runs/CFG-WL/cmd.txt) are replayed against

    RAM: an LRU list of M pages, minus what the pool occupies;
    pool: POOL bytes (the run's pool limit) holding pages at the run's
          measured compression ratio;
    disk: everything else; a page read from the disk keeps its copy there
          (the swap cache) until it is rewritten.

Per access: a page in RAM is a hit (a rewrite drops its stored copies); a
page not in RAM faults it in from the pool (no disk I/O) or the disk (one
page read) or is new (the fill).  When RAM is over its size the LRU page
is dropped if it still has a stored copy, else stored: in the pool or on
the disk as the policy says, one page written when it goes to the disk.

The policies (what the measured rows do, as far as the model goes):
    disk       no pool
    wt-keep    store in the pool while it has room, else write to the disk;
               loads keep the pool copy (zswap 5.10/6.1 with zsmalloc:
               no write-back, non-exclusive loads)
    wt-excl    the same with exclusive loads: a page loaded from the pool
               leaves it and is dirty again (zram: synchronous I/O frees
               the slot at swap-in; the best LRU-driven policy for a
               device in the swap cache, issue 17's target for zcache)
    lru-excl   exclusive loads; when full, the pool's oldest page is
               written to the disk to make room (zswap 6.12+ with its
               shrinker; zram-wb's idle write-back at best)
    belady     exclusive loads; when full, the page needed farthest in the
               future (the incoming one included) goes to the disk: a
               clairvoyant pool behind the same LRU RAM
The floor is min(wt-excl, lru-excl): the best an LRU-driven pool can do;
belady is the clairvoyant bound below it.

Calibration: M is not known exactly (the kernel, the shell and the page
cache share RAM with the workload).  It is fitted so that the disk policy
reproduces the measured disk row's I/O (read + written pages of the swap
partition); with that M the model predicts the zswap and zram rows, and
the prediction's error against their measurement is the calibration error
the report prints.  M from MemAvailable before the run is printed too.

Standard library only; prints a summary and, with --json, writes the
numbers for report.py.
"""
import array
import heapq
import json
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
from collections import OrderedDict

HERE = os.path.dirname(os.path.abspath(__file__))
MEMSTRESS_C = os.path.join(HERE, "..", "workloads", "memstress.c")
PAGE = 4096
INF = float("inf")


def build_memstress(tmp):
    exe = os.path.join(tmp, "memstress")
    subprocess.run(["gcc", "-O2", "-o", exe, MEMSTRESS_C], check=True)
    return exe


def read_trace(path):
    """Per process: (npages, array of events); events page << 1 | write."""
    procs = []
    with open(path, "rb") as f:
        data = f.read()
    off = 0
    while off < len(data):
        hdr = array.array("Q")
        hdr.frombytes(data[off:off + 24])
        if sys.byteorder != "little":
            hdr.byteswap()
        _, npages, nev = hdr
        off += 24
        ev = array.array("I")
        ev.frombytes(data[off:off + 4 * nev])
        if sys.byteorder != "little":
            ev.byteswap()
        off += 4 * nev
        procs.append((npages, ev))
    return procs


def interleave(procs):
    """The processes run at once: merge their accesses round robin, in
    proportion to their lengths.  Page keys: process in the high bits."""
    keys = array.array("Q")
    writes = bytearray()
    pos = [0] * len(procs)
    n = [len(ev) for _, ev in procs]
    total = sum(n)
    for step in range(max(n) if n else 0):
        for k, (_, ev) in enumerate(procs):
            if pos[k] < n[k]:
                e = ev[pos[k]]
                pos[k] += 1
                keys.append((k << 32) | (e >> 1))
                writes.append(e & 1)
    assert len(keys) == total
    return keys, writes


def next_use(keys):
    nxt = array.array("d", [INF]) * len(keys)
    last = {}
    for i in range(len(keys) - 1, -1, -1):
        k = keys[i]
        nxt[i] = last.get(k, INF)
        last[k] = i
    return nxt


def simulate(keys, writes, ram_pages, pool_pages, ratio, policy, nxt=None):
    """Returns (disk reads, disk writes, pool hits) in pages."""
    ram = OrderedDict()         # page -> None, LRU first
    loc = {}                    # page -> 'P' (pool copy), 'D' (disk copy)
    pool = OrderedDict()        # page -> next use (belady), oldest first
    heap = []                   # belady: (-next use, page)
    stored = 0
    reads = wr = hits = 0
    excl = policy != "wt-keep"
    use_pool = policy != "disk" and pool_pages > 0
    cap_base = ram_pages
    when = {}                   # belady: page -> its next use
    stale = set()               # wt-keep: rewritten pages whose old copy is pooled

    def pool_drop(p):
        nonlocal stored
        del pool[p]
        stored -= 1

    for i in range(len(keys)):
        p = keys[i]
        w = writes[i]
        if nxt is not None:
            when[p] = nxt[i]
        if p in ram:
            ram.move_to_end(p)
        else:
            where = loc.get(p)
            if where == "P":
                hits += 1
                if excl:
                    pool_drop(p)
                    del loc[p]
            elif where == "D":
                reads += 1
            ram[p] = None
        if w:
            where = loc.pop(p, None)
            if where == "P":
                if excl:
                    pool_drop(p)
                else:
                    # the slot and its pool copy stay, stale, until the
                    # page is stored again (6.1 frees the slot at swap-in
                    # only on a write fault; memstress reads first)
                    stale.add(p)
        # RAM: what the pool occupies is not there for pages
        cap = cap_base - int(stored / ratio)
        while len(ram) > cap:
            v, _ = ram.popitem(last=False)
            if v in loc:
                continue        # clean: its copy is still stored
            if v in stale:
                stale.discard(v)
                pool_drop(v)    # the store replaces the stale copy
            if not use_pool:
                loc[v] = "D"
                wr += 1
                continue
            if stored < pool_pages:
                pool[v] = when.get(v, INF)
                stored += 1
                loc[v] = "P"
                if policy == "belady":
                    heapq.heappush(heap, (-pool[v], v))
            elif policy in ("wt-keep", "wt-excl"):
                loc[v] = "D"
                wr += 1
            elif policy == "lru-excl":
                old, _ = pool.popitem(last=False)
                loc[old] = "D"
                wr += 1
                pool[v] = INF
                loc[v] = "P"
            else:               # belady: evict whichever is needed last
                nv = when.get(v, INF)
                while heap and (heap[0][1] not in pool or
                                -heap[0][0] != pool[heap[0][1]]):
                    heapq.heappop(heap)
                far = -heap[0][0] if heap else -INF
                if nv >= far:
                    loc[v] = "D"
                    wr += 1
                else:
                    _, old = heapq.heappop(heap)
                    del pool[old]
                    loc[old] = "D"
                    wr += 1
                    pool[v] = nv
                    loc[v] = "P"
                    heapq.heappush(heap, (-nv, v))
            cap = cap_base - int(stored / ratio)
    return reads, wr, hits


def load_rows(d):
    import csv
    with open(os.path.join(d, "results.tsv"), newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def meta_of(d):
    meta = {}
    try:
        with open(os.path.join(d, "meta.txt")) as f:
            for line in f:
                k, _, v = line.partition(":")
                if v:
                    meta.setdefault(k.strip(), v.strip())
    except OSError:
        pass
    return meta


def mem_available_pages(d, cfg, wl):
    try:
        with open(os.path.join(d, "runs", "%s-%s" % (cfg, wl), "stats-before.txt")) as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024 // PAGE
    except OSError:
        pass
    return None


def _num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def noswap(r):
    """A memstress run larger than RAM with major faults on fewer than 1% of
    its pages did not swap: it cannot be compared with anything."""
    ws, ram, mf = _num(r.get("ws_mib")), _num(r.get("ram_mib")), _num(r.get("majflt"))
    return bool(r["workload"] in ("ms1", "ms2") and ws and ram and ws > ram
                and mf is not None and mf * 100 < ws * 256)


def median_of(rows, cfg, wl, col):
    vals = []
    for r in rows:
        if (r["config"] == cfg and r["workload"] == wl and r["status"] == "ok"
                and not noswap(r)):
            try:
                vals.append(float(r[col]))
            except (TypeError, ValueError):
                pass
    return statistics.median(vals) if vals else None


def measured_pages(rows, cfg, wl):
    rd = median_of(rows, cfg, wl, "disk_read_mib")
    wr = median_of(rows, cfg, wl, "disk_write_mib")
    if rd is None or wr is None:
        return None
    return (rd + wr) * 1048576 / PAGE


def zswap_policy(kernel):
    """zswap's policy by kernel: zsmalloc writes back from 6.3 on and loads
    are exclusive on the kernels after that Debian ships (6.12)."""
    m = re.match(r"(\d+)\.(\d+)", kernel or "")
    if m and (int(m.group(1)), int(m.group(2))) < (6, 3):
        return "wt-keep"
    return "lru-excl"


MODELLED = {"disk": "disk", "zram": "wt-excl", "zram-wb": "lru-excl"}


def model_workload(d, rows, meta, wl, exe, tmp, log):
    cmdf = None
    for cfg in ("disk", "zswap", "zram", "zcache", "zram-wb", "zcache-fs"):
        p = os.path.join(d, "runs", "%s-%s" % (cfg, wl), "cmd.txt")
        if os.path.exists(p):
            cmdf = p
            break
    if cmdf is None:
        return None
    with open(cmdf) as f:
        argv = shlex.split(f.read().strip())
    if not argv or not argv[0].endswith("memstress"):
        return None
    tr = os.path.join(tmp, "trace-%s.bin" % wl)
    subprocess.run([exe] + argv[1:] + ["--trace", tr], check=True,
                   stdout=subprocess.DEVNULL)
    keys, writes = interleave(read_trace(tr))
    os.unlink(tr)
    ram_mib = float(meta.get("ram_mib", "0").split()[0] or 0)
    pool_pct = float(meta.get("pool_pct", "20").split()[0])
    pool_bytes = ram_mib * 1048576 * pool_pct / 100
    ratios = [median_of(rows, c, wl, "ratio_at_max") for c in ("zswap", "zram")
              if (median_of(rows, c, wl, "pool_max_mib") or 0) >= 1]
    ratios = [x for x in ratios if x and x > 0.5]
    ratio = statistics.median(ratios) if ratios else 2.16
    pool_pages = int(pool_bytes * ratio / PAGE)
    zram_slots = int(ram_mib * pool_pct / 100) * 2 * 1048576 // PAGE
    kernel = meta.get("kernel", "")
    policies = dict(MODELLED)
    policies["zswap"] = zswap_policy(kernel)

    meas_disk = measured_pages(rows, "disk", wl)
    m_avail = mem_available_pages(d, "disk", wl)
    sims = {}

    def io(m, pol):
        key = (m, pol)
        if key not in sims:
            pp = 0 if pol == "disk" else pool_pages
            sims[key] = simulate(keys, writes, m, pp, ratio, pol,
                                 nxt_arr if pol == "belady" else None)
        r, w, _ = sims[key]
        return r + w

    nxt_arr = None
    npages = len(set(keys))
    # Fit M on the disk row: disk I/O falls as M grows.
    if meas_disk is not None:
        lo, hi = max(1, npages // 20), npages
        for _ in range(14):
            mid = (lo + hi) // 2
            if io(mid, "disk") > meas_disk:
                lo = mid + 1
            else:
                hi = mid
            if hi - lo <= max(1, npages // 2000):
                break
        m_fit = lo
        fitted = True
    else:
        m_fit = m_avail or npages // 2
        fitted = False
    log("%s: %d accesses over %d pages; M %s %d pages (%.0f MiB), MemAvailable %s; "
        "pool %d pages at ratio %.2f" % (wl, len(keys), npages,
                                         "fitted on the disk row" if fitted else
                                         "from MemAvailable (no usable disk row)",
                                         m_fit, m_fit * PAGE / 1048576,
                                         "%d" % m_avail if m_avail else "?", pool_pages, ratio))
    nxt_arr = next_use(keys)
    res = {"workload": wl, "accesses": len(keys), "pages": npages,
           "m_pages": m_fit, "m_fitted": fitted, "m_avail_pages": m_avail,
           "pool_pages": pool_pages, "ratio": ratio, "policies": {}, "calibration": {}}
    for pol in ("disk", "wt-keep", "wt-excl", "lru-excl", "belady"):
        io(m_fit, pol)
        r, w, h = sims[(m_fit, pol)]
        res["policies"][pol] = {"reads": r, "writes": w, "pool_hits": h,
                                "mib": (r + w) * PAGE / 1048576}
        log("  %-8s disk read %7.1f MiB, written %7.1f MiB, pool hits %d"
            % (pol, r * PAGE / 1048576, w * PAGE / 1048576, h))
    if m_avail:
        r, w, _ = simulate(keys, writes, m_avail, 0, ratio, "disk")
        res["disk_mib_at_memavailable"] = (r + w) * PAGE / 1048576
    for cfg, pol in sorted(policies.items()):
        meas = measured_pages(rows, cfg, wl)
        if meas is None or meas <= 0:
            continue
        mod = res["policies"][pol]["mib"] * 1048576 / PAGE
        if cfg == "zram" and zram_slots < pool_pages:
            # zram's disksize (twice its mem_limit, guest.sh) holds fewer
            # pages than the pool could: the disk behind takes the rest
            r, w, _ = simulate(keys, writes, m_fit, zram_slots, ratio, pol)
            mod = r + w
        err = (mod - meas) / meas * 100
        res["calibration"][cfg] = {"policy": pol, "measured_mib": meas * PAGE / 1048576,
                                   "model_mib": mod * PAGE / 1048576, "error_pct": err,
                                   "fitted": cfg == "disk" and fitted}
        log("  calibration %-8s (%s): measured %.1f MiB, model %.1f MiB, %+.1f%%%s"
            % (cfg, pol, meas * PAGE / 1048576, mod * PAGE / 1048576, err,
               " (M fitted on this row)" if cfg == "disk" and fitted else ""))
    floor = min(res["policies"]["wt-excl"]["mib"], res["policies"]["lru-excl"]["mib"])
    res["floor_mib"] = floor
    res["belady_mib"] = res["policies"]["belady"]["mib"]
    dm = res["policies"]["disk"]["mib"]
    res["floor_x_disk"] = floor / dm if dm else None
    res["belady_x_disk"] = res["belady_mib"] / dm if dm else None
    return res


def main():
    args = sys.argv[1:]
    out = None
    if "--json" in args:
        i = args.index("--json")
        out = args[i + 1]
        del args[i:i + 2]
    if len(args) != 1:
        print("usage: floor.py RESULTS_DIR [--json OUT]", file=sys.stderr)
        return 2
    d = args[0]
    rows = load_rows(d)
    meta = meta_of(d)
    wls = []
    for r in rows:
        if r["workload"] not in wls and r["workload"].startswith("ms"):
            wls.append(r["workload"])
    result = {"workloads": {}}
    with tempfile.TemporaryDirectory() as tmp:
        exe = build_memstress(tmp)
        for wl in wls:
            res = model_workload(d, rows, meta, wl, exe, tmp,
                                 lambda s: print("floor: " + s, flush=True))
            if res:
                result["workloads"][wl] = res
    if out:
        with open(out, "w") as f:
            json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
