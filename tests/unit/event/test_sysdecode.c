// SPDX-License-Identifier: MIT
/* The generated syscall signature table and the strace-style decoder. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include <cmocka.h>

#include "bpfcollect/capture.h"
#include "bpfcollect/record.h"
#include "bpfcollect/syscall_table.h"
#include "bpfcollect/syscalls.h"
#include "bpfcollect/sysdecode.h"

/* Tests of what the kernel prototypes say need the table built with them. */
static void need_protos(void)
{
	if (!bc_syscall_table_protos) {
		print_message("no kernel syscalls.h at build time (tools/install-deps.sh installs "
			      "linux-headers-*-common): skipped\n");
		skip();
	}
}

static const struct bc_syscall_sig *sig_of(const char *name)
{
	int nr = bc_syscall_nr(name);
	const struct bc_syscall_sig *sig;

	assert_true(nr >= 0);
	sig = bc_syscall_sig((unsigned int)nr);
	assert_non_null(sig);
	assert_string_equal(sig->name, name);
	return sig;
}

static void table_shape(void **state)
{
	const struct bc_syscall_sig *s;

	(void)state;
	need_protos();

	s = sig_of("openat");
	assert_int_equal(s->nargs, 4);
	assert_true(s->flags & BC_SIG_PROTO);
	assert_int_equal(s->args[0].cls, BC_SARG_FD);
	assert_string_equal(s->args[0].name, "dfd");
	assert_int_equal(s->args[1].cls, BC_SARG_PATH);
	assert_string_equal(s->args[1].type, "const char __user *");
	assert_int_equal(s->args[2].cls, BC_SARG_OPEN_FLAGS);
	assert_int_equal(s->args[3].cls, BC_SARG_MODE);
	assert_int_equal(bc_syscall_path_args(SYS_openat), 0x2);

	assert_int_equal(bc_syscall_path_args(SYS_renameat2), 0xa);
	assert_int_equal(bc_syscall_path_args(SYS_rename), 0x3);
	assert_int_equal(bc_syscall_path_args(SYS_symlinkat), 0x5);
	assert_int_equal(bc_syscall_path_args(SYS_mount), 0x7);

	s = sig_of("execve");
	assert_int_equal(s->args[0].cls, BC_SARG_PATH);
	assert_int_not_equal(s->args[1].cls, BC_SARG_PATH);
	assert_int_not_equal(s->args[2].cls, BC_SARG_PATH);
	assert_int_equal(bc_syscall_path_args(SYS_execve), 0x1);

	/* Data buffers and length-bounded names are not strings. */
	s = sig_of("write");
	assert_int_equal(s->nargs, 3);
	assert_string_equal(s->args[1].name, "buf");
	assert_int_equal(s->args[1].cls, BC_SARG_PTR);
	assert_int_equal(bc_syscall_path_args(SYS_write), 0);
	assert_int_equal(bc_syscall_path_args(SYS_read), 0);
	assert_int_equal(bc_syscall_path_args(SYS_sethostname), 0);
	assert_int_equal(bc_syscall_path_args(SYS_getxattr), 0x3);

	s = sig_of("read");
	assert_int_equal(s->nargs, 3);
	assert_int_equal(s->args[0].cls, BC_SARG_FD);
	s = sig_of("close");
	assert_int_equal(s->nargs, 1);
	assert_int_equal(s->args[0].cls, BC_SARG_FD);
	s = sig_of("getppid");
	assert_int_equal(s->nargs, 0);
	assert_true(s->flags & BC_SIG_PROTO);

	s = sig_of("mmap");
	assert_int_equal(s->nargs, 6);
	assert_int_equal(s->args[0].cls, BC_SARG_HEX);
	assert_true(s->args[0].flags & BC_SARGF_ADDR);
	assert_int_equal(s->args[2].cls, BC_SARG_MMAP_PROT);
	assert_int_equal(s->args[3].cls, BC_SARG_MMAP_FLAGS);
	assert_int_equal(s->args[4].cls, BC_SARG_FD);
	s = sig_of("kill");
	assert_int_equal(s->args[1].cls, BC_SARG_SIGNAL);
	s = sig_of("rt_sigaction"); /* unnamed in the prototype */
	assert_string_equal(s->args[0].name, "sig");
	assert_int_equal(s->args[0].cls, BC_SARG_SIGNAL);
	s = sig_of("rseq"); /* its u32 sig is a signature, not a signal */
	assert_int_not_equal(s->args[3].cls, BC_SARG_SIGNAL);
	s = sig_of("unlinkat");
	assert_int_equal(s->args[2].cls, BC_SARG_AT_FLAGS);
	s = sig_of("stat"); /* x86-64's stat is sys_newstat */
	assert_string_equal(s->args[1].type, "struct stat __user *");
	s = sig_of("rt_sigreturn"); /* pt_regs is not a user argument */
	assert_int_equal(s->nargs, 0);
	s = sig_of("connect"); /* unnamed: socket calls' first int is an fd */
	assert_int_equal(s->args[0].cls, BC_SARG_FD);
	s = sig_of("clone"); /* x86-64 order: flags, stack, parent_tid, child_tid, tls */
	assert_int_equal(s->nargs, 5);
	assert_string_equal(s->args[3].name, "child_tidptr");

	assert_true(bc_syscall_table_source[0] != 0);
}

