// SPDX-License-Identifier: MIT
/* PRF records: every field formatter at its limits, whole records, and the sink. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "prf_fixture.h"

#include <netinet/in.h>
#include <sys/un.h>

#include "bpfcollect/model.h"
#include "bpfcollect/prf.h"
#include "bpfcollect/record.h"

static void set_tz(const char *tz)
{
	setenv("TZ", tz, 1);
	tzset();
}

/* ------------------------------------------------------- number fields */

static void numbers(void **state)
{
	char b[BC_PRF_FIELD_LEN];

	(void)state;
	assert_int_equal(bc_prf_fmt_process(b, sizeof(b), 1), 10);
	assert_string_equal(b, "0000000001");
	assert_int_equal(bc_prf_fmt_process(b, sizeof(b), 4294967295u), 10);
	assert_string_equal(b, "4294967295");
	bc_prf_fmt_trace(b, sizeof(b), 0);
	assert_string_equal(b, "0000000000");
	bc_prf_fmt_trace(b, sizeof(b), 9999999999ull);
	assert_string_equal(b, "9999999999");
	/* wider values are written whole, never cut */
	bc_prf_fmt_trace(b, sizeof(b), 10000000000ull);
	assert_string_equal(b, "10000000000");

	assert_int_equal(bc_prf_fmt_thread(b, sizeof(b), UINT64_MAX, UINT32_MAX), 32);
	assert_string_equal(b, "18446744073709551615(4294967295)");
	bc_prf_fmt_thread(b, sizeof(b), 1, 0);
	assert_string_equal(b, "1(0)");

	bc_prf_fmt_event(b, sizeof(b), BC_PRF_EV_FUNC_ENTRY);
	assert_string_equal(b, "0x0100");
	bc_prf_fmt_event(b, sizeof(b), 0xffff);
	assert_string_equal(b, "0xffff");
	assert_int_equal(strlen(b), 6);

	assert_int_equal(bc_prf_fmt_rc(b, sizeof(b), 0), 16);
	assert_string_equal(b, "0x00000000000000");
	bc_prf_fmt_rc(b, sizeof(b), 0xffffffffffffffull);
	assert_string_equal(b, "0xffffffffffffff");

	bc_prf_fmt_ip(b, sizeof(b), 0);
	assert_string_equal(b, "0.0.0.0");
	bc_prf_fmt_ip(b, sizeof(b), 0xc0a80a01);
	assert_string_equal(b, "192.168.10.1");
	bc_prf_fmt_ap_pid(b, sizeof(b), 0);
	assert_string_equal(b, "0");
	bc_prf_fmt_ap_pid(b, sizeof(b), 4294967295u);
	assert_string_equal(b, "4294967295");
	bc_prf_fmt_ap_pid(b, sizeof(b), 42);
	assert_string_equal(b, "0000000042");
	bc_prf_fmt_commno(b, sizeof(b), 0);
	assert_string_equal(b, "0x0000000000000000");
	assert_int_equal(strlen(b), 18);

	/* small buffers: cut, terminated, the needed length returned */
	assert_int_equal(bc_prf_fmt_process(b, 4, 12345), 10);
	assert_string_equal(b, "000");
}

static void errno_rc(void **state)
{
	char b[BC_PRF_FIELD_LEN];

	(void)state;
	assert_int_equal(bc_prf_sys_rc(-2), 2); /* ENOENT */
	assert_int_equal(bc_prf_sys_rc(-1), 1);
	assert_int_equal(bc_prf_sys_rc(-4095), 4095);
	assert_int_equal(bc_prf_sys_rc(-4096), 0); /* not an errno */
	assert_int_equal(bc_prf_sys_rc(0), 0);
	assert_int_equal(bc_prf_sys_rc(3), 0);
	assert_int_equal(bc_prf_sys_rc(INT64_MIN), 0);
	bc_prf_fmt_rc(b, sizeof(b), bc_prf_sys_rc(-ENOENT));
	assert_string_equal(b, "0x00000000000002");
	bc_prf_fmt_rc(b, sizeof(b), bc_prf_sys_rc(-4095));
	assert_string_equal(b, "0x00000000000fff");
}

/* ------------------------------------------------------------ names */

static char *repeat_name(char *buf, size_t n)
{
	for (size_t i = 0; i < n; i++)
		buf[i] = (char)('A' + i % 26);
	buf[n] = '\0';
	return buf;
}

