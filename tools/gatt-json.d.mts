// Types of tools/gatt-json.mjs for the tests.
import type { GattService } from '../src/hal/index.ts';
export interface CompiledService {
  uuid: string;
  characteristics: string[];
}
export declare const GATT_MODULE: string;
export declare const GATT_EXPORT: string;
export declare const DEFAULT_MAX_BYTES: number;
export declare function serviceJson(service: GattService): { service: { uuid: string; characteristics: Record<string, Record<string, unknown>> } };
export declare function loadGattServices(root: string): Promise<GattService[]>;
export declare function writeBleServices(dir: string, services: GattService[]): CompiledService[];
