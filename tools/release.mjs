#!/usr/bin/env node
// The release tool: signs a built firmware image and lays out an update base
// folder (spec: Firmware manifest (schema 2), Versioning 1-6):
//
//   <out>/<version>/desk-<version>.img   the image (one file for every type:
//                                        the simulator image runs on all four)
//   <out>/<version>/manifest.json        schema 2, one variant per device type
//   <out>/latest/manifest.json           the same, unless the version is -rcN
//                                        (pre-releases never move latest)
//   <out>/<version>/<type>.spdx.json,    for a device image, each type's licence
//   <out>/<version>/<type>.NOTICE.txt,   inventory (tools/licenses.mjs, from the
//   <out>/<version>/licenses/            type's npm run build:device): refused
//                                        when one is not shippable (docs/licenses.md)
//
// Each variant's sig is ECDSA P-256 over SHA-256 of the signed message
// ('desk-ota-v2', version, type, sha256 hex, each + newline), DER, base64.
// The version must equal the one stamped into the image (Versioning 1).
//
// Usage:
//   node tools/release.mjs --image build/fw/firmware.img --version v1.2.0 \
//        --key signing.pem --out updates/ [--notes TEXT | --notes-file F]
//        [--types ring-tft,panel-28,panel-35,panel-40] [--base-url URL] [--schema 1]
//   node tools/release.mjs --new-key FILE     make a key pair (for rotation)
//   node tools/release.mjs --public-key FILE  print a key's public hex for src/ota/keys.ts
// The key may also come from the environment: OTA_SIGNING_KEY (PEM text).
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { inventory as licenseInventory, problems as licenseProblems, writeLicenseDocuments } from './licenses.mjs';
import { loadSigningKey, publicKeyHex, signVariant } from './ota-sign.mjs';
import { makeSigningKey } from './test-keys.mjs';

export const DEVICE_TYPES = ['ring-tft', 'panel-28', 'panel-35', 'panel-40'];
/** The app slot size (partitions.csv: two 6.5 MB slots). */
export const SLOT_BYTES = 0x680000;
const VERSION_RE = /^v(0|[1-9]\d{0,8})\.(0|[1-9]\d{0,8})\.(0|[1-9]\d{0,8})(-rc(0|[1-9]\d{0,8}))?$/;

/**
 * The version stamped into an image: the simulator's DSKIMG01 header, or an
 * ESP-IDF app image's esp_app_desc_t (magic 0xABCD5432 at byte 32, version at 48).
 */
export function imageVersion(bytes) {
  if (bytes.length >= 16 && bytes.toString('latin1', 0, 8) === 'DSKIMG01') {
    const n = bytes.readUInt32LE(8);
    try {
      return JSON.parse(bytes.toString('utf8', 16, 16 + n)).version ?? null;
    } catch {
      return null;
    }
  }
  if (bytes.length >= 80 && bytes[0] === 0xe9 && bytes.readUInt32LE(32) === 0xabcd5432) {
    return bytes.toString('latin1', 48, 80).replace(/\0.*$/s, '');
  }
  return null;
}

/** An ESP-IDF app image (a device build), as opposed to the simulator's DSKIMG01 image. */
export function isDeviceImage(bytes) {
  return bytes.length >= 80 && bytes[0] === 0xe9 && bytes.readUInt32LE(32) === 0xabcd5432;
}

function writeAtomic(path, data) {
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, data);
  renameSync(tmp, path);
}

/**
 * Signs `image` as `version` and writes the release into `out`. Returns the
 * manifest. Throws with a clear message on bad input (nothing is written then).
 * licenses: the inventory of a type (tools/licenses.mjs); by default a device
 * image's, and none for the simulator's image, which no device runs.
 */
