/*
 * out.c: the buffered writer of fd 1, where __sim.print puts the firmware's log lines.
 *
 * Lines are appended to a buffer; the loop flushes it on every pass and before it
 * sleeps, simExit flushes it, and a large buffer is flushed at once. Writes loop over
 * partial writes and EINTR; if fd 1 is gone, the output is dropped.
 */
#include "sim.h"

#define OUT_FLUSH_AT (64 * 1024)

static char* gOut = NULL;
static size_t gOutLength = 0;
static size_t gOutCapacity = 0;
static int gOutBroken = 0;

void simOutFlush(void)
{
	size_t offset = 0;
	while ((offset < gOutLength) && !gOutBroken) {
		ssize_t count = write(1, gOut + offset, gOutLength - offset);
		if (count < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				struct timespec pause = { 0, 1000000 };
				nanosleep(&pause, NULL);
				continue;
			}
			gOutBroken = 1;
			break;
		}
		offset += (size_t)count;
	}
	gOutLength = 0;
}

void simOutWrite(const char* text, size_t length)
{
	if (gOutLength + length > gOutCapacity) {
		size_t capacity = gOutCapacity ? gOutCapacity : 4096;
		while (capacity < gOutLength + length)
			capacity *= 2;
		char* buffer = realloc(gOut, capacity);
		if (!buffer) {
			simOutFlush();
			if (write(1, text, length) < 0)
				gOutBroken = 1;
			return;
		}
		gOut = buffer;
		gOutCapacity = capacity;
	}
	memcpy(gOut + gOutLength, text, length);
	gOutLength += length;
	if (gOutLength >= OUT_FLUSH_AT)
		simOutFlush();
}
