# shellcheck shell=bash
# Timelines (-f chrome) and flame graphs (-f folded), checked against what
# the targets really did and against the experiment's own views. Sourced by
# run.sh.

CHROME_CHECK="$HERE/lib/chrome_check.py"
chrome_q() { python3 "$CHROME_CHECK" "$@"; }

# Sum of the weights of the folded lines matching the awk regex (all: '.').
folded_sum() { # folded_sum FILE REGEX
	awk -v re="$2" '{ w = $NF; sub(/ [0-9]+$/, ""); if ($0 ~ re) s += w } END { print s + 0 }' "$1"
}

# Sum of dur= of the return lines of FUNC in an events view.
dur_sum() { # dur_sum EVENTS FUNC
	awk -v f="$2" '$6 == "return" && $7 == f { for (i = 8; i <= NF; i++) if ($i ~ /^dur=/) { split($i, a, "="); s += a[2] } } END { print s + 0 }' "$1"
}

test_chrome() {
	echo "# -f chrome: calls, system calls, threads and losses as Chrome trace events"
	if ! command -v python3 >/dev/null; then
		bad "python3 is needed to read JSON: tools/install-deps.sh installs it"
		return
	fi
	rm -rf ch.er ch.json ch.live.json
	"$BC" record -q -o ch.er -f er -f chrome --syscalls=write,getppid -u 'tgt_*' \
		--arg 'tgt_fact@arg1/d32' --retval tgt_fact -- "$TGT/calls" 30 2 >ch.out 2>ch.err
	check_eq "record -f er -f chrome exits 0" 0 $?
	mv ch.json ch.live.json 2>/dev/null
	"$BC" convert ch.er -f chrome -o ch.json
	check_eq "convert -f chrome exits 0" 0 $?
	check_eq "the file is one JSON object with trace events" ok "$(chrome_q ch.json valid)"
	check "the live file and the converted one are the same, byte for byte" cmp -s ch.json ch.live.json
	local f n
	for f in tgt_run_threads tgt_worker tgt_outer tgt_middle tgt_inner tgt_fact; do
		n=$(awk -v f="$f" '$1 == f { print $2 }' ch.out)
		check_eq "complete events of $f equal the target's own count ($n)" "$n" \
			"$(chrome_q ch.json count X function "$f")"
	done
	check_eq "every thread's complete events nest" ok "$(chrome_q ch.json nesting)"
	check_eq "a call's second category is its load object" \
		"$(chrome_q ch.json count X function tgt_outer)" "$(chrome_q ch.json count X calls tgt_outer)"
	local pid want got
	pid=$("$BC" report ch.er events | awk '$6 == "entry" { print $2; exit }')
	want=$(awk -v p="$pid" '$1 == "tid" { print "calls " p "/" $2 }' ch.out | sort | tr '\n' ',')
	got=$(chrome_q ch.json threads | sort -u | tr '\n' ',')
	check_eq "one track per thread, named COMM PID/TID" "$want" "$got"
	check_eq "tgt_fact's arguments are in args (5 4 3 2 1, each per iteration)" \
		"$((30 * 2)) $((30 * 2))" \
		"$(chrome_q ch.json args tgt_fact arg1 | grep -c '^5$') $(chrome_q ch.json args tgt_fact arg1 | grep -c '^1$')"
	check_eq "tgt_fact's return values are in args (1 2 6 24 120, each per iteration)" \
		"$((30 * 2 * 5)) 120" \
		"$(chrome_q ch.json args tgt_fact retval | wc -l) $(chrome_q ch.json args tgt_fact retval | sort -n | tail -1)"
	check_eq "system calls on the same tracks, with their decoded call" \
		"$("$BC" report ch.er events | awk '$6 == "sys_exit" && $7 == "write"' | wc -l)" \
		"$(chrome_q ch.json args write call | grep -c '^write(1, ')"
	check_eq "timestamps are microseconds with nanosecond fractions" ok "$(chrome_q ch.json ts_format)"

	echo "# -f chrome: processes keep their pids, losses are instants"
	"$BC" record -q -o chf.er -u 'tgt_*' -- "$TGT/family" >/dev/null 2>&1
	"$BC" convert chf.er -f chrome -o chf.json
	check_eq "every process of the experiment tree has its pid" \
		"$("$BC" report chf.er events | awk '{ print $2 }' | sort -un | tr '\n' ' ')" \
		"$(chrome_q chf.json pids | tr '\n' ' ')"
	record_stalled -o chl.er -u 'tgt_*' -- "$TGT/calls" 40000 1
	"$BC" convert chl.er -f chrome -o chl.json
	check_eq "loss instants add up to the header's lost count" \
		"$("$BC" report chl.er header | awk '$1 == "Events:" { print $4 }')" \
		"$(chrome_q chl.json lost)"
	check_eq "and the file stays valid" ok "$(chrome_q chl.json valid)"
}

