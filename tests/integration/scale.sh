# shellcheck shell=bash
# Scale (sourced by run.sh): experiment files far bigger than the memory
# reading them may take. Nothing here loads BPF: the experiments are
# written by tests/integration/lib/ helpers, so any one of these runs
# without root (tests/integration/run.sh build scale_mapxml).

SCALE_RSS_KB=65536 # what report and convert may take at most

# Runs COMMAND with its output in OUT; prints its peak RSS in KiB and exit status.
peak_rss() { # peak_rss OUT COMMAND...
	local out=$1 f
	shift
	f=$(mktemp)
	/usr/bin/time -f '%M %x' -o "$f" "$@" >"$out" 2>&1
	tail -1 "$f"
	rm -f "$f"
}

# Runs COMMAND (OUT its output) and checks it exits 0 within SCALE_RSS_KB.
check_flat() { # check_flat WHAT OUT COMMAND...
	local what=$1 out=$2 rss rc t0 t1
	shift 2
	t0=$(date +%s.%N)
	read -r rss rc < <(peak_rss "$out" "$@")
	t1=$(date +%s.%N)
	check_eq "$what exits 0" 0 "$rc"
	[ "$rc" = 0 ] || head -5 "$out"
	check "$what: peak RSS ${rss:-?} KiB < $SCALE_RSS_KB KiB ($(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s)" \
		test "${rss:-999999999}" -lt "$SCALE_RSS_KB"
}

# 1.1 million dlopen/dlclose of libm: a 300 MB map.xml (past the 256 MiB the
# readers once capped text files at; gprofng reads it). report and convert
# stream it: memory stays far below the file, and nothing is lost.
test_scale_mapxml() {
	echo "# scale_mapxml: a 300 MB map.xml read by report, convert, archive with flat memory"
	local d exp cycles=1100000 size segs unmaps
	if [ ! -x /usr/bin/time ] || ! command -v python3 >/dev/null; then
		bad "scale_mapxml needs /usr/bin/time and python3: tools/install-deps.sh installs them"
		return
	fi
	d=$(mktemp -d)
	exp=$d/big.er
	python3 "$HERE/lib/big_map_exp.py" "$exp" $cycles
	size=$(stat -c %s "$exp/map.xml")
	check "precondition: map.xml holds $((size >> 20)) MiB, over 256 MiB" \
		test "$size" -gt $((256 << 20))

	check_flat "report" "$d/report.out" "$BC" report "$exp"
	check_eq "report: every call of the probed function" 1000 \
		"$(awk '$NF == "work" { print $1; exit }' "$d/report.out")"
	check_flat "report objects" "$d/objects.out" "$BC" report "$exp" objects
	check_eq "report objects: every mapping of libm" "$cycles" \
		"$(awk '$NF ~ /\/libm\.so\.6$/ { print $2 }' "$d/objects.out")"
	check_flat "report profile" "$d/profile.out" "$BC" report "$exp" profile
	check_eq "report profile: every sample in libm, each named in a mapping live then" \
		"10.000 100.00" "$(awk '$(NF - 1) == "libm.so.6" { print $1, $2; exit }' "$d/profile.out")"
	check_flat "convert -f prf-csv" "$d/csv.out" "$BC" convert "$exp" -f prf-csv -o "$d/big.csv"
	check_eq "convert -f prf-csv: a record per call and return, and the header" 2001 \
		"$(wc -l 2>/dev/null <"$d/big.csv")"
	check_flat "convert -f er" "$d/er.out" "$BC" convert "$exp" -f er -o "$d/copy.er"
	segs=$(grep -sc 'object="segment"' "$d/copy.er/map.xml")
	unmaps=$(grep -sc 'kind="unmap"' "$d/copy.er/map.xml")
	check_eq "convert -f er: every segment and unmap written again" \
		"$((cycles + 1)) $cycles" "$segs $unmaps"
	rm -rf "$d/copy.er"
	check_flat "archive" "$d/archive.out" "$BC" archive "$exp"
	if command -v gprofng >/dev/null; then
		check "gprofng opens it with no errors" gprofng_ok "$exp"
	fi
	rm -rf "$d"
}
