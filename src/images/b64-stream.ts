// Streaming extraction of a base64 JSON string value (the image's b64_json)
// from a response body arriving in chunks, decoded to bytes as it comes, so
// an image of a few MB never sits in RAM as text or as one buffer. It scans
// for the key "b64_json", then decodes the string that follows: base64
// characters, with JSON's escaped slash (\/) read as '/'; other escapes,
// or characters outside base64, are an error.

const KEY = '"b64_json"';

const VALUES = new Int16Array(256).fill(-1);
{
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  let i = 0;
  for (const ch of alphabet) VALUES[ch.codePointAt(0)!] = i++;
}

const QUOTE = 34;
const BACKSLASH = 92;
const COLON = 58;
const EQUALS = 61;

function isSpace(b: number): boolean {
  return b === 32 || b === 9 || b === 10 || b === 13;
}

export class B64ValueStream {
  /** 0 looking for the key, 1 after the key (':' then '"'), 2 in the value, 3 done. */
  private phase = 0;
  private matched = 0;
  private colon = false;
  private escape = false;
  private bits = 0;
  private nbits = 0;
  private padding = 0;
  error: string | null = null;

  constructor(private readonly out: (bytes: Uint8Array) => void) {}

  get done(): boolean {
    return this.phase === 3;
  }

  /** Feeds body bytes; decoded bytes go to out() in runs. */
  feed(chunk: Uint8Array): void {
    if (this.error || this.phase === 3) return;
    const decoded = new Uint8Array(Math.ceil(chunk.length * 0.75) + 3);
    let n = 0;
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (this.phase === 0) {
        // The key's characters are ASCII: compare byte to code unit.
        if (b === KEY.charCodeAt(this.matched)) {
          this.matched++;
          if (this.matched === KEY.length) this.phase = 1;
        } else this.matched = b === KEY.charCodeAt(0) ? 1 : 0;
        continue;
      }
      if (this.phase === 1) {
        if (isSpace(b)) continue;
        if (!this.colon && b === COLON) {
          this.colon = true;
          continue;
        }
        if (this.colon && b === QUOTE) {
          this.phase = 2;
          continue;
        }
        this.error = 'b64_json is not a string';
        return;
      }
      // phase 2: the value
      if (this.escape) {
        this.escape = false;
        if (b !== 47) {
          this.error = 'unexpected escape in b64_json';
          return;
        }
      } else if (b === BACKSLASH) {
        this.escape = true;
        continue;
      } else if (b === QUOTE) {
        this.phase = 3;
        break;
      }
      if (b === EQUALS) {
        this.padding++;
        continue;
      }
      const v = b === 47 ? 63 : VALUES[b]!;
      if (v < 0 || this.padding > 0) {
        this.error = 'b64_json is not base64';
        return;
      }
      this.bits = (this.bits << 6) | v;
      this.nbits += 6;
      if (this.nbits >= 8) {
        this.nbits -= 8;
        decoded[n++] = (this.bits >> this.nbits) & 0xff;
        this.bits &= (1 << this.nbits) - 1;
      }
    }
    if (n) this.out(decoded.subarray(0, n));
  }
}
