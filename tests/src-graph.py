#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""tests/src-graph.py [--src DIR] [--title T] OUT.dot

Draws src/'s include and call graph from the code: one node per source
file (src/compat/ is one node), an edge for each #include "..." (grey,
dashed) and for each call from one file into a function or macro another
file defines (black, labelled with the number of call sites).  Files are
ranked in layers by name: front ends, core, allocator interface,
allocators, compat; selftest/ is left out (it is not in zcache.ko).

Calls through the allocator interface are indirect (function pointers):
the core's include of zcache_alloc.h and each allocator's include of it
(it implements it) are the edges that show them.

Prints the cycles of the call graph between .c files (an "import circle")
and exits 1 if there is one; cycle edges are drawn red.  tests/src-graph.sh
wraps it and renders the PNG with Graphviz.
"""
import argparse
import os
import re
import sys
from collections import defaultdict

LAYERS = [
    ("front ends", re.compile(
        r"zcache_(main|sysfs|frontswap|cleancache|frontend|blk)\.[ch]$")),
    ("core", re.compile(r"zcache(_tmem|_comp|_internal)?\.[ch]$")),
    ("allocator interface", re.compile(r"zcache_alloc\.h$")),
    # zcache_alloc.c is the zcsmalloc adapter of the interface.
    ("allocators", re.compile(
        r"(zcache_alloc|zcache_zbud|zcs_malloc|zcsmalloc)\.[ch]$")),
    ("compat", re.compile(r"^compat$")),
]


def strip(text):
    """C text without comments and string or character literals."""
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"),
                  text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r'"(\\.|[^"\\\n])*"', '""', text)
    text = re.sub(r"'(\\.|[^'\\\n])*'", "''", text)
    return text


def body_only(text):
    """Function bodies (brace depth > 0) and macro bodies; declarations
    at file level become blanks, so that a prototype is not a call."""
    out, depth = [], 0
    for line in text.split("\n"):
        if line.lstrip().startswith("#"):
            m = re.match(r"\s*#\s*define\s+\w+(\([^)]*\))?(.*)", line)
            out.append(m.group(2) if m else "")
            continue
        kept = []
        for ch in line:
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            kept.append(ch if depth > 0 else " ")
        out.append("".join(kept))
    return "\n".join(out)


def node_of(rel):
    return "compat" if rel.startswith("compat/") else rel


def scan(src):
    files = []
    for dirpath, dirnames, names in os.walk(src):
        dirnames[:] = [d for d in dirnames
                       if d not in ("selftest", "tools", "probes")]
        for n in names:
            if n.endswith((".c", ".h")) and n != "zcache_config.h" and \
                    not n.endswith(".mod.c"):
                files.append(os.path.relpath(os.path.join(dirpath, n), src))
    files.sort()
    defs = {}          # name -> node
    text = {}
    for rel in files:
        with open(os.path.join(src, rel), encoding="utf-8") as f:
            raw = f.read()
        t = strip(raw)
        text[rel] = (t, re.findall(r'^#\s*include\s+"([^"]+)"', raw, re.M))
        node = node_of(rel)
        for m in re.finditer(r"^#\s*define\s+(\w+)\(", t, re.M):
            defs.setdefault(m.group(1), node)
        # A definition: a line at column 0 naming a function, then "{"
        # before any ";".
        for m in re.finditer(r"^([A-Za-z_][^\n;{}#=]*?)\b(\w+)\s*\(([^;{}]*?)\)"
                             r"\s*\{", t, re.M):
            name = m.group(2)
            if name in ("if", "for", "while", "switch", "return", "sizeof"):
                continue
            # A definition in a .c file wins over a header's macro of it.
            if rel.endswith(".c") or name not in defs:
                defs[name] = node
    incs = defaultdict(set)
    calls = defaultdict(int)
    for rel, (t, includes) in text.items():
        node = node_of(rel)
        here = os.path.dirname(rel)
        for name in includes:
            inc = os.path.normpath(os.path.join(here, name))
            if not os.path.exists(os.path.join(src, inc)):
                inc = os.path.normpath(name)
            if not os.path.exists(os.path.join(src, inc)):
                inc = os.path.join("compat", name)
            dst = node_of(inc)
            if dst != node:
                incs[node].add(dst)
        for m in re.finditer(r"\b(\w+)\s*\(", body_only(t)):
            dst = defs.get(m.group(1))
            if dst and dst != node:
                calls[(node, dst)] += 1
    nodes = sorted({node_of(r) for r in files})
    return nodes, incs, calls


def cycles(nodes, edges):
    """Strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]
    succ = defaultdict(list)
    for a, b in edges:
        succ[a].append(b)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in succ[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in nodes:
        if v not in index:
            visit(v)
    return out


def layer(node):
    base = os.path.basename(node)
    for i, (name, rx) in enumerate(LAYERS):
        if rx.search(base):
            return i
    return len(LAYERS)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "src"))
    ap.add_argument("--title", default="src/")
    ap.add_argument("out")
    a = ap.parse_args()
    nodes, incs, calls = scan(a.src)
    cedges = [(x, y) for (x, y) in calls
              if x.endswith(".c") and y.endswith(".c")]
    cyc = cycles(nodes, cedges)
    incyc = {v: i for i, c in enumerate(cyc) for v in c}
    with open(a.out, "w", encoding="utf-8") as f:
        f.write("digraph src {\n")
        f.write('  graph [rankdir=TB, newrank=true, fontname="Helvetica", '
                'label="%s\\ninclude (dashed grey) and call (black, call '
                'sites) graph%s", labelloc=t];\n' % (
                    a.title, "\\nIMPORT CIRCLES: " + "; ".join(
                        " <-> ".join(c) for c in cyc) if cyc else
                    "\\nno import circle"))
        f.write('  node [shape=box, fontname="Helvetica", fontsize=11];\n')
        f.write('  edge [fontname="Helvetica", fontsize=9];\n')
        for i, (name, _) in enumerate(LAYERS + [("other", None)]):
            members = [n for n in nodes if layer(n) == i]
            if not members:
                continue
            f.write('  subgraph cluster_%d { label="%s"; style=rounded; '
                    'color=grey70; rank=same;\n' % (i, name))
            for n in members:
                attrs = []
                if n.endswith(".h"):
                    attrs.append("shape=note")
                if n in incyc:
                    attrs.append('style=filled, fillcolor="#ffdddd"')
                f.write('    "%s"%s;\n' % (n, " [%s]" % ", ".join(attrs)
                                           if attrs else ""))
            f.write("  }\n")
        for a_, dsts in sorted(incs.items()):
            for b in sorted(dsts):
                f.write('  "%s" -> "%s" [style=dashed, color=grey60, '
                        'arrowsize=0.6];\n' % (a_, b))
        for (x, y), n in sorted(calls.items()):
            red = x in incyc and y in incyc and incyc[x] == incyc[y] and \
                (x, y) in cedges
            f.write('  "%s" -> "%s" [label="%d"%s];\n' % (
                x, y, n, ', color=red, fontcolor=red, penwidth=2'
                if red else ""))
        f.write("}\n")
    for c in cyc:
        print("import circle: " + " <-> ".join(c))
    up = [(x, y) for (x, y) in calls
          if layer(x) > layer(y) and layer(x) < len(LAYERS)]
    for x, y in sorted(up):
        print("upward call: %s -> %s (%d)" % (x, y, calls[(x, y)]))
    print("%d files, %d include edges, %d call edges, %d circles, "
          "%d upward calls" % (len(nodes), sum(len(v) for v in incs.values()),
                              len(calls), len(cyc), len(up)))
    return 1 if cyc else 0


if __name__ == "__main__":
    sys.exit(main())
