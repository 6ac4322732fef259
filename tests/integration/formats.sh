# Sourced by run.sh: the format registry, live against converted, and output safety.

# gprofng's views that our data kinds feed, without the lines naming the experiment.
gprofng_views() { # gprofng_views EXP
	gprofng display text -functions -heap -synctrace -ioactivity "$1" 2>&1 |
		grep -v -e "$1" -e '^Stack 0x'
}

# The kinds `report events` prints (column 6), one per line, sorted, unique.
event_kinds() { # event_kinds EVENTS_FILE
	awk '{ print $6 }' "$1" | sort -u | tr '\n' ' '
}

test_formats() {
	echo "# every format: record -f FMT live equals convert -f FMT, for every record kind"
	local name output suffix args=() formats=0
	rm -rf fmt.d fmt.er fmtconv.er fmt_*.log && mkdir fmt.d
	while read -r name output suffix; do
		args+=(-f "$name")
		formats=$((formats + 1))
	done < <("$BC" convert --list-formats)
	check "convert --list-formats names the formats (er, prf-csv, prf-dump, text, ...)" \
		test "$formats" -ge 4
	local undocumented=""
	while read -r name output suffix; do
		grep -q -- "\`$name\`" "$HERE/../../README.md" || undocumented="$undocumented $name"
		grep -q -- "  $name " <("$BC" record --help) || undocumented="$undocumented $name(record --help)"
		grep -q -- "  $name " <("$BC" convert --help) || undocumented="$undocumented $name(convert --help)"
	done < <("$BC" convert --list-formats)
	check_eq "every registered format is in README and both --help texts" "" "$undocumented"
	# every kind but -S's usage samples, which have a recording of their own below
	"$BC" record -q -o fmt.er "${args[@]}" -p on -H on -s on -i on --offcpu --syscalls \
		-u 'tgt_*' -- "$TGT/kinds" fmt.d >fmt.out 2>fmt.err
	check_eq "record with every format at once exits 0" 0 $?
	check "the experiment opens in gprofng" gprofng_ok fmt.er
	"$BC" report fmt.er events >fmt.ev 2>/dev/null
	local k missing=""
	for k in entry return sys_enter sys_exit fork thread thread_exit exec exit offcpu sample \
		heap sync io; do
		awk -v k="$k" '$6 == k { found = 1 } END { exit !found }' fmt.ev || missing="$missing $k"
	done
	check_eq "report events shows every kind the recording made" "" "$missing"
	while read -r name output suffix; do
		if [ "$output" = experiment ]; then
			rm -rf "fmtconv$suffix"
			"$BC" convert fmt.er -f "$name" -o "fmtconv$suffix" 2>fmtconv.err
			check_eq "convert -f $name exits 0" 0 $?
			check "convert -f $name: gprofng opens it" gprofng_ok "fmtconv$suffix"
			"$BC" report "fmtconv$suffix" events >fmtconv.ev 2>/dev/null
			check_eq "convert -f $name: the same events, every kind ($(event_kinds fmt.ev))" \
				"$(sort fmt.ev | md5sum)" "$(sort fmtconv.ev | md5sum)"
			check_eq "convert -f $name: gprofng shows the same functions, heap, sync, I/O" \
				"$(gprofng_views fmt.er | md5sum)" \
				"$(gprofng_views "fmtconv$suffix" | md5sum)"
			local sub same=ok
			for sub in "" $(cd fmt.er && ls -d _*.er); do
				for f in log.xml map.xml overview; do
					cmp -s "fmt.er/$sub/$f" "fmtconv$suffix/$sub/$f" ||
						same="${sub:-founder} $f differs"
				done
			done
			check_eq "convert -f $name: log.xml, map.xml and overview byte for byte, descendants too" \
				ok "$same"
			check "and the descendant's subexperiment is there" test -d "fmtconv$suffix/_f1.er"
		elif [ "$output" = files ]; then
			rm -f fmtconv_*.log
			"$BC" convert fmt.er -f "$name" -o fmtconv 2>fmtconv.err
			check_eq "convert -f $name exits 0" 0 $?
			local live conv same=ok
			live=$(ls fmt_*.log 2>/dev/null | wc -l)
			conv=$(ls fmtconv_*.log 2>/dev/null | wc -l)
			check "record -f $name wrote a file per process ($live), convert as many ($conv)" \
				test "$live" -ge 2 -a "$live" = "$conv"
			for f in fmt_*.log; do
				cmp -s "$f" "fmtconv_${f#fmt_}" || same="$f differs"
			done
			check_eq "convert -f $name equals record -f $name, byte for byte, every file" ok "$same"
		else
			"$BC" convert fmt.er -f "$name" -o "fmtconv$suffix" 2>fmtconv.err
			check_eq "convert -f $name exits 0" 0 $?
			check "record -f $name wrote fmt$suffix" test -s "fmt$suffix"
			check_eq "convert -f $name equals record -f $name, line for line (sorted)" \
				"$(sort "fmt$suffix" | md5sum)" "$(sort "fmtconv$suffix" | md5sum)"
		fi
	done < <("$BC" convert --list-formats)
	# PRF gives each kind its own event id (docs/prf.md)
	local id ids=""
	for id in 0x0100 0x0101 0x0200 0x0201 0x0300 0x0301 0x0302 0x0303 0x0304 0x0401 \
		0x0500 0x0600 0x0700 0x0800; do
		grep -q ",$id," fmt.csv || ids="$ids $id"
	done
	check_eq "PRF has a record of every kind's event id" "" "$ids"
	check "PRF names heap, sync and I/O calls" grep -q ',heap,malloc,' fmt.csv
	check "and sync" grep -q ',sync,pthread_mutex_lock,' fmt.csv
	check "and I/O" grep -q ',io,write,' fmt.csv
	check "no record kind is unknown to PRF" bash -c "! grep -q ',agent,kind_0x' fmt.csv"
	# GTF gives each kind its EID (docs/gtf.md) and every record reads back
	"$BC" gtf-dump --no-hex fmt.gtf >fmt.gtf.dump 2>fmt.gtf.err
	check_eq "gtf-dump reads the GTF of every kind without a problem" 0 $?
	local eid eids=""
	for eid in "01 function  EID 0101" "01 function  EID 0102" "02 syscall  EID 0103" \
		"02 syscall  EID 0104" "03 process  EID 0105" "03 process  EID 0106" \
		"03 process  EID 0107" "03 process  EID 0108" "03 process  EID 0109" \
		"05 sample  EID 010D" "04 sched  EID 010E" "06 heap  EID 0110" "07 sync  EID 0111" \
		"08 io  EID 0112"; do
		grep -q "  FID $eid " fmt.gtf.dump || eids="$eids [$eid]"
	done
	check_eq "GTF has a record of every kind's FID and EID" "" "$eids"
	check_eq "and every one of them decodes" 0 "$(grep -c '(not bpfcollect.s layout' fmt.gtf.dump)"
	# -S: overview samples (usage), apart from -H. The heap probes are in every
	# process, the agent's own mallocs trap too, and on a slow machine the agent
	# ran seconds behind: it met the process only after its end, or delivered
	# the samples out of order. kinds lingers a second for the sampler.
	rm -rf ov.er ov.d ovconv.er ov.csv ov.gtf ovconv.gtf && mkdir ov.d
	"$BC" record -q -o ov.er -f er -f prf-csv -f gtf -S 0.02 -u 'tgt_*' \
		-- "$TGT/kinds" ov.d 1000 >/dev/null 2>ov.err
	check_eq "record -S 0.02 -f er -f prf-csv -f gtf exits 0" 0 $?
	check "report events shows its usage samples" \
		awk '$6 == "usage" { found = 1 } END { exit !found }' <("$BC" report ov.er events 2>/dev/null)
	"$BC" convert ov.er -f er -o ovconv.er 2>/dev/null
	check "the overview has periodic samples (-S), and they were replayed" \
		grep -q 'label="periodic"' ovconv.er/log.xml
	check "convert -f er: the founder's log.xml and overview byte for byte" \
		bash -c "cmp -s ov.er/log.xml ovconv.er/log.xml && cmp -s ov.er/overview ovconv.er/overview"
	check "PRF has usage's event id (0x0306)" grep -q ',0x0306,' ov.csv
	"$BC" convert ov.er -f gtf -o ovconv.gtf 2>/dev/null
	check "GTF has usage's FID and EID, live and converted alike" \
		bash -c "'$BC' gtf-dump --no-hex ov.gtf | grep -q '  FID 09 usage  EID 0113 ' &&
			cmp -s <(sort ov.gtf) <(sort ovconv.gtf)"
	rm -rf moved.er && cp -r fmt.er moved.er
	sed -i 's/<system hostname="[^"]*"/<system hostname="elsewhere"/' moved.er/log.xml
	"$BC" convert moved.er -f prf-csv -o moved.csv 2>/dev/null
	check_eq "RootAP IP is the recording host's, wherever convert runs" \
		"$(awk -F, 'NR == 2 { print $14 }' fmt.csv)" "$(awk -F, 'NR == 2 { print $14 }' moved.csv)"
}

