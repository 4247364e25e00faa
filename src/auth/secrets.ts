// The device's live secrets, by kind: one small registry every owner of a
// secret registers into, so the cloud tunnel's screen (src/cloud/dispatch.ts,
// src/auth/secret-screen.ts) asks for the values alive now instead of
// knowing which routes might carry them. Owners and what they register:
//
//   token             the device access token (src/auth/index.ts)
//   signin-code       every live sign-in code (src/auth/index.ts)
//   setup-passphrase  apPass, the setup network's passphrase (src/auth/routes.ts)
//   launch-key        every live connector launch key (src/connectors/index.ts)
//   credential        every value registered with the log redactor: provider
//                     keys, the chat bot token, Wi-Fi passphrases, the relay
//                     credential, connector secrets (src/auth/index.ts)
//
// A source is asked at the moment a tunnelled answer is screened, so a code
// minted a second ago is in the list and an expired one is not.

export const SECRET_KINDS = ['token', 'signin-code', 'setup-passphrase', 'launch-key', 'credential'] as const;
export type SecretKind = (typeof SECRET_KINDS)[number];

export interface LiveSecret {
  kind: SecretKind;
  value: string;
}

/**
 * Values shorter than this are not screened: each is looked for in every
 * byte of every tunnelled answer, and a short value would be found by chance
 * in a large download. Every secret the device makes is longer (codes 12,
 * apPass 10, token 24, launch keys 32 characters), and a WPA2 passphrase has
 * at least 8.
 */
export const SCREEN_MIN = 8;

export class Secrets {
  private sources: Array<{ kind: SecretKind; live: () => Iterable<string> }> = [];

  /** An owner registers how to list its live values of one kind. */
  register(kind: SecretKind, live: () => Iterable<string>): void {
    this.sources.push({ kind, live });
  }

  /**
   * Every live value long enough to screen, once each (the first kind that
   * names a value wins). A source that throws makes this throw: the tunnel
   * then withholds the answer rather than screen it for fewer secrets.
   */
  live(): LiveSecret[] {
    const seen = new Set<string>();
    const out: LiveSecret[] = [];
    for (const s of this.sources) {
      for (const value of s.live()) {
        if (typeof value !== 'string' || value.length < SCREEN_MIN || seen.has(value)) continue;
        seen.add(value);
        out.push({ kind: s.kind, value });
      }
    }
    return out;
  }

  /** The kinds that have a source (a test checks every kind is wired). */
  kinds(): SecretKind[] {
    return [...new Set(this.sources.map((s) => s.kind))];
  }
}
