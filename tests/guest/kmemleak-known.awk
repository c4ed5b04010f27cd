# SPDX-License-Identifier: GPL-2.0
#
# awk -v kernel=RELEASE -v known=FILE -f kmemleak-known.awk RULES REPORT
# Splits a kmemleak report (/sys/kernel/debug/kmemleak) into the objects
# that match a rule of RULES (kmemleak-known.txt: a kernel release regex,
# then the innermost backtrace frames, innermost first), written to FILE
# with the rule that matched, and all others, printed: those are leaks.
FNR == NR {
	if ($0 ~ /^[ \t]*(#|$)/ || NF < 2)
		next
	nr++
	kre[nr] = $1
	nf[nr] = NF - 1
	for (i = 2; i <= NF; i++)
		fr[nr, i - 1] = $i
	rule[nr] = $0
	next
}
function flush(  r, i, hit) {
	if (rec == "")
		return
	hit = 0
	for (r = 1; r <= nr && !hit; r++) {
		if (kernel !~ kre[r] || nframes < nf[r])
			continue
		hit = r
		for (i = 1; i <= nf[r]; i++)
			if (frame[i] != fr[r, i])
				hit = 0
	}
	if (hit)
		printf "%s  known kernel leak, rule: %s\n", rec, rule[hit] > known
	else
		printf "%s", rec
	rec = ""
}
/^unreferenced object/ {
	flush()
	rec = $0 "\n"
	nframes = 0
	inbt = 0
	next
}
rec != "" {
	rec = rec $0 "\n"
	if ($0 ~ /backtrace/)
		inbt = 1
	else if (inbt && match($0, /\] [^ +]+\+0x/))
		frame[++nframes] = substr($0, RSTART + 2, RLENGTH - 5)
}
END { flush() }
