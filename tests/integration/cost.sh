# shellcheck shell=bash
# The traced program's cost (sourced by run.sh): where the probes go.

# A CET build (every function starts with endbr64): the probes go past it,
# so a call costs what it costs in a function without endbr64, and
# arguments, return values and counts are unchanged.
test_endbr64() {
	echo "# endbr64 (CET builds): probed past it, at the price of a push"
	local d n=20000 line cet plain
	d=$(mktemp -d)
	check "precondition: cet_add starts with endbr64, plain_add with push" \
		test "$(objdump -d "$TGT/cetcalls" | awk '/<cet_add>:/ { getline; print $NF; exit }')$(objdump -d "$TGT/cetcalls" | awk '/<plain_add>:/ { getline; print $(NF-1); exit }')" = "endbr64push"
	(cd "$d" && "$BC" record -q -A off -o cet.er -u cet_add -u plain_add \
		--arg 'cet_add@arg1/d32,arg2/d32,retval/d32' -- "$TGT/cetcalls" $n >cet.out 2>cet.err)
	check_eq "record exits 0, warning about nothing" "0 " "$? $(cat "$d/cet.err")"
	check_eq "every call of cet_add counted" $n "$(calls_of "$d/cet.er" cet_add)"
	check_eq "every call of plain_add counted" $n "$(calls_of "$d/cet.er" plain_add)"
	"$BC" report "$d/cet.er" events >"$d/cet.ev"
	line=$(grep ' entry cet_add ' "$d/cet.ev" | tail -1)
	check_eq "arguments read past endbr64 as passed" "$((n - 1)) 7" \
		"$(field "$line" arg1) $(field "$line" arg2)"
	check_eq "return value of the last call" "$((n - 1 + 7))" \
		"$(field "$(grep ' return cet_add ' "$d/cet.ev" | tail -1)" retval)"
	# what each loop cost, as the program measured it (its fastest of ten
	# rounds): single-stepping endbr64 costs about seven times an emulated push
	read -r cet plain < <(sed -n 's/^cet_ns=\([0-9]*\) plain_ns=\([0-9]*\).*/\1 \2/p' "$d/cet.out")
	check "a traced call of cet_add costs what one of plain_add does (${cet:-?} vs ${plain:-?} ns for $((n / 10)))" \
		test "${cet:-0}" -gt 0 -a "${cet:-0}" -lt $((2 * ${plain:-0}))
	rm -rf "$d"
}

