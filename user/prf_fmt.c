// SPDX-License-Identifier: MIT
/* PRF fields and records: the formatters behind the PRF sink (docs/prf.md). */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <inttypes.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
	return ferror(out) ? -EIO : 0;
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
	return ferror(out) ? -EIO : 0;
}

/* ------------------------------------------------------------ values */

uint32_t bc_prf_thread_hash(uint32_t pid, uint32_t tid, uint64_t birth_ktime)
{
	uint8_t b[16];
	uint32_t h = 2166136261u;

	for (int i = 0; i < 4; i++) {
		b[i] = (uint8_t)(pid >> (8 * i));
		b[4 + i] = (uint8_t)(tid >> (8 * i));
	}
	for (int i = 0; i < 8; i++)
		b[8 + i] = (uint8_t)(birth_ktime >> (8 * i));
	for (size_t i = 0; i < sizeof(b); i++) {
		h ^= b[i];
		h *= 16777619u;
	}
	return h;
}

uint64_t bc_prf_sys_rc(int64_t ret)
{
	return ret < 0 && ret >= -4095 ? (uint64_t)-ret : 0;
}

void bc_prf_put_be64(uint8_t *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

void bc_prf_entry_time(uint8_t out[16], int64_t wall_ns)
{
	int64_t sec = wall_ns / 1000000000, ns = wall_ns % 1000000000;

	if (ns < 0) {
		ns += 1000000000;
		sec--;
	}
	bc_prf_put_be64(out, (uint64_t)sec);
	bc_prf_put_be64(out + 8, (uint64_t)(ns / 1000));
}

int bc_prf_parse_ip(const char *s, uint32_t *ip)
{
	struct in_addr a;

	if (!s || inet_pton(AF_INET, s, &a) != 1)
		return -EINVAL;
	*ip = ntohl(a.s_addr);
	return 0;
}

uint32_t bc_prf_host_ip(void)
{
	struct ifaddrs *ifs, *i;
	uint32_t ip = 0;

	if (getifaddrs(&ifs) < 0)
		return 0;
	for (i = ifs; i && !ip; i = i->ifa_next) {
		uint32_t a;

		if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || !(i->ifa_flags & IFF_UP) ||
		    (i->ifa_flags & IFF_LOOPBACK))
			continue;
		a = ntohl(((const struct sockaddr_in *)(const void *)i->ifa_addr)->sin_addr.s_addr);
		if (a >> 24 != 127 && a)
			ip = a;
	}
	freeifaddrs(ifs);
	return ip;
}
