#!/usr/bin/env bash
# What a traced call costs the traced program, by the function's first
# instruction, against the floor and the peers, side by side.
#
#   tools/bench-cost.sh BUILD_DIR        (run by `make bench`)
#
# BUILD_DIR/tests/targets/firstinsn KIND N calls fi_KIND N times and prints
# the time of that loop alone. KIND is the function's first instruction:
# push (emulated by the kernel), nop5 (emulated; what -pg -mnop-mcount and
# patchable entries leave), endbr (endbr64, then push: every function of a
# CET build), sub (sub $8,%rsp: single-stepped, as most first instructions
# of leaf functions are). Each runs untraced and under:
#   floor       BUILD_DIR/tools/floor: one 32-byte ring record per entry and
#               per return, no wakeup, nothing else (tools/floor/floor.bpf.c)
#   bpfcollect  record -A off -u firstinsn:fi_KIND
#   sites       the same with --return-probes=sites: the return seen by a
#               probe on the function's ret (single-stepped by the kernel)
#               instead of a uretprobe; what C++ and Go code gets
#   bpftrace    entries and returns counted in two maps
#   perf        perf record of uprobe entry and return trace events (made
#               in tracefs, mounted for the run when it is not)
# BENCH_RUNS (default 5) runs, interleaved; the table shows medians, per
# call (entry + return): the traced loop minus the untraced one, over N.
# x_floor is bpfcollect against the floor; the last line is bpfcollect on
# endbr against bpfcollect on push. Every run's counts are checked against
# N: a run that missed calls is reported, not averaged.
#
# A second table does the same for a system call (getppid): the floor then
# writes one record per call at its exit, floor-timed the same with the
# call's entry time (kept by an entry hook); bpfcollect runs
# --syscalls=getppid. x_floor compares the overheads with the floor's,
# x_total what a call costs in all.
#
# Then, with uftrace installed, a -pg build of one function traced by
# uftrace (in the process, through mcount) and by bpfcollect (uprobes).
#
# Last, the bytes bpfcollect's experiment holds per function event (its
# functrace file over 2N) and per system call (its syscalls file over N),
# and the agent's own CPU per million events (attached by -P to a program
# that waits for it, so GNU time counts the agent alone).
#
# Environment: BENCH_RUNS, BENCH_COST_CALLS (N, default 200000).
# A measurement, not a test: it exits non-zero only when it cannot measure.
set -u

die() {
	echo "bench-cost: $*" >&2
	exit 1
}

[ $# -eq 1 ] || {
	echo "usage: $0 BUILD_DIR" >&2
	exit 2
}
build_dir=$(cd "$1" && pwd) || die "no build directory $1"
runs=${BENCH_RUNS:-5}
n=${BENCH_COST_CALLS:-200000}
bc=$build_dir/bpfcollect
floor=$build_dir/tools/floor
tgt=$build_dir/tests/targets/firstinsn
for f in "$bc" "$floor" "$tgt"; do
	[ -x "$f" ] || die "$f missing: make bench builds it"
done
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "BENCH_RUNS must be a positive integer"
[[ $n =~ ^[1-9][0-9]*$ ]] || die "BENCH_COST_CALLS must be a positive integer"

tmp=$(mktemp -d /tmp/bench-cost.XXXXXX) || die "cannot make a scratch directory"
mounted_tracefs=
cleanup() {
	local e
	# only the events this script made (bcbench/...), whatever else is there
	for e in $made_events; do
		echo "-:bcbench/$e" >>/sys/kernel/tracing/uprobe_events
	done 2>/dev/null
	[ -n "$mounted_tracefs" ] && umount /sys/kernel/tracing 2>/dev/null
	rm -rf "$tmp"
}
perf_ok=
made_events=
trap cleanup EXIT

kinds="push nop5 endbr sub"
tracers="floor bpfcollect sites"
command -v bpftrace >/dev/null && tracers+=" bpftrace"
# perf's uprobes are trace events: they need tracefs
if command -v perf >/dev/null; then
	if [ ! -e /sys/kernel/tracing/uprobe_events ] &&
		mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null; then
		mounted_tracefs=1
	fi
	# the probes by offset (perf probe wants debug info these assembly functions lack)
	perf_ok=1
	for k in $kinds; do
		off=$("$floor" --offset "$tgt" "fi_$k") &&
			echo "p:bcbench/fi_$k $tgt:$off" >>/sys/kernel/tracing/uprobe_events &&
			made_events+=" fi_$k" &&
			echo "r:bcbench/fi_${k}_ret $tgt:$off" >>/sys/kernel/tracing/uprobe_events &&
			made_events+=" fi_${k}_ret" || perf_ok=
	done 2>/dev/null
	if [ -n "$perf_ok" ]; then
		tracers+=" perf"
	else
		echo "bench-cost: no uprobe events in tracefs here: no perf row"
	fi
