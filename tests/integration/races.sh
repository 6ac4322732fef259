# Races and planted files: root records and converts where other users can
# write, for tests/integration/run.sh: sourced there. Uses run.sh's helpers:
# check, check_eq, gprofng_ok, $BC, $TGT.

test_planted_kallmodsyms() {
	echo "# convert -f er: a kallmodsyms link planted in the input is refused, never followed"
	local d
	d=$(mktemp -d)
	echo "root-only secret line" >"$d/secret"
	chmod 600 "$d/secret"
	"$BC" record -q -p on -o "$d/k.er" -- "$TGT/cpu" 1 >/dev/null 2>&1
	check "a profile with kernel stacks has kallmodsyms" test -s "$d/k.er/kallmodsyms"
	rm "$d/k.er/kallmodsyms" && ln -s "$d/secret" "$d/k.er/kallmodsyms"
	expect_error "convert refuses the experiment, naming the link" \
		'k.er/kallmodsyms is a symbolic link: refused' \
		"$BC" convert "$d/k.er" -f er -o "$d/out.er"
	check "and leaves nothing of the secret anywhere" \
		bash -c "! grep -rqs 'root-only secret' '$d/out.er' '$d'/*.err"
	expect_error "report refuses it too" 'k.er/kallmodsyms is a symbolic link: refused' \
		"$BC" report "$d/k.er"
	rm -rf "$d"
}

test_exec_chain() {
	echo "# 100 generations of exec: subexperiment names stay within NAME_MAX"
	local d
	d=$(mktemp -d)
	"$BC" record -q -o "$d/x.er" -u tgt_generation -- "$TGT/execchain" 100 >"$d/x.out" 2>"$d/x.err"
	check_eq "record exits 0" 0 $?
	check "the last generation ran" grep -q '^last generation' "$d/x.out"
	check_eq "one experiment per image: the founder and 100 descendants" 100 \
		"$(find "$d/x.er" -maxdepth 1 -name '_*.er' -type d | wc -l)"
	check "every name is within NAME_MAX" \
		bash -c "! find '$d/x.er' -maxdepth 1 -name '_*.er' | awk -F/ 'length(\$NF) > 255' | grep -q ."
	check "long lineages are folded (_zN)" \
		bash -c "find '$d/x.er' -maxdepth 1 -name '_z*' | grep -q ."
	check_eq "report counts every generation's call" 101 "$(calls_of "$d/x.er" tgt_generation)"
	check_eq "nothing lost or unwritten" "" "$(grep -iE 'lost|unwritten|ring' "$d/x.err")"
	check "gprofng opens it" gprofng_ok "$d/x.er"
	rm -rf "$d"
}

# The uprobe trace events of every agent, as tracefs lists them (mounted
# in a mount namespace of its own: the machine's mounts stay as they are).
uprobe_events() {
	unshare -m sh -c 'mount -t tracefs nodev /mnt 2>/dev/null || mount -t debugfs nodev /mnt; \
		cat /mnt/uprobe_events 2>/dev/null || cat /mnt/tracing/uprobe_events' 2>/dev/null
}

