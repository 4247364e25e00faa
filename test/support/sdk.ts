// The Moddable SDK for the tests that need it (the device build's SDK
// stages, the device typecheck, the firmware in the SDK's desktop runtime).
// The suites' global setup makes it ready when it can (tools/sdk.mjs: MODDABLE,
// or the archive from shared/toolchains built into build/moddable); on a
// machine without it, each such test is skipped and says why, on the console
// and in its skip note.
import type { TestContext } from 'vitest';
import { locateSdk, type SdkState } from '../../tools/sdk.mjs';

export const sdk: SdkState = locateSdk();

/** True when the SDK with its Linux tools is here; else skips the test with the reason. */
export function needSdk(ctx: TestContext, what = 'this test'): boolean {
  if (sdk.ok && sdk.tools) return true;
  const why = `SKIPPED ${what}: it needs the Moddable SDK 8.2.3 (${sdk.reason})`;
  console.warn(why);
  ctx.skip(why);
  return false;
}
