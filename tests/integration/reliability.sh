# Sourced by run.sh: what is promised on faults, bad input and secrets (docs/reliability.md).

# The modes (octal, as stat prints them) of everything under DIR, one "MODE TYPE" per kind seen.
modes_of() { # modes_of DIR
	find "$1" -printf '%m %y\n' | sort -u | tr '\n' ' ' | sed 's/ $//'
}

test_permissions() {
	echo "# permissions: traces are their owner's alone unless --mode widens them"
	local d
	d=$(mktemp -d)
	chmod 755 "$d"
	(cd "$d" && umask 022 && "$BC" record -q -o p.er -f er -f prf-csv -u 'tgt_*' \
		-- "$TGT/calls" 5 2 >/dev/null 2>&1)
	check_eq "record exits 0" 0 $?
	check_eq "the experiment and its descendants' directories are 0700, files 0600, whatever the umask" \
		"600 f 700 d" "$(modes_of "$d/p.er")"
	check "archives were made (so their modes were seen)" test -n "$(ls -A "$d/p.er/archives")"
	check_eq "a live output file is 0600" 600 "$(stat -c %a "$d/p.csv")"
	(cd "$d" && umask 077 && "$BC" record -q --mode 0640 -o w.er -u 'tgt_*' \
		-- "$TGT/calls" 5 2 >/dev/null 2>&1)
	check_eq "record --mode 0640 exits 0" 0 $?
	check_eq "--mode 0640: files 0640, directories 0750, even under umask 077" \
		"640 f 750 d" "$(modes_of "$d/w.er")"
	(cd "$d" && umask 022 && "$BC" convert p.er -f prf-csv -o c.csv 2>/dev/null)
	check_eq "a new converted file is 0600" 600 "$(stat -c %a "$d/c.csv")"
	(cd "$d" && "$BC" convert p.er -f prf-csv --mode 0644 -o c2.csv 2>/dev/null)
	check_eq "convert --mode 0644 widens it" 644 "$(stat -c %a "$d/c2.csv")"
	(cd "$d" && "$BC" convert p.er -f er --mode 0644 -o c.er 2>/dev/null)
	check_eq "convert -f er --mode 0644: files 0644, directories 0755" "644 f 755 d" "$(modes_of "$d/c.er")"
	rm -rf "$d/p.er/archives"
	(cd "$d" && "$BC" archive --mode 0660 p.er >/dev/null 2>&1)
	check_eq "archive --mode 0660: copies 0660, archives/ 0770" "660 f 770 d" "$(modes_of "$d/p.er/archives")"
	local m
	for m in 0755 0400 abc 06644 ""; do
		"$BC" record -q --mode "$m" -- true >/dev/null 2>"$d/mode.err"
		check_eq "record --mode '$m': a usage error, exit 2" 2 $?
	done
	check "saying what --mode takes" grep -q -- "--mode takes octal permissions" "$d/mode.err"
	"$BC" convert "$d/p.er" -f text --mode 0777 -o "$d/x.txt" 2>/dev/null
	check_eq "convert --mode 0777: exit 2" 2 $?
	check "and nothing written" test ! -e "$d/x.txt"
	rm -rf "$d"
}

# Nothing here traces: the experiment is synth-exp's.
test_convert_planted() {
	echo "# convert -o over a planted file: a new file of the converting user's, 0600"
	local d
	d=$(mktemp -d)
	chmod 1777 "$d"
	"$SYNTH" "$d/s.er" 20 >/dev/null
	check_eq "synth-exp writes an experiment" 0 $?
	printf 'planted\n' >"$d/out.csv"
	chown 65534:65534 "$d/out.csv"
	chmod 4777 "$d/out.csv"
	(umask 022 && "$BC" convert "$d/s.er" -f prf-csv -o "$d/out.csv" 2>"$d/c.err")
	check_eq "convert over a -rwsrwxrwx file of another user's: exit 0" 0 $?
	check_eq "the replacement is 0600, not the planted 4777" 600 "$(stat -c %a "$d/out.csv")"
	check_eq "and the converting user's, not the planter's" "$(id -u):$(id -g)" \
		"$(stat -c %u:%g "$d/out.csv")"
	check "with the PRF records" grep -q '^PRF,' "$d/out.csv"
	printf 'planted\n' >"$d/out.txt"
	chmod 0666 "$d/out.txt"
	(umask 0277 && "$BC" convert "$d/s.er" -f text -o "$d/out.txt" 2>/dev/null)
	check_eq "under umask 0277 the replacement is still 0600 (not 0400, nor 0666)" 600 \
		"$(stat -c %a "$d/out.txt")"
	chmod 0600 "$d/out.txt"
	"$BC" convert "$d/s.er" -f text --mode 0644 -o "$d/out.txt" 2>/dev/null
	check_eq "--mode 0644 gives 0644 to the replacement" 644 "$(stat -c %a "$d/out.txt")"
	check_eq "and no temporary file is left" "" "$(find "$d" -maxdepth 1 -name '.out*')"
	rm -rf "$d"
}

