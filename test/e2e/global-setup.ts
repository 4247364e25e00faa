// Builds the simulator (runtime, firmware image, board) once before the
// end-to-end suites; incremental, so a built tree costs well under a second.
import { buildAll } from '../../tools/build.mjs';

export default async function setup(): Promise<void> {
  await buildAll({ quiet: true });
}