fi

# run_one KIND TRACER: prints the loop's ns, or "-" when the counts were wrong
run_one() {
	local k=$1 t=$2 d=$tmp/run out ns ok=1
	rm -rf "$d" && mkdir -p "$d"
	case $t in
	untraced) out=$("$tgt" "$k" "$n") ;;
	floor)
		out=$("$floor" "$tgt" "fi_$k" -- "$tgt" "$k" "$n" 2>"$d/err")
		grep -q "entries=$n returns=$n lost=0" "$d/err" || ok=
		;;
	bpfcollect)
		out=$(cd "$d" && "$bc" record -q -A off -o b.er -u "$tgt:fi_$k" -- "$tgt" "$k" "$n" 2>"$d/err")
		[ "$("$bc" report "$d/b.er" functions 2>/dev/null |
			awk -v f="fi_$k" '$NF == f { print $1 }')" = "$n" ] || ok=
		stat -c %s "$d/b.er/functrace" >"$tmp/bytes.func" 2>/dev/null
		;;
	sites)
		out=$(cd "$d" && "$bc" record -q -A off --return-probes=sites -o b.er -u "$tgt:fi_$k" \
			-- "$tgt" "$k" "$n" 2>"$d/err")
		[ "$("$bc" report "$d/b.er" functions 2>/dev/null |
			awk -v f="fi_$k" '$NF == f && $2 != "-" { print $1 }')" = "$n" ] || ok=
		;;
	bpftrace)
		out=$(bpftrace -e "uprobe:$tgt:fi_$k { @e = count(); } uretprobe:$tgt:fi_$k { @r = count(); }" \
			-c "$tgt $k $n" 2>"$d/err")
		[ "$(grep -c "^@[er]: $n$" <<<"$out")" = 2 ] || ok=
		;;
	perf)
		out=$(cd "$d" && perf record -q -m 8M -o p.data -e "bcbench:fi_$k" \
			-e "bcbench:fi_${k}_ret" -- "$tgt" "$k" "$n" 2>"$d/err")
		(cd "$d" && perf script -i p.data -F event 2>/dev/null) >"$d/ev"
		[ "$(grep -c "bcbench:fi_$k:" "$d/ev") $(grep -c "bcbench:fi_${k}_ret:" "$d/ev")" = "$n $n" ] || ok=
		;;
	esac
	ns=$(sed -n 's/^elapsed_ns=\([0-9]*\).*/\1/p' <<<"$out" | head -1)
	if [ -z "$ok" ] || [ -z "$ns" ]; then
		echo "-"
	else
		echo "$ns"
	fi
}

for _ in $(seq "$runs"); do
	for k in $kinds; do
		for t in untraced $tracers; do
			run_one "$k" "$t" >>"$tmp/$k.$t"
		done
	done
done

median() { # median FILE: of its numeric lines, "-" when none
	grep -E '^[0-9]+([.][0-9]+)?$' "$1" | sort -g |
		awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "-" }'
}
missed() { grep -c '^-$' "$1"; }

echo "== per call (entry + return), us: the traced loop minus the untraced one, over $n calls; medians of $runs runs"
printf "%-7s %9s" first untraced
for t in $tracers; do printf " %10s" "$t"; done
printf " %8s\n" x_floor
for k in $kinds; do
	base=$(median "$tmp/$k.untraced")
	printf "%-7s %9s" "$k" "$(awk -v b="$base" -v n="$n" 'BEGIN { printf "%.3f", b / n / 1000 }')"
	for t in $tracers; do
		m=$(median "$tmp/$k.$t")
		per=$(awk -v m="$m" -v b="$base" -v n="$n" 'BEGIN { if (m == "-") print "-"; else printf "%.3f", (m - b) / n / 1000 }')
		echo "$per" >"$tmp/per.$k.$t"
		[ "$(missed "$tmp/$k.$t")" -gt 0 ] && per="$per*"
		printf " %10s" "$per"
	done
	printf " %8s\n" "$(awk -v a="$(cat "$tmp/per.$k.bpfcollect")" -v f="$(cat "$tmp/per.$k.floor")" \
		'BEGIN { if (a == "-" || f == "-" || f <= 0) print "-"; else printf "%.2f", a / f }')"