test_damaged_subexperiment() {
	echo "# a damaged subexperiment is skipped with a warning; the rest is read"
	local d
	d=$(mktemp -d)
	(cd "$d" && "$BC" record -q -p on -H on -i on -o t.er -u 'tgt_*' -- "$TGT/forker" 2 5 \
		>forker.out 2>/dev/null)
	check "the recording has descendants _f1.er and _f2.er" test -d "$d/t.er/_f1.er" -a -d "$d/t.er/_f2.er"
	local whole_calls
	whole_calls=$("$BC" report "$d/t.er" functions 2>/dev/null | awk '$NF == "tgt_child_work" { print $1 }')
	rm "$d/t.er/_f1.er/log.xml"
	local v out
	for v in header functions calltree threads syscalls procs overview objects heap io profile; do
		"$BC" report "$d/t.er" "$v" >"$d/r.out" 2>"$d/r.err"
		out=$?
		check_eq "report $v: exit 0" 0 "$out"
		check "report $v: the warning names _f1.er and says it is skipped" \
			grep -q "warning: $d/t.er/_f1.er cannot be read (.*log.xml.*); it is skipped" "$d/r.err"
	done
	local calls
	calls=$("$BC" report "$d/t.er" functions 2>/dev/null | awk '$NF == "tgt_child_work" { print $1 }')
	check "the other descendants still count: tgt_child_work $calls of $whole_calls calls" \
		test "${calls:-0}" -gt 0 -a "${calls:-0}" -lt "${whole_calls:-0}"
	"$BC" convert "$d/t.er" -f text -o "$d/t.txt" 2>"$d/c.err"
	check_eq "convert: exit 0" 0 $?
	check "convert warns too" grep -q "_f1.er cannot be read" "$d/c.err"
	check "and writes the rest" grep -q tgt_child_work "$d/t.txt"
	check "gprofng still shows the founder" \
		grep -q "Target command (64-bit): '$TGT/forker 2 5'" <(gprofng display text -header "$d/t.er" 2>&1)
	rm -rf "$d/t.er/log.xml"
	"$BC" report "$d/t.er" >/dev/null 2>"$d/f.err"
	check_eq "a damaged founder is an error: exit 1" 1 $?
	check "naming its log.xml" grep -q "t.er.*log.xml" "$d/f.err"
	rm -rf "$d"
}

test_archive_symlink() {
	echo "# archive never writes through a link planted in an experiment"
	local d
	d=$(mktemp -d)
	(cd "$d" && "$BC" record -q -A off -o s.er -u 'tgt_*' -- "$TGT/calls" 3 1 >/dev/null 2>&1)
	check_eq "record -A off exits 0" 0 $?
	mkdir "$d/elsewhere"
	ln -s "$d/elsewhere" "$d/s.er/archives"
	"$BC" archive "$d/s.er" >"$d/a.out" 2>"$d/a.err"
	check_eq "archive with a symlinked archives/: exit 1" 1 $?
	check "saying it is not written through" grep -q "archives is not a directory (a symbolic link?): not written through" "$d/a.err"
	check_eq "and nothing written where the link points" "" "$(ls -A "$d/elsewhere")"
	rm "$d/s.er/archives"
	"$BC" archive "$d/s.er" >/dev/null 2>&1
	check_eq "a real archives/ is written again: exit 0" 0 $?
	check "with the copies in it" test -n "$(ls -A "$d/s.er/archives")"
	rm -rf "$d"
}

