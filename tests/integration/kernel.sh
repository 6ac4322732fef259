# Kernel experiments (-k), system-wide tracing (-a), off-CPU intervals, for
# tests/integration/run.sh: sourced there. Uses run.sh's helpers: check,
# check_eq, gprofng_ok, expect_error, calls_of, $BC, $TGT.
#
# tests/targets/offcpu MS sleeps 3 x MS in nanosleep, blocks in read() on a
# pipe until a thread writes to it 2 x MS later, then spins MS of CPU, and
# prints what each phase took, measured around the calls, and its CPU time.
#
# Tolerances. nanosleep never returns early and a blocked read cannot end
# before the write, so the time off CPU in each is at least what the target
# asked for; it is at most what the target measured around the call (the
# interval lies inside it), plus 2 ms for the clock reads on either side.
# The CPU time of a process born and ended while recording is the kernel's
# own count from its exit: at least the target's measurement just before it
# printed, at most 30 ms more (printf, exit, a noisy VM's accounting).

# The intervals `report events` shows of one thread: "SYSCALL KIND NS" lines.
offcpu_lines() { # offcpu_lines EXP TID
	"$BC" report "$1" events | awk -v tid="$2" '
	$3 == tid && $6 == "offcpu" {
		sys = "(user)"; off = 0
		for (i = 8; i <= NF; i++) {
			if ($i ~ /^off=/) off = substr($i, 5)
			if ($i ~ /^syscall=/) sys = substr($i, 9)
		}
		print sys, $7, off
	}'
}

# Milliseconds a thread spent blocked in a syscall.
blocked_ms() { # blocked_ms LINES SYSCALL
	awk -v s="$2" '$1 == s && $2 == "blocked" { t += $3 } END { printf "%.1f", t / 1e6 }' <<<"$1"
}

# between X LO HI: LO <= X <= HI (numbers)
between() { awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(x >= lo && x <= hi) }'; }

