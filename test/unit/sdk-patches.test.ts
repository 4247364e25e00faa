// This project's fixes to the Moddable SDK's own sources (tools/sdk-patches.mjs):
// applied to the SDK it extracts, never to an engineer's MODDABLE (which is
// told what it lacks), each finding its text or failing loudly.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { applySdkPatches, missingPatches, SDK_PATCHES } from '../../tools/sdk-patches.mjs';
import { needSdk, sdk } from '../support/sdk.ts';

const tmp = mkdtempSync(join(tmpdir(), 'sdk-patches-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function fakeSdk(name: string, text: (p: (typeof SDK_PATCHES)[number]) => string): string {
  const root = join(tmp, name);
  for (const p of SDK_PATCHES) {
    mkdirSync(join(root, p.file, '..'), { recursive: true });
    writeFileSync(join(root, p.file), `/* head */\n${text(p)}\n/* tail */\n`);
  }
  return root;
}

describe('fixes to the SDK sources', () => {
  it('turns each unfixed text into the fixed one, once', () => {
    const root = fakeSdk('unfixed', (p) => p.before);
    expect(missingPatches(root).map((p) => p.id)).toEqual(SDK_PATCHES.map((p) => p.id));
    applySdkPatches(root);
    expect(missingPatches(root)).toEqual([]);
    const once = SDK_PATCHES.map((p) => readFileSync(join(root, p.file), 'utf8'));
    applySdkPatches(root);
    expect(SDK_PATCHES.map((p) => readFileSync(join(root, p.file), 'utf8'))).toEqual(once);
    for (const [i, p] of SDK_PATCHES.entries()) expect(once[i]).toContain(p.after);
  });

  it('fails loudly when a source has neither text (another SDK version)', () => {
    const root = fakeSdk('other', () => 'something else');
    expect(() => applySdkPatches(root)).toThrow(/has neither the text it fixes nor the fix/);
  });

  it('the SDK in use has every fix: a preloaded RegExp gets its match data from the XS heap only', (ctx) => {
    if (!needSdk(ctx, 'the SDK fixes check')) return;
    expect(missingPatches(sdk.moddable!)).toEqual([]);
    const xsre = readFileSync(join(sdk.moddable!, 'xs/sources/xsre.c'), 'utf8');
    const body = xsre.slice(xsre.indexOf('txInteger* fxAllocateRegExpData('), xsre.indexOf('txBoolean fxCompileRegExp('));
    expect(body).toMatch(/data = fxNewChunk\(the, size\);\s*else\s*#endif\s*\{\s*data = c_malloc\(size\);/);
  });
});
