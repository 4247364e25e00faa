#!/usr/bin/env node
// The device typecheck: hosts/esp32 and hosts/lin against the Moddable SDK's
// own typings ($MODDABLE/typings, and xs/includes/xs.d.ts for the XS
// globals), with the firmware's strict settings (tsconfig.device.json). The
// SDK's typings declare their modules globally (declare module "timer" ...),
// so including them is all the resolution needs. Our own
// hosts/esp32/typings/sdk-extras.d.ts adds only what they leave out.
//
//   node tools/device-typecheck.mjs      (needs the SDK: tools/sdk.mjs)
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ROOT } from './build.mjs';
import { ensureSdk } from './sdk.mjs';

export const DEVICE_TSCONFIG = join(ROOT, 'build/tsconfig.device-sdk.json');

/** Writes the tsconfig for this SDK; returns its path. */
export function writeDeviceTsconfig(moddable) {
  mkdirSync(join(ROOT, 'build'), { recursive: true });
  const rel = (p) => relative(join(ROOT, 'build'), p);
  writeFileSync(
    DEVICE_TSCONFIG,
    JSON.stringify(
      {
        '//': 'Written by tools/device-typecheck.mjs for the Moddable SDK at MODDABLE: do not edit.',
        extends: '../tsconfig.device.json',
        include: ['../hosts/esp32/**/*.ts', '../hosts/lin/**/*.ts', rel(join(moddable, 'typings/**/*.d.ts')), rel(join(moddable, 'xs/includes/xs.d.ts'))],
      },
      null,
      2,
    ) + '\n',
  );
  return DEVICE_TSCONFIG;
}

/** Runs tsc; returns { ok, output }. */
export function deviceTypecheck(moddable) {
  const config = writeDeviceTsconfig(moddable);
  const r = spawnSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', config], { cwd: ROOT, encoding: 'utf8' });
  return { ok: r.status === 0, output: `${r.stdout}${r.stderr}`.trim() };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const sdk = ensureSdk({ xsOnly: true });
  if (!sdk.ok) {
    console.error(`device-typecheck: ${sdk.reason}`);
    process.exit(1);
  }
  const { ok, output } = deviceTypecheck(sdk.moddable);
  if (output) console.log(output);
  if (!ok) process.exit(1);
  console.log(`device-typecheck: hosts/esp32 and hosts/lin check against the SDK ${sdk.version} typings`);
}
