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
	neighbours_during heap -H on --
	check_eq "the traced process has them" "malloc cc free cc" "$(cat heap.t.out)"
	check "an unrelated process running malloc and free has not" \
		grep -q '^malloc [^c]. free [^c].$' heap.n.out
	check "heap records were made" test "$("$BC" report heap.er heap | grep -c malloc)" -gt 0

	echo "# -u libc:malloc -P PID: the probe in the attached process alone"
	neighbours_during pid -u libc:malloc -P TRACED
	check "the attached process has it" grep -q '^malloc cc ' pid.t.out
	check "an unrelated process has not" grep -q '^malloc [^c]. ' pid.n.out
	check "its calls were counted" test "$(calls_of pid.er malloc)" -gt 0

	echo "# -F off -u libc:malloc -- CMD"
	neighbours_during off -F off -u libc:malloc --
	check "the traced process has it" grep -q '^malloc cc ' off.t.out
	check "an unrelated process has not" grep -q '^malloc [^c]. ' off.n.out
}
