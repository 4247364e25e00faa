// Global setup of both suites: the Moddable SDK ready for the tests that need
// it, once per run (tools/sdk.mjs: MODDABLE as it is, or the archive from
// shared/toolchains extracted and its Linux tools built into build/moddable,
// about a minute the first time, nothing after). Without an SDK those tests
// skip and say why (test/support/sdk.ts); a failing build fails the run.
import { ensureSdk } from '../tools/sdk.mjs';

export default function setup(): void {
  const sdk = ensureSdk({ log: (line) => console.error(line) });
  if (!sdk.ok || !sdk.tools) console.error(`sdk: the tests that need the Moddable SDK will be skipped: ${sdk.reason}`);
}
