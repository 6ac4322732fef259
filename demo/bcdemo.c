// SPDX-License-Identifier: MIT
/*
 * bcdemo: the program `make demo` records.
 *
 *   bcdemo [N]    N = work scale, default 3
 *
 * Small, quick (a few tens of milliseconds) and deterministic, so that
 * everything a trace of it shows has a known cause:
 *
 *   1. load_config()       opens a file that does not exist: a failed openat
 *                          (ENOENT), which the program shrugs off.
 *   2. file_roundtrip(N)   writes N records to a temporary file and reads them
 *                          back: openat, N x write, close, openat, read,
 *                          close, unlink.
 *   3. run_workers(N)      WORKERS threads, each running worker():
 *                            N x compute() -> 2 x transform() -> 3 x leaf()
 *                            1 x fib(FIB_ARG), recursive
 *                            1 x nap(): a nanosleep of NAP_MS
 *   4. fork_child(N)       fork(); the child runs child_task() (N x compute())
 *                          and exits with status 0.
 *   5. exec_child(N)       fork(); the child executes this same program as
 *                          "bcdemo --child N", which runs child_mode()
 *                          (N x compute()) and exits with status 0.
 *
 * The parent waits for each child before going on, so the output comes in
 * the same order every time. Every process then prints how often each
 * of its functions ran, one line per process, to compare with the trace:
 *
 *   bcdemo: calls pid=PID role=parent main=1 ... compute=9 transform=18 leaf=54
 *
 * The counts are kept by the functions themselves (COUNT_CALL), so they are
 * what really ran. Functions of the C runtime that also live in the
 * executable (_start, frame_dummy, ...) are not counted.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_SCALE 3
#define MAX_SCALE     1000
#define WORKERS	      3
#define FIB_ARG	      6 /* fib(6) makes 25 calls */
#define NAP_MS	      20
#define MISSING_CONF  "/nonexistent/bcdemo.conf"

/*
 * Each function must stay a call of its own, under its own name, even if
 * someone builds this with plain -O2: not inlined, and not cloned into a
 * "compute.constprop.0" that a trace would show instead of compute.
 */
#if defined(__has_attribute)
#if __has_attribute(noipa)
#define TRACED __attribute__((noinline, noipa))
#endif
#endif
#ifndef TRACED
#define TRACED __attribute__((noinline))
#endif

/* Every function of this file, in the order the summary lists them. */
#define DEMO_FUNCTIONS(X)                                                                          \
	X(main)                                                                                    \
	X(parse_scale)                                                                             \
	X(load_config)                                                                             \
	X(file_roundtrip)                                                                          \
	X(run_workers)                                                                             \
	X(worker)                                                                                  \
	X(compute)                                                                                 \
	X(transform)                                                                               \
	X(leaf)                                                                                    \
	X(fib)                                                                                     \
	X(nap)                                                                                     \
	X(fork_child)                                                                              \
	X(child_task)                                                                              \
	X(exec_child)                                                                              \
	X(child_mode)                                                                              \
	X(wait_child)                                                                              \
	X(print_calls)

#define AS_ENUM(name) FN_##name,
#define AS_NAME(name) #name,
enum demo_function { DEMO_FUNCTIONS(AS_ENUM) FN_COUNT };
static const char *const function_names[FN_COUNT] = {DEMO_FUNCTIONS(AS_NAME)};

/*
 * Calls made by the current thread, and by the worker threads already joined.
 *
 * Per-thread counters rather than one shared array of atomics: an atomic
 * increment is a LOCK-prefixed instruction, and where the compiler makes it
 * the first instruction of a function (leaf() would start with it) the kernel
 * cannot place a uprobe, because x86 refuses to probe LOCK-prefixed
 * instructions, and leaf() would silently be missing from the trace.
 */
static __thread unsigned long thread_calls[FN_COUNT];
static unsigned long joined_thread_calls[FN_COUNT];

/* A macro, not a function: a helper would be one more call in every trace. */
#define COUNT_CALL(name) (thread_calls[FN_##name]++)

/* The three innermost levels: compute -> transform -> leaf. */
TRACED long leaf(long x)
{
	COUNT_CALL(leaf);
	return x * 7 + 1;
}