test_kernel() {
	echo "# -k: a kernel experiment of a target that sleeps, blocks on a pipe and spins"
	local d
	d=$(mktemp -d)
	(cd "$d" && "$BC" record -q -k --syscalls -u 'tgt_*' -- "$TGT/offcpu" 100 >k.out 2>k.err)
	check_eq "record -k exits 0" 0 $?
	local k="$d/ktest.1.er" pid wtid
	check "named ktest.1.er" test -d "$k"
	pid=$(awk '$1 == "pid" { print $2 }' "$d/k.out")
	wtid=$(awk '$1 == "writer_tid" { print $2 }' "$d/k.out")
	check "the process has its subexperiment _offcpu_PID_$pid.1.er" test -d "$k/_offcpu_PID_$pid.1.er"
	check "the kernel experiment opens in gprofng" gprofng_ok "$k"
	check_eq "gprofng lists the kernel (pid 0) and the process" "0 $pid" \
		"$(gprofng display text -exp_list "$k" 2>/dev/null | awk '$2 == "yes" { printf "%s%s", (n++ ? " " : ""), $3 }')"
	check_eq "the process's calls: 3 tgt_sleep" 3 "$(calls_of "$k" tgt_sleep)"
	check_eq "1 tgt_pipe_wait" 1 "$(calls_of "$k" tgt_pipe_wait)"
	check_eq "1 tgt_spin" 1 "$(calls_of "$k" tgt_spin)"

	local main writer sleep_ms pipe_ms got
	main=$(offcpu_lines "$k" "$pid")
	writer=$(offcpu_lines "$k" "$wtid")
	sleep_ms=$(awk '$1 == "sleep_ms" { print $2 }' "$d/k.out")
	pipe_ms=$(awk '$1 == "pipe_ms" { print $2 }' "$d/k.out")
	got=$(blocked_ms "$main" clock_nanosleep)
	check "main thread blocked in clock_nanosleep $got ms: >= 300, <= the $sleep_ms ms measured" \
		between "$got" 300 "$((sleep_ms + 2))"
	got=$(blocked_ms "$main" read)
	check "main thread blocked in read $got ms: >= 190, <= the $pipe_ms ms measured" \
		between "$got" 190 "$((pipe_ms + 2))"
	got=$(blocked_ms "$writer" clock_nanosleep)
	check "the writer thread blocked in clock_nanosleep $got ms: >= 200" between "$got" 200 400
	check "the sleeps are voluntary switches, with a user stack" \
		grep -qE "^[0-9.]+ $pid $pid .* offcpu blocked .*state=S .*frames=[1-9].*syscall=clock_nanosleep" \
		<("$BC" report "$k" events)

	local row cpu_ms cpu
	"$BC" report "$k" >"$d/k.txt"
	row=$(awk -v p="$pid" '$1 == p' "$d/k.txt")
	check "report opens a kernel experiment with its processes" grep -q "^Processes (" "$d/k.txt"
	check_eq "the process row: 2 threads, exit 0" "offcpu 2 exit 0" \
		"$(awk '{ print $2, $3, $(NF-1), $NF }' <<<"$row")"
	cpu_ms=$(awk '$1 == "cpu_ms" { print $2 }' "$d/k.out")
	cpu=$(awk '{ print $4 * 1000 }' <<<"$row")
	check "its CPU $cpu ms: the $cpu_ms ms it measured, to 30 ms" between "$cpu" "$cpu_ms" "$((cpu_ms + 30))"
	check "off CPU at least the 3 sleeps, the read and the writer's sleep (0.7 s)" \
		between "$(awk '{ print $5 }' <<<"$row")" 0.69 5
	check "at least 5 voluntary switches" between "$(awk '{ print $8 }' <<<"$row")" 5 100000
	check "the syscalls are in the kernel experiment" grep -qE "clock_nanosleep" "$d/k.txt"
	"$BC" report "$k" offcpu >"$d/off.txt"
	check_eq "report offcpu: the same total off CPU as procs" "$(awk '{ print $5 }' <<<"$row")" \
		"$(awk '$NF == "<Total>" { print $1 }' "$d/off.txt")"
	check "blocked in read: the main thread's $pipe_ms ms, to the same bounds" between \
		"$(awk '$1 == "read" { print $3 * 1000 }' "$d/off.txt")" 190 "$((pipe_ms + 2))"
	check "by function: the writer thread's 200 ms sleep inside writer()" between \
		"$(awk '$NF == "writer" { print $5 * 1000 }' "$d/off.txt")" 200 400
	check "by function: read in libc holds the pipe wait, exclusively" between \
		"$(awk '$NF == "read" && $(NF-1) == "libc.so.6" { print $1 * 1000 }' "$d/off.txt")" 190 \
		"$((pipe_ms + 2))"
	check "gprofng: the process's subexperiment holds its Sleep as clock data" \
		in_range "$(gp_metric "$k" e.sleep clock_nanosleep)" 0.49 0.6
	check "and the founder none: no time counted twice" \
		bash -c "! grep -q '<profile name=\"profile\"' '$k/log.xml'"
	"$BC" report "$k" --pid "$pid" procs functions >"$d/kp.txt"
	check_eq "--pid descends into the process: one row" 1 "$(grep -c '^ *[0-9]\+  offcpu ' "$d/kp.txt")"
	check "and its functions" grep -q "tgt_pipe_wait" "$d/kp.txt"
	expect_error "--pid of a process not in the experiment" "no record of process 999999" \
		"$BC" report "$k" --pid 999999 procs
	expect_error "procs of an experiment without kernel-side records" "no process records" \
		"$BC" report "$k/_offcpu_PID_$pid.1.er" procs

	echo "# -k -P: a running process, named from /proc"
	"$TGT/offcpu" 300 >"$d/kp.out" &
	local tp=$!
	sleep 0.2
	# 1 s holds a whole interval wherever the attach lands in the target's first 0.9 s:
	# its 300 ms sleeps, or the 600 ms pipe wait after them
	"$BC" record -q -k -t 1 -P "$tp" -o "$d/kp.er" >/dev/null 2>"$d/kp.err"
	check_eq "record -k -P -t exits 0" 0 $?
	wait "$tp"
	check "the attached process has its row, named from /proc" \
		grep -qE "^ *$tp +offcpu " <("$BC" report "$d/kp.er" procs)
	check "and its off-CPU intervals" grep -q " $tp $tp .* offcpu blocked" <("$BC" report "$d/kp.er" events)
	rm -rf "$d"
}

