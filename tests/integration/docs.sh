# Sourced by run.sh: the manual pages (man/*.1), --help and the binary's own
# listings (--list-cmds, CMD --list-opts, --list-formats, report --list-views)
# name the same commands, options, formats and views; the pages render without
# a warning (man_pages); the bash completion offers what the listings name
# (completion); make install and uninstall put and take them (install).
# Nothing here loads BPF.
#
# What a source says it has, one name per line:
#   --list-opts  what the parser takes (its getopt tables)
#   --help       the first word of each line starting "  -", and the word after
#                it when it ends in a comma ("-q, --quiet"), =VALUE cut off
#   the page     the "Fl" words of each ".It Fl ..." line (".It Fl q , Fl \-quiet")
# and formats, views and commands the ".It Cm NAME" items of the page's
# FORMATS, REPORT VIEWS and COMMANDS sections (their outer list).

REPO=$(cd "$HERE/../.." && pwd)
MAN_DIR="$REPO/man"

sorted() { grep -v '^$' | LC_ALL=C sort -u; }

# What each of two lists has that the other has not; nothing when they agree.
set_diff() { # set_diff NAME_A LIST_A NAME_B LIST_B
	local a b
	a=$(LC_ALL=C comm -23 <(sorted <<<"$2") <(sorted <<<"$4") | tr '\n' ' ')
	b=$(LC_ALL=C comm -13 <(sorted <<<"$2") <(sorted <<<"$4") | tr '\n' ' ')
	[ -z "$a" ] || printf 'in %s, not in %s: %s' "$1" "$3" "$a"
	[ -z "$a" ] || [ -z "$b" ] || printf '; '
	[ -z "$b" ] || printf 'in %s, not in %s: %s' "$3" "$1" "$b"
}

help_opts() { # help_opts [CMD]: the options CMD's --help (or the top level's) describes
	"$BC" "$@" --help | awk '/^  -/ { print $1; if ($1 ~ /,$/) print $2 }' |
		sed -e 's/,$//' -e 's/[=[].*//' | sorted
}

list_opts() { # list_opts [CMD]: the options CMD's parser takes
	"$BC" "$@" --list-opts | sed -e 's/\[=\]$//' -e 's/=$//' | sorted
}

man_opts() { # man_opts PAGE: the options the page's lists describe
	awk '$1 == ".It" && $2 == "Fl" {
		for (i = 2; i < NF; i++)
			if ($i == "Fl") { o = $(i + 1); gsub(/\\/, "", o); print "-" o }
	}' "$1" | sorted
}

man_items() { # man_items PAGE SECTION: NAME (NAME FUNC when an Ar follows) per ".It Cm" of SECTION
	awk -v sec="$2" '
	/^\.Sh / { s = substr($0, 5); depth = 0; next }
	s != sec { next }
	/^\.Bl/ { depth++; next }
	/^\.El/ { depth--; next }
	$1 == ".It" && $2 == "Cm" && depth == 1 { print $3 ($4 == "Ar" ? " FUNC" : "") }' "$1" | sorted
}

page_of() { # page_of [CMD]: its manual page
	echo "$MAN_DIR/bpfcollect${1:+-$1}.1"
}

# The warnings a page renders with: groff's (-ww: all of them), man's, and
# mandoc's lint (warnings and worse) where mandoc is installed.
render_warnings() { # render_warnings PAGE
	local page=$1
	groff -ww -mandoc -Tutf8 -z "$page" 2>&1
	# shellcheck disable=SC2069 # its warnings to the caller, the page itself away
	MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null
	if [ -n "$MANDOC" ]; then
		"$MANDOC" -T lint -W warning "$page" 2>&1
	fi
}

