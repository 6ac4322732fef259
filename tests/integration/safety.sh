# The traced process runs on as if never traced, and its neighbours pay
# nothing, for tests/integration/run.sh: sourced there. Uses run.sh's
# helpers: check, check_eq, calls_of, $BC, $TGT.

# The first bytes of malloc and free as an untraced process sees them while
# a recording runs: the breakpoint (cc) only in the traced one.
# neighbours_during NAME RECORD_ARGS...: the traced neighbour is the
# recording's target, launched (RECORD_ARGS end with --) or attached (-P
# TRACED, the word replaced by its pid).
neighbours_during() {
	local name=$1 rp tp="" args=()
	shift
	rm -f "$name".ready "$name".done "$name".go
	"$TGT/neighbour" peek "$name.ready" "$name.done" - >"$name.n.out" &
	local np=$!
	if [ "${*: -1}" = "--" ]; then
		"$BC" record -o "$name.er" "$@" "$TGT/neighbour" peek - "$name.ready" "$name.done" \
			>"$name.t.out" 2>"$name.err" &
		rp=$!
	else
		"$TGT/neighbour" peek "$name.go" "$name.ready" "$name.done" >"$name.t.out" &
		tp=$!
		for a in "$@"; do [ "$a" = TRACED ] && args+=("$tp") || args+=("$a"); done
		"$BC" record -o "$name.er" "${args[@]}" >/dev/null 2>"$name.err" &
		rp=$!
		wait_for "$name.err" 'attached to' && touch "$name.go"
	fi
	wait $np
	[ -n "$tp" ] && wait "$tp"
	[ -n "$tp" ] && kill -INT $rp 2>/dev/null
	wait $rp
}

test_neighbours() {
	echo "# -H on -- CMD: the heap probes in the traced process alone"
	neighbours_during nb-heap -H on --
	check_eq "the traced process has them" "malloc cc free cc" "$(cat nb-heap.t.out)"
	check "an unrelated process running malloc and free has not" \
		grep -q '^malloc [^c]. free [^c].$' nb-heap.n.out
	check "heap records were made" test "$("$BC" report nb-heap.er heap | grep -c malloc)" -gt 0

	echo "# -u libc:malloc -P PID: the probe in the attached process alone"
	neighbours_during nb-pid -u libc:malloc -P TRACED
	check "the attached process has it" grep -q '^malloc cc ' nb-pid.t.out
	check "an unrelated process has not" grep -q '^malloc [^c]. ' nb-pid.n.out
	check "its calls were counted" test "$(calls_of nb-pid.er malloc)" -gt 0

	echo "# -F off -u libc:malloc -- CMD"
	neighbours_during nb-off -F off -u libc:malloc --
	check "the traced process has it" grep -q '^malloc cc ' nb-off.t.out
	check "an unrelated process has not" grep -q '^malloc [^c]. ' nb-off.n.out
}

# The C++ exception program, built here with g++ as users build C++. Files
# of these tests carry prefixes (nb-, cx-): every test shares run.sh's
# work directory, and record never overwrites an experiment (heap.er is
# test_heap's).
build_exceptions() {
	[ -x cx-exceptions ] && return 0
	g++ -O2 -o cx-exceptions "$HERE/../targets/cxx/exceptions.cc"
}

