// SPDX-License-Identifier: MIT
/*
 * strace-style rendering of syscall records. Flag and signal values come from
 * the system headers: the kernel uapi <linux/fcntl.h> for O_* and AT_* (the
 * syscall ABI: glibc's O_LARGEFILE is 0 on x86-64, the kernel's is not),
 * glibc's <sys/mman.h> for PROT_* and MAP_*, <signal.h> for the kernel's
 * realtime signal range.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/fcntl.h>

#include "bpfcollect/capture.h"
#include "bpfcollect/syscall_table.h"
#include "bpfcollect/syscalls.h"
#include "bpfcollect/sysdecode.h"

/* Values some headers may lack; the numbers are the x86-64 kernel ABI's. */
#ifndef O_TMPFILE
#define O_TMPFILE (020000000 | O_DIRECTORY) /* __O_TMPFILE | O_DIRECTORY, Linux 3.11 */
#endif
#ifndef O_PATH
#define O_PATH 010000000 /* Linux 2.6.39 */
#endif
#ifndef AT_EACCESS
#define AT_EACCESS 0x200 /* faccessat2(): same bit as AT_REMOVEDIR */
#endif
#ifndef AT_STATX_FORCE_SYNC
#define AT_STATX_FORCE_SYNC 0x2000 /* Linux 4.11 */
#endif
#ifndef AT_STATX_DONT_SYNC
#define AT_STATX_DONT_SYNC 0x4000 /* Linux 4.11 */
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000 /* Linux 5.2 */
#endif
#ifndef MAP_SHARED_VALIDATE
#define MAP_SHARED_VALIDATE 0x03 /* Linux 4.15 */
#endif
#ifndef MAP_SYNC
#define MAP_SYNC 0x80000 /* Linux 4.15 */
#endif
#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000 /* Linux 4.17 */
#endif
#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26 /* log2 of the huge page size, in bits 26..31 */
#endif
#ifndef MAP_TYPE
#define MAP_TYPE 0x0f /* the sharing type: SHARED, PRIVATE, SHARED_VALIDATE */
#endif
/* The kernel's realtime signals (glibc's SIGRTMIN is a run-time value above it). */
#ifdef __SIGRTMIN
#define BC_SIGRTMIN __SIGRTMIN
#else
#define BC_SIGRTMIN 32 /* the kernel's SIGRTMIN, uapi <asm/signal.h> */
#endif
#ifdef __SIGRTMAX
#define BC_SIGRTMAX __SIGRTMAX
#else
#define BC_SIGRTMAX 64 /* the kernel's _NSIG */
#endif
#define BC_MAX_ERRNO 4095 /* the kernel's MAX_ERRNO: -4095..-1 are errors */

/* ------------------------------------------------------------------ output */

struct sbuf {
	char *p;
	size_t cap; /* bytes of p, > 0 */
	size_t len; /* bytes used, < cap */
	bool full;  /* something did not fit */
};

static void sb_init(struct sbuf *b, char *out, size_t outlen)
{
	b->p = out;
	b->cap = outlen;
	b->len = 0;
	b->full = false;
	out[0] = 0;
}

static void sb_putn(struct sbuf *b, const char *s, size_t n)
{
	size_t room = b->cap - 1 - b->len;

	if (n > room) {
		n = room;
		b->full = true;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = 0;
}

static void sb_puts(struct sbuf *b, const char *s)
{
	sb_putn(b, s, strlen(s));
}

__attribute__((format(printf, 2, 3))) static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	size_t room = b->cap - b->len;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(b->p + b->len, room, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->p[b->len] = 0;
		b->full = true;
	} else if ((size_t)n >= room) {
		b->len = b->cap - 1;
		b->full = true;
	} else {
		b->len += (size_t)n;
	}
}

static int sb_result(const struct sbuf *b)
{
	return b->full ? -ENOSPC : (int)b->len;
}

/* ------------------------------------------------------------------ flags */

struct flag {
	unsigned long long val;
	const char *name;
};

#define FLAG(x)                                                                                    \
	{                                                                                          \
		(x), #x                                                                            \
	}

/* Names of the bits of v in table order (a flag matches when all its bits
 * are set), then the unknown bits in hex; "0" for none. */
