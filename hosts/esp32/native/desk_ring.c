/*
 * desk_ring: the LED ring (WS2812B) through ESP-IDF's RMT transmitter and its
 * copy encoder; the frame's symbols (bits, timing, order, the latch) come from
 * the portable ledring.c. ESP-IDF only: built by mcconfig. Our own driver, so
 * the image does not link the SDK's NeoPixel, whose files say GPL-3.0
 * (docs/licenses.md).
 *
 * The JavaScript side (hosts/esp32/hal/devices.ts): ringOpen(pin, count,
 * order), ringShow(Uint8Array of red, green, blue per LED).
 */
#include "xsmc.h"
#include "xsHost.h"

#include <stdlib.h>

#include "driver/rmt_tx.h"
#include "driver/rmt_encoder.h"
#include "soc/soc_caps.h"

#include "ledring.h"

#define DESK_RING_TIMEOUT_MS 50 /* a 256-LED frame plays in 8 ms */

static rmt_channel_handle_t gChannel = NULL;
static rmt_encoder_handle_t gEncoder = NULL;
static uint32_t *gSymbols = NULL;
static size_t gCount = 0;
static int gOrder = LEDRING_GRB;

static void desk_ring_fail(xsMachine *the, esp_err_t err, const char *what)
{
	xsUnknownError("EIO: %s (%s)", what, esp_err_to_name(err));
}

void xs_desk_ring_open(xsMachine *the)
{
	int pin = xsmcToInteger(xsArg(0));
	int count = xsmcToInteger(xsArg(1));
	int order = xsmcToInteger(xsArg(2));
	esp_err_t err;
	if (gChannel)
		xsUnknownError("EBUSY: ring already open");
	if (pin < 0 || count <= 0 || count > (int)LEDRING_MAX || (order != LEDRING_GRB && order != LEDRING_RGB))
		xsUnknownError("EINVAL: bad ring");
	gSymbols = malloc(ledring_symbols_for((size_t)count) * sizeof(uint32_t));
	if (!gSymbols)
		xsUnknownError("ENOMEM: ring frame");
	rmt_tx_channel_config_t channel = {
		.gpio_num = pin,
		.clk_src = RMT_CLK_SRC_DEFAULT,
		.resolution_hz = LEDRING_HZ,
		.mem_block_symbols = SOC_RMT_MEM_WORDS_PER_CHANNEL, /* one block: the driver refills it as it plays */
		.trans_queue_depth = 1,
	};
	err = rmt_new_tx_channel(&channel, &gChannel);
	if (err == ESP_OK) {
		rmt_copy_encoder_config_t copy = {0};
		err = rmt_new_copy_encoder(&copy, &gEncoder);
	}
	if (err == ESP_OK)
		err = rmt_enable(gChannel);
	if (err != ESP_OK) {
		if (gEncoder)
			rmt_del_encoder(gEncoder);
		if (gChannel)
			rmt_del_channel(gChannel);
		gEncoder = NULL;
		gChannel = NULL;
		free(gSymbols);
		gSymbols = NULL;
		desk_ring_fail(the, err, "ring open");
	}
	gCount = (size_t)count;
	gOrder = order;
}

void xs_desk_ring_show(xsMachine *the)
{
	void *data;
	xsUnsignedValue size;
	size_t n;
	esp_err_t err;
	rmt_transmit_config_t once = { .loop_count = 0 };
	if (!gChannel)
		xsUnknownError("ENODEV: ring not open");
	xsmcGetBufferReadable(xsArg(0), &data, &size);
	n = ledring_encode(data, size, gCount, gOrder, gSymbols, ledring_symbols_for(gCount));
	if (!n)
		xsUnknownError("EINVAL: bad frame");
	/* the symbols must outlive the transfer: wait for it before returning */
	err = rmt_transmit(gChannel, gEncoder, gSymbols, n * sizeof(uint32_t), &once);
	if (err == ESP_OK)
		err = rmt_tx_wait_all_done(gChannel, DESK_RING_TIMEOUT_MS);
	if (err != ESP_OK)
		desk_ring_fail(the, err, "ring show");
}
