// SPDX-License-Identifier: MIT
/*
 * exceptions N [--wait]: C++ exceptions thrown through traced frames.
 * N times: catcher(i) calls ns::Worker::middle(i), which calls thrower(i);
 * thrower throws std::runtime_error for every third i, and catcher catches
 * it two frames up. Prints "sum S", "caught C" (what tracing must not
 * change) and exits 0.
 *
 * With --wait it first prints "ready PID" and waits for SIGUSR1 (to be
 * attached to with -P), then runs, prints, and waits for SIGUSR2.
 *
 * Built by the integration test with g++, as users build C++: -O2.
 */
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <unistd.h>

static volatile sig_atomic_t go, stop;

__attribute__((noinline)) int thrower(int i)
{
	if (i % 3 == 0)
		throw std::runtime_error("every third");
	return i * 2;
}

namespace ns
{
struct Worker {
	__attribute__((noinline)) static int middle(int i)
	{
		int r = thrower(i);
		__asm__ volatile("" ::: "memory");
		return r + 1;
	}
};
} // namespace ns

__attribute__((noinline)) long catcher(int i, long *caught)
{
	try {
		return ns::Worker::middle(i);
	} catch (const std::runtime_error &) {
		++*caught;
		return 0;
	}
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? std::atoi(argv[1]) : 1000;
	bool wait = argc > 2 && !std::strcmp(argv[2], "--wait");
	long sum = 0, caught = 0;

	if (wait) {
		std::signal(SIGUSR1, [](int) { go = 1; });
		std::signal(SIGUSR2, [](int) { stop = 1; });
		std::printf("ready %d\n", (int)getpid());
		std::fflush(stdout);
		while (!go)
			usleep(1000);
	}
	for (int i = 0; i < n; i++)
		sum += catcher(i, &caught);
	std::printf("sum %ld\ncaught %ld\n", sum, caught);
	std::fflush(stdout);
	while (wait && !stop)
		usleep(1000);
	return 0;
}