static void put_flags(struct sbuf *b, unsigned long long v, const struct flag *t, size_t n,
		      bool any)
{
	for (size_t i = 0; i < n; i++) {
		if (t[i].val && (v & t[i].val) == t[i].val) {
			if (any)
				sb_putn(b, "|", 1);
			sb_puts(b, t[i].name);
			v &= ~t[i].val;
			any = true;
		}
	}
	if (v || !any)
		sb_printf(b, "%s%#llx", any ? "|" : "", v);
}

/* After the access mode; composite flags (O_SYNC, O_TMPFILE) before their parts. */
static const struct flag open_flags[] = {
	FLAG(O_CREAT),	   FLAG(O_EXCL),    FLAG(O_NOCTTY),    FLAG(O_TRUNC),	    FLAG(O_APPEND),
	FLAG(O_NONBLOCK),  FLAG(O_SYNC),    FLAG(O_DSYNC),     {FASYNC, "O_ASYNC"}, FLAG(O_DIRECT),
	FLAG(O_LARGEFILE), FLAG(O_TMPFILE), FLAG(O_DIRECTORY), FLAG(O_NOFOLLOW),    FLAG(O_NOATIME),
	FLAG(O_CLOEXEC),   FLAG(O_PATH),
};

static void put_open_flags(struct sbuf *b, unsigned int v)
{
	static const char *const acc[] = {"O_RDONLY", "O_WRONLY", "O_RDWR", "O_ACCMODE"};

	_Static_assert(O_RDONLY == 0 && O_WRONLY == 1 && O_RDWR == 2 && O_ACCMODE == 3,
		       "access modes are 0..3");
	sb_puts(b, acc[v & O_ACCMODE]);
	put_flags(b, v & ~(unsigned int)O_ACCMODE, open_flags,
		  sizeof(open_flags) / sizeof(open_flags[0]), true);
}

static void put_at_flags(struct sbuf *b, unsigned int nr, unsigned int v)
{
	static const struct flag at_flags[] = {
		FLAG(AT_SYMLINK_NOFOLLOW), FLAG(AT_SYMLINK_FOLLOW),   FLAG(AT_NO_AUTOMOUNT),
		FLAG(AT_EMPTY_PATH),	   FLAG(AT_STATX_FORCE_SYNC), FLAG(AT_STATX_DONT_SYNC),
		FLAG(AT_RECURSIVE),
	};
	/* 0x200 means one thing per syscall. */
	struct flag bit200 = {0, NULL};
	const struct bc_syscall_sig *sig = bc_syscall_sig(nr);
	bool any = false;

	if (sig && strcmp(sig->name, "unlinkat") == 0)
		bit200 = (struct flag)FLAG(AT_REMOVEDIR);
	else if (sig && strcmp(sig->name, "faccessat2") == 0)
		bit200 = (struct flag)FLAG(AT_EACCESS);
	if (bit200.val && (v & bit200.val)) {
		sb_puts(b, bit200.name);
		v &= ~(unsigned int)bit200.val;
		any = true;
	}
	put_flags(b, v, at_flags, sizeof(at_flags) / sizeof(at_flags[0]), any);
}

static void put_mmap_prot(struct sbuf *b, unsigned long long v)
{
	static const struct flag prot[] = {
		FLAG(PROT_READ),      FLAG(PROT_WRITE),	  FLAG(PROT_EXEC),
		FLAG(PROT_GROWSDOWN), FLAG(PROT_GROWSUP),
	};

	if (v == PROT_NONE)
		sb_puts(b, "PROT_NONE");
	else
		put_flags(b, v, prot, sizeof(prot) / sizeof(prot[0]), false);
}

