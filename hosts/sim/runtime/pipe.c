/*
 * pipe.c: the frames on fd 3, the duplex pipe to the board (docs/sim-protocol.md).
 *
 *   u32le length of what follows, u8 kind, u32le id, u32le json length, json, binary
 *
 * Owns: fd 3 (set blocking; writes loop over partial writes), the receive buffer (grown
 * to hold the largest frame, reused), the synchronous call (write kind 1, then read
 * until the reply with the same id; events and warps read meanwhile are queued, never
 * delivered: no JavaScript runs during a call), and the queue of received events and
 * warps that the loop delivers in order. A closed pipe or a malformed frame exits 73.
 */
#include "sim.h"
#include <poll.h>
#include <sys/uio.h>

#define HEADER_SIZE 13          /* u32 length + u8 kind + u32 id + u32 json length */
#define READ_CHUNK (256 * 1024)

static int gFd = -1;
static uint32_t gNextId = 1;

static uint8_t* gBuffer = NULL;  /* received bytes: [gStart, gEnd) not yet parsed */
static size_t gStart = 0;
static size_t gEnd = 0;
static size_t gCapacity = 0;

static SimItem* gHead = NULL;
static SimItem* gTail = NULL;

/* the reply found by the parser while a call waits */
static uint32_t gWaitingId = 0;
static int gReplyFound = 0;
static const uint8_t* gReplyJson;
static uint32_t gReplyJsonLength;
static const uint8_t* gReplyBin;
static uint32_t gReplyBinLength;

static XS_FUNCTION_NORETURN void pipeFail(const char* message)
{
	fprintf(stderr, "xsim: %s\n", message);
	simExit(SIM_EXIT_PIPE);
}

