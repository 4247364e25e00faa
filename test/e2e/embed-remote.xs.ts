// Runs ON XS (bundled by test/e2e/embeddings-xs.test.ts, run with
// `build/sim/xsim --standalone`): the remote embedder's scenario
// (fixtures/embed-scenario.ts), one JSON line per request, usage count,
// result and refusal, then a done line.
import { runScenario } from './fixtures/embed-scenario.ts';

declare const __sim: { print(text: string): void };

const out = (obj: unknown): void => __sim.print(JSON.stringify(obj));

runScenario(out).then(
  () => out({ kind: 'done' }),
  (e: unknown) => out({ kind: 'fatal', message: e instanceof Error ? `${e.message} ${e.stack ?? ''}` : String(e) }),
);
