# Off-CPU, heap, sync and I/O data in gprofng's own packets, for
# tests/integration/run.sh: sourced there. Uses run.sh's helpers: check,
# check_eq, gprofng_ok, expect_error, $BC, $TGT.

# between V LO HI: LO <= V <= HI (decimals)
in_range() { awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v + 0 >= lo && v + 0 <= hi) }'; }

# A metric column of one function in gprofng's function list: gp_metric EXP METRIC FUNC
gp_metric() {
	gprofng display text -metrics "$2:name" -functions "$1" 2>/dev/null |
		awk -v f="$3" '$2 == f { v = $1; if (v == "0.") v = 0; print v + 0; found = 1 }
			END { if (!found) print "none" }'
}

test_offcpu_clock() {
	echo "# --offcpu: a sleeping target's Sleep time in gprofng"
	"$BC" record -q -o oc.er --offcpu -- "$TGT/offcpu" 100 >oc.out 2>oc.err
	check_eq "record --offcpu exits 0" 0 $?
	check "the experiment opens in gprofng" gprofng_ok oc.er
	check "its clock data has the off-CPU states (numstates 10, 1 ms ticks)" \
		grep -q 'ptimer="1000" numstates="10"' oc.er/log.xml
	# Main sleeps 3 x 100 ms in nanosleep (it measured sleep_ms around them),
	# the writer thread 2 x 100 ms; nanosleep never returns early. Each thread
	# carries less than one 1 ms tick of its Sleep into no packet: two
	# threads, 2 ms below. Above: what main measured, the writer's 200 ms
	# and 20 ms of wakeup latency.
	local slept sleep_ms pipe_ms ours
	sleep_ms=$(awk '$1 == "sleep_ms" { print $2 }' oc.out)
	pipe_ms=$(awk '$1 == "pipe_ms" { print $2 }' oc.out)
	slept=$(gp_metric oc.er e.sleep clock_nanosleep)
	check "gprofng: Sleep in clock_nanosleep $slept s: 0.5 s slept, to the bounds" \
		in_range "$slept" 0.498 "$(awk -v m="$sleep_ms" 'BEGIN { print (m + 200 + 20) / 1000 }')"
	check "gprofng: Sleep in read: the $pipe_ms ms blocked on the pipe" \
		in_range "$(gp_metric oc.er e.sleep read)" 0.198 "$(awk -v m="$pipe_ms" 'BEGIN { print (m + 2) / 1000 }')"
	check_eq "no User Lock: nothing waited in a futex" 0 "$(gp_metric oc.er e.lock '<Total>')"
	"$BC" report oc.er offcpu >oc.txt
	ours=$(awk '$1 == "clock_nanosleep" { print $4 }' oc.txt)
	check "report offcpu's exact Sleep ($ours s) and gprofng's ticks agree to 2 ms" \
		in_range "$(awk -v a="$ours" -v b="$slept" 'BEGIN { print a - b }')" 0 0.002
	expect_error "report profile of an off-CPU-only experiment says where its data is" \
		'no clock profile .*its off-CPU time is in .report offcpu.' "$BC" report oc.er profile

	echo "# -p on --offcpu: CPU and off-CPU in one profile"
	"$BC" record -q -o ocp.er -p on --offcpu -- "$TGT/offcpu" 100 >ocp.out 2>ocp.err
	check_eq "record -p on --offcpu exits 0" 0 $?
	check "the experiment opens in gprofng" gprofng_ok ocp.er
	check "ptimer is -p's 10 ms" grep -q 'ptimer="10000" numstates="10"' ocp.er/log.xml
	check "gprofng: tgt_spin has the CPU" in_range "$(gp_metric ocp.er e.totalcpu tgt_spin)" 0.05 0.2
	check "gprofng: and clock_nanosleep the Sleep, to a 10 ms tick per thread" \
		in_range "$(gp_metric ocp.er e.sleep clock_nanosleep)" 0.48 0.6
	check_eq "report profile counts CPU only: the off-CPU ticks are not CPU" \
		"$(gp_metric ocp.er e.totalcpu '<Total>')" \
		"$("$BC" report ocp.er profile | awk '$NF == "<Total>" { print $1 + 0 }')"
}

# heap_rows_ours/gprofng EXP: "ALLOCS BYTES LEAKS LEAKED NAME" per function, sorted
heap_rows_ours() { "$BC" report "$1" heap -n 100000 | awk 'NR > 3 { print $1, $2, $3, $4, $NF }' | sort; }
heap_rows_gprofng() {
	gprofng display text -metrics i.heapalloccnt:i.heapallocbytes:i.heapleakcnt:i.heapleakbytes:name \
		-functions "$1" 2>/dev/null | awk '/^ *[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ / { print $1, $2, $3, $4, $5 }' | sort
}
heap_of() { # heap_of EXP FUNC COLUMN(1 allocs, 2 bytes, 3 leaks, 4 leaked)
	"$BC" report "$1" heap -n 100000 | awk -v f="$2" -v c="$3" '$NF == f { print $c; n = 1 } END { if (!n) print "none" }'
}