static void names(void **state)
{
	char in[128], out[BC_PRF_FIELD_LEN], want[256];
	static const enum bc_prf_trunc m[] = {BC_PRF_TRUNC_FIRST, BC_PRF_TRUNC_MIDDLE,
					      BC_PRF_TRUNC_LAST};

	(void)state;
	/* 32 characters: as they are, under every method */
	repeat_name(in, 32);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(bc_prf_fmt_name(out, sizeof(out), in, m[i]), 32);
		assert_string_equal(out, in);
	}
	/* 33 and 100 characters: 33 */
	for (size_t len = 33; len <= 100; len += 67) {
		repeat_name(in, len);
		assert_int_equal(bc_prf_fmt_name(out, sizeof(out), in, BC_PRF_TRUNC_FIRST), 33);
		snprintf(want, sizeof(want), "%.32s*", in);
		assert_string_equal(out, want);
		assert_int_equal(bc_prf_fmt_name(out, sizeof(out), in, BC_PRF_TRUNC_MIDDLE), 33);
		snprintf(want, sizeof(want), "%.16s*%s", in, in + len - 16);
		assert_string_equal(out, want);
		assert_int_equal(bc_prf_fmt_name(out, sizeof(out), in, BC_PRF_TRUNC_LAST), 33);
		snprintf(want, sizeof(want), "*%s", in + len - 32);
		assert_string_equal(out, want);
	}
	repeat_name(in, 33);
	bc_prf_fmt_name(out, sizeof(out), in, BC_PRF_TRUNC_FIRST);
	assert_string_equal(out, "ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEF*");
	bc_prf_fmt_name(out, sizeof(out), in, BC_PRF_TRUNC_MIDDLE);
	assert_string_equal(out, "ABCDEFGHIJKLMNOP*RSTUVWXYZABCDEFG");
	bc_prf_fmt_name(out, sizeof(out), in, BC_PRF_TRUNC_LAST);
	assert_string_equal(out, "*BCDEFGHIJKLMNOPQRSTUVWXYZABCDEFG");
	/* a cut name cut again stays the same (frames keep cut names) */
	for (int i = 0; i < 3; i++) {
		char again[BC_PRF_FIELD_LEN];

		repeat_name(in, 100);
		bc_prf_fmt_name(out, sizeof(out), in, m[i]);
		bc_prf_fmt_name(again, sizeof(again), out, m[i]);
		assert_string_equal(again, out);
	}
	/* characters, not bytes: 40 two-byte characters */
	in[0] = '\0';
	for (int i = 0; i < 40; i++)
		strcat(in, "\xc3\xa9");
	assert_int_equal(bc_prf_fmt_name(out, sizeof(out), in, BC_PRF_TRUNC_FIRST), 65);
	assert_int_equal(strncmp(out, in, 64), 0);
	assert_string_equal(out + 64, "*");
	/* control characters never reach a field */
	bc_prf_fmt_name(out, sizeof(out), "a\nb\tc", BC_PRF_TRUNC_FIRST);
	assert_string_equal(out, "a?b?c");
	bc_prf_fmt_name(out, sizeof(out), NULL, BC_PRF_TRUNC_FIRST);
	assert_string_equal(out, "");
	/* a small buffer: the needed length */
	repeat_name(in, 100);
	assert_int_equal(bc_prf_fmt_name(out, 5, in, BC_PRF_TRUNC_LAST), 33);
	assert_string_equal(out, "*QRS");

	/* ProcessName: at most 32 characters */
	repeat_name(in, 32);
	assert_int_equal(bc_prf_fmt_process_name(out, sizeof(out), in), 32);
	assert_string_equal(out, in);
	for (size_t len = 33; len <= 100; len += 67) {
		repeat_name(in, len);
		assert_int_equal(bc_prf_fmt_process_name(out, sizeof(out), in), 32);
		assert_int_equal(strncmp(out, in, 32), 0);
	}
}

static void names_middle_33(void **state)
{
	char out[BC_PRF_FIELD_LEN];

	(void)state;
	/* 33 characters, first 16 + * + last 16: the middle one goes */
	bc_prf_fmt_name(out, sizeof(out), "0123456789abcdefXghijklmnopqrstuvw",
			BC_PRF_TRUNC_MIDDLE);
	assert_string_equal(out, "0123456789abcdef*hijklmnopqrstuvw");
}

/* ---------------------------------------------------------------- CSV */

