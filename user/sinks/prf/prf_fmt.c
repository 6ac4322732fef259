// SPDX-License-Identifier: MIT
/* PRF fields and records: the formatters behind the PRF sink (docs/prf.md). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <inttypes.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bpfcollect/outfile.h"
#include "bpfcollect/capture_fmt.h"
#include "bpfcollect/containers.h"
#include "bpfcollect/prf.h"

/* ------------------------------------------------------------ options */

void bc_prf_opts_init(struct bc_prf_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->format = BC_PRF_CSV;
	o->layout = BC_PRF_LAYOUT_HITACHI;
	o->truncation = BC_PRF_TRUNC_FIRST;
}

int bc_prf_format_parse(const char *name, struct bc_prf_opts *o)
{
	if (!name)
		return -EINVAL;
	if (!strcmp(name, "prf-csv"))
		o->format = BC_PRF_CSV;
	else if (!strcmp(name, "prf-dump"))
		o->format = BC_PRF_DUMP;
	else
		return -EINVAL;
	return 0;
}

const char bc_prf_opts_help[] =
	"  --utc                  PRF Date and Time in UTC (default: local time, TZ)\n"
	"  --prf-layout=LAYOUT    hitachi: seed 001's columns (default); cosminexus:\n"
	"                         also SendSCD, ReceiveSCD and Lookup name (****)\n"
	"  --prf-name=NAME        ProcessName of every record (default: the comm)\n"
	"  --prf-truncate=METHOD  INT/OPR names over 32 characters become 33:\n"
	"                         first (32 + *, default), middle (16 + * + 16),\n"
	"                         last (* + 32)\n"
	"  --prf-host-ip=A.B.C.D  RootAP IP (default: this host's first non-loopback\n"
	"                         IPv4 address, 0.0.0.0 without one)\n";

int bc_prf_opt_parse(struct bc_prf_opts *o, const char *name, const char *arg, char *err,
		     size_t errlen)
{
	uint32_t ip;

	if (!strcmp(name, "utc")) {
		o->utc = true;
		return 0;
	}
	if (strcmp(name, "prf-layout") && strcmp(name, "prf-truncate") &&
	    strcmp(name, "prf-name") && strcmp(name, "prf-host-ip"))
		return -ENOENT;
	if (!arg) {
		snprintf(err, errlen, "--%s needs a value", name);
		return -EINVAL;
	}
	if (!strcmp(name, "prf-layout")) {
		if (!strcmp(arg, "hitachi") || !strcmp(arg, "default"))
			o->layout = BC_PRF_LAYOUT_HITACHI;
		else if (!strcmp(arg, "cosminexus"))
			o->layout = BC_PRF_LAYOUT_COSMINEXUS;
		else
			goto bad;
	} else if (!strcmp(name, "prf-truncate")) {
		if (!strcmp(arg, "first") || !strcmp(arg, "32*"))
			o->truncation = BC_PRF_TRUNC_FIRST;
		else if (!strcmp(arg, "middle") || !strcmp(arg, "16*16"))
			o->truncation = BC_PRF_TRUNC_MIDDLE;
		else if (!strcmp(arg, "last") || !strcmp(arg, "*32"))
			o->truncation = BC_PRF_TRUNC_LAST;
		else
			goto bad;
	} else if (!strcmp(name, "prf-name")) {
		if (!*arg) {
			snprintf(err, errlen, "--prf-name needs a non-empty name");
			return -EINVAL;
		}
		o->process_name = arg;
	} else {
		if (bc_prf_parse_ip(arg, &ip) < 0)
			goto bad;
		o->host_ip = arg;
	}
	return 0;
bad:
	if (!strcmp(name, "prf-layout"))
		snprintf(err, errlen, "--prf-layout takes hitachi or cosminexus, not '%s'", arg);
	else if (!strcmp(name, "prf-truncate"))
		snprintf(err, errlen, "--prf-truncate takes first, middle or last, not '%s'", arg);
	else
		snprintf(err, errlen, "--prf-host-ip takes an IPv4 address A.B.C.D, not '%s'", arg);
	return -EINVAL;
}

/* --------------------------------------------------------- small fields */

int bc_prf_fmt_process(char *out, size_t outlen, uint64_t pid)
{
	return snprintf(out, outlen, "%010" PRIu64, pid);
}

