#!/usr/bin/env node
// The licence inventory of a board's device image (issue 38, item 2), made
// from what the build says the image is made of:
//
// - the makefile the Moddable SDK's mcconfig wrote for the board (npm run
//   build:device): every JavaScript module xsc compiles, every C file it
//   compiles, every resource, XS itself and the platform's C, each with the
//   source path it comes from;
// - build/device/<type>/inputs.json (tools/build-device.mjs): every file
//   esbuild bundled into firmware.js (src/, hosts/esp32/, node_modules/), the
//   web page's sources and the documentation the image embeds;
// - ESP-IDF, which every device image links (declared: it is not installed
//   on the build machines, the C link happens where it is).
//
// Each input is filed under the closest declaration of licenses/components.mjs;
// a file of the SDK is also checked against its own header. The result is
// written as an SPDX 2.3 JSON document and a NOTICE, with the licence texts
// they name (tools/release.mjs puts them beside each signed image).
//
//   node tools/licenses.mjs --board panel-35 [--out DIR]   (after npm run build:device)
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import parseSpdx from 'spdx-expression-parse';
import spdxFull from 'spdx-license-list/full.js';
import { COMPONENTS, EXTRACTED } from '../licenses/components.mjs';
import { ASSETS } from './assets.mjs';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DEVICE_OUT = join(ROOT, 'build/device');
const SDK_PLATFORM = ['esp32', 'esp32s3']; // tools/build-device.mjs's SDK_PLATFORM_DIRS
const TOOL = 'desk-assistant-licenses-1';

/** The folder mcconfig wrote a board's makefile in (as tools/build-device.mjs's makefileDir). */
export function makefileDirOf(board, outRoot = DEVICE_OUT) {
  return join(outRoot, board, 'sdk', 'tmp', ...SDK_PLATFORM, 'release', board);
}

/** Where XS and the platform keep the C the makefile names by object only. */
const XS_SOURCE_DIRS = ['xs/sources', 'xs/platforms/esp', 'xs/platforms/mc', 'build/devices/esp32/lib/pow'];
/** Files mcconfig and xsl write from the modules they link: derived, listed with what they derive from. */
const GENERATED = new Set(['mc.xs.c', 'mc.resources.c', 'mc.bleservices.c', 'buildinfo.c']);

/**
 * Every file a board's image is made of: { root: 'sdk' | 'repo', rel, how }.
 * Throws when the board has not been built (npm run build:device -- --board <type>).
 */
