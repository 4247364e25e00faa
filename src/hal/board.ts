// HAL: the board descriptor. What hardware this device type has, as the
// firmware needs to know it (the wiring details live in boards/<type>/).

/** Frozen device type ids (spec: "Device types (frozen)"). Never rename. */
export type DeviceType = 'ring-tft' | 'panel-28' | 'panel-35' | 'panel-40';

export const DEVICE_TYPES: readonly DeviceType[] = ['ring-tft', 'panel-28', 'panel-35', 'panel-40'];

export interface BoardInfo {
  type: DeviceType;
  /** Family a manifest variant must match ('ring' or 'panel'). */
  family: 'ring' | 'panel';
  display: { width: number; height: number; rotation: 0 | 90 | 180 | 270; controller: string; /** A round panel (content kept inside the circle). */ round: boolean };
  touch: { controller: string } | null;
  ringLeds: number;
  psramBytes: number;
  flashBytes: number;
  battery: { gauge: string } | null;
}
