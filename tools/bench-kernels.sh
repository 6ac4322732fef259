#!/usr/bin/env bash
# What the older kernels' fallbacks cost: per-call overhead of a probed
# function, and the time to attach and detach 1,000 functions, with
# uprobe_multi links and with one perf uprobe per function (6.1 has no
# uprobe_multi), side by side.
#
#   tools/bench-kernels.sh BUILD_DIR          (run by `make bench`)
#
# Rows: this machine's kernel with uprobe_multi and with --no-uprobe-multi;
# then Debian's 6.12 and 6.1 kernels booted under qemu (tools/kernel-vm.sh;
# skipped with a line when it cannot boot them). The guests run under TCG,
# so their absolute times are not this machine's: compare 6.1 with 6.12,
# which run under the same emulation, and the host's two rows with each
# other. Ratios are printed for both pairs.
#
# Per call: BUILD_DIR/tests/targets/bench calls bench_hot() (first
# instruction push %rbp: emulated, not single-stepped) N times and prints the
# loop's time; (median traced - median untraced) / N, runs interleaved.
# Attach and detach: a generated program with 1,000 functions calls each
# once; it prints CLOCK_MONOTONIC at main and at exit, and the script takes
# it before `record` starts and after it ends. Attach is record start to
# main, detach is the program's exit to record's end, each less the same for
# a recording of one function (so loading the programs and writing the
# experiment cancel out). Probes gone is the program's exit to the moment
# bpftool lists no uprobe link: without uprobe_multi, a launched command's
# probes are removed by the detacher after the recording has ended.
#
# Environment: BENCH_RUNS (default 3), BENCH_CALLS (host, default 200000),
# BENCH_VM_CALLS (guests, default 20000), KERNEL_SERIES (default "6.12 6.1").
set -u

die() {
	echo "bench-kernels: $*" >&2
	exit 1
}

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "-" }'; }

# The 1,000-function program, generated once into BUILD/tools/.
many_funcs() { # many_funcs BUILD: prints its path
	local src="$1/tools/manyfuncs.c" bin="$1/tools/manyfuncs" i
	if [ ! -x "$bin" ] || [ "$bin" -ot "$0" ]; then
		mkdir -p "$1/tools"
		{
			echo '#include <stdio.h>'
			echo '#include <string.h>'
			echo '#include <time.h>'
			echo 'static long long now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1000000000LL + t.tv_nsec; }'
			echo 'static volatile int sink;'
			for i in $(seq -w 0 999); do echo "__attribute__((noinline)) void mf_$i(void) { sink++; }"; done
			echo 'int main(int argc, char **argv) {'
			echo '	if (argc > 1 && !strcmp(argv[1], "now")) { printf("%lld\n", now()); return 0; }'
			echo '	printf("main_ns %lld\n", now());'
			for i in $(seq -w 0 999); do echo "	mf_$i();"; done
			echo '	printf("end_ns %lld\n", now());'
			echo '	return 0;'
			echo '}'
		} >"$src"
		${CC:-cc} -O2 -fno-omit-frame-pointer -fno-inline -o "$bin" "$src" || die "cannot build $bin"
	fi
	echo "$bin"
}

# uprobe links in the system (each recording here is the only one).
uprobe_links() { bpftool link show 2>/dev/null | grep -cE '^[0-9]+: (perf_event|uprobe_multi) '; }

# One recording of the program with -u PATTERN: "attach_ms detach_ms gone_ms",
# gone being when the last probe was really removed (a detacher may finish
# the removal after the recording has ended).
attach_detach() { # attach_detach BC MANY PATTERN [RECORD-OPTION...]
	local bc=$1 many=$2 pat=$3 before after gone out
	shift 3
	out=$(mktemp -d)
	before=$("$many" now)
	"$bc" record -q -o "$out/m.er" "$@" -u "$pat" -- "$many" >"$out/out" 2>"$out/err" || {
		cat "$out/err" >&2
		rm -rf "$out"
		return 1
	}
	after=$("$many" now)
	for _ in $(seq 6000); do
		[ "$(uprobe_links)" = 0 ] && break
		sleep 0.05
	done
	gone=$("$many" now)
	awk -v b="$before" -v a="$after" -v g="$gone" '$1 == "main_ns" { m = $2 } $1 == "end_ns" { e = $2 }
		END { printf "%.1f %.1f %.1f\n", (m - b) / 1e6, (a - e) / 1e6, (g - e) / 1e6 }' "$out/out"
	rm -rf "$out"
}

