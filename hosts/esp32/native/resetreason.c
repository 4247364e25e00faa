/*
 * resetreason: see resetreason.h. ESP-IDF 5 (esp_system.h): 0 UNKNOWN,
 * 1 POWERON, 2 EXT, 3 SW, 4 PANIC, 5 INT_WDT, 6 TASK_WDT, 7 WDT, 8 DEEPSLEEP,
 * 9 BROWNOUT, 10 SDIO, 11 USB, 12 JTAG, 13 EFUSE, 14 PWR_GLITCH, 15 CPU_LOCKUP.
 */
#include "resetreason.h"

const char *resetreason_name(int idfReason)
{
	switch (idfReason) {
	case 1:
		return "power-on";
	case 2: /* the reset pin */
	case 11: /* USB: the console port opened (DTR/RTS), as the simulator models it */
	case 12: /* JTAG */
		return "external";
	case 3:
		return "software";
	case 4:
	case 15:
		return "panic";
	case 5:
	case 6:
	case 7:
		return "watchdog";
	case 8:
		return "deep-sleep";
	case 9:
	case 14:
		return "brownout";
	default:
		return "unknown";
	}
}