test_attach_killed() {
	echo "# an attached process killed by a signal: its status is in the experiment"
	local d tp rp
	d=$(mktemp -d)
	"$TGT/attach" 1 100 >"$d/k.out" 2>&1 &
	tp=$!
	wait_for "$d/k.out" '^ready'
	"$BC" record -o "$d/k.er" -u 'tgt_*' -P $tp >/dev/null 2>"$d/k.err" &
	rp=$!
	check "record attached" wait_for "$d/k.err" 'attached to 1 process'
	kill -KILL $tp
	wait $rp
	check_eq "record ends by itself when the attached process is killed: exit 0" 0 $?
	check "report says it was killed by signal 9" \
		grep -qE '^Exit: +killed by signal 9' <("$BC" report "$d/k.er" header 2>&1)
	check "report procs too" grep -q 'signal 9' <("$BC" report "$d/k.er" procs 2>&1)
	rm -rf "$d"
}

# PRF records of an event id and status: "COUNT"
prf_events() { # prf_events CSV STATUS EVENT
	awk -F, -v s="$2" -v e="$3" '$1 == s && $6 == e { n++ } END { print n + 0 }' "$1"
}

test_detach_open_calls() {
	echo "# detach: entries stop first; calls still running are open at detach, not errors"
	local d tp
	d=$(mktemp -d)
	# a busy target, 3 threads in tight call loops, attached and left after 1 s
	"$TGT/calls" 1000000000 3 >/dev/null 2>&1 &
	tp=$!
	sleep 0.2
	(cd "$d" && "$BC" record -q -t 1 --bufsize=32 -o t.er -f er -f prf-csv -u 'tgt_*' -P $tp \
		>/dev/null 2>&1)
	check_eq "record -P -t 1 exits 0" 0 $?
	kill $tp
	wait $tp 2>/dev/null
	local entries returns open broken
	entries=$(prf_events "$d/t.csv" Rec 0x0100)
	returns=$(prf_events "$d/t.csv" Rec 0x0101)
	open=$(prf_events "$d/t.csv" Rec 0x0102)
	broken=$(prf_events "$d/t.csv" ErrRec 0x0101)
	check "the busy target made calls ($entries entries)" test "$entries" -gt 10000
	check_eq "no call ends as never returned (ErrRec 0x0101)" 0 "$broken"
	# Three busy threads on two CPUs can starve the agent past what the ring
	# holds: then each lost record may leave one call unmatched, no more.
	local lost diff
	lost=$("$BC" report "$d/t.er" header | awk '$1 == "Events:" { print $4 }')
	if [ "${lost:-0}" -eq 0 ]; then
		check_eq "every entry has its return or is open at detach ($open)" "$entries" \
			$((returns + open))
		check "report has no call that never returned" \
			bash -c "! grep -q 'never returned' <('$BC' report '$d/t.er' functions 2>&1)"
	else
		diff=$((entries - returns - open))
		check "every entry has its return or is open at detach, but for the $lost lost records (off by $diff)" \
			test "${diff#-}" -le "$lost"
	fi
	# -t 0.3 ends the recording inside main -> tgt_sleep, the first of three
	# 700 ms sleeps (with 300 ms ones the end fell between two calls in a full check)
	(cd "$d" && "$BC" record -q -t 0.3 -o o.er -f er -f prf-csv -f rtl -u main -u 'tgt_*' \
		-- "$TGT/offcpu" 700 >/dev/null 2>&1)
	check_eq "record -t 0.3 exits 0" 0 $?
	check_eq "main and tgt_sleep are open at detach (PRF 0x0102 Rec)" "main tgt_sleep" \
		"$(awk -F, '$1 == "Rec" && $6 == "0x0102" { print $18 }' "$d/o.csv" | sort | tr '\n' ' ' | sed 's/ $//')"
	check_eq "with the entry time and 'open at detach'" 2 "$(grep -c ',0x0102,.*open at detach' "$d/o.csv")"
	check_eq "and no ErrRec for them" 0 "$(prf_events "$d/o.csv" ErrRec 0x0101)"
	check "report says 2 calls were open at detach" \
		grep -q "note: 2 calls were open at detach" <("$BC" report "$d/o.er" functions 2>&1)
	check "RTL closes main with 'open at detach'" \
		grep -qE "\} offcpu \([^)]*\) ::main : open at detach\$" "$d"/o_*.log
	rm -rf "$d"
}

