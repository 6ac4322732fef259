# Sourced by run.sh: RTL scope logs (docs/rtl.md).

# The grammar of every line: %d %d %c %s : %s (the time at least 6 digits).
RTL_LINE='^[0-9]{6,} [0-9]+ [{}|] .* : '

# Lines of FILE that do not parse; "ok" when none.
rtl_grammar() { # rtl_grammar FILE...
	local bad
	bad=$(grep -hvE "$RTL_LINE" "$@" | head -3)
	echo "${bad:-ok}"
}

# Per thread, every } closes the innermost open { of the same name, and nothing stays open.
rtl_balanced() { # rtl_balanced FILE
	awk '{
		split($0, parts, " : "); head = parts[1]
		name = substr(head, index(head, $3) + 2)
		if ($3 == "{") st[$2, ++d[$2]] = name
		else if ($3 == "}") {
			if (d[$2] < 1 || st[$2, d[$2]] != name) { print "line " NR ": } " name " closes nothing open"; bad = 1; exit }
			d[$2]--
		}
	}
	END { if (bad) exit; for (t in d) if (d[t]) { print "thread " t ": " d[t] " scopes left open"; exit } print "ok" }' "$1"
}

# Times never go back in a file.
rtl_ordered() { # rtl_ordered FILE
	awk '$1 + 0 < last { print "line " NR " goes back in time"; bad = 1; exit } { last = $1 + 0 }
		END { if (!bad) print "ok" }' "$1"
}

# How many { lines name ::FUNC.
rtl_entries() { # rtl_entries FILE FUNC
	grep -cE "^[0-9]+ [0-9]+ \{ [^ ]+ \([^)]*\) ::$2 : " "$1"
}

