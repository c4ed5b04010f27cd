# The kernel-log lines that fail a guest run (an extended regex, the one
# line below), for both splat checks: the guest runner's per suite
# (tests/guest/run.sh) and the host's over the whole console (vm/run.sh).
# kmemleak's own "N new suspected memory leaks" line is not in it: the
# runner's kmemleak scan at the end judges the objects, and sets aside
# the kernel's own leaks that kmemleak-known.txt names.
Oops|BUG:|WARNING:|Kernel panic|general protection fault|Call Trace:|possible circular locking|possible recursive locking|inconsistent lock state|lockdep|KASAN:|UBSAN:|unreferenced object|soft lockup|hard LOCKUP|blocked for more than|refcount_t:|list_(add|del) corruption|Poison overwritten
