// SPDX-License-Identifier: MIT
/* The detacher (bpfcollect/detacher.h): a second owner of the uprobe links. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bpfcollect/detacher.h"
#include "bpfcollect/tracefs.h"

#define FDS_PER_MSG 250 /* SCM_RIGHTS carries at most 253 */
#define MAX_FDS	    65536

enum msg {
	MSG_RETURNS = 'R', /* the descriptors that come with it are return-probe links */
	MSG_OTHERS = 'O',  /* entry links and other uprobes */
	MSG_RELEASE = 'X', /* the agent detaches itself: let go */
};

struct held {
	int *fds;
	size_t n, cap;
};

static int hold(struct held *h, const int *fds, size_t n)
{
	if (h->n + n > MAX_FDS)
		return -ENOSPC;
	if (h->n + n > h->cap) {
		size_t cap = h->cap ? h->cap * 2 : 64;
		int *v;

		while (cap < h->n + n)
			cap *= 2;
		v = realloc(h->fds, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		h->fds = v;
		h->cap = cap;
	}
	memcpy(h->fds + h->n, fds, n * sizeof(*fds));
	h->n += n;
	return 0;
}

/* One message: its tag, and the descriptors it carried (into fds[], *n). 0 at EOF. */
static ssize_t receive(int sock, char *tag, int *fds, size_t *n)
{
	char control[CMSG_SPACE(FDS_PER_MSG * sizeof(int))];
	struct iovec iov = {.iov_base = tag, .iov_len = 1};
	struct msghdr m = {.msg_iov = &iov,
			   .msg_iovlen = 1,
			   .msg_control = control,
			   .msg_controllen = sizeof(control)};
	ssize_t r;

	*n = 0;
	do
		r = recvmsg(sock, &m, MSG_CMSG_CLOEXEC);
	while (r < 0 && errno == EINTR);
	if (r <= 0)
		return r;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		*n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		memcpy(fds, CMSG_DATA(c), *n * sizeof(int));
	}
	return r;
}

static void *close_one(void *arg)
{
	close((int)(intptr_t)arg);
	return NULL;
}

/* Closes every descriptor of h at once: one thread each (sequentially where none starts). */
static void close_together(struct held *h)
{
	pthread_t *t = calloc(h->n, sizeof(*t));
	bool *started = calloc(h->n, sizeof(*started));

	for (size_t i = 0; i < h->n; i++)
		if (!t || !started ||
		    !(started[i] =
			      !pthread_create(&t[i], NULL, close_one, (void *)(intptr_t)h->fds[i])))
			close(h->fds[i]);
	for (size_t i = 0; t && started && i < h->n; i++)
		if (started[i])
			pthread_join(t[i], NULL);
	free(t);
	free(started);
}

static void close_all(struct held *h)
{
	for (size_t i = 0; i < h->n; i++)
		close(h->fds[i]);
}

static _Noreturn void run(int sock, volatile uint32_t *entries_stopped)
{
	struct held returns = {0}, others = {0};
	pid_t agent = getppid();
	int fds[FDS_PER_MSG];
	size_t n;
	char tag;

	/* its own session: the terminal's ^C and a kill of the agent's group pass it by */
	static const int quiet[] = {SIGINT,  SIGTERM, SIGHUP,  SIGQUIT, SIGPIPE,
				    SIGUSR1, SIGUSR2, SIGTSTP, SIGTTIN, SIGTTOU};

	setsid();
	for (size_t i = 0; i < sizeof(quiet) / sizeof(quiet[0]); i++)
		signal(quiet[i], SIG_IGN);
	/* nothing of the agent's but the socket, its descriptors and the mapped flag */
	close_range(0, (unsigned int)sock - 1, 0);
	close_range((unsigned int)sock + 1, ~0u, 0);
	for (;;) {
		ssize_t r = receive(sock, &tag, fds, &n);

		if (r <= 0)
			break; /* the agent ended without a word: killed */
		if (tag == MSG_RELEASE) {
			close_all(&returns);
			close_all(&others);
			_exit(0);
		}
		if (hold(tag == MSG_RETURNS ? &returns : &others, fds, n) < 0)
			for (size_t i = 0; i < n; i++)
				close(fds[i]);
	}
	/* The safe order: entries stop, every return probe goes at once, then the rest. */
	__atomic_store_n(entries_stopped, 1, __ATOMIC_SEQ_CST);
	close_together(&returns);
	close_all(&others);
	/* the trace events it made for the traced tree, now unused: else they stay until a sweep */
	bc_tracefs_remove_agent(agent);
	_exit(0);
}

int bc_detacher_start(struct bc_detacher *d, volatile uint32_t *entries_stopped,
		      volatile uint32_t *self)
{
	int sv[2];
	pid_t pid;

	d->pid = 0;
	d->sock = -1;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		int e = errno;

		close(sv[0]);
		close(sv[1]);
		return -e;
	}
	if (pid == 0) {
		/* first: under -a its own events are not recorded, like the agent's */
		__atomic_store_n(self, (uint32_t)getpid(), __ATOMIC_SEQ_CST);
		close(sv[0]);
		run(sv[1], entries_stopped);
	}
	__atomic_store_n(self, (uint32_t)pid, __ATOMIC_SEQ_CST);
	close(sv[1]);
	d->pid = pid;
	d->sock = sv[0];
	return 0;
}

int bc_detacher_hand(struct bc_detacher *d, const int *fds, size_t n, bool returns)
{
	char tag = returns ? MSG_RETURNS : MSG_OTHERS;

	for (size_t done = 0; d->sock >= 0 && done < n;) {
		size_t k = n - done < FDS_PER_MSG ? n - done : FDS_PER_MSG;
		char control[CMSG_SPACE(FDS_PER_MSG * sizeof(int))] = {0};
		struct iovec iov = {.iov_base = &tag, .iov_len = 1};
		struct msghdr m = {.msg_iov = &iov,
				   .msg_iovlen = 1,
				   .msg_control = control,
				   .msg_controllen = CMSG_SPACE(k * sizeof(int))};
		struct cmsghdr *c = CMSG_FIRSTHDR(&m);

		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(k * sizeof(int));
		memcpy(CMSG_DATA(c), fds + done, k * sizeof(int));
		if (sendmsg(d->sock, &m, MSG_NOSIGNAL) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		done += k;
	}
	return 0;
}

void bc_detacher_release(struct bc_detacher *d)
{
	char tag = MSG_RELEASE;

	if (d->sock < 0)
		return;
	if (send(d->sock, &tag, 1, MSG_NOSIGNAL) == 1)
		while (waitpid(d->pid, NULL, 0) < 0 && errno == EINTR)
			;
	close(d->sock);
	d->sock = -1;
	d->pid = 0;
}

void bc_detacher_leave(struct bc_detacher *d)
{
	if (d->sock < 0)
		return;
	/* end of file without a word: it detaches as it would for a killed agent */
	close(d->sock);
	d->sock = -1;
	d->pid = 0;
}
