#!/bin/sh
# Generates the x86-64 syscall table: names (bc_syscall_names[]) from the uapi
# <asm/unistd_64.h> and signatures (bc_syscall_sigs[]: per argument its C type,
# name and decode class) from the kernel's include/linux/syscalls.h, as shipped
# by Debian's linux-headers-<abi>-common package. Nothing is typed by hand but
# the few rules below (which names are strings, which flags are whose) and the
# names of the parameters the kernel's prototypes leave unnamed.
#
#   tools/gen-syscall-table.sh [KERNEL_HEADERS_DIR] > syscall_table.c
#
# KERNEL_HEADERS_DIR (or $BC_KERNEL_HEADERS) is a directory holding
# include/linux/syscalls.h; by default the newest /usr/src/linux-headers-*-common.
# The running kernel is never looked at. Without syscalls.h the table still
# builds, with names only and six hex arguments per syscall, and a warning.
set -eu

uapi=""
for h in /usr/include/x86_64-linux-gnu/asm/unistd_64.h /usr/include/asm/unistd_64.h; do
	if [ -r "$h" ]; then
		uapi=$h
		break
	fi
done
if [ -z "$uapi" ]; then
	echo "gen-syscall-table: unistd_64.h not found (install linux-libc-dev)" >&2
	exit 1
fi

kdir=${1:-${BC_KERNEL_HEADERS:-}}
if [ -z "$kdir" ]; then
	# The newest: sort -V orders 6.1.0-9 before 6.1.0-10.
	kdir=$(for d in /usr/src/linux-headers-*-common; do
		if [ -d "$d" ]; then
			echo "$d"
		fi
	done | sort -V | tail -n 1)
fi
protos=""
if [ -n "$kdir" ] && [ -r "$kdir/include/linux/syscalls.h" ]; then
	protos="$kdir/include/linux/syscalls.h"
	# Generic prototypes an architecture may override (mmap, rt_sigreturn),
	# then the architecture's own: later files take precedence.
	for f in "$kdir/include/asm-generic/syscalls.h" "$kdir/arch/x86/include/asm/syscalls.h"; do
		if [ -r "$f" ]; then
			protos="$protos $f"
		fi
	done
else
	echo "gen-syscall-table: warning: no kernel include/linux/syscalls.h" \
		"(${kdir:-no /usr/src/linux-headers-*-common}); run tools/install-deps.sh" \
		"to install linux-headers-*-common. Syscall arguments will be shown in hex." >&2
fi

# shellcheck disable=SC2086
exec awk -v uapi="$uapi" -v src="${protos%% *}" -f - "$uapi" $protos <<'AWK'
function trim(s) {
	sub(/^[ \t]+/, "", s)
	sub(/[ \t]+$/, "", s)
	return s
}

