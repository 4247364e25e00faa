// The licence inventory (tools/licenses.mjs, licenses/components.mjs) on a
// made-up SDK tree and build, so it runs without the Moddable SDK: every input
// of the image is filed under a declaration or reported as unlisted, an SDK
// file's header is held to its declaration, a GPL-only component is found, and
// the inventory follows the code: the image of today (libmad linked) and the
// image once minimp3 replaces it (libmad gone, minimp3 listed). The SPDX
// document's licence fields parse as SPDX expressions (spdx-expression-parse)
// of ids on the SPDX list (spdx-license-list); the official SPDX 2.3 JSON
// schema is used when a package here carries it. tools/release.mjs writes the
// documents beside a device image and refuses one that cannot ship. What the
// real SDK build links, per board: test/unit/device-sdk.test.ts.

import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import parseSpdx from 'spdx-expression-parse';
import spdxList from 'spdx-license-list';
import { COMPONENTS } from '../../licenses/components.mjs';
import { declarationOf, gplOnly, headerLicenses, inventory, licenseIds, noticeText, problems, ROOT, spdxDocument } from '../../tools/licenses.mjs';
import { release } from '../../tools/release.mjs';
import { ensureTestSigningKey } from '../../tools/test-keys.mjs';

const tmp = mkdtempSync(join(tmpdir(), 'licenses-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const LGPL = '/*\n *   This file is part of the Moddable SDK Runtime.\n *   it under the terms of the GNU Lesser General Public License as published by\n *   the Free Software Foundation, either version 3 of the License, or\n *   (at your option) any later version.\n */\n';
const LGPL_APACHE = `${LGPL}/*\n *       Copyright (C) 2010-2016 Marvell International Ltd.\n *       Licensed under the Apache License, Version 2.0 (the "License");\n */\n`;
const GPL2 = '/*\n * This program is free software; you can redistribute it and/or modify\n * it under the terms of the GNU General Public License as published by\n * the Free Software Foundation; either version 2 of the License, or\n * (at your option) any later version.\n */\n';

function put(path: string, text: string): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
}

/** A made-up SDK and a board's build outputs: the makefile's rules name the sources, inputs.json the bundle's. */
function fixture(name: string, { mp3, extraSdk = [], extraRepo = [] }: { mp3: 'libmad' | 'minimp3' | 'none'; extraSdk?: Array<[string, string]>; extraRepo?: string[] }) {
  const sdk = join(tmp, name, 'moddable');
  const out = join(tmp, name, 'device');
  const board = 'panel-35';
  const files: Array<[string, string]> = [
    ['modules/base/timer/timer.js', LGPL],
    ['modules/base/timer/modTimer.c', LGPL],
    ['xs/sources/xsAll.c', LGPL_APACHE],
    ['modules/crypt/digest/kcl/fips180.c', LGPL_APACHE],
    ['licenses/lgpl-3.0.txt', 'GNU LESSER GENERAL PUBLIC LICENSE\n'],
    ['licenses/gpl-3.0.txt', 'GNU GENERAL PUBLIC LICENSE\n'],
    ['licenses/NOTICE', 'Marvell grants ... Apache License 2.0\n'],
    ...(mp3 === 'libmad' ? ([['modules/data/mp3/libmad/layer3.c', GPL2], ['modules/data/mp3/libmad/COPYING', 'GPL 2\n']] as Array<[string, string]>) : []),
    ...extraSdk,
  ];
  for (const [rel, text] of files) put(join(sdk, rel), text);
  const rules = files.filter(([rel]) => /\.(c|js)$/.test(rel)).map(([rel]) => (rel.endsWith('.js') ? `$(MODULES_DIR)/${rel.split('/').pop()!.replace('.js', '.xsb')}: ${join(sdk, rel)}` : `$(TMP_DIR)/${rel.split('/').pop()}.xsi: ${join(sdk, rel)}`));
  if (mp3 === 'minimp3') rules.push(`$(TMP_DIR)/xs_mp3.c.xsi: ${join(ROOT, 'modules/mp3/xs_mp3.c')}`, `$(TMP_DIR)/minimp3.h.xsi: ${join(ROOT, 'modules/mp3/minimp3/minimp3.h')}`);
  rules.push(`$(MODULES_DIR)/firmware.xsb: ${join(out, board, 'firmware.js')}`, `$(RESOURCES_DIR)/ca1.der: ${join(out, board, 'tls/ca1.der')}`);
  const mdir = join(out, board, 'sdk/tmp/esp32/esp32s3/release', board);
  put(join(mdir, 'makefile'), `MODDABLE = ${sdk}\n\nXS_OBJ = \\\n\t$(LIB_DIR)/xsAll.c.o\n\n${rules.join('\n\t@echo\n')}\n`);
  put(join(out, board, 'inputs.json'), JSON.stringify({ firmware: ['<define:__DOCS_PACK__>', 'src/main.ts', 'hosts/esp32/entry.ts', 'node_modules/@noble/hashes/sha2.js', ...extraRepo], webPage: ['src/web/page/main.ts'], docs: ['README.md', 'docs/licenses.md'] }));
  return { sdk, out, board };
}

describe('the licence inventory of an image', () => {
  it('files an input under the closest declaration, and reads what a header says', () => {
    expect(declarationOf({ root: 'sdk', rel: 'modules/data/mp3/libmad/layer3.c' })?.id).toBe('libmad');
    expect(declarationOf({ root: 'sdk', rel: 'modules/data/mp3/mp3.c' })?.id).toBe('moddable-runtime');
    expect(declarationOf({ root: 'sdk', rel: 'modules/crypt/etc/x509.c' })?.id).toBe('moddable-xs');
    expect(declarationOf({ root: 'sdk', rel: 'modules/drivers/neopixel/neopixel.js' })?.id).toBe('moddable-neopixel');
    expect(declarationOf({ root: 'repo', rel: 'src/net/ca-roots.ts' })?.id).toBe('mozilla-ca-roots');
    expect(declarationOf({ root: 'repo', rel: 'src/main.ts' })?.id).toBe('firmware');
    expect(declarationOf({ root: 'repo', rel: 'modules/mp3/minimp3/minimp3.h' })?.id).toBe('minimp3');
    expect(declarationOf({ root: 'repo', rel: 'node_modules/left-pad/index.js' })).toBeNull();
    expect([...headerLicenses(LGPL_APACHE)]).toEqual(['LGPL-3.0-or-later', 'Apache-2.0']);
    expect([...headerLicenses(GPL2)]).toEqual(['GPL-2.0-or-later']);
    expect([...headerLicenses('/*\n * SPDX-License-Identifier: Apache-2.0\n */')]).toEqual(['Apache-2.0']);
    expect(headerLicenses('int main(void) { return 0; }').size).toBe(0);
  });

  it('tells a GPL-only licence from one that can be met without the GPL', () => {
    expect(gplOnly('GPL-3.0-or-later')).toBe(true);
    expect(gplOnly('MIT AND GPL-2.0-only')).toBe(true);
    expect(gplOnly('LGPL-3.0-or-later AND Apache-2.0')).toBe(false);
    expect(gplOnly('Apache-2.0 OR GPL-2.0-or-later')).toBe(false);
    expect(gplOnly('NOASSERTION')).toBe(false);
    expect([...licenseIds('LGPL-3.0-or-later AND Apache-2.0')]).toEqual(['LGPL-3.0-or-later', 'Apache-2.0']);
  });

  it('today\'s image: libmad is linked and GPL-only; an input no declaration names and a header with no licence are reported', () => {
    const f = fixture('today', { mp3: 'libmad', extraSdk: [['modules/drivers/mystery/mystery.c', '// no header\n']], extraRepo: ['vendor/unknown/lib.js'] });
    const inv = inventory(f.board, { outRoot: f.out });
    const ids = inv.packages.map((p) => p.decl.id);
    expect(ids).toEqual(expect.arrayContaining(['firmware', 'noble-hashes', 'mozilla-ca-roots', 'moddable-runtime', 'moddable-xs', 'libmad', 'esp-idf', 'lwip']));
    expect(ids).not.toContain('minimp3');
    expect(inv.gplOnly).toEqual(['libmad']);
    expect(inv.unlisted).toEqual([{ path: 'repo:vendor/unknown/lib.js', how: 'module' }]);
    expect(inv.headerProblems).toEqual([expect.objectContaining({ file: 'sdk:modules/drivers/mystery/mystery.c', component: 'moddable-runtime' })]);
    expect(problems(inv)).toEqual([
      'not in licenses/components.mjs: repo:vendor/unknown/lib.js (module)',
      expect.stringMatching(/^sdk:modules\/drivers\/mystery\/mystery\.c \(moddable-runtime\): no licence in its header/),
      'GPL-only component in the image: libmad',
    ]);
    // the bundle's files are expanded from inputs.json; the DER roots are Mozilla's
    expect(inv.packages.find((p) => p.decl.id === 'firmware')!.files).toEqual(expect.arrayContaining(['src/main.ts', 'hosts/esp32/entry.ts', 'src/web/page/main.ts', 'README.md', 'docs/licenses.md']));
    expect(inv.packages.find((p) => p.decl.id === 'moddable-xs')!.found).toEqual(new Map([['LGPL-3.0-or-later', 2], ['Apache-2.0', 2]]));
  });

  it('a header that says another licence than its declaration is reported', () => {
    const f = fixture('mislabelled', { mp3: 'minimp3', extraSdk: [['modules/base/timer/timer-gpl.js', GPL2.replace('version 2', 'version 3')]] });
    const inv = inventory(f.board, { outRoot: f.out });
    expect(inv.headerProblems).toEqual([{ file: 'sdk:modules/base/timer/timer-gpl.js', component: 'moddable-runtime', problem: 'its header says GPL-3.0-or-later, the declaration LGPL-3.0-or-later' }]);
  });

  it('once minimp3 replaces libmad the image lists minimp3 and no GPL, and can ship', () => {
    const f = fixture('after-item-1', { mp3: 'minimp3' });
    const inv = inventory(f.board, { outRoot: f.out });
    const ids = inv.packages.map((p) => p.decl.id);
    expect(ids).toContain('minimp3');
    expect(ids).not.toContain('libmad');
    expect(inv.packages.find((p) => p.decl.id === 'minimp3')!.files).toEqual(['modules/mp3/xs_mp3.c', 'modules/mp3/minimp3/minimp3.h']);
    // Its licence text comes with the vendored sources (modules/mp3/minimp3/LICENSE): until then it is the one thing missing.
    expect(problems(inv).filter((p) => !p.startsWith('no licence text at minimp3:'))).toEqual([]);
  });

  it('writes an SPDX 2.3 document whose every licence is an SPDX expression of listed ids or declared LicenseRefs', () => {
    const f = fixture('spdx', { mp3: 'minimp3' });
    const inv = inventory(f.board, { outRoot: f.out });
    const doc = spdxDocument(inv, { version: 'v1.2.3', created: new Date('2026-11-28T01:02:03.456Z') }) as {
      spdxVersion: string;
      creationInfo: { created: string };
      packages: Array<{ SPDXID: string; licenseConcluded: string; licenseDeclared: string; name: string }>;
      relationships: Array<{ spdxElementId: string; relatedSpdxElement: string; relationshipType: string }>;
      hasExtractedLicensingInfos: Array<{ licenseId: string; extractedText: string }>;
    };
    expect(doc.spdxVersion).toBe('SPDX-2.3');
    expect(doc.creationInfo.created).toBe('2026-11-28T01:02:03Z');
    const refs = new Set(doc.hasExtractedLicensingInfos.map((e) => e.licenseId));
    expect(refs).toEqual(new Set(['LicenseRef-Desk-Assistant-Proprietary', 'LicenseRef-Newlib', 'LicenseRef-FatFs']));
    expect(doc.hasExtractedLicensingInfos.find((e) => e.licenseId === 'LicenseRef-Desk-Assistant-Proprietary')!.extractedText).toContain('reverse engineer');
    const ids = new Set(doc.packages.map((p) => p.SPDXID));
    for (const p of doc.packages) {
      expect(p.SPDXID).toMatch(/^SPDXRef-[a-zA-Z0-9.-]+$/);
      for (const field of [p.licenseConcluded, p.licenseDeclared]) {
        if (field === 'NOASSERTION') continue;
        expect(() => parseSpdx(field), `${p.name}: ${field}`).not.toThrow();
        for (const id of licenseIds(field)) expect(id in spdxList || refs.has(id), `${p.name}: ${id}`).toBe(true);
      }
    }
    for (const r of doc.relationships) for (const id of [r.spdxElementId, r.relatedSpdxElement]) expect(id === 'SPDXRef-DOCUMENT' || ids.has(id), id).toBe(true);
    expect(doc.relationships.filter((r) => r.relationshipType === 'CONTAINS')).toHaveLength(inv.packages.length);
  });

  it('validates against the official SPDX 2.3 JSON schema where a package here carries it', async (ctx) => {
    const schemaPath = officialSchema();
    if (!schemaPath) {
      ctx.skip('no installed package carries the official SPDX 2.3 JSON schema ($id http://spdx.org/rdf/terms/2.3); docs/decisions.md, "Licences of the image"');
      return;
    }
    const { default: Ajv2019 } = await import('ajv/dist/2019.js');
    const ajv = new Ajv2019({ strict: false, allErrors: true });
    const validate = ajv.compile(JSON.parse(readFileSync(schemaPath, 'utf8')));
    const f = fixture('schema', { mp3: 'minimp3' });
    const doc = spdxDocument(inventory(f.board, { outRoot: f.out }), { version: 'v1.2.3' });
    expect(validate(doc), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ ...doc, packages: [{ name: 'no SPDXID' }] })).toBe(false);
  });

  it('the NOTICE names every component, its licence and text, and makes the LGPL offer', () => {
    const f = fixture('notice', { mp3: 'minimp3' });
    const inv = inventory(f.board, { outRoot: f.out });
    const text = noticeText(inv, { version: 'v1.2.3' });
    for (const p of inv.packages) expect(text).toContain(`* ${p.decl.name}`);
    expect(text).toContain('Licence: CC0-1.0');
    expect(text).toMatch(/You may obtain the object files of this\s+firmware, with the build files to relink them/);
    expect(text).toContain('Marvell grants');
  });

  it('the project\'s own licence is one: package.json, LICENSE.md and the firmware\'s declaration, with the LGPL\'s permissions', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { license: string };
    expect(pkg.license).toBe('SEE LICENSE IN LICENSE.md');
    const firmware = COMPONENTS.find((c) => c.id === 'firmware')!;
    expect(firmware.texts).toEqual([['repo', 'LICENSE.md']]);
    const text = readFileSync(join(ROOT, 'LICENSE.md'), 'utf8');
    expect(text).toMatch(/modify the firmware for their\s+own use and reverse engineer it/);
    expect(text).toMatch(/relink/);
  });
});

