/*
 * resetreason: ESP-IDF's esp_reset_reason_t in the HAL's ResetReason names
 * (src/hal/system.ts). Portable C99; the numbers are ESP-IDF 5's.
 */
#ifndef RESETREASON_H
#define RESETREASON_H

#ifdef __cplusplus
extern "C" {
#endif

/* Name for an esp_reset_reason_t value; "unknown" for anything else. */
const char *resetreason_name(int idfReason);

#ifdef __cplusplus
}
#endif

#endif /* RESETREASON_H */
