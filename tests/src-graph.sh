#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/src-graph.sh [SRC_DIR] OUT_PREFIX [TITLE]: draw src/'s include and
# call graph (tests/src-graph.py) as OUT_PREFIX.dot and OUT_PREFIX.png.
# Exit status 1 when the call graph of the .c files has a circle.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -ge 2 ] && [ -d "$1" ]; then src=$1; shift; else src=$here/../src; fi
[ $# -ge 1 ] || { echo "usage: $0 [SRC_DIR] OUT_PREFIX [TITLE]" >&2; exit 2; }
out=$1 title=${2:-src/}
command -v dot >/dev/null || { apt-get update -qq && apt-get install -y -qq graphviz >/dev/null; }
command -v python3 >/dev/null || { apt-get update -qq && apt-get install -y -qq python3 >/dev/null; }
rc=0
python3 "$here/src-graph.py" --src "$src" --title "$title" "$out.dot" || rc=$?
[ $rc -le 1 ] || exit $rc
dot -Tpng -Gdpi=80 "$out.dot" -o "$out.png"
echo "wrote $out.dot $out.png"
exit $rc