int bc_prf_fmt_trace(char *out, size_t outlen, uint64_t trace)
{
	return snprintf(out, outlen, "%010" PRIu64, trace);
}

int bc_prf_fmt_thread(char *out, size_t outlen, uint64_t tid, uint32_t hash)
{
	return snprintf(out, outlen, "%" PRIu64 "(%" PRIu32 ")", tid, hash);
}

int bc_prf_fmt_event(char *out, size_t outlen, unsigned int event)
{
	return snprintf(out, outlen, "0x%04x", event);
}

int bc_prf_fmt_rc(char *out, size_t outlen, uint64_t rc)
{
	return snprintf(out, outlen, "0x%014" PRIx64, rc);
}

int bc_prf_fmt_ip(char *out, size_t outlen, uint32_t ip)
{
	return snprintf(out, outlen, "%u.%u.%u.%u", ip >> 24, (ip >> 16) & 0xff, (ip >> 8) & 0xff,
			ip & 0xff);
}

int bc_prf_fmt_ap_pid(char *out, size_t outlen, uint32_t pid)
{
	return pid ? snprintf(out, outlen, "%010" PRIu32, pid) : snprintf(out, outlen, "0");
}

int bc_prf_fmt_commno(char *out, size_t outlen, uint64_t commno)
{
	return snprintf(out, outlen, "0x%016" PRIx64, commno);
}

int bc_prf_fmt_time(struct bc_prf_time *t, int64_t wall_ns, bool utc)
{
	int64_t sec = wall_ns / 1000000000, ns = wall_ns % 1000000000;
	struct tm tm;
	time_t when;

	if (ns < 0) {
		ns += 1000000000;
		sec--;
	}
	when = (time_t)sec;
	if (!(utc ? gmtime_r(&when, &tm) : localtime_r(&when, &tm)))
		return -EINVAL;
	snprintf(t->date, sizeof(t->date), "%04d/%02d/%02d", tm.tm_year + 1900, tm.tm_mon + 1,
		 tm.tm_mday);
	snprintf(t->time, sizeof(t->time), "%02d:%02d:%02d", tm.tm_hour, tm.tm_min, tm.tm_sec);
	snprintf(t->sub, sizeof(t->sub), "%03d/%03d/%03d", (int)(ns / 1000000),
		 (int)(ns / 1000 % 1000), (int)(ns % 1000));
	return 0;
}

/* ---------------------------------------------------------------- names */

/* Appends n bytes of s at *pos of out, keeping it NUL-terminated; *pos counts what was needed. */
static void put_bytes(char *out, size_t outlen, size_t *pos, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++, (*pos)++) {
		unsigned char c = (unsigned char)s[i];

		/* One record, one line: control characters never reach a name field. */
		if (c < 0x20 || c == 0x7f)
			c = '?';
		if (*pos + 1 < outlen)
			out[*pos] = (char)c;
	}
	if (outlen)
		out[*pos < outlen ? *pos : outlen - 1] = '\0';
}

/* Index after the UTF-8 character at s[i] (a stray or invalid byte is one character). */
static size_t next_char(const unsigned char *s, size_t i, size_t n)
{
	size_t want = s[i] >= 0xf0 && s[i] < 0xf8   ? 3
		      : s[i] >= 0xe0 && s[i] < 0xf0 ? 2
		      : s[i] >= 0xc0 && s[i] < 0xe0 ? 1
						    : 0;

	for (i++; want && i < n && (s[i] & 0xc0) == 0x80; want--)
		i++;
	return i;
}

static size_t count_chars(const char *s, size_t n)
{
	size_t chars = 0;

	for (size_t i = 0; i < n; i = next_char((const unsigned char *)s, i, n))
		chars++;
	return chars;
}

/* Byte offset of character number k (0-based) of s; n when k is past the end. */
static size_t char_offset(const char *s, size_t n, size_t k)
{
	size_t i = 0;

	while (k-- && i < n)
		i = next_char((const unsigned char *)s, i, n);
	return i;
}

