/*
 * desk_ota: the two app slots for the device HAL's Flash (hosts/esp32/hal/
 * storage.ts) over ESP-IDF's OTA API. ESP-IDF only: built by mcconfig.
 *
 * Why not embedded:update alone: its complete() ends the write and flips the
 * boot slot in one call, while the update engine arms its guard between the
 * two (src/ota/guard.ts); and the SDK has no rollback marking. Here the write
 * ends (esp_ota_end checks the image) without selecting the slot, the flip is
 * its own call, and the running image is marked valid with
 * esp_ota_mark_app_valid_cancel_rollback (the bootloader's rollback is enabled
 * in hosts/esp32/sdkconfig/sdkconfig.defaults).
 *
 * Errors throw "CODE: text" like desk_sd.c.
 */
#include "xsmc.h"
#include "xsHost.h"

#include <string.h>

#include "esp_ota_ops.h"
#include "esp_partition.h"

#include "otastate.h"

static esp_ota_handle_t gHandle = 0;
static const esp_partition_t *gWriting = NULL;

static const esp_partition_t *desk_ota_slot(xsMachine *the, int arg)
{
	xsIntegerValue slot = xsmcToInteger(xsArg(arg));
	const esp_partition_t *p;
	if (slot != 0 && slot != 1)
		xsUnknownError("EINVAL: slot");
	p = esp_partition_find_first(ESP_PARTITION_TYPE_APP, slot ? ESP_PARTITION_SUBTYPE_APP_OTA_1 : ESP_PARTITION_SUBTYPE_APP_OTA_0, NULL);
	if (!p)
		xsUnknownError("ENOENT: no such slot");
	return p;
}

static int desk_ota_index(const esp_partition_t *p)
{
	return p ? otastate_slot((uint32_t)p->subtype) : -1;
}

/* otaPartitions(): [[name, isApp, subtype, offset, size], ...] */
void xs_desk_ota_partitions(xsMachine *the)
{
	esp_partition_iterator_t it = esp_partition_find(ESP_PARTITION_TYPE_ANY, ESP_PARTITION_SUBTYPE_ANY, NULL);
	int i = 0;
	xsmcVars(2);
	xsmcSetNewArray(xsResult, 0);
	for (; it; it = esp_partition_next(it)) {
		const esp_partition_t *p = esp_partition_get(it);
		xsmcSetNewArray(xsVar(0), 5);
		xsmcSetString(xsVar(1), (char *)p->label);
		xsmcSetIndex(xsVar(0), 0, xsVar(1));
		xsmcSetBoolean(xsVar(1), p->type == ESP_PARTITION_TYPE_APP);
		xsmcSetIndex(xsVar(0), 1, xsVar(1));
		xsmcSetInteger(xsVar(1), p->subtype);
		xsmcSetIndex(xsVar(0), 2, xsVar(1));
		xsmcSetNumber(xsVar(1), p->address);
		xsmcSetIndex(xsVar(0), 3, xsVar(1));
		xsmcSetNumber(xsVar(1), p->size);
		xsmcSetIndex(xsVar(0), 4, xsVar(1));
		xsmcSetIndex(xsResult, i++, xsVar(0));
	}
	esp_partition_iterator_release(it);
}

/* otaRunning(), otaBoot(): 0 or 1 (-1 when not an OTA slot) */
void xs_desk_ota_running(xsMachine *the)
{
	xsmcSetInteger(xsResult, desk_ota_index(esp_ota_get_running_partition()));
}

void xs_desk_ota_boot(xsMachine *the)
{
	xsmcSetInteger(xsResult, desk_ota_index(esp_ota_get_boot_partition()));
}

/* otaState(slot): the HAL's SlotState name */
void xs_desk_ota_state(xsMachine *the)
{
	esp_ota_img_states_t state = ESP_OTA_IMG_UNDEFINED;
	int has = esp_ota_get_state_partition(desk_ota_slot(the, 0), &state) == ESP_OK;
	xsmcSetString(xsResult, (char *)otastate_name((uint32_t)state, has));
}

