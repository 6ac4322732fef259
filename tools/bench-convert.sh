#!/usr/bin/env bash
# Conversion speed and memory per format, against the plainest one (text)
# in the same run.
#
#   tools/bench-convert.sh BUILD_DIR        (run by `make bench`)
#
# Records BUILD_DIR/tests/targets/calls (BENCH_ITER iterations, 2 threads:
# 28 events an iteration and thread, 2.8 million by default) once, then
# converts the experiment to every format of the registry but the
# experiment itself, BENCH_RUNS times (default 3), interleaved, and prints
# the median seconds, the ratio to `-f text` and the max RSS. A format far
# above text is doing more than one pass of work per event.
#
# Environment: BENCH_ITER, BENCH_RUNS. A measurement, not a test.
set -u

die() {
	echo "bench-convert: $*" >&2
	exit 1
}

[ $# -eq 1 ] || {
	echo "usage: $0 BUILD_DIR" >&2
	exit 2
}
build_dir=$(cd "$1" && pwd) || die "no build directory $1"
iter=${BENCH_ITER:-50000}
runs=${BENCH_RUNS:-3}
bc=$build_dir/bpfcollect
[ -x "$bc" ] || die "$bc missing: make"
[ -x /usr/bin/time ] || die "GNU time is missing: apt-get install time"
[[ $iter =~ ^[1-9][0-9]*$ && $runs =~ ^[1-9][0-9]*$ ]] || die "BENCH_ITER and BENCH_RUNS are positive integers"

tmp=$(mktemp -d /tmp/bench-convert.XXXXXX) || die "cannot make a scratch directory"
trap 'rm -rf "$tmp"' EXIT

"$bc" record -q -A off -o "$tmp/c.er" -u 'tgt_*' -- "$build_dir/tests/targets/calls" "$iter" 2 \
	>/dev/null 2>&1 || die "the recording failed"
events=$("$bc" report "$tmp/c.er" header | awk '$1 == "Events:" { print $2 }')

formats=$("$bc" convert --list-formats | awk '$2 != "experiment" { print $1 }')
for _ in $(seq "$runs"); do
	for f in $formats; do
		out=$tmp/out.$f
		rm -rf "$out" "$out"_*
		/usr/bin/time -f "%e %M" -o "$tmp/time" "$bc" convert "$tmp/c.er" -f "$f" -o "$out" \
			>/dev/null 2>&1 || die "convert -f $f failed"
		echo "$(tail -1 "$tmp/time")" >>"$tmp/$f.runs"
		rm -rf "$out" "$out"_*
	done
done

median_col() { # median_col FILE COLUMN
	awk -v c="$2" '{ print $c }' "$1" | sort -g |
		awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

floor=$(median_col "$tmp/text.runs" 1)
echo "== convert: $events events, median of $runs runs, against -f text in the same run"
printf "%-10s %8s %8s %9s\n" format seconds x_text maxrss_MB
for f in $formats; do
	s=$(median_col "$tmp/$f.runs" 1)
	m=$(median_col "$tmp/$f.runs" 2)
	awk -v f="$f" -v s="$s" -v t="$floor" -v m="$m" 'BEGIN {
		printf "%-10s %8.2f %8.2f %9.1f\n", f, s, (t > 0 ? s / t : 0), m / 1024 }'
done