static void csv_quoting(void **state)
{
	char out[256];

	(void)state;
	assert_int_equal(bc_prf_csv_field(out, sizeof(out), "plain"), 5);
	assert_string_equal(out, "plain");
	bc_prf_csv_field(out, sizeof(out), "std::map<int, int>::find");
	assert_string_equal(out, "\"std::map<int, int>::find\"");
	bc_prf_csv_field(out, sizeof(out), "operator,");
	assert_string_equal(out, "\"operator,\"");
	bc_prf_csv_field(out, sizeof(out), "say \"hi\"");
	assert_string_equal(out, "\"say \"\"hi\"\"\"");
	bc_prf_csv_field(out, sizeof(out), "\"");
	assert_string_equal(out, "\"\"\"\"");
	bc_prf_csv_field(out, sizeof(out), "two\nlines");
	assert_string_equal(out, "\"two\nlines\"");
	bc_prf_csv_field(out, sizeof(out), "cr\r");
	assert_string_equal(out, "\"cr\r\"");
	bc_prf_csv_field(out, sizeof(out), "");
	assert_string_equal(out, "");
	assert_int_equal(bc_prf_csv_field(out, 4, "a,b"), 5);
	assert_string_equal(out, "\"a,");
}

/* ------------------------------------------------------------ OPT */

static void opt_ascii(void **state)
{
	uint8_t data[300];
	char *hex = malloc(BC_PRF_OPT_HEX_LEN + 8), ascii[BC_PRF_OPT_MAX + 8];

	(void)state;
	assert_non_null(hex);
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)i;
	assert_int_equal(bc_prf_fmt_opt(hex, BC_PRF_OPT_HEX_LEN, data, 0), 2);
	assert_string_equal(hex, "0x");
	assert_int_equal(bc_prf_fmt_ascii(ascii, sizeof(ascii), data, 0), 0);
	assert_string_equal(ascii, "");

	data[0] = 'A';
	assert_int_equal(bc_prf_fmt_opt(hex, BC_PRF_OPT_HEX_LEN, data, 1), 4);
	assert_string_equal(hex, "0x41");
	bc_prf_fmt_ascii(ascii, sizeof(ascii), data, 1);
	assert_string_equal(ascii, "A");
	data[0] = 0;

	assert_int_equal(bc_prf_fmt_opt(hex, BC_PRF_OPT_HEX_LEN, data, 256), 514);
	assert_int_equal(strlen(hex), 514);
	assert_int_equal(strncmp(hex, "0x000102030405", 14), 0);
	assert_string_equal(hex + 510, "feff");
	assert_int_equal(bc_prf_fmt_ascii(ascii, sizeof(ascii), data, 256), 256);
	assert_int_equal(strlen(ascii), 256);
	assert_int_equal(ascii[0x1f], '.');
	assert_int_equal(ascii[0x20], ' ');
	assert_int_equal(ascii[0x41], 'A');
	assert_int_equal(ascii[0x7e], '~');
	assert_int_equal(ascii[0x7f], '.');
	assert_int_equal(ascii[0xff], '.');

	/* 300 bytes: the first 256, 514 characters */
	assert_int_equal(bc_prf_fmt_opt(hex, BC_PRF_OPT_HEX_LEN, data, 300), 514);
	assert_int_equal(strlen(hex), 514);
	assert_string_equal(hex + 510, "feff");
	assert_int_equal(bc_prf_fmt_ascii(ascii, sizeof(ascii), data, 300), 256);
	/* a small buffer */
	assert_int_equal(bc_prf_fmt_opt(hex, 5, data + 0x10, 2), 6);
	assert_string_equal(hex, "0x10");
	free(hex);
}

static void hexdump(void **state)
{
	uint8_t data[300];
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	memcpy(data, "0123456789abcdefXY\n", 19);
	assert_int_equal(bc_prf_write_hexdump(f, data, 0), 0);
	assert_int_equal(bc_prf_write_hexdump(f, data, 19), 0);
	fclose(f);
	assert_string_equal(
		buf, "Offset +0 +1 +2 +3 +4 +5 +6 +7 +8 +9 +a +b +c +d +e +f 0123456789abcdef\n"
		     "Offset +0 +1 +2 +3 +4 +5 +6 +7 +8 +9 +a +b +c +d +e +f 0123456789abcdef\n"
		     "000000 30 31 32 33 34 35 36 37 38 39 61 62 63 64 65 66 0123456789abcdef\n"
		     "000010 58 59 0a                                        XY.\n");
	free(buf);

	/* 300 bytes: 16 rows, the last at 0000f0 */
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	memset(data, 'z', sizeof(data));
	bc_prf_write_hexdump(f, data, sizeof(data));
	fclose(f);
	assert_non_null(strstr(buf, "\n0000f0 "));
	assert_null(strstr(buf, "\n000100 "));
	free(buf);
}

