/*
 * loop.c: the one event loop of the runtime, and the host timers.
 *
 * A pass of the loop: run promise jobs until none are left; fire the timers due at the
 * start of the pass in order of due time (ties: the order they were set), each followed
 * by promise jobs; then take one item of the queue: an event is delivered to
 * __sim.onEvent (followed by promise jobs), a warp advances the clock, timer by timer
 * (the clock jumps to the next due time within the warp, that timer fires on the next
 * pass, and so on; the events behind the warp wait until it is done); then poll() the
 * pipe, without waiting when there is more to do, else until the next timer is due.
 * The process ends (code 0) when there is no timer, no pipe and no queued item.
 *
 * Timers: a binary heap ordered by (due, sequence) with a hash by id, both O(log n) or
 * better; each timer holds its function in a C slot, which the collector marks through
 * the hooks of one host object remembered by the machine. A timer set or rescheduled
 * during a pass fires at the earliest on the next pass, so a repeating 0 ms timer
 * cannot starve events.
 */
#include "sim.h"
#include <poll.h>

typedef struct Timer Timer;
struct Timer {
	uint32_t id;
	size_t heapIndex;
	double due;
	uint64_t seq;
	double interval;
	int repeat;
	Timer* hashNext;
	txSlot function;
};

static Timer** gHeap = NULL;
static size_t gHeapCount = 0;
static size_t gHeapCapacity = 0;
static Timer** gHash = NULL;
static size_t gHashSize = 0;      /* power of two */
static uint32_t gNextTimerId = 1;
static uint64_t gSeq = 0;
static txSlot gTimerRoot;         /* a host object whose marker marks the timers' functions */
static txSlot gSim;               /* __sim, for onEvent */
static int gWarnedNoHandler = 0;
static txID gOnEventID = XS_NO_ID;

static XS_FUNCTION_NORETURN void outOfMemory(void)
{
	fprintf(stderr, "xsim: out of memory (timers)\n");
	simExit(SIM_EXIT_MEMORY);
}

/* HEAP */

static int before(const Timer* a, const Timer* b)
{
	return (a->due < b->due) || ((a->due == b->due) && (a->seq < b->seq));
}

static void heapSet(size_t index, Timer* timer)
{
	gHeap[index] = timer;
	timer->heapIndex = index;
}

static void siftUp(size_t index)
{
	Timer* timer = gHeap[index];
	while (index > 0) {
		size_t parent = (index - 1) / 2;
		if (!before(timer, gHeap[parent]))
			break;
		heapSet(index, gHeap[parent]);
		index = parent;
	}
	heapSet(index, timer);
}

static void siftDown(size_t index)
{
	Timer* timer = gHeap[index];
	for (;;) {
		size_t child = (2 * index) + 1;
		if (child >= gHeapCount)
			break;
		if ((child + 1 < gHeapCount) && before(gHeap[child + 1], gHeap[child]))
			child++;
		if (!before(gHeap[child], timer))
			break;
		heapSet(index, gHeap[child]);
		index = child;
	}
	heapSet(index, timer);
}

static void heapPush(Timer* timer)
{
	if (gHeapCount == gHeapCapacity) {
		size_t capacity = gHeapCapacity ? gHeapCapacity * 2 : 64;
		Timer** heap = realloc(gHeap, capacity * sizeof(Timer*));
		if (!heap)
			outOfMemory();
		gHeap = heap;
		gHeapCapacity = capacity;
	}
	heapSet(gHeapCount++, timer);
	siftUp(gHeapCount - 1);
}

static void heapRemove(Timer* timer)
{
	size_t index = timer->heapIndex;
	Timer* last = gHeap[--gHeapCount];
	if (index < gHeapCount) {
		heapSet(index, last);
		if ((index > 0) && before(last, gHeap[(index - 1) / 2]))
			siftUp(index);
		else
			siftDown(index);
	}
}

/* HASH */

static Timer** hashSlot(uint32_t id)
{
	return &gHash[(id * 2654435761u) & (gHashSize - 1)];
}

static Timer* hashFind(uint32_t id)
{
	Timer* timer;
	if (!gHashSize)
		return NULL;
	timer = *hashSlot(id);
	while (timer && timer->id != id)
		timer = timer->hashNext;
	return timer;
}

