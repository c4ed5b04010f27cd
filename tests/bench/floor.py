#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""tests/bench/floor.py DIR [--json OUT]: the floor of a benchmark run.

A trace-driven model of each memstress workload of the run in DIR (the
results folder tests/bench/guest.sh wrote): the exact page accesses
memstress makes (memstress --trace, built here on the host from
tests/workloads/memstress.c, with the command line the guest ran, in
runs/CFG-WL/cmd.txt) are replayed against

    RAM: an LRU list of M pages, minus what the pool occupies;
    pool: POOL bytes (the run's pool limit); a compressible page takes
          PAGE / the measured ratio of the compressible pages; memstress's
          incompressible pages (--incompressible-pct, 10% by default: the
          same hash as tests/workloads/wl_content.h wl_kind, redone here
          per process and page) are refused (zswap: compression or
          zsmalloc fails beyond PAGE_SIZE; zcache: E2BIG, the page goes to
          the backing device) or, for zram, stored whole (huge pages);
    disk: everything else; a page read from the disk keeps its copy there
          (the swap cache) until it is rewritten.

Per access: a page in RAM is a hit (a rewrite leaves its stored copy
stale until the page is stored again); a page not in RAM faults it in from
the pool (no disk I/O) or the disk (one page read) or is new (the fill).
When RAM is over its size the LRU page is dropped if it still has a valid
copy, else stored: in the pool or on the disk as the policy says, one page
written when it goes to the disk.

The policies (what the measured rows do, as far as the model goes):
    disk          no pool
    wt-keep       store in the pool while it has room, else write to the
                  disk; loads keep the pool copy
    wt-excl       the same with exclusive loads: a page loaded from the
                  pool leaves it and is dirty again (zram: synchronous I/O
                  frees the slot at swap-in; the best LRU-driven policy for
                  a device in the swap cache, issue 17's target)
    -h90          suffix: accept hysteresis: once a store finds the pool
                  full, every store is refused until the pool is at or
                  below 90% of its limit (accept_threshold_percent of zswap
                  and of zcache)
    hybrid75      loads keep the pool copy while the pool holds less than
                  75% of its limit, exclusive above ("keep while room")
    lru-excl      exclusive loads; when full, the pool's oldest pages are
                  written to the disk to make room (zram-wb's idle
                  write-back at best; with -h90, zswap 6.12+'s shrink
                  worker: refuse the page, write back to the threshold)
    belady        exclusive loads; when full, the page needed farthest in
                  the future (the incoming one included) goes to the disk:
                  a clairvoyant pool behind the same LRU RAM
    zram-huge     wt-excl storing incompressible pages whole, at most
                  zram's disksize in pages: the zram row
The floor is the best of the policies without foresight (all but belady
and zram-huge); belady is the clairvoyant bound below it.  Modelled rows:
disk = disk, zswap = wt-keep-h90 on 5.10/6.1, wt-excl-h90 from 6.3 on
(lru-excl-h90 with its shrinker on), zram = zram-huge, zram-wb =
lru-excl, zcache = wt-excl (its policy since 4afcedf: a write-through
pool refuses only at the limit, no hysteresis; wt-excl-h90 before; a
prediction, not part of the calibration).

Calibration: M is not known exactly (the kernel, the shell and the page
cache share RAM with the workload).  The disk row alone fixes it poorly
(near these working sets the disk policy's I/O hardly moves with M while
a pool's does), so M is fitted on the disk, zswap and zram rows of the
run together: the M for which the largest relative error of the three
modelled rows (disk = disk, zswap and zram as below) against their
measured I/O (read + written pages of the swap partition) is smallest.
Those three errors are the calibration error the report prints; the M
that the disk row alone would give, and MemAvailable, are printed too.
With only a disk row, M is fitted on it.  The model is one
LRU list: on a kernel that reclaims with the multi-gen LRU (meta.txt's
lru_gen; Debian enables it from 6.12 on) it does not apply, and the JSON
says so ("applies": false) so that the report claims no floor.

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


MASK64 = (1 << 64) - 1


def wl_splitmix(x):
    """wl_splitmix of tests/workloads/wl_content.h, in 64-bit arithmetic."""
    x = (x + 0x9e3779b97f4a7c15) & MASK64
    x = ((x ^ (x >> 30)) * 0xbf58476d1ce4e5b9) & MASK64
    x = ((x ^ (x >> 27)) * 0x94d049bb133111eb) & MASK64
    return x ^ (x >> 31)


def wl_random(seed, pct, stream, index):
    """True when wl_kind(seed, pct, stream, index) of wl_content.h is
    WL_RANDOM: the page does not compress.  memstress's stream is the
    process number (0 .. procs-1), the index the page's in that process;
    the kind does not change with the page's generation."""
    h = wl_splitmix(seed ^ wl_splitmix(((stream << 48) ^ index) & MASK64))
    return h % 1000 < pct * 10


def incompressible_keys(procs, seed, pct):
    """The page keys (see interleave) of the pages that do not compress."""
    out = set()
    if pct <= 0:
        return out
    for k, (npages, _) in enumerate(procs):
        for i in range(npages):
            if wl_random(seed, pct, k, i):
                out.add((k << 32) | i)
    return out


class Pool:
    """What a pool is: its limit in bytes, how it stores a page, its accept
    hysteresis, when a load keeps the pool's copy.

    limit      pool bytes (the run's pool limit)
    csize      bytes a compressible page takes (PAGE / the measured ratio
               of the compressible pages)
    whole      incompressible pages are stored whole (PAGE bytes: zram's
               huge pages); else they are refused and go to the disk
               (zswap: the compressor or zsmalloc fails on > PAGE_SIZE;
               zcache: E2BIG, the page goes to the backing device)
    slots      at most this many pages stored (zram: disksize), or None
    accept     hysteresis: once a store found the pool full, refuse every
               store until the pool is at or below accept * limit (zswap's
               and zcache's accept_threshold_percent, 90); None: none
    keep_below loads keep the pool copy (non-exclusive) while the pool
               holds less than keep_below * limit, exclusive above; 1.0
               always keeps (wt-keep), 0 never (exclusive loads)
    """

    def __init__(self, limit, csize, whole=False, slots=None, accept=None,
                 keep_below=0.0):
        self.limit = limit
        self.csize = csize
        self.whole = whole
        self.slots = slots
        self.accept = accept
        self.keep_below = keep_below


def simulate(keys, writes, ram_pages, pool, policy, incomp=frozenset(), nxt=None):
    """Returns (disk reads, disk writes, pool hits) in pages.  pool is a
    Pool or None (disk only); policy "wt" (write-through when full),
    "lru" (the pool's oldest page written to the disk to make room) or
    "belady" (the page needed farthest in the future goes to the disk)."""
    ram = OrderedDict()         # page -> None, LRU first
    loc = {}                    # page -> 'P' (pool copy), 'D' (disk copy)
    pstore = OrderedDict()      # page -> its bytes in the pool, oldest first
    heap = []                   # belady: (-next use, page)
    used = 0.0                  # pool bytes in use
    full = False                # hysteresis: refusing until below accept
    reads = wr = hits = 0
    when = {}                   # belady: page -> its next use
    stale = set()               # kept copies of pages rewritten since
    if pool is not None:
        limit = pool.limit
        keep_lim = pool.keep_below * limit
        acc_lim = pool.accept * limit if pool.accept is not None else None
        slots = pool.slots if pool.slots is not None else 1 << 62

    def pool_drop(p):
        nonlocal used
        used -= pstore.pop(p)

    def pool_put(p, size):
        nonlocal used
        pstore[p] = size
        used += size
        loc[p] = "P"
        if policy == "belady":
            heapq.heappush(heap, (-when.get(p, INF), p))

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
                if used >= keep_lim:        # exclusive: the copy leaves
                    pool_drop(p)
                    del loc[p]
            elif where == "D":
                reads += 1
            ram[p] = None
        if w:
            where = loc.pop(p, None)
            if where == "P":
                # the slot and its pool copy stay, stale, until the page
                # is stored again (a write fault on a swap-cache page that
                # is exclusive to the process keeps the slot)
                stale.add(p)
        # RAM: what the pool occupies is not there for pages
        cap = ram_pages - int(used / PAGE)
        while len(ram) > cap:
            v, _ = ram.popitem(last=False)
            if v in loc:
                continue        # clean: its copy is still stored
            if v in stale:
                stale.discard(v)
                pool_drop(v)    # the store replaces the stale copy
            if pool is None:
                loc[v] = "D"
                wr += 1
                continue
            if v in incomp:
                if not pool.whole:
                    loc[v] = "D"        # refused: straight to the disk
                    wr += 1
                    continue
                size = PAGE
            else:
                size = pool.csize
            if acc_lim is not None:
                if used + size > limit:
                    full = True
                elif full and used <= acc_lim:
                    full = False
            fits = (not full and used + size <= limit and len(pstore) < slots)
            if fits:
                pool_put(v, size)
            elif policy == "wt":
                loc[v] = "D"
                wr += 1
            elif policy == "lru":
                # without hysteresis: write the oldest back until the page
                # fits and store it; with it (zswap 6.12's shrink worker):
                # refuse the page and write back to the accept threshold
                if acc_lim is not None:
                    loc[v] = "D"
                    wr += 1
                    target = acc_lim
                else:
                    target = limit - size
                while pstore and (used > target or len(pstore) >= slots):
                    old = next(iter(pstore))
                    pool_drop(old)
                    loc[old] = "D"
                    wr += 1
                if acc_lim is None:
                    pool_put(v, size)
            else:               # belady: evict whichever is needed last
                nv = when.get(v, INF)
                while True:
                    while heap and (heap[0][1] not in pstore or
                                    -heap[0][0] != when.get(heap[0][1], INF)):
                        heapq.heappop(heap)
                    far = -heap[0][0] if heap else -INF
                    if not heap or nv >= far:
                        loc[v] = "D"
                        wr += 1
                        break
                    _, old = heapq.heappop(heap)
                    pool_drop(old)
                    loc[old] = "D"
                    wr += 1
                    if used + size <= limit and len(pstore) < slots:
                        pool_put(v, size)
                        break
            cap = ram_pages - int(used / PAGE)
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


def params_of(d, cfg, wl):
    """The module parameters guest.sh recorded for a run (params.txt)."""
    out = {}
    try:
        with open(os.path.join(d, "runs", "%s-%s" % (cfg, wl), "params.txt")) as f:
            for line in f:
                k, _, v = line.strip().partition(":")
                out[os.path.basename(k)] = v
    except OSError:
        pass
    return out


def zswap_policy(kernel, params):
    """zswap's policy by kernel.  5.10/6.1 (frontswap, zsmalloc): no
    write-back, loads keep their copy, accept hysteresis.  6.12 and later:
    exclusive loads; when full it refuses and its shrink worker writes back
    to the accept threshold (lru-excl-h90) but, with the memory-pressure
    shrinker off (Debian's default, CONFIG_ZSWAP_SHRINKER_DEFAULT_ON unset),
    it wrote back almost nothing in the 6.12 run (written_back_pages 1140
    of 222,662 stores): a full pool refuses (wt-excl-h90)."""
    m = re.match(r"(\d+)\.(\d+)", kernel or "")
    if m and (int(m.group(1)), int(m.group(2))) < (6, 3):
        return "wt-keep-h90"
    if params.get("shrinker_enabled", "N").upper().startswith("Y"):
        return "lru-excl-h90"
    return "wt-excl-h90"


# Model policies: (store policy, Pool options).  "refused": incompressible
# pages are never pooled (zswap, zcache); zram-huge stores them whole.
POLICIES = OrderedDict([
    ("disk", None),
    ("wt-keep", ("wt", dict(keep_below=INF))),
    ("wt-keep-h90", ("wt", dict(keep_below=INF, accept=0.9))),
    ("wt-excl", ("wt", dict())),
    ("wt-excl-h90", ("wt", dict(accept=0.9))),
    ("hybrid75", ("wt", dict(keep_below=0.75))),
    ("hybrid75-h90", ("wt", dict(keep_below=0.75, accept=0.9))),
    ("lru-excl", ("lru", dict())),
    ("lru-excl-h90", ("lru", dict(accept=0.9))),
    ("belady", ("belady", dict())),
    ("zram-huge", ("wt", dict(whole=True))),
])
# The floor: the best of these (realizable: no knowledge of the future;
# a pool that refuses incompressible pages, as keeping them whole costs
# the RAM they would take uncompressed).
FLOOR_POLICIES = ("wt-keep", "wt-keep-h90", "wt-excl", "wt-excl-h90", "hybrid75",
                  "hybrid75-h90", "lru-excl", "lru-excl-h90")
MODELLED = {"disk": "disk", "zram": "zram-huge", "zram-wb": "lru-excl",
            "zcache": "wt-excl"}


def compressible_ratio(rows, wl, pct):
    """The compression ratio of the compressible pages, from the measured
    rows: zswap's pool never holds an incompressible page (its ratio is
    theirs already); zram's holds them whole, so its ratio r of all stored
    pages gives that of the others as (1 - f) / (1/r - f), f = pct/100 (the
    share of incompressible pages among those stored, taken as memstress's
    share).  The median of what the rows give; 2.16 (the content's lz4
    ratio) without any."""
    out = []
    for cfg in ("zswap", "zram"):
        if (median_of(rows, cfg, wl, "pool_max_mib") or 0) < 1:
            continue
        r = median_of(rows, cfg, wl, "ratio_at_max")
        if not r or r <= 0.5:
            continue
        if cfg == "zram":
            f = pct / 100.0
            if 1 / r - f <= 0:
                continue
            r = (1 - f) / (1 / r - f)
        out.append(r)
    return (statistics.median(out) if out else 2.16), out


def lru_gen_of(meta, kernel):
    """Whether the kernel reclaimed with the multi-gen LRU: meta.txt's
    lru_gen line (guest.sh: /sys/kernel/mm/lru_gen/enabled, 'none' when
    the file is missing); runs from before that line take Debian's config
    (CONFIG_LRU_GEN_ENABLED=y in 6.12.117+deb13 and 7.2.13+deb14; built but
    off in 6.1.0-50)."""
    v = meta.get("lru_gen")
    if v is not None:
        w = v.split()[0] if v.split() else "none"
        if w == "none":
            return False, v
        if w in ("y", "Y", "n", "N"):
            return w in ("y", "Y"), v
        try:
            return int(w, 0) != 0, v
        except ValueError:
            return True, v
    m = re.match(r"(\d+)\.(\d+)", kernel or "")
    on = bool(m and (int(m.group(1)), int(m.group(2))) >= (6, 12))
    return on, "%s (no lru_gen line in meta.txt; Debian's config for %s)" % (
        "enabled" if on else "disabled", kernel or "?")


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
    seed, pct = 1, 10           # memstress's defaults
    for i, a in enumerate(argv[:-1]):
        if a == "--seed":
            seed = int(argv[i + 1], 0)
        elif a == "--incompressible-pct":
            pct = int(argv[i + 1], 0)
    tr = os.path.join(tmp, "trace-%s.bin" % wl)
    subprocess.run([exe] + argv[1:] + ["--trace", tr], check=True,
                   stdout=subprocess.DEVNULL)
    procs = read_trace(tr)
    keys, writes = interleave(procs)
    os.unlink(tr)
    incomp = incompressible_keys(procs, seed, pct)
    ram_mib = float(meta.get("ram_mib", "0").split()[0] or 0)
    pool_pct = float(meta.get("pool_pct", "20").split()[0])
    pool_bytes = ram_mib * 1048576 * pool_pct / 100
    ratio, ratios = compressible_ratio(rows, wl, pct)
    csize = PAGE / ratio
    pool_pages = int(pool_bytes / csize)
    zram_slots = int(ram_mib * pool_pct / 100) * 2 * 1048576 // PAGE
    kernel = meta.get("kernel", "")
    policies = dict(MODELLED)
    policies["zswap"] = zswap_policy(kernel, params_of(d, "zswap", wl))
    lru_gen, lru_gen_text = lru_gen_of(meta, kernel)

    meas_disk = measured_pages(rows, "disk", wl)
    m_avail = mem_available_pages(d, "disk", wl)
    sims = {}

    def pool_for(pol):
        spec = POLICIES[pol]
        if spec is None:
            return None, "wt"
        how, opts = spec
        if opts.get("whole"):
            opts = dict(opts, slots=zram_slots)
        return Pool(pool_bytes, csize, **opts), how

    def io(m, pol):
        key = (m, pol)
        if key not in sims:
            pool, how = pool_for(pol)
            sims[key] = simulate(keys, writes, m, pool, how, incomp,
                                 nxt_arr if how == "belady" else None)
        r, w, _ = sims[key]
        return r + w

    nxt_arr = None
    npages = len(set(keys))
    # Fit M on the disk row: disk I/O falls as M grows.
    m_disk = None
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
        m_disk = lo
    # The disk row alone fixes M poorly: near this working set the disk
    # policy's I/O hardly moves with M (on 6.12, s19: 416 MiB and 372 MiB
    # of M give 2360 and 2391 MiB) while a pool's rows move by a quarter.
    # So M is fitted on every calibration row the run has (disk, zswap,
    # zram): the M whose largest relative error is smallest.  Each error
    # falls as M grows, so the largest absolute error is smallest where
    # the highest error and the lowest are equal and opposite (their sum
    # falls with M: a bisection), or at the end of the range.  Those
    # errors are the calibration error the report prints.
    cal = [(cfg, policies[cfg], measured_pages(rows, cfg, wl))
           for cfg in ("disk", "zswap", "zram")]
    cal = [(c, p, m) for c, p, m in cal if m]
    fit_rows = [c for c, _, _ in cal]

    def errs(m):
        return [(io(m, p) - meas) / meas for _, p, meas in cal]

    def worst(m):
        return max(abs(e) for e in errs(m))

    if len(cal) > 1 and m_disk is not None:
        near = [m_disk] + ([m_avail] if m_avail else [])
        lo = max(1, int(min(near) * 0.6))
        hi = min(npages, int(max(near) * 1.25) + 1)
        ends = (lo, hi)
        while hi - lo > max(2, npages // 500):
            mid = (lo + hi) // 2
            e = errs(mid)
            if max(e) + min(e) > 0:
                lo = mid
            else:
                hi = mid
        m_fit = min((lo, hi) + ends, key=worst)
        fitted = True
    elif m_disk is not None:
        m_fit, fitted, fit_rows = m_disk, True, ["disk"]
    else:
        m_fit = m_avail or npages // 2
        fitted, fit_rows = False, []
    log("%s: %d accesses over %d pages (%d incompressible, %d%%, seed %d); M %s %d pages "
        "(%.0f MiB; the disk row alone: %s), MemAvailable %s; pool %.1f MiB, %d compressible "
        "pages at ratio %.2f (from %s)" % (
            wl, len(keys), npages, len(incomp), pct, seed,
            "fitted on the %s rows" % "+".join(fit_rows) if fitted else
            "from MemAvailable (no usable disk row)",
            m_fit, m_fit * PAGE / 1048576,
            "%d" % m_disk if m_disk else "-",
            "%d" % m_avail if m_avail else "?", pool_bytes / 1048576, pool_pages,
            ratio, ", ".join("%.2f" % x for x in ratios) or "the default"))
    log("  reclaim: lru_gen %s" % lru_gen_text)
    nxt_arr = next_use(keys)
    res = {"workload": wl, "accesses": len(keys), "pages": npages,
           "incompressible_pages": len(incomp), "incompressible_pct": pct,
           "m_pages": m_fit, "m_fitted": fitted, "m_fit_rows": fit_rows,
           "m_disk_pages": m_disk, "m_avail_pages": m_avail,
           "pool_bytes": pool_bytes, "pool_pages": pool_pages, "ratio": ratio,
           "lru_gen": lru_gen, "lru_gen_text": lru_gen_text,
           "policies": OrderedDict(), "calibration": OrderedDict()}
    for pol in POLICIES:
        io(m_fit, pol)
        r, w, h = sims[(m_fit, pol)]
        res["policies"][pol] = {"reads": r, "writes": w, "pool_hits": h,
                                "mib": (r + w) * PAGE / 1048576}
        log("  %-12s disk read %7.1f MiB, written %7.1f MiB, I/O %7.1f MiB, pool hits %d"
            % (pol, r * PAGE / 1048576, w * PAGE / 1048576, (r + w) * PAGE / 1048576, h))
    if m_avail:
        r, w, _ = simulate(keys, writes, m_avail, None, "wt")
        res["disk_mib_at_memavailable"] = (r + w) * PAGE / 1048576
    for cfg in ("disk", "zswap", "zram", "zram-wb", "zcache"):
        pol = policies[cfg]
        meas = measured_pages(rows, cfg, wl)
        if meas is None or meas <= 0:
            continue
        mod = res["policies"][pol]["mib"] * 1048576 / PAGE
        err = (mod - meas) / meas * 100
        res["calibration"][cfg] = {"policy": pol, "measured_mib": meas * PAGE / 1048576,
                                   "model_mib": mod * PAGE / 1048576, "error_pct": err,
                                   "fitted": fit_rows == [cfg],
                                   "calibrates": cfg in ("disk", "zswap", "zram")}
        log("  calibration %-8s (%s): measured %.1f MiB, model %.1f MiB, %+.1f%%%s"
            % (cfg, pol, meas * PAGE / 1048576, mod * PAGE / 1048576, err,
               " (M fitted on this row)" if fit_rows == [cfg] else
               ("" if cfg in ("disk", "zswap", "zram") else " (its policy's prediction)")))
    best = min(FLOOR_POLICIES, key=lambda p: res["policies"][p]["mib"])
    floor = res["policies"][best]["mib"]
    res["floor_policy"] = best
    res["floor_mib"] = floor
    res["belady_mib"] = res["policies"]["belady"]["mib"]
    dm = res["policies"]["disk"]["mib"]
    res["floor_x_disk"] = floor / dm if dm else None
    res["belady_x_disk"] = res["belady_mib"] / dm if dm else None
    log("  floor %.1f MiB (%s, %.3fx disk); clairvoyant %.1f MiB (%.3fx disk)"
        % (floor, best, res["floor_x_disk"] or 0, res["belady_mib"],
           res["belady_x_disk"] or 0))
    # The model is one LRU list: under the multi-gen LRU it does not
    # describe the kernel's reclaim, whatever its fit.
    res["applies"] = not lru_gen
    if lru_gen:
        log("  the kernel reclaimed with the multi-gen LRU: the model (one LRU list) does "
            "not apply; no floor is claimed")
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
