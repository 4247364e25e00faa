// lin-native: the host functions of the SDK desktop runtime build (hosts/lin),
// bound by name as on the device (hosts/esp32/native/desk-native.js): the
// hotspots of modules/ (the same C the device and the simulator link) and the
// little the lin HAL needs from the process (lin_native.c). JavaScript only
// (XS's `@ "xs_name"` syntax); the types are in lin-native.d.ts.

// hotspots: modules/vecdot, modules/lexical, modules/sha256, modules/utf8, modules/p256 (over the SDK's crypt arithmetic)
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

// the process: lin_native.c
function linEnv(name) @ "xs_lin_env";
function linExit(code) @ "xs_lin_exit";
function linXsHeap() @ "xs_lin_xs_heap";
function linXsResetPeak() @ "xs_lin_xs_reset_peak";
function linRandom(bytes) @ "xs_lin_random";

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
	linEnv,
	linExit,
	linXsHeap,
	linXsResetPeak,
	linRandom,
};
