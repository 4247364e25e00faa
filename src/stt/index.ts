// Speech to text (its one face): the sttProv setting, the transcription
// client (transcribe.ts: OpenAI's, Mistral's and the custom endpoint's
// /v1/audio/transcriptions, the audio streamed as multipart/form-data), and
// the audio.transcribe tool, which the spec still lists as planned only, so
// it stays planned (docs/decisions.md "Voice in": voice turns and chat voice
// notes transcribe through this client; a model-callable tool that takes
// audio has no audio to take: a turn carries text, and the recordings it
// could name are the device's own). "Planned only" shows as:
//   - the tool is registered, so the tool panel (GET /api/tools) lists it
//     with the where-it-runs tag Unavailable and /mcp's tools/list omits it;
//     its available() is always false, so the registry refuses every call
//     (error_type unavailable) before any handler runs: it is never callable;
//   - sttProv (a benign config key, set by the owner or a config device
//     action) is narrowed to off, openai, mistral or custom; the state
//     snapshot shows the choice with transcribe: planned (the tool's state).

export { acceptsFormat, sttEndpoint, transcribe, type AudioUpload, type SttKeys } from './transcribe.ts';
export { bytesSource } from './multipart.ts';

import type { Kernel } from '../core/kernel.ts';
import type { Subsystem } from '../core/subsystem.ts';
import { fail, type ToolSpec } from '../core/tools/types.ts';
import { STT_PROVIDERS } from '../contracts/index.ts';

const TRANSCRIBE_PLANNED = 'audio.transcribe is planned: the spec lists it as planned only; speak to the device (push to talk) or send a voice note in the chat instead.';

function transcribeTool(): ToolSpec {
  return {
    name: 'audio.transcribe',
    description: 'Planned, not available on this firmware: transcribe a voice recording to text.',
    schema: { type: 'object', properties: {}, additionalProperties: false },
    access: 'open',
    where: 'both',
    available: () => false,
    handler: () => fail('unavailable', TRANSCRIBE_PLANNED),
  };
}

/** What speech to text needs from others. */
export interface SttOptions {
  /** The device actions (src/device/actions.ts): the sttProv config key. */
  actions: { config(key: 'sttProv'): unknown };
}

/** The speech provider the owner chose (sttProv), or off. */
function sttProvider(actions: SttOptions['actions']): string {
  const v = actions.config('sttProv');
  return typeof v === 'string' && (STT_PROVIDERS as readonly string[]).includes(v) ? v : 'off';
}

/** Provides nothing to later subsystems: voice takes the client (transcribe) from this face's exports. */
export const stt: Subsystem<SttOptions, void> = {
  name: 'stt',
  needs: ['actions'],
  provides: {},
  start(_k: Kernel, o: SttOptions) {
    return {
      provides: undefined,
      tools: [transcribeTool()],
      status: { sections: [() => ({ stt: { provider: sttProvider(o.actions), transcribe: 'planned' } })] },
    };
  },
};