test_man_pages() {
	echo "# manual pages: every command, option, format and view, as --help and the parser have them"
	local cmds cmd page
	cmds=$("$BC" --list-cmds)
	check "--list-cmds lists record, report, convert ..." grep -qx convert <<<"$cmds"
	check_eq "every command has its page, and every page a command" "" \
		"$(set_diff "bpfcollect --list-cmds" "$cmds" "man/" \
			"$(for page in "$MAN_DIR"/bpfcollect-*.1; do basename "$page" .1; done |
				sed 's/^bpfcollect-//')")"
	check_eq "bpfcollect(1) COMMANDS lists each command" "" \
		"$(set_diff "--list-cmds" "$cmds" "bpfcollect.1" "$(man_items "$(page_of)" COMMANDS)")"
	check_eq "bpfcollect --help lists each command" "" \
		"$(set_diff "--list-cmds" "$cmds" "--help" \
			"$("$BC" --help | sed -n '/^commands:/,/^$/p' | awk '/^  [a-z]/ { print $1 }')")"
	check "bpfcollect --help says where the manual is" grep -q "man bpfcollect-record" <("$BC" --help)
	for cmd in "" $cmds; do
		page=$(page_of "$cmd")
		check_eq "bpfcollect${cmd:+ $cmd}: --help describes every option the parser takes" "" \
			"$(set_diff "--list-opts" "$(list_opts ${cmd:+"$cmd"})" "--help" \
				"$(help_opts ${cmd:+"$cmd"})")"
		check_eq "bpfcollect${cmd:+ $cmd}: its page describes every option of --help, and no other" \
			"" "$(set_diff "--help" "$(help_opts ${cmd:+"$cmd"})" "${page##*/}" \
				"$(man_opts "$page")")"
		check_eq "${page##*/}: named for its command" \
			"$(basename "$page" .1 | tr '[:lower:]' '[:upper:]') 1" "$(awk '$1 == ".Dt" { print $2, $3 }' "$page")"
	done
	local formats views
	formats=$("$BC" --list-formats | awk '{ print $1 }')
	check_eq "--list-formats and convert --list-formats: the same registry" \
		"$("$BC" --list-formats)" "$("$BC" convert --list-formats)"
	for cmd in record convert; do
		check_eq "bpfcollect-$cmd.1 FORMATS: every format of the registry, and no other" "" \
			"$(set_diff "--list-formats" "$formats" "bpfcollect-$cmd.1" \
				"$(man_items "$(page_of $cmd)" FORMATS)")"
		check_eq "$cmd --help lists every format" "" \
			"$(set_diff "--list-formats" "$formats" "$cmd --help" \
				"$("$BC" "$cmd" --help | awk '/^  [a-z]/ { print $1 }' | grep -Fx "$formats")")"
	done
	views=$("$BC" report --list-views)
	check "report --list-views lists calls FUNC" grep -qx "calls FUNC" <<<"$views"
	check_eq "bpfcollect-report.1 REPORT VIEWS: every view, those taking FUNC so marked" "" \
		"$(set_diff "report --list-views" "$views" "bpfcollect-report.1" \
			"$(man_items "$(page_of report)" "REPORT VIEWS")")"
	check_eq "report --help lists every view" "" \
		"$(set_diff "report --list-views" "$views" "report --help" \
			"$("$BC" report --help | sed -n '/^Prints/,/^$/p' | awk '/^  [a-z]/ { print $1 ($2 == "FUNC" ? " FUNC" : "") }')")"

	MANDOC=$(command -v "${MANDOC:-mandoc}" || true)
	[ -n "$MANDOC" ] || echo "# mandoc not installed: mandoc -T lint skipped (groff and man only)"
	for page in "$MAN_DIR"/*.1; do
		check_eq "${page##*/} renders without a warning" "" "$(render_warnings "$page")"
		check "${page##*/} renders" grep -q "SYNOPSIS" <(MANWIDTH=80 man -l "$page" 2>/dev/null)
	done
}

