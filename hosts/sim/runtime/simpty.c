/*
 * simpty.c: the console pseudo-terminal helper (build/sim/simpty), see the last section
 * of docs/sim-protocol.md.
 *
 * Opens a pseudo-terminal in raw mode (no echo, no CR/LF translation), prints
 * "PTY <path>" as its first stdout line, then relays:
 *   - bytes on stdin are written to the terminal (non-blocking: what the terminal
 *     cannot take at once is dropped, so a missing client never blocks the board);
 *   - what a client writes to the terminal comes out on stdout as frames
 *     u8 type, u16le length, data   (type 1 data, 2 opened, 3 closed).
 * A client opening the terminal is seen when the master stops reporting hang-up
 * (Linux: POLLHUP while no process has the terminal open); its closing when the
 * hang-up returns. While nobody is connected it checks every 30 ms instead of
 * spinning. It exits when stdin reaches EOF.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

enum { FRAME_DATA = 1, FRAME_OPENED = 2, FRAME_CLOSED = 3 };

#define IDLE_CHECK_MS 30

static void writeAll(int fd, const void* data, size_t length)
{
	const uint8_t* p = data;
	while (length) {
		ssize_t count = write(fd, p, length);
		if (count < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				struct pollfd pfd = { fd, POLLOUT, 0 };
				poll(&pfd, 1, -1);
				continue;
			}
			exit(0);    /* the board is gone */
		}
		p += count;
		length -= (size_t)count;
	}
}

static void frame(uint8_t type, const uint8_t* data, size_t length)
{
	uint8_t header[3];
	header[0] = type;
	header[1] = (uint8_t)length;
	header[2] = (uint8_t)(length >> 8);
	writeAll(1, header, sizeof(header));
	if (length)
		writeAll(1, data, length);
}

/* Reads what the client wrote; returns 1 if something was read. */
static int relayFromClient(int master)
{
	uint8_t buffer[65535];
	int any = 0;
	for (;;) {
		ssize_t count = read(master, buffer, sizeof(buffer));
		if (count > 0) {
			frame(FRAME_DATA, buffer, (size_t)count);
			any = 1;
			continue;
		}
		if (count < 0 && errno == EINTR)
			continue;
		return any;     /* EAGAIN, or EIO when no client has the terminal open */
	}
}

/* Copies stdin to the terminal; returns 0 at EOF. */
static int relayToClient(int master)
{
	uint8_t buffer[65536];
	ssize_t count;
	size_t offset = 0;
	do {
		count = read(0, buffer, sizeof(buffer));
	} while (count < 0 && errno == EINTR);
	if (count <= 0)
		return 0;
	while (offset < (size_t)count) {
		ssize_t written = write(master, buffer + offset, (size_t)count - offset);
		if (written < 0) {
			if (errno == EINTR)
				continue;
			break;      /* EAGAIN (nobody reads) or EIO: dropped */
		}
		offset += (size_t)written;
	}
	return 1;
}

static int hungUp(int master)
{
	struct pollfd pfd = { master, POLLIN, 0 };
	int result;
	do {
		result = poll(&pfd, 1, 0);
	} while (result < 0 && errno == EINTR);
	return (result > 0) && (pfd.revents & POLLHUP);
}

int main(void)
{
	struct termios attributes;
	const char* path;
	int master, slave, connected = 0;

	signal(SIGPIPE, SIG_IGN);
	master = posix_openpt(O_RDWR | O_NOCTTY);
	if (master < 0 || grantpt(master) < 0 || unlockpt(master) < 0 || !(path = ptsname(master))) {
		fprintf(stderr, "simpty: cannot open a pseudo-terminal: %s\n", strerror(errno));
		return 1;
	}
	if (tcgetattr(master, &attributes) == 0) {
		cfmakeraw(&attributes);
		tcsetattr(master, TCSANOW, &attributes);
	}
	/* Linux reports hang-up on the master only once the terminal has been opened and
	   closed: do that once, so that "no hang-up" means "a client is there". */
	slave = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (slave >= 0)
		close(slave);
	fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK);
	fcntl(master, F_SETFD, FD_CLOEXEC);
	printf("PTY %s\n", path);
	fflush(stdout);

	for (;;) {
		struct pollfd fds[2];
		int result;
		fds[0].fd = 0;
		fds[0].events = POLLIN;
		fds[0].revents = 0;
		fds[1].fd = master;
		fds[1].events = POLLIN;
		fds[1].revents = 0;
		if (connected) {
			result = poll(fds, 2, -1);
		}
		else {
			/* the master reports hang-up until a client opens the terminal: check it
			   now and then, and wait on stdin meanwhile */
			result = poll(fds, 1, IDLE_CHECK_MS);
			if (!hungUp(master)) {
				connected = 1;
				frame(FRAME_OPENED, NULL, 0);
				continue;
			}
			else if (relayFromClient(master)) {
				/* a client came and went between two checks, leaving bytes */
				frame(FRAME_OPENED, NULL, 0);
				relayFromClient(master);
				frame(FRAME_CLOSED, NULL, 0);
			}
		}
		if (result < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "simpty: poll: %s\n", strerror(errno));
			return 1;
		}
		if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			if (!relayToClient(master))
				return 0;
		}
		if (connected && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) {
			relayFromClient(master);
			if (fds[1].revents & (POLLHUP | POLLERR)) {
				relayFromClient(master);
				connected = 0;
				frame(FRAME_CLOSED, NULL, 0);
			}
		}
	}
}
