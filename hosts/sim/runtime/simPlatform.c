/*
 * simPlatform.c: the XS platform functions of the simulator runtime.
 *
 * Owns: chunk and slot allocation with the heap accounting behind __sim.heap() and the
 * --heap-max limit (exit 71), the machine's aborts (memory 71, stack 72, unhandled
 * exception 70, other 75; an unhandled rejection is one warning line and the run goes
 * on), the promise-job flag, and the clocks (monotonic and wall, both plus warp).
 */
#include "sim.h"

size_t gSimHeapReserved = 0;

static double gWarpMs = 0;
static struct timespec gStart;

static double timespecMs(const struct timespec* ts)
{
	return ((double)ts->tv_sec * 1000.0) + ((double)ts->tv_nsec / 1000000.0);
}

double simMonoMs(void)
{
	struct timespec now;
	if (!gStart.tv_sec && !gStart.tv_nsec)
		clock_gettime(CLOCK_MONOTONIC, &gStart);
	clock_gettime(CLOCK_MONOTONIC, &now);
	return timespecMs(&now) - timespecMs(&gStart) + gWarpMs;
}

double simWallMs(void)
{
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	return timespecMs(&now) + gWarpMs;
}

void simAddWarp(double ms)
{
	if (ms > 0)
		gWarpMs += ms;
}

int simGetTimeOfDay(struct timeval* tv, void* tz)
{
	double ms = simWallMs();
	double seconds = floor(ms / 1000.0);
	(void)tz;
	tv->tv_sec = (time_t)seconds;
	tv->tv_usec = (suseconds_t)((ms - (seconds * 1000.0)) * 1000.0);
	return 0;
}

/* ALLOCATION */

static void simAccount(size_t size)
{
	if ((size > gSimHeapMax) || (gSimHeapReserved > gSimHeapMax - size)) {
		fprintf(stderr, "xsim: out of memory: the XS heap would exceed --heap-max %zu bytes (%zu reserved, %zu more asked)\n",
			gSimHeapMax, gSimHeapReserved, size);
		simExit(SIM_EXIT_MEMORY);
	}
	gSimHeapReserved += size;
}

void* fxAllocateChunks(txMachine* the, txSize size)
{
	void* result;
	simAccount((size_t)size);
	result = c_malloc((size_t)size);
	if (!result)
		fxAbort(the, XS_NOT_ENOUGH_MEMORY_EXIT);
	return result;
}

void fxFreeChunks(txMachine* the, void* chunks)
{
	(void)the;
	c_free(chunks);
}

txSlot* fxAllocateSlots(txMachine* the, txSize count)
{
	void* result;
	simAccount((size_t)count * sizeof(txSlot));
	result = c_malloc((size_t)count * sizeof(txSlot));
	if (!result)
		fxAbort(the, XS_NOT_ENOUGH_MEMORY_EXIT);
	return (txSlot*)result;
}

void fxFreeSlots(txMachine* the, void* slots)
{
	(void)the;
	c_free(slots);
}

/* MACHINE */

void fxCreateMachinePlatform(txMachine* the)
{
	the->promiseJobs = 0;
	the->waiterCondition = C_NULL;
	the->waiterData = C_NULL;
	the->waiterLink = C_NULL;
}

void fxDeleteMachinePlatform(txMachine* the)
{
	(void)the;
}

void fxQueuePromiseJobs(txMachine* the)
{
	the->promiseJobs = 1;
}

/* XS 17 (the Moddable SDK's) tells the JavaScript stack's overflow from the native stack's;
   XS 13 (@agoric/xsnap's) has one status for both. */
#if XS_MAJOR_VERSION >= 17
#define SIM_JS_STACK_OVERFLOW XS_JAVASCRIPT_STACK_OVERFLOW_EXIT
#else
#define SIM_JS_STACK_OVERFLOW XS_STACK_OVERFLOW_EXIT
#endif

void fxAbort(txMachine* the, int status)
{
	switch (status) {
	case XS_NOT_ENOUGH_MEMORY_EXIT:
		fprintf(stderr, "xsim: out of memory (XS heap: %zu bytes reserved, limit %zu)\n", gSimHeapReserved, gSimHeapMax);
		simExit(SIM_EXIT_MEMORY);
	case SIM_JS_STACK_OVERFLOW:
#if XS_MAJOR_VERSION >= 17
	case XS_NATIVE_STACK_OVERFLOW_EXIT:
#endif
		fprintf(stderr, "xsim: stack overflow\n");
		simExit(SIM_EXIT_STACK);
	case XS_UNHANDLED_EXCEPTION_EXIT:
		simReportException(the, &mxException, "unhandled exception", 1);
		simExit(SIM_EXIT_EXCEPTION);
	case XS_UNHANDLED_REJECTION_EXIT:
		simReportException(the, &mxException, "warning: unhandled promise rejection", 0);
		mxException = mxUndefined;
		return;
	case XS_NO_MORE_KEYS_EXIT:
		fprintf(stderr, "xsim: XS abort: not enough keys\n");
		simExit(SIM_EXIT_ABORT);
	case XS_DEAD_STRIP_EXIT:
		fprintf(stderr, "xsim: XS abort: dead strip\n");
		simExit(SIM_EXIT_ABORT);
	case XS_FATAL_CHECK_EXIT:
		fprintf(stderr, "xsim: XS abort: fatal check\n");
		simExit(SIM_EXIT_ABORT);
	default:
		fprintf(stderr, "xsim: XS abort (status %d)\n", status);
		simExit(SIM_EXIT_ABORT);
	}
}
