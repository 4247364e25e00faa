export declare const TYPEFACES: Record<'sans' | 'cjk', { family: string; file: string; postscriptName?: string; pkg: string; license: string }>;
export declare function ensureTypefaces(log?: (line: string) => void): void;
export declare const OCR_LANGS: { de: 'deu'; fr: 'fra'; pl: 'pol'; ru: 'rus'; el: 'ell'; zh: 'chi_sim'; ja: 'jpn'; ko: 'kor' };
export declare function ensureTesseract(log?: (line: string) => void): void;
