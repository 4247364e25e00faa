// The simulator's app image in a flash slot (docs/sim-protocol.md):
// "DSKIMG01", u32le header json length, u32le bundle length, header json, bundle,
// then the assets region (src/util/asset-pack.ts) when the header's "assets"
// gives its length (images made before assets existed have none).

export const IMAGE_MAGIC = 'DSKIMG01';
export const IMAGE_HEAD = 16;

export interface ImageHeader {
  version: string;
  buildId: string;
  testBuild: boolean;
  target?: string;
  contentHash?: string;
  [k: string]: unknown;
}

export interface ImageLayout {
  header: ImageHeader;
  jsonLength: number;
  bundleLength: number;
  /** Bytes of the assets region after the bundle (0: none). */
  assetsLength: number;
  /** Total bytes: 16 + json + bundle + assets. */
  total: number;
}

/** Parses the first bytes of an image; `readMore` supplies the header json. Returns a reason on failure. */
export function parseImageHead(head: Buffer, slotSize: number, readJson: (offset: number, length: number) => Buffer): ImageLayout | string {
  if (head.length < IMAGE_HEAD || head.toString('latin1', 0, 8) !== IMAGE_MAGIC) return 'no image (bad magic)';
  const jsonLength = head.readUInt32LE(8);
  const bundleLength = head.readUInt32LE(12);
  if (jsonLength > 64 * 1024 || IMAGE_HEAD + jsonLength + bundleLength > slotSize) return `image lengths do not fit the slot (json ${jsonLength}, bundle ${bundleLength})`;
  let header: ImageHeader;
  try {
    header = JSON.parse(readJson(IMAGE_HEAD, jsonLength).toString('utf8')) as ImageHeader;
  } catch {
    return 'image header is not JSON';
  }
  if (typeof header !== 'object' || header === null || typeof header.version !== 'string') return 'image header has no version';
  const assetsLength = header['assets'] === undefined ? 0 : Number(header['assets']);
  if (!Number.isInteger(assetsLength) || assetsLength < 0) return 'image header has a bad assets length';
  const total = IMAGE_HEAD + jsonLength + bundleLength + assetsLength;
  if (total > slotSize) return `image lengths do not fit the slot (json ${jsonLength}, bundle ${bundleLength}, assets ${assetsLength})`;
  return {
    header: { ...header, buildId: String(header.buildId ?? 'unknown'), testBuild: header.testBuild === true },
    jsonLength,
    bundleLength,
    assetsLength,
    total,
  };
}

/** Parses a whole image held in memory (the file the CLI flashes). */
export function parseImage(bytes: Buffer, slotSize: number): ImageLayout | string {
  const r = parseImageHead(bytes.subarray(0, IMAGE_HEAD), slotSize, (o, n) => bytes.subarray(o, o + n));
  if (typeof r === 'string') return r;
  if (bytes.length < r.total) return `image truncated (${bytes.length} of ${r.total} bytes)`;
  return r;
}
