#!/usr/bin/env bash
# System-wide recording on a busy machine, and the start-up of a recording,
# side by side with perf and bpftrace.
#
#   tools/bench-system.sh BUILD_DIR        (run by `make bench`)
#
# Part 1, a busy machine. BUILD_DIR/tests/targets/spawnload starts RATE
# short processes a second (default 300, at random times; half fork+exec of
# /bin/true, half posix_spawn of a shell counting to 400), bounded in count
# and time. Under that load each recorder records the whole machine for
# WINDOW seconds (default 2):
#   bpfcollect   record -a -t WINDOW -p on          (clock profile, every process)
#   bpfcollect-INT  the same without -t, ended by SIGINT after WINDOW (Ctrl-C)
#   perf-g       perf record -a -g -F 100 -- sleep WINDOW
#   perf-sched   perf sched record -- sleep WINDOW
# and the table shows, median of BENCH_RUNS (default 3) interleaved runs:
#   exit_s     from the end of the window (or the SIGINT) to the recorder's exit (its window
#              starts when bpfcollect says "tracing every process", or when
#              perf's workload, sleep, has been exec'd: polled every 10 ms)
#   MB         bytes written (experiment directory, perf.data)
#   KB/proc    bytes per process the recording holds (pids in its own data)
#   cpu_s      the recorder's user+system CPU seconds (perf's include writing
#              perf.data; sleep itself uses none)
#   open_s     its reader's time to open the result: gprofng display text
#              -functions, perf report --stdio, perf sched latency
#   ok         whether that reader opened it without errors
#
# Part 2, start-up. BUILD_DIR/tests/targets/startstamp prints the wall time
# at the start of its main. The time from starting the command line to that
# moment, median of BENCH_START_RUNS (default 7):
#   untraced     the program alone (the floor: fork and exec)
#   bpfcollect   record -q -A off -u BIN:tgt_once -- BIN
#   bpftrace     bpftrace -e 'uprobe:BIN:tgt_once {}' -c BIN
#
# Environment: BENCH_RATE, BENCH_WINDOW, BENCH_RUNS, BENCH_START_RUNS.
# A measurement, not a test: it exits non-zero only when it cannot measure.
set -u

die() {
	echo "bench-system: $*" >&2
	exit 1
}

[ $# -eq 1 ] || {
	echo "usage: $0 BUILD_DIR" >&2
	exit 2
}
build_dir=$(cd "$1" && pwd) || die "no build directory $1"
rate=${BENCH_RATE:-300}
window=${BENCH_WINDOW:-2}
runs=${BENCH_RUNS:-3}
start_runs=${BENCH_START_RUNS:-7}
bc=$build_dir/bpfcollect
load=$build_dir/tests/targets/spawnload
stamp=$build_dir/tests/targets/startstamp
for f in "$bc" "$load" "$stamp"; do
	[ -x "$f" ] || die "$f missing: make $f"
done
[[ $rate =~ ^[1-9][0-9]*$ ]] || die "BENCH_RATE must be a positive integer"
[[ $window =~ ^[1-9][0-9]*$ ]] || die "BENCH_WINDOW must be a positive integer (seconds)"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bpfcollect-system.XXXXXX") || die "mktemp failed"
loadpid=
cleanup() {
	[ -n "$loadpid" ] && kill "$loadpid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

now() { echo "$EPOCHREALTIME"; }
sub() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a - b }'; }

have_perf=yes
perf record -o "$tmp/probe.data" -e cpu-clock -- true >/dev/null 2>&1 || have_perf=no