static void put_mmap_flags(struct sbuf *b, unsigned long long v)
{
	static const struct flag map[] = {
		FLAG(MAP_FIXED),     FLAG(MAP_ANONYMOUS),	FLAG(MAP_32BIT),
		FLAG(MAP_GROWSDOWN), FLAG(MAP_DENYWRITE),	FLAG(MAP_EXECUTABLE),
		FLAG(MAP_LOCKED),    FLAG(MAP_NORESERVE),	FLAG(MAP_POPULATE),
		FLAG(MAP_NONBLOCK),  FLAG(MAP_STACK),		FLAG(MAP_HUGETLB),
		FLAG(MAP_SYNC),	     FLAG(MAP_FIXED_NOREPLACE),
	};
	unsigned long long type = v & MAP_TYPE, huge = 0;

	if (type == MAP_SHARED)
		sb_puts(b, "MAP_SHARED");
	else if (type == MAP_PRIVATE)
		sb_puts(b, "MAP_PRIVATE");
	else if (type == MAP_SHARED_VALIDATE)
		sb_puts(b, "MAP_SHARED_VALIDATE");
	else
		sb_printf(b, "%#llx", type);
	v &= ~(unsigned long long)MAP_TYPE;
	/* With MAP_HUGETLB, bits 26..31 are log2 of the page size. */
	if (v & MAP_HUGETLB) {
		huge = (v >> MAP_HUGE_SHIFT) & 0x3f;
		v &= ~(0x3fULL << MAP_HUGE_SHIFT);
	}
	if (v)
		put_flags(b, v, map, sizeof(map) / sizeof(map[0]), true);
	if (huge)
		sb_printf(b, "|%llu<<MAP_HUGE_SHIFT", huge);
}

static void put_signal(struct sbuf *b, int sig)
{
	const char *abbrev = sig > 0 && sig < BC_SIGRTMIN ? sigabbrev_np(sig) : NULL;

	if (abbrev)
		sb_printf(b, "SIG%s", abbrev);
	else if (sig == BC_SIGRTMIN)
		sb_puts(b, "SIGRTMIN");
	else if (sig > BC_SIGRTMIN && sig <= BC_SIGRTMAX)
		sb_printf(b, "SIGRTMIN+%d", sig - BC_SIGRTMIN);
	else
		sb_printf(b, "%d", sig);
}

/* ------------------------------------------------------------------ values */

/* Whether a C type from the table is 64 bits wide (else the kernel uses the low 32). */
static bool type_is_64(const char *type)
{
	static const char *const t64[] = {
		"off_t",
		"loff_t",
		"size_t",
		"ssize_t",
		"u64",
		"__u64",
		"s64",
		"__s64",
		"uint64_t",
		"int64_t",
		"aio_context_t",
		"__kernel_ulong_t",
		"cap_user_header_t",
		"cap_user_data_t",
		"__sighandler_t",
	};

	if (!type || strchr(type, '*') || strstr(type, "long"))
		return true;
	if (strncmp(type, "const ", 6) == 0)
		type += 6;
	for (size_t i = 0; i < sizeof(t64) / sizeof(t64[0]); i++)
		if (strcmp(type, t64[i]) == 0)
			return true;
	return false;
}

static void put_arg(struct sbuf *b, unsigned int nr, unsigned int cls, const char *type,
		    unsigned int arg_flags, __u64 val)
{
	bool wide = type_is_64(type);
	__u64 u = wide ? val : (__u32)val;

	switch (cls) {
	case BC_SARG_INT:
		sb_printf(b, "%lld", wide ? (long long)val : (long long)(__s32)val);
		break;
	case BC_SARG_UINT:
		sb_printf(b, "%llu", (unsigned long long)u);
		break;
	case BC_SARG_FD:
		if ((__s32)val == AT_FDCWD)
			sb_puts(b, "AT_FDCWD");
		else
			sb_printf(b, "%d", (__s32)val);
		break;
	case BC_SARG_OPEN_FLAGS:
		put_open_flags(b, (__u32)val);
		break;
	case BC_SARG_AT_FLAGS:
		put_at_flags(b, nr, (__u32)val);
		break;
	case BC_SARG_MODE:
		sb_printf(b, "%#03llo", (unsigned long long)(__u32)val);
		break;
	case BC_SARG_MMAP_PROT:
		put_mmap_prot(b, u);
		break;
	case BC_SARG_MMAP_FLAGS:
		put_mmap_flags(b, u);
		break;
	case BC_SARG_SIGNAL:
		put_signal(b, (__s32)val);
		break;
	case BC_SARG_PTR:
	case BC_SARG_PATH:
		if (val)
			sb_printf(b, "%#llx", (unsigned long long)val);
		else
			sb_puts(b, "NULL");
		break;
	case BC_SARG_HEX:
	default:
		if (!u && (arg_flags & BC_SARGF_ADDR))
			sb_puts(b, "NULL");
		else if (!u)
			sb_puts(b, "0");
		else
			sb_printf(b, "%#llx", (unsigned long long)u);
		break;
	}
}

