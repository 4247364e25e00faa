// HAL: persistent storage. NVS (small settings), the SD card (bulk data) and
// the app flash (two OTA slots). Every call is synchronous, as on the device;
// failures throw HalError with a code a caller can branch on.

/** Error raised by any HAL service. `code` is stable; `message` is for people. */
export class HalError extends Error {
  readonly code: HalErrorCode;
  constructor(code: HalErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

export type HalErrorCode =
  | 'ENOENT' // no such file, key or partition
  | 'EEXIST'
  | 'ENOTDIR'
  | 'EISDIR'
  | 'ENOTEMPTY'
  | 'ENOSPC' // card or NVS partition full
  | 'ENOCARD' // no SD card (or it was pulled)
  | 'EIO' // media error
  | 'EINVAL' // bad argument: key too long, value too large, bad offset
  | 'ECONN' // network: refused, reset, unreachable
  | 'ETIMEDOUT'
  | 'ETLS' // TLS handshake or certificate failure
  | 'EBUSY'
  | 'ENOTSUP'; // the board has no such hardware

/** A value NVS can hold. Numbers are stored as signed 32-bit integers. */
export type NvsValue = string | number | Uint8Array;

/**
 * Key-value store with ESP-IDF's limits: namespaces and keys of at most
 * 15 bytes, strings of at most 4000 bytes, blobs of at most 64 KB here.
 * A set() is durable when it returns (the simulator writes atomically), so a
 * power cut leaves each key with its old or its new value.
 */
export interface Nvs {
  get(ns: string, key: string): NvsValue | undefined;
  /** Throws HalError EINVAL on an over-long key or value, ENOSPC when full. */
  set(ns: string, key: string, value: NvsValue): void;
  /** Several keys at once, all or nothing. */
  setMany(ns: string, entries: ReadonlyArray<readonly [string, NvsValue | undefined]>): void;
  delete(ns: string, key: string): void;
  keys(ns: string): string[];
  /** Erase one namespace, or everything when ns is omitted. */
  erase(ns?: string): void;
}

export const NVS_KEY_MAX = 15;
export const NVS_STR_MAX = 4000;
export const NVS_BLOB_MAX = 65536;

export interface SdInfo {
  /** A card is inserted and mounted. */
  present: boolean;
  /** Card capacity in bytes; null when the card does not report it. */
  totalBytes: number | null;
  /** Free bytes on the filesystem; null when unknown. */
  freeBytes: number | null;
}

export interface SdStat {
  size: number;
  isDir: boolean;
  mtimeMs: number;
}

export interface SdEntry {
  name: string;
  isDir: boolean;
  size: number;
}

/** An open file. Writes go to the card's cache until sync(). */
export interface SdFile {
  readonly size: number;
  write(bytes: Uint8Array): void;
  /** Flush to the medium; a power cut after sync() keeps what was written. */
  sync(): void;
  close(): void;
}

/**
 * The SD card, a FAT filesystem with absolute '/'-separated paths. Without a
 * card every call except probe() throws ENOCARD. A card can be inserted or
 * pulled at any moment; probe() re-reads its presence and size.
 */
export interface SdCard {
  probe(): SdInfo;
  stat(path: string): SdStat | null;
  list(dir: string): SdEntry[];
  /** Creates missing parents too. */
  mkdir(path: string): void;
  /** Reads up to length bytes from offset (fewer at end of file). */
  read(path: string, offset: number, length: number): Uint8Array;
  /** 'w' truncates or creates, 'a' appends (creating). */
  open(path: string, mode: 'w' | 'a'): SdFile;
  /** Atomic replace of `to` when both are on the card. */
  rename(from: string, to: string): void;
  /** Removes a file or an empty folder; missing paths are not an error. */
  remove(path: string): void;
}

export interface Partition {
  name: string;
  type: 'app' | 'data';
  subtype: string;
  offset: number;
  size: number;
}

/** ESP-IDF app image states, as the bootloader keeps them in otadata. */
export type SlotState = 'new' | 'pending-verify' | 'valid' | 'invalid' | 'aborted' | 'undefined';

export interface SlotWriter {
  /** Appends at the current offset; throws EINVAL past the slot's size. */
  write(bytes: Uint8Array): void;
  readonly written: number;
  /** Finishes the write; the slot is not bootable until setBootSlot(). */
  end(): void;
  /** Abandons the write and leaves the slot erased. */
  abort(): void;
}

/**
 * The app flash: a partition table with two app slots (ota_0, ota_1) and
 * otadata. The bootloader boots the boot slot; an image booted as 'new'
 * becomes 'pending-verify' and must be marked valid, or the bootloader
 * returns to the other slot when it is restarted.
 */
export interface Flash {
  partitions(): Partition[];
  slotSize(): number;
  runningSlot(): 0 | 1;
  bootSlot(): 0 | 1;
  slotState(slot: 0 | 1): SlotState;
  /** Erases the slot (never the running one: EBUSY) and returns a writer. */
  beginWrite(slot: 0 | 1): SlotWriter;
  read(slot: 0 | 1, offset: number, length: number): Uint8Array;
  /** Selects the slot for the next boot and marks it 'new'. */
  setBootSlot(slot: 0 | 1): void;
  /** Marks the running image valid (cancels rollback). */
  markValid(): void;
}
