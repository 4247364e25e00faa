// The tunnel guard: every encoded, doubled or decorated form of a denied
// route is denied; token and apPass never leave in a JSON body.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalPath, stripResponseBody, stripSecrets, tunnelAllows, TUNNEL_DENIED } from '../../../src/auth/tunnel-guard.ts';

const variants = (path: string): string[] => {
  const enc = (s: string): string => s.replace(/\//g, '%2F').replace(/n/g, '%6E');
  return [
    path,
    path + '/',
    path + '//',
    path + '?x=1',
    path + '/?t=abc',
    path.toUpperCase(),
    path.replace(/^\//, '//'),
    path.replace('/api/', '/api//'),
    path.replace('/api/', '/api/./'),
    path.replace('/api/', '/api/files/../'),
    enc(path),
    path.replace('/api/', '/api%2F'),
    path.replace('/api/', '/api%252F'), // doubled
    path.replace('/api/', '/api%25252F'), // tripled
    path.replace(/o/g, '%6f'),
    path.replace(/o/g, '%256f'),
    path + '%3Fq=1',
    path + '#frag',
    path.replace(/\//g, '\\'),
  ];
};

describe('tunnel guard', () => {
  for (const denied of TUNNEL_DENIED) {
    it(`denies every form of ${denied}`, () => {
      for (const v of variants(denied)) expect(tunnelAllows(v), v).toMatchObject({ allowed: false });
    });
  }

  it('allows ordinary routes and canonicalizes them', () => {
    expect(tunnelAllows('/api/state')).toEqual({ allowed: true, path: '/api/state' });
    expect(tunnelAllows('/api/files/list/?x')).toEqual({ allowed: true, path: '/api/files/list' });
    expect(tunnelAllows('/api/signin/exchange-help')).toMatchObject({ allowed: true });
    expect(canonicalPath('/')).toBe('/');
  });

  it('refuses undecodable paths', () => {
    expect(tunnelAllows('/api/%zz')).toMatchObject({ allowed: false });
  });

  it('never lets a denied route through, whatever the decoration (property)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...TUNNEL_DENIED), fc.array(fc.constantFrom('/', '//', '/./', '%2F', '%252F', '?a=b', '#x'), { maxLength: 3 }), (path, extras) => {
        const decorated = path + extras.join('');
        return !tunnelAllows(decorated).allowed;
      }),
    );
  });

  it('strips token and apPass values at any depth of a JSON body', () => {
    const body = JSON.stringify({ token: 'abc', ok: true, nested: { apPass: 'x', keep: 1, list: [{ TOKEN: 'y', z: 2 }] } });
    expect(JSON.parse(stripResponseBody('application/json; charset=utf-8', body))).toEqual({ ok: true, nested: { keep: 1, list: [{ z: 2 }] } });
    expect(stripResponseBody('text/plain', 'token=abc')).toBe('token=abc');
    expect(stripSecrets([{ token: 1 }])).toEqual([{}]);
    expect(JSON.parse(stripResponseBody('application/json', '{broken'))).toMatchObject({ error: 'internal' });
  });
});
