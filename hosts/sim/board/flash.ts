// The 16 MB flash: <device>/flash.bin laid out from partitions.csv (sparse),
// the two app slots and otadata, the flash.* ops (OTA writes with ESP-IDF's
// rules: begin erases, never the running slot; setBoot verifies the image and
// writes otadata with state new; markValid confirms the running image), and
// the bootloader's choice of the slot to boot (with rollback).

import { closeSync, existsSync, fsyncSync, ftruncateSync, openSync, readFileSync, readSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Partition, SlotState } from '../../../src/hal/index.ts';
import { fail } from './errors.ts';
import { parseImageHead, type ImageLayout, IMAGE_HEAD } from './image.ts';
import {
  bootDecision,
  decodeEntry,
  encodeEntry,
  ENTRY_BYTES,
  OTA_STATE,
  SECTOR,
  activeEntry,
  selectBoot,
  selectedSlot,
  slotOfSeq,
  slotState,
  type OtaEntry,
} from './otadata.ts';
import { packLength } from './assets-merge.ts';
import { checkLayout, FLASH_BYTES, parsePartitions, type PartitionRow } from './partitions.ts';
import { repoRoot } from './paths.ts';
import type { Json, Service, Session } from './service.ts';
import { int, slotArg } from './service.ts';

export function loadPartitions(): PartitionRow[] {
  const rows = parsePartitions(readFileSync(join(repoRoot(), 'partitions.csv'), 'utf8'));
  const problems = checkLayout(rows);
  if (problems.length) throw new Error(`partitions.csv: ${problems.join('; ')}`);
  return rows;
}

export interface BootChoice {
  slot: 0 | 1;
  image: ImageLayout;
  /** What the bootloader did to otadata, for the log. */
  notes: string[];
}

export class FlashChip implements Service {
  readonly rows: PartitionRow[];
  readonly slots: [PartitionRow, PartitionRow];
  readonly otadata: PartitionRow;
  private fd: number;
  /** The slot the current boot runs from. */
  running: 0 | 1 = 0;
  /** Slots erased by flash.begin and being written. */
  private writing = new Set<0 | 1>();

  constructor(readonly file: string) {
    this.rows = loadPartitions();
    const find = (pred: (r: PartitionRow) => boolean, what: string): PartitionRow => {
      const r = this.rows.find(pred);
      if (!r) throw new Error(`partitions.csv has no ${what}`);
      return r;
    };
    this.slots = [find((r) => r.type === 'app' && r.subtype === 'ota_0', 'ota_0'), find((r) => r.type === 'app' && r.subtype === 'ota_1', 'ota_1')];
    this.otadata = find((r) => r.type === 'data' && r.subtype === 'ota', 'otadata');
    const fresh = !existsSync(file);
    this.fd = openSync(file, fresh ? 'w+' : 'r+');
    if (fresh) {
      ftruncateSync(this.fd, FLASH_BYTES);
      // The chip leaves the factory erased; the rest stays sparse until written.
      this.fill(this.otadata.offset, this.otadata.size, 0xff);
      fsyncSync(this.fd);
    }
  }

  get slotSize(): number {
    return this.slots[0].size;
  }

  partitions(): Partition[] {
    return this.rows.map((r) => ({ name: r.name, type: r.type, subtype: r.subtype, offset: r.offset, size: r.size }));
  }

  close(): void {
    try {
      closeSync(this.fd);
    } catch {
      // closed already
    }
  }

  private fill(offset: number, length: number, byte: number): void {
    const block = Buffer.alloc(Math.min(length, 1024 * 1024), byte);
    for (let at = 0; at < length; at += block.length) writeSync(this.fd, block, 0, Math.min(block.length, length - at), offset + at);
  }

  readAt(offset: number, length: number): Buffer {
    const out = Buffer.alloc(length);
    let at = 0;
    while (at < length) {
      const k = readSync(this.fd, out, at, length - at, offset + at);
      if (!k) break;
      at += k;
    }
    return out;
  }

