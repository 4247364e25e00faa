// Types of tools/ca-store.mjs for the tests.
export interface CaRoot {
  slot: number;
  name: string;
  ski: string;
  validTo: string;
}
export declare const SKI_BYTES: number;
export declare function caRootsPem(root: string): string[];
export declare function subjectKeyIdentifier(der: Uint8Array): Uint8Array | null;
export declare function writeCaStore(dir: string, pems: string[]): CaRoot[];
