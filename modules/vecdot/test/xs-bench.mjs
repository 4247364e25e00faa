// Bundles an XS benchmark script (default: xs-bench.ts beside this file) and
// runs it on the simulator runtime (build/sim/xsim must exist: see
// hosts/sim/runtime/Makefile). Usage, from the repository root:
//   node modules/vecdot/test/xs-bench.mjs [modules/sha256/test/xs-bench.ts]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = fileURLToPath(new URL('.', import.meta.url));
const root = resolve(here, '../../..');
const entry = resolve(process.argv[2] ?? join(here, 'xs-bench.ts'));
const result = await build({
  entryPoints: [entry],
  bundle: true,
  format: 'iife',
  target: 'es2022',
  supported: { 'class-field': false, 'class-static-field': false },
  write: false,
  logLevel: 'warning',
});
const dir = mkdtempSync(join(tmpdir(), 'xs-bench-'));
try {
  const script = join(dir, 'bench.js');
  writeFileSync(script, result.outputFiles[0].text);
  execFileSync(join(root, 'build/sim/xsim'), ['--heap-max', String(256 * 1024 * 1024), '--standalone', script], {
    stdio: 'inherit',
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
