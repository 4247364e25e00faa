/*
 * desk_nvs: the second NVS partition, nvs_keep (partitions.csv), which holds
 * the values factory reset keeps (HAL namespace "keep"), and the erase of the
 * main partition. Moddable's Preference reads and writes only the default
 * "nvs" partition, which the device HAL uses for every other namespace.
 * ESP-IDF only. Values: int32, string, blob, as Preference stores them.
 */
#include "xsmc.h"
#include "xsHost.h"

#include <string.h>

#include "nvs.h"
#include "nvs_flash.h"

#define DESK_KEEP_PARTITION "nvs_keep"
#define DESK_KEEP_NAMESPACE "keep"

static int gKeepReady = 0;

static nvs_handle_t desk_keep_open(xsMachine *the, nvs_open_mode_t mode)
{
	nvs_handle_t h;
	esp_err_t err;
	if (!gKeepReady) {
		err = nvs_flash_init_partition(DESK_KEEP_PARTITION);
		if (err == ESP_ERR_NVS_NO_FREE_PAGES || err == ESP_ERR_NVS_NEW_VERSION_FOUND) {
			nvs_flash_erase_partition(DESK_KEEP_PARTITION);
			err = nvs_flash_init_partition(DESK_KEEP_PARTITION);
		}
		if (err != ESP_OK)
			xsUnknownError("EIO: nvs_keep init (%d)", (int)err);
		gKeepReady = 1;
	}
	err = nvs_open_from_partition(DESK_KEEP_PARTITION, DESK_KEEP_NAMESPACE, mode, &h);
	if (err == ESP_ERR_NVS_NOT_FOUND)
		return 0;
	if (err != ESP_OK)
		xsUnknownError("EIO: nvs_keep open (%d)", (int)err);
	return h;
}

static void desk_keep_check(xsMachine *the, esp_err_t err, nvs_handle_t h)
{
	if (err == ESP_OK)
		return;
	nvs_close(h);
	if (err == ESP_ERR_NVS_NOT_ENOUGH_SPACE)
		xsUnknownError("ENOSPC: nvs_keep full");
	if (err == ESP_ERR_NVS_KEY_TOO_LONG || err == ESP_ERR_NVS_INVALID_LENGTH || err == ESP_ERR_NVS_VALUE_TOO_LONG)
		xsUnknownError("EINVAL: key or value too long");
	xsUnknownError("EIO: nvs_keep (%d)", (int)err);
}

/* keepGet(key): number | string | ArrayBuffer | undefined */
void xs_desk_keep_get(xsMachine *the)
{
	char *key = xsmcToString(xsArg(0));
	nvs_handle_t h = desk_keep_open(the, NVS_READONLY);
	nvs_type_t type;
	size_t length = 0;
	if (!h)
		return;
	if (nvs_find_key(h, key, &type) != ESP_OK) {
		nvs_close(h);
		return;
	}
	if (type == NVS_TYPE_I32) {
		int32_t v = 0;
		desk_keep_check(the, nvs_get_i32(h, key, &v), h);
		xsmcSetInteger(xsResult, v);
	}
	else if (type == NVS_TYPE_STR) {
		desk_keep_check(the, nvs_get_str(h, key, NULL, &length), h);
		xsmcSetStringBuffer(xsResult, NULL, (xsIntegerValue)length);
		key = xsmcToString(xsArg(0)); /* the allocation may have moved it */
		desk_keep_check(the, nvs_get_str(h, key, xsmcToString(xsResult), &length), h);
	}
	else if (type == NVS_TYPE_BLOB) {
		void *data;
		xsUnsignedValue size;
		desk_keep_check(the, nvs_get_blob(h, key, NULL, &length), h);
		xsmcSetArrayBuffer(xsResult, NULL, (xsIntegerValue)length);
		xsmcGetBufferWritable(xsResult, &data, &size);
		key = xsmcToString(xsArg(0));
		desk_keep_check(the, nvs_get_blob(h, key, data, &length), h);
	}
	nvs_close(h);
}

/* keepSet(key, value: number | string | ArrayBuffer): durable on return */
void xs_desk_keep_set(xsMachine *the)
{
	nvs_handle_t h = desk_keep_open(the, NVS_READWRITE);
	char *key;
	esp_err_t err;
	if (xsmcTypeOf(xsArg(1)) == xsIntegerType || xsmcTypeOf(xsArg(1)) == xsNumberType)
		err = nvs_set_i32(h, xsmcToString(xsArg(0)), xsmcToInteger(xsArg(1)));
	else if (xsmcTypeOf(xsArg(1)) == xsStringType)
		err = nvs_set_str(h, xsmcToString(xsArg(0)), xsmcToString(xsArg(1)));
	else {
		void *data;
		xsUnsignedValue size;
		key = xsmcToString(xsArg(0));
		xsmcGetBufferReadable(xsArg(1), &data, &size);
		err = nvs_set_blob(h, key, data, size);
	}
	desk_keep_check(the, err, h);
	desk_keep_check(the, nvs_commit(h), h);
	nvs_close(h);
}

void xs_desk_keep_delete(xsMachine *the)
{
	nvs_handle_t h = desk_keep_open(the, NVS_READWRITE);
	esp_err_t err = nvs_erase_key(h, xsmcToString(xsArg(0)));
	if (err == ESP_ERR_NVS_NOT_FOUND)
		err = ESP_OK;
	desk_keep_check(the, err, h);
	desk_keep_check(the, nvs_commit(h), h);
	nvs_close(h);
}

/* keepKeys(): string[] */
void xs_desk_keep_keys(xsMachine *the)
{
	nvs_iterator_t it = NULL;
	int i = 0;
	xsmcVars(1);
	xsmcSetNewArray(xsResult, 0);
	desk_keep_open(the, NVS_READONLY); /* initializes the partition */
	if (nvs_entry_find(DESK_KEEP_PARTITION, DESK_KEEP_NAMESPACE, NVS_TYPE_ANY, &it) != ESP_OK)
		return;
	while (it) {
		nvs_entry_info_t info;
		nvs_entry_info(it, &info);
		xsmcSetString(xsVar(0), info.key);
		xsmcSetIndex(xsResult, i++, xsVar(0));
		if (nvs_entry_next(&it) != ESP_OK)
			break;
	}
	nvs_release_iterator(it);
}

void xs_desk_keep_erase(xsMachine *the)
{
	nvs_handle_t h = desk_keep_open(the, NVS_READWRITE);
	desk_keep_check(the, nvs_erase_all(h), h);
	desk_keep_check(the, nvs_commit(h), h);
	nvs_close(h);
}

/* nvsEraseMain(): erases every namespace of the main "nvs" partition */
void xs_desk_nvs_erase_main(xsMachine *the)
{
	esp_err_t err = nvs_flash_erase_partition(NVS_DEFAULT_PART_NAME);
	if (err == ESP_OK)
		err = nvs_flash_init_partition(NVS_DEFAULT_PART_NAME);
	if (err != ESP_OK)
		xsUnknownError("EIO: nvs erase (%d)", (int)err);
}
