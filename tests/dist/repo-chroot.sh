#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/dist/repo-chroot.sh [SUITE]: the repository of tests/dist/repo.sh
# ($ZC_CACHE/repo) used the way apt uses it, at native speed, in a
# throw-away chroot of SUITE (default bookworm): apt's only source is the
# signed 0.1.0 snapshot (signed-by= its key); `apt-get install
# zcache-dkms zcache-utils` by name (DKMS builds 0.1.0); the source moves to
# the current snapshot; `apt-get upgrade`: DKMS has only the new version,
# installed for the chroot's kernel; a repository whose InRelease was
# changed after signing is refused by apt.  Transcript on stdout, exit 1 on a
# mismatch.  The guest side (module reload, service, admin edits) is
# guest-upgrade.sh.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/vm/lib.sh"
suite=${1:-bookworm}
repo=${ZC_REPO:-$ZC_CACHE/repo}
[ -f "$repo/current" ] || zc_die "no repository in $repo (tests/dist/repo.sh)"
w=$ZC_CACHE/work/repo-chroot; zc_rm_tree "$w"; mkdir -p "$w"
cat >"$w/inner.sh" <<'EOS'
#!/bin/bash
set -u
export DEBIAN_FRONTEND=noninteractive
K=/usr/share/keyrings/zcache-archive-keyring.gpg
install -D -m 644 /repo/zcache-archive-keyring.gpg $K
cur=$(cat /repo/current)
src() { rm -f /etc/apt/sources.list /etc/apt/sources.list.d/*; echo "deb [signed-by=$K] file:/repo/$1 bookworm main" >/etc/apt/sources.list.d/zcache.list; }
bad=0
say() { echo; echo "### $*"; }
src 0.1.0
say "apt-get update (0.1.0 snapshot)"; apt-get update 2>&1 | grep -v '^W: Download is performed unsandboxed'
say "apt-get install zcache-dkms zcache-utils"
apt-get install -y -q --no-install-recommends zcache-dkms zcache-utils >/tmp/i.log 2>&1 || { tail -n 30 /tmp/i.log; bad=1; }
grep -E '^(Setting up|Get:)' /tmp/i.log
dkms status zcache; v=$(dpkg-query -W -f='${Version}' zcache-dkms); echo "zcache-dkms $v"
[ "$v" = 0.1.0 ] && dkms status zcache | grep -q 'zcache/0.1.0.*installed' || bad=1
src "$cur"
say "apt-get update ($cur snapshot)"; apt-get update 2>&1 | grep -v '^W: Download is performed unsandboxed'
say "apt-get upgrade"
apt-get upgrade -y -q >/tmp/u.log 2>&1 || { tail -n 30 /tmp/u.log; bad=1; }
grep -E '^(The following|  zcache|Setting up|Unpacking|Removing|Deleting|Building|Installing)' /tmp/u.log | head -30
st=$(dkms status zcache); echo "$st"
echo "zcache-dkms $(dpkg-query -W -f='${Version}' zcache-dkms), zcache-utils $(dpkg-query -W -f='${Version}' zcache-utils)"
printf '%s' "$st" | grep -q "zcache/$cur.*installed" && ! printf '%s' "$st" | grep -q 'zcache/0.1.0' || bad=1
[ ! -d /usr/src/zcache-0.1.0 ] || { echo "/usr/src/zcache-0.1.0 left"; bad=1; }
say "a tampered InRelease (Description changed after signing) is refused"
mkdir -p /tmp/evil && cp -a "/repo/$cur/." /tmp/evil/
sed -i 's/^Description: .*/Description: tampered/' /tmp/evil/dists/bookworm/InRelease
echo "deb [signed-by=$K] file:/tmp/evil bookworm main" >/etc/apt/sources.list.d/zcache.list
out=$(apt-get update 2>&1); echo "$out" | grep -E '^(E|W): ' | grep -v unsandboxed
echo "$out" | grep -q -E 'BADSIG|NOSPLIT|not signed|is not signed|invalid|Clearsigned' || bad=1
exit $bad
EOS
rootfs=$("$top/vm/rootfs.sh" "$suite")
rc=0
"$top/vm/chroot.sh" --bind "$w:/zc" --bind "$repo:/repo" "$rootfs" -- bash /zc/inner.sh || rc=$?
zc_rm_tree "$w"
[ $rc = 0 ] && echo "repo-chroot: install by name, upgrade and signature check as expected" || echo "repo-chroot: FAILED"
exit $rc
