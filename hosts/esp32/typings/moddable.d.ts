// Typings of the Moddable SDK modules the device HAL uses, written for the
// subset we call, from the SDK's documentation and sources (8.x). The npm
// package @moddable/typings is 5.6 and lacks several of these (embedded:io
// sockets, TLS, embedded:update), so they live here; tsconfig.device.json
// checks hosts/esp32 against them with the firmware's strictness.

type ModdableBuffer = ArrayBuffer | ArrayBufferView;

declare module 'preference' {
  export type PreferenceValue = boolean | number | string | ArrayBuffer;
  export default class Preference {
    static get(domain: string, key: string): PreferenceValue | undefined;
    static set(domain: string, key: string, value: PreferenceValue): void;
    static delete(domain: string, key: string): void;
    static keys(domain: string): string[];
  }
}

declare module 'timer' {
  export type TimerId = object;
  export default class Timer {
    static set(callback: (id: TimerId) => void, delay?: number, repeat?: number): TimerId;
    static repeat(callback: (id: TimerId) => void, interval: number): TimerId;
    static clear(id: TimerId): void;
  }
}

declare module 'time' {
  export default class Time {
    /** Milliseconds since boot, monotonic. */
    static readonly ticks: number;
    /** Sets the wall clock, in seconds since 1970. */
    static set(seconds: number): void;
  }
}

declare module 'debug' {
  export default class Debug {
    static gc(enable?: boolean): void;
  }
}

declare module 'embedded:io/socket/tcp' {
  export interface TCPOptions {
    /** The peer's IP address: the lwIP socket takes no host name (resolve it with Net.resolve first). */
    address?: string;
    port?: number;
    from?: unknown;
    nodelay?: boolean;
    format?: 'buffer' | 'number';
    onReadable?: (this: TCP, count: number) => void;
    onWritable?: (this: TCP, count: number) => void;
    onError?: (this: TCP, error?: unknown) => void;
  }
  export default class TCP {
    constructor(options: TCPOptions);
    readonly remoteAddress: string | undefined;
    readonly remotePort: number | undefined;
    read(count?: number): ArrayBuffer | undefined;
    /** Throws "would block" past the space the last onWritable reported. */
    write(bytes: ModdableBuffer): void;
    close(): void;
  }
}

/** The SDK's example ECMA-419 TLS client (examples/io/tcp/tlssocket) over its own TLS (modules/crypt). */
declare module 'embedded:io/socket/tcp/tls' {
  import type TCP from 'embedded:io/socket/tcp';
  import type { TCPOptions } from 'embedded:io/socket/tcp';
  /** Passed to the SDK's TLS session and its certificate manager (modules/crypt/ssl). */
  export interface SecureOptions {
    /** TLS version: 0x303 is TLS 1.2 (the socket sets it itself). */
    protocolVersion?: number;
    /** false skips certificate validation (tlsVerify=0). Default true. */
    verify?: boolean;
    /** One extra trust anchor in DER; the store is the resources ca.ski and ca<n>.der. */
    certificate?: ModdableBuffer;
  }
  export interface TLSOptions extends TCPOptions {
    /** The server name: sent in SNI. */
    host: string;
    /** The TCP socket class the TLS socket runs over. */
    TCP: { io: typeof TCP };
    secure: SecureOptions;
  }
  export default class TLSSocket {
    constructor(options: TLSOptions);
    read(count?: number): ArrayBuffer | undefined;
    /** Returns the plaintext bytes that may still be written now (the TCP space less the record overhead). */
    write(bytes: ModdableBuffer): number;
    close(): void;
  }
}

declare module 'embedded:io/socket/listener' {
  export interface ListenerOptions {
    port?: number;
    address?: string;
    onReadable?: (this: Listener, count: number) => void;
  }
  export default class Listener {
    constructor(options: ListenerOptions);
    /** The next accepted connection, handed to new TCP({from}). */
    read(): unknown;
    close(): void;
  }
}

declare module 'embedded:io/socket/udp' {
  export interface UDPOptions {
    port?: number;
    onReadable?: (this: UDP, packets: number) => void;
  }
  /** A packet read: the bytes, with address and port as properties. */
  export type UDPPacket = ArrayBuffer & { address: string; port: number };
  export default class UDP {
    constructor(options: UDPOptions);
    readonly port: number;
    read(): UDPPacket | undefined;
    write(bytes: ModdableBuffer, address: string, port: number): void;
    close(): void;
  }
}

