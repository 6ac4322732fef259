#!/usr/bin/env bash
# What tracing one process costs the others: per-call overhead of a probed
# function in a process that is NOT traced, side by side with bpftrace.
#
#   tools/bench-untraced.sh BUILD_DIR        (run by `make bench`)
#
# A uprobe lives on the file, not on a process: a probe armed for every
# process makes each one running the probed code trap into the kernel on
# each call, traced or not, and a filter decides afterwards. bpfcollect
# arms its probes in the traced processes alone. Here a sleeping process is
# the one traced and BUILD_DIR/tests/targets/bench (calls bench_hot() N
# times, prints the loop's time) runs beside it, unrelated:
#   untraced     no tracer at all
#   bpfcollect   record -P SLEEPER -u BENCH:bench_hot (entry and return
#                probes, armed in the sleeper and the children it forks)
#   bpfcollect-F record -P SLEEPER -F off -u ...: one process, no children
#                to follow (an uprobe_multi link with its pid)
#   bpftrace     uprobe + uretprobe on bench_hot with /pid == SLEEPER/
# Runs are interleaved, BENCH_RUNS (default 3) times; medians are shown, and
# the per-call overhead is (median loop time - untraced median) / N.
#
# Then libc, which every process maps: BUILD_DIR/tests/targets/neighbour
# loop (malloc/free pairs per second of its own CPU time) runs unrelated
# while
#   untraced     nothing records
#   -H on        record -H on -- sleep: the heap probes, launched and
#                followed (-F on, the default)
#   libc -P      record -u libc:malloc -P SLEEPER (-F on)
#   bpftrace     uprobe + uretprobe on libc's malloc with /pid == SLEEPER/
# and its slowdown (untraced rate / rate) is shown; the goal for bpfcollect
# is 1.05x at most: its probes are armed in the traced processes alone.
# Environment: BENCH_CALLS (N, default 1000000), BENCH_RUNS,
# BENCH_CPU_SECONDS (each malloc loop, default 1).
set -u

die() {
	echo "bench-untraced: $*" >&2
	exit 1
}

[ $# -eq 1 ] || {
	echo "usage: $0 BUILD_DIR" >&2
	exit 2
}
build_dir=$(cd "$1" && pwd) || die "no build directory $1"
calls=${BENCH_CALLS:-1000000}
runs=${BENCH_RUNS:-3}
bc=$build_dir/bpfcollect
target=$build_dir/tests/targets/bench
[ -x "$target" ] || die "$target missing: make $target"
[ -x "$bc" ] || die "$bc missing: make"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bpfcollect-untraced.XXXXXX") || die "mktemp failed"
sleeper=
agent=
cleanup() {
	[ -n "$agent" ] && kill "$agent" 2>/dev/null
	[ -n "$sleeper" ] && kill "$sleeper" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

sleep 100000 &
sleeper=$!
neighbour=$build_dir/tests/targets/neighbour
[ -x "$neighbour" ] || die "$neighbour missing: make $neighbour"
libc=$(awk '$NF ~ /\/libc\.so/ { print $NF; exit }' /proc/$sleeper/maps)

loop_ns() { "$target" "$calls" | sed -n 's/^elapsed_ns=//p'; }

# measured TRACER STOP MEASURE...: waits until the tracer started in the
# background ($agent) is in (bpftrace says so; bpfcollect creates its
# experiment after), runs MEASURE, then stops the agent: STOP "int" sends
# SIGINT, "child" ends its launched command (and so the recording).
measured() {
	local tracer=$1 stop=$2
	shift 2
	for _ in $(seq 100); do
		if [ "$tracer" == bpftrace ]; then grep -q "Attaching" "$tmp/bt.out" && break
		else [ -d "$tmp/u.er" ] && break; fi
		sleep 0.1
	done
	sleep 0.5
	"$@"
	if [ "$stop" == child ]; then
		pkill -P "$agent" -x sleep
	else
		kill -INT "$agent" 2>/dev/null
	fi
	wait "$agent" 2>/dev/null
	agent=
	rm -rf "$tmp/u.er"
}

# under KIND: one bench run with the tracer KIND attached to the sleeper.
under() {
	local ready=
	case $1 in
	untraced) loop_ns; return ;;
	bpfcollect | bpfcollect-F)
		local follow=on
		[ "$1" == bpfcollect-F ] && follow=off
		"$bc" record -q -F "$follow" -P "$sleeper" -u "$target:bench_hot" -o "$tmp/u.er" \
			2>"$tmp/err" &
		agent=$!
		ready="$bc"
		;;
	bpftrace)
		command -v bpftrace >/dev/null || { echo skip; return; }
		bpftrace -e "uprobe:$target:bench_hot /pid == $sleeper/ { @e = count(); }
			uretprobe:$target:bench_hot /pid == $sleeper/ { @r = count(); }" \
			>"$tmp/bt.out" 2>&1 &
		agent=$!
		ready=bpftrace
		;;
	esac
	measured "$ready" int loop_ns
}

