/*
 * simPlatform.h: the XS platform of the simulator runtime (included by XS through
 * -DINCLUDE_XSPLATFORM -DXSPLATFORM="simPlatform.h").
 *
 * Modelled on xsnap's platform and XS's own defaults (sources/xsPlatforms.c), without
 * glib or sockets. Owns: the target detection, the C library mapping (XS's reports go
 * to stderr, never to stdout which carries the firmware's log), the clock XS reads for
 * Date (real time plus the simulator's warp), and the per-machine fields.
 * The functions are in simPlatform.c.
 */
#ifndef __SIM_PLATFORM__
#define __SIM_PLATFORM__

#if defined(__GNUC__) && defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__) || defined(__i386__) || defined(__arm__) || defined(__riscv))
	#undef mxLittleEndian
	#define mxLittleEndian 1
	#undef mxLinux
	#define mxLinux 1
	#define mxExport extern
	#define mxImport extern
	#define XS_FUNCTION_NORETURN __attribute__((noreturn))
#else
	#error the simulator runtime builds on little-endian Linux with gcc or clang
#endif

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <pthread.h>
#include <signal.h>
#include <sys/time.h>
#include <unistd.h>

#define mxUseGCCAtomics 1
#define mxUsePOSIXThreads 1

/* XS prints its reports (parser errors, warnings, "stack overflow") with c_printf:
   send them to stderr; fd 1 belongs to __sim.print. */
#define c_printf(...) fprintf(stderr, __VA_ARGS__)
#define c_vprintf(FORMAT, ARGUMENTS) vfprintf(stderr, FORMAT, ARGUMENTS)

/* Date.now() and new Date() read the simulator's wall clock (real time plus warp). */
typedef struct timeval c_timeval;
#define c_timezone timezone
extern int simGetTimeOfDay(struct timeval* tv, void* tz);
#define c_gettimeofday(TV, TZ) simGetTimeOfDay(TV, TZ)

#define mxMachinePlatform \
	void* waiterCondition; \
	void* waiterData; \
	void* waiterLink; \
	int promiseJobs;

#define mxUseDefaultBuildKeys 1
#define mxUseDefaultFindModule 1
#define mxUseDefaultLoadModule 1
#define mxUseDefaultParseScript 1
#define mxUseDefaultSharedChunks 1
#define mxUseDefaultDebug 1

/* 32-bit key IDs on 64-bit hosts (as xsnap): a 1 MB bundle may need more than 32K keys.
   The device has 16-bit IDs: heap().keys tells how many are in use. */
#if INTPTR_MAX == INT64_MAX
	#define mx32bitID 1
#endif

#endif /* __SIM_PLATFORM__ */