/* ------------------------------------------------------------ time */

static void expect_time(int64_t wall_ns, bool utc, const char *date, const char *tm,
			const char *sub)
{
	struct bc_prf_time t;

	assert_int_equal(bc_prf_fmt_time(&t, wall_ns, utc), 0);
	assert_string_equal(t.date, date);
	assert_string_equal(t.time, tm);
	assert_string_equal(t.sub, sub);
}

#define NS 1000000000ll

static void times(void **state)
{
	(void)state;
	set_tz("UTC0");
	expect_time(0, false, "1970/01/01", "00:00:00", "000/000/000");
	expect_time(1, false, "1970/01/01", "00:00:00", "000/000/001");
	expect_time(999999999, false, "1970/01/01", "00:00:00", "999/999/999");
	expect_time(1000, false, "1970/01/01", "00:00:00", "000/001/000");
	expect_time(1000000, false, "1970/01/01", "00:00:00", "001/000/000");
	/* year boundary: the last ns of 2023 and the first of 2024 */
	expect_time(1704067199 * NS + 999999999, false, "2023/12/31", "23:59:59", "999/999/999");
	expect_time(1704067200 * NS, false, "2024/01/01", "00:00:00", "000/000/000");
	/* leap day, and the day after it */
	expect_time(1709251199 * NS + 999999999, false, "2024/02/29", "23:59:59", "999/999/999");
	expect_time(1709251200 * NS, false, "2024/03/01", "00:00:00", "000/000/000");
	/* one ns before 1970 */
	expect_time(-1, true, "1969/12/31", "23:59:59", "999/999/999");

	/* local time east of UTC: 2023's last ns is already 2024 in Tokyo */
	set_tz("JST-9");
	expect_time(1704067199 * NS + 999999999, false, "2024/01/01", "08:59:59", "999/999/999");
	expect_time(1704067199 * NS + 999999999, true, "2023/12/31", "23:59:59", "999/999/999");
	expect_time(1704034800 * NS, false, "2024/01/01", "00:00:00", "000/000/000");
	expect_time(1704034799 * NS + 999999999, false, "2023/12/31", "23:59:59", "999/999/999");
	/* and west of it: 2024 starts 5 hours late */
	set_tz("EST5");
	expect_time(1704085199 * NS + 1, false, "2023/12/31", "23:59:59", "000/000/001");
	expect_time(1704085200 * NS, false, "2024/01/01", "00:00:00", "000/000/000");
	expect_time(1704085200 * NS, true, "2024/01/01", "05:00:00", "000/000/000");
	set_tz("UTC0");
}

static void entry_time(void **state)
{
	uint8_t b[16];
	static const uint8_t want[16] = {0, 0, 0, 0, 0x65, 0x53, 0xf1, 0x00,
					 0, 0, 0, 0, 0,	   0x01, 0xe2, 0x40};

	(void)state;
	/* 1700000000 s and 123456 us (the 789 ns are below the unit) */
	bc_prf_entry_time(b, 1700000000 * NS + 123456789);
	assert_memory_equal(b, want, 16);
	bc_prf_entry_time(b, 0);
	assert_memory_equal(b, (uint8_t[16]){0}, 16);
	bc_prf_put_be64(b, 0x0102030405060708ull);
	assert_memory_equal(b, ((uint8_t[8]){1, 2, 3, 4, 5, 6, 7, 8}), 8);
}

static void thread_hash(void **state)
{
	(void)state;
	/* FNV-1a 32 of the 16 bytes pid, tid, birth (little-endian): docs/prf.md */
	assert_int_equal(bc_prf_thread_hash(0, 0, 0), 1768495365u);
	assert_int_equal(bc_prf_thread_hash(1234, 1235, 987654321), 3721509057u);
	assert_int_equal(bc_prf_thread_hash(1234, 1235, 987654321),
			 bc_prf_thread_hash(1234, 1235, 987654321));
	assert_int_not_equal(bc_prf_thread_hash(1234, 1235, 987654321),
			     bc_prf_thread_hash(1234, 1235, 987654322));
	assert_int_not_equal(bc_prf_thread_hash(1234, 1235, 1), bc_prf_thread_hash(1235, 1234, 1));
}

/* ------------------------------------------------------------ options */