test_system_wide() {
	echo "# -a: every process, uprobes in every process mapping the object"
	local d
	d=$(mktemp -d)
	"$BC" record -a -t 2 -p on -u "$TGT/offcpu:tgt_*" -o "$d/sys.er" >/dev/null 2>"$d/sys.err" &
	local agent=$!
	# Start the target once every probe is in place.
	for _ in $(seq 100); do grep -q "tracing every process" "$d/sys.err" && break; sleep 0.1; done
	"$TGT/offcpu" 50 >"$d/t.out"
	wait "$agent"
	check_eq "record -a -t 2 exits 0" 0 $?
	local pid s
	pid=$(awk '$1 == "pid" { print $2 }' "$d/t.out")
	s=$(ls -d "$d/sys.er/_offcpu_PID_$pid".*.er 2>/dev/null | head -1)
	check "the target has its subexperiment _offcpu_PID_$pid.1.er" test -n "$s"
	check_eq "exact counts in it: 3 tgt_sleep" 3 "$(calls_of "$s" tgt_sleep)"
	check_eq "1 tgt_pipe_wait" 1 "$(calls_of "$s" tgt_pipe_wait)"
	check_eq "1 tgt_spin" 1 "$(calls_of "$s" tgt_spin)"
	check "the kernel experiment opens in gprofng" gprofng_ok "$d/sys.er"
	check "-p: the target's spin is in the system-wide profile" \
		grep -qE " offcpu +tgt_spin$" <("$BC" report "$d/sys.er" profile)
	"$BC" report "$d/sys.er" events >"$d/ev.txt"
	check_eq "the agent ($agent) is absent from the records" 0 \
		"$(awk -v a="$agent" '$2 == a' "$d/ev.txt" | wc -l)"
	check "other processes are there too (kernel threads, shells)" \
		test "$(awk '{ print $2 }' "$d/ev.txt" | sort -u | wc -l)" -gt 2
	check "processes that ran before are named from /proc" grep -q " process " "$d/ev.txt"
	check "the target's exit is recorded" grep -qE "^[0-9.]+ $pid [0-9]+ .* exit offcpu" "$d/ev.txt"
	local s_ok=yes e
	for e in "$d/sys.er"/_*.er; do
		[ -s "$e/functrace" ] || [ -s "$e/profile" ] || s_ok="$e has no user-level records"
	done
	check_eq "a subexperiment only for processes with user-level records (calls, samples)" \
		yes "$s_ok"
	# A process whose fork and exec records were lost (a full ring) and that
	# ended before anything else named it can only be _unknown_PID_N.
	local proc_lost
	proc_lost=$(awk '$6 == "lost" && $7 == "proc" { split($8, a, "="); n += a[2] } END { print n + 0 }' "$d/ev.txt")
	if [ "$proc_lost" -eq 0 ]; then
		check_eq "every one named from the records, none _unknown" "" \
			"$(cd "$d/sys.er" && ls -d _unknown* 2>/dev/null)"
	else
		echo "# $proc_lost process records lost: unnamed subexperiments allowed"
	fi
	# Kernel symbols are read once: the founder holds them all; each subexperiment keeps only
	# those its samples hit, so gprofng opens it in milliseconds, and names the same functions.
	local subset=ok k
	for k in "$d/sys.er"/_*.er/kallmodsyms; do
		[ "$(stat -c %s "$k")" -lt "$(stat -c %s "$d/sys.er/kallmodsyms")" ] || subset="$k is not smaller"
		[ -z "$(comm -23 <(sort "$k") <(sort "$d/sys.er/kallmodsyms"))" ] || subset="$k has lines of its own"
	done
	check_eq "each subexperiment's kallmodsyms is a part of the founder's" ok "$subset"
	# Archives of a system-wide recording: only objects a stack or probe hit.
	check "archives: the target's executable is copied (its probes and samples hit it)" \
		test -n "$(ls "$d/sys.er/archives" | grep '^offcpu_' | grep -v bcsyms)"
	local left mapped archived
	left=$(sed -n 's/^bpfcollect: archives: .*; \([0-9]*\) mapped but never hit.*/\1/p' "$d/sys.err")
	mapped=$(cat "$d/sys.er/map.xml" "$d/sys.er"/_*.er/map.xml |
		grep -o 'modes="0x005" chksum="0x0" name="[^"[<][^"]*"' | grep -v '"LinuxKernel"' |
		sort -u | wc -l)
	archived=$(ls "$d/sys.er/archives" | grep -vc '\.bcsyms\.gz$')
	check_eq "archives: each of the $mapped objects mapped is copied or counted as never hit" \
		"$mapped" "$((archived + ${left:-0}))"
	check "and some (${left:-0}) were never hit, so not copied" test "${left:-0}" -gt 0
	rm -rf "$d/whole.er" && cp -r "$s" "$d/whole.er" && rm "$d/whole.er/kallmodsyms"
	ln "$d/sys.er/kallmodsyms" "$d/whole.er/kallmodsyms"
	check_eq "gprofng names the target's functions alike with its part and with the whole table" \
		"$(gprofng display text -functions "$s" 2>&1 | grep -v "$s" | md5sum)" \
		"$(gprofng display text -functions "$d/whole.er" 2>&1 | grep -v "$d/whole.er" | md5sum)"
	# The sinks read nothing of /proc: what the agent read is in the records, so the
	# experiment converted is the one recorded, every process named and mapped alike.
	"$BC" convert "$d/sys.er" -f er -o "$d/conv.er" 2>/dev/null
	check_eq "convert -f er of a system-wide experiment exits 0" 0 $?
	local same=ok sub f
	for sub in "" $(cd "$d/sys.er" && ls -d _*.er); do
		for f in log.xml map.xml overview; do
			[ -e "$d/sys.er/$sub/$f" ] || continue
			cmp -s "$d/sys.er/$sub/$f" "$d/conv.er/$sub/$f" || same="${sub:-founder} $f differs"
		done
	done
	check_eq "and gives it back: log.xml, map.xml, overview byte for byte, every process" ok "$same"

	echo "# -a: bad input"
	expect_error "-a with a GLOB matching nothing" "no function matches 'no_such_fn\*'" \
		"$BC" record -a -t 1 -u "$TGT/offcpu:no_such_fn*" -o "$d/bad.er"
	expect_error "-a with a library that does not exist" "no library named 'libnosuch'" \
		"$BC" record -a -t 1 -u "libnosuch:f" -o "$d/bad.er"
	expect_error "-a needs OBJ:GLOB" "with -a, name the object too" \
		"$BC" record -a -t 1 -u "tgt_sleep" -o "$d/bad.er"
	expect_error "-a and a command" "give -a, -P PID or a command" \
		"$BC" record -a -- true
	expect_error "more functions than --max-probes" "more than the limit of 2 probes" \
		"$BC" record --max-probes=2 -u 'tgt_*' -o "$d/bad.er" -- "$TGT/offcpu" 1
	check "no experiment left behind by refused recordings" test ! -e "$d/bad.er"
	rm -rf "$d"
}