/* Holds whether or not the kernel headers were found. */
static void table_always(void **state)
{
	const struct bc_syscall_sig *s;
	int nr;

	(void)state;
	assert_string_equal(bc_syscall_name(SYS_read), "read");
	assert_string_equal(bc_syscall_name(SYS_openat), "openat");
	assert_int_equal(bc_syscall_nr("openat"), SYS_openat);
	assert_null(bc_syscall_sig(BC_SYSCALL_MAX));
	assert_null(bc_syscall_sig(BC_SYSCALL_MAX - 1));
	assert_int_equal(bc_syscall_path_args(BC_SYSCALL_MAX + 7), 0);

	/* No kernel ever had a prototype for tuxcall: six hex guesses. */
	nr = bc_syscall_nr("tuxcall");
	assert_true(nr > 0);
	s = bc_syscall_sig((unsigned int)nr);
	assert_non_null(s);
	assert_false(s->flags & BC_SIG_PROTO);
	assert_int_equal(s->nargs, 6);
	for (unsigned int i = 0; i < 6; i++) {
		char name[16];

		snprintf(name, sizeof(name), "arg%u", i + 1);
		assert_string_equal(s->args[i].name, name);
		assert_int_equal(s->args[i].cls, BC_SARG_HEX);
	}
	assert_int_equal(bc_syscall_path_args((unsigned int)nr), 0);

	/* Every named number has a signature with sane classes. */
	for (unsigned int i = 0; i < BC_SYSCALL_MAX; i++) {
		s = bc_syscall_sig(i);
		if (!bc_syscall_names[i]) {
			assert_null(s);
			continue;
		}
		assert_non_null(s);
		assert_string_equal(s->name, bc_syscall_names[i]);
		assert_true(s->nargs <= 6);
		for (unsigned int a = 0; a < s->nargs; a++) {
			assert_true(s->args[a].cls < BC_SARG_NR);
			assert_non_null(s->args[a].type);
			assert_non_null(s->args[a].name);
			assert_string_not_equal(bc_sarg_class_name(s->args[a].cls), "?");
		}
	}
}

/* ------------------------------------------------------------------ records */

struct item_in {
	unsigned int index;
	unsigned int type;
	unsigned int flags;
	const char *data;
	size_t len;
};

/*
 * A BC_REC_SYS_ENTER record with items, in a heap block of exactly its size
 * (ASan sees any read past it). Returns it; *size is its size.
 */
