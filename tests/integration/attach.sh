# Attaching to running processes (-P), for tests/integration/run.sh: sourced
# there. Uses run.sh's helpers: check, check_eq, calls_of, nesting_ok,
# gprofng_ok, expect_error, $BC, $TGT, $BUILD.
#
# tests/targets/attach waits between phases for signals, so what runs before,
# during and after the recording is known exactly.

wait_for() { # wait_for FILE PATTERN: until an ERE matches a line of FILE (10 s at most)
	local n=100
	while [ $n -gt 0 ]; do
		grep -qE -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
		n=$((n - 1))
	done
	echo "timed out waiting for '$2' in $1" >&2
	return 1
}

wait_gone() { # wait_gone PID: until it has exited (20 s at most); its status when ours
	local n=200
	while [ $n -gt 0 ] && kill -0 "$1" 2>/dev/null; do
		sleep 0.1
		n=$((n - 1))
	done
	wait "$1"
}

value_of() { # value_of FILE KEY: the second field of the line whose first is KEY
	awk -v k="$2" '$1 == k { print $2 }' "$1"
}

test_attach() {
	local plugin="$BUILD/tests/targets/lib/libbcplugin.so" tp rp
	echo "# -P: attach to a running 3-thread target mid-run, detach with Ctrl-C"
	"$TGT/attach" 3 2000 "$plugin" >ref.out &
	tp=$!
	wait_for ref.out '^ready' && kill -USR1 $tp && wait_for ref.out 'phase1 done' && kill -USR2 $tp
	wait_gone $tp

	"$TGT/attach" 3 2000 "$plugin" >at.out 2>&1 &
	tp=$!
	wait_for at.out '^ready'
	"$BC" record -o at.er -u 'tgt_*' -u "$plugin:tgt_*" -P $tp >/dev/null 2>at.err &
	rp=$!
	check "record says it attached (its threads calling tgt_idle all along)" \
		wait_for at.err 'attached to 1 process'
	kill -USR1 $tp
	wait_for at.out 'phase1 done'
	kill -INT $rp
	wait_gone $rp
	check_eq "record -P exits 0 after Ctrl-C" 0 $?
	check "and says the process runs on" grep -q "process $tp still runs, no longer traced" at.err
	kill -USR2 $tp
	wait_gone $tp
	check_eq "the target exits 0 after the detach" 0 $?
	check_eq "and computes what it computes untraced" "$(value_of ref.out result)" \
		"$(value_of at.out result)"
	check_eq "every tgt_tick call after attach, in old threads and a new one" \
		"$(value_of at.out tgt_tick)" "$(calls_of at.er tgt_tick)"
	check_eq "calls in a library dlopened after attach" 4 "$(calls_of at.er tgt_plugin_work)"
	"$BC" report at.er events >at.ev
	check_eq "every return has its entry, though attached mid-call" ok "$(nesting_ok at.ev)"
	check_eq "tgt_tick ran in 4 threads" 4 \
		"$(awk '$6 == "entry" && $7 == "tgt_tick" { print $3 }' at.ev | sort -u | wc -l)"
	check "the experiment opens in gprofng" gprofng_ok at.er
	check "map.xml has the executable, mapped before the attach" \
		grep -q "tstamp=\"0.000000000\".*name=\"$TGT/attach\"" at.er/map.xml
	check "the founder is the attached process" grep -q "pid $tp\b" <("$BC" report at.er header)

	echo "# -P A,B -t 3: two processes at once, bounded by -t"
	local a b
	"$TGT/attach" 2 300 >pa.out 2>&1 &
	a=$!
	"$TGT/attach" 1 700 >pb.out 2>&1 &
	b=$!
	wait_for pa.out '^ready' && wait_for pb.out '^ready'
	"$BC" record -o two.er -t 3 -u 'tgt_tick' -P "$a,$b" >/dev/null 2>two.err &
	rp=$!
	wait_for two.err 'attached to 2 processes'
	kill -USR1 $a $b
	wait_for pa.out 'phase1 done' && wait_for pb.out 'phase1 done'
	wait_gone $rp
	check_eq "record -t ends by itself with 0" 0 $?
	check "and says -t stopped it" grep -q "stopped by -t" two.err
	check_eq "first process: the founder's calls" "$(value_of pa.out tgt_tick)" \
		"$("$BC" report two.er functions --founder-only | awk '$NF == "tgt_tick" { print $1 }')"
	check_eq "the report adds both processes' calls" \
		$(($(value_of pa.out tgt_tick) + $(value_of pb.out tgt_tick))) "$(calls_of two.er tgt_tick)"
	check "second process: its subexperiment _attach_PID_$b.1.er" test -d "two.er/_attach_PID_$b.1.er"
	check_eq "with its own calls" "$(value_of pb.out tgt_tick)" \
		"$(calls_of "two.er/_attach_PID_$b.1.er" tgt_tick)"
	check "gprofng opens both" bash -c "gprofng display text -exp_list two.er 2>&1 | grep -q '_attach_PID_$b.1.er'"
	check "the second's command line is its own (from the agent's record of it)" \
		grep -qF "<process>$TGT/attach 1 700</process>" "two.er/_attach_PID_$b.1.er/log.xml"
	"$BC" convert two.er -f er -o two-conv.er 2>/dev/null
	local same=ok e f
	for e in "" "_attach_PID_$b.1.er"; do
		for f in log.xml map.xml overview; do
			cmp -s "two.er/$e/$f" "two-conv.er/$e/$f" || same="${e:-founder} $f differs"
		done
	done
	check_eq "convert -f er gives both experiments back byte for byte" ok "$same"
	kill -USR2 $a $b
	wait_gone $a
	check_eq "both run on after -t: first" 0 $?
	wait_gone $b
	check_eq "both run on after -t: second" 0 $?

	echo "# -P: a process that exits while traced ends the recording"
	"$TGT/attach" 1 100 >pc.out 2>&1 &
	tp=$!
	wait_for pc.out '^ready'
	"$BC" record -o end.er -u 'tgt_tick' -P $tp >/dev/null 2>end.err &
	rp=$!
	wait_for end.err 'attached to'
	kill -USR1 $tp
	wait_for pc.out 'phase1 done'
	kill -USR2 $tp
	wait_gone $rp
	check_eq "record ends when the process does, with 0" 0 $?
	check_eq "and has both phases' calls" 400 "$(calls_of end.er tgt_tick)"

	expect_error "-P of a process that does not exist" "no such process: 999999999" \
		"$BC" record -q -P 999999999
	expect_error "-P of a kernel thread" "kernel thread" "$BC" record -q -P 2
	expect_error "-P and a command" "not both" "$BC" record -q -P 1 -- /bin/true
	expect_error "-P with no pid" "-P takes process ids" "$BC" record -q -P 12,abc
	expect_error "-t of nothing" "-t takes a duration" "$BC" record -q -t 0 -- /bin/true
}
