// Types of tools/build-device.mjs for the tests.
export declare const DEVICE_TYPES: string[];
export declare const SDK_PLATFORM: string;
export declare function checkToolchain(env?: Record<string, string | undefined>): { ok: boolean; missing: string[]; mcconfig: string | null };
export declare function bundleDevice(board: string, options?: { outRoot?: string; version?: string }): Promise<{ outDir: string; build: { version: string; buildId: string; testBuild: boolean } }>;
export declare function mcconfigArgs(board: string, options?: { flash?: boolean; port?: string }): string[];
