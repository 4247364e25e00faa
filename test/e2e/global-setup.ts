// Builds the simulator (runtime, firmware image, board) once before the
// end-to-end suites; incremental, so a built tree costs well under a second.
// With the Moddable SDK, also the firmware for the SDK's desktop runtime
// (tools/build-lin.mjs, about two minutes the first time), before any suite
// starts, so its compile does not compete with the simulators the suites boot.
import { buildAll } from '../../tools/build.mjs';
import { buildLin } from '../../tools/build-lin.mjs';
import { locateSdk } from '../../tools/sdk.mjs';

export default async function setup(): Promise<void> {
  await buildAll({ quiet: true });
  const sdk = locateSdk();
  if (sdk.ok && sdk.tools) await buildLin();
}
