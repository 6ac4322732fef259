#!/usr/bin/env bash
# Overhead of bpfcollect against bpftrace on the same hot function, side by side.
#
#   tools/bench.sh BUILD_DIR        (what `make bench` runs)
#
# The target BUILD_DIR/tests/targets/bench calls bench_hot() N times and
# prints the time of that loop alone (elapsed_ns=...). It runs untraced,
# under bpftrace counting entries and returns of bench_hot, and under
# `bpfcollect record -u bench:bench_hot`. Each is run BENCH_RUNS times,
# interleaved (a b c a b c ...) so drift in the machine hits all three alike;
# the table shows medians. Per-call overhead is
#   (median traced loop time - median untraced loop time) / N.
# Wall time is the whole command, so it also counts start-up, attach and
# detach (bpftrace compiles its program with LLVM first).
#
# Two bpftrace rows: "bpftrace" only counts entries and returns in a map
# (the issue's reference point: it records nothing per call), and
# "bpftrace-rec" records what bpfcollect records, one timestamped line per
# entry and per return (printf to a file). bpftrace-rec is ~10x slower per
# call, so it runs BENCH_REC_CALLS (default N/20) calls; per-call overheads
# compare regardless of N.
#
# Environment: BENCH_CALLS (N, default 2000000), BENCH_RUNS (default 3),
# CC (to build the target when BUILD_DIR does not have it).
#
# This is a measurement, not a test: it exits non-zero only when it cannot
# measure at all (no target, the untraced run fails, bpftrace is installed
# but fails). A missing or not yet working bpfcollect is reported and skipped.
set -u

die() {
	echo "bench: $*" >&2
	exit 1
}

[ $# -eq 1 ] || {
	echo "usage: $0 BUILD_DIR" >&2
	exit 2
}
build_dir=$1
repo_dir=$(cd "$(dirname "$0")/.." && pwd)
calls=${BENCH_CALLS:-2000000}
runs=${BENCH_RUNS:-3}
rec_calls=${BENCH_REC_CALLS:-$((calls / 20))}
[[ $calls =~ ^[1-9][0-9]*$ ]] || die "BENCH_CALLS must be a positive integer, not '$calls'"
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "BENCH_RUNS must be a positive integer, not '$runs'"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/bpfcollect-bench.XXXXXX") || die "mktemp failed"
trap 'rm -rf "$tmp"' EXIT

# ---------------------------------------------------------------- the target
target=$build_dir/tests/targets/bench
if [ ! -x "$target" ]; then
	# The same flags tests/tests.mk uses, so the result is the same binary.
	echo "bench: $target missing, building it from tests/targets/bench.c"
	mkdir -p "$(dirname "$target")" || die "cannot create $(dirname "$target")"
	"${CC:-cc}" -std=gnu11 -Wall -Wextra -Werror -g -O2 -fno-omit-frame-pointer -fno-inline \
		-pthread -o "$target" "$repo_dir/tests/targets/bench.c" || die "cannot build $target"
fi
# uprobe specs want an absolute path.
target=$(realpath "$target")

# The numbers only mean what they say if bench_hot starts with push %rbp,
# which the kernel emulates; any other first instruction is single-stepped
# and costs ten times more per hit (see tests/targets/bench.c). objdump is
# optional here: without it the check is skipped.
first_insn=unknown
if command -v objdump >/dev/null 2>&1; then
	first_insn=$(objdump -d --no-show-raw-insn "$target" 2>/dev/null |
		awk '/<bench_hot>:$/ { getline; sub(/^[ \t]*[0-9a-f]+:[ \t]*/, ""); gsub(/[ \t]+/, " "); print; exit }')
	first_insn=${first_insn:-unknown}
	if [[ ! $first_insn =~ ^push[[:space:]]+%rbp ]]; then
		echo "bench: WARNING: bench_hot starts with '$first_insn', not 'push %rbp':"
		echo "bench: WARNING: uprobe hits are single-stepped, overheads will be ~10x higher"
	fi
fi