test_heap() {
	echo "# -H on: a target that allocates N blocks and leaks K"
	"$BC" record -q -o heap.er -H on -- "$TGT/heap" 200 7 100 >heap.out 2>heap.err
	check_eq "record -H on exits 0" 0 $?
	check "the experiment opens in gprofng" gprofng_ok heap.er
	local v
	v() { value_of heap.out "$1"; }
	check_eq "every allocation under tgt_work: the malloc-type calls, reallocs and mmaps it made" \
		"$(($(v allocs) + $(v reallocs) + $(v mmaps)))" "$(heap_of heap.er tgt_work 1)"
	check_eq "and their bytes" "$(($(v bytes) + $(v realloc_bytes) + $(v mmap_bytes)))" \
		"$(heap_of heap.er tgt_work 2)"
	check_eq "its leaks: the K blocks it never freed" "$(v leaks)" "$(heap_of heap.er tgt_work 3)"
	check_eq "and their bytes" "$(v leaked_bytes)" "$(heap_of heap.er tgt_work 4)"
	check_eq "a 1 MiB malloc counts once (glibc's own mmap inside it is not a second one)" \
		"1 1048576" "$(heap_of heap.er tgt_big 1) $(heap_of heap.er tgt_big 2)"
	check_eq "gprofng's heap metrics are ours, function by function" "" \
		"$(diff <(heap_rows_ours heap.er) <(heap_rows_gprofng heap.er))"
	check "gprofng -leaks: the 7 leaked blocks of 100 bytes, allocated in tgt_alloc" \
		bash -c "gprofng display text -leaks heap.er 2>/dev/null | grep -A3 'Instances = 7, Bytes Leaked = 700' | grep -q tgt_alloc"
	"$BC" report heap.er leaks >leaks.txt
	check "report leaks: the same group, through tgt_alloc" \
		bash -c "grep -A3 'instances 7, bytes 700' leaks.txt | grep -q tgt_alloc"
	expect_error "report sync of an experiment without a sync trace" \
		'has no sync trace \(record it with -s on\)' "$BC" report heap.er sync
	expect_error "-H takes on or off" "-H takes on or off, not 'yes'" "$BC" record -H yes -- true

	echo "# -H on -P: an allocator already running, counted from attach on"
	local tp rp
	"$TGT/heap" 50 2 200 --wait >hp.out 2>&1 &
	tp=$!
	wait_for hp.out '^ready'
	"$BC" record -o hp.er -H on -P $tp >/dev/null 2>hp.err &
	rp=$!
	check "record says it attached" wait_for hp.err 'attached to 1 process'
	kill -USR1 $tp
	wait_for hp.out '^done'
	kill -INT $rp
	wait_gone $rp
	check_eq "record -H on -P exits 0 after Ctrl-C" 0 $?
	kill -USR2 $tp
	wait_gone $tp
	check "the experiment opens in gprofng" gprofng_ok hp.er
	check_eq "every allocation of its work after attach" \
		"$(($(value_of hp.out allocs) + $(value_of hp.out reallocs) + $(value_of hp.out mmaps)))" \
		"$(heap_of hp.er tgt_work 1)"
	check_eq "its 2 leaks of 200 bytes" "2 400" "$(heap_of hp.er tgt_work 3) $(heap_of hp.er tgt_work 4)"
	check "the idle loop's malloc/free pairs balance (at most the one in flight at detach)" \
		in_range "$(heap_of hp.er tgt_idle 3)" 0 1
	check "and were seen" in_range "$(heap_of hp.er tgt_idle 1)" 1 1000000
}