test_unsafe_functions() {
	echo "# functions no probe may touch (_start, setjmp, vfork, ...) are skipped, said by name"
	local d
	d=$(mktemp -d)
	# every function of the program, _start included: its argc must reach main intact
	(cd "$d" && "$BC" record -q -o all.er -u '*' -- "$TGT/exitcode" 5 >/dev/null 2>all.err)
	check_eq "record -u '*': the program still sees its argument and exits 5" 5 $?
	check "the warning names _start and says why" \
		grep -q "warning: not tracing _start in $TGT/exitcode: it is the entry point" "$d/all.err"
	check "main is traced" test "$(calls_of "$d/all.er" main)" = 1
	(cd "$d" && "$BC" record -q -o one.er -u _start -- "$TGT/exitcode" 5 >/dev/null 2>one.err)
	check "-u _start alone: non-zero exit" test $? -ne 0
	check "saying none of the matching functions can be probed" \
		grep -q "none of the 1 matching functions can be probed" "$d/one.err"
	(cd "$d" && "$BC" record -q -o lib.er -u 'libc:*setjmp' -u 'libc:*vfork' -u main \
		-- "$TGT/exitcode" 5 >/dev/null 2>lib.err)
	check_eq "libc's setjmp and vfork skipped, the program runs: exit 5" 5 $?
	check "named in the warnings" grep -q "not tracing .*setjmp in .*libc.*returns twice" "$d/lib.err"
	rm -rf "$d"
}

