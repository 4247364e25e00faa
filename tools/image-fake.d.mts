// Types for tools/image-fake.mjs.

export const IMAGE_PATH: string;

export interface FakeAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export interface ImageApi {
  requests: Array<Record<string, unknown>>;
  /** The PNG every answer carries. */
  image: Buffer;
  answer(method: string, url: string, headers: Record<string, string | string[] | undefined>, body: Uint8Array): FakeAnswer;
}

export function png(width: number, height: number, options?: { noise?: boolean }): Buffer;
export function createImageApi(options?: { key?: string; width?: number; height?: number; noise?: boolean }): ImageApi;
