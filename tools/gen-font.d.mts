// Types for tools/gen-font.mjs (used by the tests).
export const FONT_SOURCE: string;
export const FONT_OUT: string;
export function parseGlyphs(text: string): Array<{ code: number; rows: number[] }>;
export function fontModule(text: string): string;
