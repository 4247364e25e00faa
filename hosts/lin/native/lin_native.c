/*
 * lin_native: what the lin HAL (hosts/lin/hal) needs from the process that no
 * module of the SDK's lin platform gives: its environment (the ports, routes
 * and console the runner's caller chose), exiting with a status, the XS
 * machine's heap figures (the same arithmetic as the device's desk_sys.c) and
 * random bytes. Linux only: built into mc.so by mcconfig -p lin.
 */
/* xsAll.h (the machine's heap fields) first: after xs.h its declarations conflict */
#include "xsAll.h"
#include "xsmc.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>
#include <unistd.h>

void xs_lin_env(xsMachine *the)
{
	const char *value = getenv(xsmcToString(xsArg(0)));
	if (value)
		xsmcSetString(xsResult, (char *)value);
}

void xs_lin_exit(xsMachine *the)
{
	int status = xsmcToInteger(xsArg(0));
	fflush(stdout);
	fflush(stderr);
	_exit(status);
}

/* linXsHeap(): [now, peak, reserved, runtime keys, stack peak in slots or -1] */
void xs_lin_xs_heap(xsMachine *the)
{
	txMachine *m = (txMachine *)the;
	double v[5];
	int i;
	v[0] = (double)m->currentChunksSize + (double)m->currentHeapCount * sizeof(txSlot);
	v[1] = (double)m->peakChunksSize + (double)m->peakHeapCount * sizeof(txSlot);
	v[2] = (double)m->maximumChunksSize + (double)m->maximumHeapCount * sizeof(txSlot);
	v[3] = (double)(m->keyIndex - m->keyOffset);
#ifdef mxInstrument
	v[4] = (double)(m->stackTop - m->stackPeak);
#else
	v[4] = -1;
#endif
	xsmcVars(1);
	xsmcSetNewArray(xsResult, 5);
	for (i = 0; i < 5; i++) {
		xsmcSetNumber(xsVar(0), v[i]);
		xsmcSetIndex(xsResult, i, xsVar(0));
	}
}

void xs_lin_xs_reset_peak(xsMachine *the)
{
	txMachine *m = (txMachine *)the;
	m->peakChunksSize = m->currentChunksSize;
	m->peakHeapCount = m->currentHeapCount;
}

void xs_lin_random(xsMachine *the)
{
	void *data;
	xsUnsignedValue size;
	xsmcGetBufferWritable(xsArg(0), &data, &size);
	while (size) {
		ssize_t n = getrandom(data, size, 0);
		if (n <= 0)
			xsUnknownError("getrandom failed");
		data = (char *)data + n;
		size -= (xsUnsignedValue)n;
	}
}
