// The device's QR encoder against a well-kept encoder (the `qrcode` npm
// package, module for module with the same mask) and a well-kept decoder
// (jsQR reads what we draw, at the scale the screens draw it).

import jsQR from 'jsqr';
import QRCode from 'qrcode';
import { describe, expect, it } from 'vitest';
import { encodeQr, qrCapacity, qrPenalty, qrTablesConsistent, wifiJoinString, type QrCode } from '../../../src/ui/qr.ts';

/** The symbol as RGBA pixels, with a quiet zone, `scale` pixels per module. */
function image(qr: QrCode, scale = 4, quiet = 4): { data: Uint8ClampedArray; width: number } {
  const width = (qr.size + 2 * quiet) * scale;
  const data = new Uint8ClampedArray(width * width * 4).fill(255);
  for (let y = 0; y < qr.size; y++) {
    for (let x = 0; x < qr.size; x++) {
      if (!qr.modules[y * qr.size + x]) continue;
      for (let dy = 0; dy < scale; dy++) {
        for (let dx = 0; dx < scale; dx++) {
          const i = (((y + quiet) * scale + dy) * width + (x + quiet) * scale + dx) * 4;
          data[i] = data[i + 1] = data[i + 2] = 0;
        }
      }
    }
  }
  return { data, width };
}

function reference(text: string, version: number, ecl: 'L' | 'M', mask: number): Uint8Array {
  const ref = QRCode.create([{ data: Buffer.from(text, 'utf8'), mode: 'byte' }], { version, errorCorrectionLevel: ecl, maskPattern: mask as 0 });
  return Uint8Array.from(ref.modules.data);
}

const SAMPLES = [
  'http://192.168.1.50/?c=ABCD2345',
  wifiJoinString('Device-setup', 'k7m3pq9xzr'),
  'http://desk-a1b2.local/?c=XYZW9876',
  'x',
  'Grüße, café ✓ 日本',
  'A'.repeat(150),
  'b'.repeat(213),
];

describe('QR encoder', () => {
  it('has block tables that add up to each version\'s codewords', () => {
    expect(qrTablesConsistent()).toBe(true);
    expect(qrCapacity(1, 'M')).toBe(14);
    expect(qrCapacity(10, 'M')).toBe(213);
    expect(qrCapacity(10, 'L')).toBe(271);
  });

  it('matches the qrcode package module for module, for every mask', () => {
    for (const text of SAMPLES) {
      const auto = encodeQr(text);
      for (let mask = 0; mask < 8; mask++) {
        const ours = encodeQr(text, { mask, ecl: auto.ecl, minVersion: auto.version });
        expect(ours.version).toBe(auto.version);
        expect(Buffer.from(ours.modules).equals(Buffer.from(reference(text, auto.version, auto.ecl, mask))), `${text.slice(0, 20)} mask ${mask}`).toBe(true);
      }
    }
  });

  it('picks the smallest version at level M and the mask with the lowest penalty', () => {
    const url = encodeQr('http://192.168.1.50/?c=ABCD2345');
    expect(url).toMatchObject({ version: 3, ecl: 'M', size: 29 });
    const scores = [0, 1, 2, 3, 4, 5, 6, 7].map((mask) => qrPenalty(encodeQr('http://192.168.1.50/?c=ABCD2345', { mask }).modules, 29));
    expect(qrPenalty(url.modules, 29)).toBe(Math.min(...scores));
    expect(encodeQr('b'.repeat(214)).ecl).toBe('L');
    expect(() => encodeQr('b'.repeat(272))).toThrow(RangeError);
  });

  it('draws symbols jsQR decodes back to the same text (sign-in link, Wi-Fi join, UTF-8)', () => {
    for (const text of SAMPLES) {
      const qr = encodeQr(text);
      const { data, width } = image(qr);
      const read = jsQR(data, width, width);
      expect(read?.data, text.slice(0, 20)).toBe(text);
      expect(read?.version).toBe(qr.version);
    }
  });

  it('escapes the Wi-Fi join string fields', () => {
    expect(wifiJoinString('My;Net:"x"', 'a\\b,c')).toBe('WIFI:T:WPA;S:My\\;Net\\:\\"x\\";P:a\\\\b\\,c;;');
  });
});