static struct bc_rec_sys_enter *make_rec(unsigned int nr, const __u64 args[6],
					 const struct item_in *items, size_t n, size_t *size)
{
	unsigned char buf[8192];
	struct bc_rec_sys_enter rec;
	size_t off = sizeof(rec);
	void *p;

	memset(buf, 0, sizeof(buf));
	memset(&rec, 0, sizeof(rec));
	rec.h.kind = BC_REC_SYS_ENTER;
	rec.h.pid = rec.h.tid = 42;
	rec.nr = nr;
	memcpy(rec.args, args, sizeof(rec.args));
	for (size_t i = 0; i < n; i++) {
		struct bc_cap_item it = {
			.source = BC_SRC_ARG,
			.index = (__u8)items[i].index,
			.type = (__u8)(items[i].type ? items[i].type : BC_CAP_STR),
			.flags = (__u8)items[i].flags,
			.len = (__u16)items[i].len,
			.spec = (__u8)i,
		};

		assert_true(off + sizeof(it) + items[i].len + 8 <= sizeof(buf));
		memcpy(buf + off, &it, sizeof(it));
		off += sizeof(it);
		if (items[i].len)
			memcpy(buf + off, items[i].data, items[i].len);
		off += (items[i].len + 7) & ~(size_t)7;
	}
	rec.h.size = (__u16)off;
	memcpy(buf, &rec, sizeof(rec));
	p = malloc(off);
	assert_non_null(p);
	memcpy(p, buf, off);
	*size = off;
	return p;
}

#define STR(i, s)                                                                                  \
	{                                                                                          \
		(i), BC_CAP_STR, 0, (s), sizeof(s) - 1                                             \
	}

static void expect_enter(unsigned int nr, const __u64 args[6], const struct item_in *items,
			 size_t n, const char *want)
{
	char out[512];
	size_t size;
	struct bc_rec_sys_enter *rec = make_rec(nr, args, items, n, &size);
	int ret = bc_sys_format_enter(rec, size, out, sizeof(out));

	free(rec);
	assert_string_equal(out, want);
	assert_int_equal(ret, (int)strlen(want));
}

static void format_strings(void **state)
{
	(void)state;
	need_protos();

	const __u64 open_args[6] = {(__u64)AT_FDCWD, 0x7ffd1000, O_RDONLY | O_CLOEXEC};
	const struct item_in passwd[] = {STR(1, "/etc/passwd")};
	expect_enter(SYS_openat, open_args, passwd, 1,
		     "openat(AT_FDCWD, \"/etc/passwd\", O_RDONLY|O_CLOEXEC)");

	/* The mode shows only when creating. */
	const __u64 creat_args[6] = {3, 0x7ffd1000, O_WRONLY | O_CREAT | O_TRUNC, 0644};
	const struct item_in tmpx[] = {STR(1, "x.tmp")};
	expect_enter(SYS_openat, creat_args, tmpx, 1,
		     "openat(3, \"x.tmp\", O_WRONLY|O_CREAT|O_TRUNC, 0644)");

	/* Truncated: the captured bytes, then "...". */
	const struct item_in cut[] = {{1, BC_CAP_STR, BC_CAPF_TRUNCATED, "/usr/lib/x86", 12}};
	expect_enter(SYS_openat, open_args, cut, 1,
		     "openat(AT_FDCWD, \"/usr/lib/x86\"..., O_RDONLY|O_CLOEXEC)");

	/* Faulted: the pointer and <fault>. */
	const struct item_in fault[] = {{1, BC_CAP_STR, BC_CAPF_FAULT, NULL, 0}};
	expect_enter(SYS_openat, open_args, fault, 1,
		     "openat(AT_FDCWD, 0x7ffd1000 <fault>, O_RDONLY|O_CLOEXEC)");

	/* A NULL pointer. */
	const __u64 null_args[6] = {(__u64)AT_FDCWD, 0, O_RDONLY};
	const struct item_in null[] = {{1, BC_CAP_STR, BC_CAPF_NULL, NULL, 0}};
	expect_enter(SYS_openat, null_args, null, 1, "openat(AT_FDCWD, NULL, O_RDONLY)");
	/* ... and without any item: the pointer. */
	expect_enter(SYS_openat, null_args, NULL, 0, "openat(AT_FDCWD, NULL, O_RDONLY)");
	expect_enter(SYS_openat, open_args, NULL, 0,
		     "openat(AT_FDCWD, 0x7ffd1000, O_RDONLY|O_CLOEXEC)");

	/* Escapes: quote, newline, tab, backslash, 0xff, NUL. */
	const struct item_in odd[] = {{0, BC_CAP_STR, 0, "a\"b\nc\td\\e\xff\x01", 11}};
	const __u64 unlink_args[6] = {0x1000};
	expect_enter(SYS_unlink, unlink_args, odd, 1, "unlink(\"a\\\"b\\nc\\td\\\\e\\xff\\x01\")");
	/* An empty string. */
	const struct item_in empty[] = {{0, BC_CAP_STR, 0, "", 0}};
	expect_enter(SYS_unlink, unlink_args, empty, 1, "unlink(\"\")");

	/* Two strings, items in any order, an int in between. */
	const __u64 ren_args[6] = {5, 0x1000, (__u64)AT_FDCWD, 0x2000, 1};
	const struct item_in ren[] = {STR(3, "new"), STR(1, "old")};
	expect_enter(SYS_renameat2, ren_args, ren, 2,
		     "renameat2(5, \"old\", AT_FDCWD, \"new\", 0x1)");

	/* execve: the filename only. */
	const __u64 exec_args[6] = {0x1000, 0x2000, 0x3000};
	const struct item_in exe[] = {STR(0, "/bin/true")};
	expect_enter(SYS_execve, exec_args, exe, 1, "execve(\"/bin/true\", 0x2000, 0x3000)");
}