test_sync() {
	echo "# -s on: two threads contending on a mutex"
	"$BC" record -q -o sync.er -s on -- "$TGT/contend" 5 20 >sync.out 2>sync.err
	check_eq "record -s on exits 0" 0 $?
	check "the experiment opens in gprofng" gprofng_ok sync.er
	local waited ours theirs
	waited=$(value_of sync.out waited_ms)
	ours=$("$BC" report sync.er sync | awk '$NF == "tgt_waiter" { printf "%.3f", $1 }')
	check "tgt_waiter waited $ours s: the $waited ms it measured around pthread_mutex_lock (to 5%, +5 ms)" \
		in_range "$ours" "$(awk -v w="$waited" 'BEGIN { print w * 0.95 / 1000 }')" \
		"$(awk -v w="$waited" 'BEGIN { print (w + 5) / 1000 }')"
	check "its waits are in pthread_mutex_lock: 5 rounds, 5 waits at least" \
		in_range "$("$BC" report sync.er sync | awk '$NF == "pthread_mutex_lock" { print $4 }')" 5 100
	theirs=$(gprofng display text -metrics i.sync:name -functions sync.er 2>/dev/null |
		awk '$2 == "tgt_waiter" { print $1 }')
	check_eq "gprofng's Sync Wait Time of tgt_waiter is ours" "$(printf '%.3f' "$ours")" "$(printf '%.3f' "$theirs")"
	"$BC" record -q -o sync2.er -s 1000000 -- "$TGT/contend" 2 5 >/dev/null 2>&1
	check_eq "a 1 s threshold: no wait recorded" 0 \
		"$("$BC" report sync2.er sync | awk '/^Sync waits:/ { print $3 }')"
	expect_error "-s takes on, off, all or microseconds" "-s takes on, off, all or a threshold" \
		"$BC" record -s -5 -- true
	echo "# --offcpu: the same contention is User Lock time"
	"$BC" record -q -o lock.er --offcpu -- "$TGT/contend" 5 20 >lock.out 2>&1
	# The futex waits are inside libc, which has no frame pointers: their
	# stacks stop there, so the check is on the total: the waiter's wait and
	# main's join (the whole run) at least, each thread within a 1 ms tick.
	local lock_total
	lock_total=$(gp_metric lock.er e.lock '<Total>')
	check "gprofng: User Lock $lock_total s: at least the waiter's $(value_of lock.out waited_ms) ms and main's join" \
		in_range "$lock_total" "$(awk -v w="$(value_of lock.out waited_ms)" 'BEGIN { print 2 * w / 1000 - 0.003 }')" 1
	check "and report offcpu's exact User Lock agrees to 3 ms" in_range \
		"$("$BC" report lock.er offcpu | awk -v g="$lock_total" '/^Off-CPU:/ { print $16 - g }')" 0 0.003
	expect_error "report heap of an experiment without a heap trace" \
		'has no heap trace \(record it with -H on\)' "$BC" report sync.er heap
}

# Files with bytes and counts (read bytes, reads, written bytes, writes, other, errors, name)
io_rows_ours() {
	"$BC" report "$1" io -n 100000 |
		awk 'NR > 3 { n = $11; for (i = 12; i <= NF; i++) n = n " " $i; print $2, $3, $5, $6, $8, $10, n }' | sort
}
io_rows_gprofng() {
	gprofng display text -metrics e+ioreadbytes:e+ioreadcnt:e+iowritebytes:e+iowritecnt:e+ioothercnt:e+ioerrorcnt \
		-ioactivity "$1" 2>/dev/null |
		awk '/^ *[0-9]/ { n = $7; for (i = 8; i <= NF; i++) n = n " " $i; print $1, $2, $3, $4, $5, $6, n }' | sort
}
# io_of EXP FILE COLUMN (1 read bytes, 2 reads, 3 written bytes, 4 writes, 5 other, 6 errors), from report io
io_of() { io_rows_ours "$1" | awk -v f="$2" -v c="$3" '$7 == f { print $c; found = 1 } END { if (!found) print "none" }'; }