test_chrome_kinds() {
	echo "# -f chrome: clock samples, off-CPU intervals, heap and I/O"
	rm -rf chk.er
	"$BC" record -q -o chk.er -p hi --offcpu -H on -i on -S 0.1 -- "$TGT/cpu" 0.5 >/dev/null 2>&1
	check_eq "record -p hi --offcpu -H on -i on exits 0" 0 $?
	"$BC" convert chk.er -f chrome -o chk.json
	"$BC" report chk.er events >chk.ev
	check_eq "a sample event per clock sample" "$(awk '$6 == "sample"' chk.ev | wc -l)" \
		"$(chrome_q chk.json count P sample)"
	check_eq "an off-CPU slice per interval" "$(awk '$6 == "offcpu"' chk.ev | wc -l)" \
		"$(chrome_q chk.json count X offcpu)"
	check_eq "heap calls as events" "$(awk '$6 == "heap"' chk.ev | wc -l)" \
		"$(($(chrome_q chk.json count X heap) + $(chrome_q chk.json count i heap)))"
	check_eq "I/O calls as slices" "$(awk '$6 == "io"' chk.ev | wc -l)" "$(chrome_q chk.json count X io)"
	check_eq "every stack names frames that are there" ok "$(chrome_q chk.json frames)"
	# cpu never sleeps: each interval it runs (user, system, tick-counted by
	# /proc) or waits for a CPU (exact); 2 ticks of 10 ms either way at most
	local counters low high
	read -r counters low high <<<"$(chrome_q chk.json cpu_counters)"
	check "overview samples (-S 0.1) are CPU % counters ($counters)" test "$counters" -ge 3
	check "a busy thread's intervals add up to its time: user + system + waiting ($low..$high%)" \
		awk -v l="$low" -v h="$high" 'BEGIN { exit !(l >= 80 && h <= 120) }'
	check "the samples' frames name the target's functions" grep -q '"name":"tgt_spin_a"' chk.json
	check_eq "every thread's complete events nest" ok "$(chrome_q chk.json nesting)"
}

test_folded() {
	echo "# -f folded: collapsed stacks from calls, clock samples and off-CPU intervals"
	rm -rf fo.er
	"$BC" record -q -o fo.er -u 'tgt_*' -- "$TGT/calls" 40 2 >fo.out 2>&1
	"$BC" report fo.er events >fo.ev
	"$BC" convert fo.er -f folded -o fo.excl
	check_eq "convert -f folded exits 0" 0 $?
	check_eq "every line is FRAME;FRAME... WEIGHT" 0 \
		"$(grep -cvE '^[^; ]([^;]*;)*[^;]* [0-9]+$' fo.excl)"
	check "the call path worker > outer > middle > inner is a line" \
		grep -q '^calls;tgt_worker;tgt_outer;tgt_middle;tgt_inner [0-9]*$' fo.excl
	check_eq "exclusive weights under tgt_worker add up to its inclusive time" \
		"$(dur_sum fo.ev tgt_worker)" "$(folded_sum fo.excl '^calls;tgt_worker')"
	"$BC" convert fo.er -f folded --weight=incl -o fo.incl
	check_eq "--weight=incl: tgt_inner's path weighs every tgt_inner call's time" \
		"$(dur_sum fo.ev tgt_inner)" "$(folded_sum fo.incl ';tgt_inner$')"
	rm -rf fp.er
	"$BC" record -q -o fp.er -p hi --offcpu -- "$TGT/cpu" 0.3 >/dev/null 2>&1
	"$BC" convert fp.er -f folded -o fp.samples
	local samples
	samples=$("$BC" report fp.er profile | awk '$1 == "Clock" { print $3; exit }')
	check_eq "clock samples: the weights add up to the profile's samples ($samples)" \
		"$samples" "$(folded_sum fp.samples .)"
	check "the spinning function is on a sampled stack" grep -q ';tgt_spin_a [0-9]*$' fp.samples
	check "kernel frames end in _[k]" grep -q '_\[k\]' fp.samples
	"$BC" convert fp.er -f folded --weight=time -o fp.time
	check_eq "--weight=time: samples times the 1 ms period" "$((samples * 1000000))" \
		"$(folded_sum fp.time .)"
	"$BC" convert fp.er -f folded --offcpu -o fp.off
	check_eq "--offcpu: the weights add up to the off-CPU intervals' nanoseconds" \
		"$("$BC" report fp.er events | awk '$6 == "offcpu" { split($8, a, "="); s += a[2] } END { print s + 0 }')" \
		"$(folded_sum fp.off .)"
	rm -f fl.folded
	"$BC" record -q -o fl.folded -f folded -u 'tgt_*' -- "$TGT/calls" 5 1 >/dev/null 2>&1
	check "record -f folded writes the call paths live" grep -q '^calls;tgt_worker;tgt_outer' fl.folded
	"$BC" convert fo.er -f folded --weight=bogus -o fo.bad 2>fo.bad.err
	check_eq "--weight=bogus is a usage error (2)" 2 $?
	check "and says what --weight takes" grep -q "weight takes samples, time, excl, incl" fo.bad.err
	"$BC" convert fp.er -f folded --offcpu --weight=samples -o fo.bad 2>fo.bad.err
	check_eq "--offcpu with --weight=samples is a usage error (2)" 2 $?
	check "and no file was left behind" test ! -e fo.bad
}