declare module 'embedded:io/serial' {
  export interface SerialOptions {
    port?: number;
    baud: number;
    receive?: number;
    transmit?: number;
    format?: 'buffer' | 'number';
    onReadable?: (this: Serial, count: number) => void;
    onWritable?: (this: Serial, count: number) => void;
  }
  export default class Serial {
    constructor(options: SerialOptions);
    read(count?: number): ArrayBuffer | undefined;
    write(bytes: ModdableBuffer): void;
    close(): void;
  }
}

declare module 'embedded:io/i2c' {
  export interface I2COptions {
    data: number;
    clock: number;
    address: number;
    hz?: number;
    port?: number;
  }
  export default class I2C {
    constructor(options: I2COptions);
    read(count: number): ArrayBuffer;
    write(bytes: ModdableBuffer, stop?: boolean): void;
    close(): void;
  }
}

declare module 'embedded:io/analog' {
  export default class Analog {
    constructor(options: { pin: number; resolution?: number });
    readonly resolution: number;
    read(): number;
    close(): void;
  }
}

declare module 'embedded:io/pwm' {
  export default class PWM {
    constructor(options: { pin: number; hz?: number; resolution?: number });
    readonly resolution: number;
    write(value: number): void;
    close(): void;
  }
}

declare module 'wifi' {
  export interface WiFiScanItem {
    ssid: string;
    rssi: number;
    channel: number;
    authentication: string;
    bssid: ArrayBuffer;
  }
  export interface WiFiConnectOptions {
    ssid: string;
    password?: string;
  }
  export interface AccessPointOptions {
    ssid: string;
    password?: string;
    channel?: number;
    hidden?: boolean;
    station?: boolean;
  }
  type WiFiCallback = (message: string, value?: unknown) => void;
  export default class WiFi {
    constructor(options: WiFiConnectOptions, callback: WiFiCallback);
    close(): void;
    static connect(options?: WiFiConnectOptions): void;
    static disconnect(): void;
    static scan(options: { hidden?: boolean; channel?: number }, callback: (item: WiFiScanItem | null) => void): void;
    static accessPoint(options: AccessPointOptions): void;
    static mode: number;
    static readonly Mode: { readonly none: number; readonly station: number; readonly accessPoint: number };
    static readonly connected: 'connect';
    static readonly gotIP: 'gotIP';
    static readonly disconnected: 'disconnect';
  }
}

declare module 'net' {
  export default class Net {
    static get(property: 'IP' | 'MAC' | 'SSID' | 'RSSI', iface?: 'station' | 'ap'): string | number | undefined;
    /** Asynchronous DNS look-up; address is undefined when the name does not resolve. Throws when lwIP's queue is full. */
    static resolve(host: string, callback: (name: string, address: string | undefined) => void): void;
  }
}

declare module 'mdns' {
  export interface MDNSService {
    name: string;
    protocol: 'tcp' | 'udp';
    port: number;
    txt?: Record<string, string>;
  }
  export default class MDNS {
    constructor(options: { hostName: string }, callback?: (message: number, value?: string) => void);
    add(service: MDNSService): void;
    remove(service: MDNSService): void;
    close(): void;
  }
}

declare module 'btutils' {
  export class Bytes extends ArrayBuffer {
    constructor(value: string | ArrayBuffer, littleEndian?: boolean);
    equals(other: Bytes): boolean;
  }
  export function uuid(strings: TemplateStringsArray, ...values: unknown[]): Bytes;
}

declare module 'sm' {
  export const IOCapability: {
    readonly NoInputNoOutput: number;
    readonly DisplayOnly: number;
    readonly KeyboardOnly: number;
    readonly KeyboardDisplay: number;
    readonly DisplayYesNo: number;
  };
  export default class SM {
    static deleteAllBondings(): void;
  }
}

declare module 'gap' {
  const GAP: { readonly ADFlag: { readonly LE_GENERAL_DISCOVERABLE_MODE: number; readonly NO_BR_EDR: number } };
  export default GAP;
}