test_rtl() {
	echo "# RTL: a scope log per process, live and converted alike"
	local d
	d=$(mktemp -d)
	(cd "$d" && "$BC" record -q -f er -f rtl --rtl-author jdoe -o rt.er -u 'tgt_*' \
		-- "$TGT/calls" 40 3 >calls.out 2>rec.err)
	check_eq "record -f er -f rtl exits 0" 0 $?
	local pid f
	pid=$(awk '$1 == "tid" { print $2; exit }' "$d/calls.out")
	f="$d/rt_$pid.log"
	check "one file for the process, named beside the experiment: rt_$pid.log" test -s "$f"
	check_eq "and no other" 1 "$(ls "$d"/rt_*.log | wc -l)"
	check_eq "every line parses as %d %d %c %s : %s" ok "$(rtl_grammar "$f")"
	check "the first line: time 0, the wall time of 0, the pid and the executable" \
		grep -qE "^000000 $pid \| calls \(jdoe\) :: : start 20[0-9-]+T[0-9:.]+Z pid $pid exe $TGT/calls\$" \
		<(head -1 "$f")
	check_eq "nesting balanced in every thread" ok "$(rtl_balanced "$f")"
	check_eq "times never go back" ok "$(rtl_ordered "$f")"
	local fn want missing=""
	for fn in tgt_run_threads tgt_worker tgt_outer tgt_middle tgt_inner tgt_fact; do
		want=$(awk -v f="$fn" '$1 == f { print $2 }' "$d/calls.out")
		[ "$(rtl_entries "$f" "$fn")" = "$want" ] ||
			missing="$missing $fn:$(rtl_entries "$f" "$fn")/$want"
	done
	check_eq "a { per call of each function, as the target counted them" "" "$missing"
	check_eq "threads interleave in the one file: all 4 of them" 4 \
		"$(awk '$3 == "{" { print $2 }' "$f" | sort -u | wc -l)"
	check "a } carries the return value" grep -qE "^[0-9]+ [0-9]+ \} calls \(jdoe\) ::tgt_inner : ret=0x" "$f"
	"$BC" convert "$d/rt.er" -f rtl --rtl-author jdoe -o "$d/conv" 2>/dev/null
	check_eq "convert -f rtl exits 0" 0 $?
	check "convert gives the same file, byte for byte" cmp "$f" "$d/conv_$pid.log"

	echo "# rtl-stat: the scopes of a recording, timed, counted as the target counted them"
	"$BC" rtl-stat --csv "$f" >"$d/stat.csv" 2>"$d/stat.err"
	check_eq "rtl-stat of our file exits 0, no problem said" "0 0" "$? $(wc -l <"$d/stat.err")"
	missing=""
	for fn in tgt_run_threads tgt_worker tgt_outer tgt_middle tgt_inner tgt_fact; do
		want=$(awk -v f="$fn" '$1 == f { print $2 }' "$d/calls.out")
		got=$(awk -F, -v n="calls (jdoe) ::$fn" '$1 == n && $2 == "function" { print $3 }' "$d/stat.csv")
		[ "$got" = "$want" ] || missing="$missing $fn:$got/$want"
	done
	check_eq "its counts equal the target's own, every function" "" "$missing"
	check_eq "--by-thread: tgt_worker once on each of the 3 workers" "1 1 1" \
		"$("$BC" rtl-stat --csv --by-thread "$f" |
			awk -F, '$1 == "calls (jdoe) ::tgt_worker" { print $4 }' | tr '\n' ' ' | sed 's/ $//')"
	printf '%s\n' "001234 11 { desktop (cd100003) ::Desktop::OpenStartupscreen" \
		"002345 11 | desktop (cd100003) ::Desktop::OpenStartupscreen : { lengthy calculation" \
		"003456 11 | desktop (cd100003) ::Desktop::OpenStartupscreen : } lengthy calculation" \
		"004567 11 } desktop (cd100003) ::Desktop::OpenStartupscreen" \
		"099999 11 | desktop (cd100003) ::Desktop::CloseStartupscreen : Startup finished" \
		>"$d/seed.log"
	"$BC" rtl-stat "$d/seed.log" >"$d/seed.out" 2>&1
	check_eq "rtl-stat of the seed's own example exits 0" 0 $?
	check "times its function: 3333 ms" \
		grep -qE "^ +1 +3333 .* function +desktop \(cd100003\) ::Desktop::OpenStartupscreen\$" \
		"$d/seed.out"
	check "and its logical scope: 1111 ms" \
		grep -qE "^ +1 +1111 .* explicit +desktop \(cd100003\) ::Desktop::OpenStartupscreen : lengthy calculation\$" \
		"$d/seed.out"
	printf '%s\n' "000001 1 { m (a) ::f : " "not a line" "000002 1 } m (a) ::g : " >"$d/broken.log"
	"$BC" rtl-stat "$d/broken.log" >/dev/null 2>"$d/broken.err"
	check_eq "a broken log: exit 1" 1 $?
	check "the bad line said with file and line" grep -q "broken.log:2: not a scope log line" "$d/broken.err"
	check "the } that closes nothing too" grep -q "broken.log:3: } m (a) ::g closes nothing open" "$d/broken.err"
	check "and the scope never closed" grep -q "broken.log:1: m (a) ::f on thread 1 never closed" "$d/broken.err"
	expect_error "rtl-stat without a file" "no file given" "$BC" rtl-stat
	expect_error "rtl-stat of a missing file" "nosuch.log" "$BC" rtl-stat "$d/nosuch.log"

	echo "# RTL: a program's own markers (--rtl-message) are logical scopes rtl-stat times"
	(cd "$d" && "$BC" record -q -f er -f rtl -o mk.er --rtl-message "$TGT/rtlmark:tgt_mark:1" \
		-u 'tgt_*' -- "$TGT/rtlmark" 30 3 >mk.out 2>mk.err)
	check_eq "record --rtl-message exits 0" 0 $?
	f=$(ls "$d"/mk_*.log | head -1)
	check_eq "the marker function makes no scope of its own" 0 "$(rtl_entries "$f" tgt_mark)"
	check_eq "each mark is a | line in its caller's scope, as the program wrote it" \
		"$(awk '$1 == "marks" { print $2 }' "$d/mk.out")" \
		"$(grep -cE '^[0-9]+ [0-9]+ \| rtlmark \([^)]*\) ::tgt_thread : (\{ lengthy calculation|\} lengthy calculation|done)$' "$f")"
	"$BC" rtl-stat --csv "$f" >"$d/mk.csv"
	check_eq "rtl-stat: the logical scope, closed as often as the program closed it" \
		"$(awk '$1 == "scopes" { print $2 }' "$d/mk.out")" \
		"$(awk -F, '$2 == "explicit" && $1 ~ /::tgt_thread : lengthy calculation$/ { print $3 }' "$d/mk.csv")"
	check_eq "and the steps inside it" "$(awk '$1 == "tgt_step" { print $2 }' "$d/mk.out")" \
		"$(awk -F, '$2 == "function" && $1 ~ /::tgt_step$/ { print $3 }' "$d/mk.csv")"
	local left
	left=$(awk '$1 == "left" { print $2 }' "$d/mk.out")
	# pthread_exit unwinds the thread's stack before it ends: the frame is
	# closed when the thread's exit shows it over (bpf/frames.bpf.h)
	check "a thread that ended inside tgt_leave (pthread_exit) gets its }" \
		grep -qE "^[0-9]+ $left \} rtlmark \([^)]*\) ::tgt_leave( : .*)?\$" "$f"
	check_eq "so every thread's nesting is balanced" ok "$(rtl_balanced "$f")"
	"$BC" convert "$d/mk.er" -f rtl --rtl-message "$TGT/rtlmark:tgt_mark:1" -o "$d/mkc" 2>/dev/null
	check "convert with the same --rtl-message gives the same file" \
		cmp "$f" "$d/mkc_${f##*/mk_}"
	expect_error "--rtl-message without -f rtl" "is for -f rtl" \
		"$BC" record -q --rtl-message "$TGT/rtlmark:tgt_mark:1" -- "$TGT/rtlmark" 1 1
	expect_error "--rtl-message with a bad argument number" "a number from 1 to 6" \
		"$BC" record -q -f rtl -o "$d/x" --rtl-message "$TGT/rtlmark:tgt_mark:9" -- "$TGT/rtlmark" 1 1

	(cd "$d" && "$BC" record -q -f rtl -o smp -p 1 --rtl-samples -u 'tgt_*' -- "$TGT/cpu" 0.3 \
		>/dev/null 2>&1)
	check "--rtl-samples: a | line per clock sample" \
		grep -qE '^[0-9]+ [0-9]+ \| cpu \([^)]*\) ::[a-z_]* : sample pc=0x[0-9a-f]+' "$d"/smp_*.log

	echo "# RTL: descendants, syscalls, and a recording that ends inside a function"
	(cd "$d" && "$BC" record -q -f rtl -o fam --syscalls -u 'tgt_*' -- "$TGT/forker" 2 3 \
		>forker.out 2>/dev/null)
	check_eq "record -f rtl alone, of a forking target, exits 3 (its status)" 3 $?
	check_eq "a file per process: the parent, 2 children, a grandchild" 4 \
		"$(ls "$d"/fam_*.log | wc -l)"
	local child ok_children=ok
	for child in $(awk '$1 == "child" || $1 == "grandchild" { print $2 }' "$d/forker.out"); do
		[ "$(rtl_entries "$d/fam_$child.log" tgt_child_work)" = 3 ] || ok_children="$child"
	done
	check_eq "each child's file has its 3 calls" ok "$ok_children"
	check_eq "every file parses" ok "$(rtl_grammar "$d"/fam_*.log)"
	pid=$(awk '$1 == "parent" { print $2; exit }' "$d/forker.out")
	check "the parent's fork is a | line" grep -qE "^[0-9]+ $pid \| forker \([^)]*\) :: : fork child [0-9]+\$" \
		"$d/fam_$pid.log"
	check "syscalls, decoded, with their result" \
		grep -qE "^[0-9]+ $pid \| .* : wait4\(.*\) = [0-9]+\$" "$d/fam_$pid.log"
	check "a child's exit" grep -qE "\| forker \([^)]*\) :: : exit 7\$" "$d/fam_$child.log"
	(cd "$d" && "$BC" record -q -f rtl -o cut -t 0.3 -u main -u 'tgt_*' -- "$TGT/offcpu" 100 \
		>/dev/null 2>&1)
	f=$(ls "$d"/cut_*.log | head -1)
	# the target may end while the recording winds down: then its thread's end closes main
	check "-t ends the recording inside main: its } is written, open at detach" \
		grep -qE "\} offcpu \([^)]*\) ::main : (open at detach|repaired: the thread ended inside)\$" "$f"
	check_eq "so nesting stays balanced" ok "$(rtl_balanced "$f")"

	echo "# RTL: bad input"
	expect_error "-f rtl without -o" "give their names' start with -o PREFIX" \
		"$BC" record -q -f rtl -- "$TGT/exitcode" 0
	expect_error "--rtl-author with a space" "--rtl-author takes one word" \
		"$BC" record -q -f rtl -o "$d/x" --rtl-author "a b" -- "$TGT/exitcode" 0
	"$BC" convert "$d/rt.er" -f rtl >/dev/null 2>&1
	check_eq "convert -f rtl without -o is a usage error" 2 $?
	"$BC" convert "$d/rt.er" -f rtl -o "$d/rt.er/inside" >/dev/null 2>&1
	check_eq "convert -f rtl into the experiment it reads is a usage error" 2 $?
	rm -rf "$d"
}