test_exec_argv() {
	echo "# a descendant's command line comes from its exec, even when it lives a moment"
	rm -rf argv.er
	"$BC" record -q -o argv.er --syscalls=execve -- /bin/sh -c \
		"/bin/echo 'two words' x >/dev/null; /bin/true" >/dev/null 2>&1
	check_eq "record exits 0" 0 $?
	check "the echo's subexperiment has its whole argv" \
		grep -rqF "<process>/bin/echo two words x</process>" --include=log.xml argv.er
	check "the shell's forks run its command line" \
		grep -rqF "<process>/bin/sh -c /bin/echo" --include=log.xml argv.er/_*
	# vfork (dash) and posix_spawn children are fork-like, as gprofng's collect names them
	rm -rf vf.er
	"$BC" record -q -o vf.er --syscalls=execve -- /bin/sh -c \
		"/bin/true; /bin/echo x >/dev/null; exec /bin/true" >/dev/null 2>&1
	check_eq "sh -c 'A; B; exec C': _f1.er, _f2.er and _x1.er (their execs _f1_x1, _f2_x1)" \
		"_f1.er _f1_x1.er _f2.er _f2_x1.er _x1.er" "$(cd vf.er && ls -d _*.er | tr '\n' ' ' | sed 's/ $//')"
}

