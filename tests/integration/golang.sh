# Go programs traced per goroutine, for tests/integration/run.sh: sourced
# there. Uses run.sh's helpers: check, check_eq, calls_of, nesting_ok,
# wait_for, $BC, $BUILD. The programs (tests/targets/go) are built with
# Debian's go into $BUILD/tests/go, its build cache there too.

GO_OUT="$BUILD/tests/go"

# go_build NAME [GO-BUILD-OPTION...]: $GO_OUT/NAME from tests/targets/go/NAME.go
# (a variant's name may add -SUFFIX: httpd-s is httpd.go with the options).
go_build() {
	local name=$1 src=${1%%-*}
	shift
	if ! command -v go >/dev/null; then
		if [ "${CI:-}" ] && [ "$CI" != 0 ] && [ "$CI" != false ]; then
			bad "go is missing (tools/install-deps.sh installs golang-go)"
		else
			echo "skip - go is missing"
		fi
		return 1
	fi
	mkdir -p "$GO_OUT"
	if [ "$GO_OUT/$name" -nt "$HERE/../targets/go/$src.go" ]; then
		return 0
	fi
	env GOCACHE="$GO_OUT/cache" GOPATH="$GO_OUT/path" \
		go build "$@" -o "$GO_OUT/$name" "$HERE/../targets/go/$src.go" >"go-$name.log" 2>&1 ||
		{ bad "go builds $name: $(head -3 "go-$name.log")"; return 1; }
}

# never_returned EXP: calls the report counts as never returned, 0 when none
never_returned() {
	local v
	v=$("$BC" report "$1" functions | sed -n 's/^note: \([0-9]*\) calls never returned.*/\1/p')
	echo "${v:-0}"
}

test_go_safety() {
	echo "# Go: goroutines whose stacks grow, paired per goroutine, exact"
	go_build grow || return
	local g="$GO_OUT/grow"
	"$g" >go-grow.ref
	"$BC" record -q -o go-grow.er -u 'main.*' -- "$g" >go-grow.out 2>go-grow.err
	check_eq "exits 0 (a uretprobe made it die: unknown caller pc)" 0 $?
	check "and prints what it prints untraced" cmp -s go-grow.ref go-grow.out
	check_eq "every call of the leaf: 8 goroutines x 20" 160 "$(calls_of go-grow.er main.leaf)"
	# 8 goroutines x 20 x (51..58 levels): entered once though the stack grew
	check_eq "every call of the recursive function, once each" 8720 \
		"$(calls_of go-grow.er main.deep)"
	check_eq "no call never returned" 0 "$(never_returned go-grow.er)"
	"$BC" report go-grow.er events >go-grow.ev
	check_eq "each goroutine's entries and returns nest" ok "$(nesting_ok go-grow.ev)"
	check_eq "the calls are the goroutines', 8 of them with main's" 9 \
		"$("$BC" report go-grow.er threads | awk '$2 ~ /^g[0-9]+$/ && $4 > 0' | wc -l)"
	check "report calls names the goroutine" \
		bash -c "\"$BC\" report go-grow.er calls main.leaf | grep -qE '^ *[0-9.]+  [0-9]+/g[0-9]+ '"
	check "gprofng opens it" gprofng_ok go-grow.er
}

test_go_recover() {
	echo "# Go: panics recovered through traced frames; arguments in Go's registers"
	go_build recover || return
	local g="$GO_OUT/recover"
	"$g" >go-rec.ref
	"$BC" record -q -o go-rec.er -u 'main.*' --arg 'main.scale@arg1,arg2,arg3,retval' -- \
		"$g" >go-rec.out 2>go-rec.err
	check_eq "exits 0" 0 $?
	check "and prints what it prints untraced (250 caught)" cmp -s go-rec.ref go-rec.out
	check_eq "1000 calls of the function that panics" 1000 "$(calls_of go-rec.er main.thrower)"
	check_eq "and of the one between" 1000 "$(calls_of go-rec.er main.middle)"
	check_eq "the frames a panic left are closed: none never returned" 0 \
		"$(never_returned go-rec.er)"
	check_eq "--arg reads Go's registers: scale(1, 2, 3) = 123, 10 times" 10 \
		"$("$BC" report go-rec.er calls main.scale | grep -c 'main.scale(arg1=1, arg2=2, arg3=3) = 123$')"
	"$BC" record -q -o go-exit.er -u main.blocked -- "$g" exit >go-exit.out 2>&1
	check_eq "a process exiting while a goroutine is in a call: exits 0" 0 $?
	check_eq "that call never returned (not open at detach)" "1 0" \
		"$(never_returned go-exit.er) $("$BC" report go-exit.er functions | grep -c 'open at detach')"
}