# ---------------------------------------------------------------- helpers
now_ns() {
	date +%s%N
}

# value_of KEY FILE: the number after "KEY" (as in "elapsed_ns=123", "@e: 123").
value_of() {
	awk -v key="$1" 'index($0, key) == 1 { v = substr($0, length(key) + 1); gsub(/[ \t]/, "", v); print v; exit }' "$2"
}

median() {
	printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
}

# show_output FILE: the first lines of a failed command's output, indented.
show_output() {
	sed -n '1,15s/^/    | /p' "$1"
}

# Each run_* writes the loop time to $elapsed and the command's wall time
# to $wall (both ns), and returns non-zero when the run did not work.
run_untraced() {
	local start end
	start=$(now_ns)
	"$target" "$calls" >"$tmp/untraced.out" 2>&1
	local rc=$?
	end=$(now_ns)
	wall=$((end - start))
	elapsed=$(value_of elapsed_ns= "$tmp/untraced.out")
	[ $rc -eq 0 ] && [ -n "$elapsed" ]
}

run_bpftrace() {
	local prog start end
	prog="uprobe:$target:bench_hot { @e = count(); } uretprobe:$target:bench_hot { @r = count(); }"
	start=$(now_ns)
	bpftrace -e "$prog" -c "$target $calls" >"$tmp/bpftrace.out" 2>"$tmp/bpftrace.err"
	local rc=$?
	end=$(now_ns)
	wall=$((end - start))
	elapsed=$(value_of elapsed_ns= "$tmp/bpftrace.out")
	bpftrace_entries=$(value_of "@e:" "$tmp/bpftrace.out")
	bpftrace_returns=$(value_of "@r:" "$tmp/bpftrace.out")
	[ $rc -eq 0 ] && [ -n "$elapsed" ]
}

