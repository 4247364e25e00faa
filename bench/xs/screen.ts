// Runs ON XS (build/sim/xsim --standalone): the cloud tunnel's secret screen
// (src/auth/secret-screen.ts) over 1 MB of random bytes and 1 MB of text,
// whole and in 4 KB pieces as a streamed download passes it, with the live
// secrets of a busy device (the token, apPass, 16 sign-in codes, 8 launch
// keys, 3 credentials), side by side with the plain way (the body as one
// case-folded string, searched for each form with includes). Also the cost of
// building the screen (done again only when the live secrets change).
// Prints one JSON object per line for bench/run.mjs.
//   npx esbuild bench/xs/screen.ts --bundle --format=iife --target=es2021 --outfile=/tmp/screen.js && build/sim/xsim --standalone /tmp/screen.js

import { SecretScreen, secretForms } from '../../src/auth/secret-screen.ts';
import type { LiveSecret } from '../../src/auth/secrets.ts';

declare const __sim: { print(text: string): void; monoMs(): number };

const secrets: LiveSecret[] = [
  { kind: 'token', value: '0123456789abcdef01234567' },
  { kind: 'setup-passphrase', value: 'k7m2x9q4pz' },
  { kind: 'credential', value: 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789' },
  { kind: 'credential', value: 'home-pass-1' },
  { kind: 'credential', value: '123456789:AAH-fake-token-for-tests-0123456789abc' },
];
const ALPHA = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';
for (let i = 0; i < 16; i++) secrets.push({ kind: 'signin-code', value: `ABCD2345EFG${ALPHA[i]}` });
for (let i = 0; i < 8; i++) secrets.push({ kind: 'launch-key', value: `fedcba9876543210fedcba98765432${i}${i}` });

const MB = 1024 * 1024;
const noise = new Uint8Array(MB);
for (let i = 0, x = 12345; i < MB; i++) noise[i] = (x = (Math.imul(x, 1103515245) + 12345) | 0) >>> 24;
const words = 'the plan is to walk every route and keep every secret in ';
const text = new Uint8Array(MB);
for (let i = 0; i < MB; i++) text[i] = words.charCodeAt(i % words.length);

function best(runs: number, f: () => void): number {
  let b = Infinity;
  for (let i = 0; i < runs; i++) {
    const t0 = __sim.monoMs();
    f();
    b = Math.min(b, __sim.monoMs() - t0);
  }
  return b;
}

let screen = new SecretScreen(secrets);
const build = best(5, () => (screen = new SecretScreen(secrets)));
const forms = secrets.flatMap((s) => secretForms(s)).map((f) => f.toLowerCase());
const plain = (bytes: Uint8Array): boolean => {
  let s = '';
  for (let at = 0; at < bytes.length; at += 8192) s += String.fromCharCode.apply(null, Array.from(bytes.subarray(at, at + 8192)));
  const lower = s.toLowerCase();
  return forms.some((f) => lower.includes(f));
};
for (const [name, body] of [
  ['random', noise],
  ['text', text],
] as const) {
  if (screen.find(body) !== null || plain(body)) throw new Error('a secret in the bench body');
  const whole = best(3, () => screen.find(body));
  const pieces = best(3, () => {
    const s = screen.stream();
    for (let at = 0; at < body.length; at += 4096) if (!s.push(body.subarray(at, at + 4096)).ok) throw new Error('found');
  });
  const naive = best(3, () => plain(body));
  __sim.print(JSON.stringify({ what: `screen-${name}`, secrets: secrets.length, forms: forms.length, whole, pieces, naive }));
}
__sim.print(JSON.stringify({ what: 'screen-build', ms: build, secrets: secrets.length }));