test_record_disk_full_formats() {
	echo "# record -f FORMAT on a full disk: each live file ends at its last whole record"
	local d m f rc
	d=$(mktemp -d)
	m="$d/small"
	if ! small_disk "$d"; then
		rm -rf "$d"
		return
	fi
	(cd "$m" && "$BC" record -q -o live -f chrome -f gtf -f text -f prf-csv --syscalls=write \
		-u 'tgt_*' -- "$TGT/calls" 20000 2 >/dev/null 2>"$d/rec.err")
	rc=$?
	check_eq "record -f chrome -f gtf -f text -f prf-csv on a 64 KiB file system: exit 1" 1 "$rc"
	for f in chrome:json gtf:gtf text:txt prf-csv:csv; do
		check "${f%%:*}: its file is said to end at its last whole record" \
			grep -qE "cannot write live.${f#*:}: No space left on device \(disk full\); it ends at its last whole record, and [0-9]+ records were not written" "$d/rec.err"
	done
	check_eq "chrome: a JSON object with trace events" ok \
		"$(python3 "$HERE/lib/chrome_check.py" "$m/live.json" valid 2>&1)"
	check "chrome: closed after a whole event" ends_with "$m/live.json" 7d0a5d7d0a
	check "gtf: gtf-dump reads it with no problem" test "$(gtf_events "$m/live.gtf")" -ge 0
	check "text: whole lines" whole_lines "$m/live.txt"
	check "prf-csv: the header, then whole lines" ends_with "$m/live.csv" 0a
	rm -f "$m"/*
	(cd "$m" && "$BC" record -q -o r -f rtl -u 'tgt_*' -- "$TGT/forker" 2 2000 \
		>/dev/null 2>"$d/rtl.err")
	check_eq "record -f rtl on a 64 KiB file system: exit 1" 1 $?
	check "rtl: a file cut short is said, with its count" \
		grep -qE "cannot write r_[0-9]+.log: No space left on device \(disk full\); it ends at its last whole record, and [0-9]+ records were not written" "$d/rtl.err"
	for f in "$m"/r_*.log; do
		check "rtl: $(basename "$f") is whole lines" whole_lines "$f"
	done
	umount "$m"
	rm -rf "$d"
}

test_disk_full() {
	echo "# a full disk: the experiment says it was cut short, and by how much"
	local d m rc
	d=$(mktemp -d)
	m="$d/small"
	mkdir "$m"
	if ! mount -t tmpfs -o size=1m bpfcollect-test "$m" 2>/dev/null; then
		echo "# cannot mount a tmpfs here: skipped"
		rm -rf "$d"
		return
	fi
	(cd "$m" && "$BC" record -q -A off -o full.er -f er -f prf-csv -u 'tgt_*' \
		-- "$TGT/calls" 20000 2 >/dev/null 2>"$d/rec.err")
	rc=$?
	cp "$m/full.csv" "$d/live.csv" 2>/dev/null
	check_eq "record on a 1 MB file system: exit 1" 1 "$rc"
	check "saying the disk is full and how many records were not written" \
		grep -qE "No space left on device \(disk full\); the data written so far is kept, and [1-9][0-9]* records after it are counted as unwritten" "$d/rec.err"
	check "gprofng opens what was written" gprofng_ok "$m/full.er"
	"$BC" report "$m/full.er" header >"$d/hdr.txt" 2>&1
	check_eq "report reads it: exit 0" 0 $?
	check "the header says it was cut short, with the count" \
		grep -qE '^Cut short: +No space left on device: [1-9][0-9]* records were not written' "$d/hdr.txt"
	check_eq "record and report count the same records unwritten, once each" \
		"$(sed -n 's/.*and \([0-9]*\) records after it are counted as unwritten/\1/p' "$d/rec.err")" \
		"$(sed -n 's/^Cut short: .*: \([0-9]*\) records were not written.*/\1/p' "$d/hdr.txt")"
	check "and the recording closed (its exit event fits the reserve)" \
		bash -c "! grep -q 'the recorder died' '$d/hdr.txt'"
	"$BC" convert "$m/full.er" -f prf-csv -o "$d/full.csv" 2>/dev/null
	check "PRF says it as an ErrRec lost_unwritten" grep -q '^ErrRec,.*,agent,lost_unwritten,' "$d/full.csv"
	"$BC" convert "$m/full.er" -f text -o "$d/full.txt" 2>/dev/null
	check "the text format says it" grep -q 'lost unwritten count=[1-9]' "$d/full.txt"
	"$BC" convert "$m/full.er" -f gtf -o "$d/full.gtf" 2>/dev/null
	check "GTF has a loss record named unwritten" \
		grep -q '^    lost .* name="unwritten"' <("$BC" gtf-dump --no-hex "$d/full.gtf")
	check "the reserve is gone" test ! -e "$m/full.er/.bcreserve"
	umount "$m"
	rm -rf "$d"
}

# A 64 KiB tmpfs at DIR/small, for the tests of a full disk; false (said) when none can be made.
small_disk() { # small_disk DIR
	mkdir "$1/small"
	if ! mount -t tmpfs -o size=64k bpfcollect-test "$1/small" 2>/dev/null; then
		echo "# cannot mount a tmpfs here: skipped"
		return 1
	fi
}

# Whether CUT is WHOLE's first bytes, all but the last SKIP (the format's end after the cut).
is_prefix() { # is_prefix CUT WHOLE [SKIP]
	local n=$(($(stat -c %s "$1") - ${3:-0}))
	[ "$n" -gt 0 ] && cmp -s -n "$n" "$1" "$2"
}

# Whether FILE ends with the bytes HEX (od's lowercase hex, no spaces).
ends_with() { # ends_with FILE HEX
	[ "$(tail -c $((${#2} / 2)) "$1" | od -An -tx1 | tr -d ' \n')" = "$2" ]
}

# The N of "... it ends at its last whole record, and N records were not written" naming FILE.
unwritten_of() { # unwritten_of ERRFILE FILE
	sed -n "s|.*cannot write $2: No space left on device (disk full); it ends at its last whole record, and \([0-9]*\) records were not written\$|\1|p" "$1"
}

# Whether FILE is whole lines: empty (the disk filled before its first one), or ending in one.
whole_lines() { # whole_lines FILE
	[ ! -s "$1" ] || ends_with "$1" 0a
}

