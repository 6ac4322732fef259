# Sourced by run.sh: record's live status line on stderr, and the summary after it.

# The status lines of a stderr file (the summary names the experiment instead of a time).
status_lines() { # status_lines FILE
	grep -aE '^bpfcollect: [0-9]+\.[0-9] s  ' "$1"
}

# The events a status line shows, as a number: "1.24 M events" is 1240000 (the line
# cuts to three digits, so this is at most what it stood for).
status_events() { # status_events LINE
	awk '{ for (i = 1; i <= NF; i++) if ($i == "events") {
		n = $(i - 1); m = 1
		if (n ~ /^[kMGTPE]$/) {
			m = 1e3 ^ index("kMGTPE", n); n = $(i - 2)
		}
		printf "%.0f\n", n * m; exit } }' <<<"$1"
}

# Bytes as the summary prints them ("7.85 MB", "512 B"), as a number.
si_bytes() { # si_bytes "N UNIT"
	awk '{ m = 1; p = substr($2, 1, length($2) - 1)
		if (p != "") m = 1e3 ^ index("kMGTPE", p)
		printf "%.0f\n", $1 * m }' <<<"$1"
}

test_status_line() {
	echo "# the status line: forced onto a file, at most 4 redraws a second, then the summary"
	"$BC" record --status -A off -t 2 -o st.er -u 'tgt_*' -- "$TGT/calls" 200000 1 \
		>/dev/null 2>st.err
	check_eq "record --status exits with the command's status" 0 $?
	local n last summary
	n=$(status_lines st.err | wc -l)
	check "one line per redraw ($n)" test "$n" -ge 2
	last=$(status_lines st.err | tail -1)
	check "a line: elapsed, events, events a second, processes, bytes ($last)" grep -qE \
		'^bpfcollect: [0-9]+\.[0-9] s  [0-9.]+( [kMG])? events  [0-9.]+( [kMG])?/s  procs 1  [0-9.]+ [kMG]?B$' \
		<<<"$last"
	check "nothing lost: no lost field" test -z "$(status_lines st.err | grep 'lost:')"
	check "no escape sequences when stderr is a file" test -z "$(grep -a $'[\r\033]' st.err)"
	# The k-th redraw comes at k/4 s of the recording's own time at the earliest; the
	# line prints it cut to tenths (up to 0.1 s less).
	check "at most 4 redraws a second of the recording's own time" awk '
		{ k++; if (k > 4 * ($2 + 0.1) + 1e-6) { print "redraw " k " at " $2 " s"; bad = 1 } }
		END { exit bad }' <(status_lines st.err)
	summary=$(grep -a '^bpfcollect: st.er: ' st.err)
	check "a summary: events, lost, processes, bytes, duration ($summary)" grep -qE \
		'^bpfcollect: st.er: [0-9]+ events, 0 lost, 1 process, [0-9.]+ [kMG]?B, [0-9]+\.[0-9] s, 6 functions probed \(stopped by -t\)$' \
		<<<"$summary"
	check "after the last status line" awk '/^bpfcollect: [0-9]+\.[0-9] s  / { l = NR }
		/^bpfcollect: st.er: / { s = NR } END { exit !(l && s > l) }' st.err
	local shown total
	shown=$(status_events "$last")
	total=$(awk '{ print $3 }' <<<"$summary")
	check "the last line's events ($shown) are no more than the summary's ($total)" \
		test "$shown" -le "$total"
	# bytes: what the agent wrote, the experiment's files here (to the three digits shown)
	local said files
	said=$(si_bytes "$(sed -E 's/.* process, ([0-9.]+ [kMG]?B),.*/\1/' <<<"$summary")")
	files=$(find st.er -type f -printf '%s\n' | awk '{ s += $1 } END { print s }')
	check "the summary's bytes ($said) are the experiment's size ($files)" \
		awk -v s="$said" -v f="$files" 'BEGIN { exit !(s <= f && f < s * 1.01 + 1) }'

	echo "# -q says nothing; without --status, a stderr that is no terminal has no status line"
	"$BC" record -q -o q.er -u 'tgt_*' -- "$TGT/calls" 200 1 >/dev/null 2>q.err
	check_eq "-q: nothing on stderr" "" "$(cat q.err)"
	"$BC" record -o plain.er -u 'tgt_*' -- "$TGT/calls" 200 1 >/dev/null 2>plain.err
	check_eq "no terminal, no --status: no status line" 0 "$(status_lines plain.err | wc -l)"
	check "but the summary" grep -q '^bpfcollect: plain.er: [0-9]* events, 0 lost, 1 process' plain.err
	expect_error "-q with --status is a usage error" "-q silences the status line" \
		"$BC" record -q --status -u 'tgt_*' -- "$TGT/calls" 1 1
	"$BC" record -q --status -u 'tgt_*' -- "$TGT/calls" 1 1 >/dev/null 2>&1
	check_eq "exit 2" 2 $?
	"$BC" record --status -A off -o fk.er -u 'tgt_*' -- "$TGT/forker" 3 4 >/dev/null 2>fk.err
	check "processes: the command and the 4 it forked" grep -q '^bpfcollect: fk.er: .* 5 processes, ' fk.err
}

