// Types for tools/licenses.mjs, for the TypeScript that imports it (tests).
export interface Component {
  id: string;
  name: string;
  version?: string;
  root: 'sdk' | 'repo' | 'idf';
  paths: string[];
  license: string;
  texts: Array<[string, string]>;
  copyright?: string;
  supplier?: string;
  homepage?: string;
  headers?: boolean;
  unlabelled?: string[];
  npm?: string;
  note?: string;
}
export interface LicensePackage {
  decl: Component;
  files: string[];
  found: Map<string, number>;
  version?: string;
}
export interface LicenseInventory {
  board: string;
  sdk: string;
  packages: LicensePackage[];
  unlisted: Array<{ path: string; how: string }>;
  headerProblems: Array<{ file: string; component: string; problem: string }>;
  gplOnly: string[];
  missingTexts: string[];
}
export const ROOT: string;
export function makefileDirOf(board: string, outRoot?: string): string;
export function imageInputs(board: string, options?: { outRoot?: string; root?: string }): { board: string; sdk: string; files: Array<{ root: string; rel: string; how: string }>; unplaced: Array<{ path: string; how: string }> };
export function declarationOf(file: { root: string; rel: string }, components?: Component[]): Component | null;
export function headerLicenses(text: string): Set<string>;
export function licenseIds(expression: string): Set<string>;
export function gplOnly(expression: string): boolean;
export function inventory(board: string, options?: { outRoot?: string; root?: string }): LicenseInventory;
export function spdxDocument(inv: LicenseInventory, options?: { version?: string; created?: Date; root?: string }): Record<string, unknown>;
export function noticeText(inv: LicenseInventory, options?: { version?: string; root?: string }): string;
export function writeLicenseDocuments(inv: LicenseInventory, dir: string, options?: { version?: string; created?: Date; root?: string }): { spdx: string; notice: string; texts: string[] };
export function problems(inv: LicenseInventory): string[];
