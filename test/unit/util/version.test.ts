import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { compareVersions, formatVersion, isPreRelease, parseVersion, type Version } from '../../../src/util/version.ts';

describe('parseVersion', () => {
  it('accepts vX.Y.Z and vX.Y.Z-rcN', () => {
    expect(parseVersion('v1.2.3')).toEqual({ major: 1, minor: 2, patch: 3, rc: null });
    expect(parseVersion('v0.0.0')).toEqual({ major: 0, minor: 0, patch: 0, rc: null });
    expect(parseVersion('v10.20.30-rc4')).toEqual({ major: 10, minor: 20, patch: 30, rc: 4 });
    expect(parseVersion('v1.0.0-rc0')?.rc).toBe(0);
    expect(parseVersion('v999999999.0.0')?.major).toBe(999999999);
  });

  it('rejects everything else', () => {
    for (const bad of [
      '1.2.3', 'V1.2.3', 'v1.2', 'v1.2.3.4', 'v01.2.3', 'v1.02.3', 'v1.2.03', 'v1.2.3-rc', 'v1.2.3-rc01',
      'v1.2.3-beta1', 'v1.2.3-RC1', 'v1.2.3+b', ' v1.2.3', 'v1.2.3 ', 'v-1.2.3', 'v1.2.3-rc-1', 'v1000000000.0.0',
      'v1.2.3\n', '', 'v', 'v1..3',
    ]) {
      expect(parseVersion(bad), bad).toBeNull();
    }
    expect(parseVersion(123)).toBeNull();
    expect(parseVersion(null)).toBeNull();
  });

  it('round-trips through formatVersion', () => {
    const n = fc.integer({ min: 0, max: 999999999 });
    fc.assert(
      fc.property(n, n, n, fc.option(n), (major, minor, patch, rc) => {
        const v: Version = { major, minor, patch, rc };
        expect(parseVersion(formatVersion(v))).toEqual(v);
      }),
    );
  });
});

describe('compareVersions', () => {
  const p = (s: string) => parseVersion(s)!;
  it('orders by major, minor, patch, and puts a pre-release before its release', () => {
    const ordered = ['v0.9.9', 'v1.0.0-rc1', 'v1.0.0-rc2', 'v1.0.0-rc10', 'v1.0.0', 'v1.0.1-rc1', 'v1.0.1', 'v1.2.0', 'v1.10.0', 'v2.0.0'];
    for (let i = 0; i < ordered.length; i++) {
      for (let j = 0; j < ordered.length; j++) {
        expect(compareVersions(p(ordered[i]!), p(ordered[j]!)), `${ordered[i]} vs ${ordered[j]}`).toBe(Math.sign(i - j));
      }
    }
  });

  it('is antisymmetric', () => {
    const n = fc.integer({ min: 0, max: 3 });
    const v = fc.record({ major: n, minor: n, patch: n, rc: fc.option(n) });
    fc.assert(
      fc.property(v, v, (a, b) => {
        expect(compareVersions(a, b)).toBe(-compareVersions(b, a) || 0);
      }),
    );
  });
});

describe('isPreRelease', () => {
  it('is true only for valid -rcN versions', () => {
    expect(isPreRelease('v1.0.0-rc1')).toBe(true);
    expect(isPreRelease('v1.0.0')).toBe(false);
    expect(isPreRelease('v1.0.0-beta')).toBe(false);
    expect(isPreRelease(parseVersion('v2.0.0-rc3')!)).toBe(true);
  });
});
