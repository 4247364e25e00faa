// Update tests on the in-memory HAL: simulator images (DSKIMG01), a fake
// update feed on the in-memory network (files by path, with status codes,
// cut or stalled bodies), release publishing with a test key, and restarts
// through a bootloader with ESP-IDF's rollback rules over MemFlash.

import { createHash } from 'node:crypto';
import { p256 } from '@noble/curves/nist.js';
import type { ResetReason } from '../../src/hal/index.ts';
import type { TrustedKey } from '../../src/ota/keys.ts';
import { signedMessage } from '../../src/ota/signed-message.ts';
import { makeImage } from '../../tools/build.mjs';
import { rebootMemHal, type MemHal } from './memhal.ts';
import type { MemNet, MemSocket } from './memnet.ts';

export const UPDATE_HOST = 'updates.desk-assistant.invalid';
export const BASE = `https://${UPDATE_HOST}/releases`;

/** A simulator app image carrying `version` in its header. */
export function simImage(version: string, bundleBytes = 3000): Uint8Array {
  const bundle = Buffer.alloc(bundleBytes, `/* ${version} */`);
  return new Uint8Array(makeImage(bundle, { version, buildId: 'test', target: 'sim' }));
}

/** The version in a slot's image header, or null. */
export function imageVersion(bytes: Uint8Array): string | null {
  const b = Buffer.from(bytes);
  if (b.length < 16 || b.toString('latin1', 0, 8) !== 'DSKIMG01') return null;
  try {
    return (JSON.parse(b.toString('utf8', 16, 16 + b.readUInt32LE(8))) as { version: string }).version;
  } catch {
    return null;
  }
}

export interface TestKey {
  secret: Uint8Array;
  trusted: TrustedKey;
}

export function makeKey(id = 'test'): TestKey {
  const { secretKey, publicKey } = p256.keygen();
  const point = p256.Point.fromBytes(publicKey).toBytes(false);
  return { secret: secretKey, trusted: { id, publicKeyHex: Buffer.from(point).toString('hex') } };
}

export interface FeedFile {
  status?: number;
  body?: Uint8Array | string;
  /** Close the connection after this many body bytes. */
  cutAt?: number;
  /** Stop sending after this many body bytes, keeping the connection open. */
  stallAt?: number;
}

/** A fake update server for one host, re-attachable to each boot's network. */
export class UpdateFeed {
  readonly files = new Map<string, FeedFile>();
  readonly requests: string[] = [];
  open: MemSocket[] = [];

  attach(net: MemNet, host = UPDATE_HOST, port = 443): void {
    net.serve(host, port, (s) => {
      this.open.push(s);
      s.onData = () => {
        const text = s.text();
        if (!text.includes('\r\n\r\n')) return;
        s.onData = null;
        const path = /^GET (\S+)/.exec(text)?.[1] ?? '';
        this.requests.push(path);
        const f = this.files.get(path);
        if (!f) {
          s.send('HTTP/1.1 404 Not Found\r\nContent-Length: 10\r\n\r\nnot found\n');
          s.end();
          return;
        }
        const body = typeof f.body === 'string' ? new TextEncoder().encode(f.body) : (f.body ?? new Uint8Array(0));
        s.send(`HTTP/1.1 ${f.status ?? 200} X\r\nContent-Length: ${body.length}\r\n\r\n`);
        const limit = f.cutAt ?? f.stallAt ?? body.length;
        for (let o = 0; o < limit; o += 16384) s.send(body.subarray(o, Math.min(limit, o + 16384)));
        if (f.stallAt === undefined) s.end();
      };
    });
  }

  /**
   * Publishes a release under /releases: the image and latest/manifest.json,
   * signed with `key` for `types` (schema 2 unless told). `mutate` edits the
   * manifest before it is served (tampering tests).
   */
  publish(options: {
    version: string;
    key: TestKey;
    image?: Uint8Array;
    types?: string[];
    schema?: 1 | 2;
    notes?: string;
    mutate?: (manifest: Record<string, unknown>, image: Uint8Array) => Uint8Array | void;
  }): { image: Uint8Array; manifest: Record<string, unknown> } {
    const { version, key } = options;
    let image = options.image ?? simImage(version);
    const schema = options.schema ?? 2;
    const sha = createHash('sha256').update(image).digest('hex');
    const variants: Record<string, unknown> = {};
    for (const t of options.types ?? ['ring-tft', 'panel-28', 'panel-35', 'panel-40']) {
      const sig = Buffer.from(p256.sign(signedMessage(schema, version, t, sha), key.secret, { lowS: false, format: 'der' })).toString('base64');
      variants[t] = { url: `../${version}/desk-${version}.img`, size: image.length, sha256: sha, sig };
    }
    const manifest: Record<string, unknown> = { schema, version, notes: options.notes ?? `Release ${version}`, variants };
    image = options.mutate?.(manifest, image) ?? image;
    this.files.set('/releases/latest/manifest.json', { body: JSON.stringify(manifest) });
    this.files.set(`/releases/${version}/desk-${version}.img`, { body: image });
    return { image, manifest };
  }
}

/**
 * Restarts the device as its bootloader would (ESP-IDF with rollback): a
 * pending-verify boot slot is aborted and the other slot boots; a new one
 * boots pending-verify. The build version is read from the booted image.
 */
export function restart(previous: MemHal, reason: ResetReason): MemHal {
  const flash = previous.flash;
  let slot = flash.boot;
  if (flash.states[slot] === 'pending-verify') {
    flash.states[slot] = 'aborted';
    slot = (slot ^ 1) as 0 | 1;
    flash.boot = slot;
  } else if (flash.states[slot] === 'new') flash.states[slot] = 'pending-verify';
  flash.running = slot;
  const next = rebootMemHal(previous, reason);
  const version = imageVersion(flash.slots[slot]) ?? previous.hal.build.version;
  next.hal = { ...next.hal, build: { ...next.hal.build, version } };
  return next;
}