static uint32_t getU32(const uint8_t* p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static void putU32(uint8_t* p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

void simPipeOpen(void)
{
	int flags;
	signal(SIGPIPE, SIG_IGN);
	if (gSimStandalone)
		return;
	flags = fcntl(3, F_GETFL);
	if (flags < 0) {
		fprintf(stderr, "xsim: fd 3 (the pipe to the board) is not open; use --standalone to run without it\n");
		simExit(SIM_EXIT_PIPE);
	}
	if (flags & O_NONBLOCK)
		fcntl(3, F_SETFL, flags & ~O_NONBLOCK);
	fcntl(3, F_SETFD, FD_CLOEXEC);
	gFd = 3;
}

int simPipeFd(void)
{
	return gFd;
}

SimItem* simQueueHead(void)
{
	return gHead;
}

SimItem* simQueuePop(void)
{
	SimItem* item = gHead;
	if (item) {
		gHead = item->next;
		if (!gHead)
			gTail = NULL;
		item->next = NULL;
	}
	return item;
}

static void enqueue(SimItem* item)
{
	if (gTail)
		gTail->next = item;
	else
		gHead = item;
	gTail = item;
}

/* WRITE */

void simPipeWrite(uint8_t kind, uint32_t id, const char* json, uint32_t jsonLength, const void* bin, uint32_t binLength)
{
	uint8_t header[HEADER_SIZE];
	struct iovec iov[3];
	int count = 0, index = 0;
	uint64_t length = 9 + (uint64_t)jsonLength + (uint64_t)binLength;
	if (gFd < 0)
		pipeFail("the pipe is closed");
	if (length > SIM_MAX_FRAME) {
		fprintf(stderr, "xsim: frame too large (%llu bytes)\n", (unsigned long long)length);
		simExit(SIM_EXIT_PIPE);
	}
	putU32(header, (uint32_t)length);
	header[4] = kind;
	putU32(header + 5, id);
	putU32(header + 9, jsonLength);
	iov[count].iov_base = header;
	iov[count++].iov_len = HEADER_SIZE;
	if (jsonLength) {
		iov[count].iov_base = (void*)json;
		iov[count++].iov_len = jsonLength;
	}
	if (binLength) {
		iov[count].iov_base = (void*)bin;
		iov[count++].iov_len = binLength;
	}
	while (index < count) {
		ssize_t written = writev(gFd, iov + index, count - index);
		if (written < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				struct pollfd pfd = { gFd, POLLOUT, 0 };
				poll(&pfd, 1, -1);
				continue;
			}
			pipeFail("the pipe closed (board gone)");
		}
		while ((index < count) && ((size_t)written >= iov[index].iov_len)) {
			written -= (ssize_t)iov[index].iov_len;
			index++;
		}
		if (index < count) {
			iov[index].iov_base = (uint8_t*)iov[index].iov_base + written;
			iov[index].iov_len -= (size_t)written;
		}
	}
}

/* READ */

static int parseWarp(const uint8_t* json, uint32_t length, double* ms)
{
	char text[128];
	char* p;
	char* end;
	if (length >= sizeof(text))
		return 0;
	memcpy(text, json, length);
	text[length] = 0;
	p = strstr(text, "\"ms\"");
	if (!p)
		return 0;
	p += 4;
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	if (*p++ != ':')
		return 0;
	*ms = strtod(p, &end);
	if (end == p || !isfinite(*ms) || *ms < 0)
		return 0;
	return 1;
}

/* Parses the complete frames in the buffer: events and warps go to the queue, the
   awaited reply is noted. */
static void parseFrames(void)
{
	while (gEnd - gStart >= 4) {
		uint8_t* frame = gBuffer + gStart;
		uint32_t length = getU32(frame);
		uint8_t kind;
		uint32_t id, jsonLength, binLength;
		if (length < 9 || length > SIM_MAX_FRAME) {
			fprintf(stderr, "xsim: malformed frame (length %u)\n", length);
			simExit(SIM_EXIT_PIPE);
		}
		if (gEnd - gStart < 4 + (size_t)length)
			return;
		kind = frame[4];
		id = getU32(frame + 5);
		jsonLength = getU32(frame + 9);
		if (jsonLength > length - 9) {
			fprintf(stderr, "xsim: malformed frame (json length %u in a frame of %u)\n", jsonLength, length);
			simExit(SIM_EXIT_PIPE);
		}
		binLength = length - 9 - jsonLength;
		if (kind == SIM_FRAME_REPLY) {
			if (!gWaitingId || gReplyFound || id != gWaitingId) {
				fprintf(stderr, "xsim: malformed frame (unexpected reply %u)\n", id);
				simExit(SIM_EXIT_PIPE);
			}
			gReplyFound = 1;
			gReplyJson = frame + HEADER_SIZE;
			gReplyJsonLength = jsonLength;
			gReplyBin = frame + HEADER_SIZE + jsonLength;
			gReplyBinLength = binLength;
		}
		else if (kind == SIM_FRAME_EVENT || kind == SIM_FRAME_WARP) {
			SimItem* item;
			double ms = 0;
			if (kind == SIM_FRAME_WARP) {
				if (!parseWarp(frame + HEADER_SIZE, jsonLength, &ms)) {
					fprintf(stderr, "xsim: malformed warp frame (expected {\"ms\":N} with N >= 0)\n");
					simExit(SIM_EXIT_PIPE);
				}
				jsonLength = binLength = 0;
			}
			item = malloc(sizeof(SimItem) + jsonLength + binLength);
			if (!item) {
				fprintf(stderr, "xsim: out of memory for an event of %u bytes\n", length);
				simExit(SIM_EXIT_MEMORY);
			}
			item->next = NULL;
			item->kind = kind;
			item->warpMs = ms;
			item->jsonLength = jsonLength;
			item->binLength = binLength;
			item->json = item->data;
			item->bin = item->data + jsonLength;
			memcpy(item->data, frame + HEADER_SIZE, (size_t)jsonLength + binLength);
			enqueue(item);
		}
		else {
			fprintf(stderr, "xsim: malformed frame (kind %u from the board)\n", kind);
			simExit(SIM_EXIT_PIPE);
		}
		gStart += 4 + (size_t)length;
	}
}

/* Makes room for at least one read, or for the whole frame whose header is there. */
static void makeRoom(void)
{
	size_t need = READ_CHUNK;
	if (gStart == gEnd)
		gStart = gEnd = 0;
	if (gEnd - gStart >= 4) {
		size_t frame = 4 + (size_t)getU32(gBuffer + gStart);
		if (frame > need)
			need = frame;
	}
	if (gStart && (gCapacity - gStart < need || gCapacity - gEnd < READ_CHUNK / 4)) {
		memmove(gBuffer, gBuffer + gStart, gEnd - gStart);
		gEnd -= gStart;
		gStart = 0;
	}
	if (gCapacity - gStart < need || gCapacity - gEnd < READ_CHUNK / 4) {
		size_t capacity = gCapacity ? gCapacity : READ_CHUNK;
		while (capacity - gStart < need || capacity - gEnd < READ_CHUNK / 4)
			capacity *= 2;
		uint8_t* buffer = realloc(gBuffer, capacity);
		if (!buffer) {
			fprintf(stderr, "xsim: out of memory for a frame of %zu bytes\n", need);
			simExit(SIM_EXIT_MEMORY);
		}
		gBuffer = buffer;
		gCapacity = capacity;
	}
}

/* One blocking read (the fd is blocking: after poll() said readable, it does not wait). */
static void readOnce(void)
{
	ssize_t count;
	makeRoom();
	for (;;) {
		count = read(gFd, gBuffer + gEnd, gCapacity - gEnd);
		if (count > 0)
			break;
		if (count == 0)
			pipeFail("the pipe closed (board gone)");
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN) {
			struct pollfd pfd = { gFd, POLLIN, 0 };
			poll(&pfd, 1, -1);
			continue;
		}
		pipeFail("the pipe failed (board gone)");
	}
	gEnd += (size_t)count;
}

void simPipeRead(int timeoutMs)
{
	struct pollfd pfd;
	int result;
	if (gFd < 0)
		return;
	parseFrames();
	pfd.fd = gFd;
	pfd.events = POLLIN;
	pfd.revents = 0;
	do {
		result = poll(&pfd, 1, timeoutMs);
	} while (result < 0 && errno == EINTR);
	if (result > 0) {
		readOnce();
		parseFrames();
	}
}

void simPipeCall(const char* json, uint32_t jsonLength, const void* bin, uint32_t binLength, SimReply* reply)
{
	uint32_t id = simPipeNextId();
	simPipeWrite(SIM_FRAME_CALL, id, json, jsonLength, bin, binLength);
	gWaitingId = id;
	gReplyFound = 0;
	parseFrames();
	while (!gReplyFound) {
		readOnce();
		parseFrames();
	}
	gWaitingId = 0;
	/* the reply stays in the buffer until the next read, which only the pipe's own
	   functions do: the caller makes its values before */
	reply->json = gReplyJson;
	reply->jsonLength = gReplyJsonLength;
	reply->bin = gReplyBin;
	reply->binLength = gReplyBinLength;
}

uint32_t simPipeNextId(void)
{
	uint32_t id = gNextId++;
	if (!gNextId)
		gNextId = 1;
	return id;
}