test_pid_reuse() {
	echo "# a pid used twice: two processes, each with its own experiment and its own calls"
	local d
	d=$(mktemp -d)
	(cd "$d" && "$BC" record -q -o r.er -u 'tgt_*' -- "$TGT/pidreuse" >r.out 2>r.err)
	check_eq "record of the pid-reusing target exits 0" 0 $?
	local pid fa fb
	read -r _ pid _ fa _ fb <"$d/r.out"
	check "the target got pid $pid twice (forks $fa and $fb)" test -n "$fb"
	check_eq "_f$fa.er, the first process $pid: 3 tgt_first" 3 "$(calls_of "$d/r.er/_f$fa.er" tgt_first)"
	check_eq "and no tgt_second" 0 "$(calls_of "$d/r.er/_f$fa.er" tgt_second)"
	check_eq "_f$fb.er, the second process $pid: 5 tgt_second" 5 "$(calls_of "$d/r.er/_f$fb.er" tgt_second)"
	check_eq "and no tgt_first" 0 "$(calls_of "$d/r.er/_f$fb.er" tgt_first)"
	check_eq "report procs: pid $pid on two rows" 2 \
		"$("$BC" report "$d/r.er" procs | awk -v p="$pid" '$1 == p' | wc -l)"
	check "the header says a pid was reused" \
		bash -c "\"$BC\" report '$d/r.er' | grep -q 'took the pid of one that had exited'"

	(cd "$d" && "$BC" record -q -k -u 'tgt_*' -- "$TGT/pidreuse" >k.out 2>k.err)
	check_eq "record -k of it exits 0" 0 $?
	read -r _ pid _ _ _ _ <"$d/k.out"
	local k="$d/ktest.1.er"
	check_eq "-k: _pidreuse_PID_$pid.1.er, the first: 3 tgt_first" 3 \
		"$(calls_of "$k/_pidreuse_PID_$pid.1.er" tgt_first)"
	check_eq "-k: _pidreuse_PID_$pid.2.er, the second: 5 tgt_second" 5 \
		"$(calls_of "$k/_pidreuse_PID_$pid.2.er" tgt_second)"
	check_eq "and each has only its own calls" "0 0" \
		"$(calls_of "$k/_pidreuse_PID_$pid.1.er" tgt_second) $(calls_of "$k/_pidreuse_PID_$pid.2.er" tgt_first)"
	check "the kernel experiment opens in gprofng" gprofng_ok "$k"
	rm -rf "$d"
}

