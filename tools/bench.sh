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
# A second section, "capture", measures the cost per hit of argument
# capture: `bench M str` calls bench_str(s) M times with a fixed 32-byte
# string, untraced, under bpftrace printing str(arg0) to a file (-o), and
# under `bpfcollect record --arg 'bench_str@arg1/s'` (which writes its
# experiment to disk). Both capture 64 bytes at most (bpftrace's default
# BPFTRACE_STRLEN, bpfcollect's --string-size, both set explicitly). Every
# run is checked: bpftrace's file must hold M lines equal to the string,
# bpfcollect's experiment M calls of bench_str, each entry with arg1 equal
# to the string. bpfcollect also records the return of every call (an entry
# and a return event per call) where the bpftrace program fires at entry
# only, so the comparison is conservative for bpfcollect.
#
# Environment: BENCH_CALLS (N, default 2000000), BENCH_RUNS (default 3),
# BENCH_CAP_CALLS (M, default 200000; 0 skips the capture section),
# CC (to build the target when BUILD_DIR does not have it or it is older
# than its source).
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
cap_calls=${BENCH_CAP_CALLS:-200000}
[[ $calls =~ ^[1-9][0-9]*$ ]] || die "BENCH_CALLS must be a positive integer, not '$calls'"
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "BENCH_RUNS must be a positive integer, not '$runs'"
[[ $cap_calls =~ ^(0|[1-9][0-9]*)$ ]] ||
	die "BENCH_CAP_CALLS must be a non-negative integer, not '$cap_calls'"
# The argument of bench_str, BENCH_STRING in tests/targets/bench.c: keep
# them equal. Letters, digits and '-' only, so it is also its own regex.
cap_string=bpfcollect-bench-capture-32bytes
# Bytes of string both tracers capture at most (more than the string).
cap_strlen=64

tmp=$(mktemp -d "${TMPDIR:-/tmp}/bpfcollect-bench.XXXXXX") || die "mktemp failed"
trap 'rm -rf "$tmp"' EXIT

# ---------------------------------------------------------------- the target
target=$build_dir/tests/targets/bench
# `make bench` does not build the target itself: rebuild it here when it is
# missing or older than its source (an old one has no `str` mode).
if [ ! -x "$target" ] || [ "$repo_dir/tests/targets/bench.c" -nt "$target" ] ||
	[ "$repo_dir/tests/targets/traced.h" -nt "$target" ]; then
	# The same flags tests/tests.mk uses, so the result is the same binary.
	if [ -e "$target" ]; then
		echo "bench: $target older than its source, rebuilding it"
	else
		echo "bench: $target missing, building it from tests/targets/bench.c"
	fi
	mkdir -p "$(dirname "$target")" || die "cannot create $(dirname "$target")"
	"${CC:-cc}" -std=gnu11 -Wall -Wextra -Werror -g -O2 -fno-omit-frame-pointer -fno-inline \
		-pthread -o "$target" "$repo_dir/tests/targets/bench.c" || die "cannot build $target"
fi
# uprobe specs want an absolute path.
target=$(realpath "$target")

# The numbers only mean what they say if bench_hot and bench_str start with
# push %rbp, which the kernel emulates; any other first instruction is
# single-stepped and costs ten times more per hit (see
# tests/targets/bench.c). objdump is optional here: without it the check is
# skipped.
# first_insn_of SYMBOL: prints SYMBOL's first instruction ("unknown" when
# it cannot tell) and warns when it is not push %rbp.
first_insn_of() {
	local insn=unknown
	if command -v objdump >/dev/null 2>&1; then
		insn=$(objdump -d --no-show-raw-insn "$target" 2>/dev/null |
			awk -v sym="<$1>:" '$NF == sym { getline; sub(/^[ \t]*[0-9a-f]+:[ \t]*/, ""); gsub(/[ \t]+/, " "); print; exit }')
		insn=${insn:-unknown}
		if [[ ! $insn =~ ^push[[:space:]]+%rbp ]]; then
			echo "bench: WARNING: $1 starts with '$insn', not 'push %rbp':" >&2
			echo "bench: WARNING: uprobe hits are single-stepped, overheads will be ~10x higher" >&2
		fi
	fi
	echo "$insn"
}
first_insn=$(first_insn_of bench_hot)

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

