# Sourced by run.sh: exports opened in a real viewer. speedscope's static
# build, served on 127.0.0.1, in headless chromium, driven over WebDriver by
# tools/viewer-check.js, which checks from the page that the traced functions
# are on the screen (docs/viewers.md). Screenshots are kept as artifacts in
# $BUILD/test-artifacts/viewer-*.png.

VIEWER_TOOLS=$(cd "$HERE/../../tools" && pwd)
# shellcheck source=tools/viewers.conf
. "$VIEWER_TOOLS/viewers.conf"
VIEWER_CHECK="$VIEWER_TOOLS/viewer-check.js"

# What the viewer test needs and this machine lacks, space-separated; empty when all is there.
viewers_missing() {
	local m="" c
	for c in node chromium chromedriver; do
		command -v "$c" >/dev/null 2>&1 || m="$m $c"
	done
	[ -f "$SPEEDSCOPE_STATIC/index.html" ] || m="$m speedscope($SPEEDSCOPE_STATIC)"
	echo "${m# }"
}

# Under CI a missing viewer fails the test; elsewhere it is skipped.
in_ci() {
	case "${CI:-}" in
	"" | 0 | false | no) return 1 ;;
	esac
	return 0
}

# Processes still running that name DIR in their command line (the driver's
# chromedriver and chromium, given --workdir DIR), by pid.
viewer_leftovers() { # viewer_leftovers DIR
	local p
	for p in /proc/[0-9]*; do
		grep -qsF -- "$1/" "$p/cmdline" && echo "${p#/proc/}"
	done
}

# Runs the driver on FILE in a work directory of its own: its output in VIEWER_OUT, its
# status in VIEWER_RC, the directory in VIEWER_WD. The screenshot goes to the artifacts.
VIEWER_RUNS=0
viewer_run() { # viewer_run FILE SHOT NAME...
	local file=$1 shot=$2
	shift 2
	VIEWER_RUNS=$((VIEWER_RUNS + 1))
	VIEWER_WD="$WORK/viewer-wd.$VIEWER_RUNS"
	VIEWER_OUT=$(node "$VIEWER_CHECK" --speedscope "$SPEEDSCOPE_STATIC" --workdir "$VIEWER_WD" \
		--screenshot "$VIEWER_ART/$shot" "$file" "$@" 2>&1)
	VIEWER_RC=$?
}

# Passes when the driver finds every NAME on the screen; its one-line verdict goes to the check's line.
viewer_shows() { # viewer_shows DESCRIPTION FILE SHOT NAME...
	local d=$1 file=$2
	shift 1
	viewer_run "$@"
	if [ $VIEWER_RC -eq 0 ]; then
		ok "$d: ${VIEWER_OUT#viewer-check: }"
	else
		bad "$d: rc=$VIEWER_RC: ${VIEWER_OUT#viewer-check: }"
	fi
	viewer_no_leftovers "$VIEWER_WD" "$file"
}

# Passes when the driver fails (exit 1) with one line matching PATTERN.
viewer_refuses() { # viewer_refuses DESCRIPTION PATTERN FILE SHOT NAME...
	local d=$1 pat=$2 file=$3
	shift 2
	viewer_run "$@"
	if [ $VIEWER_RC -eq 1 ] && [ "$(grep -c . <<<"$VIEWER_OUT")" -eq 1 ] &&
		grep -qE -- "$pat" <<<"$VIEWER_OUT"; then
		ok "$d: ${VIEWER_OUT#viewer-check: }"
	else
		bad "$d: rc=$VIEWER_RC, output: $VIEWER_OUT"
	fi
	viewer_no_leftovers "$VIEWER_WD" "$file"
}

viewer_no_leftovers() { # viewer_no_leftovers WORKDIR FILE: the driver stopped all it started
	local left
	left=$(viewer_leftovers "$1" | tr '\n' ' ')
	check_eq "$(basename "$2"): no chromedriver or chromium left running" "" "$left"
	# shellcheck disable=SC2086 # pids
	[ -n "$left" ] && kill -KILL $left 2>/dev/null
	return 0
}