# Names of the BPF programs loaded now (the recording running is the only one: tests run in turn).
loaded_progs() {
	bpftool prog show 2>/dev/null | awk '$3 == "name" { print $4 }' | sort -u | tr '\n' ' '
}

# Runs record ARGS... on a target that takes about a second; prints the programs loaded meanwhile.
progs_during() {
	local rp seen=
	# the programs of a recording that just ended are freed a moment after it exits
	for _ in $(seq 100); do
		[[ " $(loaded_progs) " == *" proc_fork "* ]] || break
		sleep 0.05
	done
	"$BC" record -q -o "$1" "${@:2}" -u 'tgt_*' -- "$TGT/offcpu" 100 >/dev/null 2>&1 &
	rp=$!
	# the command execs once every program is loaded and attached (10 s: a TCG guest is slow)
	for _ in $(seq 200); do
		pgrep -x offcpu -P $rp >/dev/null && break
		sleep 0.05
	done
	seen=$(loaded_progs)
	wait $rp
	echo "$seen"
}

test_needed_programs() {
	echo "# programs a recording does not need are neither loaded nor attached"
	local d p
	d=$(mktemp -d)
	p=$(progs_during "$d/a.er")
	check "a launched command with -u: its probes and the process programs ($p)" \
		bash -c "[[ ' $p ' == *' func_entry '* && ' $p ' == *' proc_fork '* ]]"
	check "no program on any syscall, so untraced processes pay nothing per syscall" \
		bash -c "! grep -qwE 'maps_exit|sys_exit|sys_enter|io_sys_enter|io_sys_exit|sched_switch' <<<'$p'"
	check "the dynamic linker's hook follows the libraries of the traced tree" \
		bash -c "[[ ' $p ' == *' ldso_debug_state '* ]]"
	check_eq "map.xml has libc, loaded after exec" 1 \
		"$(grep -c 'modes="0x005".*name="[^"]*/libc.so.6"' "$d/a.er/map.xml")"
	# The hook's breakpoint is in the traced tree only: a program that runs translated
	# code (valgrind) reads any breakpoint in its ld.so as its own, and dies of SIGTRAP.
	"$BC" record -q -o "$d/v.er" -u 'tgt_*' -- "$TGT/offcpu" 100 >/dev/null 2>&1 &
	local rp=$! vg=0
	sleep 0.3
	for _ in 1 2 3; do valgrind -q /bin/true && vg=$((vg + 1)); done
	wait $rp
	check_eq "valgrind runs beside a recording: 3 of 3" 3 "$vg"
	p=$(progs_during "$d/b.er" --syscalls)
	check "--syscalls: sys_enter and sys_exit ($p)" \
		bash -c "[[ ' $p ' == *' sys_enter '* && ' $p ' == *' sys_exit '* ]]"
	check_eq "map.xml has libc alike" 1 \
		"$(grep -c 'modes="0x005".*name="[^"]*/libc.so.6"' "$d/b.er/map.xml")"
	check_eq "of the same size" \
		"$(grep -o 'vaddr="[^"]*" size="[^"]*".*libc.so.6' "$d/a.er/map.xml" | cut -d' ' -f2)" \
		"$(grep -o 'vaddr="[^"]*" size="[^"]*".*libc.so.6' "$d/b.er/map.xml" | cut -d' ' -f2)"
	p=$(progs_during "$d/c.er" --offcpu)
	check "--offcpu: the scheduler programs" bash -c "[[ ' $p ' == *' sched_switch '* ]]"
	mkdir -p "$d/tracefs"
	check "and no uprobe event of ours is left in tracefs" unshare -m sh -c \
		"mount -t tracefs tracefs '$d/tracefs' && test -e '$d/tracefs/uprobe_events' &&
		! grep -q bpfcollect_ '$d/tracefs/uprobe_events'"
	rm -rf "$d"
}