test_killed_leftovers() {
	echo "# a SIGKILLed agent: its trace events and its experiment's reserve do not outlive it"
	local d rp tp n
	d=$(mktemp -d)
	"$BC" record -o "$d/k.er" -u 'libc:clock_nanosleep' -- sleep 30 >/dev/null 2>"$d/k.err" &
	rp=$!
	for n in $(seq 100); do
		uprobe_events | grep -q "bpfcollect_$rp/" && break
		sleep 0.1
	done
	check_eq "the recording armed its trace events" yes \
		"$(uprobe_events | grep -q "bpfcollect_$rp/" && echo yes)"
	tp=$(pgrep -P $rp -x sleep)
	for n in $(seq 100); do [ -f "$d/k.er/.bcreserve" ] && break; sleep 0.1; done
	check "its experiment holds the reserve" test -f "$d/k.er/.bcreserve"
	kill -KILL $rp
	wait $rp 2>/dev/null
	for n in $(seq 100); do
		uprobe_events | grep -q "bpfcollect_$rp/" || break
		sleep 0.1
	done
	check_eq "its detacher removed its trace events" 0 "$(uprobe_events | grep -c "bpfcollect_$rp/")"
	[ -n "$tp" ] && kill "$tp" 2>/dev/null
	"$BC" report "$d/k.er" >"$d/r.out" 2>&1
	check_eq "report reads what it wrote" 0 $?
	check "and says it removed the reserve" grep -q 'removed .bcreserve: the 65536 bytes a killed recording held' "$d/r.out"
	check "which is gone" test ! -e "$d/k.er/.bcreserve"
	check "a live recording's reserve is left alone" bash -c "
		\"$BC\" record -o '$d/l.er' -u 'libc:clock_nanosleep' -- sleep 3 >/dev/null 2>&1 &
		for i in \$(seq 100); do [ -f '$d/l.er/.bcreserve' ] && break; sleep 0.1; done
		\"$BC\" report '$d/l.er' >/dev/null 2>&1
		test -f '$d/l.er/.bcreserve'; r=\$?; wait; exit \$r"
	rm -rf "$d"
}

