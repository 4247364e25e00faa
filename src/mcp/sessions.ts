// Sessions of the 2025 transports (Mcp-Session-Id): initialize mints one,
// and later requests carrying it are known to come from that client, with
// the protocol version it negotiated and the capabilities it declared
// (sampling, elicitation: what a tool may ask it). A small table in RAM: at
// most MAX_SESSIONS, the least recently used dropped first, and one idle
// for IDLE_MS forgotten. A forgotten or unknown id answers 404, after which
// the client initializes again (2025-06-18 transport, "Session Management");
// a reboot forgets them all. A request without the header is still served,
// statelessly, as before sessions existed. 2026-07-28 has no sessions: its
// requests ignore the header.

import type { Clock } from '../hal/index.ts';
import { randomId, type RandomFill } from '../util/ids.ts';

export const MAX_SESSIONS = 8;
export const IDLE_MS = 60 * 60_000;

export interface Session {
  id: string;
  /** The protocol version initialize settled on. */
  version: string;
  /** The client's declared capabilities (initialize params.capabilities). */
  capabilities: Record<string, unknown>;
  lastUsed: number;
}

export class Sessions {
  private readonly table = new Map<string, Session>();

  constructor(
    private readonly clock: Clock,
    private readonly random: RandomFill,
  ) {}

  /** A new session for a client that just initialized. */
  open(version: string, capabilities: Record<string, unknown>): Session {
    this.sweep();
    if (this.table.size >= MAX_SESSIONS) {
      let oldest: Session | null = null;
      for (const s of this.table.values()) if (oldest === null || s.lastUsed < oldest.lastUsed) oldest = s;
      if (oldest) this.table.delete(oldest.id);
    }
    // 128 bits of visible ASCII (the transport asks for a secure, unguessable id).
    const session: Session = { id: randomId(this.random, '', 16), version, capabilities, lastUsed: this.clock.monoMs() };
    this.table.set(session.id, session);
    return session;
  }

  /** The live session with this id (its use noted), or null when unknown or forgotten. */
  get(id: string): Session | null {
    this.sweep();
    const s = this.table.get(id);
    if (!s) return null;
    s.lastUsed = this.clock.monoMs();
    return s;
  }

  get size(): number {
    return this.table.size;
  }

  private sweep(): void {
    const now = this.clock.monoMs();
    for (const [id, s] of this.table) if (now - s.lastUsed > IDLE_MS) this.table.delete(id);
  }
}
