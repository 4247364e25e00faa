/*
 * sha256: streaming SHA-256 (FIPS 180-4) in portable C99.
 *
 *   desk_sha256_ctx c; desk_sha256_init(&c); desk_sha256_update(&c, p, n); ...
 *   desk_sha256_final(&c, digest);   // digest: 32 bytes; c is reset for reuse
 *
 * No intrinsics, no assembly, no alignment requirement on the input. The
 * context holds only 32-bit words and bytes (4-byte alignment), so it can
 * live in any buffer; the XS binding keeps it in an ArrayBuffer.
 */
#ifndef DESK_SHA256_H
#define DESK_SHA256_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SHA256_DIGEST_SIZE 32
#define SHA256_BLOCK_SIZE 64

/*
 * On the device (a Moddable build whose manifest defines sha256.mbedtls, see
 * hosts/esp32/manifest.json) the same API runs on ESP-IDF's mbedtls, which
 * uses the ESP32-S3's SHA accelerator; everywhere else, on the portable C.
 * The context is copied by value between calls (the XS binding keeps it in
 * an ArrayBuffer), which both forms allow: neither holds a pointer to itself.
 */
#if defined(__has_include)
#if __has_include("mc.defines.h")
#include "mc.defines.h"
#endif
#endif
#if defined(MODDEF_SHA256_MBEDTLS) && MODDEF_SHA256_MBEDTLS
#define SHA256_USE_MBEDTLS 1
#include "mbedtls/sha256.h"
typedef struct {
	mbedtls_sha256_context m;
} desk_sha256_ctx;
#else
#define SHA256_USE_MBEDTLS 0
typedef struct {
	uint32_t state[8];
	uint32_t count_lo;   /* total bytes hashed, low 32 bits */
	uint32_t count_hi;   /* and high 32 bits */
	uint32_t used;       /* bytes waiting in block[] (0..63) */
	uint8_t block[SHA256_BLOCK_SIZE];
} desk_sha256_ctx;
#endif

void desk_sha256_init(desk_sha256_ctx *ctx);
void desk_sha256_update(desk_sha256_ctx *ctx, const void *data, size_t len);
/* Writes the digest and resets ctx to the initial state. */
void desk_sha256_final(desk_sha256_ctx *ctx, uint8_t digest[SHA256_DIGEST_SIZE]);
/* One-shot convenience. */
void desk_sha256(const void *data, size_t len, uint8_t digest[SHA256_DIGEST_SIZE]);

#ifdef __cplusplus
}
#endif

#endif /* DESK_SHA256_H */
