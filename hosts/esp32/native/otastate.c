/*
 * otastate: ESP-IDF's app image states and partition subtypes in the terms of
 * the firmware's HAL (see otastate.h).
 */
#include "otastate.h"

const char *otastate_name(uint32_t idfState, int hasState)
{
	if (!hasState)
		return "undefined";
	switch (idfState) {
	case OTASTATE_IDF_NEW:
		return "new";
	case OTASTATE_IDF_PENDING_VERIFY:
		return "pending-verify";
	case OTASTATE_IDF_VALID:
		return "valid";
	case OTASTATE_IDF_INVALID:
		return "invalid";
	case OTASTATE_IDF_ABORTED:
		return "aborted";
	default:
		return "undefined";
	}
}

int otastate_slot(uint32_t subtype)
{
	if (subtype == 0x10u)
		return 0;
	if (subtype == 0x11u)
		return 1;
	return -1;
}