test_convert_output() {
	echo "# convert -o: only a regular file outside the experiment is replaced, and only on success"
	rm -rf out.er out.d && mkdir out.d
	"$BC" record -q -o out.er -u 'tgt_*' -- "$TGT/calls" 20 1 >/dev/null 2>&1
	check_eq "record exits 0" 0 $?
	printf 'keep me\n' >out.d/keep.csv
	chmod 640 out.d/keep.csv
	cp -p out.d/keep.csv out.d/keep.orig
	"$BC" convert nosuch.er -f prf-csv -o out.d/keep.csv 2>out.err
	check_eq "a failed convert exits 1" 1 $?
	check "and leaves the existing file byte for byte" cmp -s out.d/keep.csv out.d/keep.orig
	check "and no temporary file behind" bash -c "! ls -A out.d | grep -q '^\.keep'"
	mknod out.d/chardev c 1 3
	expect_error "a character device is not replaced" "out.d/chardev is a device" \
		"$BC" convert out.er -f prf-csv -o out.d/chardev
	"$BC" convert out.er -f prf-csv -o out.d/chardev 2>/dev/null
	check_eq "a usage error: exit status 2" 2 $?
	check "and stays a character device" test -c out.d/chardev
	ln -s keep.csv out.d/link.csv
	expect_error "a symbolic link is not replaced" "is a symbolic link" \
		"$BC" convert out.er -f prf-csv -o out.d/link.csv
	check "and stays a link to the same file" test "$(readlink out.d/link.csv)" = keep.csv
	expect_error "a directory is not replaced" "is a directory" \
		"$BC" convert out.er -f prf-csv -o out.d
	local before
	before=$(md5sum <out.er/log.xml)
	expect_error "an output inside the experiment read is refused" "inside the experiment" \
		"$BC" convert out.er -f prf-csv -o out.er/log.xml
	check_eq "and the experiment's log.xml is untouched" "$before" "$(md5sum <out.er/log.xml)"
	expect_error "an experiment output inside the input is refused" "inside the experiment" \
		"$BC" convert out.er -f er -o out.er/sub.er
	check "and nothing is left inside it" test ! -e out.er/sub.er
	expect_error "-f er needs -o" "-o NAME.er" "$BC" convert out.er -f er
	"$BC" convert out.er -f prf-csv -o out.d/keep.csv 2>/dev/null
	check_eq "a convert that succeeds replaces the regular file" 0 $?
	check "with the PRF records" grep -q '^PRF,' out.d/keep.csv
	check_eq "by a file of its own, 0600 (not the replaced file's 0640)" 600 \
		"$(stat -c %a out.d/keep.csv)"
	"$BC" convert out.er -f prf-csv -o /dev/null 2>/dev/null
	check "convert -o /dev/null is refused" test $? -ne 0
	check "and /dev/null is still the null device" test -c /dev/null
}
