// The four device types' descriptors (boards/<type>/board.json) and the
// BoardInfo the firmware sees, derived from them in one place.

import type { BoardInfo, DeviceType } from '../src/hal/board.ts';
import panel28 from './panel-28/board.json';
import panel35 from './panel-35/board.json';
import panel40 from './panel-40/board.json';
import ringTft from './ring-tft/board.json';

type Pins = Record<string, number | number[]>;

/** The shape of boards/<type>/board.json. */
export interface BoardDescriptor {
  type: DeviceType;
  family: 'ring' | 'panel';
  name: string;
  reference: string;
  module: string;
  flashBytes: number;
  psramBytes: number;
  display: {
    controller: string;
    bus: string;
    panelWidth: number;
    panelHeight: number;
    rotation: 0 | 90 | 180 | 270;
    width: number;
    height: number;
    round: boolean;
    pins: Pins;
    spiHz?: number;
    pclkHz?: number;
  };
  touch: { controller: string; i2c: { sda: number; scl: number; address: number }; int: number; maxX: number; maxY: number } | null;
  ring: { leds: number; driver: string; pin: number; order: string } | null;
  buttons: Array<{ name: string; pin: number; activeLow: boolean }>;
  battery: { gauge: string; i2c?: { sda: number; scl: number; address: number }; adcPin?: number; dividerRatio?: number } | null;
  sd: { bus: 'sdspi' | 'sdmmc'; pins: Pins };
  audio: {
    /** i2c: where a codec's control port is (the ES8311 of panel-35). */
    out: { driver: string; i2s: Pins; i2c?: { sda: number; scl: number; address: number } } | null;
    mic: { driver: string; i2s: Pins } | null;
  };
}

export const BOARD_DESCRIPTORS: Readonly<Record<DeviceType, BoardDescriptor>> = {
  'ring-tft': ringTft as BoardDescriptor,
  'panel-28': panel28 as BoardDescriptor,
  'panel-35': panel35 as BoardDescriptor,
  'panel-40': panel40 as BoardDescriptor,
};

export function toBoardInfo(d: BoardDescriptor): BoardInfo {
  return {
    type: d.type,
    family: d.family,
    display: { width: d.display.width, height: d.display.height, rotation: d.display.rotation, controller: d.display.controller, round: d.display.round },
    touch: d.touch ? { controller: d.touch.controller } : null,
    ringLeds: d.ring?.leds ?? 0,
    psramBytes: d.psramBytes,
    flashBytes: d.flashBytes,
    battery: d.battery ? { gauge: d.battery.gauge } : null,
  };
}

export function boardInfo(type: DeviceType): BoardInfo {
  return toBoardInfo(BOARD_DESCRIPTORS[type]);
}
