/*
 * desk_panel: display glue for the two panels the Moddable SDK has no driver
 * for (docs/decisions.md, "Device build"): the ST7796S of panel-35 (SPI, MIPI
 * DCS) through ESP-IDF's esp_lcd SPI panel IO, and the ST7701S of panel-40
 * (16-bit RGB) through esp_lcd's RGB panel with its frame buffer in PSRAM,
 * configured once over a bit-banged 3-wire SPI link. Init tables and byte
 * helpers are the portable panel.c. ESP-IDF only: built by mcconfig.
 *
 * The JavaScript side (hosts/esp32/hal/display.ts) sees one API for both:
 * panelOpen(config), panelBegin(x, y, w, h), panelSend(Uint16Array), panelEnd().
 */
#include "xsmc.h"
#include "xsHost.h"

#include <string.h>

#include "driver/gpio.h"
#include "driver/spi_master.h"
#include "esp_heap_caps.h"
#include "esp_lcd_panel_io.h"
#include "esp_lcd_panel_ops.h"
#include "esp_lcd_panel_rgb.h"
#include "esp_rom_sys.h"
#include "freertos/FreeRTOS.h"
#include "freertos/semphr.h"

#include "panel.h"

#define DESK_PANEL_CHUNK 4096 /* bytes per SPI DMA transfer */

enum { PANEL_NONE = 0, PANEL_SPI, PANEL_RGB };

static int gKind = PANEL_NONE;
static esp_lcd_panel_io_handle_t gIo = NULL;
static esp_lcd_panel_handle_t gRgb = NULL;
static uint16_t *gBounce[2];
static int gNext = 0;
static SemaphoreHandle_t gFree = NULL;
static uint32_t gX, gY, gW, gH, gAt; /* window and pixels sent into it */

static bool desk_panel_done(esp_lcd_panel_io_handle_t io, esp_lcd_panel_io_event_data_t *event, void *ctx)
{
	BaseType_t woken = pdFALSE;
	(void)io;
	(void)event;
	(void)ctx;
	xSemaphoreGiveFromISR(gFree, &woken);
	return woken == pdTRUE;
}

static int desk_panel_int(xsMachine *the, const char *name, int fallback)
{
	xsmcGet(xsVar(0), xsArg(0), xsID(name));
	return xsmcTypeOf(xsVar(0)) == xsUndefinedType ? fallback : xsmcToInteger(xsVar(0));
}

static void desk_panel_run(xsMachine *the, const uint8_t *table, size_t size, void (*send)(const panel_record *))
{
	size_t pos = 0;
	panel_record r;
	while (panel_next(table, size, &pos, &r)) {
		send(&r);
		if (r.delayMs)
			vTaskDelay(pdMS_TO_TICKS(r.delayMs));
	}
	if (pos != size)
		xsUnknownError("EINVAL: bad init table");
}

static void desk_panel_spi_cmd(const panel_record *r)
{
	esp_lcd_panel_io_tx_param(gIo, r->cmd, r->length ? r->data : NULL, r->length);
}

/* The ST7701S listens on a 3-wire link: CS, clock and data, 9 bits a byte. */
static int gCs, gSclk, gMosi;
static void desk_panel_3wire_cmd(const panel_record *r)
{
	uint8_t bits[64];
	size_t n = panel_pack9(r->cmd, r->data, r->length, bits, sizeof bits);
	size_t total = 9 * (1 + (size_t)r->length), i;
	if (!n)
		return;
	gpio_set_level(gCs, 0);
	for (i = 0; i < total; i++) {
		gpio_set_level(gSclk, 0);
		gpio_set_level(gMosi, (bits[i >> 3] >> (7 - (i & 7))) & 1);
		esp_rom_delay_us(1);
		gpio_set_level(gSclk, 1);
		esp_rom_delay_us(1);
	}
	gpio_set_level(gCs, 1);
}