# What the completion offers for the last of WORDS (an empty one: a word
# begun), one per line: completion/bpfcollect.bash sourced in a subshell,
# its function called as bash calls it, with $BUILD's bpfcollect first in PATH.
completions() { # completions WORD...
	(
		PATH="$BUILD:$PATH"
		# shellcheck source=completion/bpfcollect.bash
		. "$REPO/completion/bpfcollect.bash" || exit 1
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"
		COMP_POINT=${#COMP_LINE}
		_bpfcollect bpfcollect "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
		[ ${#COMPREPLY[@]} -eq 0 ] || printf '%s\n' "${COMPREPLY[@]}"
	)
}

offers() { # offers WANTED WORD...: whether the completion of WORD... offers WANTED
	local want=$1
	shift
	completions "$@" | grep -qxF -- "$want"
}

offers_in() { # offers_in DIR WANTED WORD...: offers, completing in DIR
	(cd "$1" && shift && offers "$@")
}

test_completion() {
	echo "# bash completion: commands, options, formats, views, experiments, pids, from the binary's lists"
	check "the script loads into bash and registers _bpfcollect" \
		bash -c ". '$REPO/completion/bpfcollect.bash' && complete -p bpfcollect | grep -q _bpfcollect"
	check_eq "bpfcollect <TAB>: every command" "" \
		"$(set_diff "--list-cmds" "$("$BC" --list-cmds)" "completion" "$(completions bpfcollect "")")"
	check_eq "bpfcollect record --buf<TAB>: --bufsize=" "--bufsize=" \
		"$(completions bpfcollect record --buf)"
	check_eq "bpfcollect record -<TAB>: every option of --list-opts" "" \
		"$(set_diff "record --list-opts" "$(list_opts record)" "completion" \
			"$(completions bpfcollect record - | sed 's/=$//')")"
	check_eq "bpfcollect record --syscalls<TAB>: with and without its optional value" \
		"--syscalls --syscalls=" "$(completions bpfcollect record --sysc | tr '\n' ' ' | sed 's/ $//')"
	local formats
	formats=$("$BC" --list-formats | awk '{ print $1 }')
	check_eq "convert x.er -f <TAB>: every format of the registry" "" \
		"$(set_diff "--list-formats" "$formats" "completion" "$(completions bpfcollect convert x.er -f "")")"
	check_eq "convert x.er --format=<TAB> (split at '=' as bash splits it): every format" "" \
		"$(set_diff "--list-formats" "$formats" "completion" \
			"$(completions bpfcollect convert x.er --format = "")")"
	check_eq "record -f prf<TAB>: the PRF formats" "prf-csv prf-dump" \
		"$(completions bpfcollect record -f prf | tr '\n' ' ' | sed 's/ $//')"
	check_eq "report x.er <TAB>: every view" "" \
		"$(set_diff "report --list-views" "$("$BC" report --list-views | awk '{ print $1 }')" \
			"completion" "$(completions bpfcollect report x.er "")")"
	check "report -n 5 x.er <TAB>: views (-n's value is no experiment)" \
		offers calltree bpfcollect report -n 5 x.er ""
	check_eq "report x.er calls <TAB>: nothing (a function name)" "" \
		"$(completions bpfcollect report x.er calls "")"
	rm -rf comp.d && mkdir -p comp.d/foo.er comp.d/sub && touch comp.d/notes.txt
	check "report <TAB>: a made-up foo.er directory" offers_in comp.d foo.er bpfcollect report ""
	check_eq "report <TAB>: experiments; other directories to descend into; no files" \
		"foo.er sub/" \
		"$(cd comp.d && completions bpfcollect report "" | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')"
	sleep 30 &
	local pid=$!
	check "record -P <TAB>: a running pid ($pid)" offers "$pid" bpfcollect record -P ""
	check "record -P 1,<TAB>: after the pids typed" offers "1,$pid" bpfcollect record -P 1,
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	check "record -o no<TAB>: files" offers_in comp.d notes.txt bpfcollect record -o no
	check "record -- <TAB>: commands" offers bash bpfcollect record -q -- bas
	check "record -- CMD no<TAB>: the command's arguments (files)" \
		offers_in comp.d notes.txt bpfcollect record -- ls no
	check_eq "bpfcollect --list-f<TAB>: the top level's options" "--list-formats" \
		"$(completions bpfcollect --list-f)"
}

test_install() {
	echo "# make install and uninstall: binary, manual pages, completion, under DESTDIR and PREFIX"
	local dest="$WORK/dest" page f
	rm -rf "$dest" "$WORK/dest2"
	# -o: the binary is installed as built, never rebuilt under a test
	make -s -C "$REPO" O="$BUILD" -o "$BUILD/bpfcollect" install DESTDIR="$dest" PREFIX=/usr \
		>install.out 2>&1
	check_eq "make install DESTDIR=DIR PREFIX=/usr exits 0" 0 $?
	check "the binary, executable (0755)" test "$(stat -c %a "$dest/usr/bin/bpfcollect" 2>&1)" = 755
	check_eq "and it runs" "$("$BC" --list-cmds)" "$("$dest/usr/bin/bpfcollect" --list-cmds 2>&1)"
	local pages_ok=ok
	for page in "$MAN_DIR"/*.1; do
		f="$dest/usr/share/man/man1/${page##*/}"
		cmp -s "$page" "$f" && [ "$(stat -c %a "$f")" = 644 ] || pages_ok="${page##*/} missing or not 0644"
	done
	check_eq "every page in share/man/man1, 0644" ok "$pages_ok"
	check_eq "man finds them there" "$dest/usr/share/man/man1/bpfcollect-record.1" \
		"$(MANPATH="$dest/usr/share/man" man -w bpfcollect-record 2>&1)"
	f="$dest/usr/share/bash-completion/completions/bpfcollect"
	check "the completion as share/bash-completion/completions/bpfcollect, 0644" \
		bash -c "cmp -s '$REPO/completion/bpfcollect.bash' '$f' && test \"\$(stat -c %a '$f')\" = 644"
	make -s -C "$REPO" O="$BUILD" -o "$BUILD/bpfcollect" install DESTDIR="$WORK/dest2" \
		PREFIX=/opt/bc >install2.out 2>&1
	check "PREFIX=/opt/bc: the pages under it" test -f "$WORK/dest2/opt/bc/share/man/man1/bpfcollect.1"
	check "PREFIX=/opt/bc: nothing elsewhere" test ! -e "$WORK/dest2/usr"
	make -s -C "$REPO" O="$BUILD" uninstall DESTDIR="$dest" PREFIX=/usr >uninstall.out 2>&1
	check_eq "make uninstall exits 0" 0 $?
	check_eq "and leaves no file behind" "" "$(find "$dest" -type f)"
}