declare module 'bleserver' {
  import type { Bytes } from 'btutils';
  export interface BLEConnection {
    connection: number;
    address: Bytes;
  }
  export interface BLECharacteristic {
    uuid: Bytes;
    name: string;
    type: string;
    handle: number;
  }
  export interface SecurityParameters {
    encryption?: boolean;
    bonding?: boolean;
    mitm?: boolean;
    ioCapability?: number;
  }
  export default class BLEServer {
    constructor(dictionary?: Record<string, unknown>);
    deviceName: string;
    securityParameters: SecurityParameters;
    startAdvertising(params: { advertisingData: Record<string, unknown>; connectable?: boolean }): void;
    stopAdvertising(): void;
    deploy(): void;
    close(): void;
    disconnect(): void;
    notifyValue(characteristic: BLECharacteristic, value: ArrayBuffer): void;
    getServiceAttributes(uuid: Bytes): Array<{ uuid: Bytes; handle: number }>;
    readonly localAddress: Bytes;
    onReady(): void;
    onConnected(connection: BLEConnection): void;
    onDisconnected(connection: BLEConnection): void;
    onAuthenticated(params: { bonded: boolean }): void;
    onCharacteristicRead(characteristic: BLECharacteristic): ArrayBuffer | number | undefined;
    onCharacteristicWritten(characteristic: BLECharacteristic, value: ArrayBuffer): void;
    onCharacteristicNotifyEnabled(characteristic: BLECharacteristic): void;
  }
}

declare module 'neopixel' {
  export default class NeoPixel {
    constructor(options: { length: number; pin: number; order?: 'RGB' | 'GRB' | 'RGBW' | 'GRBW' });
    readonly length: number;
    makeRGB(r: number, g: number, b: number): number;
    setPixel(index: number, color: number): void;
    fill(color: number, start?: number, end?: number): void;
    update(): void;
    close(): void;
  }
}

/** Moddable's PixelsOut display drivers (modules/drivers/ili9341, gc9a01). */
declare module 'moddable-pixelsout' {
  export interface PixelsOutOptions {
    width?: number;
    height?: number;
    pixelFormat?: number;
    [pin: string]: unknown;
  }
  export default class PixelsOut {
    constructor(options: PixelsOutOptions);
    readonly width: number;
    readonly height: number;
    begin(x: number, y: number, width: number, height: number): void;
    send(pixels: ModdableBuffer, offset?: number, count?: number): void;
    end(): void;
    adaptInvalid?(area: unknown): void;
    rotation?: number;
  }
}
declare module 'ili9341' {
  import PixelsOut from 'moddable-pixelsout';
  export default class ILI9341 extends PixelsOut {}
}
declare module 'gc9a01' {
  import PixelsOut from 'moddable-pixelsout';
  export default class GC9A01 extends PixelsOut {}
}

/** Moddable's touch drivers (modules/drivers/ft6206, gt911): sample() gives the points down. */
declare module 'moddable-touch' {
  export interface TouchPoint {
    x: number;
    y: number;
    id?: number;
  }
  export default class TouchDriver {
    constructor(options?: Record<string, unknown>);
    sample(): TouchPoint[] | undefined;
    close?(): void;
  }
}
declare module 'ft6206' {
  import TouchDriver from 'moddable-touch';
  export default class FT6206 extends TouchDriver {}
}
declare module 'gt911' {
  import TouchDriver from 'moddable-touch';
  export default class GT911 extends TouchDriver {}
}

/** Declared by the firmware bundle's main (hosts/esp32/main.js). */
declare const trace: (text: string) => void;

/**
 * Moddable's AudioOut (modules/pins/i2s; documentation/pins/audioout.md): a
 * mixer of up to 4 streams on I2S, its pins and queue length set by the
 * manifest's defines (audioOut.i2s.bck_pin, lr_pin, dataout_pin,
 * audioOut.queueLength). Sample buffers are played by reference and must be
 * non-relocatable (a SharedArrayBuffer or a resource).
 */
declare module 'pins/audioout' {
  export default class AudioOut {
    constructor(options: { sampleRate: number; bitsPerSample?: 8 | 16; numChannels?: 1 | 2; streams?: number });
    static readonly Samples: number;
    static readonly Flush: number;
    static readonly Callback: number;
    static readonly Volume: number;
    static readonly RawSamples: number;
    static readonly Tone: number;
    static readonly Silence: number;
    readonly sampleRate: number;
    readonly numChannels: number;
    readonly bitsPerSample: number;
    readonly streams: number;
    /** Samples, RawSamples (buffer, repeat, offset, count in samples), Callback (id), Volume (0-256), Tone, Silence, Flush. */
    enqueue(stream: number, kind: number, buffer?: ArrayBufferLike | number, repeat?: number, offset?: number, count?: number): void;
    /** Free queue elements of the stream. */
    length(stream: number): number;
    start(): void;
    stop(): void;
    close(): void;
    /** Called with the id of a Callback element once the samples before it have played. */
    callback?: (id: number) => void;
    callbacks?: Array<((id: number) => void) | null | undefined>;
  }
}