kinds=(untraced bpfcollect bpfcollect-F bpftrace)
declare -A samples
for ((r = 0; r < runs; r++)); do
	for k in "${kinds[@]}"; do
		samples[$k]+="$(under "$k") "
	done
done

median() { tr ' ' '\n' | grep -E '^[0-9]+$' | sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "" }'; }

base=$(median <<<"${samples[untraced]}")
[ -n "$base" ] || die "the untraced run failed"
echo "== cost of a probe for a process that is not traced ($calls calls of bench_hot, $runs runs)"
printf "%-14s %14s %16s %10s\n" tool "loop (ms)" "overhead/call" "vs bpftrace"
bt=$(median <<<"${samples[bpftrace]}")
for k in "${kinds[@]}"; do
	m=$(median <<<"${samples[$k]}")
	if [ -z "$m" ]; then
		printf "%-14s %14s\n" "$k" skipped
		continue
	fi
	per=$(awk -v m="$m" -v b="$base" -v n="$calls" 'BEGIN { printf "%.3f us", (m - b) / n / 1000 }')
	ratio=-
	if [ -n "$bt" ] && [ "$k" != untraced ] && [ "$k" != bpftrace ]; then
		ratio=$(awk -v m="$m" -v b="$base" -v t="$bt" 'BEGIN { if (t > b) printf "%.2fx", (m - b) / (t - b); else print "-" }')
	fi
	[ "$k" == untraced ] && per=-
	printf "%-14s %14.1f %16s %10s\n" "$k" "$(awk -v m="$m" 'BEGIN { print m / 1e6 }')" "$per" "$ratio"
done

# The malloc loop beside a tracer of libc: pairs per CPU second.
pairs() { "$neighbour" loop "${BENCH_CPU_SECONDS:-1}" | sed -n 's/^pairs_per_cpu_second //p'; }

beside() {
	case $1 in
	untraced) pairs; return ;;
	heap) "$bc" record -q -H on -o "$tmp/u.er" -- sleep 1000 2>"$tmp/err" & ;;
	libc-P) "$bc" record -q -u libc:malloc -P "$sleeper" -o "$tmp/u.er" 2>"$tmp/err" & ;;
	bpftrace)
		command -v bpftrace >/dev/null && [ -n "$libc" ] || { echo skip; return; }
		bpftrace -e "uprobe:$libc:malloc /pid == $sleeper/ { @e = count(); }
			uretprobe:$libc:malloc /pid == $sleeper/ { @r = count(); }" \
			>"$tmp/bt.out" 2>&1 &
		;;
	esac
	agent=$!
	if [ "$1" == heap ]; then measured "$1" child pairs; else measured "$1" int pairs; fi
}

nkinds=(untraced heap libc-P bpftrace)
declare -A rates
for ((r = 0; r < runs; r++)); do
	for k in "${nkinds[@]}"; do
		rates[$k]+="$(beside "$k") "
	done
done
nbase=$(median <<<"${rates[untraced]}")
[ -n "$nbase" ] || die "the untraced malloc loop failed"
echo "== cost for an unrelated malloc/free loop while libc is traced elsewhere ($runs runs)"
printf "%-14s %16s %10s\n" tracer "pairs/CPU s" slowdown
for k in "${nkinds[@]}"; do
	m=$(median <<<"${rates[$k]}")
	if [ -z "$m" ]; then
		printf "%-14s %16s\n" "$k" skipped
		continue
	fi
	printf "%-14s %16s %10s\n" "$k" "$m" "$(awk -v m="$m" -v b="$nbase" 'BEGIN { printf "%.2fx", b / m }')"
done