# --- the rules ----------------------------------------------------------------
BEGIN {
	MAXNR = 512 # BC_SYSCALL_MAX

	# x86-64 entry points whose function is not sys_<name>
	# (arch/x86/entry/syscalls/syscall_64.tbl, not shipped in the headers).
	entry["stat"] = "newstat"
	entry["fstat"] = "newfstat"
	entry["lstat"] = "newlstat"
	entry["uname"] = "newuname"
	entry["sendfile"] = "sendfile64"
	entry["umount2"] = "umount"

	# `[const] char __user *` parameters that are NUL-terminated strings
	# (pathnames and names), by parameter name. Every other char pointer
	# (buf, list, optval, msg_ptr, shmaddr, ...) is data: BC_SARG_PTR.
	split("filename pathname path oldname newname old new new_root put_old " \
	      "from_path to_path special specialfile dev_name dir_name type " \
	      "fs_name library uname_ptr name name_user _type _description " \
	      "_callout_info key uargs cmdline_ptr", l, " ")
	for (i in l)
		strname[l[i]] = 1
	# ... unless a length follows it (sethostname(name, len) is not a C string).
	split("len size count bufsiz", l, " ")
	for (i in l)
		lenname[l[i]] = 1

	# flags that are O_* (open(2)) and AT_* (the *at calls) flags.
	split("open openat open_by_handle_at mq_open", l, " ")
	for (i in l)
		openflags[l[i]] = 1
	split("newfstatat fstatat64 unlinkat linkat fchownat utimensat faccessat2 " \
	      "execveat name_to_handle_at statx open_tree mount_setattr fchmodat2 " \
	      "file_getattr file_setattr", l, " ")
	for (i in l)
		atflags[l[i]] = 1

	# Integer parameters shown in hex: flags, masks, addresses, ioctl numbers;
	# the addresses among them (unsigned long, 0 is NULL) get BC_SARGF_ADDR.
	split("addr start brk new_addr old_addr tls newsp", l, " ")
	for (i in l)
		addrname[l[i]] = hexname[l[i]] = 1
	split("personality data entry aio_context_t", l, " ")
	for (i in l)
		hexname[l[i]] = 1

	# Names for parameters the prototypes leave unnamed, from the kernel's
	# SYSCALL_DEFINEx() (net/socket.c, kernel/fork.c, kernel/signal.c,
	# fs/select.c, fs/aio.c). Used only where the prototype has no name.
	unnamed["socket"] = "family type protocol"
	unnamed["socketpair"] = "family type protocol usockvec"
	unnamed["bind"] = "fd umyaddr addrlen"
	unnamed["listen"] = "fd backlog"
	unnamed["accept"] = "fd upeer_sockaddr upeer_addrlen"
	unnamed["accept4"] = "fd upeer_sockaddr upeer_addrlen flags"
	unnamed["connect"] = "fd uservaddr addrlen"
	unnamed["getsockname"] = "fd usockaddr usockaddr_len"
	unnamed["getpeername"] = "fd usockaddr usockaddr_len"
	unnamed["sendto"] = "fd buff len flags addr addr_len"
	unnamed["recvfrom"] = "fd ubuf size flags addr addr_len"
	unnamed["shutdown"] = "fd how"
	unnamed["clone"] = "clone_flags newsp parent_tidptr child_tidptr tls"
	unnamed["rt_sigaction"] = "sig act oact sigsetsize"
	unnamed["pselect6"] = "n inp outp exp tsp sig"
	unnamed["ppoll"] = "ufds nfds tsp sigmask sigsetsize"
	unnamed["io_submit"] = "ctx_id nr iocbpp"

	# Integer types by signedness; typedefs of pointers are pointers.
	split("int long short char signed s8 s16 s32 s64 __s8 __s16 __s32 __s64 " \
	      "int8_t int16_t int32_t int64_t pid_t off_t loff_t key_t clockid_t " \
	      "timer_t mqd_t key_serial_t rwf_t __kernel_old_time_t old_time32_t " \
	      "ssize_t enum", l, " ")
	for (i in l)
		signedty[l[i]] = 1
	split("unsigned u8 u16 u32 u64 __u8 __u16 __u32 __u64 uint8_t uint16_t " \
	      "uint32_t uint64_t size_t uid_t gid_t old_uid_t old_gid_t qid_t " \
	      "__kernel_ulong_t", l, " ")
	for (i in l)
		unsignedty[l[i]] = 1
	split("cap_user_header_t cap_user_data_t __sighandler_t", l, " ")
	for (i in l)
		ptrty[l[i]] = 1
}

# Decode class of parameter `pname` (type `ty`, position k of n) of syscall `sc`.
function classify(sc, ty, pname, nextname,    w) {
	w = ty
	sub(/^const /, "", w)
	if (ty ~ /\*/ || w in ptrty) {
		if (ty ~ /^(const )?char( __user)? ?\*$/ && pname in strname && !(nextname in lenname))
			return "BC_SARG_PATH"
		return "BC_SARG_PTR"
	}
	if (ty == "umode_t")
		return "BC_SARG_MODE"
	if (sc == "umask" && pname == "mask")
		return "BC_SARG_MODE"
	if (pname == "sig" && ty == "int") # not rseq's u32 sig (a signature)
		return "BC_SARG_SIGNAL"
	if (pname == "fd" || pname ~ /fd$/ || pname ~ /^fd_/ || pname ~ /^fd(in|out)$/ ||
	    pname == "fildes" || pname == "mqdes")
		return "BC_SARG_FD"
	if ((pname == "flags" || pname == "oflag") && sc in openflags)
		return "BC_SARG_OPEN_FLAGS"
	if ((pname == "flags" || pname == "flag") && sc in atflags)
		return "BC_SARG_AT_FLAGS"
	if (pname == "prot")
		return "BC_SARG_MMAP_PROT"
	if (pname == "flags" && sc == "mmap")
		return "BC_SARG_MMAP_FLAGS"
	if (pname ~ /flags?$/ || (pname ~ /mask$/ && pname != "sizemask") || pname ~ /^arg[0-9]*$/ ||
	    pname in hexname || ty in hexname || (sc == "ioctl" && pname == "cmd"))
		return "BC_SARG_HEX"
	sub(/ .*$/, "", w)
	if (w in signedty)
		return "BC_SARG_INT"
	if (w in unsignedty)
		return "BC_SARG_UINT"
	return "BC_SARG_HEX"
}