int bc_sys_format_arg(unsigned int nr, unsigned int cls, const char *type, unsigned int arg_flags,
		      __u64 val, char *out, size_t outlen)
{
	struct sbuf b;

	if (!out || !outlen)
		return -EINVAL;
	sb_init(&b, out, outlen);
	put_arg(&b, nr, cls, type, arg_flags, val);
	return sb_result(&b);
}

/* ------------------------------------------------------------------ strings */

/* A captured string or buffer of one argument, found in the record. */
struct argcap {
	bool present;
	__u8 flags; /* BC_CAPF_* */
	__u16 len;
	const unsigned char *data;
};

/*
 * Collects the items after the fixed struct that capture arguments (first one
 * per argument wins). Stops at the first item that does not fit in end bytes.
 */
static void find_captures(const struct bc_rec_sys_enter *rec, size_t end, struct argcap caps[6])
{
	const unsigned char *base = (const unsigned char *)rec;
	size_t off = sizeof(*rec);

	memset(caps, 0, 6 * sizeof(caps[0]));
	while (off <= end && end - off >= sizeof(struct bc_cap_item)) {
		struct bc_cap_item it;
		size_t padded;

		memcpy(&it, base + off, sizeof(it));
		off += sizeof(it);
		if (it.len > end - off)
			break;
		padded = ((size_t)it.len + 7) & ~(size_t)7;
		if (it.source == BC_SRC_ARG && it.index < 6 &&
		    (it.type == BC_CAP_STR || it.type == BC_CAP_BUF) && !caps[it.index].present) {
			caps[it.index].present = true;
			caps[it.index].flags = it.flags;
			caps[it.index].len = it.len;
			caps[it.index].data = base + off;
		}
		if (padded > end - off)
			break;
		off += padded;
	}
}

static void put_escaped(struct sbuf *b, const unsigned char *s, size_t n)
{
	sb_putn(b, "\"", 1);
	for (size_t i = 0; i < n && !b->full; i++) {
		unsigned char c = s[i];

		switch (c) {
		case '\n':
			sb_putn(b, "\\n", 2);
			break;
		case '\t':
			sb_putn(b, "\\t", 2);
			break;
		case '\r':
			sb_putn(b, "\\r", 2);
			break;
		case '"':
			sb_putn(b, "\\\"", 2);
			break;
		case '\\':
			sb_putn(b, "\\\\", 2);
			break;
		default:
			if (c >= 0x20 && c < 0x7f)
				sb_putn(b, (const char *)&c, 1);
			else
				sb_printf(b, "\\x%02x", c);
			break;
		}
	}
	sb_putn(b, "\"", 1);
}

/*
 * A captured socket address, strace-style, when it is one we can read:
 * {sa_family=AF_INET, sin_port=htons(80), sin_addr=inet_addr("10.1.2.3")}.
 */
static bool put_sockaddr(struct sbuf *b, const struct argcap *c)
{
	char ip[INET6_ADDRSTRLEN];
	sa_family_t family;

	if (c->len < sizeof(family))
		return false;
	memcpy(&family, c->data, sizeof(family));
	if (family == AF_INET && c->len >= sizeof(struct sockaddr_in)) {
		struct sockaddr_in in;

		memcpy(&in, c->data, sizeof(in));
		inet_ntop(AF_INET, &in.sin_addr, ip, sizeof(ip));
		sb_printf(b, "{sa_family=AF_INET, sin_port=htons(%u), sin_addr=inet_addr(\"%s\")}",
			  ntohs(in.sin_port), ip);
		return true;
	}
	if (family == AF_INET6 && c->len >= sizeof(struct sockaddr_in6)) {
		struct sockaddr_in6 in6;

		memcpy(&in6, c->data, sizeof(in6));
		inet_ntop(AF_INET6, &in6.sin6_addr, ip, sizeof(ip));
		sb_printf(b, "{sa_family=AF_INET6, sin6_port=htons(%u), sin6_addr=\"%s\"}",
			  ntohs(in6.sin6_port), ip);
		return true;
	}
	return false;
}

static void put_capture(struct sbuf *b, const struct argcap *c, __u64 val, const char *type)
{
	if (c->flags & BC_CAPF_NULL) {
		sb_puts(b, "NULL");
	} else if (c->flags & BC_CAPF_FAULT) {
		sb_printf(b, "%#llx <fault>", (unsigned long long)val);
	} else if (!(type && strstr(type, "sockaddr") && put_sockaddr(b, c))) {
		put_escaped(b, c->data, c->len);
		if (c->flags & BC_CAPF_TRUNCATED)
			sb_puts(b, "...");
	}
}

