// Types of tools/build-device.mjs for the tests.
import type { CaRoot } from './ca-store.mjs';
import type { CompiledService } from './gatt-json.mjs';
export declare const DEVICE_TYPES: string[];
export declare const SDK_PLATFORM: string;
/** hosts/esp32/sdk-modules.json: SDK module specifier to the SDK manifest that maps it. */
export declare const SDK_MODULES: Record<string, string>;
export declare function checkToolchain(env?: Record<string, string | undefined>): { ok: boolean; missing: string[]; mcconfig: string | null };
export declare function bundleDevice(
  board: string,
  options?: { outRoot?: string; version?: string },
): Promise<{ outDir: string; build: { version: string; buildId: string; testBuild: boolean }; caRoots: CaRoot[]; gatt: CompiledService[] }>;
export declare function mcconfigArgs(board: string, options?: { flash?: boolean; port?: string }): string[];
