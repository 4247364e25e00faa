// The device's main module (not preloaded): boots the preloaded firmware
// module (hosts/esp32/entry.ts, bundled as "firmware").
import { start } from "firmware";

try {
	start();
}
catch (e) {
	// Without xsbug nothing else would say why the machine aborts.
	trace(`start() threw ${e}\n${e?.stack ?? ""}\n`);
	throw e;
}