done
echo "(* a run missed calls: its count was not $n, and it is left out)"
awk -v e="$(cat "$tmp/per.endbr.bpfcollect")" -v p="$(cat "$tmp/per.push.bpfcollect")" 'BEGIN {
	if (e != "-" && p != "-" && p > 0) printf "bpfcollect endbr64 against push: %.2f\n", e / p }'
awk -v s="$(cat "$tmp/per.push.sites")" -v u="$(cat "$tmp/per.push.bpfcollect")" 'BEGIN {
	if (s != "-" && u != "-" && u > 0) printf "return site against uretprobe (push): %.2f\n", s / u }'

# ---------------------------------------------------------------- system calls
# firstinsn getppid N: N getppid calls. Per call: the traced loop minus the
# untraced one, over N, under the floor (--syscalls: one 32-byte record per
# call of the process, at its exit; --syscalls-timed: with its entry time),
# bpfcollect --syscalls=getppid and bpftrace counting enter and exit of the
# process's calls.
run_sys() { # run_sys TRACER: the loop's ns, or "-" when the counts were wrong
	local t=$1 d=$tmp/run out ok=1 ns
	rm -rf "$d" && mkdir -p "$d"
	case $t in
	untraced) out=$("$tgt" getppid "$n") ;;
	floor | floor-timed)
		out=$("$floor" "--${t/floor/syscalls}" -- "$tgt" getppid "$n" 2>"$d/err")
		[ "$(sed -n 's/.*syscalls=\([0-9]*\) lost=0$/\1/p' "$d/err")" -ge "$n" ] 2>/dev/null || ok=
		;;
	bpfcollect)
		out=$(cd "$d" && "$bc" record -q -A off -o s.er --syscalls=getppid -u main -- "$tgt" getppid "$n" 2>"$d/err")
		[ "$("$bc" report "$d/s.er" events 2>/dev/null | awk '$6 == "sys_exit" && $7 == "getppid"' | wc -l)" = "$n" ] || ok=
		stat -c %s "$d/s.er/syscalls" >"$tmp/bytes.sys" 2>/dev/null
		;;
	bpftrace)
		out=$(bpftrace -e 'tracepoint:raw_syscalls:sys_enter /pid == cpid/ { @e = count(); }
			tracepoint:raw_syscalls:sys_exit /pid == cpid/ { @x = count(); }' \
			-c "$tgt getppid $n" 2>"$d/err")
		[ "$(sed -n 's/^@e: //p' <<<"$out")" -ge "$n" ] 2>/dev/null || ok=
		;;
	esac
	ns=$(sed -n 's/^elapsed_ns=\([0-9]*\).*/\1/p' <<<"$out" | head -1)
	if [ -z "$ok" ] || [ -z "$ns" ]; then echo "-"; else echo "$ns"; fi
}
sys_tracers="floor floor-timed bpfcollect"
command -v bpftrace >/dev/null && sys_tracers+=" bpftrace"
for _ in $(seq "$runs"); do
	for t in untraced $sys_tracers; do
		run_sys "$t" >>"$tmp/sys.$t"
	done
done
echo
echo "== per system call (getppid), us: the traced loop minus the untraced one, over $n calls; medians of $runs runs"
base=$(median "$tmp/sys.untraced")
printf "%-9s %9s" "" untraced
for t in $sys_tracers; do printf " %11s" "$t"; done
printf " %8s %8s\n" x_floor x_total
printf "%-9s %9s" getppid "$(awk -v b="$base" -v n="$n" 'BEGIN { printf "%.3f", b / n / 1000 }')"
for t in $sys_tracers; do
	m=$(median "$tmp/sys.$t")
	per=$(awk -v m="$m" -v b="$base" -v n="$n" 'BEGIN { if (m == "-") print "-"; else printf "%.3f", (m - b) / n / 1000 }')
	echo "$per" >"$tmp/per.sys.$t"
	[ "$(missed "$tmp/sys.$t")" -gt 0 ] && per="$per*"
	printf " %11s" "$per"
done
# x_floor: the overheads' ratio; x_total: what a call costs in all, untraced part included
awk -v a="$(cat "$tmp/per.sys.bpfcollect")" -v f="$(cat "$tmp/per.sys.floor")" -v b="$base" -v n="$n" '
	BEGIN { if (a == "-" || f == "-" || f <= 0) { printf " %8s %8s\n", "-", "-"; exit }
		u = b / n / 1000; printf " %8.2f %8.2f\n", a / f, (u + a) / (u + f) }'