# Events of a gtf-dump summary ("N records, N events (...), 0 problems"); "bad" with problems.
gtf_events() { # gtf_events FILE
	"$BC" gtf-dump --no-hex "$1" 2>/dev/null | awk '/ events .*problems$/ { print ($(NF - 1) == 0 ? $3 : "bad") }'
}

# Checks that the FORMAT file CUT, which a full disk cut short, ends at a whole record, valid
# for its format: WHOLE's beginning (the same stream written with room), and the count said
# in ERRFILE adds up.
check_cut() { # check_cut FORMAT CUT WHOLE ERRFILE
	local f=$1 cut=$2 whole=$3 n
	n=$(unwritten_of "$4" "$cut")
	check "$f: one line says the disk filled, where the file ends and what it lacks ($n)" \
		test -n "$n"
	case $f in
	text | prf-csv)
		check "$f: whole lines, the beginning of the file written with room" \
			bash -c "$(declare -f is_prefix ends_with); is_prefix '$cut' '$whole' && ends_with '$cut' 0a"
		check_eq "$f: its lines and the ones said not written are all the lines" \
			"$(wc -l <"$whole")" "$(($(wc -l <"$cut") + ${n:-0}))"
		;;
	prf-dump)
		check "$f: whole records (a blank line ends each), the beginning of the file with room" \
			bash -c "$(declare -f is_prefix ends_with); is_prefix '$cut' '$whole' && ends_with '$cut' 0a0a"
		;;
	chrome)
		check "$f: the events up to a whole one, then the array's and the object's end" \
			bash -c "$(declare -f is_prefix ends_with); is_prefix '$cut' '$whole' 4 && ends_with '$cut' 7d0a5d7d0a"
		check_eq "$f: a JSON object with trace events" ok \
			"$(python3 "$HERE/lib/chrome_check.py" "$cut" valid 2>&1)"
		;;
	gtf)
		check "$f: the beginning of the file written with room" is_prefix "$cut" "$whole"
		check_eq "$f: gtf-dump reads whole records, with the ones said not written all of them" \
			"$(gtf_events "$whole")" "$(($(gtf_events "$cut") + ${n:-0}))"
		;;
	esac
}

# Nothing here traces: the experiment is synth-exp's.
test_convert_disk_full() {
	echo "# convert on a full disk: each file ends at its last whole record, and says so"
	local d m f
	d=$(mktemp -d)
	m="$d/small"
	if ! small_disk "$d"; then
		rm -rf "$d"
		return
	fi
	"$SYNTH" "$d/s.er" 3000 >/dev/null
	check_eq "synth-exp writes an experiment (33007 records)" 0 $?
	for f in text prf-csv prf-dump chrome gtf; do
		"$BC" convert "$d/s.er" -f "$f" -o "$d/whole.$f" 2>/dev/null
		"$BC" convert "$d/s.er" -f "$f" -o "$m/cut.$f" 2>"$d/c.err"
		check_eq "$f: convert -o onto a full 64 KiB file system: exit 1" 1 $?
		check_eq "$f: one line on stderr" 1 "$(wc -l <"$d/c.err")"
		check_cut "$f" "$m/cut.$f" "$d/whole.$f" "$d/c.err"
		rm -f "$m"/*
	done
	"$BC" convert "$d/s.er" -f chrome >"$m/out.json" 2>"$d/c.err"
	check_eq "chrome to standard output on the full disk: exit 1" 1 $?
	sed -i 's|standard output|'"$m/out.json"'|' "$d/c.err"
	check_cut chrome "$m/out.json" "$d/whole.chrome" "$d/c.err"
	rm -f "$m"/*
	printf 'the user'"'"'s own\n' >"$m/keep.txt"
	"$BC" convert "$d/s.er" -f text -o "$m/keep.txt" 2>"$d/c.err"
	check_eq "a file convert was to replace: exit 1" 1 $?
	check_eq "is left as it was" "the user's own" "$(cat "$m/keep.txt")"
	check "saying so" grep -q "keep.txt: No space left on device (disk full); it is left as it was, not replaced by a conversion cut short" "$d/c.err"
	check_eq "and no temporary file is left" "keep.txt" "$(ls -A "$m")"
	rm -f "$m"/*
	"$BC" convert "$d/s.er" -f rtl -o "$d/whole" 2>/dev/null
	"$BC" convert "$d/s.er" -f rtl -o "$m/run" 2>"$d/c.err"
	check_eq "rtl: exit 1" 1 $?
	check "rtl: the first file cut short is said, with its count" \
		grep -qE "cannot write $m/run_[0-9]+.log: No space left on device \(disk full\); it ends at its last whole record, and [0-9]+ records were not written" "$d/c.err"
	for f in "$m"/run_*.log; do
		check "rtl: $(basename "$f") is whole lines, the beginning of the one written with room" \
			bash -c "$(declare -f is_prefix ends_with); is_prefix '$f' '$d/whole_${f##*/run_}' && ends_with '$f' 0a"
	done
	umount "$m"
	rm -rf "$d"
}