test_io() {
	echo "# -i on: a target writing and reading files"
	local dir=$PWD/iodir
	rm -rf "$dir" && mkdir -p "$dir"
	"$BC" record -q -o io.er -i on -- "$TGT/io" "$dir" >io.out 2>io.err
	check_eq "record -i on exits 0" 0 $?
	check "the experiment opens in gprofng" gprofng_ok io.er
	check "log.xml declares gprofng's iotrace packet" grep -q '<profpckt kind="19" uname="IO tracing data">' io.er/log.xml
	check_eq "data.out: every byte written, in writes (10 write, 1 writev)" \
		"$(value_of io.out data_written) 11" "$(io_of io.er "$dir/data.out" 3) $(io_of io.er "$dir/data.out" 4)"
	check_eq "data.out: every byte read, in reads (to EOF, and a pread)" \
		"$(value_of io.out data_read) $(($(value_of io.out data_reads) + 1))" \
		"$(io_of io.er "$dir/data.out" 1) $(io_of io.er "$dir/data.out" 2)"
	check_eq "data.out: 2 opens and 2 closes" 4 "$(io_of io.er "$dir/data.out" 5)"
	check_eq "dup.out: the bytes written through a dup of its descriptor" \
		"$(value_of io.out dup_written)" "$(io_of io.er "$dir/dup.out" 3)"
	check_eq "the failed open is an error of that path" 1 "$(io_of io.er "$dir/missing/x" 6)"
	check "the file system of what was opened: /tmp/iodir is ext4 or tmpfs here" \
		grep -qE "data.out \(FS=(ext4|tmpfs)\)" <("$BC" report io.er io)
	io_rows_ours io.er >io.ours
	io_rows_gprofng io.er >io.gprofng
	check "report io and gprofng -ioactivity agree file by file ($(wc -l <io.ours) files)" \
		diff io.ours io.gprofng
	# Stacks: the caller of each libc wrapper is there, frame pointers or not.
	check_eq "gprofng: tgt_write_file wrote data.out's bytes" \
		"$(value_of io.out data_written)" "$(gp_metric io.er i+iowritebytes tgt_write_file)"
	check_eq "gprofng: tgt_read_file read them" \
		"$(value_of io.out data_read)" "$(gp_metric io.er i+ioreadbytes tgt_read_file)"
	check_eq "gprofng: open_in made the 3 opens and the one that failed" "3 1" \
		"$(gp_metric io.er i+ioothercnt open_in) $(gp_metric io.er i+ioerrorcnt open_in)"
	check_eq "gprofng: tgt_fail's 2 errors, under tgt_io_work" "2 2" \
		"$(gp_metric io.er i+ioerrorcnt tgt_fail) $(gp_metric io.er i+ioerrorcnt tgt_io_work)"
	check_eq "gprofng: the pipe's 10 bytes each way in tgt_pipe" "10 10" \
		"$(gp_metric io.er i+iowritebytes tgt_pipe) $(gp_metric io.er i+ioreadbytes tgt_pipe)"

	echo "# -i on -P: attached to a process with a file open already"
	rm -rf "$dir" && mkdir -p "$dir"
	"$TGT/io" "$dir" --wait >iop.out 2>&1 &
	local tp=$! rp
	wait_for iop.out '^ready'
	"$BC" record -o iop.er -i on -P $tp >/dev/null 2>iop.err &
	rp=$!
	check "record says it attached" wait_for iop.err 'attached to 1 process'
	kill -USR1 $tp
	wait_for iop.out '^done'
	kill -INT $rp
	wait_gone $rp
	check_eq "record -i on -P exits 0 after Ctrl-C" 0 $?
	kill -USR2 $tp
	wait_gone $tp
	check "the experiment opens in gprofng" gprofng_ok iop.er
	check_eq "early.out, open before the attach, is named: its 333 bytes" 333 \
		"$(io_of iop.er "$dir/early.out" 3)"
	check_eq "data.out's bytes after attach" "$(value_of iop.out data_written) $(value_of iop.out data_read)" \
		"$(io_of iop.er "$dir/data.out" 3) $(io_of iop.er "$dir/data.out" 1)"
	io_rows_ours iop.er >iop.ours
	io_rows_gprofng iop.er >iop.gprofng
	check "and gprofng agrees file by file" diff iop.ours iop.gprofng

	echo "# -i on: a descendant's I/O in its own experiment"
	rm -rf "$dir" && mkdir -p "$dir"
	"$BC" record -q -o iod.er -i on -- sh -c "\"$TGT/io\" \"$dir\"; true" >iod.out 2>iod.err
	check_eq "record -i on of a shell exits 0" 0 $?
	check "the experiment opens in gprofng" gprofng_ok iod.er
	check "the io process has a subexperiment with an iotrace" \
		sh -c 'ls -d iod.er/_*.er/iotrace >/dev/null 2>&1'
	check_eq "report io over the tree: data.out's bytes" "$(value_of iod.out data_written)" \
		"$(io_of iod.er "$dir/data.out" 3)"
	io_rows_ours iod.er >iod.ours
	io_rows_gprofng iod.er >iod.gprofng
	check "and gprofng (which loads the descendants) agrees file by file" diff iod.ours iod.gprofng

	expect_error "-i takes on or off" "-i takes on or off, not 'yes'" "$BC" record -i yes -- true
	small_exp noio.er
	expect_error "report io of an experiment without an I/O trace" \
		'has no I/O trace \(record it with -i on\)' "$BC" report noio.er io
}

test_busy_overview() {
	echo "# overview samples keep coming while the agent is never done draining"
	# slow formats behind a full-size ring: the drain always has records left
	rm -rf bo.er bo.dump
	"$BC" record -q -S 0.03 -t 0.6 -o bo.er -f er -f prf-dump -u 'tgt_*' \
		-- "$TGT/calls" 300000 2 >/dev/null 2>&1
	check_eq "record exits 0" 0 $?
	# (a drain that waited for an empty ring took none here: 0 of 20)
	rm -f bo.dump # 70-80 MB of dump: only its slowness was wanted
	local samples
	samples=$("$BC" report bo.er events | awk '$6 == "usage"' | wc -l)
	check "a sample every 30 ms of the 0.6 s, half of them at least ($samples)" test "$samples" -ge 10
	check "and the experiment's overview has them" \
		test "$(grep -c 'label="periodic"' bo.er/log.xml)" -ge 10
}