# A system call whose entry has nothing to read is one ring record, written
# at its exit; sinks still see its entry and exit, a call in progress at the
# end still shows its entry, and a record the thread writes inside the call
# (a clone's fork) comes after the call's entry.
test_syscall_records() {
	echo "# one record per system call: the calls whole, entries where calls did not return"
	local d n=2000 ev
	d=$(mktemp -d)
	(cd "$d" && "$BC" record -q -A off -o g.er --syscalls=getppid -- "$TGT/firstinsn" getppid $n >/dev/null 2>g.err)
	check_eq "record --syscalls=getppid exits 0" 0 $?
	# nothing but getppid is recorded: the file's blocks hold N whole calls
	# of 112 bytes, in a fraction of that
	local recs raw bytes
	read -r recs raw bytes < <(compact_sums "$d/g.er/syscalls")
	check_eq "the syscalls file holds $n whole calls (112 bytes each, decoded)" \
		"$n $((n * 112))" "$recs $raw"
	check "encoded in less than a quarter of that ($bytes bytes)" test "$bytes" -lt $((n * 112 / 4))
	"$BC" report "$d/g.er" events >"$d/g.ev"
	check_eq "sinks see $n entries" $n "$(awk '$6 == "sys_enter" && $7 == "getppid"' "$d/g.ev" | wc -l)"
	check_eq "and $n exits" $n "$(awk '$6 == "sys_exit" && $7 == "getppid"' "$d/g.ev" | wc -l)"
	check_eq "each entry right before its exit, sequence numbers one apart" 0 "$(awk '
		$6 == "sys_enter" { e = $4; t = $1; next }
		$6 == "sys_exit" { if ($4 != e + 1 || $1 < t) bad++ }
		END { print bad + 0 }' "$d/g.ev")"
	(cd "$d" && "$BC" convert g.er -f prf-csv -o g.csv 2>/dev/null)
	check_eq "PRF: no gap in any thread's sequence" 0 "$(grep -c ',0x0f00,' "$d/g.csv")"
	# still in a call when the recording ends
	(cd "$d" && "$BC" record -q -A off -o p.er --syscalls -t 0.5 -- sleep 3 >/dev/null 2>&1)
	ev=$("$BC" report "$d/p.er" events | awk '$7 == "clock_nanosleep" { print $6 }' | tr '\n' ' ')
	check_eq "a call in progress at the end: its entry, no exit" "sys_enter " "$ev"
	# rt_sigreturn's exit does not name it (orig_ax is -1 then): each entry still shows
	(cd "$d" && "$BC" record -q -A off -o r.er -u main --syscalls=rt_sigreturn,kill -- \
		bash -c 'trap true USR1; kill -USR1 $$; kill -USR1 $$; kill -USR1 $$' >/dev/null 2>&1)
	check_eq "three signal handlers: three rt_sigreturn entries" 3 \
		"$("$BC" report "$d/r.er" events | awk '$6 == "sys_enter" && $7 == "rt_sigreturn"' | wc -l)"
	# a process killed inside a call: the call returns (interrupted) before it exits
	(cd "$d" && "$BC" record -q -A off -o k.er --syscalls -- sleep 5 >/dev/null 2>&1) &
	local rec=$! pid=""
	for _ in $(seq 50); do
		pid=$(pgrep -n -x sleep -P "$(pgrep -n -x bpfcollect -P $rec 2>/dev/null || echo $rec)" 2>/dev/null)
		[ -n "$pid" ] && break
		sleep 0.1
	done
	sleep 0.3
	[ -n "$pid" ] && kill -KILL "$pid"
	wait $rec
	ev=$("$BC" report "$d/k.er" events | awk '$7 == "clock_nanosleep" || $6 == "exit" { print $6 }' | tr '\n' ' ')
	check_eq "killed inside a call: its entry, its interrupted return, then the exit" \
		"sys_enter sys_exit exit " "$ev"
	check "the process was killed inside it (exit code=9, the call interrupted)" \
		test "$("$BC" report "$d/k.er" events | grep -c ' exit sleep code=9$\| sys_exit clock_nanosleep .*Interrupted by signal')" = 2
	# a clone's fork record comes inside the call: the entry first
	(cd "$d" && "$BC" record -q -A off -o f.er -f er -f prf-csv --syscalls -u 'tgt_*' \
		-- "$TGT/forker" 2 1 >/dev/null 2>&1)
	"$BC" report "$d/f.er" events >"$d/f.ev"
	check_eq "the fork record between its clone's entry and exit, in time and sequence" 0 "$(awk '
		$6 == "sys_enter" && ($7 == "clone" || $7 == "clone3" || $7 == "fork" || $7 == "vfork") { open[$3] = $4; at[$3] = $1; next }
		$6 == "fork" || $6 == "thread" { if (!($3 in open) || $4 <= open[$3] || $1 < at[$3]) bad++ }
		END { print bad + 0 }' "$d/f.ev")"
	# live, records come in the ring's order: the entry must be there before the fork
	check_eq "PRF of the forks, live: no gap in any thread's sequence" 0 "$(grep -c ',0x0f00,' "$d/f.csv")"
	(cd "$d" && "$BC" convert f.er -f prf-csv -o fc.csv 2>/dev/null)
	check_eq "PRF of the forks, converted: the same lines" "$(sort "$d/f.csv" | md5sum)" \
		"$(sort "$d/fc.csv" | md5sum)"
	rm -rf "$d"
}

# Since 6.13 the kernel runs a kprobe-type program's frame of 64 bytes or
# more on a per-CPU stack. A sleepable program that sleeps there (a page
# fault, a first allocation) shares it with the next task to run it on that
# CPU: seen as a thread's capture record sent late, with another thread's
# buffer. bpf-frames prints each program's frames as the verifier sized them.
test_bpf_frames() {
	echo "# BPF: the uprobe programs' frames stay on the task's own stack"
	local out bad
	out=$("$BUILD/tools/bpf-frames" "$BUILD/bpf/collect.o")
	check_eq "bpf-frames loads every program" 0 $?
	check "the capture programs are the sleepable ones, and are there" \
		test "$(awk '$3 == "sleepable" { print $1 }' <<<"$out" | sort | tr '\n' ' ')" = \
		"func_entry_cap func_return_cap "
	bad=$(awk '$2 == "kprobe" && $3 == "sleepable" {
		n = split($4, f, "+")
		for (i = 1; i <= n; i++) if (f[i] !~ /^[0-9]+$/ || f[i] + 0 >= 64) print $1 ":" $4 }' <<<"$out")
	check_eq "every frame of a sleepable uprobe program is below 64 bytes" "" "$bad"
	# non-sleepable ones are preempted only on fully preemptible kernels;
	# their own frames stay below too (ldso_debug_state's mapping walk, a
	# subprogram run once per library load, does not)
	bad=$(awk '$2 == "kprobe" { split($4, f, "+"); if (f[1] !~ /^[0-9]+$/ || f[1] + 0 >= 64) print $1 ":" $4 }' \
		<<<"$out")
	check_eq "every uprobe program's own frame is below 64 bytes" "" "$bad"
}