# --- input --------------------------------------------------------------------
FILENAME == uapi {
	if ($1 == "#define" && $2 ~ /^__NR_/ && $3 ~ /^[0-9]+$/) {
		nr = $3 + 0
		if (nr >= MAXNR) {
			printf "gen-syscall-table: warning: %s = %d beyond BC_SYSCALL_MAX, skipped\n",
			       $2, nr > "/dev/stderr"
			next
		}
		names[nr] = substr($2, 6)
		if (nr > maxnr)
			maxnr = nr
	}
	next
}

FNR == 1 {
	depth = 0
	incomment = 0
	incont = 0
	acc = ""
	split("", seen)
}

# A tiny preprocessor: CONFIG_* are unset (so the x86-64 variants of clone
# and fanotify_mark are the ones kept; CONFIG_ARCH_HAS_SYSCALL_WRAPPER too,
# which only hides the prototypes), sys_* are not macros, BITS_PER_LONG is 64;
# anything else is unknown and both branches are read (first one wins).
function cond_value(c,    m) {
	c = trim(c)
	if (c ~ /^#[ \t]*ifdef[ \t]/ || c ~ /^#[ \t]*ifndef[ \t]/) {
		m = c
		sub(/^#[ \t]*if(n)?def[ \t]+/, "", m)
		sub(/[ \t].*$/, "", m)
		if (m ~ /^CONFIG_/ || m ~ /^sys_/)
			return (c ~ /^#[ \t]*ifndef/) ? 1 : 0
		return -1
	}
	if (c ~ /^#[ \t]*if[ \t]+defined[ \t]*\(?[ \t]*CONFIG_[A-Za-z0-9_]+[ \t]*\)?[ \t]*$/)
		return 0
	if (c ~ /^#[ \t]*if[ \t]+BITS_PER_LONG[ \t]*==[ \t]*32/)
		return 0
	if (c ~ /^#[ \t]*if[ \t]+BITS_PER_LONG[ \t]*==[ \t]*64/)
		return 1
	return -1
}

function preproc(c,    v, d) {
	if (c ~ /^[ \t]*#[ \t]*if/) {
		v = cond_value(c)
		depth++
		cval[depth] = v
		ctaken[depth] = (v == 1)
		active[depth] = (depth == 1 ? 1 : active[depth - 1]) && v != 0
	} else if (c ~ /^[ \t]*#[ \t]*elif/) {
		if (depth == 0)
			return
		cval[depth] = ctaken[depth] ? 0 : -1
		active[depth] = (depth == 1 ? 1 : active[depth - 1]) && cval[depth] != 0
	} else if (c ~ /^[ \t]*#[ \t]*else/) {
		if (depth == 0)
			return
		v = cval[depth]
		cval[depth] = (v == -1) ? -1 : (ctaken[depth] ? 0 : 1)
		active[depth] = (depth == 1 ? 1 : active[depth - 1]) && cval[depth] != 0
	} else if (c ~ /^[ \t]*#[ \t]*endif/) {
		if (depth > 0)
			depth--
	}
}

{
	line = $0
	if (incomment) {
		if ((i = index(line, "*/")) == 0)
			next
		line = substr(line, i + 2)
		incomment = 0
	}
	while ((i = index(line, "/*")) > 0) {
		rest = substr(line, i + 2)
		if ((j = index(rest, "*/")) == 0) {
			line = substr(line, 1, i - 1)
			incomment = 1
			break
		}
		line = substr(line, 1, i - 1) " " substr(rest, j + 2)
	}
	if ((i = index(line, "//")) > 0)
		line = substr(line, 1, i - 1)
	if (incont) {
		incont = (line ~ /\\[ \t]*$/)
		next
	}
	if (line ~ /^[ \t]*#/) {
		incont = (line ~ /\\[ \t]*$/)
		preproc(line)
		next
	}
	if (depth > 0 && !active[depth])
		next
	if (acc == "" && line !~ /asmlinkage[ \t]+long[ \t]+sys_[a-z0-9_]+[ \t]*\(/)
		next
	acc = acc " " line
	if (acc !~ /\)[ \t]*;/)
		next
	d = acc
	acc = ""
	sub(/^.*asmlinkage[ \t]+long[ \t]+sys_/, "", d)
	fn = d
	sub(/[ \t]*\(.*$/, "", fn)
	if (fn in seen) # first prototype in a file wins
		next
	seen[fn] = 1
	sub(/^[^(]*\(/, "", d)
	sub(/\)[ \t]*;.*$/, "", d)
	gsub(/[ \t]+/, " ", d)
	d = trim(d)
	np = 0
	if (d != "void" && d != "") {
		nf = split(d, p, ",")
		for (k = 1; k <= nf; k++) {
			t = trim(p[k])
			# The kernel's own pt_regs is not a user argument.
			if (t ~ /^struct pt_regs ?\*/)
				continue
			np++
			pty[fn, np] = t
		}
	}
	pn[fn] = np
}

# --- output -------------------------------------------------------------------
function cstr(s) {
	gsub(/\\/, "\\\\", s)
	gsub(/"/, "\\\"", s)
	return "\"" s "\""
}

END {
	printf "/* Generated by tools/gen-syscall-table.sh from %s", uapi
	if (src != "")
		printf "\n * and %s", src
	printf ". Do not edit. */\n"
	print "#include \"bpfcollect/syscalls.h\""
	print "#include \"bpfcollect/syscall_table.h\""
	print ""
	print "const char *const bc_syscall_names[BC_SYSCALL_MAX] = {"
	for (nr = 0; nr <= maxnr; nr++)
		if (nr in names)
			printf "\t[%d] = \"%s\",\n", nr, names[nr]
	print "};"
	print ""
	print "const struct bc_syscall_sig bc_syscall_sigs[BC_SYSCALL_MAX] = {"
	found = 0
	total = 0
	missing = ""
	for (nr = 0; nr <= maxnr; nr++) {
		if (!(nr in names))
			continue
		sc = names[nr]
		total++
		fn = (sc in entry) ? entry[sc] : sc
		if (!(fn in pn)) {
			missing = missing " " sc
			printf "\t[%d] = { .name = \"%s\", .nargs = 6, .flags = 0, .args = {\n", nr, sc
			for (k = 1; k <= 6; k++)
				printf "\t\t{ \"unsigned long\", \"arg%d\", BC_SARG_HEX, 0 },\n", k
			print "\t} },"
			continue
		}
		found++
		n = pn[fn]
		if (n > 6) {
			printf "gen-syscall-table: warning: %s has %d parameters, 6 kept\n", sc, n > "/dev/stderr"
			n = 6
		}
		nun = split((sc in unnamed) ? unnamed[sc] : "", hint, " ")
		for (k = 1; k <= n; k++) {
			t = pty[fn, k]
			# Split "type name": the name is the last identifier, unless the
			# parameter is unnamed ("int", "unsigned long", "int __user *").
			named = 0
			if (t !~ /\*$/ && t ~ / /) {
				last = t
				sub(/^.* /, "", last)
				sub(/^\**/, "", last)
				if (last !~ /^(int|long|unsigned|signed|char|short|__user|const)$/ &&
				    t !~ /^(struct|union|enum) [A-Za-z0-9_]+$/)
					named = 1
			}
			if (named) {
				ty = t
				sub(/[A-Za-z0-9_]+$/, "", ty)
				ty = trim(ty)
				argname[k] = last
			} else {
				ty = t
				argname[k] = (k <= nun) ? hint[k] : ("arg" k)
			}
			argty[k] = ty
		}
		if (n == 0) {
			printf "\t[%d] = { .name = \"%s\", .nargs = 0, .flags = BC_SIG_PROTO },\n", nr, sc
			continue
		}
		printf "\t[%d] = { .name = \"%s\", .nargs = %d, .flags = BC_SIG_PROTO, .args = {\n", nr, sc, n
		for (k = 1; k <= n; k++) {
			cls = classify(sc, argty[k], argname[k], k < n ? argname[k + 1] : "")
			fl = (cls == "BC_SARG_HEX" && argname[k] in addrname) ? "BC_SARGF_ADDR" : "0"
			printf "\t\t{ %s, %s, %s, %s },\n", cstr(argty[k]), cstr(argname[k]), cls, fl
			if (cls == "BC_SARG_PATH")
				npath++
		}
		print "\t} },"
	}
	print "};"
	print ""
	printf "const char bc_syscall_table_source[] = %s;\n", cstr(src)
	printf "const unsigned int bc_syscall_table_protos = %d;\n", found
	printf "gen-syscall-table: found prototypes for %d of %d syscalls (%d string arguments)\n",
	       found, total, npath > "/dev/stderr"
	if (missing != "" && found > 0)
		printf "gen-syscall-table: no prototype (6 hex arguments):%s\n", missing > "/dev/stderr"
}
AWK
