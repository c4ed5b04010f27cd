# SPDX-License-Identifier: GPL-2.0
#
# awk -f fault-window.awk LOG...: copy a kernel log, minus the "Call Trace:"
# and stack-frame lines inside fault-injection windows, for the splat
# checks of tests/guest/run.sh and vm/run.sh.
#
# A suite that makes allocations fail on purpose (suite 32's module loads
# with /proc/thread-self/fail-nth) opens a window with fi_window_begin and
# closes it with fi_window_end (tests/guest/ktap-lib.sh).  Inside it the
# kernel's own allocation-failure reports (warn_alloc's "page allocation
# failure", "vmalloc error", percpu's "allocation failed") dump the stack;
# those dumps are the expected result of the injection.  The benchmark
# (tests/bench/guest.sh row_window) opens one around each row of a rival
# configuration (zswap, zram, disk), whose allocation failures are its
# result, listed in the report, not a defect of zcache.  Only their
# "Call Trace:" line and their frames ("  ? func+0x17c/0x230 [mod]") are
# dropped: on a lockdep kernel a frame can name lockdep_* functions, which
# the splat pattern would take for a report (2026-12-06).  Every real
# report inside the window (KASAN, lockdep, BUG, Oops, WARNING, a lockup)
# still has its own header line that the splat pattern matches.
/zc-fault-window: begin/ { inwin = 1 }
/zc-fault-window: end/ { inwin = 0 }
inwin && /Call Trace:/ { next }
inwin && /^\[ *[0-9.]+\][ \t]+(\? )?[A-Za-z_.][A-Za-z0-9_.]*\+0x[0-9a-f]+\/0x[0-9a-f]+( \[[^]]+\])?[ \t\r]*$/ { next }
{ print }
