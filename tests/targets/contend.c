// SPDX-License-Identifier: MIT
/*
 * contend ROUNDS HOLD_MS: two threads contend on one mutex. The holder
 * (tgt_holder) takes it, signals the waiter that it has it, keeps it
 * HOLD_MS, then lets go; the waiter (tgt_waiter) then blocks in
 * pthread_mutex_lock for about HOLD_MS each round. Prints "waited_ms W"
 * (the waiter's time inside pthread_mutex_lock, measured around the calls),
 * "rounds R", "mutex 0xADDR" and "pid P"; the main thread joins both
 * threads (short waits: under any sensible threshold only at the end).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "traced.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static sem_t taken, round_done;
static int rounds = 5;
static long hold_ms = 20;
static double waited_ms;

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

TRACED static void *tgt_holder(void *arg)
{
	struct timespec hold = {hold_ms / 1000, (hold_ms % 1000) * 1000000};

	(void)arg;
	for (int i = 0; i < rounds; i++) {
		pthread_mutex_lock(&lock);
		sem_post(&taken);
		nanosleep(&hold, NULL);
		pthread_mutex_unlock(&lock);
		sem_wait(&round_done);
	}
	return NULL;
}

TRACED static void *tgt_waiter(void *arg)
{
	(void)arg;
	for (int i = 0; i < rounds; i++) {
		double t0;

		sem_wait(&taken);
		t0 = now_ms();
		pthread_mutex_lock(&lock);
		waited_ms += now_ms() - t0;
		pthread_mutex_unlock(&lock);
		sem_post(&round_done);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t h, w;

	if (argc > 1)
		rounds = atoi(argv[1]);
	if (argc > 2)
		hold_ms = atol(argv[2]);
	if (rounds < 1 || hold_ms < 1) {
		fprintf(stderr, "usage: contend ROUNDS HOLD_MS\n");
		return 2;
	}
	sem_init(&taken, 0, 0);
	sem_init(&round_done, 0, 0);
	pthread_create(&h, NULL, tgt_holder, NULL);
	pthread_create(&w, NULL, tgt_waiter, NULL);
	pthread_join(w, NULL);
	pthread_join(h, NULL);
	printf("waited_ms %.3f\nrounds %d\nmutex %p\npid %d\n", waited_ms, rounds, (void *)&lock,
	       (int)getpid());
	return 0;
}