export function imageInputs(board, { outRoot = DEVICE_OUT, root = ROOT } = {}) {
  const mdir = makefileDirOf(board, outRoot);
  const boardOut = join(outRoot, board);
  if (!existsSync(join(mdir, 'makefile')) || !existsSync(join(boardOut, 'inputs.json')))
    throw new Error(`${board} is not built: npm run build:device -- --board ${board} (needs the Moddable SDK)`);
  const makefile = readFileSync(join(mdir, 'makefile'), 'utf8');
  const sdk = /^MODDABLE = (.+)$/m.exec(makefile)?.[1].trim();
  if (!sdk) throw new Error(`${mdir}/makefile names no MODDABLE`);
  const out = [];
  const unplaced = [];
  const seen = new Set();
  const add = (abs, how) => {
    const file = place(abs, { sdk, root, boardOut, mdir });
    if (!file) return void unplaced.push({ path: abs, how });
    for (const f of file) {
      const key = `${f.root}:${f.rel}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ ...f, how });
    }
  };
  const rules = new Map();
  for (const m of makefile.matchAll(/^\$\((MODULES_DIR|TMP_DIR|RESOURCES_DIR|DATA_DIR)\)\/(\S+?): (\/\S+)/gm)) {
    rules.set(m[2], m[3]);
    add(m[3], m[1] === 'MODULES_DIR' ? 'module' : m[1] === 'TMP_DIR' ? 'C' : 'resource');
  }
  for (const m of makefile.matchAll(/^\$\(PROJ_DIR\)\/main\/\S+: .*\$\(BUILD_DIR\)\/(\S+)$/gm)) add(join(sdk, 'build', m[1]), 'platform');
  for (const m of makefile.matchAll(/\$\((?:TMP_DIR|LIB_DIR)\)\/([A-Za-z0-9_.-]+\.c)\.o\b/g)) {
    const name = m[1];
    if (rules.has(`${name}.xsi`) || GENERATED.has(name)) continue;
    const dir = XS_SOURCE_DIRS.find((d) => existsSync(join(sdk, d, name)));
    if (dir) add(join(sdk, dir, name), 'XS');
    else unplaced.push({ path: name, how: 'object with no source found' });
  }
  return { board, sdk, files: out, unplaced };
}

/** Where one input of the makefile comes from: files of the SDK or this repository (a bundle expands to its inputs). */
function place(abs, { sdk, root, boardOut, mdir }) {
  const within = (dir) => abs === dir || abs.startsWith(dir + sep);
  if (within(boardOut) && !within(join(boardOut, 'sdk'))) {
    const rel = relative(boardOut, abs);
    if (rel === 'firmware.js') {
      const inputs = JSON.parse(readFileSync(join(boardOut, 'inputs.json'), 'utf8'));
      return [...inputs.firmware, ...inputs.webPage, ...inputs.docs].filter((f) => !f.startsWith('<')).map((f) => ({ root: 'repo', rel: f }));
    }
    // The trusted roots as DER (tools/ca-store.mjs from src/net/ca-roots.ts); the GATT table (tools/gatt-json.mjs).
    if (rel.startsWith(`tls${sep}`)) return [{ root: 'repo', rel: 'src/net/ca-roots.ts' }];
    if (rel.startsWith(`bleservices${sep}`)) return [{ root: 'repo', rel: 'src/notifier/gatt.ts' }];
    // The image's read-only data (tools/assets.mjs): filed under what each asset is made from.
    if (rel === 'assets.bin') return ASSETS.filter((a) => a.pack === 'image').flatMap((a) => a.sources.map((s) => ({ root: 'repo', rel: s })));
    return null;
  }
  // mcconfig's own config module: the manifests' "config" (the boards', the SDK target's).
  if (within(mdir)) return [{ root: 'repo', rel: 'boards/' }];
  if (within(sdk)) return [{ root: 'sdk', rel: relative(sdk, abs) }];
  if (within(root)) return [{ root: 'repo', rel: relative(root, abs) }];
  return null;
}

/** The declaration whose path matches most closely (a file path beats a folder), or null. */
export function declarationOf(file, components = COMPONENTS) {
  let best = null;
  let bestLen = -1;
  for (const c of components) {
    if (c.root !== file.root) continue;
    for (const p of c.paths) {
      const hit = p.endsWith('/') ? file.rel.startsWith(p) || `${file.rel}/` === p : file.rel === p;
      if (hit && p.length > bestLen) {
        best = c;
        bestLen = p.length;
      }
    }
  }
  return best;
}

/** The licences a source file's header states (SPDX ids), from its first lines. */
export function headerLicenses(text) {
  const head = text.slice(0, 6000);
  const found = new Set();
  for (const m of head.matchAll(/SPDX-License-Identifier:\s*([A-Za-z0-9.+-]+)/g)) found.add(m[1]);
  if (/GNU Lesser General Public License/.test(head)) found.add(/version 3/.test(head) && /any later version/.test(head) ? 'LGPL-3.0-or-later' : 'LGPL');
  else if (/GNU General Public License/.test(head)) {
    const later = /any later version/.test(head);
    found.add(/version 2/.test(head) ? (later ? 'GPL-2.0-or-later' : 'GPL-2.0-only') : later ? 'GPL-3.0-or-later' : 'GPL-3.0-only');
  }
  if (/Apache License/.test(head)) found.add('Apache-2.0');
  if (/Creative Commons Attribution 4\.0/.test(head)) found.add('CC-BY-4.0');
  if (/Permission is hereby granted, free of charge/.test(head)) found.add('MIT');
  if (/Stichting Mathematisch Centrum/.test(head) && /Permission to use, copy, modify, and distribute/.test(head)) found.add('LicenseRef-CWI-Permission-Notice');
  if (/Sun Microsystems/.test(head) && /Permission to use, copy, modify, and distribute this[\s*]+software is freely granted/.test(head)) found.add('SunPro');
  return found;
}

/** The licence ids of an SPDX expression (NOASSERTION: none). */
export function licenseIds(expression) {
  if (expression === 'NOASSERTION' || expression === 'NONE') return new Set();
  const ids = new Set();
  const walk = (n) => {
    if (n.license) ids.add(n.license.replace(/\+$/, '') + (n.plus ? '+' : ''));
    if (n.left) walk(n.left);
    if (n.right) walk(n.right);
  };
  walk(parseSpdx(expression));
  return ids;
}

const GPL = /^(A?GPL-[0-9.]+)/;

/** True when every way to satisfy the expression takes a GPL licence (GPL or AGPL, not LGPL). */
export function gplOnly(expression) {
  if (expression === 'NOASSERTION' || expression === 'NONE') return false;
  const free = (n) => (n.license ? !GPL.test(n.license) : n.conjunction === 'and' ? free(n.left) && free(n.right) : free(n.left) || free(n.right));
  return !free(parseSpdx(expression));
}

/** The inventory of a board's image: each declared component with its files, and everything that does not fit. */
export function inventory(board, options = {}) {
  const { sdk, files, unplaced } = imageInputs(board, options);
  const root = options.root ?? ROOT;
  const packages = new Map();
  const unlisted = [...unplaced];
  const headerProblems = [];
  for (const f of files) {
    const decl = declarationOf(f);
    if (!decl) {
      unlisted.push({ path: `${f.root}:${f.rel}`, how: f.how });
      continue;
    }
    const p = packages.get(decl.id) ?? { decl, files: [], found: new Map() };
    packages.set(decl.id, p);
    p.files.push(f.rel);
    if (!decl.headers) continue;
    const abs = join(f.root === 'sdk' ? sdk : root, f.rel);
    if (!/\.(c|h|js|ts|json)$/.test(f.rel) || !existsSync(abs)) continue;
    const stated = headerLicenses(readFileSync(abs, 'utf8'));
    for (const l of stated) p.found.set(l, (p.found.get(l) ?? 0) + 1);
    const allowed = licenseIds(decl.license);
    if (!stated.size && !(decl.unlabelled ?? []).includes(f.rel)) headerProblems.push({ file: `sdk:${f.rel}`, component: decl.id, problem: 'no licence in its header (review it, then list it in the declaration\'s unlabelled)' });
    for (const l of stated) if (!allowed.has(l)) headerProblems.push({ file: `sdk:${f.rel}`, component: decl.id, problem: `its header says ${l}, the declaration ${decl.license}` });
  }
  for (const decl of COMPONENTS) if (decl.root === 'idf') packages.set(decl.id, { decl, files: [], found: new Map() });
  for (const p of packages.values()) {
    if (!p.decl.npm) continue;
    const pkg = JSON.parse(readFileSync(join(root, 'node_modules', p.decl.npm, 'package.json'), 'utf8'));
    p.version = pkg.version;
    if (pkg.license !== p.decl.license) headerProblems.push({ file: `node_modules/${p.decl.npm}/package.json`, component: p.decl.id, problem: `its licence field says ${pkg.license}, the declaration ${p.decl.license}` });
  }
  const list = [...packages.values()].sort((a, b) => COMPONENTS.indexOf(a.decl) - COMPONENTS.indexOf(b.decl));
  const inv = { board, sdk, packages: list, unlisted, headerProblems, gplOnly: list.filter((p) => gplOnly(p.decl.license)).map((p) => p.decl.id), missingTexts: [] };
  for (const p of list) for (const t of p.decl.texts) if (textOf(t, inv, root) === null) inv.missingTexts.push(`${p.decl.id}: ${t.join(':')}`);
  return inv;
}

/** The project's own licence, as package.json declares it. */
function projectLicense(root = ROOT) {
  return JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).license;
}

const spdxId = (id) => `SPDXRef-Package-${id.replace(/[^A-Za-z0-9.-]/g, '-')}`;

/** The text of a licence reference: a file, a header comment, or the SPDX list's text. */
function textOf([where, path], inv, root = ROOT) {
  if (where === 'spdx') return spdxFull[path]?.licenseText ?? null;
  if (where === 'header') return /\/\*+([\s\S]*?)\*+\//.exec(readFileSync(join(inv.sdk, path), 'utf8'))?.[1].replace(/^\s*\*? ?/gm, '').trim() ?? null;
  const abs = join(where === 'sdk' ? inv.sdk : root, path);
  return existsSync(abs) ? readFileSync(abs, 'utf8') : null;
}

/** The file name a licence text is shipped under. */
function textName([where, path]) {
  const name = where === 'spdx' ? path : `${where}-${path.replace(/[/\\]/g, '_')}`;
  return name.endsWith('.txt') ? name : `${name}.txt`;
}

/** The SPDX 2.3 document of a board's image. */
export function spdxDocument(inv, { version, created = new Date(), root = ROOT } = {}) {
  const stamp = created.toISOString().replace(/\.\d{3}Z$/, 'Z');
  const image = `SPDXRef-Image-${inv.board}`;
  const digest = createHash('sha256')
    .update(JSON.stringify(inv.packages.map((p) => [p.decl.id, p.files])))
    .digest('hex')
    .slice(0, 16);
  const extracted = new Set();
  const packages = [
    {
      SPDXID: image,
      name: `desk-assistant-firmware-${inv.board}`,
      versionInfo: version,
      supplier: 'Organization: Desk Assistant firmware authors',
      downloadLocation: 'NOASSERTION',
      filesAnalyzed: false,
      licenseConcluded: 'NOASSERTION',
      licenseDeclared: 'NOASSERTION',
      copyrightText: 'NOASSERTION',
      primaryPackagePurpose: 'FIRMWARE',
      comment: `The ${inv.board} device image: one executable linking every package below (see the NOTICE beside it).`,
    },
  ];
  for (const p of inv.packages) {
    const d = p.decl;
    const license = d.id === 'firmware' ? `LicenseRef-Desk-Assistant-Proprietary` : d.license;
    for (const id of licenseIds(license)) if (id.startsWith('LicenseRef-')) extracted.add(id);
    packages.push({
      SPDXID: spdxId(d.id),
      name: d.name,
      versionInfo: p.version ?? d.version ?? version,
      ...(d.supplier ? { supplier: d.supplier } : {}),
      downloadLocation: d.homepage ?? 'NOASSERTION',
      ...(d.homepage ? { homepage: d.homepage } : {}),
      filesAnalyzed: false,
      licenseConcluded: license,
      licenseDeclared: license,
      copyrightText: d.copyright ?? 'NOASSERTION',
      primaryPackagePurpose: d.root === 'idf' ? 'OPERATING-SYSTEM' : 'LIBRARY',
      sourceInfo:
        d.root === 'idf'
          ? 'linked into every ESP32 device image by the Moddable SDK\'s esp32 platform; declared from ESP-IDF docs/en/COPYRIGHT.rst (not read here: ESP-IDF is not installed on the build machine)'
          : `${p.files.length} files from ${d.root === 'sdk' ? 'the Moddable SDK' : 'this repository'}${[...p.found.keys()].length ? `; licences stated in their headers: ${[...p.found].map(([l, n]) => `${l} (${n})`).join(', ')}` : ''}`,
      ...(d.note ? { comment: d.note } : {}),
    });
  }
  const hasExtractedLicensingInfos = [...extracted].sort().map((id) => {
    const e = EXTRACTED[id];
    const text = e.text ?? textOf(e.file, inv, root) ?? `see ${e.file.join(':')}`;
    return { licenseId: id, name: e.name, extractedText: text };
  });
  return {
    spdxVersion: 'SPDX-2.3',
    dataLicense: 'CC0-1.0',
    SPDXID: 'SPDXRef-DOCUMENT',
    name: `desk-assistant-firmware-${inv.board}-${version}`,
    documentNamespace: `https://spdx.org/spdxdocs/desk-assistant-firmware-${inv.board}-${version}-${digest}`,
    creationInfo: { created: stamp, creators: [`Tool: ${TOOL}`, 'Organization: Desk Assistant firmware authors'] },
    documentDescribes: [image],
    packages,
    relationships: [
      { spdxElementId: 'SPDXRef-DOCUMENT', relationshipType: 'DESCRIBES', relatedSpdxElement: image },
      ...inv.packages.map((p) => ({ spdxElementId: image, relationshipType: 'CONTAINS', relatedSpdxElement: spdxId(p.decl.id) })),
    ],
    ...(hasExtractedLicensingInfos.length ? { hasExtractedLicensingInfos } : {}),
  };
}

/** The human-readable NOTICE of a board's image. */
export function noticeText(inv, { version, root = ROOT } = {}) {
  const lines = [
    `Desk assistant firmware ${version} for ${inv.board}: licences and notices`,
    '',
    'This image is one executable made of the components below. The firmware\'s own code is licensed under',
    `the terms in licenses/${textName(['repo', 'LICENSE.md'])} (package.json: ${projectLicense(root)}); every other component`,
    'is under its own licence, named with it, whose text is in the licenses/ folder beside this file.',
    '',
    'The Moddable SDK runtime is licensed under the GNU LGPL 3.0. You may obtain the object files of this',
    'firmware, with the build files to relink them with a modified version of the SDK runtime, and install',
    'the result on your device over USB, as docs/licenses.md of the firmware\'s source describes; this offer',
    'is valid for three years from the date of this release. You may modify the firmware\'s LGPL parts for your',
    'own use and reverse engineer the firmware to debug such modifications.',
    '',
  ];
  for (const p of inv.packages) {
    const d = p.decl;
    lines.push(`* ${d.name}${p.version ?? d.version ? ` ${p.version ?? d.version}` : ''}`);
    lines.push(`  Licence: ${d.id === 'firmware' ? `${projectLicense(root)} (LicenseRef-Desk-Assistant-Proprietary)` : d.license}`);
    if (d.copyright) lines.push(`  ${d.copyright}`);
    if (d.homepage) lines.push(`  ${d.homepage}`);
    if (d.texts.length) lines.push(`  Licence text: ${d.texts.map((t) => `licenses/${textName(t)}`).join(', ')}`);
    if (d.note) lines.push(`  Note: ${d.note}`);
    lines.push('');
  }
  const notice = inv.packages.some((p) => p.decl.texts.some(([w, f]) => w === 'sdk' && f === 'licenses/NOTICE'));
  if (notice) lines.push('The NOTICE of XS (Marvell\'s licence grant, Apache License 2.0), as the Moddable SDK carries it:', '', textOf(['sdk', 'licenses/NOTICE'], inv, root)?.trim() ?? '', '');
  return lines.join('\n') + '\n';
}

/** Writes <dir>/<board>.spdx.json, <dir>/<board>.NOTICE.txt and <dir>/licenses/*.txt; returns their paths. */
export function writeLicenseDocuments(inv, dir, { version, created, root = ROOT } = {}) {
  mkdirSync(join(dir, 'licenses'), { recursive: true });
  const spdx = join(dir, `${inv.board}.spdx.json`);
  const notice = join(dir, `${inv.board}.NOTICE.txt`);
  writeFileSync(spdx, JSON.stringify(spdxDocument(inv, { version, created, root }), null, 2) + '\n');
  writeFileSync(notice, noticeText(inv, { version, root }));
  const texts = [];
  for (const p of inv.packages) {
    for (const t of p.decl.texts) {
      const text = textOf(t, inv, root);
      if (text === null) throw new Error(`${p.decl.id}: no licence text at ${t.join(':')}`);
      const to = join(dir, 'licenses', textName(t));
      writeFileSync(to, text.endsWith('\n') ? text : `${text}\n`);
      texts.push(to);
    }
  }
  return { spdx, notice, texts: [...new Set(texts)] };
}

/** What must be fixed before an image may ship: unlisted inputs, header disagreements, GPL-only components, missing licence texts. */
export function problems(inv) {
  return [
    ...inv.unlisted.map((u) => `not in licenses/components.mjs: ${u.path} (${u.how})`),
    ...inv.headerProblems.map((h) => `${h.file} (${h.component}): ${h.problem}`),
    ...inv.gplOnly.map((id) => `GPL-only component in the image: ${id}`),
    ...inv.missingTexts.map((t) => `no licence text at ${t}`),
  ];
}

async function main() {
  const { values } = parseArgs({ options: { board: { type: 'string' }, out: { type: 'string' }, version: { type: 'string' } } });
  if (!values.board) throw new Error('usage: licenses.mjs --board <type> [--out DIR] [--version vX.Y.Z]');
  const { firmwareVersion } = await import('./build.mjs');
  const version = values.version ?? firmwareVersion();
  const inv = inventory(values.board);
  const dir = values.out ?? join(DEVICE_OUT, values.board, 'licenses');
  const written = writeLicenseDocuments(inv, dir, { version });
  for (const p of inv.packages) console.log(`  ${p.decl.id}: ${p.decl.license}${p.files.length ? ` (${p.files.length} files)` : ''}`);
  console.log(`licenses: ${values.board}: ${inv.packages.length} components; ${relative(ROOT, written.spdx)}, ${relative(ROOT, written.notice)}, ${written.texts.length} licence texts`);
  const wrong = problems(inv);
  for (const w of wrong) console.log(`licenses: ${values.board}: ${w}`);
  if (wrong.length) process.exitCode = 1;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    await main();
  } catch (e) {
    console.error(`licenses: ${e.message}`);
    process.exit(1);
  }
}
