// npm run bench, the voice section: the device side of a spoken turn on XS,
// on the simulator against the provider emulator (loopback, TLS): the
// board's microphone plays a WAV (300 ms of silence, 1.2 s of a voiced tone,
// 1.5 s of silence), VOICE listens until the end of speech, transcribes,
// runs the turn and speaks the reply; VOICE? gives the ms from the end of
// speech (the VAD's decision) to the transcript, the reply and the first
// sample of speech handed to the speaker, and the XS heap high-water during
// the turn. The provider's own latency is the emulator's (near zero), so the
// figure is what the device adds. Then, with HEAPPROBE on (a collection at
// each step of the turn, every 100 ms while sound flows, and after every
// round of the turn: slow, so the timed turns run first with it off), the
// LIVE XS heap high-water of a voice turn: what the turn holds, not how lazily
// the collector ran; and the live heap at rest before it (HEAP?).
import { connect } from 'node:net';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EMULATOR_NAMES, routeArgs, start, turnObject, wavBytes } from '../tools/provider-emulator.mjs';
import { boardWith } from './turn.mjs';

/** A 16 kHz mono WAV of a spoken question: silence, a voiced tone, silence (ms, amplitude); test/e2e/voice.test.ts uses it too. */
export function speechWav(path, parts = [[300, 0], [1200, 4000], [1500, 0]]) {
  const pcm = Int16Array.from(parts.flatMap(([ms, amp]) => Array.from({ length: (16000 * ms) / 1000 }, (_, i) => Math.round(amp * Math.sin((2 * Math.PI * 220 * i) / 16000)))));
  writeFileSync(path, wavBytes(pcm, 16000, 1));
}

/** One board control op over the device folder's socket (hosts/sim/board/control.ts: JSON lines). */
export async function control(deviceDir, op, args) {
  const path = join(deviceDir, 'control.sock');
  for (let i = 0; i < 200 && !existsSync(path); i++) await new Promise((r) => setTimeout(r, 20));
  return new Promise((resolve, reject) => {
    const s = connect(path, () => s.write(JSON.stringify({ ...args, id: 1, op }) + '\n'));
    let buf = '';
    s.setEncoding('utf8');
    s.on('data', (c) => {
      buf += c;
      const nl = buf.indexOf('\n');
      if (nl < 0) return;
      const msg = JSON.parse(buf.slice(0, nl));
      s.end();
      if (msg.ok) resolve(msg);
      else reject(new Error(`${op}: ${msg.message}`));
    });
    s.on('error', reject);
  });
}

const stat = (text) => Object.fromEntries([...text.matchAll(/(\w+)=([\w.-]+)/g)].map((m) => [m[1], m[2]]));

export async function voiceBench(turns = 5, probed = 2) {
  const emu = await start();
  const board = boardWith(routeArgs(emu.port, EMULATOR_NAMES));
  const tmp = mkdtempSync(join(tmpdir(), 'bench-voice-'));
  try {
    const http = await board.waitFor(/^HTTP: (http:\/\/127\.0\.0\.1:\d+)\//m, 0);
    const token = /^([0-9a-f]{24})\r?$/m.exec(await board.command('WEBTOK?'))[1];
    const res = await fetch(`${http[1]}/api/orch`, { method: 'POST', headers: { 'X-Device-Token': token }, body: new URLSearchParams({ key_anthropic: 'sk-bench', key_openai: 'sk-bench-openai', priority: 'anthropic,openai' }) });
    if (res.status !== 200) throw new Error(`bench: /api/orch ${res.status}`);
    emu.script({ match: { path: '/v1/messages' }, turn: turnObject('Voice is on.', { device: [{ config: { sttProv: 'openai', ttsOn: true } }] }) });
    await board.command('TURN turn voice on');
    const wav = join(tmp, 'ask.wav');
    speechWav(wav);
    await control(board.deviceDir, 'mic.feed', { wav });
    const runs = [];
    for (let i = 0; i < turns; i++) {
      emu.script([
        { match: { path: '/v1/audio/transcriptions' }, transcript: `question number ${i}` },
        { match: { path: '/v1/messages' }, turn: turnObject(`Answer number ${i}.`) },
      ]);
      const out = await board.command('VOICE');
      if (!/spoken: /.test(out)) throw new Error(`bench: VOICE answered ${out.slice(0, 200)}`);
      runs.push(stat((await board.command('VOICE?')).split('\n')[1]));
    }
    // The live heap: at rest (HEAP? collects first), then the high-water of probed turns.
    const rest = stat((await board.command('HEAP?')).split('\n')[0]);
    await board.command('HEAPPROBE on');
    const live = [];
    for (let i = 0; i < probed; i++) {
      emu.script([
        { match: { path: '/v1/audio/transcriptions' }, transcript: `probed question ${i}` },
        { match: { path: '/v1/messages' }, turn: turnObject(`Probed answer ${i}.`) },
      ]);
      const out = await board.command('VOICE');
      if (!/spoken: /.test(out)) throw new Error(`bench: VOICE (probed) answered ${out.slice(0, 200)}`);
      live.push(stat((await board.command('VOICE?')).split('\n')[1]));
    }
    await board.command('HEAPPROBE off');
    if (live.some((r) => !(Number(r.xsLivePeak) > 0))) throw new Error('bench: VOICE? gave no xsLivePeak with HEAPPROBE on');
    const med = (k) => {
      const v = runs.map((r) => Number(r[k])).sort((a, b) => a - b);
      return v[v.length >> 1];
    };
    return {
      turns,
      firstAudioMs: med('firstAudio'),
      transcriptMs: med('transcript'),
      replyMs: med('reply'),
      xsPeak: Math.max(...runs.map((r) => Number(r.xsPeak))),
      xsStatic: Number(runs[0].xsStatic),
      probed,
      xsLivePeak: Math.max(...live.map((r) => Number(r.xsLivePeak))),
      xsRest: Number(rest.xs),
    };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
    await board.stop();
    await emu.close();
  }
}
