// npm run bench, the streamed voice section: end of speech to the first spoken
// audio on the simulator (the firmware on XS) against the provider emulator
// paced by a stated latency profile, for the streamed path and the
// whole-answer path side by side in one run (the owner's stream setting, on
// and off, turns alternating). The profile (emulator setLatency): the
// transcription answers after 400 ms; the model's first token after 700 ms,
// then 60 tokens a second (a token is 4 characters of the turn's JSON); each
// speech answer's first byte after 300 ms. The turn: a 60-word, four-sentence
// reply with its running memory (provider B, orch_turn's JSON). End of
// speech is the VAD's decision on the board microphone's WAV (VOICE?).
//
// Also: the target (the streamed first audio within 150 ms of transcription +
// first token + the first sentence's tokens + speech first byte, the tokens
// counted the way the emulator streams them) and the device-side share of
// each path (what was measured beyond the profile's own waits); handshakes
// per turn (connections the emulator accepted: the first turn's, then the
// kept-alive turns'); the prompt bytes each turn sent and the part of them in
// the cacheable prefix (provider B's cache_control block, with the tools);
// and the XS heap high-water during a streamed voice turn (VOICE?, HEAPPROBE).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EMULATOR_NAMES, routeArgs, start, turnObject } from '../tools/provider-emulator.mjs';
import { tokensOf } from '../tools/provider-stream.mjs';
import { boardWith } from './turn.mjs';
import { control, speechWav } from './voice.mjs';

export const PROFILE = { transcriptionMs: 400, model: { firstMs: 700, tokensPerS: 60 }, speechFirstByteMs: 300 };

/** A 60-word, four-sentence reply, and the running memory the model writes after it. */
export const REPLY =
  'Your next meeting is the design review at half past two in the small room on the third floor. ' +
  'Anna moved it from Thursday because the printer vendor could only come this week. ' +
  'Bring the revised housing drawings and the cost sheet you finished yesterday evening. ' +
  'I will remind you fifteen minutes before it starts so you have time to get coffee.';
const MEMORY = 'Owner asked about the next meeting: design review 14:30, small room, third floor; bring drawings and cost sheet; reminder at 14:15.';

const stat = (text) => Object.fromEntries([...text.matchAll(/(\w+)=([\w.-]+)/g)].map((m) => [m[1], m[2]]));
const median = (xs) => {
  const v = [...xs].sort((a, b) => a - b);
  return v[v.length >> 1];
};

/** Tokens until the first sentence is complete in orch_turn's JSON (its end mark and the space after it), as the emulator streams it. */
export function firstSentenceTokens(turn) {
  const json = JSON.stringify(turn);
  const end = json.indexOf('. ', json.indexOf('"reply":')) + 2;
  let chars = 0;
  const tokens = tokensOf(json);
  for (let i = 0; i < tokens.length; i++) {
    chars += tokens[i].length;
    if (chars >= end) return { first: i + 1, all: tokens.length };
  }
  return { first: tokens.length, all: tokens.length };
}