int bc_prf_fmt_name(char *out, size_t outlen, const char *name, enum bc_prf_trunc m)
{
	size_t n = name ? strlen(name) : 0, chars = count_chars(name, n), pos = 0;
	size_t half = BC_PRF_NAME_MAX / 2, a, b;

	if (outlen)
		out[0] = '\0';
	if (chars <= BC_PRF_NAME_MAX) {
		put_bytes(out, outlen, &pos, name, n);
		return (int)pos;
	}
	switch (m) {
	case BC_PRF_TRUNC_MIDDLE:
		a = char_offset(name, n, half);
		b = char_offset(name, n, chars - half);
		put_bytes(out, outlen, &pos, name, a);
		put_bytes(out, outlen, &pos, "*", 1);
		put_bytes(out, outlen, &pos, name + b, n - b);
		break;
	case BC_PRF_TRUNC_LAST:
		b = char_offset(name, n, chars - BC_PRF_NAME_MAX);
		put_bytes(out, outlen, &pos, "*", 1);
		put_bytes(out, outlen, &pos, name + b, n - b);
		break;
	case BC_PRF_TRUNC_FIRST:
	default:
		a = char_offset(name, n, BC_PRF_NAME_MAX);
		put_bytes(out, outlen, &pos, name, a);
		put_bytes(out, outlen, &pos, "*", 1);
		break;
	}
	return (int)pos;
}

int bc_prf_fmt_process_name(char *out, size_t outlen, const char *name)
{
	size_t n = name ? strlen(name) : 0, pos = 0;

	if (outlen)
		out[0] = '\0';
	put_bytes(out, outlen, &pos, name, char_offset(name, n, BC_PRF_PNAME_MAX));
	return (int)pos;
}

/* ------------------------------------------------------------ OPT, ASCII */

int bc_prf_fmt_opt(char *out, size_t outlen, const uint8_t *data, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t pos = 0;

	if (len > BC_PRF_OPT_MAX)
		len = BC_PRF_OPT_MAX;
	for (size_t i = 0; i < 2 + 2 * len; i++, pos++) {
		char c = i == 0	  ? '0'
			 : i == 1 ? 'x'
			 : i % 2  ? hex[data[(i - 2) / 2] & 0xf]
				  : hex[data[(i - 2) / 2] >> 4];

		if (pos + 1 < outlen)
			out[pos] = c;
	}
	if (outlen)
		out[pos < outlen ? pos : outlen - 1] = '\0';
	return (int)pos;
}

int bc_prf_fmt_ascii(char *out, size_t outlen, const uint8_t *data, size_t len)
{
	size_t i;

	if (len > BC_PRF_OPT_MAX)
		len = BC_PRF_OPT_MAX;
	for (i = 0; i < len; i++)
		if (i + 1 < outlen)
			out[i] = data[i] >= 0x20 && data[i] < 0x7f ? (char)data[i] : '.';
	if (outlen)
		out[i < outlen ? i : outlen - 1] = '\0';
	return (int)i;
}

int bc_prf_csv_field(char *out, size_t outlen, const char *s)
{
	bool quote = strpbrk(s, ",\"\r\n") != NULL;
	size_t pos = 0;

#define PUT(c)                                                                                     \
	do {                                                                                       \
		if (pos + 1 < outlen)                                                              \
			out[pos] = (char)(c);                                                      \
		pos++;                                                                             \
	} while (0)
	if (quote)
		PUT('"');
	for (; *s; s++) {
		if (*s == '"')
			PUT('"');
		PUT(*s);
	}
	if (quote)
		PUT('"');
#undef PUT
	if (outlen)
		out[pos < outlen ? pos : outlen - 1] = '\0';
	return (int)pos;
}

int bc_prf_write_hexdump(FILE *out, const uint8_t *data, size_t len)
{
	fputs("Offset +0 +1 +2 +3 +4 +5 +6 +7 +8 +9 +a +b +c +d +e +f 0123456789abcdef\n", out);
	if (len > BC_PRF_OPT_MAX)
		len = BC_PRF_OPT_MAX;
	for (size_t row = 0; row < len; row += 16) {
		fprintf(out, "%06zx", row);
		for (size_t i = row; i < row + 16; i++) {
			if (i < len)
				fprintf(out, " %02x", data[i]);
			else
				fputs("   ", out);
		}
		fputc(' ', out);
		for (size_t i = row; i < row + 16 && i < len; i++)
			fputc(data[i] >= 0x20 && data[i] < 0x7f ? data[i] : '.', out);
		fputc('\n', out);
	}
	return ferror(out) ? bc_io_errno() : 0;
}