static void hashInsert(Timer* timer)
{
	Timer** slot;
	if (gHeapCount >= gHashSize) {
		size_t size = gHashSize ? gHashSize * 2 : 64, i;
		Timer** old = gHash;
		size_t oldSize = gHashSize;
		gHash = calloc(size, sizeof(Timer*));
		if (!gHash)
			outOfMemory();
		gHashSize = size;
		for (i = 0; i < oldSize; i++) {
			Timer* t = old[i];
			while (t) {
				Timer* next = t->hashNext;
				slot = hashSlot(t->id);
				t->hashNext = *slot;
				*slot = t;
				t = next;
			}
		}
		free(old);
	}
	slot = hashSlot(timer->id);
	timer->hashNext = *slot;
	*slot = timer;
}

static void hashRemove(Timer* timer)
{
	Timer** slot = hashSlot(timer->id);
	while (*slot) {
		if (*slot == timer) {
			*slot = timer->hashNext;
			return;
		}
		slot = &(*slot)->hashNext;
	}
}

/* TIMERS */

static void markTimers(txMachine* the, void* data, txMarkRoot markRoot)
{
	size_t i;
	(void)data;
	for (i = 0; i < gHeapCount; i++)
		(*markRoot)(the, &gHeap[i]->function);
}

static txHostHooks gTimerHooks = { C_NULL, markTimers, C_NULL };

txNumber simSetTimer(txMachine* the, txNumber ms, txBoolean repeat, txSlot* function)
{
	Timer* timer;
	uint32_t id;
	if (!(ms >= 0))      /* NaN, negative */
		ms = 0;
	if (ms > 2147483647.0)
		ms = 2147483647.0;
	do {
		id = gNextTimerId++;
		if (gNextTimerId > 0x7FFFFFFF)
			gNextTimerId = 1;
	} while (hashFind(id));
	timer = calloc(1, sizeof(Timer));
	if (!timer)
		outOfMemory();
	timer->id = id;
	timer->due = simMonoMs() + ms;
	timer->seq = gSeq++;
	timer->interval = ms;
	timer->repeat = repeat ? 1 : 0;
	(void)the;
	timer->function.next = C_NULL;
	timer->function.flag = XS_NO_FLAG;
	timer->function.kind = function->kind;
	timer->function.value = function->value;
	hashInsert(timer);
	heapPush(timer);
	return (txNumber)id;
}

void simClearTimer(txMachine* the, txNumber number)
{
	Timer* timer;
	if (!(number >= 1 && number <= 0x7FFFFFFF) || (number != (txNumber)(uint32_t)number))
		return;
	timer = hashFind((uint32_t)number);
	if (!timer)
		return;
	(void)the;
	heapRemove(timer);
	hashRemove(timer);
	free(timer);
}

/* CALLING JAVASCRIPT FROM THE LOOP */

/* Calls function(args...) with undefined as this; an exception ends the process (70). */
static void callFunction(txMachine* the, txSlot* function, txSlot* arguments, txInteger count, const char* what)
{
	txInteger i;
	mxTry(the) {
		mxPushUndefined();
		mxPushSlot(function);
		mxCall();
		for (i = 0; i < count; i++)
			mxPushSlot(arguments + i);
		mxRunCount(count);
		mxPop();
	}
	mxCatch(the) {
		char message[96];
		snprintf(message, sizeof(message), "unhandled exception in %s", what);
		simReportException(the, &mxException, message, 1);
		simExit(SIM_EXIT_EXCEPTION);
	}
}

void simRunJobs(txMachine* the)
{
	mxTry(the) {
		for (;;) {
			while (the->promiseJobs) {
				the->promiseJobs = 0;
				fxRunPromiseJobs(the);
			}
			fxEndJob(the);
			if (!the->promiseJobs)
				break;
		}
		/* a rejection still unhandled once the jobs are done: one warning line each */
		fxCheckUnhandledRejections(the, 1);
	}
	mxCatch(the) {
		simReportException(the, &mxException, "unhandled exception in a promise job", 1);
		simExit(SIM_EXIT_EXCEPTION);
	}
}

