// The TLS policy of every outbound connection: the embedded CA bundle (the
// real roots, plus the local test CA in the simulator's test builds) and the
// persisted tlsVerify switch (default on; POST /api/orch tlsVerify=0 turns
// validation off globally, except for the relay, which always validates).

import type { TlsPolicy } from './http/client.ts';
import { CA_ROOTS } from './ca-roots.ts';

declare const __TEST_CA_PEM__: string | undefined;

export const CA_BUNDLE: string = CA_ROOTS + (typeof __TEST_CA_PEM__ === 'string' ? __TEST_CA_PEM__ : '');

export const TLS_VERIFY_KEY = 'tlsVerify';

/** Where the setting lives: the kernel's per-subsystem store (src/core/store.ts) fits. */
export interface TlsSettings {
  bool(key: string, fallback: boolean): boolean;
  set(key: string, value: boolean): void;
}

export class DeviceTlsPolicy implements TlsPolicy {
  constructor(private readonly store: TlsSettings) {}
  verify(): boolean {
    return this.store.bool(TLS_VERIFY_KEY, true);
  }
  setVerify(on: boolean): void {
    this.store.set(TLS_VERIFY_KEY, on);
  }
  caBundle(): string {
    return CA_BUNDLE;
  }
}