  readSlot(slot: 0 | 1, offset: number, length: number): Buffer {
    const size = this.slotSize;
    const n = Math.max(0, Math.min(length, size - offset));
    return this.readAt(this.slots[slot].offset + offset, n);
  }

  /** The image in a slot, or why there is none. */
  image(slot: 0 | 1): ImageLayout | string {
    return parseImageHead(this.readSlot(slot, 0, IMAGE_HEAD), this.slotSize, (o, n) => this.readSlot(slot, o, n));
  }

  bundle(slot: 0 | 1, image: ImageLayout): Buffer {
    return this.readSlot(slot, IMAGE_HEAD + image.jsonLength, image.bundleLength);
  }

  /** The image's assets region (empty when it has none). */
  assets(slot: 0 | 1, image: ImageLayout): Buffer {
    return this.readSlot(slot, IMAGE_HEAD + image.jsonLength + image.bundleLength, image.assetsLength);
  }

  entries(): [OtaEntry, OtaEntry] {
    return [decodeEntry(this.readAt(this.otadata.offset, ENTRY_BYTES)), decodeEntry(this.readAt(this.otadata.offset + SECTOR, ENTRY_BYTES))];
  }

  /** Erases one otadata sector and writes an entry into it, as esp_ota_ops does. */
  private writeEntry(sector: 0 | 1, entry: OtaEntry): void {
    const block = Buffer.alloc(SECTOR, 0xff);
    encodeEntry(entry.seq, entry.state).copy(block, 0);
    writeSync(this.fd, block, 0, SECTOR, this.otadata.offset + sector * SECTOR);
    fsyncSync(this.fd);
  }

  states(): [SlotState, SlotState] {
    const e = this.entries();
    return [slotState(e, 0), slotState(e, 1)];
  }

  /** The fonts partition (the CJK glyphs' pack), or null when partitions.csv has none. */
  get fontsPartition(): PartitionRow | null {
    return this.rows.find((r) => r.name === 'fonts') ?? null;
  }

  /** The pack the fonts partition holds, or null (erased, or no partition). */
  fontsPack(): Buffer | null {
    const p = this.fontsPartition;
    if (!p) return null;
    const n = packLength(this.readAt(p.offset, 12), (len) => this.readAt(p.offset, Math.min(len, p.size)));
    return n ? this.readAt(p.offset, n) : null;
  }

  /** Writes the fonts partition (as `idf.py flash` writes a data partition's image); null erases it. */
  flashFonts(pack: Buffer | null): void {
    const p = this.fontsPartition;
    if (!p) throw new Error('partitions.csv has no fonts partition');
    if (pack && pack.length > p.size) throw new Error(`fonts pack of ${pack.length} bytes does not fit the fonts partition of ${p.size}`);
    this.fill(p.offset, p.size, 0xff);
    if (pack) writeSync(this.fd, pack, 0, pack.length, p.offset);
    fsyncSync(this.fd);
  }

  /** What the CLI does when it flashes an image (like `idf.py flash`): slot 0, otadata erased. */
  flashFactory(image: Buffer): void {
    if (image.length > this.slotSize) throw new Error(`image of ${image.length} bytes does not fit a slot of ${this.slotSize}`);
    this.fill(this.slots[0].offset, this.slotSize, 0xff);
    writeSync(this.fd, image, 0, image.length, this.slots[0].offset);
    this.fill(this.otadata.offset, this.otadata.size, 0xff);
    fsyncSync(this.fd);
  }

  /** The bootloader: rollback bookkeeping, slot choice, image check (falls back to the other slot). */
  chooseBoot(): BootChoice | string {
    const decision = bootDecision(this.entries());
    const notes: string[] = [];
    for (const w of decision.writes) {
      this.writeEntry(w.sector, w.entry);
      if (w.entry.state === OTA_STATE.aborted) notes.push(`slot ${slotOfSeq(w.entry.seq)} was pending-verify: marked aborted (rollback)`);
      else notes.push(`slot ${slotOfSeq(w.entry.seq)} is new: now pending-verify`);
    }
    const tried: string[] = [];
    for (const slot of [decision.slot, (decision.slot ^ 1) as 0 | 1]) {
      const image = this.image(slot);
      if (typeof image !== 'string') {
        if (slot !== decision.slot) notes.push(`slot ${decision.slot} has ${tried[0]}: booting slot ${slot}`);
        return { slot, image, notes };
      }
      tried.push(image);
    }
    return `no bootable app: slot ${decision.slot}: ${tried[0]}; slot ${decision.slot ^ 1}: ${tried[1]}`;
  }