test_exceptions() {
	echo "# C++ exceptions thrown through traced frames: caught as untraced"
	check "g++ builds the exception program" build_exceptions || return
	./cx-exceptions 1000 >cx-ex.ref
	"$BC" record -q -o cx-ex.er -u thrower -u 'ns::Worker::*' -u 'catcher(int, long*)' \
		-- ./cx-exceptions 1000 >cx-ex.out 2>cx-ex.err
	check_eq "launched: exits 0, as untraced" 0 $?
	check "and prints what it prints untraced" cmp -s cx-ex.ref cx-ex.out
	check_eq "every call of thrower(int)" 1000 "$(calls_of cx-ex.er 'thrower(int)')"
	check_eq "every call of the middle frame" 1000 "$(calls_of cx-ex.er 'ns::Worker::middle(int)')"
	check_eq "every call of the catcher" 1000 \
		"$("$BC" report cx-ex.er functions | awk '/ catcher\(int, long\*\)$/ { print $1 }')"
	check "calls left by an exception closed with their time: none never returned" \
		bash -c "! grep -q 'never returned' <('$BC' report cx-ex.er functions)"
	"$BC" report cx-ex.er events >cx-ex.ev
	check_eq "every return has its entry" ok "$(nesting_ok cx-ex.ev)"

	echo "# the same with -F off (an uprobe_multi link) and perf uprobes"
	"$BC" record -q -o cx-exm.er -F off -u thrower -- ./cx-exceptions 1000 >cx-exm.out 2>&1
	check_eq "-F off: exits 0" 0 $?
	check_eq "-F off: every call of thrower" 1000 "$(calls_of cx-exm.er 'thrower(int)')"
	"$BC" record -q -o cx-exp.er -F off --no-uprobe-multi -u thrower -- ./cx-exceptions 1000 \
		>cx-exp.out 2>&1
	check_eq "perf uprobes: exits 0" 0 $?
	check_eq "perf uprobes: every call of thrower" 1000 "$(calls_of cx-exp.er 'thrower(int)')"

	echo "# --return-probes=uretprobe: what the default avoids"
	"$BC" record -q -o cx-exu.er --return-probes=uretprobe -u thrower -- ./cx-exceptions 30 \
		>cx-exu.out 2>&1
	check_eq "a uretprobe in the exception's way aborts the program (134)" 134 $?
	"$BC" record -q -o cx-bad.er --return-probes=sometimes -u thrower -- ./cx-exceptions 3 \
		>cx-bad.out 2>&1
	check_eq "--return-probes with a bad value is a usage error" 2 $?
	check "naming the values" grep -q "auto, uretprobe or sites" cx-bad.out

	echo "# -P: attached while it throws"
	local tp rp
	./cx-exceptions 3000 --wait >cx-exa.out 2>&1 &
	tp=$!
	wait_for cx-exa.out '^ready'
	"$BC" record -o cx-exa.er -u thrower -P $tp >/dev/null 2>cx-exa.err &
	rp=$!
	wait_for cx-exa.err 'attached to'
	kill -USR1 $tp
	wait_for cx-exa.out '^caught'
	kill -INT $rp
	wait_gone $rp
	kill -USR2 $tp
	wait_gone $tp
	check_eq "the attached program exits 0" 0 $?
	check_eq "and catches what it catches untraced" 1000 "$(value_of cx-exa.out caught)"
	check_eq "every call of thrower while attached" 3000 "$(calls_of cx-exa.er 'thrower(int)')"
}

test_leave() {
	echo "# longjmp, siglongjmp, coroutines, signals, thread exit, exec inside traced calls"
	local m
	for m in jmp sigjmp ctx signal thread; do
		"$TGT/leave" $m 200 >"leave-$m.ref"
		"$BC" record -q -o "leave-$m.er" -u 'tgt_*' -- "$TGT/leave" $m 200 >"leave-$m.out" 2>&1
		check_eq "$m: exits 0" 0 $?
		check "$m: prints what it prints untraced" cmp -s "leave-$m.ref" "leave-$m.out"
		local f n bad=""
		while read -r f n; do
			case $f in tgt_*) ;; *) continue ;; esac
			[ "$(calls_of "leave-$m.er" "$f")" = "$n" ] || bad="$bad $f:$(calls_of "leave-$m.er" "$f")/$n"
		done <"leave-$m.ref"
		check_eq "$m: every call counted" "" "$bad"
	done
	left() { # left EXP: calls that never returned, 0 when none
		local v
		v=$("$BC" report "$1" functions | sed -n 's/^note: \([0-9]*\) calls never returned.*/\1/p')
		echo "${v:-0}"
	}
	# the last iteration's frames, left as the process ends, may stay open
	check "longjmp: frames left are closed when the next call shows it (all but the last 2)" \
		test "$(left leave-jmp.er)" -le 2
	check "siglongjmp out of a handler: the same (all but the last 3)" \
		test "$(left leave-sigjmp.er)" -le 3
	check_eq "signal handlers return: nothing left" 0 "$(left leave-signal.er)"
	check_eq "pthread_exit unwinds the thread: its frames end with it" 0 \
		"$(left leave-thread.er)"
	"$BC" record -q -o leave-exec.er -u 'tgt_*' -- "$TGT/leave" exec 1 >leave-exec.out 2>&1
	check_eq "exec inside a traced call: exits 0" 0 $?
	check "and the new program runs" grep -q "^done result 1" leave-exec.out
	check_eq "the call that exec'd never returned" 1 "$(left leave-exec.er)"
	check_eq "the new program's call is counted" 1 "$(calls_of leave-exec.er tgt_after_exec)"
}
