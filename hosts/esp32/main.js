// The device's main module (not preloaded): boots the preloaded firmware
// module (hosts/esp32/entry.ts, bundled as "firmware").
import { start } from "firmware";

start();