test_status_tty() {
	echo "# on a terminal: redrawn in place, cleared before the summary"
	if ! command -v script >/dev/null; then
		bad "script missing (util-linux)"
		return
	fi
	script -qc "stty cols 200; '$BC' record -A off -t 1.5 -o tty.er -u 'tgt_*' \
		-- '$TGT/calls' 200000 1 >/dev/null" /dev/null </dev/null >tty.out 2>&1
	check "redraws in place: \\r, the line, \\033[K" grep -qaP \
		'\rbpfcollect: \d+\.\d s  [^\r\n]* events  [^\r\n]*procs 1  [^\r\n]*B\x1b\[K' tty.out
	check "cleared (\\r\\033[K) right after the last redraw, then the summary" grep -qaP \
		'B\x1b\[K\r\x1b\[Kbpfcollect: tty.er: \d+ events' tty.out
	# 40 columns: every redraw cut to 39, whole fields
	script -qc "stty cols 40; '$BC' record -A off -t 1 -o narrow.er -u 'tgt_*' \
		-- '$TGT/calls' 200000 1 >/dev/null" /dev/null </dev/null >narrow.out 2>&1
	check "on a 40-column terminal, redraws of 39 columns at most" awk '
		BEGIN { RS = "[\r\n]" } { gsub(/\033\[K/, "") }
		/^bpfcollect: [0-9]+\.[0-9] s/ { n++; if (length($0) > 39) { print "a line of " length($0); bad = 1 } }
		END { exit bad || !n }' narrow.out
	script -qc "'$BC' record -q -A off -t 1 -o ttyq.er -u 'tgt_*' -- '$TGT/calls' 200000 1 >/dev/null" \
		/dev/null </dev/null >ttyq.out 2>&1
	check_eq "-q on a terminal: nothing at all" "" "$(tr -d '\r\n' <ttyq.out)"
}

# What a ROWS x COLS terminal shows after the bytes of FILE (tests/integration/lib/vt_screen.py).
vt_screen() { # vt_screen ROWS COLS FILE
	python3 "$HERE/lib/vt_screen.py" "$1" "$2" <"$3"
}

test_status_pinned() {
	echo "# a terminal that knows its size: the line keeps the bottom row, the command's output scrolls above"
	local cmd="i=0; while [ \$i -lt 30 ]; do i=\$((i+1)); echo line \$i; sleep 0.05; done"
	TERM=xterm script -qc "stty rows 12 cols 100; '$BC' record -A off -o pin.er --syscalls=write \
		-- sh -c '$cmd'" /dev/null </dev/null >pin.raw 2>&1
	check_eq "record exits 0" 0 $?
	# the screen just before the end: everything up to the region's release
	local during end
	during=$(LC_ALL=C awk 'BEGIN { RS = "\033\\[r"; ORS = "" } NR == 1 { print }' pin.raw)
	printf '%s' "$during" >pin.during
	check "while recording, the bottom row is the status line" \
		bash -c "vt_screen() { python3 '$HERE/lib/vt_screen.py' \"\$@\"; }; vt_screen 12 100 <pin.during | sed -n 12p | grep -qE '^bpfcollect: [0-9]+\.[0-9] s  '"
	check_eq "and above it only the command's lines, each whole" "" \
		"$(vt_screen 12 100 pin.during | sed -n 1,11p | grep -vE '^(line [0-9]+|bpfcollect: .*recording syscalls only|)$')"
	vt_screen 12 100 pin.raw >pin.screen
	check_eq "at the end: the last line, the summary, and an empty bottom row" \
		"line 30|bpfcollect: pin.er:|" \
		"$(sed -n 10p pin.screen)|$(sed -n 11p pin.screen | cut -d' ' -f1-2)|$(sed -n 12p pin.screen)"
	check_eq "no status line is left on the screen" "" "$(grep -E '^bpfcollect: [0-9]+\.[0-9] s' pin.screen)"
	check "the scroll region is given back (ESC [ r) before the summary" \
		grep -qaP '\x1b\[r\x1b8\x1b7\x1b\[12;1H\x1b\[2K\x1b8bpfcollect: pin.er: ' pin.raw
	TERM=dumb script -qc "stty rows 12 cols 100; '$BC' record -A off -t 1 -o dumb.er -u 'tgt_*' \
		-- '$TGT/calls' 200000 1 >/dev/null" /dev/null </dev/null >dumb.raw 2>&1
	check "TERM=dumb: no scroll region, the line redrawn in place" \
		bash -c "! grep -qa $'\033\\[1;11r' dumb.raw && grep -qaP '\rbpfcollect: \d+\.\d s  ' dumb.raw"
}

test_status_lost() {
	echo "# a 1-page ring and a stalled agent: the line names the class that lost"
	"$BC" record --status -A off --bufsize=1 -t 4 -o stl.er -u 'tgt_*' -- "$TGT/calls" 40000 1 \
		>/dev/null 2>stl.err &
	stall_agent $!
	check_eq "record exits 0" 0 $?
	check "a status line says lost: func N" grep -qE '  lost: func [0-9.]+( [kMG])?  procs 1  ' \
		<(status_lines stl.err)
	check "losses shown from the moment they are counted: every later line too" awk '
		/lost: / { seen = 1; next } seen { print "a line without losses after one with: " $0; bad = 1 }
		END { exit bad || !seen }' <(status_lines stl.err)
	check "the summary says them by class, exactly" grep -qE \
		'^bpfcollect: stl.er: [0-9]+ events, ([0-9]+) lost \(func [0-9]+\), 1 process, ' stl.err
}