static void options(void **state)
{
	struct bc_prf_opts o;
	char err[256];
	uint32_t ip;

	(void)state;
	bc_prf_opts_init(&o);
	assert_int_equal(o.format, BC_PRF_CSV);
	assert_int_equal(o.layout, BC_PRF_LAYOUT_HITACHI);
	assert_int_equal(o.truncation, BC_PRF_TRUNC_FIRST);
	assert_false(o.utc);
	assert_int_equal(bc_prf_format_parse("prf-dump", &o), 0);
	assert_int_equal(o.format, BC_PRF_DUMP);
	assert_int_equal(bc_prf_format_parse("prf-csv", &o), 0);
	assert_int_equal(o.format, BC_PRF_CSV);
	assert_int_equal(bc_prf_format_parse("csv", &o), -EINVAL);
	assert_int_equal(bc_prf_format_parse(NULL, &o), -EINVAL);

	assert_int_equal(bc_prf_opt_parse(&o, "utc", NULL, err, sizeof(err)), 0);
	assert_true(o.utc);
	assert_int_equal(bc_prf_opt_parse(&o, "prf-layout", "cosminexus", err, sizeof(err)), 0);
	assert_int_equal(o.layout, BC_PRF_LAYOUT_COSMINEXUS);
	assert_int_equal(bc_prf_opt_parse(&o, "prf-layout", "hitachi", err, sizeof(err)), 0);
	assert_int_equal(o.layout, BC_PRF_LAYOUT_HITACHI);
	assert_int_equal(bc_prf_opt_parse(&o, "prf-layout", "xml", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "'xml'"));
	assert_int_equal(bc_prf_opt_parse(&o, "prf-truncate", "middle", err, sizeof(err)), 0);
	assert_int_equal(o.truncation, BC_PRF_TRUNC_MIDDLE);
	assert_int_equal(bc_prf_opt_parse(&o, "prf-truncate", "*32", err, sizeof(err)), 0);
	assert_int_equal(o.truncation, BC_PRF_TRUNC_LAST);
	assert_int_equal(bc_prf_opt_parse(&o, "prf-truncate", "32*", err, sizeof(err)), 0);
	assert_int_equal(o.truncation, BC_PRF_TRUNC_FIRST);
	assert_int_equal(bc_prf_opt_parse(&o, "prf-truncate", "half", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "first, middle or last"));
	assert_int_equal(bc_prf_opt_parse(&o, "prf-name", "J2EEServer", err, sizeof(err)), 0);
	assert_string_equal(o.process_name, "J2EEServer");
	assert_int_equal(bc_prf_opt_parse(&o, "prf-name", "", err, sizeof(err)), -EINVAL);
	assert_int_equal(bc_prf_opt_parse(&o, "prf-host-ip", "10.1.2.3", err, sizeof(err)), 0);
	assert_string_equal(o.host_ip, "10.1.2.3");
	assert_int_equal(bc_prf_opt_parse(&o, "prf-host-ip", "10.1.2", err, sizeof(err)), -EINVAL);
	assert_int_equal(bc_prf_opt_parse(&o, "prf-name", NULL, err, sizeof(err)), -EINVAL);
	assert_int_equal(bc_prf_opt_parse(&o, "output", "x", err, sizeof(err)), -ENOENT);
	assert_int_equal(bc_prf_parse_ip("255.255.255.255", &ip), 0);
	assert_int_equal(ip, 0xffffffffu);
	assert_int_equal(bc_prf_parse_ip("1.2.3.256", &ip), -EINVAL);
	assert_non_null(strstr(bc_prf_opts_help, "--prf-truncate"));
}

/* ------------------------------------------------------------ records */

static char *write_one(const struct bc_prf_opts *o, const struct bc_prf_record *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(bc_prf_write(f, o, r), 0);
	fclose(f);
	return buf;
}