export function release({ image, version, keyPem, out, notes = '', types = DEVICE_TYPES, baseUrl = null, schema = 2, licenses = undefined }) {
  if (!VERSION_RE.test(version)) throw new Error(`version ${version} is not vX.Y.Z or vX.Y.Z-rcN`);
  if (schema !== 1 && schema !== 2) throw new Error('schema is 1 (the transition release) or 2');
  const unknown = types.filter((t) => !DEVICE_TYPES.includes(t));
  if (unknown.length || !types.length) throw new Error(`unknown device types: ${unknown.join(', ') || '(none)'}; known: ${DEVICE_TYPES.join(', ')}`);
  const bytes = readFileSync(image);
  const stamped = imageVersion(bytes);
  if (stamped !== version) throw new Error(`the image says ${stamped ?? 'no version'}, the release is ${version}: a release tag must equal the firmware version`);
  if (bytes.length > SLOT_BYTES) throw new Error(`the image (${bytes.length} bytes) does not fit a ${SLOT_BYTES}-byte slot`);
  // A device image ships with each type's licence documents; the inventories are made (and judged) before anything is written.
  const inventoryOf = licenses === undefined ? (isDeviceImage(bytes) ? licenseInventory : null) : licenses;
  const inventories = inventoryOf ? types.map((t) => inventoryOf(t)) : [];
  for (const inv of inventories) {
    const wrong = licenseProblems(inv);
    if (wrong.length) throw new Error(`the ${inv.board} image cannot ship (docs/licenses.md): ${wrong.join('; ')}`);
  }
  const { secret } = loadSigningKey(keyPem);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const file = `desk-${version}.img`;
  const url = baseUrl ? `${baseUrl.replace(/\/+$/, '')}/${version}/${file}` : `../${version}/${file}`;
  const variants = {};
  for (const t of types) variants[t] = { url, size: bytes.length, sha256, sig: signVariant(secret, schema, version, t, sha256) };
  const manifest = { schema, version, notes, variants };
  const dir = join(out, version);
  mkdirSync(dir, { recursive: true });
  copyFileSync(image, join(dir, file));
  for (const inv of inventories) writeLicenseDocuments(inv, dir, { version });
  const text = JSON.stringify(manifest, null, 2) + '\n';
  writeAtomic(join(dir, 'manifest.json'), text);
  if (!/-rc\d+$/.test(version)) {
    mkdirSync(join(out, 'latest'), { recursive: true });
    writeAtomic(join(out, 'latest', 'manifest.json'), text);
  }
  return manifest;
}

function main() {
  const { values } = parseArgs({
    options: {
      image: { type: 'string' },
      version: { type: 'string' },
      key: { type: 'string' },
      out: { type: 'string' },
      notes: { type: 'string' },
      'notes-file': { type: 'string' },
      types: { type: 'string' },
      'base-url': { type: 'string' },
      schema: { type: 'string' },
      'new-key': { type: 'string' },
      'public-key': { type: 'string' },
    },
  });
  if (values['new-key']) {
    if (existsSync(values['new-key'])) throw new Error(`${values['new-key']} exists: not overwriting a key`);
    const pem = makeSigningKey(resolve(values['new-key']));
    console.log(`wrote ${values['new-key']} (keep it secret; never commit it)\npublic key for src/ota/keys.ts: ${publicKeyHex(pem)}`);
    return;
  }
  if (values['public-key']) {
    console.log(publicKeyHex(readFileSync(values['public-key'], 'utf8')));
    return;
  }
  const keyPem = values.key ? readFileSync(values.key, 'utf8') : process.env.OTA_SIGNING_KEY;
  if (!values.image || !values.version || !values.out || !keyPem) {
    throw new Error('usage: release.mjs --image IMG --version vX.Y.Z --key KEY.pem (or OTA_SIGNING_KEY) --out DIR [--notes TEXT|--notes-file F] [--types a,b] [--base-url URL] [--schema 1|2]');
  }
  const notes = values['notes-file'] ? readFileSync(values['notes-file'], 'utf8').trim() : (values.notes ?? '');
  const manifest = release({
    image: values.image,
    version: values.version,
    keyPem,
    out: values.out,
    notes,
    types: values.types ? values.types.split(',').map((t) => t.trim()) : DEVICE_TYPES,
    baseUrl: values['base-url'] ?? null,
    schema: values.schema ? Number(values.schema) : 2,
  });
  const latest = /-rc\d+$/.test(manifest.version) ? ' (pre-release: latest unchanged)' : ' and latest/';
  console.log(`released ${manifest.version} for ${Object.keys(manifest.variants).join(', ')} into ${values.out}/${manifest.version}/${latest}`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    main();
  } catch (e) {
    console.error(`release: ${e.message}`);
    process.exit(1);
  }
}