static void format_numbers(void **state)
{
	(void)state;
	need_protos();

	const __u64 mmap_args[6] = {
		0, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, (__u64)-1, 0};
	expect_enter(SYS_mmap, mmap_args, NULL, 0,
		     "mmap(NULL, 8192, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0)");
	const __u64 mmap2_args[6] = {0x7f0000000000,
				     4096,
				     PROT_READ | PROT_EXEC,
				     MAP_PRIVATE | MAP_FIXED | MAP_DENYWRITE,
				     3,
				     0x2000};
	expect_enter(SYS_mmap, mmap2_args, NULL, 0,
		     "mmap(0x7f0000000000, 4096, PROT_READ|PROT_EXEC, "
		     "MAP_PRIVATE|MAP_FIXED|MAP_DENYWRITE, 3, 8192)");

	const __u64 kill_args[6] = {1234, 15};
	expect_enter(SYS_kill, kill_args, NULL, 0, "kill(1234, SIGTERM)");
	const __u64 kill_rt[6] = {1, 34};
	expect_enter(SYS_kill, kill_rt, NULL, 0, "kill(1, SIGRTMIN+2)");
	const __u64 kill0[6] = {(__u64)-1, 0};
	expect_enter(SYS_kill, kill0, NULL, 0, "kill(-1, 0)");

	const __u64 write_args[6] = {1, 0x7ffd12345678, 12};
	expect_enter(SYS_write, write_args, NULL, 0, "write(1, 0x7ffd12345678, 12)");
	/* An int argument with garbage in the upper half: the kernel uses the low 32 bits. */
	const __u64 close_args[6] = {0xdead000000000007};
	expect_enter(SYS_close, close_args, NULL, 0, "close(7)");

	const __u64 none[6] = {0};
	expect_enter(SYS_getppid, none, NULL, 0, "getppid()");
	const __u64 brk_args[6] = {0};
	expect_enter(SYS_brk, brk_args, NULL, 0, "brk(NULL)");
	const __u64 umask_args[6] = {022};
	expect_enter(SYS_umask, umask_args, NULL, 0, "umask(022)");
	const __u64 fstatat[6] = {4, 0, 0x5000, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW};
	const struct item_in emptyp[] = {STR(1, "")};
	expect_enter(SYS_newfstatat, fstatat, emptyp, 1,
		     "newfstatat(4, \"\", 0x5000, AT_SYMLINK_NOFOLLOW|AT_EMPTY_PATH)");
}

