// SPDX-License-Identifier: MIT
/*
 * gtfmsg N LEN: calls tgt_message(text, LEN) N times with a LEN-byte string
 * (at most 4000 bytes), so a tracer capturing the string writes records too
 * large for one GTF record. The string is written first to gtfmsg.txt in
 * the working directory (its bytes, no newline), so a test can compare what
 * was captured with what was passed, byte for byte.
 *
 * Output: "tgt_message COUNT", counted by the program itself.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traced.h"

#define LEN_MAX 4000

static volatile unsigned long sink;
static unsigned long calls;

TRACED void tgt_message(const char *text, unsigned long len)
{
	sink += (unsigned char)text[len / 2] + len;
	calls++;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10;
	long len = argc > 2 ? atol(argv[2]) : 1000;
	static char text[LEN_MAX + 1];
	FILE *f;

	if (n < 0 || len < 1 || len > LEN_MAX) {
		fprintf(stderr, "usage: gtfmsg N LEN (1..%d)\n", LEN_MAX);
		return 2;
	}
	/* printable and not periodic in 256: a part in the wrong place shows */
	for (long i = 0; i < len; i++)
		text[i] = (char)('!' + (i * 7 + i / 89) % 94);
	f = fopen("gtfmsg.txt", "w");
	if (!f || fwrite(text, 1, (size_t)len, f) != (size_t)len || fclose(f)) {
		perror("gtfmsg.txt");
		return 1;
	}
	for (long i = 0; i < n; i++)
		tgt_message(text, (unsigned long)len);
	printf("tgt_message %lu\n", calls);
	return 0;
}