/* ---------------------------------------------------------------- records */

static const char hitachi_header[] =
	"PRF,Process,Thread(hashcode),Trace,ProcessName,Event,Date,Time,Time(msec/usec/nsec),Rc,"
	"ClientAP IP,ClientAP PID,ClientAP CommNo.,RootAP IP,RootAP PID,RootAP CommNo.,INT,OPR,"
	"OPT,ASCII";
static const char cosminexus_header[] =
	"PRF,Process,Thread(hashcode),Trace,ProcessName,Event,Date,Time,Time(msec/usec/nsec),Rc,"
	"ClientAP IP,ClientAP PID,ClientAP CommNo.,RootAP IP,RootAP PID,RootAP CommNo.,"
	"SendSCD IP,SendSCD PID,ReceiveSCD IP,ReceiveSCD PID,INT,OPR,Lookup name,OPT,ASCII";

const char *bc_prf_csv_header(enum bc_prf_layout layout)
{
	return layout == BC_PRF_LAYOUT_COSMINEXUS ? cosminexus_header : hitachi_header;
}

unsigned int bc_prf_csv_nfields(enum bc_prf_layout layout)
{
	return layout == BC_PRF_LAYOUT_COSMINEXUS ? 25 : 20;
}

/* A record's fields, formatted. */
struct prf_fields {
	char process[BC_PRF_FIELD_LEN], thread[BC_PRF_FIELD_LEN], trace[BC_PRF_FIELD_LEN];
	char pname[BC_PRF_FIELD_LEN], event[BC_PRF_FIELD_LEN], rc[BC_PRF_FIELD_LEN];
	char cip[BC_PRF_FIELD_LEN], cpid[BC_PRF_FIELD_LEN], ccomm[BC_PRF_FIELD_LEN];
	char rip[BC_PRF_FIELD_LEN], rpid[BC_PRF_FIELD_LEN], rcomm[BC_PRF_FIELD_LEN];
	char intf[BC_PRF_FIELD_LEN], opr[BC_PRF_FIELD_LEN];
	struct bc_prf_time t;
	char opt[BC_PRF_OPT_HEX_LEN], ascii[BC_PRF_OPT_MAX + 1];
	char quoted[2 * BC_PRF_OPT_MAX + 8];
};

static void fill_fields(struct prf_fields *f, const struct bc_prf_opts *o,
			const struct bc_prf_record *r)
{
	bc_prf_fmt_process(f->process, sizeof(f->process), r->pid);
	bc_prf_fmt_thread(f->thread, sizeof(f->thread), r->tid, r->hash);
	bc_prf_fmt_trace(f->trace, sizeof(f->trace), r->trace);
	bc_prf_fmt_process_name(f->pname, sizeof(f->pname), r->process_name);
	bc_prf_fmt_event(f->event, sizeof(f->event), r->event);
	if (bc_prf_fmt_time(&f->t, r->wall_ns, o->utc) < 0)
		bc_prf_fmt_time(&f->t, 0, true);
	bc_prf_fmt_rc(f->rc, sizeof(f->rc), r->rc);
	bc_prf_fmt_ip(f->cip, sizeof(f->cip), r->client.ip);
	bc_prf_fmt_ap_pid(f->cpid, sizeof(f->cpid), r->client.pid);
	bc_prf_fmt_commno(f->ccomm, sizeof(f->ccomm), r->client.commno);
	bc_prf_fmt_ip(f->rip, sizeof(f->rip), r->root.ip);
	bc_prf_fmt_ap_pid(f->rpid, sizeof(f->rpid), r->root.pid);
	bc_prf_fmt_commno(f->rcomm, sizeof(f->rcomm), r->root.commno);
	bc_prf_fmt_name(f->intf, sizeof(f->intf), r->intf, o->truncation);
	bc_prf_fmt_name(f->opr, sizeof(f->opr), r->opr, o->truncation);
	bc_prf_fmt_opt(f->opt, sizeof(f->opt), r->opt, r->opt_len);
	bc_prf_fmt_ascii(f->ascii, sizeof(f->ascii), r->opt, r->opt_len);
}

static void put_csv(FILE *out, struct prf_fields *f, const char *s, bool last)
{
	bc_prf_csv_field(f->quoted, sizeof(f->quoted), s);
	fputs(f->quoted, out);
	fputc(last ? '\n' : ',', out);
}

