#!/usr/bin/env bash
# The recorder's memory per traced process, side by side with perf record.
#
#   tools/bench-memory.sh BUILD_DIR        (run by `make bench`)
#
# BUILD_DIR/tests/targets/spawnload starts short processes one after
# another (half fork+exec of /bin/true, half posix_spawn of a shell), SMALL
# of them in one recording and LARGE in another (defaults 500 and 5000).
# Each recorder launches it and follows every descendant; GNU time gives
# its maximum resident set. The table shows, median of BENCH_RUNS (default
# 3) interleaved runs:
#   small_MB, large_MB   max RSS of the recorder for SMALL and LARGE processes
#   B/proc               (large - small) / (LARGE - SMALL): what one more
#                        traced process costs; flat memory is about 0
# for bpfcollect with each output (.er, -k, RTL, PRF CSV, GTF, chrome,
# folded) and for
# `perf record -g` (which keeps every thread it saw until it ends).
#
# Environment: BENCH_SMALL, BENCH_LARGE, BENCH_RUNS.
# A measurement, not a test: it exits non-zero only when it cannot measure.
set -u

die() {
	echo "bench-memory: $*" >&2
	exit 1
}

[ $# -eq 1 ] || {
	echo "usage: $0 BUILD_DIR" >&2
	exit 2
}
build_dir=$(cd "$1" && pwd) || die "no build directory $1"
small=${BENCH_SMALL:-500}
large=${BENCH_LARGE:-5000}
runs=${BENCH_RUNS:-3}
bc=$build_dir/bpfcollect
load=$build_dir/tests/targets/spawnload
for f in "$bc" "$load"; do
	[ -x "$f" ] || die "$f missing: make $f"
done
[ -x /usr/bin/time ] || die "GNU time is missing: apt-get install time"
[[ $small =~ ^[1-9][0-9]*$ && $large =~ ^[1-9][0-9]*$ && $large -gt $small ]] ||
	die "BENCH_SMALL and BENCH_LARGE must be positive integers, LARGE > SMALL"

tmp=$(mktemp -d /tmp/bench-memory.XXXXXX) || die "cannot make a scratch directory"
trap 'rm -rf "$tmp"' EXIT

kinds="er k rtl prf gtf chrome folded"
command -v perf >/dev/null && kinds+=" perf"

# rss_kb KIND N: the recorder's max RSS (KiB) while N processes run under it
rss_kb() {
	local kind=$1 n=$2 d=$tmp/run
	local cmd=("$load" 2000 100 "$n")

	rm -rf "$d" && mkdir -p "$d"
	case $kind in
	er) set -- "$bc" record -q -A off -o "$d/m.er" -- "${cmd[@]}" ;;
	k) set -- "$bc" record -q -A off -k -o "$d/k.er" -- "${cmd[@]}" ;;
	rtl) set -- "$bc" record -q -A off -f rtl -o "$d/r" -- "${cmd[@]}" ;;
	prf) set -- "$bc" record -q -A off -f prf-csv -o "$d/p.csv" -- "${cmd[@]}" ;;
	gtf) set -- "$bc" record -q -A off -f gtf -o "$d/g.gtf" -- "${cmd[@]}" ;;
	chrome) set -- "$bc" record -q -A off -f chrome -o "$d/c.json" -- "${cmd[@]}" ;;
	folded) set -- "$bc" record -q -A off -f folded -o "$d/f.folded" -- "${cmd[@]}" ;;
	perf) set -- perf record -q -g -o "$d/perf.data" -- "${cmd[@]}" ;;
	esac
	(cd "$d" && /usr/bin/time -f "%M" -o "$d/.rss" "$@" >/dev/null 2>&1)
	cat "$d/.rss" 2>/dev/null | tail -1
}

for _ in $(seq "$runs"); do
	for k in $kinds; do
		echo "$(rss_kb "$k" "$small") $(rss_kb "$k" "$large")" >>"$tmp/$k"
	done
done

median_col() { # median_col FILE COLUMN
	awk -v c="$2" '$c ~ /^[0-9]+$/ { print $c }' "$1" | sort -g |
		awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "-" }'
}

echo "== recorder memory per traced process: $small vs $large short processes, $runs runs"
printf "%-15s %9s %9s %8s\n" recorder small_MB large_MB B/proc
for k in $kinds; do
	s=$(median_col "$tmp/$k" 1)
	l=$(median_col "$tmp/$k" 2)
	name=bpfcollect-$k
	[ "$k" = perf ] && name=perf-record
	awk -v n="$name" -v s="$s" -v l="$l" -v a="$small" -v b="$large" 'BEGIN {
		if (s == "-" || l == "-") { printf "%-15s %9s %9s %8s\n", n, "-", "-", "-"; exit }
		printf "%-15s %9.1f %9.1f %8.0f\n", n, s / 1024, l / 1024, (l - s) * 1024 / (b - a) }'
done
