// SPDX-License-Identifier: MIT
/*
 * io DIR [--wait]: known file traffic, so an I/O trace can be checked call by
 * call. Its work (tgt_io_work), each in its own function:
 *   tgt_write_file  creates DIR/data.out: 10 x write(4096), writev(100+200),
 *                   fsync, close
 *   tgt_read_file   reads DIR/data.out in 1000-byte reads to EOF (the last
 *                   one returns 0), pread(500 at 0), lseek, close
 *   tgt_dup_write   opens DIR/dup.out, writes 77 bytes through a dup of it
 *   tgt_fail        opens DIR/missing/x (ENOENT) and reads fd 999 (EBADF)
 *   tgt_pipe        writes 10 bytes into a pipe and reads them back
 * It prints "KEY VALUE" lines: data_written, data_read, data_reads (calls,
 * the one at EOF included), dup_written, pipe_bytes, then "pid P".
 *
 * io DIR --loop N: N x (pwrite 64 bytes, pread 64 bytes) on DIR/loop.out,
 * then "loop_ns NS", the loop alone (tools/bench-io.sh).
 *
 * With --wait it first opens DIR/early.out, prints "ready" and waits for
 * SIGUSR1; it then writes 333 bytes to early.out (opened before any trace
 * attached) in tgt_early_write, does its work, prints "done" and waits for
 * SIGUSR2.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "traced.h"

static char buf[4096];
static long data_written, data_read, data_reads, dup_written, pipe_bytes;
static volatile sig_atomic_t go, stop;

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		go = 1;
	else
		stop = 1;
}

static int open_in(const char *dir, const char *name, int flags)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return open(path, flags, 0644);
}

static void must(long ok, const char *what)
{
	if (ok < 0) {
		fprintf(stderr, "io: %s: %s\n", what, strerror(errno));
		exit(1);
	}
}

TRACED static void tgt_write_file(const char *dir)
{
	struct iovec iov[2] = {{buf, 100}, {buf + 100, 200}};
	int fd = open_in(dir, "data.out", O_WRONLY | O_CREAT | O_TRUNC);
	ssize_t n;

	must(fd, "open data.out");
	for (int i = 0; i < 10; i++) {
		n = write(fd, buf, sizeof(buf));
		must(n, "write");
		data_written += n;
	}
	n = writev(fd, iov, 2);
	must(n, "writev");
	data_written += n;
	must(fsync(fd), "fsync");
	must(close(fd), "close");
}

TRACED static void tgt_read_file(const char *dir)
{
	int fd = open_in(dir, "data.out", O_RDONLY);
	ssize_t n;

	must(fd, "open data.out");
	do {
		n = read(fd, buf, 1000);
		must(n, "read");
		data_read += n;
		data_reads++;
	} while (n > 0);
	n = pread(fd, buf, 500, 0);
	must(n, "pread");
	data_read += n;
	must(lseek(fd, 0, SEEK_SET), "lseek");
	must(close(fd), "close");
}

TRACED static void tgt_dup_write(const char *dir)
{
	int fd = open_in(dir, "dup.out", O_WRONLY | O_CREAT | O_TRUNC);
	int copy;
	ssize_t n;

	must(fd, "open dup.out");
	copy = dup(fd);
	must(copy, "dup");
	n = write(copy, buf, 77);
	must(n, "write");
	dup_written += n;
	close(copy);
	close(fd);
}

TRACED static void tgt_fail(const char *dir)
{
	if (open_in(dir, "missing/x", O_RDONLY) >= 0 || read(999, buf, 1) >= 0) {
		fprintf(stderr, "io: expected failures succeeded\n");
		exit(1);
	}
}

TRACED static void tgt_pipe(void)
{
	int p[2];
	ssize_t n;

	must(pipe(p), "pipe");
	n = write(p[1], "0123456789", 10);
	must(n, "write pipe");
	n = read(p[0], buf, sizeof(buf));
	must(n, "read pipe");
	pipe_bytes += n;
	close(p[0]);
	close(p[1]);
}

TRACED static void tgt_early_write(int fd)
{
	must(write(fd, buf, 333), "write early.out");
}

TRACED static void tgt_io_work(const char *dir)
{
	tgt_write_file(dir);
	tgt_read_file(dir);
	tgt_dup_write(dir);
	tgt_fail(dir);
	tgt_pipe();
	__asm__ volatile("" ::: "memory"); /* no tail call: tgt_io_work stays on the stack */
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int io_loop(const char *dir, long n)
{
	int fd = open_in(dir, "loop.out", O_RDWR | O_CREAT | O_TRUNC);
	uint64_t t0;

	must(fd, "open loop.out");
	t0 = now_ns();
	for (long i = 0; i < n; i++) {
		must(pwrite(fd, buf, 64, 0), "pwrite");
		must(pread(fd, buf, 64, 0), "pread");
	}
	printf("loop_ns %llu\n", (unsigned long long)(now_ns() - t0));
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	bool wait = argc > 2 && !strcmp(argv[2], "--wait");
	int early = -1;

	if (argc < 2) {
		fprintf(stderr, "usage: io DIR [--wait]\n");
		return 2;
	}
	memset(buf, 'x', sizeof(buf));
	if (argc > 3 && !strcmp(argv[2], "--loop"))
		return io_loop(argv[1], atol(argv[3]));
	if (wait) {
		signal(SIGUSR1, on_signal);
		signal(SIGUSR2, on_signal);
		early = open_in(argv[1], "early.out", O_WRONLY | O_CREAT | O_TRUNC);
		must(early, "open early.out");
		printf("ready\n");
		fflush(stdout);
		while (!go)
			usleep(1000);
		tgt_early_write(early);
	}
	tgt_io_work(argv[1]);
	printf("data_written %ld\ndata_read %ld\ndata_reads %ld\ndup_written %ld\n"
	       "pipe_bytes %ld\npid %d\n",
	       data_written, data_read, data_reads, dup_written, pipe_bytes, (int)getpid());
	fflush(stdout);
	if (wait) {
		printf("done\n");
		fflush(stdout);
		while (!stop)
			usleep(1000);
		close(early);
	}
	return 0;
}