/* Fires the timers due at the start of the pass; returns how many fired. */
static int fireTimers(txMachine* the)
{
	double now = simMonoMs();
	uint64_t passSeq = gSeq;
	int fired = 0;
	while (gHeapCount) {
		Timer* timer = gHeap[0];
		txSlot* function;
		if ((timer->due > now) || (timer->seq >= passSeq))
			break;
		mxPushSlot(&timer->function);
		function = the->stack;
		if (timer->repeat) {
			double next = timer->due + timer->interval;
			if (next < now)
				next = now + timer->interval;
			timer->due = next;
			timer->seq = gSeq++;
			siftDown(0);
		}
		else {
			heapRemove(timer);
			hashRemove(timer);
			free(timer);
		}
		callFunction(the, function, NULL, 0, "a timer");
		mxPop();
		fired++;
		simRunJobs(the);
	}
	return fired;
}

static void deliverEvent(txMachine* the, SimItem* item)
{
	txSlot* handler;
	mxPushSlot(&gSim);
	mxGetID(gOnEventID);
	handler = the->stack;
	if (mxIsReference(handler) && mxIsFunction(handler->value.reference)) {
		txSlot* arguments;
		mxPushUndefined();
		mxPushUndefined();
		arguments = the->stack;
		fxStringBuffer(the, arguments, (txString)item->json, (txSize)item->jsonLength);
		if (item->binLength)
			fxArrayBuffer(the, arguments + 1, item->bin, (txInteger)item->binLength, -1);
		callFunction(the, handler, arguments, 2, "__sim.onEvent");
		mxPop();
		mxPop();
	}
	else if (!gWarnedNoHandler) {
		gWarnedNoHandler = 1;
		fprintf(stderr, "xsim: warning: __sim.onEvent is not a function; events are dropped\n");
	}
	mxPop();
}

void simLoopInit(txMachine* the)
{
	fxNewHostObject(the, C_NULL);
	fxSetHostData(the, the->stack, &gTimerRoot);
	fxSetHostHooks(the, the->stack, &gTimerHooks);
	mxPullSlot(&gTimerRoot);
	fxRemember(the, &gTimerRoot);
	mxPush(mxGlobal);
	mxGetID(fxID(the, "__sim"));
	mxPullSlot(&gSim);
	fxRemember(the, &gSim);
	gOnEventID = fxID(the, "onEvent");
}

void simRunLoop(txMachine* the)
{
	for (;;) {
		int busy = 0;
		SimItem* item;
		double timeout;
		simRunJobs(the);
		simOutFlush();
		if (fireTimers(the))
			busy = 1;
		item = simQueueHead();
		if (item) {
			busy = 1;
			if (item->kind == SIM_FRAME_WARP) {
				double now = simMonoMs();
				double step = 1.0;
				if (gHeapCount && (gHeap[0]->due > now))
					step = gHeap[0]->due - now;
				if (!gHeapCount || (step >= item->warpMs)) {
					simAddWarp(item->warpMs);
					free(simQueuePop());
				}
				else {
					simAddWarp(step);
					item->warpMs -= step;
				}
			}
			else {
				simQueuePop();
				deliverEvent(the, item);
				free(item);
				simRunJobs(the);
			}
		}
		if (the->promiseJobs || simQueueHead())
			busy = 1;
		if (!busy && !gHeapCount && (simPipeFd() < 0))
			simExit(SIM_EXIT_OK);
		simOutFlush();
		if (busy)
			timeout = 0;
		else if (gHeapCount) {
			timeout = gHeap[0]->due - simMonoMs();
			if (timeout < 0)
				timeout = 0;
		}
		else
			timeout = -1;
		if (simPipeFd() >= 0) {
			int ms = (timeout < 0) ? -1 : (timeout > 86400000.0) ? 86400000 : (int)ceil(timeout);
			simPipeRead(ms);
		}
		else if (timeout > 0) {
			struct timespec pause;
			pause.tv_sec = (time_t)(timeout / 1000.0);
			pause.tv_nsec = (long)((timeout - ((double)pause.tv_sec * 1000.0)) * 1000000.0);
			while (nanosleep(&pause, &pause) < 0 && errno == EINTR)
				;
		}
	}
}
