// SPDX-License-Identifier: MIT
/*
 * rtlmark N T: a program that marks its own logical scopes, as the RTL
 * seed's RTL_LOGFILE_CONTEXT_TRACE(aInstance, "{ lengthy calculation")
 * does: T threads each call tgt_mark("{ lengthy calculation"), tgt_step()
 * N times, tgt_mark("} lengthy calculation"), then tgt_mark("done"), all
 * inside tgt_thread(). tgt_mark stands for the program's logging call;
 * record's --rtl-message OBJ:tgt_mark:1 turns its string into a message.
 * Then one more thread ends inside tgt_leave(), by pthread_exit: its scope
 * never returns.
 *
 * Output: "tgt_step COUNT", "scopes COUNT" (opened and closed pairs),
 * "marks COUNT", counted by the program itself, and "left TID", the
 * thread that ended inside tgt_leave.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "traced.h"

#define MAX_THREADS 16

static volatile unsigned long sink;
static __thread unsigned long steps, marks, scopes;

TRACED void tgt_mark(const char *msg)
{
	sink += (unsigned long)strlen(msg);
	marks++;
	if (msg[0] == '}')
		scopes++;
}

TRACED void tgt_step(void)
{
	steps++;
}

struct result {
	long n;
	unsigned long steps, marks, scopes;
};

TRACED void tgt_thread(struct result *r)
{
	tgt_mark("{ lengthy calculation");
	for (long i = 0; i < r->n; i++)
		tgt_step();
	tgt_mark("} lengthy calculation");
	tgt_mark("done");
}

TRACED void tgt_leave(pid_t *tid)
{
	*tid = gettid();
	pthread_exit(NULL);
}

static void *leave(void *arg)
{
	tgt_leave(arg);
	return NULL;
}

static void *run(void *arg)
{
	struct result *r = arg;

	tgt_thread(r);
	r->steps = steps;
	r->marks = marks;
	r->scopes = scopes;
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100;
	int t = argc > 2 ? atoi(argv[2]) : 2;
	struct result r[MAX_THREADS];
	pthread_t th[MAX_THREADS];
	unsigned long s = 0, m = 0, sc = 0;

	if (t < 1 || t > MAX_THREADS || n < 0) {
		fprintf(stderr, "usage: rtlmark N T (T 1..%d)\n", MAX_THREADS);
		return 2;
	}
	for (int i = 0; i < t; i++) {
		r[i] = (struct result){.n = n};
		if (pthread_create(&th[i], NULL, run, &r[i]))
			return 1;
	}
	for (int i = 0; i < t; i++) {
		pthread_join(th[i], NULL);
		s += r[i].steps;
		m += r[i].marks;
		sc += r[i].scopes;
	}
	pid_t left = 0;

	if (pthread_create(&th[0], NULL, leave, &left) || pthread_join(th[0], NULL))
		return 1;
	printf("tgt_step %lu\nscopes %lu\nmarks %lu\nleft %d\n", s, sc, m, (int)left);
	return 0;
}
