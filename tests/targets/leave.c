// SPDX-License-Identifier: MIT
/*
 * leave MODE N: traced calls left by every way but a return.
 *   jmp      N times: tgt_outer -> tgt_inner, which longjmps back to main
 *   sigjmp   the same with sigsetjmp/siglongjmp, from a signal handler
 *            (tgt_handler) that tgt_inner raises
 *   ctx      a coroutine (makecontext) whose tgt_coro calls tgt_step and
 *            swaps back to main in the middle of it, N times; main resumes it
 *   signal   N times: tgt_work raises SIGUSR1, whose handler calls
 *            tgt_handler, and returns normally
 *   thread   a thread in tgt_thread_body calls pthread_exit inside it
 *   exec     tgt_before_exec execs this program in mode "done"
 *   done     calls tgt_after_exec once
 * Each mode prints "MODE result R" (what tracing must not change) and its
 * calls: "tgt_NAME COUNT" for every function it called.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

#include "traced.h"

static jmp_buf jb;
static sigjmp_buf sjb;
static volatile int use_sig;
static long counts[8];
enum { OUTER, INNER, HANDLER, CORO, STEP, WORK, BODY, EXEC };

TRACED void tgt_inner(int i)
{
	counts[INNER]++;
	if (use_sig)
		raise(SIGUSR1);
	else
		longjmp(jb, i + 1);
}

TRACED void tgt_outer(int i)
{
	counts[OUTER]++;
	tgt_inner(i);
	counts[OUTER] += 1000; /* never reached */
}

TRACED void tgt_handler(int sig)
{
	counts[HANDLER]++;
	if (use_sig)
		siglongjmp(sjb, sig);
}

static void on_signal(int sig)
{
	tgt_handler(sig);
}

static ucontext_t main_ctx, coro_ctx;

TRACED long tgt_step(long i)
{
	counts[STEP]++;
	/* back to main in the middle of this call; main resumes us here */
	swapcontext(&coro_ctx, &main_ctx);
	return i * 3;
}

TRACED void tgt_coro(void)
{
	long sum = 0;

	counts[CORO]++;
	for (long i = 0;; i++)
		sum += tgt_step(i);
}

TRACED long tgt_work(long i)
{
	counts[WORK]++;
	raise(SIGUSR1);
	return i + 1;
}

TRACED void tgt_thread_body(void)
{
	counts[BODY]++;
	pthread_exit(NULL);
}

static void *thread_main(void *arg)
{
	(void)arg;
	tgt_thread_body();
	return NULL;
}

TRACED void tgt_before_exec(const char *self)
{
	counts[EXEC]++;
	execl(self, self, "done", "1", (char *)NULL);
	perror("exec");
	exit(1);
}

TRACED void tgt_after_exec(void)
{
	__asm__ volatile("" ::: "memory");
}

static void print_counts(const char *mode, long result)
{
	static const char *const names[] = {"tgt_outer",       "tgt_inner",	 "tgt_handler",
					    "tgt_coro",	       "tgt_step",	 "tgt_work",
					    "tgt_thread_body", "tgt_before_exec"};

	printf("%s result %ld\n", mode, result);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (counts[i])
			printf("%s %ld\n", names[i], counts[i]);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	long n = argc > 2 ? atol(argv[2]) : 0;
	volatile long result = 0;
	static char stack[256 << 10];

	signal(SIGUSR1, on_signal);
	if (!strcmp(mode, "jmp") || !strcmp(mode, "sigjmp")) {
		use_sig = !strcmp(mode, "sigjmp");
		for (volatile long i = 0; i < n; i++) {
			volatile long got = use_sig ? sigsetjmp(sjb, 1) : setjmp(jb);

			if (got) {
				result += got;
				continue;
			}
			tgt_outer((int)i);
		}
	} else if (!strcmp(mode, "ctx")) {
		getcontext(&coro_ctx);
		coro_ctx.uc_stack.ss_sp = stack;
		coro_ctx.uc_stack.ss_size = sizeof(stack);
		coro_ctx.uc_link = &main_ctx;
		makecontext(&coro_ctx, tgt_coro, 0);
		for (long i = 0; i < n; i++) {
			swapcontext(&main_ctx, &coro_ctx);
			result++;
		}
	} else if (!strcmp(mode, "signal")) {
		for (long i = 0; i < n; i++)
			result += tgt_work(i);
	} else if (!strcmp(mode, "thread")) {
		pthread_t t;

		for (long i = 0; i < n; i++) {
			pthread_create(&t, NULL, thread_main, NULL);
			pthread_join(t, NULL);
			result++;
		}
	} else if (!strcmp(mode, "exec")) {
		print_counts(mode, 0);
		fflush(stdout);
		tgt_before_exec("/proc/self/exe");
	} else if (!strcmp(mode, "done")) {
		tgt_after_exec();
		result = 1;
	} else {
		fprintf(stderr, "usage: leave jmp|sigjmp|ctx|signal|thread|exec|done N\n");
		return 2;
	}
	print_counts(mode, result);
	return 0;
}
