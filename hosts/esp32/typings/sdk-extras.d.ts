// What the device HAL (and the lin HAL, hosts/lin) uses of the Moddable SDK
// 8.2.3 that the SDK's own typings ($MODDABLE/typings, which the device
// typecheck includes: tools/device-typecheck.mjs) do not declare. Each entry
// says which SDK source it describes; everything else comes from the SDK.

// ---- drivers with no SDK typings ------------------------------------------

/**
 * modules/drivers/ili9341/ili9341.js (modIli9341.c): a PixelsOut display.
 * Its pins, size and clock are build-time defines (ili9341.cs_pin, dc_pin,
 * rst_pin, width, height, hz; spi.mosi_pin, miso_pin, sck_pin), set per board
 * in boards/<type>/manifest.json; the constructor reads only pixelFormat.
 */
declare module 'ili9341' {
  export default class ILI9341 {
    constructor(dictionary?: { pixelFormat?: number });
    begin(x: number, y: number, width: number, height: number): void;
    send(pixels: ArrayBufferLike | ArrayBufferView, offset?: number, count?: number): void;
    end(): void;
    readonly width: number;
    readonly height: number;
    readonly pixelFormat: number;
    /** 0, 90, 180 or 270 (xs_ILI9341_set_rotation throws on anything else). */
    rotation: number;
    close(): void;
  }
}

/** modules/drivers/gc9a01/gc9a01.js: the ILI9341 driver with the GC9A01's registers (its manifest's ili9341 defines). */
declare module 'gc9a01' {
  import ILI9341 from 'ili9341';
  export default ILI9341;
}

/**
 * A touch point as the SDK's touch drivers fill it in read(points): state 0
 * none, 1 down, 2 moved, 3 up (gt911 adds 0x80 to a point it did not read
 * afresh); x and y in the controller's own orientation.
 */
declare interface SdkTouchPoint {
  state: number;
  x: number;
  y: number;
}

/**
 * modules/drivers/ft6206/ft6206.js (modFt6206.c): read(points) fills the
 * points' state, x and y. Pins, address, size and flips are build-time
 * defines (ft6206.sda, scl, addr, width, height, flipX, flipY, fitX, fitY);
 * the constructor takes no options.
 */
declare module 'ft6206' {
  export default class FT6206 {
    constructor(dictionary?: Record<string, never>);
    read(points: SdkTouchPoint[]): void;
  }
}

/**
 * modules/drivers/gt911/gt911.js: an I2C device on the SDK's pins/i2c, whose
 * dictionary it takes (sda, scl, address, hz); read(points) as ft6206's.
 */
declare module 'gt911' {
  export default class GT911 {
    constructor(dictionary: { sda: number; scl: number; address?: number; hz?: number });
    read(points: SdkTouchPoint[]): void;
    close(): void;
  }
}