test_viewer() {
	echo "# exports open in speedscope (headless chromium): the traced functions on the screen"
	local missing
	missing=$(viewers_missing)
	if [ -n "$missing" ]; then
		if in_ci; then
			bad "viewer: missing $missing with CI=$CI; make check installs them with tools/install-deps.sh --viewers"
		else
			echo "# viewer: skipped, this machine has no $missing; tools/install-deps.sh --viewers installs them"
		fi
		return
	fi
	VIEWER_ART="$BUILD/test-artifacts"
	mkdir -p "$VIEWER_ART" && rm -f "$VIEWER_ART"/viewer-*.png
	echo "# screenshots: $VIEWER_ART/viewer-*.png"
	local fx="$HERE/viewer" want=(tgt_outer tgt_middle tgt_inner)

	# The driver itself, on files of known content: it finds what is there,
	# on the thread that has it, and says so when something is not.
	viewer_shows "fixture Chrome JSON (two threads, X, B/E, instant and metadata events)" \
		"$fx/calls.json" viewer-fixture-chrome.png "${want[@]}"
	viewer_shows "fixture folded stacks" "$fx/calls.folded" viewer-fixture-folded.png "${want[@]}"
	viewer_refuses "a name that is in no thread is reported missing, with what the page shows" \
		"tgt_absent no row; rows on screen: .*tgt_outer" \
		"$fx/calls.json" viewer-fixture-absent.png tgt_outer tgt_absent
	printf 'not a profile\n' >viewer-junk.txt
	viewer_refuses "a file speedscope cannot read is reported with the page's error" \
		"did not load it; alert: Unrecognized format" \
		viewer-junk.txt viewer-fixture-junk.png tgt_outer

	# A real recording, converted to both formats. Without the formats in
	# this build (convert --list-formats), that part waits for them.
	rm -rf v.er v.json v.folded
	"$BC" record -q -o v.er -u 'tgt_*' -- "$TGT/calls" 20 2 >v.out 2>v.err
	check_eq "record of calls 20 2 exits 0" 0 $?
	local formats rc
	formats=$("$BC" convert --list-formats | awk '{ print $1 }' | tr '\n' ' ')
	if [[ " $formats" == *" chrome "* ]]; then
		"$BC" convert v.er -f chrome -o v.json 2>conv.err
		rc=$?
		[ $rc -eq 0 ] || rc="$rc, $(head -1 conv.err)"
		check_eq "convert -f chrome exits 0" 0 "$rc"
		check "the JSON parses, and has a complete or begin event of tgt_outer" node -e '
			const t = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
			const ev = Array.isArray(t) ? t : t.traceEvents;
			process.exit(ev.some((e) => e.name === "tgt_outer" && (e.ph === "X" || e.ph === "B")) ? 0 : 1);' v.json
		viewer_shows "speedscope shows the recorded functions from convert -f chrome" \
			v.json viewer-chrome.png "${want[@]}"
	else
		echo "# viewer: this bpfcollect has no chrome format yet (convert --list-formats: $formats); its part waits"
	fi
	if [[ " $formats" == *" folded "* ]]; then
		"$BC" convert v.er -f folded -o v.folded 2>conv.err
		rc=$?
		[ $rc -eq 0 ] || rc="$rc, $(head -1 conv.err)"
		check_eq "convert -f folded exits 0" 0 "$rc"
		check_eq "every folded line is 'frame;frame;... WEIGHT'" "" \
			"$(grep -vnE '^[^ ;][^;]*(;[^;]+)* [0-9]+$' v.folded | head -3)"
		check "a folded stack has tgt_outer;tgt_middle;tgt_inner" grep -q 'tgt_outer;tgt_middle;tgt_inner ' v.folded
		viewer_shows "speedscope shows the recorded functions from convert -f folded" \
			v.folded viewer-folded.png "${want[@]}"
	else
		echo "# viewer: this bpfcollect has no folded format yet (convert --list-formats: $formats); its part waits"
	fi
}
