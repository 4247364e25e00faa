// desk-native: the host functions of the device build, bound by name to the C
// of modules/ (hotspots) and hosts/esp32/native/ (glue over ESP-IDF). XS's
// `@ "xs_name"` syntax is JavaScript only (tsc and esbuild cannot parse it),
// so this module stays a .js file with desk-native.d.ts beside it, and the
// firmware bundle imports it as an external module. The types and the
// error convention ("CODE: text") are in desk-native.d.ts.

// hotspots: modules/vecdot, modules/lexical, modules/sha256, modules/utf8, modules/mp3 (the same C the simulator links), modules/p256 (over the SDK's crypt arithmetic)
function vecdotDot(a, b) @ "xs_vecdot_dot";
function vecdotTopk(matrix, rows, dims, norms, query, qnorm, k, outIdx, outScore) @ "xs_vecdot_topk";
function lexicalBm25(pool, off, len, dl, rows, mask, query, nq, k1, b, scores, idf, k, outIdx, outScore) @ "xs_lexical_bm25";
function sha256Init() @ "xs_sha256_init";
function sha256Update(ctx, bytes) @ "xs_sha256_update";
function sha256Final(ctx) @ "xs_sha256_final";
function utf8Encode(s) @ "xs_utf8_encode";
function utf8Decode(bytes, start, end) @ "xs_utf8_decode";
function utf8Length(s) @ "xs_utf8_length";
function ecMul2(m, a, b, x1, y1, k1, x2, y2, k2) @ "xs_p256_mul2";
function mp3Open() @ "xs_mp3_open";
function mp3Decode(decoder, input, output) @ "xs_mp3_decode";
function mp3Close(decoder) @ "xs_mp3_close";

// SD card: desk_sd.c
function sdMount(config) @ "xs_desk_sd_mount";
function sdUnmount() @ "xs_desk_sd_unmount";
function sdInfo() @ "xs_desk_sd_info";
function sdStat(path) @ "xs_desk_sd_stat";
function sdList(path) @ "xs_desk_sd_list";
function sdMkdir(path) @ "xs_desk_sd_mkdir";
function sdRead(path, offset, length) @ "xs_desk_sd_read";
function sdOpen(path, mode) @ "xs_desk_sd_open";
function sdWrite(fd, bytes) @ "xs_desk_sd_write";
function sdSync(fd) @ "xs_desk_sd_sync";
function sdClose(fd) @ "xs_desk_sd_close";
function sdRename(from, to) @ "xs_desk_sd_rename";
function sdRemove(path) @ "xs_desk_sd_remove";

// app slots: desk_ota.c
function otaPartitions() @ "xs_desk_ota_partitions";
function otaRunning() @ "xs_desk_ota_running";
function otaBoot() @ "xs_desk_ota_boot";
function otaState(slot) @ "xs_desk_ota_state";
function otaBegin(slot) @ "xs_desk_ota_begin";
function otaWrite(bytes) @ "xs_desk_ota_write";
function otaEnd() @ "xs_desk_ota_end";
function otaAbort() @ "xs_desk_ota_abort";
function otaRead(slot, offset, length) @ "xs_desk_ota_read";
function otaSetBoot(slot) @ "xs_desk_ota_set_boot";
function otaMarkValid() @ "xs_desk_ota_mark_valid";

// system: desk_sys.c
function sysResetReason() @ "xs_desk_sys_reset_reason";
function sysHeap() @ "xs_desk_sys_heap";
function sysXsHeap() @ "xs_desk_sys_xs_heap";
function sysXsResetPeak() @ "xs_desk_sys_xs_reset_peak";
function sysRandom(bytes) @ "xs_desk_sys_random";
function sysFeedWatchdog() @ "xs_desk_sys_feed_watchdog";
function sysRestart() @ "xs_desk_sys_restart";
function sysDeepSleep(ms) @ "xs_desk_sys_deep_sleep";

// the nvs_keep partition: desk_nvs.c
function keepGet(key) @ "xs_desk_keep_get";
function keepSet(key, value) @ "xs_desk_keep_set";
function keepDelete(key) @ "xs_desk_keep_delete";
function keepKeys() @ "xs_desk_keep_keys";
function keepErase() @ "xs_desk_keep_erase";
function nvsEraseMain() @ "xs_desk_nvs_erase_main";

// the serial test console on USB Serial/JTAG: desk_console.c
function consoleOpen() @ "xs_desk_console_open";
function consoleRead() @ "xs_desk_console_read";
function consoleWrite(bytes) @ "xs_desk_console_write";

// panels without a Moddable driver: desk_panel.c
function panelOpen(config) @ "xs_desk_panel_open";
function panelBegin(x, y, width, height) @ "xs_desk_panel_begin";
function panelSend(pixels) @ "xs_desk_panel_send";
function panelEnd() @ "xs_desk_panel_end";

// the LED ring (WS2812B over RMT): desk_ring.c
function ringOpen(pin, count, order) @ "xs_desk_ring_open";
function ringShow(rgb) @ "xs_desk_ring_show";

export {
	vecdotDot,
	vecdotTopk,
	lexicalBm25,
	sha256Init,
	sha256Update,
	sha256Final,
	utf8Encode,
	utf8Decode,
	utf8Length,
	ecMul2,
	mp3Open,
	mp3Decode,
	mp3Close,
	sdMount,
	sdUnmount,
	sdInfo,
	sdStat,
	sdList,
	sdMkdir,
	sdRead,
	sdOpen,
	sdWrite,
	sdSync,
	sdClose,
	sdRename,
	sdRemove,
	otaPartitions,
	otaRunning,
	otaBoot,
	otaState,
	otaBegin,
	otaWrite,
	otaEnd,
	otaAbort,
	otaRead,
	otaSetBoot,
	otaMarkValid,
	sysResetReason,
	sysHeap,
	sysXsHeap,
	sysXsResetPeak,
	sysRandom,
	sysFeedWatchdog,
	sysRestart,
	sysDeepSleep,
	keepGet,
	keepSet,
	keepDelete,
	keepKeys,
	keepErase,
	nvsEraseMain,
	consoleOpen,
	consoleRead,
	consoleWrite,
	panelOpen,
	panelBegin,
	panelSend,
	panelEnd,
	ringOpen,
	ringShow,
};