/* Whatever the table holds: numbers it does not name, tuxcall's guesses. */
static void format_unknown(void **state)
{
	const __u64 args[6] = {1, 0, 3, 0, 0, 0xffffffffffffffff};
	int tux = bc_syscall_nr("tuxcall");

	(void)state;
	expect_enter(BC_SYSCALL_MAX + 10, args, NULL, 0,
		     "syscall_522(0x1, 0, 0x3, 0, 0, 0xffffffffffffffff)");
	assert_true(tux > 0);
	expect_enter((unsigned int)tux, args, NULL, 0,
		     "tuxcall(0x1, 0, 0x3, 0, 0, 0xffffffffffffffff)");
}

static void expect_arg(unsigned int nr, unsigned int cls, const char *type, unsigned int flags,
		       __u64 val, const char *want)
{
	char out[256];
	int ret = bc_sys_format_arg(nr, cls, type, flags, val, out, sizeof(out));

	assert_string_equal(out, want);
	assert_int_equal(ret, (int)strlen(want));
}

static void flags_limits(void **state)
{
	(void)state;

	/* open(2) flags */
	expect_arg(SYS_openat, BC_SARG_OPEN_FLAGS, "int", 0, 0, "O_RDONLY");
	expect_arg(SYS_openat, BC_SARG_OPEN_FLAGS, "int", 0, O_RDONLY | O_CLOEXEC,
		   "O_RDONLY|O_CLOEXEC");
	expect_arg(SYS_openat, BC_SARG_OPEN_FLAGS, "int", 0, O_WRONLY | O_CREAT | O_TRUNC,
		   "O_WRONLY|O_CREAT|O_TRUNC");
	expect_arg(SYS_openat, BC_SARG_OPEN_FLAGS, "int", 0, O_RDWR | O_APPEND | O_NONBLOCK,
		   "O_RDWR|O_APPEND|O_NONBLOCK");
	expect_arg(SYS_openat, BC_SARG_OPEN_FLAGS, "int", 0, 3, "O_ACCMODE");
	expect_arg(SYS_openat, BC_SARG_OPEN_FLAGS, "int", 0, O_RDONLY | 0x40000000,
		   "O_RDONLY|0x40000000");
	expect_arg(SYS_openat, BC_SARG_OPEN_FLAGS, "int", 0, O_RDWR | O_TMPFILE,
		   "O_RDWR|O_TMPFILE");
	expect_arg(SYS_openat, BC_SARG_OPEN_FLAGS, "int", 0, O_WRONLY | O_SYNC, "O_WRONLY|O_SYNC");
	expect_arg(SYS_openat, BC_SARG_OPEN_FLAGS, "int", 0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW,
		   "O_RDONLY|O_DIRECTORY|O_NOFOLLOW");
	/* The kernel's O_LARGEFILE, which glibc spells 0 on x86-64. */
	expect_arg(SYS_openat, BC_SARG_OPEN_FLAGS, "int", 0, 0x8000, "O_RDONLY|O_LARGEFILE");
	/* Only the low 32 bits reach the kernel. */
	expect_arg(SYS_openat, BC_SARG_OPEN_FLAGS, "int", 0, 0xffffffff00000000ULL, "O_RDONLY");
	expect_arg(
		SYS_openat, BC_SARG_OPEN_FLAGS, "int", 0, 0xffffffff,
		"O_ACCMODE|O_CREAT|O_EXCL|O_NOCTTY|O_TRUNC|O_APPEND|O_NONBLOCK|O_SYNC|O_ASYNC|"
		"O_DIRECT|O_LARGEFILE|O_TMPFILE|O_NOFOLLOW|O_NOATIME|O_CLOEXEC|O_PATH|0xff80003c");

	/* mmap */
	expect_arg(SYS_mmap, BC_SARG_MMAP_PROT, "unsigned long", 0, 0, "PROT_NONE");
	expect_arg(SYS_mmap, BC_SARG_MMAP_PROT, "unsigned long", 0, 7,
		   "PROT_READ|PROT_WRITE|PROT_EXEC");
	expect_arg(SYS_mmap, BC_SARG_MMAP_PROT, "unsigned long", 0, 0x11, "PROT_READ|0x10");
	expect_arg(SYS_mmap, BC_SARG_MMAP_FLAGS, "unsigned long", 0, 0, "0");
	expect_arg(SYS_mmap, BC_SARG_MMAP_FLAGS, "unsigned long", 0, MAP_SHARED, "MAP_SHARED");
	expect_arg(SYS_mmap, BC_SARG_MMAP_FLAGS, "unsigned long", 0, MAP_SHARED_VALIDATE | MAP_SYNC,
		   "MAP_SHARED_VALIDATE|MAP_SYNC");
	expect_arg(SYS_mmap, BC_SARG_MMAP_FLAGS, "unsigned long", 0,
		   MAP_PRIVATE | MAP_FIXED_NOREPLACE | MAP_STACK | MAP_NORESERVE,
		   "MAP_PRIVATE|MAP_NORESERVE|MAP_STACK|MAP_FIXED_NOREPLACE");
	expect_arg(SYS_mmap, BC_SARG_MMAP_FLAGS, "unsigned long", 0,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | (21U << MAP_HUGE_SHIFT),
		   "MAP_PRIVATE|MAP_ANONYMOUS|MAP_HUGETLB|21<<MAP_HUGE_SHIFT");
	expect_arg(SYS_mmap, BC_SARG_MMAP_FLAGS, "unsigned long", 0, 0x0f | 0x100000000ULL,
		   "0xf|0x100000000");

	/* AT_* flags; 0x200 depends on the call */
	expect_arg(SYS_newfstatat, BC_SARG_AT_FLAGS, "int", 0, 0, "0");
	expect_arg(SYS_unlinkat, BC_SARG_AT_FLAGS, "int", 0, 0x200, "AT_REMOVEDIR");
	expect_arg(SYS_faccessat2, BC_SARG_AT_FLAGS, "int", 0, 0x200 | AT_SYMLINK_NOFOLLOW,
		   "AT_EACCESS|AT_SYMLINK_NOFOLLOW");
	expect_arg(SYS_statx, BC_SARG_AT_FLAGS, "unsigned", 0, 0x201, "0x201");

	/* modes, signals, fds, plain numbers */
	expect_arg(SYS_openat, BC_SARG_MODE, "umode_t", 0, 0, "000");
	expect_arg(SYS_openat, BC_SARG_MODE, "umode_t", 0, 04755, "04755");
	expect_arg(SYS_kill, BC_SARG_SIGNAL, "int", 0, 9, "SIGKILL");
	expect_arg(SYS_kill, BC_SARG_SIGNAL, "int", 0, 31, "SIGSYS");
	expect_arg(SYS_kill, BC_SARG_SIGNAL, "int", 0, 32, "SIGRTMIN");
	expect_arg(SYS_kill, BC_SARG_SIGNAL, "int", 0, 64, "SIGRTMIN+32");
	expect_arg(SYS_kill, BC_SARG_SIGNAL, "int", 0, 65, "65");
	expect_arg(SYS_kill, BC_SARG_SIGNAL, "int", 0, (__u64)-3, "-3");
	expect_arg(SYS_close, BC_SARG_FD, "unsigned int", 0, (__u64)-100, "AT_FDCWD");
	expect_arg(SYS_close, BC_SARG_FD, "unsigned int", 0, 0xffffffff, "-1");
	expect_arg(SYS_lseek, BC_SARG_INT, "off_t", 0, (__u64)-5, "-5");
	expect_arg(SYS_lseek, BC_SARG_INT, "int", 0, 0xffffffff, "-1");
	expect_arg(SYS_read, BC_SARG_UINT, "size_t", 0, 0xffffffffffffffffULL,
		   "18446744073709551615");
	expect_arg(SYS_read, BC_SARG_UINT, "unsigned int", 0, 0x1ffffffffULL, "4294967295");
	expect_arg(SYS_mmap, BC_SARG_HEX, "unsigned long", BC_SARGF_ADDR, 0, "NULL");
	expect_arg(SYS_mmap, BC_SARG_HEX, "unsigned long", 0, 0, "0");
	expect_arg(SYS_ioctl, BC_SARG_HEX, "unsigned int", 0, 0xdead00005413ULL, "0x5413");
	expect_arg(SYS_read, BC_SARG_PTR, "char __user *", 0, 0, "NULL");
	expect_arg(SYS_read, BC_SARG_PTR, NULL, 0, 0xfffffffffffff000ULL, "0xfffffffffffff000");
}