awk -v a="$(cat "$tmp/per.sys.bpfcollect")" -v f="$(cat "$tmp/per.sys.floor-timed")" 'BEGIN {
	if (a != "-" && f != "-" && f > 0)
		printf "bpfcollect against the floor that also times each call: %.2f\n", a / f }'

echo
awk -v f="$(cat "$tmp/bytes.func" 2>/dev/null)" -v s="$(cat "$tmp/bytes.sys" 2>/dev/null)" -v n="$n" 'BEGIN {
	if (f) printf "bytes on disk per function event (entry or return): %.1f\n", f / (2 * n)
	if (s) printf "bytes on disk per system call (its entry and exit): %.1f\n", s / n }'

# The agent's own CPU per million events: bpfcollect attached by pid (-P) to
# firstinsn push N (which waits 3 s first), so GNU time counts the agent
# alone, not the program it traces.
agent_cpu() {
	local d=$tmp/agent
	rm -rf "$d" && mkdir -p "$d"
	FIRSTINSN_DELAY_MS=3000 "$tgt" push "$n" >/dev/null &
	local tp=$! calls
	/usr/bin/time -f "%U %S" -o "$d/time" "$bc" record -q -A off -o "$d/a.er" \
		-u "$tgt:fi_push" -P "$tp" >/dev/null 2>"$d/err"
	wait "$tp"
	calls=$("$bc" report "$d/a.er" functions 2>/dev/null | awk '$NF == "fi_push" { print $1 }')
	if [ "$calls" != "$n" ]; then
		echo "agent CPU: a run saw ${calls:-no} calls of $n, left out: $(head -c 200 "$d/err")" >&2
		return
	fi
	awk -v n="$n" 'NF == 2 { printf "%.3f\n", ($1 + $2) / (2 * n / 1e6) }' "$d/time"
}
if [ -x /usr/bin/time ]; then
	for _ in $(seq "$runs"); do
		agent_cpu >>"$tmp/agent.cpu"
	done
	m=$(median "$tmp/agent.cpu")
	echo "agent CPU per million function events (attached, -P; median of $runs): ${m} s"
fi

# ---------------------------------------------------------------- a -pg build, beside uftrace
# BUILD_DIR/tests/targets/pgcalls N (built with -pg, as uftrace wants) calls
# pg_hot N times: untraced (glibc's mcount), under uftrace record (in the
# process, through mcount: no trap) and under bpfcollect -u pg_hot (uprobes).
pg=$build_dir/tests/targets/pgcalls
if command -v uftrace >/dev/null && [ -x "$pg" ]; then
	run_pg() { # run_pg TRACER: the loop's ns, or "-" when the counts were wrong
		local t=$1 d=$tmp/pg out ok=1 ns
		rm -rf "$d" && mkdir -p "$d"
		case $t in
		untraced) out=$(cd "$d" && "$pg" "$n") ;;
		uftrace)
			out=$(cd "$d" && uftrace record -d u.data "$pg" "$n" 2>"$d/err")
			[ "$(cd "$d" && uftrace report -d u.data 2>/dev/null |
				awk '$NF == "pg_hot" { print $(NF-1) }')" = "$n" ] || ok=
			;;
		bpfcollect)
			out=$(cd "$d" && "$bc" record -q -A off -o p.er -u "$pg:pg_hot" -- "$pg" "$n" 2>"$d/err")
			[ "$("$bc" report "$d/p.er" functions 2>/dev/null |
				awk '$NF == "pg_hot" { print $1 }')" = "$n" ] || ok=
			;;
		esac
		ns=$(sed -n 's/^elapsed_ns=\([0-9]*\).*/\1/p' <<<"$out" | head -1)
		if [ -z "$ok" ] || [ -z "$ns" ]; then echo "-"; else echo "$ns"; fi
	}
	for _ in $(seq "$runs"); do
		for t in untraced uftrace bpfcollect; do
			run_pg "$t" >>"$tmp/pg.$t"
		done
	done
	echo
	echo "== a -pg build (pg_hot), us per call above untraced; medians of $runs runs"
	base=$(median "$tmp/pg.untraced")
	for t in uftrace bpfcollect; do
		m=$(median "$tmp/pg.$t")
		per=$(awk -v m="$m" -v b="$base" -v n="$n" 'BEGIN { if (m == "-") print "-"; else printf "%.3f", (m - b) / n / 1000 }')
		[ "$(missed "$tmp/pg.$t")" -gt 0 ] && per="$per*"
		printf "%-12s %10s\n" "$t" "$per"
	done
fi
