// otadata as ESP-IDF keeps it (docs/sim-protocol.md): two 32-byte entries
// (ota_seq, seq_label[20], ota_state, crc), one at the start of each 4 KB
// sector; crc = crc32_le(UINT32_MAX, &ota_seq, 4). Pure functions: what the
// bootloader and esp_ota_ops would decide and write. Two OTA slots.

import { crc32 } from 'node:zlib';
import type { SlotState } from '../../../src/hal/index.ts';

export const SECTOR = 0x1000;
export const ENTRY_BYTES = 32;
const ERASED = 0xffffffff;

/** ESP-IDF's esp_ota_img_states_t. */
export const OTA_STATE = {
  new: 0x0,
  'pending-verify': 0x1,
  valid: 0x2,
  invalid: 0x3,
  aborted: 0x4,
  undefined: 0xffffffff,
} as const satisfies Record<SlotState, number>;

export interface OtaEntry {
  seq: number;
  state: number;
  crc: number;
}

export function seqCrc(seq: number): number {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(seq >>> 0, 0);
  return crc32(b, 0xffffffff) >>> 0;
}

export function stateName(state: number): SlotState {
  for (const [name, value] of Object.entries(OTA_STATE)) if (value === state) return name as SlotState;
  return 'undefined';
}

export function decodeEntry(bytes: Buffer): OtaEntry {
  return { seq: bytes.readUInt32LE(0), state: bytes.readUInt32LE(24), crc: bytes.readUInt32LE(28) };
}

/** The bytes of one sector's entry as esp_ota_ops writes it (label erased). */
export function encodeEntry(seq: number, state: number): Buffer {
  const b = Buffer.alloc(ENTRY_BYTES, 0xff);
  b.writeUInt32LE(seq >>> 0, 0);
  b.writeUInt32LE(state >>> 0, 24);
  b.writeUInt32LE(seqCrc(seq), 28);
  return b;
}

/** bootloader_common_ota_select_valid: a sequence, a good crc, not invalid or aborted. */
export function entryValid(e: OtaEntry): boolean {
  if (e.seq === ERASED) return false;
  if (e.state === OTA_STATE.invalid || e.state === OTA_STATE.aborted) return false;
  return e.crc === seqCrc(e.seq);
}

/** bootloader_common_get_active_otadata: the valid entry with the highest sequence, or -1. */
export function activeEntry(entries: readonly [OtaEntry, OtaEntry]): 0 | 1 | -1 {
  const v0 = entryValid(entries[0]);
  const v1 = entryValid(entries[1]);
  if (v0 && v1) return entries[0].seq >= entries[1].seq ? 0 : 1;
  if (v0) return 0;
  if (v1) return 1;
  return -1;
}

export function slotOfSeq(seq: number): 0 | 1 {
  return ((seq - 1) % 2) as 0 | 1;
}

/** The slot the bootloader selects (ota_0 when no entry is valid). */
export function selectedSlot(entries: readonly [OtaEntry, OtaEntry]): 0 | 1 {
  const a = activeEntry(entries);
  return a === -1 ? 0 : slotOfSeq(entries[a].seq);
}

/** esp_ota_get_state_partition: the state of the entry that maps to the slot (highest sequence). */
export function slotState(entries: readonly [OtaEntry, OtaEntry], slot: 0 | 1): SlotState {
  let best: OtaEntry | null = null;
  for (const e of entries) {
    if (e.seq === ERASED || e.crc !== seqCrc(e.seq) || slotOfSeq(e.seq) !== slot) continue;
    if (!best || e.seq > best.seq) best = e;
  }
  return best ? stateName(best.state) : 'undefined';
}

/**
 * esp_rewrite_ota_data: the sector to write and the entry that selects `slot`
 * with state new (rollback enabled).
 */
export function selectBoot(entries: readonly [OtaEntry, OtaEntry], slot: 0 | 1): { sector: 0 | 1; entry: OtaEntry } {
  const active = activeEntry(entries);
  const base = (slot + 1) % 2;
  if (active === -1) return { sector: 0, entry: { seq: slot + 1, state: OTA_STATE.new, crc: seqCrc(slot + 1) } };
  const seq = entries[active].seq;
  let i = 0;
  while (seq > base + i * 2) i++;
  const next = base + i * 2;
  return { sector: (active ^ 1) as 0 | 1, entry: { seq: next, state: OTA_STATE.new, crc: seqCrc(next) } };
}

export interface BootDecision {
  /** Sectors to rewrite before booting, in order. */
  writes: Array<{ sector: 0 | 1; entry: OtaEntry }>;
  slot: 0 | 1;
  /** The active entry's index after the decision, or -1 (no valid otadata). */
  active: 0 | 1 | -1;
}

/**
 * What the ESP-IDF bootloader does with rollback enabled: any pending-verify
 * entry becomes aborted (its image never confirmed itself); the valid entry
 * with the highest sequence selects the slot; if that entry is new it becomes
 * pending-verify.
 */
export function bootDecision(input: readonly [OtaEntry, OtaEntry]): BootDecision {
  const entries: [OtaEntry, OtaEntry] = [{ ...input[0] }, { ...input[1] }];
  const writes: BootDecision['writes'] = [];
  for (const i of [0, 1] as const) {
    if (entries[i].state === OTA_STATE['pending-verify']) {
      entries[i].state = OTA_STATE.aborted;
      writes.push({ sector: i, entry: { ...entries[i] } });
    }
  }
  const active = activeEntry(entries);
  if (active === -1) return { writes, slot: 0, active };
  if (entries[active].state === OTA_STATE.new) {
    entries[active].state = OTA_STATE['pending-verify'];
    writes.push({ sector: active, entry: { ...entries[active] } });
  }
  return { writes, slot: slotOfSeq(entries[active].seq), active };
}