# One row: "per_call_us attach_ms detach_ms gone_ms" for the given record options.
measure() { # measure BUILD CALLS RUNS [RECORD-OPTION...]
	local build=$1 calls=$2 runs=$3 bc="$1/bpfcollect" bench="$1/tests/targets/bench" many
	shift 3
	many=$(many_funcs "$build")
	local r base=() traced=() a1=() d1=() an=() dn=() gn=() t a d g
	for r in $(seq "$runs"); do
		base+=("$("$bench" "$calls" | sed -n 's/^elapsed_ns=//p')")
		t=$(mktemp -d)
		traced+=("$("$bc" record -q -o "$t/b.er" "$@" -u bench_hot -- "$bench" "$calls" |
			sed -n 's/^elapsed_ns=//p')")
		rm -rf "$t"
		read -r a d g < <(attach_detach "$bc" "$many" main "$@") || return 1
		a1+=("$a") d1+=("$d")
		read -r a d g < <(attach_detach "$bc" "$many" 'mf_*' "$@") || return 1
		an+=("$a") dn+=("$d") gn+=("$g")
	done
	local b tr
	b=$(printf '%s\n' "${base[@]}" | median)
	tr=$(printf '%s\n' "${traced[@]}" | median)
	awk -v b="$b" -v t="$tr" -v n="$calls" -v a1="$(printf '%s\n' "${a1[@]}" | median)" \
		-v an="$(printf '%s\n' "${an[@]}" | median)" -v d1="$(printf '%s\n' "${d1[@]}" | median)" \
		-v dn="$(printf '%s\n' "${dn[@]}" | median)" -v gn="$(printf '%s\n' "${gn[@]}" | median)" \
		'BEGIN { printf "%.3f %.1f %.1f %.1f\n", (t - b) / n / 1000, an - a1, dn - d1, gn }'
}

if [ "${1:-}" == --inside ]; then
	# in a guest: one row per attach mode this kernel has
	build=$2
	calls=$3
	runs=$4
	if "$build/bpfcollect" version --features | grep -qE '^uprobe_multi +yes'; then
		echo "row uprobe_multi $(measure "$build" "$calls" "$runs")"
	else
		echo "row perf_uprobes $(measure "$build" "$calls" "$runs")"
	fi
	exit 0
fi

[ $# -eq 1 ] || {
	echo "usage: $0 BUILD_DIR" >&2
	exit 2
}
BUILD=$(cd "$1" && pwd) || die "no build directory $1"
[ -x "$BUILD/bpfcollect" ] && [ -x "$BUILD/tests/targets/bench" ] || die "build it first (make bench)"
[ "$(id -u)" = 0 ] || die "needs root"
RUNS=${BENCH_RUNS:-3}
many_funcs "$BUILD" >/dev/null

echo "== kernels: per call (push %rbp) and attach/detach of 1,000 functions, medians of $RUNS"
printf '%-20s %-13s %10s %12s %12s %12s\n' kernel attach "per call" "attach 1000" "detach 1000" "probes gone"
declare -A row
host="$(uname -r | cut -d- -f1) host"
line() { printf '%-20s %-13s %7s us %9s ms %9s ms %9s ms\n' "$@"; }
read -r pc at de go < <(measure "$BUILD" "${BENCH_CALLS:-200000}" "$RUNS")
row[host_multi]="$pc $at $de $go"
line "$host" uprobe_multi "$pc" "$at" "$de" "$go"
read -r pc at de go < <(measure "$BUILD" "${BENCH_CALLS:-200000}" "$RUNS" --no-uprobe-multi)
row[host_perf]="$pc $at $de $go"
line "$host" perf_uprobes "$pc" "$at" "$de" "$go"

for s in ${KERNEL_SERIES:-6.12 6.1}; do
	out=$(mktemp -d)
	if ! "$(dirname "$0")/kernel-vm.sh" run "$s" "$out" -t 1800 -- "$(cd "$(dirname "$0")" && pwd)/bench-kernels.sh" \
		--inside "$BUILD" "${BENCH_VM_CALLS:-20000}" "$RUNS" >"$out/log" 2>&1; then
		echo "$s: skipped, the guest did not run (tools/kernel-vm.sh; make kernels installs it): $(tail -1 "$out/log")"
		rm -rf "$out"
		continue
	fi
	read -r _ mode pc at de go < <(grep '^row ' "$out/log")
	row["$s"]="$pc $at $de $go"
	line "$s TCG guest" "$mode" "$pc" "$at" "$de" "$go"
	rm -rf "$out"
done

# A's field over B's; "-" when either is not above zero (a difference within noise)
ratio() { # ratio "A..." "B..." FIELD
	awk -v a="$1" -v b="$2" -v f="$3" 'BEGIN { split(a, x, " "); split(b, y, " ");
		if (x[f] > 0 && y[f] > 0) printf "%.2fx", x[f] / y[f]; else printf "-" }'
}
ratios() { # ratios ROW_A ROW_B
	echo "per call $(ratio "$1" "$2" 1), attach $(ratio "$1" "$2" 2), detach $(ratio "$1" "$2" 3)," \
		"probes gone $(ratio "$1" "$2" 4)"
}
echo "host, perf uprobes / uprobe_multi: $(ratios "${row[host_perf]}" "${row[host_multi]}")"
if [ -n "${row[6.1]:-}" ] && [ -n "${row[6.12]:-}" ]; then
	echo "guests, 6.1 (perf uprobes) / 6.12 (uprobe_multi): $(ratios "${row[6.1]}" "${row[6.12]}")"
fi