run_bpftrace_rec() {
	local prog start end
	prog="uprobe:$target:bench_hot { printf(\"E %d %d %llu\\n\", pid, tid, nsecs); }
		uretprobe:$target:bench_hot { printf(\"R %d %d %llu %d\\n\", pid, tid, nsecs, retval); }"
	start=$(now_ns)
	bpftrace -o "$tmp/bpftrace-rec.lines" -e "$prog" -c "$target $rec_calls" \
		>"$tmp/bpftrace-rec.out" 2>"$tmp/bpftrace-rec.err"
	local rc=$?
	end=$(now_ns)
	wall=$((end - start))
	# With -o, the target's own stdout still goes to ours.
	elapsed=$(value_of elapsed_ns= "$tmp/bpftrace-rec.out")
	bpftrace_rec_lines=$(grep -c '^[ER] ' "$tmp/bpftrace-rec.lines" 2>/dev/null)
	[ $rc -eq 0 ] && [ -n "$elapsed" ]
}

run_bpfcollect() {
	local start end
	rm -rf "$tmp/b.er"
	start=$(now_ns)
	"$build_dir/bpfcollect" record -q -o "$tmp/b.er" -u bench_hot -- "$target" "$calls" \
		>"$tmp/bpfcollect.out" 2>&1
	local rc=$?
	end=$(now_ns)
	wall=$((end - start))
	elapsed=$(value_of elapsed_ns= "$tmp/bpfcollect.out")
	# A record that ran nothing or wrote nothing is not a measurement.
	[ $rc -eq 0 ] && [ -n "$elapsed" ] && [ -e "$tmp/b.er" ]
}

# ---------------------------------------------------------------- which tools
have_bpftrace=1
if ! command -v bpftrace >/dev/null 2>&1; then
	if [ "$(id -u)" = 0 ] && [ -x "$repo_dir/tools/install-deps.sh" ]; then
		echo "bench: bpftrace missing, running tools/install-deps.sh"
		"$repo_dir/tools/install-deps.sh" || true
	fi
	command -v bpftrace >/dev/null 2>&1 || {
		echo "bpftrace not available"
		have_bpftrace=0
	}
fi
have_bpfcollect=1
if [ ! -x "$build_dir/bpfcollect" ]; then
	echo "bpfcollect: not available ($build_dir/bpfcollect missing)"
	have_bpfcollect=0
fi
if [ "$(id -u)" != 0 ]; then
	echo "bench: WARNING: not root; uprobes need root (or CAP_BPF + CAP_PERFMON)"
fi

# ---------------------------------------------------------------- the runs
echo "bench: $calls calls of bench_hot (first instruction: $first_insn), $runs runs each, interleaved"
untraced_elapsed=() untraced_wall=()
bpftrace_rec_elapsed=() bpftrace_rec_wall=()
bpftrace_elapsed=() bpftrace_wall=()
bpfcollect_elapsed=() bpfcollect_wall=()
broken=0
bpftrace_counts_bad=0

for round in $(seq 1 "$runs"); do
	line="  run $round:"

	run_untraced || {
		echo "bench: the untraced target failed:"
		show_output "$tmp/untraced.out"
		exit 1
	}
	untraced_elapsed+=("$elapsed") untraced_wall+=("$wall")
	line+=$(printf ' untraced %.1f ms' "$(awk -v n="$elapsed" 'BEGIN { print n / 1e6 }')")

	if [ $have_bpftrace = 1 ]; then
		if run_bpftrace; then
			bpftrace_elapsed+=("$elapsed") bpftrace_wall+=("$wall")
			line+=$(printf ', bpftrace %.1f ms (@e=%s @r=%s)' \
				"$(awk -v n="$elapsed" 'BEGIN { print n / 1e6 }')" \
				"${bpftrace_entries:-none}" "${bpftrace_returns:-none}")
			if [ "${bpftrace_entries:-}" != "$calls" ] || [ "${bpftrace_returns:-}" != "$calls" ]; then
				bpftrace_counts_bad=1
			fi
		else
			echo "bench: bpftrace failed:"
			show_output "$tmp/bpftrace.out"
			show_output "$tmp/bpftrace.err"
			have_bpftrace=0
			broken=1
		fi
	fi

	if [ $have_bpftrace = 1 ] && [ "$rec_calls" -gt 0 ]; then
		if run_bpftrace_rec; then
			bpftrace_rec_elapsed+=("$elapsed") bpftrace_rec_wall+=("$wall")
			line+=$(printf ', bpftrace-rec %.1f ms (%s lines)' \
				"$(awk -v n="$elapsed" 'BEGIN { print n / 1e6 }')" "${bpftrace_rec_lines:-0}")
			[ "${bpftrace_rec_lines:-0}" = $((2 * rec_calls)) ] || bpftrace_counts_bad=1
		else
			echo "bench: bpftrace (recording) failed:"
			show_output "$tmp/bpftrace-rec.err"
		fi
	fi

	if [ $have_bpfcollect = 1 ]; then
		if run_bpfcollect; then
			bpfcollect_elapsed+=("$elapsed") bpfcollect_wall+=("$wall")
			line+=$(printf ', bpfcollect %.1f ms' "$(awk -v n="$elapsed" 'BEGIN { print n / 1e6 }')")
		else
			echo "bpfcollect: not available (record failed or produced no experiment; output follows)"
			show_output "$tmp/bpfcollect.out"
			have_bpfcollect=0
		fi
	fi
	echo "$line"
done

# What bpfcollect recorded, from the functions view of the last experiment
# (first column Calls, last column Name): every call must be there.
bpfcollect_events="-"
bpfcollect_report_line=""
if [ $have_bpfcollect = 1 ]; then
	if "$build_dir/bpfcollect" report "$tmp/b.er" functions >"$tmp/report.out" 2>&1; then
		bpfcollect_report_line=$(awk '$NF == "bench_hot"' "$tmp/report.out")
		if [ "$(awk '{ print $1 }' <<<"$bpfcollect_report_line")" = "$calls" ]; then
			bpfcollect_events="calls=$calls (every entry and return recorded)"
		else
			bpfcollect_events="see below"
		fi
	else
		bpfcollect_events="report failed"
		bpfcollect_report_line=$(head -n 3 "$tmp/report.out")
	fi
fi

# ---------------------------------------------------------------- the table
base=$(median "${untraced_elapsed[@]}")
echo
printf '%-12s %16s %18s %12s  %s\n' tool "loop (median)" "overhead per call" "wall (med.)" "events counted"

# row TOOL EVENTS WALL ELAPSED... : prints one row; sets $overhead (ns per
# call, or empty). $row_calls (default N) is the calls of this row's runs;
# the untraced loop time is scaled to it.
row() {
	local tool=$1 events=$2 wall_med=$3 n=${row_calls:-$calls}
	shift 3
	overhead=""
	if [ $# -eq 0 ]; then
		printf '%-12s %16s\n' "$tool" "not available"
		return
	fi
	local med
	med=$(median "$@")
	if [ "$tool" != untraced ]; then
		overhead=$(awk -v t="$med" -v b="$base" -v n="$n" -v N="$calls" \
			'BEGIN { printf "%.1f", (t - b * n / N) / n }')
	fi
	printf '%-12s %13.1f ms %18s %10.2f s  %s\n' "$tool" \
		"$(awk -v n="$med" 'BEGIN { print n / 1e6 }')" "${overhead:+$overhead ns}" \
		"$(awk -v n="$wall_med" 'BEGIN { print n / 1e9 }')" "$events"
}

row untraced "-" "$(median "${untraced_wall[@]}")" "${untraced_elapsed[@]}"
bpftrace_overhead=""
if [ ${#bpftrace_elapsed[@]} -gt 0 ]; then
	row bpftrace "@e=${bpftrace_entries:-none} @r=${bpftrace_returns:-none}" \
		"$(median "${bpftrace_wall[@]}")" "${bpftrace_elapsed[@]}"
	bpftrace_overhead=$overhead
else
	row bpftrace "" ""
fi
bpftrace_rec_overhead=""
if [ ${#bpftrace_rec_elapsed[@]} -gt 0 ]; then
	row_calls=$rec_calls row bpftrace-rec "$rec_calls calls, ${bpftrace_rec_lines:-0} lines" \
		"$(median "${bpftrace_rec_wall[@]}")" "${bpftrace_rec_elapsed[@]}"
	bpftrace_rec_overhead=$overhead
fi
bpfcollect_overhead=""
if [ ${#bpfcollect_elapsed[@]} -eq "$runs" ]; then
	row bpfcollect "$bpfcollect_events" "$(median "${bpfcollect_wall[@]}")" \
		"${bpfcollect_elapsed[@]}"
	bpfcollect_overhead=$overhead
else
	row bpfcollect "" ""
fi

echo
if [ -n "$bpftrace_overhead" ] && [ -n "$bpfcollect_overhead" ]; then
	awk -v a="$bpftrace_overhead" -v b="$bpfcollect_overhead" 'BEGIN {
		if (b > 0)
			printf "overhead ratio bpftrace/bpfcollect: %.2f\n", a / b
		else
			printf "overhead ratio bpftrace/bpfcollect: n/a (bpfcollect overhead %.1f ns)\n", b
	}'
else
	echo "overhead ratio bpftrace/bpfcollect: n/a"
fi
if [ -n "$bpftrace_rec_overhead" ] && [ -n "$bpfcollect_overhead" ]; then
	awk -v a="$bpftrace_rec_overhead" -v b="$bpfcollect_overhead" 'BEGIN {
		if (b > 0)
			printf "overhead ratio bpftrace-rec/bpfcollect (both record every event): %.2f\n", a / b
	}'
fi
if [ -n "$bpfcollect_report_line" ] && [[ $bpfcollect_events != calls=* ]]; then
	echo "bpfcollect report, bench_hot:"
	printf '    | %s\n' "$bpfcollect_report_line"
fi

if [ $bpftrace_counts_bad = 1 ]; then
	echo
	echo "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!"
	echo "!! WARNING: bpftrace did not count $calls entries and $calls returns in every"
	echo "!! run (see the runs above): probes were missed, its numbers are not valid."
	echo "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!"
fi
exit $broken
