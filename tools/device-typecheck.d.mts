// Types of tools/device-typecheck.mjs for the tests.
export declare const DEVICE_TSCONFIG: string;
export declare function writeDeviceTsconfig(moddable: string): string;
export declare function deviceTypecheck(moddable: string): { ok: boolean; output: string };
