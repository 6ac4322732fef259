# Clock profiling (-p), for tests/integration/run.sh: sourced there. Uses
# run.sh's helpers: check, check_eq, gprofng_ok, expect_error, $BC, $TGT.
#
# tests/targets/cpu burns a known amount of CPU in a known call tree and
# prints what getrusage measured. Tolerance for "within sampling error": each
# sample stands for one period of CPU (10 ms); a 1 s run has ~100 samples,
# and the first and last periods of each thread, timer slack and the
# agent's own start make a few samples' difference: 10% and 30 ms.

# within A B: |A - B| <= 10% of B + 0.03 (seconds)
within() {
	awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 0.1 * b + 0.03) }'
}

# The function list as "EXCL NAME" lines, sorted: ours, and gprofng's.
profile_ours() { "$BC" report "$1" profile -n 100000 | awk 'NR > 4 { print $1, $NF }' | sort; }
profile_gprofng() {
	gprofng display text -metrics e.totalcpu:name -functions "$1" 2>/dev/null |
		awk '/^ *[0-9.]+ / { v = $1; if (v == "0.") v = "0.000"; print v, $2 }' | sort
}

# utime + stime of a process, in clock ticks (/proc/PID/stat fields 14 and 15).
cpu_ticks() { awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"; }

test_profile() {
	echo "# -p on: a CPU-bound target with a known call tree"
	"$BC" record -q -o prof.er -p on -u tgt_compute -- "$TGT/cpu" 1 >prof.out 2>prof.err
	check_eq "record -p exits 0" 0 $?
	check "the experiment opens in gprofng" gprofng_ok prof.er
	"$BC" report prof.er profile >prof.txt
	local ours_total theirs_total measured
	ours_total=$(awk '$NF == "<Total>" { print $1 }' prof.txt)
	measured=$(awk '$1 == "total" { print $2 }' prof.out)
	check "total CPU ($ours_total s) within sampling error of what the target used ($measured s)" \
		within "$ours_total" "$measured"
	theirs_total=$(gprofng display text -metrics e.totalcpu:name -functions prof.er 2>/dev/null |
		awk '$2 == "<Total>" { print $1 }')
	check_eq "gprofng's total CPU is ours" "$ours_total" "$theirs_total"
	check_eq "gprofng's function list is ours, function by function" "" \
		"$(diff <(profile_ours prof.er) <(profile_gprofng prof.er))"
	check_eq "the top two functions: tgt_spin_a, then tgt_spin_b" "tgt_spin_a tgt_spin_b" \
		"$(awk 'NR > 5 && NR <= 7 { printf "%s%s", (NR > 6 ? " " : ""), $NF }' prof.txt)"
	# Stacks come from frame pointers: a leaf without a frame (tgt_spin_a)
	# hides its immediate caller, as in perf; main holds it all the same.
	local a m
	a=$(awk '$NF == "tgt_spin_a" { print $5 }' prof.txt)
	m=$(awk '$NF == "main" { print $5 }' prof.txt)
	check "main's inclusive CPU ($m) holds tgt_spin_a's ($a)" \
		awk -v a="$a" -v m="$m" 'BEGIN { exit !(a > 0 && m >= a) }'
	check "user CPU within sampling error of the target's" within \
		"$(awk '$NF == "<Total>" { print $3 }' prof.txt)" "$(awk '$1 == "user" { print $2 }' prof.out)"
	# The leaf is wherever the sample fell in the syscall (getppid's own function,
	# or, on a paravirtualized guest, the hypervisor's irq-enable hook): the
	# path above it, the kernel's syscall entry, holds the getppid loop's time.
	check "system CPU from the getppid loop, with kernel frames up to the syscall entry" \
		awk '$(NF-1) == "vmlinux" && $NF == "vmlinux`do_syscall_64" && $5 > 0 { ok = 1 } END { exit !ok }' prof.txt
	check "kernel functions resolve through kallmodsyms" test -s prof.er/kallmodsyms

	echo "# -p on -P: profile a process that is already running"
	"$TGT/cpu" 4 >pp.out 2>&1 &
	local tp=$!
	sleep 0.3
	local cpu0 cpu1 sampled
	cpu0=$(cpu_ticks $tp)
	"$BC" record -q -o pp.er -p on -t 1 -P $tp >/dev/null 2>pp.err
	check_eq "record -p -P -t 1 exits 0" 0 $?
	cpu1=$(cpu_ticks $tp)
	# The samples cover the 1 s window, inside the whole command's run: no more
	# CPU than the target used meanwhile (its /proc ticks, 10 ms each, + one),
	# and, CPU-bound on 2 CPUs, at least half a second even on a busy machine.
	sampled=$("$BC" report pp.er profile | awk '$NF == "<Total>" { print $1 }')
	check "samples for the window: $sampled s, at most the $(((cpu1 - cpu0) * 10)) ms it used" \
		awk -v s="$sampled" -v t="$((cpu1 - cpu0))" 'BEGIN { exit !(s >= 0.5 && s <= t / 100 + 0.02) }'
	check "the running target's functions" grep -q tgt_spin_a <("$BC" report pp.er profile)
	check "opens in gprofng" gprofng_ok pp.er
	wait $tp

	expect_error "-p with a bad rate" "-p takes on, lo, hi" "$BC" record -q -p fast -- /bin/true
	small_exp noprof.er
	expect_error "report profile of an experiment without one" "no clock profile" \
		"$BC" report noprof.er profile
}
