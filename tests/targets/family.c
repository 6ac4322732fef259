// SPDX-License-Identifier: MIT
/*
 * family PLUGIN: a process tree for descendant experiments.
 *   1st fork:  a child calling tgt_child_work 2 times       -> _f1.er
 *   2nd fork:  a child that execs this program in "exec" mode,
 *              which calls tgt_exec_work 3 times             -> _f2.er, _f2_x1.er
 *   clone with CLONE_FILES (shares the fd table: neither a
 *   thread nor fork-like), calling tgt_clone_work once      -> _C1.er
 *   then dlopen(PLUGIN), tgt_plugin_work 4 times, dlclose.
 * Every child is waited for; the output names what ran where.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "traced.h"

TRACED void tgt_child_work(void)
{
	__asm__ volatile("" ::: "memory");
}

TRACED void tgt_exec_work(void)
{
	__asm__ volatile("" ::: "memory");
}

TRACED int tgt_clone_work(void *arg)
{
	(void)arg;
	__asm__ volatile("" ::: "memory");
	return 0;
}

static void wait_ok(pid_t pid, const char *what)
{
	int status;

	if (waitpid(pid, &status, __WALL) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "family: %s failed\n", what);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	static char stack[64 * 1024];
	char self[PATH_MAX];
	ssize_t n;
	pid_t pid;

	if (argc > 1 && !strcmp(argv[1], "exec")) {
		for (int i = 0; i < 3; i++)
			tgt_exec_work();
		return 0;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: family PLUGIN.so\n");
		return 2;
	}
	pid = fork();
	if (pid == 0) {
		tgt_child_work();
		tgt_child_work();
		_exit(0);
	}
	wait_ok(pid, "fork child");

	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return 1;
	self[n] = 0;
	pid = fork();
	if (pid == 0) {
		execl(self, self, "exec", (char *)NULL);
		_exit(127);
	}
	wait_ok(pid, "exec child");

	pid = clone(tgt_clone_work, stack + sizeof(stack), CLONE_FILES | SIGCHLD, NULL);
	if (pid < 0)
		return 1;
	wait_ok(pid, "clone child");

	void *h = dlopen(argv[1], RTLD_NOW);
	int (*work)(int) = h ? (int (*)(int))dlsym(h, "tgt_plugin_work") : NULL;

	if (!work) {
		fprintf(stderr, "family: %s\n", dlerror());
		return 1;
	}
	for (int i = 0; i < 4; i++)
		work(i);
	dlclose(h);
	printf("family: done\n");
	return 0;
}