# uprobe_multi links on the machine, as bpftool lists them.
uprobe_links() { bpftool link show 2>/dev/null | grep -cE '^[0-9]+: (uprobe_multi|type 12) '; }

test_killed_agent() {
	echo "# a SIGKILLed agent is gone at once, and its probes go in the safe order"
	if ! command -v bpftool >/dev/null; then
		echo "# no bpftool: skipped"
		return
	fi
	local d rp tp before during after i
	d=$(mktemp -d)
	before=$(uprobe_links)
	# main and the workers' loops are probed: frames that outlive the recording
	(cd "$d" && exec "$BC" record -q -o k.er -u main -u 'tgt_*' -- "$TGT/calls" 1000000000 2 \
		>/dev/null 2>k.err) &
	rp=$!
	wait_for "$d/k.er/log.xml" 'bpfcollect: command:'
	sleep 1
	tp=$(pgrep -f "^$TGT/calls 1000000000 2" | head -1)
	during=$(uprobe_links)
	check "the recording attached its probes ($during links, $before before)" test "$during" -gt "$before"
	kill -KILL $rp
	for i in $(seq 50); do
		kill -0 $rp 2>/dev/null || break
		sleep 0.1
	done
	check "the killed agent is gone within 5 s (not stuck in a detach)" bash -c "! kill -0 $rp 2>/dev/null"
	wait $rp 2>/dev/null
	for i in $(seq 50); do
		after=$(uprobe_links)
		[ "$after" -le "$before" ] && break
		sleep 0.1
	done
	check_eq "and within 5 s nothing of it stays attached" "$before" "$after"
	check "the target still runs, untraced" kill -0 "$tp"
	kill -KILL "$tp" 2>/dev/null
	for i in $(seq 50); do
		kill -0 "$tp" 2>/dev/null || break
		sleep 0.1
	done
	"$BC" report "$d/k.er" header >"$d/r.txt" 2>&1
	check_eq "report reads what it wrote: exit 0" 0 $?
	check "and says its recorder died" grep -q "the recorder died" "$d/r.txt"
	rm -rf "$d"
}