# ---------------------------------------------------------------- capture
# The cost per hit of capturing a string argument: bench_str(s) M times,
# untraced, under bpftrace printing str(arg0) to a file, and under bpfcollect
# capturing arg1 as a string. Interleaved and checked as above; the target's
# loop time alone is compared, all rows run M calls.
[ "$cap_calls" -gt 0 ] || exit $broken

run_cap_untraced() {
	local start end
	start=$(now_ns)
	"$target" "$cap_calls" str >"$tmp/cap-untraced.out" 2>&1
	local rc=$?
	end=$(now_ns)
	wall=$((end - start))
	elapsed=$(value_of elapsed_ns= "$tmp/cap-untraced.out")
	[ $rc -eq 0 ] && [ -n "$elapsed" ]
}

# Sets $cap_bt_check to "LINES EQUAL": the lines bpftrace wrote (without its
# "Attaching 1 probe..." header) and how many of them equal the string.
run_cap_bpftrace() {
	local prog start end
	prog="uprobe:$target:bench_str { printf(\"%s\\n\", str(arg0)); }"
	rm -f "$tmp/cap-bpftrace.lines"
	start=$(now_ns)
	BPFTRACE_STRLEN=$cap_strlen bpftrace -o "$tmp/cap-bpftrace.lines" -e "$prog" \
		-c "$target $cap_calls str" >"$tmp/cap-bpftrace.out" 2>"$tmp/cap-bpftrace.err"
	local rc=$?
	end=$(now_ns)
	wall=$((end - start))
	elapsed=$(value_of elapsed_ns= "$tmp/cap-bpftrace.out")
	cap_bt_check=$(awk -v s="$cap_string" '
		NR == 1 && /^Attaching [0-9]+ probes?\.\.\.$/ { next }
		{ n++; if ($0 == s) eq++ }
		END { print n + 0, eq + 0 }' "$tmp/cap-bpftrace.lines" 2>/dev/null)
	[ $rc -eq 0 ] && [ -n "$elapsed" ]
}

# Sets $cap_bc_check to "CALLS CAPTURED": the calls of bench_str in the
# functions view and the entries of bench_str whose arg1 is the string in
# the events view (empty when a report fails).
run_cap_bpfcollect() {
	local start end
	rm -rf "$tmp/c.er" "$tmp/cap-report.out" "$tmp/cap-events.out"
	start=$(now_ns)
	"$build_dir/bpfcollect" record -q -o "$tmp/c.er" -u bench_str \
		--arg 'bench_str@arg1/s' --string-size="$cap_strlen" -- "$target" "$cap_calls" str \
		>"$tmp/cap-bpfcollect.out" 2>&1
	local rc=$?
	end=$(now_ns)
	wall=$((end - start))
	elapsed=$(value_of elapsed_ns= "$tmp/cap-bpfcollect.out")
	[ $rc -eq 0 ] && [ -n "$elapsed" ] && [ -e "$tmp/c.er" ] || return 1
	local n_calls n_captured
	cap_bc_check=""
	"$build_dir/bpfcollect" report "$tmp/c.er" functions >"$tmp/cap-report.out" 2>&1 &&
		n_calls=$(awk '$NF == "bench_str" { print $1; exit }' "$tmp/cap-report.out") &&
		"$build_dir/bpfcollect" report "$tmp/c.er" events >"$tmp/cap-events.out" 2>&1 &&
		n_captured=$(grep -c " entry bench_str .*arg1=\"$cap_string\"" "$tmp/cap-events.out")
	# grep -c exits 1 when it counts 0: that is a result, not a failure.
	[ -n "${n_captured:-}" ] && cap_bc_check="${n_calls:-0} $n_captured"
	return 0
}

echo
echo "bench: capture: $cap_calls calls of bench_str(\"$cap_string\")" \
	"(first instruction: $(first_insn_of bench_str)), $runs runs each, interleaved"
cap_untraced_elapsed=() cap_untraced_wall=()
cap_bpftrace_elapsed=() cap_bpftrace_wall=()
cap_bpfcollect_elapsed=() cap_bpfcollect_wall=()
cap_have_bpftrace=$have_bpftrace
cap_have_bpfcollect=$have_bpfcollect
cap_bpftrace_bad=0 cap_bpfcollect_bad=0
cap_bpftrace_what="" cap_bpfcollect_what=""
[ $cap_have_bpftrace = 1 ] || echo "bpftrace: not available, capture row skipped"
[ $cap_have_bpfcollect = 1 ] || echo "bpfcollect: not available, capture row skipped"

for round in $(seq 1 "$runs"); do
	line="  run $round:"

	run_cap_untraced || {
		echo "bench: the untraced target failed (bench $cap_calls str):"
		show_output "$tmp/cap-untraced.out"
		exit 1
	}
	cap_untraced_elapsed+=("$elapsed") cap_untraced_wall+=("$wall")
	line+=$(printf ' untraced %.1f ms' "$(awk -v n="$elapsed" 'BEGIN { print n / 1e6 }')")

	if [ $cap_have_bpftrace = 1 ]; then
		if run_cap_bpftrace; then
			cap_bpftrace_elapsed+=("$elapsed") cap_bpftrace_wall+=("$wall")
			read -r n_lines n_equal <<<"${cap_bt_check:-0 0}"
			line+=$(printf ', bpftrace %.1f ms (%s lines, %s equal)' \
				"$(awk -v n="$elapsed" 'BEGIN { print n / 1e6 }')" "$n_lines" "$n_equal")
			if [ "$n_lines" = "$cap_calls" ] && [ "$n_equal" = "$cap_calls" ]; then
				cap_bpftrace_what="$cap_calls lines, all = the string"
			else
				cap_bpftrace_bad=1
			fi
		else
			echo "bench: bpftrace (capture) failed:"
			show_output "$tmp/cap-bpftrace.out"
			show_output "$tmp/cap-bpftrace.err"
			cap_have_bpftrace=0
			broken=1
		fi
	fi

	if [ $cap_have_bpfcollect = 1 ]; then
		if run_cap_bpfcollect; then
			cap_bpfcollect_elapsed+=("$elapsed") cap_bpfcollect_wall+=("$wall")
			read -r n_calls n_captured <<<"${cap_bc_check:-}"
			line+=$(printf ', bpfcollect %.1f ms (calls=%s, %s arg1 equal)' \
				"$(awk -v n="$elapsed" 'BEGIN { print n / 1e6 }')" \
				"${n_calls:-?}" "${n_captured:-?}")
			if [ "${n_calls:-}" = "$cap_calls" ] && [ "${n_captured:-}" = "$cap_calls" ]; then
				cap_bpfcollect_what="calls=$cap_calls, every arg1 = the string"
			else
				cap_bpfcollect_bad=1
				if [ -z "${cap_bc_check:-}" ]; then
					echo "bench: bpfcollect report failed:"
					show_output "$tmp/cap-report.out"
					[ ! -e "$tmp/cap-events.out" ] || show_output "$tmp/cap-events.out"
				fi
			fi
		else
			echo "bpfcollect: capture not available (record failed or produced no experiment; output follows)"
			show_output "$tmp/cap-bpfcollect.out"
			cap_have_bpfcollect=0
		fi
	fi
	echo "$line"
done

cap_base=$(median "${cap_untraced_elapsed[@]}")

# cap_row TOOL WHAT WALL ELAPSED...: one row of the capture table; sets
# $overhead (ns per call, or empty).
cap_row() {
	local tool=$1 what=$2 wall_med=$3 med
	shift 3
	overhead=""
	if [ $# -eq 0 ]; then
		printf '%-12s %16s\n' "$tool" "not available"
		return
	fi
	med=$(median "$@")
	if [ "$tool" != untraced ]; then
		overhead=$(awk -v t="$med" -v b="$cap_base" -v n="$cap_calls" \
			'BEGIN { printf "%.1f", (t - b) / n }')
	fi
	printf '%-12s %13.1f ms %18s %10.2f s  %s\n' "$tool" \
		"$(awk -v n="$med" 'BEGIN { print n / 1e6 }')" "${overhead:+$overhead ns}" \
		"$(awk -v n="$wall_med" 'BEGIN { print n / 1e9 }')" "$what"
}

echo
echo "capture of a ${#cap_string}-byte string argument, $cap_calls calls (bpftrace: entry only;"
echo "bpfcollect: entry with the string and return, conservative for bpfcollect)"
printf '%-12s %16s %18s %12s  %s\n' tool "loop (median)" "overhead per call" "wall (med.)" \
	"captured / checked"
cap_row untraced "-" "$(median "${cap_untraced_wall[@]}")" "${cap_untraced_elapsed[@]}"
cap_bpftrace_overhead=""
if [ ${#cap_bpftrace_elapsed[@]} -eq "$runs" ]; then
	[ $cap_bpftrace_bad = 0 ] || cap_bpftrace_what="CHECK FAILED (see the runs above)"
	cap_row bpftrace "$cap_bpftrace_what" "$(median "${cap_bpftrace_wall[@]}")" \
		"${cap_bpftrace_elapsed[@]}"
	cap_bpftrace_overhead=$overhead
else
	cap_row bpftrace "" ""
fi
cap_bpfcollect_overhead=""
if [ ${#cap_bpfcollect_elapsed[@]} -eq "$runs" ]; then
	[ $cap_bpfcollect_bad = 0 ] || cap_bpfcollect_what="CHECK FAILED (see the runs above)"
	cap_row bpfcollect "$cap_bpfcollect_what" "$(median "${cap_bpfcollect_wall[@]}")" \
		"${cap_bpfcollect_elapsed[@]}"
	cap_bpfcollect_overhead=$overhead
else
	cap_row bpfcollect "" ""
fi

echo
if [ -n "$cap_bpftrace_overhead" ] && [ -n "$cap_bpfcollect_overhead" ]; then
	cap_invalid=""
	[ $cap_bpftrace_bad = 0 ] && [ $cap_bpfcollect_bad = 0 ] ||
		cap_invalid=" (not valid: a check failed)"
	awk -v a="$cap_bpftrace_overhead" -v b="$cap_bpfcollect_overhead" -v note="$cap_invalid" 'BEGIN {
		if (b > 0)
			printf "capture overhead ratio bpftrace/bpfcollect: %.2f%s\n", a / b, note
		else
			printf "capture overhead ratio bpftrace/bpfcollect: n/a (bpfcollect overhead %.1f ns)\n", b
	}'
else
	echo "capture overhead ratio bpftrace/bpfcollect: n/a"
fi

if [ $cap_bpftrace_bad = 1 ] || [ $cap_bpfcollect_bad = 1 ]; then
	echo
	echo "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!"
	[ $cap_bpftrace_bad = 0 ] ||
		echo "!! WARNING: bpftrace did not write $cap_calls lines equal to the string in every run."
	[ $cap_bpfcollect_bad = 0 ] ||
		echo "!! WARNING: bpfcollect did not record $cap_calls calls with arg1 equal to the string in every run."
	echo "!! Events were lost or captured wrong (see the runs above): the capture"
	echo "!! numbers of that tool are not valid."
	echo "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!"
fi
exit $broken
