# Sourced by run.sh: GTF user trace records (docs/gtf.md).

# The hex of every joined func_entry series of FUNC in a gtf-dump listing, one line each.
gtf_series_hex() { # gtf_series_hex DUMP FUNC
	awk -v fn="$2" '
		function done_block() { if (inblk && named) print hex; inblk = 0; named = 0; hex = "" }
		/^0x[0-9a-f]+ series of / { done_block(); inblk = ($0 ~ / func_entry /); next }
		inblk && /^    [a-z_]+ tid=/ { named = index($0, "name=\"" fn "\"") > 0; next }
		inblk && /^    [0-9a-f][0-9a-f][0-9a-f][0-9a-f] / {
			line = $0; sub(/  \|.*$/, "", line); n = split(line, f, " ")
			for (i = 2; i <= n; i++) hex = hex f[i]
			next
		}
		{ done_block() }
		END { done_block() }' "$1"
}

test_gtf() {
	echo "# GTF: user trace records, split above 256 bytes, live and converted alike"
	local d
	d=$(mktemp -d)
	# tgt_message gets a 1,000-byte string: every entry's data is 1,065 bytes, 5 records
	(cd "$d" && "$BC" record -q -f er -f gtf -o g.er -u 'tgt_*' \
		--arg 'tgt_message@arg1/s:1000,arg2/u' -- "$TGT/gtfmsg" 40 1000 >g.out 2>rec.err)
	check_eq "record -f er -f gtf exits 0" 0 $?
	check "the GTF file is beside the experiment: g.gtf" test -s "$d/g.gtf"
	"$BC" gtf-dump "$d/g.gtf" >"$d/g.dump" 2>"$d/g.dump.err"
	check_eq "gtf-dump reads it: exit 0" 0 $?
	check "and finds no problem" grep -qE '^[0-9]+ records, [0-9]+ events \([0-9]+ split series\), 0 problems$' "$d/g.dump"
	local calls
	calls=$(awk '$1 == "tgt_message" { print $2 }' "$d/g.out")
	check_eq "tgt_message entries in GTF equal the target's own count" "$calls" \
		"$(grep -c '^    func_entry .* name="tgt_message"' "$d/g.dump")"
	check_eq "and its returns" "$calls" "$(grep -c '^    func_return .* name="tgt_message"' "$d/g.dump")"
	check_eq "every entry is a series of 5 records (1,065 data bytes)" "$calls" \
		"$(grep -c '^0x[0-9a-f]* series of 5  FID 01 function  EID 0101 func_entry .* data 1065$' "$d/g.dump")"
	check_eq "parts go F0, F1, F1, F1, F3 with sequence 1..5" "$calls" "$(awk '
		/ part  AID F0 first  SID 0  seq 1  total 1065  data 256$/ { k = 1; next }
		k >= 1 && k <= 3 && $0 ~ (" part  AID F1 middle  SID 0  seq " (k + 1) "  total 1065  data 256$") { k++; next }
		k == 4 && / part  AID F3 last  SID 0  seq 5  total 1065  data 41$/ { n++ }
		{ k = 0 }
		END { print n + 0 }' "$d/g.dump")"
	local want joined
	want=$(od -An -tx1 -v "$d/gtfmsg.txt" | tr -d ' \n')
	check_eq "the string passed is 1,000 bytes" 2000 "${#want}"
	joined=$(gtf_series_hex "$d/g.dump" tgt_message | awk -v w="$want" 'index($0, w) { n++ } END { print n + 0 }')
	check_eq "gtf-dump joins every series back to the string passed, byte for byte" "$calls" "$joined"
	check "TOD shown as UTC with microseconds" \
		grep -qE '^0x[0-9a-f]+ record  FID 03 process  EID 0107 exec  20[0-9]{2}-[0-9]{2}-[0-9]{2} [0-9:]{8}\.[0-9]{6} UTC  pid [0-9]+  job .gtfmsg  .  data [0-9]+$' "$d/g.dump"

	local ids
	ids=$("$BC" gtf-dump --ids)
	check "docs/gtf.md's FID and EID table is the one gtf-dump --ids prints" \
		grep -qF -- "$ids" "$HERE/../../docs/gtf.md"

	# One sink, two producers: live and converted are the same file
	"$BC" convert "$d/g.er" -f gtf -o "$d/conv.gtf" 2>"$d/conv.err"
	check_eq "convert -f gtf exits 0" 0 $?
	check "convert -f gtf equals record -f gtf, byte for byte" cmp -s "$d/g.gtf" "$d/conv.gtf"

	check_eq "convert -f gtf -o - | gtf-dump - reads the same records" \
		"$(tail -1 "$d/g.dump")" "$("$BC" convert "$d/g.er" -f gtf -o - 2>/dev/null | "$BC" gtf-dump - | tail -1)"
	if command -v script >/dev/null; then
		script -qec "$BC convert $d/g.er -f gtf -o -" /dev/null >"$d/tty.out" 2>&1
		check_eq "binary to a terminal is refused: exit 2" 2 $?
		check "saying what to do" grep -q "gtf is binary and standard output is a terminal: give -o FILE" "$d/tty.out"
	fi

	# --gtf-ebcdic: the job name in code page 037 ("gtfmsg  " = 87 a3 86 94 a2 87 40 40)
	(cd "$d" && "$BC" record -q -f gtf --gtf-ebcdic -o e.gtf -u tgt_message -- "$TGT/gtfmsg" 2 300 >/dev/null 2>&1)
	check_eq "record -f gtf --gtf-ebcdic exits 0" 0 $?
	check_eq "the first record's job name is EBCDIC" "87a38694a2874040" \
		"$(od -An -tx1 -j20 -N8 "$d/e.gtf" | tr -d ' \n')"
	check "gtf-dump reads it back as EBCDIC" grep -q "job 'gtfmsg  ' (EBCDIC)" <("$BC" gtf-dump --no-hex "$d/e.gtf")

	# Losses are records too: what the ring could not take, per class
	record_stalled -f er -f gtf -o "$d/lost.er" -u 'tgt_*' -- "$TGT/calls" 40000 1
	local lost
	lost=$("$BC" report "$d/lost.er" header | awk '$1 == "Events:" { print $4 }')
	check "a stalled agent with a 1-page ring lost records" test "${lost:-0}" -gt 0
	check_eq "GTF's loss records (EID 010A) count them all" "$lost" "$("$BC" gtf-dump --no-hex "$d/lost.gtf" |
		awk '/^    lost / { for (i = 1; i <= NF; i++) if ($i ~ /^count=/) n += substr($i, 7) } END { print n + 0 }')"

	# Broken files: reported with the byte offset, exit 1, never a crash
	local off
	off=$(awk '/part  AID F1 middle  SID 0  seq 3 / { print $1; exit }' "$d/g.dump")
	off=$((off))
	head -c "$off" "$d/g.gtf" >"$d/gap.gtf"
	tail -c +$((off + 293)) "$d/g.gtf" >>"$d/gap.gtf"
	"$BC" gtf-dump --no-hex "$d/gap.gtf" >"$d/gap.dump" 2>"$d/gap.err"
	check_eq "a series with a middle record missing: exit 1" 1 $?
	check "named with the offset of the record after the gap" \
		grep -q "gap.gtf: offset $(printf '0x%08x' "$off"): sequence 4 where 3 was expected: a record of the series is missing" "$d/gap.err"
	check_eq "the other series are still joined" $((calls - 1)) \
		"$(grep -c '^    func_entry .* name="tgt_message"' "$d/gap.dump")"
	head -c $(($(stat -c %s "$d/g.gtf") - 10)) "$d/g.gtf" >"$d/cut.gtf"
	"$BC" gtf-dump --no-hex "$d/cut.gtf" >/dev/null 2>"$d/cut.err"
	check_eq "a truncated file: exit 1" 1 $?
	check "says truncated, with the offset" grep -qE 'cut.gtf: offset 0x[0-9a-f]{8}: truncated: the record says [0-9]+ bytes, the file holds [0-9]+' "$d/cut.err"
	"$BC" gtf-dump 2>"$d/usage.err"
	check_eq "gtf-dump without a file: usage error, exit 2" 2 $?
	"$BC" gtf-dump "$d/nonexistent.gtf" 2>"$d/missing.err"
	check_eq "gtf-dump of a missing file: exit 1" 1 $?
	check "naming it" grep -q "nonexistent.gtf: No such file or directory" "$d/missing.err"
	rm -rf "$d"
}