# One recording under load: prints "exit_s MB KB/proc cpu_s open_s ok".
record_under_load() {
	local kind=$1 d="$tmp/$1" t_start= t_end pid out procs cpu bytes open_s ok=yes
	rm -rf "$d" && mkdir -p "$d"
	"$load" "$rate" $((window * 3 + 20)) >/dev/null &
	loadpid=$!
	sleep 0.5
	case $kind in
	bpfcollect | bpfcollect-INT)
		local limit=(-t "$window")
		[ "$kind" = bpfcollect-INT ] && limit=()
		/usr/bin/time -f "%U %S" -o "$d/time" "$bc" record -a "${limit[@]}" -p on \
			-o "$d/sys.er" >/dev/null 2>"$d/err" &
		pid=$!
		while kill -0 "$pid" 2>/dev/null; do
			grep -q "tracing every process" "$d/err" && {
				t_start=$(now)
				break
			}
			sleep 0.01
		done
		if [ "$kind" = bpfcollect-INT ] && [ -n "$t_start" ]; then
			sleep "$window"
			t_start=$(sub "$(now)" "$window") # the window ends with the signal
			pkill -INT -P "$pid" -x bpfcollect
		fi
		out="$d/sys.er"
		;;
	perf-g | perf-sched)
		if [ "$kind" = perf-g ]; then
			/usr/bin/time -f "%U %S" -o "$d/time" perf record -q -o "$d/perf.data" \
				-a -g -F 100 -- sleep "$window" >/dev/null 2>"$d/err" &
		else
			/usr/bin/time -f "%U %S" -o "$d/time" perf sched record -o "$d/perf.data" \
				-- sleep "$window" >/dev/null 2>"$d/err" &
		fi
		pid=$!
		while kill -0 "$pid" 2>/dev/null; do
			pgrep -x sleep -P "$(pgrep -x perf -P "$pid" | head -1)" >/dev/null 2>&1 && {
				t_start=$(now)
				break
			}
			sleep 0.01
		done
		out="$d/perf.data"
		;;
	esac
	wait "$pid"
	t_end=$(now)
	kill "$loadpid" 2>/dev/null
	wait "$loadpid" 2>/dev/null
	loadpid=
	[ -n "$t_start" ] || {
		echo "- - - - - failed"
		return
	}
	bytes=$(du -sb "$out" | awk '{ print $1 }')
	cpu=$(awk 'NR == 1 { printf "%.2f", $1 + $2 }' "$d/time")
	local t0 t1
	t0=$(now)
	case $kind in
	bpfcollect | bpfcollect-INT)
		gprofng display text -functions "$out" >"$d/open" 2>&1 || ok=no
		grep -qiE "error|warning" "$d/open" && ok=no
		procs=$("$bc" report "$out" header 2>/dev/null |
			sed -n 's/^Process: .* \([0-9][0-9]*\) processes.*/\1/p')
		;;
	perf-g)
		perf report -i "$out" --stdio >"$d/open" 2>/dev/null || ok=no
		procs=$(perf script -i "$out" -F pid 2>/dev/null | sort -u | wc -l)
		;;
	perf-sched)
		perf sched latency -i "$out" >"$d/open" 2>/dev/null || ok=no
		procs=$(perf script -i "$out" -F pid 2>/dev/null | sort -u | wc -l)
		;;
	esac
	t1=$(now)
	open_s=$(sub "$t1" "$t0")
	# the reader's time is not part of the recorder's exit
	printf "%s %.1f %.1f %s %s %s\n" "$(sub "$t_end" "$(sub "$t_start" "-$window")")" \
		"$(awk -v b="$bytes" 'BEGIN { print b / 1e6 }')" \
		"$(awk -v b="$bytes" -v p="${procs:-0}" 'BEGIN { print p ? b / 1e3 / p : 0 }')" \
		"$cpu" "$open_s" "$ok"
}

median_col() { # median_col FILE COLUMN
	awk -v c="$2" '{ print $c }' "$1" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

echo "== system-wide recording under $rate short processes/s, ${window} s window, $runs runs"
kinds="bpfcollect bpfcollect-INT"
[ "$have_perf" = yes ] && kinds+=" perf-g perf-sched"
[ "$have_perf" = yes ] || echo "(perf cannot record here: its rows are skipped)"
for _ in $(seq "$runs"); do
	for k in $kinds; do
		record_under_load "$k" >>"$tmp/rows.$k"
	done
done
printf "%-12s %8s %8s %9s %7s %8s %4s\n" recorder exit_s MB KB/proc cpu_s open_s ok
for k in $kinds; do
	f="$tmp/rows.$k"
	printf "%-12s %8s %8s %9s %7s %8s %4s\n" "$k" "$(median_col "$f" 1)" \
		"$(median_col "$f" 2)" "$(median_col "$f" 3)" "$(median_col "$f" 4)" \
		"$(median_col "$f" 5)" "$(awk '$6 != "yes" { bad = 1 } END { print bad ? "NO" : "yes" }' "$f")"
done

echo
echo "== start-up: from the command line to the traced program's main, $start_runs runs"
start_ms() { # start_ms COMMAND...: ms from now to the program's main
	local t0 out
	t0=$(now)
	out=$("$@" 2>/dev/null | sed -n 's/^main_ns=//p')
	[ -n "$out" ] || {
		echo "-"
		return
	}
	awk -v m="$out" -v t="$t0" 'BEGIN { printf "%.1f", (m / 1e9 - t) * 1000 }'
}
starts="untraced bpfcollect"
command -v bpftrace >/dev/null && starts+=" bpftrace"
for _ in $(seq "$start_runs"); do
	for k in $starts; do
		case $k in
		untraced) start_ms "$stamp" ;;
		bpfcollect) (cd "$tmp" && start_ms "$bc" record -q -A off -o "$tmp/s.er" \
			-u "$stamp:tgt_once" -- "$stamp") && rm -rf "$tmp/s.er" ;;
		bpftrace) start_ms bpftrace -e "uprobe:$stamp:tgt_once {}" -c "$stamp" ;;
		esac >>"$tmp/start.$k"
		echo >>"$tmp/start.$k"
	done
done
floor=$(grep -v '^-*$' "$tmp/start.untraced" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
printf "%-12s %10s %10s\n" "" ms_to_main x_floor
for k in $starts; do
	m=$(grep -v '^-*$' "$tmp/start.$k" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
	printf "%-12s %10s %10s\n" "$k" "${m:--}" \
		"$(awk -v m="${m:-0}" -v f="$floor" 'BEGIN { if (f > 0 && m > 0) printf "%.1f", m / f; else print "-" }')"
done
