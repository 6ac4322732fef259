#!/usr/bin/env bash
# Integration tests: the real bpfcollect binary loads its real BPF programs
# and traces targets built by the suite (tests/targets/). Needs root.
#
# usage: tests/integration/run.sh [BUILD_DIR] [TEST_NAME...]
#   BUILD_DIR defaults to the repository's build/ (what `make` builds); with
#   no TEST_NAME every test runs. Each test creates what it reads, so any one
#   runs alone: tests/integration/run.sh formats
# Prints one line per check and closes with "N passed, N failed".
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
if [ $# -gt 0 ] && [ -d "$1" ]; then
	BUILD=$(cd "$1" && pwd)
	shift
else
	BUILD=$(cd "$HERE/../.." && pwd)/build
fi
if [ ! -x "$BUILD/bpfcollect" ]; then
	echo "run.sh: no $BUILD/bpfcollect; build it first (make), or give the build directory" >&2
	exit 2
fi
BC="$BUILD/bpfcollect"
TGT="$BUILD/tests/targets"
# Writes an experiment from synthetic records, without tracing: for the tests of convert alone.
SYNTH="$BUILD/tests/tools/synth-exp"
WORK=$(mktemp -d /tmp/bpfcollect-it.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1

pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   - $*"; }
bad() { fail=$((fail + 1)); echo "FAIL - $*"; }
check() { # check DESCRIPTION COMMAND...
	local d=$1
	shift
	if "$@"; then ok "$d"; else bad "$d"; fi
}
check_eq() { # check_eq DESCRIPTION EXPECTED ACTUAL
	if [ "$2" == "$3" ]; then ok "$1"; else bad "$1: expected '$2', got '$3'"; fi
}

# Stops the agent PID for 1 s after 0.4 s, then waits for it: with a 1-page
# ring, it loses records. Returns the agent's status.
stall_agent() { # stall_agent PID
	sleep 0.4
	kill -STOP "$1"
	sleep 1
	kill -CONT "$1"
	wait "$1"
}

# A recording with a 1-page ring whose agent stalls for 1 s mid-run: it loses records.
record_stalled() { # record_stalled RECORD-ARGS...: runs "$BC" record -q --bufsize=1 ARGS
	"$BC" record -q --bufsize=1 "$@" >/dev/null 2>&1 &
	stall_agent $!
}

# Calls per function from the functions view (first column Calls, last Name).
calls_of() { # calls_of EXP FUNC
	"$BC" report "$1" functions | awk -v f="$2" '$NF == f { print $1; found = 1 } END { if (!found) print 0 }'
}

# Every entry has its return, in order, per thread; prints "ok" or the first problem.
nesting_ok() { # nesting_ok EVENTS_FILE
	awk '
	$6 == "entry"  { st[$3, ++d[$3]] = $7; next }
	$6 == "return" {
		if (d[$3] < 1) { print "return without entry: " $0; bad = 1; exit }
		if (st[$3, d[$3]] != $7) { print "return of " $7 " while " st[$3, d[$3]] " is open: " $0; bad = 1; exit }
		d[$3]--; next }
	END { if (bad) exit; for (t in d) if (d[t]) { print "thread " t " ends with " d[t] " open frames"; exit } print "ok" }' "$1"
}

gprofng_ok() { # gprofng_ok EXP: gprofng opens it with no errors
	local out
	out=$(gprofng display text -header "$1" 2>&1)
	if grep -q "^No errors" <<<"$out" && ! grep -qi "error:" <<<"$out"; then
		return 0
	fi
	echo "$out" | head -20
	return 1
}

# A small experiment of the calls target (20 iterations, one thread) at NAME, for the
# tests that need any experiment to read: each makes its own, so it runs alone.
small_exp() { # small_exp NAME [RECORD_OPTION...]
	local name=$1
	shift
	rm -rf "$name"
	"$BC" record -q -o "$name" "$@" -u 'tgt_*' -- "$TGT/calls" 20 1 >/dev/null 2>&1
}

want() { # run this test? (names given on the command line, or all)
	[ ${#SELECTED[@]} -eq 0 ] && return 0
	local t
	for t in "${SELECTED[@]}"; do [ "$t" == "$1" ] && return 0; done
	return 1
}
SELECTED=("$@")

# ---------------------------------------------------------------- tests
test_calls_threads() {
	echo "# calls: 4 threads x 500 iterations, every function of the executable"
	"$BC" record -q -o calls.er -- "$TGT/calls" 500 4 >calls.out 2>calls.err
	check_eq "record exits with the command's status" 0 $?
	check "experiment opens in gprofng" gprofng_ok calls.er
	local f n
	for f in tgt_worker tgt_outer tgt_middle tgt_inner tgt_fact; do
		n=$(awk -v f="$f" '$1 == f { print $2 }' calls.out)
		check_eq "calls of $f equal the target's own count ($n)" "$n" "$(calls_of calls.er "$f")"
	done
	"$BC" report calls.er events >calls.ev
	check_eq "every entry has its return, in order, per thread" ok "$(nesting_ok calls.ev)"
	local want_tids got_tids
	want_tids=$(awk '$1 == "tid" { print $2 }' calls.out | sort -n | tr '\n' ' ')
	got_tids=$(awk '$6 == "entry" && $7 ~ /^tgt_/ { print $3 }' calls.ev | sort -un | tr '\n' ' ')
	check_eq "function events come from exactly the target's threads" "$want_tids" "$got_tids"
	local pid
	pid=$(awk '$6 == "entry" { print $2 }' calls.ev | sort -u | tr '\n' ' ')
	check_eq "one process id in the function events" 1 "$(wc -w <<<"$pid")"
	check "report names the experiment's command" grep -q "calls 500 4" <("$BC" report calls.er header)
	"$BC" report calls.er calltree >calls.tree
	check_eq "calltree: tgt_inner under tgt_middle under tgt_outer, with every call" \
		"$(awk '$1 == "tgt_inner" { print $2 }' calls.out)" \
		"$(grep -A3 -- '-tgt_outer$' calls.tree | awk '$NF == "+-tgt_inner" { print $3 }' | head -1)"
	"$BC" report calls.er callers-callees tgt_middle >calls.cc
	check_eq "callers-callees: tgt_middle called by tgt_outer every time" \
		"$(awk '$1 == "tgt_middle" { print $2 }' calls.out)" \
		"$(awk '$NF == "tgt_outer" { print $(NF-1) }' calls.cc | head -1)"
	check_eq "callers-callees: tgt_middle calls tgt_inner every time" \
		"$(awk '$1 == "tgt_inner" { print $2 }' calls.out)" \
		"$(awk '$NF == "tgt_inner" { print $(NF-1) }' calls.cc | tail -1)"
	check_eq "threads view: one line per thread of the target" \
		"$(grep -c '^tid ' calls.out)" \
		"$("$BC" report calls.er threads | awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ && $6 ~ /[.]/' | wc -l)"
	local seqgap
	seqgap=$(awk '{ if (($3 in last) && $4 != last[$3] + 1) { print "gap in " $3; exit } last[$3] = $4 }' calls.ev)
	check_eq "per-thread sequence numbers have no gaps" "" "$seqgap"
}

test_uprobe_fallback() {
	echo "# calls with per-function perf uprobes (--no-uprobe-multi)"
	"$BC" record -q --no-uprobe-multi -o fb.er -u 'tgt_*' -- "$TGT/calls" 200 2 >fb.out 2>fb.err
	check_eq "record with perf uprobes exits 0" 0 $?
	local f n
	for f in tgt_outer tgt_inner tgt_fact; do
		n=$(awk -v f="$f" '$1 == f { print $2 }' fb.out)
		check_eq "perf uprobes: calls of $f ($n)" "$n" "$(calls_of fb.er "$f")"
	done
}

test_syscalls() {
	echo "# syscalls: getppid x 300, write x 300 to /dev/null, 3 failing openat"
	"$BC" record -q -o sys.er --syscalls -u 'main' -- "$TGT/sys" 300 >sys.out 2>sys.err
	check_eq "record --syscalls exits 0" 0 $?
	"$BC" report sys.er events >sys.ev
	check_eq "getppid entries" 300 "$(awk '$6 == "sys_enter" && $7 == "getppid"' sys.ev | wc -l)"
	check_eq "getppid exits" 300 "$(awk '$6 == "sys_exit" && $7 == "getppid"' sys.ev | wc -l)"
	local missing
	missing=$(awk '$1 == "missing_path" { print $2 }' sys.out)
	check_eq "failed openat calls with ENOENT" 3 \
		"$(awk '$6 == "sys_exit" && $7 == "openat" && $9 == "err=ENOENT"' sys.ev | wc -l)"
	check "syscalls view shows openat errors" grep -q "ENOENT:3" <("$BC" report sys.er syscalls)
	local writes
	writes=$(awk '$6 == "sys_exit" && $7 == "write" && $8 == "ret=1"' sys.ev | wc -l)
	check "at least 300 one-byte writes ($writes)" test "$writes" -ge 300
	"$BC" record -q -o sys2.er --syscalls=getppid -u main -- "$TGT/sys" 50 >/dev/null 2>&1
	"$BC" report sys2.er events >sys2.ev
	check_eq "--syscalls=getppid records getppid only" "getppid" \
		"$(awk '$6 ~ /^sys_/ { print $7 }' sys2.ev | sort -u | tr -d '\n')"
	check_eq "--syscalls=getppid count" 100 "$(awk '$6 ~ /^sys_/' sys2.ev | wc -l)"
	# Decoded calls, strace-style, with paths read at entry (or, for a page
	# not touched yet, at exit).
	check_eq "openat of a known path, decoded" 1 "$(grep -c \
		' sys_exit openat .* call=openat(AT_FDCWD, "/dev/null", O_WRONLY|O_CLOEXEC) = 3$' sys.ev)"
	check_eq "failing openat decoded with its errno" 3 "$(grep -cF \
		"call=openat(AT_FDCWD, \"$missing\", O_RDONLY|O_CLOEXEC) = -1 ENOENT (No such file or directory)" sys.ev)"
	check_eq "one-byte writes decoded with their size" 300 \
		"$(grep -cE ' sys_exit write .* call=write\(3, 0x[0-9a-f]+, 1\) = 1$' sys.ev)"
	check "loader's openat of libc decoded at entry" \
		grep -q ' sys_enter openat .*call=openat(AT_FDCWD, "/[^"]*libc.so.6", O_RDONLY|O_CLOEXEC)' sys.ev
	"$BC" record -q -o sys3.er --syscalls=openat --string-size=10 -u main -- "$TGT/sys" 1 >/dev/null 2>&1
	check "--string-size cuts syscall paths too" grep -qF \
		"call=openat(AT_FDCWD, \"/nonexiste\"..., O_RDONLY|O_CLOEXEC) = -1 ENOENT" \
		<("$BC" report sys3.er events)
	# Socket peers: connect's at entry, accept's at exit, decoded like strace.
	if [ -x "$TGT/net" ]; then
		"$BC" record -q -o net.er --syscalls=connect,accept,accept4 -u main -- "$TGT/net" >/dev/null 2>&1
		"$BC" report net.er events >net.ev
		check "connect's peer decoded" grep -q \
			' sys_exit connect .*call=connect([0-9]*, {sa_family=AF_INET, sin_port=htons([0-9]*), sin_addr=inet_addr("127.0.0.1")}' net.ev
		check "accept's peer read at exit and decoded" grep -qE \
			' sys_exit accept4? .*call=accept4?\([0-9]+, \{sa_family=AF_INET, sin_port=htons\([0-9]+\), sin_addr=inet_addr\("127.0.0.1"\)\}' net.ev
	fi
	"$BC" record -o true.er --syscalls -- /bin/true >/dev/null 2>true.err
	check_eq "stripped program with --syscalls: recorded" 0 $?
	check "stripped program with --syscalls: says syscalls only" grep -q "syscalls only" true.err
	check "stripped program with --syscalls: exit_group recorded" \
		grep -q " sys_enter exit_group " <("$BC" report true.er events)
}

test_fork_follow() {
	echo "# forker: 3 children, each 4 calls; one grandchild; parent exits 3"
	"$BC" record -q -o fork.er -u 'tgt_*' -- "$TGT/forker" 3 4 >fork.out 2>fork.err
	check_eq "record exits with the command's status (3)" 3 $?
	check_eq "child work calls from children and grandchild" 16 "$(calls_of fork.er tgt_child_work)"
	check_eq "parent work calls" 1 "$(calls_of fork.er tgt_parent_work)"
	"$BC" report fork.er events >fork.ev
	check_eq "processes that called tgt_child_work" 4 \
		"$(awk '$6 == "entry" && $7 == "tgt_child_work" { print $2 }' fork.ev | sort -u | wc -l)"
	check_eq "fork events" 4 "$(awk '$6 == "fork"' fork.ev | wc -l)"
	check_eq "process exits seen" 5 "$(awk '$6 == "exit"' fork.ev | wc -l)"
	"$BC" record -q -F off -o nofollow.er -u 'tgt_*' -- "$TGT/forker" 3 4 >/dev/null 2>&1
	check_eq "-F off: children not traced" 0 "$(calls_of nofollow.er tgt_child_work)"
	check_eq "-F off: parent still traced" 1 "$(calls_of nofollow.er tgt_parent_work)"
}

test_exit_status() {
	echo "# exit status and signals of the command"
	"$BC" record -q -o ex.er -u main -- "$TGT/exitcode" 42 >/dev/null 2>&1
	check_eq "exit status 42 passed through" 42 $?
	"$BC" record -q -o sig.er -u main -- "$TGT/exitcode" sig >/dev/null 2>&1
	check_eq "death by SIGTERM gives 143" 143 $?
	check "header reports the signal" grep -q "killed by signal 15" <("$BC" report sig.er header)
}

test_sigint() {
	echo "# SIGINT stops recording cleanly"
	# Background jobs of a script ignore SIGINT; give both the default back.
	env --default-signal=INT "$BC" record -q -o int.er -u 'tgt_*' -- "$TGT/calls" 100000000 1 \
		>/dev/null 2>int.err &
	local pid=$!
	sleep 1.5
	"$BC" report int.er header functions >int.live 2>&1
	check "report while recording: says the experiment is live" grep -q "live" int.live
	check "report while recording: whole calls already there" \
		test "$(awk '$NF == "tgt_inner" { print $1 }' int.live)" -gt 0
	kill -INT $pid
	wait $pid
	check_eq "SIGINT is passed on; exit status of the interrupted command (130)" 130 $?
	check "interrupted experiment opens in gprofng" gprofng_ok int.er
	check "interrupted experiment is closed" bash -c "! '$BC' report int.er header | grep -q live"
	local n
	n=$(calls_of int.er tgt_inner)
	check "interrupted experiment holds calls ($n)" test "$n" -gt 0

	echo "# SIGINT while the command ignores it and keeps calling probed functions"
	"$BC" record -q -o ign.er -u 'tgt_*' -u libc:getpid -- "$TGT/calls" 1000000000 1 >/dev/null 2>ign.err &
	pid=$!
	sleep 1.5
	local t0=$SECONDS
	kill -INT $pid
	wait $pid
	check_eq "recorder stops with 128+SIGINT though the command lives on" 130 $?
	check "no detach hang: stopped within 10 s ($((SECONDS - t0)) s)" test $((SECONDS - t0)) -le 10
	local target
	target=$(pgrep -f "$TGT/calls 1000000000 1")
	check "the command still runs after detach" test -n "$target"
	[ -n "$target" ] && kill -9 $target
	check "experiment of a still-running command opens in gprofng" gprofng_ok ign.er
}

# Waits up to 30 s for the recorder PID flooded by bench; FLOOD_RC its status. Else kills
# it and the target, says WHAT, and fails.
flood_wait() { # flood_wait PID WHAT
	local n=300
	while [ $n -gt 0 ] && kill -0 "$1" 2>/dev/null; do
		sleep 0.1
		n=$((n - 1))
	done
	if kill -0 "$1" 2>/dev/null; then
		kill -9 "$1"
		pkill -f "$TGT/bench 200000000"
		wait "$1"
		bad "$2"
		return 1
	fi
	wait "$1"
	FLOOD_RC=$?
}

test_flood() {
	echo "# -t under a flood of events: the drain takes the ring in slices, then looks at the clock"
	# bench calls a probed function 200M times: ~1 s untraced, minutes traced.
	"$BC" record -o flood.er -t 1 -u bench_hot -- "$TGT/bench" 200000000 >flood.out 2>flood.err &
	local rp=$!
	flood_wait $rp "record -t 1 still ran 30 s later, the target flooding it" || return
	check_eq "record -t 1 ends: the command ran on untraced and exited 0" 0 "$FLOOD_RC"
	check "and says -t stopped it" grep -q "stopped by -t" flood.err
	local calls
	calls=$("$BC" report flood.er functions | awk '$NF == "bench_hot" { print $1 }')
	check "it recorded the flood's first second (${calls:-0} calls), not all 200M" \
		test "${calls:-0}" -gt 1000 -a "${calls:-0}" -lt 200000000

	echo "# SIGINT under the same flood: the signal is looked at between slices too"
	"$BC" record -o flood2.er -u bench_hot -- "$TGT/bench" 200000000 >flood2.out 2>flood2.err &
	rp=$!
	for _ in $(seq 100); do grep -q "Ctrl-C" flood2.err && break; sleep 0.1; done
	sleep 0.5
	kill -INT $rp
	flood_wait $rp "record still ran 30 s after SIGINT, the target flooding it" || return
	check_eq "SIGINT ends it: passed on, the command's status (130)" 130 "$FLOOD_RC"
	check "the experiment is closed" bash -c "! '$BC' report flood2.er header | grep -q live"
	calls=$("$BC" report flood2.er functions | awk '$NF == "bench_hot" { print $1 }')
	check "it holds what came before the signal (${calls:-0} calls), not all 200M" \
		test "${calls:-0}" -gt 1000 -a "${calls:-0}" -lt 200000000
	check "it opens in gprofng" gprofng_ok flood2.er
}

test_bpftrace_counts() {
	echo "# per-function counts agree with bpftrace on the same run"
	if ! command -v bpftrace >/dev/null; then
		bad "bpftrace not installed (tools/install-deps.sh installs it)"
		return
	fi
	bpftrace -e "uprobe:$TGT/calls:tgt_inner { @[pid] = count(); }
		uprobe:$TGT/calls:tgt_fact { @f[pid] = count(); }" >bt.out 2>&1 &
	local bt=$!
	for _ in $(seq 100); do grep -q Attaching bt.out && break; sleep 0.1; done
	sleep 0.3
	"$BC" record -q -o bt.er -u 'tgt_*' -- "$TGT/calls" 300 3 >/dev/null 2>&1
	kill -INT $bt
	wait $bt
	local pid bt_inner bt_fact
	pid=$("$BC" report bt.er header | awk '$1 == "Process:" { print $3 }' | tr -d ,)
	bt_inner=$(awk -v p="$pid" '$1 == "@[" p "]:" { print $2 }' bt.out)
	bt_fact=$(awk -v p="$pid" '$1 == "@f[" p "]:" { print $2 }' bt.out)
	check_eq "tgt_inner: bpfcollect = bpftrace ($bt_inner)" "$bt_inner" "$(calls_of bt.er tgt_inner)"
	check_eq "tgt_fact: bpfcollect = bpftrace ($bt_fact)" "$bt_fact" "$(calls_of bt.er tgt_fact)"
}

test_demo() {
	echo "# the demo program: threads, fork, exec, syscalls"
	"$BC" record -q -o demo.er --syscalls -- "$BUILD/demo/bcdemo" 2 >demo.out 2>demo.err
	check_eq "demo records and exits 0" 0 $?
	check "demo experiment opens in gprofng" gprofng_ok demo.er
	"$BC" report demo.er >demo.rep
	check "demo report has functions" grep -q "Calls" demo.rep
	check "demo report has syscalls" grep -q "openat" demo.rep
	"$BC" report demo.er events >demo.ev
	check "demo trace has an exec" grep -q " exec " demo.ev
	check "demo trace has a fork" grep -q " fork " demo.ev
	check_eq "demo nesting per thread" ok "$(nesting_ok demo.ev)"
}

test_naming() {
	echo "# experiment naming"
	mkdir -p names && cd names || return
	"$BC" record -q -u main -- "$TGT/exitcode" 0 >/dev/null 2>&1
	"$BC" record -q -u main -- "$TGT/exitcode" 0 >/dev/null 2>&1
	check "default name test.1.er" test -f test.1.er/log.xml
	check "next default name test.2.er" test -f test.2.er/log.xml
	"$BC" record -q -d sub -o run.1.er -u main -- "$TGT/exitcode" 0 >/dev/null 2>&1
	check_eq "-d DIR without the directory fails" 1 $?
	mkdir sub
	"$BC" record -q -d sub -o run.1.er -u main -- "$TGT/exitcode" 0 >/dev/null 2>&1
	check "-d DIR -o NAME" test -f sub/run.1.er/log.xml
	cd ..
}

expect_error() { # expect_error DESCRIPTION PATTERN COMMAND...
	local d=$1 pat=$2 out rc lines
	shift 2
	out=$("$@" 2>&1 >/dev/null)
	rc=$?
	lines=$(printf '%s\n' "$out" | grep -c .)
	if [ $rc -ne 0 ] && [ "$lines" -eq 1 ] && grep -qE -- "$pat" <<<"$out"; then
		ok "$d: $out"
	else
		bad "$d: rc=$rc, output: $out"
	fi
}

test_lost() {
	echo "# a starved agent: the ring overflows, losses are counted and shown as sequence gaps"
	record_stalled -o lost.er -u 'tgt_*' -- "$TGT/calls" 40000 1
	check_eq "record still exits with the command's status" 0 $?
	local lost gaps lostrec
	lost=$("$BC" report lost.er header | awk '$1 == "Events:" { print $4 }')
	check "losses reported in the header ($lost)" test "${lost:-0}" -gt 0
	"$BC" report lost.er events >lost.ev
	# records outside the thread's sequence (seq 0: usage samples, the agent's) are no gap
	gaps=$(awk '$6 != "lost" && $4 != 0 { if ($3 in last) g += $4 - last[$3] - 1; last[$3] = $4 } END { print g + 0 }' lost.ev)
	check_eq "lost events equal the gaps in the per-thread sequences" "$lost" "$gaps"
	lostrec=$(awk '$6 == "lost" { split($8, a, "="); n += a[2] } END { print n + 0 }' lost.ev)
	check_eq "LOST records in the data add up to the header's count" "$lost" "$lostrec"
	check "experiment with losses opens in gprofng" gprofng_ok lost.er
}

# The value of NAME= in a line of the events view (values hold no spaces here but strings).
field() { # field LINE NAME
	sed -n "s/.* $2=\\(\"[^\"]*\"\\(\\.\\.\\.\\)\\{0,1\\}\\|[^ ]*\\).*/\\1/p" <<<"$1"
}

test_args() {
	echo "# arguments and return values captured at entry and return"
	"$BC" record -q -o args.er -u 'tgt_*' \
		--arg 'tgt_ints@arg1/d32,arg2,arg3/u32,arg4/d16,arg5/d8,arg6,retval/d32' \
		--arg 'tgt_ptr@arg1/p' --retval 'tgt_ptr@p' \
		--arg 'tgt_str@arg1/s,retval/s' --arg 'tgt_longstr@arg1/s:1000' --retval tgt_longstr \
		--arg 'tgt_buf@arg1/buf:arg2,arg2/u' --retval 'tgt_buf@d32' \
		--arg 'tgt_mixed@arg1/d32,arg2/s,arg3' --arg 'tgt_unreadable@arg1/s' \
		-- "$TGT/args" 1 >args.out 2>args.err
	check_eq "record with --arg exits 0" 0 $?
	"$BC" report args.er events >args.ev
	local line want got
	read -r _ a b c d e f ret < <(grep '^tgt_ints ' args.out)
	line=$(grep ' entry tgt_ints ' args.ev)
	check_eq "ints: arg1..arg6 as passed (negative, unsigned, narrow)" "$a $b $c $d $e $f" \
		"$(field "$line" arg1) $(field "$line" arg2) $(field "$line" arg3) $(field "$line" arg4) $(field "$line" arg5) $(field "$line" arg6)"
	check_eq "ints: int return value" "${ret#ret=}" "$(field "$(grep ' return tgt_ints ' args.ev)" retval)"
	read -r _ ptr ret < <(grep '^tgt_ptr ' args.out | head -1)
	check_eq "pointer argument" "$ptr" "$(field "$(grep ' entry tgt_ptr ' args.ev | head -1)" arg1)"
	check_eq "pointer return" "${ret#ret=}" "$(field "$(grep ' return tgt_ptr ' args.ev | head -1)" retval)"
	check_eq "NULL pointer argument" "NULL" "$(field "$(grep ' entry tgt_ptr ' args.ev | tail -1)" arg1)"
	check_eq "10-byte string argument" '"0123456789"' "$(field "$(grep ' entry tgt_str ' args.ev)" arg1)"
	check_eq "string return value" '"returned!"' "$(field "$(grep ' return tgt_str ' args.ev)" retval)"
	want=$(printf 'ABCDEFGHIJKLMNOPQRSTUVWXYZ%.0s' $(seq 40) | head -c 1000)
	check_eq "2000-byte string cut at s:1000, marked ..." "\"$want\"..." \
		"$(field "$(grep ' entry tgt_longstr ' args.ev)" arg1)"
	check_eq "size_t return" 2000 "$(field "$(grep ' return tgt_longstr ' args.ev)" retval)"
	read -r _ hex n ret < <(grep '^tgt_buf ' args.out)
	got=$(field "$(grep ' entry tgt_buf ' args.ev)" arg1)
	got=${got#\"}
	got=${got%\"}
	check_eq "buffer with NUL bytes, length from arg2" "$hex" "$(printf '%b' "$got" | od -An -tx1 | tr -d ' \n')"
	check_eq "buffer length argument" "${n#n=}" "$(field "$(grep ' entry tgt_buf ' args.ev)" arg2)"
	read -r _ ma mx ms mb ret < <(grep '^tgt_mixed ' args.out)
	line=$(grep ' entry tgt_mixed ' args.ev)
	check_eq "ints and a string around a double (registers counted apart)" "$ma $ms $mb" \
		"$(field "$line" arg1) $(field "$line" arg2) $(field "$line" arg3)"
	check_eq "unreadable string is marked, not garbage" "<fault>" \
		"$(field "$(grep ' entry tgt_unreadable ' args.ev)" arg1)"
	check "calls view shows a call with its arguments and return" \
		grep -q 'tgt_str(arg1="0123456789") = "returned!"' <("$BC" report args.er calls tgt_str)
	check_eq "calls view limited by -n" 1 \
		"$("$BC" report -n 1 args.er calls 'tgt_ptr' | grep -c 'tgt_ptr(')"

	"$BC" record -q -o args2.er --string-size=4096 --arg 'tgt_longstr@arg1/s' -u tgt_longstr \
		-- "$TGT/args" 1 >/dev/null 2>&1
	want=$(printf 'ABCDEFGHIJKLMNOPQRSTUVWXYZ%.0s' $(seq 80) | head -c 2000)
	check_eq "2000-byte string whole with --string-size=4096" "\"$want\"" \
		"$(field "$("$BC" report args2.er events | grep ' entry tgt_longstr ')" arg1)"
	"$BC" record -q -o args3.er --string-size=8 --arg 'tgt_str@arg1/s' -- "$TGT/args" 1 >/dev/null 2>&1
	check_eq "--string-size=8 cuts the 10-byte string" '"01234567"...' \
		"$(field "$("$BC" report args3.er events | grep ' entry tgt_str ')" arg1)"

	expect_error "spec error names the position" "position 20" \
		"$BC" record -q --arg 'tgt_ints@arg1,arg2/q' -- "$TGT/args" 1
	expect_error "argument beyond the registers" "argument 7 .*not in a register" \
		"$BC" record -q --arg 'tgt_ints@arg7' -- "$TGT/args" 1
	expect_error "floating-point arguments refused with the reason" "xmm registers" \
		"$BC" record -q --arg 'tgt_doubles@fparg1' -- "$TGT/args" 1
	expect_error "--arg glob matching nothing" "--arg 'nosuch_fn@arg1'.*no function matches" \
		"$BC" record -q --arg 'nosuch_fn@arg1' -- "$TGT/args" 1
	expect_error "bad --string-size" "string-size" "$BC" record -q --string-size=5000 -- "$TGT/args" 1
}

test_descendants() {
	echo "# descendants: fork, exec, clone and dlopen, each in its place"
	local plugin="$BUILD/tests/targets/lib/libbcplugin.so"
	"$BC" record -q -o fam.er -u 'tgt_*' -u "$plugin:tgt_*" -- "$TGT/family" "$plugin" >fam.out 2>fam.err
	check_eq "record exits 0" 0 $?
	check_eq "subexperiments named by lineage" "_C1.er _f1.er _f2.er _f2_x1.er" \
		"$(cd fam.er && ls -d _*.er | sort | tr '\n' ' ' | sed 's/ $//')"
	check "founder and descendants open in gprofng" gprofng_ok fam.er
	check_eq "gprofng lists all five experiments" 5 \
		"$(gprofng display text -exp_list fam.er 2>&1 | grep -c ' yes ')"
	local lineage
	for lineage in _f1 _f2 _C1 _f2_x1; do
		check "founder log.xml records $lineage" grep -q "lineage=\"$lineage\"" fam.er/log.xml
	done
	check_eq "fork child's calls in _f1.er" 2 "$(calls_of fam.er/_f1.er tgt_child_work)"
	check_eq "exec'd image's calls in _f2_x1.er" 3 "$(calls_of fam.er/_f2_x1.er tgt_exec_work)"
	check_eq "nothing of the new image before its exec, in _f2.er" 0 \
		"$(calls_of fam.er/_f2.er tgt_exec_work)"
	check_eq "clone child's calls in _C1.er" 1 "$(calls_of fam.er/_C1.er tgt_clone_work)"
	check_eq "dlopened library: every call, the first ones too" 4 "$(calls_of fam.er tgt_plugin_work)"
	check_eq "the founder alone with --founder-only" "4 0" \
		"$("$BC" report --founder-only fam.er functions | awk '$NF == "tgt_plugin_work" { p = $1 } $NF == "tgt_child_work" { c = $1 } END { print p + 0, c + 0 }')"
	local seg unmap
	seg=$(grep -n 'kind="map".*libbcplugin.so' fam.er/map.xml | head -1)
	unmap=$(grep -n 'kind="unmap"' fam.er/map.xml | head -1)
	check "map.xml has the dlopened library's segment" test -n "$seg"
	check "map.xml has its unmap after dlclose" test -n "$unmap"
	check "the unmap comes after the map, in time" awk -v a="$seg" -v b="$unmap" 'BEGIN {
		match(a, /tstamp="[0-9.]+"/); ta = substr(a, RSTART + 8, RLENGTH - 9)
		match(b, /tstamp="[0-9.]+"/); tb = substr(b, RSTART + 8, RLENGTH - 9)
		exit !(tb + 0 > ta + 0) }'
	check "every subexperiment has the executable in its map.xml" \
		bash -c "for d in fam.er/_*.er; do grep -q 'name=\"$TGT/family\"' \$d/map.xml || exit 1; done"
	LD_LIBRARY_PATH="$BUILD/tests/targets/lib" "$BC" record -q -o fam3.er -u 'libbcplugin:tgt_*' \
		-- "$TGT/family" "$plugin" >/dev/null 2>&1
	check_eq "a dlopened library named like -u libbcplugin:GLOB, found as dlopen would" 4 \
		"$(calls_of fam3.er tgt_plugin_work)"
	"$BC" record -q -F off -o fam2.er -u 'tgt_*' -- "$TGT/family" "$plugin" >/dev/null 2>&1
	check_eq "-F off: no subexperiments" "" "$(cd fam2.er && ls -d _*.er 2>/dev/null)"
	check "-F off: map.xml has the dlopened library (from the dynamic linker's hook)" \
		grep -q 'kind="map".*libbcplugin.so' fam2.er/map.xml
	check "and its unmap after dlclose" grep -q 'kind="unmap"' fam2.er/map.xml
}

test_experiment_files() {
	echo "# overview, notes and archives: what gprofng reads agrees with report"
	"$BC" record -q -S 0.5 -C "run one" -C "second, comment" -o ov.er -u 'tgt_*' \
		-- "$TGT/calls" 2500 2 >/dev/null 2>&1
	check_eq "record exits 0" 0 $?
	local n_samples
	n_samples=$(grep -c 'kind="sample"' ov.er/log.xml)
	check_eq "one overview record per sample event" "$n_samples" $(($(stat -c %s ov.er/overview) / 504))
	check "a start, a periodic or final, and an end sample" test "$n_samples" -ge 2
	local g_user b_user g_sys b_sys
	gprofng display text -statistics ov.er >ov.stat 2>&1
	g_user=$(awk -F: '$1 ~ /^ *User CPU$/ { split($2, a, " "); print a[1] }' ov.stat)
	g_sys=$(awk -F: '$1 ~ /^ *System CPU$/ { split($2, a, " "); print a[1] }' ov.stat)
	"$BC" report ov.er overview >ov.rep
	b_user=$(awk '$1 == "Total" && $2 ~ /^[0-9]/ { print $4 }' ov.rep)
	b_sys=$(awk '$1 == "Total" && $2 ~ /^[0-9]/ { print $5 }' ov.rep)
	check "gprofng shows user CPU ($g_user)" test -n "$g_user"
	# gprofng writes a zero as "0.", report as "0.000": compared as numbers
	check "report overview: the same user CPU as gprofng ($g_user, $b_user)" \
		awk -v a="$g_user" -v b="$b_user" 'BEGIN { exit !(b != "" && a + 0 == b + 0) }'
	check "report overview: the same system CPU as gprofng ($g_sys, $b_sys)" \
		awk -v a="$g_sys" -v b="$b_sys" 'BEGIN { exit !(b != "" && a + 0 == b + 0) }'
	check "notes hold the comments" grep -qx "second, comment" ov.er/notes
	check "report header shows the comments" grep -q "run one" <("$BC" report ov.er header)
	check "gprofng shows the comments" grep -q "run one" <(gprofng display text -header ov.er 2>&1)
	local name
	name=$(cd ov.er/archives && ls | grep '^calls_' | grep -v bcsyms)
	check "archives/ holds the executable under gprofng's name ($name)" cmp -s "$TGT/calls" "ov.er/archives/$name"
	check "and libc, byte for byte" cmp -s /usr/lib/x86_64-linux-gnu/libc.so.6 ov.er/archives/libc.so.6_dnWuQRcLhw9
	check "objects view lists the executable" grep -q "$TGT/calls" <("$BC" report ov.er objects)
	# Rebuilt after the run: the experiment still names its functions, from its own tables.
	cp "$TGT/calls" calls.copy
	"$BC" record -q -A off -o moved.er -u 'tgt_*' -- "$WORK/calls.copy" 10 1 >/dev/null 2>&1
	check "-A off: no archives" test ! -e moved.er/archives
	"$BC" archive moved.er >arch.out 2>&1
	check_eq "bpfcollect archive afterwards exits 0" 0 $?
	check "it says what it archived" grep -q "objects archived" arch.out
	printf 'not the program any more\n' >calls.copy
	check_eq "report after the binary changed still names the functions" 10 "$(calls_of moved.er tgt_outer)"
	check "gprofng opens it with the binary gone" gprofng_ok moved.er
	mkdir -p noexp.er
	expect_error "archive of a directory that is no experiment" "not an experiment|log.xml" "$BC" archive noexp.er
	"$BC" archive --limit=1x moved.er >/dev/null 2>&1
	check_eq "archive --limit with a bad size is a usage error" 2 $?
	# A limit too small for the program: skipped and said; the rest of the run is as before.
	rm -rf moved.er/archives
	"$BC" archive --limit=1K -v moved.er >arch.out 2>&1
	check "archive --limit=1K copies nothing and says why" grep -q "over the limit" arch.out
	check "and archives/ holds no ELF copy" test -z "$(ls moved.er/archives 2>/dev/null)"
}

test_unprobeable() {
	echo "# a function starting with a LOCK prefix cannot be probed: said, and the rest traced"
	"$BC" record -q -o lk.er -- "$TGT/locked" 7 >lk.out 2>lk.err
	check_eq "record exits 0" 0 $?
	check "warning names the function and the reason" grep -q "not tracing tgt_locked.*LOCK prefix" lk.err
	check_eq "the other function is traced" 7 "$(calls_of lk.er tgt_plain)"
	"$BC" record -q -o lk2.er -u tgt_locked -- "$TGT/locked" 3 >/dev/null 2>lk2.err
	check "only unprobeable functions: non-zero exit" test $? -ne 0
	check "only unprobeable functions: one error line after the warning" \
		test "$(grep -v warning lk2.err)" == "bpfcollect: none of the 1 matching functions can be probed (see above); choose others with -u"
}

test_bad_input() {
	echo "# bad input: one clear line, non-zero exit"
	expect_error "missing command" "no command given" "$BC" record -q
	expect_error "command not found" "nosuchcmd.*not found" "$BC" record -q -- nosuchcmd-xyz
	printf '#!/bin/sh\necho hi\n' >script.sh
	chmod +x script.sh
	expect_error "non-ELF target" "not an ELF|script" "$BC" record -q -- ./script.sh
	expect_error "stripped program without -u" "no function symbols.*--syscalls" "$BC" record -q -- /bin/true
	expect_error "glob matching nothing" "nomatch_xyz" "$BC" record -q -u 'nomatch_xyz*' -- "$TGT/exitcode" 0
	expect_error "library that does not exist" "libnope" "$BC" record -q -u 'libnope:f' -- "$TGT/exitcode" 0
	expect_error "unwritable -o" "/nonexistent-dir" "$BC" record -q -o /nonexistent-dir/x.er -u main -- "$TGT/exitcode" 0
	expect_error "-o not ending in .er" "\.er" "$BC" record -q -o foo -u main -- "$TGT/exitcode" 0
	expect_error "unknown syscall" "nosuchsyscall" "$BC" record -q --syscalls=read,nosuchsyscall -- "$TGT/exitcode" 0
	expect_error "bad --bufsize" "bufsize" "$BC" record -q --bufsize=3 -- "$TGT/exitcode" 0
	expect_error "bad --archive-limit" "--archive-limit takes a size" \
		"$BC" record -q --archive-limit=lots -- "$TGT/exitcode" 0
	if command -v setpriv >/dev/null; then
		expect_error "not root" "root" setpriv --reuid=65534 --regid=65534 --clear-groups \
			"$BC" record -q -u main -- "$TGT/exitcode" 0
	else
		bad "setpriv missing (util-linux)"
	fi
	expect_error "report of a missing experiment" "nosuch.er" "$BC" report nosuch.er
	mkdir -p empty.er
	expect_error "report of a directory that is no experiment" "empty.er" "$BC" report empty.er
	small_exp bad.er
	expect_error "unknown report view" "view" "$BC" report bad.er nosuchview
	expect_error "unknown subcommand" "unknown command" "$BC" frobnicate
	# Damaged experiments: one line naming the file, or a note, never a crash.
	cp -r bad.er broken.er && sed -i 's/<process pid=/<process pid=oops /' broken.er/log.xml
	expect_error "corrupt log.xml names the file and line" "broken.er/log.xml:[0-9]+" \
		"$BC" report broken.er
	cp -r bad.er newer.er && sed -i 's/experiment version="12.4"/experiment version="13.0"/' newer.er/log.xml
	expect_error "an experiment from a newer format version" "newer than this bpfcollect" \
		"$BC" report newer.er
	cp -r bad.er torn.er && truncate -s -20 torn.er/functrace
	"$BC" report torn.er header >torn.out 2>&1
	check_eq "a torn data file still reports" 0 $?
	check "and says what it dropped" grep -q "functrace: last block torn" torn.out
	local whole torn
	read -r whole _ < <(compact_sums bad.er/functrace)
	read -r torn _ < <(compact_sums torn.er/functrace)
	check_eq "with the records of every whole block ($torn of $whole)" \
		$(($("$BC" report bad.er events | wc -l) - whole + torn)) \
		"$("$BC" report torn.er events 2>/dev/null | wc -l)"
	check "no experiment left behind by failed records" bash -c "! ls -d test.*.er 2>/dev/null | grep -q ."
}

# A compact file's whole blocks (docs/experiment-format.md): "RECORDS
# RAW_BYTES BYTES", their records and decoded size summed, and the file's size.
compact_sums() {
	local f=$1 off=0 size magic len recs raw r=0 b=0

	size=$(stat -c %s "$f")
	while [ $((off + 16)) -le "$size" ]; do
		read -r magic len recs raw < <(od -An -tu4 -j "$off" -N 16 "$f")
		[ "$magic" = 826426178 ] && [ $((off + 16 + len)) -le "$size" ] || break # "BCB1"
		r=$((r + recs)) b=$((b + raw)) off=$((off + 16 + len))
	done
	echo "$r $b $size"
}

# PRF records: their own file, the same helpers.
. "$HERE/prf.sh"
# Attaching to running processes.
. "$HERE/attach.sh"
# Clock profiling.
. "$HERE/profile.sh"
# Kernel experiments, system-wide tracing, off-CPU intervals.
. "$HERE/kernel.sh"
# Off-CPU, heap, sync and I/O data as gprofng reads them.
. "$HERE/traces.sh"
# The format registry: live equals converted for every format; safe outputs.
. "$HERE/formats.sh"
# shellcheck source=tests/integration/rtl.sh
. "$HERE/rtl.sh"
# shellcheck source=tests/integration/gtf.sh
. "$HERE/gtf.sh"
# shellcheck source=tests/integration/reliability.sh
. "$HERE/reliability.sh"
# shellcheck source=tests/integration/cost.sh
. "$HERE/cost.sh"
# shellcheck source=tests/integration/timelines.sh
. "$HERE/timelines.sh"
# shellcheck source=tests/integration/docs.sh
. "$HERE/docs.sh"
# shellcheck source=tests/integration/status.sh
. "$HERE/status.sh"
# shellcheck source=tests/integration/viewer.sh
. "$HERE/viewer.sh"
# shellcheck source=tests/integration/kernels.sh
. "$HERE/kernels.sh"
# shellcheck source=tests/integration/safety.sh
. "$HERE/safety.sh"
# shellcheck source=tests/integration/cxx.sh
. "$HERE/cxx.sh"
# shellcheck source=tests/integration/golang.sh
. "$HERE/golang.sh"
# shellcheck source=tests/integration/races.sh
. "$HERE/races.sh"
# shellcheck source=tests/integration/scale.sh
. "$HERE/scale.sh"

# Every test, in the order a full run takes them.
TESTS="calls_threads uprobe_fallback syscalls fork_follow exit_status sigint flood"
TESTS+=" bpftrace_counts demo naming lost args descendants experiment_files prf attach"
TESTS+=" profile kernel system_wide offcpu_clock heap sync io busy_overview formats exec_argv"
TESTS+=" convert_output unprobeable bad_input pid_reuse needed_programs rtl gtf permissions"
TESTS+=" archive_symlink damaged_subexperiment attach_killed detach_open_calls convert_planted"
TESTS+=" unsafe_functions disk_full convert_disk_full record_disk_full_formats killed_agent faults endbr64 syscall_records bpf_frames closed_pipe"
TESTS+=" neighbours exceptions leave go_safety go_recover go_http go_refused"
TESTS+=" symlink_race planted_kallmodsyms exec_chain killed_leftovers killed_descendants debugger swapped_library"
TESTS+=" chrome chrome_kinds folded cxx_names rust_names"
TESTS+=" man_pages completion install"
TESTS+=" status_line status_tty status_pinned status_lost"
TESTS+=" viewer"
TESTS+=" scale_mapxml"
TESTS+=" matrix kernels"
for t in "${SELECTED[@]}"; do
	case " $TESTS " in
	*" $t "*) ;;
	*)
		echo "run.sh: no test '$t'; tests: $TESTS" >&2
		exit 2
		;;
	esac
done
for t in $TESTS; do
	want "$t" && "test_$t"
done

echo "integration: $pass passed, $fail failed"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