static void records(void **state)
{
	static const uint8_t opt[] = {'h', 'i', ',', '"', 0};
	struct bc_prf_record r = {
		.err = true,
		.pid = 1234,
		.tid = 1235,
		.hash = 77,
		.trace = 9,
		.process_name = "my,app",
		.event = BC_PRF_EV_SYS_EXIT,
		.wall_ns = 1704067199 * NS + 123456789,
		.rc = 2,
		.root = {.ip = 0x0a000001, .pid = 1234},
		.intf = "syscall",
		.opr = "std::pair<int, int> f(char const*, \"q\")",
		.opt = opt,
		.opt_len = sizeof(opt),
	};
	struct bc_prf_opts o;
	char fields[32][600];
	char *s;

	(void)state;
	set_tz("UTC0");
	bc_prf_opts_init(&o);
	assert_string_equal(
		bc_prf_csv_header(BC_PRF_LAYOUT_HITACHI),
		"PRF,Process,Thread(hashcode),Trace,ProcessName,Event,Date,Time,"
		"Time(msec/usec/nsec),Rc,ClientAP IP,ClientAP PID,ClientAP CommNo.,RootAP IP,"
		"RootAP PID,RootAP CommNo.,INT,OPR,OPT,ASCII");
	assert_int_equal(csv_split(bc_prf_csv_header(BC_PRF_LAYOUT_HITACHI), fields, 32), 20);
	assert_int_equal(bc_prf_csv_nfields(BC_PRF_LAYOUT_HITACHI), 20);
	assert_int_equal(csv_split(bc_prf_csv_header(BC_PRF_LAYOUT_COSMINEXUS), fields, 32), 25);
	assert_int_equal(bc_prf_csv_nfields(BC_PRF_LAYOUT_COSMINEXUS), 25);

	s = write_one(&o, &r);
	assert_string_equal(s, "ErrRec,0000001234,1235(77),0000000009,\"my,app\",0x0201,2023/12/"
			       "31,23:59:59,123/456/789,0x00000000000002,0.0.0.0,0,"
			       "0x0000000000000000,10.0.0.1,0000001234,0x0000000000000000,syscall,"
			       "\"std::pair<int, int> f(char const*\",0x68692c2200,\"hi,\"\".\"\n");
	assert_int_equal(csv_split(s, fields, 32), 20);
	assert_string_equal(fields[4], "my,app");
	assert_string_equal(fields[17], "std::pair<int, int> f(char const*");
	assert_string_equal(fields[19], "hi,\".");
	free(s);

	o.layout = BC_PRF_LAYOUT_COSMINEXUS;
	o.truncation = BC_PRF_TRUNC_LAST;
	r.err = false;
	r.rc = 0;
	s = write_one(&o, &r);
	assert_int_equal(csv_split(s, fields, 32), 25);
	assert_string_equal(fields[0], "Rec");
	for (int i = 16; i < 20; i++)
		assert_string_equal(fields[i], "****");
	assert_string_equal(fields[20], "syscall");
	assert_string_equal(fields[21], "*ir<int, int> f(char const*, \"q\")");
	assert_string_equal(fields[22], "****");
	assert_string_equal(fields[23], "0x68692c2200");
	free(s);

	o.layout = BC_PRF_LAYOUT_HITACHI;
	o.format = BC_PRF_DUMP;
	o.truncation = BC_PRF_TRUNC_FIRST;
	r.opr = "openat";
	s = write_one(&o, &r);
	assert_string_equal(
		s, "PRF: Rec Process: 0000001234 Thread: 1235(77) Trace: 0000000009\n"
		   "ProcessName: my,app\n"
		   "Event: 0x0201 Time: 2023/12/31 23:59:59 123/456/789 Rc: 0x00000000000000\n"
		   "ClientAP: 0.0.0.0 0 - 0x0000000000000000\n"
		   "RootAP: 10.0.0.1 0000001234 - 0x0000000000000000\n"
		   "INT: syscall OPR: openat\n"
		   "Offset +0 +1 +2 +3 +4 +5 +6 +7 +8 +9 +a +b +c +d +e +f 0123456789abcdef\n"
		   "000000 68 69 2c 22 00                                  hi,\".\n"
		   "\n");
	free(s);
	o.layout = BC_PRF_LAYOUT_COSMINEXUS;
	r.client = (struct bc_prf_ap){.ip = 0x7f000001, .commno = 12};
	s = write_one(&o, &r);
	assert_non_null(strstr(s, "\nClientAP: 127.0.0.1 0 - 0x000000000000000c\n"));
	assert_non_null(strstr(s, "\nSendSCD: **** **** ReceiveSCD: **** ****\n"));
	assert_non_null(strstr(s, "\nINT: syscall OPR: openat Lookup: ****\n"));
	free(s);
}

/* ------------------------------------------------------ socket peers */

