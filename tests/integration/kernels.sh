# The kernels users have: `matrix` proves each BPF program and each
# fallback once, with exact counts, on whatever kernel it runs on; `kernels`
# boots Debian's 6.1 and 6.12 kernel packages under qemu
# (tools/kernel-vm.sh) and runs `matrix` inside each.

# Every program and every fallback once, kept small: under TCG each uprobe
# hit costs tens of microseconds.
test_matrix() {
	echo "# matrix: what this kernel ($(uname -r)) loads, each once, counted exactly"
	local d n tp rp
	d=$(mktemp -d)
	"$BC" version --features >"$d/features" 2>&1
	check_eq "version --features exits 0" 0 $?
	check_eq "it names the kernel and every feature, none needed MISSING" "12 0" \
		"$(awk 'NR > 3 { n++ } / MISSING / { m++ } END { print n + 0, m + 0 }' "$d/features")"

	# -u, exact counts; functions' probes fall back to perf uprobes without uprobe_multi
	(cd "$d" && "$BC" record -q -o u.er -u tgt_outer -- "$TGT/calls" 1000 1 >u.out 2>u.err)
	check_eq "-u tgt_outer: exits 0" 0 $?
	check_eq "-u tgt_outer: 1000 calls in a 1000-call loop" \
		"1000 1000" "$(value_of "$d/u.out" tgt_outer) $(calls_of "$d/u.er" tgt_outer)"
	check "-u: gprofng opens it" gprofng_ok "$d/u.er"
	# library mappings: ld.so's hook where the kernel can walk VMAs, else the syscall path
	local p hook=ldso_debug_state other=maps_exit
	if ! grep -qE '^iter_task_vma +yes' "$d/features"; then
		hook=maps_exit other=ldso_debug_state
		check "-u: one line says the VMA iterator is missing, and what it costs" \
			grep -q '^bpfcollect: note: this kernel has no iter_task_vma (since 6.7): ' "$d/u.err"
	else
		check_eq "-u: no note of a missing feature" "" "$(grep 'note: this kernel has no' "$d/u.err")"
	fi
	p=$(progs_during "$d/pr.er")
	check "-u: $hook gives the mappings, $other is not loaded ($p)" \
		bash -c "[[ ' $p ' == *' $hook '* && ' $p ' != *' $other '* ]]"
	check_eq "-u: map.xml has libc, loaded after exec" 1 \
		"$(grep -c 'modes="0x005".*name="[^"]*/libc.so.6"' "$d/pr.er/map.xml")"

	# per-function perf uprobes (forced here: 6.1 has nothing else), 128 of them:
	# removed by the detacher once the recording has ended
	(cd "$d" && "$BC" record -q --no-uprobe-multi -o pf.er -u 'tgt_f*' -- "$TGT/manyfn" 10 \
		>pf.out 2>pf.err)
	check_eq "perf uprobes, 64 functions: exits 0" 0 $?
	check_eq "perf uprobes: every call the functions counted" "$(value_of "$d/pf.out" calls)" \
		"$("$BC" report "$d/pf.er" functions -n 1000 2>/dev/null |
			awk '$NF ~ /^tgt_f[0-7][0-7]$/ { n += $1; f++ } END { print (f == 64 ? n : "functions: " f) }')"
	for _ in $(seq 1200); do
		[ "$(bpftool link show 2>/dev/null | grep -cE '^[0-9]+: (perf_event|uprobe_multi) ')" = 0 ] &&
			break
		sleep 0.1
	done
	check_eq "perf uprobes: every probe removed after the recording, by its detacher" 0 \
		"$(bpftool link show 2>/dev/null | grep -cE '^[0-9]+: (perf_event|uprobe_multi) ')"

	# every function of the executable, and every system call
	(cd "$d" && "$BC" record -q -o all.er --syscalls -- "$TGT/calls" 1000 1 >all.out 2>all.err)
	check_eq "every function, --syscalls: exits 0" 0 $?
	check_eq "every function: tgt_inner and tgt_fact as often as they ran" \
		"$(value_of "$d/all.out" tgt_inner) $(value_of "$d/all.out" tgt_fact)" \
		"$(calls_of "$d/all.er" tgt_inner) $(calls_of "$d/all.er" tgt_fact)"
	"$BC" report "$d/all.er" events >"$d/all.ev" 2>/dev/null
	check_eq "every function: every return has its entry" ok "$(nesting_ok "$d/all.ev")"
	check "every function: gprofng opens it" gprofng_ok "$d/all.er"
	(cd "$d" && "$BC" record -q -o sys.er --syscalls=getppid,write -u main -- "$TGT/sys" 500 \
		>/dev/null 2>sys.err)
	check_eq "--syscalls=getppid,write: exits 0" 0 $?
	"$BC" report "$d/sys.er" events >"$d/sys.ev" 2>/dev/null
	check_eq "--syscalls: 500 getppid entries and exits, 500 writes returning 1" "500 500 500" \
		"$(awk '$7 == "getppid" { n[$6]++ } $6 == "sys_exit" && $7 == "write" && / = 1$/ { w++ }
			END { print n["sys_enter"] + 0, n["sys_exit"] + 0, w + 0 }' "$d/sys.ev")"

	# a program nobody here wrote: Debian's xz, a function of its library, counted
	# by bpftrace on the same run; xz's output must be what it makes untraced
	local lz=/lib/x86_64-linux-gnu/liblzma.so.5 bt pid
	seq 1 60000 >"$d/in.txt"
	bpftrace -e "uprobe:$lz:lzma_code /comm == \"xz\"/ { @[pid] = count(); }" >"$d/bt.out" 2>&1 &
	bt=$!
	# bpftrace compiles its program first: under TCG that takes a while
	for _ in $(seq 600); do grep -q Attaching "$d/bt.out" && break; sleep 0.1; done
	sleep 0.3
	(cd "$d" && "$BC" record -q -o xz.er -u 'liblzma:lzma_code' -- xz -T1 -c in.txt >in.xz 2>xz.err)
	check_eq "xz, -u liblzma:lzma_code: exits 0" 0 $?
	kill -INT $bt
	wait $bt
	check "xz: its output decompresses to its input" bash -c "xz -dc '$d/in.xz' | cmp -s - '$d/in.txt'"
	pid=$("$BC" report "$d/xz.er" header 2>/dev/null | awk '$1 == "Process:" { print $3 }' | tr -d ,)
	n=$(awk -v p="$pid" '$1 == "@[" p "]:" { print $2 }' "$d/bt.out")
	check_eq "xz: lzma_code calls ($n), as bpftrace counted them" "$n" "$(calls_of "$d/xz.er" lzma_code)"
	check "xz: gprofng opens it" gprofng_ok "$d/xz.er"

	# -p: the profiling program on cpu-clock perf events
	(cd "$d" && "$BC" record -q -o p.er -p on -u tgt_compute -- "$TGT/cpu" 1 >p.out 2>p.err)
	check_eq "-p on: exits 0" 0 $?
	"$BC" report "$d/p.er" profile >"$d/p.txt" 2>/dev/null
	check "-p on: total CPU within sampling error of what the target used" within \
		"$(awk '$NF == "<Total>" { print $1 }' "$d/p.txt")" \
		"$(awk '$1 == "total" { print $2 }' "$d/p.out")"
	check "-p on: gprofng opens it" gprofng_ok "$d/p.er"

	# -H: the heap programs, with return probes
	(cd "$d" && "$BC" record -q -o h.er -H on -- "$TGT/heap" 200 7 100 >h.out 2>h.err)
	check_eq "-H on: exits 0" 0 $?
	check_eq "-H on: the 7 leaked blocks and their bytes, as the target counts them" \
		"$(value_of "$d/h.out" leaks) $(value_of "$d/h.out" leaked_bytes)" \
		"$(heap_of "$d/h.er" tgt_work 3) $(heap_of "$d/h.er" tgt_work 4)"
	check "-H on: gprofng opens it" gprofng_ok "$d/h.er"

	# -i: the I/O programs on the syscall tracepoints, paths read at open
	mkdir -p "$d/iodir"
	(cd "$d" && "$BC" record -q -o i.er -i on -- "$TGT/io" "$d/iodir" >i.out 2>i.err)
	check_eq "-i on: exits 0" 0 $?
	check_eq "-i on: every byte written to data.out, in 11 writes" \
		"$(value_of "$d/i.out" data_written) 11" \
		"$(io_of "$d/i.er" "$d/iodir/data.out" 3) $(io_of "$d/i.er" "$d/iodir/data.out" 4)"
	check "-i on: gprofng opens it" gprofng_ok "$d/i.er"

	# --arg: the sleepable capture programs (strings by probe read before 6.12)
	(cd "$d" && "$BC" record -q -o a.er -u tgt_str --arg 'tgt_str@arg1/s,retval/s' -- "$TGT/args" 1 \
		>a.out 2>a.err)
	check_eq "--arg: exits 0" 0 $?
	check_eq "--arg, retval: the string tgt_str got and the one it returned" \
		"$(sed -n 's/^tgt_str \("[^"]*"\) ret=\(".*"\)$/tgt_str(arg1=\1) = \2/p' "$d/a.out")" \
		"$("$BC" report "$d/a.er" calls tgt_str 2>/dev/null | grep -o 'tgt_str(arg1=.*' | head -1)"

	# -P: attach, a library dlopened after attach (ld.so's hook, or its fallback), detach
	local plugin="$BUILD/tests/targets/lib/libbcplugin.so"
	"$TGT/attach" 2 300 "$plugin" >"$d/at.out" 2>&1 &
	tp=$!
	wait_for "$d/at.out" '^ready'
	"$BC" record -o "$d/at.er" -u tgt_tick -u "$plugin:tgt_*" -P $tp >/dev/null 2>"$d/at.err" &
	rp=$!
	check "-P: record attaches" wait_for "$d/at.err" 'attached to 1 process'
	kill -USR1 $tp
	wait_for "$d/at.out" 'phase1 done'
	kill -INT $rp
	wait_gone $rp
	check_eq "-P: record exits 0 after Ctrl-C" 0 $?
	kill -USR2 $tp
	wait_gone $tp
	check_eq "-P: the target exits 0 after the detach" 0 $?
	check_eq "-P: every tgt_tick after attach" "$(value_of "$d/at.out" tgt_tick)" \
		"$(calls_of "$d/at.er" tgt_tick)"
	check_eq "-P: the 4 calls in the library dlopened after attach" 4 \
		"$(calls_of "$d/at.er" tgt_plugin_work)"
	check "-P: gprofng opens it" gprofng_ok "$d/at.er"

	# -k: a kernel experiment with its process's subexperiment
	(cd "$d" && "$BC" record -q -k --syscalls=getppid -u main -- "$TGT/sys" 200 >k.out 2>k.err)
	check_eq "-k --syscalls: exits 0" 0 $?
	n=$(ls -d "$d"/ktest.1.er/_sys_PID_*.er 2>/dev/null | wc -l)
	check_eq "-k: the process has its subexperiment" 1 "$n"
	check_eq "-k: 200 getppid calls" 200 \
		"$("$BC" report "$d/ktest.1.er" events 2>/dev/null | awk '$6 == "sys_exit" && $7 == "getppid"' | wc -l)"
	check "-k: gprofng opens it" gprofng_ok "$d/ktest.1.er"

	# -a: system-wide, uprobes in every process mapping the object
	"$BC" record -a -t 3 -u "$TGT/calls:tgt_outer" -o "$d/wide.er" >/dev/null 2>"$d/wide.err" &
	rp=$!
	for _ in $(seq 200); do grep -q "tracing every process" "$d/wide.err" && break; sleep 0.1; done
	"$TGT/calls" 300 1 >"$d/wide.out"
	wait "$rp"
	check_eq "-a -t 3: exits 0" 0 $?
	n=$(awk '$1 == "tid" { print $2; exit }' "$d/wide.out")
	check_eq "-a: 300 tgt_outer calls in the target's subexperiment" 300 \
		"$(calls_of "$(ls -d "$d/wide.er/_calls_PID_$n".*.er 2>/dev/null | head -1)" tgt_outer)"
	check "-a: gprofng opens it" gprofng_ok "$d/wide.er"

	# Go, per goroutine (built on the host: go_build finds it up to date in a guest)
	if go_build grow; then
		(cd "$d" && "$BC" record -q -o go.er -u main.leaf -u main.deep -- "$BUILD/tests/go/grow" \
			>go.out 2>go.err)
		check_eq "Go: exits 0, as untraced" "0 sums" "$? $(cut -d' ' -f1 "$d/go.out")"
		check_eq "Go: 160 and 8720 calls, paired per goroutine" "160 8720" \
			"$(calls_of "$d/go.er" main.leaf) $(calls_of "$d/go.er" main.deep)"
	fi

	# live formats beside the experiment
	(cd "$d" && "$BC" record -q -f er -f rtl -f gtf -f prf-csv -o f.er -u tgt_outer \
		-- "$TGT/calls" 1000 1 >f.out 2>f.err)
	check_eq "-f er -f rtl -f gtf -f prf-csv: exits 0" 0 $?
	n=$(awk '$1 == "tid" { print $2; exit }' "$d/f.out")
	check_eq "-f rtl: 1000 { lines of tgt_outer" 1000 "$(rtl_entries "$d/f_$n.log" tgt_outer)"
	check "-f gtf: gtf-dump reads it with no problem" \
		grep -qE '^[0-9]+ records, [0-9]+ events \([0-9]+ split series\), 0 problems$' \
		<("$BC" gtf-dump "$d/f.gtf" 2>/dev/null)
	prf_tsv "$d/f.csv" >"$d/f.tsv"
	check_eq "-f prf-csv: 1000 entries and 1000 returns of tgt_outer" "1000 1000" \
		"$(prf_count "$d/f.tsv" 0x0100 tgt_outer) $(prf_count "$d/f.tsv" 0x0101 tgt_outer)"
	check "-f er: gprofng opens it" gprofng_ok "$d/f.er"
	rm -rf "$d"
}

# The series booted, newest package of each; KERNEL_SERIES overrides.
KERNEL_SERIES=${KERNEL_SERIES:-6.1 6.12}

# Runs `matrix` in a guest of one series; its check lines, marked with it.
kernel_guest() { # kernel_guest SERIES OUTDIR
	"$HERE/../../tools/kernel-vm.sh" run "$1" "$2" -t 1500 -- \
		"$HERE/run.sh" "$BUILD" matrix >"$2/log" 2>&1
}

test_kernels() {
	echo "# kernels: matrix in qemu guests of Debian's $KERNEL_SERIES kernels"
	if ! command -v qemu-system-x86_64 >/dev/null; then
		if in_ci; then
			bad "kernels: no qemu with CI=$CI; make check installs it with tools/install-deps.sh --kernels"
		else
			echo "skip - kernels: no qemu (tools/install-deps.sh --kernels installs it)"
		fi
		return
	fi
	local s out pids=() rc
	go_build grow # for matrix's Go check: a guest under TCG would build it for minutes
	# two guests at once, one CPU each: the machine's two cores
	for s in $KERNEL_SERIES; do
		out="$WORK/vm-$s"
		rm -rf "$out" && mkdir -p "$out"
		kernel_guest "$s" "$out" &
		pids+=($!)
	done
	local i=0
	for s in $KERNEL_SERIES; do
		out="$WORK/vm-$s"
		wait "${pids[$i]}"
		rc=$?
		i=$((i + 1))
		check "$s: the guest booted ($(grep -m1 -oE 'guest: [^ ]+ up$' "$out/log" | cut -d' ' -f2))" \
			grep -qE 'guest: [^ ]+ up$' "$out/log"
		while read -r line; do
			case $line in
			"ok   - "*) ok "[$s] ${line#ok   - }" ;;
			"FAIL - "*) bad "[$s] ${line#FAIL - }" ;;
			esac
		done <"$out/log"
		check_eq "$s: matrix ran to its end, nothing failed (exit $rc)" "0 failed" \
			"$(grep -oE '^[0-9]+ passed, [0-9]+ failed$' "$out/log" | sed 's/.* passed, //')"
		[ "$rc" -eq 0 ] || tail -30 "$out/log" | sed 's/^/#   /'
	done
}
