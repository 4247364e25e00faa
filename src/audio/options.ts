// What the audio subsystem needs from others, each as the narrow interface it
// calls, passed in as one options object (the Audio itself is made when it
// mounts: index.ts): the speech provider's keys, the device actions (settings;
// audio is the tts action's speaker), the update engine (no recording while an update
// installs; no install while the device speaks or records), outbound HTTP,
// the chat messenger (TTSTG's voice message), the LED ring (listening while
// MICREC records) and the SD card (where MICREC saves its clip).

import type { Later } from '../core/subsystem.ts';
import type { ConfigKey, DeviceAction } from '../contracts/index.ts';
import type { AnimId, ApplyResult } from '../device/index.ts';
import type { ClientRequest, ClientResult } from '../net/http/client.ts';
import type { Card } from '../storage/index.ts';
import type { TtsKeys } from './tts.ts';

/** The device actions as audio reads them, and the port through which a tts action speaks (src/device/actions.ts). */
export interface AudioActions {
  config(key: ConfigKey): unknown;
  apply(action: DeviceAction): ApplyResult;
}

/** The update engine (src/ota/): whether an update installs now, and the probes that hold an install back. */
export interface AudioUpdates {
  installing(): boolean;
  addBusyProbe(probe: () => boolean): void;
}

/** The chat messenger (src/chat/) as TTSTG sends a voice message through it. */
export interface VoiceMessenger {
  settings: { token(): string };
  people: { ownerChat(): string | null };
  sendVoice(chat: string, audio: { name: string; mime: string; bytes: Uint8Array }): Promise<{ ok: true } | { ok: false; error: string }>;
}

/** What audio needs from others (its options). */
export interface AudioNeeds {
  /** Provider keys and the custom endpoint (human-web-only settings). */
  providers: TtsKeys;
  actions: AudioActions;
  updates: AudioUpdates;
  client: { request(req: ClientRequest): Promise<ClientResult> };
  /** The chat messenger (mounted later: read when a voice message is sent). */
  chat: Later<VoiceMessenger>;
  ring: { hold(anim: AnimId): () => void };
  card: Pick<Card, 'live'>;
}