static void expect_result(long ret, unsigned int nr, const char *want)
{
	char out[128];
	int n = bc_sys_format_result(ret, nr, out, sizeof(out));

	assert_string_equal(out, want);
	assert_int_equal(n, (int)strlen(want));
}

static void results(void **state)
{
	(void)state;
	expect_result(3, SYS_openat, "= 3");
	expect_result(0, SYS_close, "= 0");
	expect_result(-ENOENT, SYS_openat, "= -1 ENOENT (No such file or directory)");
	expect_result(-EINTR, SYS_read, "= -1 EINTR (Interrupted system call)");
	expect_result(-4096, SYS_lseek, "= -4096");
	expect_result(-4095, SYS_read, "= -1 ERRNO_4095 (Unknown error 4095)");
	expect_result(-512, SYS_wait4, "= ? ERESTARTSYS (To be restarted if SA_RESTART is set)");
	expect_result(0x7f1234560000L, SYS_mmap, "= 0x7f1234560000");
	expect_result(-ENOMEM, SYS_mmap, "= -1 ENOMEM (Cannot allocate memory)");
	expect_result(0x555555559000L, SYS_brk, "= 0x555555559000");
	expect_result(0x7f1234560000L, BC_SYSCALL_MAX + 1, "= 139716164190208");
}

