#!/usr/bin/env node
// A fake OAuth 2 provider for connector sign-ins (authorization code with
// PKCE S256, RFC 6749 and 7636), for tests and for trying connectors on the
// simulator:
//
//   GET  /authorize   response_type=code, client_id, redirect_uri, state,
//                     code_challenge, code_challenge_method=S256, scope:
//                     consents at once (or refuses, setConsent('deny')) by
//                     redirecting (302) to redirect_uri with code and state
//                     (or error=access_denied and state)
//   POST /token       grant_type=authorization_code (code, redirect_uri,
//                     client_id, code_verifier[, client_secret]) and
//                     grant_type=refresh_token; JSON answers, errors as
//                     {error} with 400 or 401
//
// Codes live 10 minutes and are single-use; the verifier must match the
// challenge; a client with a secret must present it. The core is
// transport-free (handle(method, url, headers, body)), so unit tests serve
// it on the in-memory network; start() serves it over HTTPS with a test-CA
// certificate for OAUTH_HOST.
//
// CLI: node tools/oauth-fake.mjs [--port N] [--client ID[:SECRET]]

import { createHash, randomBytes } from 'node:crypto';
import { createServer as createHttpsServer } from 'node:https';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { issueTestCert } from './test-ca.mjs';

export const OAUTH_HOST = 'auth.connector.test';
export const DEFAULT_CLIENT = 'desk-connector-client';
const CODE_MS = 10 * 60_000;

function json(status, value) {
  return { status, headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' }, body: Buffer.from(JSON.stringify(value)) };
}

/**
 * Options: clients ([{id, secret?, redirectUris?}]: any redirect URI when
 * none are listed), tokenTtl (seconds), now() (ms; the virtual clock in unit
 * tests).
 */
export function createOAuthProvider({ clients = [{ id: DEFAULT_CLIENT }], tokenTtl = 3600, now = () => Date.now() } = {}) {
  let consent = 'allow';
  const codes = new Map();
  const refreshes = new Map();
  const issued = [];
  const calls = [];
  const client = (id) => clients.find((c) => c.id === id);

  function handle(method, url, headers, body) {
    const u = new URL(url, `https://${OAUTH_HOST}`);
    calls.push({ method, path: u.pathname, query: Object.fromEntries(u.searchParams), form: method === 'POST' ? Object.fromEntries(new URLSearchParams(Buffer.from(body ?? []).toString('utf8'))) : {} });
    if (method === 'GET' && u.pathname === '/authorize') {
      const p = u.searchParams;
      const c = client(p.get('client_id') ?? '');
      const redirect = p.get('redirect_uri') ?? '';
      // Never redirect to an address the client did not register (RFC 6749 4.1.2.1).
      if (!c) return json(400, { error: 'invalid_client' });
      if (!redirect || (c.redirectUris && !c.redirectUris.includes(redirect))) return json(400, { error: 'invalid_request', error_description: 'redirect_uri' });
      const back = new URL(redirect);
      const state = p.get('state');
      if (state !== null) back.searchParams.set('state', state);
      if (p.get('response_type') !== 'code') back.searchParams.set('error', 'unsupported_response_type');
      else if (p.get('code_challenge_method') !== 'S256' || !p.get('code_challenge')) back.searchParams.set('error', 'invalid_request');
      else if (consent !== 'allow') back.searchParams.set('error', 'access_denied');
      else {
        const code = randomBytes(16).toString('hex');
        codes.set(code, { client: c.id, redirect, challenge: p.get('code_challenge'), scope: p.get('scope') ?? '', until: now() + CODE_MS });
        back.searchParams.set('code', code);
      }
      return { status: 302, headers: { Location: back.toString() }, body: Buffer.alloc(0) };
    }
    if (method === 'POST' && u.pathname === '/token') {
      const f = new URLSearchParams(Buffer.from(body ?? []).toString('utf8'));
      let id = f.get('client_id') ?? '';
      let secret = f.get('client_secret');
      const basic = /^Basic (.+)$/i.exec(String(headers?.authorization ?? ''));
      if (basic) [id, secret] = Buffer.from(basic[1], 'base64').toString('utf8').split(':');
      const c = client(id);
      if (!c || (c.secret !== undefined && c.secret !== secret)) return json(401, { error: 'invalid_client' });
      const grant = f.get('grant_type');
      let scope = '';
      if (grant === 'authorization_code') {
        const entry = codes.get(f.get('code') ?? '');
        codes.delete(f.get('code') ?? '');
        if (!entry || entry.until < now() || entry.client !== c.id || entry.redirect !== f.get('redirect_uri')) return json(400, { error: 'invalid_grant' });
        const verifier = f.get('code_verifier') ?? '';
        if (createHash('sha256').update(verifier).digest('base64url') !== entry.challenge) return json(400, { error: 'invalid_grant', error_description: 'code_verifier' });
        scope = entry.scope;
      } else if (grant === 'refresh_token') {
        const entry = refreshes.get(f.get('refresh_token') ?? '');
        refreshes.delete(f.get('refresh_token') ?? '');
        if (!entry || entry.client !== c.id) return json(400, { error: 'invalid_grant' });
        scope = entry.scope;
      } else return json(400, { error: 'unsupported_grant_type' });
      const access = `at-${randomBytes(16).toString('hex')}`;
      const refresh = `rt-${randomBytes(16).toString('hex')}`;
      refreshes.set(refresh, { client: c.id, scope });
      issued.push({ grant, access, refresh, at: now() });
      return json(200, { access_token: access, token_type: 'Bearer', expires_in: tokenTtl, refresh_token: refresh, scope });
    }
    return json(404, { error: 'not_found' });
  }

  return {
    handle,
    issued,
    calls,
    setConsent(v) {
      consent = v;
    },
    /** Forgets every refresh token (the service revoked the grant). */
    revokeAll() {
      refreshes.clear();
    },
  };
}

/** Serves the fake over HTTPS on 127.0.0.1 (certificate for OAUTH_HOST from the test CA). */
export function start({ port = 0, clients } = {}) {
  const provider = createOAuthProvider(clients ? { clients } : {});
  const server = createHttpsServer(issueTestCert([OAUTH_HOST]), (req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const r = provider.handle(req.method ?? 'GET', req.url ?? '/', req.headers, Buffer.concat(chunks));
      res.writeHead(r.status, { ...r.headers, 'Content-Length': r.body.length });
      res.end(r.body);
    });
  });
  server.on('tlsClientError', () => {});
  return new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(port, '127.0.0.1', () => ok({ port: server.address().port, provider, close: () => new Promise((r) => server.close(() => r())) }));
  });
}

export function routeArgs(port) {
  return ['--route', `${OAUTH_HOST}:443=127.0.0.1:${port}`];
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { port: { type: 'string', default: '8447' }, client: { type: 'string', default: DEFAULT_CLIENT } } });
  const [id, secret] = values.client.split(':');
  const s = await start({ port: Number(values.port), clients: [{ id, ...(secret ? { secret } : {}) }] });
  console.log(`fake OAuth provider on https://127.0.0.1:${s.port} as ${OAUTH_HOST} (client ${id})`);
  console.log(`simulator: ${routeArgs(s.port).join(' ')}`);
  console.log(`connector: authorize_url=https://${OAUTH_HOST}/authorize token_url=https://${OAUTH_HOST}/token client_id=${id}`);
}
