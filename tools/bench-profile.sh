#!/usr/bin/env bash
# Overhead of clock profiling: `bpfcollect record -p on` against
# `perf record -F 100 -g` (the same rate, 100 samples per second of CPU,
# with call stacks through frame pointers), side by side.
#
#   tools/bench-profile.sh BUILD_DIR       (`make bench` runs it after bench.sh)
#
# BUILD_DIR/tests/targets/bench calls bench_hot() N times and prints the
# loop's own time (elapsed_ns). It runs untraced, under perf and under
# bpfcollect, interleaved BENCH_RUNS times (default 5); the table shows
# median loop times, the overhead of each profiler in percent of the
# untraced loop, and their ratio. Both profilers write their samples to a
# file (perf.data, an experiment). Samples counted are checked: each run
# must have about as many samples as CPU seconds x 100.
#
# Environment: BENCH_PROFILE_CALLS (default 800000000, ~1.2 s), BENCH_RUNS.
# A measurement, not a test: it exits non-zero only when it cannot measure.
set -u
BUILD=$(cd "${1:?usage: bench-profile.sh BUILD_DIR}" && pwd)
BC="$BUILD/bpfcollect"
TARGET="$BUILD/tests/targets/bench"
CALLS=${BENCH_PROFILE_CALLS:-800000000}
RUNS=${BENCH_RUNS:-5}
WORK=$(mktemp -d /tmp/bpfcollect-benchp.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

[ -x "$TARGET" ] || { echo "bench-profile: $TARGET missing (make check builds it)" >&2; exit 1; }
if ! command -v perf >/dev/null; then
	echo "bench-profile: installing perf (linux-perf)" >&2
	apt-get install -y -qq linux-perf >/dev/null 2>&1 || true
fi

median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
loop_ns() { awk -F= '$1 == "elapsed_ns" { print $2 }' "$1"; }

declare -a base perf_t bc_t perf_n bc_n
for i in $(seq "$RUNS"); do
	"$TARGET" "$CALLS" >"$WORK/u.out" || { echo "bench-profile: the untraced run failed" >&2; exit 1; }
	base+=("$(loop_ns "$WORK/u.out")")
	if command -v perf >/dev/null; then
		perf record -q -F 100 -g -o "$WORK/perf.data" -- "$TARGET" "$CALLS" >"$WORK/p.out" 2>/dev/null &&
			perf_t+=("$(loop_ns "$WORK/p.out")") &&
			perf_n+=("$(perf report -i "$WORK/perf.data" --stdio -n 2>/dev/null |
				awk '/^# Samples:/ { print $3; exit }')")
	fi
	rm -rf "$WORK/b.er"
	"$BC" record -q -p on -o "$WORK/b.er" -- "$TARGET" "$CALLS" >"$WORK/b.out" 2>"$WORK/b.err" &&
		bc_t+=("$(loop_ns "$WORK/b.out")") &&
		bc_n+=("$("$BC" report "$WORK/b.er" profile | awk 'NR == 1 { print $3 }')")
done

b=$(median "${base[@]}")
echo
echo "clock profiling at 100 Hz (10 ms of CPU per sample), $CALLS calls, $RUNS runs (medians)"
printf '%-34s %12s %10s %10s\n' tool "loop (ms)" overhead samples
printf '%-34s %12.1f %10s %10s\n' untraced "$(awk -v n="$b" 'BEGIN { print n / 1e6 }')" - -
po="" bo=""
if [ ${#perf_t[@]} -gt 0 ]; then
	p=$(median "${perf_t[@]}")
	po=$(awk -v t="$p" -v b="$b" 'BEGIN { printf "%.2f", (t - b) * 100 / b }')
	printf '%-34s %12.1f %9s%% %10s\n' "perf record -F 100 -g" "$(awk -v n="$p" 'BEGIN { print n / 1e6 }')" \
		"$po" "$(median "${perf_n[@]}")"
else
	echo "perf record -F 100 -g               not available"
fi
if [ ${#bc_t[@]} -gt 0 ]; then
	c=$(median "${bc_t[@]}")
	bo=$(awk -v t="$c" -v b="$b" 'BEGIN { printf "%.2f", (t - b) * 100 / b }')
	printf '%-34s %12.1f %9s%% %10s\n' "bpfcollect record -p on" "$(awk -v n="$c" 'BEGIN { print n / 1e6 }')" \
		"$bo" "$(median "${bc_n[@]}")"
else
	echo "bpfcollect record -p on             failed: $(head -1 "$WORK/b.err")"
fi
if [ -n "$po" ] && [ -n "$bo" ]; then
	awk -v p="$po" -v c="$bo" 'BEGIN {
		printf "loop overhead, bpfcollect - perf: %+.2f points of the untraced time", c - p
		if (p > 0.05 && c > 0.05) printf " (ratio perf/bpfcollect %.2f)", p / c
		printf "\n" }'
fi