describe('tools/release.mjs and the licence documents', () => {
  const key = ensureTestSigningKey();
  /** An ESP-IDF app image header (esp_app_desc_t magic at 32, version at 48) and some bytes. */
  const deviceImage = (version: string): string => {
    const b = Buffer.alloc(4096);
    b[0] = 0xe9;
    b.writeUInt32LE(0xabcd5432, 32);
    b.write(version, 48, 'latin1');
    const path = join(tmp, 'images', `${version}.bin`);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, b);
    return path;
  };

  it('writes each type\'s SPDX document, NOTICE and licence texts beside a device image', () => {
    const f = fixture('release-ok', { mp3: 'none' });
    const out = join(tmp, 'updates-ok');
    release({ image: deviceImage('v1.2.3'), version: 'v1.2.3', keyPem: key.pem, out, types: ['panel-35'], licenses: (t) => inventory(t, { outRoot: f.out }) });
    const dir = join(out, 'v1.2.3');
    expect(readdirSync(dir).sort()).toEqual(['desk-v1.2.3.img', 'licenses', 'manifest.json', 'panel-35.NOTICE.txt', 'panel-35.spdx.json']);
    expect(JSON.parse(readFileSync(join(dir, 'panel-35.spdx.json'), 'utf8'))).toMatchObject({ spdxVersion: 'SPDX-2.3', name: 'desk-assistant-firmware-panel-35-v1.2.3' });
    const notice = readFileSync(join(dir, 'panel-35.NOTICE.txt'), 'utf8');
    const named = [...notice.matchAll(/^ {2}Licence text: (.+)$/gm)].flatMap((m) => m[1]!.split(', ')).map((t) => t.replace(/^licenses\//, ''));
    expect(named.length).toBeGreaterThan(5);
    for (const t of named) expect(existsSync(join(dir, 'licenses', t)), t).toBe(true);
  });

  it('refuses a device image that cannot ship (a GPL-only component), writing nothing', () => {
    const f = fixture('release-gpl', { mp3: 'libmad' });
    const out = join(tmp, 'updates-gpl');
    expect(() => release({ image: deviceImage('v1.2.4'), version: 'v1.2.4', keyPem: key.pem, out, types: ['panel-35'], licenses: (t) => inventory(t, { outRoot: f.out }) })).toThrow(
      /^the panel-35 image cannot ship \(docs\/licenses\.md\): GPL-only component in the image: libmad$/,
    );
    expect(existsSync(out)).toBe(false);
  });

  it('writes none for the simulator\'s image, which no device runs', () => {
    const sim = join(tmp, 'images', 'sim.img');
    const meta = Buffer.from(JSON.stringify({ version: 'v1.2.5' }));
    const head = Buffer.alloc(16);
    head.write('DSKIMG01', 0, 'latin1');
    head.writeUInt32LE(meta.length, 8);
    writeFileSync(sim, Buffer.concat([head, meta, Buffer.alloc(64)]));
    const out = join(tmp, 'updates-sim');
    release({ image: sim, version: 'v1.2.5', keyPem: key.pem, out, types: ['panel-35'] });
    expect(readdirSync(join(out, 'v1.2.5')).sort()).toEqual(['desk-v1.2.5.img', 'manifest.json']);
  });
});

/** The official SPDX 2.3 JSON schema, if an installed package carries it (found by its $id). */
function officialSchema(): string | null {
  const seen = new Set<string>();
  const walk = (dir: string, depth: number): string | null => {
    if (depth > 6 || seen.has(dir)) return null;
    seen.add(dir);
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return null;
    }
    for (const e of entries) {
      const p = join(dir, e.name);
      if (e.isDirectory() && e.name !== '.bin') {
        const hit = walk(p, depth + 1);
        if (hit) return hit;
      } else if (/spdx.*schema.*\.json$/i.test(e.name)) {
        const text = readFileSync(p, 'utf8');
        if (text.includes('"http://spdx.org/rdf/terms/2.3"')) return p;
      }
    }
    return null;
  };
  return walk(join(ROOT, 'node_modules'), 0);
}