test_go_http() {
	echo "# Go: a net/http server attached with -P for 10 s keeps serving"
	go_build httpd || return
	local g="$GO_OUT/httpd" port sp rp
	rm -f go-http.port
	"$g" serve go-http.port >go-http.out 2>&1 &
	sp=$!
	wait_for go-http.port '^[0-9]+$' || { kill $sp; return; }
	port=$(cat go-http.port)
	"$BC" record -o go-http.er -P $sp -t 10 -u main.hello -u main.work >/dev/null 2>go-http.err &
	rp=$!
	wait_for go-http.err 'attached to'
	"$g" get "$port" 300 >go-http.c1
	check_eq "all 300 requests answered while traced" "answered 300" "$(cat go-http.c1)"
	wait $rp
	check_eq "the recording ends after 10 s" 0 $?
	"$g" get "$port" 20 >go-http.c2
	check_eq "and 20 more after" "answered 20" "$(cat go-http.c2)"
	"$g" quit "$port"
	wait $sp
	check_eq "the server exits 0" 0 $?
	check_eq "having answered all 320" "served 320" "$(cat go-http.out)"
	check_eq "report shows the handler's 300 calls" 300 "$(calls_of go-http.er main.hello)"
	check_eq "and the function it calls" 300 "$(calls_of go-http.er main.work)"
}

test_go_refused() {
	echo "# Go binaries that cannot be traced safely are refused with a reason"
	go_build grow || return
	go_build grow-s -ldflags=-s || return
	go_build grow-w -ldflags=-w || return
	local g="$GO_OUT/grow"
	expect_error "no symbol table: its names cannot be found" 'Go without a symbol table' \
		"$BC" record -q -o go-ref.er -u main.deep -- "$GO_OUT/grow-s"
	# Debian's own go tools: stripped, but linked with libc (a .dynsym): the same reason
	expect_error "Debian's gofmt, stripped: the same reason" 'Go without a symbol table' \
		"$BC" record -q -o go-ref.er -u main.main -- "$(go env GOROOT)/bin/gofmt" /dev/null
	expect_error "uretprobes would kill it" 'is Go: --return-probes=uretprobe would kill it' \
		"$BC" record -q -o go-ref.er --return-probes=uretprobe -u main.deep -- "$g"
	# releases this Go cannot build: its binary with another version in .go.buildinfo
	sed 's/go1\.\([0-9][0-9]\)\.\([0-9]\)/go1.16.\2/' "$g" >go-ref-116
	sed 's/go1\.\([0-9][0-9]\)\.\([0-9]\)/go1.23.\2/' "$GO_OUT/grow-w" >go-ref-123w
	chmod +x go-ref-116 go-ref-123w
	expect_error "a release before 1.17" 'built by go1.16.*before 1.17' \
		"$BC" record -q -o go-ref.er -u main.deep -- ./go-ref-116
	expect_error "a release past the table without DWARF" 'go1.23.* without DWARF' \
		"$BC" record -q -o go-ref.er -u main.deep -- ./go-ref-123w
	check "nothing was recorded" test ! -e go-ref.er
	"$BC" record -q -o go-ref-w.er -u main.leaf -- "$GO_OUT/grow-w" >/dev/null 2>&1
	check_eq "without DWARF, a release in the table is traced" 160 \
		"$(calls_of go-ref-w.er main.leaf)"
}