static void write_csv(FILE *out, const struct bc_prf_opts *o, struct prf_fields *f, bool err)
{
	bool cos = o->layout == BC_PRF_LAYOUT_COSMINEXUS;

	fprintf(out, "%s,%s,%s,%s,", err ? "ErrRec" : "Rec", f->process, f->thread, f->trace);
	put_csv(out, f, f->pname, false);
	fprintf(out, "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s", f->event, f->t.date, f->t.time,
		f->t.sub, f->rc, f->cip, f->cpid, f->ccomm, f->rip, f->rpid, f->rcomm,
		cos ? "****,****,****,****," : "");
	put_csv(out, f, f->intf, false);
	put_csv(out, f, f->opr, false);
	if (cos)
		fputs("****,", out);
	fputs(f->opt, out);
	fputc(',', out);
	put_csv(out, f, f->ascii, true);
}

static void write_dump(FILE *out, const struct bc_prf_opts *o, struct prf_fields *f,
		       const struct bc_prf_record *r)
{
	bool cos = o->layout == BC_PRF_LAYOUT_COSMINEXUS;

	fprintf(out, "PRF: %s Process: %s Thread: %s Trace: %s\n", r->err ? "ErrRec" : "Rec",
		f->process, f->thread, f->trace);
	fprintf(out, "ProcessName: %s\n", f->pname);
	fprintf(out, "Event: %s Time: %s %s %s Rc: %s\n", f->event, f->t.date, f->t.time, f->t.sub,
		f->rc);
	fprintf(out, "ClientAP: %s %s - %s\n", f->cip, f->cpid, f->ccomm);
	fprintf(out, "RootAP: %s %s - %s\n", f->rip, f->rpid, f->rcomm);
	if (cos)
		fputs("SendSCD: **** **** ReceiveSCD: **** ****\n", out);
	fprintf(out, "INT: %s OPR: %s%s\n", f->intf, f->opr, cos ? " Lookup: ****" : "");
	bc_prf_write_hexdump(out, r->opt, r->opt_len);
	fputc('\n', out);
}

int bc_prf_write(FILE *out, const struct bc_prf_opts *o, const struct bc_prf_record *r)
{
	struct prf_fields f; /* about 4 KiB */

	fill_fields(&f, o, r);
	if (o->format == BC_PRF_DUMP)
		write_dump(out, o, &f, r);
	else
		write_csv(out, o, &f, r->err);
	return ferror(out) ? bc_io_errno() : 0;
}

/* ------------------------------------------------------------ values */

uint64_t bc_prf_sys_rc(int64_t ret)
{
	return ret < 0 && ret >= -4095 ? (uint64_t)-ret : 0;
}