export async function voiceStreamBench(rounds = 3) {
  const emu = await start();
  const board = boardWith(routeArgs(emu.port, EMULATOR_NAMES));
  const tmp = mkdtempSync(join(tmpdir(), 'bench-voice-stream-'));
  try {
    const http = await board.waitFor(/^HTTP: (http:\/\/127\.0\.0\.1:\d+)\//m, 0);
    const token = /^([0-9a-f]{24})\r?$/m.exec(await board.command('WEBTOK?'))[1];
    const orch = async (fields) => {
      const res = await fetch(`${http[1]}/api/orch`, { method: 'POST', headers: { 'X-Device-Token': token }, body: new URLSearchParams(fields) });
      if (res.status !== 200) throw new Error(`bench: /api/orch ${res.status} ${await res.text()}`);
    };
    await orch({ key_anthropic: 'sk-bench', key_openai: 'sk-bench-openai', priority: 'anthropic,openai' });
    emu.script({ match: { path: '/v1/messages' }, turn: turnObject('Voice is on.', { device: [{ config: { sttProv: 'openai', ttsOn: true } }] }) });
    await board.command('TURN turn voice on');
    const wav = join(tmp, 'ask.wav');
    speechWav(wav);
    await control(board.deviceDir, 'mic.feed', { wav });
    emu.setLatency(PROFILE);
    const turn = turnObject(REPLY, { memory: MEMORY });
    const runs = { streamed: [], whole: [] };
    const spoken = async (path, i) => {
      emu.script([
        { match: { path: '/v1/audio/transcriptions' }, transcript: `when is my next meeting (${path} ${i})` },
        { match: { path: '/v1/messages' }, turn },
      ]);
      const from = emu.requests.length;
      const conns = emu.connections();
      const out = await board.command('VOICE');
      if (!/spoken: /.test(out)) throw new Error(`bench: VOICE (${path}) answered ${out.slice(0, 300)}`);
      const r = stat((await board.command('VOICE?')).split('\n')[1]);
      const rounds = emu.requests.slice(from).filter((q) => q.path === '/v1/messages');
      const bytes = rounds.reduce((n, q) => n + Buffer.byteLength(q.text), 0);
      const cached = rounds.reduce((n, q) => n + (Array.isArray(q.body?.system) && q.body.system[0]?.cache_control ? Buffer.byteLength(JSON.stringify(q.body.tools ?? [])) + Buffer.byteLength(q.body.system[0].text) : 0), 0);
      return { firstAudio: Number(r.firstAudio), transcript: Number(r.transcript), sentence: Number(r.sentence), reply: Number(r.reply), xsPeak: Number(r.xsPeak), xsStatic: Number(r.xsStatic), handshakes: emu.connections() - conns, bytes, cached, speech: emu.requests.slice(from).filter((q) => q.path === '/v1/audio/speech').length };
    };
    // Side by side: streamed and whole turns alternate, the first of each apart (it pays the handshakes).
    for (let i = 0; i <= rounds; i++) {
      for (const path of ['streamed', 'whole']) {
        await orch({ stream: path === 'streamed' ? '1' : '0' });
        runs[path].push(await spoken(path, i));
      }
    }
    // The live XS heap of a voice turn on each path (a collection at each step: slow, so after the timed turns).
    await board.command('HEAPPROBE on');
    const livePeak = {};
    for (const path of ['streamed', 'whole']) {
      await orch({ stream: path === 'streamed' ? '1' : '0' });
      const probed = await spoken(path, 'probed');
      livePeak[path] = Number(stat((await board.command('VOICE?')).split('\n')[1]).xsLivePeak ?? 0) || probed.xsPeak;
    }
    await board.command('HEAPPROBE off');
    const { first, all } = firstSentenceTokens(turn);
    const gap = 1000 / PROFILE.model.tokensPerS;
    const waits = PROFILE.transcriptionMs + PROFILE.model.firstMs + PROFILE.speechFirstByteMs;
    const warm = (path) => runs[path].slice(1);
    return {
      rounds,
      profile: PROFILE,
      tokens: { first, all },
      idealStreamedMs: Math.round(waits + (first - 1) * gap),
      idealWholeMs: Math.round(waits + (all - 1) * gap),
      streamedMs: median(warm('streamed').map((r) => r.firstAudio)),
      wholeMs: median(warm('whole').map((r) => r.firstAudio)),
      streamedSentenceMs: median(warm('streamed').map((r) => r.sentence)),
      streamedReplyMs: median(warm('streamed').map((r) => r.reply)),
      coldHandshakes: runs.streamed[0].handshakes,
      warmHandshakes: Math.max(...warm('streamed').map((r) => r.handshakes), ...warm('whole').map((r) => r.handshakes)),
      speechRequests: runs.streamed[1].speech,
      promptBytes: median(warm('streamed').map((r) => r.bytes)),
      cachedBytes: median(warm('streamed').map((r) => r.cached)),
      xsPeak: Math.max(...runs.streamed.map((r) => r.xsPeak)),
      xsStatic: runs.streamed[0].xsStatic,
      xsLivePeak: livePeak.streamed,
      xsLivePeakWhole: livePeak.whole,
    };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
    await board.stop();
    await emu.close();
  }
}

/** The section's rows (bench/run.mjs). */
export async function voiceStreamRows(row, ok) {
  const v = await voiceStreamBench();
  const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
  const p = v.profile;
  const stated = `transcription ${p.transcriptionMs} ms, first token ${p.model.firstMs} ms then ${p.model.tokensPerS} tokens/s, speech first byte ${p.speechFirstByteMs} ms`;
  row(
    `end of speech to the first spoken audio, streamed (median of ${v.rounds} warm turns; profile: ${stated})`,
    `${v.streamedMs} ms; whole-answer path in the same run ${v.wholeMs} ms (${(v.wholeMs / v.streamedMs).toFixed(2)}x); the first sentence went to speech at ${v.streamedSentenceMs} ms, the whole turn had arrived at ${v.streamedReplyMs} ms`,
    `<= ${v.idealStreamedMs + 150} ms (profile ${v.idealStreamedMs} ms: ${p.transcriptionMs} + ${p.model.firstMs} + ${v.tokens.first - 1} more tokens of the first sentence + ${p.speechFirstByteMs}, plus 150)`,
    ok(v.streamedMs <= v.idealStreamedMs + 150),
  );
  row('  device-side share (measured minus the profile\'s own waits)', `streamed ${v.streamedMs - v.idealStreamedMs} ms; whole-answer ${v.wholeMs - v.idealWholeMs} ms (its profile: ${v.idealWholeMs} ms, all ${v.tokens.all} tokens of the turn)`);
  row(
    '  handshakes per voice turn (TCP and TLS connections the emulator accepted)',
    `${v.coldHandshakes} on the first voice turn (the provider's connection was open from the turn before it), at most ${v.warmHandshakes} on each later one: kept alive across ${v.speechRequests + 2} requests a turn (transcription, the round, ${v.speechRequests} speech requests, one per sentence), each of which had its own before`,
  );
  row('  prompt bytes per voice turn (provider B round bodies)', `${kb(v.promptBytes)}, of which ${kb(v.cachedBytes)} in the cacheable prefix (tools, field docs and the stable prompt, marked cache_control)`);
  row(
    '  XS heap high-water during a streamed voice turn',
    `live (HEAPPROBE on: collected at each step and while sound flows) ${kb(v.xsLivePeak - v.xsStatic)} above ${kb(v.xsStatic)} of code and module objects; the whole-answer path's in the same run ${kb(v.xsLivePeakWhole - v.xsStatic)}; not collected, XS let it reach ${kb(v.xsPeak - v.xsStatic)}`,
  );
}

// node bench/voice-stream.mjs: this section alone (after npm run build).
if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  await voiceStreamRows(
    (work, figure, target, verdict) => console.log(`  ${work}: ${figure}${target ? `  [target ${target}: ${verdict}]` : ''}`),
    (pass) => (pass ? 'met' : 'MISSED'),
  );
}