TRACED long transform(long x)
{
	COUNT_CALL(transform);
	long sum = 0;

	for (int i = 0; i < 3; i++)
		sum += leaf(x + i);
	return sum;
}

TRACED long compute(long x)
{
	COUNT_CALL(compute);
	return transform(x) - transform(x + 1);
}

TRACED long fib(int n)
{
	COUNT_CALL(fib);
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

/*
 * Called through syscall(): glibc's nanosleep() issues clock_nanosleep, and
 * the trace should show the nanosleep this code asks for.
 */
TRACED void nap(void)
{
	COUNT_CALL(nap);
	struct timespec ts = {.tv_sec = 0, .tv_nsec = NAP_MS * 1000000L};

	syscall(SYS_nanosleep, &ts, NULL);
}

struct worker_job {
	int index;
	int scale;
	long result;
	unsigned long calls[FN_COUNT]; /* the thread's counts, copied as it ends */
};

TRACED void *worker(void *opaque)
{
	COUNT_CALL(worker);
	struct worker_job *job = opaque;
	char name[16];

	/* Named threads are easier to tell apart in a report. */
	snprintf(name, sizeof(name), "bcdemo-w%d", job->index);
	pthread_setname_np(pthread_self(), name);
	for (int i = 0; i < job->scale; i++)
		job->result += compute(i);
	job->result += fib(FIB_ARG);
	nap();
	memcpy(job->calls, thread_calls, sizeof(job->calls));
	return NULL;
}

TRACED void run_workers(int scale)
{
	COUNT_CALL(run_workers);
	pthread_t threads[WORKERS];
	struct worker_job jobs[WORKERS];

	for (int i = 0; i < WORKERS; i++) {
		jobs[i] = (struct worker_job){.index = i + 1, .scale = scale};
		int err = pthread_create(&threads[i], NULL, worker, &jobs[i]);

		if (err) {
			fprintf(stderr, "bcdemo: pthread_create: %s\n", strerror(err));
			exit(1);
		}
	}
	long total = 0;

	for (int i = 0; i < WORKERS; i++) {
		pthread_join(threads[i], NULL);
		total += jobs[i].result;
		for (int fn = 0; fn < FN_COUNT; fn++)
			joined_thread_calls[fn] += jobs[i].calls[fn];
	}
	printf("bcdemo: %d threads done, result %ld\n", WORKERS, total);
}

/* A failing open, on purpose: an optional file that is not there. */
TRACED void load_config(void)
{
	COUNT_CALL(load_config);
	int fd = open(MISSING_CONF, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		printf("bcdemo: open %s: %s (expected, using defaults)\n", MISSING_CONF,
		       strerror(errno));
		return;
	}
	close(fd);
}

TRACED int file_roundtrip(int scale)
{
	COUNT_CALL(file_roundtrip);
	const char *tmpdir = getenv("TMPDIR");
	char path[PATH_MAX];
	char record[32];
	char readback[MAX_SCALE * sizeof(record)];
	size_t written = 0;

	snprintf(path, sizeof(path), "%s/bcdemo.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	int fd = mkstemp(path);

	if (fd < 0) {
		perror("bcdemo: mkstemp");
		return -1;
	}
	/* One write per record, so the trace shows N writes. */
	for (int i = 0; i < scale; i++) {
		int len = snprintf(record, sizeof(record), "record %d\n", i);

		if (write(fd, record, (size_t)len) != len) {
			perror("bcdemo: write");
			close(fd);
			unlink(path);
			return -1;
		}
		written += (size_t)len;
	}
	close(fd);

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		perror("bcdemo: open");
		unlink(path);
		return -1;
	}
	ssize_t got = read(fd, readback, sizeof(readback));

	close(fd);
	unlink(path);
	if (got != (ssize_t)written) {
		fprintf(stderr, "bcdemo: read back %zd bytes, wrote %zu\n", got, written);
		return -1;
	}
	printf("bcdemo: %d records written to and read back from %s\n", scale, path);
	return 0;
}

TRACED void print_calls(const char *role)
{
	COUNT_CALL(print_calls);
	printf("bcdemo: calls pid=%d role=%s", getpid(), role);
	for (int fn = 0; fn < FN_COUNT; fn++) {
		unsigned long calls = thread_calls[fn] + joined_thread_calls[fn];

		if (calls)
			printf(" %s=%lu", function_names[fn], calls);
	}
	printf("\n");
}

TRACED void child_task(int scale)
{
	COUNT_CALL(child_task);
	long result = 0;

	for (int i = 0; i < scale; i++)
		result += compute(i);
	printf("bcdemo: forked child %d computed %ld\n", getpid(), result);
}

/* Returns 0 when the child exited with status 0. */
TRACED int wait_child(pid_t pid)
{
	COUNT_CALL(wait_child);
	int status;

	if (waitpid(pid, &status, 0) < 0) {
		perror("bcdemo: waitpid");
		return -1;
	}
	if (WIFEXITED(status)) {
		printf("bcdemo: child %d exited with status %d\n", pid, WEXITSTATUS(status));
		return WEXITSTATUS(status) ? -1 : 0;
	}
	printf("bcdemo: child %d killed by signal %d\n", pid, WTERMSIG(status));
	return -1;
}

TRACED int fork_child(int scale)
{
	COUNT_CALL(fork_child);
	/* Unflushed output would be copied into the child and printed twice. */
	fflush(stdout);
	pid_t pid = fork();

	if (pid < 0) {
		perror("bcdemo: fork");
		return -1;
	}
	if (pid == 0) {
		/* The child's own counts: forget what the parent did before fork(). */
		memset(thread_calls, 0, sizeof(thread_calls));
		memset(joined_thread_calls, 0, sizeof(joined_thread_calls));
		child_task(scale);
		print_calls("fork-child");
		fflush(stdout);
		/* _exit: the parent's atexit handlers are not the child's business. */
		_exit(0);
	}
	return wait_child(pid);
}

TRACED int exec_child(int scale)
{
	COUNT_CALL(exec_child);
	/*
	 * Run the binary /proc/self/exe points to, by its real path: exec'ing
	 * "/proc/self/exe" itself would name the new process "exe".
	 */
	char self[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (len < 0) {
		perror("bcdemo: readlink /proc/self/exe");
		return -1;
	}
	self[len] = '\0';

	char scale_arg[16];

	snprintf(scale_arg, sizeof(scale_arg), "%d", scale);
	fflush(stdout);
	pid_t pid = fork();

	if (pid < 0) {
		perror("bcdemo: fork");
		return -1;
	}
	if (pid == 0) {
		execl(self, "bcdemo", "--child", scale_arg, (char *)NULL);
		perror("bcdemo: execl");
		_exit(127);
	}
	return wait_child(pid);
}

/* What "bcdemo --child N" runs, in the freshly exec'd process. */
TRACED int child_mode(int scale)
{
	COUNT_CALL(child_mode);
	long result = 0;

	for (int i = 0; i < scale; i++)
		result += compute(i);
	printf("bcdemo: exec'd child %d computed %ld\n", getpid(), result);
	print_calls("exec-child");
	return 0;
}

TRACED int parse_scale(const char *text)
{
	COUNT_CALL(parse_scale);
	char *end;
	long scale = strtol(text, &end, 10);

	if (*text == '\0' || *end != '\0' || scale < 1 || scale > MAX_SCALE) {
		fprintf(stderr, "usage: bcdemo [N]   (N = work scale, 1..%d, default %d)\n",
			MAX_SCALE, DEFAULT_SCALE);
		exit(2);
	}
	return (int)scale;
}

int main(int argc, char **argv)
{
	COUNT_CALL(main);
	if (argc == 3 && strcmp(argv[1], "--child") == 0)
		return child_mode(parse_scale(argv[2]));
	if (argc > 2) {
		fprintf(stderr, "usage: bcdemo [N]\n");
		return 2;
	}

	int scale = argc == 2 ? parse_scale(argv[1]) : DEFAULT_SCALE;
	int failed = 0;

	printf("bcdemo: pid %d, scale %d, %d worker threads\n", getpid(), scale, WORKERS);
	load_config();
	failed |= file_roundtrip(scale);
	run_workers(scale);
	failed |= fork_child(scale);
	failed |= exec_child(scale);
	print_calls("parent");
	return failed ? 1 : 0;
}
