/*
 * desk_sys: what the device HAL's System (hosts/esp32/hal/system.ts) needs
 * from ESP-IDF and XS that no Moddable module gives: reset reason, internal
 * and PSRAM heap figures, the XS heap's use and high-water, hardware random
 * bytes, the task watchdog, restart and deep sleep. ESP-IDF only.
 */
/* xsAll.h (the machine's heap fields) first: after xs.h its declarations conflict */
#include "xsAll.h"
#include "xsmc.h"
#include "xsHost.h"

#include "esp_heap_caps.h"
#include "esp_random.h"
#include "esp_sleep.h"
#include "esp_system.h"
#include "esp_task_wdt.h"

#include "resetreason.h"

void xs_desk_sys_reset_reason(xsMachine *the)
{
	xsmcSetString(xsResult, (char *)resetreason_name((int)esp_reset_reason()));
}

/* sysHeap(): [freeInternal, largestBlock, minFreeInternal, freePsram] */
void xs_desk_sys_heap(xsMachine *the)
{
	double v[4];
	int i;
	v[0] = heap_caps_get_free_size(MALLOC_CAP_INTERNAL | MALLOC_CAP_8BIT);
	v[1] = heap_caps_get_largest_free_block(MALLOC_CAP_INTERNAL | MALLOC_CAP_8BIT);
	v[2] = heap_caps_get_minimum_free_size(MALLOC_CAP_INTERNAL | MALLOC_CAP_8BIT);
	v[3] = heap_caps_get_free_size(MALLOC_CAP_SPIRAM);
	xsmcVars(1);
	xsmcSetNewArray(xsResult, 4);
	for (i = 0; i < 4; i++) {
		xsmcSetNumber(xsVar(0), v[i]);
		xsmcSetIndex(xsResult, i, xsVar(0));
	}
}

/* xsHeap(): [now, peak, reserved, keys] in bytes (keys: the key count) */
void xs_desk_sys_xs_heap(xsMachine *the)
{
	txMachine *m = (txMachine *)the;
	double v[4];
	int i;
	v[0] = (double)m->currentChunksSize + (double)m->currentHeapCount * sizeof(txSlot);
	v[1] = (double)m->peakChunksSize + (double)m->peakHeapCount * sizeof(txSlot);
	v[2] = (double)m->maximumChunksSize + (double)m->maximumHeapCount * sizeof(txSlot);
	v[3] = (double)m->keyIndex;
	xsmcVars(1);
	xsmcSetNewArray(xsResult, 4);
	for (i = 0; i < 4; i++) {
		xsmcSetNumber(xsVar(0), v[i]);
		xsmcSetIndex(xsResult, i, xsVar(0));
	}
}

void xs_desk_sys_xs_reset_peak(xsMachine *the)
{
	txMachine *m = (txMachine *)the;
	m->peakChunksSize = m->currentChunksSize;
	m->peakHeapCount = m->currentHeapCount;
}

/* sysRandom(bytes): fills a buffer from the hardware RNG */
void xs_desk_sys_random(xsMachine *the)
{
	void *data;
	xsUnsignedValue size;
	xsmcGetBufferWritable(xsArg(0), &data, &size);
	esp_fill_random(data, size);
}

void xs_desk_sys_feed_watchdog(xsMachine *the)
{
	(void)the;
	esp_task_wdt_reset();
}

void xs_desk_sys_restart(xsMachine *the)
{
	(void)the;
	esp_restart();
}

void xs_desk_sys_deep_sleep(xsMachine *the)
{
	xsNumberValue ms = xsmcToNumber(xsArg(0));
	if (ms > 0)
		esp_sleep_enable_timer_wakeup((uint64_t)(ms * 1000.0));
	esp_deep_sleep_start();
}
