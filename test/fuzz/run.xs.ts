// Runs ON XS (bundled by test/e2e/fuzz.test.ts, run with `build/sim/xsim
// --standalone`): every fuzz property of properties.ts for its budget of
// cases, each from its own seed (the base seed, argv[0], mixed with its
// name, so a run is repeatable), then every kept failing case of
// regressions.json straight through its property. One JSON line each.
import { PROPERTIES, replay, runProperty } from './properties.ts';
import REGRESSIONS from './regressions.json';

declare const __sim: { print(text: string): void; argv: string[]; monoMs(): number };

interface Regression {
  property: string;
  seed: number;
  path?: string;
  input: unknown;
  found: string;
}

function seedOf(base: number, name: string): number {
  let h = base >>> 0;
  for (let i = 0; i < name.length; i++) h = (Math.imul(h ^ name.charCodeAt(i), 16777619) >>> 0) & 0x7fffffff;
  return h;
}

const argv = __sim.argv ?? [];
const base = Number(argv[0] ?? 26) >>> 0;
const scale = Number(argv[1] ?? 1) || 1;
const only = argv[2] ?? '';

async function main(): Promise<void> {
  for (const p of PROPERTIES) {
    if (only && !p.name.startsWith(only)) continue;
    const out = await runProperty(p, seedOf(base, p.name), scale, () => __sim.monoMs());
    __sim.print(JSON.stringify({ kind: 'property', ...out }));
  }
  for (const r of REGRESSIONS as Regression[]) {
    const p = PROPERTIES.find((x) => x.name === r.property);
    const error = p ? await replay(p, r.input) : `no property named ${r.property}`;
    __sim.print(JSON.stringify({ kind: 'regression', property: r.property, found: r.found, error }));
  }
  __sim.print(JSON.stringify({ kind: 'end' }));
}

main().catch((e) => __sim.print(JSON.stringify({ kind: 'fatal', error: String(e) })));
