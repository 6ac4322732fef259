#!/usr/bin/env bash
# Overhead of I/O tracing: `bpfcollect record -i on` against gprofng's own
# `gprofng collect app -i on` (libcollector, preloaded into the target,
# interposes libc's I/O functions), side by side.
#
#   tools/bench-io.sh BUILD_DIR       (`make bench` runs it)
#
# BUILD_DIR/tests/targets/io DIR --loop N does N x (pwrite 64 bytes, pread
# 64 bytes) on one file and prints "loop_ns NS", the loop alone. It runs
# untraced, under gprofng and under bpfcollect, interleaved BENCH_RUNS times
# (default 5); the table shows median loop times, the overhead per traced
# call in microseconds, the reads and writes each tool recorded (it must be
# 2 N), and the ratio of the two overheads.
#
# Environment: BENCH_IO_CALLS (N, default 100000), BENCH_RUNS.
# A measurement, not a test: it exits non-zero only when it cannot measure.
set -u
BUILD=$(cd "${1:?usage: bench-io.sh BUILD_DIR}" && pwd)
BC="$BUILD/bpfcollect"
TARGET="$BUILD/tests/targets/io"
CALLS=${BENCH_IO_CALLS:-100000}
RUNS=${BENCH_RUNS:-5}
WORK=$(mktemp -d /tmp/bpfcollect-benchio.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

[ -x "$TARGET" ] || { echo "bench-io: $TARGET missing (make check builds it)" >&2; exit 1; }
command -v gprofng >/dev/null || { echo "bench-io: gprofng missing (tools/install-deps.sh)" >&2; exit 1; }

median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
loop_ns() { awk '$1 == "loop_ns" { print $2 }' "$1"; }
# reads + writes in an experiment's iotrace, as gprofng counts them
io_calls() {
	gprofng display text -metrics e+ioreadcnt:e+iowritecnt -ioactivity "$1" 2>/dev/null |
		awk '$3 == "<Total>" { print $1 + $2; exit }'
}

base=() gp_t=() bc_t=() gp_n=() bc_n=()
for i in $(seq "$RUNS"); do
	"$TARGET" "$WORK" --loop "$CALLS" >"$WORK/u.out" || { echo "bench-io: the untraced run failed" >&2; exit 1; }
	base+=("$(loop_ns "$WORK/u.out")")
	rm -rf "$WORK/g.er"
	gprofng collect app -p off -i on -o "$WORK/g.er" "$TARGET" "$WORK" --loop "$CALLS" \
		>"$WORK/g.out" 2>"$WORK/g.err" &&
		gp_t+=("$(loop_ns "$WORK/g.out")") && gp_n+=("$(io_calls "$WORK/g.er")")
	rm -rf "$WORK/b.er"
	"$BC" record -q -i on -o "$WORK/b.er" -- "$TARGET" "$WORK" --loop "$CALLS" \
		>"$WORK/b.out" 2>"$WORK/b.err" &&
		bc_t+=("$(loop_ns "$WORK/b.out")") && bc_n+=("$(io_calls "$WORK/b.er")")
done

b=$(median "${base[@]}")
per_call() { awk -v t="$1" -v b="$b" -v n="$CALLS" 'BEGIN { printf "%.2f", (t - b) / (2 * n) / 1000 }'; }
echo
echo "I/O tracing, $CALLS x (pwrite 64 B, pread 64 B), $RUNS runs (medians)"
printf '%-34s %12s %14s %10s\n' tool "loop (ms)" "us per call" "recorded"
printf '%-34s %12.1f %14s %10s\n' untraced "$(awk -v n="$b" 'BEGIN { print n / 1e6 }')" - -
go="" bo=""
if [ ${#gp_t[@]} -gt 0 ]; then
	g=$(median "${gp_t[@]}")
	go=$(per_call "$g")
	printf '%-34s %12.1f %14s %10s\n' "gprofng collect app -i on" "$(awk -v n="$g" 'BEGIN { print n / 1e6 }')" \
		"$go" "$(median "${gp_n[@]}")"
else
	echo "gprofng collect app -i on          failed: $(head -1 "$WORK/g.err")"
fi
if [ ${#bc_t[@]} -gt 0 ]; then
	c=$(median "${bc_t[@]}")
	bo=$(per_call "$c")
	printf '%-34s %12.1f %14s %10s\n' "bpfcollect record -i on" "$(awk -v n="$c" 'BEGIN { print n / 1e6 }')" \
		"$bo" "$(median "${bc_n[@]}")"
else
	echo "bpfcollect record -i on            failed: $(head -1 "$WORK/b.err")"
fi
if [ -n "$go" ] && [ -n "$bo" ]; then
	awk -v g="$go" -v c="$bo" 'BEGIN {
		printf "per-call overhead, bpfcollect - gprofng: %+.2f us", c - g
		if (g > 0.01 && c > 0.01) printf " (ratio gprofng/bpfcollect %.2f)", g / c
		printf "\n" }'
fi