static void desk_panel_open_spi(xsMachine *the)
{
	spi_bus_config_t bus = {
		.sclk_io_num = desk_panel_int(the, "sclk", -1),
		.mosi_io_num = desk_panel_int(the, "mosi", -1),
		.miso_io_num = desk_panel_int(the, "miso", -1),
		.quadwp_io_num = -1,
		.quadhd_io_num = -1,
		.max_transfer_sz = DESK_PANEL_CHUNK,
	};
	esp_lcd_panel_io_spi_config_t io = {
		.cs_gpio_num = desk_panel_int(the, "cs", -1),
		.dc_gpio_num = desk_panel_int(the, "dc", -1),
		.spi_mode = 0,
		.pclk_hz = desk_panel_int(the, "spiHz", 40000000),
		.trans_queue_depth = 2,
		.on_color_trans_done = desk_panel_done,
		.lcd_cmd_bits = 8,
		.lcd_param_bits = 8,
	};
	uint8_t madctl = panel_madctl(desk_panel_int(the, "rotation", 0));
	int rst = desk_panel_int(the, "rst", -1);
	esp_err_t err = spi_bus_initialize(SPI2_HOST, &bus, SPI_DMA_CH_AUTO);
	if (err != ESP_OK && err != ESP_ERR_INVALID_STATE)
		xsUnknownError("EIO: spi bus (%d)", (int)err);
	if (esp_lcd_new_panel_io_spi((esp_lcd_spi_bus_handle_t)SPI2_HOST, &io, &gIo) != ESP_OK)
		xsUnknownError("EIO: panel io");
	gFree = xSemaphoreCreateCounting(2, 2);
	gBounce[0] = heap_caps_malloc(DESK_PANEL_CHUNK, MALLOC_CAP_DMA | MALLOC_CAP_INTERNAL);
	gBounce[1] = heap_caps_malloc(DESK_PANEL_CHUNK, MALLOC_CAP_DMA | MALLOC_CAP_INTERNAL);
	if (!gFree || !gBounce[0] || !gBounce[1])
		xsUnknownError("ENOSPC: panel buffers");
	if (rst >= 0) {
		gpio_set_direction(rst, GPIO_MODE_OUTPUT);
		gpio_set_level(rst, 0);
		vTaskDelay(pdMS_TO_TICKS(10));
		gpio_set_level(rst, 1);
		vTaskDelay(pdMS_TO_TICKS(120));
	}
	desk_panel_run(the, panel_st7796s_init, panel_st7796s_init_size, desk_panel_spi_cmd);
	esp_lcd_panel_io_tx_param(gIo, 0x36, &madctl, 1);
	gKind = PANEL_SPI;
}

static void desk_panel_open_rgb(xsMachine *the)
{
	static const char *names[16] = { "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8", "d9", "d10", "d11", "d12", "d13", "d14", "d15" };
	esp_lcd_rgb_panel_config_t config;
	int i;
	memset(&config, 0, sizeof config);
	gCs = desk_panel_int(the, "initCs", -1);
	gSclk = desk_panel_int(the, "initSclk", -1);
	gMosi = desk_panel_int(the, "initMosi", -1);
	gpio_set_direction(gCs, GPIO_MODE_OUTPUT);
	gpio_set_direction(gSclk, GPIO_MODE_OUTPUT);
	gpio_set_direction(gMosi, GPIO_MODE_OUTPUT);
	gpio_set_level(gCs, 1);
	desk_panel_run(the, panel_st7701s_init, panel_st7701s_init_size, desk_panel_3wire_cmd);

	config.data_width = 16;
	config.psram_trans_align = 64;
	config.num_fbs = 1;
	config.bounce_buffer_size_px = 10 * 480;
	config.clk_src = LCD_CLK_SRC_DEFAULT;
	config.disp_gpio_num = -1;
	config.pclk_gpio_num = desk_panel_int(the, "pclk", -1);
	config.vsync_gpio_num = desk_panel_int(the, "vsync", -1);
	config.hsync_gpio_num = desk_panel_int(the, "hsync", -1);
	config.de_gpio_num = desk_panel_int(the, "de", -1);
	for (i = 0; i < 16; i++)
		config.data_gpio_nums[i] = desk_panel_int(the, names[i], -1);
	config.timings.pclk_hz = desk_panel_int(the, "pclkHz", 14000000);
	config.timings.h_res = desk_panel_int(the, "width", 480);
	config.timings.v_res = desk_panel_int(the, "height", 480);
	config.timings.hsync_back_porch = 50;
	config.timings.hsync_front_porch = 10;
	config.timings.hsync_pulse_width = 8;
	config.timings.vsync_back_porch = 20;
	config.timings.vsync_front_porch = 10;
	config.timings.vsync_pulse_width = 8;
	config.flags.fb_in_psram = 1;
	if (esp_lcd_new_rgb_panel(&config, &gRgb) != ESP_OK || esp_lcd_panel_reset(gRgb) != ESP_OK || esp_lcd_panel_init(gRgb) != ESP_OK)
		xsUnknownError("EIO: rgb panel");
	gKind = PANEL_RGB;
}