/* ------------------------------------------------------------------ records */

int bc_sys_format_enter(const struct bc_rec_sys_enter *rec, size_t rec_size, char *out,
			size_t outlen)
{
	const struct bc_syscall_sig *sig;
	struct argcap caps[6];
	unsigned int nargs;
	const char *name;
	struct sbuf b;
	size_t end;

	if (!out || !outlen)
		return -EINVAL;
	out[0] = 0;
	if (!rec || rec_size < sizeof(*rec))
		return -EINVAL;
	/* Items belong to the record: never past its own size either. */
	end = rec->h.size >= sizeof(*rec) && rec->h.size < rec_size ? rec->h.size : rec_size;
	find_captures(rec, end, caps);

	sb_init(&b, out, outlen);
	sig = bc_syscall_sig(rec->nr);
	name = sig ? sig->name : bc_syscall_name(rec->nr);
	if (name)
		sb_puts(&b, name);
	else
		sb_printf(&b, "syscall_%u", rec->nr);
	sb_putn(&b, "(", 1);

	nargs = sig ? sig->nargs : 6;
	for (unsigned int i = 0; i < nargs && i < 6; i++) {
		const struct bc_syscall_arg *a = sig ? &sig->args[i] : NULL;
		unsigned int cls = a ? a->cls : BC_SARG_HEX;

		/* The mode of open() and friends matters only when creating. */
		if (cls == BC_SARG_MODE && i > 0 && sig->args[i - 1].cls == BC_SARG_OPEN_FLAGS) {
			__u32 fl = (__u32)rec->args[i - 1];

			if (!(fl & O_CREAT) && (fl & O_TMPFILE) != O_TMPFILE)
				break;
		}
		if (i)
			sb_putn(&b, ", ", 2);
		/* A captured string or buffer stands for its pointer. */
		if (caps[i].present &&
		    (cls == BC_SARG_PATH || cls == BC_SARG_PTR || cls == BC_SARG_HEX))
			put_capture(&b, &caps[i], rec->args[i], a ? a->type : NULL);
		else
			put_arg(&b, rec->nr, cls, a ? a->type : NULL, a ? a->flags : 0,
				rec->args[i]);
	}
	sb_putn(&b, ")", 1);
	return sb_result(&b);
}

/* Kernel-internal errnos (include/linux/errno.h, not uapi) that the sys_exit
 * tracepoint sees when a signal interrupts a syscall; the caller never does. */
static const struct {
	int err;
	const char *name;
	const char *desc;
} restart_errnos[] = {
	{512, "ERESTARTSYS", "To be restarted if SA_RESTART is set"},
	{513, "ERESTARTNOINTR", "To be restarted"},
	{514, "ERESTARTNOHAND", "To be restarted if no handler"},
	{515, "ENOIOCTLCMD", "No ioctl command"},
	{516, "ERESTART_RESTARTBLOCK", "Interrupted by signal"},
};

static bool result_is_address(unsigned int nr)
{
	return nr == SYS_mmap || nr == SYS_mremap || nr == SYS_brk || nr == SYS_shmat;
}

int bc_sys_format_result(long ret, unsigned int nr, char *out, size_t outlen)
{
	struct sbuf b;

	if (!out || !outlen)
		return -EINVAL;
	sb_init(&b, out, outlen);
	if (ret < 0 && ret >= -BC_MAX_ERRNO) {
		int err = (int)-ret;
		const char *name = strerrorname_np(err), *desc = strerrordesc_np(err);

		for (size_t i = 0; !name && i < sizeof(restart_errnos) / sizeof(restart_errnos[0]);
		     i++) {
			if (restart_errnos[i].err == err) {
				sb_printf(&b, "= ? %s (%s)", restart_errnos[i].name,
					  restart_errnos[i].desc);
				return sb_result(&b);
			}
		}
		if (name)
			sb_printf(&b, "= -1 %s (%s)", name, desc ? desc : "?");
		else
			sb_printf(&b, "= -1 ERRNO_%d (Unknown error %d)", err, err);
	} else if (result_is_address(nr)) {
		sb_printf(&b, "= %#lx", (unsigned long)ret);
	} else {
		sb_printf(&b, "= %ld", ret);
	}
	return sb_result(&b);
}
