// The repository's own checks run as part of `npm test`, so CI enforces them:
// strict typechecking of every part, lint, and the host-independence rule.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { typecheckStage } from '../../tools/build-device.mjs';
import { needSdk, sdk } from '../support/sdk.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function run(cmd: string, args: string[]): string {
  try {
    return execFileSync(cmd, args, { cwd: ROOT, encoding: 'utf8', stdio: 'pipe' });
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string };
    throw new Error(`${cmd} ${args.join(' ')} failed:\n${err.stdout ?? ''}${err.stderr ?? ''}`);
  }
}

describe('repository checks', () => {
  it('typechecks the firmware (ES2022, no host types) strictly', () => {
    run(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.firmware.json']);
  }, 120_000);

  it('typechecks the device path (hosts/esp32, hosts/lin) strictly against the Moddable SDK\'s own typings', (ctx) => {
    if (!needSdk(ctx, 'the device typecheck')) return;
    // the build's tsc stage: run once per set of inputs (npm run build:device shares the result)
    const r = typecheckStage(sdk);
    expect(r.output).toBe('');
    expect(r.ok).toBe(true);
  }, 120_000);

  it('typechecks the hosts, tools and tests strictly', () => {
    run(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json']);
  }, 120_000);

  it('typechecks the web page (browser TypeScript with the DOM) strictly', () => {
    run(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'src/web/page/tsconfig.json']);
  }, 120_000);

  it('lints clean', async () => {
    const eslint = new ESLint({ cwd: ROOT });
    const results = await eslint.lintFiles(['.']);
    const problems = results.flatMap((r) => r.messages.map((m) => `${r.filePath.slice(ROOT.length + 1)}:${m.line} ${m.message}`));
    expect(problems).toEqual([]);
  }, 120_000);

  // The house rule: no file in src/ over 500 lines, counted raw (eslint.config.js's max-lines
  // counts the .ts files the same way; this also covers any .js or .mjs).
  it('keeps every file in src/ at 500 lines or fewer', () => {
    const over: string[] = [];
    const walk = (dir: string): void => {
      for (const e of readdirSync(resolve(ROOT, dir), { withFileTypes: true })) {
        const rel = `${dir}/${e.name}`;
        if (e.isDirectory()) walk(rel);
        else if (/\.(ts|js|mjs)$/.test(e.name)) {
          const n = readFileSync(resolve(ROOT, rel), 'utf8').split('\n').length - 1;
          if (n > 500) over.push(`${rel}: ${n} lines`);
        }
      }
    };
    walk('src');
    expect(over).toEqual([]);
  });

  // The sizes in the lint (eslint.config.js, docs/architecture.md "Sizes"): each limit refuses a
  // planted violation, and a function is let through only where the configuration names it.
  describe('the size limits', () => {
    const eslint = new ESLint({ cwd: ROOT });
    const lint = async (code: string, file = 'src/probe.ts'): Promise<string[]> => {
      const [result] = await eslint.lintText(code, { filePath: resolve(ROOT, file) });
      return result!.messages.filter((m) => m.ruleId === 'max-lines' || m.ruleId === 'sizes/max-lines-per-function').map((m) => m.message);
    };
    /** A function of `lines` lines, each counted (no blank line, no comment). */
    const fn = (name: string, lines: number): string =>
      [`export function ${name}(): number[] {`, '  const out: number[] = [];', ...Array.from({ length: lines - 4 }, (_, i) => `  out.push(${i});`), '  return out;', '}', ''].join('\n');
    it('refuses a function over 80 lines, counting neither blank lines nor comments', async () => {
      expect(await lint(fn('steps', 81))).toEqual([expect.stringMatching(/Function 'steps' has too many lines \(81\)/)]);
      expect(await lint(fn('steps', 80))).toEqual([]);
      const padded = fn('steps', 80).replace('  return out;', '  // why\n\n  return out;');
      expect(await lint(padded)).toEqual([]);
    });
    it('refuses a file over 500 lines, blank lines and comments counted', async () => {
      const file = `${fn('short', 10)}${'// a comment\n'.repeat(245)}${'\n'.repeat(246)}`;
      expect(file.split('\n').length - 1).toBe(501);
      expect(await lint(file)).toEqual([expect.stringMatching(/File has too many lines \(501\)/)]);
      expect(await lint(file.slice(0, -1))).toEqual([]);
    });
    it('lets a named declarative table be long in its own file only, and no other function there', async () => {
      expect(await lint(fn('fileTools', 120), 'src/files/tools.ts')).toEqual([]);
      expect(await lint(fn('fileTools', 120), 'src/files/routes.ts')).toEqual([
        expect.stringMatching(/'fileRoutes' is named in eslint\.config\.js/),
        expect.stringMatching(/Function 'fileTools' has too many lines/),
      ]);
      expect(await lint(`${fn('fileTools', 120)}${fn('helper', 81)}`, 'src/files/tools.ts')).toEqual([expect.stringMatching(/Function 'helper' has too many lines/)]);
    });
    it('fails a named exception that is no longer over the limit, so the list only shrinks to what is true', async () => {
      expect(await lint(fn('fileTools', 80), 'src/files/tools.ts')).toEqual([expect.stringMatching(/'fileTools' is named in eslint\.config\.js .* take it off the list/)]);
    });
  });

  describe('the host-independence rule for src/', () => {
    const eslint = new ESLint({ cwd: ROOT });
    const lint = async (code: string): Promise<string[]> => {
      const [result] = await eslint.lintText(code, { filePath: resolve(ROOT, 'src/probe.ts') });
      return result!.messages.map((m) => m.message);
    };
    it.each([
      ["import { readFileSync } from 'node:fs';", /Node built-ins/],
      ["import { connect } from 'net';", /Node built-ins/],
      ["import Timer from 'timer';", /Moddable modules/],
      ["import Digital from 'embedded:io/digital';", /Moddable modules/],
      ['export const n = new Intl.NumberFormat();', /XS has no Intl/],
      ["export const s = (1).toLocaleString();", /XS has no Intl/],
      ['export const p = process.env;', /No Node globals/],
      ['export const b = Buffer.from([]);', /No Node globals/],
      ['export const e = new TextEncoder();', /TextEncoder/],
      ['setTimeout(() => 0, 1);', /HAL clock/],
      ["export const f = (s: string): boolean => /x+/.test(s);", /module constant/],
    ])('refuses %s', async (code, why) => {
      const messages = await lint(code);
      expect(messages.some((m) => why.test(m)), messages.join('; ')).toBe(true);
    });
    it('accepts plain host-independent code', async () => {
      expect(await lint('export const add = (a: number, b: number): number => a + b;\n')).toEqual([]);
    });
  });

  // The device preloads the firmware module (xsl) and freezes what its top level made: the SDK's
  // desktop runtime test (test/e2e/sdk-runtime.test.ts) found each of these aborting boot or a turn.
  describe('the preload rules for code bundled into the firmware', () => {
    const eslint = new ESLint({ cwd: ROOT });
    const lint = async (code: string, file = 'src/probe.ts'): Promise<string[]> => {
      const [result] = await eslint.lintText(code, { filePath: resolve(ROOT, file) });
      return result!.messages.map((m) => m.message);
    };
    it.each([
      ['let n = 0;\nexport function f(): void { n++; }', /module-level binding/],
      ['export let impl = 1;\nexport function use(v: number): void { impl = v; }', /set impl: const/],
      ['const cache = new Map<string, number>();\nexport function f(k: string): void { cache.set(k, 1); }', /Map made at the top level/],
      ['const seen = new Set<number>();\nexport const f = (n: number): void => void seen.add(n);', /Set made at the top level/],
      ['const scratch = new Uint8Array(16);\nexport function f(): Uint8Array { scratch[0] = 1; return scratch; }', /Uint8Array made at the top level/],
      ['const buf = new Uint8Array(8).fill(0);\nexport function f(): void { buf.fill(1); }', /Uint8Array made at the top level/],
      ["const SPACES = /\\s+/g;\nexport const f = (s: string): string => s.replace(SPACES, ' ');", /g flag/],
      ['const RULES: RegExp[] = [/a/y];\nexport const f = (s: string): boolean => RULES[0]!.test(s);', /y flag/],
      ['export const f = (v: unknown): string => JSON.stringify(v);', /stringify\(\) from src\/util\/json\.ts/],
    ])('refuses %s', async (code, why) => {
      const messages = await lint(code);
      expect(messages.some((m) => why.test(m)), messages.join('; ')).toBe(true);
    });
    it('applies them to the device and lin hosts too', async () => {
      expect((await lint('let n = 0;\nexport function f(): void { n++; }\n', 'hosts/esp32/hal/probe.ts')).join()).toMatch(/module-level binding/);
      expect((await lint('let n = 0;\nexport function f(): void { n++; }\n', 'hosts/lin/hal/probe.ts')).join()).toMatch(/module-level binding/);
    });
    it('accepts what preloading allows: top-level setup, state in objects, tables filled at the top level, flagless expressions', async () => {
      const code = [
        "import { replaceEvery } from './util/replace.ts';",
        "import { stringify } from './util/json.ts';",
        'let total = 0;',
        'for (const n of [1, 2, 3]) total += n;',
        'export const TOTAL = total;',
        'const state = { calls: 0 };',
        'export function count(): number { return ++state.calls; }',
        'const TABLE = new Uint8Array(4);',
        'for (let i = 0; i < 4; i++) TABLE[i] = i * 2;',
        'export const at = (i: number): number => TABLE[i] ?? 0;',
        'const NAMES = new Map<number, string>([[1, "one"]]);',
        'export const name = (n: number): string => NAMES.get(n) ?? "";',
        'const SPACES = /\\s+/;',
        "export const squeeze = (s: string): string => replaceEvery(s, SPACES, ' ');",
        'export const text = (v: unknown): string => stringify(v);',
        'export function local(): number { let n = 0; const m = new Map<number, number>(); m.set(1, ++n); return /a/g.lastIndex + n; }',
        '',
      ].join('\n');
      expect((await lint(code)).filter((m) => !/module constant/.test(m))).toEqual([]);
    });
  });
});