/* The IPv4 peer of raw sockaddr bytes, at the limits of each family's length. */
static void sockaddrs(void **state)
{
	struct sockaddr_in in = {.sin_family = AF_INET, .sin_port = htons(80)};
	struct sockaddr_in6 in6 = {.sin6_family = AF_INET6, .sin6_port = htons(443)};
	struct sockaddr_un un = {.sun_family = AF_UNIX, .sun_path = "/run/x"};
	uint8_t raw[sizeof(in6)];
	uint32_t ip = 1;
	uint16_t port = 1;

	(void)state;
	in.sin_addr.s_addr = htonl(0x0a010203); /* 10.1.2.3 */
	assert_true(bc_prf_sockaddr_ipv4((const uint8_t *)&in, sizeof(in), &ip, &port));
	assert_int_equal(ip, 0x0a010203);
	assert_int_equal(port, 80);
	assert_true(bc_prf_sockaddr_ipv4((const uint8_t *)&in, 128, &ip, &port));
	/* one byte short of a sockaddr_in: nothing, and ip/port untouched */
	ip = port = 7;
	assert_false(bc_prf_sockaddr_ipv4((const uint8_t *)&in, sizeof(in) - 1, &ip, &port));
	assert_false(bc_prf_sockaddr_ipv4((const uint8_t *)&in, 1, &ip, &port));
	assert_false(bc_prf_sockaddr_ipv4((const uint8_t *)&in, 0, &ip, &port));
	assert_false(bc_prf_sockaddr_ipv4(NULL, sizeof(in), &ip, &port));
	assert_int_equal(ip, 7);
	assert_int_equal(port, 7);
	/* another family with an AF_INET-sized body */
	in.sin_family = AF_UNSPEC;
	assert_false(bc_prf_sockaddr_ipv4((const uint8_t *)&in, sizeof(in), &ip, &port));
	in.sin_family = 0x1234;
	assert_false(bc_prf_sockaddr_ipv4((const uint8_t *)&in, sizeof(in), &ip, &port));
	assert_false(bc_prf_sockaddr_ipv4((const uint8_t *)&un, sizeof(un), &ip, &port));

	/* IPv6: only an IPv4-mapped address, in a whole sockaddr_in6 */
	in6.sin6_addr.s6_addr[15] = 1; /* ::1 */
	assert_false(bc_prf_sockaddr_ipv4((const uint8_t *)&in6, sizeof(in6), &ip, &port));
	memcpy(in6.sin6_addr.s6_addr, "\0\0\0\0\0\0\0\0\0\0\xff\xff\xc0\xa8\x01\x09", 16);
	assert_true(bc_prf_sockaddr_ipv4((const uint8_t *)&in6, sizeof(in6), &ip, &port));
	assert_int_equal(ip, 0xc0a80109); /* ::ffff:192.168.1.9 */
	assert_int_equal(port, 443);
	assert_false(bc_prf_sockaddr_ipv4((const uint8_t *)&in6, sizeof(in6) - 1, &ip, &port));
	in6.sin6_addr.s6_addr[10] = 0xfe; /* not ::ffff:0:0/96 */
	assert_false(bc_prf_sockaddr_ipv4((const uint8_t *)&in6, sizeof(in6), &ip, &port));
	/* unaligned bytes are fine */
	in.sin_family = AF_INET;
	memcpy(raw + 1, &in, sizeof(in));
	assert_true(bc_prf_sockaddr_ipv4(raw + 1, sizeof(in), &ip, &port));
	assert_int_equal(ip, 0x0a010203);
}

/*
 * One syscall record for pp: an entry (args) or exit (ret) of pid's main thread, with sa as
 * the item of argument index (a NULL pointer's item when sa is NULL and index is not 0).
 * Returns the record's ClientAP.
 */
static struct bc_prf_ap peer_sys(struct bc_prf_peers *pp, bool enter, uint32_t pid, uint32_t nr,
				 uint64_t a0, uint64_t a1, uint64_t a2, int64_t ret,
				 const struct sockaddr_in *sa, uint8_t index)
{
	uint64_t buf[16] = {0};
	struct bc_rec_sys_enter *e = (void *)buf;
	struct bc_rec_sys_exit *x = (void *)buf;
	size_t fixed = enter ? sizeof(*e) : sizeof(*x);
	struct bc_cap_item *ci = (void *)((uint8_t *)buf + fixed);
	struct bc_prf_ap ap = {1, 1, 1};

	if (enter)
		*e = (struct bc_rec_sys_enter){.nr = nr, .args = {a0, a1, a2}};
	else
		*x = (struct bc_rec_sys_exit){.nr = nr, .ret = ret};
	e->h = (struct bc_rec_head){.size = (uint16_t)fixed,
				    .kind = enter ? BC_REC_SYS_ENTER : BC_REC_SYS_EXIT,
				    .pid = pid,
				    .tid = pid};
	if (sa || index) {
		*ci = (struct bc_cap_item){.source = BC_SRC_ARG,
					   .index = index,
					   .type = BC_CAP_BUF,
					   .flags = sa ? 0 : BC_CAPF_NULL,
					   .len = sa ? sizeof(*sa) : 0};
		if (sa)
			memcpy(ci + 1, sa, sizeof(*sa));
		e->h.size = (uint16_t)(e->h.size + sizeof(*ci) + ci->len);
	}
	assert_int_equal(bc_prf_peers_event(pp, &e->h, &ap), 0);
	assert_int_equal(ap.pid, 0);
	return ap;
}

