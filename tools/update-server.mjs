#!/usr/bin/env node
// A local update server: serves an update base folder (tools/release.mjs
// output) over HTTPS with a certificate from the local test CA, for the
// simulator. The firmware keeps a real-looking update base host name and
// reaches this server through the board's --route host:443=127.0.0.1:<port>
// (or the control op net.route).
//
// Usage: node tools/update-server.mjs --root DIR [--port N] [--name HOST]...
// Tests use startUpdateServer() and can inject faults per path: cut the body
// after N bytes (truncate) or stop sending after N bytes and hold the
// connection open (stall).
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer } from 'node:https';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { issueTestCert } from './test-ca.mjs';

export const UPDATE_HOST = 'updates.desk-assistant.invalid';

const TYPES = { '.json': 'application/json', '.img': 'application/octet-stream', '.bin': 'application/octet-stream' };

/**
 * Starts the server on 127.0.0.1. Returns { port, close(), faults, requests }:
 * faults.set('/path', { kind: 'truncate' | 'stall', after: bytes }).
 */
export function startUpdateServer({ root, names = [UPDATE_HOST], port = 0, log = () => {} }) {
  const base = resolve(root);
  const faults = new Map();
  const requests = [];
  const sockets = new Set();
  const { cert, key } = issueTestCert(names);
  const server = createServer({ cert, key }, (req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'https://x').pathname);
    requests.push({ method: req.method, path });
    log(`${req.method} ${path}`);
    const file = normalize(join(base, path));
    if ((file !== base && !file.startsWith(base + sep)) || req.method !== 'GET' || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(req.method === 'GET' ? 404 : 405, { 'Content-Type': 'text/plain' });
      res.end('not found\n');
      return;
    }
    const size = statSync(file).size;
    res.writeHead(200, { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream', 'Content-Length': size, 'Cache-Control': 'no-store' });
    const fault = faults.get(path);
    if (!fault) {
      createReadStream(file).pipe(res);
      return;
    }
    createReadStream(file, { start: 0, end: Math.max(0, Math.min(size, fault.after) - 1) })
      .on('data', (c) => res.write(c))
      .on('end', () => {
        if (fault.kind === 'truncate') res.socket?.destroy();
        // stall: keep the connection open with the body unfinished
      });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  return new Promise((resolvePort, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      resolvePort({
        port: server.address().port,
        faults,
        requests,
        close: () =>
          new Promise((r) => {
            for (const s of sockets) s.destroy();
            server.close(() => r());
          }),
      });
    });
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: { root: { type: 'string' }, port: { type: 'string', default: '8443' }, name: { type: 'string', multiple: true, default: [] } },
  });
  if (!values.root) {
    console.error('usage: update-server.mjs --root DIR [--port N] [--name HOST]...');
    process.exit(2);
  }
  const names = values.name.length ? values.name : [UPDATE_HOST];
  const s = await startUpdateServer({ root: values.root, names, port: Number(values.port), log: (l) => console.log(l) });
  console.log(`serving ${values.root} as https://${names[0]}/ on 127.0.0.1:${s.port}`);
  console.log(`simulator: --route ${names[0]}:443=127.0.0.1:${s.port}, then OTAURL https://${names[0]}/<folder of latest/>`);
}