test_symlink_race() {
	echo "# root records and converts into a directory another user can write"
	local d i sp
	d=$(mktemp -d)
	chmod 755 "$d"
	mkdir "$d/pub" "$d/target"
	chmod 777 "$d/pub"
	chmod 700 "$d/target"
	small_exp "$d/src.er"
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$TGT/swapper" "$d/pub" "$d/target" 12 \
		>"$d/swaps" 2>&1 &
	sp=$!
	wait_for "$d/swaps" '^watching'
	for i in 1 2 3 4 5 6; do
		"$BC" record -q -o "$d/pub/r$i.er" -u 'tgt_*' -- "$TGT/calls" 20 1 >/dev/null 2>>"$d/errs"
		"$BC" convert "$d/src.er" -f er -o "$d/pub/c$i.er" >/dev/null 2>>"$d/errs"
	done
	kill $sp 2>/dev/null
	wait $sp 2>/dev/null
	check "the other user swapped the directories for links" grep -q '^swapped' "$d/swaps"
	check_eq "nothing reached the links' target" "" "$(ls -A "$d/target")"
	check "each refusal is one line naming the swap" \
		bash -c "! grep -v -e 'replaced while it was being made (by a link)' -e '^bpfcollect: wrote ' '$d/errs' | grep ."
	check_eq "no file root wrote is anywhere but in the directories it made" "" \
		"$(find "$d/pub" -type f -newer "$d/src.er" ! -path "$d/pub/*.er.moved/*" ! -path "$d/pub/*.er/*" -print)"
	rm -rf "$d"
}

test_debugger() {
	echo "# -P on a process gdb debugs: gdb's breakpoint keeps firing"
	if ! command -v gdb >/dev/null; then
		if in_ci; then bad "gdb is missing (tools/install-deps.sh installs it)"; else echo "skip - no gdb"; fi
		return
	fi
	local d tp gp n
	d=$(mktemp -d)
	"$TGT/debugged" 5 "$d/go" >"$d/t.out" &
	tp=$!
	wait_for "$d/t.out" '^ready'
	printf '%s\n' 'set pagination off' 'set $hits = 0' 'break *tgt_tick' 'commands' 'silent' \
		'set $hits = $hits + 1' 'continue' 'end' 'continue' 'printf "hits %d\n", $hits' >"$d/gdb.cmd"
	gdb -q -batch -nx -p $tp -x "$d/gdb.cmd" >"$d/gdb.out" 2>&1 </dev/null &
	gp=$!
	wait_for "$d/gdb.out" '^Breakpoint 1 at'
	sleep 1 # the breakpoint goes in as gdb continues; then the target starts its calls
	touch "$d/go"
	sleep 0.5
	"$BC" record -q -o "$d/d.er" -P $tp -t 1 -u 'tgt_*' >/dev/null 2>"$d/rec.err"
	check_eq "record exits 0" 0 $?
	check "and says tgt_tick has the debugger's breakpoint" \
		grep -q "not tracing tgt_tick .*debugger (pid $gp) has a breakpoint there" "$d/rec.err"
	check "the other function was traced" test "$(calls_of "$d/d.er" tgt_other)" -gt 0
	wait $tp
	wait $gp
	check_eq "gdb's breakpoint fired at every call, during the recording and after" \
		"$(sed -n 's/^ticks //p' "$d/t.out")" "$(sed -n 's/^hits //p' "$d/gdb.out")"
	rm -rf "$d"
}

test_swapped_library() {
	echo "# a library swapped for a link before the archive copies it"
	local d rp
	d=$(mktemp -d)
	chmod 755 "$d"
	mkdir "$d/user" "$d/secret"
	chmod 700 "$d/secret"
	cp "$BUILD/tests/targets/lib/libbcplugin.so" "$d/user/libfoo.so"
	# root's secret, an ELF file (a copy of the library, with a secret of its own)
	{ cat "$BUILD/tests/targets/lib/libbcplugin.so"; echo "root-only secret"; } >"$d/secret/libsecret.so"
	chmod 600 "$d/secret/libsecret.so"
	"$BC" record -q -o "$d/s.er" -u "$d/user/libfoo.so:tgt_*" -- "$TGT/swaplib" "$d/user/libfoo.so" "$d/ready" "$d/go" \
		>"$d/s.out" 2>"$d/s.err" &
	rp=$!
	wait_for "$d/s.out" '^work 6'
	for _ in $(seq 100); do [ -e "$d/ready" ] && break; sleep 0.1; done
	ln -sf "$d/secret/libsecret.so" "$d/user/libfoo.so.new" && mv -T "$d/user/libfoo.so.new" "$d/user/libfoo.so"
	touch "$d/go"
	wait $rp
	check_eq "record exits 0" 0 $?
	check "the library's calls were traced" test "$(calls_of "$d/s.er" tgt_plugin_work)" -eq 1
	check "the archive skipped the link, and says so" grep -q 'replaced by a link) were not copied; the first: .*libfoo.so' "$d/s.err"
	check "no copy of root's file is in the experiment" \
		bash -c "! grep -rqs 'root-only secret' '$d/s.er'"
	rm -rf "$d"
}

test_killed_descendants() {
	echo "# a SIGKILLed agent with -p on and descendants: gprofng still reads every experiment"
	local d rp n
	d=$(mktemp -d)
	"$BC" record -q -p on -o "$d/k.er" -- sh -c "for i in 1 2 3 4 5 6; do $TGT/cpu 1; done" \
		>/dev/null 2>&1 &
	rp=$!
	for n in $(seq 200); do
		[ "$(find "$d/k.er" -maxdepth 1 -name '_*.er' -type d 2>/dev/null | wc -l)" -ge 3 ] && break
		sleep 0.1
	done
	sleep 0.5
	kill -KILL $rp
	wait $rp 2>/dev/null
	pkill -KILL -f "$TGT/cpu 1" 2>/dev/null
	pkill -KILL -f "for i in 1 2 3 4 5 6" 2>/dev/null
	n=$(find "$d/k.er" -maxdepth 1 -name '_*.er' -type d | wc -l)
	check "descendants had their experiments ($n)" test "$n" -ge 3
	check_eq "each has its kernel symbols" 0 \
		"$(find "$d/k.er" -maxdepth 1 -name '_*.er' -type d ! -exec test -s '{}/kallmodsyms' \; -print | wc -l)"
	check "gprofng opens the founder and its descendants with no errors" gprofng_ok "$d/k.er"
	rm -rf "$d"
}
