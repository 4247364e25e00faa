// Types of tools/assets.mjs for the tests and the bench.
export declare const ASSETS_DIR: string;
export declare const ASSETS_PACK: string;
export interface AssetDeclaration {
  id: string;
  license: string;
  sources: string[];
  pack: 'image' | 'fonts';
  make(o?: { log?: (line: string) => void }): Promise<Record<string, Uint8Array>>;
}
export declare const ASSETS: AssetDeclaration[];
export declare function packAssets(entries: Array<[string, Uint8Array]>): Uint8Array;
export declare function buildAssets(o?: { log?: (line: string) => void }): Promise<string>;
