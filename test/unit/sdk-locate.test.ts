// The one rule that finds the Moddable SDK (tools/sdk.mjs): MODDABLE when set
// (and it must be an SDK), else the archive moddable-sdk-8.2.3.tar.xz from
// DESK_SDK_ARCHIVE or shared/toolchains/ above the repository, its git common
// folder or a local clone's origin; made ready once, a second run doing
// nothing.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureSdk, findArchive, locateSdk, SDK_ARCHIVE, searchStarts } from '../../tools/sdk.mjs';
import { needSdk, sdk } from '../support/sdk.ts';

const tmp = mkdtempSync(join(tmpdir(), 'sdk-locate-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const git = (args: string[], cwd: string): string => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });

describe('where the SDK comes from', () => {
  it('MODDABLE first, and it must be an SDK', () => {
    const r = locateSdk({ MODDABLE: join(tmp, 'nowhere') });
    expect(r.ok).toBe(false);
    expect(r.reason).toMatch(/is not a Moddable SDK/);
  });

  it('else the archive, walking up from the repository, its git common folder and a local origin', () => {
    // /tmp/x/shared/toolchains/<archive>, and a repository two folders below /tmp/x
    const top = join(tmp, 'work');
    mkdirSync(join(top, 'shared/toolchains'), { recursive: true });
    writeFileSync(join(top, 'shared/toolchains', SDK_ARCHIVE), 'not really');
    const repo = join(top, 'wt/here');
    mkdirSync(repo, { recursive: true });
    git(['init', '-q'], repo);
    expect(findArchive({}, repo)).toBe(join(top, 'shared/toolchains', SDK_ARCHIVE));
    // a clone elsewhere finds it through its origin (git clone /work/wt/i23 /tmp/c23)
    const clone = join(tmp, 'elsewhere/clone');
    mkdirSync(clone, { recursive: true });
    git(['init', '-q'], clone);
    git(['remote', 'add', 'origin', repo], clone);
    expect(searchStarts(clone)).toContain(repo);
    expect(findArchive({}, clone)).toBe(join(top, 'shared/toolchains', SDK_ARCHIVE));
    // DESK_SDK_ARCHIVE overrides the search, and a missing one means none
    expect(findArchive({ DESK_SDK_ARCHIVE: join(tmp, 'no.tar.xz') }, repo)).toBeNull();
    const none = locateSdk({ DESK_SDK_ARCHIVE: join(tmp, 'no.tar.xz') }, repo);
    expect(none.ok).toBe(false);
    expect(none.reason).toMatch(/^no Moddable SDK: MODDABLE is not set and no moddable-sdk-8\.2\.3\.tar\.xz was found/);
  });

  it('is ready once: a second run rebuilds nothing', (ctx) => {
    if (!needSdk(ctx, 'the second-run check')) return;
    const mcconfig = join(sdk.bin!, 'mcconfig');
    const before = statSync(mcconfig).mtimeMs;
    const t0 = Date.now();
    const again = ensureSdk({ log: () => undefined });
    expect(again.ok && again.tools).toBe(true);
    expect(statSync(mcconfig).mtimeMs).toBe(before);
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(again.version).toBe('8.2.3');
  });
});
