# Off-CPU, heap, sync and I/O data in gprofng's own packets, for
# tests/integration/run.sh: sourced there. Uses run.sh's helpers: check,
# check_eq, gprofng_ok, expect_error, $BC, $TGT.

# between V LO HI: LO <= V <= HI (decimals)
in_range() { awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v + 0 >= lo && v + 0 <= hi) }'; }

# A metric column of one function in gprofng's function list: gp_metric EXP METRIC FUNC
gp_metric() {
	gprofng display text -metrics "$2:name" -functions "$1" 2>/dev/null |
		awk -v f="$3" '$2 == f { v = $1; if (v == "0.") v = 0; print v + 0; found = 1 }
			END { if (!found) print "none" }'
}

test_offcpu_clock() {
	echo "# --offcpu: a sleeping target's Sleep time in gprofng"
	"$BC" record -q -o oc.er --offcpu -- "$TGT/offcpu" 100 >oc.out 2>oc.err
	check_eq "record --offcpu exits 0" 0 $?
	check "the experiment opens in gprofng" gprofng_ok oc.er
	check "its clock data has the off-CPU states (numstates 10, 1 ms ticks)" \
		grep -q 'ptimer="1000" numstates="10"' oc.er/log.xml
	# Main sleeps 3 x 100 ms in nanosleep (it measured sleep_ms around them),
	# the writer thread 2 x 100 ms; nanosleep never returns early. Each thread
	# carries less than one 1 ms tick of its Sleep into no packet: two
	# threads, 2 ms below. Above: what main measured, the writer's 200 ms
	# and 20 ms of wakeup latency.
	local slept sleep_ms pipe_ms ours
	sleep_ms=$(awk '$1 == "sleep_ms" { print $2 }' oc.out)
	pipe_ms=$(awk '$1 == "pipe_ms" { print $2 }' oc.out)
	slept=$(gp_metric oc.er e.sleep clock_nanosleep)
	check "gprofng: Sleep in clock_nanosleep $slept s: 0.5 s slept, to the bounds" \
		in_range "$slept" 0.498 "$(awk -v m="$sleep_ms" 'BEGIN { print (m + 200 + 20) / 1000 }')"
	check "gprofng: Sleep in read: the $pipe_ms ms blocked on the pipe" \
		in_range "$(gp_metric oc.er e.sleep read)" 0.198 "$(awk -v m="$pipe_ms" 'BEGIN { print (m + 2) / 1000 }')"
	check_eq "no User Lock: nothing waited in a futex" 0 "$(gp_metric oc.er e.lock '<Total>')"
	"$BC" report oc.er offcpu >oc.txt
	ours=$(awk '$1 == "clock_nanosleep" { print $4 }' oc.txt)
	check "report offcpu's exact Sleep ($ours s) and gprofng's ticks agree to 2 ms" \
		in_range "$(awk -v a="$ours" -v b="$slept" 'BEGIN { print a - b }')" 0 0.002
	expect_error "report profile of an off-CPU-only experiment says where its data is" \
		'no clock profile .*its off-CPU time is in .report offcpu.' "$BC" report oc.er profile

	echo "# -p on --offcpu: CPU and off-CPU in one profile"
	"$BC" record -q -o ocp.er -p on --offcpu -- "$TGT/offcpu" 100 >ocp.out 2>ocp.err
	check_eq "record -p on --offcpu exits 0" 0 $?
	check "the experiment opens in gprofng" gprofng_ok ocp.er
	check "ptimer is -p's 10 ms" grep -q 'ptimer="10000" numstates="10"' ocp.er/log.xml
	check "gprofng: tgt_spin has the CPU" in_range "$(gp_metric ocp.er e.totalcpu tgt_spin)" 0.05 0.2
	check "gprofng: and clock_nanosleep the Sleep, to a 10 ms tick per thread" \
		in_range "$(gp_metric ocp.er e.sleep clock_nanosleep)" 0.48 0.6
	check_eq "report profile counts CPU only: the off-CPU ticks are not CPU" \
		"$(gp_metric ocp.er e.totalcpu '<Total>')" \
		"$("$BC" report ocp.er profile | awk '$NF == "<Total>" { print $1 + 0 }')"
}