# One fault: the agent recording in MODE gets SIGNAL mid-run. After it: the
# agent gone within 5 s, the machine's uprobe links as before, gprofng opens
# the experiment with no errors, report and convert read it.
fault_case() { # fault_case DIR MODE SIGNAL
	local d=$1 mode=$2 sig=$3 exp="$1/$2-$3.er" rp tp="" before i args=()
	before=$(uprobe_links)
	case $mode in
	launched) args=(-u main -u 'tgt_*' -- "$TGT/calls" 1000000000 2) ;;
	profile) args=(-p on -u 'tgt_*' -- "$TGT/calls" 1000000000 2) ;;
	heap) args=(-H on -u 'tgt_*' -- "$TGT/calls" 1000000000 2) ;;
	io) args=(-i on --syscalls -u 'tgt_*' -- "$TGT/calls" 1000000000 2) ;;
	kernel) args=(-k -u 'tgt_*' -- "$TGT/calls" 1000000000 2) ;;
	system) args=(-a -t 30) ;;
	attach)
		"$TGT/calls" 1000000000 2 >/dev/null 2>&1 &
		tp=$!
		sleep 0.2
		args=(-u 'tgt_*' -P "$tp")
		;;
	esac
	"$BC" record -q -o "$exp" "${args[@]}" >/dev/null 2>"$d/$mode-$sig.err" &
	rp=$!
	wait_for "$exp/log.xml" 'bpfcollect: (command|clock)' >/dev/null 2>&1
	sleep 0.8
	[ -n "$tp" ] || tp=$(pgrep -f "^$TGT/calls 1000000000 2" | head -1)
	kill "-$sig" $rp
	for i in $(seq 50); do
		kill -0 $rp 2>/dev/null || break
		sleep 0.1
	done
	local gone=yes
	kill -0 $rp 2>/dev/null && gone=no
	wait $rp 2>/dev/null
	for i in $(seq 50); do
		[ "$(uprobe_links)" -le "$before" ] && break
		sleep 0.1
	done
	[ -n "$tp" ] && kill -KILL "$tp" 2>/dev/null
	check_eq "$mode, SIG$sig: the agent is gone within 5 s" yes "$gone"
	check_eq "$mode, SIG$sig: nothing of it stays attached" "$before" "$(uprobe_links)"
	check "$mode, SIG$sig: gprofng opens the experiment" gprofng_ok "$exp"
	check "$mode, SIG$sig: report reads it" bash -c "'$BC' report '$exp' header >/dev/null 2>&1"
	check "$mode, SIG$sig: convert writes it" \
		bash -c "'$BC' convert '$exp' -f text -o '$d/$mode-$sig.txt' >/dev/null 2>&1"
}

test_faults() {
	echo "# faults: the agent killed with SIGINT, SIGTERM, SIGKILL in every mode"
	if ! command -v bpftool >/dev/null; then
		echo "# no bpftool: skipped"
		return
	fi
	local d mode sig
	d=$(mktemp -d)
	for mode in launched attach profile heap io kernel system; do
		for sig in INT TERM KILL; do
			fault_case "$d" "$mode" "$sig" 2>/dev/null
		done
	done
	echo "# faults: the traced program killed by SIGSEGV and SIGKILL"
	for sig in SEGV KILL; do
		"$BC" record -q -o "$d/t-$sig.er" -u 'tgt_*' -- "$TGT/calls" 1000000000 2 \
			>/dev/null 2>&1 &
		local rp=$! tp i
		wait_for "$d/t-$sig.er/log.xml" 'bpfcollect: command:' >/dev/null 2>&1
		sleep 0.5
		tp=$(pgrep -f "^$TGT/calls 1000000000 2" | head -1)
		kill "-$sig" "$tp"
		wait $rp 2>/dev/null
		check "target SIG$sig: the recording ends by itself, saying how" \
			grep -qE "^Exit: +killed by signal $(kill -l "$sig")" <("$BC" report "$d/t-$sig.er" header 2>&1)
		check "target SIG$sig: gprofng opens it" gprofng_ok "$d/t-$sig.er"
	done
	rm -rf "$d"
}

test_closed_pipe() {
	echo "# a reader that goes away: the recording ends on the write error, detached in order"
	local before after rc
	before=$(uprobe_links)
	"$BC" record -f text -o - -u 'tgt_*' -- "$TGT/calls" 20000 1 2>cp.err | head -1 >cp.out
	rc=${PIPESTATUS[0]}
	check_eq "record exits 1, not killed by SIGPIPE (141)" 1 "$rc"
	check "it says why, in one line" \
		grep -qx 'bpfcollect: cannot write standard output: Broken pipe (its reader went away); .* counted as unwritten' cp.err
	check_eq "the reader got the first line" 1 "$(wc -l <cp.out)"
	after=$(uprobe_links)
	check_eq "no uprobe link is left" "$before" "$after"
	# the agent ignores SIGPIPE; the command it launches starts with it as it was
	"$BC" record -q -o cp.er --syscalls=kill -- sh -c 'kill -PIPE $$; echo survived' >cp.sh.out 2>&1
	check_eq "the launched command dies of SIGPIPE as it would alone (128 + 13)" 141 $?
	check_eq "and never went on" "" "$(cat cp.sh.out)"
}
