// Speech to text: the sttProv setting and the audio.transcribe tool, which
// the spec lists as planned only. "Planned only" shows as:
//   - the tool is registered, so the tool panel (GET /api/tools) lists it
//     with the where-it-runs tag Unavailable and /mcp's tools/list omits it;
//     its available() is always false, so the registry refuses every call
//     (error_type unavailable) before any handler runs: it is never callable;
//   - sttProv (a benign config key, set by the owner or a config device
//     action) is narrowed to off, openai or mistral: the providers whose
//     catalog has a transcribe model; the state snapshot shows the choice
//     with transcribe: planned.
// When transcription is built, it replaces this module's handler and
// available() and keeps the setting.

import type { Context } from '../core/context.ts';
import { fail, type ToolSpec } from '../core/tools/types.ts';
import { STT_PROVIDERS } from '../contracts/device-contract.ts';

export const TRANSCRIBE_PLANNED = 'audio.transcribe is planned: speech-to-text is not built on this firmware yet.';

export function transcribeTool(): ToolSpec {
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

export function installStt(ctx: Context): void {
  ctx.tools.register(transcribeTool());
  ctx.status.section(() => {
    const v = ctx.actions.config('sttProv');
    const provider = typeof v === 'string' && (STT_PROVIDERS as readonly string[]).includes(v) ? v : 'off';
    return { stt: { provider, transcribe: 'planned' } };
  });
}
