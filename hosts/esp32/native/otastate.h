/*
 * otastate: the app slots as the firmware sees them, from what ESP-IDF reports.
 * Portable C99 (no ESP-IDF): the device glue (desk_ota.c) passes ESP-IDF's
 * numbers in, the host tests pass their own.
 */
#ifndef OTASTATE_H
#define OTASTATE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ESP-IDF's esp_ota_img_states_t values (esp_flash_partitions.h). */
#define OTASTATE_IDF_NEW 0x0u
#define OTASTATE_IDF_PENDING_VERIFY 0x1u
#define OTASTATE_IDF_VALID 0x2u
#define OTASTATE_IDF_INVALID 0x3u
#define OTASTATE_IDF_ABORTED 0x4u
#define OTASTATE_IDF_UNDEFINED 0xFFFFFFFFu

/* The HAL's SlotState names (src/hal/storage.ts), for an ESP-IDF state. An
 * unknown value reads as "undefined". hasState 0 means ESP-IDF had no otadata
 * entry for the slot (esp_ota_get_state_partition failed): "undefined" too. */
const char *otastate_name(uint32_t idfState, int hasState);

/* Slot index (0 or 1) of an app partition subtype (ota_0 = 0x10, ota_1 = 0x11),
 * or -1 for any other subtype (factory, test, ota_2 and up). */
int otastate_slot(uint32_t subtype);

#ifdef __cplusplus
}
#endif

#endif /* OTASTATE_H */
