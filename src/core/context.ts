// The device context of the old shape: the kernel (src/core/kernel.ts) plus
// services of single subsystems hung on it, a service locator that issue 25
// takes apart. A subsystem converted to its face (src/core/subsystem.ts)
// takes the Kernel and declares what else it needs; every field below the
// kernel's leaves as the subsystem that provides it is converted, and this
// file is deleted with the last (docs/architecture.md).

import type { HttpClient } from '../net/http/client.ts';
import type { DeviceTlsPolicy } from '../net/tls.ts';
import type { Card } from '../storage/index.ts';
import type { AccessToken } from '../auth/index.ts';
import type { SignInCodes } from '../auth/index.ts';
import type { Secrets } from '../auth/index.ts';
import type { RandomFill } from '../util/ids.ts';
import type { Outbox } from '../chat/outbox.ts';
import type { Chat } from '../chat/index.ts';
import type { Updates } from '../ota/index.ts';
import type { Timeline } from '../system/timeline.ts';
import type { DeviceActions } from '../device/index.ts';
import type { Memory } from '../memory/index.ts';
import type { MusicPlayer } from '../music/player.ts';
import type { RingEngine } from '../device/index.ts';
import type { Audio } from '../audio/index.ts';
import type { Connectors } from '../connectors/index.ts';
import type { LocalTime } from '../system/local-time.ts';
import type { Hotspots } from './hotspots.ts';

import type { Kernel } from './kernel.ts';

export type { Mode } from './kernel.ts';

export interface Context extends Kernel {
  random: RandomFill;
  /** Native or fallback hot loops, chosen at boot. */
  hotspots: Hotspots;
  token: AccessToken;
  signin: SignInCodes;
  /** Every live secret by kind, registered by its owner: what the cloud tunnel screens its answers for (src/auth/secrets.ts). */
  secrets: Secrets;
  /** Outbound HTTP(S), under the device's TLS policy. */
  client: HttpClient;
  tls: DeviceTlsPolicy;
  /** The SD card's tier (none, unsupported, present) and file quota. */
  card: Card;
  /** Applies validated device actions (config, led, lights, tts, orch_model, reboot) for device.control and the turn (src/device/actions.ts). */
  actions: DeviceActions;
  /** Firmware updates: check, apply (the one install entry point), installing() (src/ota/). */
  ota: Updates;
  /** Owner notices waiting for the chat client (src/chat/outbox.ts). */
  outbox: Outbox;
  /** The chat messenger: people and roles, chat commands other subsystems register, moderation, sending (src/chat/). */
  chat: Chat;
  /** Device timeline rows: restarts, updates, mode switches, storage changes (src/system/timeline.ts). */
  timeline: Timeline;
  /** Long-term memory: vector store, episodic log (append(row)), running memory, scratchpad (src/memory/). */
  memory: Memory;
  /** Music from the card's /music folder: command(text) for /play and PLAY, play, pause, stop (src/music/player.ts). */
  music: MusicPlayer;
  /** The LED ring's animation engine: led layer, attention animations, update progress; view() and indicator() for the screen (src/device/ring-engine.ts). */
  ring: RingEngine;
  /** Device sound: effects, speech (text-to-speech), the microphone, and how they share the speaker with music (src/audio/). */
  audio: Audio;
  /** Connector records, their OAuth sign-in flows and credentials (src/connectors/). */
  connectors: Connectors;
  /** The owner's time zone, the device's one local time: zone, local(ms), format, stamp, set, onChange (src/system/local-time.ts). */
  time: LocalTime;
}