/* ------------------------------------------------------------------ hostile records */

/* Renders a record of buffer size `size` into out (its return value). */
static int render(const struct bc_rec_sys_enter *rec, size_t size, char *out, size_t outlen)
{
	int ret = bc_sys_format_enter(rec, size, out, outlen);

	if (ret >= 0)
		assert_int_equal(ret, (int)strlen(out));
	return ret;
}

/* Holds with or without kernel prototypes: compares with the item-less rendering. */
static void no_overread(void **state)
{
	const __u64 args[6] = {(__u64)AT_FDCWD, 0x7ffd1000, O_RDONLY};
	struct bc_rec_sys_enter *rec;
	struct bc_cap_item it;
	char bare[256], out[256];
	size_t size;

	(void)state;
	rec = make_rec(SYS_openat, args, NULL, 0, &size);
	assert_true(render(rec, size, bare, sizeof(bare)) > 0);
	assert_non_null(strstr(bare, "0x7ffd1000"));
	free(rec);

	/* An item claiming 200 bytes in a record that holds 8 after it. */
	const struct item_in short8[] = {STR(1, "/etc/x")};
	rec = make_rec(SYS_openat, args, short8, 1, &size);
	memcpy(&it, (char *)rec + sizeof(*rec), sizeof(it));
	it.len = 200;
	memcpy((char *)rec + sizeof(*rec), &it, sizeof(it));
	assert_true(render(rec, size, out, sizeof(out)) > 0);
	assert_string_equal(out, bare);
	/* The size field claiming more than the buffer changes nothing. */
	rec->h.size = 4096;
	assert_true(render(rec, size, out, sizeof(out)) > 0);
	assert_string_equal(out, bare);
	free(rec);

	/* A length that fits, padding that does not: the data is used, parsing stops. */
	const struct item_in odd[] = {STR(1, "/etc/passwd")}; /* 11 bytes, 16 padded */
	rec = make_rec(SYS_openat, args, odd, 1, &size);
	assert_true(render(rec, size - 5, out, sizeof(out)) > 0);
	assert_non_null(strstr(out, ", \"/etc/passwd\", "));
	/* Half an item header: ignored. */
	assert_true(render(rec, sizeof(*rec) + 4, out, sizeof(out)) > 0);
	assert_string_equal(out, bare);
	/* A size field smaller than the buffer bounds the items too. */
	rec->h.size = sizeof(*rec);
	assert_true(render(rec, size, out, sizeof(out)) > 0);
	assert_string_equal(out, bare);
	/* Shorter than the fixed struct; no record; no room. */
	assert_int_equal(bc_sys_format_enter(rec, sizeof(*rec) - 1, out, sizeof(out)), -EINVAL);
	assert_string_equal(out, "");
	assert_int_equal(bc_sys_format_enter(NULL, 0, out, sizeof(out)), -EINVAL);
	assert_int_equal(bc_sys_format_enter(rec, size, out, 0), -EINVAL);
	free(rec);

	/* Items that are not argument strings are skipped; the first string wins. */
	const struct item_in mixed[] = {
		{9, BC_CAP_STR, 0, "bogus", 5},
		{1, BC_CAP_INT, 0, "12345678", 8},
		STR(1, "/ok"),
		STR(1, "/second"),
	};
	rec = make_rec(SYS_openat, args, mixed, 4, &size);
	assert_true(render(rec, size, out, sizeof(out)) > 0);
	assert_non_null(strstr(out, ", \"/ok\", "));
	assert_null(strstr(out, "bogus"));
	assert_null(strstr(out, "second"));
	free(rec);

	/* The longest string an item holds, into a small output buffer. */
	static char big[BC_STRLEN_MAX];
	memset(big, '\x80', sizeof(big));
	const struct item_in huge[] = {{1, BC_CAP_STR, BC_CAPF_TRUNCATED, big, sizeof(big)}};
	rec = make_rec(SYS_openat, args, huge, 1, &size);
	assert_int_equal(render(rec, size, out, sizeof(out)), -ENOSPC);
	assert_int_equal(strlen(out), sizeof(out) - 1);
	assert_non_null(strstr(out, ", \"\\x80\\x80"));
	free(rec);
}

static void small_outputs(void **state)
{
	char out[8];

	(void)state;
	memset(out, 'z', sizeof(out));
	assert_int_equal(bc_sys_format_result(-ENOENT, SYS_openat, out, sizeof(out)), -ENOSPC);
	assert_string_equal(out, "= -1 EN");
	assert_int_equal(bc_sys_format_result(12345, SYS_read, out, 1), -ENOSPC);
	assert_string_equal(out, "");
	assert_int_equal(bc_sys_format_result(1, SYS_read, out, 0), -EINVAL);
	assert_int_equal(bc_sys_format_arg(SYS_openat, BC_SARG_OPEN_FLAGS, "int", 0,
					   O_RDONLY | O_CLOEXEC, out, sizeof(out)),
			 -ENOSPC);
	assert_string_equal(out, "O_RDONL");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(table_always),	  cmocka_unit_test(table_shape),
		cmocka_unit_test(format_strings), cmocka_unit_test(format_numbers),
		cmocka_unit_test(format_unknown), cmocka_unit_test(flags_limits),
		cmocka_unit_test(results),	  cmocka_unit_test(no_overread),
		cmocka_unit_test(small_outputs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
