// Which manifest variant this device takes (spec: Firmware manifest, device
// types). The type lives in NVS key otaType of the 'keep' namespace (kept by
// factory reset: it is the "update slug"); unset, it falls back to the
// build's compile-time tag (hal.board.type). A stored value that is not a
// known type (e.g. the frozen legacy e-ink kind) makes the device untyped:
// it gets no update. A type of the other board family (ring vs panel) is
// refused: when set, and when found stored.

import type { Store } from '../core/store.ts';
import { DEVICE_TYPES, type BoardInfo, type DeviceType } from '../hal/index.ts';

export const TYPE_NS = 'keep';
export const TYPE_KEY = 'otaType';

export function familyOf(type: DeviceType): 'ring' | 'panel' {
  return type === 'ring-tft' ? 'ring' : 'panel';
}

function isDeviceType(v: string): v is DeviceType {
  return (DEVICE_TYPES as readonly string[]).includes(v);
}

export type TypeResolution =
  | { kind: 'typed'; type: DeviceType; stored: boolean }
  | { kind: 'untyped'; stored: string }
  | { kind: 'wrong-family'; stored: DeviceType };

export function resolveDeviceType(keep: Store, board: BoardInfo): TypeResolution {
  const stored = keep.strOrNull(TYPE_KEY);
  if (stored === null || stored === '') return { kind: 'typed', type: board.type, stored: false };
  if (!isDeviceType(stored)) return { kind: 'untyped', stored };
  if (familyOf(stored) !== board.family) return { kind: 'wrong-family', stored };
  return { kind: 'typed', type: stored, stored: true };
}

/** Stores otaType; 'clear' removes it (back to the build tag). Bad input changes nothing. */
export function setDeviceType(keep: Store, board: BoardInfo, value: string): 'ok' | 'unknown-type' | 'wrong-family' {
  if (value === 'clear') {
    keep.delete(TYPE_KEY);
    return 'ok';
  }
  if (!isDeviceType(value)) return 'unknown-type';
  if (familyOf(value) !== board.family) return 'wrong-family';
  keep.set(TYPE_KEY, value);
  return 'ok';
}
