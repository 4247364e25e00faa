export const TEST_CA_DIR: string;
export function ensureTestCa(): { cert: string; key: string };
export function issueTestCert(names: string[]): { cert: string; key: string };
export function testCaPem(): string;