/* panelOpen({controller: "st7796s" | "st7701s", ...pins, width, height, rotation}) */
void xs_desk_panel_open(xsMachine *the)
{
	char *controller;
	xsmcVars(1);
	if (gKind != PANEL_NONE)
		return;
	xsmcGet(xsVar(0), xsArg(0), xsID("controller"));
	controller = xsmcToString(xsVar(0));
	if (!strcmp(controller, "st7796s"))
		desk_panel_open_spi(the);
	else if (!strcmp(controller, "st7701s"))
		desk_panel_open_rgb(the);
	else
		xsUnknownError("ENOTSUP: no glue for this panel");
}

void xs_desk_panel_begin(xsMachine *the)
{
	uint8_t caset[4], raset[4];
	gX = xsmcToInteger(xsArg(0));
	gY = xsmcToInteger(xsArg(1));
	gW = xsmcToInteger(xsArg(2));
	gH = xsmcToInteger(xsArg(3));
	gAt = 0;
	if (gKind == PANEL_SPI) {
		if (!panel_window(gX, gY, gW, gH, caset, raset))
			xsUnknownError("EINVAL: window");
		esp_lcd_panel_io_tx_param(gIo, 0x2A, caset, 4);
		esp_lcd_panel_io_tx_param(gIo, 0x2B, raset, 4);
	}
}

/* panelSend(pixels: Uint16Array of RGB565, row-major within the window) */
void xs_desk_panel_send(xsMachine *the)
{
	void *data;
	xsUnsignedValue size;
	const uint16_t *px;
	size_t count, done = 0;
	xsmcGetBufferReadable(xsArg(0), &data, &size);
	px = data;
	count = size / 2;
	if (gKind == PANEL_SPI) {
		while (done < count) {
			size_t n = count - done;
			if (n > DESK_PANEL_CHUNK / 2)
				n = DESK_PANEL_CHUNK / 2;
			xSemaphoreTake(gFree, portMAX_DELAY);
			memcpy(gBounce[gNext], px + done, n * 2);
			panel_swap16(gBounce[gNext], n);
			/* 0x2C starts the write, 0x3C continues it */
			esp_lcd_panel_io_tx_color(gIo, (gAt == 0) ? 0x2C : 0x3C, gBounce[gNext], n * 2);
			gNext ^= 1;
			gAt += n;
			done += n;
		}
	}
	else if (gKind == PANEL_RGB) {
		/* copies row pieces into the frame buffer; esp_lcd handles the cache */
		while (done < count && gW) {
			uint32_t row = gAt / gW, col = gAt % gW;
			size_t n = gW - col;
			if (row >= gH)
				break;
			if (n > count - done)
				n = count - done;
			esp_lcd_panel_draw_bitmap(gRgb, gX + col, gY + row, gX + col + n, gY + row + 1, px + done);
			gAt += n;
			done += n;
		}
	}
}

void xs_desk_panel_end(xsMachine *the)
{
	(void)the;
	if (gKind == PANEL_SPI) {
		/* wait until both bounce buffers are back */
		xSemaphoreTake(gFree, portMAX_DELAY);
		xSemaphoreTake(gFree, portMAX_DELAY);
		xSemaphoreGive(gFree);
		xSemaphoreGive(gFree);
	}
}
