/*
 * sim.h: what the parts of the simulator runtime share (one XS machine per process).
 *
 *   main.c        arguments, machine creation, loading and running the bundle, exit codes
 *   simPlatform.c the XS platform: allocation with heap accounting, aborts, clocks
 *   loop.c        the event loop: promise jobs, timers, queued events and warps, poll()
 *   pipe.c        frames on fd 3: writing calls/sends, reading replies/events/warps
 *   out.c         the buffered writer of fd 1 (__sim.print)
 *   sim_api.c     the __sim global
 *   natives.c     the __native global (the modules' install functions)
 */
#ifndef SIM_H
#define SIM_H

#include "xsAll.h"
#include "xs.h"

/* Exit codes (docs/sim-protocol.md). */
enum {
	SIM_EXIT_OK = 0,
	SIM_EXIT_REBOOT = 64,
	SIM_EXIT_EXCEPTION = 70,
	SIM_EXIT_MEMORY = 71,
	SIM_EXIT_STACK = 72,
	SIM_EXIT_PIPE = 73,
	SIM_EXIT_BUNDLE = 74,
	SIM_EXIT_ABORT = 75,
};

/* Frame kinds. */
enum {
	SIM_FRAME_CALL = 1,
	SIM_FRAME_REPLY = 2,
	SIM_FRAME_SEND = 3,
	SIM_FRAME_EVENT = 4,
	SIM_FRAME_WARP = 5,
};

/* Frames larger than this (length field) are malformed: exit 73. */
#define SIM_MAX_FRAME (256u * 1024u * 1024u)

/* main.c */
extern txMachine* gSimMachine;
extern int gSimStandalone;             /* no pipe */
extern size_t gSimHeapMax;             /* --heap-max */
XS_FUNCTION_NORETURN void simExit(int code);  /* flushes fd 1 and exits */
void simReportException(txMachine* the, txSlot* exception, const char* what, int withStack);

/* simPlatform.c: heap accounting and clocks */
extern size_t gSimHeapReserved;        /* bytes of chunks and slots allocated from the system */
double simMonoMs(void);                /* monotonic ms since start, plus warp */
double simWallMs(void);                /* Unix ms, plus warp */
void simAddWarp(double ms);

/* out.c */
void simOutWrite(const char* text, size_t length);   /* appends to the fd 1 buffer */
void simOutFlush(void);

/* pipe.c */
typedef struct SimItem SimItem;
struct SimItem {             /* an event or warp received from the board, waiting for the loop */
	SimItem* next;
	int kind;                /* SIM_FRAME_EVENT or SIM_FRAME_WARP */
	double warpMs;           /* SIM_FRAME_WARP: what is left to advance */
	uint32_t jsonLength;
	uint32_t binLength;
	uint8_t* json;           /* points into data */
	uint8_t* bin;
	uint8_t data[];
};
void simPipeOpen(void);                           /* fd 3 unless standalone */
int simPipeFd(void);                              /* -1 when closed or standalone */
void simPipeWrite(uint8_t kind, uint32_t id, const char* json, uint32_t jsonLength, const void* bin, uint32_t binLength);
void simPipeRead(int timeoutMs);                  /* poll and read what is there: events and warps go to the queue */
typedef struct {
	const uint8_t* json;     /* valid until the next pipe operation */
	uint32_t jsonLength;
	const uint8_t* bin;
	uint32_t binLength;
} SimReply;
void simPipeCall(const char* json, uint32_t jsonLength, const void* bin, uint32_t binLength, SimReply* reply);
uint32_t simPipeNextId(void);                     /* ids of calls and sends */
SimItem* simQueueHead(void);
SimItem* simQueuePop(void);

/* loop.c */
void simLoopInit(txMachine* the);
/* sim_api.c: restarts the XS stack's high-water (heap().stackPeak) */
void simStackResetPeak(txMachine* the);
void simRunJobs(txMachine* the);                 /* promise jobs until none are left */
txNumber simSetTimer(txMachine* the, txNumber ms, txBoolean repeat, txSlot* function);
void simClearTimer(txMachine* the, txNumber id);
XS_FUNCTION_NORETURN void simRunLoop(txMachine* the);

/* sim_api.c */
void simInstallSim(txMachine* the, int argc, char** argv);
void simCallInHost(txMachine* the, txSlot* function, txSlot* arguments, txInteger count, const char* what);

/* natives.c */
void simInstallNatives(txMachine* the);
/* assets.c: --assets FILE mapped read-only, then __sim.assets (a host buffer over it). */
int simMapAssets(const char* path);
void simInstallAssets(txMachine* machine);

#endif /* SIM_H */