/* otaBegin(slot): starts writing the slot. Each 4 KB sector is erased as the
   writes reach it (OTA_WITH_SEQUENTIAL_WRITES): erasing the whole 6.5 MB slot
   up front blocks this task for many seconds, past the task watchdog
   (hosts/esp32/sdkconfig), which would reset the device mid-update. */
void xs_desk_ota_begin(xsMachine *the)
{
	const esp_partition_t *p = desk_ota_slot(the, 0);
	esp_err_t err;
	if (p == esp_ota_get_running_partition())
		xsUnknownError("EBUSY: the running slot");
	if (gHandle) {
		esp_ota_abort(gHandle);
		gHandle = 0;
	}
	err = esp_ota_begin(p, OTA_WITH_SEQUENTIAL_WRITES, &gHandle);
	if (err != ESP_OK) {
		gHandle = 0;
		xsUnknownError("EIO: begin failed (%d)", (int)err);
	}
	gWriting = p;
}

void xs_desk_ota_write(xsMachine *the)
{
	void *data;
	xsUnsignedValue size;
	esp_err_t err;
	if (!gHandle)
		xsUnknownError("EINVAL: no write in progress");
	xsmcGetBufferReadable(xsArg(0), &data, &size);
	err = esp_ota_write(gHandle, data, size);
	if (err != ESP_OK)
		xsUnknownError("%s: write failed (%d)", err == ESP_ERR_OTA_VALIDATE_FAILED ? "EINVAL" : "EIO", (int)err);
}

/* otaEnd(): finishes and checks the image; the slot is not selected */
void xs_desk_ota_end(xsMachine *the)
{
	esp_err_t err;
	if (!gHandle)
		xsUnknownError("EINVAL: no write in progress");
	err = esp_ota_end(gHandle);
	gHandle = 0;
	if (err != ESP_OK) {
		/* a refused image must not stay bootable-looking: erase its first sector */
		if (gWriting)
			esp_partition_erase_range(gWriting, 0, 4096);
		xsUnknownError("EINVAL: image refused (%d)", (int)err);
	}
}

void xs_desk_ota_abort(xsMachine *the)
{
	if (gHandle)
		esp_ota_abort(gHandle);
	gHandle = 0;
	if (gWriting)
		esp_partition_erase_range(gWriting, 0, 4096);
	gWriting = NULL;
}

/* otaRead(slot, offset, length): ArrayBuffer */
void xs_desk_ota_read(xsMachine *the)
{
	const esp_partition_t *p = desk_ota_slot(the, 0);
	xsIntegerValue offset = xsmcToInteger(xsArg(1));
	xsIntegerValue length = xsmcToInteger(xsArg(2));
	void *data;
	xsUnsignedValue size;
	if (offset < 0 || length < 0 || (uint32_t)offset > p->size)
		xsUnknownError("EINVAL: bad range");
	if ((uint32_t)length > p->size - (uint32_t)offset)
		length = (xsIntegerValue)(p->size - (uint32_t)offset);
	xsmcSetArrayBuffer(xsResult, NULL, length);
	xsmcGetBufferWritable(xsResult, &data, &size);
	if (esp_partition_read(p, (size_t)offset, data, size) != ESP_OK)
		xsUnknownError("EIO: read failed");
}

void xs_desk_ota_set_boot(xsMachine *the)
{
	esp_err_t err = esp_ota_set_boot_partition(desk_ota_slot(the, 0));
	if (err != ESP_OK)
		xsUnknownError("EINVAL: cannot select the slot (%d)", (int)err);
}

void xs_desk_ota_mark_valid(xsMachine *the)
{
	esp_err_t err = esp_ota_mark_app_valid_cancel_rollback();
	if (err != ESP_OK)
		xsUnknownError("EIO: mark valid failed (%d)", (int)err);
}