  info(): Json {
    const e = this.entries();
    return {
      partitions: this.partitions(),
      slotSize: this.slotSize,
      running: this.running,
      boot: selectedSlot(e),
      states: [slotState(e, 0), slotState(e, 1)],
    };
  }

  start(session: Session): void {
    this.running = session.slot;
    this.writing.clear();
  }

  stop(): void {
    this.writing.clear();
  }

  shutdown(): void {
    this.close();
  }

  private writable(slot: 0 | 1): void {
    if (slot === this.running) fail('EBUSY', `slot ${slot} is the running slot`);
  }

  readonly ops = {
    'flash.info': () => ({ json: { info: this.info() } }),
    'flash.begin': (args: Json) => {
      const slot = slotArg(args);
      this.writable(slot);
      if (this.states()[this.running] === 'pending-verify') {
        fail('EBUSY', 'the running image is pending verification: mark it valid before writing an update (ESP-IDF refuses too)');
      }
      this.fill(this.slots[slot].offset, this.slotSize, 0xff);
      this.writing.add(slot);
    },
    'flash.write': (args: Json, bin: Buffer) => {
      const slot = slotArg(args);
      const offset = int(args, 'offset', 0);
      this.writable(slot);
      if (!this.writing.has(slot)) fail('EINVAL', `slot ${slot} is not being written (flash.begin first)`);
      if (offset + bin.length > this.slotSize) fail('EINVAL', `write past the end of the slot (${offset + bin.length} > ${this.slotSize})`);
      writeSync(this.fd, bin, 0, bin.length, this.slots[slot].offset + offset);
    },
    'flash.end': (args: Json) => {
      const slot = slotArg(args);
      if (!this.writing.delete(slot)) fail('EINVAL', `slot ${slot} is not being written`);
      fsyncSync(this.fd);
      const image = this.image(slot);
      if (typeof image === 'string') fail('EINVAL', `the image in slot ${slot} does not verify: ${image}`);
      if (args['length'] !== undefined && int(args, 'length', 0) < image.total) {
        fail('EINVAL', `the image in slot ${slot} does not verify: ${args['length']} bytes written, the image needs ${image.total}`);
      }
    },
    'flash.abort': (args: Json) => {
      const slot = slotArg(args);
      this.writable(slot);
      this.writing.delete(slot);
      this.fill(this.slots[slot].offset, this.slotSize, 0xff);
    },
    'flash.read': (args: Json) => {
      const slot = slotArg(args);
      const offset = int(args, 'offset', 0);
      const length = int(args, 'length', 0, this.slotSize);
      return { bin: this.readSlot(slot, offset, length) };
    },
    'flash.setBoot': (args: Json) => {
      const slot = slotArg(args);
      if (this.writing.has(slot)) fail('EBUSY', `slot ${slot} is still being written`);
      const image = this.image(slot);
      if (typeof image === 'string') fail('EINVAL', `slot ${slot} holds no valid image: ${image}`);
      const { sector, entry } = selectBoot(this.entries(), slot);
      this.writeEntry(sector, entry);
    },
    'flash.markValid': () => {
      const e = this.entries();
      const active = activeEntry(e);
      if (active === -1) return; // otadata erased (a factory flash): nothing to confirm
      const entry = e[active];
      if (slotOfSeq(entry.seq) !== this.running || entry.state === OTA_STATE.valid) return;
      this.writeEntry(active, { ...entry, state: OTA_STATE.valid });
    },
  };
}