/* connect(fd, sa) = ret: the CommNo of its exit. */
static uint64_t peer_connect(struct bc_prf_peers *pp, uint32_t pid, int fd,
			     const struct sockaddr_in *sa, int64_t ret)
{
	peer_sys(pp, true, pid, 42, (uint64_t)fd, 0, 16, 0, sa, 1);
	return peer_sys(pp, false, pid, 42, 0, 0, 0, ret, NULL, 0).commno;
}

/* A call with fd as its first argument (nr, a1, a2): the CommNo of entry and exit, if equal. */
static uint64_t peer_on(struct bc_prf_peers *pp, uint32_t pid, uint32_t nr, uint64_t fd,
			uint64_t a1, uint64_t a2, int64_t ret)
{
	uint64_t in = peer_sys(pp, true, pid, nr, fd, a1, a2, 0, NULL, 0).commno;

	assert_int_equal(peer_sys(pp, false, pid, nr, 0, 0, 0, ret, NULL, 0).commno, in);
	return in;
}

/* The tracker alone: what the sink tests do not reach. */
static void peers(void **state)
{
	struct sockaddr_in in = {.sin_family = AF_INET, .sin_addr = {htonl(0x0a000001)}};
	struct bc_prf_peers *pp = bc_prf_peers_new();
	struct bc_rec_exit ex = {.h = {.size = sizeof(ex), .kind = BC_REC_PROC_EXIT, .pid = 10}};
	struct bc_prf_ap ap;

	(void)state;
	assert_non_null(pp);
	/* close(-1) and close_range(..., CLOSE_RANGE_CLOEXEC) release nothing */
	assert_int_equal(peer_connect(pp, 10, 5, &in, 0), 1);
	assert_int_equal(peer_connect(pp, 10, 7, &in, -115), 2); /* EINPROGRESS: bound */
	assert_int_equal(peer_on(pp, 10, 3, (uint64_t)-1, 0, 0, -9), 0);
	assert_int_equal(peer_on(pp, 10, 436, 0, ~0u, 4, 0), 0);
	assert_int_equal(peer_on(pp, 10, 1, 5, 0, 1, 1), 1);
	/* close_range(4, 6): 5 goes, 7 stays; fcntl(7, F_DUPFD) gives 10 its binding */
	assert_int_equal(peer_on(pp, 10, 436, 4, 6, 0, 0), 0);
	assert_int_equal(peer_on(pp, 10, 1, 5, 0, 1, 1), 0);
	assert_int_equal(peer_on(pp, 10, 72, 7, 0, 10, 10), 2);
	assert_int_equal(peer_on(pp, 10, 1, 10, 0, 1, 1), 2);
	/* a failed sendto does not bind; connect without an address releases */
	assert_int_equal(peer_sys(pp, true, 10, 44, 11, 0, 1, 0, &in, 4).commno, 3);
	assert_int_equal(peer_sys(pp, false, 10, 44, 0, 0, 0, -101, NULL, 0).commno, 3);
	assert_int_equal(peer_on(pp, 10, 1, 11, 0, 1, 1), 0);
	assert_int_equal(peer_connect(pp, 10, 7, NULL, 0), 0);
	assert_int_equal(peer_on(pp, 10, 1, 7, 0, 1, 1), 0);
	/* a process's exit ends its bindings and its count */
	ap = peer_sys(pp, true, 10, 110, 0, 0, 0, 0, NULL, 0);
	assert_int_equal(bc_prf_peers_event(pp, &ex.h, &ap), 0);
	assert_int_equal(ap.commno, 0);
	assert_int_equal(peer_on(pp, 10, 1, 10, 0, 1, 1), 0);
	assert_int_equal(peer_connect(pp, 10, 5, &in, 0), 1);
	bc_prf_peers_free(pp);
	bc_prf_peers_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(numbers),     cmocka_unit_test(errno_rc),
		cmocka_unit_test(names),       cmocka_unit_test(names_middle_33),
		cmocka_unit_test(csv_quoting), cmocka_unit_test(opt_ascii),
		cmocka_unit_test(hexdump),     cmocka_unit_test(times),
		cmocka_unit_test(entry_time),  cmocka_unit_test(thread_hash),
		cmocka_unit_test(options),     cmocka_unit_test(records),
		cmocka_unit_test(sockaddrs),   cmocka_unit_test(peers),
	};

	set_tz("UTC0");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
