// The frame's checksum as RENDER?, RAWFRAME? and GET /api/ui/frame report
// it: sha256 of the frame as the panel holds it (RGB565, host order, display
// rows top to bottom), drawn with secret items redacted, so a checksum never
// confirms a guessed passphrase or code.

import type { Sha256Api } from '../../modules/sha256/sha256.ts';
import { toHex } from '../util/encoding.ts';
import type { Ui } from './ui.ts';

export function frameDigest(sha256: Sha256Api, ui: Ui): { hex: string; redacted: boolean; bytes: number } {
  const list = ui.renderer.current();
  const redacted = !!list?.items.some((i) => (i.kind === 'text' || i.kind === 'qr') && i.secret);
  const h = sha256.create();
  let bytes = 0;
  ui.renderer.eachBand(true, (px) => {
    h.update(new Uint8Array(px.buffer, px.byteOffset, px.byteLength));
    bytes += px.byteLength;
  });
  return { hex: toHex(h.digest()), redacted, bytes };
}
