// SPDX-License-Identifier: MIT
/*
 * net: one TCP connection and two UDP datagrams, all on 127.0.0.1 (no other
 * network), for checking the socket peers PRF writes as ClientAP.
 *
 *   TCP: a listener on 127.0.0.1 (ephemeral port); a client socket connects
 *        to it; accept gives the server's end (conn). The client write()s
 *        "ping" and conn read()s it; conn send()s "pong" (sendto without an
 *        address) and the client read()s it.
 *   UDP: a receiver bound to 127.0.0.1 (ephemeral port); a sender sendto()s
 *        it two datagrams; the receiver recv()s them (recvfrom).
 *
 * Every socket stays open until the end, so no fd number is reused while the
 * checks look at them; then all are closed in the order of the report. The
 * report, on stdout at exit (one buffered write, not on these fds):
 *
 *   listen FD PORT
 *   client FD PORT        (the client's own port)
 *   conn FD
 *   udp SENDER_FD RECEIVER_FD PORT
 *
 * Each call's result is checked; any surprise exits 1. An alarm ends a hang.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "traced.h"

static int fail(const char *what)
{
	fprintf(stderr, "net: %s: %s\n", what, strerror(errno));
	return 1;
}

/* A socket of type bound to 127.0.0.1, port chosen by the kernel; its address into *a. */
static int bound_socket(int type, struct sockaddr_in *a)
{
	socklen_t len = sizeof(*a);
	int fd = socket(AF_INET, type | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	*a = (struct sockaddr_in){.sin_family = AF_INET, .sin_addr = {htonl(INADDR_LOOPBACK)}};
	if (bind(fd, (struct sockaddr *)a, sizeof(*a)) < 0 ||
	    getsockname(fd, (struct sockaddr *)a, &len) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

TRACED static int tcp(int fds[3], unsigned int ports[2])
{
	struct sockaddr_in srv, cli;
	socklen_t len = sizeof(cli);
	char buf[8];

	fds[0] = bound_socket(SOCK_STREAM, &srv);
	if (fds[0] < 0 || listen(fds[0], 1) < 0)
		return fail("listener");
	fds[1] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fds[1] < 0 || connect(fds[1], (struct sockaddr *)&srv, sizeof(srv)) < 0)
		return fail("connect");
	if (getsockname(fds[1], (struct sockaddr *)&cli, &len) < 0)
		return fail("getsockname");
	len = sizeof(cli);
	fds[2] = accept(fds[0], (struct sockaddr *)&cli, &len);
	if (fds[2] < 0)
		return fail("accept");
	if (write(fds[1], "ping", 5) != 5 || read(fds[2], buf, 5) != 5 || strcmp(buf, "ping"))
		return fail("client to server");
	if (send(fds[2], "pong", 5, 0) != 5 || read(fds[1], buf, 5) != 5 || strcmp(buf, "pong"))
		return fail("server to client");
	ports[0] = ntohs(srv.sin_port);
	ports[1] = ntohs(cli.sin_port);
	return 0;
}

TRACED static int udp(int fds[2], unsigned int *port)
{
	struct sockaddr_in to;
	char buf[8];

	fds[1] = bound_socket(SOCK_DGRAM, &to);
	fds[0] = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fds[1] < 0 || fds[0] < 0)
		return fail("udp sockets");
	for (int i = 0; i < 2; i++) {
		if (sendto(fds[0], "dgram", 6, 0, (struct sockaddr *)&to, sizeof(to)) != 6)
			return fail("sendto");
		if (recv(fds[1], buf, sizeof(buf), 0) != 6 || strcmp(buf, "dgram"))
			return fail("recv");
	}
	*port = ntohs(to.sin_port);
	return 0;
}

int main(void)
{
	int t[3] = {-1, -1, -1}, u[2] = {-1, -1};
	unsigned int tports[2], uport;

	alarm(20);
	if (tcp(t, tports) || udp(u, &uport))
		return 1;
	printf("listen %d %u\n", t[0], tports[0]);
	printf("client %d %u\n", t[1], tports[1]);
	printf("conn %d\n", t[2]);
	printf("udp %d %d %u\n", u[0], u[1], uport);
	if (close(t[0]) || close(t[1]) || close(t[2]) || close(u[0]) || close(u[1]))
		return fail("close");
	return 0;
}