void bc_prf_put_be64(uint8_t *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

int bc_prf_parse_ip(const char *s, uint32_t *ip)
{
	struct in_addr a;

	if (!s || inet_pton(AF_INET, s, &a) != 1)
		return -EINVAL;
	*ip = ntohl(a.s_addr);
	return 0;
}

/* --------------------------------------------------- ClientAP: socket peers */

bool bc_prf_sockaddr_ipv4(const uint8_t *sa, size_t len, uint32_t *ip, uint16_t *port)
{
	static const uint8_t mapped[12] = {[10] = 0xff, [11] = 0xff}; /* ::ffff:0:0/96 */
	const size_t a6 = offsetof(struct sockaddr_in6, sin6_addr);
	const uint8_t *a;
	sa_family_t family;

	if (!sa || len < sizeof(family))
		return false;
	memcpy(&family, sa, sizeof(family));
	if (family == AF_INET && len >= sizeof(struct sockaddr_in))
		a = sa + offsetof(struct sockaddr_in, sin_addr);
	else if (family == AF_INET6 && len >= sizeof(struct sockaddr_in6) &&
		 !memcmp(sa + a6, mapped, sizeof(mapped)))
		a = sa + a6 + sizeof(mapped);
	else
		return false;
	*port = (uint16_t)(sa[2] << 8 | sa[3]); /* sin_port, sin6_port: network order */
	*ip = (uint32_t)a[0] << 24 | (uint32_t)a[1] << 16 | (uint32_t)a[2] << 8 | a[3];
	return true;
}

/* x86-64 numbers (the recording's) of the syscalls handled one by one */
#define NR_CLOSE       3
#define NR_DUP	       32
#define NR_DUP2	       33
#define NR_CONNECT     42
#define NR_ACCEPT      43
#define NR_SENDTO      44
#define NR_FCNTL       72
#define NR_ACCEPT4     288
#define NR_DUP3	       292
#define NR_CLOSE_RANGE 436
#define CR_CLOEXEC     4 /* close_range's CLOSE_RANGE_CLOEXEC: nothing is closed */

/*
 * Syscalls whose arg1 is an fd, carrying its ClientAP: read, write, close, fstat, ioctl,
 * pread64, pwrite64, readv, writev, dup, dup2, sendfile, connect, sendto..getsockopt, fcntl,
 * splice, dup3, preadv, pwritev, recvmmsg, sendmmsg, preadv2, pwritev2.
 */
static const uint16_t sys_fd_arg[] = {0,  1,  3,  5,   16,  17,	 18,  19,  20,	32,  33,
				      40, 42, 44, 45,  46,  47,	 48,  49,  50,	51,  52,
				      54, 55, 72, 275, 292, 295, 296, 299, 307, 327, 328};
/*
 * Syscalls returning a new fd, which ends a binding of that number: open, socket, accept,
 * creat, epoll_create, inotify_init, openat, signalfd, timerfd_create, eventfd, accept4,
 * signalfd4, eventfd2, epoll_create1, inotify_init1, perf_event_open, fanotify_init,
 * open_by_handle_at, memfd_create, userfaultfd, io_uring_setup, pidfd_open, openat2,
 * pidfd_getfd. (dup, dup2, dup3 and fcntl F_DUPFD* give it the old fd's binding.)
 */
static const uint16_t sys_fd_new[] = {2,   41,	43,  85,  213, 253, 257, 282, 283, 284, 288, 289,
				      290, 291, 294, 298, 300, 304, 319, 323, 425, 434, 437, 438};

static bool sys_in(const uint16_t *v, size_t n, uint32_t nr)
{
	while (n--)
		if (v[n] == nr)
			return true;
	return false;
}

/* An fd's peer (slots 0..MAXFD of a pid), a process's count, a thread's syscall. */
#define PEER_MAXFD   0x7fffffffu
#define PEER_PENDING 0xfffffffeu /* the syscall a thread (id: tid) is in */
#define PEER_COUNTER 0xffffffffu /* the last connection number a process gave */

/* What a syscall's exit does with its entry's peer. */
enum { ACT_NONE, ACT_CONNECT, ACT_SENDTO, ACT_DUP };

struct peer {
	uint64_t key;	 /* id << 32 | slot */
	uint64_t commno; /* the connection (0: none, released); COUNTER: the last one given */
	uint32_t ip;	 /* the peer's, host order */
	uint16_t port;
	uint16_t act; /* PENDING: ACT_*, the syscall nr and the fd connect or sendto binds */
	uint32_t nr;
	int32_t fd;
};

struct bc_prf_peers {
	struct bc_idmap map; /* key -> index into v; entries are emptied, never removed */
	struct peer *v;
	size_t n, cap;
};

enum { ADDR_NONE, ADDR_NULL, ADDR_OTHER, ADDR_IPV4 };

/* The entry of (id, slot); a new one (empty) when add. NULL if none, or out of memory. */
static struct peer *peer_at(struct bc_prf_peers *pp, uint32_t id, uint32_t slot, bool add)
{
	uint64_t key = (uint64_t)id << 32 | slot;
	uint32_t *i = bc_idmap_find(&pp->map, key);

	if (i || !add)
		return i ? &pp->v[*i] : NULL;
	if (BC_GROW(pp->v, pp->cap, pp->n + 1) ||
	    bc_idmap_get_or_add(&pp->map, key, (uint32_t)pp->n, &i) < 0)
		return NULL;
	pp->v[pp->n] = (struct peer){.key = key, .fd = -1};
	return &pp->v[pp->n++];
}

/* Empties the entries of id with slots lo..hi. */
static void peer_drop(struct bc_prf_peers *pp, uint32_t id, uint32_t lo, uint32_t hi)
{
	struct peer *e = lo == hi ? peer_at(pp, id, lo, false) : NULL;

	if (e)
		e->commno = e->act = 0;
	for (size_t i = 0; i < pp->n && lo != hi; i++)
		if (pp->v[i].key >> 32 == id && (uint32_t)pp->v[i].key >= lo &&
		    (uint32_t)pp->v[i].key <= hi)
			pp->v[i].commno = pp->v[i].act = 0;
}

/* Binds fd of process pid to c's connection; none (0) releases the fd. */
static int peer_bind(struct bc_prf_peers *pp, uint32_t pid, int64_t fd, const struct peer *c)
{
	struct peer *e;

	if (fd < 0 || fd > PEER_MAXFD)
		return 0;
	if (!(e = peer_at(pp, pid, (uint32_t)fd, c->commno)))
		return c->commno ? -ENOMEM : 0;
	e->commno = c->commno;
	e->ip = c->ip;
	e->port = c->port;
	return 0;
}

/* c gets the next connection number of process pid. */
static int peer_number(struct bc_prf_peers *pp, uint32_t pid, struct peer *c)
{
	struct peer *n = peer_at(pp, pid, PEER_COUNTER, true);

	if (!n)
		return -ENOMEM;
	c->commno = ++n->commno;
	return 0;
}

/* The peer address item of argument index (0-based) of a syscall record, into c. */
static int peer_item(const struct bc_rec_head *h, unsigned int index, struct peer *c)
{
	const struct bc_cap_item *item;
	const uint8_t *data;
	struct bc_cap_iter it;

	bc_cap_iter_init(&it, h, h->size, bc_cap_fixed_size(h->kind));
	while (bc_cap_iter_next(&it, &item, &data)) {
		if (item->source != BC_SRC_ARG || item->index != index || item->type != BC_CAP_BUF)
			continue;
		if (item->flags & BC_CAPF_NULL)
			return ADDR_NULL;
		if (!(item->flags & BC_CAPF_FAULT) &&
		    bc_prf_sockaddr_ipv4(data, item->len, &c->ip, &c->port))
			return ADDR_IPV4;
		return ADDR_OTHER;
	}
	return ADDR_NONE;
}

static int sys_enter(struct bc_prf_peers *pp, const struct bc_rec_sys_enter *e, struct peer *c)
{
	uint32_t pid = e->h.pid, nr = e->nr, fd = (uint32_t)e->args[0];
	struct peer *p = fd <= PEER_MAXFD ? peer_at(pp, pid, fd, false) : NULL, b = {0};
	int addr = ADDR_NONE, rc;

	if (p)
		b = *p;
	if (nr == NR_CONNECT || nr == NR_SENDTO)
		addr = peer_item(&e->h, nr == NR_CONNECT ? 1 : 4, c);
	if (addr == ADDR_IPV4 && nr == NR_SENDTO && b.commno && b.ip == c->ip &&
	    b.port == c->port) {
		c->commno = b.commno; /* one more datagram to the fd's peer */
	} else if (addr == ADDR_IPV4) {
		if ((rc = peer_number(pp, pid, c)))
			return rc;
		c->act = nr == NR_CONNECT ? ACT_CONNECT : ACT_SENDTO;
	} else if (addr == ADDR_OTHER || (addr == ADDR_NULL && nr == NR_CONNECT)) {
		c->act = nr == NR_CONNECT ? ACT_CONNECT : ACT_NONE; /* connect releases the fd */
	} else if (sys_in(sys_fd_arg, sizeof(sys_fd_arg) / sizeof(*sys_fd_arg), nr)) {
		*c = b;
		if (nr == NR_DUP || nr == NR_DUP2 || nr == NR_DUP3 ||
		    (nr == NR_FCNTL && (e->args[1] == F_DUPFD || e->args[1] == F_DUPFD_CLOEXEC)))
			c->act = ACT_DUP;
	}
	if (nr == NR_CLOSE && fd <= PEER_MAXFD)
		peer_drop(pp, pid, fd, fd);
	else if (nr == NR_CLOSE_RANGE && fd <= PEER_MAXFD && !(e->args[2] & CR_CLOEXEC))
		peer_drop(pp, pid, fd, e->args[1] < PEER_MAXFD ? (uint32_t)e->args[1] : PEER_MAXFD);
	/* what the exit needs */
	p = peer_at(pp, e->h.tid, PEER_PENDING, c->commno || c->act);
	if (!p)
		return c->commno || c->act ? -ENOMEM : 0;
	c->key = p->key;
	c->nr = nr;
	c->fd = fd <= PEER_MAXFD ? (int32_t)fd : -1;
	*p = *c;
	return 0;
}

static int sys_exit(struct bc_prf_peers *pp, const struct bc_rec_sys_exit *x, struct peer *c)
{
	struct peer *p = peer_at(pp, x->h.tid, PEER_PENDING, false);
	uint32_t pid = x->h.pid;
	int64_t ret = x->ret;
	int rc = 0;

	if (p && p->nr == x->nr && (p->commno || p->act))
		*c = *p;
	if (p)
		p->commno = p->act = 0;
	if (ret >= 0 && ret <= PEER_MAXFD &&
	    sys_in(sys_fd_new, sizeof(sys_fd_new) / sizeof(*sys_fd_new), x->nr))
		peer_drop(pp, pid, (uint32_t)ret, (uint32_t)ret);
	if ((c->act == ACT_CONNECT && (ret == 0 || ret == -EINPROGRESS)) ||
	    (c->act == ACT_SENDTO && ret >= 0))
		rc = peer_bind(pp, pid, c->fd, c);
	else if (c->act == ACT_DUP && ret >= 0)
		rc = peer_bind(pp, pid, ret, c);
	/* accept: the peer the kernel wrote; the new fd is bound to it */
	if ((x->nr == NR_ACCEPT || x->nr == NR_ACCEPT4) && ret >= 0 &&
	    peer_item(&x->h, 1, c) == ADDR_IPV4 && !(rc = peer_number(pp, pid, c)))
		rc = peer_bind(pp, pid, ret, c);
	return rc;
}

/* A new process inherits its parent's fds: their bindings, and the count goes on. */
static int peer_fork(struct bc_prf_peers *pp, uint32_t parent, uint32_t child)
{
	if (!child || child == parent)
		return 0;
	peer_drop(pp, child, 0, PEER_COUNTER); /* of an earlier process with that pid */
	for (size_t i = 0, n = pp->n; i < n; i++) {
		struct peer e = pp->v[i], *d;

		if (e.key >> 32 != parent || (uint32_t)e.key == PEER_PENDING || !e.commno)
			continue;
		if (!(d = peer_at(pp, child, (uint32_t)e.key, true)))
			return -ENOMEM;
		e.key = d->key;
		*d = e;
	}
	return 0;
}

struct bc_prf_peers *bc_prf_peers_new(void)
{
	return calloc(1, sizeof(struct bc_prf_peers));
}

void bc_prf_peers_free(struct bc_prf_peers *pp)
{
	if (!pp)
		return;
	bc_idmap_free(&pp->map);
	free(pp->v);
	free(pp);
}

int bc_prf_peers_event(struct bc_prf_peers *pp, const struct bc_rec_head *h, struct bc_prf_ap *ap)
{
	struct peer c = {.fd = -1};
	int rc = 0;

	memset(ap, 0, sizeof(*ap));
	if (h->kind == BC_REC_SYS_ENTER && h->size >= sizeof(struct bc_rec_sys_enter))
		rc = sys_enter(pp, (const void *)h, &c);
	else if (h->kind == BC_REC_SYS_EXIT && h->size >= sizeof(struct bc_rec_sys_exit))
		rc = sys_exit(pp, (const void *)h, &c);
	else if (h->kind == BC_REC_PROC_FORK && h->size >= sizeof(struct bc_rec_fork))
		rc = peer_fork(pp, h->pid, ((const struct bc_rec_fork *)h)->child_pid);
	else if (h->kind == BC_REC_PROC_EXEC && h->size >= sizeof(struct bc_rec_exec))
		peer_drop(pp, ((const struct bc_rec_exec *)h)->old_tid, PEER_PENDING, PEER_PENDING);
	else if (h->kind == BC_REC_PROC_EXIT)
		peer_drop(pp, h->pid, 0, PEER_COUNTER);
	if (h->kind == BC_REC_PROC_EXIT || h->kind == BC_REC_THREAD_EXIT)
		peer_drop(pp, h->tid, PEER_PENDING, PEER_PENDING);
	if (c.commno) {
		ap->ip = c.ip;
		ap->commno = c.commno;
	}
	return rc;
}
