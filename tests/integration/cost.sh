# shellcheck shell=bash
# The traced program's cost (sourced by run.sh): where the probes go.

# A CET build (every function starts with endbr64): the probes go past it,
# so a call costs what it costs in a function without endbr64, and
# arguments, return values and counts are unchanged.
test_endbr64() {
	echo "# endbr64 (CET builds): probed past it, at the price of a push"
	local d n=20000 line cet plain
	d=$(mktemp -d)
	check "precondition: cet_add starts with endbr64, plain_add with push" \
		test "$(objdump -d "$TGT/cetcalls" | awk '/<cet_add>:/ { getline; print $NF; exit }')$(objdump -d "$TGT/cetcalls" | awk '/<plain_add>:/ { getline; print $(NF-1); exit }')" = "endbr64push"
	(cd "$d" && "$BC" record -q -A off -o cet.er -u cet_add -u plain_add \
		--arg 'cet_add@arg1/d32,arg2/d32,retval/d32' -- "$TGT/cetcalls" $n >cet.out 2>cet.err)
	check_eq "record exits 0, warning about nothing" "0 " "$? $(cat "$d/cet.err")"
	check_eq "every call of cet_add counted" $n "$(calls_of "$d/cet.er" cet_add)"
	check_eq "every call of plain_add counted" $n "$(calls_of "$d/cet.er" plain_add)"
	"$BC" report "$d/cet.er" events >"$d/cet.ev"
	line=$(grep ' entry cet_add ' "$d/cet.ev" | tail -1)
	check_eq "arguments read past endbr64 as passed" "$((n - 1)) 7" \
		"$(field "$line" arg1) $(field "$line" arg2)"
	check_eq "return value of the last call" "$((n - 1 + 7))" \
		"$(field "$(grep ' return cet_add ' "$d/cet.ev" | tail -1)" retval)"
	# what each loop cost, as the program measured it: single-stepping endbr64
	# costs about seven times an emulated push
	read -r cet plain < <(sed -n 's/^cet_ns=\([0-9]*\) plain_ns=\([0-9]*\).*/\1 \2/p' "$d/cet.out")
	check "a traced call of cet_add costs what one of plain_add does (${cet:-?} vs ${plain:-?} ns for $n)" \
		test "${cet:-0}" -gt 0 -a "${cet:-0}" -lt $((2 * ${plain:-0}))
	rm -rf "$d"
}
