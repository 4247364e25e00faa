export declare const FONT_FORMAT: number;
export declare const TEXT_SIZES: number[];
export declare const DIGIT_SIZES: number[];
export declare const CJK_SIZE: number;
export declare function decodeGlyph(bytes: Uint8Array, w: number, h: number): Uint8Array;
export declare function encodeRow(levels: Uint8Array): number[];
export declare function fontAssets(dir: string, options?: { log?: (line: string) => void; roles?: string[] }): Record<string, Buffer>;
