// The repository's own checks run as part of `npm test`, so CI enforces them:
// strict typechecking of every part, lint, and the host-independence rule.
import { execFileSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

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

  it('typechecks the device path (hosts/esp32 on our typings of the Moddable SDK) strictly', () => {
    run(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.device.json']);
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
});
