/*
 * desk_console: the serial test console on the ESP32-S3's USB Serial/JTAG
 * port, the one every board's USB-C socket reaches (docs/device.md). The
 * SDK's embedded:io/serial is not that port: it drives a UART on pins and
 * throws without them (modules/io/serial/esp32/serial.c). ESP-IDF only.
 *
 * consoleOpen() installs ESP-IDF's USB Serial/JTAG driver once (the console
 * of the SDK's own output may already use the port: then it stays as it is);
 * consoleRead() returns the bytes received so far, without waiting;
 * consoleWrite(bytes) queues what fits in the driver's buffer and returns how
 * many bytes that was.
 */
#include "xsmc.h"
#include "xsHost.h"

#include "driver/usb_serial_jtag.h"

#define CONSOLE_READ_MAX 256

static int gConsoleReady = 0;

void xs_desk_console_open(xsMachine *the)
{
	usb_serial_jtag_driver_config_t config = USB_SERIAL_JTAG_DRIVER_CONFIG_DEFAULT();
	esp_err_t err;
	if (gConsoleReady)
		return;
	err = usb_serial_jtag_driver_install(&config);
	if ((ESP_OK != err) && (ESP_ERR_INVALID_STATE != err))
		xsUnknownError("EIO: USB Serial/JTAG driver");
	gConsoleReady = 1;
}

void xs_desk_console_read(xsMachine *the)
{
	uint8_t buffer[CONSOLE_READ_MAX];
	int count;
	if (!gConsoleReady)
		return;
	count = usb_serial_jtag_read_bytes(buffer, sizeof(buffer), 0);
	if (count > 0)
		xsmcSetArrayBuffer(xsResult, buffer, count);
}

void xs_desk_console_write(xsMachine *the)
{
	void *data;
	xsUnsignedValue size;
	int count = 0;
	xsmcGetBufferReadable(xsArg(0), &data, &size);
	if (gConsoleReady && size)
		count = usb_serial_jtag_write_bytes(data, size, 0);
	xsmcSetInteger(xsResult, count > 0 ? count : 0);
}
