// SPDX-License-Identifier: MIT
/*
 * attach THREADS N [PLUGIN]: a running process to attach to with -P.
 * Prints "ready PID", then its THREADS threads call tgt_idle until SIGUSR1.
 * Phase 1 (after SIGUSR1): every thread, and one thread created then, calls
 * tgt_tick N times; with PLUGIN, the main thread dlopens it and calls
 * tgt_plugin_work 4 times. Prints the phase-1 counts and "phase1 done".
 * Phase 2 (after SIGUSR2): the same calls again, then "result SUM": a sum
 * over every call that tracing must not change, and exits 0.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "traced.h"

static atomic_int phase;
static atomic_int done_in_phase;
static long n_calls;
static atomic_ullong total;

TRACED void tgt_idle(void)
{
	__asm__ volatile("" ::: "memory");
}

TRACED unsigned long long tgt_tick(unsigned long long x)
{
	return (x * 2654435761ULL) % 1000003ULL;
}

static void run_phase(long base)
{
	unsigned long long sum = 0;

	for (long i = 0; i < n_calls; i++)
		sum += tgt_tick((unsigned long long)(base + i));
	atomic_fetch_add(&total, sum);
}

static void *worker(void *arg)
{
	long id = (long)arg;

	while (atomic_load(&phase) == 0) {
		tgt_idle();
		usleep(200);
	}
	run_phase(id * 1000000);
	atomic_fetch_add(&done_in_phase, 1);
	while (atomic_load(&phase) < 2)
		usleep(1000);
	run_phase(id * 1000000 + 500000);
	return NULL;
}

static void *late_worker(void *arg)
{
	(void)arg;
	run_phase(99000000);
	return NULL;
}

static void plugin_calls(const char *path)
{
	int (*work)(int);
	void *h;

	if (!path)
		return;
	h = dlopen(path, RTLD_NOW);
	if (!h || !(work = (int (*)(int))dlsym(h, "tgt_plugin_work"))) {
		fprintf(stderr, "attach: %s\n", dlerror());
		exit(1);
	}
	for (int i = 0; i < 4; i++)
		atomic_fetch_add(&total, (unsigned long long)work(i));
	dlclose(h);
}

int main(int argc, char **argv)
{
	pthread_t *tids, late;
	sigset_t set;
	int nthreads, sig;

	if (argc < 3) {
		fprintf(stderr, "usage: attach THREADS N [PLUGIN]\n");
		return 2;
	}
	nthreads = atoi(argv[1]);
	n_calls = atol(argv[2]);
	tids = calloc((size_t)nthreads, sizeof(*tids));
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	for (long i = 0; i < nthreads; i++)
		pthread_create(&tids[i], NULL, worker, (void *)(i + 1));
	printf("ready %d\n", (int)getpid());
	fflush(stdout);

	sigwait(&set, &sig);
	atomic_store(&phase, 1);
	pthread_create(&late, NULL, late_worker, NULL);
	pthread_join(late, NULL);
	plugin_calls(argc > 3 ? argv[3] : NULL);
	while (atomic_load(&done_in_phase) < nthreads)
		usleep(1000);
	printf("tgt_tick %ld\ntgt_plugin_work %d\nphase1 done\n", (nthreads + 1) * n_calls,
	       argc > 3 ? 4 : 0);
	fflush(stdout);

	do
		sigwait(&set, &sig);
	while (sig != SIGUSR2);
	atomic_store(&phase, 2);
	for (int i = 0; i < nthreads; i++)
		pthread_join(tids[i], NULL);
	pthread_create(&late, NULL, late_worker, NULL);
	pthread_join(late, NULL);
	plugin_calls(argc > 3 ? argv[3] : NULL);
	printf("result %llu\n", (unsigned long long)atomic_load(&total));
	free(tids);
	return 0;
}
